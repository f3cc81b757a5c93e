// Package gateway builds the running bridge: it mounts the faces on one
// http.Server, applies the hop chain, and owns the server's lifecycle.
package gateway

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"sync"
	"time"

	"github.com/a2a-mcp-bridge/bridge/a2a"
)

// Version is the bridge's version, set at build time with -ldflags.
var Version = "0.1.0-dev"

// Listener serves a handler with the bridge's timeouts and drains it on
// shutdown: it stops accepting, lets requests finish within the grace
// period, then cancels what is still open (streams end cleanly).
type Listener struct {
	Addr    string
	Handler http.Handler
	Grace   time.Duration
	Log     *slog.Logger
	// ReadHeaderTimeout bounds reading request headers (default 10s).
	ReadHeaderTimeout time.Duration
	// IdleTimeout closes idle keep-alive connections (default 120s). There
	// is deliberately no whole-request read or write timeout: streams stay
	// open, and the faces bound bodies and responses themselves.
	IdleTimeout time.Duration
	// OnDrain runs when the drain starts, while requests and streams are
	// still open (Bridge.GoingAway tells the streams).
	OnDrain func()

	mu     sync.Mutex
	srv    *http.Server
	ln     net.Listener
	cancel context.CancelFunc
}

// Listen binds the address (use ":0" for a free port; Addr() tells it).
func (l *Listener) Listen() error {
	ln, err := net.Listen("tcp", l.Addr)
	if err != nil {
		return fmt.Errorf("gateway: listen on %s: %w", l.Addr, err)
	}
	base, cancel := context.WithCancel(context.Background())
	l.mu.Lock()
	l.ln, l.cancel = ln, cancel
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

// Serve serves until ctx ends, then drains.
func (l *Listener) Serve(ctx context.Context) error {
	if l.ln == nil {
		if err := l.Listen(); err != nil {
			return err
		}
	}
	if l.Handler == nil {
		return errors.New("gateway: listener has no handler")
	}
	l.srv.Handler = l.Handler
	errc := make(chan error, 1)
	go func() { errc <- l.srv.Serve(l.ln) }()
	select {
	case err := <-errc:
		return fmt.Errorf("gateway: serve: %w", err)
	case <-ctx.Done():
	}
	return l.drain()
}

func (l *Listener) drain() error {
	grace := l.Grace
	if grace <= 0 {
		grace = 10 * time.Second
	}
	l.logger().Info("shutting down: no new connections; draining", "grace", grace.String())
	if l.OnDrain != nil {
		l.OnDrain()
	}
	sctx, scancel := context.WithTimeout(context.Background(), grace)
	defer scancel()
	done := make(chan error, 1)
	go func() { done <- l.srv.Shutdown(sctx) }()
	select {
	case err := <-done:
		l.cancel()
		if err != nil && !errors.Is(err, context.DeadlineExceeded) {
			return fmt.Errorf("gateway: shutdown: %w", err)
		}
	case <-sctx.Done():
		// Streams still open: end them; their handlers return at once.
		l.cancel()
		<-done
	}
	// Shutdown ended the streams released from net/http but does not wait
	// for them to finish their last write and log line.
	wctx, wcancel := context.WithTimeout(context.Background(), releasedStreamsFinish)
	defer wcancel()
	if err := a2a.WaitReleasedStreams(wctx, l.srv); err != nil {
		l.logger().Warn("shutdown: some released event streams did not finish in time", "wait", releasedStreamsFinish.String())
	}
	return nil
}

// releasedStreamsFinish bounds the wait, after Shutdown, for released
// event streams to write their last chunk (they were already told to end).
const releasedStreamsFinish = 2 * time.Second
