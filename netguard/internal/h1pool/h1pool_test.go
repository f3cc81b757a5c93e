package h1pool

import (
	"bufio"
	"bytes"
	"context"
	"crypto/tls"
	"crypto/x509"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

// newClient is a client on a new Transport with netguard's settings
// (those of its Config defaults) where o leaves them zero.
func newClient(t testing.TB, o Options) *http.Client {
	t.Helper()
	if o.MaxIdlePerHost == 0 {
		o.MaxIdlePerHost = 128
		o.MaxIdle = 4 * 128
	}
	if o.MaxHeaderBytes == 0 {
		o.MaxHeaderBytes = 64 << 10
	}
	if o.ResponseHeaderTimeout == 0 {
		o.ResponseHeaderTimeout = 10 * time.Second
	}
	if o.TLSHandshakeTimeout == 0 {
		o.TLSHandshakeTimeout = 5 * time.Second
	}
	c := &http.Client{Transport: New(o)}
	t.Cleanup(c.CloseIdleConnections)
	return c
}

// transportOf is the Transport of a client from newClient.
func transportOf(c *http.Client) *Transport { return c.Transport.(*Transport) }

// connCountingServer is an httptest server that counts the connections it
// accepted and closed.
type connCountingServer struct {
	*httptest.Server
	opened, closed atomic.Int64
	hits           atomic.Int64
}

func newConnCountingServer(t testing.TB, h http.HandlerFunc) *connCountingServer {
	t.Helper()
	s := &connCountingServer{}
	s.Server = httptest.NewUnstartedServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		s.hits.Add(1)
		h(w, r)
	}))
	s.Config.ConnState = func(_ net.Conn, st http.ConnState) {
		switch st {
		case http.StateNew:
			s.opened.Add(1)
		case http.StateClosed, http.StateHijacked:
			s.closed.Add(1)
		}
	}
	s.Start()
	t.Cleanup(s.Close)
	return s
}

func okHandler(w http.ResponseWriter, _ *http.Request) { _, _ = io.WriteString(w, "ok") }

// do sends one request and reads the whole body.
func do(c *http.Client, method, url string, body io.Reader) (string, *http.Response, error) {
	req, err := http.NewRequest(method, url, body)
	if err != nil {
		return "", nil, err
	}
	resp, err := c.Do(req)
	if err != nil {
		return "", nil, err
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	return string(b), resp, err
}

func TestKeepAliveReusesConnections(t *testing.T) {
	t.Run("sequential", func(t *testing.T) {
		srv := newConnCountingServer(t, func(w http.ResponseWriter, r *http.Request) {
			b, _ := io.ReadAll(r.Body)
			fmt.Fprintf(w, "%s %s %s", r.Method, r.Host, b)
		})
		c := newClient(t, Options{})
		for i := range 10 {
			method, body := http.MethodGet, io.Reader(nil)
			if i%2 == 1 {
				method, body = http.MethodPost, strings.NewReader("payload")
			}
			got, _, err := do(c, method, srv.URL, body)
			if err != nil {
				t.Fatalf("request %d: %v", i, err)
			}
			want := method + " " + srv.Listener.Addr().String() + " "
			if method == http.MethodPost {
				want += "payload"
			}
			if got != want {
				t.Fatalf("request %d: body %q, want %q", i, got, want)
			}
		}
		if n := srv.opened.Load(); n != 1 {
			t.Fatalf("server accepted %d connections for 10 sequential requests, want 1", n)
		}
	})
	t.Run("concurrent", func(t *testing.T) {
		// Each wave's requests meet in the handler, so every wave needs
		// exactly `concurrent` connections at once: the first opens them,
		// the later ones must find them all pooled (a connection goes back
		// to the pool when its body is read, before the caller returns).
		const concurrent = 32
		var mu sync.Mutex
		arrived, gate := 0, make(chan struct{})
		srv := newConnCountingServer(t, func(w http.ResponseWriter, r *http.Request) {
			mu.Lock()
			arrived++
			g := gate
			if arrived == concurrent {
				close(gate)
				arrived, gate = 0, make(chan struct{})
			}
			mu.Unlock()
			select {
			case <-g:
			case <-time.After(10 * time.Second):
			}
			okHandler(w, r)
		})
		c := newClient(t, Options{})
		wave := func() {
			var wg sync.WaitGroup
			start := make(chan struct{})
			for range concurrent {
				wg.Go(func() {
					<-start
					if body, _, err := do(c, http.MethodGet, srv.URL, nil); err != nil || body != "ok" {
						t.Errorf("got %q, %v", body, err)
					}
				})
			}
			close(start)
			wg.Wait()
		}
		wave()
		if first := srv.opened.Load(); first != concurrent {
			t.Fatalf("first wave opened %d connections, want %d", first, concurrent)
		}
		for range 3 {
			wave()
		}
		if more := srv.opened.Load() - concurrent; more != 0 {
			t.Fatalf("later waves opened %d new connections: idle connections are not reused", more)
		}
	})
}

func TestConnectionNotReused(t *testing.T) {
	big := strings.Repeat("x", 64<<10)
	tests := []struct {
		name    string
		handler http.HandlerFunc
		method  string
		read    bool // read the body to the end before Close
		reqHdr  http.Header
	}{
		{"BodyNotRead", func(w http.ResponseWriter, _ *http.Request) { _, _ = io.WriteString(w, big) }, http.MethodGet, false, nil},
		{"ConnectionClose", func(w http.ResponseWriter, _ *http.Request) {
			w.Header().Set("Connection", "close")
			_, _ = io.WriteString(w, "ok")
		}, http.MethodGet, true, nil},
		{"RequestConnectionClose", okHandler, http.MethodGet, true, http.Header{"Connection": {"close"}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			srv := newConnCountingServer(t, tt.handler)
			c := newClient(t, Options{})
			for i := range 2 {
				req, _ := http.NewRequest(tt.method, srv.URL, nil)
				for k, v := range tt.reqHdr {
					req.Header[k] = v
				}
				req.Close = tt.reqHdr.Get("Connection") == "close"
				resp, err := c.Do(req)
				if err != nil {
					t.Fatalf("request %d: %v", i, err)
				}
				if tt.read {
					if _, err := io.Copy(io.Discard, resp.Body); err != nil {
						t.Fatalf("request %d: read body: %v", i, err)
					}
				}
				resp.Body.Close()
			}
			if n := srv.opened.Load(); n != 2 {
				t.Fatalf("server accepted %d connections, want 2 (no reuse)", n)
			}
			if n := transportOf(c).idleCount(); n != 0 {
				t.Fatalf("%d idle connections pooled, want 0", n)
			}
		})
	}
}

// idleCount is the number of pooled connections.
func (t *Transport) idleCount() int {
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.nidle
}

func TestChunkedResponseAndHead(t *testing.T) {
	srv := newConnCountingServer(t, func(w http.ResponseWriter, r *http.Request) {
		if r.Method == http.MethodHead {
			w.Header().Set("Content-Length", "1000")
			return
		}
		for i := range 5 {
			fmt.Fprintf(w, "chunk%d;", i)
			w.(http.Flusher).Flush()
		}
	})
	c := newClient(t, Options{})
	for i := range 3 {
		body, resp, err := do(c, http.MethodGet, srv.URL, nil)
		if err != nil {
			t.Fatal(err)
		}
		if body != "chunk0;chunk1;chunk2;chunk3;chunk4;" {
			t.Fatalf("body %q", body)
		}
		if len(resp.TransferEncoding) != 1 || resp.TransferEncoding[0] != "chunked" {
			t.Fatalf("request %d: TransferEncoding = %v, want chunked", i, resp.TransferEncoding)
		}
		body, resp, err = do(c, http.MethodHead, srv.URL, nil)
		if err != nil || body != "" || resp.ContentLength != 1000 {
			t.Fatalf("HEAD: body %q, length %d, %v; want no body, length 1000", body, resp.ContentLength, err)
		}
	}
	if n := srv.opened.Load(); n != 1 {
		t.Fatalf("server accepted %d connections, want 1", n)
	}
}

func TestStreamsEventByEvent(t *testing.T) {
	ack := make(chan struct{})
	srv := newConnCountingServer(t, func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/event-stream")
		for i := range 3 {
			fmt.Fprintf(w, "data: event %d\n\n", i)
			w.(http.Flusher).Flush()
			// The next event is only sent once the client saw this one:
			// a transport that buffers the response would hang here.
			select {
			case <-ack:
			case <-r.Context().Done():
				return
			case <-time.After(10 * time.Second):
				return
			}
		}
	})
	c := newClient(t, Options{})
	resp, err := c.Get(srv.URL)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	br := bufio.NewReader(resp.Body)
	for i := range 3 {
		line, err := br.ReadString('\n')
		if err != nil {
			t.Fatalf("event %d: %v", i, err)
		}
		if want := fmt.Sprintf("data: event %d\n", i); line != want {
			t.Fatalf("event %d: %q, want %q", i, line, want)
		}
		if _, err := br.ReadString('\n'); err != nil {
			t.Fatal(err)
		}
		ack <- struct{}{}
	}
	if rest, err := io.ReadAll(br); err != nil || len(rest) != 0 {
		t.Fatalf("after the last event: %q, %v", rest, err)
	}
}

func TestCancelInterruptsBlockedIO(t *testing.T) {
	release := make(chan struct{})
	t.Cleanup(func() { close(release) })
	srv := newConnCountingServer(t, func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/body" {
			w.Header().Set("Content-Length", "10")
			_, _ = io.WriteString(w, "part")
			w.(http.Flusher).Flush()
		}
		select {
		case <-release:
		case <-r.Context().Done():
		}
	})
	c := newClient(t, Options{})

	t.Run("headers", func(t *testing.T) {
		ctx, cancel := context.WithCancel(context.Background())
		time.AfterFunc(50*time.Millisecond, cancel)
		req, _ := http.NewRequestWithContext(ctx, http.MethodGet, srv.URL+"/headers", nil)
		start := time.Now()
		_, err := c.Do(req)
		if !errors.Is(err, context.Canceled) {
			t.Fatalf("err = %v, want context.Canceled", err)
		}
		if d := time.Since(start); d > 5*time.Second {
			t.Fatalf("cancel took %s", d)
		}
	})
	t.Run("body", func(t *testing.T) {
		ctx, cancel := context.WithCancel(context.Background())
		req, _ := http.NewRequestWithContext(ctx, http.MethodGet, srv.URL+"/body", nil)
		resp, err := c.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		buf := make([]byte, 4)
		if _, err := io.ReadFull(resp.Body, buf); err != nil {
			t.Fatal(err)
		}
		time.AfterFunc(50*time.Millisecond, cancel)
		_, err = resp.Body.Read(buf)
		if !errors.Is(err, context.Canceled) {
			t.Fatalf("body read err = %v, want context.Canceled", err)
		}
	})
	t.Run("deadline", func(t *testing.T) {
		ctx, cancel := context.WithTimeout(context.Background(), 50*time.Millisecond)
		defer cancel()
		req, _ := http.NewRequestWithContext(ctx, http.MethodGet, srv.URL+"/headers", nil)
		_, err := c.Do(req)
		if !errors.Is(err, context.DeadlineExceeded) {
			t.Fatalf("err = %v, want context.DeadlineExceeded", err)
		}
	})
	t.Run("already cancelled", func(t *testing.T) {
		ctx, cancel := context.WithCancel(context.Background())
		cancel()
		before := srv.hits.Load()
		req, _ := http.NewRequestWithContext(ctx, http.MethodGet, srv.URL+"/headers", nil)
		if _, err := c.Do(req); !errors.Is(err, context.Canceled) {
			t.Fatalf("err = %v, want context.Canceled", err)
		}
		if srv.hits.Load() != before {
			t.Fatal("a request with a cancelled context reached the server")
		}
	})
	if n := transportOf(c).idleCount(); n != 0 {
		t.Fatalf("%d interrupted connections pooled, want 0", n)
	}
}

func TestCloseWhileReading(t *testing.T) {
	release := make(chan struct{})
	t.Cleanup(func() { close(release) })
	srv := newConnCountingServer(t, func(w http.ResponseWriter, r *http.Request) {
		w.(http.Flusher).Flush()
		select {
		case <-release:
		case <-r.Context().Done():
		}
	})
	c := newClient(t, Options{})
	resp, err := c.Get(srv.URL)
	if err != nil {
		t.Fatal(err)
	}
	errc := make(chan error, 1)
	go func() {
		_, err := resp.Body.Read(make([]byte, 10))
		errc <- err
	}()
	time.Sleep(20 * time.Millisecond)
	resp.Body.Close()
	select {
	case err := <-errc:
		if err == nil {
			t.Fatal("read after Close returned no error")
		}
	case <-time.After(5 * time.Second):
		t.Fatal("Close did not interrupt a blocked Read")
	}
}

func TestResponseHeaderTimeout(t *testing.T) {
	release := make(chan struct{})
	t.Cleanup(func() { close(release) })
	srv := newConnCountingServer(t, func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/slow" {
			select {
			case <-release:
			case <-r.Context().Done():
			}
			return
		}
		// Headers at once, body later: the header timeout no longer applies.
		w.(http.Flusher).Flush()
		time.Sleep(500 * time.Millisecond)
		_, _ = io.WriteString(w, "late")
	})
	c := newClient(t, Options{ResponseHeaderTimeout: 200 * time.Millisecond})
	_, err := c.Get(srv.URL + "/slow")
	var ne net.Error
	if !errors.As(err, &ne) || !ne.Timeout() || !strings.Contains(err.Error(), "awaiting response headers") {
		t.Fatalf("err = %v, want a header timeout", err)
	}
	body, _, err := do(c, http.MethodGet, srv.URL+"/late-body", nil)
	if err != nil || body != "late" {
		t.Fatalf("slow body after fast headers: %q, %v", body, err)
	}
}

// replayable is a body reader http.NewRequest does not know, so it sets no
// GetBody.
type opaqueReader struct{ r io.Reader }

func (o *opaqueReader) Read(p []byte) (int, error) { return o.r.Read(p) }

// TestConnectionClosedWhileIdleIsNotUsed: a pooled connection the
// server closed while idle is noticed before a request is written to it,
// so every request, replayable or not, goes once on a new connection.
func TestConnectionClosedWhileIdleIsNotUsed(t *testing.T) {
	tests := []struct {
		name   string
		method string
		body   func() io.Reader
	}{
		{"GET", http.MethodGet, func() io.Reader { return nil }},
		{"POST with GetBody", http.MethodPost, func() io.Reader { return strings.NewReader("payload") }},
		{"POST without GetBody", http.MethodPost, func() io.Reader { return &opaqueReader{strings.NewReader("payload")} }},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			srv := newConnCountingServer(t, func(w http.ResponseWriter, r *http.Request) {
				b, _ := io.ReadAll(r.Body)
				fmt.Fprintf(w, "%s", b)
			})
			c := newClient(t, Options{})
			if _, _, err := do(c, tt.method, srv.URL, tt.body()); err != nil {
				t.Fatal(err)
			}
			// The server drops its idle connection; the client's pool still
			// holds it.
			srv.CloseClientConnections()
			waitFor(t, func() bool { return srv.closed.Load() == 1 })
			body, _, err := do(c, tt.method, srv.URL, tt.body())
			if err != nil {
				t.Fatalf("request after the server closed the idle connection: %v", err)
			}
			if want := map[bool]string{true: "payload", false: ""}[tt.method == http.MethodPost]; body != want {
				t.Fatalf("body %q, want %q", body, want)
			}
			if n := srv.opened.Load(); n != 2 {
				t.Fatalf("server accepted %d connections, want 2", n)
			}
			if n := srv.hits.Load(); n != 2 {
				t.Fatalf("server handled %d requests, want 2 (each once)", n)
			}
		})
	}
}

// TestSentRequestIsRepeatedOnlyIfIdempotent: when a reused connection
// fails after a request went out and before any response byte, the server
// may have acted on it (a duplicate SendMessage would start a second
// task), so only an idempotent request is sent again, as net/http does.
func TestSentRequestIsRepeatedOnlyIfIdempotent(t *testing.T) {
	tests := []struct {
		name      string
		method    string
		header    string
		wantRetry bool
	}{
		{"GET", http.MethodGet, "", true},
		{"POST", http.MethodPost, "", false},
		{"POST with an idempotency key", http.MethodPost, "Idempotency-Key", true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var heads atomic.Int64
			addr := rawServer(t, func(conn net.Conn, br *bufio.Reader) {
				for n := 0; ; n++ {
					if _, err := readRequestHead(br); err != nil {
						return
					}
					if heads.Add(1) == 2 {
						return // the second request: read, then the connection drops unanswered
					}
					if _, err := io.WriteString(conn, "HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nok"); err != nil {
						return
					}
				}
			})
			c := newClient(t, Options{})
			send := func() error {
				req, err := http.NewRequest(tt.method, addr, strings.NewReader("payload"))
				if err != nil {
					t.Fatal(err)
				}
				if tt.header != "" {
					req.Header.Set(tt.header, "k1")
				}
				resp, err := c.Do(req)
				if err != nil {
					return err
				}
				defer resp.Body.Close()
				_, err = io.ReadAll(resp.Body)
				return err
			}
			if err := send(); err != nil {
				t.Fatal(err)
			}
			err := send()
			if tt.wantRetry && err != nil {
				t.Fatalf("idempotent request not repeated: %v", err)
			}
			if !tt.wantRetry && err == nil {
				t.Fatal("a non-idempotent request that reached the server was sent again")
			}
			want := int64(2)
			if tt.wantRetry {
				want = 3
			}
			if n := heads.Load(); n != want {
				t.Fatalf("server read %d requests, want %d", n, want)
			}
		})
	}
}

func waitFor(t *testing.T, cond func() bool) {
	t.Helper()
	for deadline := time.Now().Add(5 * time.Second); !cond(); {
		if time.Now().After(deadline) {
			t.Fatal("condition not reached in 5s")
		}
		time.Sleep(time.Millisecond)
	}
}

func TestNoRetryOnFreshConnectionOrAfterResponseBytes(t *testing.T) {
	var accepted atomic.Int64
	srv := rawServer(t, func(conn net.Conn, br *bufio.Reader) {
		n := accepted.Add(1)
		if _, err := readRequestHead(br); err != nil {
			return
		}
		if n == 1 {
			// First connection: answer, and close after the second request
			// was sent, with a partial status line.
			if _, err := io.WriteString(conn, "HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nok"); err != nil {
				return
			}
			if _, err := readRequestHead(br); err != nil {
				return
			}
			_, _ = io.WriteString(conn, "HTTP/1.1 2")
		}
		// Other connections close without answering.
	})
	c := newClient(t, Options{})
	if body, _, err := do(c, http.MethodGet, srv, nil); err != nil || body != "ok" {
		t.Fatalf("first: %q, %v", body, err)
	}
	if _, _, err := do(c, http.MethodGet, srv, nil); err == nil {
		t.Fatal("a half-received response was not an error")
	}
	if n := accepted.Load(); n != 1 {
		t.Fatalf("server accepted %d connections, want 1: a request that got response bytes was retried", n)
	}
	// A fresh connection closed without an answer is not retried either.
	if _, _, err := do(c, http.MethodGet, srv, nil); err == nil {
		t.Fatal("no error from a connection closed without answer")
	}
	if n := accepted.Load(); n != 2 {
		t.Fatalf("server accepted %d connections, want 2: a request on a fresh connection was retried", n)
	}
}

func TestTLS(t *testing.T) {
	srv := httptest.NewUnstartedServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		fmt.Fprintf(w, "%s tls=%v", r.Proto, r.TLS != nil)
	}))
	srv.EnableHTTP2 = true
	var opened atomic.Int64
	srv.Config.ConnState = func(_ net.Conn, s http.ConnState) {
		if s == http.StateNew {
			opened.Add(1)
		}
	}
	srv.StartTLS()
	t.Cleanup(srv.Close)
	roots := x509.NewCertPool()
	roots.AddCert(srv.Certificate())

	c := newClient(t, Options{TLSConfig: &tls.Config{RootCAs: roots}})
	for range 3 {
		body, resp, err := do(c, http.MethodGet, srv.URL, nil)
		if err != nil {
			t.Fatal(err)
		}
		// The server offers h2; the transport must still get HTTP/1.1.
		if body != "HTTP/1.1 tls=true" {
			t.Fatalf("body %q, want HTTP/1.1 over TLS", body)
		}
		if resp.TLS == nil || resp.ProtoMajor != 1 || (resp.TLS.NegotiatedProtocol != "" && resp.TLS.NegotiatedProtocol != "http/1.1") {
			t.Fatalf("resp.Proto = %s, resp.TLS = %+v, want HTTP/1.1 over TLS", resp.Proto, resp.TLS)
		}
	}
	if n := opened.Load(); n != 1 {
		t.Fatalf("server accepted %d TLS connections, want 1", n)
	}

	// Without the test root the certificate is refused.
	_, _, err := do(newClient(t, Options{}), http.MethodGet, srv.URL, nil)
	var uae x509.UnknownAuthorityError
	if !errors.As(err, &uae) {
		t.Fatalf("err = %v, want x509.UnknownAuthorityError", err)
	}
}

func TestTLSHandshakeTimeout(t *testing.T) {
	// A server that accepts and never speaks TLS.
	srv := rawServer(t, func(conn net.Conn, br *bufio.Reader) { _, _ = io.Copy(io.Discard, br) })
	c := newClient(t, Options{TLSHandshakeTimeout: 50 * time.Millisecond})
	start := time.Now()
	_, _, err := do(c, http.MethodGet, strings.Replace(srv, "http://", "https://", 1), nil)
	if err == nil || !strings.Contains(err.Error(), "TLS handshake") {
		t.Fatalf("err = %v, want a TLS handshake timeout", err)
	}
	if d := time.Since(start); d > 5*time.Second {
		t.Fatalf("handshake timeout took %s", d)
	}
}

func TestRefusesUnsupportedRequests(t *testing.T) {
	srv := newConnCountingServer(t, okHandler)
	tests := []struct {
		name   string
		method string
		header http.Header
		want   string
	}{
		{"ExpectContinue", http.MethodPost, http.Header{"Expect": {"100-continue"}}, "100-continue"},
		{"Upgrade", http.MethodGet, http.Header{"Connection": {"Upgrade"}, "Upgrade": {"websocket"}}, "upgrades"},
		{"HeaderInjection", http.MethodGet, http.Header{"X-A": {"v\r\nX-Injected: 1"}}, "invalid header field value"},
		{"BadHeaderName", http.MethodGet, http.Header{"X A": {"v"}}, "invalid header field name"},
		{"RequestLineInjection", "GET / HTTP/1.1\r\nX:", nil, "invalid method"},
	}
	c := newClient(t, Options{})
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			req := &http.Request{Method: tt.method, URL: mustURL(t, srv.URL), Header: tt.header, Body: io.NopCloser(strings.NewReader("x")), ContentLength: 1}
			_, err := c.Do(req)
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Fatalf("err = %v, want it to mention %q", err, tt.want)
			}
		})
	}
	if n := srv.hits.Load(); n != 0 {
		t.Fatalf("server got %d refused requests", n)
	}
}

func mustURL(t *testing.T, s string) *url.URL {
	t.Helper()
	req, err := http.NewRequest(http.MethodGet, s, nil)
	if err != nil {
		t.Fatal(err)
	}
	return req.URL
}

func TestCloseIdleConnectionsAndReaping(t *testing.T) {
	srv := newConnCountingServer(t, okHandler)
	c := newClient(t, Options{})
	tr := transportOf(c)
	if _, _, err := do(c, http.MethodGet, srv.URL, nil); err != nil {
		t.Fatal(err)
	}
	if tr.idleCount() != 1 {
		t.Fatalf("idle = %d, want 1", tr.idleCount())
	}
	c.CloseIdleConnections()
	if tr.idleCount() != 0 {
		t.Fatalf("idle after CloseIdleConnections = %d, want 0", tr.idleCount())
	}
	waitFor(t, func() bool { return srv.closed.Load() == 1 })

	// Reaping: a short idle timeout closes the pooled connection on its own.
	tr.mu.Lock()
	tr.idleTimeout = 30 * time.Millisecond
	tr.mu.Unlock()
	if _, _, err := do(c, http.MethodGet, srv.URL, nil); err != nil {
		t.Fatal(err)
	}
	waitFor(t, func() bool { return srv.closed.Load() == 2 && tr.idleCount() == 0 })
	tr.mu.Lock()
	pending := tr.reaper != nil
	tr.mu.Unlock()
	if pending {
		t.Fatal("reaper still scheduled with an empty pool")
	}
	if _, _, err := do(c, http.MethodGet, srv.URL, nil); err != nil {
		t.Fatalf("request after reaping: %v", err)
	}
}

func TestPoolLimits(t *testing.T) {
	// All six requests meet in the handler, so six connections are open
	// at once and four of them must be closed instead of pooled.
	var arrived sync.WaitGroup
	arrived.Add(6)
	srv := newConnCountingServer(t, func(w http.ResponseWriter, r *http.Request) {
		arrived.Done()
		arrived.Wait()
		okHandler(w, r)
	})
	c := newClient(t, Options{MaxIdlePerHost: 2, MaxIdle: 8})
	var wg sync.WaitGroup
	for range 6 {
		wg.Go(func() {
			if _, _, err := do(c, http.MethodGet, srv.URL, nil); err != nil {
				t.Error(err)
			}
		})
	}
	wg.Wait()
	if n := srv.opened.Load(); n != 6 {
		t.Fatalf("server accepted %d connections, want 6", n)
	}
	if n := transportOf(c).idleCount(); n != 2 {
		t.Fatalf("idle = %d, want MaxIdleConnsPerHost 2", n)
	}
}

// rawServer serves each connection on 127.0.0.1 with handle, for responses
// net/http's server would never write. It returns the base URL.
func rawServer(t testing.TB, handle func(conn net.Conn, br *bufio.Reader)) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	var wg sync.WaitGroup
	var mu sync.Mutex
	var conns []net.Conn
	wg.Go(func() {
		for {
			conn, err := ln.Accept()
			if err != nil {
				return
			}
			mu.Lock()
			conns = append(conns, conn)
			mu.Unlock()
			wg.Go(func() {
				defer conn.Close()
				handle(conn, bufio.NewReader(conn))
			})
		}
	})
	t.Cleanup(func() {
		ln.Close()
		mu.Lock()
		for _, c := range conns {
			c.Close()
		}
		mu.Unlock()
		wg.Wait()
	})
	return "http://" + ln.Addr().String()
}

// readRequestHead reads one request's head and discards its body (by
// Content-Length only); it returns the request line.
func readRequestHead(br *bufio.Reader) (string, error) {
	first := ""
	length := 0
	for {
		line, err := br.ReadString('\n')
		if err != nil {
			return "", err
		}
		if first == "" {
			first = line
			continue
		}
		if line == "\r\n" {
			break
		}
		if v, ok := strings.CutPrefix(strings.ToLower(line), "content-length:"); ok {
			length, _ = strconv.Atoi(strings.TrimSpace(v))
		}
	}
	_, err := br.Discard(length)
	return first, err
}

func TestMalformedResponses(t *testing.T) {
	tests := []struct {
		name     string
		response string
		wantErr  string // from RoundTrip; empty: RoundTrip succeeds
		wantBody string
		bodyErr  bool // reading the body fails
	}{
		{name: "GarbageStatusLine", response: "garbage\r\n\r\n", wantErr: "malformed HTTP response"},
		{name: "NonNumericStatus", response: "HTTP/1.1 abc OK\r\n\r\n", wantErr: "malformed HTTP status code"},
		{name: "BadVersion", response: "HTTP/9 200 OK\r\n\r\n", wantErr: "malformed HTTP version"},
		{name: "EmptyResponse", response: "", wantErr: "EOF"},
		{name: "TruncatedHeaders", response: "HTTP/1.1 200 OK\r\nContent-Length: 2\r\n", wantErr: "EOF"},
		{name: "OversizedHeaderLine", response: "HTTP/1.1 200 OK\r\nX-Big: " + strings.Repeat("a", 70<<10) + "\r\n\r\n", wantErr: "headers exceed 65536 bytes"},
		{name: "TooManyHeaders", response: "HTTP/1.1 200 OK\r\n" + strings.Repeat("X-H: aaaaaaaaaaaaaaaaaaaaaaaaaaaaaa\r\n", 3000) + "\r\n", wantErr: "headers exceed 65536 bytes"},
		{name: "HeadersJustUnderLimit", response: "HTTP/1.1 200 OK\r\nContent-Length: 2\r\nX-Big: " + strings.Repeat("a", 50<<10) + "\r\n\r\nok", wantBody: "ok"},
		{name: "BadContentLength", response: "HTTP/1.1 200 OK\r\nContent-Length: abc\r\n\r\nok", wantErr: "Content-Length"},
		{name: "ConflictingContentLength", response: "HTTP/1.1 200 OK\r\nContent-Length: 2\r\nContent-Length: 3\r\n\r\nok", wantErr: "Content-Length"},
		{name: "SwitchingProtocols", response: "HTTP/1.1 101 Switching Protocols\r\nUpgrade: websocket\r\n\r\n", wantErr: "protocol upgrades"},
		{name: "InformationalSkipped", response: "HTTP/1.1 103 Early Hints\r\nLink: </a>\r\n\r\nHTTP/1.1 100 Continue\r\n\r\nHTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nok", wantBody: "ok"},
		{name: "EndlessInformational", response: strings.Repeat("HTTP/1.1 103 Early Hints\r\n\r\n", 10), wantErr: "informational responses"},
		{name: "TruncatedBody", response: "HTTP/1.1 200 OK\r\nContent-Length: 10\r\n\r\nabc", bodyErr: true},
		{name: "BadChunk", response: "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\nzz\r\nabc\r\n", bodyErr: true},
		{name: "UnterminatedChunked", response: "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n3\r\nabc\r\n", bodyErr: true},
		{name: "HTTP10CloseDelimited", response: "HTTP/1.0 200 OK\r\n\r\nuntil close", wantBody: "until close"},
		{name: "CloseDelimited11", response: "HTTP/1.1 200 OK\r\n\r\nuntil close", wantBody: "until close"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			srv := rawServer(t, func(conn net.Conn, br *bufio.Reader) {
				if _, err := readRequestHead(br); err != nil {
					return
				}
				_, _ = io.WriteString(conn, tt.response)
			})
			c := newClient(t, Options{})
			resp, err := c.Get(srv)
			if tt.wantErr != "" {
				if err == nil {
					resp.Body.Close()
					t.Fatalf("RoundTrip succeeded, want an error mentioning %q", tt.wantErr)
				}
				if !strings.Contains(err.Error(), tt.wantErr) {
					t.Fatalf("err = %v, want it to mention %q", err, tt.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatalf("RoundTrip: %v", err)
			}
			body, err := io.ReadAll(resp.Body)
			resp.Body.Close()
			if tt.bodyErr {
				if err == nil {
					t.Fatalf("body %q read without error", body)
				}
			} else if err != nil || string(body) != tt.wantBody {
				t.Fatalf("body %q, %v; want %q", body, err, tt.wantBody)
			}
			if n := transportOf(c).idleCount(); n != 0 && (tt.bodyErr || strings.Contains(tt.name, "CloseDelimited")) {
				t.Fatalf("a connection whose response was broken or close-delimited was pooled")
			}
		})
	}
}

// Benchmarks: one POST with a small JSON body and a small JSON answer, like
// a relayed SendMessage, against a minimal server (so that most of the
// allocations and CPU counted are the client's).
func BenchmarkRoundTrip(b *testing.B) {
	const answer = `{"jsonrpc":"2.0","id":1,"result":{"kind":"message","messageId":"m","role":"agent","parts":[{"text":"hello"}]}}`
	resp := []byte("HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: " + strconv.Itoa(len(answer)) + "\r\n\r\n" + answer)
	srv := rawServer(b, func(conn net.Conn, br *bufio.Reader) {
		for {
			if _, err := readRequestHead(br); err != nil {
				return
			}
			if _, err := conn.Write(resp); err != nil {
				return
			}
		}
	})
	payload := []byte(`{"jsonrpc":"2.0","id":1,"method":"SendMessage","params":{"message":{"messageId":"wrk-1","role":"ROLE_USER","parts":[{"text":"hello from the benchmark"}]}}}`)
	for _, v := range []struct {
		name string
		rt   http.RoundTripper
	}{
		{"net-http", &http.Transport{MaxIdleConnsPerHost: 128, MaxIdleConns: 4 * 128, MaxResponseHeaderBytes: 64 << 10}},
		{"h1pool", New(Options{MaxIdlePerHost: 128, MaxIdle: 4 * 128, MaxHeaderBytes: 64 << 10})},
	} {
		c := &http.Client{Transport: v.rt}
		send := func(buf []byte) error {
			req, _ := http.NewRequest(http.MethodPost, srv, bytes.NewReader(payload))
			req.Header.Set("Content-Type", "application/json")
			resp, err := c.Do(req)
			if err != nil {
				return err
			}
			_, err = io.ReadFull(resp.Body, buf)
			if err == nil {
				_, err = resp.Body.Read(buf[:1])
				if err == io.EOF {
					err = nil
				}
			}
			resp.Body.Close()
			return err
		}
		b.Run(v.name+"/serial", func(b *testing.B) {
			b.ReportAllocs()
			buf := make([]byte, len(answer))
			for b.Loop() {
				if err := send(buf); err != nil {
					b.Fatal(err)
				}
			}
		})
		b.Run(v.name+"/parallel", func(b *testing.B) {
			b.ReportAllocs()
			b.SetParallelism(8)
			b.RunParallel(func(pb *testing.PB) {
				buf := make([]byte, len(answer))
				for pb.Next() {
					if err := send(buf); err != nil {
						b.Error(err)
						return
					}
				}
			})
		})
		c.CloseIdleConnections()
	}
}
