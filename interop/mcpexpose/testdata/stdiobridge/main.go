// Command stdiobridge serves A2A agents as MCP tools over stdio, the way
// `bridge mcp` does, for the interop tests: AGENT_CARD_URL names the agent
// (alias "echo"), logs go to BRIDGE_LOG (stdout is the MCP stream).
package main

import (
	"context"
	"fmt"
	"log/slog"
	"net/netip"
	"os"
	"os/signal"
	"syscall"
	"time"

	"github.com/a2a-mcp-bridge/bridge/mcp/endpoint"
	"github.com/a2a-mcp-bridge/bridge/mcp/expose"
	"github.com/a2a-mcp-bridge/bridge/netguard"
)

func main() {
	if err := run(); err != nil {
		fmt.Fprintln(os.Stderr, "stdiobridge:", err)
		os.Exit(1)
	}
}

func run() error {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	logOut := os.Stderr
	if p := os.Getenv("BRIDGE_LOG"); p != "" {
		f, err := os.OpenFile(p, os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o600)
		if err != nil {
			return err
		}
		defer f.Close()
		logOut = f
	}
	log := slog.New(slog.NewTextHandler(logOut, nil))
	g, err := netguard.New(netguard.Config{
		UnsafeAllow:  []netip.Prefix{netip.MustParsePrefix("127.0.0.0/8")},
		AllowHTTP:    true,
		Timeout:      10 * time.Minute,
		MaxBodyBytes: 64 << 20,
	})
	if err != nil {
		return err
	}
	tools, err := expose.New(expose.Config{
		Agents:     []expose.AgentConfig{{Alias: "echo", CardURL: os.Getenv("AGENT_CARD_URL")}},
		HTTPClient: g.Client(),
		Logger:     log,
	})
	if err != nil {
		return err
	}
	if err := tools.Refresh(ctx); err != nil {
		return err
	}
	go tools.Run(ctx)
	f, err := endpoint.New(endpoint.Config{Sources: []endpoint.ToolSource{tools}, Logger: log})
	if err != nil {
		return err
	}
	return f.ServeStdio(ctx, os.Stdin, os.Stdout)
}
