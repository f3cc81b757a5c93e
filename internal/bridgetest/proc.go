package bridgetest

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"os/exec"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/a2a-mcp-bridge/bridge/internal/syncbuf"
)

// ReadyFunc reports whether a started process is ready (nil) or why not.
type ReadyFunc func(ctx context.Context) error

// Proc is a child process the test starts, stops, kills and restarts. Its
// output, across every run, is kept in Out and printed when the test fails.
// Each run is in a process group of its own, so a kill reaches what it
// spawned too.
type Proc struct {
	Name string
	// Out collects stdout and stderr of every run.
	Out *syncbuf.Buffer

	t     testing.TB
	mk    func() *exec.Cmd
	ready ReadyFunc

	mu     sync.Mutex
	cmd    *exec.Cmd
	last   *exec.Cmd // the run that ended last
	exited chan struct{}
	runs   int
}

// NewProc prepares the process that mk builds (a new *exec.Cmd for each
// run) without starting it: Start runs it and waits until ready returns nil
// (nil ready: no wait). It is stopped when the test ends.
func NewProc(t testing.TB, name string, mk func() *exec.Cmd, ready ReadyFunc) *Proc {
	t.Helper()
	p := &Proc{Name: name, Out: &syncbuf.Buffer{}, t: t, mk: mk, ready: ready}
	t.Cleanup(func() {
		p.Stop()
		if t.Failed() {
			t.Logf("output of %s:\n%s", p.Name, p.Out.String())
		}
	})
	return p
}

// StartProc is NewProc and Start.
func StartProc(t testing.TB, name string, mk func() *exec.Cmd, ready ReadyFunc) *Proc {
	t.Helper()
	p := NewProc(t, name, mk, ready)
	p.Start()
	return p
}

// Command is a ready-made mk for NewProc: exec.Command(name, args...)
// in dir ("" the test's) with env added to the test's environment.
func Command(dir string, env []string, name string, args ...string) func() *exec.Cmd {
	return func() *exec.Cmd {
		cmd := exec.Command(name, args...)
		cmd.Dir = dir
		if len(env) > 0 {
			cmd.Env = append(cmd.Environ(), env...)
		}
		return cmd
	}
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
		p.t.Fatalf("bridgetest: %s is already running", p.Name)
	}
	cmd := p.mk()
	p.runs++
	fmt.Fprintf(p.Out, "----- %s run %d: %s\n", p.Name, p.runs, strings.Join(cmd.Args, " "))
	cmd.Stdout, cmd.Stderr = p.Out, p.Out
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	if err := cmd.Start(); err != nil {
		p.t.Fatalf("bridgetest: start %s: %v", p.Name, err)
	}
	exited := make(chan struct{})
	go func() {
		_ = cmd.Wait()
		p.mu.Lock()
		p.last = cmd
		p.mu.Unlock()
		close(exited)
	}()
	p.cmd, p.exited = cmd, exited
}

// WaitReady waits until the running process is ready; the test fails with
// its output when it exits first or is not ready within ReadyBound.
func (p *Proc) WaitReady() {
	p.t.Helper()
	if p.ready == nil {
		return
	}
	p.mu.Lock()
	exited := p.exited
	p.mu.Unlock()
	ctx, cancel := context.WithTimeout(context.Background(), ReadyBound)
	defer cancel()
	var last error
	for {
		if last = p.ready(ctx); last == nil {
			return
		}
		select {
		case <-exited:
			p.t.Fatalf("bridgetest: %s exited before it was ready (%v):\n%s", p.Name, last, p.Out.String())
		case <-ctx.Done():
			p.t.Fatalf("bridgetest: %s not ready within %s (%v):\n%s", p.Name, ReadyBound, last, p.Out.String())
		case <-time.After(50 * time.Millisecond):
		}
	}
}

// Stop ends the process with SIGTERM (its group gets SIGKILL after
// StopGrace) and waits; a stopped process stays stopped.
func (p *Proc) Stop() { p.stop(syscall.SIGTERM) }

// Kill ends the process and everything it spawned with SIGKILL, and waits.
func (p *Proc) Kill() { p.stop(syscall.SIGKILL) }

// Restart stops the process (SIGTERM) and starts it again.
func (p *Proc) Restart() {
	p.t.Helper()
	p.Stop()
	p.Start()
}

// Signal sends sig to the running process (not its group).
func (p *Proc) Signal(sig syscall.Signal) {
	p.t.Helper()
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.cmd == nil {
		p.t.Fatalf("bridgetest: %s is not running", p.Name)
	}
	_ = p.cmd.Process.Signal(sig)
}

// Running reports whether the process is running (started and not
// stopped by the test).
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

// ExitCode is the exit code of the run that ended last (-1 when none has
// ended, or it was ended by a signal).
func (p *Proc) ExitCode() int {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.last == nil {
		return -1
	}
	return p.last.ProcessState.ExitCode()
}

// Exited is closed when the running process exits by itself or is stopped.
func (p *Proc) Exited() <-chan struct{} {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.exited
}

func (p *Proc) stop(sig syscall.Signal) {
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
	case <-time.After(StopGrace):
		_ = syscall.Kill(-pid, syscall.SIGKILL)
		<-exited
	}
	fmt.Fprintf(p.Out, "----- %s stopped (%s)\n", p.Name, sig)
}

// WaitOutput waits until the output contains s.
func (p *Proc) WaitOutput(within time.Duration, s string) time.Duration {
	p.t.Helper()
	return Eventually(p.t, within, fmt.Sprintf("%s prints %q", p.Name, s), func() error {
		if strings.Contains(p.Out.String(), s) {
			return nil
		}
		return fmt.Errorf("not in its %d bytes of output", len(p.Out.String()))
	})
}

// WaitLine waits for a whole output line that starts with prefix and
// returns the rest of it (the first such line, of any run).
func (p *Proc) WaitLine(within time.Duration, prefix string) string {
	p.t.Helper()
	var rest string
	Eventually(p.t, within, fmt.Sprintf("%s prints a line %q", p.Name, prefix), func() error {
		out := p.Out.String()
		lines := strings.Split(out, "\n")
		for _, l := range lines[:len(lines)-1] { // the last one is not whole yet
			if r, ok := strings.CutPrefix(l, prefix); ok {
				rest = r
				return nil
			}
		}
		select {
		case <-p.Exited():
			p.t.Fatalf("bridgetest: %s exited before printing %q:\n%s", p.Name, prefix, out)
		default:
		}
		return fmt.Errorf("not among its %d lines", len(lines)-1)
	})
	return rest
}

// Logs are the process's JSON log lines so far, decoded (other lines are
// skipped).
func (p *Proc) Logs() []map[string]any {
	var out []map[string]any
	sc := bufio.NewScanner(strings.NewReader(p.Out.String()))
	sc.Buffer(make([]byte, 0, 64<<10), 1<<20)
	for sc.Scan() {
		var m map[string]any
		if json.Unmarshal(sc.Bytes(), &m) == nil {
			out = append(out, m)
		}
	}
	return out
}

// LogLine returns the first JSON log line whose msg contains msg and whose
// attributes include every key/value of attrs (compared as text).
func (p *Proc) LogLine(msg string, attrs map[string]string) (map[string]any, bool) {
	for _, l := range p.Logs() {
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

// WaitLog waits for the log line LogLine finds and returns it.
func (p *Proc) WaitLog(within time.Duration, msg string, attrs map[string]string) map[string]any {
	p.t.Helper()
	var line map[string]any
	Eventually(p.t, within, fmt.Sprintf("%s logs %q %v", p.Name, msg, attrs), func() error {
		var ok bool
		if line, ok = p.LogLine(msg, attrs); ok {
			return nil
		}
		return fmt.Errorf("not among its %d log lines", len(p.Logs()))
	})
	return line
}

// HTTPOK is a ready check: GET url answers 200.
func HTTPOK(url string) ReadyFunc {
	return func(ctx context.Context) error {
		req, err := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
		if err != nil {
			return err
		}
		resp, err := Client.Do(req)
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

// TCPOpen is a ready check: addr accepts connections.
func TCPOpen(addr string) ReadyFunc {
	return func(ctx context.Context) error {
		var d net.Dialer
		c, err := d.DialContext(ctx, "tcp", addr)
		if err != nil {
			return err
		}
		return c.Close()
	}
}

// FreeAddr returns a 127.0.0.1 address whose port was free a moment ago.
// A peer that restarts keeps its address: that is the point of most
// fault tests.
func FreeAddr(t testing.TB) string {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatalf("bridgetest: reserve a port: %v", err)
	}
	addr := l.Addr().String()
	_ = l.Close()
	return addr
}

// Port is addr's port.
func Port(addr string) string {
	_, port, _ := net.SplitHostPort(addr)
	return port
}
