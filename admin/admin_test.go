package admin

import (
	"context"
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/a2a-mcp-bridge/bridge/a2a"
	"github.com/a2a-mcp-bridge/bridge/auth"
	"github.com/a2a-mcp-bridge/bridge/config"
	"github.com/a2a-mcp-bridge/bridge/gateway"
	"github.com/a2a-mcp-bridge/bridge/gateway/health"
)

// fakeBridge is the bridge as the admin server reads it: a real health
// registry behind Ready, fixed routes and task counts.
type fakeBridge struct {
	reg   *health.Registry
	tasks map[a2a.TaskState]int64
}

func (f *fakeBridge) Ready(context.Context) gateway.Readiness {
	ups := f.reg.List()
	rd := gateway.Readiness{Ready: true, Upstreams: ups}
	for _, u := range ups {
		if !u.Up() {
			rd.Ready = false
			rd.NotReady = append(rd.NotReady, string(u.Kind)+" "+u.Name+": "+string(u.State))
		}
	}
	return rd
}

func (f *fakeBridge) Routes() []gateway.Route {
	return []gateway.Route{{Face: gateway.RouteFaceA2A, Kind: health.KindPublish, Name: "tools", Path: "/a2a/tools"}, {Face: gateway.RouteFaceOps, Path: "/readyz"}}
}

func (f *fakeBridge) TasksByState(context.Context) (map[a2a.TaskState]int64, error) {
	return f.tasks, nil
}

func quiet() *slog.Logger { return slog.New(slog.DiscardHandler) }

// newFixture is an admin server over a registry with three upstreams
// (one down, with an error that tries to inject markup), a metrics
// registry with one policy denial, and a configuration holding secrets.
func newFixture(t *testing.T, adm config.Admin) (*Server, *fakeBridge, *prometheus.Registry) {
	t.Helper()
	reg := health.New(health.Options{Logger: quiet()})
	reg.Add(health.KindPublish, "tools")
	reg.Report(health.KindPublish, "tools", health.Report{State: health.StateUp, Tools: 11})
	reg.Add(health.KindFrontA2A, "echo")
	reg.Report(health.KindFrontA2A, "echo", health.Report{State: health.StateDown, Err: `card fetch failed: <script>alert(1)</script>`, Tools: -1})
	reg.Add(health.KindExpose, "billing")
	reg.Report(health.KindExpose, "billing", health.Report{State: health.StateUp, Signature: "verified", Tools: 3})
	fb := &fakeBridge{reg: reg, tasks: map[a2a.TaskState]int64{a2a.TaskStateWorking: 2, a2a.TaskStateCompleted: 5}}

	metrics := prometheus.NewRegistry()
	decisions := prometheus.NewCounterVec(prometheus.CounterOpts{Name: "bridge_policy_decisions_total"}, []string{"decision", "rule", "face"})
	metrics.MustRegister(decisions)
	decisions.WithLabelValues("deny", "_default", "a2a").Add(3)
	decisions.WithLabelValues("allow", "staff", "a2a").Add(9)
	limited := prometheus.NewCounterVec(prometheus.CounterOpts{Name: "bridge_rate_limited_total"}, []string{"face", "rule"})
	metrics.MustRegister(limited)
	limited.WithLabelValues("mcp", "per-principal").Inc()

	cfg, err := config.Parse([]byte(`
listen: 127.0.0.1:8080
store: postgres://bridge:hunter2@db.internal/bridge
auth: {anonymous: true}
policy: {default: deny}
publish:
  - name: tools
    http: {url: "https://mcp.example.com/mcp", headers: {X-Api-Key: "k-hunter2"}}
`), "bridge.yaml")
	if err != nil {
		t.Fatal(err)
	}
	if adm.Listen == "" {
		adm.Listen = "127.0.0.1:9090"
	}
	if adm.Refresh == 0 {
		adm.Refresh = config.Duration(3 * time.Second)
	}
	s, err := New(context.Background(), Options{
		Admin: adm, Ready: fb, Routes: fb, Tasks: fb, Config: func() *config.Config { return cfg },
		Gatherer: metrics, MetricsPath: "/metrics", Version: "1.2.3", Started: time.Now().Add(-time.Minute), Logger: quiet(),
	})
	if err != nil {
		t.Fatal(err)
	}
	return s, fb, metrics
}

func get(t *testing.T, h http.Handler, path string, hdr map[string]string) (*http.Response, string) {
	t.Helper()
	r := httptest.NewRequest(http.MethodGet, "http://127.0.0.1:9090"+path, nil)
	for k, v := range hdr {
		r.Header.Set(k, v)
	}
	w := httptest.NewRecorder()
	h.ServeHTTP(w, r)
	body, _ := io.ReadAll(w.Result().Body)
	return w.Result(), string(body)
}

func TestStatusPageShowsEveryUpstreamWithoutScript(t *testing.T) {
	s, _, _ := newFixture(t, config.Admin{})
	resp, body := get(t, s.Handler(), "/admin/", nil)
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("status %d: %s", resp.StatusCode, body)
	}
	if got := resp.Header.Get("Content-Security-Policy"); got != CSP {
		t.Errorf("CSP %q", got)
	}
	for _, want := range []string{
		`<meta http-equiv="refresh" content="3">`,
		`id="upstream-publish-tools" data-kind="publish" data-name="tools" data-state="up"`,
		`id="upstream-front.a2a-echo" data-kind="front.a2a" data-name="echo" data-state="down"`,
		`id="upstream-expose-billing" data-kind="expose" data-name="billing" data-state="up"`,
		`<td class="signature">verified</td><td>3 skills</td>`, `11 tools`,
		`<td class="signature">not checked</td><td>0 skills</td>`,
		`card fetch failed: &lt;script&gt;alert(1)&lt;/script&gt;`,
		`<td data-state="TASK_STATE_WORKING">2</td>`, `<th>input required</th>`,
		`<td>policy_denial</td><td>face=a2a rule=_default</td><td>3</td><td>3</td>`,
		`<td>rate_limit</td><td>face=mcp rule=per-principal</td><td>1</td><td>1</td>`,
		`postgres://bridge:[redacted]@db.internal/bridge`, `X-Api-Key: &#34;[redacted]&#34;`,
		`version <span id="version">1.2.3</span>`, `<code>/a2a/tools</code>`,
	} {
		if !strings.Contains(body, want) {
			t.Errorf("page lacks %s", want)
		}
	}
	// No script, no secret, nothing loaded from elsewhere.
	for _, bad := range []string{"<script", "hunter2", `src="`, `href="http`, `href="//`} {
		if strings.Contains(body, bad) {
			t.Errorf("page contains %q", bad)
		}
	}
	resp, css := get(t, s.Handler(), "/admin/static/admin.css", nil)
	if resp.StatusCode != http.StatusOK || !strings.Contains(css, ".state-down") {
		t.Errorf("stylesheet: %d %q", resp.StatusCode, css)
	}
}

// TestAPIReadsTheHealthRegistry: the API's upstreams are the registry's
// List, and follow it.
func TestAPIReadsTheHealthRegistry(t *testing.T) {
	s, fb, _ := newFixture(t, config.Admin{})
	read := func() Status {
		resp, body := get(t, s.Handler(), APIPath, nil)
		if resp.StatusCode != http.StatusOK || resp.Header.Get("Content-Type") != "application/json" {
			t.Fatalf("API: %d %s", resp.StatusCode, body)
		}
		var st Status
		if err := json.Unmarshal([]byte(body), &st); err != nil {
			t.Fatal(err)
		}
		if strings.Contains(body, "hunter2") {
			t.Errorf("API shows a secret: %s", body)
		}
		return st
	}
	st := read()
	if st.Version != "1.2.3" || st.Ready || len(st.Upstreams) != 3 || len(st.Routes) != 2 {
		t.Fatalf("status: %+v", st)
	}
	for i, want := range fb.reg.List() {
		got := st.Upstreams[i]
		if got.Name != want.Name || got.Kind != want.Kind || got.State != want.State || got.LastError != want.LastError || got.Tools != want.Tools || got.Signature != want.Signature {
			t.Errorf("upstream %d: got %+v, want %+v", i, got, want)
		}
	}
	fb.reg.Report(health.KindPublish, "tools", health.Report{State: health.StateDown, Err: "connection lost", Tools: -1})
	if st := read(); st.Upstreams[0].State != health.StateDown || st.Upstreams[0].LastError != "connection lost" {
		t.Errorf("after the report: %+v", st.Upstreams[0])
	}
	if len(st.Tasks) != len(gateway.TaskStates()) || st.Tasks[1] != (TaskCount{a2a.TaskStateWorking, 2}) {
		t.Errorf("tasks: %+v", st.Tasks)
	}
}

func TestMetricsOnTheAdminListener(t *testing.T) {
	s, _, _ := newFixture(t, config.Admin{})
	resp, body := get(t, s.Handler(), "/metrics", nil)
	if resp.StatusCode != http.StatusOK || !strings.Contains(body, `bridge_rate_limited_total{face="mcp",rule="per-principal"} 1`) {
		t.Fatalf("metrics: %d %s", resp.StatusCode, body)
	}
}

func sha(s string) string {
	h := sha256.Sum256([]byte(s))
	return hex.EncodeToString(h[:])
}

// TestAdminRefusesCallerWithoutAdminCredentials: with admin.auth set,
// every admin route refuses a caller without a key (401 and a challenge),
// with a key lacking the admin scope (403), and serves the admin.
func TestAdminRefusesCallerWithoutAdminCredentials(t *testing.T) {
	adm := config.Admin{Listen: "0.0.0.0:9090", Scope: "bridge:admin", Auth: auth.Config{APIKeys: []auth.APIKeyConfig{
		{Name: "ops", SHA256: sha("ops-key"), Scopes: []string{"bridge:admin"}},
		{Name: "reader", SHA256: sha("reader-key"), Scopes: []string{"agents"}},
	}}}
	s, _, _ := newFixture(t, adm)
	for _, path := range []string{"/admin/", APIPath, "/metrics", "/admin/static/admin.css", "/"} {
		t.Run(path, func(t *testing.T) {
			resp, body := get(t, s.Handler(), path, nil)
			if resp.StatusCode != http.StatusUnauthorized || resp.Header.Get("WWW-Authenticate") == "" || strings.Contains(body, "tools") {
				t.Errorf("no credentials: %d %q %q", resp.StatusCode, resp.Header.Get("WWW-Authenticate"), body)
			}
			resp, body = get(t, s.Handler(), path, map[string]string{"Authorization": "Bearer wrong-key"})
			if resp.StatusCode != http.StatusUnauthorized {
				t.Errorf("wrong key: %d %q", resp.StatusCode, body)
			}
			resp, body = get(t, s.Handler(), path, map[string]string{"Authorization": "Bearer reader-key"})
			if resp.StatusCode != http.StatusForbidden || !strings.Contains(resp.Header.Get("WWW-Authenticate"), "insufficient_scope") {
				t.Errorf("key without the admin scope: %d %q %q", resp.StatusCode, resp.Header.Get("WWW-Authenticate"), body)
			}
			resp, body = get(t, s.Handler(), path, map[string]string{"Authorization": "Bearer ops-key"})
			if resp.StatusCode != http.StatusOK && resp.StatusCode != http.StatusFound {
				t.Errorf("admin key: %d %q", resp.StatusCode, body)
			}
			// A browser's prompt sends Basic credentials: the key as the
			// password.
			basic := func(user, pass string) map[string]string {
				return map[string]string{"Authorization": "Basic " + base64.StdEncoding.EncodeToString([]byte(user+":"+pass))}
			}
			if resp, _ := get(t, s.Handler(), path, basic("anyone", "ops-key")); resp.StatusCode != http.StatusOK && resp.StatusCode != http.StatusFound {
				t.Errorf("admin key as a Basic password: %d", resp.StatusCode)
			}
			if resp, _ := get(t, s.Handler(), path, basic("ops", "reader-key")); resp.StatusCode != http.StatusForbidden {
				t.Errorf("a key without the scope as a Basic password: %d", resp.StatusCode)
			}
			if resp, _ := get(t, s.Handler(), path, basic("ops", "guess")); resp.StatusCode != http.StatusUnauthorized || !slices.Contains(resp.Header.Values("WWW-Authenticate"), `Basic realm="bridge-admin", charset="UTF-8"`) {
				t.Errorf("a wrong Basic password: %d %q", resp.StatusCode, resp.Header.Values("WWW-Authenticate"))
			}
		})
	}
}

// TestAdminOffLoopbackWithoutCredentialsIsRefused: the server will not
// serve the admin view to the network without admin.auth, even if the
// configuration check was bypassed.
func TestAdminOffLoopbackWithoutCredentialsIsRefused(t *testing.T) {
	for _, listen := range []string{"0.0.0.0:9090", "192.0.2.2:9090", "[::]:9090", ":9090"} {
		_, err := New(context.Background(), Options{Admin: config.Admin{Listen: listen}, Ready: &fakeBridge{}, Routes: &fakeBridge{}, Config: func() *config.Config { return &config.Config{} }, Logger: quiet()})
		if err == nil || !strings.Contains(err.Error(), "not loopback") {
			t.Errorf("%s: err = %v", listen, err)
		}
	}
}

// TestAdminRefusesDNSRebinding: a web page that rebinds its own name to
// 127.0.0.1 cannot read the (unauthenticated, loopback) admin view.
func TestAdminRefusesDNSRebinding(t *testing.T) {
	s, _, _ := newFixture(t, config.Admin{})
	r := httptest.NewRequest(http.MethodGet, "http://evil.example:9090"+APIPath, nil)
	w := httptest.NewRecorder()
	s.Handler().ServeHTTP(w, r)
	if w.Code != http.StatusForbidden || strings.Contains(w.Body.String(), "tools") {
		t.Fatalf("rebound name: %d %s", w.Code, w.Body)
	}
	resp, _ := get(t, s.Handler(), APIPath, map[string]string{"Origin": "https://evil.example"})
	if resp.StatusCode != http.StatusForbidden {
		t.Fatalf("cross-origin read: %d", resp.StatusCode)
	}
}

// TestRecentRefusalsCountTheLastHour: Recent counts what happened since
// the sample an hour ago; Total since start.
func TestRecentRefusalsCountTheLastHour(t *testing.T) {
	metrics := prometheus.NewRegistry()
	decisions := prometheus.NewCounterVec(prometheus.CounterOpts{Name: "bridge_policy_decisions_total"}, []string{"decision", "rule", "face"})
	metrics.MustRegister(decisions)
	start := time.Date(2026, 12, 1, 10, 0, 0, 0, time.UTC)
	r := newRefusals(metrics, start)
	deny := decisions.WithLabelValues("deny", "no-bots", "mcp")
	deny.Add(4)
	for m := 1; m <= 90; m++ {
		r.record(start.Add(time.Duration(m) * time.Minute))
		if m == 50 {
			deny.Add(2)
		}
	}
	// At 10:90 the baseline is the 10:30 sample (4); 2 came after it.
	got := r.status(start.Add(90 * time.Minute))
	if len(got) != 1 || got[0].Total != 6 || got[0].Recent != 2 || got[0].Kind != RefusalPolicy || got[0].LabelText() != "face=mcp rule=no-bots" {
		t.Fatalf("refusals: %+v", got)
	}
	if len(r.samples) > 62 {
		t.Errorf("%d samples kept, want about an hour's", len(r.samples))
	}
	// Before an hour has passed, the baseline is the start: all are recent.
	r2 := newRefusals(metrics, start)
	if got := r2.status(start.Add(10 * time.Minute)); got[0].Recent != 6 {
		t.Errorf("young bridge: %+v", got)
	}
}
