package publish_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"strings"
	"testing"
	"testing/synctest"
	"time"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"

	"github.com/a2a-mcp-bridge/bridge/a2a"
	"github.com/a2a-mcp-bridge/bridge/a2a/store"
	"github.com/a2a-mcp-bridge/bridge/a2a/taskmanager"
	"github.com/a2a-mcp-bridge/bridge/mcp/connector"
	"github.com/a2a-mcp-bridge/bridge/mcp/connector/connectortest"
	"github.com/a2a-mcp-bridge/bridge/mcp/publish"
)

type fixture struct {
	srv   *connectortest.Server
	conn  *connector.Conn
	agent *publish.Agent
	mgr   *taskmanager.Manager
	store *store.Memory
}

func newFixture(t testing.TB, cfg publish.Config) *fixture {
	t.Helper()
	ctx := context.Background()
	srv := connectortest.NewServer(connectortest.Options{})
	conn, err := connector.InProcess(ctx, srv.MCP, connector.Config{Name: "test", Logger: quiet})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = conn.Close() })
	st := store.NewMemory()
	cfg.Store = st
	cfg.Logger = quiet
	if cfg.ProgressInterval == 0 {
		cfg.ProgressInterval = -1
	}
	agent, err := publish.New(cfg, conn)
	if err != nil {
		t.Fatal(err)
	}
	mgr, err := taskmanager.New(taskmanager.Config{Store: st, Executor: agent, PollInterval: 20 * time.Millisecond, CancelGrace: 5 * time.Second})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(mgr.Wait)
	return &fixture{srv: srv, conn: conn, agent: agent, mgr: mgr, store: st}
}

func dataMsg(t testing.TB, v any) *a2a.Message {
	t.Helper()
	p, err := a2a.DataPart(v)
	if err != nil {
		t.Fatal(err)
	}
	return &a2a.Message{MessageID: "m-" + time.Now().Format("150405.000000000"), Role: a2a.RoleUser, Parts: []a2a.Part{p}}
}

var quiet = slog.New(slog.DiscardHandler)

func call(tool string, args any) map[string]any {
	return map[string]any{"tool": tool, "arguments": args}
}

func (f *fixture) send(t testing.TB, msg *a2a.Message) *a2a.Task {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	resp, err := f.mgr.SendMessage(ctx, "alice", &a2a.SendMessageRequest{Message: msg})
	if err != nil {
		t.Fatalf("SendMessage: %v", err)
	}
	if resp.Task == nil {
		t.Fatalf("no task in response: %+v", resp)
	}
	return resp.Task
}

func statusText(task *a2a.Task) string {
	if task.Status.Message == nil {
		return ""
	}
	var s []string
	for _, p := range task.Status.Message.Parts {
		if p.Kind == a2a.PartText {
			s = append(s, p.Text)
		}
	}
	return strings.Join(s, " ")
}

func onlyArtifact(t *testing.T, task *a2a.Task) a2a.Artifact {
	t.Helper()
	if task.Status.State != a2a.TaskStateCompleted {
		t.Fatalf("state = %s (%s), want COMPLETED", task.Status.State, statusText(task))
	}
	if len(task.Artifacts) != 1 {
		t.Fatalf("artifacts = %d, want 1", len(task.Artifacts))
	}
	return task.Artifacts[0]
}

func TestResultsBecomeParts(t *testing.T) {
	f := newFixture(t, publish.Config{Name: "test"})
	tests := []struct {
		name  string
		msg   *a2a.Message
		check func(t *testing.T, parts []a2a.Part)
	}{
		{"text", dataMsg(t, call("echo", map[string]any{"text": "hi"})), func(t *testing.T, p []a2a.Part) {
			if len(p) != 1 || p[0].Kind != a2a.PartText || p[0].Text != "hi" {
				t.Fatalf("parts = %+v", p)
			}
		}},
		{"number", dataMsg(t, call("add", map[string]any{"a": 2, "b": 3})), func(t *testing.T, p []a2a.Part) {
			if len(p) != 1 || p[0].Text != "5" {
				t.Fatalf("parts = %+v", p)
			}
		}},
		{"image", dataMsg(t, call("image", map[string]any{})), func(t *testing.T, p []a2a.Part) {
			var raw *a2a.Part
			for i := range p {
				if p[i].Kind == a2a.PartRaw {
					raw = &p[i]
				}
			}
			if raw == nil || raw.MediaType != "image/png" || string(raw.Raw) != string(connectortest.PNG) {
				t.Fatalf("no image/png raw part with the PNG: %+v", p)
			}
		}},
		{"structured", dataMsg(t, call("structured", map[string]any{})), func(t *testing.T, p []a2a.Part) {
			last := p[len(p)-1]
			if last.Kind != a2a.PartData || strings.ReplaceAll(string(last.Data), " ", "") != `{"answer":42}` {
				t.Fatalf("last part = %+v, want data {\"answer\":42}", last)
			}
		}},
		{"resources", dataMsg(t, call("resources", map[string]any{})), func(t *testing.T, p []a2a.Part) {
			if len(p) != 3 {
				t.Fatalf("parts = %+v", p)
			}
			if p[0].Kind != a2a.PartURL || p[0].URL != "https://example.com/report.pdf" || p[0].Filename != "report.pdf" || p[0].MediaType != "application/pdf" {
				t.Errorf("link part = %+v", p[0])
			}
			if p[1].Kind != a2a.PartText || p[1].Text != "read me" || p[1].Filename != "readme.txt" || p[1].MediaType != "text/plain" {
				t.Errorf("text resource part = %+v", p[1])
			}
			if p[2].Kind != a2a.PartRaw || p[2].Filename != "dot.png" || p[2].MediaType != "image/png" {
				t.Errorf("blob resource part = %+v", p[2])
			}
		}},
		{"skill id in metadata", func() *a2a.Message {
			m := dataMsg(t, map[string]any{"a": 1, "b": 1})
			m.Metadata = a2a.Metadata{"skillId": "add"}
			return m
		}(), func(t *testing.T, p []a2a.Part) {
			if p[0].Text != "2" {
				t.Fatalf("parts = %+v", p)
			}
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			task := f.send(t, tt.msg)
			a := onlyArtifact(t, task)
			if a.Metadata["mcp.tool"] == nil {
				t.Errorf("artifact metadata lacks mcp.tool: %v", a.Metadata)
			}
			tt.check(t, a.Parts)
		})
	}
}

func TestBadRequestsFailWithoutCallingUpstream(t *testing.T) {
	f := newFixture(t, publish.Config{})
	tests := []struct {
		name, tool string
		msg        *a2a.Message
		want       string
	}{
		{"unknown tool", "nope", dataMsg(t, call("nope", map[string]any{})), `unknown tool "nope"`},
		{"missing argument", "add", dataMsg(t, call("add", map[string]any{"a": 1})), "do not match its input schema"},
		{"wrong type", "echo", dataMsg(t, call("echo", map[string]any{"text": 7})), "do not match its input schema"},
		{"arguments not an object", "echo", dataMsg(t, call("echo", []any{1})), "must be a JSON object"},
		{"plain text with many tools", "echo", &a2a.Message{MessageID: "t1", Role: a2a.RoleUser, Parts: []a2a.Part{a2a.TextPart("hello")}}, "plain text cannot select a tool"},
		{"unknown skill", "echo", func() *a2a.Message {
			m := dataMsg(t, map[string]any{})
			m.Metadata = a2a.Metadata{"skillId": "zzz"}
			return m
		}(), `unknown skill "zzz"`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			before := f.srv.Calls(tt.tool)
			task := f.send(t, tt.msg)
			if task.Status.State != a2a.TaskStateFailed {
				t.Fatalf("state = %s, want FAILED", task.Status.State)
			}
			got := statusText(task)
			if !strings.Contains(got, tt.want) || !strings.Contains(got, "add, ask, block, echo") {
				t.Errorf("message %q: want it to contain %q and list the tools", got, tt.want)
			}
			if n := f.srv.Calls(tt.tool); n != before {
				t.Errorf("upstream tool %s was called %d times for a bad request", tt.tool, n-before)
			}
		})
	}
}

func TestIsErrorFails(t *testing.T) {
	f := newFixture(t, publish.Config{})
	task := f.send(t, dataMsg(t, call("fail", nil)))
	if task.Status.State != a2a.TaskStateFailed || !strings.Contains(statusText(task), "it broke on purpose") {
		t.Fatalf("state %s, message %q", task.Status.State, statusText(task))
	}
}

func TestAuthorizeDenialRejects(t *testing.T) {
	var gotTool string
	var gotDestructive bool
	f := newFixture(t, publish.Config{Authorize: func(ctx context.Context, tool string, destructive bool) error {
		gotTool, gotDestructive = tool, destructive
		if destructive {
			return errors.New("policy: destructive tools are not allowed")
		}
		return nil
	}})
	task := f.send(t, dataMsg(t, call("fail", nil)))
	if task.Status.State != a2a.TaskStateRejected || !strings.Contains(statusText(task), "destructive tools are not allowed") {
		t.Fatalf("state %s, message %q", task.Status.State, statusText(task))
	}
	if gotTool != "fail" || !gotDestructive {
		t.Errorf("Authorize saw %q destructive=%v", gotTool, gotDestructive)
	}
	if f.srv.Calls("fail") != 0 {
		t.Error("a refused call reached the upstream")
	}
	if task := f.send(t, dataMsg(t, call("echo", map[string]any{"text": "x"}))); task.Status.State != a2a.TaskStateCompleted {
		t.Errorf("read-only tool: state %s", task.Status.State)
	}
}

func TestProgressBecomesOrderedWorkingUpdates(t *testing.T) {
	f := newFixture(t, publish.Config{})
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	var states []a2a.TaskState
	var texts []string
	err := f.mgr.SendStreamingMessage(ctx, "alice", &a2a.SendMessageRequest{Message: dataMsg(t, call("slow", map[string]any{"steps": 5}))}, func(ev *a2a.StreamResponse) error {
		if su := ev.StatusUpdate; su != nil {
			states = append(states, su.Status.State)
			if su.Status.Message != nil && len(su.Status.Message.Parts) > 0 {
				texts = append(texts, su.Status.Message.Parts[0].Text)
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if len(states) == 0 || states[len(states)-1] != a2a.TaskStateCompleted {
		t.Fatalf("states = %v, want to end COMPLETED", states)
	}
	for _, s := range states[:len(states)-1] {
		if s != a2a.TaskStateWorking {
			t.Fatalf("states = %v: only WORKING before COMPLETED", states)
		}
	}
	last := 0
	for _, tx := range texts {
		var i, n int
		if _, err := fmtSscanf(tx, &i, &n); err == nil {
			if i <= last {
				t.Fatalf("progress out of order: %v", texts)
			}
			last = i
		}
	}
}

func TestElicitationBecomesInputRequired(t *testing.T) {
	f := newFixture(t, publish.Config{})
	task := f.send(t, dataMsg(t, call("ask", nil)))
	if task.Status.State != a2a.TaskStateInputRequired {
		t.Fatalf("state %s (%s), want INPUT_REQUIRED", task.Status.State, statusText(task))
	}
	msg := task.Status.Message
	if msg == nil || !strings.Contains(statusText(task), "What is your name?") {
		t.Fatalf("question missing: %+v", msg)
	}
	var schema *a2a.Part
	for i := range msg.Parts {
		if msg.Parts[i].Kind == a2a.PartData {
			schema = &msg.Parts[i]
		}
	}
	if schema == nil || !strings.Contains(string(schema.Data), `"name"`) {
		t.Fatalf("requested schema missing: %+v", msg.Parts)
	}
	reply := dataMsg(t, map[string]any{"name": "Ada"})
	reply.TaskID = task.ID
	done := f.send(t, reply)
	a := onlyArtifact(t, done)
	if a.Parts[0].Text != "Hello, Ada!" {
		t.Fatalf("parts = %+v", a.Parts)
	}
}

// TestElicitationAnswerOutsideTheSchemaIsRefused: {"response":"Ada"} to a
// request for {name} gets InvalidParams from CheckAnswer (what the A2A
// guard answers with, before anything changes) and, sent anyway, leaves the
// task INPUT_REQUIRED with what was wrong and the question; the upstream
// never sees it. The fitting answer then completes the call.
func TestElicitationAnswerOutsideTheSchemaIsRefused(t *testing.T) {
	f := newFixture(t, publish.Config{})
	task := f.send(t, dataMsg(t, call("ask", nil)))
	for _, bad := range []*a2a.Message{
		dataMsg(t, map[string]any{"response": "Ada"}),
		dataMsg(t, map[string]any{"name": 7}),
		{MessageID: "empty", Role: a2a.RoleUser, Parts: []a2a.Part{a2a.TextPart("  ")}},
	} {
		bad.TaskID = task.ID
		err := f.agent.CheckAnswer("alice", task.ID, bad)
		var ae *a2a.Error
		if !errors.As(err, &ae) || ae.Code != a2a.ErrInvalidParams.Code {
			t.Fatalf("CheckAnswer(%s) = %v, want InvalidParams", bad.Parts[0].Data, err)
		}
		if err := f.agent.CheckAnswer("mallory", task.ID, bad); err != nil {
			t.Fatalf("another caller learns of alice's question: %v", err)
		}
		again := f.send(t, bad)
		if again.Status.State != a2a.TaskStateInputRequired || !strings.Contains(statusText(again), "What is your name?") {
			t.Fatalf("after a bad answer: %s (%s), want the question to stand", again.Status.State, statusText(again))
		}
	}
	good := dataMsg(t, map[string]any{"name": "Ada"})
	good.TaskID = task.ID
	if err := f.agent.CheckAnswer("alice", task.ID, good); err != nil {
		t.Fatalf("a fitting answer refused: %v", err)
	}
	a := onlyArtifact(t, f.send(t, good))
	if a.Parts[0].Text != "Hello, Ada!" {
		t.Fatalf("parts = %+v", a.Parts)
	}
}

func TestElicitationDeclinedByText(t *testing.T) {
	f := newFixture(t, publish.Config{})
	task := f.send(t, dataMsg(t, call("ask", nil)))
	reply := &a2a.Message{MessageID: "r1", TaskID: task.ID, Role: a2a.RoleUser, Parts: []a2a.Part{a2a.TextPart("decline")}}
	a := onlyArtifact(t, f.send(t, reply))
	if !strings.Contains(a.Parts[0].Text, "decline") {
		t.Fatalf("parts = %+v", a.Parts)
	}
}

func TestElicitationInputTimeoutFails(t *testing.T) {
	// On the bubble's clock: the 50ms input timeout passes without a
	// real wait, and the in-process upstream blocks on nothing but
	// channels.
	synctest.Test(t, func(t *testing.T) {
		f := newFixture(t, publish.Config{InputTimeout: 50 * time.Millisecond})
		task := f.send(t, dataMsg(t, call("ask", nil)))
		if got := stateOf(t, f, task.ID); got.Status.State != a2a.TaskStateInputRequired {
			t.Fatalf("before the input timeout: %s, want INPUT_REQUIRED", got.Status.State)
		}
		time.Sleep(50 * time.Millisecond)
		synctest.Wait()
		rec := stateOf(t, f, task.ID)
		if rec.Status.State != a2a.TaskStateFailed {
			t.Fatalf("after the input timeout: %s, want FAILED", rec.Status.State)
		}
		if !strings.Contains(statusText(rec), "no answer") {
			t.Fatalf("message %q", statusText(rec))
		}
	})
}

// stateOf reads the task as the store has it now.
func stateOf(t *testing.T, f *fixture, id string) *a2a.Task {
	t.Helper()
	rec, err := f.store.GetTask(context.Background(), "alice", id)
	if err != nil {
		t.Fatal(err)
	}
	return &rec.Task
}

func TestCancelTaskCancelsUpstreamCall(t *testing.T) {
	f := newFixture(t, publish.Config{})
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	resp, err := f.mgr.SendMessage(ctx, "alice", &a2a.SendMessageRequest{
		Message:       dataMsg(t, call("block", nil)),
		Configuration: &a2a.SendMessageConfiguration{ReturnImmediately: true},
	})
	if err != nil {
		t.Fatal(err)
	}
	<-f.srv.Started()
	task, err := f.mgr.CancelTask(ctx, "alice", &a2a.CancelTaskRequest{ID: resp.Task.ID})
	if err != nil {
		t.Fatal(err)
	}
	if task.Status.State != a2a.TaskStateCanceled {
		t.Fatalf("state %s", task.Status.State)
	}
	select {
	case <-f.srv.Cancelled():
	case <-ctx.Done():
		t.Fatal("the upstream call was not cancelled")
	}
}

func TestPerToolTimeoutFails(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		f := newFixture(t, publish.Config{ToolTimeouts: map[string]time.Duration{"block": 30 * time.Millisecond}})
		start := time.Now()
		task := f.send(t, dataMsg(t, call("block", nil)))
		if task.Status.State != a2a.TaskStateFailed || !strings.Contains(statusText(task), "did not finish within 30ms") {
			t.Fatalf("state %s, message %q", task.Status.State, statusText(task))
		}
		if took := time.Since(start); took != 30*time.Millisecond {
			t.Fatalf("failed after %s on the bubble's clock, want the tool's 30ms", took)
		}
	})
}

func TestCardHasOneSkillPerToolWithSchemas(t *testing.T) {
	f := newFixture(t, publish.Config{Name: "everything"})
	card := f.agent.Card("https://bridge.example.com/a2a/everything")
	if len(card.Skills) != 9 {
		t.Fatalf("skills = %d, want 9", len(card.Skills))
	}
	skills := map[string]a2a.AgentSkill{}
	for _, sk := range card.Skills {
		skills[sk.ID] = sk
	}
	echo := skills["echo"]
	if echo.ID != "echo" || echo.Name != "Echo" || !contains(echo.Tags, "read-only") || contains(echo.Tags, "destructive") {
		t.Errorf("echo skill = %+v", echo)
	}
	if len(echo.Examples) != 1 || !strings.Contains(echo.Examples[0], `"tool":"echo"`) {
		t.Errorf("echo examples = %v", echo.Examples)
	}
	if fail := skills["fail"]; !contains(fail.Tags, "destructive") {
		t.Errorf("fail skill tags = %v", fail.Tags)
	}
	ext := card.Capabilities.Extensions
	if len(ext) != 1 || ext[0].URI != publish.SchemaExtensionURI {
		t.Fatalf("extensions = %+v", ext)
	}
	b, _ := json.Marshal(ext[0].Params["add"])
	if !strings.Contains(string(b), `"required":["a","b"]`) {
		t.Errorf("add schema = %s", b)
	}
	if contains(card.DefaultInputModes, "text/plain") {
		t.Errorf("text/plain offered although several tools exist: %v", card.DefaultInputModes)
	}
}

func TestCardChangesWithToolList(t *testing.T) {
	f := newFixture(t, publish.Config{})
	before := f.agent.Card("http://x").Version
	changed := make(chan struct{}, 1)
	f.agent.OnCardChanged(func() { changed <- struct{}{} })
	f.srv.MCP.AddTool(mcp.NewTool("extra", mcp.WithDescription("added later")), nil)
	if _, _, err := f.conn.Refresh(context.Background()); err != nil {
		t.Fatal(err)
	}
	select {
	case <-changed:
	case <-time.After(10 * time.Second):
		t.Fatal("no card change callback")
	}
	card := f.agent.Card("http://x")
	found := false
	for _, sk := range card.Skills {
		found = found || sk.ID == "extra"
	}
	if card.Version == before || !found {
		t.Fatalf("card not rebuilt: version %s → %s", before, card.Version)
	}
}

func contains(s []string, v string) bool {
	for _, x := range s {
		if x == v {
			return true
		}
	}
	return false
}

func fmtSscanf(s string, i, n *int) (int, error) { return fmt.Sscanf(s, "step %d of %d", i, n) }

func TestPlainTextForSingleStringTool(t *testing.T) {
	s := server.NewMCPServer("one", "1", server.WithToolCapabilities(true))
	s.AddTool(mcp.NewTool("shout", mcp.WithString("text", mcp.Required())), func(ctx context.Context, req mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		return mcp.NewToolResultText(strings.ToUpper(req.GetString("text", ""))), nil
	})
	conn, err := connector.InProcess(context.Background(), s, connector.Config{Name: "one"})
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	agent, err := publish.New(publish.Config{}, conn)
	if err != nil {
		t.Fatal(err)
	}
	if card := agent.Card("http://x"); !contains(card.DefaultInputModes, "text/plain") {
		t.Errorf("input modes %v lack text/plain", card.DefaultInputModes)
	}
	mgr, _ := taskmanager.New(taskmanager.Config{Store: store.NewMemory(), Executor: agent})
	defer mgr.Wait()
	resp, err := mgr.SendMessage(context.Background(), "bob", &a2a.SendMessageRequest{Message: &a2a.Message{MessageID: "1", Role: a2a.RoleUser, Parts: []a2a.Part{a2a.TextPart("hey")}}})
	if err != nil {
		t.Fatal(err)
	}
	if a := onlyArtifact(t, resp.Task); a.Parts[0].Text != "HEY" {
		t.Fatalf("parts = %+v", a.Parts)
	}
}
