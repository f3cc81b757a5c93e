//go:build interop

package fault

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"net"
	"net/http"
	"os"
	"os/exec"
	"os/user"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/a2a-mcp-bridge/bridge/internal/bridgetest"
)

// The helpers of the lifecycle faults (lifecycle_test.go): event streams
// read line by line, a private PostgreSQL and a private Redis the test may
// stop and restart (never the shared ones), and one-off schemas on the
// shared PostgreSQL.

// streamEvent is one line of interest of an A2A event stream: an event
// (its state and status text) or a comment.
type streamEvent struct {
	Comment string
	State   string
	Text    string
	TaskID  string
	At      time.Time
}

// eventStream is an open JSON-RPC event stream; its events arrive on C,
// which is closed when the stream ends.
type eventStream struct {
	C    chan streamEvent
	resp *http.Response
}

// openStream posts a streaming JSON-RPC call (SendStreamingMessage,
// SubscribeToTask) and reads its events in the background.
func openStream(t *testing.T, url, method string, params any) *eventStream {
	t.Helper()
	body, _ := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": 1, "method": method, "params": params})
	req, _ := http.NewRequest(http.MethodPost, url, bytes.NewReader(body))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "text/event-stream")
	req.Header.Set("A2A-Version", "1.0")
	req.Header.Set("Authorization", "Bearer "+APIKey)
	resp, err := bridgetest.Client.Do(req)
	if err != nil {
		t.Fatalf("fault: %s: %v", method, err)
	}
	if resp.StatusCode != http.StatusOK || !strings.HasPrefix(resp.Header.Get("Content-Type"), "text/event-stream") {
		resp.Body.Close()
		t.Fatalf("fault: %s: status %d, type %q", method, resp.StatusCode, resp.Header.Get("Content-Type"))
	}
	s := &eventStream{C: make(chan streamEvent, 256), resp: resp}
	t.Cleanup(func() { resp.Body.Close() })
	go func() {
		defer close(s.C)
		sc := bufio.NewScanner(resp.Body)
		sc.Buffer(make([]byte, 0, 64<<10), 4<<20)
		for sc.Scan() {
			line := sc.Text()
			switch {
			case strings.HasPrefix(line, ":"):
				if c := strings.TrimSpace(strings.TrimPrefix(line, ":")); c != "keep-alive" {
					s.C <- streamEvent{Comment: c, At: time.Now()}
				}
			case strings.HasPrefix(line, "data:"):
				s.C <- parseEvent(strings.TrimSpace(strings.TrimPrefix(line, "data:")))
			}
		}
	}()
	return s
}

func parseEvent(data string) streamEvent {
	var env struct {
		Result struct {
			Task *struct {
				ID     string       `json:"id"`
				Status statusObject `json:"status"`
			} `json:"task"`
			StatusUpdate *struct {
				TaskID string       `json:"taskId"`
				Status statusObject `json:"status"`
			} `json:"statusUpdate"`
		} `json:"result"`
	}
	ev := streamEvent{At: time.Now()}
	if json.Unmarshal([]byte(data), &env) != nil {
		return ev
	}
	switch r := env.Result; {
	case r.Task != nil:
		ev.TaskID, ev.State, ev.Text = r.Task.ID, r.Task.Status.State, r.Task.Status.text()
	case r.StatusUpdate != nil:
		ev.TaskID, ev.State, ev.Text = r.StatusUpdate.TaskID, r.StatusUpdate.Status.State, r.StatusUpdate.Status.text()
	}
	return ev
}

type statusObject struct {
	State   string `json:"state"`
	Message *struct {
		Parts []struct {
			Text string `json:"text"`
		} `json:"parts"`
	} `json:"message"`
}

func (s statusObject) text() string {
	if s.Message == nil || len(s.Message.Parts) == 0 {
		return ""
	}
	return s.Message.Parts[0].Text
}

// next returns the stream's next event within d; ok false when it ended.
func (s *eventStream) next(t *testing.T, d time.Duration) (streamEvent, bool) {
	t.Helper()
	select {
	case ev, ok := <-s.C:
		return ev, ok
	case <-time.After(d):
		t.Fatalf("fault: no stream event within %s", d)
		return streamEvent{}, false
	}
}

// until reads events until one has state, and returns it; the test fails
// when the stream ends first or d passes.
func (s *eventStream) until(t *testing.T, state string, d time.Duration) streamEvent {
	t.Helper()
	deadline := time.Now().Add(d)
	for {
		ev, ok := s.next(t, time.Until(deadline))
		if !ok {
			t.Fatalf("fault: the stream ended before a %s event", state)
		}
		if ev.State == state {
			return ev
		}
	}
}

// ended waits for the stream's end and returns when it came.
func (s *eventStream) ended(t *testing.T, d time.Duration) time.Time {
	t.Helper()
	deadline := time.Now().Add(d)
	for {
		if _, ok := s.next(t, time.Until(deadline)); !ok {
			return time.Now()
		}
	}
}

// getTask reads a task over JSON-RPC: its state, status text and history
// length.
func getTask(t *testing.T, base, id string) (state, text string, history int) {
	t.Helper()
	_, res, rerr := a2aCall(t, base, "GetTask", map[string]any{"id": id})
	if rerr != nil {
		return "", "error: " + rerr.Message, 0
	}
	var task struct {
		Status  statusObject      `json:"status"`
		History []json.RawMessage `json:"history"`
	}
	_ = json.Unmarshal(res, &task)
	return task.Status.State, task.Status.text(), len(task.History)
}

// startTask sends a message with returnImmediately and returns the task id.
func startTask(t *testing.T, base string, params map[string]any) string {
	t.Helper()
	params["configuration"] = map[string]any{"returnImmediately": true}
	_, res, rerr := a2aCall(t, base, "SendMessage", params)
	if rerr != nil {
		t.Fatalf("fault: SendMessage: %s", rerr.Message)
	}
	var r struct {
		Task struct {
			ID string `json:"id"`
		} `json:"task"`
	}
	if json.Unmarshal(res, &r) != nil || r.Task.ID == "" {
		t.Fatalf("fault: SendMessage answered no task: %s", res)
	}
	return r.Task.ID
}

// privatePostgres is a PostgreSQL server of the test's own, in a
// temporary directory, which the test may stop and restart.
type privatePostgres struct {
	URL  string
	bin  string
	data string
	log  string
	t    *testing.T
}

// startPrivatePostgres initializes and starts a PostgreSQL server on a free
// loopback port (as the postgres user when the test runs as root); it is
// stopped and removed at cleanup. The test skips without the server
// binaries.
func startPrivatePostgres(t *testing.T) *privatePostgres {
	t.Helper()
	bins, _ := filepath.Glob("/usr/lib/postgresql/*/bin/initdb")
	if len(bins) == 0 {
		t.Skip("fault: no PostgreSQL server binaries (/usr/lib/postgresql/*/bin/initdb)")
	}
	dir, err := os.MkdirTemp("", "fault-pg-")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = os.RemoveAll(dir) })
	p := &privatePostgres{bin: filepath.Dir(bins[len(bins)-1]), data: filepath.Join(dir, "data"), log: filepath.Join(dir, "log"), t: t}
	if os.Geteuid() == 0 {
		u, err := user.Lookup("postgres")
		if err != nil {
			t.Skip("fault: running as root without a postgres user to run PostgreSQL as")
		}
		uid, _ := strconv.Atoi(u.Uid)
		gid, _ := strconv.Atoi(u.Gid)
		if err := os.Chown(dir, uid, gid); err != nil {
			t.Fatal(err)
		}
	}
	p.run("initdb", "-D", p.data, "-A", "trust", "-U", "postgres", "--no-sync")
	_, port, _ := net.SplitHostPort(bridgetest.FreeAddr(t))
	p.run("pg_ctl", "-D", p.data, "-l", p.log, "-w", "-t", "60",
		"-o", fmt.Sprintf("-p %s -k %s -c listen_addresses=127.0.0.1 -c fsync=off", port, dir), "start")
	t.Cleanup(func() { p.run("pg_ctl", "-D", p.data, "-m", "immediate", "-w", "stop") })
	p.URL = fmt.Sprintf("postgres://postgres@127.0.0.1:%s/postgres?sslmode=disable", port)
	return p
}

// Restart restarts the server (fast shutdown: every connection is cut),
// on the same port and data. The server's output goes to its log file:
// left on pg_ctl's, it would keep the pipe open for as long as it runs.
func (p *privatePostgres) Restart() {
	p.run("pg_ctl", "-D", p.data, "-l", p.log, "-m", "fast", "-w", "-t", "60", "restart")
}

func (p *privatePostgres) run(name string, args ...string) {
	p.t.Helper()
	path := filepath.Join(p.bin, name)
	var cmd *exec.Cmd
	if os.Geteuid() == 0 {
		cmd = exec.Command("runuser", append([]string{"-u", "postgres", "--", path}, args...)...)
	} else {
		cmd = exec.Command(path, args...)
	}
	if out, err := cmd.CombinedOutput(); err != nil {
		p.t.Fatalf("fault: %s %s: %v\n%s", name, strings.Join(args, " "), err, out)
	}
}

// startPrivateRedis runs a redis-server of the test's own on a free
// loopback port, without persistence; the test skips without redis-server.
func startPrivateRedis(t *testing.T) (*bridgetest.Proc, string) {
	t.Helper()
	bin, err := exec.LookPath("redis-server")
	if err != nil {
		t.Skip("fault: redis-server not found")
	}
	addr := bridgetest.FreeAddr(t)
	_, port, _ := net.SplitHostPort(addr)
	p := bridgetest.StartProc(t, "redis-server", func() *exec.Cmd {
		return exec.Command(bin, "--port", port, "--bind", "127.0.0.1", "--save", "", "--appendonly", "no")
	}, bridgetest.TCPOpen(addr))
	return p, "redis://" + addr + "/0"
}

// callWithKey posts one JSON-RPC SendMessage with key and returns the HTTP
// status.
func callWithKey(t *testing.T, url, key string) int {
	t.Helper()
	body, _ := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": 1, "method": "SendMessage", "params": toolMessage("echo", map[string]any{"text": "hi"})})
	req, _ := http.NewRequest(http.MethodPost, url, bytes.NewReader(body))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("A2A-Version", "1.0")
	req.Header.Set("Authorization", "Bearer "+key)
	resp, err := bridgetest.Client.Do(req)
	if err != nil {
		t.Fatalf("fault: SendMessage: %v", err)
	}
	resp.Body.Close()
	return resp.StatusCode
}

// waitExit waits for p's process to exit by itself and returns when.
func waitExit(t *testing.T, p *bridgetest.Proc, within time.Duration) time.Time {
	t.Helper()
	select {
	case <-p.Exited():
		return time.Now()
	case <-time.After(within):
		t.Fatalf("fault: %s did not exit within %s", p.Name, within)
		return time.Time{}
	}
}

// latencies collects durations from several goroutines.
type latencies struct {
	mu  sync.Mutex
	all []time.Duration
}

func (l *latencies) add(d time.Duration) {
	l.mu.Lock()
	l.all = append(l.all, d)
	l.mu.Unlock()
}

func (l *latencies) max() (time.Duration, int) {
	l.mu.Lock()
	defer l.mu.Unlock()
	var m time.Duration
	for _, d := range l.all {
		m = max(m, d)
	}
	return m, len(l.all)
}
