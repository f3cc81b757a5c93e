package config

import (
	"fmt"
	"net/netip"
	"strings"

	"github.com/a2a-mcp-bridge/bridge/a2a/card"
	"github.com/a2a-mcp-bridge/bridge/auth"
	"github.com/a2a-mcp-bridge/bridge/netguard"
)

type credentialsConfig = auth.CredentialsConfig

// Config converts the netguard section to a netguard.Config. Resolver and
// RootCAs are left for the caller to inject.
func (n Netguard) Config() (netguard.Config, error) {
	out := netguard.Config{
		AllowHTTP:    n.UnsafeAllowHTTP,
		Ports:        append([]uint16(nil), n.Ports...),
		MaxRedirects: n.MaxRedirects,
		Timeout:      n.Timeout.D(),
		MaxBodyBytes: int64(n.MaxBodyBytes),
	}
	for i, s := range n.UnsafeAllow {
		p, err := netip.ParsePrefix(s)
		if err != nil {
			return netguard.Config{}, fmt.Errorf("config: netguard.unsafe_allow[%d]: %q is not a CIDR prefix", i, clip(s))
		}
		out.UnsafeAllow = append(out.UnsafeAllow, p)
	}
	return out, out.Validate()
}

// VerifyOptions converts the card section to card.VerifyOptions. fetcher
// dereferences trusted jku URLs (build it on netguard's client); it is used
// only when trusted_jku_hosts is set. Pinned keys (Keys) are loaded by the
// caller, which knows whether they are a file or a URL.
func (cv CardVerification) VerifyOptions(fetcher card.JWKSFetcher) card.VerifyOptions {
	o := card.VerifyOptions{
		RequireSignature: cv.RequireSignature,
		Algorithms:       append([]string(nil), cv.Algorithms...),
		SpecFormOnly:     cv.SpecFormOnly,
		MaxCardBytes:     int(cv.MaxCardBytes),
	}
	if len(cv.TrustedJKUHosts) > 0 {
		o.JKU = &card.JKUPolicy{TrustedHosts: append([]string(nil), cv.TrustedJKUHosts...), Fetcher: fetcher}
	}
	return o
}

// Position returns where path ("publish[1].stdio.command") is in the file
// the configuration was parsed from, or of its nearest ancestor present; ok
// is false for a Config not built by Parse or a path absent from the file.
func (c *Config) Position(path string) (pos Position, ok bool) { return c.pos.Lookup(path) }

// File is the name the configuration was parsed from ("" when built in Go).
func (c *Config) File() string { return c.file }

// Warnings lists, one sentence each, the settings that weaken security or
// that a deployment of several replicas must accommodate, for the gateway to
// log at start. Nil when there are none.
func (c *Config) Warnings() []string {
	var w []string
	if c.Auth.Anonymous {
		w = append(w, "config: auth.anonymous admits callers without credentials")
	}
	if c.Auth.UnsafeAnonymousNonLoopback {
		w = append(w, "config: auth.unsafe_anonymous_non_loopback lets anyone who reaches "+c.Listen+" call every face")
	}
	for i, o := range c.Auth.OIDC {
		if o.UnsafeAllowHTTP {
			w = append(w, fmt.Sprintf("config: auth.oidc[%d].unsafe_allow_http: identity for %s may be fetched in clear text: whoever can read or change that traffic can mint tokens", i, o.Issuer))
		}
	}
	if g, err := c.Netguard.Config(); err == nil {
		w = append(w, g.Warnings()...)
	}
	for i, a := range c.Expose.Agents {
		// An agent of this bridge (agent:) is verified with its own keys.
		if !a.Card.RequireSignature && a.Agent == "" {
			w = append(w, fmt.Sprintf("config: expose.agents[%d] (%s): unsigned cards are accepted", i, a.Alias))
		}
	}
	for i, a := range c.Front.A2A {
		if a.Builtin != "" && !isLoopbackListen(c.Listen) {
			w = append(w, fmt.Sprintf("config: front.a2a[%d] (%s): the built-in %s agent is served on the non-loopback listener %s", i, a.Name, a.Builtin, c.Listen))
		}
	}
	for i, p := range c.Publish {
		if p.Builtin != "" && !isLoopbackListen(c.Listen) {
			w = append(w, fmt.Sprintf("config: publish[%d] (%s): the built-in %s MCP server is served on the non-loopback listener %s", i, p.Name, p.Builtin, c.Listen))
		}
	}
	// A shared store or Redis means replicas; sessions still work there
	// (so this is no refusal) but only if the load balancer keeps each
	// session on the replica that holds it.
	if c.Expose.MCP.Sessions && c.sharedState() {
		w = append(w, "config: expose.mcp.sessions: MCP sessions live in this process's memory; with several replicas (a shared store or Redis is configured), route each Mcp-Session-Id to the replica that created it (sticky routing)")
	}
	return w
}

// sharedState reports whether state is shared through a PostgreSQL store or
// Redis, the sign of a deployment of several replicas.
func (c *Config) sharedState() bool {
	return strings.HasPrefix(c.Store, "postgres://") || strings.HasPrefix(c.Store, "postgresql://") ||
		c.Redis != "" || c.Limits.Redis != ""
}
