package netguard_test

import (
	"testing"

	"github.com/a2a-mcp-bridge/bridge/netguard"
)

func TestIsLoopbackHost(t *testing.T) {
	for _, tc := range []struct {
		in   string
		want bool
	}{
		{"127.0.0.1", true},
		{"127.0.0.1:8080", true},
		{"127.255.0.9", true},
		{"127.1.2.3:0", true},
		{"::1", true},
		{"[::1]", true},
		{"[::1]:8080", true},
		{"::ffff:127.0.0.1", true},
		{"[::ffff:127.0.0.1]:80", true},
		{"[::1%lo]:80", true},
		{"localhost", true},
		{"LocalHost", true},
		{"localhost:8080", true},

		{"", false},
		{":8080", false},
		{"0.0.0.0:8080", false},
		{"[::]:8080", false},
		{"10.0.0.1", false},
		{"128.0.0.1", false},
		{"::2", false},
		{"localhost.", false},
		{"localhost.:8080", false},
		{"a.localhost", false},
		{"localhost.evil.example", false},
		{"127.0.0.1.nip.io", false},
		{"127.foo.bar.baz", false},
		{"127.1", false},
		{"2130706433", false},
		{"0x7f000001", false},
		{"[127.0.0.1]", false},
		{"[localhost]:80", false},
		{"example.com:80", false},
	} {
		if got := netguard.IsLoopbackHost(tc.in); got != tc.want {
			t.Errorf("IsLoopbackHost(%q) = %v, want %v", tc.in, got, tc.want)
		}
	}
}
