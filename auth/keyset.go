package auth

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"os"
	"sync"
	"sync/atomic"
	"time"

	jose "github.com/go-jose/go-jose/v4"
)

// Key set errors, reported through keySetResult (go-oidc flattens wrapped
// errors into strings, so errors.Is cannot see through it).
var (
	errUnknownKey      = errors.New("no key for the token's kid")
	errKeysUnavailable = errors.New("key set unavailable")
	errBadSignature    = errors.New("signature does not verify")
)

const (
	maxJWKSBytes = 1 << 20
	maxBadKids   = 1024
	// keyRefreshAge is how old fetched keys may get before a background
	// refetch (so keys removed at the IdP stop being accepted).
	keyRefreshAge = time.Hour
)

// keySet implements oidc.KeySet over keys that are either static (a file) or
// fetched from a JWKS URL. Unlike go-oidc's RemoteKeySet it bounds refetches:
// an unknown kid causes at most one fetch per minRefresh, whatever the rate of
// tokens, and known-bad kids are remembered.
type keySet struct {
	algs       []jose.SignatureAlgorithm
	fetch      func(ctx context.Context) ([]jose.JSONWebKey, error) // nil: static
	minRefresh time.Duration
	now        func() time.Time

	fetches atomic.Int64 // JWKS fetches started (for tests and metrics)

	mu        sync.Mutex
	keys      []jose.JSONWebKey
	fetchedAt time.Time // last successful fetch
	triedAt   time.Time // last fetch attempt
	inflight  chan struct{}
	badKids   map[string]time.Time
}

type keySetResultKey struct{}

// keySetResult carries the typed failure out of VerifySignature.
type keySetResult struct{ err error }

func (k *keySet) VerifySignature(ctx context.Context, raw string) ([]byte, error) {
	payload, err := k.verify(ctx, raw)
	if err != nil {
		if res, ok := ctx.Value(keySetResultKey{}).(*keySetResult); ok {
			res.err = err
		}
	}
	return payload, err
}

func (k *keySet) verify(ctx context.Context, raw string) ([]byte, error) {
	jws, err := jose.ParseSigned(raw, k.algs)
	if err != nil {
		return nil, errBadSignature
	}
	if len(jws.Signatures) != 1 {
		return nil, errBadSignature
	}
	kid := jws.Signatures[0].Header.KeyID
	keys, stale := k.lookup(kid)
	if stale {
		k.refreshInBackground()
	}
	if len(keys) == 0 {
		if keys, err = k.refetchFor(ctx, kid); err != nil {
			return nil, err
		}
	}
	alg := jws.Signatures[0].Header.Algorithm
	for i := range keys {
		if keys[i].Algorithm != "" && keys[i].Algorithm != alg {
			continue
		}
		if payload, err := jws.Verify(&keys[i]); err == nil {
			return payload, nil
		}
	}
	return nil, errBadSignature
}

// lookup returns the keys matching kid (all keys when kid is empty) and
// whether fetched keys are due for a refresh.
func (k *keySet) lookup(kid string) ([]jose.JSONWebKey, bool) {
	k.mu.Lock()
	defer k.mu.Unlock()
	var out []jose.JSONWebKey
	for _, key := range k.keys {
		if kid == "" || key.KeyID == kid {
			out = append(out, key)
		}
	}
	now := k.now()
	stale := k.fetch != nil && !k.fetchedAt.IsZero() && now.Sub(k.fetchedAt) > keyRefreshAge &&
		now.Sub(k.triedAt) >= k.minRefresh && k.inflight == nil
	return out, stale
}

// refetchFor fetches the key set for an unknown kid, unless the budget for
// refetches is spent or the kid is known to be bad.
func (k *keySet) refetchFor(ctx context.Context, kid string) ([]jose.JSONWebKey, error) {
	if k.fetch == nil {
		return nil, errUnknownKey
	}
	k.mu.Lock()
	now := k.now()
	if until, ok := k.badKids[kid]; ok && now.Before(until) {
		k.mu.Unlock()
		return nil, errUnknownKey
	}
	wait := k.inflight
	if wait == nil {
		if !k.triedAt.IsZero() && now.Sub(k.triedAt) < k.minRefresh {
			k.markBadLocked(kid, now)
			k.mu.Unlock()
			return nil, errUnknownKey
		}
		wait = k.startFetchLocked(now)
	}
	k.mu.Unlock()

	select {
	case <-wait:
	case <-ctx.Done():
		return nil, errKeysUnavailable
	}
	keys, _ := k.lookup(kid)
	if len(keys) == 0 {
		k.mu.Lock()
		empty := len(k.keys) == 0
		k.markBadLocked(kid, k.now())
		k.mu.Unlock()
		if empty {
			return nil, errKeysUnavailable
		}
		return nil, errUnknownKey
	}
	return keys, nil
}

func (k *keySet) markBadLocked(kid string, now time.Time) {
	if k.badKids == nil || len(k.badKids) >= maxBadKids {
		k.badKids = make(map[string]time.Time)
	}
	k.badKids[kid] = now.Add(k.minRefresh)
}

// startFetchLocked starts one fetch; k.mu must be held. The fetch runs on its
// own context so a cancelled request does not abort it for the others.
func (k *keySet) startFetchLocked(now time.Time) chan struct{} {
	done := make(chan struct{})
	k.inflight = done
	k.triedAt = now
	k.fetches.Add(1)
	go func() {
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		keys, err := k.fetch(ctx)
		cancel()
		k.mu.Lock()
		if err == nil {
			k.keys = keys
			k.fetchedAt = k.now()
			k.badKids = nil
		}
		k.inflight = nil
		k.mu.Unlock()
		close(done)
	}()
	return done
}

func (k *keySet) refreshInBackground() {
	k.mu.Lock()
	if k.inflight == nil {
		k.startFetchLocked(k.now())
	}
	k.mu.Unlock()
}

// remoteJWKS returns a fetch function for url through client.
func remoteJWKS(client *http.Client, url string) func(ctx context.Context) ([]jose.JSONWebKey, error) {
	return func(ctx context.Context) ([]jose.JSONWebKey, error) {
		req, err := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
		if err != nil {
			return nil, fmt.Errorf("auth: fetch JWKS: %w", err)
		}
		req.Header.Set("Accept", "application/json")
		resp, err := client.Do(req)
		if err != nil {
			return nil, fmt.Errorf("auth: fetch JWKS: %w", err)
		}
		defer resp.Body.Close()
		if resp.StatusCode != http.StatusOK {
			return nil, fmt.Errorf("auth: fetch JWKS: status %d", resp.StatusCode)
		}
		body, err := io.ReadAll(io.LimitReader(resp.Body, maxJWKSBytes+1))
		if err != nil {
			return nil, fmt.Errorf("auth: fetch JWKS: %w", err)
		}
		if len(body) > maxJWKSBytes {
			return nil, fmt.Errorf("auth: fetch JWKS: document larger than %d bytes", maxJWKSBytes)
		}
		return parseJWKS(body)
	}
}

// readJWKSFile reads a JWKS document from path.
func readJWKSFile(path string) ([]jose.JSONWebKey, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("auth: read JWKS file: %w", err)
	}
	keys, err := parseJWKS(b)
	if err != nil {
		return nil, err
	}
	if len(keys) == 0 {
		return nil, fmt.Errorf("auth: read JWKS file %s: no usable public signing keys", path)
	}
	return keys, nil
}

// parseJWKS keeps only public, signature-use keys: a symmetric ("oct") or
// private key in a key set is ignored, never used to verify.
func parseJWKS(b []byte) ([]jose.JSONWebKey, error) {
	var set jose.JSONWebKeySet
	if err := json.Unmarshal(b, &set); err != nil {
		return nil, fmt.Errorf("auth: parse JWKS: %w", err)
	}
	out := make([]jose.JSONWebKey, 0, len(set.Keys))
	for _, key := range set.Keys {
		if key.Use != "" && key.Use != "sig" {
			continue
		}
		if _, sym := key.Key.([]byte); sym || !key.IsPublic() || !key.Valid() {
			continue
		}
		out = append(out, key)
	}
	return out, nil
}
