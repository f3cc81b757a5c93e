// Command gen writes config/schema.json and docs/config.md from the Go types
// of package config and the doc comments on their fields. Run it with
// `go generate ./config` (or `go run ./config/internal/gen`).
package main

import (
	"fmt"
	"os"
	"path/filepath"

	"github.com/a2a-mcp-bridge/bridge/config/internal/reference"
)

func main() {
	if err := run(); err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
}

func run() error {
	root, err := reference.FindRoot(".")
	if err != nil {
		return err
	}
	schema, md, err := reference.Build(root)
	if err != nil {
		return err
	}
	if err := os.WriteFile(filepath.Join(root, "config", "schema.json"), schema, 0o644); err != nil {
		return err
	}
	if err := os.MkdirAll(filepath.Join(root, "docs"), 0o755); err != nil {
		return err
	}
	return os.WriteFile(filepath.Join(root, "docs", "config.md"), md, 0o644)
}
