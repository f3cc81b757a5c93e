package publish_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/a2a-mcp-bridge/bridge/a2a"
	"github.com/a2a-mcp-bridge/bridge/a2a/store"
	"github.com/a2a-mcp-bridge/bridge/a2a/taskmanager"
	"github.com/a2a-mcp-bridge/bridge/mcp/connector"
	"github.com/a2a-mcp-bridge/bridge/mcp/publish"
)

// downUpstream is an MCP server that cannot be reached (the bridge's side
// of the error names its address), until up is called.
type downUpstream struct {
	mu        sync.Mutex
	tools     []connector.Tool
	down      error
	callErr   error
	listeners []func([]connector.Tool)
}

var (
	_ publish.Upstream     = (*downUpstream)(nil)
	_ publish.Availability = (*downUpstream)(nil)
)

var errDial = fmt.Errorf(`upstream "tools": %w: connect: dial tcp 10.1.2.3:8443: connect: connection refused`, connector.ErrUnavailable)

func (d *downUpstream) Tools(context.Context) ([]connector.Tool, error) {
	d.mu.Lock()
	defer d.mu.Unlock()
	if d.down != nil {
		return nil, d.down
	}
	return d.tools, nil
}

func (d *downUpstream) CallTool(ctx context.Context, name string, args json.RawMessage, p connector.ProgressFunc, e connector.ElicitFunc) (json.RawMessage, error) {
	d.mu.Lock()
	defer d.mu.Unlock()
	if d.callErr != nil {
		return nil, d.callErr
	}
	return json.RawMessage(`{"content":[{"type":"text","text":"ok"}]}`), nil
}

func (d *downUpstream) OnToolsChanged(f func([]connector.Tool)) {
	d.mu.Lock()
	d.listeners = append(d.listeners, f)
	d.mu.Unlock()
}

func (d *downUpstream) Available() error {
	d.mu.Lock()
	defer d.mu.Unlock()
	return d.down
}

func (d *downUpstream) up(tools []connector.Tool) {
	d.mu.Lock()
	d.down, d.tools = nil, tools
	ls := d.listeners
	d.mu.Unlock()
	for _, f := range ls {
		f(tools)
	}
}

var echoTool = connector.Tool{Name: "echo", InputSchema: json.RawMessage(`{"type":"object","properties":{"text":{"type":"string"}}}`), Raw: json.RawMessage(`{"name":"echo"}`)}

// TestServerDownAtStartAnswersAgentUnavailable: an agent whose server is
// down at start is built (no skills); a message gets AGENT_UNAVAILABLE at
// once, naming the agent and no address; once the server is up the card
// gets its skills and the same message works.
func TestServerDownAtStartAnswersAgentUnavailable(t *testing.T) {
	up := &downUpstream{down: errDial}
	st := store.NewMemory()
	agent, err := publish.New(publish.Config{Name: "tools", Store: st, Logger: quiet, ProgressInterval: -1}, up)
	if err != nil {
		t.Fatalf("New with the server down: %v", err)
	}
	if n := agent.Skills(); n != 0 {
		t.Fatalf("%d skills while down", n)
	}
	changed := make(chan struct{}, 1)
	agent.OnCardChanged(func() { changed <- struct{}{} })
	mgr, err := taskmanager.New(taskmanager.Config{Store: st, Executor: agent, PollInterval: 20 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	defer mgr.Wait()
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	_, err = mgr.SendMessage(ctx, "alice", &a2a.SendMessageRequest{Message: dataMsg(t, call("echo", map[string]any{"text": "x"}))})
	e := a2a.AsError(err)
	if e.Reason != "AGENT_UNAVAILABLE" || e.Code != -32603 || e.HTTPStatus(a2a.ErrorTableV101) != http.StatusServiceUnavailable {
		t.Fatalf("error while down: %+v", e)
	}
	if !strings.Contains(e.Message, "agent tools is unavailable") || strings.Contains(e.Message, "10.1.2.3") || strings.Contains(e.Message, "dial") {
		t.Fatalf("message %q: want the agent named, no address", e.Message)
	}
	if e.Metadata["agent"] != "tools" {
		t.Errorf("ErrorInfo metadata %v", e.Metadata)
	}
	up.up([]connector.Tool{echoTool})
	select {
	case <-changed:
	case <-ctx.Done():
		t.Fatal("card not rebuilt when the tool list arrived")
	}
	if c := agent.Card("http://x/a2a/tools"); len(c.Skills) != 1 || c.Skills[0].ID != "echo" {
		t.Fatalf("card skills once up: %+v", c.Skills)
	}
	resp, err := mgr.SendMessage(ctx, "alice", &a2a.SendMessageRequest{Message: dataMsg(t, call("echo", map[string]any{"text": "x"}))})
	if err != nil || resp.Task == nil || resp.Task.Status.State != a2a.TaskStateCompleted {
		t.Fatalf("once up: %+v, %v", resp, err)
	}
}

// TestFailedCallShowsNoAddress: a call that fails on the bridge's side of
// the hop says the tool is unavailable and names no address; the server's
// own JSON-RPC error is shown as the server's answer.
func TestFailedCallShowsNoAddress(t *testing.T) {
	for _, tt := range []struct {
		name string
		err  error
		want string
	}{
		{"unreachable", errDial, "tool echo is unavailable: its MCP server cannot be reached; retry later"},
		{"server answered", fmt.Errorf(`upstream "tools": call echo: %w`, &connector.ServerError{Code: -32602, Message: "missing text"}), "tool echo failed: the server answered: missing text"},
		{"other", errors.New(`upstream "tools": call echo: decode http://10.1.2.3:8443/mcp: bad gateway`), "tool echo failed"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			up := &downUpstream{tools: []connector.Tool{echoTool}, callErr: tt.err}
			st := store.NewMemory()
			agent, err := publish.New(publish.Config{Name: "tools", Store: st, Logger: quiet, ProgressInterval: -1}, up)
			if err != nil {
				t.Fatal(err)
			}
			mgr, err := taskmanager.New(taskmanager.Config{Store: st, Executor: agent, PollInterval: 20 * time.Millisecond})
			if err != nil {
				t.Fatal(err)
			}
			defer mgr.Wait()
			ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
			defer cancel()
			resp, err := mgr.SendMessage(ctx, "alice", &a2a.SendMessageRequest{Message: dataMsg(t, call("echo", map[string]any{"text": "x"}))})
			if err != nil || resp.Task == nil {
				t.Fatalf("%+v, %v", resp, err)
			}
			st2 := resp.Task.Status
			if st2.State != a2a.TaskStateFailed || st2.Message == nil || st2.Message.Parts[0].Text != tt.want {
				t.Fatalf("status %+v, want FAILED %q", st2, tt.want)
			}
		})
	}
}
