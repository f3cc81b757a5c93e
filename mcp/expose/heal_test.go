package expose_test

import (
	"context"
	"encoding/json"
	"net"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/mark3labs/mcp-go/mcp"

	"github.com/a2a-mcp-bridge/bridge/a2a"
	"github.com/a2a-mcp-bridge/bridge/auth"
	"github.com/a2a-mcp-bridge/bridge/mcp/endpoint"
	"github.com/a2a-mcp-bridge/bridge/mcp/expose"
)

// TestAgentDownAtStartIsListedAndSaysUnreachable: an exposed agent whose
// card cannot be fetched at start is still listed under its alias, and a
// call gets an isError result saying it is unreachable, not "tool not
// found". Once it answers, a check loads its card, the description comes
// from the card, and hosts are told the list changed.
func TestAgentDownAtStartIsListedAndSaysUnreachable(t *testing.T) {
	d := startDemo(t, nil)
	// A port nobody listens on, then the demo agent's own handler there.
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := l.Addr().String()
	l.Close()
	b := startBridge(t, []expose.AgentConfig{{Alias: "late", CardURL: "http://" + addr + "/.well-known/agent-card.json"}}, nil)
	var changes atomic.Int32
	b.tools.OnChange(func() { changes.Add(1) })
	c := b.connect(t, b.token(t, "alice"))
	res, err := c.ListTools(context.Background(), mcp.ListToolsRequest{})
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Tools) != 1 || res.Tools[0].Name != "late" {
		t.Fatalf("tools while the agent is down: %+v", res.Tools)
	}
	out := call(t, c, context.Background(), "late", map[string]any{"message": "hi"}, nil)
	if got := strings.TrimSpace(texts(out)); !out.IsError || !strings.HasPrefix(got, "agent late unreachable: fetching its card failed: ") || !strings.Contains(got, "connection refused") {
		t.Fatalf("call while down: isError=%v %q", out.IsError, got)
	}
	st := b.tools.Statuses()[0]
	if st.Loaded || st.Reachable || st.Refused || st.Err == nil || st.Checked.IsZero() {
		t.Fatalf("status while down: %+v", st)
	}

	l, err = net.Listen("tcp", addr)
	if err != nil {
		t.Skipf("port %s taken meanwhile: %v", addr, err)
	}
	// The agent's card, rewritten to its new address.
	var card a2a.AgentCard
	_ = json.Unmarshal(*d.cardBytes.Load(), &card)
	up := &http.Server{Handler: http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if strings.HasSuffix(r.URL.Path, "/agent-card.json") {
			w.Header().Set("Content-Type", "application/json")
			_ = json.NewEncoder(w).Encode(card)
			return
		}
		d.a2a.ServeHTTP(w, r)
	})}
	for i := range card.SupportedInterfaces {
		u, _ := url.Parse(card.SupportedInterfaces[i].URL)
		u.Host = addr
		card.SupportedInterfaces[i].URL = u.String()
	}
	go func() { _ = up.Serve(l) }()
	defer up.Close()

	if err := b.tools.Check(context.Background(), "late"); err != nil {
		t.Fatalf("check once up: %v", err)
	}
	if changes.Load() == 0 {
		t.Error("no change reported when the card arrived")
	}
	st = b.tools.Statuses()[0]
	if !st.Loaded || !st.Reachable || st.Err != nil || st.Skills == 0 {
		t.Fatalf("status once up: %+v", st)
	}
	res, err = c.ListTools(context.Background(), mcp.ListToolsRequest{})
	if err != nil || len(res.Tools) != 1 || strings.Contains(res.Tools[0].Description, "not loaded") {
		t.Fatalf("tools once up: %+v %v", res.Tools, err)
	}
	out = call(t, c, context.Background(), "late", map[string]any{"message": "hi"}, nil)
	if out.IsError || !strings.Contains(texts(out), "echo: hi") {
		t.Fatalf("call once up: %q", texts(out))
	}
}

// TestCredentialHostsReceiveTheCredentials: an unsigned card that names
// its interface on another port than the card URL's gets the credential
// there only when that host:port is listed in CredentialHosts; otherwise
// the call goes out without it (never with the caller's token).
func TestCredentialHostsReceiveTheCredentials(t *testing.T) {
	for _, tt := range []struct {
		name  string
		hosts func(agent string) []string
		want  string
	}{
		{"not listed", func(string) []string { return nil }, ""},
		{"listed", func(agent string) []string { return []string{agent} }, "Bearer agent-secret"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			d := startDemo(t, nil)
			var seen atomic.Value
			seen.Store("unset")
			obs := func(r *http.Request) { seen.Store(r.Header.Get("Authorization")) }
			d.observe.Store(&obs)
			// The card is served from another server (another port).
			cardSrv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				w.Header().Set("Content-Type", "application/json")
				_, _ = w.Write(*d.cardBytes.Load())
			}))
			defer cardSrv.Close()
			agentHost := strings.TrimPrefix(d.srv.URL, "http://")
			t.Setenv("AGENTTOOLS_TEST_SECRET", "agent-secret")
			secret, err := auth.NewStaticSecret(auth.StaticSecretConfig{Env: "AGENTTOOLS_TEST_SECRET"})
			if err != nil {
				t.Fatal(err)
			}
			b := startBridge(t, []expose.AgentConfig{{Alias: "echo", CardURL: cardSrv.URL + "/.well-known/agent-card.json",
				Credentials: secret, CredentialHosts: tt.hosts(agentHost)}}, func(*endpoint.Config) {})
			c := b.connect(t, b.token(t, "alice"))
			ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
			defer cancel()
			out := call(t, c, ctx, "echo", map[string]any{"message": "hi"}, nil)
			if out.IsError {
				t.Fatalf("call: %q", texts(out))
			}
			if got := seen.Load().(string); got != tt.want {
				t.Fatalf("Authorization at the agent = %q, want %q", got, tt.want)
			}
		})
	}
}
