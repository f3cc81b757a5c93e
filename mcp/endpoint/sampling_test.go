package endpoint_test

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/mark3labs/mcp-go/client"
	"github.com/mark3labs/mcp-go/client/transport"
	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"

	"github.com/a2a-mcp-bridge/bridge/mcp/endpoint"
	"github.com/a2a-mcp-bridge/bridge/request"
)

// asker is a ToolSource whose tool "ask" asks the caller's model (what
// front does when an upstream sends sampling/createMessage during a
// call) and answers with the model's text.
type asker struct{}

func (asker) Tools() []server.ServerTool {
	return []server.ServerTool{{
		Tool: mcp.NewTool("ask", mcp.WithDescription("asks the host's model")),
		Handler: func(ctx context.Context, req mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			if !endpoint.SamplingAvailable(ctx) {
				return mcp.NewToolResultError("sampling unavailable"), nil
			}
			res, err := server.ServerFromContext(ctx).RequestSampling(ctx, mcp.CreateMessageRequest{CreateMessageParams: mcp.CreateMessageParams{
				Messages:  []mcp.SamplingMessage{{Role: mcp.RoleUser, Content: mcp.NewTextContent("question from " + request.PrincipalFrom(ctx).Subject)}},
				MaxTokens: 5,
			}})
			if err != nil {
				return mcp.NewToolResultError("sampling: " + err.Error()), nil
			}
			tc, _ := mcp.AsTextContent(res.Content)
			return mcp.NewToolResultText("answer=" + tc.Text), nil
		},
	}}
}

// host is a hand-written 2025-06-18 host over streamable HTTP: one session,
// server requests read from each POST's own event stream.
type host struct {
	t   *testing.T
	url string
	tok string
	sid string
}

func (h *host) do(body string) *http.Response {
	h.t.Helper()
	req, _ := http.NewRequest(http.MethodPost, h.url, strings.NewReader(body))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	req.Header.Set("Authorization", "Bearer "+h.tok)
	req.Header.Set("MCP-Protocol-Version", "2025-06-18")
	if h.sid != "" {
		req.Header.Set("Mcp-Session-Id", h.sid)
	}
	resp, err := (&http.Client{}).Do(req)
	if err != nil {
		h.t.Fatal(err)
	}
	h.t.Cleanup(func() { resp.Body.Close() })
	return resp
}

// newHost initializes a session that declared sampling.
func newHost(t *testing.T, e *env, sub string) *host {
	t.Helper()
	h := &host{t: t, url: e.public + "/mcp", tok: e.token(t, sub, e.public+"/mcp", "agents")}
	resp := h.do(`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{"sampling":{}},"clientInfo":{"name":"host","version":"1"}}}`)
	_, _ = io.Copy(io.Discard, resp.Body)
	h.sid = resp.Header.Get("Mcp-Session-Id")
	if resp.StatusCode != http.StatusOK || h.sid == "" {
		t.Fatalf("initialize: status %d, session %q", resp.StatusCode, h.sid)
	}
	if resp := h.do(`{"jsonrpc":"2.0","method":"notifications/initialized"}`); resp.StatusCode != http.StatusAccepted {
		t.Fatalf("initialized: status %d", resp.StatusCode)
	}
	return h
}

// message is a JSON-RPC message read from an event stream.
type message struct {
	ID     json.RawMessage `json:"id"`
	Method string          `json:"method"`
	Params json.RawMessage `json:"params"`
	Result *struct {
		IsError bool `json:"isError"`
		Content []struct {
			Text string `json:"text"`
		} `json:"content"`
	} `json:"result"`
}

// call POSTs tools/call "ask" and returns the messages of its event stream.
func (h *host) call(id int) <-chan message {
	h.t.Helper()
	resp := h.do(fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":"tools/call","params":{"name":"ask","arguments":{}}}`, id))
	if resp.StatusCode != http.StatusOK {
		h.t.Fatalf("tools/call: status %d", resp.StatusCode)
	}
	out := make(chan message, 16)
	go func() {
		defer close(out)
		if !strings.HasPrefix(resp.Header.Get("Content-Type"), "text/event-stream") {
			var m message
			_ = json.NewDecoder(resp.Body).Decode(&m)
			out <- m
			return
		}
		sc := bufio.NewScanner(resp.Body)
		var data strings.Builder
		for sc.Scan() {
			line := sc.Text()
			switch {
			case strings.HasPrefix(line, "data: "):
				data.WriteString(strings.TrimPrefix(line, "data: "))
			case line == "" && data.Len() > 0:
				var m message
				if err := json.Unmarshal([]byte(data.String()), &m); err == nil {
					out <- m
				}
				data.Reset()
			}
		}
	}()
	return out
}

// answer POSTs the host's answer to a sampling request and returns the
// HTTP status.
func (h *host) answer(id json.RawMessage, text string) int {
	h.t.Helper()
	resp := h.do(fmt.Sprintf(`{"jsonrpc":"2.0","id":%s,"result":{"role":"assistant","content":{"type":"text","text":%q},"model":"m","stopReason":"endTurn"}}`, id, text))
	_, _ = io.Copy(io.Discard, resp.Body)
	return resp.StatusCode
}

func next(t *testing.T, ch <-chan message) message {
	t.Helper()
	select {
	case m, ok := <-ch:
		if !ok {
			t.Fatal("the call's stream ended early")
		}
		return m
	case <-time.After(10 * time.Second):
		t.Fatal("no message on the call's stream")
	}
	return message{}
}

func resultText(t *testing.T, m message) string {
	t.Helper()
	if m.Result == nil || len(m.Result.Content) == 0 {
		t.Fatalf("not a tool result: method %q params %s", m.Method, m.Params)
	}
	return m.Result.Content[0].Text
}

func samplingEnv(t *testing.T, mut func(*endpoint.Config)) *env {
	return start(t, func(c *endpoint.Config) {
		c.LegacySessions = true
		c.Sources = []endpoint.ToolSource{asker{}}
		if mut != nil {
			mut(c)
		}
	})
}

func TestSamplingReachesTheCallerOnItsPostStream(t *testing.T) {
	e := samplingEnv(t, nil)
	alice := newHost(t, e, "alice")
	stream := alice.call(7)
	req := next(t, stream)
	if req.Method != string(mcp.MethodSamplingCreateMessage) || len(req.ID) == 0 || !strings.Contains(string(req.Params), "question from alice") {
		t.Fatalf("first message on the call's stream: method %q id %s params %s", req.Method, req.ID, req.Params)
	}
	if got := alice.answer(req.ID, "forty-two"); got != http.StatusAccepted {
		t.Fatalf("answer: status %d", got)
	}
	res := next(t, stream)
	if string(res.ID) != "7" || resultText(t, res) != "answer=forty-two" || res.Result.IsError {
		t.Fatalf("result: id %s %+v", res.ID, res.Result)
	}
}

func TestSecondSessionCannotAnswerOrSeeAnotherSessionsSampling(t *testing.T) {
	e := samplingEnv(t, nil)
	a := newHost(t, e, "alice")
	b := newHost(t, e, "alice") // the same principal, another session
	mallory := newHost(t, e, "mallory")

	streamA := a.call(1)
	reqA := next(t, streamA)
	if reqA.Method != string(mcp.MethodSamplingCreateMessage) {
		t.Fatalf("session A: %q", reqA.Method)
	}
	streamB := b.call(1)
	reqB := next(t, streamB)
	if reqB.Method != string(mcp.MethodSamplingCreateMessage) || string(reqB.ID) == string(reqA.ID) {
		t.Fatalf("session B saw session A's sampling request (or none of its own): %q %s", reqB.Method, reqB.ID)
	}

	attacks := []struct {
		name string
		h    *host
		sid  string
	}{
		{"another session of the same principal", b, b.sid},
		{"another principal", mallory, mallory.sid},
		{"another principal naming the caller's session", mallory, a.sid},
		{"no session", a, ""},
	}
	for _, at := range attacks {
		h := *at.h
		h.sid = at.sid
		if got := h.answer(reqA.ID, "forged"); got != http.StatusNotFound {
			t.Errorf("%s answered session A's sampling request: status %d", at.name, got)
		}
	}

	if got := b.answer(reqB.ID, "for-b"); got != http.StatusAccepted {
		t.Fatalf("session B's own answer: status %d", got)
	}
	if got := resultText(t, next(t, streamB)); got != "answer=for-b" {
		t.Fatalf("session B's result: %q", got)
	}
	if got := a.answer(reqA.ID, "for-a"); got != http.StatusAccepted {
		t.Fatalf("session A's own answer: status %d", got)
	}
	if got := resultText(t, next(t, streamA)); got != "answer=for-a" {
		t.Fatalf("session A's result (a forged answer was taken?): %q", got)
	}
	if got := a.answer(reqA.ID, "again"); got != http.StatusNotFound {
		t.Fatalf("a sampling request was answered twice: status %d", got)
	}
}

func TestUnansweredSamplingEndsTheWaitWithAnError(t *testing.T) {
	e := samplingEnv(t, func(c *endpoint.Config) { c.SamplingTimeout = 50 * time.Millisecond })
	alice := newHost(t, e, "alice")
	stream := alice.call(3)
	req := next(t, stream)
	if req.Method != string(mcp.MethodSamplingCreateMessage) {
		t.Fatalf("first message: %q", req.Method)
	}
	cancelled := next(t, stream)
	if cancelled.Method != string(mcp.MethodNotificationCancelled) || !strings.Contains(string(cancelled.Params), string(req.ID)) {
		t.Fatalf("no notifications/cancelled for the unanswered request: %q %s", cancelled.Method, cancelled.Params)
	}
	res := next(t, stream)
	if !res.Result.IsError || !strings.Contains(resultText(t, res), "did not answer") {
		t.Fatalf("result: %+v", res.Result)
	}
	if got := alice.answer(req.ID, "late"); got != http.StatusNotFound {
		t.Fatalf("a late answer was taken: status %d", got)
	}
}

// sampler is a host-side sampling handler (mcp-go client).
type sampler string

func (s sampler) CreateMessage(context.Context, mcp.CreateMessageRequest) (*mcp.CreateMessageResult, error) {
	return &mcp.CreateMessageResult{SamplingMessage: mcp.SamplingMessage{Role: mcp.RoleAssistant, Content: mcp.NewTextContent(string(s))}, Model: "m"}, nil
}

func TestSamplingOverStdioReachesTheHost(t *testing.T) {
	f, err := endpoint.New(endpoint.Config{Sources: []endpoint.ToolSource{asker{}}})
	if err != nil {
		t.Fatal(err)
	}
	inR, inW := io.Pipe()
	outR, outW := io.Pipe()
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- f.ServeStdio(ctx, inR, outW) }()
	c := client.NewClient(transport.NewIO(outR, inW, nil), client.WithSamplingHandler(sampler("from-stdio")))
	t.Cleanup(func() { cancel(); _ = inW.Close(); _ = c.Close(); <-done })
	if err := c.Start(ctx); err != nil {
		t.Fatal(err)
	}
	if _, err := c.Initialize(ctx, mcp.InitializeRequest{Params: mcp.InitializeParams{ProtocolVersion: mcp.ProtocolVersion20251125, ClientInfo: mcp.Implementation{Name: "t", Version: "1"}}}); err != nil {
		t.Fatal(err)
	}
	req := mcp.CallToolRequest{}
	req.Params.Name = "ask"
	res, err := c.CallTool(ctx, req)
	if err != nil {
		t.Fatal(err)
	}
	if tc, _ := mcp.AsTextContent(res.Content[0]); tc.Text != "answer=from-stdio" {
		t.Fatalf("stdio sampling: %+v", res.Content)
	}
}
