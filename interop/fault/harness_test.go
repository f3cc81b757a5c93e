//go:build interop

// Package fault is the fault suite: the real bridge binary between real
// peers (server-everything, the @a2a-js/sdk agent, our own MCP test server,
// another bridge), each test breaking one thing the way it breaks in
// production (a peer killed, restarted, late, re-keyed, …) and asserting that
// the bridge recovers, and how fast. Each test is named after its fault.
//
// Run it with `make interop` or
//
//	go test -tags interop -race -v ./interop/fault/
//
// It needs node (v20+) and npm; the pinned peers come from package-lock.json
// here and in ../a2ajs (npm ci runs when node_modules is missing). Every
// socket is on 127.0.0.1. Timing bounds are generous liveness bounds: each
// test logs the recovery time it measured.
package fault

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/a2a-mcp-bridge/bridge/internal/syncbuf"
)

// APIKey is the key every bridge config of the suite accepts (apiKeyAuth).
const APIKey = "change-me"

// apiKeyAuth is the auth section for APIKey (sha256 of "change-me").
const apiKeyAuth = `auth:
  api_keys:
    - {name: tester, sha256: e2186dbdb1bb4193608605e84f33208765b5693b55edd4f730a719a100eeea6f}
`

// allowAll is a policy that lets the tester do everything.
const allowAll = `policy:
  default: deny
  rules:
    - {name: tester, allow: 'principal.subject == "tester"'}
`

// readyBound bounds how long a started process may take to become ready.
const readyBound = 60 * time.Second

// bins holds the binaries built once per package run.
var bins struct {
	once   sync.Once
	dir    string
	bridge string
	mcp    string
	err    error
}

func TestMain(m *testing.M) {
	code := m.Run()
	if bins.dir != "" {
		_ = os.RemoveAll(bins.dir)
	}
	os.Exit(code)
}

// build compiles ./cmd/bridge and the MCP test server once per package run.
// $FAULT_BRIDGE_BIN names a prebuilt bridge instead.
func build(t *testing.T) {
	t.Helper()
	bins.once.Do(func() {
		dir, err := os.MkdirTemp("", "bridge-fault-")
		if err != nil {
			bins.err = err
			return
		}
		bins.dir = dir
		bins.bridge = os.Getenv("FAULT_BRIDGE_BIN")
		targets := []struct {
			out *string
			pkg string
		}{{&bins.mcp, "./mcp/connector/connectortest/mcptestserver"}}
		if bins.bridge == "" {
			targets = append(targets, struct {
				out *string
				pkg string
			}{&bins.bridge, "./cmd/bridge"})
		}
		for _, tg := range targets {
			*tg.out = filepath.Join(dir, filepath.Base(tg.pkg))
			cmd := exec.Command("go", "build", "-o", *tg.out, tg.pkg)
			cmd.Dir = "../.."
			if out, err := cmd.CombinedOutput(); err != nil {
				bins.err = fmt.Errorf("go build %s: %v\n%s", tg.pkg, err, out)
				return
			}
		}
	})
	if bins.err != nil {
		t.Fatalf("fault: %v", bins.err)
	}
}

// bridgeBin is the bridge binary.
func bridgeBin(t *testing.T) string { build(t); return bins.bridge }

// mcpTestServerBin is the MCP test server (connectortest's tools; stdio, or
// streamable HTTP with -http).
func mcpTestServerBin(t *testing.T) string { build(t); return bins.mcp }

// npmOnce guards npm ci per directory.
var npmOnce sync.Map // dir → *npmResult

type npmResult struct {
	once sync.Once
	err  error
}

// nodeFor returns node's path after making sure dir's pinned npm
// dependencies are installed (npm ci when probe is missing under
// node_modules). It skips the test without node.
func nodeFor(t *testing.T, dir, probe string) string {
	t.Helper()
	node, err := exec.LookPath("node")
	if err != nil {
		t.Skip("fault: node not found on PATH; install Node.js 20+ to run the fault suite")
	}
	if _, err := os.Stat(filepath.Join(dir, "node_modules", probe)); err == nil {
		return node
	}
	v, _ := npmOnce.LoadOrStore(dir, &npmResult{})
	r := v.(*npmResult)
	r.once.Do(func() {
		cmd := exec.Command("npm", "ci", "--no-audit", "--no-fund", "--loglevel=error")
		cmd.Dir = dir
		if out, err := cmd.CombinedOutput(); err != nil {
			r.err = fmt.Errorf("npm ci in %s: %v\n%s", dir, err, out)
		}
	})
	if r.err != nil {
		t.Fatalf("fault: %v", r.err)
	}
	return node
}

// freeAddr returns a 127.0.0.1 address whose port was free a moment ago.
// A peer that restarts keeps its address: that is the point of most faults.
func freeAddr(t *testing.T) string {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatalf("fault: reserve a port: %v", err)
	}
	addr := l.Addr().String()
	_ = l.Close()
	return addr
}

// Proc is a child process the test starts, stops, kills and restarts. Its
// output, across every run, is kept in Out and printed when the test fails.
type Proc struct {
	Name string
	// Out collects stdout and stderr of every run.
	Out *syncbuf.Buffer

	t     *testing.T
	mk    func() *exec.Cmd
	ready func(ctx context.Context) error

	mu     sync.Mutex
	cmd    *exec.Cmd
	exited chan struct{}
	runs   int
}

// startProc starts the process that mk builds (a new *exec.Cmd each time),
// waits until ready returns nil (nil ready: no wait), and stops it when the
// test ends.
func startProc(t *testing.T, name string, mk func() *exec.Cmd, ready func(ctx context.Context) error) *Proc {
	t.Helper()
	p := &Proc{Name: name, Out: &syncbuf.Buffer{}, t: t, mk: mk, ready: ready}
	t.Cleanup(func() {
		p.stop(syscall.SIGTERM, 10*time.Second)
		if t.Failed() {
			t.Logf("output of %s:\n%s", p.Name, p.Out.String())
		}
	})
	p.Start()
	return p
}

// Start runs the process (again) and waits until it is ready.
func (p *Proc) Start() {
	p.t.Helper()
	p.StartNoWait()
	p.WaitReady()
}

// StartNoWait runs the process (again) without waiting for it to be ready.
func (p *Proc) StartNoWait() {
	p.t.Helper()
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.cmd != nil {
		p.t.Fatalf("fault: %s is already running", p.Name)
	}
	cmd := p.mk()
	p.runs++
	fmt.Fprintf(p.Out, "----- %s run %d: %s\n", p.Name, p.runs, strings.Join(cmd.Args, " "))
	cmd.Stdout, cmd.Stderr = p.Out, p.Out
	// Its own process group: a kill reaches what it spawned too.
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	if err := cmd.Start(); err != nil {
		p.t.Fatalf("fault: start %s: %v", p.Name, err)
	}
	exited := make(chan struct{})
	go func() { _ = cmd.Wait(); close(exited) }()
	p.cmd, p.exited = cmd, exited
}

// WaitReady waits until the running process is ready.
func (p *Proc) WaitReady() {
	p.t.Helper()
	if p.ready == nil {
		return
	}
	p.mu.Lock()
	exited := p.exited
	p.mu.Unlock()
	ctx, cancel := context.WithTimeout(context.Background(), readyBound)
	defer cancel()
	var last error
	for {
		if last = p.ready(ctx); last == nil {
			return
		}
		select {
		case <-exited:
			p.t.Fatalf("fault: %s exited before it was ready (%v):\n%s", p.Name, last, p.Out.String())
		case <-ctx.Done():
			p.t.Fatalf("fault: %s not ready within %s (%v):\n%s", p.Name, readyBound, last, p.Out.String())
		case <-time.After(50 * time.Millisecond):
		}
	}
}

// Stop ends the process with SIGTERM (SIGKILL after 10s) and waits.
func (p *Proc) Stop() { p.stop(syscall.SIGTERM, 10*time.Second) }

// Kill ends the process and everything it spawned with SIGKILL, and waits.
func (p *Proc) Kill() { p.stop(syscall.SIGKILL, 10*time.Second) }

// Signal sends sig to the running process (not its group).
func (p *Proc) Signal(sig syscall.Signal) {
	p.t.Helper()
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.cmd == nil {
		p.t.Fatalf("fault: %s is not running", p.Name)
	}
	_ = p.cmd.Process.Signal(sig)
}

// Restart stops the process (SIGTERM) and starts it again.
func (p *Proc) Restart() {
	p.t.Helper()
	p.Stop()
	p.Start()
}

// Running reports whether the process is running.
func (p *Proc) Running() bool {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.cmd != nil
}

// PID is the process id of the running process (0 when stopped).
func (p *Proc) PID() int {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.cmd == nil {
		return 0
	}
	return p.cmd.Process.Pid
}

// Exited is closed when the running process exits by itself or is stopped.
func (p *Proc) Exited() <-chan struct{} {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.exited
}

func (p *Proc) stop(sig syscall.Signal, grace time.Duration) {
	p.mu.Lock()
	cmd, exited := p.cmd, p.exited
	p.cmd = nil
	p.mu.Unlock()
	if cmd == nil {
		return
	}
	pid := cmd.Process.Pid
	if sig == syscall.SIGKILL {
		_ = syscall.Kill(-pid, syscall.SIGKILL)
	} else {
		_ = cmd.Process.Signal(sig)
	}
	select {
	case <-exited:
	case <-time.After(grace):
		_ = syscall.Kill(-pid, syscall.SIGKILL)
		<-exited
	}
	fmt.Fprintf(p.Out, "----- %s stopped (%s)\n", p.Name, sig)
}

// httpOK is a ready check: GET url answers 200.
func httpOK(url string) func(ctx context.Context) error {
	return func(ctx context.Context) error {
		req, err := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
		if err != nil {
			return err
		}
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			return err
		}
		_, _ = io.Copy(io.Discard, resp.Body)
		resp.Body.Close()
		if resp.StatusCode != http.StatusOK {
			return fmt.Errorf("GET %s: %d", url, resp.StatusCode)
		}
		return nil
	}
}

// tcpOpen is a ready check: addr accepts connections.
func tcpOpen(addr string) func(ctx context.Context) error {
	return func(ctx context.Context) error {
		var d net.Dialer
		c, err := d.DialContext(ctx, "tcp", addr)
		if err != nil {
			return err
		}
		return c.Close()
	}
}

// Bridge is a `bridge serve` process.
type Bridge struct {
	*Proc
	// URL is the bridge's base URL (http://127.0.0.1:PORT).
	URL string
	// Addr is its listen address.
	Addr string
	// ConfigPath is the YAML file it runs.
	ConfigPath string
}

// startBridge writes cfg (YAML without `listen:`, which is added with a
// free loopback address) and runs `bridge serve --config` on it until
// /healthz answers 200.
func startBridge(t *testing.T, cfg string) *Bridge {
	t.Helper()
	b := newBridge(t, cfg)
	b.Start()
	return b
}

// newBridge prepares a bridge without starting it.
func newBridge(t *testing.T, cfg string) *Bridge {
	t.Helper()
	bin := bridgeBin(t)
	addr := freeAddr(t)
	path := filepath.Join(t.TempDir(), "bridge.yaml")
	b := &Bridge{URL: "http://" + addr, Addr: addr, ConfigPath: path}
	b.WriteConfig(t, cfg)
	_ = bin // built now: a bridge started later must not wait for the build
	b.Proc = &Proc{Name: "bridge", Out: &syncbuf.Buffer{}, t: t, mk: b.command, ready: httpOK(b.URL + "/healthz")}
	t.Cleanup(func() {
		b.stop(syscall.SIGTERM, 10*time.Second)
		if t.Failed() {
			t.Logf("output of bridge:\n%s", b.Out.String())
		}
	})
	return b
}

func (b *Bridge) command() *exec.Cmd {
	return exec.Command(bins.bridge, "serve", "--config", b.ConfigPath)
}

// WriteConfig replaces the bridge's config file (listen is kept); a
// running bridge reads it on SIGHUP or restart.
func (b *Bridge) WriteConfig(t *testing.T, cfg string) {
	t.Helper()
	if strings.Contains(cfg, "\nlisten:") || strings.HasPrefix(cfg, "listen:") {
		t.Fatal("fault: the bridge config must not set listen; the harness picks the address")
	}
	text := "listen: " + b.Addr + "\n" + cfg
	if err := os.WriteFile(b.ConfigPath, []byte(text), 0o600); err != nil {
		t.Fatal(err)
	}
}

// Logs are the bridge's log lines so far, decoded (JSON lines; others are
// skipped).
func (b *Bridge) Logs() []map[string]any {
	var out []map[string]any
	sc := bufio.NewScanner(strings.NewReader(b.Out.String()))
	sc.Buffer(make([]byte, 0, 64<<10), 1<<20)
	for sc.Scan() {
		var m map[string]any
		if json.Unmarshal(sc.Bytes(), &m) == nil {
			out = append(out, m)
		}
	}
	return out
}

// LogLine returns the first log line whose msg contains msg and whose
// attributes include every key/value of attrs (compared as text).
func (b *Bridge) LogLine(msg string, attrs map[string]string) (map[string]any, bool) {
	for _, l := range b.Logs() {
		m, _ := l["msg"].(string)
		if !strings.Contains(m, msg) {
			continue
		}
		ok := true
		for k, v := range attrs {
			if fmt.Sprint(l[k]) != v {
				ok = false
				break
			}
		}
		if ok {
			return l, true
		}
	}
	return nil, false
}

// eventually calls cond every 50ms until it returns nil or within passes
// (then the test fails with cond's last error). It returns how long it
// took: the figure a fault test reports.
func eventually(t *testing.T, within time.Duration, what string, cond func() error) time.Duration {
	t.Helper()
	start := time.Now()
	deadline := start.Add(within)
	for {
		err := cond()
		if err == nil {
			return time.Since(start)
		}
		if time.Now().After(deadline) {
			t.Fatalf("fault: %s: not within %s: %v", what, within, err)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// httpc is the suite's HTTP client: no overall timeout beyond each call's.
var httpc = &http.Client{Timeout: 30 * time.Second}

// get fetches url and returns the status and body.
func get(t *testing.T, url string) (int, []byte) {
	t.Helper()
	resp, err := httpc.Get(url)
	if err != nil {
		t.Fatalf("fault: GET %s: %v", url, err)
	}
	defer resp.Body.Close()
	body, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, body
}

// Readiness is the bridge's /readyz body.
type Readiness struct {
	Ready     bool              `json:"ready"`
	NotReady  []string          `json:"not_ready"`
	Upstreams []json.RawMessage `json:"upstreams"`
}

// readyz reads /readyz.
func readyz(t *testing.T, base string) (int, Readiness, string) {
	t.Helper()
	code, body := get(t, base+"/readyz")
	var r Readiness
	_ = json.Unmarshal(body, &r)
	return code, r, string(body)
}

// metric returns the value of the Prometheus sample name{labels} at
// base/metrics (labels must all match; others are ignored).
func metric(t *testing.T, base, name string, labels map[string]string) (float64, bool) {
	t.Helper()
	_, body := get(t, base+"/metrics")
	return sample(string(body), name, labels)
}

// sample finds name{labels} in a Prometheus text exposition.
func sample(text, name string, labels map[string]string) (float64, bool) {
	for _, line := range strings.Split(text, "\n") {
		if !strings.HasPrefix(line, name+"{") && !strings.HasPrefix(line, name+" ") {
			continue
		}
		rest := strings.TrimPrefix(line, name)
		lbl := ""
		if strings.HasPrefix(rest, "{") {
			end := strings.Index(rest, "}")
			if end < 0 {
				continue
			}
			lbl, rest = rest[1:end], rest[end+1:]
		}
		ok := true
		for k, v := range labels {
			if !strings.Contains(","+lbl+",", ","+k+"="+strconv.Quote(v)+",") {
				ok = false
				break
			}
		}
		if !ok {
			continue
		}
		f, err := strconv.ParseFloat(strings.TrimSpace(rest), 64)
		if err == nil {
			return f, true
		}
	}
	return 0, false
}

// RPCError is a JSON-RPC error object as the bridge sends it.
type RPCError struct {
	Code    int              `json:"code"`
	Message string           `json:"message"`
	Data    []map[string]any `json:"data"`
}

// Reason is the google.rpc.ErrorInfo reason in the error's data, if any.
func (e *RPCError) Reason() string {
	if e == nil {
		return ""
	}
	for _, d := range e.Data {
		if d["@type"] == "type.googleapis.com/google.rpc.ErrorInfo" {
			r, _ := d["reason"].(string)
			return r
		}
	}
	return ""
}

// a2aCall posts one JSON-RPC request to an A2A agent's base URL with the
// suite's API key and returns the HTTP status, the result and the error.
func a2aCall(t *testing.T, url, method string, params any) (int, json.RawMessage, *RPCError) {
	t.Helper()
	body, err := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": 1, "method": method, "params": params})
	if err != nil {
		t.Fatal(err)
	}
	req, _ := http.NewRequest(http.MethodPost, url, bytes.NewReader(body))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("A2A-Version", "1.0")
	req.Header.Set("Authorization", "Bearer "+APIKey)
	resp, err := httpc.Do(req)
	if err != nil {
		t.Fatalf("fault: POST %s %s: %v", url, method, err)
	}
	defer resp.Body.Close()
	raw, _ := io.ReadAll(resp.Body)
	var out struct {
		Result json.RawMessage `json:"result"`
		Error  *RPCError       `json:"error"`
	}
	if err := json.Unmarshal(raw, &out); err != nil {
		return resp.StatusCode, nil, &RPCError{Code: 0, Message: "not JSON-RPC: " + string(raw)}
	}
	return resp.StatusCode, out.Result, out.Error
}

// textMessage is SendMessage params with one text part.
func textMessage(text string) map[string]any {
	return map[string]any{"message": map[string]any{
		"messageId": fmt.Sprintf("m-%d", time.Now().UnixNano()), "role": "ROLE_USER",
		"parts": []any{map[string]any{"text": text}},
	}}
}

// toolMessage is SendMessage params that call a published tool.
func toolMessage(tool string, args any) map[string]any {
	return map[string]any{"message": map[string]any{
		"messageId": fmt.Sprintf("m-%d", time.Now().UnixNano()), "role": "ROLE_USER",
		"parts": []any{map[string]any{"data": map[string]any{"tool": tool, "arguments": args}, "mediaType": "application/json"}},
	}}
}

// taskState is the state of the task in a SendMessage result ("" for a
// direct message).
func taskState(result json.RawMessage) string {
	var r struct {
		Task *struct {
			Status struct {
				State string `json:"state"`
			} `json:"status"`
		} `json:"task"`
	}
	_ = json.Unmarshal(result, &r)
	if r.Task == nil {
		return ""
	}
	return r.Task.Status.State
}
