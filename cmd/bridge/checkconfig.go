package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"

	"github.com/redis/go-redis/v9"

	"github.com/a2a-mcp-bridge/bridge/config"
	"github.com/a2a-mcp-bridge/bridge/gateway/preflight"
)

// runCheckConfig loads and validates each FILE, then checks what it needs
// of this machine (preflight.Run: key files, stdio commands, the store,
// Redis; with --probe every upstream and issuer), prints every problem as
// FILE:LINE:COL: field: message (or "FILE: ok"), and fails when any file has
// problems.
func runCheckConfig(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("check-config", flag.ContinueOnError)
	fs.SetOutput(stderr)
	probe := fs.Bool("probe", false, "also reach each upstream (MCP servers are started or connected, A2A agents serve their card) and each OIDC issuer once")
	fileOnly := fs.Bool("file-only", false, "validate the file alone: do not check key files, commands, the store or Redis on this machine (for a file written for another one)")
	timeout := fs.Duration("timeout", preflight.DefaultTimeout, "bound on each network check and probe")
	fs.Usage = func() {
		fmt.Fprintln(stderr, "usage: bridge check-config [--probe | --file-only] [--timeout 3s] FILE...")
		fs.PrintDefaults()
	}
	if err := fs.Parse(args); err != nil {
		return err
	}
	if fs.NArg() == 0 {
		return fmt.Errorf("name a configuration file: %w", errUsage)
	}
	if *probe && *fileOnly {
		return fmt.Errorf("--probe and --file-only exclude each other: %w", errUsage)
	}
	// The Redis check reports its own error; the client's log would repeat it.
	redis.SetLogger(quietRedis{})
	failed := 0
	for _, file := range fs.Args() {
		c, err := config.Load(file)
		var ps config.Problems
		switch {
		case errors.As(err, &ps):
			for _, p := range ps {
				fmt.Fprintln(stdout, p.Error())
			}
			failed++
		case err != nil:
			fmt.Fprintln(stdout, err)
			failed++
		default:
			if !*fileOnly {
				ps = preflight.Run(ctx, c, preflight.Options{Probe: *probe, Timeout: *timeout})
			}
			for _, p := range ps {
				fmt.Fprintln(stdout, p.Error())
			}
			if len(ps) > 0 {
				failed++
				continue
			}
			fmt.Fprintf(stdout, "%s: ok\n", file)
			for _, w := range c.Warnings() {
				fmt.Fprintf(stderr, "%s: warning: %s\n", file, w)
			}
		}
	}
	if failed > 0 {
		return fmt.Errorf("%d of %d files have problems", failed, fs.NArg())
	}
	return nil
}

// quietRedis is a go-redis logger that drops its lines.
type quietRedis struct{}

func (quietRedis) Printf(context.Context, string, ...any) {}
