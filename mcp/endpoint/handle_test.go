package endpoint

import (
	"context"
	"errors"
	"net/http"
	"net/http/httptest"
	"reflect"
	"strings"
	"testing"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"

	"github.com/a2a-mcp-bridge/bridge/request"
)

type handleTools struct{}

func (handleTools) Tools() []server.ServerTool {
	return []server.ServerTool{
		{Tool: mcp.NewTool("echo", mcp.WithString("text")), Handler: func(ctx context.Context, req mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			return mcp.NewToolResultText("echo: " + req.GetString("text", "")), nil
		}},
		{Tool: mcp.NewTool("progress"), Handler: func(ctx context.Context, req mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			if req.Params.Meta != nil && req.Params.Meta.ProgressToken != nil {
				_ = Notify(ctx, string(mcp.MethodNotificationProgress), map[string]any{"progressToken": req.Params.Meta.ProgressToken, "progress": 1.0, "message": "working"})
			}
			return mcp.NewToolResultText("done"), nil
		}},
		{Tool: mcp.NewTool("fails"), Handler: func(ctx context.Context, req mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			return nil, errors.New("the tool failed")
		}},
		{Tool: mcp.NewTool("panics"), Handler: func(ctx context.Context, req mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			panic("boom")
		}},
		{Tool: mcp.NewTool("cancelled"), Handler: func(ctx context.Context, req mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			return nil, context.Canceled
		}},
	}
}

type tokenAuth struct{}

func (tokenAuth) Authenticate(r *http.Request) (*request.Principal, error) {
	if r.Header.Get("Authorization") != "Bearer good" {
		return nil, errors.New("bad token")
	}
	return &request.Principal{Subject: "alice", Issuer: "test", Scopes: []string{"mcp"}}, nil
}

// TestHandleSameAsServeHTTP holds the face's answers with a read POST sent
// to mcp-go's Handle to those of mcp-go's ServeHTTP, byte for byte (status,
// header, body, and whether the answer was flushed early), on a table of requests: tool results, progress, errors,
// panics, cancels, unknown tools and methods, notifications, responses,
// malformed and refused bodies, protocol versions, content types and
// failed authentication.
func TestHandleSameAsServeHTTP(t *testing.T) {
	f, err := New(Config{PublicURL: "http://127.0.0.1:1", Authenticator: tokenAuth{}, Sources: []ToolSource{handleTools{}}})
	if err != nil {
		t.Fatal(err)
	}
	call := func(tool, args, meta string) string {
		if meta != "" {
			meta = `,"_meta":` + meta
		}
		return `{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"` + tool + `","arguments":` + args + meta + `}}`
	}
	const modern = "2026-07-28"
	type hdr map[string]string
	both := "application/json, text/event-stream"
	rows := []struct {
		name string
		body string
		h    hdr
	}{
		{"echo", call("echo", `{"text":"hi"}`, ""), hdr{"Accept": both}},
		{"echo json only", call("echo", `{"text":"hi"}`, ""), hdr{"Accept": "application/json"}},
		{"echo no accept", call("echo", `{"text":"hi"}`, ""), nil},
		{"echo 2025-06-18", call("echo", `{"text":"hi"}`, ""), hdr{"Accept": both, "MCP-Protocol-Version": "2025-06-18"}},
		{"echo 2025-11-25", call("echo", `{"text":"hi"}`, ""), hdr{"Accept": both, "MCP-Protocol-Version": "2025-11-25"}},
		{"unsupported version", call("echo", `{"text":"hi"}`, ""), hdr{"Accept": both, "MCP-Protocol-Version": "1999-01-01"}},
		{"modern without header", call("echo", `{}`, `{"io.modelcontextprotocol/protocolVersion":"`+modern+`","io.modelcontextprotocol/clientCapabilities":{}}`), hdr{"Accept": both}},
		{"modern", call("echo", `{}`, `{"io.modelcontextprotocol/protocolVersion":"`+modern+`","io.modelcontextprotocol/clientCapabilities":{}}`), hdr{"Accept": both, "MCP-Protocol-Version": modern, "Mcp-Method": "tools/call", "Mcp-Name": "echo"}},
		{"modern no caps", call("echo", `{}`, `{"io.modelcontextprotocol/protocolVersion":"`+modern+`"}`), hdr{"Accept": both, "MCP-Protocol-Version": modern, "Mcp-Method": "tools/call", "Mcp-Name": "echo"}},
		{"progress", call("progress", `{}`, `{"progressToken":"p-1"}`), hdr{"Accept": both}},
		{"progress json only", call("progress", `{}`, `{"progressToken":"p-1"}`), hdr{"Accept": "application/json"}},
		{"progress no token", call("progress", `{}`, ""), hdr{"Accept": both}},
		{"tool error", call("fails", `{}`, ""), hdr{"Accept": both}},
		{"tool panics", call("panics", `{}`, ""), hdr{"Accept": both}},
		{"tool cancelled", call("cancelled", `{}`, ""), hdr{"Accept": both}},
		{"unknown tool", call("nope", `{}`, ""), hdr{"Accept": both}},
		{"arguments not an object", call("echo", `[1]`, ""), hdr{"Accept": both}},
		{"session id", call("echo", `{"text":"hi"}`, ""), hdr{"Accept": both, "Mcp-Session-Id": "s-1"}},
		{"tools/list", `{"jsonrpc":"2.0","id":1,"method":"tools/list"}`, hdr{"Accept": both}},
		{"ping", `{"jsonrpc":"2.0","id":"p","method":"ping"}`, hdr{"Accept": both}},
		{"initialize", `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"c","version":"1"}}}`, hdr{"Accept": both}},
		{"unknown method", `{"jsonrpc":"2.0","id":1,"method":"no/such"}`, hdr{"Accept": both}},
		{"notification", `{"jsonrpc":"2.0","method":"notifications/initialized"}`, hdr{"Accept": both}},
		{"cancel notification", `{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":7}}`, hdr{"Accept": both}},
		{"response", `{"jsonrpc":"2.0","id":99,"result":{}}`, hdr{"Accept": both}},
		{"error response", `{"jsonrpc":"2.0","id":99,"error":{"code":1,"message":"x"}}`, hdr{"Accept": both}},
		{"not json", `{"jsonrpc":`, hdr{"Accept": both}},
		{"batch", `[` + call("echo", `{}`, "") + `]`, hdr{"Accept": both}},
		{"duplicate member", `{"jsonrpc":"2.0","id":1,"id":2,"method":"ping"}`, hdr{"Accept": both}},
		{"case-folded member", `{"jsonrpc":"2.0","id":1,"Method":"ping"}`, hdr{"Accept": both}},
		{"wrong jsonrpc", `{"jsonrpc":"1.0","id":1,"method":"ping"}`, hdr{"Accept": both}},
		{"empty body", ``, hdr{"Accept": both}},
		{"text/plain", call("echo", `{}`, ""), hdr{"Accept": both, "Content-Type": "text/plain"}},
		{"json with charset", call("echo", `{}`, ""), hdr{"Accept": both, "Content-Type": "application/json; charset=utf-8"}},
		{"no content type", call("echo", `{}`, ""), hdr{"Accept": both, "Content-Type": ""}},
		{"bad token", call("echo", `{}`, ""), hdr{"Accept": both, "Authorization": "Bearer bad"}},
		{"no token", call("echo", `{}`, ""), hdr{"Accept": both, "Authorization": ""}},
		{"foreign origin", call("echo", `{}`, ""), hdr{"Accept": both, "Origin": "https://evil.example"}},
	}
	serve := func(buffered bool, body string, h hdr) *httptest.ResponseRecorder {
		defer func(was bool) { handleBuffered = was }(handleBuffered)
		handleBuffered = buffered
		r := httptest.NewRequest(http.MethodPost, "http://127.0.0.1:1/mcp", strings.NewReader(body))
		r.Header.Set("Content-Type", "application/json")
		r.Header.Set("Authorization", "Bearer good")
		for k, v := range h {
			if v == "" {
				r.Header.Del(k)
			} else {
				r.Header.Set(k, v)
			}
		}
		w := httptest.NewRecorder()
		f.ServeHTTP(w, r)
		return w
	}
	for _, row := range rows {
		t.Run(row.name, func(t *testing.T) {
			old, got := serve(false, row.body, row.h), serve(true, row.body, row.h)
			if old.Code != got.Code || !reflect.DeepEqual(old.Header(), got.Header()) || old.Body.String() != got.Body.String() {
				t.Errorf("ServeHTTP: %d %v %q\nHandle:    %d %v %q", old.Code, old.Header(), old.Body, got.Code, got.Header(), got.Body)
			}
			// A flush before the handler returns makes net/http send the
			// answer chunked instead of with a Content-Length, in more
			// than one write: the same bytes, another response on the wire.
			if old.Flushed != got.Flushed {
				t.Errorf("flushed: ServeHTTP %v, Handle %v", old.Flushed, got.Flushed)
			}
			t.Logf("%d %s flushed=%v %.160q", got.Code, got.Header().Get("Content-Type"), got.Flushed, got.Body)
		})
	}
}
