package card

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"os"
	"strconv"
	"strings"
	"sync"
	"time"

	jose "github.com/go-jose/go-jose/v4"
)

// StaticJWKS is a fixed set of trusted public keys, for example an upstream's
// JWKS pinned in a file.
type StaticJWKS struct {
	keys map[string]jose.JSONWebKey
}

var _ KeyResolver = (*StaticJWKS)(nil)

// ParseJWKS reads a JSON Web Key Set. Private key material is reduced to its
// public half; symmetric keys are refused.
func ParseJWKS(data []byte) (*StaticJWKS, error) { return parseJWKS(data) }

// LoadJWKSFile reads a JSON Web Key Set from a file.
func LoadJWKSFile(path string) (*StaticJWKS, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("card: jwks: %w", err)
	}
	return parseJWKS(data)
}

func parseJWKS(data []byte) (*StaticJWKS, error) {
	var set jose.JSONWebKeySet
	if err := json.Unmarshal(data, &set); err != nil {
		return nil, fmt.Errorf("card: jwks: %w: %v", ErrKeyFetch, err)
	}
	s := &StaticJWKS{keys: make(map[string]jose.JSONWebKey, len(set.Keys))}
	for _, k := range set.Keys {
		if k.KeyID == "" {
			continue // unaddressable by kid
		}
		if _, sym := k.Key.([]byte); sym {
			return nil, fmt.Errorf("card: jwks: %w: key %q is symmetric", ErrInvalidKey, k.KeyID)
		}
		if !k.IsPublic() {
			k = k.Public()
		}
		if _, dup := s.keys[k.KeyID]; dup {
			return nil, fmt.Errorf("card: jwks: %w: kid %q appears twice", ErrInvalidKey, k.KeyID)
		}
		s.keys[k.KeyID] = k
	}
	return s, nil
}

// Key returns the key with the given kid.
func (s *StaticJWKS) Key(_ context.Context, kid string) (jose.JSONWebKey, error) {
	if k, ok := s.keys[kid]; ok {
		return k, nil
	}
	return jose.JSONWebKey{}, fmt.Errorf("card: key %q: %w", kid, ErrUntrustedKey)
}

// Len returns the number of keys in the set.
func (s *StaticJWKS) Len() int { return len(s.keys) }

// FetchOptions bounds JWKS fetching and caching. Zero fields take the
// defaults named on each.
type FetchOptions struct {
	// MaxBytes caps a JWKS body (default 64 KiB).
	MaxBytes int64
	// DefaultTTL is used when the response has no Cache-Control max-age
	// (default 1 hour).
	DefaultTTL time.Duration
	// MinTTL and MaxTTL bound the max-age a server may ask for (defaults 1
	// minute and 24 hours); no-store and no-cache count as MinTTL.
	MinTTL, MaxTTL time.Duration
	// MaxEntries bounds the number of URLs an HTTPFetcher caches (default 64).
	MaxEntries int
	// Now is the clock (default time.Now).
	Now func() time.Time
}

func (o FetchOptions) withDefaults() FetchOptions {
	if o.MaxBytes <= 0 {
		o.MaxBytes = 64 << 10
	}
	if o.DefaultTTL <= 0 {
		o.DefaultTTL = time.Hour
	}
	if o.MinTTL <= 0 {
		o.MinTTL = time.Minute
	}
	if o.MaxTTL <= 0 {
		o.MaxTTL = 24 * time.Hour
	}
	if o.MaxTTL < o.MinTTL {
		o.MaxTTL = o.MinTTL
	}
	if o.MaxEntries <= 0 {
		o.MaxEntries = 64
	}
	if o.Now == nil {
		o.Now = time.Now
	}
	return o
}

// HTTPFetcher fetches JWKS documents with an injected *http.Client (the
// gateway passes netguard's SSRF-safe client, which also refuses redirects)
// and caches them per URL for the Cache-Control max-age, bounded by
// FetchOptions. It implements JWKSFetcher.
type HTTPFetcher struct {
	client *http.Client
	opts   FetchOptions

	mu    sync.Mutex
	cache map[string]cachedBody
}

type cachedBody struct {
	body    []byte
	expires time.Time
}

var _ JWKSFetcher = (*HTTPFetcher)(nil)

// NewHTTPFetcher returns a caching fetcher using client, which must not be
// nil (there is no fallback to http.DefaultClient).
func NewHTTPFetcher(client *http.Client, opts FetchOptions) (*HTTPFetcher, error) {
	if client == nil {
		return nil, errors.New("card: jwks fetcher: nil http client")
	}
	return &HTTPFetcher{client: client, opts: opts.withDefaults(), cache: make(map[string]cachedBody)}, nil
}

// FetchJWKS returns the JWKS at url, from cache while it is fresh.
func (f *HTTPFetcher) FetchJWKS(ctx context.Context, url string) ([]byte, error) {
	now := f.opts.Now()
	f.mu.Lock()
	if c, ok := f.cache[url]; ok && now.Before(c.expires) {
		f.mu.Unlock()
		return c.body, nil
	}
	f.mu.Unlock()

	body, ttl, err := f.get(ctx, url)
	if err != nil {
		return nil, err
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	if len(f.cache) >= f.opts.MaxEntries {
		for k, c := range f.cache { // drop expired entries, then anything
			if !now.Before(c.expires) {
				delete(f.cache, k)
			}
		}
		for k := range f.cache {
			if len(f.cache) < f.opts.MaxEntries {
				break
			}
			delete(f.cache, k)
		}
	}
	f.cache[url] = cachedBody{body: body, expires: now.Add(ttl)}
	return body, nil
}

// get performs one uncached fetch and returns the body and its cache TTL.
func (f *HTTPFetcher) get(ctx context.Context, url string) ([]byte, time.Duration, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
	if err != nil {
		return nil, 0, fmt.Errorf("card: jwks fetch: %w: %v", ErrKeyFetch, err)
	}
	req.Header.Set("Accept", "application/jwk-set+json, application/json")
	resp, err := f.client.Do(req)
	if err != nil {
		return nil, 0, fmt.Errorf("card: jwks fetch: %w: %v", ErrKeyFetch, err)
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return nil, 0, fmt.Errorf("card: jwks fetch: %w: status %d", ErrKeyFetch, resp.StatusCode)
	}
	body, err := io.ReadAll(io.LimitReader(resp.Body, f.opts.MaxBytes+1))
	if err != nil {
		return nil, 0, fmt.Errorf("card: jwks fetch: %w: %v", ErrKeyFetch, err)
	}
	if int64(len(body)) > f.opts.MaxBytes {
		return nil, 0, fmt.Errorf("card: jwks fetch: %w: body exceeds %d bytes", ErrKeyFetch, f.opts.MaxBytes)
	}
	return body, cacheTTL(resp.Header.Get("Cache-Control"), f.opts), nil
}

// cacheTTL reads max-age from a Cache-Control header, bounded by opts.
func cacheTTL(cc string, opts FetchOptions) time.Duration {
	ttl := opts.DefaultTTL
	for _, d := range strings.Split(cc, ",") {
		d = strings.ToLower(strings.TrimSpace(d))
		switch {
		case d == "no-store" || d == "no-cache":
			return opts.MinTTL
		case strings.HasPrefix(d, "max-age="):
			if n, err := strconv.ParseInt(strings.Trim(d[len("max-age="):], `"`), 10, 64); err == nil && n >= 0 {
				if n > int64(opts.MaxTTL/time.Second) {
					ttl = opts.MaxTTL
				} else {
					ttl = time.Duration(n) * time.Second
				}
			}
		}
	}
	return min(max(ttl, opts.MinTTL), opts.MaxTTL)
}

// RemoteJWKS is an upstream's JWKS pinned by URL (from configuration, not
// from the card). Keys are cached for the response's max-age (bounded); an
// unknown kid triggers at most one refetch per MinRefetch interval, so a
// stream of random kids cannot turn into a stream of fetches. When a refresh
// fails after the cache expired, lookups fail closed.
type RemoteJWKS struct {
	url        string
	fetcher    *HTTPFetcher
	minRefetch time.Duration

	mu        sync.Mutex
	set       *StaticJWKS
	expires   time.Time
	fetchedAt time.Time
}

var _ KeyResolver = (*RemoteJWKS)(nil)

// DefaultMinRefetch is the least time between two kid-miss refetches.
const DefaultMinRefetch = time.Minute

// NewRemoteJWKS returns a resolver for the JWKS at url fetched with client
// (never nil; pass netguard's client).
func NewRemoteJWKS(url string, client *http.Client, opts FetchOptions) (*RemoteJWKS, error) {
	f, err := NewHTTPFetcher(client, opts)
	if err != nil {
		return nil, err
	}
	return &RemoteJWKS{url: url, fetcher: f, minRefetch: DefaultMinRefetch}, nil
}

// Key returns the key for kid, fetching or refreshing the set as needed.
func (r *RemoteJWKS) Key(ctx context.Context, kid string) (jose.JSONWebKey, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	now := r.fetcher.opts.Now()
	if r.set == nil || !now.Before(r.expires) {
		if err := r.refresh(ctx, now); err != nil {
			return jose.JSONWebKey{}, err
		}
	}
	k, err := r.set.Key(ctx, kid)
	if err == nil || now.Sub(r.fetchedAt) < r.minRefetch {
		return k, err
	}
	if err := r.refresh(ctx, now); err != nil {
		return jose.JSONWebKey{}, err
	}
	return r.set.Key(ctx, kid)
}

func (r *RemoteJWKS) refresh(ctx context.Context, now time.Time) error {
	body, ttl, err := r.fetcher.get(ctx, r.url)
	if err != nil {
		return err
	}
	set, err := parseJWKS(body)
	if err != nil {
		return err
	}
	r.set, r.expires, r.fetchedAt = set, now.Add(ttl), now
	return nil
}
