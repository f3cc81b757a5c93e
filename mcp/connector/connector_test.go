package connector_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"

	"github.com/a2a-mcp-bridge/bridge/internal/bridgetest"
	"github.com/a2a-mcp-bridge/bridge/mcp/connector"
	"github.com/a2a-mcp-bridge/bridge/mcp/connector/connectortest"
	"github.com/a2a-mcp-bridge/bridge/request"
)

var quiet = slog.New(slog.DiscardHandler)

// testServerBin builds the stdio test server once.
var testServerBin = sync.OnceValues(func() (string, error) {
	dir, err := os.MkdirTemp("", "mcptestserver")
	if err != nil {
		return "", err
	}
	bin := filepath.Join(dir, "mcptestserver")
	out, err := exec.Command("go", "build", "-o", bin, "./connectortest/mcptestserver").CombinedOutput()
	if err != nil {
		return "", errors.New(string(out))
	}
	return bin, nil
})

func stdioConn(t *testing.T, env map[string]string, inherit []string) *connector.Conn {
	t.Helper()
	return stdioConnWith(t, env, inherit, nil)
}

// stdioConnWith is stdioConn with an OnRestart hook.
func stdioConnWith(t *testing.T, env map[string]string, inherit []string, onRestart func(string)) *connector.Conn {
	t.Helper()
	bin, err := testServerBin()
	if err != nil {
		t.Fatalf("build test server: %v", err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	c, err := connector.Dial(ctx, connector.Config{
		Name:       "child",
		Stdio:      &connector.StdioConfig{Command: bin, Env: env, InheritEnv: inherit, StopGrace: time.Second},
		MinBackoff: 10 * time.Millisecond,
		Logger:     quiet,
		OnRestart:  onRestart,
	})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = c.Close() })
	return c
}

func text(t *testing.T, raw json.RawMessage) string {
	t.Helper()
	var r struct {
		Content []struct {
			Text string `json:"text"`
		} `json:"content"`
	}
	if err := json.Unmarshal(raw, &r); err != nil || len(r.Content) == 0 {
		t.Fatalf("result %s: %v", raw, err)
	}
	return r.Content[0].Text
}

func TestChildEnvironmentNeverInheritsBridgeSecrets(t *testing.T) {
	t.Setenv("BRIDGE_SECRET_TOKEN", "hunter2")
	t.Setenv("BRIDGE_TEST_INHERITED", "yes")
	c := stdioConn(t, map[string]string{"EXPLICIT": "1"}, []string{"BRIDGE_TEST_INHERITED", "NOT_SET_ANYWHERE"})
	raw, err := c.CallTool(context.Background(), "env", nil, nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	names := strings.Fields(text(t, raw))
	got := map[string]bool{}
	for _, n := range names {
		got[n] = true
	}
	if got["BRIDGE_SECRET_TOKEN"] || got["HOME"] || got["PATH"] {
		t.Errorf("child saw variables outside its allow-list: %v", names)
	}
	if !got["EXPLICIT"] || !got["BRIDGE_TEST_INHERITED"] {
		t.Errorf("child misses allowed variables: %v", names)
	}
}

func TestStdioToolsAreRawAndCallsWork(t *testing.T) {
	c := stdioConn(t, nil, nil)
	if v := c.ProtocolVersion(); v != connector.Era20260728 {
		t.Errorf("era = %q, want %s (mcp-go negotiates the newest)", v, connector.Era20260728)
	}
	tools, err := c.Tools(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	var structured *connector.Tool
	for i := range tools {
		if tools[i].Name == "structured" {
			structured = &tools[i]
		}
	}
	if structured == nil || !bytes.Contains(structured.OutputSchema, []byte(`"required":["answer"]`)) {
		t.Fatalf("structured tool / output schema missing: %+v", structured)
	}
	var got []float64
	raw, err := c.CallTool(context.Background(), "slow", json.RawMessage(`{"steps":4}`), func(p, total float64, msg string) { got = append(got, p) }, nil)
	if err != nil {
		t.Fatal(err)
	}
	if text(t, raw) != "counted to 4" {
		t.Fatalf("result %s", raw)
	}
	for i := 1; i < len(got); i++ {
		if got[i] <= got[i-1] {
			t.Fatalf("progress not increasing: %v", got)
		}
	}
}

func TestChildDiesMidCallThenRestarts(t *testing.T) {
	var restarts atomic.Int32
	var restarted atomic.Value
	c := stdioConnWith(t, nil, nil, func(name string) {
		restarts.Add(1)
		restarted.Store(name)
	})
	if n := restarts.Load(); n != 0 {
		t.Fatalf("OnRestart fired %d times for the first connection", n)
	}
	pid, err := c.PID()
	if err != nil {
		t.Fatal(err)
	}
	_, err = c.CallTool(context.Background(), "crash", nil, nil, nil)
	if !errors.Is(err, connector.ErrDied) {
		t.Fatalf("err = %v, want ErrDied", err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	raw, err := c.CallTool(ctx, "echo", json.RawMessage(`{"text":"back"}`), nil, nil)
	if err != nil {
		t.Fatalf("call after restart: %v", err)
	}
	if text(t, raw) != "back" {
		t.Fatalf("result %s", raw)
	}
	if pid2, _ := c.PID(); pid2 == pid {
		t.Error("same child pid after restart")
	}
	// The hook runs before the new connection serves calls, so the call
	// above saw it.
	if n := restarts.Load(); n != 1 {
		t.Errorf("OnRestart fired %d times, want 1", n)
	}
	if name, _ := restarted.Load().(string); name != "child" {
		t.Errorf("OnRestart got name %q, want %q", name, "child")
	}
}

func TestCloseStopsChild(t *testing.T) {
	c := stdioConn(t, nil, nil)
	pid, _ := c.PID()
	if err := c.Close(); err != nil {
		t.Fatal(err)
	}
	p, _ := os.FindProcess(pid)
	if err := p.Signal(syscallZero()); err == nil {
		t.Errorf("child %d still running after Close", pid)
	}
	if _, err := c.CallTool(context.Background(), "echo", nil, nil, nil); !errors.Is(err, connector.ErrClosed) {
		t.Errorf("call after close: %v", err)
	}
}

func TestCancelReachesServer(t *testing.T) {
	s := connectortest.NewServer(connectortest.Options{})
	c, err := connector.InProcess(context.Background(), s.MCP, connector.Config{Name: "inproc", Logger: quiet})
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	ctx, cancel := context.WithCancel(context.Background())
	errc := make(chan error, 1)
	go func() {
		_, err := c.CallTool(ctx, "block", nil, nil, nil)
		errc <- err
	}()
	<-s.Started()
	cancel()
	if err := <-errc; !errors.Is(err, context.Canceled) {
		t.Fatalf("err = %v", err)
	}
	<-s.Cancelled()
}

// cancelCounter counts notifications/cancelled reaching an HTTP server.
type cancelCounter struct {
	h http.Handler
	n atomic.Int32
}

func (c *cancelCounter) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if r.Body != nil {
		b, _ := io.ReadAll(r.Body)
		if bytes.Contains(b, []byte(`"notifications/cancelled"`)) {
			c.n.Add(1)
		}
		r.Body = io.NopCloser(bytes.NewReader(b))
	}
	c.h.ServeHTTP(w, r)
}

// bearer is a static upstream credential.
type bearer string

func (b bearer) Apply(ctx context.Context, r *http.Request, _ *request.Principal) error {
	r.Header.Set("Authorization", "Bearer "+string(b))
	return nil
}

func syscallZero() os.Signal { return syscall.Signal(0) }

func TestHTTPTransports(t *testing.T) {
	for _, tt := range []struct {
		name    string
		era     string
		sse     bool
		wantEra string
	}{
		{"streamable negotiated", "", false, connector.Era20260728},
		{"streamable 2025-11-25", connector.Era20251125, false, connector.Era20251125},
		{"streamable 2025-06-18", connector.Era20250618, false, connector.Era20250618},
		{"legacy sse", "", true, ""},
	} {
		t.Run(tt.name, func(t *testing.T) {
			s := connectortest.NewServer(connectortest.Options{})
			var h http.Handler
			if tt.sse {
				h = server.NewSSEServer(s.MCP)
			} else {
				h = server.NewStreamableHTTPServer(s.MCP)
			}
			cc := &cancelCounter{h: h}
			var auths atomic.Int32
			ts := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				if r.Header.Get("Authorization") == "Bearer upstream-secret" {
					auths.Add(1)
				}
				cc.ServeHTTP(w, r)
			}))
			defer ts.Close()
			hc := &connector.HTTPConfig{URL: ts.URL + "/mcp", Client: ts.Client(), Credentials: bearer("upstream-secret")}
			cfg := connector.Config{Name: "http", ProtocolVersion: tt.era, Logger: quiet}
			if tt.sse {
				hc.URL = ts.URL + "/sse"
				cfg.SSE = hc
			} else {
				cfg.HTTP = hc
			}
			ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
			defer cancel()
			c, err := connector.Dial(ctx, cfg)
			if err != nil {
				t.Fatal(err)
			}
			defer c.Close()
			if tt.wantEra != "" && c.ProtocolVersion() != tt.wantEra {
				t.Errorf("era = %q, want %q", c.ProtocolVersion(), tt.wantEra)
			}
			raw, err := c.CallTool(ctx, "echo", json.RawMessage(`{"text":"over http"}`), nil, nil)
			if err != nil {
				t.Fatal(err)
			}
			if text(t, raw) != "over http" {
				t.Fatalf("result %s", raw)
			}
			if auths.Load() == 0 {
				t.Error("credentials never applied")
			}
			// Cancellation: handshake eras need an explicit notification.
			cctx, ccancel := context.WithCancel(ctx)
			errc := make(chan error, 1)
			go func() {
				_, err := c.CallTool(cctx, "block", nil, nil, nil)
				errc <- err
			}()
			wait := func(what string, ch <-chan string) {
				select {
				case <-ch:
				case <-ctx.Done():
					t.Fatalf("%s: timed out", what)
				}
			}
			wait("block tool start", s.Started())
			ccancel()
			<-errc
			wait("upstream cancellation", s.Cancelled())
			legacy := tt.sse || !strings.HasPrefix(c.ProtocolVersion(), "2026")
			if legacy {
				bridgetest.Eventually(t, 10*time.Second, "notifications/cancelled sent on era "+c.ProtocolVersion(), func() error {
					if cc.n.Load() == 0 {
						return errors.New("none sent")
					}
					return nil
				})
			}
		})
	}
}

func TestToolListChangeNotifies(t *testing.T) {
	s := connectortest.NewServer(connectortest.Options{})
	c, err := connector.InProcess(context.Background(), s.MCP, connector.Config{Name: "inproc", Logger: quiet, ToolsTTL: 20 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	got := make(chan []connector.Tool, 4)
	c.OnToolsChanged(func(ts []connector.Tool) { got <- ts })
	s.MCP.AddTool(mcp.NewToolWithRawSchema("raw", "keeps anyOf", json.RawMessage(`{"type":"object","anyOf":[{"required":["a"]},{"required":["b"]}],"properties":{"a":{"type":"string"},"b":{"type":"string"}}}`)), nil)
	select {
	case ts := <-got:
		for _, tool := range ts {
			if tool.Name == "raw" && !bytes.Contains(tool.InputSchema, []byte(`"anyOf"`)) {
				t.Fatalf("anyOf dropped from the raw schema: %s", tool.InputSchema)
			}
		}
	case <-time.After(20 * time.Second):
		t.Fatal("no tool list change seen")
	}
}
