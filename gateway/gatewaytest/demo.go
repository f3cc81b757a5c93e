// Package gatewaytest starts the bridge in-process for the tests of other
// packages.
package gatewaytest

import (
	"context"
	"log/slog"
	"net"
	"net/http"
	"testing"

	"github.com/a2a-mcp-bridge/bridge/config"
	"github.com/a2a-mcp-bridge/bridge/examples"
	"github.com/a2a-mcp-bridge/bridge/gateway"
)

// ServeDemo builds `bridge demo`'s configuration (examples/demo.yaml, a
// memory store) as the demo command does, through gateway.Build, and serves
// it on ln; stop ends it.
func ServeDemo(ln net.Listener, log *slog.Logger) (b *gateway.Bridge, stop func(), err error) {
	public := "http://" + ln.Addr().String()
	cfg, err := examples.Demo(func(c *config.Config) { c.Listen, c.PublicURL, c.Store = ln.Addr().String(), public, "memory:" })
	if err != nil {
		return nil, nil, err
	}
	b, err = gateway.Build(context.Background(), cfg, gateway.Options{Logger: log, PublicURL: public})
	if err != nil {
		return nil, nil, err
	}
	hs := &http.Server{Handler: b.Handler()}
	go func() { _ = hs.Serve(ln) }()
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() { defer close(done); b.Run(ctx) }()
	return b, func() { _ = hs.Close(); cancel(); <-done; _ = b.Close() }, nil
}

// StartDemo is ServeDemo on a loopback port of its own until the test
// ends; it returns the bridge and its base URL.
func StartDemo(t testing.TB, log *slog.Logger) (*gateway.Bridge, string) {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	b, stop, err := ServeDemo(ln, log)
	if err != nil {
		_ = ln.Close()
		t.Fatalf("gatewaytest: serve the demo: %v", err)
	}
	t.Cleanup(stop)
	return b, "http://" + ln.Addr().String()
}
