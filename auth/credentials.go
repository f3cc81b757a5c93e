package auth

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"os"
	"strings"
	"sync"
	"time"

	"golang.org/x/oauth2"
	"golang.org/x/oauth2/clientcredentials"

	"github.com/a2a-mcp-bridge/bridge/request"
)

// Credentials give the bridge its own identity towards one upstream. Apply
// first removes any Authorization and Proxy-Authorization header from req (so
// the caller's token is never passed through), then sets the upstream
// credential. caller may be nil for sources that do not act on behalf of a
// caller.
type Credentials interface {
	Apply(ctx context.Context, req *http.Request, caller *request.Principal) error
}

// SecretPlaceholder is replaced by the secret in StaticSecretConfig.Value. It
// is not "${…}" because the config loader expands ${ENV} itself.
const SecretPlaceholder = "{secret}"

// Token types of RFC 8693.
const (
	TokenTypeAccessToken = "urn:ietf:params:oauth:token-type:access_token"
	TokenTypeJWT         = "urn:ietf:params:oauth:token-type:jwt"
	GrantTokenExchange   = "urn:ietf:params:oauth:grant-type:token-exchange"
)

// CredentialsConfig selects at most one outbound credential source; none set
// means no credential (the upstream request carries no Authorization).
type CredentialsConfig struct {
	// Static sends a fixed secret read from an environment variable or a file.
	Static *StaticSecretConfig `yaml:"static"`
	// ClientCredentials gets the bridge's own token (OAuth2 client credentials).
	ClientCredentials *ClientCredentialsConfig `yaml:"client_credentials"`
	// TokenExchange trades the caller's token for one for the upstream (RFC 8693).
	TokenExchange *TokenExchangeConfig `yaml:"token_exchange"`
}

// StaticSecretConfig is a header whose value embeds a secret.
type StaticSecretConfig struct {
	// Header to set. Default "Authorization".
	Header string `yaml:"header"`
	// Value template; "{secret}" is replaced by the secret. Default
	// "Bearer {secret}" for Authorization, "{secret}" otherwise.
	Value string `yaml:"value" secret:"value"`
	// Env names the environment variable holding the secret.
	Env string `yaml:"env"`
	// File is a file holding the secret (trailing newline removed).
	File string `yaml:"file"`
}

// ClientCredentialsConfig is an OAuth2 client-credentials grant.
type ClientCredentialsConfig struct {
	TokenURL     string   `yaml:"token_url" secret:"url"`
	ClientID     string   `yaml:"client_id"`
	ClientSecret string   `yaml:"client_secret" secret:"value"`
	Scopes       []string `yaml:"scopes"`
	// Audience and Resource (RFC 8707) are sent when set.
	Audience string `yaml:"audience"`
	Resource string `yaml:"resource"`
}

// TokenExchangeConfig is an RFC 8693 token exchange on behalf of the caller.
type TokenExchangeConfig struct {
	TokenURL     string `yaml:"token_url" secret:"url"`
	ClientID     string `yaml:"client_id"`
	ClientSecret string `yaml:"client_secret" secret:"value"`
	// Audience and/or Resource name the upstream; at least one is required.
	Audience string   `yaml:"audience"`
	Resource string   `yaml:"resource"`
	Scopes   []string `yaml:"scopes"`
	// SubjectTokenType defaults to TokenTypeAccessToken.
	SubjectTokenType string `yaml:"subject_token_type"`
	// RequestedTokenType is sent when set.
	RequestedTokenType string `yaml:"requested_token_type"`
	// MaxCached bounds the exchanged tokens kept (per caller). Default 10000.
	MaxCached int `yaml:"max_cached"`
}

// Configured reports whether a credential is configured (any of the three
// kinds): without one the bridge sends no credential at all.
func (c CredentialsConfig) Configured() bool {
	return c.Static != nil || c.ClientCredentials != nil || c.TokenExchange != nil
}

// Validate lists every problem in c; prefix names it in messages.
func (c *CredentialsConfig) Validate(prefix string) []error {
	var errs []error
	add := func(format string, a ...any) { errs = append(errs, fmt.Errorf(prefix+"."+format, a...)) }
	n := 0
	if s := c.Static; s != nil {
		n++
		if (s.Env == "") == (s.File == "") {
			add("static: set exactly one of env or file")
		}
		if s.Header != "" && !validHeaderName(s.Header) {
			add("static.header: %q is not a valid header name", s.Header)
		}
		if s.Value != "" && !strings.Contains(s.Value, SecretPlaceholder) {
			add("static.value: must contain %s", SecretPlaceholder)
		}
	}
	if cc := c.ClientCredentials; cc != nil {
		n++
		errs = append(errs, validateTokenClient(prefix+".client_credentials", cc.TokenURL, cc.ClientID)...)
	}
	if te := c.TokenExchange; te != nil {
		n++
		errs = append(errs, validateTokenClient(prefix+".token_exchange", te.TokenURL, te.ClientID)...)
		if te.Audience == "" && te.Resource == "" {
			add("token_exchange: set audience or resource (the upstream the token is for)")
		}
	}
	if n > 1 {
		errs = append(errs, fmt.Errorf("%s: set at most one of static, client_credentials, token_exchange", prefix))
	}
	return errs
}

func validateTokenClient(p, tokenURL, clientID string) []error {
	var errs []error
	if u, err := url.Parse(tokenURL); tokenURL == "" || err != nil || (u.Scheme != "https" && u.Scheme != "http") || u.Host == "" {
		errs = append(errs, fmt.Errorf("%s.token_url: required: the token endpoint's http(s) URL", p))
	}
	if clientID == "" {
		errs = append(errs, fmt.Errorf("%s.client_id: required", p))
	}
	return errs
}

// NewCredentials builds the source cfg selects. client carries token
// requests (nil: NewHTTPClient()); static secrets are read now.
func NewCredentials(cfg CredentialsConfig, client *http.Client) (Credentials, error) {
	if errs := cfg.Validate("credentials"); len(errs) > 0 {
		return nil, errors.Join(errs...)
	}
	if client == nil {
		client = NewHTTPClient()
	}
	switch {
	case cfg.Static != nil:
		return NewStaticSecret(*cfg.Static)
	case cfg.ClientCredentials != nil:
		return NewClientCredentials(*cfg.ClientCredentials, client), nil
	case cfg.TokenExchange != nil:
		return NewTokenExchange(*cfg.TokenExchange, client), nil
	}
	return None{}, nil
}

func stripInbound(req *http.Request) {
	req.Header.Del("Authorization")
	req.Header.Del("Proxy-Authorization")
}

// None sends no credential.
type None struct{}

var _ Credentials = None{}

// Apply removes inbound credentials and adds none.
func (None) Apply(_ context.Context, req *http.Request, _ *request.Principal) error {
	stripInbound(req)
	return nil
}

// StaticSecret sets one header to a fixed value built from a secret.
type StaticSecret struct {
	header string
	value  string
}

var _ Credentials = (*StaticSecret)(nil)

// NewStaticSecret reads the secret from cfg.Env or cfg.File.
func NewStaticSecret(cfg StaticSecretConfig) (*StaticSecret, error) {
	var secret string
	switch {
	case cfg.Env != "":
		v, ok := os.LookupEnv(cfg.Env)
		if !ok || v == "" {
			return nil, fmt.Errorf("auth: static secret: environment variable %s is not set", cfg.Env)
		}
		secret = v
	case cfg.File != "":
		b, err := os.ReadFile(cfg.File)
		if err != nil {
			return nil, fmt.Errorf("auth: static secret: %w", err)
		}
		secret = strings.TrimRight(string(b), "\r\n")
		if secret == "" {
			return nil, fmt.Errorf("auth: static secret: file %s is empty", cfg.File)
		}
	default:
		return nil, errors.New("auth: static secret: set env or file")
	}
	if strings.ContainsAny(secret, "\r\n\x00") {
		return nil, errors.New("auth: static secret: secret contains a line break or NUL")
	}
	h := cfg.Header
	if h == "" {
		h = "Authorization"
	}
	h = http.CanonicalHeaderKey(h)
	tmpl := cfg.Value
	if tmpl == "" {
		tmpl = SecretPlaceholder
		if h == "Authorization" {
			tmpl = "Bearer " + SecretPlaceholder
		}
	}
	return &StaticSecret{header: h, value: strings.ReplaceAll(tmpl, SecretPlaceholder, secret)}, nil
}

// Apply removes inbound credentials and sets the configured header.
func (s *StaticSecret) Apply(_ context.Context, req *http.Request, _ *request.Principal) error {
	stripInbound(req)
	req.Header.Set(s.header, s.value)
	return nil
}

// ClientCredentials sends the bridge's own OAuth2 token, fetched with the
// client-credentials grant, cached and refreshed before expiry.
type ClientCredentials struct {
	ts oauth2.TokenSource
}

var _ Credentials = (*ClientCredentials)(nil)

// NewClientCredentials returns the source; no request is made until Apply.
func NewClientCredentials(cfg ClientCredentialsConfig, client *http.Client) *ClientCredentials {
	if client == nil {
		client = NewHTTPClient()
	}
	cc := &clientcredentials.Config{
		ClientID:       cfg.ClientID,
		ClientSecret:   cfg.ClientSecret,
		TokenURL:       cfg.TokenURL,
		Scopes:         cfg.Scopes,
		EndpointParams: url.Values{},
	}
	if cfg.Audience != "" {
		cc.EndpointParams.Set("audience", cfg.Audience)
	}
	if cfg.Resource != "" {
		cc.EndpointParams.Set("resource", cfg.Resource)
	}
	ctx := context.WithValue(context.Background(), oauth2.HTTPClient, client)
	return &ClientCredentials{ts: cc.TokenSource(ctx)} // a ReuseTokenSource: cached until expiry
}

// Apply removes inbound credentials and sets the bridge's bearer token.
func (c *ClientCredentials) Apply(_ context.Context, req *http.Request, _ *request.Principal) error {
	stripInbound(req)
	tok, err := c.ts.Token()
	if err != nil {
		return fmt.Errorf("auth: client credentials: %w", safeOAuthError(err))
	}
	tok.SetAuthHeader(req)
	return nil
}

// TokenExchange trades the caller's token for a token for the upstream (RFC
// 8693), and caches the result per caller token until it expires.
type TokenExchange struct {
	cfg    TokenExchangeConfig
	client *http.Client
	now    func() time.Time
	max    int

	mu    sync.Mutex
	cache map[[32]byte]exchanged
}

type exchanged struct {
	tok     *oauth2.Token
	expires time.Time
}

var _ Credentials = (*TokenExchange)(nil)

// ErrNoSubjectToken is returned when token exchange is asked for a caller
// without a token (API key, anonymous).
var ErrNoSubjectToken = errors.New("auth: token exchange: caller has no token to exchange")

// exchangeSkew is how long before expiry an exchanged token is renewed.
const exchangeSkew = 30 * time.Second

// NewTokenExchange returns the source; no request is made until Apply.
func NewTokenExchange(cfg TokenExchangeConfig, client *http.Client) *TokenExchange {
	if client == nil {
		client = NewHTTPClient()
	}
	if cfg.SubjectTokenType == "" {
		cfg.SubjectTokenType = TokenTypeAccessToken
	}
	if cfg.MaxCached <= 0 {
		cfg.MaxCached = DefaultCacheEntries
	}
	return &TokenExchange{cfg: cfg, client: client, now: time.Now, max: cfg.MaxCached, cache: map[[32]byte]exchanged{}}
}

// Apply removes inbound credentials and sets a token obtained for the
// upstream on behalf of caller.
func (t *TokenExchange) Apply(ctx context.Context, req *http.Request, caller *request.Principal) error {
	stripInbound(req)
	if caller == nil || caller.Token == "" {
		return ErrNoSubjectToken
	}
	key := TokenKey(caller.Token)
	now := t.now()
	t.mu.Lock()
	e, ok := t.cache[key]
	t.mu.Unlock()
	if ok && now.Before(e.expires) {
		e.tok.SetAuthHeader(req)
		return nil
	}
	tok, err := t.exchange(ctx, caller.Token)
	if err != nil {
		return err
	}
	exp := tok.Expiry
	if exp.IsZero() {
		exp = now.Add(time.Minute)
	}
	exp = exp.Add(-exchangeSkew)
	if !caller.Expiry.IsZero() && caller.Expiry.Before(exp) {
		exp = caller.Expiry
	}
	if exp.After(now) {
		t.mu.Lock()
		if len(t.cache) >= t.max {
			for k, v := range t.cache {
				if !now.Before(v.expires) {
					delete(t.cache, k)
				}
			}
			for k := range t.cache {
				if len(t.cache) < t.max {
					break
				}
				delete(t.cache, k)
			}
		}
		t.cache[key] = exchanged{tok: tok, expires: exp}
		t.mu.Unlock()
	}
	tok.SetAuthHeader(req)
	return nil
}

func (t *TokenExchange) exchange(ctx context.Context, subject string) (*oauth2.Token, error) {
	params := url.Values{
		"grant_type":         {GrantTokenExchange},
		"subject_token":      {subject},
		"subject_token_type": {t.cfg.SubjectTokenType},
	}
	if t.cfg.Audience != "" {
		params.Set("audience", t.cfg.Audience)
	}
	if t.cfg.Resource != "" {
		params.Set("resource", t.cfg.Resource)
	}
	if t.cfg.RequestedTokenType != "" {
		params.Set("requested_token_type", t.cfg.RequestedTokenType)
	}
	// clientcredentials lets EndpointParams override grant_type, which gives
	// us client authentication and token-response parsing for free.
	cc := &clientcredentials.Config{
		ClientID:       t.cfg.ClientID,
		ClientSecret:   t.cfg.ClientSecret,
		TokenURL:       t.cfg.TokenURL,
		Scopes:         t.cfg.Scopes,
		EndpointParams: params,
	}
	tok, err := cc.Token(context.WithValue(ctx, oauth2.HTTPClient, t.client))
	if err != nil {
		return nil, fmt.Errorf("auth: token exchange: %w", safeOAuthError(err))
	}
	if tok.AccessToken == "" {
		return nil, errors.New("auth: token exchange: response has no access_token")
	}
	return tok, nil
}

// safeOAuthError drops the token endpoint's response body (which may echo
// request parameters) and keeps the status and the OAuth error code.
func safeOAuthError(err error) error {
	var re *oauth2.RetrieveError
	if errors.As(err, &re) {
		code := re.ErrorCode
		if code == "" {
			code = "no error code"
		}
		status := 0
		if re.Response != nil {
			status = re.Response.StatusCode
		}
		return fmt.Errorf("token endpoint answered %d (%s)", status, code)
	}
	var ue *url.Error
	if errors.As(err, &ue) {
		return fmt.Errorf("token endpoint unreachable: %v", ue.Err)
	}
	return errors.New("token request failed")
}
