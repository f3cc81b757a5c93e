package netguard

import (
	"net/netip"
	"slices"
	"strings"

	"code.dny.dev/ssrf"
)

type namedPrefix struct {
	prefix netip.Prefix
	reason Reason
}

func np(s string, r Reason) namedPrefix { return namedPrefix{netip.MustParsePrefix(s), r} }

// v4Named and v6Named give refused ranges a reason. Order matters: the first
// match wins, so narrower prefixes come before the ranges that contain them.
// The IANA-derived lists of code.dny.dev/ssrf are appended to them below.
var (
	v4Named = []namedPrefix{
		np("0.0.0.0/32", ReasonUnspecified),
		np("0.0.0.0/8", ReasonThisNetwork),
		np("10.0.0.0/8", ReasonPrivate),
		np("100.64.0.0/10", ReasonSharedAddress),
		np("127.0.0.0/8", ReasonLoopback),
		np("169.254.0.0/16", ReasonLinkLocal),
		np("172.16.0.0/12", ReasonPrivate),
		np("192.0.2.0/24", ReasonDocumentation),
		np("192.168.0.0/16", ReasonPrivate),
		np("198.18.0.0/15", ReasonBenchmarking),
		np("198.51.100.0/24", ReasonDocumentation),
		np("203.0.113.0/24", ReasonDocumentation),
		np("224.0.0.0/4", ReasonMulticast),
		np("255.255.255.255/32", ReasonBroadcast),
		np("240.0.0.0/4", ReasonReserved),
	}
	v6Named = []namedPrefix{
		np("::/128", ReasonUnspecified),
		np("::1/128", ReasonLoopback),
		np("64:ff9b::/96", ReasonNAT64),
		np("64:ff9b:1::/48", ReasonNAT64),
		np("fc00::/7", ReasonUniqueLocal),
		np("fe80::/10", ReasonLinkLocal),
		np("ff00::/8", ReasonMulticast),
		np("2001::/32", ReasonTeredo),
		np("2001:2::/48", ReasonBenchmarking),
		np("2001:db8::/32", ReasonDocumentation),
		np("2002::/16", Reason6to4),
		np("3fff::/20", ReasonDocumentation),
	}
	// v4Table and v6Table are the named prefixes followed by every prefix of
	// code.dny.dev/ssrf's IANA-derived deny lists that the named ones do not
	// already cover, so one pass classifies an address.
	v4Table = withLibraryPrefixes(v4Named, ssrf.IPv4DeniedPrefixes)
	v6Table = withLibraryPrefixes(v6Named, ssrf.IPv6DeniedPrefixes)
)

func withLibraryPrefixes(named []namedPrefix, lib []netip.Prefix) []namedPrefix {
	out := slices.Clone(named)
	for _, q := range lib {
		covered := slices.ContainsFunc(named, func(n namedPrefix) bool {
			return n.prefix.Bits() <= q.Bits() && n.prefix.Contains(q.Addr())
		})
		if !covered {
			out = append(out, namedPrefix{q, ReasonSpecialPurpose})
		}
	}
	return out
}

// Classify returns why addr is refused by default, or [ReasonNone] if it is a
// public address. IPv4-mapped IPv6 addresses are classified as the IPv4
// address they carry, and an IPv6 zone is ignored. For NAT64 and 6to4
// addresses whose embedded IPv4 address is itself refused, the embedded
// address is returned along with its reason; otherwise embedded is invalid.
// Classify ignores ports and [Config.UnsafeAllow].
func Classify(addr netip.Addr) (reason Reason, embedded netip.Addr) {
	if !addr.IsValid() {
		return ReasonInvalidAddr, netip.Addr{}
	}
	a := addr.Unmap().WithZone("")
	if a.Is4() {
		for _, n := range v4Table {
			if n.prefix.Contains(a) {
				return n.reason, netip.Addr{}
			}
		}
		return ReasonNone, netip.Addr{}
	}
	for _, n := range v6Table {
		if n.prefix.Contains(a) {
			if v4, ok := embeddedIPv4(a, n.reason); ok {
				if r, _ := Classify(v4); r != ReasonNone {
					return r, v4
				}
			}
			return n.reason, netip.Addr{}
		}
	}
	if !ssrf.IPv6GlobalUnicast.Contains(a) {
		return ReasonNotGlobal, netip.Addr{}
	}
	return ReasonNone, netip.Addr{}
}

// embeddedIPv4 extracts the IPv4 address that a NAT64 (RFC 6052, /96 form) or
// 6to4 (RFC 3056) address carries.
func embeddedIPv4(a netip.Addr, r Reason) (netip.Addr, bool) {
	b := a.As16()
	switch {
	case r == ReasonNAT64 && b[4] == 0 && b[5] == 0 && b[6] == 0 && b[7] == 0 && b[8] == 0 && b[9] == 0 && b[10] == 0 && b[11] == 0 && b[2] == 0xff && b[3] == 0x9b:
		return netip.AddrFrom4([4]byte{b[12], b[13], b[14], b[15]}), true
	case r == Reason6to4:
		return netip.AddrFrom4([4]byte{b[2], b[3], b[4], b[5]}), true
	}
	return netip.Addr{}, false
}

// policy is the address and port part of a Guard's configuration.
type policy struct {
	allow []netip.Prefix
	ports []uint16
}

// checkAddrPort decides whether a connection to ap may be made. It allocates
// only when it refuses.
func (p *policy) checkAddrPort(ap netip.AddrPort) error {
	addr := ap.Addr()
	if !addr.IsValid() {
		return &BlockedError{Reason: ReasonInvalidAddr}
	}
	a := addr.Unmap().WithZone("")
	for _, pre := range p.allow {
		if pre.Contains(a) {
			return nil
		}
	}
	if r, emb := Classify(a); r != ReasonNone {
		return &BlockedError{Reason: r, Addr: a, Embedded: emb, Port: ap.Port()}
	}
	if !slices.Contains(p.ports, ap.Port()) {
		return &BlockedError{Reason: ReasonPort, Addr: a, Port: ap.Port(), Detail: "port not allowed"}
	}
	return nil
}

// checkConnect is the connect-time check: network must be tcp4 or tcp6 and
// address a literal IP and port.
func (p *policy) checkConnect(network, address string) error {
	if network != "tcp4" && network != "tcp6" {
		return &BlockedError{Reason: ReasonNetwork, Detail: "network " + network + " not allowed"}
	}
	ap, err := netip.ParseAddrPort(address)
	if err != nil {
		return &BlockedError{Reason: ReasonInvalidAddr, Detail: "connect address is not ip:port"}
	}
	return p.checkAddrPort(ap)
}

// parseNumericHost reads host the way inet_aton and the WHATWG URL standard
// do: one to four dot-separated parts, each decimal, octal (leading 0) or
// hexadecimal (0x), the last part filling the remaining bytes. numeric reports
// whether host looks numeric at all (its last label is a number), in which
// case it must be an IPv4 address and ok says whether it is a valid one.
func parseNumericHost(host string) (addr netip.Addr, numeric, ok bool) {
	host = strings.TrimSuffix(host, ".")
	parts := strings.Split(host, ".")
	if !looksNumeric(parts[len(parts)-1]) {
		return netip.Addr{}, false, false
	}
	if len(parts) > 4 {
		return netip.Addr{}, true, false
	}
	var v uint64
	for i, s := range parts {
		n, isNum := parseNumber(s)
		if !isNum {
			return netip.Addr{}, true, false
		}
		if i < len(parts)-1 {
			if n > 255 {
				return netip.Addr{}, true, false
			}
			v = v<<8 | n
			continue
		}
		rest := uint(8 * (4 - i))
		if n >= 1<<rest {
			return netip.Addr{}, true, false
		}
		v = v<<rest | n
	}
	return netip.AddrFrom4([4]byte{byte(v >> 24), byte(v >> 16), byte(v >> 8), byte(v)}), true, true
}

// looksNumeric reports whether a label is all decimal digits or 0x followed
// by hexadecimal digits: a host ending in such a label is an IPv4 address or
// invalid, never a name.
func looksNumeric(s string) bool {
	if len(s) >= 2 && s[0] == '0' && (s[1] == 'x' || s[1] == 'X') {
		s = s[2:]
		for i := 0; i < len(s); i++ {
			if !isHex(s[i]) {
				return false
			}
		}
		return true
	}
	if s == "" {
		return false
	}
	for i := 0; i < len(s); i++ {
		if s[i] < '0' || s[i] > '9' {
			return false
		}
	}
	return true
}

func isHex(c byte) bool {
	return c >= '0' && c <= '9' || c >= 'a' && c <= 'f' || c >= 'A' && c <= 'F'
}

// parseNumber parses one inet_aton part; ok is false when s is not a number.
// Values above 2^32 saturate, which every caller treats as out of range.
func parseNumber(s string) (n uint64, ok bool) {
	base := uint64(10)
	switch {
	case len(s) >= 2 && s[0] == '0' && (s[1] == 'x' || s[1] == 'X'):
		base, s = 16, s[2:]
	case len(s) >= 2 && s[0] == '0':
		base, s = 8, s[1:]
	case s == "":
		return 0, false
	}
	for i := 0; i < len(s); i++ {
		var d uint64
		switch c := s[i]; {
		case c >= '0' && c <= '9':
			d = uint64(c - '0')
		case base == 16 && c >= 'a' && c <= 'f':
			d = uint64(c-'a') + 10
		case base == 16 && c >= 'A' && c <= 'F':
			d = uint64(c-'A') + 10
		default:
			return 0, false
		}
		if d >= base {
			return 0, false
		}
		if n = n*base + d; n > 1<<32 {
			n = 1 << 32
		}
	}
	return n, true
}
