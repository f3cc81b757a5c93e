package gateway

import (
	"bytes"
	"context"
	"crypto/sha256"
	"errors"
	"fmt"
	"maps"
	"net/http"
	"os"
	"reflect"
	"slices"
	"strings"
	"sync/atomic"
	"time"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/a2a-mcp-bridge/bridge/a2a"
	"github.com/a2a-mcp-bridge/bridge/a2a/card"
	"github.com/a2a-mcp-bridge/bridge/auth"
	"github.com/a2a-mcp-bridge/bridge/config"
	"github.com/a2a-mcp-bridge/bridge/gateway/hops"
	"github.com/a2a-mcp-bridge/bridge/observe"
	"github.com/a2a-mcp-bridge/bridge/policy"
	"github.com/a2a-mcp-bridge/bridge/ratelimit"
	"github.com/a2a-mcp-bridge/bridge/request"
)

// livePolicy is the policy engine in use; Reload swaps it.
type livePolicy struct{ p atomic.Pointer[policy.Engine] }

var _ hops.Authorizer = (*livePolicy)(nil)

// Decide implements Authorizer.
func (l *livePolicy) Decide(ctx context.Context, hop request.Hop) policy.Decision {
	return l.p.Load().Decide(ctx, hop)
}

// liveLimits is the limiter in use; Reload swaps it.
type liveLimits struct {
	p atomic.Pointer[ratelimit.Limiter]
}

var _ hops.Limiter = (*liveLimits)(nil)

// Allow implements Limiter.
func (l *liveLimits) Allow(ctx context.Context, hop request.Hop) (ratelimit.Result, error) {
	return l.p.Load().Allow(ctx, hop)
}

// liveAuthn is the authentication chain in use; Reload swaps it, with a
// fresh verified-token cache, so that a removed key or issuer is refused
// from the next request on.
type liveAuthn struct{ p atomic.Pointer[auth.Chain] }

var _ hops.Authenticator = (*liveAuthn)(nil)

// Authenticate implements Authenticator.
func (l *liveAuthn) Authenticate(r *http.Request) (*request.Principal, error) {
	return l.p.Load().Authenticate(r)
}

// ForAudience is the chain in use, for a face whose tokens must name one of
// aud (auth.Chain.AuthenticateFor); it follows reloads.
func (l *liveAuthn) ForAudience(aud ...string) hops.Authenticator {
	return &liveAudienced{l: l, aud: slices.Clone(aud)}
}

type liveAudienced struct {
	l   *liveAuthn
	aud []string
}

// Authenticate implements Authenticator.
func (a *liveAudienced) Authenticate(r *http.Request) (*request.Principal, error) {
	return a.l.p.Load().AuthenticateFor(r, a.aud)
}

// signing is what card signatures are made of: the keys (their JWKS
// served at JWKSPath) and the security the cards declare.
type signing struct {
	keys      *card.KeySet
	jwks      []byte
	ephemeral bool // keys.signing unset: the current key was generated at start
	schemes   map[string]a2a.SecurityScheme
	reqs      []a2a.SecurityRequirement
}

// reloadTimeout bounds building what a reload changes (OIDC discovery).
const reloadTimeout = 30 * time.Second

// Sections of the configuration as a reload treats them.
var (
	// reloadable are applied by Reload.
	reloadable = []string{"auth", "policy", "limits", "redis", "keys"}
	// upstreamSections are handed to reloadUpstreams.
	upstreamSections = []string{"publish", "expose.agents", "front"}
)

// Reload applies what can change while serving: authentication (API keys,
// OIDC issuers, JWKS files; a fresh verified-token cache, so a removed key
// is refused from the next request on), policy rules (a fresh decision
// memo), rate limits (counters start afresh) and the signing keys (the
// served JWKS and every served card's signature follow, as does the cards'
// declared security); the upstream lists go to reloadUpstreams. The key
// files and JWKS files are read again even when their paths did not
// change, so a rotated file is picked up. Everything is built before
// anything is swapped: on error nothing changes. One log line says what
// changed and what needs a restart (listen, store, server, …).
func (b *Bridge) Reload(next *config.Config) error {
	b.reloadMu.Lock()
	defer b.reloadMu.Unlock()
	ctx, cancel := context.WithTimeout(context.Background(), reloadTimeout)
	defer cancel()
	prev := b.applied
	changed := configChanges(prev, next)
	var applied, restart, ups []string
	for _, c := range changed {
		switch {
		case sectionIn(c, reloadable):
			applied = append(applied, c)
		case sectionIn(c, upstreamSections):
			ups = append(ups, c)
		default:
			restart = append(restart, c)
		}
	}
	authChanged := anyIn(applied, "auth") || b.authFilesChanged(next)
	policyChanged := anyIn(applied, "policy") || authChanged
	limitsChanged := anyIn(applied, "limits", "redis")

	var chain *auth.Chain
	if authChanged && !b.mcpOnly {
		c, err := auth.New(ctx, next.Auth, auth.Options{HTTPClient: b.trusted, ListenAddr: b.cfg.Listen})
		if err != nil {
			return fmt.Errorf("gateway: reload auth: %w", err)
		}
		chain = c
		if !anyIn(applied, "auth") {
			applied = append(applied, "auth.jwks (file content)")
		}
	}
	reg := replacingRegisterer{b.reg}
	var eng *policy.Engine
	if policyChanged {
		e, err := policy.Compile(next.Policy, policy.WithLogger(b.log), policy.WithLogAttrs(observe.ContextAttrs), policy.WithRegisterer(reg))
		if err != nil {
			return fmt.Errorf("gateway: reload policy: %w", err)
		}
		eng = e
	}
	var lim *ratelimit.Limiter
	if limitsChanged {
		l, err := ratelimit.New(next.Limits, ratelimit.WithCompiler(celCondition), ratelimit.WithLogger(b.log), ratelimit.WithRegisterer(reg))
		if err != nil {
			return fmt.Errorf("gateway: reload limits: %w", err)
		}
		lim = l
	}
	sg := b.signing.Load()
	nsg := *sg
	resign := false
	if sg.keys != nil {
		ks, jwks, err := b.keySet(next.Keys, sg)
		if err != nil {
			if lim != nil {
				_ = lim.Close()
			}
			return fmt.Errorf("gateway: reload keys: %w", err)
		}
		if !bytes.Equal(jwks, sg.jwks) || ks.Current.KeyID() != sg.keys.Current.KeyID() {
			nsg.keys, nsg.jwks, nsg.ephemeral = ks, jwks, next.Keys.Signing == "" && sg.ephemeral
			resign = true
			if !anyIn(applied, "keys") {
				applied = append(applied, "keys (file content)")
			}
		}
	}
	if chain != nil {
		nsg.schemes, nsg.reqs = securityOf(chain)
		resign = resign || !reflect.DeepEqual(nsg.schemes, sg.schemes) || !reflect.DeepEqual(nsg.reqs, sg.reqs)
	}
	upApplied, upRestart, err := b.reloadUpstreams(ctx, next, ups)
	if err != nil {
		if lim != nil {
			_ = lim.Close()
		}
		return fmt.Errorf("gateway: reload upstreams: %w", err)
	}
	applied = append(applied, upApplied...)
	restart = append(restart, upRestart...)

	// Everything is built: swap.
	if chain != nil {
		b.authn.p.Store(chain)
		b.recordAuthFiles(next)
		if b.face != nil {
			if md, err := chain.ResourceMetadata(b.publicURL + b.cfg.Expose.MCP.Path); err == nil {
				_ = b.face.SetMetadata(md)
			}
		}
	}
	if eng != nil {
		b.policy.p.Store(eng)
	}
	if lim != nil {
		old := b.limits.p.Swap(lim)
		b.retired = append(b.retired, old)
	}
	if resign {
		b.signing.Store(&nsg)
		b.resignCards()
	}
	b.applied = merged(prev, next)
	b.inForce.Store(b.applied)
	if len(applied) == 0 && len(restart) == 0 {
		b.log.Info("configuration reloaded: nothing changed")
		return nil
	}
	b.log.Info("configuration reloaded", "applied", orNone(applied), "needs_restart", orNone(restart))
	return nil
}

// resignCards signs every served card again with the keys and security in
// force: published agents' and fronted agents' whose card is loaded.
func (b *Bridge) resignCards() {
	for _, a := range b.publishedAgents() {
		if a.exec == nil || a.srv == nil {
			continue
		}
		c, err := b.sign(b.withGRPC(a.exec.Card(a.base), a.name))
		if err == nil {
			err = a.srv.SetCard(c)
		}
		if err != nil {
			b.log.Error("reload: re-signing a card failed; the old card is still served", "agent", a.name, "err", err)
		}
	}
	for _, fa := range b.frontedAgents() {
		px := fa.proxy()
		if px == nil && (fa.builtin == nil || fa.handler.Load() == nil) {
			continue
		}
		if err := b.resignFront(fa, px); err != nil {
			b.log.Error("reload: re-signing a card failed; the old card is still served", "agent", fa.name, "err", err)
		}
	}
}

// merged is prev with next's reloadable sections: the configuration in
// force after a reload, against which the next one is compared.
func merged(prev, next *config.Config) *config.Config {
	m := *prev
	m.Auth, m.Policy, m.Limits, m.Redis, m.Keys = next.Auth, next.Policy, next.Limits, next.Redis, next.Keys
	// The upstream lists went to reloadUpstreams, which keeps its own
	// record of what it could apply (and names the rest as needing a
	// restart on every reload).
	m.Publish, m.Front, m.Expose.Agents = next.Publish, next.Front, next.Expose.Agents
	return &m
}

// configChanges lists the sections of the configuration that differ, by
// their YAML paths: top-level sections, one level deeper for auth,
// expose, front, server and keys (so that the log names auth.api_keys, or
// expose.mcp apart from expose.agents).
func configChanges(a, b *config.Config) []string {
	var out []string
	diffStruct(reflect.ValueOf(*a), reflect.ValueOf(*b), "", 0, &out)
	return out
}

// deeper are the sections whose changes are named one level down.
var deeper = []string{"auth", "expose", "front", "server", "keys", "observability", "netguard"}

func diffStruct(a, b reflect.Value, prefix string, depth int, out *[]string) {
	t := a.Type()
	for i := range t.NumField() {
		f := t.Field(i)
		if !f.IsExported() {
			continue
		}
		name, _, _ := strings.Cut(f.Tag.Get("yaml"), ",")
		if name == "" {
			name = strings.ToLower(f.Name)
		}
		path := name
		if prefix != "" {
			path = prefix + "." + name
		}
		fa, fb := a.Field(i), b.Field(i)
		if reflect.DeepEqual(fa.Interface(), fb.Interface()) {
			continue
		}
		if depth == 0 && fa.Kind() == reflect.Struct && slices.Contains(deeper, name) {
			diffStruct(fa, fb, path, depth+1, out)
			continue
		}
		*out = append(*out, path)
	}
}

// sectionIn reports whether path is one of sections or below one.
func sectionIn(path string, sections []string) bool {
	for _, s := range sections {
		if path == s || strings.HasPrefix(path, s+".") {
			return true
		}
	}
	return false
}

func anyIn(paths []string, sections ...string) bool {
	for _, p := range paths {
		if sectionIn(p, sections) {
			return true
		}
	}
	return false
}

func orNone(s []string) []string {
	if len(s) == 0 {
		return []string{}
	}
	return s
}

// authFiles are the JWKS files auth reads, for noticing a rotated file.
func authFiles(c *config.Config) []string {
	var out []string
	for _, j := range c.Auth.JWKS {
		out = append(out, j.File)
	}
	return out
}

// WatchedFiles lists the files the running configuration reads besides
// itself, which reload.watch also watches: the signing keys and the JWKS
// files of auth.
func (b *Bridge) WatchedFiles() []string {
	b.reloadMu.Lock()
	c := b.applied
	b.reloadMu.Unlock()
	var out []string
	if c.Keys.Signing != "" {
		out = append(out, c.Keys.Signing)
	}
	out = append(out, c.Keys.Previous...)
	return append(out, authFiles(c)...)
}

// authFilesChanged reports whether a JWKS file of next's auth differs from
// what the chain in use read.
func (b *Bridge) authFilesChanged(next *config.Config) bool {
	for _, f := range authFiles(next) {
		h, ok := b.authSums[f]
		if !ok || h != fileSum(f) {
			return true
		}
	}
	return false
}

func (b *Bridge) recordAuthFiles(c *config.Config) {
	b.authSums = map[string][32]byte{}
	for _, f := range authFiles(c) {
		b.authSums[f] = fileSum(f)
	}
}

// fileSum is the sha256 of a file's content (of nothing when unreadable).
func fileSum(path string) [32]byte {
	data, err := os.ReadFile(path)
	if err != nil {
		return sha256.Sum256([]byte("\x00unreadable\x00" + err.Error()))
	}
	return sha256.Sum256(data)
}

// WatchFiles polls the files named by files every interval, and sends on
// the returned channel (coalesced) when the content of any of them has
// changed since the last poll: a new file, an edit, a replaced symlink
// (how Kubernetes updates a mounted ConfigMap or Secret), a removal. It
// stops when ctx ends.
func WatchFiles(ctx context.Context, every time.Duration, files func() []string) <-chan struct{} {
	ch := make(chan struct{}, 1)
	sums := func() map[string][32]byte {
		m := map[string][32]byte{}
		for _, f := range files() {
			m[f] = fileSum(f)
		}
		return m
	}
	go func() {
		last := sums()
		t := time.NewTicker(every)
		defer t.Stop()
		for {
			select {
			case <-ctx.Done():
				return
			case <-t.C:
			}
			now := sums()
			if !maps.Equal(now, last) {
				select {
				case ch <- struct{}{}:
				default:
				}
			}
			last = now
		}
	}()
	return ch
}

// replacingRegisterer registers a reloaded component's collectors in place
// of the previous generation's (their counters restart from zero).
type replacingRegisterer struct{ *prometheus.Registry }

// Register implements prometheus.Registerer.
func (r replacingRegisterer) Register(c prometheus.Collector) error {
	err := r.Registry.Register(c)
	var are prometheus.AlreadyRegisteredError
	if errors.As(err, &are) {
		r.Registry.Unregister(are.ExistingCollector)
		return r.Registry.Register(c)
	}
	return err
}

// MustRegister implements prometheus.Registerer.
func (r replacingRegisterer) MustRegister(cs ...prometheus.Collector) {
	for _, c := range cs {
		if err := r.Register(c); err != nil {
			panic(err)
		}
	}
}
