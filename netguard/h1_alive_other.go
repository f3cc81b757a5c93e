//go:build !unix

package netguard

import "net"

// h1Alive cannot peek at a socket here: a pooled connection is assumed
// usable, and the retry rule of roundTrip covers one the server closed.
func h1Alive(net.Conn) bool { return true }
