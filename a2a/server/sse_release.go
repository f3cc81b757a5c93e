package server

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"runtime"
	"sync"
	"sync/atomic"
	"time"
	"weak"

	"golang.org/x/net/http/httpguts"

	"github.com/a2a-mcp-bridge/bridge/a2a"
	"github.com/a2a-mcp-bridge/bridge/a2a/internal/sserelease"
)

// An idle event stream costs more in net/http than in the stream itself:
// the connection's goroutine with the stack it grew serving the request,
// the connection's read and write buffers, the response's chunking buffer
// and the goroutine watching for the client to go away. None of it is
// needed to wait for the next event. So once a stream over HTTP/1.1 has
// sent no event for the release delay (250ms), the server takes its
// connection over (Hijack) and the handler returns: the stream goes on in
// the goroutine that produces its events, framing the chunks itself byte
// for byte as net/http would, with one small goroutine reading the
// connection to notice the client leaving. Nothing on the wire changes:
// when such a stream ends, its connection is handed back to the
// http.Server (see handBack) and serves the client's next request, as it
// would have had the stream stayed with net/http. A client may send that
// request the moment it has read the last chunk, and one whose method it
// may not retry (a POST) would fail if the connection closed under it.
//
// Streams stay with net/http when the binary is built with the
// bridge_nosserelease tag (sserelease.Enabled is false), when the
// connection cannot be taken over
// (HTTP/2), when it is TLS (what the stream's reader reads ahead of the
// next request could not be put back in front of a *tls.Conn, and net/http
// only sees a connection as TLS by that type) and when a middleware wraps
// the ResponseWriter without implementing [StreamReleaseObserver]: a
// wrapper that counts streams, logs their duration or writes to them on
// shutdown expects the handler to run for as long as the stream does,
// unless it is told otherwise. When every wrapper implements it, each is
// told at the release and handed a way to write to the stream and a
// function run when the stream really ends.
//
// http.Server.Shutdown neither waits for nor closes taken-over
// connections, so the server registers a shutdown hook that ends the
// released streams cleanly (a final chunk, then close) as Shutdown starts
// (unless KeepReleasedStreamsOnShutdown says the caller ends them with
// EndReleasedStreams, after a grace period); streams still with net/http
// end when their requests' contexts do.
// http.Server.Close does not run hooks and leaves released streams to end
// with their tasks or clients.

// StreamReleaseObserver is implemented by a middleware's ResponseWriter
// wrapper (a writer with an Unwrap() http.ResponseWriter method, as
// http.ResponseController expects) that lets the Server release an idle
// event stream from net/http.
//
// A stream is released only if every wrapper on the Unwrap chain, from the
// writer the Server's handler is given down to net/http's own writer,
// implements StreamReleaseObserver; a single other wrapper keeps the
// stream with net/http for its whole life, the handler running as long as
// the stream does. The Server takes the connection over from the writer
// at the end of the chain (net/http's) once the wrappers have been told:
// a wrapper's own Hijack method, if it has one, is not called.
//
// At the release, in the handler's goroutine and before the handler
// returns, the Server calls StreamReleased once on each wrapper in Unwrap
// order: first the writer the handler was given, then the one it unwraps
// to, and so on; the order in which their middlewares would see the
// handler return. It does so before it takes the connection over, holding
// the stream's lock: StreamReleased must not call write, and must return
// promptly.
//
// write writes b to the stream as it is (an SSE comment, say, such as
// ": going away\n\n"), as one chunk, serialized with the stream's events
// and keep-alives and bounded by the Server's WriteTimeout. It may be
// called from any goroutine, but not while holding a lock StreamReleased
// takes; it returns an error once the stream has ended or its connection
// has failed. Writing nothing is a no-op.
//
// end, if not nil, is called exactly once, when the released stream has
// really ended (its last chunk written, or the connection failed), from
// whichever goroutine ends it: possibly before the handler has returned.
// The connection serves no other request before the ends have returned. The
// ends of one stream are called one after the other in the order
// StreamReleased was called. A panic in end is logged and recovered.
//
// From StreamReleased on, the wrapper must not use the writer it wraps
// (the connection is being taken over), and should drop its reference to
// it: whatever write and end reach stays in memory as long as the stream.
// The handler returning no longer ends the response: end does. If taking
// the connection over then fails (it does not, short of a broken
// connection), the stream is ended at once, and end is called before the
// handler returns.
type StreamReleaseObserver interface {
	StreamReleased(write func(b []byte) error) (end func())
}

// The chain is walked by sserelease.ChainOf, which looks for its own
// Observer: the two interfaces must keep the same method.
var _ sserelease.Observer = StreamReleaseObserver(nil)

// errStreamEnded is what a StreamReleaseObserver's write returns once the
// stream is over.
var errStreamEnded = errors.New("server: write to a released stream: the stream has ended")

// streamReleaseAfter is how long a stream must have sent no event before
// its connection is released (nanoseconds; 0: never). Short streams (most
// SendStreamingMessage calls) end before it and keep their connection for
// the next request. Atomic: tests of other packages change it while
// servers of earlier tests may still be winding down.
var streamReleaseAfter atomic.Int64

func init() { streamReleaseAfter.Store(int64(250 * time.Millisecond)) }

func releaseAfter() time.Duration { return time.Duration(streamReleaseAfter.Load()) }

// SetStreamReleaseDelayForTests sets how long an event stream must idle
// before it is released from net/http (0 or less: never), for every Server
// of the process, and returns the previous delay. It exists for tests of
// packages that serve streams through their own middleware, to see a
// release without waiting 250ms; servers in production keep the default.
func SetStreamReleaseDelayForTests(d time.Duration) (previous time.Duration) {
	return time.Duration(streamReleaseAfter.Swap(int64(d)))
}

// lingerAfterStream bounds how long a released stream's connection waits,
// after its last chunk and FIN, for the client to close (as net/http does
// before closing a connection, so a reset cannot destroy the last chunk).
const lingerAfterStream = 500 * time.Millisecond

// streamFunc runs a streaming call; send writes one event.
type streamFunc func(ctx context.Context, send func(*a2a.StreamResponse) error) error

// serveStream runs a streaming call as an event stream and ends its
// response. event wraps each event for the binding. An error the call
// returns while the client is still there is answered with writeError (a
// normal response) before the first event, with the event errorEvent
// returns after. The call gets a context with the request's values that
// ends when the client goes away, the server shuts down or the handler
// returns unreleased.
//
// bodyRead is how many bytes of r's body the server read to its end (-1:
// none; see sserelease.RequestConsumed).
//
// The functions must not hold the ResponseWriter or the request: what a
// released stream keeps alive is what it costs.
func (s *Server) serveStream(w http.ResponseWriter, r *http.Request, bodyRead int64, call streamFunc, event func(*a2a.StreamResponse) any,
	writeError func(http.ResponseWriter, error), errorEvent func(error) any) {
	sw := newSSEWriter(w, s.cfg.KeepAlive, s.cfg.WriteTimeout)
	run := func(ctx context.Context) error {
		return call(ctx, func(ev *a2a.StreamResponse) error { return sw.send(event(ev)) })
	}
	set, chain := releaseSetFor(w, r)
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
	st := &streamRun{sw: sw, r: r, cancel: cancel, set: set, writeError: writeError, errorEvent: errorEvent, log: s.cfg.Logger,
		reusable: sserelease.RequestConsumed(r, bodyRead)}
	if !st.reusable && !r.Close {
		// Bytes of this request may be left unread on the connection:
		// whoever ends the stream closes it, and says so.
		w.Header().Set("Connection", "close")
	}
	st.handoff = sserelease.NewHandoff(st.end)
	st.detach = context.AfterFunc(r.Context(), cancel)
	ctx = sserelease.With(ctx, st.handoff)
	done := make(chan struct{})
	path := r.URL.Path
	go func() {
		err := s.runRecovered(ctx, path, run)
		if next := st.handoff.Next(); err == sserelease.ErrContinues && next != nil {
			go next() // follow goes on in a fresh goroutine, and ends the stream
			return
		}
		if st.finish(ctx, err) {
			st.end(ctx, nil)
			return
		}
		close(done)
	}()
	t := time.NewTimer(releaseAfter())
	defer t.Stop()
	for {
		select {
		case <-done:
		case <-t.C:
			wait, ok := st.tryRelease(chain)
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
		st.runEnds() // only if the wrappers were told and the takeover failed
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
			err = a2a.ErrInternal
		}
	}()
	return run(ctx)
}

// streamRun is one stream that may be released. r, detach and ends are
// guarded by sw.mu.
type streamRun struct {
	sw     *sseWriter
	cancel context.CancelFunc
	set    *streamSet
	// handoff is what the stream's producer sees: the release, and where
	// it goes on (Continue) once released.
	handoff    *sserelease.Handoff
	writeError func(http.ResponseWriter, error)
	errorEvent func(error) any
	log        *slog.Logger
	r          *http.Request // nil once released
	// detach stops ending the stream with the request's context; set
	// while attached.
	detach func() bool
	// reusable: once the stream has ended, its connection may serve the
	// client's next request (see sserelease.RequestConsumed).
	reusable bool
	// ends are the wrappers' StreamReleaseObserver ends, run once when
	// the stream ends.
	ends []func()
}

// end answers err, if any, and ends a released stream.
func (st *streamRun) end(ctx context.Context, err error) {
	if err != nil {
		st.finish(ctx, err)
	}
	st.sw.close()
	st.cancel()
	// Before leaving the set: once a server counts no released stream,
	// their wrappers have seen them end.
	st.runEnds()
	// After the ends: the connection's next request comes after them (in
	// the access log, say), as it would after a handler's return.
	st.sw.wakeReader()
	st.set.remove(st)
}

// runEnds runs the wrappers' ends, once.
func (st *streamRun) runEnds() {
	st.sw.mu.Lock()
	ends := st.ends
	st.ends = nil
	st.sw.mu.Unlock()
	for _, end := range ends {
		st.runEnd(end)
	}
}

// runEnd runs one wrapper's end, which takes the place of its code after
// the handler returns, so that its panic is logged and survived as
// net/http survives a handler's.
func (st *streamRun) runEnd(end func()) {
	defer func() {
		if v := recover(); v != nil {
			st.log.Error("a2a: released stream's end panicked", "panic", fmt.Sprint(v))
		}
	}()
	end()
}

// writeRaw is the write of a StreamReleaseObserver: b as one chunk of the
// released stream.
func (st *streamRun) writeRaw(b []byte) error {
	sw := st.sw
	sw.mu.Lock()
	defer sw.mu.Unlock()
	if sw.broken || sw.conn == nil {
		return errStreamEnded
	}
	if len(b) == 0 {
		return nil // an empty chunk would end the body
	}
	return sw.writeChunkLocked(b)
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
// the release delay, after telling the writer's wrappers. It returns
// released, or how long to wait before trying again (0: never).
func (st *streamRun) tryRelease(chain sserelease.Chain) (wait time.Duration, released bool) {
	after := releaseAfter()
	sw := st.sw
	sw.mu.Lock()
	defer sw.mu.Unlock()
	switch {
	case sw.ended || sw.broken:
		return 0, false
	case after <= 0:
		return 0, false // releases turned off since the stream began
	case !sw.begun:
		return after, false
	}
	if idle := time.Since(sw.lastEvent); idle < after {
		return after - idle, false
	}
	h := sw.w.Header()
	if h.Get("Transfer-Encoding") != "" || h.Get("Content-Encoding") != "" {
		return 0, false // not framed as chunks of the events: leave it
	}
	// The connection serves another request after the stream unless the
	// request or the response said it would close (the writer's headers
	// are read now: once the wrappers are told, they may be gone).
	reuse := st.reusable && !st.r.Close && !httpguts.HeaderValuesContainsToken(h["Connection"], "close")
	if !st.set.add(st) {
		return 0, false // shutting down
	}
	if !st.detach() {
		st.set.remove(st)
		return 0, false // the request is ending anyway
	}
	// The wrappers learn of the release before the connection is taken
	// over, so that none of them writes to it through net/http after.
	if len(chain.Observers) > 0 {
		write := st.writeRaw
		st.ends = make([]func(), 0, len(chain.Observers))
		for _, o := range chain.Observers {
			if end := o.StreamReleased(write); end != nil {
				st.ends = append(st.ends, end)
			}
		}
	}
	conn, brw, err := chain.Inner.Hijack()
	if err != nil {
		st.set.remove(st)
		if len(chain.Observers) > 0 {
			// The wrappers have let go of the response: it cannot go on
			// through them. End the stream; the handler runs their ends.
			sw.broken = true
			st.cancel()
			return 0, false
		}
		st.detach = context.AfterFunc(st.r.Context(), st.cancel)
		return 0, false
	}
	// The returned buffers are dropped, after copying what net/http read
	// past the request (the start of a pipelined one): writes go straight
	// to the connection. Nothing of net/http's may stay reachable.
	var pending []byte
	if n := brw.Reader.Buffered(); n > 0 {
		b, _ := brw.Reader.Peek(n)
		pending = append(pending, b...)
	}
	sw.conn = conn
	sw.reuse = reuse
	sw.w, sw.rc = nil, nil
	st.r, st.detach = nil, nil
	st.handoff.MarkReleased()
	go watchReleased(conn, pending, sw, st.set, st.cancel)
	return 0, true
}

// watchReleased reads a released stream's connection until the stream
// ends (sserelease.Watch): its last chunk written (sw.lastSent, then a
// read deadline now: wakeReader), the connection goes back to the server
// with what the client sent meanwhile (handBack).
func watchReleased(c net.Conn, pending []byte, sw *sseWriter, set *streamSet, cancel context.CancelFunc) {
	woken := func() bool {
		sw.mu.Lock()
		defer sw.mu.Unlock()
		return sw.lastSent
	}
	sserelease.Watch(c, pending, woken, cancel, set.handBack)
}

// streamSet is the released streams of one http.Server, ended when it
// shuts down.
type streamSet struct {
	srv     weak.Pointer[http.Server]
	mu      sync.Mutex
	closing bool
	// keep: Shutdown leaves the streams open (KeepReleasedStreamsOnShutdown).
	keep    bool
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

// shutdown is srv's shutdown hook: it ends the released streams, unless
// they are kept (KeepReleasedStreamsOnShutdown).
func (set *streamSet) shutdown() {
	set.mu.Lock()
	keep := set.keep
	set.mu.Unlock()
	if !keep {
		set.end()
	}
}

// end ends every released stream (their producers see the context end,
// and end the stream cleanly) and refuses further releases.
func (set *streamSet) end() {
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

// handBack gives the connection of a released stream that has ended back
// to the server, to serve the client's next request (sserelease.HandBack),
// or closes it when the server is gone.
func (set *streamSet) handBack(c net.Conn, pending []byte) {
	srv := set.srv.Value()
	if srv == nil {
		_ = c.Close()
		return
	}
	sserelease.HandBack(srv, c, pending)
}

// releaseSets maps each http.Server that has released streams to them,
// without keeping the server alive.
var releaseSets struct {
	mu sync.Mutex
	m  map[weak.Pointer[http.Server]]*streamSet
}

// releasedStreams counts the streams srv has released that are open.
func releasedStreams(srv *http.Server) int {
	releaseSets.mu.Lock()
	s := releaseSets.m[weak.Make(srv)]
	releaseSets.mu.Unlock()
	if s == nil {
		return 0
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	return len(s.streams)
}

// WaitReleasedStreams waits until every event stream srv released from
// net/http has ended (its last chunk written and its wrappers' end
// functions run), or ctx ends. srv.Shutdown ends released streams but does
// not wait for them: call this after it, so that a process does not exit
// under a stream that is still finishing.
func WaitReleasedStreams(ctx context.Context, srv *http.Server) error {
	t := time.NewTicker(10 * time.Millisecond)
	defer t.Stop()
	for releasedStreams(srv) > 0 {
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-t.C:
		}
	}
	return nil
}

// KeepReleasedStreamsOnShutdown makes srv.Shutdown leave open the event
// streams srv has released from net/http (by default its start ends them):
// they go on, still counted by WaitReleasedStreams, until their tasks end,
// their clients leave, or EndReleasedStreams ends them, which the caller
// must then call. A server that drains for a grace period uses it, so that
// a stream whose task finishes within the grace gets its last events.
func KeepReleasedStreamsOnShutdown(srv *http.Server) {
	set := streamSetOf(srv)
	set.mu.Lock()
	set.keep = true
	set.mu.Unlock()
}

// EndReleasedStreams ends every event stream srv has released from
// net/http and refuses further releases: each stream's producer sees its
// context end and ends the stream cleanly, with its last chunk. It does
// not wait for them (WaitReleasedStreams does).
func EndReleasedStreams(srv *http.Server) {
	releaseSets.mu.Lock()
	set := releaseSets.m[weak.Make(srv)]
	releaseSets.mu.Unlock()
	if set != nil {
		set.end()
	}
}

// releaseSetFor returns the set a stream of r would join if released, and
// w's chain of writers, or a nil set when it may not be released.
func releaseSetFor(w http.ResponseWriter, r *http.Request) (*streamSet, sserelease.Chain) {
	if !sserelease.Enabled || releaseAfter() <= 0 || r.ProtoMajor != 1 || r.ProtoMinor < 1 || r.Method == http.MethodHead || r.TLS != nil {
		return nil, sserelease.Chain{}
	}
	chain, ok := sserelease.ChainOf(w)
	if !ok {
		return nil, sserelease.Chain{}
	}
	srv, _ := r.Context().Value(http.ServerContextKey).(*http.Server)
	if srv == nil {
		return nil, sserelease.Chain{}
	}
	return streamSetOf(srv), chain
}

// streamSetOf returns srv's set of released streams, creating it (and
// registering its shutdown hook) on first use.
func streamSetOf(srv *http.Server) *streamSet {
	wp := weak.Make(srv)
	releaseSets.mu.Lock()
	defer releaseSets.mu.Unlock()
	if set := releaseSets.m[wp]; set != nil {
		return set
	}
	if releaseSets.m == nil {
		releaseSets.m = map[weak.Pointer[http.Server]]*streamSet{}
	}
	set := &streamSet{srv: wp, streams: map[*streamRun]struct{}{}}
	releaseSets.m[wp] = set
	srv.RegisterOnShutdown(set.shutdown)
	runtime.AddCleanup(srv, func(wp weak.Pointer[http.Server]) {
		releaseSets.mu.Lock()
		delete(releaseSets.m, wp)
		releaseSets.mu.Unlock()
	}, wp)
	return set
}
