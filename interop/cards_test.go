//go:build interop

package interop

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/mark3labs/mcp-go/mcp"

	"github.com/a2a-mcp-bridge/bridge/a2a/card"
	"github.com/a2a-mcp-bridge/bridge/config"
	"github.com/a2a-mcp-bridge/bridge/examples/demomcp"
	"github.com/a2a-mcp-bridge/bridge/gateway"
	"github.com/a2a-mcp-bridge/bridge/mcp/connector"
)

// runCardScript runs a2ajs/card-signatures.mjs in mode with in as stdin and
// decodes its stdout into out.
func runCardScript(t *testing.T, node, mode string, in, out any) {
	t.Helper()
	b, err := json.Marshal(in)
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(node, "card-signatures.mjs", mode)
	cmd.Dir = jsDir
	cmd.Stdin = bytes.NewReader(b)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	res, err := cmd.Output()
	if err != nil {
		t.Fatalf("interop: node card-signatures.mjs %s: %v\n%s", mode, err, stderr.String())
	}
	if err := json.Unmarshal(res, out); err != nil {
		t.Fatalf("interop: card-signatures.mjs %s answered %q: %v", mode, res, err)
	}
}

// sdkCards are card shapes on which the spec's canonical form and the one
// @a2a-js/sdk signs differ, and one on which they agree.
var sdkCards = []string{
	`{"name":"Plain","description":"a card","version":"1.0.0","supportedInterfaces":[{"url":"https://a.example/a2a","protocolBinding":"JSONRPC","protocolVersion":"1.0"}],"capabilities":{"streaming":true},"defaultInputModes":["text/plain"],"defaultOutputModes":["text/plain"],"skills":[{"id":"s1","name":"S","description":"d","tags":["t"]}]}`,
	`{"name":"Empty required fields","description":"","version":"1.0.0","supportedInterfaces":[],"capabilities":{},"defaultInputModes":[],"defaultOutputModes":[],"skills":[]}`,
	`{"name":"Empty values inside","description":"x","version":"1","capabilities":{"extensions":[{"uri":"urn:x","description":"","params":{"a":"","b":[],"c":{"d":""},"e":0,"f":false}}]},"skills":[{"id":"s","name":"n","description":"","tags":[],"examples":[""]}]}`,
	`{"name":"Member outside the schema","description":"x","version":"1","futureField":{"z":1},"skills":[{"id":"s","name":"n","description":"d","tags":["a"]}]}`,
}

// TestCardSignedByA2AJSVerifies: cards signed by @a2a-js/sdk 1.3.0's
// generateAgentCardSignature verify with the bridge's upstream verifier,
// which records the form that matched; what the SDK's form leaves out is
// not in the card the bridge then uses (Result.Covered).
func TestCardSignedByA2AJSVerifies(t *testing.T) {
	node := requireNode(t)
	var in struct {
		Cards []json.RawMessage `json:"cards"`
	}
	for _, c := range sdkCards {
		in.Cards = append(in.Cards, json.RawMessage(c))
	}
	var signed struct {
		JWKS  json.RawMessage   `json:"jwks"`
		Cards []json.RawMessage `json:"cards"`
	}
	runCardScript(t, node, "sign", in, &signed)
	keys, err := card.ParseJWKS(signed.JWKS)
	if err != nil {
		t.Fatal(err)
	}
	if len(signed.Cards) != len(sdkCards) {
		t.Fatalf("signed %d cards, want %d", len(signed.Cards), len(sdkCards))
	}
	for i, c := range signed.Cards {
		res, err := card.Verify(context.Background(), c, keys, card.VerifyOptions{RequireSignature: true})
		if err != nil {
			t.Errorf("card %d (%s): %v", i, sdkCards[i][:40], err)
			continue
		}
		want := card.FormSDK
		if i == 0 {
			want = card.FormSpec // nothing empty, nothing unknown: the forms agree
		}
		if res.Form != want {
			t.Errorf("card %d verified over form %v, want %v", i, res.Form, want)
		}
		if bytes.Contains(res.Covered, []byte("futureField")) {
			t.Errorf("card %d: a member the signature does not cover is in the card to use: %s", i, res.Covered)
		}
		// Altered after signing, it does not verify in any form.
		var m map[string]any
		_ = json.Unmarshal(c, &m)
		m["name"] = "Altered"
		altered, _ := json.Marshal(m)
		if _, err := card.Verify(context.Background(), altered, keys, card.VerifyOptions{}); err == nil {
			t.Errorf("card %d verifies after its name was changed", i)
		}
	}
}

// TestServedCardVerifiesWithA2AJS: the cards `bridge serve` publishes (a
// published MCP server's card, signed with the configured key, and the
// JWKS at /.well-known/jwks.json) verify with @a2a-js/sdk 1.3.0's
// verifyAgentCardSignature, and a card altered in transit does not.
func TestServedCardVerifiesWithA2AJS(t *testing.T) {
	node := requireNode(t)
	dir := t.TempDir()
	pemKey, err := card.GenerateKey(card.ES256)
	if err != nil {
		t.Fatal(err)
	}
	keyFile := filepath.Join(dir, "bridge.pem")
	if err := os.WriteFile(keyFile, pemKey, 0o600); err != nil {
		t.Fatal(err)
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	pub := "http://" + ln.Addr().String()
	cfg, err := config.Parse([]byte(fmt.Sprintf(`
listen: 127.0.0.1:0
store: "memory:"
keys: {signing: %q}
auth: {anonymous: true}
policy: {default: allow}
publish:
  - {name: tools, stdio: {command: demomcp}}
`, keyFile)), "interop.yaml")
	if err != nil {
		t.Fatal(err)
	}
	// The demo MCP server's tools, and one without a description: its
	// skill's REQUIRED description is "" in the spec's form and absent in
	// the SDKs' form.
	mcpSrv := demomcp.New()
	mcpSrv.AddTool(mcp.NewTool("bare"), func(context.Context, mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		return mcp.NewToolResultText("ok"), nil
	})
	ctx := context.Background()
	b, err := gateway.Build(ctx, cfg, gateway.Options{PublicURL: pub,
		DialUpstream: func(ctx context.Context, c connector.Config) (*connector.Conn, error) {
			return connector.InProcess(ctx, mcpSrv, c)
		}})
	if err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewUnstartedServer(b.Handler())
	srv.Listener = ln
	srv.Start()
	t.Cleanup(func() { srv.Close(); _ = b.Close() })

	get := func(path string) json.RawMessage {
		resp, err := http.Get(pub + path)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		body, _ := io.ReadAll(resp.Body)
		if resp.StatusCode != http.StatusOK {
			t.Fatalf("GET %s: %d %s", path, resp.StatusCode, body)
		}
		return body
	}
	served := get("/a2a/tools/.well-known/agent-card.json")
	jwks := get(gateway.JWKSPath)
	var m map[string]any
	if err := json.Unmarshal(served, &m); err != nil {
		t.Fatal(err)
	}
	m["name"] = "Altered in transit"
	altered, _ := json.Marshal(m)

	var out struct {
		Results []struct {
			OK    bool   `json:"ok"`
			Error string `json:"error"`
		} `json:"results"`
	}
	runCardScript(t, node, "verify", map[string]any{"jwks": jwks, "cards": []json.RawMessage{served, altered}}, &out)
	if len(out.Results) != 2 {
		t.Fatalf("results: %+v", out.Results)
	}
	if !out.Results[0].OK {
		t.Errorf("@a2a-js/sdk does not verify the served card: %s\n%s", out.Results[0].Error, served)
	}
	if out.Results[1].OK {
		t.Errorf("@a2a-js/sdk verifies a card altered in transit")
	}
	if !strings.Contains(string(served), `"signatures"`) {
		t.Fatalf("served card is unsigned: %s", served)
	}
}
