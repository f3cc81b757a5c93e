//go:build interop

package mcpexpose

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"path/filepath"
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

// TestTSServerQuestionsPublished publishes an MCP server written on the
// official TypeScript SDK (testdata/asking-server.mjs, stdio, 2025-11-25,
// whose elicitation/create names no call) as an A2A agent. Two A2A callers
// call its asking tool at once: each is asked its own question and each
// answer reaches its own call (the second is not declined on its user's
// behalf); an answer outside the requested schema gets InvalidParams and
// the question stands; the result keeps the text's annotations and _meta
// and the resource link's title and description.
func TestTSServerQuestionsPublished(t *testing.T) {
	node := requireNode(t, ".")
	script, _ := filepath.Abs("testdata/asking-server.mjs")
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	quiet := slog.New(slog.DiscardHandler)
	conn, err := connector.Dial(ctx, connector.Config{
		Name: "asking", Stdio: &connector.StdioConfig{Command: node, Args: []string{script}, InheritEnv: []string{"PATH", "HOME"}},
		NoSampling: true, Logger: quiet,
	})
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	if v := conn.ProtocolVersion(); v != connector.Era20251125 {
		t.Fatalf("negotiated %s, want the handshake era 2025-11-25", v)
	}
	st := store.NewMemory()
	agent, err := publish.New(publish.Config{Name: "asking", Store: st, Logger: quiet}, conn)
	if err != nil {
		t.Fatal(err)
	}
	mgr, err := taskmanager.New(taskmanager.Config{Store: st, Executor: agent, Logger: quiet})
	if err != nil {
		t.Fatal(err)
	}
	defer mgr.Wait()
	send := func(owner string, msg *a2a.Message) (*a2a.Task, error) {
		resp, err := mgr.SendMessage(ctx, owner, &a2a.SendMessageRequest{Message: msg})
		if err != nil {
			return nil, err
		}
		if resp.Task == nil {
			return nil, errors.New("no task")
		}
		return resp.Task, nil
	}
	data := func(id, task string, v any) *a2a.Message {
		p, err := a2a.DataPart(v)
		if err != nil {
			t.Fatal(err)
		}
		return &a2a.Message{MessageID: id, TaskID: task, Role: a2a.RoleUser, Parts: []a2a.Part{p}}
	}

	var wg sync.WaitGroup
	errs := make([]error, 2)
	for i := range errs {
		owner := fmt.Sprintf("caller%d", i+1)
		wg.Go(func() {
			errs[i] = func() error {
				task, err := send(owner, data(owner+"-call", "", map[string]any{"tool": "ask", "arguments": map[string]any{}}))
				if err != nil {
					return err
				}
				if task.Status.State != a2a.TaskStateInputRequired {
					return fmt.Errorf("state %s, want INPUT_REQUIRED (was the question declined?)", task.Status.State)
				}
				bad := data(owner+"-bad", task.ID, map[string]any{"response": owner})
				var ae *a2a.Error
				if err := agent.CheckAnswer(owner, task.ID, bad); !errors.As(err, &ae) || ae.Code != a2a.ErrInvalidParams.Code {
					return fmt.Errorf("an answer outside the schema: %v, want InvalidParams", err)
				}
				again, err := send(owner, bad)
				if err != nil {
					return err
				}
				if again.Status.State != a2a.TaskStateInputRequired {
					return fmt.Errorf("after a bad answer: %s, want the question to stand", again.Status.State)
				}
				done, err := send(owner, data(owner+"-good", task.ID, map[string]any{"name": owner}))
				if err != nil {
					return err
				}
				if done.Status.State != a2a.TaskStateCompleted || len(done.Artifacts) != 1 {
					return fmt.Errorf("final %s with %d artifacts", done.Status.State, len(done.Artifacts))
				}
				parts := done.Artifacts[0].Parts
				if len(parts) != 2 || parts[0].Text != "Hello, "+owner+"!" {
					return fmt.Errorf("parts %+v: want the caller's own answer", parts)
				}
				ann, _ := parts[0].Metadata[publish.MetaAnnotations].(map[string]any)
				meta, _ := parts[0].Metadata[publish.MetaMeta].(map[string]any)
				if ann["priority"] != 0.5 || meta["example.com/greeting"] != true {
					return fmt.Errorf("text part metadata %+v", parts[0].Metadata)
				}
				if parts[1].Metadata[publish.MetaTitle] != "Greeting" || !strings.Contains(fmt.Sprint(parts[1].Metadata[publish.MetaDescription]), "as a file") {
					return fmt.Errorf("link part %+v", parts[1])
				}
				return nil
			}()
		})
	}
	wg.Wait()
	for i, err := range errs {
		if err != nil {
			t.Errorf("caller%d: %v", i+1, err)
		}
	}
}
