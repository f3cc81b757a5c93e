package main

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"os"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/a2a-mcp-bridge/bridge/a2a"
	"github.com/a2a-mcp-bridge/bridge/internal/bridgetest"
)

// replica is one `bridge demo` process on the shared PostgreSQL database.
type replica struct {
	*bridgetest.Proc
	base string // the demo agent's base URL
}

func startReplica(t *testing.T, bin, storeURL string) *replica {
	t.Helper()
	addr := bridgetest.FreeAddr(t)
	r := &replica{base: "http://" + addr + "/a2a/echo"}
	r.Proc = bridgetest.StartProc(t, "replica "+addr,
		bridgetest.Command("", nil, bin, "demo", "--addr", addr, "--store", storeURL, "--lease-ttl", "2s", "--maintenance-every", "300ms"),
		bridgetest.HTTPOK("http://"+addr+"/healthz"))
	return r
}

func (r *replica) call(t *testing.T, method string, params any) (json.RawMessage, *a2a.Error) {
	t.Helper()
	p, _ := json.Marshal(params)
	req, _ := http.NewRequest(http.MethodPost, r.base, strings.NewReader(fmt.Sprintf(`{"jsonrpc":"2.0","id":1,"method":%q,"params":%s}`, method, p)))
	req.Header.Set("A2A-Version", "1.0")
	req.Header.Set("Content-Type", "application/json")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var env struct {
		Result json.RawMessage `json:"result"`
		Error  *struct {
			Code    int    `json:"code"`
			Message string `json:"message"`
		} `json:"error"`
	}
	if err := json.NewDecoder(resp.Body).Decode(&env); err != nil {
		t.Fatal(err)
	}
	if env.Error != nil {
		return nil, &a2a.Error{Code: env.Error.Code, Message: env.Error.Message}
	}
	return env.Result, nil
}

func (r *replica) start(t *testing.T, text string) string {
	t.Helper()
	res, err := r.call(t, "SendMessage", a2a.SendMessageRequest{
		Message:       &a2a.Message{MessageID: "m-" + text, Role: a2a.RoleUser, Parts: []a2a.Part{a2a.TextPart(text)}},
		Configuration: &a2a.SendMessageConfiguration{ReturnImmediately: true},
	})
	if err != nil {
		t.Fatalf("send %q: %v", text, err)
	}
	var out a2a.SendMessageResponse
	if e := json.Unmarshal(res, &out); e != nil || out.Task == nil {
		t.Fatalf("send %q: %s", text, res)
	}
	return out.Task.ID
}

func (r *replica) task(t *testing.T, id string) *a2a.Task {
	t.Helper()
	res, err := r.call(t, "GetTask", a2a.GetTaskRequest{ID: id})
	if err != nil {
		t.Fatalf("get %s: %v", id, err)
	}
	var task a2a.Task
	if e := json.Unmarshal(res, &task); e != nil {
		t.Fatal(e)
	}
	return &task
}

// subscribe reads a task's SSE stream to its end and returns the raw events.
func (r *replica) subscribe(t *testing.T, id string) []string {
	t.Helper()
	req, _ := http.NewRequest(http.MethodPost, r.base+"/rest/tasks/"+id+":subscribe", nil)
	req.Header.Set("A2A-Version", "1.0")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Error(err)
		return nil
	}
	defer resp.Body.Close()
	var evs []string
	sc := bufio.NewScanner(resp.Body)
	sc.Buffer(make([]byte, 1<<20), 1<<20)
	for sc.Scan() {
		if line := sc.Text(); strings.HasPrefix(line, "data: ") {
			evs = append(evs, strings.TrimPrefix(line, "data: "))
		}
	}
	return evs
}

// TestTwoBridgeProcessesShareTasksOnPostgres runs two `bridge demo`
// processes on one PostgreSQL database (no sticky sessions): a subscriber on
// B sees what a subscriber on A sees, a cancel on B reaches the executor on
// A, and when A is killed mid-task B ends the task FAILED.
func TestTwoBridgeProcessesShareTasksOnPostgres(t *testing.T) {
	pgURL := os.Getenv("BRIDGE_TEST_POSTGRES_URL")
	if pgURL == "" {
		t.Skip("BRIDGE_TEST_POSTGRES_URL is not set: the two-process replica test needs PostgreSQL")
	}
	ctx := context.Background()
	conn, err := pgx.Connect(ctx, pgURL)
	if err != nil {
		t.Fatalf("connect: %v", err)
	}
	schema := fmt.Sprintf("replicas_%d", time.Now().UnixNano())
	if _, err := conn.Exec(ctx, "CREATE SCHEMA "+schema); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		_, _ = conn.Exec(context.Background(), "DROP SCHEMA "+schema+" CASCADE")
		_ = conn.Close(context.Background())
	})
	sep := "?"
	if strings.Contains(pgURL, "?") {
		sep = "&"
	}
	storeURL := pgURL + sep + "search_path=" + schema

	bin := bridgetest.BridgeBinary(t)
	a := startReplica(t, bin, storeURL)
	b := startReplica(t, bin, storeURL)

	t.Run("subscribers on both replicas see the same events", func(t *testing.T) {
		id := a.start(t, "/slow 3")
		var wg sync.WaitGroup
		var onA, onB []string
		wg.Add(2)
		go func() { defer wg.Done(); onA = a.subscribe(t, id) }()
		go func() { defer wg.Done(); onB = b.subscribe(t, id) }()
		wg.Wait()
		if len(onA) < 2 || len(onB) < 2 {
			t.Fatalf("short streams: A %d events, B %d", len(onA), len(onB))
		}
		for name, evs := range map[string][]string{"A": onA, "B": onB} {
			if !strings.Contains(evs[len(evs)-1], "TASK_STATE_COMPLETED") {
				t.Fatalf("stream on %s does not end at COMPLETED: %s", name, evs[len(evs)-1])
			}
		}
		// After the first (snapshot) event, the shorter stream is a suffix
		// of the longer one: same events, same order.
		ta, tb := onA[1:], onB[1:]
		if len(ta) < len(tb) {
			ta, tb = tb, ta
		}
		if strings.Join(ta[len(ta)-len(tb):], "\n") != strings.Join(tb, "\n") {
			t.Fatalf("the replicas' streams differ:\nA: %v\nB: %v", onA, onB)
		}
	})

	t.Run("a cancel on B reaches the executor on A", func(t *testing.T) {
		id := a.start(t, "/slow 30")
		res, err := b.call(t, "CancelTask", a2a.CancelTaskRequest{ID: id})
		if err != nil {
			t.Fatalf("cancel on B: %v", err)
		}
		var task a2a.Task
		_ = json.Unmarshal(res, &task)
		if task.Status.State != a2a.TaskStateCanceled {
			t.Fatalf("after cancel on B: %s", task.Status.State)
		}
		if msg := task.Status.Message; msg == nil || msg.Parts[0].Text != "canceled by the client" {
			t.Fatalf("the executor on A did not cancel cooperatively: %+v", task.Status.Message)
		}
	})

	t.Run("a second message on B for a task running on A waits, then is refused", func(t *testing.T) {
		id := a.start(t, "/slow 30")
		started := time.Now()
		_, err := b.call(t, "SendMessage", a2a.SendMessageRequest{Message: &a2a.Message{MessageID: "again", TaskID: id, Role: a2a.RoleUser, Parts: []a2a.Part{a2a.TextPart("hello")}}})
		if err == nil || err.Code != a2a.ErrUnsupportedOperation.Code || !strings.Contains(err.Message, "still processing") {
			t.Fatalf("second message: %v", err)
		}
		if waited := time.Since(started); waited < 5*time.Second {
			t.Fatalf("refused after %s without waiting for the run lease", waited)
		}
		if st := a.task(t, id).Status.State; st != a2a.TaskStateWorking {
			t.Fatalf("the running task was disturbed: %s", st)
		}
		_, _ = a.call(t, "CancelTask", a2a.CancelTaskRequest{ID: id})
	})

	t.Run("a replica that dies mid-task: the other ends the task FAILED", func(t *testing.T) {
		id := a.start(t, "/slow 60")
		before := len(b.task(t, id).History)
		a.Kill()
		var task *a2a.Task
		bridgetest.Eventually(t, 30*time.Second, "the dead replica's task ended", func() error {
			if task = b.task(t, id); !task.Status.State.Terminal() {
				return fmt.Errorf("task %s", task.Status.State)
			}
			return nil
		})
		if task.Status.State != a2a.TaskStateFailed || task.Status.Message == nil || !strings.Contains(task.Status.Message.Parts[0].Text, "stopped") {
			t.Fatalf("task after its replica died: %s %+v", task.Status.State, task.Status.Message)
		}
		if len(task.History) < before {
			t.Fatalf("acknowledged history lost: %d messages before, %d after", before, len(task.History))
		}
	})
}
