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
	"mime"
	"net/http"
	"net/textproto"
	"net/url"
	"sync"
	"time"

	"github.com/mark3labs/mcp-go/client/transport"
	"github.com/mark3labs/mcp-go/mcp"
)

// The connector's reader of a direct call's response: the tools/call POST
// of a 2026-07-28 streamable-HTTP session sent, and its answer (a JSON body
// or an event stream of progress and other notifications, server requests
// and the result) read, on the calling goroutine, instead of through
// mcp-go's StreamableHTTP.SendRequest.
//
// Measured reason (house rule: a hand-written replacement of a library path
// says why). CPU and allocation profiles of the publish path
// (BenchmarkSendMessageThroughAgentHTTP against the bench's MCP server, and
// `bridge serve` under `make bench`'s publish load, 2026-12-04): for a call
// answered on an event stream, SendRequest starts three goroutines (the
// client-close watcher, the stream reader, the body closer), whose stack
// growth was the rest of runtime.newstack on the path, and decodes every
// event two or three times (as a response, as a map of members to look for
// "method", then as a notification), with a string copy of every line and
// of the event's data per decode: about 9% of the path's CPU and 100 of its
// allocations per call. Here an event is decoded once as a message (then,
// for a notification, as mcp-go decodes it, for the client's handler), the
// lines are read in place, and nothing runs on another goroutine but what
// mcp-go also runs on one (a server's request to the client). The figures
// after the change are in docs/performance.md.
//
// What it does as SendRequest does, and TestReaderMatchesTheTransport holds
// it to on a table of answers (FuzzReadEvents on the event parser): the
// same request bytes and headers (Content-Type, Accept, the protocol
// version, the configured headers; no session on 2026-07-28), the same
// *http.Client (credentials, sessionWatch); a 404 as ErrSessionTerminated;
// another status as the JSON-RPC response its body holds, else an error
// naming the status and body; a JSON body's first value as the response,
// one without an id refused; on a stream, every event with data handled as
// mcp-go's handler does (the event name ignored, data lines joined as its
// appendSSEData does, an event at the end of the stream without its blank
// line handled too), notifications to the client's handler, a server's
// request to the client's request handler on a goroutine of its own with
// 30 s and its answer POSTed back, the first response returned, a stream
// that ends without one an "unexpected nil response"; the same log lines;
// the request cancelled when the transport is closed. The errors it returns
// read as SendRequest's and match the same errors.Is targets, and
// rawTransport.after classifies them as SendRequest's.
//
// What it does not do, so that those calls go through SendRequest: the
// handshake eras (a session id to send, streams resumed with
// Last-Event-ID), OAuth (the connector configures none), a Host override or
// a header function (neither is configured). Differences that no caller
// sees: events that follow the response on its stream are not read (mcp-go
// reads them until its context ends, racing the return), and a 401's error
// carries no resource metadata URL (nothing in the bridge reads it; the
// error's text and errors.Is target are the same).
//
// The bridge_nomcpreader build tag leaves it out (reader_off.go): every
// direct call then goes through SendRequest.

// callReader sends a session's direct calls and reads their answers.
type callReader struct {
	url    string // the transport's URL as it sends it (url.Parse, String)
	client *http.Client
	// extra are the configured headers, keys canonical (as Header.Set
	// makes them).
	extra []field
}

type field struct{ k, v string }

// newCallReader returns the reader of a streamable-HTTP session whose
// transport uses hc.
func newCallReader(h *HTTPConfig, hc *http.Client) *callReader {
	u, err := url.Parse(h.URL)
	if err != nil {
		return nil
	}
	r := &callReader{url: u.String(), client: hc}
	for k, v := range h.Headers {
		r.extra = append(r.extra, field{textproto.CanonicalMIMEHeaderKey(k), v})
	}
	return r
}

// send sends one direct call: through the reader when the session can use
// it, else through the transport.
func (c *Conn) send(ctx context.Context, s *session, req transport.JSONRPCRequest) (*transport.JSONRPCResponse, error) {
	v := s.rt.version.Load()
	if transportReads || s.reader == nil || v == nil || !mcp.IsModernProtocol(*v) {
		return s.rt.SendRequest(ctx, req)
	}
	resp, err := s.reader.call(ctx, c, s.rt, *v, req)
	s.rt.after(ctx, req, resp, err)
	return resp, err
}

// transportReads sends every direct call through the transport (the
// differential test's reference).
var transportReads bool

// SSE reader buffers, as the transport's (bufio's default size).
var readers = sync.Pool{New: func() any { return bufio.NewReader(nil) }}

// call is SendRequest for req on a 2026-07-28 session of version v.
func (r *callReader) call(ctx context.Context, c *Conn, rt *rawTransport, v string, req transport.JSONRPCRequest) (*transport.JSONRPCResponse, error) {
	body, err := json.Marshal(req)
	if err != nil {
		return nil, fmt.Errorf("failed to marshal request: %w", err)
	}
	// The call's context (ctx: its events and the server's requests) ends
	// when the caller's does or the transport is closed (the transport's
	// client-close watcher; callbacks, not goroutines). The HTTP request's
	// own (rctx) ends with it until the answer is read, not after: the
	// stream's tail is drained once the call returned (see drain), and the
	// caller's end must not cut that short.
	parent := ctx
	ctx, ecancel := context.WithCancel(parent)
	defer ecancel()
	stop := context.AfterFunc(rt.closed, ecancel)
	defer stop()
	rctx, cancel := context.WithCancel(context.WithoutCancel(parent))
	unlink := context.AfterFunc(ctx, cancel)
	draining := false
	defer func() {
		if !draining {
			unlink()
			cancel()
		}
	}()

	resp, err := r.post(rctx, v, body, req.Header)
	if err != nil {
		return nil, fmt.Errorf("failed to send request: %w", withParentErr(ctx, err))
	}
	// Cancel before closing the body, as SendRequest does.
	defer func() {
		if !draining {
			cancel()
			_ = resp.Body.Close()
		}
	}()

	if resp.StatusCode != http.StatusOK && resp.StatusCode != http.StatusAccepted {
		if resp.StatusCode == http.StatusUnauthorized {
			return nil, &transport.AuthorizationRequiredError{}
		}
		var errResponse transport.JSONRPCResponse
		b, _ := io.ReadAll(resp.Body)
		if err := json.Unmarshal(b, &errResponse); err == nil {
			return &errResponse, nil
		}
		return nil, fmt.Errorf("request failed with status %d: %s", resp.StatusCode, b)
	}
	mediaType, _, _ := mime.ParseMediaType(resp.Header.Get("Content-Type"))
	switch mediaType {
	case "application/json":
		var response transport.JSONRPCResponse
		if err := json.NewDecoder(resp.Body).Decode(&response); err != nil {
			return nil, fmt.Errorf("failed to decode response: %w", err)
		}
		if response.ID.IsNil() {
			return nil, fmt.Errorf("response should contain RPC id: %v", response)
		}
		return &response, nil
	case "text/event-stream":
		br := readers.Get().(*bufio.Reader)
		br.Reset(resp.Body)
		ev := events{c: c, rt: rt, r: r, v: v, ctx: ctx}
		out, err := ev.read(br)
		if out != nil {
			// The call has its answer: the caller goes on, and the
			// stream's tail is read off the call's path.
			draining = true
			unlink()
			go func() {
				drain(br, cancel)
				cancel()
				_ = resp.Body.Close()
				br.Reset(nil)
				readers.Put(br)
			}()
			return out, err
		}
		br.Reset(nil)
		readers.Put(br)
		return out, err
	default:
		return nil, fmt.Errorf("unexpected content type: %s", resp.Header.Get("Content-Type"))
	}
}

// withParentErr is err, an HTTP client's error the end of the request's
// context may have caused, with the end of ctx, the call's context, in its
// place when that was the cause: the request's context is detached from
// the caller's, so a deadline of the caller's reads as it would through
// the transport ("context deadline exceeded", not "canceled").
func withParentErr(ctx context.Context, err error) error {
	cerr := ctx.Err()
	if cerr == nil {
		return err
	}
	var ue *url.Error
	if errors.As(err, &ue) && ue.Err == context.Canceled {
		ue.Err = cerr
	}
	return err
}

// A response's stream is read on after the response until it ends, for at
// most drainWait and maxDrain bytes (what comes is not handled: the call
// has its answer), so that its HTTP/1.1 connection goes back to the pool:
// a server ends the stream just after the response, but its last chunk
// comes after the event, and a body closed before its end closes the
// connection. The transport's reader goroutine races its own cancellation
// to the same end; measured without the drain: 1.65 ms per call against
// 0.51 through the transport (BenchmarkSendMessageThroughAgentHTTP/sse, a
// new connection per call). The drain runs on a goroutine of its own once
// the call has its answer, as the transport's reader does: waiting for the
// stream's end on the call's path cost the streamed variant of the
// translate bench 200-300 µs at p50 on one core (the server's tail must
// run first). A server that keeps the stream open holds its connection
// for drainWait, then loses it.
const (
	drainWait = 5 * time.Millisecond
	maxDrain  = 64 << 10
)

// drain reads br to its end, within drainWait (then cancel ends the
// request) and maxDrain.
func drain(br *bufio.Reader, cancel context.CancelFunc) {
	t := time.AfterFunc(drainWait, cancel)
	_, _ = io.CopyN(io.Discard, br, maxDrain)
	t.Stop()
}

// post sends body as the transport's sendHTTP does on a 2026-07-28 session
// (no session header; a 404 is ErrSessionTerminated).
func (r *callReader) post(ctx context.Context, v string, body []byte, header http.Header) (*http.Response, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, r.url, bytes.NewReader(body))
	if err != nil {
		return nil, fmt.Errorf("failed to create request: %w", err)
	}
	// The transport's headers, in its order (a later one replaces an
	// earlier of the same name): the caller's, Content-Type, Accept, the
	// protocol version, the configured ones. The caller's values are
	// shared, not copied (callDirect does not change them); the others
	// are this request's, in one allocation.
	h := make(http.Header, len(header)+3+len(r.extra))
	for k, vs := range header {
		h[k] = vs
	}
	vals := make([]string, 3+len(r.extra))
	set := func(i int, k, val string) {
		vals[i] = val
		h[k] = vals[i : i+1 : i+1]
	}
	set(0, "Content-Type", "application/json")
	set(1, "Accept", "application/json, text/event-stream")
	if v != "" {
		set(2, transport.HeaderKeyProtocolVersion, v)
	}
	for i, f := range r.extra {
		set(3+i, f.k, f.v)
	}
	req.Header = h
	resp, err := r.client.Do(req)
	if err != nil {
		return nil, fmt.Errorf("failed to send request: %w", err)
	}
	if resp.StatusCode == http.StatusNotFound {
		_ = resp.Body.Close()
		return nil, transport.ErrSessionTerminated
	}
	return resp, nil
}

// events reads one response's event stream.
type events struct {
	c   *Conn
	rt  *rawTransport
	r   *callReader
	v   string
	ctx context.Context

	line []byte // a line longer than the reader's buffer
	data []byte // the event's data lines

	// onRequest, when set, gets the server's requests instead of the
	// client's handler (FuzzReadEvents).
	onRequest func(transport.JSONRPCRequest)
}

// errNoResponse is the transport's error for a stream that ended without
// the response.
var errNoResponse = errors.New("unexpected nil response")

// read reads events until the response, as the transport's
// readSSEWithCursor and handleSSEResponse do.
func (e *events) read(br *bufio.Reader) (*transport.JSONRPCResponse, error) {
	for {
		line, err := e.readLine(br)
		if err != nil {
			if e.ctx.Err() != nil {
				return nil, e.ctx.Err()
			}
			if err == io.EOF {
				// An event the stream ended in, without its blank line.
				if len(e.data) > 0 {
					if resp := e.handle(e.data); resp != nil {
						return resp, nil
					}
				}
				return nil, errNoResponse
			}
			e.c.log.Error("SSE stream error", "err", err)
			return nil, errNoResponse
		}
		line = bytes.TrimRight(line, "\r\n")
		if len(line) == 0 {
			if len(e.data) > 0 {
				resp := e.handle(e.data)
				e.data = e.data[:0]
				if resp != nil {
					return resp, nil
				}
			}
			continue
		}
		// The event name is not used (the transport's handler ignores it),
		// nor id and retry (no stream is resumed on 2026-07-28).
		if d, ok := bytes.CutPrefix(line, []byte("data:")); ok {
			// appendSSEData: one leading space off; lines joined with "\n"
			// unless nothing is there yet (an empty first line included).
			d = bytes.TrimPrefix(d, []byte(" "))
			if len(e.data) == 0 {
				e.data = append(e.data, d...)
			} else {
				e.data = append(append(e.data, '\n'), d...)
			}
		}
	}
}

// readLine is bufio.Reader.ReadString('\n') without the string: the line
// with its '\n', or an error (the partial line is not returned: the
// transport drops it).
func (e *events) readLine(br *bufio.Reader) ([]byte, error) {
	b, err := br.ReadSlice('\n')
	if err == nil {
		return b, nil
	}
	if err != bufio.ErrBufferFull {
		return nil, err
	}
	e.line = append(e.line[:0], b...)
	for {
		b, err = br.ReadSlice('\n')
		e.line = append(e.line, b...)
		if err == nil {
			return e.line, nil
		}
		if err != bufio.ErrBufferFull {
			return nil, err
		}
	}
}

// message is one event's JSON-RPC message: a response's members, as
// transport.JSONRPCResponse decodes them, and whether a member matched
// "method" (case-insensitively, as encoding/json matches names).
type message struct {
	JSONRPC string                   `json:"jsonrpc"`
	ID      mcp.RequestId            `json:"id"`
	Result  json.RawMessage          `json:"result,omitempty"`
	Error   *mcp.JSONRPCErrorDetails `json:"error,omitempty"`
	Method  json.RawMessage          `json:"method"`
}

// handle is the transport's handler of one event: it returns the response
// when the event is one, else nil.
func (e *events) handle(data []byte) *transport.JSONRPCResponse {
	var m message
	if err := json.Unmarshal(data, &m); err != nil {
		// The transport's error, for its log line (decoded into its type).
		var resp transport.JSONRPCResponse
		if err2 := json.Unmarshal(data, &resp); err2 != nil {
			err = err2
		}
		e.c.log.Info("failed to unmarshal message (non-fatal)", "err", err, "message_len", len(data))
		return nil
	}
	if m.ID.IsNil() {
		var n mcp.JSONRPCNotification
		if err := json.Unmarshal(data, &n); err != nil {
			e.c.log.Error("failed to unmarshal notification", "err", err)
			return nil
		}
		if h := e.rt.onNotify.Load(); h != nil {
			(*h)(n)
		}
		return nil
	}
	if m.Method != nil {
		// The transport's test for a server's request: a member named
		// exactly "method", and the message decodes as a request.
		var raw map[string]json.RawMessage
		if err := json.Unmarshal(data, &raw); err == nil {
			if _, ok := raw["method"]; ok {
				var req transport.JSONRPCRequest
				if err := json.Unmarshal(data, &req); err == nil {
					if e.onRequest != nil {
						e.onRequest(req)
					} else {
						e.serverRequest(req)
					}
					return nil
				}
			}
		}
	}
	return &transport.JSONRPCResponse{JSONRPC: m.JSONRPC, ID: m.ID, Result: m.Result, Error: m.Error}
}

// serverRequest is the transport's handleIncomingRequest: the client's
// handler on a goroutine of its own, with 30 s and the call's context, its
// answer (or error) POSTed back.
func (e *events) serverRequest(req transport.JSONRPCRequest) {
	ctx, log := e.ctx, e.c.log
	hp := e.rt.onRequest.Load()
	if hp == nil || *hp == nil {
		log.Error("received request from server but no handler set", "method", req.Method)
		e.respond(ctx, transport.NewJSONRPCErrorResponse(req.ID, mcp.METHOD_NOT_FOUND,
			fmt.Sprintf("no handler configured for method: %s", req.Method), nil))
		return
	}
	handler := *hp
	go func() {
		defer func() {
			if p := recover(); p != nil {
				log.Error("panic handling server request", "method", req.Method, "panic", p)
				func() {
					defer func() {
						if p2 := recover(); p2 != nil {
							log.Error("failed to send error response after panic", "err", p2)
						}
					}()
					e.respond(ctx, transport.NewJSONRPCErrorResponse(req.ID, mcp.INTERNAL_ERROR,
						fmt.Sprintf("internal error: panic in request handler: %v", p), nil))
				}()
			}
		}()
		rctx, cancel := context.WithTimeout(ctx, 30*time.Second)
		defer cancel()
		resp, err := handler(rctx, req)
		if err != nil {
			log.Error("error handling request", "method", req.Method, "err", err)
			var code int
			var msg string
			switch {
			case errors.Is(err, context.Canceled):
				code, msg = mcp.REQUEST_INTERRUPTED, "request was cancelled"
			case errors.Is(err, context.DeadlineExceeded):
				code, msg = mcp.REQUEST_INTERRUPTED, "request timed out"
			case req.Method == string(mcp.MethodSamplingCreateMessage):
				code, msg = mcp.INTERNAL_ERROR, fmt.Sprintf("sampling request failed: %v", err)
			default:
				code, msg = mcp.INTERNAL_ERROR, err.Error()
			}
			e.respond(rctx, transport.NewJSONRPCErrorResponse(req.ID, code, msg, nil))
			return
		}
		if resp != nil {
			e.respond(rctx, resp)
		}
	}()
}

// respond is the transport's sendResponseToServer.
func (e *events) respond(ctx context.Context, resp *transport.JSONRPCResponse) {
	b, err := json.Marshal(resp)
	if err != nil {
		e.c.log.Error("failed to marshal response", "err", err)
		return
	}
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	stop := context.AfterFunc(e.rt.closed, cancel)
	defer stop()
	hr, err := e.r.post(ctx, e.v, b, nil)
	if err != nil {
		e.c.log.Error("failed to send response to server", "err", err)
		return
	}
	defer func() { cancel(); _ = hr.Body.Close() }()
	if hr.StatusCode != http.StatusOK && hr.StatusCode != http.StatusAccepted {
		body, _ := io.ReadAll(hr.Body)
		e.c.log.Error("server rejected response", "status", hr.StatusCode, "body_len", len(body))
	}
}
