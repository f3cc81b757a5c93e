package bridgetest

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime/debug"
	"strings"
	"sync"
	"testing"
)

// BinEnv names a prebuilt bridge binary BridgeBinary returns instead of
// building one.
const BinEnv = "BRIDGE_TEST_BIN"

// builds holds the binaries built once per test binary, by package.
var builds struct {
	mu   sync.Mutex
	dir  string
	pkgs map[string]*build
}

type build struct {
	once sync.Once
	bin  string
	err  error
}

// Main runs the tests and removes the binaries BridgeBinary and Binary
// built; call it from TestMain: os.Exit(bridgetest.Main(m)).
func Main(m *testing.M) int {
	code := m.Run()
	builds.mu.Lock()
	defer builds.mu.Unlock()
	if builds.dir != "" {
		_ = os.RemoveAll(builds.dir)
	}
	return code
}

// BridgeBinary is ./cmd/bridge, built once per test binary with the test's
// build tags (so `-tags bridge_nofastjson` tests the binary on the
// standard-library path), or $BRIDGE_TEST_BIN when set.
func BridgeBinary(t testing.TB) string {
	t.Helper()
	if bin := os.Getenv(BinEnv); bin != "" {
		return bin
	}
	return Binary(t, "./cmd/bridge")
}

// MCPTestServerBinary is the MCP test server
// (mcp/connector/connectortest/mcptestserver: connectortest's tools over
// stdio, or streamable HTTP with -http ADDR).
func MCPTestServerBinary(t testing.TB) string {
	t.Helper()
	return Binary(t, "./mcp/connector/connectortest/mcptestserver")
}

// Binary builds the module's package pkg ("./cmd/bridge", relative to the
// module root) once per test binary, with the test's build tags, and
// returns the path of the binary.
func Binary(t testing.TB, pkg string) string {
	t.Helper()
	builds.mu.Lock()
	if builds.pkgs == nil {
		builds.pkgs = map[string]*build{}
	}
	b := builds.pkgs[pkg]
	if b == nil {
		b = &build{}
		builds.pkgs[pkg] = b
	}
	builds.mu.Unlock()
	b.once.Do(func() { b.bin, b.err = goBuild(pkg) })
	if b.err != nil {
		t.Fatalf("bridgetest: %v", b.err)
	}
	return b.bin
}

func goBuild(pkg string) (string, error) {
	root, err := ModuleRoot()
	if err != nil {
		return "", err
	}
	builds.mu.Lock()
	if builds.dir == "" {
		if builds.dir, err = os.MkdirTemp("", "bridgetest-"); err != nil {
			builds.mu.Unlock()
			return "", err
		}
	}
	dir := builds.dir
	builds.mu.Unlock()
	name := strings.ReplaceAll(strings.Trim(filepath.ToSlash(filepath.Clean(pkg)), "./"), "/", "_")
	// The binary keeps the package's name (a test may look for it among
	// the processes); the directory keeps two packages apart.
	if err := os.MkdirAll(filepath.Join(dir, name), 0o755); err != nil {
		return "", err
	}
	bin := filepath.Join(dir, name, filepath.Base(pkg))
	args := []string{"build", "-o", bin}
	if tags := buildTags(); tags != "" {
		args = append(args, "-tags", tags)
	}
	cmd := exec.Command("go", append(args, pkg)...)
	cmd.Dir = root
	if out, err := cmd.CombinedOutput(); err != nil {
		return "", fmt.Errorf("go %s: %v\n%s", strings.Join(cmd.Args[1:], " "), err, out)
	}
	return bin, nil
}

// buildTags are the test binary's build tags without interop (the tag of
// the suites, not of the code under test).
func buildTags() string {
	bi, ok := debug.ReadBuildInfo()
	if !ok {
		return ""
	}
	var keep []string
	for _, s := range bi.Settings {
		if s.Key != "-tags" {
			continue
		}
		for _, tag := range strings.Split(s.Value, ",") {
			if tag != "" && tag != "interop" {
				keep = append(keep, tag)
			}
		}
	}
	return strings.Join(keep, ",")
}

var moduleRoot struct {
	once sync.Once
	dir  string
	err  error
}

// ModuleRoot is the directory of the module's go.mod.
func ModuleRoot() (string, error) {
	moduleRoot.once.Do(func() {
		out, err := exec.Command("go", "env", "GOMOD").Output()
		if err != nil {
			moduleRoot.err = fmt.Errorf("go env GOMOD: %v", err)
			return
		}
		gomod := strings.TrimSpace(string(out))
		if gomod == "" || gomod == os.DevNull {
			moduleRoot.err = fmt.Errorf("go env GOMOD: not inside the module")
			return
		}
		moduleRoot.dir = filepath.Dir(gomod)
	})
	return moduleRoot.dir, moduleRoot.err
}
