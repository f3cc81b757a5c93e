package gateway

import (
	"bytes"
	"context"
	"fmt"
	"reflect"
	"time"

	"github.com/a2a-mcp-bridge/bridge/a2a"
	"github.com/a2a-mcp-bridge/bridge/a2a/card"
	"github.com/a2a-mcp-bridge/bridge/auth"
	"github.com/a2a-mcp-bridge/bridge/config"
	"github.com/a2a-mcp-bridge/bridge/gateway/reload"
	"github.com/a2a-mcp-bridge/bridge/observe"
	"github.com/a2a-mcp-bridge/bridge/policy"
	"github.com/a2a-mcp-bridge/bridge/ratelimit"
)

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
	changed := reload.Changes(prev, next)
	var applied, restart, ups []string
	for _, c := range changed {
		switch {
		case reload.SectionIn(c, reload.Reloadable):
			applied = append(applied, c)
		case reload.SectionIn(c, reload.UpstreamSections):
			ups = append(ups, c)
		default:
			restart = append(restart, c)
		}
	}
	authChanged := reload.AnyIn(applied, "auth") || b.authFilesChanged(next)
	policyChanged := reload.AnyIn(applied, "policy") || authChanged
	limitsChanged := reload.AnyIn(applied, "limits", "redis")

	var chain *auth.Chain
	if authChanged && !b.mcpOnly {
		c, err := auth.New(ctx, next.Auth, auth.Options{HTTPClient: b.trusted, ListenAddr: b.cfg.Listen})
		if err != nil {
			return fmt.Errorf("gateway: reload auth: %w", err)
		}
		chain = c
		if !reload.AnyIn(applied, "auth") {
			applied = append(applied, "auth.jwks (file content)")
		}
	}
	reg := reload.ReplacingRegisterer{Registry: b.reg}
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
			if !reload.AnyIn(applied, "keys") {
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
		b.authn.Store(chain)
		b.recordAuthFiles(next)
		if b.face != nil {
			if md, err := chain.ResourceMetadata(b.publicURL + b.cfg.Expose.MCP.Path); err == nil {
				_ = b.face.SetMetadata(md)
			}
		}
	}
	if eng != nil {
		b.policy.Store(eng)
	}
	if lim != nil {
		old := b.limits.Swap(lim)
		b.retired = append(b.retired, old)
	}
	if resign {
		b.signing.Store(&nsg)
		b.resignCards()
	}
	b.applied = reload.Merged(prev, next)
	b.inForce.Store(b.applied)
	if len(applied) == 0 && len(restart) == 0 {
		b.log.Info("configuration reloaded: nothing changed")
		return nil
	}
	b.log.Info("configuration reloaded", "applied", reload.OrNone(applied), "needs_restart", reload.OrNone(restart))
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
	return append(out, reload.AuthFiles(c)...)
}

// authFilesChanged reports whether a JWKS file of next's auth differs from
// what the chain in use read.
func (b *Bridge) authFilesChanged(next *config.Config) bool {
	for _, f := range reload.AuthFiles(next) {
		h, ok := b.authSums[f]
		if !ok || h != reload.FileSum(f) {
			return true
		}
	}
	return false
}

func (b *Bridge) recordAuthFiles(c *config.Config) {
	b.authSums = map[string][32]byte{}
	for _, f := range reload.AuthFiles(c) {
		b.authSums[f] = reload.FileSum(f)
	}
}
