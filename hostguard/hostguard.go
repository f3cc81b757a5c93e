// Package hostguard refuses requests that a web page sent to the bridge
// through a name it does not answer to: DNS rebinding, where a page on
// evil.example makes its name resolve to 127.0.0.1 (or to a private address
// the browser can reach) and then drives the bridge with the browser's own
// network position, and cross-site requests from origins nobody allowed.
//
// Two rules, for every request of a wrapped handler:
//
//   - Host must be one of the names the bridge answers to: the host of
//     public_url, the host of the listen address, the loopback names
//     (localhost, 127.0.0.1, [::1]), any extra configured host, or an IP
//     literal. An IP literal cannot be rebound (rebinding needs a name the
//     attacker controls), so probes and scrapers that address a pod by its
//     IP pass; neither can a request without a Host (no browser sends one).
//   - Origin, when present, must be an allowed origin, or the request's own
//     origin (scheme://Host of a Host that passed). "null" never is.
//
// It knows nothing of A2A or MCP: a refusal is handed to the wrapper's
// refuse function, which answers in the protocol of the route.
package hostguard

import (
	"errors"
	"fmt"
	"net"
	"net/http"
	"net/netip"
	"net/url"
	"strings"

	"github.com/a2a-mcp-bridge/bridge/netguard"
)

// Sentinel errors of a refusal, matched with errors.Is.
var (
	// ErrHost: the Host header names none of the bridge's names.
	ErrHost = errors.New("hostguard: host not allowed")
	// ErrOrigin: the Origin header is neither allowed nor the request's own.
	ErrOrigin = errors.New("hostguard: origin not allowed")
)

// Config lists what the guard accepts.
type Config struct {
	// PublicURL is the bridge's external URL; its host is allowed.
	PublicURL string
	// Listen is the listen address (HOST:PORT); its host is allowed unless
	// it is a wildcard address.
	Listen string
	// Hosts are extra host names (without port) requests may name, such as
	// the internal name a load balancer uses.
	Hosts []string
	// Origins are the origins (scheme://host[:port]) web pages may send
	// requests from, on every wrapped handler.
	Origins []string
	// LoopbackOrigins also allows any http(s) origin on a loopback host
	// (localhost, 127.0.0.0/8, [::1]): tools on this machine, such as an MCP
	// inspector.
	LoopbackOrigins bool
}

// Guard checks Host and Origin. Build it with New.
type Guard struct {
	hosts    map[string]bool
	origins  map[string]bool
	loopback bool
}

// New builds a guard; it refuses a malformed origin or public URL.
func New(cfg Config) (*Guard, error) {
	g := &Guard{hosts: map[string]bool{"localhost": true}, origins: map[string]bool{}, loopback: cfg.LoopbackOrigins}
	if cfg.PublicURL != "" {
		u, err := url.Parse(cfg.PublicURL)
		if err != nil || u.Host == "" {
			return nil, fmt.Errorf("hostguard: public URL %q is not an absolute URL", cfg.PublicURL)
		}
		g.hosts[normalHost(u.Hostname())] = true
		g.origins[strings.ToLower(u.Scheme+"://"+u.Host)] = true
	}
	if h, _, err := net.SplitHostPort(cfg.Listen); err == nil && h != "" {
		if ip, err := netip.ParseAddr(h); err != nil || !ip.IsUnspecified() {
			g.hosts[normalHost(h)] = true
		}
	}
	for _, h := range cfg.Hosts {
		if h == "" {
			continue
		}
		g.hosts[normalHost(h)] = true
	}
	for _, o := range cfg.Origins {
		n, err := normalOrigin(o)
		if err != nil {
			return nil, err
		}
		g.origins[n] = true
	}
	return g, nil
}

// normalHost lower-cases a host name and drops a trailing dot and the
// brackets of an IPv6 literal.
func normalHost(h string) string {
	h = strings.TrimSuffix(strings.ToLower(strings.Trim(h, "[]")), ".")
	return h
}

func normalOrigin(o string) (string, error) {
	u, err := url.Parse(strings.TrimRight(o, "/"))
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" || u.Path != "" || u.RawQuery != "" || u.User != nil {
		return "", fmt.Errorf("hostguard: %q is not an origin (scheme://host[:port])", o)
	}
	return strings.ToLower(u.Scheme + "://" + u.Host), nil
}

// With returns a guard that also allows origins (for the routes of one
// face, such as the MCP endpoint's allowed browser origins).
func (g *Guard) With(origins ...string) (*Guard, error) {
	c := &Guard{hosts: g.hosts, origins: map[string]bool{}, loopback: g.loopback}
	for o := range g.origins {
		c.origins[o] = true
	}
	for _, o := range origins {
		n, err := normalOrigin(o)
		if err != nil {
			return nil, err
		}
		c.origins[n] = true
	}
	return c, nil
}

// Check returns nil when r may be served, else an error matching ErrHost
// or ErrOrigin.
func (g *Guard) Check(r *http.Request) error {
	host := r.Host
	if h, _, err := net.SplitHostPort(host); err == nil {
		host = h
	}
	host = normalHost(host)
	if !g.hostAllowed(host) {
		return ErrHost
	}
	o := r.Header.Get("Origin")
	if o == "" {
		return nil
	}
	lo := strings.ToLower(strings.TrimRight(o, "/"))
	if g.origins[lo] {
		return nil
	}
	if u, err := url.Parse(lo); err == nil && (u.Scheme == "http" || u.Scheme == "https") && u.Path == "" {
		if strings.EqualFold(u.Host, r.Host) {
			return nil // the request's own origin
		}
		if g.loopback && netguard.IsLoopbackHost(u.Hostname()) {
			return nil
		}
	}
	return ErrOrigin
}

func (g *Guard) hostAllowed(h string) bool {
	if h == "" {
		// No Host at all (HTTP/1.0, or a handler called in process): no
		// browser sends such a request, so no page can rebind one.
		return true
	}
	if g.hosts[h] {
		return true
	}
	if _, err := netip.ParseAddr(h); err == nil {
		return true // an IP literal cannot be rebound
	}
	return false
}

// Refuse answers a refused request (err matches ErrHost or ErrOrigin) in
// the protocol of the route.
type Refuse func(w http.ResponseWriter, r *http.Request, err error)

// Wrap returns h behind the guard. A refusal is answered by refuse (nil: a
// 403 with a small JSON body).
func (g *Guard) Wrap(h http.Handler, refuse Refuse) http.Handler {
	if refuse == nil {
		refuse = WriteForbidden
	}
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if err := g.Check(r); err != nil {
			refuse(w, r, err)
			return
		}
		h.ServeHTTP(w, r)
	})
}

// WriteForbidden is the default refusal: 403 with an OAuth-style JSON body.
func WriteForbidden(w http.ResponseWriter, _ *http.Request, err error) {
	desc := "origin not allowed"
	if errors.Is(err, ErrHost) {
		desc = "host not allowed: this bridge does not answer to that name (DNS rebinding?)"
	}
	w.Header().Set("Content-Type", "application/json")
	w.Header().Set("Cache-Control", "no-store")
	w.WriteHeader(http.StatusForbidden)
	_, _ = fmt.Fprintf(w, `{"error":"forbidden","error_description":%q}`, desc)
}
