//go:build interop

package fault

import (
	"fmt"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/a2a-mcp-bridge/bridge/internal/bridgetest"
)

// bridgeKey writes a new signing key with `bridge keys generate` and its
// JWKS with `bridge keys jwks`, and returns their paths.
func bridgeKey(t *testing.T, dir, name string) (pem, jwks string) {
	t.Helper()
	pem, jwks = filepath.Join(dir, name+".pem"), filepath.Join(dir, name+".jwks.json")
	if out, err := exec.Command(bridgetest.BridgeBinary(t), "keys", "generate", pem).CombinedOutput(); err != nil {
		t.Fatalf("bridge keys generate: %v\n%s", err, out)
	}
	out, err := exec.Command(bridgetest.BridgeBinary(t), "keys", "jwks", pem).Output()
	if err != nil {
		t.Fatalf("bridge keys jwks: %v", err)
	}
	if err := os.WriteFile(jwks, out, 0o600); err != nil {
		t.Fatal(err)
	}
	return pem, jwks
}

// TestFault_UpstreamCardReSignedByUntrustedKey: the upstream agent (another
// bridge, publishing our MCP test server) is redeployed with a signing key
// that is not the pinned one. The bridge fronts it (front.a2a) and exposes
// it (expose.agents), both requiring a signature by the pinned key. Within
// a few checks both take it out: A2A callers get AGENT_UNAVAILABLE (HTTP
// 503 for its card), MCP callers an isError result, and /readyz,
// bridge_upstream_state{state="refused"} and the log say why. Redeployed
// with the pinned key, it is served again by itself.
func TestFault_UpstreamCardReSignedByUntrustedKey(t *testing.T) {
	dir := t.TempDir()
	pinned, pinnedJWKS := bridgeKey(t, dir, "pinned")
	rogue, _ := bridgeKey(t, dir, "rogue")
	upstreamConfig := func(key string) string {
		return fmt.Sprintf(`store: "memory:"
keys: {signing: %q}
auth: {anonymous: true}
policy: {default: allow}
server: {shutdown_grace: 1s}
publish:
  - {name: tools, stdio: {command: %q}}
`, key, bridgetest.MCPTestServerBinary(t))
	}
	up := startBridge(t, upstreamConfig(pinned))
	card := up.URL + "/a2a/tools/.well-known/agent-card.json"
	b := startBridge(t, baseConfig()+fmt.Sprintf(`front:
  a2a:
    - {name: tools, url: %q, card: {require_signature: true, keys: %q}}
expose:
  agents:
    - {alias: tools, url: %q, card: {require_signature: true, keys: %q}}
`, card, pinnedJWKS, card, pinnedJWKS))
	url := b.URL + "/a2a/tools"
	host := dialMCP(t, b.URL+"/mcp")
	frontWorks := func() error { return a2aOK(t, url, toolMessage("echo", map[string]any{"text": "signed"}), "signed") }
	exposeWorks := func() error {
		return host.callOK(t, "tools", map[string]any{"message": "x", "data": map[string]any{"tool": "echo", "arguments": map[string]any{"text": "signed"}}}, "signed")
	}
	if err := frontWorks(); err != nil {
		t.Fatalf("front.a2a before: %v", err)
	}
	if err := exposeWorks(); err != nil {
		t.Fatalf("expose before: %v", err)
	}

	up.WriteConfig(t, upstreamConfig(rogue))
	up.Restart()
	resigned := time.Now()
	for _, kind := range []string{"front.a2a", "expose"} {
		bridgetest.Eventually(t, recoverBound, kind+" refused", func() error { return upstreamIs(t, b, kind, "tools", "refused") })
		if v, ok := bridgetest.Metric(t, b.URL, "bridge_upstream_state", map[string]string{"upstream": "tools", "kind": kind, "state": "refused"}); !ok || v != 1 {
			t.Errorf("bridge_upstream_state{%s,refused} = %v", kind, v)
		}
		if err := upMetric(t, b, kind, "tools", 0); err != nil {
			t.Error(err)
		}
	}
	outIn := time.Since(resigned)
	code, r, body := bridgetest.Readyz(t, b.URL)
	want := "refused: card failed verification: the card is signed by a key that is not trusted"
	if code != http.StatusServiceUnavailable || len(r.NotReady) != 2 || !strings.Contains(r.NotReady[0], want) || !strings.Contains(r.NotReady[1], want) {
		t.Errorf("readyz %d: %s", code, body)
	}
	status, _, rpcErr := a2aCall(t, url, "SendMessage", toolMessage("echo", map[string]any{"text": "x"}))
	if rpcErr == nil || rpcErr.Reason() != "AGENT_UNAVAILABLE" || status != http.StatusOK || !strings.Contains(rpcErr.Message, "its card failed verification") {
		t.Errorf("front.a2a call while refused: HTTP %d %+v", status, rpcErr)
	}
	if code, body := bridgetest.Get(t, url+"/.well-known/agent-card.json"); code != http.StatusServiceUnavailable {
		t.Errorf("card of the refused agent: %d %s", code, body)
	}
	res, text, err := host.Call(t, "tools", map[string]any{"message": "x"})
	if err != nil || !res.IsError || text != "agent tools is unavailable: its card failed verification; retry later" {
		t.Errorf("expose call while refused: %v %q", err, text)
	}
	if _, ok := b.LogLine("upstream refused", map[string]string{"upstream": "tools", "kind": "front.a2a"}); !ok {
		t.Error("no \"upstream refused\" log line for front.a2a")
	}

	up.WriteConfig(t, upstreamConfig(pinned))
	up.Restart()
	restored := time.Now()
	tookFront := bridgetest.Eventually(t, recoverBound, "front.a2a back", frontWorks)
	tookExpose := bridgetest.Eventually(t, recoverBound, "expose back", exposeWorks)
	bridgetest.Eventually(t, recoverBound, "readyz", func() error {
		if code, _, body := bridgetest.Readyz(t, b.URL); code != http.StatusOK {
			return fmt.Errorf("readyz %d: %s", code, body)
		}
		return nil
	})
	t.Logf("card re-signed by an untrusted key: both taken out %s after the redeploy; restored: front.a2a back %s, expose %s later (ready %s after the restore)",
		outIn.Round(time.Millisecond), tookFront.Round(time.Millisecond), tookExpose.Round(time.Millisecond), time.Since(restored).Round(time.Millisecond))
}
