// Package reload is what a reload of the configuration is made of that needs
// no running bridge: the guards in use that a reload swaps (policy, limits,
// authentication), which sections of two configurations differ and which of
// them a reload applies, the files a configuration reads besides itself and
// the watch on their content, and the metrics registry that replaces a
// reloaded component's collectors.
//
// gateway's Reload builds the new parts and swaps them in; this package
// builds nothing and must not import gateway or any face.
package reload

import (
	"context"
	"crypto/sha256"
	"errors"
	"maps"
	"net/http"
	"os"
	"reflect"
	"slices"
	"strings"
	"sync/atomic"
	"time"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/a2a-mcp-bridge/bridge/auth"
	"github.com/a2a-mcp-bridge/bridge/config"
	"github.com/a2a-mcp-bridge/bridge/gateway/hops"
	"github.com/a2a-mcp-bridge/bridge/policy"
	"github.com/a2a-mcp-bridge/bridge/ratelimit"
	"github.com/a2a-mcp-bridge/bridge/request"
)

// Policy is the policy engine in use; gateway's Reload swaps it.
type Policy struct{ atomic.Pointer[policy.Engine] }

var _ hops.Authorizer = (*Policy)(nil)

// Decide implements Authorizer.
func (l *Policy) Decide(ctx context.Context, hop request.Hop) policy.Decision {
	return l.Load().Decide(ctx, hop)
}

// Limits is the limiter in use; gateway's Reload swaps it.
type Limits struct {
	atomic.Pointer[ratelimit.Limiter]
}

var _ hops.Limiter = (*Limits)(nil)

// Allow implements Limiter.
func (l *Limits) Allow(ctx context.Context, hop request.Hop) (ratelimit.Result, error) {
	return l.Load().Allow(ctx, hop)
}

// Authn is the authentication chain in use; gateway's Reload swaps it, with a
// fresh verified-token cache, so that a removed key or issuer is refused
// from the next request on.
type Authn struct{ atomic.Pointer[auth.Chain] }

var _ hops.Authenticator = (*Authn)(nil)

// Authenticate implements Authenticator.
func (l *Authn) Authenticate(r *http.Request) (*request.Principal, error) {
	return l.Load().Authenticate(r)
}

// ForAudience is the chain in use, for a face whose tokens must name one of
// aud (auth.Chain.AuthenticateFor); it follows reloads.
func (l *Authn) ForAudience(aud ...string) hops.Authenticator {
	return &audienced{l: l, aud: slices.Clone(aud)}
}

type audienced struct {
	l   *Authn
	aud []string
}

// Authenticate implements Authenticator.
func (a *audienced) Authenticate(r *http.Request) (*request.Principal, error) {
	return a.l.Load().AuthenticateFor(r, a.aud)
}

// Sections of the configuration as a reload treats them.
var (
	// Reloadable are applied by gateway's Reload.
	Reloadable = []string{"auth", "policy", "limits", "redis", "keys"}
	// UpstreamSections are handed to gateway's reloadUpstreams.
	UpstreamSections = []string{"publish", "expose.agents", "front"}
)

// Merged is prev with next's reloadable sections: the configuration in
// force after a reload, against which the next one is compared.
func Merged(prev, next *config.Config) *config.Config {
	m := *prev
	m.Auth, m.Policy, m.Limits, m.Redis, m.Keys = next.Auth, next.Policy, next.Limits, next.Redis, next.Keys
	// The upstream lists went to reloadUpstreams, which keeps its own
	// record of what it could apply (and names the rest as needing a
	// restart on every reload).
	m.Publish, m.Front, m.Expose.Agents = next.Publish, next.Front, next.Expose.Agents
	return &m
}

// Changes lists the sections of the configuration that differ, by
// their YAML paths: top-level sections, one level deeper for auth,
// expose, front, server and keys (so that the log names auth.api_keys, or
// expose.mcp apart from expose.agents).
func Changes(a, b *config.Config) []string {
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

// SectionIn reports whether path is one of sections or below one.
func SectionIn(path string, sections []string) bool {
	for _, s := range sections {
		if path == s || strings.HasPrefix(path, s+".") {
			return true
		}
	}
	return false
}

// AnyIn reports whether any of paths is in one of sections.
func AnyIn(paths []string, sections ...string) bool {
	for _, p := range paths {
		if SectionIn(p, sections) {
			return true
		}
	}
	return false
}

// OrNone is s, or an empty (not nil) list: a log field that says "none".
func OrNone(s []string) []string {
	if len(s) == 0 {
		return []string{}
	}
	return s
}

// AuthFiles are the JWKS files auth reads, for noticing a rotated file.
func AuthFiles(c *config.Config) []string {
	var out []string
	for _, j := range c.Auth.JWKS {
		out = append(out, j.File)
	}
	return out
}

// FileSum is the sha256 of a file's content (of nothing when unreadable).
func FileSum(path string) [32]byte {
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
			m[f] = FileSum(f)
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

// ReplacingRegisterer registers a reloaded component's collectors in place
// of the previous generation's (their counters restart from zero).
type ReplacingRegisterer struct{ *prometheus.Registry }

// Register implements prometheus.Registerer.
func (r ReplacingRegisterer) Register(c prometheus.Collector) error {
	err := r.Registry.Register(c)
	var are prometheus.AlreadyRegisteredError
	if errors.As(err, &are) {
		r.Registry.Unregister(are.ExistingCollector)
		return r.Registry.Register(c)
	}
	return err
}

// MustRegister implements prometheus.Registerer.
func (r ReplacingRegisterer) MustRegister(cs ...prometheus.Collector) {
	for _, c := range cs {
		if err := r.Register(c); err != nil {
			panic(err)
		}
	}
}
