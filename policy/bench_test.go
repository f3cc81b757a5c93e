package policy

import (
	"context"
	"io"
	"log/slog"
	"testing"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/a2a-mcp-bridge/bridge/request"
)

// benchRules is a realistic five-rule policy (two deny, three allow).
var benchRules = []Rule{
	{Name: "bots-no-destructive", Deny: `principal.client_id.startsWith("bot-") && hop.tool_destructive`},
	{Name: "blocked-tenant", Deny: `principal.claims.?tenant.orValue("") == "blocked"`},
	{Name: "staff-billing", Allow: `principal.groups.exists(g, g == "staff") && hop.agent == "billing"`},
	{Name: "readers", Allow: `"tickets:read" in principal.scopes && hop.tool_read_only`},
	{Name: "local-demo", Allow: `hop.direction == "local" && hop.remote_ip == "127.0.0.1"`},
}

func benchDecide(b *testing.B, hop request.Hop, wantAllow bool, opts ...Option) {
	benchDecideCtx(b, context.Background(), hop, wantAllow, opts...)
}

func benchDecideCtx(b *testing.B, ctx context.Context, hop request.Hop, wantAllow bool, opts ...Option) {
	e, err := Compile(Config{Default: "deny", Rules: benchRules}, opts...)
	if err != nil {
		b.Fatal(err)
	}
	if d := e.Decide(ctx, hop); d.Allow != wantAllow {
		b.Fatalf("Decide = %+v, want allow=%v", d, wantAllow)
	}
	b.ReportAllocs()
	b.ResetTimer()
	for b.Loop() {
		e.Decide(ctx, hop)
	}
}

// BenchmarkDecide measures one decision over five rules with the audit line
// disabled (level filtered out) and the counter live, answered from the
// decision memo unless the name says the rules run. The "allow by last
// rule" and "default deny" cases evaluate all five rules.
func BenchmarkDecide(b *testing.B) {
	discard := WithLogger(slog.New(slog.DiscardHandler))
	staffHop := request.Hop{Principal: staff(), Face: request.FaceA2A, Direction: request.DirPublish, Agent: "billing", Method: "SendMessage"}
	b.Run("allow_by_rule", func(b *testing.B) { benchDecide(b, staffHop, true, discard) })
	// Every case above is answered from the decision memo after its first
	// call; these run the rules every time.
	noMemo := WithDecisionMemo(0)
	b.Run("allow_by_rule_rules_run", func(b *testing.B) { benchDecide(b, staffHop, true, discard, noMemo) })
	b.Run("default_deny_rules_run", func(b *testing.B) {
		benchDecide(b, request.Hop{Principal: staff(), Face: request.FaceA2A, Agent: "research"}, false, discard, noMemo)
	})
	b.Run("deny_by_rule", func(b *testing.B) {
		benchDecide(b, request.Hop{Principal: bot(), Face: request.FaceMCP, Tool: "rm", ToolDestructive: true}, false, discard)
	})
	b.Run("allow_by_last_rule", func(b *testing.B) {
		benchDecide(b, request.Hop{Principal: bot(), Direction: request.DirLocal, RemoteIP: "127.0.0.1"}, true, discard)
	})
	b.Run("default_deny", func(b *testing.B) {
		benchDecide(b, request.Hop{Principal: staff(), Face: request.FaceA2A, Agent: "research"}, false, discard)
	})
	b.Run("default_deny_anonymous", func(b *testing.B) {
		benchDecide(b, request.Hop{Face: request.FaceA2A, Agent: "research"}, false, discard)
	})
	// A request context can be cancelled, so evaluation watches it.
	b.Run("default_deny_request_ctx", func(b *testing.B) {
		ctx, cancel := context.WithCancel(context.Background())
		defer cancel()
		benchDecideCtx(b, ctx, request.Hop{Principal: staff(), Face: request.FaceA2A, Agent: "research"}, false, discard)
	})
	// With the audit line rendered as JSON (to io.Discard) and the counter
	// registered: the full cost a request pays.
	b.Run("allow_by_rule_json_audit", func(b *testing.B) {
		benchDecide(b, staffHop, true,
			WithLogger(slog.New(slog.NewJSONHandler(io.Discard, nil))),
			WithRegisterer(prometheus.NewRegistry()))
	})
}

// BenchmarkCondition measures a rate-limit style when: clause.
func BenchmarkCondition(b *testing.B) {
	c, err := CompileCondition(`hop.tool == "search" && principal.client_id.startsWith("bot-")`)
	if err != nil {
		b.Fatal(err)
	}
	h := request.Hop{Principal: bot(), Tool: "search"}
	b.ReportAllocs()
	for b.Loop() {
		if ok, err := c.Eval(h); !ok || err != nil {
			b.Fatal(ok, err)
		}
	}
}

func BenchmarkCompile(b *testing.B) {
	cfg := Config{Default: "deny", Rules: benchRules}
	b.ReportAllocs()
	for b.Loop() {
		if _, err := Compile(cfg, quiet); err != nil {
			b.Fatal(err)
		}
	}
}
