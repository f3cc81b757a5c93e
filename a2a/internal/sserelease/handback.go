package sserelease

import (
	"context"
	"errors"
	"net"
	"net/http"
	"sync"
	"time"
)

// MaxPendingRequest bounds what a released stream's reader keeps of the
// bytes a client sends during the stream (its next request, pipelined):
// past it they are dropped and the connection closes when the stream ends.
// It is net/http's read buffer size: an idle stream must not be made to
// hold more than net/http would have held for it.
const MaxPendingRequest = 4 << 10

// Watch reads a released stream's connection c, pending being what
// net/http had read past the request. While the stream lasts, a failed
// read (the client closed the connection, or the stream's writer did)
// calls cancel, which ends the stream, and closes the connection; what the
// client sends is kept, as it can only be the start of its next request.
// When the stream has ended with its last chunk, its writer wakes the read
// (a read deadline now) after making woken report true, and the
// connection goes to handBack with those bytes.
func Watch(c net.Conn, pending []byte, woken func() bool, cancel context.CancelFunc, handBack func(c net.Conn, pending []byte)) {
	var b [64]byte
	overflow := false
	for {
		n, err := c.Read(b[:])
		if n > 0 && !overflow {
			if len(pending)+n > MaxPendingRequest {
				overflow, pending = true, nil
			} else {
				pending = append(pending, b[:n]...)
			}
		}
		if err == nil {
			continue
		}
		cancel()
		if !woken() || overflow || !isTimeout(err) {
			_ = c.Close()
			return
		}
		handBack(c, pending)
		return
	}
}

func isTimeout(err error) bool {
	var ne net.Error
	return errors.As(err, &ne) && ne.Timeout()
}

// HandBack gives the connection of a released stream that has ended back
// to srv, to serve the client's next request as net/http would have:
// pending is what the client has already sent of it. The server serves it
// as a new connection, from a listener of its own that yields it once
// (Serve may be called any number of times) when the request's first
// bytes are there: the connection waits for them for as long as the server
// keeps an idle connection (IdleTimeout, else ReadTimeout), so that the
// request's own read timeouts start with the request, as in net/http
// between two requests. While it waits, the server's Close and Shutdown
// close it with their listeners, as they close idle connections. HandBack
// returns when the server is done with the connection.
//
// What differs from a connection net/http kept: BaseContext is called
// again, with that listener; ConnContext and ConnState are given a wrapper
// of the connection (it replays the bytes read ahead) and see it go from
// StateHijacked to StateNew; a server that accepts unencrypted HTTP/2
// (Protocols) would take an h2c preface on it. A server whose keep-alives
// were turned off (SetKeepAlivesEnabled) told the client the connection
// would close, but serves a client that sends another request all the
// same.
func HandBack(srv *http.Server, c net.Conn, pending []byte) {
	// A connection handed back before is unwrapped, so that a client
	// with many streams on one connection does not stack wrappers: what
	// its wrapper still holds comes after what was read through it.
	if p, ok := c.(*prefixedConn); ok {
		pending = append(pending, p.prefix...)
		c = p.Conn
	}
	idle := srv.IdleTimeout
	if idle <= 0 {
		idle = srv.ReadTimeout
	}
	// Serve closes the listener when it returns, which closes the
	// connection unless it was taken (also when the server is closed).
	_ = srv.Serve(&handOffListener{conn: c, pending: pending, idle: idle, addr: c.LocalAddr()})
}

// handOffListener yields one connection, once the client has sent the
// first bytes of a request on it (or had before: pending), then reports
// itself closed. Closing it before closes the connection.
type handOffListener struct {
	addr net.Addr
	idle time.Duration // how long the request's first bytes may take (0: no limit)

	mu      sync.Mutex
	conn    net.Conn // nil once taken or closed
	pending []byte
}

func (l *handOffListener) Accept() (net.Conn, error) {
	l.mu.Lock()
	c, pending := l.conn, l.pending
	l.mu.Unlock()
	if c == nil {
		return nil, net.ErrClosed
	}
	if len(pending) == 0 {
		var deadline time.Time
		if l.idle > 0 {
			deadline = time.Now().Add(l.idle)
		}
		_ = c.SetReadDeadline(deadline)
		var b [512]byte
		n, err := c.Read(b[:])
		if err != nil {
			_ = l.Close()
			return nil, net.ErrClosed
		}
		pending = append([]byte(nil), b[:n]...)
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.conn == nil {
		return nil, net.ErrClosed // closed meanwhile (and the connection with it)
	}
	l.conn, l.pending = nil, nil
	_ = c.SetDeadline(time.Time{})
	return &prefixedConn{Conn: c, prefix: pending}, nil
}

func (l *handOffListener) Close() error {
	l.mu.Lock()
	c := l.conn
	l.conn, l.pending = nil, nil
	l.mu.Unlock()
	if c != nil {
		_ = c.Close()
	}
	return nil
}

func (l *handOffListener) Addr() net.Addr { return l.addr }

// prefixedConn is a connection whose first bytes were read ahead: Read
// returns them first. It keeps the CloseWrite net/http uses to close.
type prefixedConn struct {
	net.Conn
	prefix []byte
}

func (c *prefixedConn) Read(p []byte) (int, error) {
	if len(c.prefix) == 0 {
		return c.Conn.Read(p)
	}
	n := copy(p, c.prefix)
	c.prefix = c.prefix[n:]
	if len(c.prefix) == 0 {
		c.prefix = nil
	}
	return n, nil
}

func (c *prefixedConn) CloseWrite() error {
	if cw, ok := c.Conn.(interface{ CloseWrite() error }); ok {
		return cw.CloseWrite()
	}
	return c.Conn.Close()
}
