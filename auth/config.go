package auth

import (
	"encoding/hex"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"slices"
	"strings"
	"time"

	"github.com/a2a-mcp-bridge/bridge/netguard"
)

// Defaults applied by Config.withDefaults and the constructors.
const (
	DefaultClockSkew          = 30 * time.Second
	MaxClockSkew              = 5 * time.Minute
	DefaultGroupsClaim        = "groups"
	DefaultCacheEntries       = 10000
	DefaultCacheTTL           = 5 * time.Minute
	DefaultIPRate             = 20.0
	DefaultIPBurst            = 40
	DefaultIPClients          = 10000
	DefaultMinRefreshInterval = 30 * time.Second
)

// DefaultAlgorithms is the signature allow-list used when none is configured:
// asymmetric algorithms only. "none" and HS* are never accepted, configured or not.
var DefaultAlgorithms = []string{"RS256", "RS384", "RS512", "PS256", "PS384", "PS512", "ES256", "ES384", "ES512", "EdDSA"}

// Config is the inbound authentication section: every configured method is
// tried in order OIDC, JWKS, API keys, anonymous.
type Config struct {
	// OIDC lists OIDC issuers whose access tokens are accepted, one verifier each.
	OIDC []OIDCConfig `yaml:"oidc"`
	// JWKS lists issuers whose keys come from a local JWKS file (no discovery).
	JWKS []JWKSConfig `yaml:"jwks"`
	// APIKeys are static keys, stored as sha256 hashes. Removing one revokes it.
	APIKeys []APIKeyConfig `yaml:"api_keys"`
	// APIKeyHeader is an extra header that may carry an API key (e.g. "X-API-Key").
	// Keys are always accepted as "Authorization: Bearer <key>". Default: none.
	APIKeyHeader string `yaml:"api_key_header"`
	// Anonymous admits callers without credentials as the "anonymous" principal.
	// Refused unless the listener is loopback. Default false.
	Anonymous bool `yaml:"anonymous"`
	// UnsafeAnonymousNonLoopback allows Anonymous on a non-loopback listener:
	// anyone who can reach the port is then a caller. Default false.
	UnsafeAnonymousNonLoopback bool `yaml:"unsafe_anonymous_non_loopback"`
	// MaxTokenBytes caps a presented credential. Default 8192.
	MaxTokenBytes int `yaml:"max_token_bytes"`
	// Cache configures the verified-token cache.
	Cache CacheConfig `yaml:"cache"`
	// IPLimit bounds token verifications per client IP (cache hits are free).
	IPLimit IPLimitConfig `yaml:"ip_limit"`
}

// OIDCConfig is one OIDC issuer. Discovery happens at startup; keys come from
// its jwks_uri, cached, refetched on an unknown kid at most once per
// MinRefreshInterval.
type OIDCConfig struct {
	// Issuer is the exact "iss" value; tokens from any other issuer are not
	// routed to this verifier. Required.
	Issuer string `yaml:"issuer"`
	// DiscoveryURL overrides where discovery is fetched from (default: the
	// issuer's /.well-known/openid-configuration). The document's issuer must
	// still equal Issuer.
	DiscoveryURL string `yaml:"discovery_url"`
	// Audience lists accepted "aud" values; a token must name at least one.
	// These are the A2A agents' audiences (use the bridge's public URL); an
	// agent with an audience of its own and the MCP endpoint, which accepts
	// only its own resource URL, use theirs instead. Required.
	Audience []string `yaml:"audience"`
	// Scopes every token must carry (else 403 insufficient_scope).
	Scopes []string `yaml:"scopes"`
	// Algorithms is the signature allow-list. Default: DefaultAlgorithms.
	Algorithms []string `yaml:"algorithms"`
	// ClockSkew is the leeway applied to exp, nbf and iat. Default 30s, max 5m.
	ClockSkew time.Duration `yaml:"clock_skew"`
	// GroupsClaim names the claim holding groups. Default "groups".
	GroupsClaim string `yaml:"groups_claim"`
	// TokenTypes, if set, lists accepted JWS "typ" headers (e.g. "at+jwt"),
	// compared case-insensitively, so ID tokens are refused. Default: any.
	TokenTypes []string `yaml:"token_types"`
	// MinRefreshInterval is the least time between two JWKS fetches caused by
	// unknown kids. Default 30s.
	MinRefreshInterval time.Duration `yaml:"min_refresh_interval"`
	// UnsafeAllowHTTP lets the issuer, discovery_url and the jwks_uri its
	// discovery names use plain http on a host that is not loopback.
	// Default false: identity is never fetched in clear text (anyone on the
	// path could serve their own keys and mint tokens), except from an IdP
	// on this machine (http://127.0.0.1:…, http://localhost:…). Logged at
	// start.
	UnsafeAllowHTTP bool `yaml:"unsafe_allow_http"`
}

// JWKSConfig is an issuer whose verification keys are read from a JWKS file.
type JWKSConfig struct {
	// Issuer is the exact "iss" value. Required.
	Issuer string `yaml:"issuer"`
	// File is the path of the JWKS document. Required.
	File string `yaml:"file"`
	// Audience lists accepted "aud" values: the A2A agents' audiences, as
	// for oidc. Required.
	Audience []string `yaml:"audience"`
	// Scopes every token must carry.
	Scopes []string `yaml:"scopes"`
	// Algorithms is the signature allow-list. Default: DefaultAlgorithms.
	Algorithms []string `yaml:"algorithms"`
	// ClockSkew is the leeway applied to exp, nbf and iat. Default 30s, max 5m.
	ClockSkew time.Duration `yaml:"clock_skew"`
	// GroupsClaim names the claim holding groups. Default "groups".
	GroupsClaim string `yaml:"groups_claim"`
	// TokenTypes, if set, lists accepted JWS "typ" headers.
	TokenTypes []string `yaml:"token_types"`
}

// APIKeyConfig is one static API key, stored as the sha256 of the key.
type APIKeyConfig struct {
	// Name becomes the principal's subject. Required, unique.
	Name string `yaml:"name"`
	// SHA256 is the lowercase hex sha256 of the key (64 characters). Required.
	SHA256 string `yaml:"sha256" secret:"value"`
	// Scopes granted to callers using this key.
	Scopes []string `yaml:"scopes"`
	// Groups the key's principal belongs to.
	Groups []string `yaml:"groups"`
}

// CacheConfig configures the verified-token cache.
type CacheConfig struct {
	// Disable turns the cache off (every request verifies its token).
	Disable bool `yaml:"disable"`
	// MaxEntries bounds the cache. Default 10000.
	MaxEntries int `yaml:"max_entries"`
	// MaxTTL caps how long a verified token is remembered; entries never
	// outlive the token's exp. Default 5m.
	MaxTTL time.Duration `yaml:"max_ttl"`
}

// IPLimitConfig is a token bucket per client IP in front of token
// verification (IPv6 addresses are grouped by /64).
type IPLimitConfig struct {
	// Disable turns the limit off.
	Disable bool `yaml:"disable"`
	// Rate is verifications per second per IP. Default 20.
	Rate float64 `yaml:"rate"`
	// Burst is the bucket size. Default 40.
	Burst int `yaml:"burst"`
	// MaxClients bounds the number of IPs tracked. Default 10000.
	MaxClients int `yaml:"max_clients"`
}

// Validate lists every problem in c; nil means valid.
func (c *Config) Validate() []error {
	var errs []error
	add := func(format string, a ...any) { errs = append(errs, fmt.Errorf("auth."+format, a...)) }
	seenIss := map[string]bool{}
	for i := range c.OIDC {
		o := &c.OIDC[i]
		p := fmt.Sprintf("oidc[%d]", i)
		errs = append(errs, validateJWT(p, o.Issuer, o.Audience, o.Algorithms, o.ClockSkew)...)
		if o.DiscoveryURL != "" {
			if u, err := url.Parse(o.DiscoveryURL); err != nil || (u.Scheme != "https" && u.Scheme != "http") || u.Host == "" {
				add("%s.discovery_url: %q is not an http(s) URL", p, o.DiscoveryURL)
			} else if err := CheckIdentityURL(o.DiscoveryURL, o.UnsafeAllowHTTP); err != nil {
				add("%s.discovery_url: %v", p, err)
			}
		}
		if u, err := url.Parse(o.Issuer); err == nil && u.Host != "" {
			if err := CheckIdentityURL(o.Issuer, o.UnsafeAllowHTTP); err != nil {
				add("%s.issuer: %v", p, err)
			}
		}
		if o.MinRefreshInterval < 0 {
			add("%s.min_refresh_interval: must not be negative", p)
		}
		if o.Issuer != "" && seenIss[o.Issuer] {
			add("%s.issuer: %q is configured twice: one verifier per issuer", p, o.Issuer)
		}
		seenIss[o.Issuer] = true
	}
	for i := range c.JWKS {
		j := &c.JWKS[i]
		p := fmt.Sprintf("jwks[%d]", i)
		errs = append(errs, validateJWT(p, j.Issuer, j.Audience, j.Algorithms, j.ClockSkew)...)
		if j.File == "" {
			add("%s.file: required: path of the JWKS document", p)
		}
		if j.Issuer != "" && seenIss[j.Issuer] {
			add("%s.issuer: %q is configured twice: one verifier per issuer", p, j.Issuer)
		}
		seenIss[j.Issuer] = true
	}
	names, hashes := map[string]bool{}, map[string]bool{}
	for i, k := range c.APIKeys {
		p := fmt.Sprintf("api_keys[%d]", i)
		if k.Name == "" {
			add("%s.name: required", p)
		} else if names[k.Name] {
			add("%s.name: %q is used twice", p, k.Name)
		}
		names[k.Name] = true
		if b, err := hex.DecodeString(k.SHA256); err != nil || len(b) != 32 {
			add("%s.sha256: must be 64 hex characters (sha256 of the key, e.g. `printf %%s KEY | sha256sum`)", p)
		} else if h := strings.ToLower(k.SHA256); hashes[h] {
			add("%s.sha256: the same key is configured twice", p)
		} else {
			hashes[h] = true
		}
	}
	if c.APIKeyHeader != "" && !validHeaderName(c.APIKeyHeader) {
		add("api_key_header: %q is not a valid header name", c.APIKeyHeader)
	}
	if c.MaxTokenBytes < 0 {
		add("max_token_bytes: must not be negative")
	}
	if c.Cache.MaxEntries < 0 {
		add("cache.max_entries: must not be negative")
	}
	if c.Cache.MaxTTL < 0 {
		add("cache.max_ttl: must not be negative")
	}
	if c.IPLimit.Rate < 0 || c.IPLimit.Burst < 0 || c.IPLimit.MaxClients < 0 {
		add("ip_limit: rate, burst and max_clients must not be negative")
	}
	if !c.Anonymous && c.UnsafeAnonymousNonLoopback {
		add("unsafe_anonymous_non_loopback: set without anonymous: remove it")
	}
	if len(c.OIDC) == 0 && len(c.JWKS) == 0 && len(c.APIKeys) == 0 && !c.Anonymous {
		add("no authentication method configured: set oidc, jwks, api_keys, or anonymous (loopback only)")
	}
	return errs
}

// ErrCleartextIdentity is the error of an identity URL (issuer, discovery
// document, JWKS) that is plain http on a host that is not loopback.
var ErrCleartextIdentity = errors.New("identity over clear text")

// CheckIdentityURL refuses a plain-http URL of an identity document (an
// OIDC issuer, its discovery document, its JWKS) unless its host is
// loopback or unsafe allows it: whoever can read or change the traffic
// could serve their own signing keys and mint any token.
func CheckIdentityURL(raw string, unsafe bool) error {
	u, err := url.Parse(raw)
	if err != nil || u.Scheme != "http" || unsafe || netguard.IsLoopbackHost(u.Hostname()) {
		return nil
	}
	return cleartextError(u.Redacted())
}

// cleartextError is ErrCleartextIdentity for one URL.
type cleartextError string

func (e cleartextError) Error() string {
	return fmt.Sprintf("%q is plain http: whoever can read or change the traffic could serve their own keys and mint tokens; use https, an IdP on loopback, or set unsafe_allow_http: true", string(e))
}

func (e cleartextError) Is(target error) bool { return target == ErrCleartextIdentity }

func validateJWT(p, issuer string, aud, algs []string, skew time.Duration) []error {
	var errs []error
	add := func(format string, a ...any) { errs = append(errs, fmt.Errorf("auth."+format, a...)) }
	if issuer == "" {
		add("%s.issuer: required", p)
	} else if u, err := url.Parse(issuer); err != nil || u.Scheme == "" || u.Host == "" {
		add("%s.issuer: %q is not an absolute URL", p, issuer)
	}
	if len(aud) == 0 {
		add("%s.audience: required: the bridge's public URL, so tokens for other resources are refused", p)
	}
	for _, a := range aud {
		if a == "" {
			add("%s.audience: empty value", p)
		}
	}
	for _, a := range algs {
		if err := checkAlgorithm(a); err != nil {
			add("%s.algorithms: %v", p, err)
		}
	}
	if skew < 0 || skew > MaxClockSkew {
		add("%s.clock_skew: %v is outside 0..%v", p, skew, MaxClockSkew)
	}
	return errs
}

var errSymmetricAlg = errors.New("symmetric and unsigned algorithms are never accepted")

func checkAlgorithm(a string) error {
	if strings.EqualFold(a, "none") || strings.HasPrefix(strings.ToUpper(a), "HS") {
		return fmt.Errorf("%q: %w", a, errSymmetricAlg)
	}
	if !slices.Contains(DefaultAlgorithms, a) {
		return fmt.Errorf("%q is not a supported algorithm (one of %s)", a, strings.Join(DefaultAlgorithms, ", "))
	}
	return nil
}

func validHeaderName(h string) bool {
	if h == "" {
		return false
	}
	for i := 0; i < len(h); i++ {
		c := h[i]
		if !('a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9' || strings.IndexByte("!#$%&'*+-.^_`|~", c) >= 0) {
			return false
		}
	}
	return http.CanonicalHeaderKey(h) != "Cookie"
}
