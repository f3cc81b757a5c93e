package netguard_test

import (
	"context"
	"net/netip"
	"testing"

	"github.com/a2a-mcp-bridge/bridge/netguard"
	"github.com/a2a-mcp-bridge/bridge/netguard/netguardtest"
)

// BenchmarkConnectCheck measures the net.Dialer.Control check that runs on
// every connection attempt.
func BenchmarkConnectCheck(b *testing.B) {
	g, err := netguard.New(netguard.Config{UnsafeAllow: prefixes("10.10.0.0/16")})
	if err != nil {
		b.Fatal(err)
	}
	cases := []struct{ name, network, address string }{
		{"public-v4", "tcp4", "93.184.215.14:443"},
		{"public-v6", "tcp6", "[2001:4860:4860::8888]:443"},
		{"allow-listed", "tcp4", "10.10.1.1:8080"},
		{"refused-loopback", "tcp4", "127.0.0.1:443"},
		{"refused-nat64", "tcp6", "[64:ff9b::a00:1]:443"},
	}
	for _, c := range cases {
		b.Run(c.name, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				_ = netguard.Control(g, c.network, c.address)
			}
		})
	}
}

// BenchmarkClassify measures the address classification alone.
func BenchmarkClassify(b *testing.B) {
	for _, s := range []string{"93.184.215.14", "2001:4860:4860::8888", "169.254.169.254"} {
		a := netip.MustParseAddr(s)
		b.Run(s, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				netguard.Classify(a)
			}
		})
	}
}

// BenchmarkCheckURL measures the registration-time check with an in-memory
// resolver.
func BenchmarkCheckURL(b *testing.B) {
	r := &netguardtest.Resolver{Fallback: []netip.Addr{publicAddr}}
	g, err := netguard.New(netguard.Config{Resolver: r})
	if err != nil {
		b.Fatal(err)
	}
	ctx := context.Background()
	for _, u := range []string{"https://agent.example.test/push?token=x", "https://93.184.215.14/push"} {
		b.Run(u, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				if err := g.CheckURL(ctx, u); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
