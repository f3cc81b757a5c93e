package publish_test

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/a2a-mcp-bridge/bridge/a2a"
	"github.com/a2a-mcp-bridge/bridge/a2a/store"
	"github.com/a2a-mcp-bridge/bridge/a2a/taskmanager"
	"github.com/a2a-mcp-bridge/bridge/mcp/connector"
	"github.com/a2a-mcp-bridge/bridge/mcp/publish"
)

// burstUpstream is an MCP server that reports steps progress notifications
// and answers at once after the last one, each delivered before the result
// (as the transports' readers do).
type burstUpstream struct{ steps int }

func (burstUpstream) Tools(context.Context) ([]connector.Tool, error) {
	return []connector.Tool{{Name: "burst", InputSchema: json.RawMessage(`{"type":"object"}`)}}, nil
}

func (b burstUpstream) CallTool(_ context.Context, _ string, _ json.RawMessage, progress connector.ProgressFunc, _ connector.ElicitFunc) (json.RawMessage, error) {
	for i := 1; i <= b.steps; i++ {
		progress(float64(i), float64(b.steps), fmt.Sprintf("step %d of %d", i, b.steps))
	}
	return json.RawMessage(`{"content":[{"type":"text","text":"done"}]}`), nil
}

func (burstUpstream) OnToolsChanged(func([]connector.Tool)) {}

// streamBurst runs the burst tool over SendStreamingMessage and returns the
// WORKING texts seen before the terminal update.
func streamBurst(t *testing.T, interval time.Duration, steps int) []string {
	t.Helper()
	st := store.NewMemory()
	agent, err := publish.New(publish.Config{Name: "burst", Store: st, Logger: quiet, ProgressInterval: interval}, burstUpstream{steps: steps})
	if err != nil {
		t.Fatal(err)
	}
	mgr, err := taskmanager.New(taskmanager.Config{Store: st, Executor: agent, PollInterval: 20 * time.Millisecond, CancelGrace: 5 * time.Second})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(mgr.Wait)
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	var texts []string
	terminal := false
	err = mgr.SendStreamingMessage(ctx, "alice", &a2a.SendMessageRequest{Message: dataMsg(t, call("burst", nil))}, func(ev *a2a.StreamResponse) error {
		su := ev.StatusUpdate
		if su == nil {
			return nil
		}
		if terminal {
			t.Errorf("an update after the terminal one: %s", su.Status.State)
		}
		switch su.Status.State {
		case a2a.TaskStateWorking:
			if su.Status.Message != nil && len(su.Status.Message.Parts) > 0 && strings.HasPrefix(su.Status.Message.Parts[0].Text, "step ") {
				texts = append(texts, su.Status.Message.Parts[0].Text)
			}
		case a2a.TaskStateCompleted:
			terminal = true
		default:
			t.Errorf("state %s", su.Status.State)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if !terminal {
		t.Fatal("the stream ended without COMPLETED")
	}
	return texts
}

func TestEveryProgressPrecedesTheResult(t *testing.T) {
	const steps = 5
	for run := range 50 {
		texts := streamBurst(t, -1, steps)
		if len(texts) != steps {
			t.Fatalf("run %d: %d of %d progress updates before COMPLETED: %v", run, len(texts), steps, texts)
		}
		for i, tx := range texts {
			if !strings.HasPrefix(tx, fmt.Sprintf("step %d of %d", i+1, steps)) {
				t.Fatalf("run %d: out of order: %v", run, texts)
			}
		}
	}
}

func TestRateLimitedProgressStillEndsWithTheLastStep(t *testing.T) {
	// A long interval coalesces the burst, but the last progress the
	// upstream sent is reported, and before the result.
	const steps = 20
	for run := range 10 {
		texts := streamBurst(t, time.Hour, steps)
		if len(texts) == 0 || !strings.HasPrefix(texts[len(texts)-1], fmt.Sprintf("step %d of %d", steps, steps)) {
			t.Fatalf("run %d: the last progress before COMPLETED is not the upstream's last: %v", run, texts)
		}
		if len(texts) > 2 {
			t.Fatalf("run %d: the rate limit let %d updates through: %v", run, len(texts), texts)
		}
	}
}
