package front

import (
	"bytes"
	"context"
	"crypto/rand"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/a2a-mcp-bridge/bridge/a2a"
	"github.com/a2a-mcp-bridge/bridge/a2a/card"
	"github.com/a2a-mcp-bridge/bridge/a2a/client"
	"github.com/a2a-mcp-bridge/bridge/a2a/taskmanager"
	"github.com/a2a-mcp-bridge/bridge/a2a/v03"
	"github.com/a2a-mcp-bridge/bridge/netguard"
	"github.com/a2a-mcp-bridge/bridge/request"
)

// Credentials give the bridge its identity towards the upstream. Apply must
// replace any Authorization header of req with the upstream credential;
// caller is the bridge's caller (nil for the card fetch and for calls made
// on nobody's behalf). *auth.StaticSecret, *auth.ClientCredentials,
// *auth.TokenExchange and auth.None implement it.
type Credentials interface {
	Apply(ctx context.Context, req *http.Request, caller *request.Principal) error
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
	// Binding forces the upstream binding (a2a.BindingJSONRPC,
	// a2a.BindingHTTPJSON or, with GRPC set, a2a.BindingGRPC). Default:
	// the card's first JSON-RPC or HTTP+JSON interface, else its GRPC one.
	Binding string
	// GRPC, if set, lets the proxy call the upstream's GRPC interface (see
	// Binding), with the same credential rules: the call is described to
	// the header hook as a request to the interface's host:port.
	GRPC client.TransportFactory
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
	// CardTTLMin and CardTTLMax clamp the card's Cache-Control max-age: how
	// long it is used before CardExpires says to Refresh it (defaults 30s
	// and 1h; no max-age means 5m, clamped).
	CardTTLMin, CardTTLMax time.Duration
	// Name is the agent's name in the errors callers see ("agent NAME is
	// unavailable…"). Default "upstream".
	Name string
	// Logger receives the proxy's logs (default slog.Default()).
	Logger *slog.Logger
}

// ErrCredentialHost matches (errors.Is) a call refused because the card
// names a host the credential may not go to (see Config.CredentialHosts).
var ErrCredentialHost = errors.New("proxy: refusing to send the upstream credential to host")

// ErrCardRefused matches (errors.Is) a Refresh whose new card failed
// verification: the gateway takes the agent out until a card verifies.
var ErrCardRefused = errors.New("proxy: the upstream card failed verification")

// cardState is the upstream card in use and what was built from it. It is
// replaced as a whole when a refreshed card differs.
type cardState struct {
	client    *client.Client
	card      *a2a.AgentCard
	raw       []byte
	etag      string
	verified  card.Result
	streaming bool
	expires   time.Time
}

// Proxy is an taskmanager.Executor whose backend is one upstream A2A agent. Build
// it with New; it is safe for concurrent use.
type Proxy struct {
	cfg       Config
	cardURL   string
	state     atomic.Pointer[cardState]
	refreshMu sync.Mutex // one card fetch at a time
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

var _ taskmanager.Executor = (*Proxy)(nil)

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
	if cfg.CardTTLMin <= 0 {
		cfg.CardTTLMin = 30 * time.Second
	}
	if cfg.CardTTLMax <= 0 {
		cfg.CardTTLMax = time.Hour
	}
	cfg.CardTTLMax = max(cfg.CardTTLMax, cfg.CardTTLMin)
	if cfg.Name == "" {
		cfg.Name = "upstream"
	}
	p := &Proxy{
		cfg: cfg, cardURL: u.String(),
		cred: cfg.Credentials, hosts: map[string]bool{strings.ToLower(u.Host): true},
		timeout: cfg.Timeout, sendLimit: cfg.SendTimeout, seal: s, log: cfg.Logger,
		running: map[string]upstreamRef{},
	}
	for _, h := range cfg.CredentialHosts {
		p.hosts[strings.ToLower(h)] = true
	}
	fctx, cancel := context.WithTimeout(ctx, cfg.Timeout)
	defer cancel()
	f, err := p.fetchCard(fctx, "")
	if err != nil {
		return nil, err
	}
	st, err := p.load(fctx, f)
	if err != nil {
		return nil, err
	}
	p.state.Store(st)
	return p, nil
}

// fetched is one card fetch's outcome.
type fetched struct {
	raw         []byte
	etag        string
	ttl         time.Duration
	notModified bool
}

// load verifies (when configured) and decodes a fetched card and builds
// the client of its interfaces.
func (p *Proxy) load(ctx context.Context, f fetched) (*cardState, error) {
	st := &cardState{raw: f.raw, etag: f.etag, expires: time.Now().Add(f.ttl)}
	decode := f.raw
	if v := p.cfg.Verify; v != nil {
		res, err := card.Verify(ctx, f.raw, v.Keys, v.Options)
		if err != nil {
			return nil, fmt.Errorf("%w: %w", ErrCardRefused, err)
		}
		st.verified = res
		if res.Status == card.StatusVerified {
			decode = res.Covered // only what the signature vouches for
		}
	}
	// A card of A2A 0.3 is read into a 1.0 card, and the client speaks
	// 0.3 to the agent (v03.Client); everything else here sees 1.0.
	c, legacy, err := v03.ReadCard(decode)
	if err != nil {
		return nil, fmt.Errorf("proxy: decode upstream card: %w", err)
	}
	opts := []client.Option{client.WithHTTPClient(p.cfg.HTTPClient), client.WithHeader(p.header)}
	if legacy != nil {
		opts = append(opts, client.WithLegacy(legacy))
	}
	if p.cfg.GRPC != nil {
		opts = append(opts, client.WithTransport(a2a.BindingGRPC, p.cfg.GRPC))
	}
	if p.cfg.Binding != "" {
		opts = append(opts, client.WithBinding(p.cfg.Binding))
	}
	if p.cfg.MaxResponseBytes > 0 {
		opts = append(opts, client.WithMaxResponseBytes(p.cfg.MaxResponseBytes))
	}
	cl, err := client.New(c, opts...)
	if err != nil {
		return nil, fmt.Errorf("proxy: upstream card: %w", err)
	}
	st.client, st.card = cl, c
	st.streaming = c.Capabilities.Streaming != nil && *c.Capabilities.Streaming
	return st, nil
}

// Refresh fetches the upstream card again (If-None-Match with the ETag of
// the card in use) and, when it changed, verifies it and switches to it:
// executions that start afterwards use the new card's interfaces; running
// ones finish on the old. It reports whether the card changed. A card
// that fails verification is not used (the error wraps ErrCardRefused) and
// its ETag is not kept, so the next Refresh fetches whatever is served
// then; a fetch error keeps the card in use. Either way the caller decides
// whether to keep serving.
func (p *Proxy) Refresh(ctx context.Context) (changed bool, err error) {
	p.refreshMu.Lock()
	defer p.refreshMu.Unlock()
	cur := p.state.Load()
	fctx, cancel := context.WithTimeout(ctx, p.timeout)
	defer cancel()
	f, err := p.fetchCard(fctx, cur.etag)
	if err != nil {
		return false, err
	}
	if f.notModified || bytes.Equal(f.raw, cur.raw) {
		next := *cur
		next.expires = time.Now().Add(f.ttl)
		if !f.notModified {
			next.etag = f.etag
		}
		p.state.Store(&next)
		return false, nil
	}
	st, err := p.load(fctx, f)
	if err != nil {
		return false, err
	}
	p.state.Store(st)
	return true, nil
}

// CardExpires is when the card in use should be refreshed: its fetch time
// plus its Cache-Control max-age, clamped to [CardTTLMin, CardTTLMax].
func (p *Proxy) CardExpires() time.Time { return p.state.Load().expires }

// fetchCard reads the card bytes (verification needs them as received),
// conditionally when etag is set.
func (p *Proxy) fetchCard(ctx context.Context, etag string) (fetched, error) {
	limit := p.cfg.MaxResponseBytes
	if limit <= 0 {
		limit = card.DefaultMaxCardBytes
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, p.cardURL, nil)
	if err != nil {
		return fetched{}, fmt.Errorf("proxy: fetch upstream card: %w", err)
	}
	req.Header.Set("Accept", "application/json")
	req.Header.Set("A2A-Version", a2a.ProtocolVersion)
	if etag != "" {
		req.Header.Set("If-None-Match", etag)
	}
	if err := p.header(ctx, req); err != nil {
		return fetched{}, fmt.Errorf("proxy: fetch upstream card: %w", err)
	}
	resp, err := p.cfg.HTTPClient.Do(req)
	if err != nil {
		return fetched{}, fmt.Errorf("proxy: fetch upstream card: %w", err)
	}
	defer resp.Body.Close()
	ttl := cacheTTL(resp.Header.Get("Cache-Control"), p.cfg.CardTTLMin, p.cfg.CardTTLMax)
	if resp.StatusCode == http.StatusNotModified && etag != "" {
		return fetched{etag: etag, ttl: ttl, notModified: true}, nil
	}
	if resp.StatusCode != http.StatusOK {
		return fetched{}, fmt.Errorf("proxy: fetch upstream card: want HTTP 200, got %d", resp.StatusCode)
	}
	raw, err := io.ReadAll(io.LimitReader(resp.Body, limit+1))
	if err != nil {
		return fetched{}, fmt.Errorf("proxy: fetch upstream card: read body: %w", err)
	}
	if int64(len(raw)) > limit {
		return fetched{}, fmt.Errorf("proxy: fetch upstream card: the card exceeds %d bytes", limit)
	}
	return fetched{raw: raw, etag: resp.Header.Get("ETag"), ttl: ttl}, nil
}

// cacheTTL is max-age from Cache-Control clamped to [lo, hi]; no-store or
// no-cache mean lo; no max-age means 5m, clamped.
func cacheTTL(cc string, lo, hi time.Duration) time.Duration {
	ttl := 5 * time.Minute
	for _, d := range strings.Split(cc, ",") {
		d = strings.ToLower(strings.TrimSpace(d))
		switch {
		case d == "no-store" || d == "no-cache":
			return lo
		case strings.HasPrefix(d, "max-age="):
			n, err := strconv.Atoi(strings.Trim(strings.TrimPrefix(d, "max-age="), `"`))
			if err == nil && n >= 0 {
				ttl = time.Duration(n) * time.Second
			}
		}
	}
	return min(max(ttl, lo), hi)
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
		return fmt.Errorf("%w %q: not the card's host nor in CredentialHosts", ErrCredentialHost, req.URL.Host)
	}
	caller, _ := ctx.Value(callerKey{}).(*request.Principal)
	if err := p.cred.Apply(ctx, req, caller); err != nil {
		return fmt.Errorf("proxy: outbound credential: %w", err)
	}
	return nil
}

// UpstreamCard returns the upstream's card in use, as fetched. Do not
// modify it.
func (p *Proxy) UpstreamCard() *a2a.AgentCard { return p.state.Load().card }

// Verification returns the result of the verification of the card in use
// (the zero Result when Config.Verify was nil).
func (p *Proxy) Verification() card.Result { return p.state.Load().verified }

// unavailable is the caller's error for a failure on the bridge's side of
// the hop (the upstream could not be reached, the connection broke): the
// detail is logged, the caller learns that the agent is unavailable. A2A
// errors the upstream answered pass through.
func (p *Proxy) unavailable(err error) error {
	if err == nil || a2a.IsA2AError(err) || errors.Is(err, context.Canceled) {
		return err
	}
	p.log.Warn("proxy: upstream call failed", "err", netguard.RedactURL(err))
	if errors.Is(err, ErrCredentialHost) {
		return a2a.AgentUnavailable(p.cfg.Name, "its card names a host its credential may not be sent to (credential_hosts)")
	}
	return a2a.AgentUnavailable(p.cfg.Name, "it cannot be reached")
}

// Card returns the card the bridge serves for the upstream at baseURL: the
// upstream's name, description, version, provider, skills, modes and
// extensions, with the bridge's interfaces (JSON-RPC at baseURL, HTTP+JSON
// at baseURL+"/rest"), streaming on (the bridge streams whatever the
// upstream does), push notifications as the bridge offers them, no extended
// card, no security schemes (the gateway sets its own) and no signatures
// (the gateway signs it).
func (p *Proxy) Card(baseURL string, pushNotifications bool) *a2a.AgentCard {
	baseURL = strings.TrimSuffix(baseURL, "/")
	c := cloneCard(p.state.Load().card)
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

// HasSkill reports whether the upstream card, as last fetched, lists the
// skill id.
func (p *Proxy) HasSkill(id string) bool {
	for _, s := range p.state.Load().card.Skills {
		if s.ID == id {
			return true
		}
	}
	return false
}
