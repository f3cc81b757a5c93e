package a2a

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"runtime"
	"sync"
	"time"
	"weak"
)

// An idle event stream costs more in net/http than in the stream itself:
// the connection's goroutine with the stack it grew serving the request,
// the connection's read and write buffers, the response's chunking buffer
// and the goroutine watching for the client to go away. None of it is
// needed to wait for the next event. So once a stream over HTTP/1.1 has
// sent no event for streamReleaseAfter, the server takes its connection
// over (Hijack) and the handler returns: the stream goes on in the
// goroutine that produces its events, framing the chunks itself byte for
// byte as net/http would, with one small goroutine reading the connection
// to notice the client leaving. Nothing on the wire changes, except that
// the connection closes when such a stream ends instead of waiting for
// another request.
//
// Streams stay with net/http when the connection cannot be taken over
// (HTTP/2) and when a middleware wraps the ResponseWriter: a wrapper that
// counts streams, logs their duration or writes to them on shutdown expects
// the handler to run for as long as the stream does.
//
// http.Server.Shutdown neither waits for nor closes taken-over
// connections, so the server registers a shutdown hook that ends the
// released streams cleanly (a final chunk, then close); http.Server.Close
// does not run hooks and leaves them to end with their tasks or clients.

// streamReleaseAfter is how long a stream must have sent no event before
// its connection is released. Short streams (most SendStreamingMessage
// calls) end before it and keep their connection for the next request.
var streamReleaseAfter = 250 * time.Millisecond

// lingerAfterStream bounds how long a released stream's connection waits,
// after its last chunk and FIN, for the client to close (as net/http does
// before closing a connection, so a reset cannot destroy the last chunk).
const lingerAfterStream = 500 * time.Millisecond

// streamFunc runs a streaming call; send writes one event.
type streamFunc func(ctx context.Context, send func(*StreamResponse) error) error

// serveStream runs a streaming call as an event stream and ends its
// response. event wraps each event for the binding. An error the call
// returns while the client is still there is answered with writeError (a
// normal response) before the first event, with the event errorEvent
// returns after. The call gets a context with the request's values that
// ends when the client goes away, the server shuts down or the handler
// returns unreleased.
//
// The functions must not hold the ResponseWriter or the request: what a
// released stream keeps alive is what it costs.
func (s *Server) serveStream(w http.ResponseWriter, r *http.Request, call streamFunc, event func(*StreamResponse) any,
	writeError func(http.ResponseWriter, error), errorEvent func(error) any) {
	sw := newSSEWriter(w, s.cfg.KeepAlive, s.cfg.WriteTimeout)
	run := func(ctx context.Context) error {
		return call(ctx, func(ev *StreamResponse) error { return sw.send(event(ev)) })
	}
	set := releaseSetFor(w, r)
	if set == nil {
		// Nothing to release: run in the handler's goroutine, as usual.
		defer sw.close()
		if err := run(r.Context()); err != nil && r.Context().Err() == nil {
			if !sw.started() {
				writeError(w, err)
				return
			}
			_ = sw.send(errorEvent(err))
		}
		return
	}
	// Not deferred: a released stream's context outlives the handler.
	ctx, cancel := context.WithCancel(context.WithoutCancel(r.Context()))
	st := &streamRun{sw: sw, r: r, cancel: cancel, set: set, releasedCh: make(chan struct{}), writeError: writeError, errorEvent: errorEvent}
	st.detach = context.AfterFunc(r.Context(), cancel)
	ctx = context.WithValue(ctx, streamKey{}, st)
	done := make(chan struct{})
	path := r.URL.Path
	go func() {
		err := s.runRecovered(ctx, path, run)
		if err == errStreamContinues && st.next != nil {
			go st.next() // follow goes on in a fresh goroutine, and ends the stream
			return
		}
		if st.finish(ctx, err) {
			st.end(ctx, nil)
			return
		}
		close(done)
	}()
	t := time.NewTimer(streamReleaseAfter)
	defer t.Stop()
	for {
		select {
		case <-done:
		case <-t.C:
			wait, ok := st.tryRelease()
			if ok {
				return
			}
			if wait > 0 {
				t.Reset(wait)
				continue
			}
			<-done
		}
		st.detachLocked()
		sw.close()
		cancel()
		return
	}
}

// runRecovered runs a stream's producer in its own goroutine, where a
// panic is not the handler's to recover: it is logged as ServeHTTP logs
// one, and ends the stream with an internal error.
func (s *Server) runRecovered(ctx context.Context, path string, run func(ctx context.Context) error) (err error) {
	defer func() {
		if v := recover(); v != nil {
			if v != http.ErrAbortHandler {
				s.cfg.Logger.Error("a2a: handler panicked", "path", path, "panic", fmt.Sprint(v))
			}
			err = ErrInternal
		}
	}()
	return run(ctx)
}

// streamRun is one stream that may be released. r and detach are guarded
// by sw.mu.
type streamRun struct {
	sw         *sseWriter
	cancel     context.CancelFunc
	set        *streamSet
	releasedCh chan struct{} // closed when released
	writeError func(http.ResponseWriter, error)
	errorEvent func(error) any
	// next goes on following the released stream; set by follow (in the
	// stream's goroutine) when it returns errStreamContinues.
	next func()
	r    *http.Request // nil once released
	// detach stops ending the stream with the request's context; set
	// while attached.
	detach func() bool
}

// streamKey is the context key of the streamRun a call streams to.
type streamKey struct{}

// streamOf returns the stream ctx's call streams to, if it may be released.
func streamOf(ctx context.Context) *streamRun {
	st, _ := ctx.Value(streamKey{}).(*streamRun)
	return st
}

// errStreamContinues is what a released stream's call returns when its
// follower goes on in another goroutine, which ends the stream.
var errStreamContinues = errors.New("a2a: the stream goes on in another goroutine")

// isReleased reports whether the stream has been released from net/http.
func (st *streamRun) isReleased() bool {
	st.sw.mu.Lock()
	defer st.sw.mu.Unlock()
	return st.sw.conn != nil
}

// end answers err, if any, and ends a released stream.
func (st *streamRun) end(ctx context.Context, err error) {
	if err != nil {
		st.finish(ctx, err)
	}
	st.sw.close()
	st.cancel()
	st.set.remove(st)
}

// detachLocked stops the request's context from ending the stream (when
// the handler returns unreleased, it is over anyway).
func (st *streamRun) detachLocked() {
	st.sw.mu.Lock()
	defer st.sw.mu.Unlock()
	if st.detach != nil {
		st.detach()
		st.detach = nil
	}
}

// finish records that the producer returned and answers its error unless
// the client is gone. It reports whether the stream had been released
// (then the producer's goroutine ends it; otherwise the handler does).
func (st *streamRun) finish(ctx context.Context, err error) (released bool) {
	sw := st.sw
	sw.mu.Lock()
	sw.ended = true
	released = sw.conn != nil
	gone := ctx.Err() != nil || (st.r != nil && st.r.Context().Err() != nil)
	begun, w := sw.begun, sw.w
	sw.mu.Unlock()
	if err == nil || gone {
		return released
	}
	if !begun {
		st.writeError(w, err) // never released before the first event
		return released
	}
	_ = sw.send(st.errorEvent(err))
	return released
}

// tryRelease takes the connection over if the stream has been idle for
// streamReleaseAfter. It returns released, or how long to wait before
// trying again (0: never).
func (st *streamRun) tryRelease() (wait time.Duration, released bool) {
	sw := st.sw
	sw.mu.Lock()
	defer sw.mu.Unlock()
	switch {
	case sw.ended || sw.broken:
		return 0, false
	case !sw.begun:
		return streamReleaseAfter, false
	}
	if idle := time.Since(sw.lastEvent); idle < streamReleaseAfter {
		return streamReleaseAfter - idle, false
	}
	h := sw.w.Header()
	if h.Get("Transfer-Encoding") != "" || h.Get("Content-Encoding") != "" {
		return 0, false // not framed as chunks of the events: leave it
	}
	if !st.set.add(st) {
		return 0, false // shutting down
	}
	if !st.detach() {
		st.set.remove(st)
		return 0, false // the request is ending anyway
	}
	conn, _, err := sw.rc.Hijack()
	if err != nil {
		st.set.remove(st)
		st.detach = context.AfterFunc(st.r.Context(), st.cancel)
		return 0, false
	}
	// The returned buffers are dropped: nothing more is read as a request
	// (bytes the client pipelined are discarded) and writes go straight
	// to the connection. Nothing of net/http's may stay reachable.
	sw.conn = conn
	sw.w, sw.rc = nil, nil
	st.r, st.detach = nil, nil
	close(st.releasedCh)
	go readUntilClosed(conn, st.cancel)
	return 0, true
}

// readUntilClosed reads a released connection until it fails (the client
// closed it, or the stream closed it), then ends the stream's context and
// closes the connection. Whatever the client sends is discarded.
func readUntilClosed(c net.Conn, cancel context.CancelFunc) {
	var b [64]byte
	for {
		if _, err := c.Read(b[:]); err != nil {
			cancel()
			_ = c.Close()
			return
		}
	}
}

// streamSet is the released streams of one http.Server, ended when it
// shuts down.
type streamSet struct {
	mu      sync.Mutex
	closing bool
	streams map[*streamRun]struct{}
}

func (set *streamSet) add(st *streamRun) bool {
	set.mu.Lock()
	defer set.mu.Unlock()
	if set.closing {
		return false
	}
	set.streams[st] = struct{}{}
	return true
}

func (set *streamSet) remove(st *streamRun) {
	set.mu.Lock()
	delete(set.streams, st)
	set.mu.Unlock()
}

// shutdown ends every released stream (their producers see the context
// end, and end the stream cleanly) and refuses further releases.
func (set *streamSet) shutdown() {
	set.mu.Lock()
	set.closing = true
	cancels := make([]context.CancelFunc, 0, len(set.streams))
	for st := range set.streams {
		cancels = append(cancels, st.cancel)
	}
	set.mu.Unlock()
	for _, c := range cancels {
		c()
	}
}

// releaseSets maps each http.Server that has released streams to them,
// without keeping the server alive.
var releaseSets struct {
	mu sync.Mutex
	m  map[weak.Pointer[http.Server]]*streamSet
}

// releaseSetFor returns the set a stream of r would join if released, or
// nil when it may not be released.
func releaseSetFor(w http.ResponseWriter, r *http.Request) *streamSet {
	if streamReleaseAfter <= 0 || r.ProtoMajor != 1 || r.ProtoMinor < 1 || r.Method == http.MethodHead {
		return nil
	}
	if _, wrapped := w.(interface{ Unwrap() http.ResponseWriter }); wrapped {
		return nil
	}
	if _, ok := w.(http.Hijacker); !ok {
		return nil
	}
	srv, _ := r.Context().Value(http.ServerContextKey).(*http.Server)
	if srv == nil {
		return nil
	}
	wp := weak.Make(srv)
	releaseSets.mu.Lock()
	defer releaseSets.mu.Unlock()
	if set := releaseSets.m[wp]; set != nil {
		return set
	}
	if releaseSets.m == nil {
		releaseSets.m = map[weak.Pointer[http.Server]]*streamSet{}
	}
	set := &streamSet{streams: map[*streamRun]struct{}{}}
	releaseSets.m[wp] = set
	srv.RegisterOnShutdown(set.shutdown)
	runtime.AddCleanup(srv, func(wp weak.Pointer[http.Server]) {
		releaseSets.mu.Lock()
		delete(releaseSets.m, wp)
		releaseSets.mu.Unlock()
	}, wp)
	return set
}
