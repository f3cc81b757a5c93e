package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"time"

	"github.com/a2a-mcp-bridge/bridge/admin"
	"github.com/a2a-mcp-bridge/bridge/config"
	"github.com/a2a-mcp-bridge/bridge/gateway"
	"github.com/a2a-mcp-bridge/bridge/netguard"
)

// startAdmin serves the admin listener (admin.listen) for b until the
// returned function is called; it prints the page's URL on stdout.
func startAdmin(ctx context.Context, cfg *config.Config, b *gateway.Bridge, log *slog.Logger, stdout io.Writer) (stop func(), err error) {
	ngcfg, err := cfg.Netguard.Config()
	if err != nil {
		return nil, err
	}
	metricsPath := ""
	if cfg.Observability.MetricsEnabled() {
		metricsPath = cfg.Observability.MetricsPath
	}
	srv, err := admin.New(ctx, admin.Options{
		Admin: cfg.Admin, Ready: b, Routes: b, Tasks: b, Config: func() *config.Config {
			// The file's public_url may be derived from a listen port 0:
			// show the one cards name.
			c := *b.Config()
			c.PublicURL = b.PublicURL()
			return &c
		},
		Gatherer: b.Gatherer(), MetricsPath: metricsPath, AllowedHosts: cfg.Server.AllowedHosts,
		Version: gateway.Version, Started: b.Started(), HTTPClient: netguard.Trusted(ngcfg), Logger: log,
	})
	if err != nil {
		return nil, err
	}
	ln, err := net.Listen("tcp", cfg.Admin.Listen)
	if err != nil {
		return nil, fmt.Errorf("admin: listen on %s: %w", cfg.Admin.Listen, err)
	}
	hs := &http.Server{
		Handler: srv.Handler(), ReadHeaderTimeout: 10 * time.Second, ReadTimeout: 30 * time.Second,
		WriteTimeout: 30 * time.Second, IdleTimeout: 120 * time.Second, MaxHeaderBytes: 64 << 10,
		ErrorLog: slog.NewLogLogger(log.Handler(), slog.LevelWarn),
	}
	rctx, cancel := context.WithCancel(context.WithoutCancel(ctx))
	go srv.Run(rctx)
	go func() {
		if err := hs.Serve(ln); err != nil && !errors.Is(err, http.ErrServerClosed) {
			log.Error("admin listener stopped", "err", err)
		}
	}()
	addr := ln.Addr().String()
	log.Info("admin listener serving the status page, the admin API and metrics", "addr", addr, "authenticated", cfg.Admin.AuthConfigured())
	fmt.Fprintf(stdout, "admin status page at http://%s%s\n", addr, admin.PagePath)
	return func() { cancel(); _ = hs.Close() }, nil
}
