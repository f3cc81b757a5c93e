package policy

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"strings"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/a2a-mcp-bridge/bridge/request"
)

// quiet compiles with a logger that drops everything.
var quiet = WithLogger(slog.New(slog.DiscardHandler))

func mustCompile(t testing.TB, cfg Config, opts ...Option) *Engine {
	t.Helper()
	e, err := Compile(cfg, append([]Option{quiet}, opts...)...)
	if err != nil {
		t.Fatalf("Compile: %v", err)
	}
	return e
}

func staff() *request.Principal {
	return &request.Principal{
		Subject:  "alice",
		Issuer:   "https://idp.example.com",
		ClientID: "web",
		Scopes:   []string{"agents", "tickets:read"},
		Groups:   []string{"staff", "billing-admins"},
		Claims: map[string]any{
			"tenant": "acme",
			"level":  float64(3), // JSON numbers decode as float64
			"org":    map[string]any{"unit": "finance"},
			"roles":  []any{"reader", "approver"},
		},
		Method: "oidc",
	}
}

func bot() *request.Principal {
	return &request.Principal{Subject: "ci", Issuer: "apikey", ClientID: "bot-ci", Method: "apikey"}
}

func TestDecide(t *testing.T) {
	tests := []struct {
		name        string
		def         string
		rules       []Rule
		hop         request.Hop
		wantAllow   bool
		wantRule    string
		wantDefault bool
		wantCode    Code
	}{
		{
			name:      "default deny when nothing matches",
			def:       "deny",
			rules:     []Rule{{Name: "never", Allow: `hop.agent == "nope"`}},
			hop:       request.Hop{Principal: staff(), Agent: "billing"},
			wantAllow: false, wantDefault: true, wantCode: CodeDefaultDeny,
		},
		{
			name:      "default allow when nothing matches",
			def:       "allow",
			rules:     []Rule{{Name: "never", Deny: `hop.agent == "nope"`}},
			hop:       request.Hop{Principal: staff(), Agent: "billing"},
			wantAllow: true, wantDefault: true, wantCode: CodeDefaultAllow,
		},
		{
			name:      "default deny with no rules",
			def:       "deny",
			hop:       request.Hop{Principal: staff()},
			wantAllow: false, wantDefault: true, wantCode: CodeDefaultDeny,
		},
		{
			name: "deny wins over a matching allow",
			def:  "allow",
			rules: []Rule{
				{Name: "staff", Allow: `"staff" in principal.groups`},
				{Name: "no-destructive", Deny: `hop.tool_destructive`},
			},
			hop:       request.Hop{Principal: staff(), Tool: "rm", ToolDestructive: true},
			wantAllow: false, wantRule: "no-destructive", wantCode: CodeDenyRule,
		},
		{
			name: "deny wins whatever the rule order",
			def:  "deny",
			rules: []Rule{
				{Name: "no-destructive", Deny: `hop.tool_destructive`},
				{Name: "staff", Allow: `"staff" in principal.groups`},
			},
			hop:       request.Hop{Principal: staff(), ToolDestructive: true},
			wantAllow: false, wantRule: "no-destructive", wantCode: CodeDenyRule,
		},
		{
			name:      "groups and agent (design example)",
			def:       "deny",
			rules:     []Rule{{Name: "staff-billing", Allow: `principal.groups.exists(g, g == "staff") && hop.agent == "billing"`}},
			hop:       request.Hop{Principal: staff(), Agent: "billing"},
			wantAllow: true, wantRule: "staff-billing", wantCode: CodeAllowRule,
		},
		{
			name:      "client_id prefix and destructive tool (design example)",
			def:       "allow",
			rules:     []Rule{{Name: "bots-no-destructive", Deny: `principal.client_id.startsWith("bot-") && hop.tool_destructive`}},
			hop:       request.Hop{Principal: bot(), Tool: "delete_ticket", ToolDestructive: true},
			wantAllow: false, wantRule: "bots-no-destructive", wantCode: CodeDenyRule,
		},
		{
			name:      "bot on a read-only tool passes",
			def:       "allow",
			rules:     []Rule{{Name: "bots-no-destructive", Deny: `principal.client_id.startsWith("bot-") && hop.tool_destructive`}},
			hop:       request.Hop{Principal: bot(), Tool: "list", ToolReadOnly: true},
			wantAllow: true, wantDefault: true, wantCode: CodeDefaultAllow,
		},
		{
			name:      "scopes",
			def:       "deny",
			rules:     []Rule{{Name: "read", Allow: `"tickets:read" in principal.scopes && hop.tool_read_only`}},
			hop:       request.Hop{Principal: staff(), Tool: "list", ToolReadOnly: true},
			wantAllow: true, wantRule: "read", wantCode: CodeAllowRule,
		},
		{
			name:      "scope missing",
			def:       "deny",
			rules:     []Rule{{Name: "write", Allow: `"tickets:write" in principal.scopes`}},
			hop:       request.Hop{Principal: staff()},
			wantAllow: false, wantDefault: true, wantCode: CodeDefaultDeny,
		},
		{
			name:      "string claim",
			def:       "deny",
			rules:     []Rule{{Name: "tenant", Allow: `principal.claims.tenant == "acme"`}},
			hop:       request.Hop{Principal: staff()},
			wantAllow: true, wantRule: "tenant", wantCode: CodeAllowRule,
		},
		{
			name:      "numeric claim compared with an int",
			def:       "deny",
			rules:     []Rule{{Name: "level", Allow: `principal.claims.level >= 3`}},
			hop:       request.Hop{Principal: staff()},
			wantAllow: true, wantRule: "level", wantCode: CodeAllowRule,
		},
		{
			name:      "nested claim and list claim",
			def:       "deny",
			rules:     []Rule{{Name: "finance-approver", Allow: `principal.claims.org.unit == "finance" && "approver" in principal.claims.roles`}},
			hop:       request.Hop{Principal: staff()},
			wantAllow: true, wantRule: "finance-approver", wantCode: CodeAllowRule,
		},
		{
			name:      "optional claim absent",
			def:       "deny",
			rules:     []Rule{{Name: "region", Allow: `principal.claims.?region.orValue("") == "eu"`}},
			hop:       request.Hop{Principal: staff()},
			wantAllow: false, wantDefault: true, wantCode: CodeDefaultDeny,
		},
		{
			name:      "has() on a claim",
			def:       "deny",
			rules:     []Rule{{Name: "has-tenant", Allow: `has(principal.claims.tenant)`}},
			hop:       request.Hop{Principal: staff()},
			wantAllow: true, wantRule: "has-tenant", wantCode: CodeAllowRule,
		},
		{
			name:      "tool name",
			def:       "deny",
			rules:     []Rule{{Name: "search", Allow: `hop.tool in ["search", "fetch"]`}},
			hop:       request.Hop{Principal: bot(), Tool: "search"},
			wantAllow: true, wantRule: "search", wantCode: CodeAllowRule,
		},
		{
			name:      "has() on an empty hop field",
			def:       "allow",
			rules:     []Rule{{Name: "need-tool", Deny: `hop.face == "mcp" && !has(hop.tool)`}},
			hop:       request.Hop{Principal: bot(), Face: request.FaceMCP, Method: "tools/call"},
			wantAllow: false, wantRule: "need-tool", wantCode: CodeDenyRule,
		},
		{
			name: "face, direction, method, skill, task and address",
			def:  "deny",
			rules: []Rule{{Name: "all-hop-fields", Allow: `hop.face == "a2a" && hop.direction == "publish" && hop.method == "SendMessage" &&
				hop.skill == "echo" && hop.task_id == "t-1" && hop.remote_ip.startsWith("127.")`}},
			hop:       request.Hop{Principal: staff(), Face: request.FaceA2A, Direction: request.DirPublish, Method: "SendMessage", Skill: "echo", TaskID: "t-1", RemoteIP: "127.0.0.1"},
			wantAllow: true, wantRule: "all-hop-fields", wantCode: CodeAllowRule,
		},
		{
			name:      "principal identity fields",
			def:       "deny",
			rules:     []Rule{{Name: "alice", Allow: `principal.subject == "alice" && principal.issuer == "https://idp.example.com" && principal.method == "oidc"`}},
			hop:       request.Hop{Principal: staff()},
			wantAllow: true, wantRule: "alice", wantCode: CodeAllowRule,
		},
		{
			name:      "first matching allow rule names the decision",
			def:       "deny",
			rules:     []Rule{{Name: "a", Allow: `false`}, {Name: "b", Allow: `true`}, {Name: "c", Allow: `true`}},
			hop:       request.Hop{},
			wantAllow: true, wantRule: "b", wantCode: CodeAllowRule,
		},
		{
			name:      "nil principal reads as empty (anonymous)",
			def:       "deny",
			rules:     []Rule{{Name: "anon", Allow: `principal.subject == "" && size(principal.groups) == 0 && size(principal.claims) == 0 && !has(principal.claims.tenant)`}},
			hop:       request.Hop{Agent: "demo"},
			wantAllow: true, wantRule: "anon", wantCode: CodeAllowRule,
		},
		{
			name:      "nil principal matches no group rule",
			def:       "deny",
			rules:     []Rule{{Name: "staff", Allow: `principal.groups.exists(g, g == "staff")`}},
			hop:       request.Hop{Agent: "demo"},
			wantAllow: false, wantDefault: true, wantCode: CodeDefaultDeny,
		},
		{
			name:      "dynamic access to a known field",
			def:       "deny",
			rules:     []Rule{{Name: "dyn", Allow: `dyn(hop).agent == "billing" && dyn(principal).subject == "alice"`}},
			hop:       request.Hop{Principal: staff(), Agent: "billing"},
			wantAllow: true, wantRule: "dyn", wantCode: CodeAllowRule,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			e := mustCompile(t, Config{Default: tt.def, Rules: tt.rules})
			got := e.Decide(context.Background(), tt.hop)
			if got.Allow != tt.wantAllow || got.Rule != tt.wantRule || got.Default != tt.wantDefault || got.Code != tt.wantCode {
				t.Fatalf("Decide = %+v, want allow=%v rule=%q default=%v code=%v", got, tt.wantAllow, tt.wantRule, tt.wantDefault, tt.wantCode)
			}
			if got.Reason == "" {
				t.Errorf("Decide = %+v: empty reason", got)
			}
		})
	}
}

func TestDecideReasonIsRuleDescription(t *testing.T) {
	e := mustCompile(t, Config{Default: "allow", Rules: []Rule{
		{Name: "no-destructive", Deny: `hop.tool_destructive`, Description: "destructive tools need a human"},
	}})
	got := e.Decide(context.Background(), request.Hop{ToolDestructive: true})
	if got.Reason != "destructive tools need a human" {
		t.Fatalf("Reason = %q, want the rule's description", got.Reason)
	}
}

func TestCompileProblems(t *testing.T) {
	tests := []struct {
		name string
		cfg  Config
		want []string
	}{
		{
			name: "missing default",
			cfg:  Config{},
			want: []string{`policy: default: required: set "allow" or "deny"`},
		},
		{
			name: "bad default",
			cfg:  Config{Default: "Allow"},
			want: []string{`policy: default: must be "allow" or "deny", got "Allow"`},
		},
		{
			name: "undeclared variable",
			cfg:  Config{Default: "deny", Rules: []Rule{{Name: "x", Allow: `hopp.agent == "a"`}}},
			want: []string{`policy: rule "x": ERROR: <input>:1:1: undeclared reference to 'hopp' (did you mean 'hop'?)`},
		},
		{
			name: "undeclared hop field",
			cfg:  Config{Default: "deny", Rules: []Rule{{Name: "x", Allow: `hop.agent == "a" && hop.toool == "t"`}}},
			want: []string{`policy: rule "x": ERROR: <input>:1:24: undefined field 'toool'`},
		},
		{
			name: "undeclared principal field",
			cfg:  Config{Default: "deny", Rules: []Rule{{Name: "x", Deny: `principal.group == "a"`}}},
			want: []string{`policy: rule "x": ERROR: <input>:1:10: undefined field 'group'`},
		},
		{
			name: "non-bool result",
			cfg:  Config{Default: "deny", Rules: []Rule{{Name: "x", Allow: `  hop.agent`}}},
			want: []string{`policy: rule "x": ERROR: <input>:1:3: expression returns string, want bool`},
		},
		{
			name: "non-bool list result",
			cfg:  Config{Default: "deny", Rules: []Rule{{Name: "x", Allow: "\n principal.groups"}}},
			want: []string{`policy: rule "x": ERROR: <input>:2:2: expression returns list(string), want bool`},
		},
		{
			name: "dyn result is not accepted as bool",
			cfg:  Config{Default: "deny", Rules: []Rule{{Name: "x", Allow: `principal.claims.admin`}}},
			want: []string{`policy: rule "x": ERROR: <input>:1:1: expression returns dyn, want bool`},
		},
		{
			name: "syntax error",
			cfg:  Config{Default: "deny", Rules: []Rule{{Name: "x", Allow: `hop.agent == "a" &&`}}},
			want: []string{`policy: rule "x": ERROR: <input>:1:20: Syntax error: mismatched input '<EOF>' expecting {'[', '{', '(', '.', '-', '!', 'true', 'false', 'null', NUM_FLOAT, NUM_INT, NUM_UINT, STRING, BYTES, IDENTIFIER}`},
		},
		{
			name: "type mismatch",
			cfg:  Config{Default: "deny", Rules: []Rule{{Name: "x", Allow: `hop.tool_destructive == "yes"`}}},
			want: []string{`policy: rule "x": ERROR: <input>:1:22: found no matching overload for '_==_' applied to '(bool, string)'`},
		},
		{
			name: "both allow and deny",
			cfg:  Config{Default: "deny", Rules: []Rule{{Name: "x", Allow: `true`, Deny: `false`}}},
			want: []string{`policy: rule "x": set exactly one of allow or deny, not both`},
		},
		{
			name: "neither allow nor deny",
			cfg:  Config{Default: "deny", Rules: []Rule{{Name: "x", Description: "forgot"}}},
			want: []string{`policy: rule "x": set exactly one of allow or deny`},
		},
		{
			name: "blank expression",
			cfg:  Config{Default: "deny", Rules: []Rule{{Name: "x", Allow: "  "}}},
			want: []string{`policy: rule "x": expression is empty`},
		},
		{
			name: "missing name",
			cfg:  Config{Default: "deny", Rules: []Rule{{Allow: `true`}}},
			want: []string{`policy: rules[0]: name is required`},
		},
		{
			name: "bad name",
			cfg:  Config{Default: "deny", Rules: []Rule{{Name: "_default", Allow: `true`}}},
			want: []string{`policy: rules[0]: name "_default": use letters, digits, '_', '-', '.', ':' (at most 64, starting with a letter or digit)`},
		},
		{
			name: "duplicate name",
			cfg:  Config{Default: "deny", Rules: []Rule{{Name: "x", Allow: `true`}, {Name: "x", Deny: `false`}}},
			want: []string{`policy: rule "x": duplicate name (also rules[0])`},
		},
		{
			name: "every problem at once",
			cfg: Config{Rules: []Rule{
				{Name: "a", Allow: `hopp.agent == "a"`},
				{Name: "b", Allow: `hop.agent`},
				{Allow: `hop.tool == `},
				{Name: "ok", Deny: `hop.tool_destructive`},
			}},
			want: []string{
				`policy: default: required: set "allow" or "deny"`,
				`policy: rule "a": ERROR: <input>:1:1: undeclared reference to 'hopp' (did you mean 'hop'?)`,
				`policy: rule "b": ERROR: <input>:1:1: expression returns string, want bool`,
				`policy: rules[2]: name is required`,
				`policy: rules[2]: ERROR: <input>:1:13: Syntax error: mismatched input '<EOF>' expecting {'[', '{', '(', '.', '-', '!', 'true', 'false', 'null', NUM_FLOAT, NUM_INT, NUM_UINT, STRING, BYTES, IDENTIFIER}`,
			},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			e, err := Compile(tt.cfg, quiet)
			if err == nil {
				t.Fatalf("Compile succeeded (%v), want problems", e)
			}
			var ps Problems
			if !errors.As(err, &ps) {
				t.Fatalf("Compile error %T is not Problems: %v", err, err)
			}
			var got []string
			for _, p := range ps {
				got = append(got, p.Error())
			}
			if strings.Join(got, "\n") != strings.Join(tt.want, "\n") {
				t.Fatalf("problems:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(tt.want, "\n"))
			}
			if err.Error() != strings.Join(tt.want, "\n") {
				t.Fatalf("Error() = %q", err.Error())
			}
		})
	}
}

func TestCompileProblemCarriesPositionAndSnippet(t *testing.T) {
	_, err := Compile(Config{Default: "deny", Rules: []Rule{{Name: "x", Allow: `hop.toool == "t"`}}}, quiet)
	var p *Problem
	if !errors.As(err, &p) {
		t.Fatalf("error %v does not unwrap to *Problem", err)
	}
	if p.Rule != "x" || p.Line != 1 || p.Column != 4 || p.Msg != "undefined field 'toool'" {
		t.Fatalf("problem = %+v", p)
	}
	if want := " | hop.toool == \"t\"\n | ...^"; p.Snippet != want {
		t.Fatalf("snippet = %q, want %q", p.Snippet, want)
	}
}

func TestEveryDocumentedFieldCompiles(t *testing.T) {
	for _, f := range PrincipalFields() {
		if _, err := CompileCondition("has(principal." + f + ")"); err != nil {
			t.Errorf("principal.%s: %v", f, err)
		}
	}
	for _, f := range HopFields() {
		if _, err := CompileCondition("has(hop." + f + ")"); err != nil {
			t.Errorf("hop.%s: %v", f, err)
		}
	}
	want := "claims client_id groups issuer method scopes subject"
	if got := strings.Join(PrincipalFields(), " "); got != want {
		t.Errorf("PrincipalFields = %q, want %q", got, want)
	}
	want = "agent direction face method prompt remote_ip resource skill task_id tool tool_destructive tool_read_only"
	if got := strings.Join(HopFields(), " "); got != want {
		t.Errorf("HopFields = %q, want %q", got, want)
	}
}

// A rule must never be able to read the caller's raw credential.
func TestRulesCannotReadToken(t *testing.T) {
	for _, expr := range []string{
		`principal.token != ""`,
		`principal.Token != ""`,
	} {
		_, err := CompileCondition(expr)
		if err == nil || !strings.Contains(err.Error(), "undefined field") {
			t.Errorf("CompileCondition(%q) = %v, want undefined field", expr, err)
		}
	}
	// Nor through dynamic access: it fails, and the failure denies.
	e := mustCompile(t, Config{Default: "allow", Rules: []Rule{{Name: "peek", Deny: `dyn(principal).token == "x"`}}})
	p := staff()
	p.Token = "x"
	d := e.Decide(context.Background(), request.Hop{Principal: p})
	if d.Allow || d.Code != CodeEvalError {
		t.Fatalf("Decide = %+v, want deny by eval error", d)
	}
}

// A struct literal of the view types compiles (the type is known) but can
// never be built, so it fails closed.
func TestRulesCannotForgeViews(t *testing.T) {
	e := mustCompile(t, Config{Default: "allow", Rules: []Rule{{Name: "forge", Deny: `bridge.request.Hop{agent: "x"}.agent == "y"`}}})
	d := e.Decide(context.Background(), request.Hop{})
	if d.Allow {
		t.Fatalf("Decide = %+v, want deny", d)
	}
}

// runaway visits every triple of 100 groups: a million iterations.
const runaway = `principal.groups.all(a, principal.groups.all(b, principal.groups.all(c, a + b + c != "")))`

func manyGroups(n int) *request.Principal {
	p := &request.Principal{Subject: "wide", Method: "oidc"}
	for i := range n {
		p.Groups = append(p.Groups, fmt.Sprintf("g%03d", i))
	}
	return p
}

func TestCostLimitExceededDenies(t *testing.T) {
	tests := []struct {
		name string
		def  string
		rule Rule
		opts []Option
	}{
		{"deny rule over default limit", "allow", Rule{Name: "runaway", Deny: runaway}, nil},
		{"allow rule over default limit", "allow", Rule{Name: "runaway", Allow: runaway}, nil},
		{"small configured limit", "allow", Rule{Name: "runaway", Allow: `principal.groups.exists(g, g == "zzz")`}, []Option{WithCostLimit(50)}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			e := mustCompile(t, Config{Default: tt.def, Rules: []Rule{tt.rule}}, tt.opts...)
			d := e.Decide(context.Background(), request.Hop{Principal: manyGroups(100)})
			if d.Allow || d.Code != CodeCostLimit || d.Rule != "runaway" || d.Default {
				t.Fatalf("Decide = %+v, want deny by cost limit from rule runaway", d)
			}
			if d.Reason != "cost limit exceeded" {
				t.Fatalf("Reason = %q", d.Reason)
			}
		})
	}
}

// The cost limit bounds a decision as a whole: rules that each fit can
// still be stopped together.
func TestCostLimitBoundsTheWholeDecision(t *testing.T) {
	const expr = `principal.groups.exists(g, g == "zzz")`
	c, err := CompileCondition(expr)
	if err != nil {
		t.Fatal(err)
	}
	hop := request.Hop{Principal: manyGroups(50)}
	_, det, err := c.prg.prg.Eval(newActivation(hop))
	if err != nil || det.ActualCost() == nil {
		t.Fatalf("Eval: %v, %v", det, err)
	}
	one := *det.ActualCost()
	cfg := Config{Default: "allow", Rules: []Rule{{Name: "a", Deny: expr}, {Name: "b", Deny: expr}}}

	d := mustCompile(t, cfg, WithCostLimit(one*3/2)).Decide(context.Background(), hop)
	if d.Allow || d.Code != CodeCostLimit || d.Rule != "b" {
		t.Fatalf("limit 1.5x one rule: Decide = %+v, want deny by cost limit in rule b", d)
	}
	d = mustCompile(t, cfg, WithCostLimit(2*one)).Decide(context.Background(), hop)
	if !d.Allow || d.Code != CodeDefaultAllow {
		t.Fatalf("limit 2x one rule: Decide = %+v, want default allow", d)
	}
}

func TestCostLimitLeavesOrdinaryRulesAlone(t *testing.T) {
	e := mustCompile(t, Config{Default: "deny", Rules: []Rule{{Name: "staff", Allow: `principal.groups.exists(g, g == "g099")`}}})
	d := e.Decide(context.Background(), request.Hop{Principal: manyGroups(100)})
	if !d.Allow {
		t.Fatalf("Decide = %+v, want allow", d)
	}
}

// cancelledAfterCheck is a cancelled context whose first Err call reports
// nil, so Decide's check before evaluation passes and the interrupt check
// inside the comprehension is what stops the rule.
type cancelledAfterCheck struct {
	context.Context
	calls atomic.Int32
}

var closed = func() chan struct{} { c := make(chan struct{}); close(c); return c }()

func (*cancelledAfterCheck) Done() <-chan struct{} { return closed }
func (c *cancelledAfterCheck) Err() error {
	if c.calls.Add(1) == 1 {
		return nil
	}
	return context.Canceled
}

func TestInterruptedEvaluationDenies(t *testing.T) {
	e := mustCompile(t, Config{Default: "allow", Rules: []Rule{{Name: "runaway", Allow: runaway}}}, WithCostLimit(1<<40))
	d := e.Decide(&cancelledAfterCheck{Context: context.Background()}, request.Hop{Principal: manyGroups(100)})
	if d.Allow || d.Code != CodeCancelled || d.Rule != "runaway" {
		t.Fatalf("Decide = %+v, want deny by interruption", d)
	}
}

func TestInterruptedConditionFails(t *testing.T) {
	c, err := CompileCondition(runaway, WithCostLimit(1<<40))
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	ok, err := c.EvalContext(ctx, request.Hop{Principal: manyGroups(100)})
	if ok || !errors.Is(err, ErrInterrupted) {
		t.Fatalf("EvalContext = %v, %v, want ErrInterrupted", ok, err)
	}
}

func TestCancelledContextDenies(t *testing.T) {
	e := mustCompile(t, Config{Default: "allow"})
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	d := e.Decide(ctx, request.Hop{Principal: staff()})
	if d.Allow || d.Code != CodeCancelled {
		t.Fatalf("Decide = %+v, want deny", d)
	}
}

func TestEvaluationErrorFailsClosed(t *testing.T) {
	tests := []struct {
		name      string
		def       string
		rules     []Rule
		wantAllow bool
		wantRule  string
		wantCode  Code
	}{
		{
			name:     "failing deny rule denies",
			def:      "allow",
			rules:    []Rule{{Name: "tenant", Deny: `principal.claims["missing"] == "x"`}},
			wantRule: "tenant", wantCode: CodeEvalError,
		},
		{
			name:     "failing deny rule denies even when an allow matches",
			def:      "allow",
			rules:    []Rule{{Name: "all", Allow: `true`}, {Name: "tenant", Deny: `principal.claims.missing == "x"`}},
			wantRule: "tenant", wantCode: CodeEvalError,
		},
		{
			name:     "failing allow rule does not fall through to default allow",
			def:      "allow",
			rules:    []Rule{{Name: "tenant", Allow: `principal.claims.missing == "x"`}},
			wantRule: "tenant", wantCode: CodeEvalError,
		},
		{
			name:     "failing allow rule under default deny",
			def:      "deny",
			rules:    []Rule{{Name: "convert", Allow: `int(principal.claims.tenant) > 0`}},
			wantRule: "convert", wantCode: CodeEvalError,
		},
		{
			name:      "another allow rule still allows",
			def:       "deny",
			rules:     []Rule{{Name: "tenant", Allow: `principal.claims.missing == "x"`}, {Name: "staff", Allow: `"staff" in principal.groups`}},
			wantAllow: true, wantRule: "staff", wantCode: CodeAllowRule,
		},
		{
			name:     "unknown field through dyn",
			def:      "allow",
			rules:    []Rule{{Name: "dyn", Deny: `dyn(hop).toool == "x"`}},
			wantRule: "dyn", wantCode: CodeEvalError,
		},
		{
			name:     "division by zero",
			def:      "allow",
			rules:    []Rule{{Name: "div", Allow: `1 / size(principal.scopes) == 0`}},
			wantRule: "div", wantCode: CodeEvalError,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			e := mustCompile(t, Config{Default: tt.def, Rules: tt.rules})
			p := staff()
			if tt.name == "division by zero" {
				p.Scopes = nil
			}
			d := e.Decide(context.Background(), request.Hop{Principal: p})
			if d.Allow != tt.wantAllow || d.Rule != tt.wantRule || d.Code != tt.wantCode || d.Default {
				t.Fatalf("Decide = %+v, want allow=%v rule=%q code=%v", d, tt.wantAllow, tt.wantRule, tt.wantCode)
			}
			if d.Code == CodeEvalError && !strings.HasPrefix(d.Reason, "evaluation failed: ") {
				t.Fatalf("Reason = %q, want an evaluation failure", d.Reason)
			}
		})
	}
}

// The text of a CEL run-time error can quote the input that failed (a claim
// used as a map key, a claim that is not a timestamp); decisions and errors
// must not.
func TestEvaluationErrorDoesNotQuoteClaims(t *testing.T) {
	const secret = "alice.secret@example.com"
	p := staff()
	p.Claims["email"] = secret
	for _, expr := range []string{
		`principal.claims[principal.claims.email] == 1`,
		`timestamp(principal.claims.email) > timestamp(0)`,
		`principal.claims.email.matches(principal.claims.email + "[")`,
		`int(principal.claims.email) > 0`,
	} {
		t.Run(expr, func(t *testing.T) {
			e := mustCompile(t, Config{Default: "allow", Rules: []Rule{{Name: "leak", Deny: expr}}})
			d := e.Decide(context.Background(), request.Hop{Principal: p})
			if d.Allow || d.Code != CodeEvalError {
				t.Fatalf("Decide = %+v, want deny by eval error", d)
			}
			if strings.Contains(fmt.Sprint(d), "alice") {
				t.Fatalf("decision quotes the claim: %+v", d)
			}
			c, err := CompileCondition(expr)
			if err != nil {
				t.Fatal(err)
			}
			_, err = c.Eval(request.Hop{Principal: p})
			if !errors.Is(err, ErrEvaluation) || strings.Contains(err.Error(), "alice") {
				t.Fatalf("Eval error = %v, want ErrEvaluation without the claim", err)
			}
		})
	}
}

func TestNilEngineDenies(t *testing.T) {
	var e *Engine
	d := e.Decide(context.Background(), request.Hop{Principal: staff()})
	if d.Allow || d.Code != CodeNoPolicy {
		t.Fatalf("Decide = %+v, want deny", d)
	}
}

func TestZeroDecisionDenies(t *testing.T) {
	var d Decision
	if d.Allow || d.Code.String() != "unknown" {
		t.Fatalf("zero Decision = %+v", d)
	}
}

func TestCodeString(t *testing.T) {
	for c := CodeUnknown; c <= CodeNoPolicy; c++ {
		if s := c.String(); s == "" || (c != CodeUnknown && s == "unknown") {
			t.Errorf("Code(%d).String() = %q", c, s)
		}
	}
	if s := Code(200).String(); s != "unknown" {
		t.Errorf("Code(200).String() = %q", s)
	}
}

func TestConfigValidate(t *testing.T) {
	if err := (Config{Default: "deny", Rules: []Rule{{Name: "a", Allow: "true"}}}).Validate(); err != nil {
		t.Fatalf("Validate = %v", err)
	}
	if err := (Config{Default: "deny", Rules: []Rule{{Name: "a", Allow: "1"}}}).Validate(); err == nil {
		t.Fatal("Validate accepted a non-bool rule")
	}
}

func TestDecideConcurrent(t *testing.T) {
	e := mustCompile(t, Config{Default: "deny", Rules: []Rule{
		{Name: "staff", Allow: `"staff" in principal.groups`},
		{Name: "no-destructive", Deny: `hop.tool_destructive`},
	}})
	var wg sync.WaitGroup
	for i := range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for j := range 200 {
				destructive := (i+j)%2 == 0
				d := e.Decide(context.Background(), request.Hop{Principal: staff(), ToolDestructive: destructive})
				if d.Allow == destructive {
					t.Errorf("Decide(destructive=%v) = %+v", destructive, d)
					return
				}
			}
		}()
	}
	wg.Wait()
}

func TestCondition(t *testing.T) {
	tests := []struct {
		expr    string
		hop     request.Hop
		want    bool
		wantErr error
	}{
		{`hop.tool == "search"`, request.Hop{Tool: "search"}, true, nil},
		{`hop.tool == "search"`, request.Hop{Tool: "fetch"}, false, nil},
		{`principal.client_id.startsWith("bot-")`, request.Hop{Principal: bot()}, true, nil},
		{`principal.client_id.startsWith("bot-")`, request.Hop{}, false, nil},
		{`principal.claims.tier == "free"`, request.Hop{Principal: staff()}, false, ErrEvaluation},
		{runaway, request.Hop{Principal: manyGroups(100)}, false, ErrCostLimit},
	}
	for _, tt := range tests {
		t.Run(tt.expr, func(t *testing.T) {
			c, err := CompileCondition(tt.expr)
			if err != nil {
				t.Fatal(err)
			}
			if c.String() != tt.expr {
				t.Errorf("String() = %q", c.String())
			}
			got, err := c.Eval(tt.hop)
			if !errors.Is(err, tt.wantErr) || (tt.wantErr == nil && err != nil) {
				t.Fatalf("Eval error = %v, want %v", err, tt.wantErr)
			}
			if got != tt.want {
				t.Fatalf("Eval = %v, want %v", got, tt.want)
			}
		})
	}
}

func TestCompileConditionProblems(t *testing.T) {
	tests := []struct{ expr, want string }{
		{`hop.tool`, `policy: condition: ERROR: <input>:1:1: expression returns string, want bool`},
		{`hop.tol == "x"`, `policy: condition: ERROR: <input>:1:4: undefined field 'tol'`},
		{`hop.tool == `, `policy: condition: ERROR: <input>:1:13: Syntax error: mismatched input '<EOF>' expecting {'[', '{', '(', '.', '-', '!', 'true', 'false', 'null', NUM_FLOAT, NUM_INT, NUM_UINT, STRING, BYTES, IDENTIFIER}`},
		{``, `policy: condition: expression is empty`},
	}
	for _, tt := range tests {
		t.Run(tt.expr, func(t *testing.T) {
			_, err := CompileCondition(tt.expr)
			var ps Problems
			if !errors.As(err, &ps) || err.Error() != tt.want {
				t.Fatalf("CompileCondition error = %v, want %s", err, tt.want)
			}
		})
	}
}

func TestNilCondition(t *testing.T) {
	var c *Condition
	if ok, err := c.Eval(request.Hop{}); ok || !errors.Is(err, ErrEvaluation) {
		t.Fatalf("nil Condition Eval = %v, %v", ok, err)
	}
}

// The variables used as whole values (not through a field) behave and never
// panic; anything that would need converting them fails closed.
func TestVariablesAsValues(t *testing.T) {
	tests := []struct {
		expr      string
		wantAllow bool
	}{
		{`hop == hop && principal == principal`, true},
		{`type(hop) == bridge.request.Hop && type(principal) == bridge.policy.Principal`, true},
		{`dyn(hop) != dyn(principal)`, true},
		{`[hop, hop].size() == 2`, true},
		{`{"h": hop}.h == hop`, true},
		{`string(dyn(hop)) == ""`, false},
		{`dyn(hop)[1] == 1`, false},
	}
	for _, tt := range tests {
		t.Run(tt.expr, func(t *testing.T) {
			e, err := Compile(Config{Default: "deny", Rules: []Rule{{Name: "v", Allow: tt.expr}}}, quiet)
			if err != nil {
				if tt.wantAllow {
					t.Fatal(err)
				}
				return // rejected at load: also fine
			}
			if d := e.Decide(context.Background(), request.Hop{Principal: staff()}); d.Allow != tt.wantAllow {
				t.Fatalf("Decide = %+v, want allow=%v", d, tt.wantAllow)
			}
		})
	}
}
