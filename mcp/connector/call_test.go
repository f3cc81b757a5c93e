package connector_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"reflect"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"

	"github.com/a2a-mcp-bridge/bridge/mcp/connector"
	"github.com/a2a-mcp-bridge/bridge/mcp/connector/connectortest"
)

// wireRecorder keeps the tools/call requests that reach an HTTP server:
// their params (id and progress token removed: they are numbered per
// connection) and the headers the protocol defines.
type wireRecorder struct {
	h    http.Handler
	mu   sync.Mutex
	reqs []recorded
}

type recorded struct {
	Params  any
	Headers map[string]string
	Valid   bool // the body was one valid JSON-RPC 2.0 request
	// Direct: its id is in the direct calls' range (call.go), not the
	// client's.
	Direct bool
}

func (w *wireRecorder) ServeHTTP(rw http.ResponseWriter, r *http.Request) {
	b, _ := io.ReadAll(r.Body)
	r.Body = io.NopCloser(bytes.NewReader(b))
	var msg struct {
		JSONRPC string          `json:"jsonrpc"`
		ID      json.RawMessage `json:"id"`
		Method  string          `json:"method"`
		Params  map[string]any  `json:"params"`
	}
	if json.Unmarshal(b, &msg) == nil && msg.Method == "tools/call" {
		rec := recorded{Params: msg.Params, Headers: map[string]string{}}
		var id any
		rec.Valid = json.Valid(b) && msg.JSONRPC == "2.0" && json.Unmarshal(msg.ID, &id) == nil && id != nil
		n, _ := id.(float64)
		rec.Direct = n >= 1<<32
		if m, ok := msg.Params["_meta"].(map[string]any); ok {
			if tok, _ := m["progressToken"].(string); !strings.HasPrefix(tok, "bridge-") {
				rec.Valid = false
			}
			delete(m, "progressToken")
		}
		for k, v := range r.Header {
			switch {
			case k == "Mcp-Session-Id":
				rec.Headers[k] = "(set)" // a new one per connection
			case strings.HasPrefix(k, "Mcp-") || k == "Accept" || k == "Content-Type":
				rec.Headers[k] = strings.Join(v, ",")
			}
		}
		w.mu.Lock()
		w.reqs = append(w.reqs, rec)
		w.mu.Unlock()
	}
	w.h.ServeHTTP(rw, r)
}

func (w *wireRecorder) take() []recorded {
	w.mu.Lock()
	defer w.mu.Unlock()
	r := w.reqs
	w.reqs = nil
	return r
}

// sampling is a server whose tool "ask" asks the client's model.
func sampling() *server.MCPServer {
	s := server.NewMCPServer("sampler", "1", server.WithToolCapabilities(true))
	s.AddTool(mcp.NewTool("ask"), func(ctx context.Context, _ mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		res, err := server.ServerFromContext(ctx).RequestSampling(ctx, mcp.CreateMessageRequest{CreateMessageParams: mcp.CreateMessageParams{
			Messages: []mcp.SamplingMessage{{Role: mcp.RoleUser, Content: mcp.NewTextContent("2+2?")}}, MaxTokens: 10,
		}})
		if err != nil {
			return mcp.NewToolResultError("no model: " + err.Error()), nil
		}
		tc, _ := mcp.AsTextContent(res.Content)
		return mcp.NewToolResultText("model said " + tc.Text), nil
	})
	s.AddTool(mcp.NewTool("odd"), func(context.Context, mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		return &mcp.CallToolResult{Content: []mcp.Content{mcp.NewTextContent("x")}}, nil
	})
	return s
}

// oddResults answers tools/call of the tool "odd" with the response
// members in *result (what mcp-go's server would not produce), else passes
// the request on.
func oddResults(next http.Handler, result *string) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		b, _ := io.ReadAll(r.Body)
		r.Body = io.NopCloser(bytes.NewReader(b))
		var msg struct {
			ID     json.RawMessage `json:"id"`
			Method string          `json:"method"`
			Params struct {
				Name string `json:"name"`
			} `json:"params"`
		}
		if json.Unmarshal(b, &msg) == nil && msg.Method == "tools/call" && msg.Params.Name == "odd" && *result != "" {
			w.Header().Set("Content-Type", "application/json")
			fmt.Fprintf(w, `{"jsonrpc":"2.0","id":%s,%s}`, msg.ID, *result)
			return
		}
		next.ServeHTTP(w, r)
	})
}

type callCase struct {
	name string
	srv  string // "test" (connectortest) or "sampler"
	// modern: only on 2026-07-28 (mcp-go's stateful server of the
	// handshake eras sends a sampling request on a stream the connector
	// does not open, on either path)
	modern bool
	tool   string
	args   string
	ctx    func() context.Context
	h      connector.CallHandlers
	odd    string // the raw response members for the tool "odd"
}

// TestDirectCallMatchesTheClient is the differential test of the direct
// call (call.go): over streamable HTTP, in every era, the tools/call
// requests it puts on the wire carry the same params and protocol headers
// as mcp-go's client sends for the same call (the reference: every call
// through the client), each is a valid JSON-RPC request that mcp-go's
// server answers, and the results and errors are the same.
func TestDirectCallMatchesTheClient(t *testing.T) {
	traced := func() context.Context { ctx, _ := spanContext(t); return ctx }
	elicit := func(_ context.Context, e connector.Elicitation) (connector.ElicitResult, error) {
		return connector.ElicitResult{Action: connector.ActionAccept, Content: map[string]any{"name": "Ada"}}, nil
	}
	sample := func(_ context.Context, p mcp.CreateMessageParams) (*mcp.CreateMessageResult, error) {
		return &mcp.CreateMessageResult{SamplingMessage: mcp.SamplingMessage{Role: mcp.RoleAssistant, Content: mcp.NewTextContent("4")}, Model: "m"}, nil
	}
	cases := []callCase{
		{name: "object arguments", srv: "test", tool: "echo", args: `{"text":"över <http> & \u2028"}`},
		{name: "numbers kept exact", srv: "test", tool: "add", args: ` {"b": 12345678901234567890, "a": 1.50} `},
		{name: "no arguments", srv: "test", tool: "image"},
		{name: "null arguments", srv: "test", tool: "structured", args: "null"},
		{name: "trailing data after the object", srv: "test", tool: "echo", args: `{"text":"a"} {"x":1}`},
		{name: "arguments not an object", srv: "test", tool: "echo", args: `["a"]`},
		{name: "arguments malformed", srv: "test", tool: "echo", args: `{"text":`},
		{name: "trace context", srv: "test", tool: "resources", ctx: traced},
		{name: "log level", srv: "test", tool: "echo", args: `{"text":"l"}`, h: connector.CallHandlers{Log: func(connector.LogMessage) {}, LogLevel: "warning"}},
		{name: "progress", srv: "test", tool: "slow", args: `{"steps":3}`, h: connector.CallHandlers{Progress: func(float64, float64, string) {}}},
		{name: "tool error result", srv: "test", tool: "fail"},
		{name: "unknown tool", srv: "test", tool: "nope", args: `{}`},
		{name: "elicitation", srv: "test", tool: "ask", h: connector.CallHandlers{Elicit: elicit}},
		{name: "elicitation without a relay", srv: "test", tool: "ask"},
		{name: "sampling", srv: "sampler", tool: "ask", modern: true, h: connector.CallHandlers{Sample: sample}},
		{name: "result without content", srv: "sampler", tool: "odd", odd: `"result":{"isError":false}`},
		{name: "result with null content", srv: "sampler", tool: "odd", odd: `"result":{"content":null}`},
		{name: "result with an unknown content type", srv: "sampler", tool: "odd", odd: `"result":{"content":[{"type":"hologram"}]}`},
		{name: "result with an escaped content type", srv: "sampler", tool: "odd", odd: `"result":{"content":[{"type":"te\u0078t","text":"hi"}]}`},
		{name: "result block without a type", srv: "sampler", tool: "odd", odd: `"result":{"content":[{"text":"hi"}]}`},
		{name: "result block with a null type", srv: "sampler", tool: "odd", odd: `"result":{"content":[{"type":null,"text":"hi"}]}`},
		{name: "result blocks, the second without a type", srv: "sampler", tool: "odd", odd: `"result":{"content":[{"type":"text","text":"a"},{"text":"b"}]}`},
		{name: "result block with a numeric type", srv: "sampler", tool: "odd", odd: `"result":{"content":[{"type":1}]}`},
		{name: "result content not a list", srv: "sampler", tool: "odd", odd: `"result":{"content":{"type":"text"}}`},
		{name: "result not an object", srv: "sampler", tool: "odd", odd: `"result":[1]`},
		{name: "JSON-RPC error", srv: "sampler", tool: "odd", odd: `"error":{"code":-32001,"message":"no such thing"}`},
		{name: "input required without requests", srv: "sampler", tool: "odd", odd: `"result":{"resultType":"input_required","requestState":"s"}`},
		{name: "input required for roots", srv: "sampler", tool: "odd", odd: `"result":{"resultType":"input_required","inputRequests":{"r":{"method":"roots/list"}}}`},
	}
	for _, era := range []string{connector.Era20260728, connector.Era20251125, connector.Era20250618} {
		t.Run(era, func(t *testing.T) {
			for _, tc := range cases {
				t.Run(tc.name, func(t *testing.T) {
					if tc.modern && era != connector.Era20260728 {
						t.Skip("2026-07-28 only")
					}
					ref := runCall(t, era, tc, true)
					got := runCall(t, era, tc, false)
					for i := range got.wire {
						if !got.wire[i].Direct || ref.wire[i].Direct {
							t.Fatalf("request %d: direct path taken %v, in the reference %v", i, got.wire[i].Direct, ref.wire[i].Direct)
						}
						got.wire[i].Direct, ref.wire[i].Direct = false, false
					}
					if len(got.wire) == 0 && got.err == "" {
						t.Fatal("no tools/call seen")
					}
					if !reflect.DeepEqual(got.wire, ref.wire) {
						t.Errorf("on the wire:\n direct %s\n client %s", dump(got.wire), dump(ref.wire))
					}
					for i, r := range got.wire {
						if !r.Valid {
							t.Errorf("request %d is not a valid JSON-RPC request with a bridge progress token", i)
						}
					}
					if got.result != ref.result || got.err != ref.err || got.serverErr != ref.serverErr || got.unreachable != ref.unreachable {
						t.Errorf("outcome:\n direct %+v\n client %+v", got, ref)
					}
				})
			}
		})
	}
}

type outcome struct {
	wire        []recorded
	result      string
	err         string
	serverErr   string
	unreachable bool
}

func runCall(t *testing.T, era string, tc callCase, library bool) outcome {
	t.Helper()
	restore := connector.SetLibraryCalls(library)
	defer restore()
	var mcpSrv *server.MCPServer
	if tc.srv == "sampler" {
		mcpSrv = sampling()
	} else {
		mcpSrv = connectortest.NewServer(connectortest.Options{}).MCP
	}
	odd := tc.odd
	rec := &wireRecorder{h: oddResults(server.NewStreamableHTTPServer(mcpSrv), &odd)}
	ts := httptest.NewServer(rec)
	defer ts.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	c, err := connector.Dial(ctx, connector.Config{Name: "diff", ProtocolVersion: era, Logger: quiet,
		HTTP: &connector.HTTPConfig{URL: ts.URL + "/mcp", Client: ts.Client()}})
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	rec.take()
	cctx := context.Background()
	if tc.ctx != nil {
		cctx = tc.ctx()
	}
	var args json.RawMessage
	if tc.args != "" {
		args = json.RawMessage(tc.args)
	}
	raw, err := c.CallToolWith(cctx, tc.tool, args, tc.h)
	o := outcome{wire: rec.take(), result: string(raw)}
	if err != nil {
		// encoding/json's messages name the Go type decoded into, which
		// differs: the rest must not.
		o.err, _, _ = strings.Cut(err.Error(), ": json: ")
		var se *connector.ServerError
		if errors.As(err, &se) {
			o.serverErr = fmt.Sprintf("%d %s", se.Code, se.Message)
		}
		o.unreachable = connector.Unreachable(err)
	}
	return o
}

func dump(v any) string {
	b, _ := json.Marshal(v)
	return string(b)
}
