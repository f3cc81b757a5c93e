// Package admin is the bridge's admin listener: a status page (server-rendered
// HTML, no JavaScript, refreshing itself), the same data as JSON for
// `bridge status`, and the metrics, on an address of their own
// (admin.listen).
//
// It keeps no state of its own about the bridge: every upstream's health
// comes from the gateway's health registry, which /readyz and the
// bridge_upstream_* series read too; the refusal counts come from the
// metrics registry /metrics serves; the tasks from the store. Off loopback
// it needs admin credentials (config validation refuses the listener
// otherwise), and with admin.auth set every caller needs them, loopback or
// not, with the admin scope.
package admin

import (
	"context"
	"embed"
	"encoding/json"
	"errors"
	"fmt"
	"html/template"
	"io/fs"
	"log/slog"
	"net/http"
	"strings"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/promhttp"

	"github.com/a2a-mcp-bridge/bridge/a2a"
	"github.com/a2a-mcp-bridge/bridge/auth"
	"github.com/a2a-mcp-bridge/bridge/config"
	"github.com/a2a-mcp-bridge/bridge/gateway"
	"github.com/a2a-mcp-bridge/bridge/gateway/health"
	"github.com/a2a-mcp-bridge/bridge/hostguard"
	"github.com/a2a-mcp-bridge/bridge/netguard"
	"github.com/a2a-mcp-bridge/bridge/request"
)

// Paths served on the admin listener (besides the metrics path).
const (
	PagePath   = "/admin/"
	APIPath    = "/admin/api/status"
	staticPath = "/admin/static/"
)

// CSP is the status page's Content-Security-Policy: nothing but its own
// stylesheet, no script at all, no framing, no form.
const CSP = "default-src 'none'; style-src 'self'; img-src 'self'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'"

// Readiness is what the page reads for readiness and upstreams
// (*gateway.Bridge): the health registry's List, as /readyz serves it.
type Readiness interface {
	Ready(ctx context.Context) gateway.Readiness
}

// Routes lists what the bridge serves (*gateway.Bridge).
type Routes interface {
	Routes() []gateway.Route
}

// Tasks counts the store's tasks by state (*gateway.Bridge).
type Tasks interface {
	TasksByState(ctx context.Context) (map[a2a.TaskState]int64, error)
}

// Authenticator turns a request into a principal (*auth.Chain).
type Authenticator interface {
	Authenticate(r *http.Request) (*request.Principal, error)
}

// Options are what the admin listener reads.
type Options struct {
	// Admin is the admin section of the configuration.
	Admin config.Admin
	// Ready, Routes and Tasks are the bridge (*gateway.Bridge).
	Ready  Readiness
	Routes Routes
	Tasks  Tasks
	// Config is the configuration in force, shown redacted.
	Config func() *config.Config
	// Gatherer is the metrics registry: served at MetricsPath, and read
	// for the refusal counts.
	Gatherer prometheus.Gatherer
	// MetricsPath is where the metrics are served (empty: not served).
	MetricsPath string
	// Authn authenticates callers; nil admits everyone (allowed by the
	// configuration on loopback only). New builds it from Admin.Auth.
	Authn Authenticator
	// AllowedHosts are the host names requests may name besides the
	// listen address, loopback names and IP literals (server.allowed_hosts).
	AllowedHosts []string
	// Version and Started are shown on the page.
	Version string
	Started time.Time
	// HTTPClient reaches OIDC issuers named in admin.auth.
	HTTPClient *http.Client
	// Logger receives refusals (default slog.Default()).
	Logger *slog.Logger
	// Now is the clock (default time.Now).
	Now func() time.Time
}

// Server serves the admin listener's routes.
type Server struct {
	o        Options
	scope    string
	refresh  int // seconds
	guard    *hostguard.Guard
	refusals *refusals
	handler  http.Handler
}

//go:embed templates/*.html static/*
var assets embed.FS

var pageTemplate = template.Must(template.New("status.html").Funcs(template.FuncMap{
	"since": func(now, t time.Time) string {
		if t.IsZero() {
			return "never"
		}
		return now.Sub(t).Round(time.Second).String() + " ago"
	},
	"stamp": func(t time.Time) string {
		if t.IsZero() {
			return ""
		}
		return t.UTC().Format(time.RFC3339)
	},
	"stateName": func(s a2a.TaskState) string {
		return strings.ToLower(strings.ReplaceAll(strings.TrimPrefix(string(s), "TASK_STATE_"), "_", " "))
	},
	"signature": SignatureText,
	"tools": func(st health.Status) string {
		if st.Kind == health.KindPublish || st.Kind == health.KindFrontMCP {
			return fmt.Sprintf("%d tools", st.Tools)
		}
		return fmt.Sprintf("%d skills", st.Tools)
	},
}).ParseFS(assets, "templates/status.html"))

// SignatureText is how an upstream's card signature status reads:
// verified or unsigned when its card was checked, "not checked" for an
// A2A upstream whose card is not (a fronted agent without card keys, or
// before its card is loaded), "–" for MCP servers, which have no card.
func SignatureText(st health.Status) string {
	switch {
	case st.Signature != "":
		return st.Signature
	case st.Kind == health.KindFrontA2A || st.Kind == health.KindExpose:
		return "not checked"
	}
	return "–"
}

// New builds the admin server. With admin.auth configured it builds the
// authentication chain for it (OIDC discovery runs now).
func New(ctx context.Context, o Options) (*Server, error) {
	if o.Logger == nil {
		o.Logger = slog.Default()
	}
	if o.Now == nil {
		o.Now = time.Now
	}
	if o.Started.IsZero() {
		o.Started = o.Now()
	}
	if o.Ready == nil || o.Routes == nil || o.Config == nil {
		return nil, errors.New("admin: the bridge's readiness, routes and configuration are required")
	}
	if o.Authn == nil && o.Admin.AuthConfigured() {
		chain, err := auth.New(ctx, o.Admin.Auth, auth.Options{HTTPClient: o.HTTPClient, ListenAddr: o.Admin.Listen})
		if err != nil {
			return nil, fmt.Errorf("admin: admin.auth: %w", err)
		}
		o.Authn = chain
	}
	if o.Authn == nil && !netguard.IsLoopbackHost(o.Admin.Listen) {
		return nil, fmt.Errorf("admin: admin.listen %s is not loopback and admin.auth is not set: refusing to serve the admin view to the network without credentials", o.Admin.Listen)
	}
	g, err := hostguard.New(hostguard.Config{Listen: o.Admin.Listen, Hosts: o.AllowedHosts})
	if err != nil {
		return nil, fmt.Errorf("admin: %w", err)
	}
	s := &Server{o: o, scope: o.Admin.Scope, guard: g, refusals: newRefusals(o.Gatherer, o.Started)}
	if s.scope == "" {
		s.scope = "bridge:admin"
	}
	s.refresh = max(1, int(o.Admin.Refresh.D()/time.Second))
	if o.Admin.Refresh == 0 {
		s.refresh = 10
	}
	mux := http.NewServeMux()
	mux.HandleFunc("GET /{$}", func(w http.ResponseWriter, r *http.Request) {
		http.Redirect(w, r, PagePath, http.StatusFound)
	})
	mux.HandleFunc("GET "+PagePath+"{$}", s.servePage)
	mux.HandleFunc("GET "+APIPath, s.serveAPI)
	static, _ := fs.Sub(assets, "static")
	mux.Handle("GET "+staticPath, http.StripPrefix(staticPath, http.FileServerFS(static)))
	if o.MetricsPath != "" && o.Gatherer != nil {
		mux.Handle("GET "+o.MetricsPath, promhttp.HandlerFor(o.Gatherer, promhttp.HandlerOpts{}))
	}
	s.handler = s.protect(mux)
	return s, nil
}

// Handler is the admin listener's handler.
func (s *Server) Handler() http.Handler { return s.handler }

// Run samples the refusal counters for the recent counts until ctx ends.
func (s *Server) Run(ctx context.Context) { s.refusals.run(ctx, s.o.Now) }

// protect is every route behind the security headers, the DNS-rebinding
// guard and, when configured, authentication with the admin scope.
func (s *Server) protect(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		h := w.Header()
		h.Set("Content-Security-Policy", CSP)
		h.Set("X-Content-Type-Options", "nosniff")
		h.Set("X-Frame-Options", "DENY")
		h.Set("Referrer-Policy", "no-referrer")
		h.Set("Cross-Origin-Resource-Policy", "same-origin")
		h.Set("Cache-Control", "no-store")
		if err := s.guard.Check(r); err != nil {
			s.o.Logger.Warn("admin: refused a request under a name or from an origin the admin listener does not answer to", "remote", r.RemoteAddr)
			hostguard.WriteForbidden(w, r, err)
			return
		}
		if s.o.Authn != nil {
			p, err := s.o.Authn.Authenticate(asBearer(r))
			if err == nil && !p.HasScope(s.scope) {
				err = errMissingScope
			}
			if err != nil {
				s.refuse(w, r, err)
				return
			}
		}
		next.ServeHTTP(w, r)
	})
}

var errMissingScope = errors.New("admin: the credentials lack the admin scope")

// asBearer lets a browser in: HTTP Basic credentials (any user name, the
// admin key or token as the password, what a browser's own prompt sends)
// are presented to the authenticator as the bearer credential they carry.
// Other requests are returned as they are.
func asBearer(r *http.Request) *http.Request {
	_, pass, ok := r.BasicAuth()
	if !ok || pass == "" || len(r.Header.Values("Authorization")) != 1 {
		return r
	}
	r2 := r.Clone(r.Context())
	r2.Header.Set("Authorization", "Bearer "+pass)
	return r2
}

// refuse answers a caller without admin credentials: 401 with a challenge,
// or 403 for credentials without the admin scope.
func (s *Server) refuse(w http.ResponseWriter, r *http.Request, err error) {
	status := http.StatusForbidden
	msg := "the credentials lack the admin scope " + s.scope
	if !errors.Is(err, errMissingScope) {
		status = auth.SetHeaders(w.Header(), "bridge-admin", err, "")
		if status == http.StatusUnauthorized {
			// A browser prompts for Basic credentials (the key as the
			// password); API clients send the bearer one.
			w.Header().Add("WWW-Authenticate", `Basic realm="bridge-admin", charset="UTF-8"`)
		}
		msg = "admin credentials required"
		if status == http.StatusTooManyRequests {
			msg = "too many attempts; retry later"
		}
	} else {
		w.Header().Set("WWW-Authenticate", fmt.Sprintf(`Bearer realm="bridge-admin", error="insufficient_scope", scope=%q`, s.scope))
	}
	s.o.Logger.Info("admin: refused a caller", "remote", r.RemoteAddr, "status", status)
	if strings.HasPrefix(r.URL.Path, "/admin/api/") {
		writeJSON(w, status, map[string]string{"error": msg})
		return
	}
	w.Header().Set("Content-Type", "text/plain; charset=utf-8")
	w.WriteHeader(status)
	_, _ = fmt.Fprintln(w, msg)
}

// Status reads the bridge's status now.
func (s *Server) Status(ctx context.Context) Status {
	now := s.o.Now()
	rd := s.o.Ready.Ready(ctx)
	st := Status{
		Version: s.o.Version, Started: s.o.Started, Now: now,
		Ready: rd.Ready, NotReady: rd.NotReady, Upstreams: rd.Upstreams,
		Routes:       s.o.Routes.Routes(),
		Refusals:     s.refusals.status(now),
		RecentWindow: recentWindow.String(),
		Config:       s.o.Config().Redacted(),
	}
	if st.Upstreams == nil {
		st.Upstreams = []health.Status{}
	}
	if s.o.Tasks == nil {
		st.TasksError = "no task store"
	} else if m, err := s.o.Tasks.TasksByState(ctx); err != nil {
		st.TasksError = "the task store could not count its tasks"
		s.o.Logger.Warn("admin: counting tasks failed", "err", err)
	} else {
		st.Tasks = taskCounts(m)
	}
	return st
}

func (s *Server) serveAPI(w http.ResponseWriter, r *http.Request) {
	writeJSON(w, http.StatusOK, s.Status(r.Context()))
}

// pageData is the template's input.
type pageData struct {
	Status
	Refresh    int
	ConfigYAML string
}

func (s *Server) servePage(w http.ResponseWriter, r *http.Request) {
	st := s.Status(r.Context())
	y, err := st.Config.YAML()
	if err != nil {
		y = []byte("(the configuration could not be shown)")
	}
	var b strings.Builder
	if err := pageTemplate.Execute(&b, pageData{Status: st, Refresh: s.refresh, ConfigYAML: string(y)}); err != nil {
		s.o.Logger.Error("admin: rendering the status page failed", "err", err)
		http.Error(w, "the status page could not be rendered", http.StatusInternalServerError)
		return
	}
	w.Header().Set("Content-Type", "text/html; charset=utf-8")
	_, _ = w.Write([]byte(b.String()))
}

func writeJSON(w http.ResponseWriter, status int, v any) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	_ = enc.Encode(v)
}
