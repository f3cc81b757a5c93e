package netguard_test

import (
	"context"
	"errors"
	"net/netip"
	"net/url"
	"strings"
	"testing"

	"code.dny.dev/ssrf"

	"github.com/a2a-mcp-bridge/bridge/netguard"
	"github.com/a2a-mcp-bridge/bridge/netguard/netguardtest"
)

var urlSeeds = []string{
	"https://public.test/hook",
	"http://public.test:80/",
	"https://93.184.215.14/",
	"https://[2001:4860:4860::8888]:443/",
	"https://127.0.0.1/",
	"https://[::ffff:127.0.0.1]/",
	"https://[64:ff9b::a00:1]/",
	"https://0.0.0.0/",
	"https://0x7f000001/",
	"https://2130706433/",
	"https://0177.0.0.1/",
	"https://127.1/",
	"https://0x7f.1/",
	"https://127.0.0.1./",
	"https://[fe80::1%25eth0]/",
	"https://user:pass@public.test/",
	"https://localhost./",
	"https://foo.123/",
	"https://public.test:22/",
	"ftp://public.test/",
	"https:public.test",
	"https://[::1/",
	"https://bücher.test/",
}

// FuzzCheckURL: CheckURL never panics; with a resolver that always answers a
// public address, every refusal is a policy refusal; and anything accepted is
// https or http, carries no credentials, and does not spell a refused
// address or a numeric host in any form.
func FuzzCheckURL(f *testing.F) {
	for _, s := range urlSeeds {
		f.Add(s)
	}
	r := &netguardtest.Resolver{Fallback: []netip.Addr{publicAddr}}
	g, err := netguard.New(netguard.Config{AllowHTTP: true, Resolver: r})
	if err != nil {
		f.Fatal(err)
	}
	f.Fuzz(func(t *testing.T, raw string) {
		err := g.CheckURL(context.Background(), raw)
		if err != nil {
			if !errors.Is(err, netguard.ErrBlocked) {
				t.Fatalf("CheckURL(%q) = %v: not a policy refusal although lookups cannot fail", raw, err)
			}
			return
		}
		u, perr := url.Parse(raw)
		if perr != nil {
			t.Fatalf("CheckURL accepted %q, which does not parse: %v", raw, perr)
		}
		if s := strings.ToLower(u.Scheme); s != "https" && s != "http" {
			t.Fatalf("CheckURL accepted scheme %q", u.Scheme)
		}
		if u.User != nil {
			t.Fatalf("CheckURL accepted credentials in %q", raw)
		}
		host := strings.ToLower(strings.TrimSuffix(u.Hostname(), "."))
		if a, err := netip.ParseAddr(host); err == nil {
			if r, _ := netguard.Classify(a); r != netguard.ReasonNone {
				t.Fatalf("CheckURL accepted %q whose host is %s (%s)", raw, a, r)
			}
			return
		}
		if _, numeric, _ := netguard.ParseNumericHost(host); numeric {
			t.Fatalf("CheckURL accepted the numeric host %q", host)
		}
		if host == "localhost" || strings.HasSuffix(host, ".localhost") {
			t.Fatalf("CheckURL accepted %q", host)
		}
	})
}

// FuzzClassify: netguard's named ranges and code.dny.dev/ssrf's IANA table
// agree on what is refused, for every IPv4 and IPv6 address (IPv4-mapped
// addresses are compared as the IPv4 address they carry).
func FuzzClassify(f *testing.F) {
	for _, s := range []string{"127.0.0.1", "93.184.215.14", "100.64.0.0", "255.255.255.255", "::1",
		"::ffff:10.0.0.1", "64:ff9b::a00:1", "2001::1", "2002:7f00:1::1", "2001:4860:4860::8888", "fe80::1", "3fff::1"} {
		f.Add(netip.MustParseAddr(s).AsSlice())
	}
	rules := ssrf.New(ssrf.WithAnyPort())
	f.Fuzz(func(t *testing.T, b []byte) {
		a, ok := netip.AddrFromSlice(b)
		if !ok {
			return
		}
		r, emb := netguard.Classify(a)
		libOK := rules.SafeAddr(a.Unmap()) == nil
		if (r == netguard.ReasonNone) != libOK {
			t.Fatalf("Classify(%s) = %s but ssrf allows = %v", a, r, libOK)
		}
		if emb.IsValid() {
			if er, _ := netguard.Classify(emb); er != r {
				t.Fatalf("Classify(%s) = %s via embedded %s, which classifies as %s", a, r, emb, er)
			}
		}
		if a.Is4() {
			if m, _ := netguard.Classify(netip.AddrFrom16(a.As16())); m != r {
				t.Fatalf("Classify(%s) = %s but its IPv4-mapped form gives %s", a, r, m)
			}
		}
	})
}

// FuzzConnectCheck: the Control check never panics, and whatever it allows
// is a tcp4/tcp6 connection to a public address on port 443.
func FuzzConnectCheck(f *testing.F) {
	f.Add("tcp4", "93.184.215.14:443")
	f.Add("tcp4", "127.0.0.1:443")
	f.Add("tcp6", "[::ffff:127.0.0.1]:443")
	f.Add("tcp6", "[fe80::1%eth0]:443")
	f.Add("tcp6", "[2001:4860:4860::8888]:443")
	f.Add("udp4", "8.8.8.8:53")
	f.Add("tcp4", "93.184.215.14:80")
	g, err := netguard.New(netguard.Config{})
	if err != nil {
		f.Fatal(err)
	}
	f.Fuzz(func(t *testing.T, network, address string) {
		err := netguard.Control(g, network, address)
		if err != nil {
			if !errors.Is(err, netguard.ErrBlocked) {
				t.Fatalf("Control(%q, %q) = %v, not ErrBlocked", network, address, err)
			}
			return
		}
		ap, perr := netip.ParseAddrPort(address)
		if perr != nil || (network != "tcp4" && network != "tcp6") || ap.Port() != 443 {
			t.Fatalf("Control allowed %q %q", network, address)
		}
		if r, _ := netguard.Classify(ap.Addr()); r != netguard.ReasonNone {
			t.Fatalf("Control allowed %s (%s)", address, r)
		}
	})
}

// FuzzParseNumericHost: the inet_aton-style parser never panics and agrees
// with netip on canonical dotted quads.
func FuzzParseNumericHost(f *testing.F) {
	for _, s := range []string{"127.0.0.1", "2130706433", "0x7f000001", "0177.0.0.1", "127.1", "0x7f.1",
		"4294967296", "1.2.3.4.5", "08.1", "foo.123", "example.com", "0x", "."} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, host string) {
		a, numeric, ok := netguard.ParseNumericHost(host)
		if ok && !numeric {
			t.Fatalf("ParseNumericHost(%q) ok but not numeric", host)
		}
		if ok && !a.Is4() {
			t.Fatalf("ParseNumericHost(%q) = %s, not IPv4", host, a)
		}
		if want, err := netip.ParseAddr(host); err == nil && want.Is4() && want.Zone() == "" {
			if !ok || a != want {
				t.Fatalf("ParseNumericHost(%q) = %s, %v; netip says %s", host, a, ok, want)
			}
		}
	})
}
