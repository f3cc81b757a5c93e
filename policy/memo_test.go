package policy

import (
	"context"
	"fmt"
	"log/slog"
	"sync"
	"testing"

	"github.com/a2a-mcp-bridge/bridge/request"
)

func memoEngine(t *testing.T, rules []Rule, opts ...Option) *Engine {
	t.Helper()
	e, err := Compile(Config{Default: DefaultDeny, Rules: rules}, append([]Option{WithLogger(slog.New(slog.DiscardHandler))}, opts...)...)
	if err != nil {
		t.Fatal(err)
	}
	return e
}

func TestDecisionMemoAnswersARepeatedHop(t *testing.T) {
	e := memoEngine(t, []Rule{{Name: "staff", Allow: `principal.groups.exists(g, g == "staff")`}})
	p := staff()
	hop := request.Hop{Principal: p, Face: request.FaceA2A, Agent: "billing", Method: "SendMessage"}
	first := e.Decide(context.Background(), hop)
	if !first.Allow || first.Rule != "staff" {
		t.Fatalf("first decision = %+v", first)
	}
	if n := e.memo.len(); n != 1 {
		t.Fatalf("memo holds %d decisions, want 1", n)
	}
	for range 3 {
		if d := e.Decide(context.Background(), hop); d != first {
			t.Fatalf("repeated decision = %+v, want %+v", d, first)
		}
	}
	if n := e.memo.len(); n != 1 {
		t.Fatalf("memo holds %d decisions after repeats, want 1", n)
	}
}

// A remembered allow must never answer for another caller: a principal is
// a key by identity, so even a look-alike value (same subject, claims
// changed) is decided by the rules.
func TestDecisionMemoDoesNotCarryAnAllowToAnotherPrincipal(t *testing.T) {
	e := memoEngine(t, []Rule{
		{Name: "staff", Allow: `principal.groups.exists(g, g == "staff")`},
		{Name: "no-bots", Deny: `principal.client_id.startsWith("bot-")`},
	})
	hop := request.Hop{Face: request.FaceA2A, Agent: "billing", Method: "SendMessage"}

	hop.Principal = staff()
	if d := e.Decide(context.Background(), hop); !d.Allow {
		t.Fatalf("staff denied: %+v", d)
	}
	impostor := staff()
	impostor.Groups = []string{"guests"}
	hop.Principal = impostor
	if d := e.Decide(context.Background(), hop); d.Allow {
		t.Fatalf("a look-alike principal outside the group was allowed by a remembered decision: %+v", d)
	}
	hop.Principal = bot()
	if d := e.Decide(context.Background(), hop); d.Allow || d.Rule != "no-bots" {
		t.Fatalf("bot = %+v, want denied by no-bots", d)
	}
	hop.Principal = nil
	if d := e.Decide(context.Background(), hop); d.Allow || !d.Default {
		t.Fatalf("anonymous = %+v, want the default deny", d)
	}
}

// Every field of the hop is an input: a decision remembered for one value
// of a field must not answer for another value of it.
func TestDecisionMemoDoesNotCarryAnAllowAcrossHopFields(t *testing.T) {
	p := staff()
	base := request.Hop{
		Principal: p, Face: request.FaceA2A, Direction: request.DirFrontA2A, Agent: "billing", Skill: "refund",
		Tool: "search", ToolDestructive: false, ToolReadOnly: true, Method: "SendMessage",
		TaskID: "task-1", RemoteIP: "192.0.2.1", Resource: "a2a://agents/billing/card", Prompt: "summary",
	}
	tests := []struct {
		name  string
		rule  string
		other func(h *request.Hop)
	}{
		{"face", `hop.face == "a2a"`, func(h *request.Hop) { h.Face = request.FaceMCP }},
		{"direction", `hop.direction == "front_a2a"`, func(h *request.Hop) { h.Direction = request.DirPublish }},
		{"agent", `hop.agent == "billing"`, func(h *request.Hop) { h.Agent = "payroll" }},
		{"skill", `hop.skill == "refund"`, func(h *request.Hop) { h.Skill = "delete-all" }},
		{"tool", `hop.tool == "search"`, func(h *request.Hop) { h.Tool = "rm" }},
		{"tool_destructive", `!hop.tool_destructive`, func(h *request.Hop) { h.ToolDestructive = true }},
		{"tool_read_only", `hop.tool_read_only`, func(h *request.Hop) { h.ToolReadOnly = false }},
		{"method", `hop.method == "SendMessage"`, func(h *request.Hop) { h.Method = "CancelTask" }},
		{"task_id", `hop.task_id == "task-1"`, func(h *request.Hop) { h.TaskID = "task-2" }},
		{"remote_ip", `hop.remote_ip == "192.0.2.1"`, func(h *request.Hop) { h.RemoteIP = "198.51.100.7" }},
		{"resource", `hop.resource == "a2a://agents/billing/card"`, func(h *request.Hop) { h.Resource = "a2a://agents/payroll/card" }},
		{"prompt", `hop.prompt == "summary"`, func(h *request.Hop) { h.Prompt = "leak" }},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			e := memoEngine(t, []Rule{{Name: "only", Allow: tt.rule}})
			if d := e.Decide(context.Background(), base); !d.Allow {
				t.Fatalf("base hop denied: %+v", d)
			}
			h := base
			tt.other(&h)
			if d := e.Decide(context.Background(), h); d.Allow {
				t.Fatalf("hop with another %s was allowed by the remembered decision: %+v", tt.name, d)
			}
			if d := e.Decide(context.Background(), base); !d.Allow {
				t.Fatalf("base hop denied on the second call: %+v", d)
			}
		})
	}
}

// Failures are decided afresh: a rule that failed for one call is run
// again for the next (fail closed each time, never a remembered outcome).
func TestDecisionMemoKeepsNoFailureOrCancellation(t *testing.T) {
	e := memoEngine(t, []Rule{{Name: "tenant", Allow: `principal.claims.tenant == "acme"`}})
	hop := request.Hop{Principal: bot(), Face: request.FaceA2A, Agent: "billing"} // no tenant claim: no such key
	if d := e.Decide(context.Background(), hop); d.Allow || d.Code != CodeEvalError {
		t.Fatalf("decision = %+v, want an evaluation error", d)
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	good := request.Hop{Principal: staff(), Face: request.FaceA2A, Agent: "billing"}
	if d := e.Decide(ctx, good); d.Allow || d.Code != CodeCancelled {
		t.Fatalf("cancelled decision = %+v", d)
	}
	if n := e.memo.len(); n != 0 {
		t.Fatalf("memo holds %d decisions after a failure and a cancellation, want 0", n)
	}
	if d := e.Decide(context.Background(), good); !d.Allow {
		t.Fatalf("decision after the cancelled one = %+v, want allowed", d)
	}
}

// One task id per request must not grow the memo without bound.
func TestDecisionMemoStaysBoundedUnderHighCardinalityHops(t *testing.T) {
	const capacity = 64
	e := memoEngine(t, []Rule{{Name: "any", Allow: `hop.agent == "billing"`}}, WithDecisionMemo(capacity))
	p := staff()
	for i := range 5000 {
		e.Decide(context.Background(), request.Hop{Principal: p, Agent: "billing", TaskID: fmt.Sprint("task-", i)})
	}
	if n := e.memo.len(); n > capacity {
		t.Fatalf("memo holds %d decisions, capacity %d", n, capacity)
	}
}

func TestDecisionMemoOff(t *testing.T) {
	e := memoEngine(t, []Rule{{Name: "any", Allow: `hop.agent == "billing"`}}, WithDecisionMemo(0))
	if e.memo != nil {
		t.Fatal("WithDecisionMemo(0) left a memo")
	}
	if d := e.Decide(context.Background(), request.Hop{Agent: "billing"}); !d.Allow {
		t.Fatalf("decision = %+v", d)
	}
}

func TestDecisionMemoConcurrentCallers(t *testing.T) {
	e := memoEngine(t, []Rule{
		{Name: "staff", Allow: `principal.groups.exists(g, g == "staff")`},
	}, WithDecisionMemo(32))
	principals := []*request.Principal{staff(), bot(), staff(), nil}
	var wg sync.WaitGroup
	for w := range 8 {
		wg.Go(func() {
			for i := range 500 {
				p := principals[(w+i)%len(principals)]
				d := e.Decide(context.Background(), request.Hop{Principal: p, Agent: "billing", TaskID: fmt.Sprint(i % 40)})
				want := p != nil && p.Subject == "alice"
				if d.Allow != want {
					t.Errorf("principal %v: allow=%v, want %v", p, d.Allow, want)
					return
				}
			}
		})
	}
	wg.Wait()
}

// An allow reached past a rule that failed (here: a missing claim; an
// interruption would do the same) is given but not remembered.
func TestDecisionMemoKeepsNoAllowReachedPastAFailure(t *testing.T) {
	e := memoEngine(t, []Rule{
		{Name: "tenant", Allow: `principal.claims.tenant == "other"`},
		{Name: "staff", Allow: `principal.groups.exists(g, g == "staff")`},
	})
	hop := request.Hop{Principal: bot(), Face: request.FaceA2A, Agent: "billing"} // no tenant claim: the first rule fails
	hop.Principal.Groups = []string{"staff"}
	if d := e.Decide(context.Background(), hop); !d.Allow || d.Rule != "staff" {
		t.Fatalf("decision = %+v, want allowed by staff", d)
	}
	if n := e.memo.len(); n != 0 {
		t.Fatalf("memo holds %d decisions reached past a failing rule, want 0", n)
	}
}
