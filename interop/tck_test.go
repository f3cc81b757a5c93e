//go:build interop

package interop

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// requireTCK skips unless A2A_TCK_DIR names a checkout of a2a-tck at 1.0-dev
// (see tck/README.md for it and the Debian packages it needs).
func requireTCK(t *testing.T) string {
	t.Helper()
	dir := os.Getenv("A2A_TCK_DIR")
	if dir == "" {
		t.Skip("interop: A2A_TCK_DIR not set; point it at an a2a-tck 1.0-dev checkout to run the conformance kit (interop/tck/README.md)")
	}
	abs, err := filepath.Abs(dir)
	if err != nil {
		t.Fatalf("interop: A2A_TCK_DIR: %v", err)
	}
	return abs
}

// runTCK runs tck/run.sh against sut and fails t, with the summary, when a
// test fails that is not listed in baseline.
func runTCK(t *testing.T, tckDir, sut, baseline string) {
	t.Helper()
	bl, err := filepath.Abs(baseline)
	if err != nil {
		t.Fatalf("interop: baseline: %v", err)
	}
	if _, err := os.Stat(bl); err != nil {
		t.Fatalf("interop: baseline of expected a2a-tck failures: %v", err)
	}
	env := []string{"TCK_DIR=" + tckDir, "SUT=" + sut, "TCK_BASELINE=" + bl, "TCK_WORK=" + t.TempDir()}
	if cache, err := os.UserCacheDir(); err == nil && os.Getenv("TCK_PROTO_CACHE") == "" {
		// The npm protos package is fetched once, not per run.
		env = append(env, "TCK_PROTO_CACHE="+filepath.Join(cache, "bridge-interop", "a2a-tck-protos"))
	}
	cmd := exec.Command("bash", "tck/run.sh")
	cmd.Env = append(os.Environ(), env...)
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("interop: a2a-tck against %s (baseline %s): %v\n%s", sut, baseline, err, out)
	}
	t.Logf("a2a-tck against %s:\n%s", sut, summaryTail(string(out)))
}

// summaryTail keeps what summarize.py printed (from its "total:" line on).
func summaryTail(out string) string {
	if i := strings.LastIndex(out, "\ntotal: "); i >= 0 {
		return out[i+1:]
	}
	return out
}

// TestTCKAgainstJSServer checks the kit setup on the a2a-js reference agent,
// whose expected failures are known (tck/baseline-a2ajs.txt).
func TestTCKAgainstJSServer(t *testing.T) {
	tck := requireTCK(t)
	node := requireNode(t)
	runTCK(t, tck, startJSServer(t, node), "tck/baseline-a2ajs.txt")
}

// TestTCKAgainstBridgeDemo runs the kit against `bridge demo`; failures not
// in tck/baseline-bridge.txt fail the test.
func TestTCKAgainstBridgeDemo(t *testing.T) {
	tck := requireTCK(t)
	runTCK(t, tck, startBridgeDemo(t), "tck/baseline-bridge.txt")
}
