package netguard_test

import (
	"context"
	"errors"
	"net/netip"
	"strings"
	"testing"

	"github.com/a2a-mcp-bridge/bridge/netguard"
	"github.com/a2a-mcp-bridge/bridge/netguard/netguardtest"
)

func checkURLResolver() *netguardtest.Resolver {
	r := netguardtest.NewResolver()
	r.Set("public.test", []netip.Addr{publicAddr})
	r.Set("public6.test", []netip.Addr{netip.MustParseAddr("2001:4860:4860::8888")})
	r.Set("internal.test", []netip.Addr{netip.MustParseAddr("10.1.2.3")})
	r.Set("metadata.test", []netip.Addr{netip.MustParseAddr("169.254.169.254")})
	r.Set("mixed.test", []netip.Addr{publicAddr, netip.MustParseAddr("127.0.0.1")})
	r.Set("mapped.test", []netip.Addr{netip.MustParseAddr("::ffff:192.168.1.1")})
	r.Set("ula.test", []netip.Addr{netip.MustParseAddr("fd12::1")})
	// A resolver that reads numeric names as IPv4 (as getaddrinfo does).
	r.Set("2130706433", []netip.Addr{netip.MustParseAddr("127.0.0.1")})
	return r
}

func TestCheckURL(t *testing.T) {
	tests := []struct {
		name string
		url  string
		want netguard.Reason // ReasonNone: allowed
		addr string          // the refused address, when one is expected
	}{
		{"public name", "https://public.test/hook", netguard.ReasonNone, ""},
		{"public name trailing dot", "https://public.test./hook", netguard.ReasonNone, ""},
		{"public name upper case", "HTTPS://PUBLIC.TEST/hook", netguard.ReasonNone, ""},
		{"public v6 name", "https://public6.test/", netguard.ReasonNone, ""},
		{"public literal", "https://93.184.215.14/", netguard.ReasonNone, ""},
		{"public v6 literal", "https://[2001:4860:4860::8888]/", netguard.ReasonNone, ""},

		{"plain http", "http://public.test/", netguard.ReasonScheme, ""},
		{"ftp", "ftp://public.test/", netguard.ReasonScheme, ""},
		{"file", "file:///etc/passwd", netguard.ReasonScheme, ""},
		{"gopher", "gopher://public.test:70/", netguard.ReasonScheme, ""},
		{"no scheme", "//public.test/", netguard.ReasonScheme, ""},
		{"opaque", "https:public.test", netguard.ReasonURL, ""},
		{"userinfo", "https://user:secret@public.test/", netguard.ReasonUserinfo, ""},
		{"user only", "https://user@public.test/", netguard.ReasonUserinfo, ""},
		{"no host", "https:///path", netguard.ReasonHost, ""},
		{"unparsable", "https://[::1/", netguard.ReasonURL, ""},
		{"too long", "https://public.test/" + strings.Repeat("a", netguard.MaxURLLength), netguard.ReasonURL, ""},
		{"ssh port", "https://public.test:22/", netguard.ReasonPort, ""},
		{"port zero", "https://public.test:0/", netguard.ReasonPort, ""},
		{"port overflow", "https://public.test:65536/", netguard.ReasonPort, ""},

		{"loopback literal", "https://127.0.0.1/", netguard.ReasonLoopback, "127.0.0.1"},
		{"loopback literal trailing dot", "https://127.0.0.1./", netguard.ReasonLoopback, "127.0.0.1"},
		{"v6 loopback", "https://[::1]/", netguard.ReasonLoopback, "::1"},
		{"mapped loopback", "https://[::ffff:127.0.0.1]/", netguard.ReasonLoopback, "127.0.0.1"},
		{"mapped loopback hex", "https://[::ffff:7f00:1]/", netguard.ReasonLoopback, "127.0.0.1"},
		{"nat64 private", "https://[64:ff9b::a00:1]/", netguard.ReasonPrivate, "64:ff9b::a00:1"},
		{"nat64 metadata", "https://[64:ff9b::a9fe:a9fe]/", netguard.ReasonLinkLocal, "64:ff9b::a9fe:a9fe"},
		{"6to4 loopback", "https://[2002:7f00:1::1]/", netguard.ReasonLoopback, "2002:7f00:1::1"},
		{"teredo", "https://[2001:0:4136:e378:8000:63bf:3fff:fdd2]/", netguard.ReasonTeredo, "2001:0:4136:e378:8000:63bf:3fff:fdd2"},
		{"link-local with zone", "https://[fe80::1%25eth0]/", netguard.ReasonLinkLocal, "fe80::1"},
		{"unspecified", "https://0.0.0.0/", netguard.ReasonUnspecified, "0.0.0.0"},
		{"unspecified v6", "https://[::]/", netguard.ReasonUnspecified, "::"},
		{"metadata literal", "https://169.254.169.254/latest/meta-data/", netguard.ReasonLinkLocal, "169.254.169.254"},
		{"cgnat literal", "https://100.64.0.1/", netguard.ReasonSharedAddress, "100.64.0.1"},

		{"decimal loopback", "https://2130706433/", netguard.ReasonLoopback, "127.0.0.1"},
		{"hex loopback", "https://0x7f000001/", netguard.ReasonLoopback, "127.0.0.1"},
		{"octal loopback", "https://0177.0.0.1/", netguard.ReasonLoopback, "127.0.0.1"},
		{"short loopback", "https://127.1/", netguard.ReasonLoopback, "127.0.0.1"},
		{"mixed radix loopback", "https://0x7f.1/", netguard.ReasonLoopback, "127.0.0.1"},
		{"octal all-in-one", "https://017700000001/", netguard.ReasonLoopback, "127.0.0.1"},
		{"leading zeros", "https://127.000.000.001/", netguard.ReasonLoopback, "127.0.0.1"},
		{"hex metadata", "https://0xa9fea9fe/", netguard.ReasonLinkLocal, "169.254.169.254"},
		{"decimal public still ambiguous", "https://1572394766/", netguard.ReasonHost, "93.184.215.14"},
		{"numeric out of range", "https://4294967296/", netguard.ReasonHost, ""},
		{"name ending in number", "https://foo.123/", netguard.ReasonHost, ""},

		{"percent-encoded loopback", "https://%31%32%37.0.0.1/", netguard.ReasonURL, ""},
		{"percent-encoded hex loopback", "https://%30x7f000001/", netguard.ReasonURL, ""},
		{"v4-compatible v6", "https://[::127.0.0.1]/", netguard.ReasonNotGlobal, "::7f00:1"},

		{"localhost", "https://localhost/", netguard.ReasonLoopback, ""},
		{"localhost trailing dot", "https://LOCALHOST./", netguard.ReasonLoopback, ""},
		{"sub.localhost", "https://api.localhost/", netguard.ReasonLoopback, ""},
		{"unicode host", "https://bücher.test/", netguard.ReasonHost, ""},
		{"empty label", "https://a..test/", netguard.ReasonHost, ""},

		{"name resolving to private", "https://internal.test/", netguard.ReasonPrivate, "10.1.2.3"},
		{"name resolving to metadata", "https://metadata.test/", netguard.ReasonLinkLocal, "169.254.169.254"},
		{"name with one loopback answer", "https://mixed.test/", netguard.ReasonLoopback, "127.0.0.1"},
		{"name resolving to mapped private", "https://mapped.test/", netguard.ReasonPrivate, "192.168.1.1"},
		{"name resolving to ula", "https://ula.test/", netguard.ReasonUniqueLocal, "fd12::1"},
	}
	g, _ := newGuard(t, netguard.Config{Resolver: checkURLResolver()})
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := g.CheckURL(context.Background(), tt.url)
			if tt.want == netguard.ReasonNone {
				if err != nil {
					t.Fatalf("CheckURL(%q) = %v, want nil", tt.url, err)
				}
				return
			}
			be := wantBlocked(t, err, tt.want)
			if tt.addr != "" && be.Addr != netip.MustParseAddr(tt.addr) {
				t.Errorf("Addr = %v, want %s", be.Addr, tt.addr)
			}
			if strings.Contains(err.Error(), "secret") {
				t.Errorf("error %q leaks the URL's credentials", err)
			}
		})
	}
}

func TestCheckURL_LookupFailureIsNotBlocked(t *testing.T) {
	g, _ := newGuard(t, netguard.Config{Resolver: netguardtest.NewResolver()})
	err := g.CheckURL(context.Background(), "https://nowhere.test/")
	if err == nil || errors.Is(err, netguard.ErrBlocked) {
		t.Fatalf("err = %v, want a lookup failure that is not ErrBlocked", err)
	}
	want := `netguard: resolve "nowhere.test": lookup nowhere.test: no such host`
	if err.Error() != want {
		t.Fatalf("err = %q, want %q", err, want)
	}
}

func TestCheckURL_AllowHTTPAndPorts(t *testing.T) {
	tests := []struct {
		name string
		cfg  netguard.Config
		url  string
		want netguard.Reason
	}{
		{"http allowed", netguard.Config{AllowHTTP: true}, "http://public.test/", netguard.ReasonNone},
		{"http default port 80 allowed", netguard.Config{AllowHTTP: true}, "http://public.test:80/", netguard.ReasonNone},
		{"https still fine", netguard.Config{AllowHTTP: true}, "https://public.test/", netguard.ReasonNone},
		{"http on 443 port list", netguard.Config{AllowHTTP: true, Ports: []uint16{443}}, "http://public.test/", netguard.ReasonPort},
		{"custom port", netguard.Config{Ports: []uint16{8443}}, "https://public.test:8443/", netguard.ReasonNone},
		{"allow-listed private, any port", netguard.Config{UnsafeAllow: prefixes("10.0.0.0/8")}, "https://internal.test:9000/", netguard.ReasonNone},
		{"allow-list does not cover metadata", netguard.Config{UnsafeAllow: prefixes("10.0.0.0/8")}, "https://metadata.test/", netguard.ReasonLinkLocal},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			tt.cfg.Resolver = checkURLResolver()
			g, _ := newGuard(t, tt.cfg)
			err := g.CheckURL(context.Background(), tt.url)
			if tt.want == netguard.ReasonNone {
				if err != nil {
					t.Fatalf("CheckURL(%q) = %v, want nil", tt.url, err)
				}
				return
			}
			wantBlocked(t, err, tt.want)
		})
	}
}
