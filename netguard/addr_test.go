package netguard_test

import (
	"errors"
	"net/netip"
	"testing"

	"github.com/a2a-mcp-bridge/bridge/netguard"
)

func TestClassify(t *testing.T) {
	R := netguard.ReasonNone
	tests := []struct {
		addr     string
		want     netguard.Reason
		embedded string
	}{
		// 0.0.0.0/8 and its edges.
		{"0.0.0.0", netguard.ReasonUnspecified, ""},
		{"0.0.0.1", netguard.ReasonThisNetwork, ""},
		{"0.255.255.255", netguard.ReasonThisNetwork, ""},
		{"1.0.0.0", R, ""},
		// Private ranges, both edges and just outside.
		{"9.255.255.255", R, ""},
		{"10.0.0.0", netguard.ReasonPrivate, ""},
		{"10.255.255.255", netguard.ReasonPrivate, ""},
		{"11.0.0.0", R, ""},
		{"172.15.255.255", R, ""},
		{"172.16.0.0", netguard.ReasonPrivate, ""},
		{"172.31.255.255", netguard.ReasonPrivate, ""},
		{"172.32.0.0", R, ""},
		{"192.167.255.255", R, ""},
		{"192.168.0.0", netguard.ReasonPrivate, ""},
		{"192.168.255.255", netguard.ReasonPrivate, ""},
		{"192.169.0.0", R, ""},
		// CGNAT 100.64.0.0/10.
		{"100.63.255.255", R, ""},
		{"100.64.0.0", netguard.ReasonSharedAddress, ""},
		{"100.127.255.255", netguard.ReasonSharedAddress, ""},
		{"100.128.0.0", R, ""},
		// Loopback.
		{"126.255.255.255", R, ""},
		{"127.0.0.0", netguard.ReasonLoopback, ""},
		{"127.0.0.1", netguard.ReasonLoopback, ""},
		{"127.255.255.255", netguard.ReasonLoopback, ""},
		{"128.0.0.0", R, ""},
		// Link-local, cloud metadata.
		{"169.253.255.255", R, ""},
		{"169.254.0.0", netguard.ReasonLinkLocal, ""},
		{"169.254.169.254", netguard.ReasonLinkLocal, ""},
		{"169.254.255.255", netguard.ReasonLinkLocal, ""},
		{"169.255.0.0", R, ""},
		// Special purpose and documentation.
		{"192.0.0.0", netguard.ReasonSpecialPurpose, ""},
		{"192.0.0.170", netguard.ReasonSpecialPurpose, ""},
		{"192.0.1.0", R, ""},
		{"192.0.2.0", netguard.ReasonDocumentation, ""},
		{"192.0.2.255", netguard.ReasonDocumentation, ""},
		{"192.0.3.0", R, ""},
		{"192.88.99.1", netguard.ReasonSpecialPurpose, ""},
		{"198.17.255.255", R, ""},
		{"198.18.0.0", netguard.ReasonBenchmarking, ""},
		{"198.19.255.255", netguard.ReasonBenchmarking, ""},
		{"198.20.0.0", R, ""},
		{"198.51.100.7", netguard.ReasonDocumentation, ""},
		{"203.0.113.255", netguard.ReasonDocumentation, ""},
		{"203.0.114.0", R, ""},
		// Multicast, reserved, broadcast.
		{"223.255.255.255", R, ""},
		{"224.0.0.0", netguard.ReasonMulticast, ""},
		{"239.255.255.255", netguard.ReasonMulticast, ""},
		{"240.0.0.0", netguard.ReasonReserved, ""},
		{"255.255.255.254", netguard.ReasonReserved, ""},
		{"255.255.255.255", netguard.ReasonBroadcast, ""},
		// Public.
		{"8.8.8.8", R, ""},
		{"93.184.215.14", R, ""},
		// IPv6.
		{"::", netguard.ReasonUnspecified, ""},
		{"::1", netguard.ReasonLoopback, ""},
		{"::2", netguard.ReasonNotGlobal, ""},
		{"::127.0.0.1", netguard.ReasonNotGlobal, ""},
		{"::ffff:127.0.0.1", netguard.ReasonLoopback, ""},
		{"::ffff:169.254.169.254", netguard.ReasonLinkLocal, ""},
		{"::ffff:93.184.215.14", R, ""},
		{"64:ff9b::a00:1", netguard.ReasonPrivate, "10.0.0.1"},
		{"64:ff9b::7f00:1", netguard.ReasonLoopback, "127.0.0.1"},
		{"64:ff9b::a9fe:a9fe", netguard.ReasonLinkLocal, "169.254.169.254"},
		{"64:ff9b::5db8:d70e", netguard.ReasonNAT64, ""},
		{"64:ff9b:1::1", netguard.ReasonNAT64, ""},
		{"100::1", netguard.ReasonNotGlobal, ""},
		{"fbff:ffff:ffff:ffff:ffff:ffff:ffff:ffff", netguard.ReasonNotGlobal, ""},
		{"fc00::", netguard.ReasonUniqueLocal, ""},
		{"fd00::1", netguard.ReasonUniqueLocal, ""},
		{"fdff:ffff:ffff:ffff:ffff:ffff:ffff:ffff", netguard.ReasonUniqueLocal, ""},
		{"fe80::1", netguard.ReasonLinkLocal, ""},
		{"fe80::1%eth0", netguard.ReasonLinkLocal, ""},
		{"febf:ffff:ffff:ffff:ffff:ffff:ffff:ffff", netguard.ReasonLinkLocal, ""},
		{"fec0::1", netguard.ReasonNotGlobal, ""},
		{"ff02::1", netguard.ReasonMulticast, ""},
		{"1fff:ffff:ffff:ffff:ffff:ffff:ffff:ffff", netguard.ReasonNotGlobal, ""},
		{"2000::", R, ""},
		{"2001::1", netguard.ReasonTeredo, ""},
		{"2001:0:ffff:ffff:ffff:ffff:ffff:ffff", netguard.ReasonTeredo, ""},
		{"2001:1::1", netguard.ReasonSpecialPurpose, ""},
		{"2001:2::1", netguard.ReasonBenchmarking, ""},
		{"2001:db8::1", netguard.ReasonDocumentation, ""},
		{"2001:4860:4860::8888", R, ""},
		{"2002:7f00:1::1", netguard.ReasonLoopback, "127.0.0.1"},
		{"2002:5db8:d70e::1", netguard.Reason6to4, ""},
		{"2003::1", R, ""},
		{"3ffe::1", R, ""},
		{"3fff::1", netguard.ReasonDocumentation, ""},
		{"3fff:fff::", netguard.ReasonDocumentation, ""},
		{"3fff:1000::", R, ""},
		{"4000::1", netguard.ReasonNotGlobal, ""},
	}
	for _, tt := range tests {
		t.Run(tt.addr, func(t *testing.T) {
			got, emb := netguard.Classify(netip.MustParseAddr(tt.addr))
			if got != tt.want {
				t.Errorf("Classify(%s) = %s, want %s", tt.addr, got, tt.want)
			}
			var wantEmb netip.Addr
			if tt.embedded != "" {
				wantEmb = netip.MustParseAddr(tt.embedded)
			}
			if emb != wantEmb {
				t.Errorf("Classify(%s) embedded = %v, want %v", tt.addr, emb, wantEmb)
			}
		})
	}
	if got, _ := netguard.Classify(netip.Addr{}); got != netguard.ReasonInvalidAddr {
		t.Errorf("Classify(zero) = %s, want invalid-address", got)
	}
}

func TestConnectCheck(t *testing.T) {
	tests := []struct {
		name    string
		cfg     netguard.Config
		network string
		address string
		want    netguard.Reason // ReasonNone: allowed
	}{
		{"public https", netguard.Config{}, "tcp4", "93.184.215.14:443", netguard.ReasonNone},
		{"public port 80 without AllowHTTP", netguard.Config{}, "tcp4", "93.184.215.14:80", netguard.ReasonPort},
		{"public port 80 with AllowHTTP", netguard.Config{AllowHTTP: true}, "tcp4", "93.184.215.14:80", netguard.ReasonNone},
		{"public ssh port", netguard.Config{AllowHTTP: true}, "tcp4", "93.184.215.14:22", netguard.ReasonPort},
		{"configured port", netguard.Config{Ports: []uint16{8443}}, "tcp4", "93.184.215.14:8443", netguard.ReasonNone},
		{"configured ports replace 443", netguard.Config{Ports: []uint16{8443}}, "tcp4", "93.184.215.14:443", netguard.ReasonPort},
		{"public v6", netguard.Config{}, "tcp6", "[2001:4860:4860::8888]:443", netguard.ReasonNone},
		{"loopback", netguard.Config{}, "tcp4", "127.0.0.1:443", netguard.ReasonLoopback},
		{"metadata", netguard.Config{}, "tcp4", "169.254.169.254:80", netguard.ReasonLinkLocal},
		{"mapped loopback", netguard.Config{}, "tcp6", "[::ffff:127.0.0.1]:443", netguard.ReasonLoopback},
		{"nat64 private", netguard.Config{}, "tcp6", "[64:ff9b::a00:1]:443", netguard.ReasonPrivate},
		{"udp", netguard.Config{}, "udp4", "93.184.215.14:443", netguard.ReasonNetwork},
		{"unix", netguard.Config{}, "unix", "/run/docker.sock", netguard.ReasonNetwork},
		{"plain tcp network", netguard.Config{}, "tcp", "93.184.215.14:443", netguard.ReasonNetwork},
		{"not an address", netguard.Config{}, "tcp4", "example.com:443", netguard.ReasonInvalidAddr},
		{"allow-listed loopback any port", netguard.Config{UnsafeAllow: prefixes("127.0.0.1/32")}, "tcp4", "127.0.0.1:5432", netguard.ReasonNone},
		{"allow-listed range is exact", netguard.Config{UnsafeAllow: prefixes("127.0.0.1/32")}, "tcp4", "127.0.0.2:80", netguard.ReasonLoopback},
		{"allow-listed v4 does not admit ::1", netguard.Config{UnsafeAllow: prefixes("127.0.0.1/32")}, "tcp6", "[::1]:80", netguard.ReasonLoopback},
		{"allow-listed v4 admits its mapped form", netguard.Config{UnsafeAllow: prefixes("127.0.0.1/32")}, "tcp6", "[::ffff:127.0.0.1]:80", netguard.ReasonNone},
		{"allow-listed v4 does not admit its nat64 form", netguard.Config{UnsafeAllow: prefixes("127.0.0.1/32")}, "tcp6", "[64:ff9b::7f00:1]:80", netguard.ReasonLoopback},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			g, err := netguard.New(tt.cfg)
			if err != nil {
				t.Fatal(err)
			}
			err = netguard.Control(g, tt.network, tt.address)
			if tt.want == netguard.ReasonNone {
				if err != nil {
					t.Fatalf("Control(%s, %s) = %v, want allowed", tt.network, tt.address, err)
				}
				return
			}
			wantBlocked(t, err, tt.want)
		})
	}
}

func TestBlockedErrorMessage(t *testing.T) {
	tests := []struct {
		err  *netguard.BlockedError
		want string
	}{
		{&netguard.BlockedError{Reason: netguard.ReasonLoopback, Addr: netip.MustParseAddr("127.0.0.1"), Port: 80},
			"netguard: blocked 127.0.0.1:80: loopback"},
		{&netguard.BlockedError{Reason: netguard.ReasonPrivate, Addr: netip.MustParseAddr("64:ff9b::a00:1"), Embedded: netip.MustParseAddr("10.0.0.1"), Port: 443},
			"netguard: blocked [64:ff9b::a00:1]:443: private (embeds 10.0.0.1)"},
		{&netguard.BlockedError{Reason: netguard.ReasonLinkLocal, Addr: netip.MustParseAddr("169.254.169.254"), Port: 80, Host: "meta.test"},
			`netguard: blocked "meta.test" (169.254.169.254:80): link-local`},
		{&netguard.BlockedError{Reason: netguard.ReasonScheme, Detail: "scheme must be https"},
			"netguard: blocked destination: scheme: scheme must be https"},
	}
	for _, tt := range tests {
		if got := tt.err.Error(); got != tt.want {
			t.Errorf("Error() = %q, want %q", got, tt.want)
		}
		if !errors.Is(tt.err, netguard.ErrBlocked) {
			t.Errorf("errors.Is(%v, ErrBlocked) = false", tt.err)
		}
	}
	if got := netguard.Reason(200).String(); got != "reason(200)" {
		t.Errorf("unknown reason String() = %q", got)
	}
}

func TestParseNumericHost(t *testing.T) {
	tests := []struct {
		host    string
		want    string // "" when not a valid address
		numeric bool
	}{
		{"2130706433", "127.0.0.1", true},
		{"0x7f000001", "127.0.0.1", true},
		{"0X7F000001", "127.0.0.1", true},
		{"0177.0.0.1", "127.0.0.1", true},
		{"0177.0000.0000.0001", "127.0.0.1", true},
		{"127.1", "127.0.0.1", true},
		{"0x7f.1", "127.0.0.1", true},
		{"127.0.1", "127.0.0.1", true},
		{"017700000001", "127.0.0.1", true},
		{"0xa9.0xfe.0xa9.0xfe", "169.254.169.254", true},
		{"0", "0.0.0.0", true},
		{"0x", "0.0.0.0", true},
		{"4294967295", "255.255.255.255", true},
		{"127.0.0.1.", "127.0.0.1", true},
		{"4294967296", "", true},
		{"99999999999999999999999", "", true},
		{"256.0.0.1", "", true},
		{"1.2.3.4.5", "", true},
		{"08.0.0.1", "", true},
		{"1.2.3.09", "", true},
		{"foo.127", "", true},
		{"0xfg", "", false},
		{"example.com", "", false},
		{"1e100.net", "", false},
		{"127.0.0.1x", "", false},
	}
	for _, tt := range tests {
		t.Run(tt.host, func(t *testing.T) {
			addr, numeric, ok := netguard.ParseNumericHost(tt.host)
			if numeric != tt.numeric {
				t.Fatalf("numeric = %v, want %v", numeric, tt.numeric)
			}
			if tt.want == "" {
				if ok {
					t.Fatalf("parsed as %s, want invalid", addr)
				}
				return
			}
			if !ok || addr != netip.MustParseAddr(tt.want) {
				t.Fatalf("got %v (ok %v), want %s", addr, ok, tt.want)
			}
		})
	}
}
