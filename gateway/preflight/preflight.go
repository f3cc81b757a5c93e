// Package preflight owns the checks `bridge check-config` makes of the
// machine a valid configuration is to run on, where config.Validate (which
// reads nothing) cannot: key files, stdio commands, the store, Redis and,
// with a probe, every upstream and OIDC issuer once.
//
// It starts nothing that outlives a check: it must not import gateway,
// admin, the faces' servers (a2a/server, mcp/endpoint) or observe.
package preflight

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"log/slog"
	"net/http"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/a2a-mcp-bridge/bridge/a2a/card"
	"github.com/a2a-mcp-bridge/bridge/a2a/store"
	"github.com/a2a-mcp-bridge/bridge/auth"
	"github.com/a2a-mcp-bridge/bridge/config"
	"github.com/a2a-mcp-bridge/bridge/gateway/upstream"
	"github.com/a2a-mcp-bridge/bridge/mcp/connector"
	"github.com/a2a-mcp-bridge/bridge/netguard"
	"github.com/a2a-mcp-bridge/bridge/ratelimit"
)

// DefaultTimeout bounds each network check of [Run].
const DefaultTimeout = 3 * time.Second

// Options configure [Run].
type Options struct {
	// Probe also reaches each upstream (MCP servers are started or
	// connected and list their tools; A2A agents serve their card) and each
	// OIDC issuer (its discovery document) once.
	Probe bool
	// Timeout bounds each network check and each probe (default
	// DefaultTimeout).
	Timeout time.Duration
	// LookupEnv reads the environment, for the PATH commands are looked up
	// in (default os.LookupEnv).
	LookupEnv func(string) (string, bool)
}

// Run checks what a valid configuration needs of the machine it is
// to run on, where Validate (which reads nothing) cannot: the key files
// exist and parse, every stdio command resolves on the PATH the child
// gets and its directory exists, the store can be opened (a SQLite file
// created or opened, a PostgreSQL server reached) and Redis answers; with
// Probe, every upstream and OIDC issuer is reached once. Each problem is
// positioned at the field it is about. Run starts nothing that
// outlives it and changes nothing but what a probe's server does when
// started.
func Run(ctx context.Context, c *config.Config, o Options) config.Problems {
	if o.Timeout <= 0 {
		o.Timeout = DefaultTimeout
	}
	if o.LookupEnv == nil {
		o.LookupEnv = os.LookupEnv
	}
	p := &preflight{c: c, o: o, broken: map[string]bool{}}
	p.keys()
	p.authFiles()
	p.cardKeys()
	for i := range c.Publish {
		p.stdio(fmt.Sprintf("publish[%d]", i), &c.Publish[i].MCPUpstream)
	}
	for i := range c.Front.MCP {
		p.stdio(fmt.Sprintf("front.mcp[%d]", i), &c.Front.MCP[i].MCPUpstream)
	}
	p.store(ctx)
	p.redis(ctx)
	if o.Probe {
		p.probe(ctx)
	}
	slices.SortStableFunc(p.ps, func(a, b config.Problem) int {
		if a.Line != b.Line {
			return a.Line - b.Line
		}
		return a.Column - b.Column
	})
	return p.ps
}

type preflight struct {
	c  *config.Config
	o  Options
	ps config.Problems
	// broken are the entries whose stdio check failed: not probed.
	broken map[string]bool
}

func (p *preflight) add(path, format string, a ...any) {
	msg := strings.Join(strings.Fields(fmt.Sprintf(format, a...)), " ") // one line, whatever a cause holds
	pr := config.Problem{File: p.c.File(), Path: path, Message: msg}
	if pos, ok := p.c.Position(path); ok {
		pr.Line, pr.Column = pos.Line, pos.Column
	}
	p.ps = append(p.ps, pr)
}

// readable reports a problem at path unless file is a regular file the
// process can read; hint is added when it does not exist.
func (p *preflight) readable(path, file, hint string) bool {
	f, err := os.Open(file)
	if err == nil {
		var st fs.FileInfo
		st, err = f.Stat()
		f.Close()
		if err == nil && st.IsDir() {
			p.add(path, "%s is a directory, not a file", file)
			return false
		}
	}
	if err != nil {
		if !errors.Is(err, fs.ErrNotExist) {
			hint = ""
		}
		p.add(path, "cannot read %s: %v%s", file, pathErr(err), hint)
		return false
	}
	return true
}

// jwksCause is a card.LoadJWKSFile error without the prefixes the check
// states already.
func jwksCause(err error) string {
	return causeOf(err, "card: jwks: ", card.ErrKeyFetch.Error()+": ", "card: ")
}

// pathErr is the cause of a file error without the path it repeats.
func pathErr(err error) error {
	var pe *fs.PathError
	if errors.As(err, &pe) {
		return pe.Err
	}
	return err
}

// causeOf is err's message without the "pkg: what: " prefixes a check
// already states.
func causeOf(err error, prefixes ...string) string {
	s := err.Error()
	for _, pre := range prefixes {
		s = strings.TrimPrefix(s, pre)
	}
	return s
}

func (p *preflight) keys() {
	k := p.c.Keys
	if k.Signing != "" && p.readable("keys.signing", k.Signing, ": create it with bridge keys generate "+k.Signing) {
		if _, err := card.LoadSigningKey(k.Signing); err != nil {
			p.add("keys.signing", "%s is not a signing key: %s", k.Signing, causeOf(err, "card: signing key: "))
		}
	}
	for i, f := range k.Previous {
		path := fmt.Sprintf("keys.previous[%d]", i)
		if f != "" && p.readable(path, f, "") {
			if _, err := card.LoadSigningKey(f); err != nil {
				p.add(path, "%s is not a signing key: %s", f, causeOf(err, "card: signing key: "))
			}
		}
	}
}

func (p *preflight) authFiles() {
	for i, j := range p.c.Auth.JWKS {
		path := fmt.Sprintf("auth.jwks[%d].file", i)
		if j.File != "" && p.readable(path, j.File, "") {
			if _, err := card.LoadJWKSFile(j.File); err != nil {
				p.add(path, "%s is not a JWKS document: %s", j.File, jwksCause(err))
			}
		}
	}
}

func (p *preflight) cardKeys() {
	check := func(path, keys string) {
		if keys == "" || strings.HasPrefix(keys, "https://") {
			return
		}
		if p.readable(path, keys, "") {
			if _, err := card.LoadJWKSFile(keys); err != nil {
				p.add(path, "%s is not a JWKS document: %s", keys, jwksCause(err))
			}
		}
	}
	for i, a := range p.c.Expose.Agents {
		check(fmt.Sprintf("expose.agents[%d].card.keys", i), a.Card.Keys)
	}
	for i, a := range p.c.Front.A2A {
		check(fmt.Sprintf("front.a2a[%d].card.keys", i), a.Card.Keys)
	}
}

// stdio checks that a stdio server's directory exists and its command
// resolves as the upstream will resolve it: on the PATH the child gets
// (stdio.env or stdio.inherit_env), else on the bridge's.
func (p *preflight) stdio(entry string, u *config.MCPUpstream) {
	s := u.Stdio
	if s == nil || s.Command == "" {
		return
	}
	n := len(p.ps)
	defer func() {
		if len(p.ps) > n {
			p.broken[entry] = true
		}
	}()
	if s.Dir != "" {
		if st, err := os.Stat(s.Dir); err != nil {
			p.add(entry+".stdio.dir", "directory %s does not exist: create it, or name another", s.Dir)
			return
		} else if !st.IsDir() {
			p.add(entry+".stdio.dir", "%s is not a directory", s.Dir)
			return
		}
	}
	path := entry + ".stdio.command"
	if strings.ContainsRune(s.Command, '/') {
		file := s.Command
		if s.Dir != "" && !filepath.IsAbs(file) {
			file = filepath.Join(s.Dir, file)
		}
		st, err := os.Stat(file)
		switch {
		case err != nil:
			p.add(path, "%s does not exist: install it, or fix the path", file)
		case st.IsDir() || st.Mode()&0o111 == 0:
			p.add(path, "%s is not an executable file", file)
		}
		return
	}
	pathVar, from := p.childPath(s)
	for _, dir := range filepath.SplitList(pathVar) {
		if dir == "" {
			continue
		}
		if st, err := os.Stat(filepath.Join(dir, s.Command)); err == nil && !st.IsDir() && st.Mode()&0o111 != 0 {
			return
		}
	}
	p.add(path, "%q is not found on %s: install it, or write its absolute path", s.Command, from)
}

// childPath is the PATH a stdio child's command is looked up in, and where
// it comes from, for messages.
func (p *preflight) childPath(s *config.Stdio) (string, string) {
	if v, ok := s.Env["PATH"]; ok {
		return v, "the PATH set in stdio.env"
	}
	for _, name := range s.InheritEnv {
		if name == "PATH" {
			if v, ok := p.o.LookupEnv("PATH"); ok {
				return v, "the PATH inherited from the bridge"
			}
		}
	}
	v, _ := p.o.LookupEnv("PATH")
	return v, "the bridge's PATH"
}

func (p *preflight) store(ctx context.Context) {
	ctx, cancel := context.WithTimeout(ctx, p.o.Timeout)
	defer cancel()
	if err := store.Check(ctx, p.c.Store); err != nil {
		msg := causeOf(netguard.RedactURL(err), "store: ")
		if ctx.Err() != nil {
			msg = fmt.Sprintf("no answer within %s: %s", p.o.Timeout, msg)
		}
		p.add("store", "%s", msg)
	}
}

func (p *preflight) redis(ctx context.Context) {
	url, path := p.c.Limits.Redis, "limits.redis"
	if p.c.Redis != "" {
		url, path = p.c.Redis, "redis"
	}
	if url == "" {
		return
	}
	ctx, cancel := context.WithTimeout(ctx, p.o.Timeout)
	defer cancel()
	if err := ratelimit.PingRedis(ctx, url); err != nil {
		p.add(path, "Redis does not answer within %s: %s", p.o.Timeout, causeOf(err, "ratelimit: redis: "))
	}
}

// probe reaches every upstream and OIDC issuer once, one after the other.
func (p *preflight) probe(ctx context.Context) {
	ngcfg, err := p.c.Netguard.Config()
	if err != nil {
		return // Validate reports it
	}
	ngcfg.Timeout = p.o.Timeout
	client := netguard.Trusted(ngcfg)
	quiet := slog.New(slog.DiscardHandler)
	for i, o := range p.c.Auth.OIDC {
		cctx, cancel := context.WithTimeout(ctx, p.o.Timeout)
		_, err := auth.NewOIDC(cctx, o, auth.JWTOptions{HTTPClient: client})
		cancel()
		if err != nil {
			p.add(fmt.Sprintf("auth.oidc[%d].issuer", i), "probe: the issuer's discovery failed: %s", causeOf(netguard.RedactURL(err), "auth: "))
		}
	}
	mcpServer := func(path string, e *config.PublishedServer) {
		if p.broken[path] || e.Builtin != "" {
			return // its command or directory is reported already; a builtin is in the binary
		}
		ucfg, err := upstream.MCP(e, client, quiet)
		if err != nil {
			return // Validate or the credentials check reports it
		}
		ucfg.ConnectTimeout = p.o.Timeout
		cctx, cancel := context.WithTimeout(ctx, p.o.Timeout)
		defer cancel()
		conn, err := connector.Dial(cctx, ucfg)
		if err != nil {
			p.add(path, "probe: the MCP server did not answer: %v", netguard.RedactURL(err))
			return
		}
		_ = conn.Close()
	}
	for i := range p.c.Publish {
		mcpServer(fmt.Sprintf("publish[%d]", i), &p.c.Publish[i])
	}
	for i, m := range p.c.Front.MCP {
		mcpServer(fmt.Sprintf("front.mcp[%d]", i), &config.PublishedServer{Name: m.Name, MCPUpstream: m.MCPUpstream, Credentials: m.Credentials})
	}
	// An agent of this bridge (agent:) and a built-in one are served by
	// the bridge itself: nothing to reach before it runs.
	for i, a := range p.c.Expose.Agents {
		if a.Agent == "" {
			p.probeCard(ctx, client, fmt.Sprintf("expose.agents[%d].url", i), a.URL)
		}
	}
	for i, a := range p.c.Front.A2A {
		if a.Builtin == "" {
			p.probeCard(ctx, client, fmt.Sprintf("front.a2a[%d].url", i), a.URL)
		}
	}
}

// probeCard fetches an agent's card once: it must answer 200 with a JSON
// object.
func (p *preflight) probeCard(ctx context.Context, client *http.Client, path, agentURL string) {
	u := upstream.CardURL(agentURL)
	cctx, cancel := context.WithTimeout(ctx, p.o.Timeout)
	defer cancel()
	req, err := http.NewRequestWithContext(cctx, http.MethodGet, u, nil)
	if err != nil {
		return // Validate reports a bad URL
	}
	req.Header.Set("Accept", "application/json")
	resp, err := client.Do(req)
	if err != nil {
		p.add(path, "probe: cannot fetch the agent card %s: %v", upstream.RedactURL(u), netguard.RedactURL(err))
		return
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		p.add(path, "probe: the agent card %s answered HTTP %d", upstream.RedactURL(u), resp.StatusCode)
		return
	}
	var obj map[string]json.RawMessage
	if err := json.NewDecoder(io.LimitReader(resp.Body, 1<<20)).Decode(&obj); err != nil {
		p.add(path, "probe: the agent card %s is not a JSON object", upstream.RedactURL(u))
	}
}
