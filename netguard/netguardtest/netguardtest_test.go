package netguardtest_test

import (
	"context"
	"errors"
	"net"
	"net/netip"
	"reflect"
	"testing"

	"github.com/a2a-mcp-bridge/bridge/netguard"
	"github.com/a2a-mcp-bridge/bridge/netguard/netguardtest"
)

func TestResolverScript(t *testing.T) {
	a := netip.MustParseAddr("93.184.215.14")
	b := netip.MustParseAddr("127.0.0.1")
	v6 := netip.MustParseAddr("2001:4860:4860::8888")
	r := netguardtest.NewResolver()
	r.Rebind("rebind.test", a, b)
	r.Set("dual.test", []netip.Addr{a, v6})
	ctx := context.Background()

	tests := []struct {
		network, host string
		want          []netip.Addr
	}{
		{"ip", "rebind.test", []netip.Addr{a}},
		{"ip", "rebind.test", []netip.Addr{b}},
		{"ip", "rebind.test", []netip.Addr{b}},
		{"ip", "dual.test", []netip.Addr{a, v6}},
		{"ip4", "dual.test", []netip.Addr{a}},
		{"ip6", "dual.test", []netip.Addr{v6}},
	}
	for _, tt := range tests {
		got, err := r.LookupNetIP(ctx, tt.network, tt.host)
		if err != nil || !reflect.DeepEqual(got, tt.want) {
			t.Errorf("LookupNetIP(%s, %s) = %v, %v; want %v", tt.network, tt.host, got, err, tt.want)
		}
	}
	if n := r.Lookups("rebind.test"); n != 3 {
		t.Errorf("Lookups = %d, want 3", n)
	}
	_, err := r.LookupNetIP(ctx, "ip", "unknown.test")
	var dnsErr *net.DNSError
	if !errors.As(err, &dnsErr) || !dnsErr.IsNotFound {
		t.Errorf("unknown host: err = %v, want a not-found DNSError", err)
	}
	cctx, cancel := context.WithCancel(ctx)
	cancel()
	if _, err := r.LookupNetIP(cctx, "ip", "dual.test"); !errors.Is(err, context.Canceled) {
		t.Errorf("cancelled lookup: err = %v, want context.Canceled", err)
	}
}

func TestLoopbackConfigReachesHTTPTestServers(t *testing.T) {
	cfg := netguardtest.Config(netguardtest.Loopback())
	if err := cfg.Validate(); err != nil {
		t.Fatal(err)
	}
	g, err := netguard.New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	if err := g.CheckURL(context.Background(), "http://agent.test:8080/card"); err != nil {
		t.Errorf("CheckURL = %v, want nil", err)
	}
	if err := g.CheckURL(context.Background(), "http://169.254.169.254/"); !errors.Is(err, netguard.ErrBlocked) {
		t.Errorf("metadata address: err = %v, want ErrBlocked", err)
	}
	if len(cfg.Warnings()) == 0 {
		t.Error("loopback test config produces no warnings")
	}
}

func TestProxyTrapCountsConnections(t *testing.T) {
	trap := netguardtest.NewProxyTrap(t)
	if trap.Hits() != 0 {
		t.Fatalf("Hits = %d before any connection", trap.Hits())
	}
	c, err := net.Dial("tcp", trap.URL()[len("http://"):])
	if err != nil {
		t.Fatal(err)
	}
	// The trap closes the connection after counting it; wait for that.
	if _, err := c.Read(make([]byte, 1)); err == nil {
		t.Fatal("trap sent data")
	}
	c.Close()
	if trap.Hits() != 1 {
		t.Fatalf("Hits = %d, want 1", trap.Hits())
	}
}
