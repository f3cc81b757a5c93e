package bridgetest

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"strings"
	"testing"
	"testing/synctest"
	"time"
)

// childEnv makes the test binary a child process for the Proc tests: it
// prints a JSON log line and, with "serve", listens until SIGTERM.
const childEnv = "BRIDGETEST_CHILD"

func TestMain(m *testing.M) {
	if mode := os.Getenv(childEnv); mode != "" {
		os.Exit(child(mode))
	}
	os.Exit(Main(m))
}

func child(mode string) int {
	fmt.Println(`{"msg":"child started","mode":"` + mode + `"}`)
	switch mode {
	case "exit":
		return 3
	case "ignore-term":
		// Stays up after SIGTERM: the harness must kill it.
		signalIgnoreTerm()
		fmt.Println(`{"msg":"ignoring SIGTERM"}`)
	}
	time.Sleep(time.Hour)
	return 0
}

func self(t *testing.T, mode string) func() *exec.Cmd {
	bin, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	return Command("", []string{childEnv + "=" + mode}, bin)
}

// fakeT records Fatalf instead of ending the test, so the failure
// messages can be checked.
type fakeT struct {
	testing.TB
	msg string
}

func (f *fakeT) Helper() {}
func (f *fakeT) Fatalf(format string, args ...any) {
	f.msg = fmt.Sprintf(format, args...)
	panic(f)
}

func fails(t *testing.T, do func(tb testing.TB)) string {
	t.Helper()
	f := &fakeT{TB: t}
	func() {
		defer func() {
			if r := recover(); r != nil && r != any(f) {
				panic(r)
			}
		}()
		do(f)
	}()
	return f.msg
}

func TestEventually_ReturnsOnceTheConditionHolds(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		start := time.Now()
		took := Eventually(t, time.Minute, "three seconds passed", func() error {
			if time.Since(start) < 3*time.Second {
				return errors.New("too early")
			}
			return nil
		})
		if took < 3*time.Second || took > 3*time.Second+100*time.Millisecond {
			t.Fatalf("took %s; want about 3s (one pause at most past it)", took)
		}
	})
}

func TestEventually_FailsWithWhatAndTheLastError(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		msg := fails(t, func(tb testing.TB) {
			Eventually(tb, time.Second, "the peer answers", func() error { return errors.New("connection refused") })
		})
		for _, want := range []string{"the peer answers", "not within 1s", "connection refused", "tries"} {
			if !strings.Contains(msg, want) {
				t.Errorf("failure %q lacks %q", msg, want)
			}
		}
	})
}

func TestWait(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		done := make(chan struct{})
		go func() { time.Sleep(2 * time.Second); close(done) }()
		if took := Wait(t, time.Minute, "done", done); took != 2*time.Second {
			t.Fatalf("took %s; want 2s", took)
		}
		msg := fails(t, func(tb testing.TB) { Wait(tb, time.Second, "never", make(chan struct{})) })
		if !strings.Contains(msg, "never: not within 1s") {
			t.Fatalf("failure %q", msg)
		}
	})
}

func TestProc_StartWaitLogStopRestart(t *testing.T) {
	p := StartProc(t, "child", self(t, "serve"), nil)
	line := p.WaitLog(10*time.Second, "child started", map[string]string{"mode": "serve"})
	if line["mode"] != "serve" {
		t.Fatalf("log line %v", line)
	}
	pid := p.PID()
	p.Stop()
	if p.Running() || p.PID() != 0 {
		t.Fatal("running after Stop")
	}
	p.Start()
	if p.PID() == pid || !p.Running() {
		t.Fatalf("restarted pid %d, was %d", p.PID(), pid)
	}
	Eventually(t, 10*time.Second, "the second run logs", func() error {
		if n := strings.Count(p.Out.String(), "child started"); n != 2 {
			return fmt.Errorf("%d runs in the output; want 2", n)
		}
		return nil
	})
	p.Kill()
	if p.Running() {
		t.Fatal("running after Kill")
	}
}

func TestProc_KillsWhatIgnoresSIGTERM(t *testing.T) {
	p := StartProc(t, "stubborn", self(t, "ignore-term"), nil)
	p.WaitOutput(10*time.Second, "ignoring SIGTERM")
	start := time.Now()
	p.Stop()
	if took := time.Since(start); took < StopGrace {
		t.Fatalf("stopped after %s; it ignores SIGTERM, so only the kill after %s ends it", took, StopGrace)
	}
}

func TestProc_ExitBeforeReadyFails(t *testing.T) {
	msg := fails(t, func(tb testing.TB) {
		StartProc(tb, "quitter", self(t, "exit"), func(_ context.Context) error { return errors.New("not yet") })
	})
	if !strings.Contains(msg, "quitter exited before it was ready (not yet)") || !strings.Contains(msg, "child started") {
		t.Fatalf("failure %q", msg)
	}
}

func TestSample(t *testing.T) {
	text := "# HELP x\nbridge_up{kind=\"mcp\",name=\"a\"} 1\nbridge_up{kind=\"mcp\",name=\"b\"} 0\nplain 7\n"
	for _, tc := range []struct {
		name   string
		labels map[string]string
		want   float64
		ok     bool
	}{
		{"bridge_up", map[string]string{"name": "b"}, 0, true},
		{"bridge_up", map[string]string{"name": "a", "kind": "mcp"}, 1, true},
		{"bridge_up", map[string]string{"name": "c"}, 0, false},
		{"plain", nil, 7, true},
	} {
		if got, ok := Sample(text, tc.name, tc.labels); got != tc.want || ok != tc.ok {
			t.Errorf("Sample(%s %v) = %v, %v; want %v, %v", tc.name, tc.labels, got, ok, tc.want, tc.ok)
		}
	}
}

func TestBuildTags_DropInterop(t *testing.T) {
	for _, tag := range strings.Split(buildTags(), ",") {
		if tag == "interop" {
			t.Fatalf("buildTags() = %q keeps interop", buildTags())
		}
	}
}
