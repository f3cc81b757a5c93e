package netguard_test

import (
	"net/netip"
	"reflect"
	"testing"
	"time"

	"github.com/a2a-mcp-bridge/bridge/netguard"
)

func TestNewRejectsInvalidConfig(t *testing.T) {
	tests := []struct {
		name string
		cfg  netguard.Config
		want string
	}{
		{"host bits in prefix", netguard.Config{UnsafeAllow: []netip.Prefix{netip.MustParsePrefix("127.0.0.1/8")}},
			"netguard: UnsafeAllow[0]: prefix 127.0.0.1/8 has host bits set; write 127.0.0.0/8"},
		{"zero prefix", netguard.Config{UnsafeAllow: []netip.Prefix{{}}},
			`netguard: UnsafeAllow[0]: invalid prefix "invalid Prefix"`},
		{"port zero", netguard.Config{Ports: []uint16{443, 0}},
			"netguard: Ports[1]: port 0 is not a destination port"},
		{"negative redirects", netguard.Config{MaxRedirects: -1},
			"netguard: MaxRedirects: want 0..10, got -1"},
		{"too many redirects", netguard.Config{MaxRedirects: 11},
			"netguard: MaxRedirects: want 0..10, got 11"},
		{"negative dial timeout", netguard.Config{DialTimeout: -time.Second},
			"netguard: DialTimeout: must not be negative, got -1s"},
		{"no overall timeout", netguard.Config{Timeout: -1},
			"netguard: Timeout: must not be negative for untrusted destinations, got -1ns"},
		{"no body cap", netguard.Config{MaxBodyBytes: -1},
			"netguard: MaxBodyBytes: must not be negative for untrusted destinations, got -1"},
		{"every problem at once", netguard.Config{MaxRedirects: 99, MaxBodyBytes: -1},
			"netguard: MaxRedirects: want 0..10, got 99\nnetguard: MaxBodyBytes: must not be negative for untrusted destinations, got -1"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			g, err := netguard.New(tt.cfg)
			if err == nil {
				t.Fatalf("New succeeded (%v), want error %q", g, tt.want)
			}
			if err.Error() != tt.want {
				t.Fatalf("err = %q\nwant  %q", err, tt.want)
			}
			if c, err := netguard.NewClient(tt.cfg); err == nil || c != nil {
				t.Fatalf("NewClient = %v, %v; want nil and an error", c, err)
			}
		})
	}
}

func TestNewClientDefaults(t *testing.T) {
	c, err := netguard.NewClient(netguard.Config{})
	if err != nil {
		t.Fatal(err)
	}
	if c.Timeout != netguard.DefaultTimeout {
		t.Errorf("Timeout = %s, want %s", c.Timeout, netguard.DefaultTimeout)
	}
	if c.Jar != nil {
		t.Error("client has a cookie jar")
	}
	if c.CheckRedirect == nil {
		t.Error("client follows redirects by the default policy")
	}
	if tc := netguard.Trusted(netguard.Config{Timeout: -1}); tc.Timeout != 0 {
		t.Errorf("trusted client with Timeout -1 has Timeout %s, want none", tc.Timeout)
	}
}

func TestConfigWarnings(t *testing.T) {
	tests := []struct {
		name string
		cfg  netguard.Config
		want []string
	}{
		{"safe default", netguard.Config{}, nil},
		{"timeouts are not warnings", netguard.Config{Timeout: time.Second, MaxRedirects: 3}, nil},
		{"loopback allowed", netguard.Config{UnsafeAllow: prefixes("127.0.0.0/8")}, []string{
			"netguard: UnsafeAllow lets untrusted URLs reach 127.0.0.0/8 on any port; use only for tests or a known sidecar",
		}},
		{"metadata inside", netguard.Config{UnsafeAllow: prefixes("169.254.0.0/16")}, []string{
			"netguard: UnsafeAllow lets untrusted URLs reach 169.254.0.0/16 on any port; use only for tests or a known sidecar (this prefix includes the cloud metadata address 169.254.169.254)",
		}},
		{"everything", netguard.Config{UnsafeAllow: prefixes("::/0"), AllowHTTP: true}, []string{
			"netguard: UnsafeAllow lets untrusted URLs reach ::/0 on any port; use only for tests or a known sidecar (this prefix disables SSRF protection for the whole address family)",
			"netguard: AllowHTTP lets untrusted destinations use plain http; responses can be read and altered in transit",
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := tt.cfg.Warnings(); !reflect.DeepEqual(got, tt.want) {
				t.Errorf("Warnings() =\n%q\nwant\n%q", got, tt.want)
			}
		})
	}
}

func TestNewCopiesSlices(t *testing.T) {
	allow := prefixes("127.0.0.1/32")
	g, err := netguard.New(netguard.Config{UnsafeAllow: allow})
	if err != nil {
		t.Fatal(err)
	}
	allow[0] = netip.MustParsePrefix("10.0.0.0/8")
	if err := g.CheckAddrPort(netip.MustParseAddrPort("127.0.0.1:80")); err != nil {
		t.Errorf("changing the caller's slice changed the guard: %v", err)
	}
	wantBlocked(t, g.CheckAddrPort(netip.MustParseAddrPort("10.0.0.1:443")), netguard.ReasonPrivate)
}
