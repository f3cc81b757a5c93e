package netguard

import (
	"errors"
	"fmt"
	"net/netip"
	"strconv"
)

// ErrBlocked matches every refusal by the guard's policy (errors.Is), as
// opposed to network failures.
var ErrBlocked = errors.New("netguard: destination blocked by policy")

// Reason says why the guard refused a destination. String gives a stable,
// lower-case name for logs and metric labels.
type Reason uint8

// Reasons. Address classes first, then URL-level and connection-level ones.
const (
	// ReasonNone means the destination is allowed.
	ReasonNone Reason = iota
	// ReasonInvalidAddr is an address that could not be parsed.
	ReasonInvalidAddr
	// ReasonUnspecified is 0.0.0.0 or ::, which connects to the local host.
	ReasonUnspecified
	// ReasonThisNetwork is 0.0.0.0/8 other than 0.0.0.0 itself.
	ReasonThisNetwork
	// ReasonLoopback is 127.0.0.0/8, ::1, and the names localhost and *.localhost.
	ReasonLoopback
	// ReasonPrivate is 10.0.0.0/8, 172.16.0.0/12 and 192.168.0.0/16.
	ReasonPrivate
	// ReasonSharedAddress is the carrier-grade NAT range 100.64.0.0/10.
	ReasonSharedAddress
	// ReasonLinkLocal is 169.254.0.0/16 (cloud metadata lives there) and fe80::/10.
	ReasonLinkLocal
	// ReasonUniqueLocal is IPv6 fc00::/7.
	ReasonUniqueLocal
	// ReasonMulticast is 224.0.0.0/4 and ff00::/8.
	ReasonMulticast
	// ReasonBroadcast is 255.255.255.255.
	ReasonBroadcast
	// ReasonReserved is 240.0.0.0/4.
	ReasonReserved
	// ReasonDocumentation is 192.0.2.0/24, 198.51.100.0/24, 203.0.113.0/24,
	// 2001:db8::/32 and 3fff::/20.
	ReasonDocumentation
	// ReasonBenchmarking is 198.18.0.0/15 and 2001:2::/48.
	ReasonBenchmarking
	// ReasonNAT64 is 64:ff9b::/96 and 64:ff9b:1::/48.
	ReasonNAT64
	// Reason6to4 is 2002::/16.
	Reason6to4
	// ReasonTeredo is 2001::/32.
	ReasonTeredo
	// ReasonNotGlobal is IPv6 outside global unicast 2000::/3 not named above.
	ReasonNotGlobal
	// ReasonSpecialPurpose is any other IANA special-purpose range.
	ReasonSpecialPurpose
	// ReasonPort is a destination port that is not allowed.
	ReasonPort
	// ReasonNetwork is a network other than tcp4 or tcp6.
	ReasonNetwork
	// ReasonScheme is a URL scheme other than https (or http when allowed).
	ReasonScheme
	// ReasonUserinfo is a URL carrying user:password@.
	ReasonUserinfo
	// ReasonHost is a missing, malformed or ambiguous host, including numeric
	// spellings such as 2130706433 or 0x7f.1 that do not denote a refused
	// address.
	ReasonHost
	// ReasonURL is a URL that does not parse or is too long.
	ReasonURL
	// ReasonRedirect is a redirect when redirects are refused, or one too many.
	ReasonRedirect
)

var reasonNames = [...]string{
	ReasonNone:           "none",
	ReasonInvalidAddr:    "invalid-address",
	ReasonUnspecified:    "unspecified",
	ReasonThisNetwork:    "this-network",
	ReasonLoopback:       "loopback",
	ReasonPrivate:        "private",
	ReasonSharedAddress:  "shared-address",
	ReasonLinkLocal:      "link-local",
	ReasonUniqueLocal:    "unique-local",
	ReasonMulticast:      "multicast",
	ReasonBroadcast:      "broadcast",
	ReasonReserved:       "reserved",
	ReasonDocumentation:  "documentation",
	ReasonBenchmarking:   "benchmarking",
	ReasonNAT64:          "nat64",
	Reason6to4:           "6to4",
	ReasonTeredo:         "teredo",
	ReasonNotGlobal:      "not-global",
	ReasonSpecialPurpose: "special-purpose",
	ReasonPort:           "port",
	ReasonNetwork:        "network",
	ReasonScheme:         "scheme",
	ReasonUserinfo:       "userinfo",
	ReasonHost:           "host",
	ReasonURL:            "url",
	ReasonRedirect:       "redirect",
}

// String returns the reason's stable name, e.g. "loopback".
func (r Reason) String() string {
	if int(r) < len(reasonNames) {
		return reasonNames[r]
	}
	return "reason(" + strconv.Itoa(int(r)) + ")"
}

// BlockedError is a refusal by the guard's policy. It matches [ErrBlocked].
// It never carries a URL's path, query or credentials.
type BlockedError struct {
	// Reason is the class of the refusal.
	Reason Reason
	// Addr is the refused address, when the refusal is about an address
	// (including one normalised from a numeric host spelling).
	Addr netip.Addr
	// Embedded is the IPv4 address carried inside Addr (NAT64, 6to4) when
	// that address is itself refused and gave Reason.
	Embedded netip.Addr
	// Port is the destination port, when known.
	Port uint16
	// Host is the host name the refusal is about, when there is one.
	Host string
	// Detail is a short fixed explanation for URL-level refusals.
	Detail string
}

// Error reads "netguard: blocked <what>: <reason>[: detail]".
func (e *BlockedError) Error() string {
	var what string
	switch {
	case e.Addr.IsValid() && e.Port != 0:
		what = netip.AddrPortFrom(e.Addr, e.Port).String()
	case e.Addr.IsValid():
		what = e.Addr.String()
	case e.Host != "":
		what = strconv.Quote(e.Host)
	default:
		what = "destination"
	}
	if e.Host != "" && e.Addr.IsValid() {
		what = strconv.Quote(e.Host) + " (" + what + ")"
	}
	msg := "netguard: blocked " + what + ": " + e.Reason.String()
	if e.Embedded.IsValid() {
		msg += fmt.Sprintf(" (embeds %s)", e.Embedded)
	}
	if e.Detail != "" {
		msg += ": " + e.Detail
	}
	return msg
}

// Is reports whether target is [ErrBlocked].
func (e *BlockedError) Is(target error) bool { return target == ErrBlocked }
