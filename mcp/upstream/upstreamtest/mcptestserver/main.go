// Command mcptestserver serves the upstreamtest tools over stdio, with the
// process-only tools (crash, env). Tests build and run it as a child.
package main

import (
	"fmt"
	"os"

	"github.com/a2a-mcp-bridge/bridge/mcp/upstream/upstreamtest"
	"github.com/mark3labs/mcp-go/server"
)

func main() {
	fmt.Fprintln(os.Stderr, "mcptestserver: ready")
	if err := server.ServeStdio(upstreamtest.NewServer(upstreamtest.Options{Process: true}).MCP); err != nil {
		fmt.Fprintln(os.Stderr, "mcptestserver:", err)
		os.Exit(1)
	}
}
