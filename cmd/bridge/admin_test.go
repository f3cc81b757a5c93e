package main

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"github.com/a2a-mcp-bridge/bridge/admin"
	"github.com/a2a-mcp-bridge/bridge/gateway"
	"github.com/a2a-mcp-bridge/bridge/gateway/health"
	"github.com/a2a-mcp-bridge/bridge/internal/bridgetest"
)

// demoProcess runs `bridge demo` (the real binary) on a free port and
// returns it with its agent's URL.
func demoProcess(t *testing.T, bin, name string) (*bridgetest.Proc, string) {
	p := bridgetest.StartProc(t, name, bridgetest.Command("", nil, bin, "demo", "--addr", "127.0.0.1:0", "--store", "memory:"), nil)
	rest := p.WaitLine(60*time.Second, "demo agent at ")
	return p, strings.Fields(rest)[0]
}

// adminSetup is a running `bridge serve` with a published MCP server
// (tools), a fronted agent (front) and an exposed agent (exposed), each
// agent a `bridge demo` of its own, and its admin listener.
type adminSetup struct {
	bin           string
	serve         *bridgetest.Proc
	front, expose *bridgetest.Proc
	base, admin   string // http://HOST:PORT
}

// adminConfig is the configuration of adminSetup; adminSection is its
// admin: block.
func adminConfig(mcp, frontURL, exposeURL, adminSection string) string {
	var ports []string
	for _, u := range []string{frontURL, exposeURL} {
		if pu, err := url.Parse(u); err == nil {
			ports = append(ports, pu.Port())
		}
	}
	return fmt.Sprintf(`listen: 127.0.0.1:0
store: "memory:"
auth: {anonymous: true}
policy:
  default: deny
  rules:
    - {name: echo-only, allow: 'hop.agent == "front"'}
netguard: {unsafe_allow: [127.0.0.1/32], unsafe_allow_http: true, ports: [%s]}
publish:
  - name: tools
    stdio: {command: %q}
front:
  a2a:
    - {name: front, url: %q}
expose:
  agents:
    - {alias: exposed, url: %q}
health: {check_interval: 1s, check_timeout: 500ms}
%s
`, strings.Join(ports, ", "), mcp, frontURL, exposeURL, adminSection)
}

func startAdminSetup(t *testing.T, adminSection string, env ...string) *adminSetup {
	t.Helper()
	bin := bridgetest.BridgeBinary(t)
	s := &adminSetup{bin: bin}
	var frontURL, exposeURL string
	s.front, frontURL = demoProcess(t, bin, "fronted agent")
	s.expose, exposeURL = demoProcess(t, bin, "exposed agent")
	// The demo signs its cards (with a key made at its start), as serve
	// does: the exposed one's card verifies against its JWKS, pinned.
	jwks := filepath.Join(t.TempDir(), "exposed-jwks.json")
	resp, err := http.Get(strings.TrimSuffix(exposeURL, "/a2a/echo") + "/.well-known/jwks.json")
	if err != nil {
		t.Fatal(err)
	}
	keys, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if err := os.WriteFile(jwks, keys, 0o600); err != nil {
		t.Fatal(err)
	}
	cfg := strings.Replace(adminConfig(bridgetest.MCPTestServerBinary(t), frontURL, exposeURL, adminSection),
		fmt.Sprintf("- {alias: exposed, url: %q}", exposeURL), fmt.Sprintf("- {alias: exposed, url: %q, card: {keys: %q}}", exposeURL, jwks), 1)
	file := filepath.Join(t.TempDir(), "bridge.yaml")
	if err := os.WriteFile(file, []byte(cfg), 0o600); err != nil {
		t.Fatal(err)
	}
	s.serve = bridgetest.StartProc(t, "bridge serve", bridgetest.Command("", env, bin, "serve", "--config", file), nil)
	s.base = "http://" + strings.Fields(s.serve.WaitLine(60*time.Second, "bridge serving on "))[0]
	s.admin = strings.TrimSuffix(s.serve.WaitLine(60*time.Second, "admin status page at "), admin.PagePath)
	return s
}

// browser starts headless Chromium, which the test needs: a machine
// without it fails the test (.ci/run installs Debian's chromium), unless
// BRIDGE_TEST_SKIP_BROWSER=1 says to skip it on this machine.
func browser(t *testing.T) context.Context {
	t.Helper()
	path := "/usr/bin/chromium"
	if p, err := exec.LookPath("chromium"); err == nil {
		path = p
	}
	if _, err := os.Stat(path); err != nil {
		if os.Getenv("BRIDGE_TEST_SKIP_BROWSER") == "1" {
			t.Skip("BRIDGE_TEST_SKIP_BROWSER=1 and no chromium on this machine")
		}
		t.Fatalf("the browser tests need Debian's chromium (%v): apt-get install chromium, or set BRIDGE_TEST_SKIP_BROWSER=1 to skip them on this machine", err)
	}
	opts := append(chromedp.DefaultExecAllocatorOptions[:],
		chromedp.ExecPath(path), chromedp.NoSandbox, chromedp.DisableGPU,
		chromedp.Flag("disable-dev-shm-usage", true), chromedp.WindowSize(1400, 1000))
	actx, cancelAlloc := chromedp.NewExecAllocator(context.Background(), opts...)
	ctx, cancelCtx := chromedp.NewContext(actx)
	t.Cleanup(func() { cancelCtx(); cancelAlloc() })
	if err := chromedp.Do(ctx); err != nil {
		t.Fatalf("chromium did not start: %v", err)
	}
	return ctx
}

// outputDir is where a test saves what a person may want to look at:
// $TEST_OUTPUT when set, else the test's artifact directory.
func outputDir(t *testing.T) string {
	if d := os.Getenv("TEST_OUTPUT"); d != "" {
		dir := filepath.Join(d, t.Name())
		if err := os.MkdirAll(dir, 0o755); err != nil {
			t.Fatal(err)
		}
		return dir
	}
	return t.ArtifactDir()
}

func screenshot(t *testing.T, ctx context.Context, name string) {
	t.Helper()
	png, err := chromedp.Run(ctx, chromedp.FullScreenshot(100))
	if err != nil {
		t.Fatalf("screenshot: %v", err)
	}
	path := filepath.Join(outputDir(t), name)
	if err := os.WriteFile(path, png, 0o644); err != nil {
		t.Fatal(err)
	}
	t.Logf("screenshot: %s", path)
}

// rowState reads an upstream row's state on the page as it is now (the
// page reloads itself; no navigation here).
func rowState(ctx context.Context, kind health.Kind, name string) (string, error) {
	sel := chromedp.CSS(fmt.Sprintf(`tr[data-kind=%q][data-name=%q]`, kind, name))
	ctx, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	if err := chromedp.Do(ctx, chromedp.WaitReady(sel)); err != nil {
		return "", err
	}
	res, err := chromedp.Run(ctx, chromedp.AttributeValue(sel, "data-state"))
	return res.Value, err
}

// waitRow waits until the row shows want, the page reloading itself.
func waitRow(t *testing.T, ctx context.Context, kind health.Kind, name, want string, within time.Duration) {
	t.Helper()
	bridgetest.Eventually(t, within, fmt.Sprintf("the %s %s row turns %s", kind, name, want), func() error {
		st, err := rowState(ctx, kind, name)
		if err == nil && st == want {
			return nil
		}
		return fmt.Errorf("last: %s", fmt.Sprint(st, err))
	})
}

// TestStatusPageInBrowser opens the status page of a running `bridge
// serve` (a published MCP server, a fronted agent, an exposed agent) in
// headless Chromium: every upstream has its row, up, and the page runs no
// script; when the fronted agent stops, its row turns down on the page's
// own refresh within a few check intervals while the others stay up.
// Screenshots of both are saved in the test's output directory.
func TestStatusPageInBrowser(t *testing.T) {
	ctx := browser(t)
	s := startAdminSetup(t, "admin: {listen: 127.0.0.1:0, refresh: 1s}")
	rows := []struct {
		kind health.Kind
		name string
	}{{health.KindPublish, "tools"}, {health.KindFrontA2A, "front"}, {health.KindExpose, "exposed"}}

	if err := chromedp.Do(ctx, chromedp.Navigate(s.admin+admin.PagePath)); err != nil {
		t.Fatal(err)
	}
	for _, r := range rows {
		waitRow(t, ctx, r.kind, r.name, "up", 30*time.Second)
	}
	title, err := chromedp.Run(ctx, chromedp.Title())
	if err != nil {
		t.Fatal(err)
	}
	version, err := chromedp.Run(ctx, chromedp.Text(chromedp.CSS("#version")))
	if err != nil {
		t.Fatal(err)
	}
	routes, err := chromedp.Run(ctx, chromedp.Text(chromedp.CSS("#routes")))
	if err != nil {
		t.Fatal(err)
	}
	scripts, err := chromedp.Run(ctx, chromedp.Evaluate[int](`document.scripts.length`))
	if err != nil {
		t.Fatal(err)
	}
	if title != "bridge status" || version != gateway.Version || scripts != 0 {
		t.Errorf("title %q, version %q, %d scripts", title, version, scripts)
	}
	for _, want := range []string{"/a2a/tools", "/a2a/front", "/mcp", "/readyz"} {
		if !strings.Contains(routes, want) {
			t.Errorf("routes table lacks %s: %q", want, routes)
		}
	}
	screenshot(t, ctx, "status-all-up.png")

	s.front.Kill()
	// Down within the check interval (1s), seen on the next reload (1s):
	// a generous bound, as timing is not what this test is about.
	waitRow(t, ctx, health.KindFrontA2A, "front", "down", 30*time.Second)
	for _, r := range rows {
		if r.kind == health.KindFrontA2A {
			continue
		}
		if st, err := rowState(ctx, r.kind, r.name); err != nil || st != "up" {
			t.Errorf("%s %s: %q %v, want up", r.kind, r.name, st, err)
		}
	}
	errText, err := chromedp.Run(ctx, chromedp.Text(chromedp.CSS(`tr[data-kind="front.a2a"][data-name="front"] td.error`)))
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(errText, "connection refused") || strings.Contains(errText, "127.0.0.1") {
		t.Errorf("the down row's error: %q", errText)
	}
	screenshot(t, ctx, "status-front-down.png")
}

// TestAdminAPIAndStatusCommand reads the admin API and runs `bridge
// status` against the same setup: the API's upstreams are those /readyz
// lists, the command prints each as a row, and /metrics is served on the
// admin listener too.
func TestAdminAPIAndStatusCommand(t *testing.T) {
	s := startAdminSetup(t, "admin: {listen: 127.0.0.1:0}")
	var st admin.Status
	bridgetest.Eventually(t, 30*time.Second, "the admin API says ready", func() error {
		if st = getStatus(t, s.admin, ""); !st.Ready {
			return fmt.Errorf("status: %+v", st)
		}
		return nil
	})
	if !st.Ready || len(st.Upstreams) != 3 {
		t.Fatalf("status: %+v", st)
	}
	var rd gateway.Readiness
	resp, err := http.Get(s.base + "/readyz")
	if err != nil {
		t.Fatal(err)
	}
	_ = json.NewDecoder(resp.Body).Decode(&rd)
	resp.Body.Close()
	for i, u := range rd.Upstreams {
		if a := st.Upstreams[i]; a.Name != u.Name || a.Kind != u.Kind || a.State != u.State || a.Tools != u.Tools {
			t.Errorf("upstream %d: admin API %+v, /readyz %+v", i, a, u)
		}
	}
	// A denied call is counted (no payload, no principal).
	req, _ := http.NewRequest(http.MethodPost, s.base+"/a2a/tools", strings.NewReader(`{"jsonrpc":"2.0","id":1,"method":"SendMessage","params":{"message":{"messageId":"m1","role":"ROLE_USER","parts":[{"data":{"tool":"echo","arguments":{"message":"secret-payload"}}}]}}}`))
	req.Header.Set("A2A-Version", "1.0")
	req.Header.Set("Content-Type", "application/json")
	if resp, err := http.DefaultClient.Do(req); err == nil {
		resp.Body.Close()
	}
	st = getStatus(t, s.admin, "")
	found := false
	for _, r := range st.Refusals {
		if r.Kind == admin.RefusalPolicy && r.Labels["face"] == "a2a" && r.Total >= 1 && r.Recent >= 1 {
			found = true
		}
	}
	if !found {
		t.Errorf("refusals: %+v", st.Refusals)
	}

	out, err := exec.Command(s.bin, "status", "--admin", s.admin).CombinedOutput()
	if err != nil {
		t.Fatalf("bridge status: %v\n%s", err, out)
	}
	text := string(out)
	for _, want := range []string{"UPSTREAM", "ready\n", "/a2a/front", "policy_denial", "TASK STATE"} {
		if !strings.Contains(text, want) {
			t.Errorf("bridge status lacks %q:\n%s", want, text)
		}
	}
	for _, r := range []string{"tools +publish +up ", "front +front.a2a +up ", "exposed +expose +up "} {
		if !containsLine(text, r) {
			t.Errorf("bridge status has no row %q:\n%s", r, text)
		}
	}
	if strings.Contains(text, "secret-payload") || strings.Contains(string(mustGet(t, s.admin+admin.APIPath)), "secret-payload") {
		t.Error("a call's payload reached the admin view")
	}
	s.front.Kill()
	bridgetest.Eventually(t, 30*time.Second, "bridge status shows the fronted agent down", func() error {
		out, _ = exec.Command(s.bin, "status", "--admin", s.admin).CombinedOutput()
		if !containsLine(string(out), "front +front.a2a +down ") {
			return fmt.Errorf("bridge status:\n%s", out)
		}
		return nil
	})
	if !containsLine(string(out), "front +front.a2a +down ") || !strings.Contains(string(out), "NOT READY") {
		t.Errorf("after the fronted agent stopped:\n%s", out)
	}
	if body := string(mustGet(t, s.admin+"/metrics")); !strings.Contains(body, `bridge_upstream_up{kind="front.a2a",upstream="front"} 0`) {
		t.Errorf("admin /metrics lacks the fronted agent down:\n%.2000s", body)
	}
}

func containsLine(text, pattern string) bool {
	for _, l := range strings.Split(text, "\n") {
		if matched, _ := matchSpaces(l, pattern); matched {
			return true
		}
	}
	return false
}

// matchSpaces matches a line against a pattern whose " +" stand for runs
// of spaces (the table's columns).
func matchSpaces(line, pattern string) (bool, error) {
	parts := strings.Split(pattern, " +")
	rest := line
	for i, p := range parts {
		j := strings.Index(rest, p)
		if j < 0 || i == 0 && j != 0 {
			return false, nil
		}
		rest = strings.TrimLeft(rest[j+len(p):], " ")
	}
	return true, nil
}

func mustGet(t *testing.T, u string) []byte {
	t.Helper()
	resp, err := http.Get(u)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return b
}

func getStatus(t *testing.T, base, token string) admin.Status {
	t.Helper()
	req, _ := http.NewRequest(http.MethodGet, base+admin.APIPath, nil)
	if token != "" {
		req.Header.Set("Authorization", "Bearer "+token)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		b, _ := io.ReadAll(resp.Body)
		t.Fatalf("admin API: %d %s", resp.StatusCode, b)
	}
	var st admin.Status
	if err := json.NewDecoder(resp.Body).Decode(&st); err != nil {
		t.Fatal(err)
	}
	return st
}

// nonLoopbackIP is an address of this machine that is not loopback.
func nonLoopbackIP(t *testing.T) string {
	t.Helper()
	addrs, err := net.InterfaceAddrs()
	if err != nil {
		t.Fatal(err)
	}
	for _, a := range addrs {
		if ipn, ok := a.(*net.IPNet); ok && ipn.IP.To4() != nil && !ipn.IP.IsLoopback() && !ipn.IP.IsLinkLocalUnicast() {
			return ipn.IP.String()
		}
	}
	t.Fatalf("no non-loopback IPv4 address on this machine to bind the admin listener to: %v", addrs)
	return ""
}

// TestAdminOffLoopbackRefusesCallersWithoutAdminCredentials binds the
// admin listener to a non-loopback address of this machine: without
// admin.auth `bridge serve` refuses to start; with it, the page, the API
// and the metrics refuse a caller without the admin key, a key without
// the admin scope, and `bridge status` without BRIDGE_ADMIN_TOKEN, and
// serve the admin.
func TestAdminOffLoopbackRefusesCallersWithoutAdminCredentials(t *testing.T) {
	ip := nonLoopbackIP(t)
	bin := bridgetest.BridgeBinary(t)
	file := filepath.Join(t.TempDir(), "open.yaml")
	if err := os.WriteFile(file, []byte(fmt.Sprintf("listen: 127.0.0.1:0\nstore: \"memory:\"\nauth: {anonymous: true}\npolicy: {default: deny}\nadmin: {listen: %q}\n", ip+":0")), 0o600); err != nil {
		t.Fatal(err)
	}
	out, err := exec.Command(bin, "serve", "--config", file).CombinedOutput()
	if err == nil || !strings.Contains(string(out), "admin.listen: "+ip+":0 is not a loopback address") {
		t.Fatalf("serve with an open admin listener off loopback: %v\n%s", err, out)
	}

	sum := func(k string) string { h := sha256.Sum256([]byte(k)); return hex.EncodeToString(h[:]) }
	section := fmt.Sprintf(`admin:
  listen: %q
  auth:
    api_keys:
      - {name: ops, sha256: %s, scopes: ["bridge:admin"]}
      - {name: caller, sha256: %s, scopes: [agents]}`, ip+":0", sum("ops-key"), sum("caller-key"))
	s := startAdminSetup(t, section)
	if !strings.Contains(s.admin, ip) {
		t.Fatalf("admin listener at %s, want %s", s.admin, ip)
	}
	for _, path := range []string{admin.PagePath, admin.APIPath, "/metrics"} {
		for _, c := range []struct {
			token string
			want  int
		}{{"", http.StatusUnauthorized}, {"wrong", http.StatusUnauthorized}, {"caller-key", http.StatusForbidden}, {"ops-key", http.StatusOK}} {
			req, _ := http.NewRequest(http.MethodGet, s.admin+path, nil)
			if c.token != "" {
				req.Header.Set("Authorization", "Bearer "+c.token)
			}
			resp, err := http.DefaultClient.Do(req)
			if err != nil {
				t.Fatal(err)
			}
			body, _ := io.ReadAll(resp.Body)
			resp.Body.Close()
			if resp.StatusCode != c.want {
				t.Errorf("%s with %q: %d, want %d", path, c.token, resp.StatusCode, c.want)
			}
			if c.want != http.StatusOK && strings.Contains(string(body), "tools") {
				t.Errorf("%s with %q shows the status: %s", path, c.token, body)
			}
		}
	}
	cmd := exec.Command(bin, "status", "--admin", s.admin)
	cmd.Env = append(os.Environ(), "BRIDGE_ADMIN_TOKEN=")
	if out, err := cmd.CombinedOutput(); err == nil || !strings.Contains(string(out), "admin credentials required") {
		t.Errorf("bridge status without a token: %v\n%s", err, out)
	}
	cmd = exec.Command(bin, "status", "--admin", s.admin)
	cmd.Env = append(os.Environ(), "BRIDGE_ADMIN_TOKEN=ops-key")
	if out, err := cmd.CombinedOutput(); err != nil || !containsLine(string(out), "tools +publish ") {
		t.Errorf("bridge status with the admin key: %v\n%s", err, out)
	}
	if st := getStatus(t, s.admin, "ops-key"); strings.Contains(fmt.Sprint(st.Config), "ops-key") {
		t.Error("the admin view shows a key")
	}

	// A browser gets in with the key as a Basic password (what its own
	// prompt sends), and sees the rows.
	ctx := browser(t)
	withKey := strings.Replace(s.admin, "http://", "http://ops:ops-key@", 1) + admin.PagePath
	if err := chromedp.Do(ctx, chromedp.Navigate(withKey)); err != nil {
		t.Fatal(err)
	}
	waitRow(t, ctx, health.KindPublish, "tools", "up", 30*time.Second)
}

func TestShortDuration(t *testing.T) {
	for _, tt := range []struct{ in, want string }{
		{"1h0m0s", "1h"}, {"30m0s", "30m"}, {"1h30m0s", "1h30m"}, {"10s", "10s"}, {"1m10s", "1m10s"}, {"2h0m5s", "2h0m5s"}, {"soon", "soon"},
	} {
		if got := shortDuration(tt.in); got != tt.want {
			t.Errorf("shortDuration(%q) = %q, want %q", tt.in, got, tt.want)
		}
	}
}
