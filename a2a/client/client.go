package client

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"iter"
	"log/slog"
	"mime"
	"net"
	"net/http"
	"net/url"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/a2a-mcp-bridge/bridge/a2a"
	"github.com/a2a-mcp-bridge/bridge/a2a/internal/httpbody"
	"github.com/a2a-mcp-bridge/bridge/netguard"
)

// clientDefaultMaxResponseBytes caps unary response bodies and single stream
// events when no [WithMaxResponseBytes] option is given.
const clientDefaultMaxResponseBytes = 10 << 20

// clientDefaultHTTP is the client used without [WithHTTPClient]: no proxy
// from the environment, dial and TLS timeouts, no redirects, no overall
// timeout (streams are long; callers bound calls with their context).
// Response headers may take long because a blocking SendMessage answers only
// when the task stops.
var clientDefaultHTTP = sync.OnceValue(func() *http.Client {
	return netguard.Trusted(netguard.Config{
		Timeout:               -1,
		MaxBodyBytes:          -1,
		ResponseHeaderTimeout: 5 * time.Minute,
	})
})

// Client calls one A2A 1.0 agent over the JSON-RPC or the HTTP+JSON binding,
// chosen from the agent's card. It is safe for concurrent use.
type Client struct {
	card     *a2a.AgentCard
	iface    a2a.AgentInterface
	base     string   // interface URL without a trailing slash
	baseURL  *url.URL // base, parsed once (read only)
	rest     bool
	hc       *http.Client
	header   func(context.Context, *http.Request) error
	maxBytes int64
	nextID   atomic.Int64
	legacy   Legacy    // speaks an older version (WithLegacy), if set
	tr       Transport // the interface's binding is not one of this package's
}

type clientConfig struct {
	hc       *http.Client
	header   func(context.Context, *http.Request) error
	binding  string
	maxBytes int64
	legacy   Legacy
	// transports are the bindings WithTransport added.
	transports map[string]TransportFactory
}

// Option configures [Dial] and [New].
type Option func(*clientConfig)

// WithHTTPClient sets the HTTP client of every call, the card fetch
// included. The gateway passes the netguard client so agent URLs taken from
// cards are SSRF-checked. Streams read for as long as the agent sends, so the
// client should have no overall Timeout and no body cap of its own; the a2a
// client caps each response and each event itself. Default: a client that
// never uses an environment proxy, follows no redirects and has dial, TLS and
// response-header timeouts but no overall timeout.
func WithHTTPClient(hc *http.Client) Option {
	return func(c *clientConfig) { c.hc = hc }
}

// WithHeader sets a hook that runs on every outbound request, the card
// fetch included, after the A2A headers are set: the place to add
// credentials or an A2A-Extensions header. The hook sees the request URL; a
// card may name interface URLs on other hosts than the card's, so a hook
// holding a credential for one origin should check req.URL.Host. An error
// from the hook fails the call without sending anything.
func WithHeader(fn func(ctx context.Context, req *http.Request) error) Option {
	return func(c *clientConfig) { c.header = fn }
}

// WithBinding forces the binding ([BindingJSONRPC] or [BindingHTTPJSON]):
// only interfaces of that binding are considered. Default: the first
// interface of the card, in the card's order, whose binding the client
// supports.
func WithBinding(binding string) Option {
	return func(c *clientConfig) { c.binding = binding }
}

// WithMaxResponseBytes caps the body of each unary response and the data of
// each stream event at n bytes; longer ones fail with an error matching
// [ErrResponseTooLarge]. Default 10 MiB; n <= 0 keeps the default.
func WithMaxResponseBytes(n int64) Option {
	return func(c *clientConfig) {
		if n > 0 {
			c.maxBytes = n
		}
	}
}

func clientConfigure(opts []Option) (clientConfig, error) {
	cfg := clientConfig{maxBytes: clientDefaultMaxResponseBytes}
	for _, o := range opts {
		o(&cfg)
	}
	if cfg.hc == nil {
		cfg.hc = clientDefaultHTTP()
	}
	if cfg.binding != "" && !clientSupports(cfg.binding) && cfg.transportFor(cfg.binding) == nil {
		return cfg, fmt.Errorf("client: binding %q is not supported (want %s or %s)", cfg.binding, a2a.BindingJSONRPC, a2a.BindingHTTPJSON)
	}
	return cfg, nil
}

// Dial fetches the agent card at cardURL (usually
// https://host/.well-known/agent-card.json) and returns a client for the
// first interface of the card that it can use. The card is not verified;
// to check its signatures first, fetch and verify it yourself and call
// [New].
func Dial(ctx context.Context, cardURL string, opts ...Option) (*Client, error) {
	cfg, err := clientConfigure(opts)
	if err != nil {
		return nil, err
	}
	u, err := url.Parse(cardURL)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return nil, errors.New("client: fetch agent card: the card URL must be an absolute http or https URL")
	}
	c := &Client{hc: cfg.hc, header: cfg.header, maxBytes: cfg.maxBytes}
	const op = "fetch agent card"
	resp, err := c.send(ctx, http.MethodGet, u.String(), nil, "application/json")
	if err != nil {
		return nil, &clientError{op: op, err: err}
	}
	defer resp.Body.Close()
	data, err := c.readBody(op, resp)
	if err != nil {
		return nil, err
	}
	if resp.StatusCode != http.StatusOK {
		return nil, clientHTTPError(op, resp, data)
	}
	var card a2a.AgentCard
	if err := json.Unmarshal(data, &card); err != nil {
		return nil, clientBadResponse(op, "the card is not valid JSON: "+err.Error())
	}
	return clientFromCard(&card, cfg)
}

// New returns a client for the first interface of card that
// it can use: interfaces are walked in the card's order and the first one
// whose binding is JSONRPC or HTTP+JSON (or the one forced by
// [WithBinding]) and whose protocolVersion has major version 1 wins. Its
// tenant, if any, is sent with every request. The client keeps card; do not
// modify it afterwards.
func New(card *a2a.AgentCard, opts ...Option) (*Client, error) {
	cfg, err := clientConfigure(opts)
	if err != nil {
		return nil, err
	}
	if card == nil {
		return nil, errors.New("client: no agent card")
	}
	return clientFromCard(card, cfg)
}

func clientFromCard(card *a2a.AgentCard, cfg clientConfig) (*Client, error) {
	binding, major := cfg.binding, "1"
	if cfg.legacy != nil {
		major = "0"
		if _, rest := cfg.legacy.(LegacyREST); !rest {
			binding = a2a.BindingJSONRPC
		}
	}
	iface, base, err := clientPickInterface(card, binding, major)
	if err != nil {
		if f, in, ok := clientPickTransport(card, cfg); ok {
			tr, terr := f(in, cfg.header)
			if terr != nil {
				return nil, fmt.Errorf("client: %s interface: %w", in.ProtocolBinding, terr)
			}
			return &Client{card: card, iface: in, base: in.URL, hc: cfg.hc, header: cfg.header, maxBytes: cfg.maxBytes, tr: tr}, nil
		}
		return nil, err
	}
	baseURL, err := url.Parse(base)
	if err != nil {
		return nil, fmt.Errorf("client: interface URL: %w", err)
	}
	return &Client{
		card:     card,
		iface:    iface,
		base:     base,
		baseURL:  baseURL,
		rest:     strings.EqualFold(iface.ProtocolBinding, a2a.BindingHTTPJSON),
		hc:       cfg.hc,
		header:   cfg.header,
		maxBytes: cfg.maxBytes,
		legacy:   cfg.legacy,
	}, nil
}

func clientSupports(binding string) bool {
	return strings.EqualFold(binding, a2a.BindingJSONRPC) || strings.EqualFold(binding, a2a.BindingHTTPJSON)
}

// clientPickInterface walks the card's interfaces in order.
func clientPickInterface(card *a2a.AgentCard, forced, major string) (a2a.AgentInterface, string, error) {
	for _, in := range card.SupportedInterfaces {
		if forced != "" && !strings.EqualFold(in.ProtocolBinding, forced) {
			continue
		}
		if !clientSupports(in.ProtocolBinding) || !clientMajorIs(in.ProtocolVersion, major) {
			continue
		}
		u, err := url.Parse(in.URL)
		if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" || u.User != nil {
			slog.Warn("a2a: skipped an agent interface whose URL is not an absolute http(s) URL without credentials",
				"agent", card.Name, "binding", in.ProtocolBinding)
			continue
		}
		u.RawQuery, u.Fragment, u.RawFragment = "", "", ""
		return in, strings.TrimSuffix(u.String(), "/"), nil
	}
	want := a2a.BindingJSONRPC + " or " + a2a.BindingHTTPJSON
	if forced != "" {
		want = forced
	}
	return a2a.AgentInterface{}, "", fmt.Errorf("client: the agent card offers no usable interface (want %s with protocol version %s.x and an absolute http(s) URL)", want, major)
}

// clientPickTransport is the first interface, in the card's order, of a
// binding a WithTransport factory serves (the forced binding only, when
// WithBinding names one).
func clientPickTransport(card *a2a.AgentCard, cfg clientConfig) (TransportFactory, a2a.AgentInterface, bool) {
	if cfg.legacy != nil {
		return nil, a2a.AgentInterface{}, false // A2A 0.3 is spoken over HTTP only
	}
	for _, in := range card.SupportedInterfaces {
		if cfg.binding != "" && !strings.EqualFold(in.ProtocolBinding, cfg.binding) {
			continue
		}
		if f := cfg.transportFor(in.ProtocolBinding); f != nil && clientMajorIs(in.ProtocolVersion, "1") && in.URL != "" {
			return f, in, true
		}
	}
	return nil, a2a.AgentInterface{}, false
}

// clientMajorIs reports whether a "Major.Minor" version has major want.
func clientMajorIs(v, want string) bool {
	v = strings.TrimSpace(v)
	major, _, _ := strings.Cut(v, ".")
	return major == want
}

// Card returns the agent card the client was built from. Do not modify it.
func (c *Client) Card() *a2a.AgentCard { return c.card }

// Interface returns the interface the client calls: its URL, binding,
// protocol version and tenant.
func (c *Client) Interface() a2a.AgentInterface { return c.iface }

// tenant is the tenant to send: the interface's, which the spec makes
// mandatory, or else the one the caller put in the request.
func (c *Client) tenant(req string) string {
	if c.iface.Tenant != "" {
		return c.iface.Tenant
	}
	return req
}

// clientOp describes one call on both bindings.
type clientOp struct {
	name    string // for errors: "get task"
	method  string // JSON-RPC method
	params  any    // JSON-RPC params
	tenant  string
	route   func() clientRoute // HTTP+JSON route, built only on that binding
	emptyOK bool               // the result may be empty (Delete)
}

func clientMissing(op, field string) error {
	return &clientError{op: op, err: a2a.ErrInvalidParams.With(field + " is required")}
}

// SendMessage sends a message and returns the task it started or continued,
// or the agent's direct reply message.
func (c *Client) SendMessage(ctx context.Context, req *a2a.SendMessageRequest) (*a2a.SendMessageResponse, error) {
	const name = "send message"
	if req == nil || req.Message == nil {
		return nil, clientMissing(name, "message")
	}
	r := req
	if t := c.tenant(req.Tenant); t != req.Tenant {
		// A copy only when the tenant changes: the caller's stays as it is.
		cp := *req
		cp.Tenant = t
		r = &cp
	}
	resp, err := clientCall[a2a.SendMessageResponse](ctx, c, clientOp{
		name: name, method: "SendMessage", params: r, tenant: r.Tenant,
		route: func() clientRoute { return clientRouteSendMessage(r, "message:send") },
	})
	if err == nil && resp.Task == nil && resp.Message == nil {
		return nil, clientBadResponse(name, "the response has neither a task nor a message")
	}
	return resp, err
}

// SendStreamingMessage sends a message and returns the stream of the task's
// events (or a single message event).
func (c *Client) SendStreamingMessage(ctx context.Context, req *a2a.SendMessageRequest) (*Stream, error) {
	const name = "send streaming message"
	if req == nil || req.Message == nil {
		return nil, clientMissing(name, "message")
	}
	r := *req
	r.Tenant = c.tenant(r.Tenant)
	return c.openStream(ctx, clientOp{
		name: name, method: "SendStreamingMessage", params: &r, tenant: r.Tenant,
		route: func() clientRoute { return clientRouteSendMessage(&r, "message:stream") },
	})
}

// GetTask returns a task.
func (c *Client) GetTask(ctx context.Context, req *a2a.GetTaskRequest) (*a2a.Task, error) {
	const name = "get task"
	if req == nil || req.ID == "" {
		return nil, clientMissing(name, "id")
	}
	r := *req
	r.Tenant = c.tenant(r.Tenant)
	return clientCall[a2a.Task](ctx, c, clientOp{
		name: name, method: "GetTask", params: &r, tenant: r.Tenant,
		route: func() clientRoute { return clientRouteGetTask(&r) },
	})
}

// ListTasks returns one page of the caller's tasks.
func (c *Client) ListTasks(ctx context.Context, req *a2a.ListTasksRequest) (*a2a.ListTasksResponse, error) {
	const name = "list tasks"
	var r a2a.ListTasksRequest
	if req != nil {
		r = *req
	}
	r.Tenant = c.tenant(r.Tenant)
	return clientCall[a2a.ListTasksResponse](ctx, c, clientOp{
		name: name, method: "ListTasks", params: &r, tenant: r.Tenant,
		route: func() clientRoute { return clientRouteListTasks(&r) },
	})
}

// CancelTask asks the agent to cancel a task and returns the task.
func (c *Client) CancelTask(ctx context.Context, req *a2a.CancelTaskRequest) (*a2a.Task, error) {
	const name = "cancel task"
	if req == nil || req.ID == "" {
		return nil, clientMissing(name, "id")
	}
	r := *req
	r.Tenant = c.tenant(r.Tenant)
	return clientCall[a2a.Task](ctx, c, clientOp{
		name: name, method: "CancelTask", params: &r, tenant: r.Tenant,
		route: func() clientRoute { return clientRouteCancelTask(&r) },
	})
}

// SubscribeToTask returns the stream of a task's events, starting with the
// task itself.
func (c *Client) SubscribeToTask(ctx context.Context, req *a2a.SubscribeToTaskRequest) (*Stream, error) {
	const name = "subscribe to task"
	if req == nil || req.ID == "" {
		return nil, clientMissing(name, "id")
	}
	r := *req
	r.Tenant = c.tenant(r.Tenant)
	return c.openStream(ctx, clientOp{
		name: name, method: "SubscribeToTask", params: &r, tenant: r.Tenant,
		route: func() clientRoute { return clientRouteSubscribe(&r) },
	})
}

// CreateTaskPushNotificationConfig registers a webhook for a task and
// returns it with the id the agent assigned.
func (c *Client) CreateTaskPushNotificationConfig(ctx context.Context, req *a2a.TaskPushNotificationConfig) (*a2a.TaskPushNotificationConfig, error) {
	const name = "create push notification config"
	if req == nil || req.TaskID == "" {
		return nil, clientMissing(name, "taskId")
	}
	if req.URL == "" {
		return nil, clientMissing(name, "url")
	}
	r := *req
	r.Tenant = c.tenant(r.Tenant)
	return clientCall[a2a.TaskPushNotificationConfig](ctx, c, clientOp{
		name: name, method: "CreateTaskPushNotificationConfig", params: &r, tenant: r.Tenant,
		route: func() clientRoute { return clientRouteCreatePush(&r) },
	})
}

// GetTaskPushNotificationConfig returns one webhook of a task.
func (c *Client) GetTaskPushNotificationConfig(ctx context.Context, req *a2a.GetTaskPushNotificationConfigRequest) (*a2a.TaskPushNotificationConfig, error) {
	const name = "get push notification config"
	if req == nil || req.TaskID == "" {
		return nil, clientMissing(name, "taskId")
	}
	if req.ID == "" {
		return nil, clientMissing(name, "id")
	}
	r := *req
	r.Tenant = c.tenant(r.Tenant)
	return clientCall[a2a.TaskPushNotificationConfig](ctx, c, clientOp{
		name: name, method: "GetTaskPushNotificationConfig", params: &r, tenant: r.Tenant,
		route: func() clientRoute { return clientRoutePushConfig(http.MethodGet, r.TaskID, r.ID) },
	})
}

// ListTaskPushNotificationConfigs returns one page of a task's webhooks.
func (c *Client) ListTaskPushNotificationConfigs(ctx context.Context, req *a2a.ListTaskPushNotificationConfigsRequest) (*a2a.ListTaskPushNotificationConfigsResponse, error) {
	const name = "list push notification configs"
	if req == nil || req.TaskID == "" {
		return nil, clientMissing(name, "taskId")
	}
	r := *req
	r.Tenant = c.tenant(r.Tenant)
	return clientCall[a2a.ListTaskPushNotificationConfigsResponse](ctx, c, clientOp{
		name: name, method: "ListTaskPushNotificationConfigs", params: &r, tenant: r.Tenant,
		route: func() clientRoute { return clientRouteListPush(&r) },
	})
}

// DeleteTaskPushNotificationConfig removes a webhook of a task. Deleting a
// webhook that is already gone is not an error for a conforming agent.
func (c *Client) DeleteTaskPushNotificationConfig(ctx context.Context, req *a2a.DeleteTaskPushNotificationConfigRequest) error {
	const name = "delete push notification config"
	if req == nil || req.TaskID == "" {
		return clientMissing(name, "taskId")
	}
	if req.ID == "" {
		return clientMissing(name, "id")
	}
	r := *req
	r.Tenant = c.tenant(r.Tenant)
	_, err := clientCall[json.RawMessage](ctx, c, clientOp{
		name: name, method: "DeleteTaskPushNotificationConfig", params: &r, tenant: r.Tenant, emptyOK: true,
		route: func() clientRoute { return clientRoutePushConfig(http.MethodDelete, r.TaskID, r.ID) },
	})
	return err
}

// GetExtendedAgentCard returns the card the agent shows to the
// authenticated caller (credentials come from the [WithHeader] hook).
func (c *Client) GetExtendedAgentCard(ctx context.Context) (*a2a.AgentCard, error) {
	r := a2a.GetExtendedAgentCardRequest{Tenant: c.tenant("")}
	return clientCall[a2a.AgentCard](ctx, c, clientOp{
		name: "get extended agent card", method: "GetExtendedAgentCard", params: &r, tenant: r.Tenant,
		route: func() clientRoute { return clientRoute{verb: http.MethodGet, path: "/extendedAgentCard"} },
	})
}

// clientCall runs a unary call on the client's binding.
func clientCall[T any](ctx context.Context, c *Client, op clientOp) (*T, error) {
	if c.tr != nil {
		out := new(T)
		var res any = out
		if op.emptyOK {
			res = nil
		}
		if err := c.tr.Call(ctx, op.method, op.params, res); err != nil {
			return nil, &clientError{op: op.name, err: err}
		}
		return out, nil
	}
	if c.legacy != nil {
		if c.rest {
			return legacyRESTCall[T](ctx, c, op)
		}
		return legacyRPCCall[T](ctx, c, op)
	}
	if c.rest {
		return clientRESTCall[T](ctx, c, op)
	}
	return clientRPCCall[T](ctx, c, op)
}

// openStream starts a streaming call on the client's binding.
func (c *Client) openStream(ctx context.Context, op clientOp) (*Stream, error) {
	var (
		resp *http.Response
		id   int64
		err  error
	)
	if c.tr != nil {
		src, err := c.tr.Stream(ctx, op.method, op.params)
		if err != nil {
			return nil, &clientError{op: op.name, err: err}
		}
		return &Stream{op: op.name, src: src}, nil
	}
	switch {
	case c.legacy != nil && c.rest:
		resp, err = c.legacyRESTSend(ctx, op, "text/event-stream")
	case c.legacy != nil:
		id, resp, err = c.legacyRPCSend(ctx, op, "text/event-stream")
	case c.rest:
		resp, err = c.restSend(ctx, op, "text/event-stream")
	default:
		id, resp, err = c.rpcSend(ctx, op, "text/event-stream")
	}
	if err != nil {
		return nil, &clientError{op: op.name, err: err}
	}
	ct, _, _ := mime.ParseMediaType(resp.Header.Get("Content-Type"))
	if resp.StatusCode/100 != 2 || ct != "text/event-stream" {
		defer resp.Body.Close()
		data, err := c.readBody(op.name, resp)
		if err != nil {
			return nil, err
		}
		if resp.StatusCode/100 != 2 {
			if c.legacy != nil && c.rest {
				return nil, legacyRESTError(op.name, resp, data)
			}
			return nil, clientHTTPError(op.name, resp, data)
		}
		// Errors found before the first event come as a plain error body,
		// for JSON-RPC with HTTP 200.
		if e := clientErrorBody(resp.StatusCode, data); e != nil {
			return nil, &clientError{op: op.name, err: e}
		}
		return nil, clientBadResponse(op.name, "the agent did not answer with an event stream")
	}
	s := &Stream{
		op:     op.name,
		body:   resp.Body,
		sse:    newSSEReader(resp.Body, int(min(c.maxBytes, int64(maxInt)))),
		rest:   c.rest,
		id:     id,
		legacy: c.legacy,
	}
	return s, nil
}

const maxInt = int(^uint(0) >> 1)

// outParts are the parts of an outgoing request that send would otherwise
// allocate one by one (the URL's copy, the body's reader, the header's
// values): one allocation for the three, where the allocation profile of
// bridge serve under load showed three per relayed call. The body stays an
// io.NopCloser of a *bytes.Reader: net/http's request writer knows that
// pair as in memory and writes header and body in one flush, where a
// reader of another type costs a second write per call.
type outParts struct {
	url  url.URL
	body bytes.Reader
	vals [3]string
}

// send builds and sends one request with the A2A headers and the hook.
func (c *Client) send(ctx context.Context, method, u string, body []byte, accept string) (*http.Response, error) {
	var req *http.Request
	parts := &outParts{vals: [3]string{a2a.ProtocolVersion, accept, "application/json"}}
	if u == c.base {
		// The JSON-RPC binding always posts to the interface URL: build the
		// request on the URL parsed once, as NewRequestWithContext would.
		parts.url = *c.baseURL
		req = (&http.Request{
			Method: method, URL: &parts.url, Proto: "HTTP/1.1", ProtoMajor: 1, ProtoMinor: 1,
			Host: c.baseURL.Host,
		}).WithContext(ctx)
		if body != nil {
			parts.body.Reset(body)
			req.Body = io.NopCloser(&parts.body)
			req.ContentLength = int64(len(body))
			req.GetBody = func() (io.ReadCloser, error) { return io.NopCloser(bytes.NewReader(body)), nil }
		}
	} else {
		var rd io.Reader
		if body != nil {
			rd = bytes.NewReader(body)
		}
		var err error
		if req, err = http.NewRequestWithContext(ctx, method, u, rd); err != nil {
			return nil, err
		}
	}
	// The request's own header, built at once (one backing array for the
	// values) rather than by a Set per field.
	vals := &parts.vals
	req.Header = http.Header{"A2a-Version": vals[0:1:1], "Accept": vals[1:2:2]}
	if c.legacy != nil {
		delete(req.Header, "A2a-Version") // an older agent's peers send none
	}
	if body != nil {
		req.Header["Content-Type"] = vals[2:3:3]
	}
	if c.header != nil {
		if err := c.header(ctx, req); err != nil {
			return nil, fmt.Errorf("outbound header hook: %w", err)
		}
	}
	// As c.hc.Do, without http.Client's per-call copies when c.hc is a
	// netguard client that follows no redirects (see netguard.Do).
	return netguard.Do(c.hc, req)
}

// readBody reads a whole response body, at most c.maxBytes of it.
func (c *Client) readBody(op string, resp *http.Response) ([]byte, error) {
	data, err := httpbody.ReadAtMost(resp.Body, resp.ContentLength, c.maxBytes)
	if err != nil {
		return nil, &clientError{op: op, msg: "read response", err: err}
	}
	if int64(len(data)) > c.maxBytes {
		return nil, &clientError{op: op, err: fmt.Errorf("%w: the body exceeds %d bytes", ErrResponseTooLarge, c.maxBytes)}
	}
	return data, nil
}

// clientErrorBody returns the error in a body of either binding's error
// shape, or nil when the body is not one.
func clientErrorBody(httpStatus int, data []byte) *a2a.Error {
	var env struct {
		Error *a2a.ErrorBody `json:"error"`
	}
	if json.Unmarshal(data, &env) != nil || env.Error == nil {
		return nil
	}
	return env.Error.ToError(httpStatus)
}

// clientHTTPError maps a non-2xx response. An A2A error body of either
// binding becomes its *Error; anything else (a proxy's HTML page, say)
// becomes an *Error of the kind the status implies, whose message names the
// status and media type only: upstream bodies never reach error messages
// (a short sanitized prefix is logged at debug level).
func clientHTTPError(op string, resp *http.Response, data []byte) error {
	if e := clientErrorBody(resp.StatusCode, data); e != nil {
		return &clientError{op: op, err: e}
	}
	ct, _, err := mime.ParseMediaType(resp.Header.Get("Content-Type"))
	if err != nil || ct == "" {
		ct = "no media type"
	}
	ct = clientSanitize([]byte(ct), 64)
	slog.Debug("a2a: agent answered without an A2A error body", "op", op, "status", resp.StatusCode,
		"contentType", ct, "bodyPrefix", clientSanitize(data, 64))
	msg := fmt.Sprintf("agent answered HTTP %d %s (%s) without an A2A error body",
		resp.StatusCode, http.StatusText(resp.StatusCode), ct)
	return &clientError{op: op, err: a2a.ErrorFromWire(0, resp.StatusCode, msg, nil)}
}

// clientSanitize returns at most n bytes of b with everything but printable
// ASCII replaced by '.'.
func clientSanitize(b []byte, n int) string {
	if len(b) > n {
		b = b[:n]
	}
	out := make([]byte, len(b))
	for i, ch := range b {
		if ch < 0x20 || ch > 0x7e {
			ch = '.'
		}
		out[i] = ch
	}
	return string(out)
}

// clientBadResponse is an answer that breaks the protocol; it matches
// ErrInvalidAgentResponse.
func clientBadResponse(op, detail string) error {
	return &clientError{op: op, err: a2a.ErrInvalidAgentResponse.With(detail)}
}

// clientError is an error of one client call. It reads "client: <op>:
// <msg>: <cause>" (the cause without its own "client: " or "a2a: " prefix)
// and unwraps to the cause, so errors.Is and errors.As reach the
// agent's *Error.
type clientError struct {
	op  string
	msg string
	err error
}

func (e *clientError) Error() string {
	var b strings.Builder
	b.WriteString("client: ")
	b.WriteString(e.op)
	if e.msg != "" {
		b.WriteString(": ")
		b.WriteString(e.msg)
	}
	if e.err != nil {
		b.WriteString(": ")
		if ae, ok := e.err.(*a2a.Error); ok && ae.Message != "" {
			b.WriteString(ae.Message)
		} else {
			cause := e.err.Error()
			if c, ok := strings.CutPrefix(cause, "client: "); ok {
				cause = c
			} else {
				cause = strings.TrimPrefix(cause, "a2a: ")
			}
			b.WriteString(cause)
		}
	}
	return b.String()
}

func (e *clientError) Unwrap() error { return e.err }

// Stream is the event stream of SendStreamingMessage or SubscribeToTask.
// Next must not be called concurrently; Close may be called at any time,
// also from another goroutine, and unblocks a waiting Next.
type Stream struct {
	op     string
	body   io.ReadCloser
	sse    *sseReader
	rest   bool
	id     int64
	legacy Legacy
	src    EventSource // a Transport's stream (body and sse unused)
	// peeked is the next event, decoded by Ready (nil: none).
	peeked *a2a.StreamResponse
	err    error
	closed atomic.Bool
	once   sync.Once
}

// Next returns the next event. It returns io.EOF when the agent ended the
// stream, the agent's error (an *Error) when it sent one, and an error
// wrapping io.ErrUnexpectedEOF when the stream was cut inside an event.
// Events of a kind this version does not know are skipped and logged. After
// an error every call returns the same error.
func (s *Stream) Next() (*a2a.StreamResponse, error) {
	if s.err != nil {
		return nil, s.err
	}
	if ev := s.peeked; ev != nil {
		s.peeked = nil
		return ev, nil
	}
	if s.src != nil {
		ev, err := s.src.Next()
		switch {
		case err == io.EOF:
			return nil, s.fail(io.EOF)
		case err != nil && s.closed.Load():
			return nil, s.fail(&clientError{op: s.op, err: net.ErrClosed})
		case err != nil:
			return nil, s.fail(&clientError{op: s.op, err: err})
		}
		return ev, nil
	}
	for {
		data, err := s.sse.next()
		if err != nil {
			switch {
			case err == io.EOF:
				return nil, s.fail(io.EOF)
			case s.closed.Load():
				return nil, s.fail(&clientError{op: s.op, err: net.ErrClosed})
			case errors.Is(err, io.ErrUnexpectedEOF):
				return nil, s.fail(&clientError{op: s.op, msg: "event stream ended inside an event", err: err})
			}
			return nil, s.fail(&clientError{op: s.op, msg: "read event stream", err: err})
		}
		ev, err := s.decode(data)
		if err != nil {
			return nil, s.fail(err)
		}
		if ev == nil {
			continue
		}
		return ev, nil
	}
}

// decode reads one event's data; nil and no error for a kind this version
// does not know (logged).
func (s *Stream) decode(data []byte) (*a2a.StreamResponse, error) {
	switch {
	case s.legacy != nil && s.rest:
		return legacyRESTEvent(s.legacy, s.op, data)
	case s.legacy != nil:
		return legacyRPCEvent(s.legacy, s.op, s.id, data)
	case s.rest:
		return clientRESTEvent(s.op, data)
	default:
		return clientRPCEvent(s.op, s.id, data)
	}
}

// Ready reports whether Next would return at once: the next event, or the
// stream's end or error, has already been read from the connection. It
// never waits. False is always a safe answer: it says only that Next may
// wait (a Transport's stream always answers false).
func (s *Stream) Ready() bool {
	if s.err != nil || s.peeked != nil {
		return true
	}
	if s.src != nil || s.sse == nil {
		return false
	}
	for {
		start, skip := s.sse.mark()
		data, ok, err := s.sse.tryNext()
		if !ok {
			return false
		}
		if err != nil {
			// Next reads the same bytes again and fails as it would have.
			s.sse.reset(start, skip)
			return true
		}
		ev, derr := s.decode(data)
		if derr != nil {
			s.sse.reset(start, skip)
			return true
		}
		if ev == nil {
			continue // skipped by Next too
		}
		s.peeked = ev
		return true
	}
}

func (s *Stream) fail(err error) error {
	s.err = err
	s.closeBody()
	return err
}

// Close ends the stream and releases its connection. It is safe to call
// more than once.
func (s *Stream) Close() error {
	s.closed.Store(true)
	s.closeBody()
	return nil
}

func (s *Stream) closeBody() {
	s.once.Do(func() {
		if s.src != nil {
			_ = s.src.Close()
			return
		}
		_ = s.body.Close()
	})
}

// All ranges over the events until the stream ends and closes it, also when
// the loop stops early. A clean end yields nothing more; any other error is
// yielded once, with a nil event, as the last pair.
func (s *Stream) All() iter.Seq2[*a2a.StreamResponse, error] {
	return func(yield func(*a2a.StreamResponse, error) bool) {
		defer s.Close()
		for {
			ev, err := s.Next()
			if err == io.EOF {
				return
			}
			if err != nil {
				yield(nil, err)
				return
			}
			if !yield(ev, nil) {
				return
			}
		}
	}
}

// clientSkipUnknown logs an event of a kind this version does not know.
func clientSkipUnknown(op string) {
	slog.Warn("a2a: skipped a stream event of unknown kind", "op", op)
}
