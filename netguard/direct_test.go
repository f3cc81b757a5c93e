package netguard

import (
	"context"
	"crypto/x509"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"net/netip"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/a2a-mcp-bridge/bridge/netguard/internal/h1pool"
)

// The tests of this file run a client with Config.HTTP1Direct. In a
// default build its transport is h1pool's; with the build tag
// bridge_noh1pool it is net/http's. Each test holds both to the same
// guard, so that switching the pool off changes no guarantee.

// fakeResolver answers every name with addrs.
type fakeResolver struct{ addrs []netip.Addr }

func (r fakeResolver) LookupNetIP(context.Context, string, string) ([]netip.Addr, error) {
	return r.addrs, nil
}

// directClient is the trusted client with HTTP1Direct.
func directClient(t testing.TB, cfg Config) *http.Client {
	t.Helper()
	cfg.HTTP1Direct = true
	c := Trusted(cfg)
	t.Cleanup(c.CloseIdleConnections)
	return c
}

func TestDirectTransportFollowsTheBuildTag(t *testing.T) {
	base := func(direct bool) baseTransport {
		return Trusted(Config{HTTP1Direct: direct}).Transport.(*roundTripper).base
	}
	if _, ok := base(false).(*http.Transport); !ok {
		t.Fatalf("without HTTP1Direct the transport is %T, want *http.Transport", base(false))
	}
	_, pooled := base(true).(*h1pool.Transport)
	_, stdlib := base(true).(*http.Transport)
	if h1PoolBuilt && !pooled {
		t.Fatalf("with HTTP1Direct the transport is %T, want *h1pool.Transport", base(true))
	}
	if !h1PoolBuilt && !stdlib {
		t.Fatalf("with HTTP1Direct and bridge_noh1pool the transport is %T, want *http.Transport", base(true))
	}
}

func TestDirect_GuardRefusesLoopback(t *testing.T) {
	var hits atomic.Int64
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		hits.Add(1)
		_, _ = io.WriteString(w, "ok")
	}))
	t.Cleanup(srv.Close)
	port := netip.MustParseAddrPort(srv.Listener.Addr().String()).Port()
	loop := netip.MustParseAddr("127.0.0.1")
	for _, tt := range []struct {
		name  string
		allow []netip.Prefix
		url   string
	}{
		{"LiteralLoopback", nil, fmt.Sprintf("http://127.0.0.1:%d/", port)},
		{"NameResolvingToLoopback", nil, fmt.Sprintf("http://rebind.test:%d/", port)},
		{"AllowListedControl", []netip.Prefix{netip.MustParsePrefix("127.0.0.1/32")}, fmt.Sprintf("http://rebind.test:%d/", port)},
	} {
		t.Run(tt.name, func(t *testing.T) {
			g, err := New(Config{
				AllowHTTP: true, Ports: []uint16{port}, UnsafeAllow: tt.allow,
				Resolver: fakeResolver{[]netip.Addr{loop}}, HTTP1Direct: true,
			})
			if err != nil {
				t.Fatal(err)
			}
			var connects atomic.Int64
			g.connectHook = func(network, address string) error {
				connects.Add(1)
				ap, err := netip.ParseAddrPort(address)
				if err != nil || !ap.Addr().Unmap().IsLoopback() {
					return fmt.Errorf("test: refusing to connect to non-loopback %s", address)
				}
				return nil
			}
			t.Cleanup(g.Client().CloseIdleConnections)
			before := hits.Load()
			body, err := get(g.Client(), tt.url)
			if tt.allow != nil {
				if err != nil || body != "ok" {
					t.Fatalf("allow-listed loopback: %q, %v", body, err)
				}
				return
			}
			var be *BlockedError
			if !errors.Is(err, ErrBlocked) || !errors.As(err, &be) || be.Reason != ReasonLoopback {
				t.Fatalf("err = %v, want a loopback refusal", err)
			}
			if connects.Load() != 0 || hits.Load() != before {
				t.Fatalf("refused destination still reached: %d connects, %d hits", connects.Load(), hits.Load()-before)
			}
		})
	}
}

// get sends a GET and reads the whole body.
func get(c *http.Client, url string) (string, error) {
	resp, err := c.Get(url)
	if err != nil {
		return "", err
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	return string(b), err
}

func TestDirect_IgnoresEnvironmentProxy(t *testing.T) {
	var trapped atomic.Int64
	trap := httptest.NewServer(http.HandlerFunc(func(http.ResponseWriter, *http.Request) { trapped.Add(1) }))
	t.Cleanup(trap.Close)
	t.Setenv("HTTP_PROXY", trap.URL)
	t.Setenv("http_proxy", trap.URL)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) { _, _ = io.WriteString(w, "ok") }))
	t.Cleanup(srv.Close)
	if body, err := get(directClient(t, Config{}), srv.URL); err != nil || body != "ok" {
		t.Fatalf("%q, %v", body, err)
	}
	if trapped.Load() != 0 {
		t.Fatal("the request went through the environment's proxy")
	}
}

func TestDirect_ResponseHeaderCap(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		size := 50 << 10
		if r.URL.Path == "/over" {
			size = 70 << 10
		}
		w.Header().Set("X-Big", strings.Repeat("a", size))
		_, _ = io.WriteString(w, "ok")
	}))
	t.Cleanup(srv.Close)
	c := directClient(t, Config{})
	if body, err := get(c, srv.URL+"/under"); err != nil || body != "ok" {
		t.Fatalf("headers under 64 KiB: %q, %v", body, err)
	}
	if _, err := get(c, srv.URL+"/over"); err == nil {
		t.Fatal("headers over 64 KiB were read")
	}
}

func TestDirect_ResponseHeaderTimeout(t *testing.T) {
	release := make(chan struct{})
	srv := httptest.NewServer(http.HandlerFunc(func(_ http.ResponseWriter, r *http.Request) {
		select {
		case <-release:
		case <-r.Context().Done():
		}
	}))
	t.Cleanup(srv.Close)
	t.Cleanup(func() { close(release) })
	_, err := get(directClient(t, Config{ResponseHeaderTimeout: 50 * time.Millisecond}), srv.URL)
	var ne net.Error
	if !errors.As(err, &ne) || !ne.Timeout() || !strings.Contains(err.Error(), "awaiting response headers") {
		t.Fatalf("err = %v, want a response header timeout", err)
	}
}

func TestDirect_TLSHandshakeTimeout(t *testing.T) {
	// A server that accepts and never speaks TLS.
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	done := make(chan struct{})
	go func() {
		defer close(done)
		var conns []net.Conn
		defer func() {
			for _, c := range conns {
				c.Close()
			}
		}()
		for {
			conn, err := ln.Accept()
			if err != nil {
				return
			}
			conns = append(conns, conn)
		}
	}()
	t.Cleanup(func() { ln.Close(); <-done })
	_, err = get(directClient(t, Config{TLSHandshakeTimeout: 50 * time.Millisecond}), "https://"+ln.Addr().String()+"/")
	if err == nil || !strings.Contains(err.Error(), "TLS handshake") {
		t.Fatalf("err = %v, want a TLS handshake timeout", err)
	}
}

func TestDirect_TLSRoots(t *testing.T) {
	srv := httptest.NewTLSServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) { _, _ = io.WriteString(w, "ok") }))
	t.Cleanup(srv.Close)
	roots := x509.NewCertPool()
	roots.AddCert(srv.Certificate())
	if body, err := get(directClient(t, Config{RootCAs: roots}), srv.URL); err != nil || body != "ok" {
		t.Fatalf("with the server's root: %q, %v", body, err)
	}
	_, err := get(directClient(t, Config{}), srv.URL)
	var uae x509.UnknownAuthorityError
	if !errors.As(err, &uae) {
		t.Fatalf("err = %v, want x509.UnknownAuthorityError", err)
	}
}

func TestDirect_BodyCap(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/chunked" {
			w.(http.Flusher).Flush() // no Content-Length: the cap trips while reading
		}
		_, _ = io.WriteString(w, strings.Repeat("x", 100))
	}))
	t.Cleanup(srv.Close)
	c := directClient(t, Config{MaxBodyBytes: 10})
	for _, path := range []string{"/length", "/chunked"} {
		if _, err := get(c, srv.URL+path); !errors.Is(err, ErrBodyTooLarge) {
			t.Fatalf("%s: err = %v, want ErrBodyTooLarge", path, err)
		}
	}
}
