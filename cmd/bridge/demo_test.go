package main

import (
	"bytes"
	"context"
	"io"
	"net/http"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/a2a-mcp-bridge/bridge/internal/bridgetest"
)

// TestDemoPrintsItsConfiguration: --print-config prints the file the demo
// runs, examples/demo.yaml, byte for byte.
func TestDemoPrintsItsConfiguration(t *testing.T) {
	want, err := os.ReadFile("../../examples/demo.yaml")
	if err != nil {
		t.Fatal(err)
	}
	var out, errOut bytes.Buffer
	if code := run(context.Background(), []string{"demo", "--print-config"}, &out, &errOut); code != 0 {
		t.Fatalf("exit %d: %s", code, errOut.String())
	}
	if !bytes.Equal(out.Bytes(), want) {
		t.Fatalf("--print-config printed:\n%s\nwant examples/demo.yaml:\n%s", out.String(), want)
	}
}

// TestDemoRefusesANetworkListener: the demo's callers are anonymous, and
// its configuration is checked as a file is: on a non-loopback address it
// does not start.
func TestDemoRefusesANetworkListener(t *testing.T) {
	var out, errOut bytes.Buffer
	code := run(context.Background(), []string{"demo", "--addr", "192.0.2.1:8080", "--store", "memory:"}, &out, &errOut)
	want := "auth.anonymous: refused on the non-loopback listener 192.0.2.1:8080"
	if code != 1 || !strings.Contains(errOut.String(), want) || strings.Contains(out.String(), "serving") {
		t.Fatalf("exit %d, stderr:\n%s\nwant exit 1 and %q", code, errOut.String(), want)
	}
}

// TestDemoServesItsConfigurationWithTheFlags runs the binary with every
// demo flag: it serves the configuration's agents, their upstreams on
// /readyz and /metrics,
// logs the unsafe push flag as netguard's own warning, and drains on
// SIGTERM.
func TestDemoServesItsConfigurationWithTheFlags(t *testing.T) {
	bin := bridgetest.BridgeBinary(t)
	p := bridgetest.StartProc(t, "demo", bridgetest.Command("", nil, bin, "demo", "--addr", "127.0.0.1:0", "--store", "memory:", "--public-url", "",
		"--lease-ttl", "2s", "--maintenance-every", "300ms", "--shutdown-grace", "1s", "--unsafe-allow-loopback-push"), nil)
	rest := p.WaitLine(60*time.Second, "demo agent at ")
	agent := strings.Fields(rest)[0]
	base := strings.TrimSuffix(agent, "/a2a/echo")
	// /readyz lists the configuration's upstreams (it is 503 until the
	// exposed agent's card, fetched from the bridge itself, is loaded).
	resp, err := http.Get(base + "/readyz")
	if err != nil {
		t.Fatal(err)
	}
	b, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	for _, want := range []string{`"name":"tools","kind":"publish"`, `"name":"echo","kind":"front.a2a"`, `"name":"echo","kind":"expose"`} {
		if !strings.Contains(string(b), want) {
			t.Fatalf("/readyz has no %s: %s", want, b)
		}
	}
	for _, path := range []string{"/healthz", "/metrics", "/a2a/tools/.well-known/agent-card.json", "/.well-known/agent-card.json", "/.well-known/jwks.json"} {
		resp, err := http.Get(base + path)
		if err != nil {
			t.Fatal(err)
		}
		b, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		if resp.StatusCode != 200 {
			t.Fatalf("GET %s: %d %s", path, resp.StatusCode, b)
		}
	}
	p.Stop() // SIGTERM
	if code := p.ExitCode(); code != 0 {
		t.Fatalf("exit %d after SIGTERM:\n%s", code, p.Out.String())
	}
	if !strings.Contains(p.Out.String(), "127.0.0.0/8") {
		t.Fatalf("no warning naming the loopback push range:\n%s", p.Out.String())
	}
}
