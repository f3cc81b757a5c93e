package proxy

import (
	"context"
	"crypto/rand"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/url"
	"strings"
	"sync"
	"time"

	"github.com/a2a-mcp-bridge/bridge/a2a"
	"github.com/a2a-mcp-bridge/bridge/a2a/card"
	"github.com/a2a-mcp-bridge/bridge/auth"
	"github.com/a2a-mcp-bridge/bridge/netguard"
)

// Credentials give the bridge its identity towards the upstream. Apply must
// replace any Authorization header of req with the upstream credential;
// caller is the bridge's caller (nil for the card fetch and for calls made
// on nobody's behalf). *auth.StaticSecret, *auth.ClientCredentials,
// *auth.TokenExchange and auth.None implement it.
type Credentials interface {
	Apply(ctx context.Context, req *http.Request, caller *auth.Principal) error
}

// CardVerification is how the upstream card is verified before it is used.
type CardVerification struct {
	// Keys resolves the pinned public keys (for example a *card.StaticJWKS).
	// May be nil only when Options.JKU is set.
	Keys card.KeyResolver
	// Options is the verification policy; set RequireSignature to refuse
	// unsigned cards (the zero value accepts them).
	Options card.VerifyOptions
}

// Config configures a fronted upstream agent. Zero values take the defaults.
type Config struct {
	// CardURL is the upstream's agent card, usually
	// https://host/.well-known/agent-card.json. Required.
	CardURL string
	// HTTPClient makes every upstream call, the card fetch included. The
	// gateway passes a netguard client. It should have no overall Timeout
	// (streams are long; calls are bounded by contexts). Default: a client
	// that uses no environment proxy and follows no redirects, for an
	// upstream the operator trusts.
	HTTPClient *http.Client
	// Credentials, if set, puts the bridge's own credential on every
	// upstream request. Default nil: upstream requests carry no
	// Authorization. The caller's token is never forwarded either way.
	Credentials Credentials
	// CredentialHosts lists extra hosts (host or host:port) that may receive
	// the credential. The card URL's host always may. A card may name
	// interface URLs on other hosts; without this list the credential is
	// never sent there and such calls fail. Default empty.
	CredentialHosts []string
	// Verify, if set, verifies the card's signatures before it is used.
	// Default nil: the card is not verified (it comes from an operator-named
	// URL over the given client).
	Verify *CardVerification
	// Binding forces the upstream binding (a2a.BindingJSONRPC or
	// a2a.BindingHTTPJSON). Default: the card's first usable interface.
	Binding string
	// Timeout bounds each short upstream call: the card fetch, cancel, and
	// the read of a task's state after a stream broke off. Default 10s.
	Timeout time.Duration
	// SendTimeout bounds one relayed message, from the upstream call until
	// the upstream's final or interrupted state. Default 0: only the task's
	// own cancellation ends it.
	SendTimeout time.Duration
	// StateKey seals the upstream ids kept in each task's metadata
	// (AES-256-GCM, 32 bytes). Default: a random key per process, so tasks
	// created before a restart can no longer be continued or cancelled
	// upstream; set it (from a secret) when the store outlives the process.
	StateKey []byte
	// MaxResponseBytes caps each upstream response and stream event
	// (default: the a2a client's 10 MiB).
	MaxResponseBytes int64
	// Logger receives the proxy's logs (default slog.Default()).
	Logger *slog.Logger
}

// Proxy is an a2a.Executor whose backend is one upstream A2A agent. Build
// it with New; it is safe for concurrent use.
type Proxy struct {
	client    *a2a.Client
	upstream  *a2a.AgentCard
	verified  card.Result
	streaming bool
	cred      Credentials
	hosts     map[string]bool
	timeout   time.Duration
	sendLimit time.Duration
	seal      *sealer
	log       *slog.Logger

	// running maps the bridge's task id to the upstream's while an
	// execution runs, for Cancel before the mapping is in the store.
	mu      sync.Mutex
	running map[string]upstreamRef
}

var _ a2a.Executor = (*Proxy)(nil)

// defaultHTTP is the client used without Config.HTTPClient, built like the
// a2a client's default.
var defaultHTTP = sync.OnceValue(func() *http.Client {
	return netguard.Trusted(netguard.Config{Timeout: -1, MaxBodyBytes: -1, ResponseHeaderTimeout: 5 * time.Minute})
})

// New fetches the upstream card (through cfg.HTTPClient, with the
// credential), verifies it when cfg.Verify is set, and returns the proxy.
func New(ctx context.Context, cfg Config) (*Proxy, error) {
	u, err := url.Parse(cfg.CardURL)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" || u.User != nil {
		return nil, errors.New("proxy: config: CardURL must be an absolute http or https URL without credentials")
	}
	if cfg.HTTPClient == nil {
		cfg.HTTPClient = defaultHTTP()
	}
	if cfg.Timeout <= 0 {
		cfg.Timeout = 10 * time.Second
	}
	if cfg.Logger == nil {
		cfg.Logger = slog.Default()
	}
	key := cfg.StateKey
	if len(key) == 0 {
		key = make([]byte, 32)
		if _, err := rand.Read(key); err != nil {
			return nil, fmt.Errorf("proxy: generate state key: %w", err)
		}
		cfg.Logger.Warn("proxy: no state key configured; upstream task mappings will not survive a restart", "card", u.Redacted())
	}
	s, err := newSealer(key)
	if err != nil {
		return nil, err
	}
	p := &Proxy{
		cred: cfg.Credentials, hosts: map[string]bool{strings.ToLower(u.Host): true},
		timeout: cfg.Timeout, sendLimit: cfg.SendTimeout, seal: s, log: cfg.Logger,
		running: map[string]upstreamRef{},
	}
	for _, h := range cfg.CredentialHosts {
		p.hosts[strings.ToLower(h)] = true
	}

	fctx, cancel := context.WithTimeout(ctx, cfg.Timeout)
	defer cancel()
	raw, err := p.fetchCard(fctx, cfg.HTTPClient, u.String(), cfg.MaxResponseBytes)
	if err != nil {
		return nil, err
	}
	if v := cfg.Verify; v != nil {
		res, err := card.Verify(fctx, raw, v.Keys, v.Options)
		if err != nil {
			return nil, fmt.Errorf("proxy: verify upstream card: %w", err)
		}
		p.verified = res
		if res.Status == card.StatusVerified {
			raw = res.Covered // only what the signature vouches for
		}
	}
	var c a2a.AgentCard
	if err := json.Unmarshal(raw, &c); err != nil {
		return nil, fmt.Errorf("proxy: decode upstream card: %w", err)
	}
	opts := []a2a.ClientOption{a2a.WithHTTPClient(cfg.HTTPClient), a2a.WithHeader(p.header)}
	if cfg.Binding != "" {
		opts = append(opts, a2a.WithBinding(cfg.Binding))
	}
	if cfg.MaxResponseBytes > 0 {
		opts = append(opts, a2a.WithMaxResponseBytes(cfg.MaxResponseBytes))
	}
	cl, err := a2a.NewClientFromCard(&c, opts...)
	if err != nil {
		return nil, fmt.Errorf("proxy: upstream card: %w", err)
	}
	p.client, p.upstream = cl, &c
	p.streaming = c.Capabilities.Streaming != nil && *c.Capabilities.Streaming
	return p, nil
}

// fetchCard reads the card bytes (verification needs them as received).
func (p *Proxy) fetchCard(ctx context.Context, hc *http.Client, cardURL string, limit int64) ([]byte, error) {
	if limit <= 0 {
		limit = card.DefaultMaxCardBytes
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, cardURL, nil)
	if err != nil {
		return nil, fmt.Errorf("proxy: fetch upstream card: %w", err)
	}
	req.Header.Set("Accept", "application/json")
	req.Header.Set("A2A-Version", a2a.ProtocolVersion)
	if err := p.header(ctx, req); err != nil {
		return nil, fmt.Errorf("proxy: fetch upstream card: %w", err)
	}
	resp, err := hc.Do(req)
	if err != nil {
		return nil, fmt.Errorf("proxy: fetch upstream card: %w", err)
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return nil, fmt.Errorf("proxy: fetch upstream card: want HTTP 200, got %d", resp.StatusCode)
	}
	raw, err := io.ReadAll(io.LimitReader(resp.Body, limit+1))
	if err != nil {
		return nil, fmt.Errorf("proxy: fetch upstream card: read body: %w", err)
	}
	if int64(len(raw)) > limit {
		return nil, fmt.Errorf("proxy: fetch upstream card: the card exceeds %d bytes", limit)
	}
	return raw, nil
}

// callerKey carries the bridge's caller to the outbound header hook.
type callerKey struct{}

// header is the client's outbound hook: only the configured credential,
// and only towards the hosts allowed to receive it.
func (p *Proxy) header(ctx context.Context, req *http.Request) error {
	req.Header.Del("Authorization")
	req.Header.Del("Proxy-Authorization")
	if p.cred == nil {
		return nil
	}
	if !p.hosts[strings.ToLower(req.URL.Host)] {
		return fmt.Errorf("proxy: refusing to send the upstream credential to host %q: not the card's host nor in CredentialHosts", req.URL.Host)
	}
	caller, _ := ctx.Value(callerKey{}).(*auth.Principal)
	if err := p.cred.Apply(ctx, req, caller); err != nil {
		return fmt.Errorf("proxy: outbound credential: %w", err)
	}
	return nil
}

// UpstreamCard returns the upstream's card as fetched. Do not modify it.
func (p *Proxy) UpstreamCard() *a2a.AgentCard { return p.upstream }

// Verification returns the result of the card verification (the zero
// Result when Config.Verify was nil).
func (p *Proxy) Verification() card.Result { return p.verified }

// Card returns the card the bridge serves for the upstream at baseURL: the
// upstream's name, description, version, provider, skills, modes and
// extensions, with the bridge's interfaces (JSON-RPC at baseURL, HTTP+JSON
// at baseURL+"/rest"), streaming on (the bridge streams whatever the
// upstream does), push notifications as the bridge offers them, no extended
// card, no security schemes (the gateway sets its own) and no signatures
// (the gateway signs it).
func (p *Proxy) Card(baseURL string, pushNotifications bool) *a2a.AgentCard {
	baseURL = strings.TrimSuffix(baseURL, "/")
	c := cloneCard(p.upstream)
	c.SupportedInterfaces = []a2a.AgentInterface{
		{URL: baseURL, ProtocolBinding: a2a.BindingJSONRPC, ProtocolVersion: a2a.ProtocolVersion},
		{URL: baseURL + "/rest", ProtocolBinding: a2a.BindingHTTPJSON, ProtocolVersion: a2a.ProtocolVersion},
	}
	c.Capabilities.Streaming = a2a.Ptr(true)
	c.Capabilities.PushNotifications = a2a.Ptr(pushNotifications)
	c.Capabilities.ExtendedAgentCard = nil
	c.SecuritySchemes = nil
	c.SecurityRequirements = nil
	for i := range c.Skills {
		c.Skills[i].SecurityRequirements = nil
	}
	c.Signatures = nil
	return c
}

// cloneCard deep-copies a card through its JSON form.
func cloneCard(c *a2a.AgentCard) *a2a.AgentCard {
	data, err := json.Marshal(c)
	if err != nil {
		panic("proxy: clone card: " + err.Error()) // a decoded card always encodes
	}
	var out a2a.AgentCard
	if err := json.Unmarshal(data, &out); err != nil {
		panic("proxy: clone card: " + err.Error())
	}
	return &out
}
