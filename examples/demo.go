// Package examples carries the configuration `bridge demo` runs
// (demo.yaml, embedded in the binary); the other files in this directory
// are configurations to copy, and demoagent and demomcp are the built-in
// agent and MCP server that a file names with `builtin: demo`.
package examples

import (
	_ "embed"

	"github.com/a2a-mcp-bridge/bridge/config"
)

// DemoFile is where the demo's configuration lives in the repository.
const DemoFile = "examples/demo.yaml"

//go:embed demo.yaml
var demoYAML []byte

// DemoYAML is the demo's configuration file as it is embedded (what
// `bridge demo --print-config` prints).
func DemoYAML() []byte { return append([]byte(nil), demoYAML...) }

// Demo parses the demo's configuration, lets edit change it (the `bridge
// demo` flags) and validates the result, as config.Load does a file.
// Problems are config.Problems.
func Demo(edit func(*config.Config)) (*config.Config, error) {
	cfg, err := config.Parse(demoYAML, DemoFile)
	if err != nil {
		return nil, err
	}
	if edit != nil {
		edit(cfg)
		if ps := cfg.Validate(); len(ps) > 0 {
			return nil, ps
		}
	}
	return cfg, nil
}
