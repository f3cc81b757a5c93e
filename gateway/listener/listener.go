// Package listener owns the bridge's listening sockets and their lifecycle:
// the http.Server's timeouts, the connection caps (total and per client),
// the per-request body deadline, the gRPC binding's own listener, and the
// drain on shutdown in its three phases.
//
// It serves an http.Handler it is given and knows nothing of the faces,
// the guards or the configuration: it must not import gateway, config,
// mcp/..., or any guard (auth, policy, ratelimit, hostguard); what it needs
// of the rest (OnDrain, Settle, Stop) comes in as functions.
package listener

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"sync"
	"time"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/a2a-mcp-bridge/bridge/a2a/a2agrpc"
	"github.com/a2a-mcp-bridge/bridge/a2a/server"
)

// Listener serves a handler with the bridge's timeouts and limits, and
// drains it on shutdown within its grace period:
//
//  1. it stops accepting connections, closes idle ones, and runs OnDrain
//     (the bridge turns /readyz to 503 and tells every open event stream
//     that the server is going away);
//  2. requests, event streams (released ones too) and the work Settle
//     waits for (tasks running in the background) may finish until the
//     grace expires; the drain ends as soon as they all have;
//  3. when the grace expires with some still running, Stop ends that work
//     (the bridge fails its running tasks, "the bridge shut down", so that
//     their streams get that final event, and cancels their upstream
//     calls), the streams get a moment to write it, then everything still
//     open is ended and closed. Serve returns within the grace plus
//     DrainOverrun.
type Listener struct {
	Addr    string
	Handler http.Handler
	Grace   time.Duration
	Log     *slog.Logger
	// ReadHeaderTimeout bounds reading request headers (default 10s).
	ReadHeaderTimeout time.Duration
	// ReadTimeout bounds reading each request's body, from the end of its
	// headers (default 60s; see bodyDeadline). There is deliberately no
	// whole-request read or write timeout: streams stay open, and the
	// faces bound responses themselves.
	ReadTimeout time.Duration
	// IdleTimeout closes idle keep-alive connections (default 120s).
	IdleTimeout time.Duration
	// MaxConns caps the connections open at once (0: no cap);
	// MaxConnsPerClient caps those of one client address (0: no cap).
	// The gRPC listener's connections count with the main one's.
	MaxConns, MaxConnsPerClient int
	// Registerer receives the connection series (nil: none).
	Registerer prometheus.Registerer
	// OnDrain runs when the drain starts, while requests and streams are
	// still open (Bridge.GoingAway tells the streams).
	OnDrain func()
	// Settle, if set, waits until the work behind the handler that
	// outlives requests (tasks running in the background) is done, or ctx
	// ends (Bridge.Settle).
	Settle func(ctx context.Context) error
	// Stop, if set, ends that work within ctx when the grace has expired
	// (Bridge.Stop), before the streams still open are ended.
	Stop func(ctx context.Context)
	// UnencryptedHTTP2 also accepts HTTP/2 without TLS (h2c, prior
	// knowledge), as gRPC clients speak it on the main listener.
	UnencryptedHTTP2 bool
	// GRPCAddr, if set, is the address of the gRPC binding's own listener
	// (bound by Listen); GRPC serves it (Bridge.GRPC). It is drained with
	// the main listener: it stops accepting when the drain starts, its
	// calls may finish within the grace, and what is left is ended with
	// the rest.
	GRPCAddr string
	GRPC     *a2agrpc.Server

	mu     sync.Mutex
	srv    *http.Server
	ln     net.Listener
	grpcLn net.Listener
	limits *connLimiter
	cancel context.CancelFunc
}

// DrainOverrun bounds how long a drain lasts past its grace: ending the
// work still running, the last events of streams, and closing.
const DrainOverrun = 1200 * time.Millisecond

// Phases of the drain past the grace (see Listener).
const (
	stopBudget   = 500 * time.Millisecond // Stop: tasks failed, upstream calls cancelled
	finalBudget  = 400 * time.Millisecond // streams write the final events
	closeBudget  = DrainOverrun - stopBudget - finalBudget
	defaultGrace = 10 * time.Second
)

// Listen binds the address (use ":0" for a free port; Addr() tells it).
func (l *Listener) Listen() error {
	ln, err := net.Listen("tcp", l.Addr)
	if err != nil {
		return fmt.Errorf("listener: listen on %s: %w", l.Addr, err)
	}
	limits, err := newConnLimiter(ln, l.MaxConns, l.MaxConnsPerClient, l.logger(), l.Registerer)
	if err != nil {
		_ = ln.Close()
		return fmt.Errorf("listener: listener metrics: %w", err)
	}
	var gln net.Listener
	if l.GRPCAddr != "" {
		if gln, err = net.Listen("tcp", l.GRPCAddr); err != nil {
			_ = ln.Close()
			return fmt.Errorf("listener: listen on %s (server.grpc.listen): %w", l.GRPCAddr, err)
		}
	}
	base, cancel := context.WithCancel(context.Background())
	l.mu.Lock()
	if gln != nil {
		gln = limits.also(gln)
	}
	l.ln, l.limits, l.cancel, l.grpcLn = limits, limits, cancel, gln
	rht, idle := l.ReadHeaderTimeout, l.IdleTimeout
	if rht <= 0 {
		rht = 10 * time.Second
	}
	if idle <= 0 {
		idle = 120 * time.Second
	}
	l.srv = &http.Server{
		ReadHeaderTimeout: rht,
		IdleTimeout:       idle,
		MaxHeaderBytes:    64 << 10,
		BaseContext:       func(net.Listener) context.Context { return base },
		ErrorLog:          slog.NewLogLogger(l.logger().Handler(), slog.LevelWarn),
	}
	if l.UnencryptedHTTP2 {
		p := new(http.Protocols)
		p.SetHTTP1(true)
		p.SetUnencryptedHTTP2(true)
		l.srv.Protocols = p
	}
	// The drain ends released streams itself, once the grace has let their
	// tasks finish.
	server.KeepReleasedStreamsOnShutdown(l.srv)
	l.mu.Unlock()
	return nil
}

func (l *Listener) logger() *slog.Logger {
	if l.Log != nil {
		return l.Log
	}
	return slog.Default()
}

// BoundAddr is the address the listener is bound to.
func (l *Listener) BoundAddr() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.ln == nil {
		return l.Addr
	}
	return l.ln.Addr().String()
}

// OpenConns is the number of connections open now (released streams
// included).
func (l *Listener) OpenConns() int {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.limits == nil {
		return 0
	}
	return l.limits.Open()
}

// Serve serves until ctx ends, then drains.
func (l *Listener) Serve(ctx context.Context) error {
	if l.ln == nil {
		if err := l.Listen(); err != nil {
			return err
		}
	}
	if l.Handler == nil {
		return errors.New("listener: listener has no handler")
	}
	rt := l.ReadTimeout
	if rt <= 0 {
		rt = 60 * time.Second
	}
	l.srv.Handler = bodyDeadline(rt, l.Handler)
	errc := make(chan error, 2)
	go func() { errc <- l.srv.Serve(l.ln) }()
	if l.grpcLn != nil {
		if l.GRPC == nil {
			_ = l.grpcLn.Close()
			return errors.New("listener: the gRPC listener has no server")
		}
		go func() {
			if err := l.GRPC.Serve(l.grpcLn); err != nil {
				errc <- err
			}
		}()
	}
	select {
	case err := <-errc:
		return fmt.Errorf("listener: serve: %w", err)
	case <-ctx.Done():
	}
	return l.drain()
}

func (l *Listener) drain() error {
	grace := l.Grace
	if grace <= 0 {
		grace = defaultGrace
	}
	start := time.Now()
	graceEnd := start.Add(grace)
	log := l.logger()
	log.Info("shutting down: no new connections; draining", "grace", grace.String())
	if l.OnDrain != nil {
		l.OnDrain()
	}
	// The gRPC listener stops accepting; its calls may run on.
	grpcDone := make(chan struct{})
	if l.grpcLn != nil {
		go func() { l.GRPC.GracefulStop(); close(grpcDone) }()
	} else {
		close(grpcDone)
	}
	// Shutdown stops accepting, closes idle connections and returns once
	// every connection still with net/http is idle; released streams are
	// left to the steps below.
	shutdownDone := make(chan struct{})
	go func() {
		_ = l.srv.Shutdown(context.Background())
		close(shutdownDone)
	}()
	gctx, gcancel := context.WithDeadline(context.Background(), graceEnd)
	defer gcancel()
	drained := waitAll(gctx, shutdownDone, l.srv, l.Settle)
	if drained {
		select {
		case <-grpcDone:
		case <-gctx.Done():
			drained = false
		}
	}
	if drained {
		log.Info("drained: every request, stream and task finished within the grace", "took", time.Since(start).Round(time.Millisecond).String())
	} else {
		log.Warn("shutdown grace expired: ending what still runs", "grace", grace.String(), "open_connections", l.OpenConns())
		if l.Stop != nil {
			sctx, scancel := context.WithTimeout(context.Background(), stopBudget)
			l.Stop(sctx)
			scancel()
		}
		// Streams of the tasks just failed write that final event and end
		// by themselves.
		fctx, fcancel := context.WithTimeout(context.Background(), finalBudget)
		waitAll(fctx, shutdownDone, l.srv, nil)
		fcancel()
	}
	// End what is still open: handlers see their context end, released
	// streams are ended with their last chunk.
	l.cancel()
	if l.grpcLn != nil {
		l.GRPC.Stop() // the calls still open end
	}
	server.EndReleasedStreams(l.srv)
	cctx, ccancel := context.WithTimeout(context.Background(), closeBudget)
	defer ccancel()
	if err := server.WaitReleasedStreams(cctx, l.srv); err != nil {
		log.Warn("shutdown: some released event streams did not finish in time")
	}
	select {
	case <-shutdownDone:
	case <-cctx.Done():
		_ = l.srv.Close() // connections whose handlers ignore their context
	}
	return nil
}

// waitAll waits, until ctx ends, for net/http's Shutdown to have returned,
// for srv's released streams to have ended and for settle; it reports
// whether they all did.
func waitAll(ctx context.Context, shutdownDone <-chan struct{}, srv *http.Server, settle func(context.Context) error) bool {
	select {
	case <-shutdownDone:
	case <-ctx.Done():
		return false
	}
	if server.WaitReleasedStreams(ctx, srv) != nil {
		return false
	}
	if settle != nil && settle(ctx) != nil {
		return false
	}
	return ctx.Err() == nil
}
