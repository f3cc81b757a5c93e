package netguard_test

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"net/netip"
	"net/url"
	"strings"
	"sync"
	"testing"
	"time"

	"golang.org/x/net/http/httpproxy"

	"github.com/a2a-mcp-bridge/bridge/netguard"
	"github.com/a2a-mcp-bridge/bridge/netguard/netguardtest"
)

var loopback4 = netip.MustParseAddr("127.0.0.1")

func get(t *testing.T, c *http.Client, u string) (string, error) {
	t.Helper()
	resp, err := c.Get(u)
	if err != nil {
		return "", err
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	return string(b), err
}

func TestPushURL_RebindToLoopback(t *testing.T) {
	srv := newCountingServer(t, nil)
	u := fmt.Sprintf("http://rebind.test:%d/hook", srv.port())

	r := netguardtest.NewResolver()
	r.Rebind("rebind.test", publicAddr, loopback4)
	g, log := newGuard(t, netguard.Config{AllowHTTP: true, Ports: []uint16{srv.port()}, Resolver: r})

	// Registration: the first answer is public, so the early check passes.
	if err := g.CheckURL(context.Background(), u); err != nil {
		t.Fatalf("CheckURL at registration = %v, want nil (first answer is public)", err)
	}
	// Delivery: the name now resolves to 127.0.0.1; the connect-time check must refuse it.
	_, err := get(t, g.Client(), u)
	be := wantBlocked(t, err, netguard.ReasonLoopback)
	if be.Addr != loopback4 {
		t.Errorf("refused address = %v, want 127.0.0.1", be.Addr)
	}
	if n := srv.hits.Load(); n != 0 {
		t.Errorf("loopback server got %d requests, want 0", n)
	}
	if seen := log.seen(); len(seen) != 0 {
		t.Errorf("connections let through = %v, want none", seen)
	}
	if n := r.Lookups("rebind.test"); n != 2 {
		t.Errorf("lookups = %d, want 2 (registration and delivery)", n)
	}

	// Control: with 127.0.0.1 allow-listed the same flow reaches the server,
	// so the refusal above came from the policy, not from the wiring.
	r2 := netguardtest.NewResolver()
	r2.Rebind("rebind.test", publicAddr, loopback4)
	g2, _ := newGuard(t, netguard.Config{AllowHTTP: true, Ports: []uint16{srv.port()}, Resolver: r2, UnsafeAllow: prefixes("127.0.0.1/32")})
	if err := g2.CheckURL(context.Background(), u); err != nil {
		t.Fatalf("control CheckURL = %v", err)
	}
	if body, err := get(t, g2.Client(), u); err != nil || body != "ok" {
		t.Fatalf("control delivery = %q, %v; want ok", body, err)
	}
	if n := srv.hits.Load(); n != 1 {
		t.Errorf("control: server got %d requests, want 1", n)
	}
}

func TestLiteralAddressSpellingsNeverConnect(t *testing.T) {
	srv := newCountingServer(t, nil)
	port := srv.port()
	// A resolver that reads numeric names as addresses, as getaddrinfo does,
	// so that only the guard stands between these URLs and the server.
	r := netguardtest.Loopback()
	tests := []struct {
		name string
		host string
		want netguard.Reason
	}{
		{"IPv4MappedLoopback", "[::ffff:127.0.0.1]", netguard.ReasonLoopback},
		{"HexLoopback", "0x7f000001", netguard.ReasonLoopback},
		{"DecimalLoopback", "2130706433", netguard.ReasonLoopback},
		{"OctalLoopback", "0177.0.0.1", netguard.ReasonLoopback},
		{"ShortLoopback", "127.1", netguard.ReasonLoopback},
		{"NAT64Private", "[64:ff9b::a00:1]", netguard.ReasonPrivate},
		{"NAT64Loopback", "[64:ff9b::7f00:1]", netguard.ReasonLoopback},
		{"ZeroAddress", "0.0.0.0", netguard.ReasonUnspecified},
		{"V6Unspecified", "[::]", netguard.ReasonUnspecified},
		{"Localhost", "localhost", netguard.ReasonLoopback},
	}
	g, log := newGuard(t, netguard.Config{AllowHTTP: true, Ports: []uint16{port}, Resolver: r})
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			u := fmt.Sprintf("http://%s:%d/", tt.host, port)
			_, err := get(t, g.Client(), u)
			wantBlocked(t, err, tt.want)
			wantBlocked(t, g.CheckURL(context.Background(), u), tt.want)
		})
	}
	if n := srv.hits.Load(); n != 0 {
		t.Errorf("server got %d requests, want 0", n)
	}
	if seen := log.seen(); len(seen) != 0 {
		t.Errorf("connections let through = %v, want none", seen)
	}
}

func TestRedirectToMetadata(t *testing.T) {
	for _, target := range []string{"http://169.254.169.254/latest/meta-data/", "http://metadata.test/latest/meta-data/"} {
		srv := newCountingServer(t, func(w http.ResponseWriter, r *http.Request) {
			http.Redirect(w, r, target, http.StatusFound)
		})
		r := netguardtest.NewResolver()
		r.Set("metadata.test", []netip.Addr{netip.MustParseAddr("169.254.169.254")})
		cfg := netguard.Config{AllowHTTP: true, UnsafeAllow: prefixes("127.0.0.1/32"), Resolver: r}

		t.Run("refused by default/"+target, func(t *testing.T) {
			g, log := newGuard(t, cfg)
			_, err := get(t, g.Client(), srv.URL)
			be := wantBlocked(t, err, netguard.ReasonRedirect)
			if !strings.Contains(be.Error(), "redirects are not followed") {
				t.Errorf("error %q does not say redirects are refused", be)
			}
			for _, a := range log.seen() {
				if strings.HasPrefix(a, "169.254.") {
					t.Errorf("connected to %s", a)
				}
			}
		})
		t.Run("rechecked when following/"+target, func(t *testing.T) {
			cfg := cfg
			cfg.MaxRedirects = 3
			g, log := newGuard(t, cfg)
			_, err := get(t, g.Client(), srv.URL)
			be := wantBlocked(t, err, netguard.ReasonLinkLocal)
			if be.Addr != netip.MustParseAddr("169.254.169.254") {
				t.Errorf("refused address = %v, want 169.254.169.254", be.Addr)
			}
			seen := log.seen()
			if len(seen) != 1 || seen[0] != srv.Listener.Addr().String() {
				t.Errorf("connections let through = %v, want only the first server", seen)
			}
		})
	}
}

func TestRedirectsFollowedWithinLimit(t *testing.T) {
	mux := http.NewServeMux()
	mux.HandleFunc("/a", func(w http.ResponseWriter, r *http.Request) { http.Redirect(w, r, "/b", http.StatusFound) })
	mux.HandleFunc("/b", func(w http.ResponseWriter, r *http.Request) { fmt.Fprint(w, "b") })
	mux.HandleFunc("/loop", func(w http.ResponseWriter, r *http.Request) { http.Redirect(w, r, "/loop", http.StatusFound) })
	srv := newCountingServer(t, mux.ServeHTTP)
	g, _ := newGuard(t, netguard.Config{AllowHTTP: true, UnsafeAllow: prefixes("127.0.0.1/32"), MaxRedirects: 2})

	if body, err := get(t, g.Client(), srv.URL+"/a"); err != nil || body != "b" {
		t.Fatalf("one redirect: got %q, %v; want b", body, err)
	}
	srv.hits.Store(0)
	_, err := get(t, g.Client(), srv.URL+"/loop")
	be := wantBlocked(t, err, netguard.ReasonRedirect)
	if !strings.Contains(be.Error(), "stopped after 2 redirects") {
		t.Errorf("error %q does not name the limit", be)
	}
	if n := srv.hits.Load(); n != 3 {
		t.Errorf("requests = %d, want 3 (first + 2 redirects)", n)
	}
}

func TestEnvironmentProxyIgnored(t *testing.T) {
	trap := netguardtest.NewProxyTrap(t)
	for _, k := range []string{"HTTP_PROXY", "HTTPS_PROXY", "ALL_PROXY", "http_proxy", "https_proxy", "all_proxy"} {
		t.Setenv(k, trap.URL())
	}
	t.Setenv("NO_PROXY", "")
	t.Setenv("no_proxy", "")
	srv := newCountingServer(t, nil)
	u := fmt.Sprintf("http://backend.test:%d/", srv.port())

	// The environment really does route this URL to the trap, and a client
	// that honours it contacts the trap.
	envProxy := httpproxy.FromEnvironment().ProxyFunc()
	parsed, _ := url.Parse(u)
	if p, err := envProxy(parsed); err != nil || p == nil || p.String() != trap.URL() {
		t.Fatalf("environment proxy for %s = %v, %v; want %s", u, p, err, trap.URL())
	}
	honouring := &http.Client{Transport: &http.Transport{Proxy: func(r *http.Request) (*url.URL, error) { return envProxy(r.URL) }}}
	if _, err := get(t, honouring, u); err == nil {
		t.Fatal("request through the trap succeeded; the trap should drop it")
	}
	before := trap.Hits()
	if before == 0 {
		t.Fatal("a proxy-honouring client did not reach the trap; the test cannot tell anything")
	}

	r := netguardtest.NewResolver()
	r.Set("backend.test", []netip.Addr{loopback4})
	g, _ := newGuard(t, netguard.Config{AllowHTTP: true, UnsafeAllow: prefixes("127.0.0.1/32"), Resolver: r})
	clients := map[string]*http.Client{
		"guarded": g.Client(),
		"trusted": netguard.Trusted(netguard.Config{Resolver: r}),
	}
	for name, c := range clients {
		t.Run(name, func(t *testing.T) {
			srv.hits.Store(0)
			if body, err := get(t, c, u); err != nil || body != "ok" {
				t.Fatalf("got %q, %v; want ok", body, err)
			}
			if srv.hits.Load() != 1 {
				t.Errorf("server hits = %d, want 1", srv.hits.Load())
			}
			if trap.Hits() != before {
				t.Errorf("proxy contacted %d times", trap.Hits()-before)
			}
		})
	}
}

func TestResponseBodyOverCap(t *testing.T) {
	const limit = 16
	mux := http.NewServeMux()
	mux.HandleFunc("/exact", func(w http.ResponseWriter, _ *http.Request) { io.WriteString(w, strings.Repeat("x", limit)) })
	mux.HandleFunc("/over-length", func(w http.ResponseWriter, _ *http.Request) {
		w.Header().Set("Content-Length", fmt.Sprint(limit+1))
		io.WriteString(w, strings.Repeat("x", limit+1))
	})
	mux.HandleFunc("/over-chunked", func(w http.ResponseWriter, _ *http.Request) {
		io.WriteString(w, "x")
		w.(http.Flusher).Flush()
		io.WriteString(w, strings.Repeat("x", limit))
	})
	mux.HandleFunc("/big", func(w http.ResponseWriter, _ *http.Request) { io.WriteString(w, strings.Repeat("x", 1<<20+1)) })
	srv := newCountingServer(t, mux.ServeHTTP)

	g, _ := newGuard(t, netguard.Config{AllowHTTP: true, UnsafeAllow: prefixes("127.0.0.1/32"), MaxBodyBytes: limit})
	clients := map[string]*http.Client{
		"guarded": g.Client(),
		"trusted": netguard.Trusted(netguard.Config{MaxBodyBytes: limit}),
	}
	for name, c := range clients {
		t.Run(name+"/exactly the cap", func(t *testing.T) {
			body, err := get(t, c, srv.URL+"/exact")
			if err != nil || len(body) != limit {
				t.Fatalf("got %d bytes, %v; want %d bytes", len(body), err, limit)
			}
		})
		t.Run(name+"/declared length over the cap", func(t *testing.T) {
			_, err := get(t, c, srv.URL+"/over-length")
			if !errors.Is(err, netguard.ErrBodyTooLarge) || errors.Is(err, netguard.ErrBlocked) {
				t.Fatalf("err = %v, want ErrBodyTooLarge", err)
			}
		})
		t.Run(name+"/chunked body over the cap", func(t *testing.T) {
			resp, err := c.Get(srv.URL + "/over-chunked")
			if err != nil {
				t.Fatal(err)
			}
			defer resp.Body.Close()
			if resp.ContentLength != -1 {
				t.Fatalf("ContentLength = %d, want -1 (chunked)", resp.ContentLength)
			}
			b, err := io.ReadAll(resp.Body)
			if !errors.Is(err, netguard.ErrBodyTooLarge) {
				t.Fatalf("ReadAll err = %v, want ErrBodyTooLarge", err)
			}
			if len(b) > limit {
				t.Errorf("read %d bytes, more than the %d-byte cap", len(b), limit)
			}
			if want := fmt.Sprintf("netguard: response body exceeds the %d-byte limit", limit); err.Error() != want {
				t.Errorf("err = %q, want %q", err, want)
			}
		})
	}
	t.Run("trusted stream without a cap", func(t *testing.T) {
		body, err := get(t, netguard.Trusted(netguard.Config{MaxBodyBytes: -1}), srv.URL+"/big")
		if err != nil || len(body) != 1<<20+1 {
			t.Fatalf("got %d bytes, %v; want %d", len(body), err, 1<<20+1)
		}
	})
	t.Run("default cap", func(t *testing.T) {
		_, err := get(t, netguard.Trusted(netguard.Config{}), srv.URL+"/big")
		if !errors.Is(err, netguard.ErrBodyTooLarge) {
			t.Fatalf("err = %v, want ErrBodyTooLarge at the default cap", err)
		}
	})
}

// silentServer accepts connections and never answers.
func silentServer(t *testing.T) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	var mu sync.Mutex
	var conns []net.Conn
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			mu.Lock()
			conns = append(conns, c)
			mu.Unlock()
		}
	}()
	t.Cleanup(func() {
		ln.Close()
		mu.Lock()
		defer mu.Unlock()
		for _, c := range conns {
			c.Close()
		}
	})
	return "http://" + ln.Addr().String() + "/"
}

func TestSilentServerTimesOut(t *testing.T) {
	u := silentServer(t)
	tests := []struct {
		name string
		cfg  netguard.Config
	}{
		{"response header timeout", netguard.Config{ResponseHeaderTimeout: 50 * time.Millisecond}},
		{"whole request timeout", netguard.Config{Timeout: 50 * time.Millisecond}},
	}
	for _, tt := range tests {
		for _, kind := range []string{"guarded", "trusted"} {
			t.Run(tt.name+"/"+kind, func(t *testing.T) {
				cfg := tt.cfg
				cfg.AllowHTTP = true
				cfg.UnsafeAllow = prefixes("127.0.0.1/32")
				c := netguard.Trusted(cfg)
				if kind == "guarded" {
					g, _ := newGuard(t, cfg)
					c = g.Client()
				}
				// The backstop is far longer than the configured timeout; if
				// it is what ends the request, the timeout did not work.
				ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
				defer cancel()
				req, _ := http.NewRequestWithContext(ctx, http.MethodGet, u, nil)
				resp, err := c.Do(req)
				if err == nil {
					resp.Body.Close()
					t.Fatal("request to a silent server succeeded")
				}
				if ctx.Err() != nil {
					t.Fatalf("the backstop context ended the request (%v), not the configured timeout", err)
				}
				var ne net.Error
				if !errors.As(err, &ne) || !ne.Timeout() {
					t.Errorf("err = %v, want a timeout", err)
				}
				if errors.Is(err, netguard.ErrBlocked) {
					t.Errorf("err = %v matches ErrBlocked; a timeout is a network failure", err)
				}
			})
		}
	}
}

func TestUnsafeAllowLetsExactlyThatLoopbackRangeThrough(t *testing.T) {
	srv := newCountingServer(t, nil)
	port := srv.port()
	// A second server on 127.0.0.2, same port: loopback, but outside the allow-list.
	ln, err := net.Listen("tcp", fmt.Sprintf("127.0.0.2:%d", port))
	if err != nil {
		t.Skipf("cannot listen on 127.0.0.2:%d on this machine: %v", port, err)
	}
	other := &countingServer{}
	other.Server = httptest.NewUnstartedServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		other.hits.Add(1)
		fmt.Fprint(w, "other")
	}))
	other.Listener.Close()
	other.Listener = ln
	other.Start()
	t.Cleanup(other.Close)

	r := netguardtest.NewResolver()
	r.Set("one.test", []netip.Addr{loopback4})
	r.Set("two.test", []netip.Addr{netip.MustParseAddr("127.0.0.2")})
	r.Set("both.test", []netip.Addr{netip.MustParseAddr("127.0.0.2"), loopback4})
	g, log := newGuard(t, netguard.Config{AllowHTTP: true, UnsafeAllow: prefixes("127.0.0.1/32"), Resolver: r})

	for _, host := range []string{"127.0.0.1", "one.test", "both.test"} {
		u := fmt.Sprintf("http://%s:%d/", host, port)
		if body, err := get(t, g.Client(), u); err != nil || body != "ok" {
			t.Errorf("GET %s = %q, %v; want ok", u, body, err)
		}
	}
	for _, host := range []string{"127.0.0.2", "two.test", "[::1]"} {
		u := fmt.Sprintf("http://%s:%d/", host, port)
		_, err := get(t, g.Client(), u)
		wantBlocked(t, err, netguard.ReasonLoopback)
	}
	// Every resolved address is checked at registration, too.
	wantBlocked(t, g.CheckURL(context.Background(), fmt.Sprintf("http://both.test:%d/", port)), netguard.ReasonLoopback)

	if n := other.hits.Load(); n != 0 {
		t.Errorf("127.0.0.2 server got %d requests, want 0", n)
	}
	for _, a := range log.seen() {
		if !strings.HasPrefix(a, "127.0.0.1:") {
			t.Errorf("connection let through to %s", a)
		}
	}
	// Sanity: the 127.0.0.2 server is reachable without the guard.
	if body, err := get(t, netguard.Trusted(netguard.Config{}), other.URL); err != nil || body != "other" {
		t.Fatalf("trusted GET %s = %q, %v", other.URL, body, err)
	}
}

func TestHTTPSRequiredByDefault(t *testing.T) {
	srv := httptest.NewTLSServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) { fmt.Fprint(w, "tls") }))
	t.Cleanup(srv.Close)
	port := netip.MustParseAddrPort(srv.Listener.Addr().String()).Port()
	roots := srv.Client().Transport.(*http.Transport).TLSClientConfig.RootCAs

	// httptest's certificate names example.com; the fake resolver sends it to loopback.
	r := netguardtest.NewResolver()
	r.Set("example.com", []netip.Addr{loopback4})
	g, _ := newGuard(t, netguard.Config{UnsafeAllow: prefixes("127.0.0.1/32"), Resolver: r, RootCAs: roots})

	if body, err := get(t, g.Client(), fmt.Sprintf("https://example.com:%d/", port)); err != nil || body != "tls" {
		t.Fatalf("https GET = %q, %v; want tls", body, err)
	}
	_, err := get(t, g.Client(), fmt.Sprintf("http://example.com:%d/", port))
	wantBlocked(t, err, netguard.ReasonScheme)
}

func TestClientRefusesCredentialsInURL(t *testing.T) {
	srv := newCountingServer(t, nil)
	g, _ := newGuard(t, netguard.Config{AllowHTTP: true, UnsafeAllow: prefixes("127.0.0.1/32")})
	u := strings.Replace(srv.URL, "http://", "http://user:secret@", 1)
	_, err := get(t, g.Client(), u)
	wantBlocked(t, err, netguard.ReasonUserinfo)
	if strings.Contains(err.Error(), "secret") {
		t.Errorf("error %q leaks the password", err)
	}
	if n := srv.hits.Load(); n != 0 {
		t.Errorf("server got %d requests, want 0", n)
	}
}

func TestTrustedReachesLoopbackAndRefusesRedirects(t *testing.T) {
	mux := http.NewServeMux()
	mux.HandleFunc("/", func(w http.ResponseWriter, _ *http.Request) { fmt.Fprint(w, "ok") })
	mux.HandleFunc("/moved", func(w http.ResponseWriter, r *http.Request) { http.Redirect(w, r, "/", http.StatusFound) })
	srv := newCountingServer(t, mux.ServeHTTP)

	c := netguard.Trusted(netguard.Config{})
	if body, err := get(t, c, srv.URL); err != nil || body != "ok" {
		t.Fatalf("trusted GET = %q, %v", body, err)
	}
	_, err := get(t, c, srv.URL+"/moved")
	wantBlocked(t, err, netguard.ReasonRedirect)

	c = netguard.Trusted(netguard.Config{MaxRedirects: 1})
	if body, err := get(t, c, srv.URL+"/moved"); err != nil || body != "ok" {
		t.Fatalf("trusted GET with one redirect allowed = %q, %v", body, err)
	}
	_, err = get(t, c, "ftp://"+srv.Listener.Addr().String()+"/")
	wantBlocked(t, err, netguard.ReasonScheme)
}
