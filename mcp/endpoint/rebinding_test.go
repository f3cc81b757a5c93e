package endpoint

import (
	"context"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/mark3labs/mcp-go/server"

	"github.com/a2a-mcp-bridge/bridge/netguard"
)

// rebindingHosts are Host headers a request to a loopback listener may
// carry: loopback names and addresses in every spelling, and others.
var rebindingHosts = []string{
	"localhost", "localhost:8080", "LOCALHOST:1", "localhost.", "localhost.:80", "[localhost]", "[localhost]:80",
	"127.0.0.1", "127.0.0.1:80", "127.1.2.3:9", "[127.0.0.1]", "[127.0.0.1]:80", "::1", "[::1]", "[::1]:80",
	"[::ffff:127.0.0.1]:80", "::ffff:127.0.0.1", "[::1%25lo]:80", "[fe80::1%25lo]:80", "0.0.0.0:80", "[::]:80",
	"example.com", "example.com:80", "evil.localhost", "localhost.evil.com", "127.0.0.1.nip.io:80", "", ":80",
	"[", "]", "[]", "[::1", "::1]", "localhost]", "[localhost", "10.0.0.1", "2130706433", "0x7f000001", "0177.0.0.1",
}

// TestRebindingAtLeastMCPGo holds the face's DNS-rebinding rule (applied
// first in ServeHTTP) to refuse every request mcp-go's ServeHTTP refuses,
// on loopback and other listeners: the face hands a POST to mcp-go's
// Handle, which skips mcp-go's own check.
func TestRebindingAtLeastMCPGo(t *testing.T) {
	plain := server.NewStreamableHTTPServer(server.NewMCPServer("t", "1"), server.WithStateLess(true))
	refused := 0
	for _, local := range []string{"127.0.0.1:8080", "[::1]:8080", "192.0.2.1:8080"} {
		la, err := net.ResolveTCPAddr("tcp", local)
		if err != nil {
			t.Fatal(err)
		}
		for _, host := range rebindingHosts {
			r := httptest.NewRequest(http.MethodHead, "/mcp", nil)
			r.Host = host
			r = r.WithContext(context.WithValue(r.Context(), http.LocalAddrContextKey, net.Addr(la)))
			w := httptest.NewRecorder()
			plain.ServeHTTP(w, r)
			mcpGo := w.Code == http.StatusForbidden && strings.Contains(w.Body.String(), "invalid Host header")
			if mcpGo {
				refused++
			}
			if mcpGo && !dnsRebinding(r) {
				t.Errorf("listener %s, Host %q: mcp-go refuses it, the face does not", local, host)
			}
		}
	}
	if refused == 0 {
		t.Fatal("mcp-go refused no request: the table does not reach its check")
	}
}

// TestLoopbackListener holds netguard.IsLoopbackAddr's reading of a TCP
// address, which the rebinding check uses for the listener's, to the one of
// its String form.
func TestLoopbackListener(t *testing.T) {
	for _, a := range []*net.TCPAddr{
		{IP: net.IPv4(127, 0, 0, 1), Port: 80}, {IP: net.ParseIP("127.9.8.7"), Port: 1}, {IP: net.IPv6loopback, Port: 443},
		{IP: net.ParseIP("::ffff:127.0.0.1"), Port: 80}, {IP: net.ParseIP("fe80::1"), Port: 80, Zone: "lo"},
		{IP: net.ParseIP("::1"), Port: 80, Zone: "lo"}, {IP: net.IPv4(192, 0, 2, 1), Port: 80}, {IP: net.IPv6zero, Port: 80},
		{IP: net.IPv4zero, Port: 80}, {IP: nil, Port: 80}, {IP: net.IP{127, 0, 0}, Port: 80}, {IP: net.ParseIP("2001:db8::1")},
	} {
		host, _, err := net.SplitHostPort(a.String())
		want := err == nil && netguard.IsLoopbackHost(host)
		if got := netguard.IsLoopbackAddr(a); got != want {
			t.Errorf("%#v (%s): %v, its String form says %v", a, a, got, want)
		}
	}
	if netguard.IsLoopbackAddr(&net.UnixAddr{Name: "/tmp/s", Net: "unix"}) {
		t.Error("a unix socket is not a loopback listener")
	}
}
