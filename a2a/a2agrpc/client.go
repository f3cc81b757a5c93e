package a2agrpc

import (
	"context"
	"crypto/tls"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"net/url"
	"strings"
	"sync"
	"time"

	"google.golang.org/grpc"
	"google.golang.org/grpc/credentials"
	"google.golang.org/grpc/credentials/insecure"
	"google.golang.org/grpc/metadata"
	"google.golang.org/protobuf/proto"

	"github.com/a2a-mcp-bridge/bridge/a2a"
	"github.com/a2a-mcp-bridge/bridge/a2a/client"
)

// ConnectorConfig configures a Connector.
type ConnectorConfig struct {
	// Dial connects to an address (host:port). Required: the gateway
	// passes netguard's dialer, which checks every address it connects
	// to, after resolution.
	Dial func(ctx context.Context, address string) (net.Conn, error)
	// TLS is the client TLS configuration (nil: the system roots).
	TLS *tls.Config
	// MaxRecvBytes caps a response message or stream event (default
	// 10 MiB, as the HTTP client's).
	MaxRecvBytes int
	// IdleTimeout lets a connection without calls go (default 5m).
	IdleTimeout time.Duration
}

// Connector dials the gRPC interfaces of agents' cards; it keeps one
// connection per address and security, shared by every client. Close it
// when done.
type Connector struct {
	cfg   ConnectorConfig
	mu    sync.Mutex
	conns map[connKey]*grpc.ClientConn
}

type connKey struct {
	addr      string
	plaintext bool
}

// NewConnector returns a Connector.
func NewConnector(cfg ConnectorConfig) (*Connector, error) {
	if cfg.Dial == nil {
		return nil, errors.New("a2agrpc: connector needs a dialer")
	}
	if cfg.MaxRecvBytes <= 0 {
		cfg.MaxRecvBytes = 10 << 20
	}
	if cfg.IdleTimeout <= 0 {
		cfg.IdleTimeout = 5 * time.Minute
	}
	return &Connector{cfg: cfg, conns: map[connKey]*grpc.ClientConn{}}, nil
}

// Close closes every connection.
func (c *Connector) Close() error {
	c.mu.Lock()
	conns := c.conns
	c.conns = map[connKey]*grpc.ClientConn{}
	c.mu.Unlock()
	var errs []error
	for _, cc := range conns {
		errs = append(errs, cc.Close())
	}
	return errors.Join(errs...)
}

// Address is where an interface URL points: an address and whether it is
// called in clear text. A gRPC interface URL is host:port (the A2A 1.0
// clarification) or an http or https URL naming one. https and a bare
// host:port use TLS, unless plaintext allows clear text for the bare form
// (an agent whose card was read over http); http is clear text and needs
// plaintext.
func Address(rawURL string, plaintext bool) (addr string, clear bool, err error) {
	s := strings.TrimSpace(rawURL)
	if i := strings.Index(s, "://"); i >= 0 {
		u, perr := url.Parse(s)
		if perr != nil || u.Host == "" || u.User != nil {
			return "", false, errors.New("a2agrpc: the gRPC interface URL is not host:port or an http(s) URL with a host")
		}
		port := u.Port()
		switch u.Scheme {
		case "https":
			if port == "" {
				port = "443"
			}
		case "http":
			if !plaintext {
				return "", false, errors.New("a2agrpc: the gRPC interface is clear text (http), which is not allowed here")
			}
			if port == "" {
				port = "80"
			}
			clear = true
		default:
			return "", false, fmt.Errorf("a2agrpc: the gRPC interface URL has scheme %q (want http, https or none)", clip(u.Scheme, 16))
		}
		return net.JoinHostPort(u.Hostname(), port), clear, nil
	}
	host, port, serr := net.SplitHostPort(s)
	if serr != nil || host == "" || port == "" || strings.ContainsAny(s, "/?#@") {
		return "", false, errors.New("a2agrpc: the gRPC interface URL is not host:port")
	}
	return net.JoinHostPort(host, port), plaintext, nil
}

// Factory is the client.TransportFactory of the connector's gRPC interfaces;
// plaintext allows clear text as Address says.
func (c *Connector) Factory(plaintext bool) client.TransportFactory {
	return func(iface a2a.AgentInterface, header func(context.Context, *http.Request) error) (client.Transport, error) {
		addr, clear, err := Address(iface.URL, plaintext)
		if err != nil {
			return nil, err
		}
		cc, err := c.conn(addr, clear)
		if err != nil {
			return nil, err
		}
		scheme := "https"
		if clear {
			scheme = "http"
		}
		return &transport{cc: cc, tenant: iface.Tenant, header: header, scheme: scheme, host: addr}, nil
	}
}

func (c *Connector) conn(addr string, clear bool) (*grpc.ClientConn, error) {
	k := connKey{addr, clear}
	c.mu.Lock()
	defer c.mu.Unlock()
	if cc := c.conns[k]; cc != nil {
		return cc, nil
	}
	var creds credentials.TransportCredentials
	if clear {
		creds = insecure.NewCredentials()
	} else {
		tc := c.cfg.TLS
		if tc == nil {
			tc = &tls.Config{MinVersion: tls.VersionTLS12}
		}
		creds = credentials.NewTLS(tc)
	}
	dial := c.cfg.Dial
	cc, err := grpc.NewClient("passthrough:///"+addr,
		grpc.WithTransportCredentials(creds),
		grpc.WithContextDialer(func(ctx context.Context, a string) (net.Conn, error) { return dial(ctx, a) }),
		grpc.WithDefaultCallOptions(grpc.MaxCallRecvMsgSize(c.cfg.MaxRecvBytes)),
		grpc.WithMaxHeaderListSize(MaxHeaderBytes),
		grpc.WithIdleTimeout(c.cfg.IdleTimeout),
		grpc.WithNoProxy(),
		grpc.WithUserAgent("a2a-mcp-bridge"),
	)
	if err != nil {
		return nil, fmt.Errorf("a2agrpc: client for %s: %w", addr, err)
	}
	c.conns[k] = cc
	return cc, nil
}

// transport is one interface's client.Transport.
type transport struct {
	cc     *grpc.ClientConn
	tenant string
	header func(context.Context, *http.Request) error
	scheme string
	host   string
}

// outgoing is ctx with the call's metadata: a2a-version, and what the
// header hook adds (credentials), lower-cased.
func (t *transport) outgoing(ctx context.Context, method string) (context.Context, error) {
	req := (&http.Request{
		Method: http.MethodPost, URL: &url.URL{Scheme: t.scheme, Host: t.host, Path: PathPrefix + method},
		Proto: "HTTP/2.0", ProtoMajor: 2, Host: t.host,
		Header: http.Header{"A2a-Version": {a2a.ProtocolVersion}, "Content-Type": {"application/grpc"}},
	}).WithContext(ctx)
	if t.header != nil {
		if err := t.header(ctx, req); err != nil {
			return nil, fmt.Errorf("outbound header hook: %w", err)
		}
	}
	md := metadata.MD{}
	for k, vs := range req.Header {
		lk := strings.ToLower(k)
		switch lk {
		case "content-type", "accept", "content-length", "user-agent", "host", "connection", "te":
			continue
		}
		md[lk] = append(md[lk], vs...)
	}
	return metadata.NewOutgoingContext(ctx, md), nil
}

func (t *transport) request(m *method, params any) (proto.Message, error) {
	req := m.newReq()
	if err := encodeRequest(params, req); err != nil {
		return nil, err
	}
	if t.tenant != "" {
		setTenant(req, t.tenant)
	}
	return req, nil
}

// Call implements client.Transport.
func (t *transport) Call(ctx context.Context, name string, params, result any) error {
	m := methodByName(name)
	if m == nil || m.stream {
		return a2a.ErrMethodNotFound.Withf("no unary gRPC method %s", name)
	}
	req, err := t.request(m, params)
	if err != nil {
		return err
	}
	octx, err := t.outgoing(ctx, name)
	if err != nil {
		return err
	}
	resp := m.newResp()
	if err := t.cc.Invoke(octx, PathPrefix+name, req, resp); err != nil {
		return callError(err)
	}
	if result == nil {
		return nil
	}
	return decodeMessage(resp, result)
}

// Stream implements client.Transport.
func (t *transport) Stream(ctx context.Context, name string, params any) (client.EventSource, error) {
	m := methodByName(name)
	if m == nil || !m.stream {
		return nil, a2a.ErrMethodNotFound.Withf("no streaming gRPC method %s", name)
	}
	req, err := t.request(m, params)
	if err != nil {
		return nil, err
	}
	octx, err := t.outgoing(ctx, name)
	if err != nil {
		return nil, err
	}
	sctx, cancel := context.WithCancel(octx)
	cs, err := t.cc.NewStream(sctx, &grpc.StreamDesc{StreamName: name, ServerStreams: true}, PathPrefix+name)
	if err != nil {
		cancel()
		return nil, callError(err)
	}
	if err := cs.SendMsg(req); err != nil && err != io.EOF {
		cancel()
		return nil, callError(err)
	}
	if err := cs.CloseSend(); err != nil {
		cancel()
		return nil, callError(err)
	}
	// The first event, or the error the agent answered before any: an
	// error found before the stream starts is the call's, as over HTTP.
	es := &events{cs: cs, cancel: cancel, m: m}
	ev, err := es.recv()
	if err != nil && err != io.EOF {
		cancel()
		return nil, err
	}
	es.first, es.firstErr = ev, err
	return es, nil
}

// events is a gRPC server stream read as a2a events.
type events struct {
	cs       grpc.ClientStream
	cancel   context.CancelFunc
	m        *method
	first    *a2a.StreamResponse
	firstErr error
	started  bool
}

func (e *events) recv() (*a2a.StreamResponse, error) {
	for {
		msg := e.m.newResp()
		if err := e.cs.RecvMsg(msg); err != nil {
			if err == io.EOF {
				return nil, io.EOF
			}
			return nil, callError(err)
		}
		var ev a2a.StreamResponse
		if err := decodeMessage(msg, &ev); err != nil {
			return nil, err
		}
		if ev.Task == nil && ev.Message == nil && ev.StatusUpdate == nil && ev.ArtifactUpdate == nil {
			slog.Warn("a2agrpc: skipped a stream event of unknown kind")
			continue
		}
		return &ev, nil
	}
}

// Next implements client.EventSource.
func (e *events) Next() (*a2a.StreamResponse, error) {
	if !e.started {
		e.started = true
		if e.first != nil || e.firstErr != nil {
			return e.first, e.firstErr
		}
	}
	return e.recv()
}

// Close implements client.EventSource.
func (e *events) Close() error {
	e.cancel()
	return nil
}

// callError is a failed call's error: the agent's A2A error when the
// status is one, else the transport's failure (without addresses).
func callError(err error) error {
	if e, ok := errorOf(err); ok {
		return e
	}
	return fmt.Errorf("a2agrpc: call failed: %w", err)
}
