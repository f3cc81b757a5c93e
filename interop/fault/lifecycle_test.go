//go:build interop

package fault

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/a2a-mcp-bridge/bridge/a2a/store/storetest"
	"github.com/a2a-mcp-bridge/bridge/internal/bridgetest"
)

// The lifecycle faults: processes killed mid-task, shutdowns, a store or a
// limit store going away, slow clients, a reload. Configs keep leases and
// graces short so that the suite stays quick; the bounds asserted are the
// ones the configuration reference promises (lease TTL + 5 s, grace + 2 s,
// read_timeout).

// leaseTTL is the run lease of the lifecycle configs.
const leaseTTL = 2 * time.Second

// recoveryBound is what the bridge promises for a task whose process died:
// FAILED within the lease TTL plus 5 s.
const recoveryBound = leaseTTL + 5*time.Second

// publishTools is a config section publishing the MCP test server over
// stdio as the agent "tools" (tools echo, block, slow, …).
func publishTools(t *testing.T) string {
	return fmt.Sprintf("publish:\n  - name: tools\n    stdio: {command: %q}\n", bridgetest.MCPTestServerBinary(t))
}

// lifecycle is the part of every lifecycle config that sets the lease.
const lifecycle = "tasks: {lease_ttl: 2s}\n"

// TestFault_ReplicaKilledMidTaskOnPostgres: two replicas on one PostgreSQL
// schema front the @a2a-js/sdk agent (front.a2a only, nothing published:
// recovery used to run only with publish). A task runs on replica A, a
// client subscribes to it on replica B; A is SIGKILLed. B fails the task
// within the lease TTL + 5 s, the subscriber gets the FAILED event and its
// stream ends, and the history written before the kill is intact.
func TestFault_ReplicaKilledMidTaskOnPostgres(t *testing.T) {
	storeURL := storetest.PostgresSchema(t)
	agentAddr := bridgetest.FreeAddr(t)
	startA2AJS(t, agentAddr)
	cfg := fmt.Sprintf("store: %q\n", storeURL) + apiKeyAuth + allowAll + lifecycle +
		"netguard: {unsafe_allow: [127.0.0.0/8], unsafe_allow_http: true}\n" +
		"front:\n  a2a:\n    - {name: agent, url: \"http://" + agentAddr + "/.well-known/agent-card.json\"}\n"
	a := startBridge(t, cfg)
	b := startBridge(t, cfg)
	for _, r := range []*bridgetest.Bridge{a, b} {
		bridgetest.Eventually(t, 30*time.Second, "the fronted agent's card loaded", func() error {
			if code, rd, _ := bridgetest.Readyz(t, r.URL); code != http.StatusOK {
				return fmt.Errorf("readyz %d: %v", code, rd.NotReady)
			}
			return nil
		})
	}
	id := startTask(t, a.URL+"/a2a/agent", textMessage("/slow 60"))
	sub := openStream(t, b.URL+"/a2a/agent", "SubscribeToTask", map[string]any{"id": id})
	sub.until(t, "TASK_STATE_WORKING", 20*time.Second)
	// A WORKING update written by A after B subscribed: the task runs.
	sub.until(t, "TASK_STATE_WORKING", 10*time.Second)
	_, _, before := getTask(t, b.URL+"/a2a/agent", id)

	a.Kill()
	killed := time.Now()
	ev := sub.until(t, "TASK_STATE_FAILED", recoveryBound+5*time.Second)
	took := ev.At.Sub(killed)
	end := sub.ended(t, 5*time.Second)
	state, text, after := getTask(t, b.URL+"/a2a/agent", id)
	t.Logf("replica SIGKILLed mid-task: the other replica failed the task %s after the kill (bound %s); the subscriber's stream ended %s after the kill; history %d → %d messages",
		took.Round(time.Millisecond), recoveryBound, end.Sub(killed).Round(time.Millisecond), before, after)
	if took > recoveryBound {
		t.Errorf("task failed %s after the kill, want within %s", took, recoveryBound)
	}
	if state != "TASK_STATE_FAILED" || !strings.Contains(text, "stopped before it finished") || after != before+1 {
		t.Errorf("task after recovery: %s %q, history %d messages (before the kill %d), want FAILED, the orphan message, one message more", state, text, after, before)
	}
}

// TestFault_SingleNodeKilledAndRestartedOnSQLite: one bridge on SQLite runs
// a long tool call; the bridge is SIGKILLed and started again. The task is
// FAILED within the lease TTL + 5 s of the kill, and a client that
// subscribed after the restart gets the final event.
func TestFault_SingleNodeKilledAndRestartedOnSQLite(t *testing.T) {
	db := filepath.Join(t.TempDir(), "bridge.db")
	cfg := fmt.Sprintf("store: %q\n", "sqlite:"+db) + apiKeyAuth + allowAll + lifecycle + publishTools(t)
	br := startBridge(t, cfg)
	id := startTask(t, br.URL+"/a2a/tools", toolMessage("block", map[string]any{}))
	bridgetest.Eventually(t, 10*time.Second, "the tool call running", func() error {
		if st, _, _ := getTask(t, br.URL+"/a2a/tools", id); st != "TASK_STATE_WORKING" {
			return fmt.Errorf("state %q", st)
		}
		return nil
	})

	br.Kill()
	killed := time.Now()
	br.Start()
	restarted := time.Since(killed)
	state, _, _ := getTask(t, br.URL+"/a2a/tools", id)
	var sub *eventStream
	if state == "TASK_STATE_WORKING" {
		sub = openStream(t, br.URL+"/a2a/tools", "SubscribeToTask", map[string]any{"id": id})
	}
	took := bridgetest.Eventually(t, recoveryBound+5*time.Second, "the task failed after the restart", func() error {
		if st, _, _ := getTask(t, br.URL+"/a2a/tools", id); st != "TASK_STATE_FAILED" {
			return fmt.Errorf("state %q", st)
		}
		return nil
	}) + restarted
	t.Logf("single node SIGKILLed and restarted on SQLite: back up in %s, task FAILED %s after the kill (bound %s)",
		restarted.Round(time.Millisecond), took.Round(time.Millisecond), recoveryBound)
	if took > recoveryBound+time.Second { // the poll's own period on top
		t.Errorf("task failed %s after the kill, want within %s", took, recoveryBound)
	}
	if sub != nil {
		ev := sub.until(t, "TASK_STATE_FAILED", 5*time.Second)
		if !strings.Contains(ev.Text, "stopped before it finished") {
			t.Errorf("final event text %q", ev.Text)
		}
		sub.ended(t, 5*time.Second)
	}
}

// TestFault_SIGTERMDuringLongTaskWithOpenStream: SIGTERM while a stream
// follows a tool call that does not end by itself. The stream is told the
// server is going away, stays open through the grace, then gets the task's
// final event (FAILED, "the bridge shut down…") and ends; the process exits
// within the grace plus 2 s.
func TestFault_SIGTERMDuringLongTaskWithOpenStream(t *testing.T) {
	const grace = 2 * time.Second
	cfg := fmt.Sprintf("store: %q\n", "sqlite:"+filepath.Join(t.TempDir(), "bridge.db")) + apiKeyAuth + allowAll + lifecycle +
		"server: {shutdown_grace: 2s}\n" + publishTools(t)
	br := startBridge(t, cfg)
	s := openStream(t, br.URL+"/a2a/tools", "SendStreamingMessage", toolMessage("block", map[string]any{}))
	first := s.until(t, "TASK_STATE_WORKING", 10*time.Second)
	// Idle long enough to be released from net/http (250 ms): the released
	// path must get its final event too. The idle time is the fault, not a
	// wait for a condition.
	time.Sleep(500 * time.Millisecond)

	br.Signal(syscall.SIGTERM)
	signalled := time.Now()
	var told time.Time
	var final streamEvent
	for final.State == "" {
		ev, ok := s.next(t, grace+5*time.Second)
		if !ok {
			t.Fatal("the stream ended without a final event")
		}
		switch {
		case ev.Comment == "server shutting down":
			told = ev.At
		case ev.State == "TASK_STATE_FAILED" || ev.State == "TASK_STATE_CANCELED" || ev.State == "TASK_STATE_COMPLETED":
			final = ev
		}
	}
	end := s.ended(t, 5*time.Second)
	exited := waitExit(t, br.Proc, grace+10*time.Second)
	t.Logf("SIGTERM during a long task: stream told %s after the signal, final event %s after, stream ended %s after, process exited %s after (grace %s, bound %s)",
		told.Sub(signalled).Round(time.Millisecond), final.At.Sub(signalled).Round(time.Millisecond),
		end.Sub(signalled).Round(time.Millisecond), exited.Sub(signalled).Round(time.Millisecond), grace, grace+2*time.Second)
	if told.IsZero() {
		t.Error("the stream was not told the server is going away")
	}
	if final.State != "TASK_STATE_FAILED" || !strings.Contains(final.Text, "the bridge shut down") || final.TaskID != first.TaskID {
		t.Errorf("final event %+v, want FAILED \"the bridge shut down…\" for task %s", final, first.TaskID)
	}
	if d := final.At.Sub(signalled); d < grace-200*time.Millisecond {
		t.Errorf("the task was ended %s after SIGTERM, before the grace (%s) was up", d, grace)
	}
	if d := exited.Sub(signalled); d > grace+2*time.Second {
		t.Errorf("the process exited %s after SIGTERM, want within %s", d, grace+2*time.Second)
	}
}

// TestFault_PostgresRestartedWhileServing: a bridge on a PostgreSQL of the
// test's own serves calls and one open stream while the database restarts
// (every connection cut). Calls fail while it is down; the bridge is not
// restarted, serves again by itself, and every call it acknowledged is in
// the store, completed.
func TestFault_PostgresRestartedWhileServing(t *testing.T) {
	pg := startPrivatePostgres(t)
	cfg := fmt.Sprintf("store: %q\n", pg.URL) + apiKeyAuth + allowAll + lifecycle + publishTools(t)
	br := startBridge(t, cfg)
	pid := br.PID()
	base := br.URL + "/a2a/tools"

	var mu sync.Mutex
	acked := map[string]bool{}
	failures := 0
	call := func() bool {
		code, res, rerr := a2aCall(t, base, "SendMessage", toolMessage("echo", map[string]any{"text": "x"}))
		if code != http.StatusOK || rerr != nil || taskState(res) != "TASK_STATE_COMPLETED" {
			mu.Lock()
			failures++
			mu.Unlock()
			return false
		}
		var r struct {
			Task struct {
				ID string `json:"id"`
			} `json:"task"`
		}
		_ = json.Unmarshal(res, &r)
		mu.Lock()
		acked[r.Task.ID] = true
		mu.Unlock()
		return true
	}
	for range 5 {
		if !call() {
			t.Fatal("a call failed before the restart")
		}
	}
	restartStart := time.Now()
	done := make(chan struct{})
	go func() { defer close(done); pg.Restart() }()
	for {
		select {
		case <-done:
		default:
			call()
			time.Sleep(50 * time.Millisecond) // load while PostgreSQL restarts: pacing, not a wait
			continue
		}
		break
	}
	restarted := time.Since(restartStart)
	took := bridgetest.Eventually(t, 30*time.Second, "calls succeeding again after the restart", func() error {
		if !call() {
			return fmt.Errorf("call failed")
		}
		return nil
	})
	for range 5 {
		call()
	}
	if br.PID() != pid || !br.Running() {
		t.Fatal("the bridge process restarted or exited")
	}
	mu.Lock()
	ids := make([]string, 0, len(acked))
	for id := range acked {
		ids = append(ids, id)
	}
	fails := failures
	mu.Unlock()
	for _, id := range ids {
		if st, _, hist := getTask(t, base, id); st != "TASK_STATE_COMPLETED" || hist < 1 {
			t.Errorf("acknowledged task %s is %q with %d messages after the restart", id, st, hist)
		}
	}
	t.Logf("PostgreSQL restarted while serving: the restart took %s; calls succeeded again %s after it; %d calls acknowledged, all in the store; %d failed meanwhile; same bridge process",
		restarted.Round(time.Millisecond), took.Round(time.Millisecond), len(ids), fails)
	if took > 10*time.Second {
		t.Errorf("calls failed for %s after the database was back", took)
	}
}

// testRedisDown: limits in a private Redis; Redis is killed. Under
// on_redis_error: open, calls keep working while it is down; under closed,
// they are refused with 503; once Redis is back, counting resumes.
func testRedisDown(t *testing.T, mode string) {
	redis, url := startPrivateRedis(t)
	cfg := "store: \"memory:\"\n" + apiKeyAuth + allowAll + publishTools(t) +
		fmt.Sprintf("redis: %q\nlimits:\n  on_redis_error: %s\n  rules:\n    - {per: principal, rate: 1000/m}\n", url, mode)
	br := startBridge(t, cfg)
	base := br.URL + "/a2a/tools"
	if code := callWithKey(t, base, APIKey); code != http.StatusOK {
		t.Fatalf("before: status %d", code)
	}
	redis.Kill()
	down := time.Now()
	want := http.StatusOK
	if mode == "closed" {
		want = http.StatusServiceUnavailable
	}
	var codes []int
	var worst time.Duration
	for range 5 {
		start := time.Now()
		codes = append(codes, callWithKey(t, base, APIKey))
		worst = max(worst, time.Since(start))
	}
	for _, c := range codes {
		if c != want {
			t.Errorf("while Redis is down (fail %s): statuses %v, want all %d", mode, codes, want)
			break
		}
	}
	redis.Start()
	back := bridgetest.Eventually(t, 30*time.Second, "calls counted in Redis again", func() error {
		if code := callWithKey(t, base, APIKey); code != http.StatusOK {
			return fmt.Errorf("status %d", code)
		}
		v, ok := bridgetest.Metric(t, br.URL, "bridge_ratelimit_store_errors_total", nil)
		if !ok || v == 0 {
			return fmt.Errorf("no store error counted (%v, %v)", v, ok)
		}
		return nil
	})
	t.Logf("Redis down under fail-%s: calls answered %v while down (slowest %s), counting again %s after Redis came back (down %s in all)",
		mode, codes, worst.Round(time.Millisecond), back.Round(time.Millisecond), time.Since(down).Round(time.Millisecond))
	if worst > 2*time.Second {
		t.Errorf("a call took %s while Redis was down", worst)
	}
}

func TestFault_RedisDownUnderFailOpen(t *testing.T)   { testRedisDown(t, "open") }
func TestFault_RedisDownUnderFailClosed(t *testing.T) { testRedisDown(t, "closed") }

// TestFault_TricklingBodyConnectionsCut: 200 clients send their headers and
// then trickle their bodies one byte a second, on four endpoints. Every
// connection is closed within read_timeout (plus slack), while normal calls
// stay fast.
func TestFault_TricklingBodyConnectionsCut(t *testing.T) {
	const readTimeout = 2 * time.Second
	// The 200 clients authenticate from one address: the per-address limit
	// on verifications (another guard) is raised so that it does not bite.
	cfg := "store: \"memory:\"\n" + apiKeyAuth + "  ip_limit: {rate: 10000, burst: 10000}\n" + allowAll + publishTools(t) + "server: {read_timeout: 2s}\n"
	br := startBridge(t, cfg)
	paths := []string{"/a2a/tools", "/a2a/tools/rest/message:send", "/healthz", "/.well-known/agent-card.json"}
	const n = 200
	closed := make(chan time.Duration, n)
	start := time.Now()
	var wg sync.WaitGroup
	for i := range n {
		wg.Go(func() {
			c, err := net.Dial("tcp", br.Addr)
			if err != nil {
				closed <- -1
				return
			}
			defer c.Close()
			fmt.Fprintf(c, "POST %s HTTP/1.1\r\nHost: %s\r\nContent-Type: application/json\r\nA2A-Version: 1.0\r\nAuthorization: Bearer %s\r\nContent-Length: 4096\r\n\r\n", paths[i%len(paths)], br.Addr, APIKey)
			gone := make(chan struct{})
			go func() { _, _ = io.Copy(io.Discard, c); close(gone) }()
			tick := time.NewTicker(time.Second)
			defer tick.Stop()
			giveUp := time.After(readTimeout + 20*time.Second)
			for {
				select {
				case <-gone:
					closed <- time.Since(start)
					return
				case <-tick.C:
					if _, err := c.Write([]byte(" ")); err != nil {
						<-gone
						closed <- time.Since(start)
						return
					}
				case <-giveUp:
					closed <- -2
					return
				}
			}
		})
	}
	// Normal calls while the trickling connections are open.
	var lat latencies
	for range 20 {
		t0 := time.Now()
		if code := callWithKey(t, br.URL+"/a2a/tools", APIKey); code != http.StatusOK {
			t.Errorf("a normal call got %d", code)
		}
		lat.add(time.Since(t0))
		time.Sleep(50 * time.Millisecond) // pacing of the normal calls, not a wait
	}
	wg.Wait()
	close(closed)
	var last time.Duration
	open := 0
	for d := range closed {
		if d < 0 {
			open++
			continue
		}
		last = max(last, d)
	}
	worst, calls := lat.max()
	t.Logf("200 trickling-body connections: all closed by %s (read_timeout %s), %d left open; %d normal calls meanwhile, slowest %s",
		last.Round(time.Millisecond), readTimeout, open, calls, worst.Round(time.Millisecond))
	if open > 0 {
		t.Errorf("%d connections were never closed", open)
	}
	if last > readTimeout+3*time.Second {
		t.Errorf("the last trickling connection closed after %s, want within %s + 3s", last, readTimeout)
	}
	if worst > time.Second {
		t.Errorf("a normal call took %s while trickling connections were open", worst)
	}
}

// TestFault_SIGHUPRemovingAPIKey: an API key is removed from the file and
// the bridge is sent SIGHUP; the key is refused from the next request on,
// the other key keeps working, and one log line says what changed.
func TestFault_SIGHUPRemovingAPIKey(t *testing.T) {
	const other = "second-key"
	sum := sha256.Sum256([]byte(other))
	twoKeys := strings.Replace(apiKeyAuth, "    - {name: tester,",
		"    - {name: other, sha256: "+hex.EncodeToString(sum[:])+"}\n    - {name: tester,", 1)
	policy := "policy:\n  default: deny\n  rules:\n    - {name: all, allow: 'principal.subject == \"tester\" || principal.subject == \"other\"'}\n"
	cfg := "store: \"memory:\"\n" + policy + publishTools(t)
	br := startBridge(t, cfg+twoKeys)
	base := br.URL + "/a2a/tools"
	for range 3 { // warm every cache there is
		if code := callWithKey(t, base, other); code != http.StatusOK {
			t.Fatalf("the second key before the reload: %d", code)
		}
	}
	br.WriteConfig(t, cfg+apiKeyAuth)
	br.Signal(syscall.SIGHUP)
	took := bridgetest.Eventually(t, 10*time.Second, "the removed key refused", func() error {
		if code := callWithKey(t, base, other); code != http.StatusUnauthorized {
			return fmt.Errorf("status %d", code)
		}
		return nil
	})
	if code := callWithKey(t, base, APIKey); code != http.StatusOK {
		t.Errorf("the kept key after the reload: %d", code)
	}
	// Info lines reach the output in batches (observability.log_flush_interval):
	// wait for the reload's line rather than read the output once.
	var line map[string]any
	ok := false
	bridgetest.Eventually(t, 10*time.Second, "the reload's log line", func() error {
		if line, ok = br.LogLine("configuration reloaded", nil); !ok {
			return errors.New("not logged yet")
		}
		return nil
	})
	t.Logf("SIGHUP removing an API key: refused %s after the signal; log: %v", took.Round(time.Millisecond), line)
	if took > 5*time.Second {
		t.Errorf("the removed key still worked %s after SIGHUP", took)
	}
	if !ok || !strings.Contains(fmt.Sprint(line["applied"]), "auth.api_keys") {
		t.Errorf("reload log line %v, want applied to name auth.api_keys", line)
	}
}
