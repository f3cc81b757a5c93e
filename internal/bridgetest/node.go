package bridgetest

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"
)

// npmDirs guards npm ci per directory.
var npmDirs sync.Map // absolute dir → *npmResult

type npmResult struct {
	once sync.Once
	err  error
}

// Node returns node's path after making sure dir's pinned npm packages are
// installed (npm ci when probe is missing under dir/node_modules; probe ""
// checks node_modules itself). It skips the test without node.
func Node(t testing.TB, dir, probe string) string {
	t.Helper()
	node, err := exec.LookPath("node")
	if err != nil {
		t.Skip("bridgetest: node not found on PATH; install Node.js 20+ to run the interop tests")
	}
	if _, err := os.Stat(filepath.Join(dir, "node_modules", probe)); err == nil {
		return node
	}
	abs, err := filepath.Abs(dir)
	if err != nil {
		t.Fatal(err)
	}
	v, _ := npmDirs.LoadOrStore(abs, &npmResult{})
	r := v.(*npmResult)
	r.once.Do(func() {
		cmd := exec.Command("npm", "ci", "--no-audit", "--no-fund", "--loglevel=error")
		cmd.Dir = abs
		if out, err := cmd.CombinedOutput(); err != nil {
			r.err = fmt.Errorf("npm ci in %s: %v\n%s", dir, err, out)
		}
	})
	if r.err != nil {
		t.Fatalf("bridgetest: %v", r.err)
	}
	return node
}

// Server is a started peer with its address.
type Server struct {
	*Proc
	// Addr is its listen address (127.0.0.1:PORT).
	Addr string
	// URL is http://Addr.
	URL string
}

// StartNodeServer runs `node script` in dir, a server that listens on
// $HOST:$PORT and answers GET /healthz, at addr ("": a free loopback
// port) with env added, and waits until /healthz answers 200.
func StartNodeServer(t testing.TB, node, dir, addr, script string, env ...string) *Server {
	t.Helper()
	if addr == "" {
		addr = FreeAddr(t)
	}
	env = append([]string{"HOST=127.0.0.1", "PORT=" + Port(addr)}, env...)
	s := &Server{Addr: addr, URL: "http://" + addr}
	s.Proc = StartProc(t, "node "+script, Command(dir, env, node, script), HTTPOK(s.URL+"/healthz"))
	return s
}

// RunNodeTest runs `node --test script` in dir with env added (bounded by
// 5 minutes), fails the test with node's output when a test fails and logs
// node's summary lines otherwise.
func RunNodeTest(t testing.TB, node, dir, script string, env ...string) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, node, "--test", "--test-reporter=tap", script)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), env...)
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("bridgetest: node --test %s (%s): %v\n%s", script, strings.Join(env, " "), err, out)
	}
	t.Logf("node --test %s (%s):\n%s", script, strings.Join(env, " "), TAPSummary(string(out)))
}

// TAPSummary keeps node's "# tests/pass/fail/..." summary lines of a TAP
// report.
func TAPSummary(out string) string {
	var b strings.Builder
	for _, line := range strings.Split(out, "\n") {
		if strings.HasPrefix(line, "# ") && !strings.HasPrefix(line, "# Subtest") {
			b.WriteString(line + "\n")
		}
	}
	return b.String()
}
