//go:build !unix

package h1pool

import "net"

// usable cannot peek at a socket here: a pooled connection is assumed
// usable, and the retry rule of roundTrip covers one the server closed.
func usable(net.Conn) bool { return true }
