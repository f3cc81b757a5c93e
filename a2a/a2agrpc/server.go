package a2agrpc

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"net/url"
	"strings"
	"time"

	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/credentials"
	"google.golang.org/grpc/keepalive"
	"google.golang.org/grpc/metadata"
	"google.golang.org/grpc/peer"
	"google.golang.org/grpc/status"
	"google.golang.org/protobuf/proto"

	"github.com/a2a-mcp-bridge/bridge/a2a"
	"github.com/a2a-mcp-bridge/bridge/a2a/server"
)

// Target is the agent a call reaches.
type Target struct {
	// Server serves the agent's calls.
	Server *server.Server
	// Authenticate authenticates the caller r describes (its headers are
	// the call's metadata) with the agent's hop chain and returns the
	// context the call runs with, carrying the principal and the owner
	// (r.Context() is the call's). Nil: every caller is anonymous.
	Authenticate func(r *http.Request) (context.Context, error)
}

// Config configures a Server.
type Config struct {
	// Resolve returns the agent a request's tenant names ("" the default
	// agent), or the error to answer (an unknown tenant, an agent that is
	// unavailable). Required.
	Resolve func(ctx context.Context, tenant string) (*Target, error)
	// MaxRecvBytes caps a request message. Required (> 0).
	MaxRecvBytes int
	// MaxSendBytes caps a response message or stream event. Required (> 0).
	MaxSendBytes int
	// MaxUnaryDuration bounds a unary call, whatever deadline the caller
	// sets (a blocking SendMessage waits for its task this long at most).
	// Required (> 0). Streams end with their task or their caller.
	MaxUnaryDuration time.Duration
	// Keepalive applies when the server serves a listener of its own
	// (Serve); on the main listener the HTTP server's settings do.
	Keepalive Keepalive
	// TLS, if set, is used by Serve on a listener of its own.
	TLS credentials.TransportCredentials
	// ConnectionTimeout bounds the connection setup on a listener of its
	// own (the HTTP/2 preface and settings). Default 10s.
	ConnectionTimeout time.Duration
	// Logger receives the server's logs (default slog.Default()).
	Logger *slog.Logger
}

// Keepalive are the connection settings of a listener of the service's
// own (grpc keepalive.ServerParameters and EnforcementPolicy).
type Keepalive struct {
	// Time is how long a connection may be silent before the server pings
	// it; Timeout how long the ping's answer may take before the
	// connection is closed.
	Time, Timeout time.Duration
	// MaxConnectionIdle closes a connection without calls for that long
	// (0: never).
	MaxConnectionIdle time.Duration
	// MaxConnectionAge sends a connection GOAWAY once that old (0: never),
	// and MaxConnectionAgeGrace lets its calls finish for that long more.
	MaxConnectionAge, MaxConnectionAgeGrace time.Duration
	// MinPingInterval is the shortest interval between a client's pings;
	// a client pinging more often is disconnected.
	MinPingInterval time.Duration
}

// MaxConcurrentStreams caps the calls one connection has open at once on a
// listener of the service's own, as net/http's HTTP/2 server caps them on
// the main listener (grpc-go's own default is no cap).
const MaxConcurrentStreams = 250

// MaxHeaderBytes caps a call's metadata on a listener of the service's own,
// as the main listener caps request headers, and an answer's metadata on
// the connector's connections, as netguard's clients cap response headers
// (grpc-go's own default is 16 MiB).
const MaxHeaderBytes = 64 << 10

// Server serves lf.a2a.v1.A2AService.
type Server struct {
	cfg Config
	gs  *grpc.Server
	log *slog.Logger
}

// New returns the service's server.
func New(cfg Config) (*Server, error) {
	switch {
	case cfg.Resolve == nil:
		return nil, errors.New("a2agrpc: server needs Resolve")
	case cfg.MaxRecvBytes <= 0 || cfg.MaxSendBytes <= 0:
		return nil, errors.New("a2agrpc: server needs message size limits")
	case cfg.MaxUnaryDuration <= 0:
		return nil, errors.New("a2agrpc: server needs a unary call bound")
	}
	if cfg.ConnectionTimeout <= 0 {
		cfg.ConnectionTimeout = 10 * time.Second
	}
	s := &Server{cfg: cfg, log: cfg.Logger}
	if s.log == nil {
		s.log = slog.Default()
	}
	opts := []grpc.ServerOption{
		grpc.MaxRecvMsgSize(cfg.MaxRecvBytes),
		grpc.MaxSendMsgSize(cfg.MaxSendBytes),
		grpc.ConnectionTimeout(cfg.ConnectionTimeout),
		grpc.MaxConcurrentStreams(MaxConcurrentStreams),
		grpc.MaxHeaderListSize(MaxHeaderBytes),
		grpc.UnknownServiceHandler(func(_ any, stream grpc.ServerStream) error {
			name, _ := grpc.MethodFromServerStream(stream)
			return Status(a2a.ErrMethodNotFound.Withf("no gRPC method %s", clip(name, 128))).Err()
		}),
	}
	ka := cfg.Keepalive
	if ka.Time > 0 || ka.Timeout > 0 || ka.MaxConnectionIdle > 0 || ka.MaxConnectionAge > 0 {
		opts = append(opts, grpc.KeepaliveParams(keepalive.ServerParameters{
			Time: ka.Time, Timeout: ka.Timeout, MaxConnectionIdle: ka.MaxConnectionIdle,
			MaxConnectionAge: ka.MaxConnectionAge, MaxConnectionAgeGrace: ka.MaxConnectionAgeGrace,
		}))
	}
	if ka.MinPingInterval > 0 {
		opts = append(opts, grpc.KeepaliveEnforcementPolicy(keepalive.EnforcementPolicy{MinTime: ka.MinPingInterval, PermitWithoutStream: true}))
	}
	if cfg.TLS != nil {
		opts = append(opts, grpc.Creds(cfg.TLS))
	}
	s.gs = grpc.NewServer(opts...)
	s.gs.RegisterService(s.serviceDesc(), struct{}{})
	return s, nil
}

// IsGRPC reports whether r is a gRPC call (HTTP/2, content type
// application/grpc or application/grpc+…).
func IsGRPC(r *http.Request) bool {
	if r.ProtoMajor != 2 {
		return false
	}
	ct := r.Header.Get("Content-Type")
	return ct == "application/grpc" || strings.HasPrefix(ct, "application/grpc+") || strings.HasPrefix(ct, "application/grpc;")
}

// ServeHTTP serves a gRPC call that reached an http.Server (the main
// listener, over h2c or TLS); the server's own timeouts and keep-alives
// apply to its connection.
func (s *Server) ServeHTTP(w http.ResponseWriter, r *http.Request) { s.gs.ServeHTTP(w, r) }

// Serve serves the service on a listener of its own until Stop or
// GracefulStop.
func (s *Server) Serve(ln net.Listener) error { return s.gs.Serve(ln) }

// GracefulStop stops accepting calls and returns once the calls running
// have ended.
func (s *Server) GracefulStop() { s.gs.GracefulStop() }

// Stop ends every call and connection now.
func (s *Server) Stop() { s.gs.Stop() }

// unaryHandler is the grpc-go handler of a unary method.
func (s *Server) unaryHandler(m *method) func(any, context.Context, func(any) error, grpc.UnaryServerInterceptor) (any, error) {
	return func(_ any, ctx context.Context, dec func(any) error, _ grpc.UnaryServerInterceptor) (any, error) {
		req := m.newReq()
		if err := dec(req); err != nil {
			return nil, Status(a2a.ErrInvalidParams.With("the request is not a valid protobuf message")).Err()
		}
		ctx, cancel := context.WithTimeout(ctx, s.cfg.MaxUnaryDuration)
		defer cancel()
		t, call, err := s.open(ctx, m, req)
		if err != nil {
			return nil, s.answer(ctx, t, err)
		}
		res, err := s.serve(ctx, t, call)
		if err != nil {
			return nil, s.answer(ctx, t, err)
		}
		out := m.newResp()
		if err := encodeMessage(res, out); err != nil {
			return nil, s.answer(ctx, t, err)
		}
		return out, nil
	}
}

// serve serves a unary call within ctx's deadline. A blocking
// SendMessage runs its task on the calling goroutine until the task stops
// (a caller that leaves does not cancel it): it is served on a goroutine
// of its own, so that a call past its deadline is answered
// DEADLINE_EXCEEDED while the task goes on.
func (s *Server) serve(ctx context.Context, t *Target, call *server.Call) (any, error) {
	p, ok := call.Params.(*a2a.SendMessageRequest)
	if !ok || p.Configuration != nil && p.Configuration.ReturnImmediately {
		return t.Server.Serve(call.Request.Context(), call)
	}
	type result struct {
		res any
		err error
	}
	done := make(chan result, 1)
	go func() {
		res, err := t.Server.Serve(call.Request.Context(), call)
		done <- result{res, err}
	}()
	select {
	case r := <-done:
		return r.res, r.err
	case <-ctx.Done():
		return nil, errDeadline
	}
}

// errDeadline answers a blocking SendMessage that outlived its deadline.
var errDeadline = status.Error(codes.DeadlineExceeded, "the task did not stop within the call's deadline (or server.grpc.max_unary_duration); it goes on: follow it with SubscribeToTask or GetTask")

// streamHandler is the grpc-go handler of a server-streaming method.
func (s *Server) streamHandler(m *method) grpc.StreamHandler {
	return func(_ any, stream grpc.ServerStream) error {
		ctx := stream.Context()
		req := m.newReq()
		if err := stream.RecvMsg(req); err != nil {
			return Status(a2a.ErrInvalidParams.With("the request is not a valid protobuf message")).Err()
		}
		t, call, err := s.open(ctx, m, req)
		if err != nil {
			return s.answer(ctx, t, err)
		}
		err = t.Server.ServeStream(call.Request.Context(), call, func(ev *a2a.StreamResponse) error {
			out := m.newResp()
			if err := encodeMessage(ev, out); err != nil {
				return err
			}
			return stream.SendMsg(out)
		})
		if err != nil {
			if ctx.Err() != nil {
				return ctx.Err() // the caller went away: nobody reads the status
			}
			return s.answer(ctx, t, err)
		}
		return nil
	}
}

// open resolves the agent a request names, authenticates its caller,
// negotiates the version and decodes the request: the steps the HTTP
// bindings take before a call is served, in their order.
func (s *Server) open(ctx context.Context, m *method, req proto.Message) (*Target, *server.Call, error) {
	tenant := req.(tenanted).GetTenant()
	t, err := s.cfg.Resolve(ctx, tenant)
	if err != nil {
		return nil, nil, err
	}
	view, version, err := RequestView(ctx, m.name)
	if err != nil {
		return t, nil, err
	}
	if t.Authenticate != nil {
		actx, err := t.Authenticate(view)
		if err != nil {
			return t, nil, err
		}
		view = view.WithContext(actx)
	}
	if err := t.Server.CheckVersion(version); err != nil {
		return t, nil, err
	}
	params, err := decodeRequest(m.name, req)
	if err != nil {
		return t, nil, err
	}
	return t, server.NewCall(view, m.name, a2a.BindingGRPC, params), nil
}

// answer is err as the call's status, logged as the agent's server logs
// what the caller does not see.
func (s *Server) answer(ctx context.Context, t *Target, err error) error {
	if err == errDeadline {
		return err
	}
	var e *a2a.Error
	table := a2a.ErrorTableV101
	if t != nil && t.Server != nil {
		e, table = t.Server.LogError(err), t.Server.ErrorTable()
	} else if e = a2a.AsError(err); e == a2a.ErrInternal {
		s.log.Error("a2agrpc: call failed", "err", err)
	}
	return statusError(ctx, e, table)
}

// singleValued are the metadata keys a call may carry once: two values of
// a credential or of the version would give two readings of one call.
// Keys grpc-go reserves are not metadata the guards read.
func singleValued(key string) bool {
	switch key {
	case "user-agent", "te", "content-type", "grpc-accept-encoding", "accept-encoding":
		return false
	}
	return !strings.HasPrefix(key, "grpc-")
}

// RequestView is the HTTP request the guards read for a gRPC call of
// method: the call's metadata as headers (binary "-bin" keys and pseudo
// headers left out), its peer as the remote address, its :authority as the
// host, ctx as its context; and the a2a-version the call sent. A key sent
// more than once is refused: the call must have one reading.
func RequestView(ctx context.Context, method string) (*http.Request, string, error) {
	md, _ := metadata.FromIncomingContext(ctx)
	h := make(http.Header, len(md))
	host := ""
	for k, vs := range md {
		if k == ":authority" && len(vs) > 0 {
			host = vs[0]
			continue
		}
		if strings.HasPrefix(k, ":") || strings.HasSuffix(k, "-bin") {
			continue
		}
		if len(vs) > 1 && singleValued(k) {
			return nil, "", a2a.ErrInvalidRequest.Withf("metadata %q is sent %d times: send it once", clip(k, 64), len(vs))
		}
		ck := http.CanonicalHeaderKey(k)
		if _, dup := h[ck]; dup && singleValued(k) {
			return nil, "", a2a.ErrInvalidRequest.Withf("metadata %q is sent twice: send it once", clip(k, 64))
		}
		h[ck] = append(h[ck], vs...)
	}
	remote := ""
	if p, ok := peer.FromContext(ctx); ok && p.Addr != nil {
		remote = p.Addr.String()
	}
	r := &http.Request{
		Method: http.MethodPost, URL: &url.URL{Path: PathPrefix + method},
		Proto: "HTTP/2.0", ProtoMajor: 2, Header: h, Host: host, RemoteAddr: remote,
	}
	return r.WithContext(ctx), strings.TrimSpace(h.Get("A2a-Version")), nil
}

// WriteHTTPError answers a gRPC call over HTTP that is refused before it
// reaches the service (the front door's host and origin guard) with a
// trailers-only response carrying err's status.
func WriteHTTPError(w http.ResponseWriter, err error) {
	st := Status(a2a.AsError(err))
	p := st.Proto()
	h := w.Header()
	h.Set("Content-Type", "application/grpc")
	h.Set("Grpc-Status", fmt.Sprint(int(p.GetCode())))
	h.Set("Grpc-Message", encodeGrpcMessage(p.GetMessage()))
	if b, err := proto.Marshal(p); err == nil && len(p.GetDetails()) > 0 {
		h.Set("Grpc-Status-Details-Bin", base64Raw(b))
	}
	w.WriteHeader(http.StatusOK)
}
