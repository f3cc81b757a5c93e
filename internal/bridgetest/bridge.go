package bridgetest

import (
	"encoding/json"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"
)

// Client is the harness's HTTP client: each call bounded, nothing shared
// with the code under test.
var Client = &http.Client{Transport: http.DefaultTransport.(*http.Transport).Clone(), Timeout: 30 * time.Second}

// Bridge is a `bridge serve` (or `bridge demo`) process.
type Bridge struct {
	*Proc
	// URL is the bridge's base URL (http://127.0.0.1:PORT).
	URL string
	// Addr is its listen address.
	Addr string
	// ConfigPath is the YAML file it runs ("" for the demo).
	ConfigPath string
}

// BridgeOption changes how StartBridge and NewBridge run the bridge.
type BridgeOption func(*bridgeOptions)

type bridgeOptions struct {
	ready string
	args  []string
	check bool
}

// UntilHealthy makes the bridge ready when /healthz answers 200, before
// its upstreams are (for a bridge started with its peers down).
func UntilHealthy() BridgeOption { return func(o *bridgeOptions) { o.ready = "/healthz" } }

// Args adds arguments to `bridge serve --config FILE`.
func Args(args ...string) BridgeOption {
	return func(o *bridgeOptions) { o.args = append(o.args, args...) }
}

// CheckConfig runs `bridge check-config FILE` first; the test fails when
// it refuses the file.
func CheckConfig() BridgeOption { return func(o *bridgeOptions) { o.check = true } }

// StartBridge writes cfg (YAML without `listen:`, which the harness adds
// with a free loopback address), runs `bridge serve --config` on it and
// waits until /readyz answers 200 (UntilHealthy: /healthz).
func StartBridge(t testing.TB, cfg string, opts ...BridgeOption) *Bridge {
	t.Helper()
	b := NewBridge(t, cfg, opts...)
	b.Start()
	return b
}

// NewBridge prepares the bridge StartBridge runs without starting it
// (the binary is built now: a bridge started later does not wait for the
// build).
func NewBridge(t testing.TB, cfg string, opts ...BridgeOption) *Bridge {
	t.Helper()
	o := bridgeOptions{ready: "/readyz"}
	for _, opt := range opts {
		opt(&o)
	}
	bin := BridgeBinary(t)
	addr := FreeAddr(t)
	b := &Bridge{URL: "http://" + addr, Addr: addr, ConfigPath: filepath.Join(t.TempDir(), "bridge.yaml")}
	b.WriteConfig(t, cfg)
	if o.check {
		if out, err := exec.Command(bin, "check-config", b.ConfigPath).CombinedOutput(); err != nil {
			t.Fatalf("bridgetest: bridge check-config: %v\n%s", err, out)
		}
	}
	args := append([]string{"serve", "--config", b.ConfigPath}, o.args...)
	b.Proc = NewProc(t, "bridge", Command("", nil, bin, args...), HTTPOK(b.URL+o.ready))
	return b
}

// StartDemo runs `bridge demo` on a free loopback port with args added
// (a store of its own unless args name one: tasks of earlier runs neither
// linger in the source tree nor meet this one) and waits until /healthz
// answers 200. The demo agent is at URL + "/a2a/echo".
func StartDemo(t testing.TB, args ...string) *Bridge {
	t.Helper()
	bin := BridgeBinary(t)
	addr := FreeAddr(t)
	all := append([]string{"demo", "--addr", addr}, args...)
	if !hasFlag(args, "--store") {
		all = append(all, "--store", "sqlite:"+filepath.Join(t.TempDir(), "demo.db"))
	}
	b := &Bridge{URL: "http://" + addr, Addr: addr}
	b.Proc = StartProc(t, "bridge demo", Command("", nil, bin, all...), HTTPOK(b.URL+"/healthz"))
	return b
}

func hasFlag(args []string, flag string) bool {
	for _, a := range args {
		if a == flag || strings.HasPrefix(a, flag+"=") {
			return true
		}
	}
	return false
}

// WriteConfig replaces the bridge's config file (listen is kept); a
// running bridge reads it on SIGHUP or restart.
func (b *Bridge) WriteConfig(t testing.TB, cfg string) {
	t.Helper()
	if strings.Contains(cfg, "\nlisten:") || strings.HasPrefix(cfg, "listen:") {
		t.Fatal("bridgetest: the bridge config must not set listen; the harness picks the address")
	}
	if err := os.WriteFile(b.ConfigPath, []byte("listen: "+b.Addr+"\n"+cfg), 0o600); err != nil {
		t.Fatal(err)
	}
}

// Get fetches url and returns the status and body; the test fails when
// the request does.
func Get(t testing.TB, url string) (int, []byte) {
	t.Helper()
	resp, err := Client.Get(url)
	if err != nil {
		t.Fatalf("bridgetest: GET %s: %v", url, err)
	}
	defer resp.Body.Close()
	body, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, body
}

// Readiness is the bridge's /readyz body.
type Readiness struct {
	Ready     bool              `json:"ready"`
	NotReady  []string          `json:"not_ready"`
	Upstreams []json.RawMessage `json:"upstreams"`
}

// Readyz reads base/readyz: the status, the decoded body and the raw one.
func Readyz(t testing.TB, base string) (int, Readiness, string) {
	t.Helper()
	code, body := Get(t, base+"/readyz")
	var r Readiness
	_ = json.Unmarshal(body, &r)
	return code, r, string(body)
}

// Metric returns the value of the Prometheus sample name{labels} at
// base/metrics (labels must all match; others are ignored).
func Metric(t testing.TB, base, name string, labels map[string]string) (float64, bool) {
	t.Helper()
	_, body := Get(t, base+"/metrics")
	return Sample(string(body), name, labels)
}

// Sample finds name{labels} in a Prometheus text exposition.
func Sample(text, name string, labels map[string]string) (float64, bool) {
	for _, line := range strings.Split(text, "\n") {
		if !strings.HasPrefix(line, name+"{") && !strings.HasPrefix(line, name+" ") {
			continue
		}
		rest := strings.TrimPrefix(line, name)
		lbl := ""
		if strings.HasPrefix(rest, "{") {
			end := strings.Index(rest, "}")
			if end < 0 {
				continue
			}
			lbl, rest = rest[1:end], rest[end+1:]
		}
		ok := true
		for k, v := range labels {
			if !strings.Contains(","+lbl+",", ","+k+"="+strconv.Quote(v)+",") {
				ok = false
				break
			}
		}
		if !ok {
			continue
		}
		if f, err := strconv.ParseFloat(strings.TrimSpace(rest), 64); err == nil {
			return f, true
		}
	}
	return 0, false
}
