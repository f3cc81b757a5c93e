package connector

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
	"sync"
	"time"

	"log/slog"

	"github.com/mark3labs/mcp-go/client/transport"
)

// maxStderrLine caps one logged stderr line of a child.
const maxStderrLine = 4096

// process is a running stdio child. The bridge owns its pipes (os.Pipe, so
// that Wait never closes a pipe still being read) and reaps it itself, so it
// knows at once when the child dies.
type process struct {
	cmd    *exec.Cmd
	stdin  *os.File
	stdout *os.File
	grace  time.Duration
	log    *slog.Logger
	exited chan struct{}
	err    error // valid after exited is closed

	stopOnce sync.Once
}

// childEnv builds a child's environment: the named inherited variables that
// are set in the bridge, then Env. Nothing else from the bridge leaks in.
func childEnv(cfg *StdioConfig, lookup func(string) (string, bool)) []string {
	vars := map[string]string{}
	for _, name := range cfg.InheritEnv {
		if v, ok := lookup(name); ok {
			vars[name] = v
		}
	}
	for k, v := range cfg.Env {
		vars[k] = v
	}
	env := make([]string, 0, len(vars))
	for k, v := range vars {
		env = append(env, k+"="+v)
	}
	sort.Strings(env)
	return env
}

// lookPath resolves command against the PATH the child will get, falling
// back to the bridge's.
func lookPath(command string, env []string) string {
	for _, kv := range env {
		if path, ok := strings.CutPrefix(kv, "PATH="); ok {
			return lookPathIn(command, path)
		}
	}
	if p, err := exec.LookPath(command); err == nil {
		return p
	}
	return command
}

func startProcess(cfg *StdioConfig, log *slog.Logger) (*process, error) {
	env := childEnv(cfg, os.LookupEnv)
	cmd := exec.Command(lookPath(cfg.Command, env), cfg.Args...)
	cmd.Env = env
	cmd.Dir = cfg.Dir
	setProcessGroup(cmd)
	inR, inW, err := os.Pipe()
	if err != nil {
		return nil, err
	}
	outR, outW, err := os.Pipe()
	if err != nil {
		inR.Close()
		inW.Close()
		return nil, err
	}
	errR, errW, err := os.Pipe()
	if err != nil {
		inR.Close()
		inW.Close()
		outR.Close()
		outW.Close()
		return nil, err
	}
	cmd.Stdin, cmd.Stdout, cmd.Stderr = inR, outW, errW
	if err := cmd.Start(); err != nil {
		for _, f := range []*os.File{inR, inW, outR, outW, errR, errW} {
			f.Close()
		}
		return nil, fmt.Errorf("start %s: %w", cfg.Command, err)
	}
	inR.Close()
	outW.Close()
	errW.Close()
	grace := cfg.StopGrace
	if grace <= 0 {
		grace = 3 * time.Second
	}
	p := &process{cmd: cmd, stdin: inW, stdout: outR, grace: grace, log: log, exited: make(chan struct{})}
	logDone := make(chan struct{})
	go p.logStderr(errR, logDone)
	go func() {
		p.err = cmd.Wait()
		<-logDone
		close(p.exited)
	}()
	return p, nil
}

func (p *process) logStderr(r io.ReadCloser, done chan struct{}) {
	defer close(done)
	defer r.Close()
	br := bufio.NewReaderSize(r, maxStderrLine)
	for {
		line, isPrefix, err := br.ReadLine()
		if len(line) > 0 {
			p.log.Info("MCP server stderr", "line", string(line), "truncated", isPrefix)
			for isPrefix && err == nil {
				_, isPrefix, err = br.ReadLine() // drop the rest of a long line
			}
		}
		if err != nil {
			return
		}
	}
}

func (p *process) exitReason() string {
	select {
	case <-p.exited:
		if p.err != nil {
			return "the server process exited: " + p.err.Error()
		}
		return "the server process exited"
	default:
		return "the connection to the server process broke"
	}
}

// stop ends the child: close its stdin and wait; then SIGTERM and wait;
// then SIGKILL. Each wait lasts the grace period.
func (p *process) stop() {
	p.stopOnce.Do(func() {
		_ = p.stdin.Close()
		if p.wait(p.grace) {
			p.stdout.Close()
			return
		}
		terminate(p.cmd)
		if !p.wait(p.grace) {
			kill(p.cmd)
			p.wait(p.grace)
		}
		p.stdout.Close()
	})
}

func (p *process) wait(d time.Duration) bool {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-p.exited:
		return true
	case <-t.C:
		return false
	}
}

// pid is the child's process id.
func (p *process) pid() int { return p.cmd.Process.Pid }

// dialStdio starts the child and hands its pipes to mcp-go's stdio transport
// (NewIO: the transport never spawns anything, so it cannot add the bridge's
// environment).
func (c *Conn) dialStdio(ctx context.Context, _ *session) (transport.Interface, *process, error) {
	if err := ctx.Err(); err != nil {
		return nil, nil, err
	}
	p, err := startProcess(c.cfg.Stdio, c.log)
	if err != nil {
		return nil, nil, err
	}
	return transport.NewIO(p.stdout, p.stdin, nil), p, nil
}

var errNoPID = errors.New("connector: no child process")

// PID is the process id of the current stdio child, for operators and tests.
func (c *Conn) PID() (int, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.sess == nil || c.sess.proc == nil {
		return 0, errNoPID
	}
	return c.sess.proc.pid(), nil
}

// lookPathIn finds an executable command in the directories of path; a
// command containing a slash is used as is.
func lookPathIn(command, path string) string {
	if strings.ContainsRune(command, '/') {
		return command
	}
	for _, dir := range filepath.SplitList(path) {
		if dir == "" {
			continue
		}
		f := filepath.Join(dir, command)
		if st, err := os.Stat(f); err == nil && !st.IsDir() && st.Mode()&0o111 != 0 {
			return f
		}
	}
	return command
}
