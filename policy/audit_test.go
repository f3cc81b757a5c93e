package policy

import (
	"bytes"
	"context"
	"encoding/json"
	"log/slog"
	"strings"
	"testing"

	"github.com/prometheus/client_golang/prometheus"
	dto "github.com/prometheus/client_model/go"

	"github.com/a2a-mcp-bridge/bridge/request"
)

func jsonLogger(buf *bytes.Buffer) *slog.Logger {
	return slog.New(slog.NewJSONHandler(buf, &slog.HandlerOptions{Level: slog.LevelDebug}))
}

func decodeLines(t *testing.T, buf *bytes.Buffer) []map[string]any {
	t.Helper()
	var out []map[string]any
	for _, line := range strings.Split(strings.TrimSpace(buf.String()), "\n") {
		if line == "" {
			continue
		}
		var m map[string]any
		if err := json.Unmarshal([]byte(line), &m); err != nil {
			t.Fatalf("audit line is not JSON: %q: %v", line, err)
		}
		out = append(out, m)
	}
	return out
}

func TestAuditLineFields(t *testing.T) {
	var buf bytes.Buffer
	e, err := Compile(Config{Default: "deny", Rules: []Rule{
		{Name: "no-destructive", Deny: `hop.tool_destructive`, Description: "destructive tools need a human"},
	}}, WithLogger(jsonLogger(&buf)))
	if err != nil {
		t.Fatal(err)
	}
	p := staff()
	e.Decide(context.Background(), request.Hop{
		Principal: p, Face: request.FaceMCP, Direction: request.DirFrontMCP, Agent: "files",
		Tool: "delete", ToolDestructive: true, Method: "tools/call",
	})
	lines := decodeLines(t, &buf)
	if len(lines) != 1 {
		t.Fatalf("got %d audit lines, want 1: %s", len(lines), buf.String())
	}
	want := map[string]any{
		"level":     "INFO",
		"msg":       "policy decision",
		"who":       p.String(),
		"face":      "mcp",
		"direction": "front_mcp",
		"agent":     "files",
		"skill":     "",
		"tool":      "delete",
		"method":    "tools/call",
		"decision":  "deny",
		"rule":      "no-destructive",
		"default":   false,
		"code":      "deny_rule",
		"reason":    "destructive tools need a human",
	}
	for k, v := range want {
		if lines[0][k] != v {
			t.Errorf("audit %s = %v, want %v", k, lines[0][k], v)
		}
	}
}

func TestAuditLineWarnsOnFailedRule(t *testing.T) {
	var buf bytes.Buffer
	e, err := Compile(Config{Default: "allow", Rules: []Rule{{Name: "t", Deny: `principal.claims.nope == 1`}}}, WithLogger(jsonLogger(&buf)))
	if err != nil {
		t.Fatal(err)
	}
	e.Decide(context.Background(), request.Hop{Principal: staff()})
	lines := decodeLines(t, &buf)
	if len(lines) != 1 || lines[0]["level"] != "WARN" || lines[0]["code"] != "eval_error" || lines[0]["decision"] != "deny" {
		t.Fatalf("audit = %v, want one WARN eval_error deny line", lines)
	}
}

// The bearer token kept on the Principal for token exchange, and the values
// of its claims, must never reach the audit stream, whatever the outcome.
func TestAuditNeverLeaksTokenOrClaims(t *testing.T) {
	const token = "eyJhbGciOiJFUzI1NiJ9.c2VjcmV0LXRva2Vu.sig-DO-NOT-LOG"
	const email = "alice.private@example.com"
	const tenant = "tenant-secret-acme-42"
	p := &request.Principal{
		Subject: "alice", Issuer: "https://idp.example.com", Method: "oidc",
		Groups: []string{"staff"},
		Claims: map[string]any{"email": email, "tenant": tenant, "raw": token},
		Token:  token,
	}
	var buf bytes.Buffer
	e, err := Compile(Config{Default: "deny", Rules: []Rule{
		{Name: "staff", Allow: `"staff" in principal.groups && hop.agent == "billing"`},
		{Name: "tenant", Deny: `principal.claims.tenant == "other"`},
		{Name: "convert", Deny: `hop.agent == "conv" && int(principal.claims.email) > 0`},
		{Name: "missing", Deny: `hop.agent == "missing" && principal.claims[principal.claims.tenant] == 1`},
		{Name: "runaway", Deny: `hop.agent == "runaway" && ` + runaway},
	}}, WithLogger(jsonLogger(&buf)), WithCostLimit(1000))
	if err != nil {
		t.Fatal(err)
	}
	hops := []request.Hop{
		{Principal: p, Agent: "billing"},                      // allow by rule
		{Principal: p, Agent: "other"},                        // default deny
		{Principal: p, Agent: "conv"},                         // eval error quoting a claim
		{Principal: p, Agent: "missing"},                      // missing key named by a claim value
		{Principal: manyGroupsWith(p, 100), Agent: "runaway"}, // cost limit
		{Principal: p, Agent: "billing", Face: request.FaceA2A, Method: "SendMessage"},
	}
	for _, h := range hops {
		e.Decide(context.Background(), h)
	}
	out := buf.String()
	if n := len(decodeLines(t, &buf)); n != len(hops) {
		t.Fatalf("got %d audit lines, want %d", n, len(hops))
	}
	for _, secret := range []string{token, "sig-DO-NOT-LOG", "c2VjcmV0LXRva2Vu", email, tenant} {
		if strings.Contains(out, secret) {
			t.Errorf("audit output contains %q:\n%s", secret, out)
		}
	}
	if !strings.Contains(out, `"who":"oidc:alice@https://idp.example.com"`) {
		t.Errorf("audit output does not name the principal:\n%s", out)
	}
}

func manyGroupsWith(p *request.Principal, n int) *request.Principal {
	cp := *p
	cp.Groups = manyGroups(n).Groups
	return &cp
}

func TestAuditRespectsLogLevel(t *testing.T) {
	var buf bytes.Buffer
	l := slog.New(slog.NewJSONHandler(&buf, &slog.HandlerOptions{Level: slog.LevelWarn}))
	e, err := Compile(Config{Default: "allow"}, WithLogger(l))
	if err != nil {
		t.Fatal(err)
	}
	e.Decide(context.Background(), request.Hop{})
	if buf.Len() != 0 {
		t.Fatalf("INFO decision logged at WARN level: %s", buf.String())
	}
}

func counterValue(t *testing.T, reg *prometheus.Registry, labels map[string]string) float64 {
	t.Helper()
	mfs, err := reg.Gather()
	if err != nil {
		t.Fatal(err)
	}
	for _, mf := range mfs {
		if mf.GetName() != "bridge_policy_decisions_total" {
			continue
		}
		for _, m := range mf.GetMetric() {
			if matchLabels(m, labels) {
				return m.GetCounter().GetValue()
			}
		}
	}
	return 0
}

func matchLabels(m *dto.Metric, want map[string]string) bool {
	if len(m.GetLabel()) != len(want) {
		return false
	}
	for _, lp := range m.GetLabel() {
		if want[lp.GetName()] != lp.GetValue() {
			return false
		}
	}
	return true
}

func TestDecisionsCounter(t *testing.T) {
	reg := prometheus.NewRegistry()
	cfg := Config{Default: "deny", Rules: []Rule{
		{Name: "staff", Allow: `"staff" in principal.groups`},
		{Name: "no-destructive", Deny: `hop.tool_destructive`},
	}}
	e := mustCompile(t, cfg, WithRegisterer(reg))
	ctx := context.Background()
	e.Decide(ctx, request.Hop{Principal: staff(), Face: request.FaceA2A})
	e.Decide(ctx, request.Hop{Principal: staff(), Face: request.FaceA2A})
	e.Decide(ctx, request.Hop{Principal: staff(), Face: request.FaceMCP, ToolDestructive: true})
	e.Decide(ctx, request.Hop{Principal: bot(), Face: "weird-face"})
	e.Decide(ctx, request.Hop{Principal: bot()})

	// A reloaded engine on the same registerer shares the counter.
	e2 := mustCompile(t, cfg, WithRegisterer(reg))
	e2.Decide(ctx, request.Hop{Principal: staff(), Face: request.FaceA2A})

	tests := []struct {
		labels map[string]string
		want   float64
	}{
		{map[string]string{"decision": "allow", "rule": "staff", "face": "a2a"}, 3},
		{map[string]string{"decision": "deny", "rule": "no-destructive", "face": "mcp"}, 1},
		{map[string]string{"decision": "deny", "rule": "_default", "face": "other"}, 1},
		{map[string]string{"decision": "deny", "rule": "_default", "face": "none"}, 1},
	}
	for _, tt := range tests {
		if got := counterValue(t, reg, tt.labels); got != tt.want {
			t.Errorf("counter%v = %v, want %v", tt.labels, got, tt.want)
		}
	}
}

func TestRegistererConflictIsAnError(t *testing.T) {
	reg := prometheus.NewRegistry()
	// Same name, different label set: registration must fail loudly.
	reg.MustRegister(prometheus.NewCounterVec(prometheus.CounterOpts{
		Name: "bridge_policy_decisions_total", Help: "clash",
	}, []string{"decision"}))
	if _, err := Compile(Config{Default: "deny"}, quiet, WithRegisterer(reg)); err == nil ||
		!strings.HasPrefix(err.Error(), "policy: register bridge_policy_decisions_total: ") {
		t.Fatalf("Compile = %v, want a registration error", err)
	}
}
