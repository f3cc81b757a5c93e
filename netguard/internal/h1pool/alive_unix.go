//go:build unix

package h1pool

import (
	"crypto/tls"
	"errors"
	"net"
	"syscall"
)

// usable reports whether an idle connection is still usable: the peer
// has not closed or reset it and sent nothing unasked (on an idle HTTP/1.1
// connection any byte, a TLS close_notify included, means it is done). It
// peeks at the socket without waiting: one non-blocking recv.
func usable(c net.Conn) bool {
	if tc, ok := c.(*tls.Conn); ok {
		c = tc.NetConn()
	}
	sc, ok := c.(syscall.Conn)
	if !ok {
		return true // cannot tell: the retry rule still applies
	}
	rc, err := sc.SyscallConn()
	if err != nil {
		return false
	}
	alive := true
	var b [1]byte
	err = rc.Read(func(fd uintptr) bool {
		n, _, rerr := syscall.Recvfrom(int(fd), b[:], syscall.MSG_PEEK|syscall.MSG_DONTWAIT)
		switch {
		case rerr == nil:
			alive = false // n > 0: unasked bytes; n == 0: the peer closed
			_ = n
		case errors.Is(rerr, syscall.EAGAIN), errors.Is(rerr, syscall.EWOULDBLOCK), errors.Is(rerr, syscall.EINTR):
			// Nothing to read: open and quiet.
		default:
			alive = false // reset or another error
		}
		return true // never wait for readability
	})
	return alive && err == nil
}
