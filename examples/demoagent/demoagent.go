// Package demoagent is the executor behind `bridge demo`: a small agent whose
// behaviour is chosen by the first text part of a message (and by the
// conformance kit's messageId prefixes), so that every path of the A2A
// server core can be exercised by hand and by the kit.
package demoagent

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/a2a-mcp-bridge/bridge/a2a"
	"github.com/a2a-mcp-bridge/bridge/a2a/taskmanager"
)

// Agent is the demo executor.
type Agent struct {
	// Tick is the interval of /slow status updates (default 1s).
	Tick time.Duration
	// StreamingTimeout is the conformance kit's streaming timeout; the
	// resubscribe scenario works for twice as long (default 2s).
	StreamingTimeout time.Duration
}

var _ taskmanager.Executor = (*Agent)(nil)

// MaxSlowSeconds caps /slow N.
const MaxSlowSeconds = 3600

// Card returns the demo agent's card for an agent served at baseURL.
func Card(baseURL string) *a2a.AgentCard {
	return &a2a.AgentCard{
		Name:        "Echo demo agent",
		Description: "Echoes text and demonstrates the A2A task lifecycle: multi-turn input, slow cancellable work, failures and direct replies.",
		SupportedInterfaces: []a2a.AgentInterface{
			{URL: baseURL, ProtocolBinding: a2a.BindingJSONRPC, ProtocolVersion: a2a.ProtocolVersion},
			{URL: baseURL + "/rest", ProtocolBinding: a2a.BindingHTTPJSON, ProtocolVersion: a2a.ProtocolVersion},
		},
		Provider:           &a2a.AgentProvider{Organization: "a2a-mcp-bridge", URL: "https://github.com/a2a-mcp-bridge/bridge"},
		Version:            "1.0.0",
		Capabilities:       a2a.AgentCapabilities{Streaming: a2a.Ptr(true), PushNotifications: a2a.Ptr(false)},
		DefaultInputModes:  []string{"text/plain"},
		DefaultOutputModes: []string{"text/plain", "application/json"},
		Skills: []a2a.AgentSkill{
			{ID: "echo", Name: "Echo", Description: "Replies with an artifact `echo: <text>`.", Tags: []string{"demo"}, Examples: []string{"hello"}},
			{ID: "interview", Name: "Interview", Description: "Asks for your name, then greets you (multi-turn).", Tags: []string{"demo", "multi-turn"}, Examples: []string{"/interview"}},
			{ID: "slow", Name: "Slow work", Description: "Works for N seconds with a status update each second; cancellable.", Tags: []string{"demo", "streaming"}, Examples: []string{"/slow 5"}},
			{ID: "fail", Name: "Failure", Description: "Fails with a message.", Tags: []string{"demo"}, Examples: []string{"/fail"}},
			{ID: "message", Name: "Direct message", Description: "Replies with a message and no task.", Tags: []string{"demo"}, Examples: []string{"/message"}},
		},
	}
}

func firstText(m *a2a.Message) string {
	if m == nil {
		return ""
	}
	for _, p := range m.Parts {
		if p.Kind == a2a.PartText {
			return strings.TrimSpace(p.Text)
		}
	}
	return ""
}

func textArtifact(name, text string) a2a.Artifact {
	return a2a.Artifact{Name: name, Parts: []a2a.Part{a2a.TextPart(text)}}
}

// Execute implements taskmanager.Executor.
func (a *Agent) Execute(ctx context.Context, req *taskmanager.Request, u *taskmanager.Updater) error {
	if handled, err := a.conformance(ctx, req, u); handled {
		return err
	}
	text := firstText(req.Message)
	if t := req.Task; t != nil && t.Status.State == a2a.TaskStateInputRequired && len(t.History) > 0 && firstText(&t.History[0]) == "/interview" {
		name := text
		if name == "" {
			return u.InputRequired(ctx, "What is your name?")
		}
		if err := u.Artifact(ctx, textArtifact("greeting", fmt.Sprintf("Hello, %s!", name)), false, true); err != nil {
			return err
		}
		return u.Complete(ctx, "")
	}
	cmd, arg, _ := strings.Cut(text, " ")
	switch cmd {
	case "/interview":
		return u.InputRequired(ctx, "What is your name?")
	case "/fail":
		return u.Fail(ctx, "the demo agent failed on purpose (/fail)")
	case "/message":
		return u.Reply(ctx, &a2a.Message{Parts: []a2a.Part{a2a.TextPart("a direct message from the demo agent, with no task")}})
	case "/slow":
		n, err := strconv.Atoi(strings.TrimSpace(arg))
		if err != nil || n < 0 || n > MaxSlowSeconds {
			return u.Fail(ctx, fmt.Sprintf("usage: /slow N with 0 <= N <= %d", MaxSlowSeconds))
		}
		return a.slow(ctx, u, n)
	}
	if err := u.Working(ctx, "echoing"); err != nil {
		return err
	}
	if err := u.Artifact(ctx, textArtifact("echo", "echo: "+text), false, true); err != nil {
		return err
	}
	return u.Complete(ctx, "")
}

func (a *Agent) tick() time.Duration {
	if a.Tick > 0 {
		return a.Tick
	}
	return time.Second
}

func (a *Agent) slow(ctx context.Context, u *taskmanager.Updater, n int) error {
	t := time.NewTicker(a.tick())
	defer t.Stop()
	if err := u.Working(ctx, fmt.Sprintf("working: 0/%d", n)); err != nil {
		return err
	}
	for i := 1; i <= n; i++ {
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-t.C:
		}
		if err := u.Working(ctx, fmt.Sprintf("working: %d/%d", i, n)); err != nil {
			return err
		}
	}
	if err := u.Artifact(ctx, textArtifact("result", fmt.Sprintf("worked for %d seconds", n)), false, true); err != nil {
		return err
	}
	return u.Complete(ctx, "")
}

// Cancel implements taskmanager.Executor: the running work stops with its context;
// the task is marked CANCELED here.
func (a *Agent) Cancel(ctx context.Context, req *taskmanager.Request, u *taskmanager.Updater) error {
	err := u.Status(ctx, a2a.TaskStateCanceled, u.NewAgentMessage(a2a.TextPart("canceled by the client")))
	if errors.Is(err, taskmanager.ErrTaskClosed) {
		return nil
	}
	return err
}

// conformance implements the conformance kit's messageId prefix table.
func (a *Agent) conformance(ctx context.Context, req *taskmanager.Request, u *taskmanager.Updater) (bool, error) {
	id := req.Message.MessageID
	has := func(p string) bool { return strings.HasPrefix(id, p) }
	streamed := func(art a2a.Artifact) error {
		if err := u.Working(ctx, ""); err != nil {
			return err
		}
		if err := u.Artifact(ctx, art, false, false); err != nil {
			return err
		}
		return u.Complete(ctx, "")
	}
	file := a2a.Artifact{Parts: []a2a.Part{a2a.RawPart([]byte("tck"), "text/plain", "output.txt")}}
	switch {
	case has("tck-stream-artifact-chunked"):
		if err := u.Working(ctx, ""); err != nil {
			return true, err
		}
		art := a2a.Artifact{ArtifactID: "chunked", Parts: []a2a.Part{a2a.TextPart("chunk-1 ")}}
		if err := u.Artifact(ctx, art, true, false); err != nil {
			return true, err
		}
		art.Parts = []a2a.Part{a2a.TextPart("chunk-2")}
		if err := u.Artifact(ctx, art, true, true); err != nil {
			return true, err
		}
		return true, u.Complete(ctx, "")
	case has("test-resubscribe-message-id"):
		if err := u.Working(ctx, ""); err != nil {
			return true, err
		}
		wait := 2 * a.StreamingTimeout
		if wait <= 0 {
			wait = 4 * time.Second
		}
		select {
		case <-ctx.Done():
			return true, ctx.Err()
		case <-time.After(wait):
		}
		return true, u.Complete(ctx, "")
	case has("tck-stream-artifact-text"):
		return true, streamed(textArtifact("", "Streamed text content"))
	case has("tck-stream-artifact-file"):
		return true, streamed(file)
	case has("tck-stream-ordering-001"):
		return true, streamed(textArtifact("", "Ordered output"))
	case has("tck-stream-001"):
		return true, streamed(textArtifact("", "Stream hello from TCK"))
	case has("tck-stream-002"):
		return true, u.Complete(ctx, "")
	case has("tck-stream-003"):
		return true, streamed(textArtifact("", "Stream task lifecycle"))
	case has("tck-artifact-file-url"):
		if err := u.Artifact(ctx, a2a.Artifact{Parts: []a2a.Part{a2a.URLPart("https://example.com/output.txt", "text/plain", "output.txt")}}, false, false); err != nil {
			return true, err
		}
		return true, u.Complete(ctx, "")
	case has("tck-artifact-file"):
		if err := u.Artifact(ctx, file, false, false); err != nil {
			return true, err
		}
		return true, u.Complete(ctx, "")
	case has("tck-artifact-text"):
		if err := u.Artifact(ctx, textArtifact("", "Generated text content"), false, false); err != nil {
			return true, err
		}
		return true, u.Complete(ctx, "")
	case has("tck-artifact-data"):
		p, err := a2a.DataPart(map[string]any{"key": "value", "count": 42})
		if err != nil {
			return true, err
		}
		if err := u.Artifact(ctx, a2a.Artifact{Parts: []a2a.Part{p}}, false, false); err != nil {
			return true, err
		}
		return true, u.Complete(ctx, "")
	case has("tck-message-response"):
		return true, u.Reply(ctx, &a2a.Message{Parts: []a2a.Part{a2a.TextPart("Direct message response")}})
	case has("tck-input-required"):
		return true, u.InputRequired(ctx, "input required")
	case has("tck-reject-task"):
		return true, u.Status(ctx, a2a.TaskStateRejected, u.NewAgentMessage(a2a.TextPart("rejected")))
	case has("tck-complete-task"):
		return true, u.Complete(ctx, "Hello from TCK")
	}
	return false, nil
}
