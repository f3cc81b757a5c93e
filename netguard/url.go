package netguard

import (
	"context"
	"fmt"
	"net/http"
	"net/netip"
	"net/url"
	"strconv"
	"strings"
)

// CheckURL is the early check for a URL that came from outside the config,
// made when it is registered (a push webhook, a card or JWKS location). It
// refuses a URL whose scheme is not https (or http when AllowHTTP is set),
// that carries user:password@, has no host, spells its host as a
// non-canonical number (2130706433, 0x7f000001, 0177.0.0.1, 127.1), names
// localhost, or whose host is, or resolves to, any refused address or a
// disallowed port. Every resolved address is checked.
//
// Refusals match [ErrBlocked]; a failed lookup is returned as a plain error.
// CheckURL does not replace the connect-time check: the name may resolve
// differently when the request is made, which [Guard.Client] handles.
func (g *Guard) CheckURL(ctx context.Context, raw string) error {
	if len(raw) > MaxURLLength {
		return &BlockedError{Reason: ReasonURL, Detail: fmt.Sprintf("url longer than %d bytes", MaxURLLength)}
	}
	u, err := url.Parse(raw)
	if err != nil {
		return &BlockedError{Reason: ReasonURL, Detail: "url does not parse"}
	}
	t, err := g.target(u)
	if err != nil || t.addr.IsValid() {
		return err
	}
	addrs, err := g.cfg.Resolver.LookupNetIP(ctx, "ip", t.host)
	if err != nil {
		return fmt.Errorf("netguard: resolve %q: %w", t.host, err)
	}
	if len(addrs) == 0 {
		return fmt.Errorf("netguard: resolve %q: no addresses", t.host)
	}
	for _, a := range addrs {
		if err := g.policy.checkAddrPort(netip.AddrPortFrom(a, t.port)); err != nil {
			if be, ok := err.(*BlockedError); ok {
				be.Host = t.host
			}
			return err
		}
	}
	return nil
}

// CheckURLStatic is CheckURL without DNS: the URL-level rules, and the
// address and port policy for a literal address, but no lookup of a name.
// It is the check for a URL a caller registers (a push webhook): asking DNS
// there would tell the caller, by the answer or by how long it took,
// whether an internal name resolves and to what kind of address. A name is
// checked when the request is made, at connect time ([Guard.Client]).
func (g *Guard) CheckURLStatic(raw string) error {
	if len(raw) > MaxURLLength {
		return &BlockedError{Reason: ReasonURL, Detail: fmt.Sprintf("url longer than %d bytes", MaxURLLength)}
	}
	u, err := url.Parse(raw)
	if err != nil {
		return &BlockedError{Reason: ReasonURL, Detail: "url does not parse"}
	}
	_, err = g.target(u)
	return err
}

// checkRequestURL is the per-request URL check of the guarded client.
func (g *Guard) checkRequestURL(req *http.Request) error {
	if len(req.URL.Host)+len(req.URL.Path)+len(req.URL.RawQuery) > MaxURLLength {
		return &BlockedError{Reason: ReasonURL, Detail: fmt.Sprintf("url longer than %d bytes", MaxURLLength)}
	}
	_, err := g.target(req.URL)
	return err
}

// target is where a URL points, as far as can be told without DNS.
type target struct {
	host string     // lower-case host name without trailing dot; empty for literals
	addr netip.Addr // literal address, if the host is one
	port uint16
}

// target applies the URL-level rules and, for a literal address, the address
// and port policy.
func (g *Guard) target(u *url.URL) (target, error) {
	var t target
	switch strings.ToLower(u.Scheme) {
	case "https":
		t.port = 443
	case "http":
		if !g.cfg.AllowHTTP {
			return t, &BlockedError{Reason: ReasonScheme, Detail: "plain http is not allowed; use https"}
		}
		t.port = 80
	default:
		return t, &BlockedError{Reason: ReasonScheme, Detail: "scheme must be https"}
	}
	if u.Opaque != "" {
		return t, &BlockedError{Reason: ReasonURL, Detail: "opaque url"}
	}
	if u.User != nil {
		return t, &BlockedError{Reason: ReasonUserinfo, Detail: "credentials in the url are not allowed"}
	}
	if u.Host == "" {
		return t, &BlockedError{Reason: ReasonHost, Detail: "url has no host"}
	}
	if p := u.Port(); p != "" {
		n, err := strconv.ParseUint(p, 10, 16)
		if err != nil || n == 0 {
			return t, &BlockedError{Reason: ReasonPort, Detail: "invalid port"}
		}
		t.port = uint16(n)
	}
	host := u.Hostname()
	if strings.HasPrefix(u.Host, "[") {
		a, err := netip.ParseAddr(host)
		if err != nil || !a.Is6() {
			return t, &BlockedError{Reason: ReasonHost, Detail: "invalid IPv6 literal"}
		}
		t.addr = a
		return t, g.policy.checkAddrPort(netip.AddrPortFrom(a, t.port))
	}
	host = strings.ToLower(strings.TrimSuffix(host, "."))
	if a, err := netip.ParseAddr(host); err == nil {
		if !a.Is4() {
			return t, &BlockedError{Reason: ReasonHost, Detail: "IPv6 literal without brackets"}
		}
		t.addr = a
		return t, g.policy.checkAddrPort(netip.AddrPortFrom(a, t.port))
	}
	if a, numeric, ok := parseNumericHost(host); numeric {
		if !ok {
			return t, &BlockedError{Reason: ReasonHost, Host: host, Detail: "numeric host is not a valid IPv4 address"}
		}
		r, emb := Classify(a)
		if r == ReasonNone {
			r = ReasonHost
		}
		return t, &BlockedError{Reason: r, Addr: a, Embedded: emb, Host: host, Detail: "non-canonical numeric host"}
	}
	if err := checkHostname(host); err != nil {
		return t, err
	}
	t.host = host
	return t, nil
}

// checkHostname accepts ASCII DNS names (letters, digits, '-', '_', dots) and
// refuses localhost and *.localhost (RFC 6761) without asking DNS.
func checkHostname(host string) error {
	if host == "" || len(host) > 253 {
		return &BlockedError{Reason: ReasonHost, Detail: "host name empty or longer than 253 bytes"}
	}
	for _, label := range strings.Split(host, ".") {
		if label == "" || len(label) > 63 {
			return &BlockedError{Reason: ReasonHost, Host: host, Detail: "empty or overlong label in host name"}
		}
		for i := 0; i < len(label); i++ {
			c := label[i]
			if !(c >= 'a' && c <= 'z' || c >= '0' && c <= '9' || c == '-' || c == '_') {
				return &BlockedError{Reason: ReasonHost, Detail: "host name must be ASCII letters, digits, '-' or '_' (use punycode)"}
			}
		}
	}
	if host == "localhost" || strings.HasSuffix(host, ".localhost") {
		return &BlockedError{Reason: ReasonLoopback, Host: host, Detail: "localhost names are refused"}
	}
	return nil
}
