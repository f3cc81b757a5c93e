package h1pool

import (
	"bufio"
	"context"
	"crypto/tls"
	"errors"
	"fmt"
	"io"
	"math"
	"net"
	"net/http"
	"net/url"
	"os"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"time"

	"golang.org/x/net/http/httpguts"
)

// Fixed limits of the transport.
const (
	// max1xx bounds the informational responses skipped before the final
	// one, so a server cannot keep a request busy with endless 1xx.
	max1xx = 5
	// bufSize is the size of each connection's read and write buffers.
	bufSize = 4 << 10
)

var (
	// errUpgrade refuses protocol switches: the caller would get a
	// connection the pool cannot manage.
	errUpgrade = errors.New("netguard: protocol upgrades (101 Switching Protocols) are not supported by the HTTP/1.1 direct transport")
	// errContinue refuses Expect: 100-continue, whose wait for the interim
	// response this transport does not implement.
	errContinue = errors.New("netguard: Expect: 100-continue is not supported by the HTTP/1.1 direct transport")
	// errHeaderLimit is what a connection's Read returns once a response's
	// headers passed the limit; RoundTrip reports Transport.errHeaderTooLarge.
	errHeaderLimit = errors.New("netguard: response header limit reached")
	// errBodyClosed is what Read returns after Close, as in net/http.
	errBodyClosed = errors.New("netguard: read on closed response body")
	// aLongTimeAgo is a deadline in the past: setting it makes blocked I/O
	// on a connection return at once.
	aLongTimeAgo = time.Unix(1, 0)
)

// timeoutError is the ResponseHeaderTimeout expiry; it reports Timeout()
// like net/http's own error, so callers' timeout checks keep working.
type timeoutError struct{ after time.Duration }

func (e *timeoutError) Error() string {
	return "netguard: read response: timeout awaiting response headers after " + e.after.String()
}
func (e *timeoutError) Timeout() bool   { return true }
func (e *timeoutError) Temporary() bool { return true }

// Options are the settings of a [Transport]. netguard fills them from the
// same Config values as its net/http transport, so that both paths apply
// the same guards.
type Options struct {
	// Dial opens every connection: netguard's checked dialer (address and
	// port policy in net.Dialer.Control, its resolver, its dial timeout).
	Dial func(ctx context.Context, network, address string) (net.Conn, error)
	// TLSConfig is cloned for each https connection; ServerName is set
	// from the URL and NextProtos to http/1.1 only. Nil: a zero config
	// with TLS 1.2 at least.
	TLSConfig *tls.Config
	// TLSHandshakeTimeout bounds the handshake; 0: no bound beyond the
	// request's context.
	TLSHandshakeTimeout time.Duration
	// ResponseHeaderTimeout bounds the wait for a response's headers
	// after the request was written; 0: no bound.
	ResponseHeaderTimeout time.Duration
	// IdleTimeout is how long an unused connection stays pooled. Default
	// 90 s, as net/http's IdleConnTimeout in netguard.
	IdleTimeout time.Duration
	// MaxIdlePerHost and MaxIdle bound the pooled connections per host
	// and in all. Defaults 2 and 100, as net/http's.
	MaxIdlePerHost, MaxIdle int
	// MaxHeaderBytes caps the bytes read while waiting for one response's
	// headers (net/http's MaxResponseHeaderBytes). Default 1 MiB, as
	// net/http's.
	MaxHeaderBytes int64
}

// Transport is an HTTP/1.1-only [http.RoundTripper] that does a request's
// I/O on the goroutine that calls RoundTrip and then reads the body: no
// goroutine per connection, hence no hand-off between goroutines per request.
// net/http's transport runs a reader and a writer goroutine per connection;
// for a gateway relaying many short calls to one upstream those hand-offs
// cost more CPU than the syscalls.
//
// What it gives up: the pool cannot notice that a server closed an idle
// connection until a request is written to it (hence the retry in
// RoundTrip); no HTTP/2, no gzip negotiation, no Expect: 100-continue, no
// protocol upgrades, no proxy.
type Transport struct {
	dial                  func(ctx context.Context, network, address string) (net.Conn, error)
	tlsConfig             *tls.Config
	tlsHandshakeTimeout   time.Duration
	responseHeaderTimeout time.Duration
	idleTimeout           time.Duration
	maxIdlePerHost        int
	maxIdle               int
	maxHeaderBytes        int64
	errHeaderTooLarge     error

	lastKey atomic.Pointer[poolKey] // see poolKey

	mu     sync.Mutex
	idle   map[string][]*pconn // by scheme://host:port, least recently used first
	nidle  int
	reaper *time.Timer // the pending sweep of expired idle connections, or nil
}

var _ http.RoundTripper = (*Transport)(nil)

// New returns a transport with the settings of o.
func New(o Options) *Transport {
	if o.IdleTimeout <= 0 {
		o.IdleTimeout = 90 * time.Second
	}
	if o.MaxIdlePerHost <= 0 {
		o.MaxIdlePerHost = http.DefaultMaxIdleConnsPerHost
	}
	if o.MaxIdle <= 0 {
		o.MaxIdle = 100
	}
	if o.MaxHeaderBytes <= 0 {
		o.MaxHeaderBytes = 1 << 20
	}
	if o.Dial == nil {
		o.Dial = (&net.Dialer{}).DialContext
	}
	cfg := &tls.Config{MinVersion: tls.VersionTLS12}
	if o.TLSConfig != nil {
		cfg = o.TLSConfig.Clone()
	}
	cfg.NextProtos = []string{"http/1.1"}
	return &Transport{
		dial:                  o.Dial,
		tlsConfig:             cfg,
		tlsHandshakeTimeout:   o.TLSHandshakeTimeout,
		responseHeaderTimeout: o.ResponseHeaderTimeout,
		idleTimeout:           o.IdleTimeout,
		maxIdlePerHost:        o.MaxIdlePerHost,
		maxIdle:               o.MaxIdle,
		maxHeaderBytes:        o.MaxHeaderBytes,
		errHeaderTooLarge:     fmt.Errorf("netguard: read response: headers exceed %d bytes", o.MaxHeaderBytes),
		idle:                  make(map[string][]*pconn),
	}
}

// RoundTrip implements [http.RoundTripper].
func (t *Transport) RoundTrip(req *http.Request) (*http.Response, error) {
	addr, err := checkRequest(req)
	if err != nil {
		closeRequestBody(req)
		return nil, err
	}
	key := t.poolKey(req.URL.Scheme, addr)
	ctx := req.Context()
	orig := req
	for attempt := 0; ; attempt++ {
		pc, err := t.getConn(ctx, key, addr, req.URL, attempt > 0)
		if err != nil {
			closeRequestBody(req)
			return nil, err
		}
		resp, retry, err := pc.roundTrip(ctx, req)
		if err == nil {
			resp.Request = orig
			return resp, nil
		}
		// A connection taken from the pool may have been closed by the
		// server while idle: nothing tells until a request is written to
		// it. Replay once on a new connection when no byte of a response
		// arrived and the body can be produced again, as net/http does.
		if !retry || attempt > 0 {
			return nil, err
		}
		if req.Body != nil && req.Body != http.NoBody {
			if req.GetBody == nil {
				return nil, err
			}
			body, gerr := req.GetBody()
			if gerr != nil {
				return nil, fmt.Errorf("netguard: replay request body: %w (after %w)", gerr, err)
			}
			r2 := *req
			r2.Body = body
			req = &r2
		}
	}
}

// poolKey is the pool's key of a connection to addr over scheme:
// scheme://addr, remembered for the last pair asked, so that a stream of
// calls to one upstream builds it once (a concatenation per call was an
// allocation per relayed call in the allocation profile of bridge serve).
func (t *Transport) poolKey(scheme, addr string) string {
	if k := t.lastKey.Load(); k != nil && k.scheme == scheme && k.addr == addr {
		return k.key
	}
	k := &poolKey{scheme: scheme, addr: addr, key: scheme + "://" + addr}
	t.lastKey.Store(k)
	return k.key
}

// poolKey is one poolKey answer.
type poolKey struct{ scheme, addr, key string }

// checkRequest refuses what the transport cannot send faithfully and
// returns the address to dial.
func checkRequest(req *http.Request) (addr string, err error) {
	u := req.URL
	if u == nil {
		return "", errors.New("netguard: request has no URL")
	}
	var port string
	switch u.Scheme {
	case "http":
		port = "80"
	case "https":
		port = "443"
	default:
		return "", fmt.Errorf("netguard: unsupported scheme %q", u.Scheme)
	}
	host := u.Hostname()
	if host == "" {
		return "", errors.New("netguard: request URL has no host")
	}
	if p := u.Port(); p != "" {
		port = p
	}
	if m := req.Method; m != "" && !httpguts.ValidHeaderFieldName(m) {
		return "", fmt.Errorf("netguard: invalid method %q", m)
	}
	if req.Method == http.MethodConnect {
		return "", errors.New("netguard: CONNECT is not supported by the HTTP/1.1 direct transport")
	}
	for k, vv := range req.Header {
		if !httpguts.ValidHeaderFieldName(k) {
			return "", fmt.Errorf("netguard: invalid header field name %q", k)
		}
		for _, v := range vv {
			if !httpguts.ValidHeaderFieldValue(v) {
				return "", fmt.Errorf("netguard: invalid header field value for %q", k)
			}
		}
	}
	if httpguts.HeaderValuesContainsToken(req.Header["Expect"], "100-continue") {
		return "", errContinue
	}
	if len(req.Header["Upgrade"]) > 0 || httpguts.HeaderValuesContainsToken(req.Header["Connection"], "upgrade") {
		return "", errUpgrade
	}
	if u.Port() != "" && !strings.Contains(host, ":") {
		addr = u.Host // already host:port, as JoinHostPort would write it
	} else {
		addr = net.JoinHostPort(host, port)
	}
	return addr, nil
}

func closeRequestBody(req *http.Request) {
	if req.Body != nil {
		req.Body.Close()
	}
}

// getConn returns an idle connection to key, or a new one when there is
// none or fresh is set (a retry must not land on another stale connection).
func (t *Transport) getConn(ctx context.Context, key, addr string, u *url.URL, fresh bool) (*pconn, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	if fresh {
		return t.dialConn(ctx, key, addr, u)
	}
	// A pooled connection the server closed while it was idle is found
	// here, before anything is written to it (a request written to it
	// could not always be sent again: see roundTrip).
	for pc := t.takeIdle(key); pc != nil; pc = t.takeIdle(key) {
		if pc.probe.usable() {
			return pc, nil
		}
		pc.close()
	}
	return t.dialConn(ctx, key, addr, u)
}

// takeIdle pops the most recently used idle connection to key: it is the
// least likely to have been closed by the server.
func (t *Transport) takeIdle(key string) *pconn {
	t.mu.Lock()
	defer t.mu.Unlock()
	conns := t.idle[key]
	n := len(conns)
	if n == 0 {
		return nil
	}
	pc := conns[n-1]
	conns[n-1] = nil
	if n == 1 {
		delete(t.idle, key)
	} else {
		t.idle[key] = conns[:n-1]
	}
	t.nidle--
	pc.reused = true
	return pc
}

// idempotent reports whether repeating req is harmless: a method that
// changes nothing, or a request that carries an idempotency key (the
// rule net/http applies before replaying a request that was sent).
func idempotent(req *http.Request) bool {
	switch req.Method {
	case "", http.MethodGet, http.MethodHead, http.MethodOptions, http.MethodTrace:
		return true
	}
	_, k1 := req.Header["Idempotency-Key"]
	_, k2 := req.Header["X-Idempotency-Key"]
	return k1 || k2
}

// putIdle pools pc, or closes it when the pool is full or pc has bytes
// nobody asked for.
func (t *Transport) putIdle(pc *pconn) {
	if pc.br.Buffered() > 0 {
		pc.close()
		return
	}
	pc.idleAt = time.Now()
	t.mu.Lock()
	conns := t.idle[pc.key]
	if len(conns) >= t.maxIdlePerHost || t.nidle >= t.maxIdle {
		t.mu.Unlock()
		pc.close()
		return
	}
	t.idle[pc.key] = append(conns, pc)
	t.nidle++
	if t.reaper == nil {
		t.reaper = time.AfterFunc(t.idleTimeout, t.reap)
	}
	t.mu.Unlock()
}

// reap closes the connections idle for idleTimeout and schedules itself for
// the next one to expire. Each host's list is ordered by idle time, oldest
// first, so only a prefix expires.
func (t *Transport) reap() {
	var expired []*pconn
	t.mu.Lock()
	now := time.Now()
	var next time.Time
	for key, conns := range t.idle {
		k := 0
		for k < len(conns) && now.Sub(conns[k].idleAt) >= t.idleTimeout {
			k++
		}
		expired = append(expired, conns[:k]...)
		n := copy(conns, conns[k:])
		clear(conns[n:])
		conns = conns[:n]
		t.nidle -= k
		if n == 0 {
			delete(t.idle, key)
			continue
		}
		t.idle[key] = conns
		if exp := conns[0].idleAt.Add(t.idleTimeout); next.IsZero() || exp.Before(next) {
			next = exp
		}
	}
	if next.IsZero() {
		t.reaper = nil
	} else {
		t.reaper.Reset(next.Sub(now))
	}
	t.mu.Unlock()
	for _, pc := range expired {
		pc.close()
	}
}

// CloseIdleConnections closes every pooled connection; connections in use
// are pooled again when their response is done.
func (t *Transport) CloseIdleConnections() {
	t.mu.Lock()
	idle := t.idle
	t.idle = make(map[string][]*pconn)
	t.nidle = 0
	if t.reaper != nil {
		t.reaper.Stop()
		t.reaper = nil
	}
	t.mu.Unlock()
	for _, conns := range idle {
		for _, pc := range conns {
			pc.close()
		}
	}
}

// dialConn connects through t.dial (the address policy and resolver of the
// client) and, for https, runs the TLS handshake offering only http/1.1.
func (t *Transport) dialConn(ctx context.Context, key, addr string, u *url.URL) (*pconn, error) {
	conn, err := t.dial(ctx, "tcp", addr)
	if err != nil {
		if cerr := ctx.Err(); cerr != nil {
			return nil, cerr
		}
		return nil, err
	}
	pc := &pconn{key: key, t: t, limit: math.MaxInt64}
	pc.interruptFn = pc.interrupt
	if u.Scheme == "https" {
		cfg := t.tlsConfig.Clone()
		cfg.ServerName = u.Hostname()
		tc := tls.Client(conn, cfg)
		hctx, cancel := ctx, context.CancelFunc(func() {})
		if t.tlsHandshakeTimeout > 0 {
			hctx, cancel = context.WithTimeout(ctx, t.tlsHandshakeTimeout)
		}
		err := tc.HandshakeContext(hctx)
		cancel()
		if err != nil {
			conn.Close()
			if cerr := ctx.Err(); cerr != nil {
				return nil, cerr
			}
			if errors.Is(hctx.Err(), context.DeadlineExceeded) {
				return nil, fmt.Errorf("netguard: TLS handshake with %s: timeout after %s", addr, t.tlsHandshakeTimeout)
			}
			return nil, fmt.Errorf("netguard: TLS handshake with %s: %w", addr, err)
		}
		cs := tc.ConnectionState()
		if p := cs.NegotiatedProtocol; p != "" && p != "http/1.1" {
			tc.Close()
			return nil, fmt.Errorf("netguard: TLS handshake with %s: server chose protocol %q, want http/1.1", addr, p)
		}
		pc.tlsState = &cs
		conn = tc
	}
	pc.conn = conn
	pc.probe = newProber(conn)
	pc.br = bufio.NewReaderSize(pc, bufSize)
	pc.bw = bufio.NewWriterSize(countingWriter{pc}, bufSize)
	return pc, nil
}

// pconn is one connection of the direct transport. It is used by one
// request at a time: the goroutine in RoundTrip, then whoever reads the
// response body.
type pconn struct {
	t        *Transport
	key      string
	conn     net.Conn
	br       *bufio.Reader // reads through pconn.Read, for the header limit
	bw       *bufio.Writer
	tlsState *tls.ConnectionState
	probe    *prober   // peeks at the socket before a reuse
	reused   bool      // taken from the pool: the server may have closed it
	idleAt   time.Time // when it was pooled; guarded by t.mu while pooled
	limit    int64     // bytes left to read before the header limit trips
	nread    int64     // bytes read from conn for the current request
	nwritten int64     // bytes written to conn for the current request
	one      [1]byte   // writeRequest's probe past a body's length
	// interruptFn is pc.interrupt, made once: a method value made per
	// request was an allocation per call.
	interruptFn func()
}

// countingWriter writes to the connection, counting the bytes, so that
// RoundTrip knows whether any of a request left.
type countingWriter struct{ pc *pconn }

func (w countingWriter) Write(p []byte) (int, error) {
	n, err := w.pc.conn.Write(p)
	w.pc.nwritten += int64(n)
	return n, err
}

// Read feeds br from the connection, enforcing the header limit and
// counting the bytes, so that RoundTrip knows whether any response byte
// arrived.
func (pc *pconn) Read(p []byte) (int, error) {
	if pc.limit <= 0 {
		return 0, errHeaderLimit
	}
	if int64(len(p)) > pc.limit {
		p = p[:pc.limit]
	}
	n, err := pc.conn.Read(p)
	pc.limit -= int64(n)
	pc.nread += int64(n)
	return n, err
}

func (pc *pconn) close() { pc.conn.Close() }

// interrupt makes the connection's blocked and future I/O fail at once; the
// connection is then only good for closing.
func (pc *pconn) interrupt() { _ = pc.conn.SetDeadline(aLongTimeAgo) }

// release pools pc when the exchange left it reusable and the request's
// context never interrupted it; otherwise it closes it.
func (pc *pconn) release(reuse bool, stop func() bool) {
	if stop() && reuse {
		pc.t.putIdle(pc)
		return
	}
	pc.close()
}

// roundTrip writes req and reads the response headers. retry reports an
// error that happened on a reused connection before any byte of a response
// arrived, with the context still live: the server most likely closed the
// idle connection, and the request can go again on a new one.
func (pc *pconn) roundTrip(ctx context.Context, req *http.Request) (resp *http.Response, retry bool, err error) {
	// Cancellation sets a past deadline: a blocked write or read returns,
	// and the error is replaced with the context's.
	stop := context.AfterFunc(ctx, pc.interruptFn)
	fail := func(what string, err error) (*http.Response, bool, error) {
		stop()
		pc.close()
		if cerr := ctx.Err(); cerr != nil {
			return nil, false, cerr
		}
		// As net/http: a request none of which left may always go again; one
		// that left only if repeating it is harmless (idempotent), since the
		// server may have acted on it before the connection failed.
		retry := pc.reused && pc.nread == 0 && connGone(err) && (pc.nwritten == 0 || idempotent(req))
		return nil, retry, fmt.Errorf("netguard: %s: %w", what, err)
	}
	pc.nread, pc.nwritten = 0, 0
	if err := pc.writeRequest(req); err != nil {
		return fail("write request", err)
	}
	if err := pc.bw.Flush(); err != nil {
		return fail("write request", err)
	}

	rht := pc.t.responseHeaderTimeout
	if rht > 0 {
		_ = pc.conn.SetReadDeadline(time.Now().Add(rht))
	}
	for n := 0; ; n++ {
		pc.limit = pc.t.maxHeaderBytes
		resp, err = http.ReadResponse(pc.br, req)
		if err != nil {
			pc.limit = math.MaxInt64
			if rht > 0 && errors.Is(err, os.ErrDeadlineExceeded) && ctx.Err() == nil {
				stop()
				pc.close()
				return nil, false, &timeoutError{after: rht}
			}
			if errors.Is(err, errHeaderLimit) {
				stop()
				pc.close()
				return nil, false, pc.t.errHeaderTooLarge
			}
			return fail("read response", err)
		}
		if resp.StatusCode == http.StatusSwitchingProtocols {
			stop()
			pc.close()
			return nil, false, errUpgrade
		}
		if resp.StatusCode >= 200 || resp.StatusCode < 100 {
			break
		}
		// An informational response has no body: skip to the next one.
		if n+1 >= max1xx {
			stop()
			pc.close()
			return nil, false, fmt.Errorf("netguard: read response: more than %d informational responses", max1xx)
		}
	}
	pc.limit = math.MaxInt64
	if rht > 0 {
		// Clear the header deadline, then look at the context: if it was
		// cancelled meanwhile the past deadline set by interrupt may have
		// been overwritten, but ctx.Err() is already set when interrupt
		// runs, so this check cannot miss it.
		_ = pc.conn.SetReadDeadline(time.Time{})
		if cerr := ctx.Err(); cerr != nil {
			stop()
			pc.close()
			return nil, false, cerr
		}
	}
	if pc.tlsState != nil {
		resp.TLS = pc.tlsState
	}
	reuse := !resp.Close && !req.Close
	if resp.Body == http.NoBody {
		pc.release(reuse, stop)
		return resp, false, nil
	}
	resp.Body = &respBody{r: resp.Body, pc: pc, ctx: ctx, stop: stop, reuse: reuse}
	return resp, false, nil
}

// connGone reports an error meaning the peer closed the connection.
func connGone(err error) bool {
	return errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF) ||
		errors.Is(err, syscall.ECONNRESET) || errors.Is(err, syscall.EPIPE) ||
		errors.Is(err, syscall.ECONNABORTED)
}

// respBody is a response body read straight from the connection's buffer (so
// streams arrive as the server flushes them). Reading it to the end pools
// the connection when the response allows it; closing it earlier closes the
// connection, as draining an unknown rest (a stream) could block forever.
type respBody struct {
	r     io.Reader // the body http.ReadResponse built on pc.br
	pc    *pconn
	ctx   context.Context
	stop  func() bool
	reuse bool

	mu   sync.Mutex
	done bool  // the connection was pooled or closed: r must not be read
	err  error // what Read returns once done
}

// Read implements [io.Reader].
func (b *respBody) Read(p []byte) (int, error) {
	b.mu.Lock()
	if b.done {
		err := b.err
		b.mu.Unlock()
		return 0, err
	}
	b.mu.Unlock()
	n, err := b.r.Read(p)
	if err == nil {
		return n, nil
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.done { // closed while reading
		return n, b.err
	}
	b.done = true
	if err == io.EOF {
		b.err = io.EOF
		b.pc.release(b.reuse, b.stop)
		return n, io.EOF
	}
	b.stop()
	b.pc.close()
	if cerr := b.ctx.Err(); cerr != nil {
		err = cerr
	}
	b.err = err
	return n, err
}

// Close implements [io.Closer]. It may run while another goroutine is
// blocked in Read, which then returns.
func (b *respBody) Close() error {
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.done {
		if b.err == io.EOF {
			b.err = errBodyClosed
		}
		return nil
	}
	b.done = true
	b.err = errBodyClosed
	b.stop()
	b.pc.close()
	return nil
}
