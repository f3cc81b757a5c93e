package listener

import (
	"errors"
	"io"
	"log/slog"
	"net"
	"net/http"
	"net/netip"
	"sync"
	"time"

	"github.com/prometheus/client_golang/prometheus"
)

// Labels of bridge_connections_refused_total.
const (
	limitTotal     = "total"
	limitPerClient = "per_client"
)

// refusalLogEvery bounds the log lines about refused connections: one per
// limit per interval, with the count since the last one.
const refusalLogEvery = 10 * time.Second

// connLimiter is a listener that caps the connections open at once, in
// total and per client address (an IPv4 address, an IPv6 /64). A
// connection over a cap is closed as soon as it is accepted: nothing of it
// is read, so a flood of them costs no goroutine and no buffer.
type connLimiter struct {
	net.Listener
	total, perClient int
	log              *slog.Logger
	refused          *prometheus.CounterVec // nil: not counted

	mu       sync.Mutex
	open     int
	byClient map[netip.Prefix]int
	lastLog  map[string]time.Time
	unlogged map[string]int
}

func newConnLimiter(ln net.Listener, total, perClient int, log *slog.Logger, reg prometheus.Registerer) (*connLimiter, error) {
	l := &connLimiter{Listener: ln, total: total, perClient: perClient, log: log,
		byClient: map[netip.Prefix]int{}, lastLog: map[string]time.Time{}, unlogged: map[string]int{}}
	if reg != nil {
		l.refused = prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "bridge_connections_refused_total",
			Help: "Connections closed at accept because a limit was reached (limit: total or per_client).",
		}, []string{"limit"})
		open := prometheus.NewGaugeFunc(prometheus.GaugeOpts{
			Name: "bridge_connections_open",
			Help: "Connections open on the listener, released event streams included.",
		}, func() float64 { return float64(l.Open()) })
		for _, c := range []prometheus.Collector{l.refused, open} {
			if err := reg.Register(c); err != nil {
				return nil, err
			}
		}
		// Both labels exist from the start, at zero.
		l.refused.WithLabelValues(limitTotal)
		l.refused.WithLabelValues(limitPerClient)
	}
	return l, nil
}

// Open is the number of connections open now.
func (l *connLimiter) Open() int {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.open
}

// Accept implements net.Listener.
func (l *connLimiter) Accept() (net.Conn, error) { return l.accept(l.Listener) }

// also is ln with its connections counted against l's caps, with l's own:
// the caps are the bridge's, whichever of its listeners a connection
// reaches (the gRPC binding's own listener).
func (l *connLimiter) also(ln net.Listener) net.Listener { return &alsoLimited{Listener: ln, l: l} }

type alsoLimited struct {
	net.Listener
	l *connLimiter
}

func (a *alsoLimited) Accept() (net.Conn, error) { return a.l.accept(a.Listener) }

// accept accepts the next connection of ln that is under the caps.
func (l *connLimiter) accept(ln net.Listener) (net.Conn, error) {
	for {
		c, err := ln.Accept()
		if err != nil {
			return nil, err
		}
		key := clientKey(c.RemoteAddr())
		l.mu.Lock()
		var limit string
		switch {
		case l.total > 0 && l.open >= l.total:
			limit = limitTotal
		case l.perClient > 0 && l.byClient[key] >= l.perClient:
			limit = limitPerClient
		default:
			l.open++
			l.byClient[key]++
			l.mu.Unlock()
			return &limitedConn{Conn: c, l: l, key: key}, nil
		}
		logNow, missed := l.shouldLogLocked(limit)
		l.mu.Unlock()
		// Counted before the close, so whoever sees the connection refused
		// finds it counted.
		if l.refused != nil {
			l.refused.WithLabelValues(limit).Inc()
		}
		_ = c.Close()
		if logNow {
			max := l.total
			if limit == limitPerClient {
				max = l.perClient
			}
			l.log.Warn("connection refused: limit reached", "limit", limit, "max", max, "client", key.String(), "refused_since_last_line", missed)
		}
	}
}

func (l *connLimiter) shouldLogLocked(limit string) (bool, int) {
	now := time.Now()
	if now.Sub(l.lastLog[limit]) < refusalLogEvery {
		l.unlogged[limit]++
		return false, 0
	}
	l.lastLog[limit] = now
	n := l.unlogged[limit]
	l.unlogged[limit] = 0
	return true, n
}

func (l *connLimiter) release(key netip.Prefix) {
	l.mu.Lock()
	l.open--
	if n := l.byClient[key] - 1; n > 0 {
		l.byClient[key] = n
	} else {
		delete(l.byClient, key)
	}
	l.mu.Unlock()
}

// clientKey is the address a connection is counted under: the IPv4
// address, or the /64 of an IPv6 one (a host usually has a whole /64).
func clientKey(a net.Addr) netip.Prefix {
	ap, err := netip.ParseAddrPort(a.String())
	if err != nil {
		return netip.Prefix{}
	}
	ip := ap.Addr().Unmap()
	bits := 32
	if ip.Is6() {
		bits = 64
	}
	p, _ := ip.Prefix(bits)
	return p
}

// limitedConn is a connection counted by a connLimiter until it closes.
// It keeps CloseWrite, which net/http and released streams use to close
// a connection gracefully.
type limitedConn struct {
	net.Conn
	l    *connLimiter
	key  netip.Prefix
	once sync.Once
}

func (c *limitedConn) Close() error {
	err := c.Conn.Close()
	c.once.Do(func() { c.l.release(c.key) })
	return err
}

func (c *limitedConn) CloseWrite() error {
	if cw, ok := c.Conn.(interface{ CloseWrite() error }); ok {
		return cw.CloseWrite()
	}
	return c.Close()
}

// bodyDeadline bounds the reading of every request body by timeout, counted
// from when the handler is called (the headers are read): the connection's
// read deadline is set then and lifted once the body has been read to its
// end. A body that has not arrived in full by then fails to read (the
// a2a and MCP faces answer 408 or 400), and net/http, which reads what is
// left of an unread body before it answers, fails at once too and closes
// the connection. Requests without a body set no deadline, since
// net/http's own read of a connection that serves an event stream (to
// notice the client leaving) must not time out; nor do bodies that have
// been read, so streams opened by a POST stay open.
func bodyDeadline(timeout time.Duration, next http.Handler) http.Handler {
	if timeout <= 0 {
		return next
	}
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Body == nil || r.Body == http.NoBody || r.ContentLength == 0 {
			next.ServeHTTP(w, r)
			return
		}
		rc := http.NewResponseController(w)
		if err := rc.SetReadDeadline(time.Now().Add(timeout)); err != nil {
			next.ServeHTTP(w, r) // HTTP/2 without deadlines, or a test recorder
			return
		}
		r.Body = &deadlineBody{ReadCloser: r.Body, rc: rc, w: w, left: r.ContentLength}
		next.ServeHTTP(w, r)
	})
}

// deadlineBody lifts its connection's read deadline once the body has been
// read to its end, and asks for the connection to close when a read fails.
type deadlineBody struct {
	io.ReadCloser
	rc   *http.ResponseController
	w    http.ResponseWriter
	left int64 // bytes declared and not read yet; -1: chunked
	done bool
}

func (b *deadlineBody) Read(p []byte) (int, error) {
	n, err := b.ReadCloser.Read(p)
	if b.left > 0 {
		b.left -= int64(min(int64(n), b.left))
	}
	switch {
	case b.done:
	case err == nil && b.left == 0, errors.Is(err, io.EOF):
		b.done = true
		_ = b.rc.SetReadDeadline(time.Time{})
	case err != nil:
		// Too late or too slow: the rest must not be waited for nor taken
		// for a request. The deadline stays, so the drain of what is
		// left fails at once.
		b.done = true
		b.w.Header().Set("Connection", "close")
	}
	return n, err
}
