//go:build !bridge_nomcpreader

package connector

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"reflect"
	"sort"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/mark3labs/mcp-go/client/transport"
	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"
)

// answer is what the test server answers a tools/call with.
type answer struct {
	status int    // 0: 200
	ctype  string // Content-Type; "-": none
	body   string // {{ID}} is replaced by the request's id
	// header adds response headers.
	header map[string]string
	// hold keeps the stream open after the body until the request ends.
	hold bool
}

const sse = "text/event-stream"

// result and progress events of the table.
const (
	okResult  = `{"jsonrpc":"2.0","id":{{ID}},"result":{"content":[{"type":"text","text":"ok"}]}}`
	errResult = `{"jsonrpc":"2.0","id":{{ID}},"error":{"code":-32602,"message":"bad arguments","data":{"x":1}}}`
	progress  = `{"jsonrpc":"2.0","method":"notifications/progress","params":{"progressToken":"bridge-1","progress":1,"total":2,"message":"half"}}`
)

func ev(data string) string { return "event: message\ndata: " + data + "\n\n" }

var readerCases = []struct {
	name string
	a    answer
}{
	{"json result", answer{ctype: "application/json", body: okResult}},
	{"json result with parameters in the type", answer{ctype: "application/json; charset=utf-8", body: okResult}},
	{"json error", answer{ctype: "application/json", body: errResult}},
	{"json without id", answer{ctype: "application/json", body: `{"jsonrpc":"2.0","result":{}}`}},
	{"json null id", answer{ctype: "application/json", body: `{"jsonrpc":"2.0","id":null,"result":{}}`}},
	{"json malformed", answer{ctype: "application/json", body: `{"jsonrpc":"2.0","id":`}},
	{"json trailing bytes", answer{ctype: "application/json", body: okResult + ` garbage`}},
	{"json empty", answer{ctype: "application/json", body: ``}},
	{"json wrong member types", answer{ctype: "application/json", body: `{"jsonrpc":2,"id":{{ID}},"result":{}}`}},
	{"json session id header", answer{ctype: "application/json", body: okResult, header: map[string]string{"Mcp-Session-Id": "s-1"}}},
	{"sse result", answer{ctype: sse, body: ev(okResult)}},
	{"sse progress then result", answer{ctype: sse, body: ev(progress) + ev(okResult)}},
	{"sse progress, log, then error", answer{ctype: sse, body: ev(progress) +
		ev(`{"jsonrpc":"2.0","method":"notifications/message","params":{"level":"info","logger":"l","data":{"a":[1,2]}}}`) + ev(errResult)}},
	{"sse charset", answer{ctype: sse + "; charset=utf-8", body: ev(okResult)}},
	{"sse crlf", answer{ctype: sse, body: strings.ReplaceAll(ev(progress)+ev(okResult), "\n", "\r\n")}},
	{"sse without event names, id and retry lines, comments", answer{ctype: sse,
		body: ": hello\nid: 7\nretry: 10\ndata: " + progress + "\n\n: keep-alive\n\nid: 8\ndata:" + okResult + "\n\n"}},
	{"sse data over lines", answer{ctype: sse, body: "data: {\"jsonrpc\":\"2.0\",\ndata:  \"id\":{{ID}},\ndata: \"result\":{\"content\":[]}}\n\n"}},
	{"sse empty first data line", answer{ctype: sse, body: "data:\ndata: " + okResult + "\n\n"}},
	{"sse empty data lines only", answer{ctype: sse, body: "data:\ndata:\n\n" + ev(okResult)}},
	{"sse last event without blank line", answer{ctype: sse, body: ev(progress) + "data: " + okResult}},
	{"sse last line cut", answer{ctype: sse, body: ev(progress) + "data: " + okResult + "\n"}},
	{"sse partial line at the end only", answer{ctype: sse, body: "data: " + okResult}},
	{"sse ends without response", answer{ctype: sse, body: ev(progress)}},
	{"sse empty", answer{ctype: sse, body: ""}},
	{"sse malformed event then result", answer{ctype: sse, body: ev(`{"jsonrpc":`) + ev(`[1,2]`) + ev(`"s"`) + ev(okResult)}},
	{"sse wrong member types then result", answer{ctype: sse, body: ev(`{"jsonrpc":5,"id":{{ID}},"result":{}}`) + ev(okResult)}},
	{"sse notification that does not decode", answer{ctype: sse, body: ev(`{"jsonrpc":"2.0","method":5}`) + ev(okResult)}},
	{"sse null", answer{ctype: sse, body: ev(`null`) + ev(okResult)}},
	{"sse null id is a notification", answer{ctype: sse, body: ev(`{"jsonrpc":"2.0","id":null,"result":{}}`) + ev(okResult)}},
	{"sse notification without params", answer{ctype: sse, body: ev(`{"jsonrpc":"2.0","method":"notifications/x"}`) + ev(okResult)}},
	{"sse notification with null params", answer{ctype: sse, body: ev(`{"jsonrpc":"2.0","method":"notifications/x","params":null}`) + ev(okResult)}},
	{"sse numeric progress token", answer{ctype: sse, body: ev(`{"jsonrpc":"2.0","method":"notifications/progress","params":{"progressToken":1,"progress":1}}`) + ev(okResult)}},
	{"sse result with a method member in another case", answer{ctype: sse, body: ev(`{"jsonrpc":"2.0","id":{{ID}},"Method":"x","result":{"content":[]}}`)}},
	{"sse result with a method member of the wrong type", answer{ctype: sse, body: ev(`{"jsonrpc":"2.0","id":{{ID}},"method":5,"result":{"content":[]}}`)}},
	{"sse server request", answer{ctype: sse, body: ev(`{"jsonrpc":"2.0","id":77,"method":"ping"}`) + "{{WAIT}}" + ev(okResult)}},
	{"sse server request the handler fails", answer{ctype: sse, body: ev(`{"jsonrpc":"2.0","id":"q","method":"fail/this"}`) + "{{WAIT}}" + ev(okResult)}},
	{"sse elicitation request", answer{ctype: sse, body: ev(`{"jsonrpc":"2.0","id":78,"method":"elicitation/create","params":{"message":"?","requestedSchema":{"type":"object"}}}`) + "{{WAIT}}" + ev(okResult)}},
	{"sse response with a string id", answer{ctype: sse, body: ev(`{"jsonrpc":"2.0","id":"other","result":{"content":[]}}`)}},
	{"sse oversize result line", answer{ctype: sse, body: ev(`{"jsonrpc":"2.0","id":{{ID}},"result":{"content":[{"type":"text","text":"` + strings.Repeat("x", 300<<10) + `"}]}}`)}},
	{"sse oversize progress", answer{ctype: sse, body: ev(`{"jsonrpc":"2.0","method":"notifications/progress","params":{"progressToken":"bridge-1","progress":1,"message":"`+strings.Repeat("y", 9000)+`"}}`) + ev(okResult)}},
	{"status 500 json-rpc error", answer{status: 500, ctype: "application/json", body: errResult}},
	{"status 500 text", answer{status: 500, ctype: "text/plain", body: "boom"}},
	{"status 400 session", answer{status: 400, ctype: "text/plain", body: "Invalid session ID"}},
	{"status 404", answer{status: 404, ctype: "text/plain", body: "gone"}},
	{"status 401", answer{status: 401, ctype: "text/plain", body: "no", header: map[string]string{"WWW-Authenticate": `Bearer resource_metadata="http://x/.well-known/oauth-protected-resource"`}}},
	{"status 202 no body", answer{status: 202, ctype: "-"}},
	{"status 202 json", answer{status: 202, ctype: "application/json", body: okResult}},
	{"unexpected content type", answer{ctype: "text/plain", body: okResult}},
	{"no content type", answer{ctype: "-", body: okResult}},
	{"sse stream held open after progress", answer{ctype: sse, body: ev(progress), hold: true}},
	{"sse stream held open after the result", answer{ctype: sse, body: ev(okResult), hold: true}},
	{"sse events after the result", answer{ctype: sse, body: ev(okResult) + ev(progress) + ev(`{"jsonrpc":"2.0","id":{{ID}},"result":{"second":true}}`)}},
}

// readerServer is an MCP server (mcp-go, stateless, 2026-07-28) whose
// tools/call answers come from the table, and which records the answers
// to its own requests that reach it.
type readerServer struct {
	mcp http.Handler
	a   answer

	mu      sync.Mutex
	reqs    []string // tools/call bodies, id removed
	headers []string // their headers the transport sets
	answers []string // bodies of POSTs that answer a server request
	got     chan struct{}
}

func (s *readerServer) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	b, _ := io.ReadAll(r.Body)
	r.Body = io.NopCloser(bytes.NewReader(b))
	var msg struct {
		ID     json.RawMessage `json:"id"`
		Method string          `json:"method"`
	}
	_ = json.Unmarshal(b, &msg)
	switch {
	case msg.Method == "tools/call":
		s.mu.Lock()
		s.reqs = append(s.reqs, strings.Replace(string(b), string(msg.ID), "ID", 1))
		var hs []string
		for _, k := range []string{"Content-Type", "Accept", "Mcp-Protocol-Version", "Mcp-Session-Id", "Mcp-Method", "Mcp-Name", "X-Extra", "Authorization"} {
			hs = append(hs, k+"="+r.Header.Get(k))
		}
		s.headers = append(s.headers, strings.Join(hs, " "))
		s.mu.Unlock()
		if s.a.ctype != "-" {
			w.Header().Set("Content-Type", s.a.ctype)
		}
		for k, v := range s.a.header {
			w.Header().Set(k, v)
		}
		st := s.a.status
		if st == 0 {
			st = 200
		}
		w.WriteHeader(st)
		body := strings.ReplaceAll(s.a.body, "{{ID}}", string(msg.ID))
		if before, after, ok := strings.Cut(body, "{{WAIT}}"); ok {
			// The result only once the client has answered the request.
			_, _ = io.WriteString(w, before)
			w.(http.Flusher).Flush()
			select {
			case <-s.got:
				// Time for the 202 to reach the client before the result
				// ends the call (and with it the answer's context).
				time.Sleep(50 * time.Millisecond)
			case <-time.After(3 * time.Second):
			}
			body = after
		}
		_, _ = io.WriteString(w, body)
		if s.a.hold {
			w.(http.Flusher).Flush()
			<-r.Context().Done()
		}
	case msg.Method == "" && len(msg.ID) > 0:
		s.mu.Lock()
		s.answers = append(s.answers, string(b))
		s.mu.Unlock()
		w.WriteHeader(http.StatusAccepted)
		w.(http.Flusher).Flush()
		s.got <- struct{}{}
	default:
		s.mcp.ServeHTTP(w, r)
	}
}

// outcome is everything a direct call's send leaves behind.
type outcome struct {
	Resp          string
	Err           string
	Is            []string // the errors.Is targets err matches
	Notifications []string
	Requests      []string // server requests the client's handler got
	Answers       []string // what reached the server as their answers
	Sent          []string
	Headers       []string
	Dead          string // the session's cause of death, if it died
	Logs          []string
}

// logRecorder keeps the log records of the transport and the reader.
type logRecorder struct {
	mu   *sync.Mutex
	recs *[]string
	pre  string
}

func (l logRecorder) Enabled(context.Context, slog.Level) bool { return true }
func (l logRecorder) Handle(_ context.Context, r slog.Record) error {
	var b strings.Builder
	fmt.Fprintf(&b, "%s %s%s", r.Level, l.pre, r.Message)
	r.Attrs(func(a slog.Attr) bool {
		fmt.Fprintf(&b, " %s=%v", a.Key, a.Value)
		return true
	})
	l.mu.Lock()
	*l.recs = append(*l.recs, b.String())
	l.mu.Unlock()
	return nil
}
func (l logRecorder) WithAttrs(as []slog.Attr) slog.Handler {
	for _, a := range as {
		l.pre += a.Key + "=" + a.Value.String() + " "
	}
	return l
}
func (l logRecorder) WithGroup(string) slog.Handler { return l }

// runReaderCase sends one direct call to a server answering a, through
// the reader or (reference) through the transport.
func runReaderCase(t *testing.T, a answer, viaTransport bool) outcome {
	t.Helper()
	m := server.NewMCPServer("reader", "1.0.0", server.WithToolCapabilities(false))
	m.AddTool(mcp.NewTool("t"), func(context.Context, mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		return mcp.NewToolResultText("unused"), nil
	})
	rs := &readerServer{mcp: server.NewStreamableHTTPServer(m, server.WithStateLess(true)), a: a, got: make(chan struct{}, 4)}
	ts := httptest.NewServer(rs)
	defer ts.Close()
	var (
		mu   sync.Mutex
		logs []string
	)
	c, err := Dial(context.Background(), Config{
		Name: "r", ProtocolVersion: Era20260728, Logger: slog.New(logRecorder{mu: &mu, recs: &logs}),
		HTTP: &HTTPConfig{URL: ts.URL + "/mcp", Client: ts.Client(), Headers: map[string]string{"X-Extra": "1"}},
	})
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	s, err := c.current(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if s.reader == nil || !c.direct(s, "t") {
		t.Fatal("the call would not go direct")
	}
	if v := s.rt.version.Load(); v == nil || !mcp.IsModernProtocol(*v) {
		t.Fatal("the session's protocol version was not recorded: the reader would not be used")
	}
	mu.Lock()
	logs = nil // the connection's own lines
	mu.Unlock()
	var o outcome
	var omu sync.Mutex // o's Notifications and Requests, filled by the transport's goroutines
	s.rt.SetNotificationHandler(func(n mcp.JSONRPCNotification) {
		b, _ := json.Marshal(n)
		omu.Lock()
		o.Notifications = append(o.Notifications, string(b))
		omu.Unlock()
	})
	s.rt.SetRequestHandler(func(_ context.Context, r transport.JSONRPCRequest) (*transport.JSONRPCResponse, error) {
		b, _ := json.Marshal(r)
		omu.Lock()
		o.Requests = append(o.Requests, string(b))
		omu.Unlock()
		if strings.HasPrefix(r.Method, "fail/") {
			return nil, errors.New("refused by the test")
		}
		return transport.NewJSONRPCResultResponse(r.ID, json.RawMessage(`{"answered":true}`)), nil
	})
	transportReads = viaTransport
	defer func() { transportReads = false }()
	header := http.Header{}
	header.Set(mcp.HeaderMethod, "tools/call")
	header.Set(mcp.HeaderName, "t")
	cctx := ctx
	if a.hold {
		var ccancel context.CancelFunc
		cctx, ccancel = context.WithTimeout(ctx, 300*time.Millisecond)
		defer ccancel()
	}
	resp, err := c.send(cctx, s, transport.JSONRPCRequest{
		JSONRPC: mcp.JSONRPC_VERSION, ID: mcp.NewRequestId(int64(directIDBase + 5)), Method: "tools/call",
		Params: json.RawMessage(`{"name":"t","arguments":{"a":1},"_meta":{"progressToken":"bridge-1"}}`), Header: header,
	})
	if resp != nil {
		b, _ := json.Marshal(resp)
		o.Resp = string(b)
	}
	if err != nil {
		o.Err = err.Error()
		for name, target := range map[string]error{
			"session terminated": transport.ErrSessionTerminated, "authorization required": transport.ErrAuthorizationRequired,
			"canceled": context.Canceled, "deadline": context.DeadlineExceeded,
		} {
			if errors.Is(err, target) {
				o.Is = append(o.Is, name)
			}
		}
		sort.Strings(o.Is)
	}
	time.Sleep(20 * time.Millisecond) // log lines of the answers, sent on goroutines of their own
	c.Close()                         // no more events: the transport's reader ends
	omu.Lock()
	defer omu.Unlock()
	rs.mu.Lock()
	o.Sent, o.Headers, o.Answers = rs.reqs, rs.headers, rs.answers
	rs.mu.Unlock()
	if s.isDead() {
		o.Dead = s.cause.Error()
	}
	mu.Lock()
	for _, l := range logs {
		o.Logs = append(o.Logs, strings.ReplaceAll(l, ts.URL, "URL"))
	}
	mu.Unlock()
	return o
}

// TestReaderMatchesTheTransport holds the connector's reader of a direct
// call's answer to mcp-go's StreamableHTTP.SendRequest on a table of
// answers: the same response or error, notifications, server requests and
// their answers, request on the wire, session death and log lines.
func TestReaderMatchesTheTransport(t *testing.T) {
	for _, tc := range readerCases {
		t.Run(tc.name, func(t *testing.T) {
			want := runReaderCase(t, tc.a, true)
			got := runReaderCase(t, tc.a, false)
			if tc.name == "status 401" {
				// The one known difference (reader.go): no resource
				// metadata URL in the error; its text is the same.
				if !strings.Contains(want.Resp+want.Err, "authorization required") {
					t.Fatalf("transport: %+v", want)
				}
			}
			if tc.name == "sse events after the result" {
				// The other known difference: the transport handles
				// events after the response until its own cancellation
				// stops it (a race); the reader never does.
				if got.Notifications != nil {
					t.Fatalf("the reader handled events after the response: %q", got.Notifications)
				}
				want.Notifications = nil
			}
			if !reflect.DeepEqual(got, want) {
				t.Errorf("reader and transport differ\nreader:    %s\ntransport: %s", show(got), show(want))
			}
		})
	}
}

func show(o outcome) string {
	b, _ := json.MarshalIndent(o, "", "  ")
	if len(b) > 4000 {
		b = append(b[:4000], "…"...)
	}
	return string(b)
}

// FuzzReadEvents feeds arbitrary event streams to the reader's parser and
// to a transcription of mcp-go's (readSSEWithCursor's line handling and
// handleSSEResponse's handler, minus the goroutines): the same response,
// the same notifications and server requests, in the same order.
func FuzzReadEvents(f *testing.F) {
	for _, tc := range readerCases {
		if strings.HasPrefix(tc.a.ctype, sse) {
			f.Add(strings.ReplaceAll(strings.ReplaceAll(tc.a.body, "{{ID}}", "5"), "{{WAIT}}", ""))
		}
	}
	f.Add("data: {\"id\":1,\"METHOD\":\"x\"}\n\n")
	f.Add("data: {\"id\":1,\"method\":\"x\",\"params\":5}\n\n")
	f.Add("data: {\"id\":1e400}\n\ndata: {\"id\":1,\"result\":1}\r\r\n\n")
	f.Fuzz(func(t *testing.T, stream string) {
		got := parseWithReader(stream)
		want := parseLikeTheTransport(stream)
		if !reflect.DeepEqual(got, want) {
			t.Fatalf("stream %q\nreader:    %q\ntransport: %q", stream, got, want)
		}
	})
}

// parseWithReader runs the reader's event loop on stream; it records what
// reaches the handlers instead of sending answers.
func parseWithReader(stream string) []string {
	var out []string
	rt := &rawTransport{}
	rt.closed, rt.close = context.WithCancel(context.Background())
	h := func(n mcp.JSONRPCNotification) {
		b, _ := json.Marshal(n)
		out = append(out, "notification "+string(b))
	}
	rt.onNotify.Store(&h)
	c := &Conn{log: slog.New(slog.DiscardHandler)}
	e := &events{c: c, rt: rt, ctx: context.Background(), onRequest: func(r transport.JSONRPCRequest) {
		b, _ := json.Marshal(r)
		out = append(out, "request "+string(b))
	}}
	resp, err := e.read(bufio.NewReaderSize(strings.NewReader(stream), 16))
	if resp != nil {
		b, _ := json.Marshal(resp)
		out = append(out, "response "+string(b))
	}
	if err != nil {
		out = append(out, "error "+err.Error())
	}
	return out
}

// parseLikeTheTransport is mcp-go v1.2.1's reading of a response stream,
// transcribed (client/transport/streamable_http.go: readSSEWithCursor with
// no cursor and handleSSEResponse's handler), on one goroutine.
func parseLikeTheTransport(stream string) []string {
	var out []string
	var resp *transport.JSONRPCResponse
	handle := func(event, data string) bool {
		var message transport.JSONRPCResponse
		if err := json.Unmarshal([]byte(data), &message); err != nil {
			return false
		}
		if message.ID.IsNil() {
			var notification mcp.JSONRPCNotification
			if err := json.Unmarshal([]byte(data), &notification); err != nil {
				return false
			}
			b, _ := json.Marshal(notification)
			out = append(out, "notification "+string(b))
			return false
		}
		var rawMessage map[string]json.RawMessage
		if err := json.Unmarshal([]byte(data), &rawMessage); err == nil {
			if _, hasMethod := rawMessage["method"]; hasMethod && !message.ID.IsNil() {
				var request transport.JSONRPCRequest
				if err := json.Unmarshal([]byte(data), &request); err == nil {
					b, _ := json.Marshal(request)
					out = append(out, "request "+string(b))
					return false
				}
			}
		}
		resp = &message
		return true
	}
	br := bufio.NewReader(strings.NewReader(stream))
	var event, data string
	done := false
	for !done {
		line, err := br.ReadString('\n')
		if err != nil {
			if err == io.EOF && data != "" {
				if event == "" {
					event = "message"
				}
				handle(event, data)
			}
			break
		}
		line = strings.TrimRight(line, "\r\n")
		if line == "" {
			if data != "" {
				if event == "" {
					event = "message"
				}
				done = handle(event, data)
				event, data = "", ""
			}
			continue
		}
		if eventStr, ok := strings.CutPrefix(line, "event:"); ok {
			event = strings.TrimSpace(eventStr)
		} else if dataStr, ok := strings.CutPrefix(line, "data:"); ok {
			value := strings.TrimPrefix(dataStr, " ")
			if data == "" {
				data = value
			} else {
				data = data + "\n" + value
			}
		}
	}
	if resp != nil {
		b, _ := json.Marshal(resp)
		out = append(out, "response "+string(b))
	} else {
		out = append(out, "error unexpected nil response")
	}
	return out
}
