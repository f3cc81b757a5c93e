package main

import (
	"context"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/a2a-mcp-bridge/bridge/internal/bridgetest"
)

// lineWriter sends each written line to a channel.
type lineWriter struct{ lines chan string }

func (w lineWriter) Write(b []byte) (int, error) {
	for _, l := range strings.Split(strings.TrimRight(string(b), "\n"), "\n") {
		select {
		case w.lines <- l:
		default: // never block the server on a full test buffer
		}
	}
	return len(b), nil
}

// fakeNPX builds the upstream test server as an executable named npx, first
// in PATH, so the quickstart's published server starts without a network.
func fakeNPX(t *testing.T) {
	t.Helper()
	if runtime.GOOS == "windows" {
		t.Skip("the fake npx is a unix executable")
	}
	dir := t.TempDir()
	if err := os.Symlink(bridgetest.MCPTestServerBinary(t), filepath.Join(dir, "npx")); err != nil {
		t.Fatal(err)
	}
	t.Setenv("PATH", dir+string(os.PathListSeparator)+os.Getenv("PATH"))
}

// quickstartCopy is examples/quickstart.yaml on a free port with its
// database in a temporary directory.
func quickstartCopy(t *testing.T) string {
	t.Helper()
	data, err := os.ReadFile("../../examples/quickstart.yaml")
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	s := string(data)
	for old, repl := range map[string]string{
		"listen: 127.0.0.1:8080":    "listen: 127.0.0.1:0",
		"store: sqlite:./bridge.db": "store: sqlite:" + filepath.Join(dir, "bridge.db"),
	} {
		if !strings.Contains(s, old) {
			t.Fatalf("quickstart.yaml no longer has %q", old)
		}
		s = strings.Replace(s, old, repl, 1)
	}
	path := filepath.Join(dir, "quickstart.yaml")
	if err := os.WriteFile(path, []byte(s), 0o600); err != nil {
		t.Fatal(err)
	}
	return path
}

func TestServeQuickstartAnswersHealthz(t *testing.T) {
	fakeNPX(t)
	file := quickstartCopy(t)
	ctx, cancel := context.WithCancel(context.Background())
	out := lineWriter{lines: make(chan string, 16)}
	done := make(chan error, 1)
	go func() { done <- runServe(ctx, []string{"--config", file}, out, io.Discard) }()

	var addr string
	select {
	case l := <-out.lines:
		const prefix = "bridge serving on "
		if !strings.HasPrefix(l, prefix) {
			t.Fatalf("first line %q", l)
		}
		addr = strings.Fields(strings.TrimPrefix(l, prefix))[0]
	case err := <-done:
		t.Fatalf("serve ended: %v", err)
	case <-time.After(60 * time.Second):
		t.Fatal("serve did not start")
	}
	for _, path := range []string{"/healthz", "/readyz", "/a2a/everything/.well-known/agent-card.json", "/.well-known/jwks.json"} {
		resp, err := http.Get("http://" + addr + path)
		if err != nil {
			t.Fatal(err)
		}
		body, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		if resp.StatusCode != http.StatusOK {
			t.Fatalf("%s: %d %s", path, resp.StatusCode, body)
		}
	}
	cancel()
	if err := <-done; err != nil {
		t.Fatalf("serve: %v", err)
	}
}

func TestServeRefusesBrokenConfig(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "bad.yaml")
	if err := os.WriteFile(path, []byte("listen: 127.0.0.1:0\nnot_a_key: 1\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	var stderr strings.Builder
	err := runServe(context.Background(), []string{"--config", path}, io.Discard, &stderr)
	if err == nil || !strings.Contains(stderr.String(), "not_a_key") {
		t.Fatalf("err %v, stderr %q", err, stderr.String())
	}
}

func TestExamplesPassCheckConfig(t *testing.T) {
	files, err := filepath.Glob("../../examples/*.yaml")
	if err != nil || len(files) == 0 {
		t.Fatalf("no examples: %v", err)
	}
	t.Setenv("REDIS_URL", "redis://127.0.0.1:6379/0")
	t.Setenv("BILLING_CLIENT_SECRET", "test-secret")
	for _, f := range files {
		var out strings.Builder
		if err := runCheckConfig(context.Background(), []string{"--file-only", f}, &out, io.Discard); err != nil {
			t.Errorf("%s: %v\n%s", f, err, out.String())
		}
	}
}

// waitLine waits for a line containing sub.
func waitLine(t *testing.T, lines <-chan string, sub string) {
	t.Helper()
	timeout := time.After(30 * time.Second)
	for {
		select {
		case l := <-lines:
			if strings.Contains(l, sub) {
				return
			}
		case <-timeout:
			t.Fatalf("no line with %q", sub)
		}
	}
}

func TestSIGHUPWithBrokenFileKeepsServing(t *testing.T) {
	dir := t.TempDir()
	file := filepath.Join(dir, "bridge.yaml")
	good := "listen: 127.0.0.1:0\nstore: \"memory:\"\nauth: {anonymous: true}\npolicy: {default: allow}\n"
	if err := os.WriteFile(file, []byte(good), 0o600); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	out := lineWriter{lines: make(chan string, 16)}
	logs := lineWriter{lines: make(chan string, 256)}
	done := make(chan error, 1)
	go func() { done <- runServe(ctx, []string{"--config", file}, out, logs) }()
	var addr string
	select {
	case l := <-out.lines:
		addr = strings.Fields(strings.TrimPrefix(l, "bridge serving on "))[0]
	case err := <-done:
		t.Fatalf("serve ended: %v", err)
	}

	if err := os.WriteFile(file, []byte("listen: 127.0.0.1:0\npolicy: {default: maybe}\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := syscall.Kill(os.Getpid(), syscall.SIGHUP); err != nil {
		t.Fatal(err)
	}
	waitLine(t, logs.lines, "reload refused")
	resp, err := http.Get("http://" + addr + "/healthz")
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("healthz after a refused reload: %d", resp.StatusCode)
	}

	if err := os.WriteFile(file, []byte(strings.Replace(good, "default: allow", "default: deny", 1)), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := syscall.Kill(os.Getpid(), syscall.SIGHUP); err != nil {
		t.Fatal(err)
	}
	waitLine(t, logs.lines, "configuration reloaded")
	cancel()
	if err := <-done; err != nil {
		t.Fatalf("serve: %v", err)
	}
}
