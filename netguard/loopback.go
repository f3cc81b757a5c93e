package netguard

import (
	"net"
	"net/netip"
	"strings"
)

// IsLoopbackHost reports whether hostOrHostPort names loopback only. It
// takes a host ("127.0.0.1", "::1", "[::1]", "localhost") or a HOST:PORT
// ("127.0.0.1:8080", "[::1]:8080", "localhost:8080"), as found in a listen
// address, a URL's Hostname or a Host header. It is the one loopback check
// of the bridge: config, auth, the MCP face, hostguard and observe use it to
// decide what may relax on loopback (anonymous callers, plain http, browser
// origins), so it errs on the side of "not loopback".
//
// Loopback is an IP address in 127.0.0.0/8 or ::1, also in its IPv4-mapped
// form (::ffff:127.0.0.1) and with a zone, and the name "localhost" in any
// case. Not loopback: "localhost." and names under ".localhost" (RFC 6761
// reserves them, but Go's resolver sends them to DNS, which may answer
// anything), other numeric forms ("127.1", "2130706433"), the empty host
// (":8080" binds every interface), brackets around anything but an IPv6
// address ("[127.0.0.1]", "[localhost]:80") and anything else.
//
// Destinations are checked separately: [Guard.CheckURL] refuses every
// localhost name, with or without a trailing dot, and the dialer checks the
// address actually connected to.
func IsLoopbackHost(hostOrHostPort string) bool {
	host := hostOrHostPort
	if h, _, err := net.SplitHostPort(hostOrHostPort); err == nil {
		host = h
	} else if strings.HasPrefix(host, "[") && strings.HasSuffix(host, "]") {
		host = host[1 : len(host)-1]
	}
	if strings.HasPrefix(hostOrHostPort, "[") {
		// Brackets hold an IPv6 literal only (RFC 3986 §3.2.2).
		ip, err := netip.ParseAddr(host)
		return err == nil && ip.Is6() && ip.Unmap().IsLoopback()
	}
	if strings.EqualFold(host, "localhost") {
		return true
	}
	ip, err := netip.ParseAddr(host)
	return err == nil && ip.Unmap().IsLoopback()
}

// IsLoopbackAddr reports whether a, a listener's or a connection's
// address, is loopback, as IsLoopbackHost reads its String form: a TCP
// address is read as it is (its String form, split and parsed again, was
// four allocations per request in the expose path's allocation profile),
// any other kind through its String form.
func IsLoopbackAddr(a net.Addr) bool {
	if ta, ok := a.(*net.TCPAddr); ok {
		ip, ok := netip.AddrFromSlice(ta.IP)
		return ok && ip.Unmap().IsLoopback()
	}
	host, _, err := net.SplitHostPort(a.String())
	return err == nil && IsLoopbackHost(host)
}
