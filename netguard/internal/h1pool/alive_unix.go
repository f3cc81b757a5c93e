//go:build unix

package h1pool

import (
	"crypto/tls"
	"errors"
	"net"
	"syscall"
)

// prober peeks at one connection's socket. It is built once per connection
// (newProber) so that the check before each reuse allocates nothing: the
// raw connection and the callback are kept, and the callback's result goes
// into a field.
type prober struct {
	rc    syscall.RawConn // nil: cannot tell, assumed usable
	err   bool            // SyscallConn failed: never usable
	alive bool
	b     [1]byte
	fn    func(fd uintptr) bool
}

// newProber returns the prober of c (the TCP connection under a TLS one).
func newProber(c net.Conn) *prober {
	if tc, ok := c.(*tls.Conn); ok {
		c = tc.NetConn()
	}
	p := &prober{}
	sc, ok := c.(syscall.Conn)
	if !ok {
		return p // cannot tell: the retry rule still applies
	}
	rc, err := sc.SyscallConn()
	if err != nil {
		p.err = true
		return p
	}
	p.rc = rc
	p.fn = p.peek
	return p
}

// peek is the callback of RawConn.Read: one non-blocking recv.
func (p *prober) peek(fd uintptr) bool {
	n, _, rerr := syscall.Recvfrom(int(fd), p.b[:], syscall.MSG_PEEK|syscall.MSG_DONTWAIT)
	switch {
	case rerr == nil:
		p.alive = false // n > 0: unasked bytes; n == 0: the peer closed
		_ = n
	case errors.Is(rerr, syscall.EAGAIN), errors.Is(rerr, syscall.EWOULDBLOCK), errors.Is(rerr, syscall.EINTR):
		// Nothing to read: open and quiet.
	default:
		p.alive = false // reset or another error
	}
	return true // never wait for readability
}

// usable reports whether an idle connection is still usable: the peer
// has not closed or reset it and sent nothing unasked (on an idle HTTP/1.1
// connection any byte, a TLS close_notify included, means it is done). It
// peeks at the socket without waiting: one non-blocking recv. It is called
// by the one goroutine that took the connection from the pool.
func (p *prober) usable() bool {
	if p.err {
		return false
	}
	if p.rc == nil {
		return true
	}
	p.alive = true
	err := p.rc.Read(p.fn)
	return p.alive && err == nil
}
