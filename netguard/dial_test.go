package netguard

import (
	"context"
	"errors"
	"net"
	"net/netip"
	"strconv"
	"testing"
)

// The dialer gRPC clients get: the same address and port policy as the
// guarded HTTP client, checked at connect time on the resolved address.
func TestDialContextAppliesTheAddressPolicy(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			_ = c.Close()
		}
	}()
	port := netip.MustParseAddrPort(ln.Addr().String()).Port()
	loop := netip.MustParsePrefix("127.0.0.1/32")
	ps := strconv.Itoa(int(port))
	for _, tt := range []struct {
		name    string
		cfg     Config
		addr    string
		refused bool
	}{
		{"loopback literal refused", Config{Ports: []uint16{port}}, "127.0.0.1:" + ps, true},
		{"name rebound to loopback refused", Config{Ports: []uint16{port}, Resolver: fakeResolver{[]netip.Addr{netip.MustParseAddr("127.0.0.1")}}}, "rebound.example:" + ps, true},
		{"port outside the list refused", Config{Resolver: fakeResolver{[]netip.Addr{netip.MustParseAddr("93.184.215.14")}}}, "public.example:" + ps, true},
		{"allowed prefix and port", Config{UnsafeAllow: []netip.Prefix{loop}, Ports: []uint16{port}}, "127.0.0.1:" + ps, false},
		{"allowed name", Config{UnsafeAllow: []netip.Prefix{loop}, Ports: []uint16{port}, Resolver: fakeResolver{[]netip.Addr{netip.MustParseAddr("127.0.0.1")}}}, "agent.example:" + ps, false},
	} {
		t.Run(tt.name, func(t *testing.T) {
			g, err := New(tt.cfg)
			if err != nil {
				t.Fatal(err)
			}
			c, err := g.DialContext(context.Background(), tt.addr)
			var be *BlockedError
			switch {
			case tt.refused && !errors.As(err, &be):
				t.Fatalf("dial %s: %v, want a policy refusal", tt.addr, err)
			case !tt.refused && err != nil:
				t.Fatalf("dial %s: %v", tt.addr, err)
			}
			if c != nil {
				_ = c.Close()
			}
		})
	}
	if c, err := TrustedDialer(Config{})(context.Background(), "127.0.0.1:"+ps); err != nil {
		t.Fatalf("trusted dialer: %v", err)
	} else {
		_ = c.Close()
	}
}
