package endpoint_test

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"strings"
	"testing"
	"time"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"

	"github.com/a2a-mcp-bridge/bridge/mcp/endpoint"
	"github.com/a2a-mcp-bridge/bridge/request"
)

// slowTools has one tool that returns after d, or when its call is
// cancelled.
type slowTools struct{ d time.Duration }

func (s slowTools) Tools() []server.ServerTool {
	return []server.ServerTool{{Tool: mcp.NewTool("wait"), Handler: func(ctx context.Context, _ mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		select {
		case <-time.After(s.d):
			return mcp.NewToolResultText("done"), nil
		case <-ctx.Done():
			return nil, ctx.Err()
		}
	}}}
}

// stdioSession drives ServeStdioGracefully with raw JSON-RPC lines.
type stdioSession struct {
	in    *io.PipeWriter
	lines chan map[string]any
	done  chan error
}

func startStdio(t *testing.T, ctx context.Context, d, grace time.Duration) *stdioSession {
	t.Helper()
	f, err := endpoint.New(endpoint.Config{Sources: []endpoint.ToolSource{slowTools{d}}, StdioPrincipal: &request.Principal{Subject: "u", Issuer: "local"}})
	if err != nil {
		t.Fatal(err)
	}
	inR, inW := io.Pipe()
	outR, outW := io.Pipe()
	s := &stdioSession{in: inW, lines: make(chan map[string]any, 16), done: make(chan error, 1)}
	go func() { s.done <- f.ServeStdioGracefully(ctx, grace, inR, outW); _ = outW.Close() }()
	go func() {
		sc := bufio.NewScanner(outR)
		for sc.Scan() {
			var m map[string]any
			if json.Unmarshal(sc.Bytes(), &m) == nil {
				s.lines <- m
			}
		}
		close(s.lines)
	}()
	t.Cleanup(func() { _ = inW.Close() })
	s.send(t, `{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}`)
	s.reply(t, 0)
	s.send(t, `{"jsonrpc":"2.0","method":"notifications/initialized"}`)
	return s
}

func (s *stdioSession) send(t *testing.T, line string) {
	t.Helper()
	if _, err := fmt.Fprintln(s.in, line); err != nil {
		t.Fatal(err)
	}
}

func (s *stdioSession) reply(t *testing.T, id int) map[string]any {
	t.Helper()
	for {
		select {
		case m, ok := <-s.lines:
			if !ok {
				t.Fatalf("output ended before the reply to %d", id)
			}
			if v, ok := m["id"].(float64); ok && int(v) == id {
				return m
			}
		case <-time.After(10 * time.Second):
			t.Fatalf("no reply to %d", id)
		}
	}
}

func callLine(id int) string {
	return fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":"tools/call","params":{"name":"wait","arguments":{}}}`, id)
}

// TestStdioShutdown_CallInFlightFinishesNewOnesRefused: SIGTERM over
// stdio: the call in flight gets its result, a request sent afterwards is
// refused with the shutting-down error, and serving ends once the call is
// answered, well before the grace.
//
// Real time, not testing/synctest: the face's stdio goroutines (mcp-go's
// reader on the pipe) block on I/O, which is not durably blocking in a
// bubble, so synctest.Wait would never return.
func TestStdioShutdown_CallInFlightFinishesNewOnesRefused(t *testing.T) {
	ctx, sigterm := context.WithCancel(context.Background())
	s := startStdio(t, ctx, 300*time.Millisecond, 10*time.Second)
	s.send(t, callLine(1))
	time.Sleep(50 * time.Millisecond)
	start := time.Now()
	sigterm()
	time.Sleep(20 * time.Millisecond)
	s.send(t, callLine(2))
	refused := s.reply(t, 2)
	if e, _ := refused["error"].(map[string]any); e == nil || e["message"] != endpoint.ShuttingDownMessage {
		t.Errorf("a request after SIGTERM: %v", refused)
	}
	if r := s.reply(t, 1); r["result"] == nil || !strings.Contains(fmt.Sprint(r["result"]), "done") {
		t.Errorf("the call in flight: %v", r)
	}
	select {
	case err := <-s.done:
		if err != nil {
			t.Fatal(err)
		}
	case <-time.After(5 * time.Second):
		t.Fatal("serving did not end once the call was answered")
	}
	if d := time.Since(start); d > 3*time.Second {
		t.Errorf("shutdown took %s with nothing left in flight", d)
	}
}

// TestStdioShutdown_GraceExpiredCancelsCall: a call that outlasts the
// grace is cancelled and serving ends within the grace (plus slack).
func TestStdioShutdown_GraceExpiredCancelsCall(t *testing.T) {
	const grace = 300 * time.Millisecond
	ctx, sigterm := context.WithCancel(context.Background())
	s := startStdio(t, ctx, time.Minute, grace)
	s.send(t, callLine(1))
	time.Sleep(50 * time.Millisecond)
	start := time.Now()
	sigterm()
	select {
	case err := <-s.done:
		if err != nil {
			t.Fatal(err)
		}
	case <-time.After(grace + 5*time.Second):
		t.Fatal("serving did not end after the grace")
	}
	if d := time.Since(start); d < grace || d > grace+2*time.Second {
		t.Errorf("ended %s after SIGTERM, want after the grace (%s) and within 2s more", d, grace)
	}
}
