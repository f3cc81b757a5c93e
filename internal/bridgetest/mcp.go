package bridgetest

import (
	"os/exec"
	"path/filepath"
	"testing"
)

// StartMCPTestServer runs the MCP test server (MCPTestServerBinary) over
// streamable HTTP at addr/mcp ("": a free loopback port) with extra flags
// (-sessions, -extra-tool NAME) and waits until it accepts connections.
func StartMCPTestServer(t testing.TB, addr string, flags ...string) *Server {
	t.Helper()
	bin := MCPTestServerBinary(t)
	return startHTTPServer(t, "mcptestserver", addr, func(addr string) func() *exec.Cmd {
		return Command("", nil, bin, append([]string{"-http", addr}, flags...)...)
	})
}

// EverythingScript is @modelcontextprotocol/server-everything's entry
// point under a node project's directory.
const EverythingScript = "node_modules/@modelcontextprotocol/server-everything/dist/index.js"

// Everything returns node and the absolute path of server-everything
// pinned in dir's package-lock.json (installed when missing).
func Everything(t testing.TB, dir string) (node, script string) {
	t.Helper()
	node = Node(t, dir, "@modelcontextprotocol/server-everything")
	script, err := filepath.Abs(filepath.Join(dir, EverythingScript))
	if err != nil {
		t.Fatal(err)
	}
	return node, script
}

// StartEverything runs server-everything (node script, from Everything) on
// transport "streamableHttp" (at addr/mcp) or "sse" (at addr/sse), at addr
// ("": a free loopback port), in a directory of the test's own, and waits
// until it accepts connections. It keeps sessions in memory: after a
// restart it does not know the ones it had.
func StartEverything(t testing.TB, node, script, transport, addr string) *Server {
	t.Helper()
	dir := t.TempDir()
	return startHTTPServer(t, "server-everything ("+transport+")", addr, func(addr string) func() *exec.Cmd {
		return Command(dir, []string{"PORT=" + Port(addr)}, node, script, transport)
	})
}

func startHTTPServer(t testing.TB, name, addr string, mk func(addr string) func() *exec.Cmd) *Server {
	t.Helper()
	if addr == "" {
		addr = FreeAddr(t)
	}
	s := &Server{Addr: addr, URL: "http://" + addr}
	s.Proc = StartProc(t, name, mk(addr), TCPOpen(addr))
	return s
}
