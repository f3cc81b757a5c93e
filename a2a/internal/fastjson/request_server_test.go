//go:build !bridge_nofastjson

package fastjson_test

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"reflect"
	"strings"
	"sync"
	"testing"

	"github.com/a2a-mcp-bridge/bridge/a2a"
	"github.com/a2a-mcp-bridge/bridge/a2a/internal/fastjson"
	"github.com/a2a-mcp-bridge/bridge/a2a/server"
	"github.com/a2a-mcp-bridge/bridge/a2a/taskmanager"
)

// The server answers every request of the fast path's table the same with
// the fast path off and on.

// fastReqStore is a store that knows one task; the server test reads it
// with GetTask. Any other call panics on the nil Store.
type fastReqStore struct {
	taskmanager.Store
}

func (fastReqStore) GetTask(_ context.Context, _, id string) (*taskmanager.TaskRecord, error) {
	if id != "task-1" {
		return nil, a2a.ErrTaskNotFound
	}
	return &taskmanager.TaskRecord{Task: *fastjson.FastCanonicalTask(), Version: 1}, nil
}

// fastReqExecutor is never reached: the guard stops every send.
type fastReqExecutor struct{}

func (fastReqExecutor) Execute(context.Context, *taskmanager.Request, *taskmanager.Updater) error {
	return nil
}

func (fastReqExecutor) Cancel(context.Context, *taskmanager.Request, *taskmanager.Updater) error {
	return nil
}

// fastReqCall is what the guard saw of a call.
type fastReqCall struct {
	Method, TaskID, Skill string
	Params                any
}

// TestFastRequestServerAnswers sends every body of the table through the
// server over HTTP with the fast path off and on, and compares the status,
// the content type and the body byte for byte, and the call the guard
// saw. The guard lets GetTask through to a store that knows one task and
// refuses every other call with an error that spells out its params, so
// the answers are deterministic and carry what was parsed.
func TestFastRequestServerAnswers(t *testing.T) {
	fastjson.FastQuietLog(t)
	mgr, err := taskmanager.New(taskmanager.Config{Store: fastReqStore{}, Executor: fastReqExecutor{}, Logger: slog.New(slog.DiscardHandler)})
	if err != nil {
		t.Fatal(err)
	}
	var mu sync.Mutex
	var seen *fastReqCall
	srv, err := server.New(server.Config{
		Manager: mgr,
		Card:    &a2a.AgentCard{Name: "fast", Version: "1", Capabilities: a2a.AgentCapabilities{Streaming: a2a.Ptr(true)}},
		Logger:  slog.New(slog.DiscardHandler),
		Guard: func(_ context.Context, c *server.Call) error {
			mu.Lock()
			seen = &fastReqCall{c.Method, c.TaskID, c.Skill, c.Params}
			mu.Unlock()
			if c.Method == a2a.MethodGetTask {
				return nil
			}
			b, err := json.Marshal(c.Params)
			if err != nil {
				return err
			}
			return a2a.ErrUnsupportedOperation.Withf("guard: %s task %q skill %q params %s", c.Method, c.TaskID, c.Skill, b)
		},
	})
	if err != nil {
		t.Fatal(err)
	}
	hs := httptest.NewServer(srv)
	defer hs.Close()
	t.Cleanup(func() { fastjson.SetRequestPathOffForTests(false) })

	type answer struct {
		status int
		ctype  string
		body   []byte
		call   *fastReqCall
	}
	post := func(body string, off bool) answer {
		t.Helper()
		fastjson.SetRequestPathOffForTests(off)
		mu.Lock()
		seen = nil
		mu.Unlock()
		req, err := http.NewRequest(http.MethodPost, hs.URL+"/", strings.NewReader(body))
		if err != nil {
			t.Fatal(err)
		}
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("A2A-Version", "1.0")
		resp, err := hs.Client().Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		b, err := io.ReadAll(resp.Body)
		if err != nil {
			t.Fatal(err)
		}
		mu.Lock()
		defer mu.Unlock()
		return answer{resp.StatusCode, resp.Header.Get("Content-Type"), b, seen}
	}
	bodies := []string{
		fastjson.FastReqRPC(a2a.MethodGetTask, `{"id":"task-1"}`),
		fastjson.FastReqRPC(a2a.MethodGetTask, `{"id":"task-1","historyLength":1}`),
		fastjson.FastReqRPC(a2a.MethodGetTask, `{"id":"task-1","historyLength":0}`),
		fastjson.FastReqRPC(a2a.MethodGetTask, `{"id":"task-1","history_length":1}`),
		fastjson.FastReqRPC(a2a.MethodGetTask, `{"id":"task-1","historyLength":-1}`),
		fastjson.FastReqRPC(a2a.MethodGetTask, `{"id":"task-2"}`),
		fastjson.FastReqRPC(a2a.MethodGetTask, `{}`),
	}
	for _, b := range fastjson.FastReqBodies() {
		if len(b) < 4096 { // the deep bodies add nothing here but time
			bodies = append(bodies, b)
		}
	}
	for _, body := range bodies {
		slow := post(body, true)
		fast := post(body, false)
		if slow.status != fast.status || slow.ctype != fast.ctype || !bytes.Equal(slow.body, fast.body) {
			t.Errorf("%q:\nfast path on:  %d %s %s\nfast path off: %d %s %s", body, fast.status, fast.ctype, fast.body, slow.status, slow.ctype, slow.body)
		}
		if !reflect.DeepEqual(slow.call, fast.call) {
			t.Errorf("%q: guard saw %#v, with the fast path off %#v", body, fast.call, slow.call)
		}
	}
	// The task is served whole through the fast path, not only refused.
	if a := post(bodies[0], false); a.status != http.StatusOK || !bytes.Contains(a.body, []byte(`"id":"task-1"`)) {
		t.Fatalf("GetTask: %d %s", a.status, a.body)
	}
	mgr.Wait()
}
