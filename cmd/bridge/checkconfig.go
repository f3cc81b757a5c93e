package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"

	"github.com/a2a-mcp-bridge/bridge/config"
)

// runCheckConfig loads and validates each FILE, prints every problem as
// FILE:LINE:COL: field: message (or "FILE: ok"), and fails when any file has
// problems.
func runCheckConfig(_ context.Context, args []string, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("check-config", flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.Usage = func() {
		fmt.Fprintln(stderr, "usage: bridge check-config FILE...")
		fs.PrintDefaults()
	}
	if err := fs.Parse(args); err != nil {
		return err
	}
	if fs.NArg() == 0 {
		return fmt.Errorf("name a configuration file: %w", errUsage)
	}
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
