//go:build !unix

package h1pool

import "net"

// prober cannot peek at a socket here: a pooled connection is assumed
// usable, and the retry rule of roundTrip covers one the server closed.
type prober struct{}

func newProber(net.Conn) *prober { return &prober{} }

func (*prober) usable() bool { return true }
