package config

import (
	"errors"
	"fmt"
	"net"
	"net/netip"
	"net/url"
	"path"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/a2a-mcp-bridge/bridge/config/internal/yamlwalk"
	"github.com/a2a-mcp-bridge/bridge/netguard"
	"github.com/a2a-mcp-bridge/bridge/policy"
)

// Validate reports every problem in c at once, each naming the field path
// and the fix; nil means valid. It checks the sections owned by other
// packages with their own validation (auth, policy rules compiled with their
// CEL positions, limits) and the cross-field rules: anonymous access and
// Unsafe… options on a non-loopback listener, duplicate names, conflicting
// options. It has no side effects and reads no files.
func (c *Config) Validate() Problems {
	v := &validator{c: c}
	v.top()
	v.auth()
	v.policy()
	v.limits()
	names := map[string]string{} // A2A agent name → path of first use
	for i := range c.Publish {
		v.publish(i, names)
	}
	v.expose()
	v.front(names)
	v.push()
	v.audiences()
	v.netguard()
	v.observability()
	v.server()
	v.grpc()
	v.retention()
	v.tasks()
	v.reload()
	v.health()
	v.admin()
	return v.ps
}

type validator struct {
	c  *Config
	ps Problems
}

// add records a problem at path, positioned at path or its nearest ancestor
// present in the file.
func (v *validator) add(path, format string, a ...any) {
	p := Problem{File: v.c.file, Path: path, Message: fmt.Sprintf(format, a...)}
	if pos, ok := v.c.pos.Lookup(path); ok {
		p.Line, p.Column = pos.Line, pos.Column
	}
	v.ps = append(v.ps, p)
}

// addErr records a problem reported by another package as "PREFIX PATH: MSG",
// re-rooted under section.
func (v *validator) addErr(section, prefix string, err error) {
	msg := strings.TrimPrefix(err.Error(), prefix)
	rel, rest, ok := strings.Cut(msg, ": ")
	if !ok || strings.ContainsAny(rel, " \"") {
		v.add(section, "%s", msg)
		return
	}
	v.add(yamlwalk.JoinKey(section, rel), "%s", rest)
}

func (v *validator) top() {
	c := v.c
	if c.Listen == "" {
		v.add("listen", "required: an address such as 127.0.0.1:8080")
	} else if _, port, err := net.SplitHostPort(c.Listen); err != nil {
		v.add("listen", "%q is not HOST:PORT: write an address such as 127.0.0.1:8080", clip(c.Listen))
	} else if n, err := strconv.Atoi(port); err != nil || n < 0 || n > 65535 {
		v.add("listen", "port %q is not a number from 0 to 65535", clip(port))
	}
	if c.PublicURL == "" {
		if !v.loopback() {
			v.add("public_url", "required when listen is not loopback: the https URL clients use to reach the bridge (cards and token audiences carry it)")
		}
	} else if u, err := url.Parse(c.PublicURL); err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		v.add("public_url", "%q is not an absolute http(s) URL: write it as https://bridge.example.com", clip(c.PublicURL))
	} else if u.User != nil || u.RawQuery != "" || u.Fragment != "" {
		v.add("public_url", "must not carry credentials, a query or a fragment: write only scheme, host and path")
	}
	switch s := c.Store; {
	case s == "memory:" || s == "memory":
	case strings.HasPrefix(s, "sqlite:"):
		path, query, _ := strings.Cut(strings.TrimPrefix(s, "sqlite:"), "?")
		if path == "" || path == "//" {
			v.add("store", "sqlite: names no file: write sqlite:./bridge.db")
		}
		switch strings.ToLower(query) {
		case "", "synchronous=full", "synchronous=normal":
		default:
			v.add("store", "sqlite: URL option %q is not known: the only one is synchronous=full (the default) or synchronous=normal (docs/stores.md)", clip(query))
		}
	case strings.HasPrefix(s, "postgres://") || strings.HasPrefix(s, "postgresql://"):
		if u, err := url.Parse(s); err != nil || u.Host == "" {
			// The URL may hold a password: never quote it.
			v.add("store", "not a valid postgres:// URL: fix it (it is not repeated here because it may hold a password)")
		}
	default:
		v.add("store", "unsupported store: use memory:, sqlite:PATH or postgres://USER@HOST/DB")
	}
	if c.Redis != "" && c.Limits.Redis != "" && c.Redis != c.Limits.Redis {
		v.add("limits.redis", "conflicts with redis: set the Redis URL once, at the top level")
	}
	if len(c.Keys.Previous) > 0 && c.Keys.Signing == "" {
		v.add("keys.signing", "required when keys.previous is set: the current key that signs cards")
	}
	for i, p := range c.Keys.Previous {
		if p == "" {
			v.add(fmt.Sprintf("keys.previous[%d]", i), "empty path: remove the entry or name a PEM file")
		} else if p == c.Keys.Signing {
			v.add(fmt.Sprintf("keys.previous[%d]", i), "is the signing key: list only retired keys")
		}
	}
}

func (v *validator) loopback() bool { return isLoopbackListen(v.c.Listen) }

func (v *validator) auth() {
	a := &v.c.Auth
	for _, err := range a.Validate() {
		v.addErr("auth", "auth.", err)
	}
	if a.Anonymous && !v.loopback() && !a.UnsafeAnonymousNonLoopback {
		v.add("auth.anonymous", "refused on the non-loopback listener %s: anyone who can reach it would be a caller; listen on 127.0.0.1, configure oidc/jwks/api_keys, or confirm with auth.unsafe_anonymous_non_loopback: true", clip(v.c.Listen))
	}
}

func (v *validator) policy() {
	rules := v.c.Policy.Rules
	_, err := policy.Compile(v.c.Policy)
	var ps policy.Problems
	if err == nil {
		return
	}
	if !errors.As(err, &ps) {
		v.add("policy", "%v", err)
		return
	}
	cursor := 0
	for _, p := range ps {
		if p.Field == "default" {
			v.add("policy.default", "%s", p.Msg)
			continue
		}
		i := ruleIndex(rules, p, cursor)
		if i < 0 {
			v.add("policy.rules", "%s", p.Msg)
			continue
		}
		cursor = i
		base := fmt.Sprintf("policy.rules[%d]", i)
		field := p.Field
		if field == "" {
			field = "allow"
			if rules[i].Allow == "" {
				field = "deny"
			}
		}
		if p.Line > 0 {
			v.addExpr(base+"."+field, p.Line, p.Column, p.Msg)
		} else {
			v.add(base+"."+field, "%s", p.Msg)
		}
	}
}

// ruleIndex finds the rule a policy problem belongs to, at or after from:
// problems come in rule order.
func ruleIndex(rules []policy.Rule, p *policy.Problem, from int) int {
	if p.Rule != "" {
		for i := from; i < len(rules); i++ {
			if rules[i].Name == p.Rule {
				if p.Field == "name" && strings.HasPrefix(p.Msg, "duplicate name") && i == from {
					for j := i + 1; j < len(rules); j++ {
						if rules[j].Name == p.Rule {
							return j
						}
					}
				}
				return i
			}
		}
		return -1
	}
	// Unnamed or badly named rules render as "policy: rules[N]: …".
	s := p.Error()
	if i := strings.Index(s, "rules["); i >= 0 {
		if j := strings.IndexByte(s[i:], ']'); j > 0 {
			if n, err := strconv.Atoi(s[i+6 : i+j]); err == nil && n < len(rules) {
				return n
			}
		}
	}
	return -1
}

// addExpr records a problem in the CEL expression at path, positioned at the
// offending character in the file when the expression is a one-line scalar.
func (v *validator) addExpr(path string, line, col int, msg string) {
	np, ok := v.c.pos[path]
	if ok && line == 1 && (np.Plain || np.Quoted) {
		off := 0
		if np.Quoted {
			off = 1
		}
		v.ps = append(v.ps, Problem{File: v.c.file, Line: np.Value.Line, Column: np.Value.Column + off + col - 1, Path: path, Message: msg})
		return
	}
	v.add(path, "%s (expression line %d, column %d)", msg, line, col)
}

func (v *validator) limits() {
	l := v.c.Limits
	for _, err := range l.Validate() {
		v.addErr("limits", "ratelimit: ", err)
	}
	for i, r := range l.Rules {
		if r.When == "" {
			continue
		}
		_, err := policy.CompileCondition(r.When)
		var ps policy.Problems
		if errors.As(err, &ps) {
			for _, p := range ps {
				path := fmt.Sprintf("limits.rules[%d].when", i)
				if p.Line > 0 {
					v.addExpr(path, p.Line, p.Column, p.Msg)
				} else {
					v.add(path, "%s", p.Msg)
				}
			}
		} else if err != nil {
			v.add(fmt.Sprintf("limits.rules[%d].when", i), "%v", err)
		}
	}
}

func (v *validator) publish(i int, names map[string]string) {
	p := &v.c.Publish[i]
	base := fmt.Sprintf("publish[%d]", i)
	v.agentName(base+".name", p.Name, names)
	v.upstream(base, p.MCPUpstream)
	v.credentials(base, p.MCPUpstream, p.Credentials)
	if p.ToolTimeout <= 0 {
		v.add(base+".tool_timeout", "must be positive, such as 60s")
	}
	for j, pat := range p.AllowTools {
		v.pattern(fmt.Sprintf("%s.allow_tools[%d]", base, j), pat)
	}
	for j, pat := range p.DenyTools {
		v.pattern(fmt.Sprintf("%s.deny_tools[%d]", base, j), pat)
	}
}

// agentName checks a name served at /a2a/{name}, unique among names.
func (v *validator) agentName(path, name string, names map[string]string) {
	switch {
	case name == "":
		v.add(path, "required: the agent's path segment, such as tickets")
	case !validName(name):
		v.add(path, "%q is not a valid name: use 1 to 64 lower-case letters, digits, '-' or '_', starting with a letter or digit", clip(name))
	default:
		if prev, dup := names[name]; dup {
			v.add(path, "%q is already used by %s: agent names must be unique", name, prev)
		} else {
			names[name] = yamlwalk.ParentPath(path)
		}
	}
}

func (v *validator) pattern(path, pat string) {
	if _, err := pathMatch(pat, ""); err != nil || pat == "" {
		v.add(path, "%q is not a valid pattern: use a tool name or a glob such as search_*", clip(pat))
	}
}

func pathMatch(pat, name string) (bool, error) { return path.Match(pat, name) }

func (v *validator) upstream(base string, u MCPUpstream) {
	n := 0
	if s := u.Stdio; s != nil {
		n++
		if s.Command == "" {
			v.add(base+".stdio.command", "required: the MCP server's executable, such as npx")
		}
		for k := range s.Env {
			if !validEnvName(k) {
				v.add(base+".stdio.env."+k, "%q is not a valid environment variable name", clip(k))
			}
		}
		for j, k := range s.InheritEnv {
			if !validEnvName(k) {
				v.add(fmt.Sprintf("%s.stdio.inherit_env[%d]", base, j), "%q is not a valid environment variable name", clip(k))
			} else if _, both := s.Env[k]; both {
				v.add(fmt.Sprintf("%s.stdio.inherit_env[%d]", base, j), "%s is also set in env: keep one", k)
			}
		}
	}
	if h := u.HTTP; h != nil {
		n++
		v.httpURL(base+".http.url", h.URL)
		v.headers(base+".http.headers", h.Headers)
	}
	if s := u.SSE; s != nil {
		n++
		v.httpURL(base+".sse.url", s.URL)
		v.headers(base+".sse.headers", s.Headers)
	}
	if u.Builtin != "" {
		n++
		if u.Builtin != BuiltinDemo {
			v.add(base+".builtin", "%q is not an MCP server built into the bridge: use %q", clip(u.Builtin), BuiltinDemo)
		}
	}
	switch {
	case n == 0:
		v.add(base, "no MCP server: set one of stdio, http, sse or builtin")
	case n > 1:
		v.add(base, "set only one of stdio, http, sse or builtin")
	}
}

func (v *validator) headers(path string, h map[string]string) {
	for k := range h {
		if !validHeaderName(k) {
			v.add(path+"."+k, "%q is not a valid header name", clip(k))
		}
	}
}

func (v *validator) credentials(base string, u MCPUpstream, cr credentialsConfig) {
	for _, err := range cr.Validate(base + ".credentials") {
		v.addErr("", "", err)
	}
	if u.Stdio != nil && (cr.Static != nil || cr.ClientCredentials != nil || cr.TokenExchange != nil) {
		v.add(base+".credentials", "a stdio server gets no HTTP credentials: pass secrets in stdio.env instead")
	}
	if u.Builtin != "" && cr.Configured() {
		v.add(base+".credentials", "a builtin server gets no credentials: remove them")
	}
}

// httpURL checks a required absolute http(s) URL from this file.
func (v *validator) httpURL(path, raw string) {
	if raw == "" {
		v.add(path, "required: an http(s) URL")
		return
	}
	u, err := url.Parse(raw)
	switch {
	case err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "":
		v.add(path, "%q is not an absolute http(s) URL: write it as https://host/path", clip(redact(raw)))
	case u.User != nil:
		v.add(path, "must not carry credentials: use credentials or headers instead")
	}
}

// redact hides userinfo in a URL that failed to parse as one.
func redact(raw string) string {
	if u, err := url.Parse(raw); err == nil {
		return u.Redacted()
	}
	if i := strings.LastIndexByte(raw, '@'); i >= 0 {
		return "…" + raw[i:]
	}
	return raw
}

func (v *validator) card(base string, cv CardVerification) {
	if cv.RequireSignature && cv.Keys == "" && len(cv.TrustedJKUHosts) == 0 {
		v.add(base+".require_signature", "needs trusted keys: set keys (a JWKS file or https URL) or trusted_jku_hosts")
	}
	if k := cv.Keys; strings.Contains(k, "://") {
		if u, err := url.Parse(k); err != nil || u.Scheme != "https" || u.Host == "" || u.User != nil {
			v.add(base+".keys", "%q: a JWKS URL must be https (or give a file path)", clip(redact(k)))
		}
	}
	for j, h := range cv.TrustedJKUHosts {
		if h == "" || strings.ContainsAny(h, "/*@ ") {
			v.add(fmt.Sprintf("%s.trusted_jku_hosts[%d]", base, j), "%q is not a host: write host or host:port, without scheme or wildcards", clip(h))
		}
	}
	for j, a := range cv.Algorithms {
		if !slices.Contains(cardAlgorithms, a) {
			v.add(fmt.Sprintf("%s.algorithms[%d]", base, j), "%q cannot be allowed: use one of %s", clip(a), strings.Join(cardAlgorithms, ", "))
		}
	}
	if cv.MaxCardBytes <= 0 {
		v.add(base+".max_card_bytes", "must be positive, such as 256KiB")
	}
}

// cardAlgorithms are the asymmetric JWS algorithms a card allow-list may name.
var cardAlgorithms = []string{"ES256", "ES384", "ES512", "EdDSA", "RS256", "RS384", "RS512", "PS256", "PS384", "PS512"}

func (v *validator) expose() {
	e := &v.c.Expose
	if !validSeparator(e.ToolNameSeparator) {
		v.add("expose.tool_name_separator", "%q is not a valid separator: use 1 to 8 letters, digits, '-' or '_' (hosts refuse tool names with other characters, dots among them)", clip(e.ToolNameSeparator))
	}
	aliases := map[string]int{}
	for i := range e.Agents {
		a := &e.Agents[i]
		base := fmt.Sprintf("expose.agents[%d]", i)
		switch {
		case a.Alias == "":
			v.add(base+".alias", "required: the name MCP tools carry for this agent, such as billing")
		case !validName(a.Alias):
			v.add(base+".alias", "%q is not a valid alias: use 1 to 64 lower-case letters, digits, '-' or '_', starting with a letter or digit", clip(a.Alias))
		default:
			if j, dup := aliases[a.Alias]; dup {
				v.add(base+".alias", "%q is already used by expose.agents[%d]: aliases must be unique", a.Alias, j)
			} else {
				aliases[a.Alias] = i
			}
		}
		switch {
		case a.Agent == "":
			v.httpURL(base+".url", a.URL)
		case a.URL != "":
			v.add(base, "set only one of url and agent")
		case !v.servesAgent(a.Agent):
			v.add(base+".agent", "%q is not an agent this bridge serves: name a publish or front.a2a entry", clip(a.Agent))
		}
		for _, err := range a.Credentials.Validate(base + ".credentials") {
			v.addErr("", "", err)
		}
		v.card(base+".card", a.Card)
		v.credentialHosts(base, a.CredentialHosts)
		v.binding(base+".binding", a.Binding)
		if a.Timeout <= 0 {
			v.add(base+".timeout", "must be positive, such as 5m")
		}
	}
	m := e.MCP
	if !strings.HasPrefix(m.Path, "/") {
		v.add("expose.mcp.path", "%q must start with /", clip(m.Path))
	}
	for i, meth := range m.RateLimitedMethods {
		p := fmt.Sprintf("expose.mcp.rate_limited_methods[%d]", i)
		if !validMethodPattern(meth) {
			v.add(p, "%q is not a method pattern: write a method such as tools/call, a family such as resources/*, or *", clip(meth))
		}
	}
	for i, o := range m.AllowedOrigins {
		v.origin(fmt.Sprintf("expose.mcp.allowed_origins[%d]", i), o)
	}
}

// origin checks one allowed browser origin.
func (v *validator) origin(p, o string) {
	if o == "*" {
		v.add(p, "\"*\" would let any web page call the bridge from a browser: list the origins, such as https://app.example.com")
		return
	}
	u, err := url.Parse(o)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" || (u.Path != "" && u.Path != "/") || u.RawQuery != "" || u.User != nil {
		v.add(p, "%q is not an origin: write scheme://host[:port]", clip(o))
	}
}

// builtinAgent checks a front.a2a entry that names a built-in agent: none
// of the settings of an agent reached at a URL apply.
func (v *validator) builtinAgent(base string, a *FrontedAgent) {
	if a.Builtin != BuiltinDemo {
		v.add(base+".builtin", "%q is not an A2A agent built into the bridge: use %q", clip(a.Builtin), BuiltinDemo)
	}
	if a.URL != "" {
		v.add(base, "set only one of url and builtin")
	}
	if a.Credentials.Configured() || len(a.CredentialHosts) > 0 || a.Binding != "" || a.Card.RequireSignature || a.Card.Keys != "" || len(a.Card.TrustedJKUHosts) > 0 {
		v.add(base, "a builtin agent is reached in process: remove credentials, credential_hosts, card and binding")
	}
}

// servesAgent reports whether name is a publish or front.a2a name.
func (v *validator) servesAgent(name string) bool {
	for _, p := range v.c.Publish {
		if p.Name == name {
			return true
		}
	}
	for _, f := range v.c.Front.A2A {
		if f.Name == name {
			return true
		}
	}
	return false
}

func (v *validator) front(names map[string]string) {
	f := &v.c.Front
	for i := range f.A2A {
		a := &f.A2A[i]
		base := fmt.Sprintf("front.a2a[%d]", i)
		v.agentName(base+".name", a.Name, names)
		if a.Builtin != "" {
			v.builtinAgent(base, a)
			continue
		}
		v.httpURL(base+".url", a.URL)
		for _, err := range a.Credentials.Validate(base + ".credentials") {
			v.addErr("", "", err)
		}
		v.card(base+".card", a.Card)
		v.credentialHosts(base, a.CredentialHosts)
		v.binding(base+".binding", a.Binding)
	}
	mcpNames, prefixes := map[string]int{}, map[string]int{}
	for i := range f.MCP {
		m := &f.MCP[i]
		base := fmt.Sprintf("front.mcp[%d]", i)
		switch {
		case m.Name == "":
			v.add(base+".name", "required: the server's name in policy and metrics, such as files")
		case !validName(m.Name):
			v.add(base+".name", "%q is not a valid name: use 1 to 64 lower-case letters, digits, '-' or '_', starting with a letter or digit", clip(m.Name))
		default:
			if j, dup := mcpNames[m.Name]; dup {
				v.add(base+".name", "%q is already used by front.mcp[%d]: names must be unique", m.Name, j)
			} else {
				mcpNames[m.Name] = i
			}
		}
		v.upstream(base, m.MCPUpstream)
		v.credentials(base, m.MCPUpstream, m.Credentials)
		if m.ToolPrefix != "" {
			if j, dup := prefixes[m.ToolPrefix]; dup {
				v.add(base+".tool_prefix", "%q is already used by front.mcp[%d]: servers could shadow each other's tools; give each a distinct prefix", m.ToolPrefix, j)
			} else {
				prefixes[m.ToolPrefix] = i
			}
		}
	}
}

// mcpServed reports whether the MCP endpoint is served (it has tools).
func (c *Config) mcpServed() bool { return len(c.Expose.Agents) > 0 || len(c.Front.MCP) > 0 }

// MCPAudience is the token audience the MCP endpoint accepts:
// expose.mcp.audience, by default its canonical resource URL.
func (c *Config) MCPAudience() []string {
	if len(c.Expose.MCP.Audience) > 0 {
		return c.Expose.MCP.Audience
	}
	if c.PublicURL == "" {
		return nil
	}
	return []string{strings.TrimRight(c.PublicURL, "/") + c.Expose.MCP.Path}
}

// audiences refuses audience lists that would let one face's tokens in on
// another: an A2A audience (an issuer's list or an agent's) that is the
// MCP endpoint's resource, and an MCP audience that is an A2A one.
func (v *validator) audiences() {
	c := v.c
	type list struct {
		path string
		aud  []string
	}
	var a2a []list
	for i, o := range c.Auth.OIDC {
		a2a = append(a2a, list{fmt.Sprintf("auth.oidc[%d].audience", i), o.Audience})
	}
	for i, j := range c.Auth.JWKS {
		a2a = append(a2a, list{fmt.Sprintf("auth.jwks[%d].audience", i), j.Audience})
	}
	for i, p := range c.Publish {
		a2a = append(a2a, list{fmt.Sprintf("publish[%d].audience", i), p.Audience})
	}
	for i, f := range c.Front.A2A {
		a2a = append(a2a, list{fmt.Sprintf("front.a2a[%d].audience", i), f.Audience})
	}
	for _, l := range a2a[len(c.Auth.OIDC)+len(c.Auth.JWKS):] {
		for _, a := range l.aud {
			if a == "" {
				v.add(l.path, "empty value: remove it or name an audience such as %s/a2a/NAME", strings.TrimRight(c.PublicURL, "/"))
			}
		}
	}
	for _, a := range c.Expose.MCP.Audience {
		if a == "" {
			v.add("expose.mcp.audience", "empty value: remove it or name the endpoint's resource URL")
		}
	}
	if !c.mcpServed() {
		return
	}
	// The MCP endpoint's canonical resource may never be an A2A audience;
	// an expose.mcp.audience that is one is reported there, below.
	mcp := []string{strings.TrimRight(c.PublicURL, "/") + c.Expose.MCP.Path}
	for _, l := range a2a {
		for _, a := range l.aud {
			if a != "" && slices.Contains(mcp, a) {
				v.add(l.path, "%q is the MCP endpoint's resource (public_url + expose.mcp.path): A2A agents would accept tokens issued for the MCP endpoint; list A2A audiences here (such as %s), the MCP endpoint accepts its own by itself (expose.mcp.audience)", clip(a), clip(strings.TrimRight(c.PublicURL, "/")))
			}
		}
	}
	for _, a := range c.Expose.MCP.Audience {
		for _, l := range a2a {
			if a != "" && slices.Contains(l.aud, a) {
				v.add("expose.mcp.audience", "%q is also an A2A audience (%s): the MCP endpoint would accept tokens issued for the A2A agents; give it its own, such as %s%s", clip(a), l.path, clip(strings.TrimRight(c.PublicURL, "/")), c.Expose.MCP.Path)
				break
			}
		}
	}
}

func (v *validator) push() {
	p := v.c.Push
	if p.MaxAttempts < 1 || p.MaxAttempts > 20 {
		v.add("push.max_attempts", "%d is outside 1..20", p.MaxAttempts)
	}
	if p.Timeout <= 0 {
		v.add("push.timeout", "must be positive, such as 10s")
	}
}

func (v *validator) netguard() {
	n := v.c.Netguard
	for i, s := range n.UnsafeAllow {
		p := fmt.Sprintf("netguard.unsafe_allow[%d]", i)
		pfx, err := netip.ParsePrefix(s)
		switch {
		case err != nil:
			v.add(p, "%q is not a CIDR prefix: write one such as 127.0.0.1/32", clip(s))
		case pfx != pfx.Masked():
			v.add(p, "%s has host bits set: write %s", pfx, pfx.Masked())
		}
	}
	unsafe := len(n.UnsafeAllow) > 0 || n.UnsafeAllowHTTP
	if unsafe && !v.loopback() && !n.UnsafeAllowConfirm {
		what := "netguard.unsafe_allow"
		if len(n.UnsafeAllow) == 0 {
			what = "netguard.unsafe_allow_http"
		}
		v.add(what, "weakens SSRF protection on the non-loopback listener %s: remove it, listen on 127.0.0.1, or confirm with netguard.unsafe_allow_confirm: true", clip(v.c.Listen))
	}
	if n.UnsafeAllowConfirm && !unsafe {
		v.add("netguard.unsafe_allow_confirm", "set without unsafe_allow or unsafe_allow_http: remove it")
	}
	for i, port := range n.Ports {
		if port == 0 {
			v.add(fmt.Sprintf("netguard.ports[%d]", i), "port 0 is not a destination port")
		}
	}
	if n.MaxRedirects < 0 || n.MaxRedirects > 10 {
		v.add("netguard.max_redirects", "%d is outside 0..10", n.MaxRedirects)
	}
	if n.Timeout <= 0 {
		v.add("netguard.timeout", "must be positive, such as 30s")
	}
	if n.MaxBodyBytes <= 0 {
		v.add("netguard.max_body_bytes", "must be positive, such as 1MiB")
	}
}

func (v *validator) observability() {
	o := v.c.Observability
	if !slices.Contains([]string{"debug", "info", "warn", "error"}, o.LogLevel) {
		v.add("observability.log_level", "%q is not a level: use debug, info, warn or error", clip(o.LogLevel))
	}
	if o.LogFormat != "json" && o.LogFormat != "text" {
		v.add("observability.log_format", "%q is not a format: use json or text", clip(o.LogFormat))
	}
	if d := o.LogFlushInterval.D(); d < 0 || d > 10*time.Second {
		v.add("observability.log_flush_interval", "%s: use 0 (every line written at once) up to 10s", d)
	}
	if !strings.HasPrefix(o.MetricsPath, "/") {
		v.add("observability.metrics_path", "%q must start with /", clip(o.MetricsPath))
	} else if o.MetricsEnabled() && o.MetricsPath == v.c.Expose.MCP.Path {
		v.add("observability.metrics_path", "%s is also expose.mcp.path: give each its own path", o.MetricsPath)
	}
	if o.OTLPEndpoint != "" {
		v.httpURL("observability.otlp_endpoint", o.OTLPEndpoint)
	}
	if o.ServiceName == "" {
		v.add("observability.service_name", "must not be empty")
	}
}

func (v *validator) server() {
	s := v.c.Server
	if s.RootAgent != "" && !v.servesAgent(s.RootAgent) {
		v.add("server.root_agent", "%q is not an agent this bridge serves: name a publish or front.a2a entry", clip(s.RootAgent))
	}
	for _, d := range []struct {
		name string
		v    Duration
	}{
		{"read_header_timeout", s.ReadHeaderTimeout},
		{"write_timeout", s.WriteTimeout},
		{"idle_timeout", s.IdleTimeout},
		{"shutdown_grace", s.ShutdownGrace},
	} {
		if d.v < 0 {
			v.add("server."+d.name, "must not be negative")
		}
	}
	if s.ReadTimeout <= 0 {
		v.add("server.read_timeout", "must be positive, such as 60s: it bounds reading every request body")
	}
	if s.MaxBodyBytes <= 0 {
		v.add("server.max_body_bytes", "must be positive, such as 1MiB")
	}
	if s.MaxConnections < 0 {
		v.add("server.max_connections", "must not be negative (0 turns the limit off)")
	}
	if s.MaxConnectionsPerClient < 0 {
		v.add("server.max_connections_per_client", "must not be negative (0 turns the limit off)")
	} else if s.MaxConnections > 0 && s.MaxConnectionsPerClient > s.MaxConnections {
		v.add("server.max_connections_per_client", "%d is above server.max_connections (%d): lower it, or it never bites", s.MaxConnectionsPerClient, s.MaxConnections)
	}
	for i, h := range s.AllowedHosts {
		if h == "" || strings.ContainsAny(h, ":/ *") && !strings.HasPrefix(h, "[") {
			v.add(fmt.Sprintf("server.allowed_hosts[%d]", i), "%q is not a host name: write a name such as bridge.internal, without scheme, port or wildcard", clip(h))
		}
	}
	for i, o := range s.AllowedOrigins {
		v.origin(fmt.Sprintf("server.allowed_origins[%d]", i), o)
	}
	if s.A2AV03 != "accept" && s.A2AV03 != "refuse" {
		v.add("server.a2a_v03", "%q is not known: use \"accept\" or \"refuse\"", clip(s.A2AV03))
	}
	if s.A2AV03Card != "on_request" && s.A2AV03Card != "default" {
		v.add("server.a2a_v03_card", "%q is not known: use \"on_request\" or \"default\"", clip(s.A2AV03Card))
	}
	if s.A2AErrorTable != "1.0.1" && s.A2AErrorTable != "1.0.0" {
		v.add("server.a2a_error_table", "%q is not a known table: use \"1.0.1\" or \"1.0.0\"", clip(s.A2AErrorTable))
	}
}

// binding checks an upstream agent's binding choice.
func (v *validator) binding(path, b string) {
	switch strings.ToUpper(b) {
	case "", "JSONRPC", "HTTP+JSON", "GRPC":
	default:
		v.add(path, "%q is not a binding: use JSONRPC, HTTP+JSON or GRPC (or leave it out: the card decides)", clip(b))
	}
}

func (v *validator) grpc() {
	g := v.c.Server.GRPC
	const p = "server.grpc."
	if !g.Enabled {
		if g.Listen != "" || g.CertFile != "" || g.KeyFile != "" || g.PublicAddress != "" {
			v.add("server.grpc.enabled", "must be true when listen, public_address, cert_file or key_file is set")
		}
		return
	}
	if g.Listen != "" {
		if _, port, err := net.SplitHostPort(g.Listen); err != nil || port == "" {
			v.add(p+"listen", "%q is not HOST:PORT: write an address such as 127.0.0.1:9090", clip(g.Listen))
		} else if g.Listen == v.c.Listen {
			v.add(p+"listen", "is the main listener's address: leave it empty to serve gRPC there")
		}
	}
	if g.PublicAddress != "" {
		if host, port, err := net.SplitHostPort(g.PublicAddress); err != nil || host == "" || port == "" || strings.ContainsAny(g.PublicAddress, "/?#@") {
			v.add(p+"public_address", "%q is not HOST:PORT: write the address clients dial, such as grpc.example.com:443", clip(g.PublicAddress))
		}
	}
	if (g.CertFile == "") != (g.KeyFile == "") {
		v.add(p+"cert_file", "cert_file and key_file go together: set both or neither")
	}
	if g.CertFile != "" && g.Listen == "" {
		v.add(p+"cert_file", "TLS is configured for the binding's own listener: set server.grpc.listen too (the main listener has no TLS of its own)")
	}
	for _, d := range []struct {
		name string
		v    ByteSize
	}{{"max_recv_message_bytes", g.MaxRecvMessageBytes}, {"max_send_message_bytes", g.MaxSendMessageBytes}} {
		if d.v <= 0 || d.v > 1<<30 {
			v.add(p+d.name, "must be positive and at most 1GiB, such as 4MiB")
		}
	}
	if g.MaxUnaryDuration <= 0 {
		v.add(p+"max_unary_duration", "must be positive, such as 5m")
	}
	if g.KeepaliveTime.D() < 10*time.Second {
		v.add(p+"keepalive_time", "must be at least 10s, such as 2m")
	}
	if g.KeepaliveTimeout.D() < time.Second {
		v.add(p+"keepalive_timeout", "must be at least 1s, such as 20s")
	}
	if g.MinPingInterval.D() < time.Second {
		v.add(p+"min_ping_interval", "must be at least 1s, such as 30s")
	}
	for _, d := range []struct {
		name string
		v    Duration
	}{{"max_connection_idle", g.MaxConnectionIdle}, {"max_connection_age", g.MaxConnectionAge}, {"max_connection_age_grace", g.MaxConnectionAgeGrace}} {
		if d.v < 0 {
			v.add(p+d.name, "must not be negative (0 turns it off)")
		}
	}
}

func (v *validator) reload() {
	if r := v.c.Reload; r.WatchInterval.D() < time.Second {
		v.add("reload.watch_interval", "must be at least 1s, such as 5s")
	}
}

func (v *validator) tasks() {
	if d := v.c.Tasks.LeaseTTL.D(); d < time.Second || d > 10*time.Minute {
		v.add("tasks.lease_ttl", "%s is out of range: use a duration from 1s to 10m, such as 15s", d)
	}
}

func (v *validator) retention() {
	r := v.c.Retention
	if r.FinishedTasks <= 0 {
		v.add("retention.finished_tasks", "must be positive, such as 168h")
	}
	if r.SweepInterval <= 0 {
		v.add("retention.sweep_interval", "must be positive, such as 10m")
	}
}

// credentialHosts checks an agent's credential_hosts: host or host:port,
// exact names.
func (v *validator) credentialHosts(base string, hosts []string) {
	for i, h := range hosts {
		p := fmt.Sprintf("%s.credential_hosts[%d]", base, i)
		host := h
		if strings.Contains(h, "://") {
			host = ""
		} else if hh, port, err := net.SplitHostPort(h); err == nil {
			if n, err := strconv.Atoi(port); err != nil || n < 1 || n > 65535 {
				v.add(p, "%q has an invalid port: write host or host:port, such as billing.svc:8443", clip(h))
				continue
			}
			host = hh
		}
		if host == "" || strings.ContainsAny(host, "/*@ ") {
			v.add(p, "%q is not a host: write host or host:port, exact (no scheme, path or wildcard), such as billing.svc:8443", clip(h))
		}
	}
}

func (v *validator) health() {
	h := v.c.Health
	if h.Readiness != ReadinessUpstreams && h.Readiness != ReadinessBridge {
		v.add("health.readiness", "%q is not a readiness: use \"upstreams\" (every upstream must be up: a sidecar) or \"bridge\" (the bridge itself: a shared gateway)", clip(h.Readiness))
	}
	for _, d := range []struct {
		name, example string
		v             Duration
	}{
		{"check_interval", "15s", h.CheckInterval},
		{"check_timeout", "5s", h.CheckTimeout},
		{"reconnect_min", "250ms", h.ReconnectMin},
		{"reconnect_max", "30s", h.ReconnectMax},
		{"card_refresh_min", "30s", h.CardRefreshMin},
		{"card_refresh_max", "1h", h.CardRefreshMax},
	} {
		if d.v <= 0 {
			v.add("health."+d.name, "must be positive, such as %s", d.example)
		}
	}
	if h.ReconnectMin > 0 && h.ReconnectMax > 0 && h.ReconnectMax < h.ReconnectMin {
		v.add("health.reconnect_max", "%s is less than reconnect_min (%s)", h.ReconnectMax.D(), h.ReconnectMin.D())
	}
	if h.CardRefreshMin > 0 && h.CardRefreshMax > 0 && h.CardRefreshMax < h.CardRefreshMin {
		v.add("health.card_refresh_max", "%s is less than card_refresh_min (%s)", h.CardRefreshMax.D(), h.CardRefreshMin.D())
	}
	if h.CheckTimeout > 0 && h.CheckInterval > 0 && h.CheckTimeout > h.CheckInterval {
		v.add("health.check_timeout", "%s is longer than check_interval (%s): checks would overlap", h.CheckTimeout.D(), h.CheckInterval.D())
	}
}

// isLoopbackListen reports whether addr (HOST:PORT) binds only loopback.
func isLoopbackListen(addr string) bool {
	if _, _, err := net.SplitHostPort(addr); err != nil {
		return false
	}
	return netguard.IsLoopbackHost(addr)
}

// validMethodPattern: "*", an MCP method name (letters, digits, '/', '_',
// '-', '.'), or such a name ending in "/*".
func validMethodPattern(p string) bool {
	if p == "*" {
		return true
	}
	p = strings.TrimSuffix(p, "/*")
	if p == "" || len(p) > 128 || p[0] == '/' || strings.HasSuffix(p, "/") {
		return false
	}
	for i := 0; i < len(p); i++ {
		c := p[i]
		if !('a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9' || strings.IndexByte("/_-.", c) >= 0) {
			return false
		}
	}
	return true
}

// validSeparator mirrors expose.ValidSeparator: 1 to 8 characters of
// [A-Za-z0-9_-].
func validSeparator(s string) bool {
	if s == "" || len(s) > 8 {
		return false
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		if !('a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9' || c == '-' || c == '_') {
			return false
		}
	}
	return true
}

// validName: 1 to 64 of [a-z0-9_-], starting with a letter or digit.
func validName(s string) bool {
	if s == "" || len(s) > 64 {
		return false
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case 'a' <= c && c <= 'z', '0' <= c && c <= '9':
		case i > 0 && (c == '-' || c == '_'):
		default:
			return false
		}
	}
	return true
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
	return true
}

func (v *validator) admin() {
	a := v.c.Admin
	if !a.Enabled() {
		if a.AuthConfigured() {
			v.add("admin.auth", "set without admin.listen: set admin.listen (e.g. 127.0.0.1:9090) to turn the admin listener on, or remove admin.auth")
		}
		return
	}
	if _, port, err := net.SplitHostPort(a.Listen); err != nil {
		v.add("admin.listen", "%q is not HOST:PORT: write an address such as 127.0.0.1:9090", clip(a.Listen))
		return
	} else if n, err := strconv.Atoi(port); err != nil || n < 0 || n > 65535 {
		v.add("admin.listen", "port %q is not a number from 0 to 65535", clip(port))
	}
	if a.Listen == v.c.Listen && !strings.HasSuffix(a.Listen, ":0") {
		v.add("admin.listen", "is the same address as listen: give the admin listener a port of its own, such as 127.0.0.1:9090")
	}
	if a.AuthConfigured() {
		for _, err := range a.Auth.Validate() {
			v.addErr("admin.auth", "auth.", err)
		}
	}
	if a.Auth.Anonymous || a.Auth.UnsafeAnonymousNonLoopback {
		v.add("admin.auth.anonymous", "refused: the admin view shows the running configuration and every upstream; remove it and configure admin.auth.api_keys, jwks or oidc")
	}
	if !isLoopbackListen(a.Listen) && !a.AuthConfigured() {
		v.add("admin.listen", "%s is not a loopback address: the admin view shows the running configuration and every upstream, so it needs admin.auth (api_keys, jwks or oidc; callers also need admin.scope); or listen on 127.0.0.1", clip(a.Listen))
	}
	if strings.TrimSpace(a.Scope) == "" {
		v.add("admin.scope", "must not be empty: the scope admin callers must carry, such as bridge:admin")
	}
	if d := a.Refresh.D(); d < time.Second || d > time.Hour {
		v.add("admin.refresh", "%s is out of range: from 1s to 1h, such as 10s", a.Refresh)
	}
}
