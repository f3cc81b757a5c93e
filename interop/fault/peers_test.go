//go:build interop

package fault

import (
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
)

// a2ajsDir is the @a2a-js/sdk agent's node project (server.mjs).
const a2ajsDir = "../a2ajs"

// startEverythingHTTP runs @modelcontextprotocol/server-everything over
// streamable HTTP at addr/mcp. It keeps sessions in memory: after a restart
// it answers a session it does not know with 400 "No valid session ID
// provided".
func startEverythingHTTP(t *testing.T, addr string) *Proc {
	t.Helper()
	node := nodeFor(t, ".", "@modelcontextprotocol/server-everything")
	js, err := filepath.Abs("node_modules/@modelcontextprotocol/server-everything/dist/index.js")
	if err != nil {
		t.Fatal(err)
	}
	_, port, _ := net.SplitHostPort(addr)
	return startProc(t, "server-everything", func() *exec.Cmd {
		cmd := exec.Command(node, js, "streamableHttp")
		cmd.Env = append(os.Environ(), "PORT="+port)
		return cmd
	}, tcpOpen(addr))
}

// startMCPTestServerHTTP runs our MCP test server (connectortest's tools)
// over streamable HTTP at addr/mcp with extra flags (-sessions, -extra-tool
// NAME).
func startMCPTestServerHTTP(t *testing.T, addr string, flags ...string) *Proc {
	t.Helper()
	bin := mcpTestServerBin(t)
	return startProc(t, "mcptestserver", func() *exec.Cmd {
		return exec.Command(bin, append([]string{"-http", addr}, flags...)...)
	}, tcpOpen(addr))
}

// startA2AJS runs the @a2a-js/sdk agent (../a2ajs/server.mjs) at addr: its
// card at /.well-known/agent-card.json, JSON-RPC at /a2a/jsonrpc.
func startA2AJS(t *testing.T, addr string) *Proc {
	t.Helper()
	node := nodeFor(t, a2ajsDir, "@a2a-js/sdk")
	host, port, _ := net.SplitHostPort(addr)
	return startProc(t, "a2a-js agent", func() *exec.Cmd {
		cmd := exec.Command(node, "server.mjs")
		cmd.Dir = a2ajsDir
		cmd.Env = append(os.Environ(), "HOST="+host, "PORT="+port)
		return cmd
	}, httpOK("http://"+addr+"/healthz"))
}
