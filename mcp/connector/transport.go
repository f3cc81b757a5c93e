package connector

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strings"
	"sync/atomic"
	"syscall"
	"time"

	"github.com/a2a-mcp-bridge/bridge/auth"
	"github.com/mark3labs/mcp-go/client/transport"
	"github.com/mark3labs/mcp-go/mcp"
)

// rawTransport sits between mcp-go's client and its transport. It copies the
// raw result of a request into the slot carried by the context (tools/list
// and tools/call are decoded lossily by the client), notices a dead
// transport, and sends the notifications/cancelled that the client omits on
// HTTP transports of the handshake eras.
type rawTransport struct {
	transport.Interface
	c    *Conn
	s    *session
	http transport.HTTPConnection // nil unless an HTTP transport
	// sse is set for the legacy HTTP+SSE transport, whose responses come on
	// a shared stream: no era can cancel by closing a request's stream.
	sse bool

	// What the connector's own reader of a tools/call response
	// (reader.go) takes from the client and the transport: the handlers
	// the client gives the transport, the protocol version it sets, and
	// the end of the transport (Close).
	onNotify  atomic.Pointer[func(mcp.JSONRPCNotification)]
	onRequest atomic.Pointer[transport.RequestHandler]
	version   atomic.Pointer[string]
	closed    context.Context
	close     context.CancelFunc
}

func newRawTransport(t transport.Interface, c *Conn, s *session) *rawTransport {
	rt := &rawTransport{Interface: t, c: c, s: s}
	if h, ok := t.(transport.HTTPConnection); ok {
		rt.http = h
	}
	_, rt.sse = t.(*transport.SSE)
	rt.closed, rt.close = context.WithCancel(context.Background())
	return rt
}

// SetNotificationHandler implements transport.Interface.
func (t *rawTransport) SetNotificationHandler(h func(mcp.JSONRPCNotification)) {
	t.onNotify.Store(&h)
	t.Interface.SetNotificationHandler(h)
}

// Close implements transport.Interface.
func (t *rawTransport) Close() error {
	t.close()
	return t.Interface.Close()
}

// wrapped returns the transport to give the client: an HTTP transport keeps
// its HTTPConnection face (protocol version header), others must not have
// it (the client sends stdio cancellations only to non-HTTP transports).
func (t *rawTransport) wrapped() transport.Interface {
	if t.http != nil {
		return httpRawTransport{t}
	}
	return t
}

// SendRequest implements transport.Interface.
func (t *rawTransport) SendRequest(ctx context.Context, req transport.JSONRPCRequest) (*transport.JSONRPCResponse, error) {
	resp, err := t.Interface.SendRequest(ctx, req)
	t.after(ctx, req, resp, err)
	return resp, err
}

// after is what SendRequest does with a request's outcome: the raw result
// and JSON-RPC error into the context's slots, and the death of the
// session on the errors that tell it.
func (t *rawTransport) after(ctx context.Context, req transport.JSONRPCRequest, resp *transport.JSONRPCResponse, err error) {
	if slot, ok := ctx.Value(captureKey{}).(*[]byte); ok && err == nil && resp != nil && resp.Error == nil {
		*slot = append((*slot)[:0], resp.Result...)
	}
	if slot, ok := ctx.Value(rpcErrKey{}).(**ServerError); ok && err == nil && resp != nil && resp.Error != nil {
		*slot = &ServerError{Code: resp.Error.Code, Message: resp.Error.Message}
	}
	if err != nil {
		switch {
		case ctx.Err() != nil:
			if t.http != nil && req.Method == string(mcp.MethodToolsCall) && (t.sse || !mcp.IsModernProtocol(t.s.era)) {
				t.cancelHTTP(ctx, req)
			}
		case errors.Is(err, transport.ErrTransportClosed):
			t.s.kill()
		case errors.Is(err, transport.ErrSessionTerminated):
			t.s.killWith(errSession404)
		case t.http != nil && peerGone(err):
			t.s.killWith(fmt.Errorf("connection lost: %w", err))
		case t.http != nil && streamEnded(err):
			t.s.killWith(errStreamEnded)
		}
	}
}

// streamEnded reports whether err is mcp-go's report of a response stream
// (SSE) that ended, or could not be resumed, before the response: the
// server went away during the request. mcp-go has no sentinel for it, so
// its messages are matched (pinned by TestHTTPServerGoneMidCallDiesOnce).
func streamEnded(err error) bool {
	msg := err.Error()
	return strings.Contains(msg, "unexpected nil response") || strings.Contains(msg, "failed to resume the SSE stream")
}

// peerGone reports whether err says the server went away (refused, reset
// or closed the connection mid-response), as opposed to a slow server or a
// refused request.
func peerGone(err error) bool {
	return errors.Is(err, syscall.ECONNREFUSED) || errors.Is(err, syscall.ECONNRESET) ||
		errors.Is(err, syscall.EPIPE) || errors.Is(err, io.ErrUnexpectedEOF) || errors.Is(err, io.EOF)
}

// cancelHTTP tells an HTTP server to stop a request where closing the
// request's stream is not a cancellation: the handshake eras, and the
// HTTP+SSE transport (mcp-go sends nothing on either).
func (t *rawTransport) cancelHTTP(ctx context.Context, req transport.JSONRPCRequest) {
	n := mcp.JSONRPCNotification{
		JSONRPC: mcp.JSONRPC_VERSION,
		Notification: mcp.Notification{
			Method: string(mcp.MethodNotificationCancelled),
			Params: mcp.NotificationParams{AdditionalFields: map[string]any{"requestId": req.ID, "reason": "cancelled by the A2A client"}},
		},
	}
	go func() {
		nctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 5*time.Second)
		defer cancel()
		if err := t.Interface.SendNotification(nctx, n); err != nil {
			t.c.log.Debug("could not send notifications/cancelled", "err", err)
		}
	}()
}

// SetRequestHandler forwards server-to-client requests (elicitation).
func (t *rawTransport) SetRequestHandler(h transport.RequestHandler) {
	t.onRequest.Store(&h)
	if b, ok := t.Interface.(transport.BidirectionalInterface); ok {
		b.SetRequestHandler(h)
	}
}

type httpRawTransport struct{ *rawTransport }

// SetProtocolVersion implements transport.HTTPConnection.
func (t httpRawTransport) SetProtocolVersion(v string) {
	t.version.Store(&v)
	t.http.SetProtocolVersion(v)
}

func checkHTTP(h *HTTPConfig) error {
	if h.URL == "" {
		return errors.New("url is required")
	}
	if h.Client == nil {
		return errors.New("an HTTP client is required (netguard.Trusted for configured URLs)")
	}
	return nil
}

// credentialClient returns a copy of h.Client whose requests carry h's
// credentials.
func credentialClient(h *HTTPConfig) *http.Client {
	hc := *h.Client
	if h.Credentials != nil {
		base := hc.Transport
		if base == nil {
			base = http.DefaultTransport
		}
		hc.Transport = credTransport{base: base, creds: h.Credentials}
	}
	return &hc
}

type credTransport struct {
	base  http.RoundTripper
	creds auth.Credentials
}

// RoundTrip implements http.RoundTripper.
func (t credTransport) RoundTrip(r *http.Request) (*http.Response, error) {
	if _, none := t.creds.(auth.None); none && !hasInbound(r.Header) {
		// None would only delete headers the request does not have: no
		// copy (a clone of the request, its header and URL per call).
		return t.base.RoundTrip(r)
	}
	r2 := r.Clone(r.Context())
	if err := t.creds.Apply(r.Context(), r2, nil); err != nil {
		if r.Body != nil {
			_ = r.Body.Close()
		}
		return nil, fmt.Errorf("connector: outbound credentials: %w", err)
	}
	return t.base.RoundTrip(r2)
}

// hasInbound reports whether h has a header auth.None removes (it deletes
// the canonical keys, as these are).
func hasInbound(h http.Header) bool {
	_, a := h["Authorization"]
	_, p := h["Proxy-Authorization"]
	return a || p
}

// sessionWatch notices, on the wire, that an HTTP server has lost the
// session: a 404 to a request that carries Mcp-Session-Id (the spec's
// answer for a terminated or unknown session) or the legacy transport's
// sessionId, or a 400 to one whose body says "session" (what servers that
// keep sessions in memory answer after a restart: "No valid session ID
// provided", "Invalid session ID"), or a connection refused or reset. It
// kills the session; the Conn reconnects and re-initializes.
type sessionWatch struct {
	base http.RoundTripper
	s    *session
}

// Causes of a session's death that the server's answers tell.
var (
	errSession404  = errors.New("the server no longer knows the session (404)")
	errSession400  = errors.New("the server no longer knows the session (400)")
	errStreamEnded = errors.New("the server ended the response stream without an answer")
)

// maxPeek is how much of a 400 body sessionWatch reads to find "session".
const maxPeek = 4 << 10

// RoundTrip implements http.RoundTripper.
func (w sessionWatch) RoundTrip(r *http.Request) (*http.Response, error) {
	resp, err := w.base.RoundTrip(r)
	if err != nil {
		if r.Context().Err() == nil && peerGone(err) {
			w.s.killWith(fmt.Errorf("connection lost: %w", err))
		}
		return resp, err
	}
	// Streamable HTTP carries the session in a header, the legacy HTTP+SSE
	// transport in the message endpoint's query.
	if r.Header.Get(transport.HeaderKeySessionID) == "" && r.URL.Query().Get("sessionId") == "" {
		return resp, nil
	}
	switch resp.StatusCode {
	case http.StatusNotFound:
		w.s.killWith(errSession404)
	case http.StatusBadRequest:
		peek, _ := io.ReadAll(io.LimitReader(resp.Body, maxPeek))
		resp.Body = struct {
			io.Reader
			io.Closer
		}{io.MultiReader(bytes.NewReader(peek), resp.Body), resp.Body}
		if bytes.Contains(bytes.ToLower(peek), []byte("session")) {
			w.s.killWith(errSession400)
		}
	}
	return resp, nil
}

// watchedClient is credentialClient(h) with a sessionWatch for s.
func watchedClient(h *HTTPConfig, s *session) *http.Client {
	hc := credentialClient(h)
	base := hc.Transport
	if base == nil {
		base = http.DefaultTransport
	}
	hc.Transport = sessionWatch{base: base, s: s}
	return hc
}

func (c *Conn) dialStreamable(ctx context.Context, s *session) (transport.Interface, *process, error) {
	h := c.cfg.HTTP
	hc := watchedClient(h, s)
	opts := []transport.StreamableHTTPCOption{transport.WithHTTPBasicClient(hc), transport.WithHTTPLogger(c.log)}
	if len(h.Headers) > 0 {
		opts = append(opts, transport.WithHTTPHeaders(h.Headers))
	}
	t, err := transport.NewStreamableHTTP(h.URL, opts...)
	if err != nil {
		return nil, nil, err
	}
	s.reader = newCallReader(h, hc)
	return t, nil, nil
}

func (c *Conn) dialSSE(ctx context.Context, s *session) (transport.Interface, *process, error) {
	h := c.cfg.SSE
	opts := []transport.ClientOption{transport.WithHTTPClient(watchedClient(h, s)), transport.WithSSELogger(c.log)}
	if len(h.Headers) > 0 {
		opts = append(opts, transport.WithHeaders(h.Headers))
	}
	// The SSE stream is opened by the client's Start, with the Conn's
	// lifetime as its context.
	t, err := transport.NewSSE(h.URL, opts...)
	if err != nil {
		return nil, nil, err
	}
	// Every answer comes on that stream: once it breaks, the session is
	// gone (calls waiting for their answers would wait forever).
	t.SetConnectionLostHandler(func(err error) {
		s.killWith(fmt.Errorf("the event stream broke: %w", err))
	})
	return t, nil, nil
}
