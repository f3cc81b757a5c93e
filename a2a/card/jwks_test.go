package card

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

var errBlocked = errors.New("netguard: blocked: private address")

// allowListFetcher stands in for a netguard-backed fetcher: it serves only
// allow-listed URLs and refuses everything else, recording every call.
type allowListFetcher struct {
	mu      sync.Mutex
	allowed map[string][]byte
	calls   []string
}

var _ JWKSFetcher = (*allowListFetcher)(nil)

func (f *allowListFetcher) FetchJWKS(_ context.Context, u string) ([]byte, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.calls = append(f.calls, u)
	if b, ok := f.allowed[u]; ok {
		return b, nil
	}
	return nil, errBlocked
}

func TestJKUFromTrustedHostVerifies(t *testing.T) {
	const jku = "https://agent.example.com/.well-known/jwks.json"
	ks := &KeySet{Current: newKey(t, ES256), JKU: jku}
	jwks, err := ks.JWKS()
	if err != nil {
		t.Fatal(err)
	}
	fetcher := &allowListFetcher{allowed: map[string][]byte{jku: jwks}}
	res, err := Verify(context.Background(), sign(t, testCard, ks), nil, VerifyOptions{
		RequireSignature: true,
		JKU:              &JKUPolicy{TrustedHosts: []string{"AGENT.example.com"}, Fetcher: fetcher},
	})
	if err != nil {
		t.Fatal(err)
	}
	if res.JKU != jku {
		t.Errorf("result JKU = %q, want %q", res.JKU, jku)
	}
}

func TestJKUIgnoredUnlessAllowed(t *testing.T) {
	const jku = "https://agent.example.com/.well-known/jwks.json"
	ks := &KeySet{Current: newKey(t, ES256), JKU: jku}
	_, err := Verify(context.Background(), sign(t, testCard, ks), nil, VerifyOptions{})
	wantErr(t, err, ErrUntrustedKey)
}

// TestJKUToPrivateAddressRefused: an attacker-controlled jku aimed at the
// metadata service or loopback is never fetched when its host is not trusted,
// and fails closed when the (netguard) fetcher blocks it.
func TestJKUToPrivateAddressRefused(t *testing.T) {
	k := newKey(t, ES256)
	tests := []struct {
		name        string
		jku         string
		trusted     []string
		want        error
		wantFetched bool
	}{
		{"metadata service", "https://169.254.169.254/latest/jwks.json", []string{"agent.example.com"}, ErrJKUNotTrusted, false},
		{"loopback", "https://localhost/jwks.json", []string{"agent.example.com"}, ErrJKUNotTrusted, false},
		{"plain http", "http://agent.example.com/jwks.json", []string{"agent.example.com"}, ErrJKUNotTrusted, false},
		{"credentials in URL", "https://u:p@agent.example.com/jwks.json", []string{"agent.example.com"}, ErrJKUNotTrusted, false},
		{"no trusted hosts", "https://agent.example.com/jwks.json", nil, ErrJKUNotTrusted, false},
		{"trusted name resolving private, blocked by fetcher", "https://internal.example.com/jwks.json", []string{"internal.example.com"}, ErrKeyFetch, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			fetcher := &allowListFetcher{}
			card := sign(t, testCard, &KeySet{Current: k, JKU: tt.jku})
			_, err := Verify(context.Background(), card, &KeySet{Current: newKey(t, ES256)}, VerifyOptions{
				JKU: &JKUPolicy{TrustedHosts: tt.trusted, Fetcher: fetcher},
			})
			wantErr(t, err, tt.want)
			if fetched := len(fetcher.calls) > 0; fetched != tt.wantFetched {
				t.Errorf("fetcher called = %v (%v), want %v", fetched, fetcher.calls, tt.wantFetched)
			}
			if strings.Contains(err.Error(), "u:p@") {
				t.Errorf("error leaks URL credentials: %v", err)
			}
		})
	}
}

// jwksServer serves a JWKS on loopback, counting requests.
type jwksServer struct {
	*httptest.Server
	hits         atomic.Int32
	body         atomic.Value // []byte
	cacheControl string
	status       atomic.Int32
}

func newJWKSServer(t *testing.T, body []byte, cacheControl string) *jwksServer {
	s := &jwksServer{cacheControl: cacheControl}
	s.body.Store(body)
	s.status.Store(http.StatusOK)
	s.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		s.hits.Add(1)
		if s.cacheControl != "" {
			w.Header().Set("Cache-Control", s.cacheControl)
		}
		w.WriteHeader(int(s.status.Load()))
		w.Write(s.body.Load().([]byte))
	}))
	t.Cleanup(s.Close)
	return s
}

type fakeClock struct {
	mu  sync.Mutex
	now time.Time
}

func (c *fakeClock) Now() time.Time { c.mu.Lock(); defer c.mu.Unlock(); return c.now }
func (c *fakeClock) Advance(d time.Duration) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.now = c.now.Add(d)
}

func TestRemoteJWKSRespectsMaxAge(t *testing.T) {
	ks := &KeySet{Current: newKey(t, ES256)}
	jwks, _ := ks.JWKS()
	srv := newJWKSServer(t, jwks, "public, max-age=600")
	clock := &fakeClock{now: time.Unix(1_800_000_000, 0)}
	r, err := NewRemoteJWKS(srv.URL, srv.Client(), FetchOptions{Now: clock.Now})
	if err != nil {
		t.Fatal(err)
	}
	signed := sign(t, testCard, ks)
	verify := func() error {
		_, err := Verify(context.Background(), signed, r, VerifyOptions{RequireSignature: true})
		return err
	}
	for range 3 {
		if err := verify(); err != nil {
			t.Fatal(err)
		}
	}
	if n := srv.hits.Load(); n != 1 {
		t.Fatalf("fetched %d times within max-age, want 1", n)
	}
	clock.Advance(601 * time.Second)
	if err := verify(); err != nil {
		t.Fatal(err)
	}
	if n := srv.hits.Load(); n != 2 {
		t.Fatalf("fetched %d times after max-age, want 2", n)
	}
	// Server down after expiry: fail closed rather than trust stale keys.
	srv.status.Store(http.StatusInternalServerError)
	clock.Advance(601 * time.Second)
	if err := verify(); !errors.Is(err, ErrKeyFetch) {
		t.Fatalf("expired cache with server down: %v, want ErrKeyFetch", err)
	}
}

// TestRemoteJWKSUnknownKIDFloodBounded: random kids cannot turn into a
// stream of JWKS fetches.
func TestRemoteJWKSUnknownKIDFloodBounded(t *testing.T) {
	ks := &KeySet{Current: newKey(t, ES256)}
	jwks, _ := ks.JWKS()
	srv := newJWKSServer(t, jwks, "max-age=3600")
	clock := &fakeClock{now: time.Unix(1_800_000_000, 0)}
	r, err := NewRemoteJWKS(srv.URL, srv.Client(), FetchOptions{Now: clock.Now})
	if err != nil {
		t.Fatal(err)
	}
	for i := range 50 {
		if _, err := r.Key(context.Background(), fmt.Sprintf("random-%d", i)); !errors.Is(err, ErrUntrustedKey) {
			t.Fatalf("unknown kid: %v", err)
		}
	}
	if n := srv.hits.Load(); n != 1 {
		t.Fatalf("%d fetches for a kid flood, want 1", n)
	}
	// A rotation on the server is picked up after the refetch interval.
	newer := &KeySet{Current: newKey(t, EdDSA)}
	body, _ := newer.JWKS()
	srv.body.Store(body)
	clock.Advance(DefaultMinRefetch)
	if _, err := r.Key(context.Background(), newer.Current.KeyID()); err != nil {
		t.Fatalf("rotated key not found after refetch interval: %v", err)
	}
	if n := srv.hits.Load(); n != 2 {
		t.Fatalf("%d fetches, want 2", n)
	}
}

func TestHTTPFetcherCachesAndCapsBody(t *testing.T) {
	srv := newJWKSServer(t, []byte(`{"keys":[]}`), "max-age=60")
	clock := &fakeClock{now: time.Unix(1_800_000_000, 0)}
	f, err := NewHTTPFetcher(srv.Client(), FetchOptions{Now: clock.Now})
	if err != nil {
		t.Fatal(err)
	}
	for range 3 {
		if _, err := f.FetchJWKS(context.Background(), srv.URL); err != nil {
			t.Fatal(err)
		}
	}
	if n := srv.hits.Load(); n != 1 {
		t.Fatalf("%d fetches, want 1", n)
	}

	big := newJWKSServer(t, []byte(strings.Repeat(" ", 70<<10)), "")
	bf, _ := NewHTTPFetcher(big.Client(), FetchOptions{})
	if _, err := bf.FetchJWKS(context.Background(), big.URL); !errors.Is(err, ErrKeyFetch) {
		t.Fatalf("oversized JWKS: %v, want ErrKeyFetch", err)
	}
	if _, err := NewHTTPFetcher(nil, FetchOptions{}); err == nil {
		t.Fatal("nil client accepted")
	}
}

func TestCacheTTLBounds(t *testing.T) {
	opts := FetchOptions{}.withDefaults()
	tests := []struct {
		header string
		want   time.Duration
	}{
		{"", time.Hour},
		{"max-age=600", 10 * time.Minute},
		{"public, MAX-AGE=120, must-revalidate", 2 * time.Minute},
		{"max-age=5", time.Minute},
		{"max-age=99999999999999", 24 * time.Hour},
		{"max-age=-1", time.Hour},
		{"no-store", time.Minute},
		{"no-cache, max-age=600", time.Minute},
		{"max-age=abc", time.Hour},
	}
	for _, tt := range tests {
		if got := cacheTTL(tt.header, opts); got != tt.want {
			t.Errorf("cacheTTL(%q) = %v, want %v", tt.header, got, tt.want)
		}
	}
}
