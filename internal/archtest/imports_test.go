package archtest

import (
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"os/exec"
	"sort"
	"strings"
	"testing"
)

const module = "github.com/a2a-mcp-bridge/bridge"

// pkg is the part of `go list -json` the tests read.
type pkg struct {
	ImportPath string
	Dir        string
	GoFiles    []string
	Imports    []string
	Module     *struct{ Path string }
}

// goList runs `go list -json args...` at the module root and returns the
// packages of this module, keyed by path relative to the module ("" is the
// root, "a2a/card", ...).
func goList(t *testing.T, args ...string) map[string]pkg {
	t.Helper()
	cmd := exec.Command("go", append([]string{"list", "-json"}, args...)...)
	cmd.Dir = "../.."
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("go list %v: %v\n%s", args, err, stderr.String())
	}
	pkgs := map[string]pkg{}
	dec := json.NewDecoder(bytes.NewReader(out))
	for {
		var p pkg
		if err := dec.Decode(&p); errors.Is(err, io.EOF) {
			break
		} else if err != nil {
			t.Fatalf("go list: decode: %v", err)
		}
		if rel, ok := rel(p.ImportPath); ok {
			pkgs[rel] = p
		}
	}
	if len(pkgs) < 10 {
		t.Fatalf("go list found %d packages of %s; want the whole module", len(pkgs), module)
	}
	return pkgs
}

// rel returns path relative to the module, and whether it is in the module.
func rel(path string) (string, bool) {
	if path == module {
		return "", true
	}
	r, ok := strings.CutPrefix(path, module+"/")
	return r, ok
}

// under reports whether p is prefix or below it ("a2a" matches "a2a" and
// "a2a/card", not "a2agrpc"); the prefix "" is the whole module.
func under(p, prefix string) bool {
	return prefix == "" || p == prefix || strings.HasPrefix(p, prefix+"/")
}

func anyUnder(p string, prefixes []string) bool {
	for _, x := range prefixes {
		if under(p, x) {
			return true
		}
	}
	return false
}

func anyIs(p string, names []string) bool {
	for _, x := range names {
		if p == x {
			return true
		}
	}
	return false
}

// arrow is a rule: no package under from may import a package under to,
// unless the importer is listed in except (exact path) or the imported
// package is listed in allow (exact path).
type arrow struct {
	from []string
	// fromOnly, when set, names importers exactly instead of from's trees
	// ("a2a" is the package a2a alone, not a2a/client).
	fromOnly []string
	to       []string
	// toOnly names imported packages exactly, without the exemption of
	// importers in the same tree ("gateway" is the root package alone: its
	// subpackages must not import it, though they may import each other).
	toOnly []string
	except []string // importers that may
	allow  []string // imported packages that may be
	why    string
}

// arrows are the import arrows that must never exist (DESIGN.md §2:
// cmd → gateway → {mcp, a2a, auth, policy, ratelimit, netguard, config};
// mcp → a2a; a2a knows nothing of MCP; the guards and netguard know
// nothing of either protocol).
var arrows = []arrow{
	{from: []string{""}, to: []string{"cmd"},
		why: "cmd/ is the top: flags and run(ctx), nothing builds on it"},
	{from: []string{""}, to: []string{"gateway"}, except: []string{"cmd/bridge", "admin", "bench"},
		allow: []string{"gateway/health"},
		why:   "only gateway wires the faces together; only the binary, the admin listener over its runtime and the in-process bench build on it"},
	{from: []string{"auth", "policy", "ratelimit", "netguard", "hostguard"},
		to:  []string{"a2a", "mcp", "gateway", "admin", "config", "observe"},
		why: "the guards and netguard see a Principal, a Hop, a URL: no protocol, no face, no config file"},
	{from: []string{"request"}, to: []string{""},
		why: "request holds the types every guard reads (Principal, Hop): it imports nothing of the bridge"},
	{from: []string{"auth"}, to: []string{"policy", "ratelimit"},
		why: "the guards share request's types, never each other's"},
	{from: []string{"policy"}, to: []string{"auth", "ratelimit"},
		why: "the guards share request's types, never each other's"},
	{from: []string{"ratelimit"}, to: []string{"auth", "policy"},
		why: "the guards share request's types, never each other's"},
	{from: []string{"config"}, to: []string{"a2a", "mcp", "gateway", "admin", "observe"}, allow: []string{"a2a/card"},
		why: "config decodes and validates; it names card signing options but runs no face"},
	{from: []string{"config/internal/yamlwalk"}, to: []string{"a2a", "mcp", "gateway", "admin", "observe", "auth", "policy", "ratelimit", "netguard", "hostguard", "request"},
		toOnly: []string{"config"},
		why:    "the YAML walker knows positions and Go types, no configuration type: config hands it the scalar checks"},
	{from: []string{"a2a"}, to: []string{"mcp", "gateway", "admin", "config"},
		why: "a2a knows nothing of MCP and is wired by gateway, not by the config file"},
	{from: []string{"mcp"}, to: []string{"gateway", "admin", "config"},
		why: "the MCP faces are wired by gateway; they read typed options, not the config file"},
	{from: []string{"observe"}, to: []string{"mcp", "gateway", "admin", "config"},
		why: "observe is read by the faces, it does not reach back into them"},
	{fromOnly: []string{"a2a"}, to: []string{"a2a/client", "a2a/server", "a2a/taskmanager"},
		why: "a2a is the wire types and codec every side shares: it builds on no side"},
	{from: []string{"a2a/client"}, to: []string{"a2a/server", "a2a/taskmanager"},
		why: "the client calls agents; a bridge that only calls them links none of the serving side"},
	{from: []string{"a2a/server"}, to: []string{"a2a/client"},
		why: "the server serves agents; a bridge that only serves them links none of the calling side"},
	{from: []string{"a2a/taskmanager"}, to: []string{"a2a/server", "a2a/client"},
		why: "the server calls the task manager, never the other way; an executor brings its own client"},
	{from: []string{""}, to: []string{"bench", "interop"}, except: []string{"bench/cmd/benchsut"},
		why: "the benchmark and interop harnesses are leaves: the product never depends on them"},
	{from: []string{"gateway/listener"}, to: []string{"config", "mcp", "auth", "policy", "ratelimit", "hostguard", "admin", "observe"},
		toOnly: []string{"gateway"},
		why:    "the listener serves a handler it is given: no face, no guard, no config; the rest comes in as functions"},
	{from: []string{"gateway/observability"}, to: []string{"config", "mcp", "auth", "policy", "ratelimit", "hostguard", "admin", "gateway/listener"},
		toOnly: []string{"gateway"},
		why:    "the faces record into observability; it does not reach back into them, the guards or the config"},
	{from: []string{"gateway/hops"}, to: []string{"config", "mcp", "admin", "hostguard", "netguard", "gateway/listener", "gateway/preflight", "gateway/upstream"},
		toOnly: []string{"gateway"},
		why:    "the hop chain applies the guards to a Hop a face built: it knows no MCP face, no config, no listener"},
	{from: []string{"gateway/mcptools"}, to: []string{"config", "admin", "gateway/listener", "gateway/preflight"},
		toOnly: []string{"gateway"},
		why:    "the MCP tools are wired by gateway from typed options: no config, no listener"},
	{from: []string{"gateway/preflight", "gateway/upstream"}, to: []string{"a2a/server", "a2a/taskmanager", "mcp/endpoint", "mcp/expose", "mcp/publish", "mcp/front", "admin", "observe"},
		toOnly: []string{"gateway"},
		why:    "check-config's preflight and the reading of upstream entries start nothing that outlives them: no face, no task manager"},
	{from: []string{"mcp/endpoint/view", "mcp/endpoint/stdio"}, to: []string{"a2a", "mcp/connector", "mcp/elicitation", "mcp/expose", "mcp/front", "mcp/publish", "mcp/endpoint/relay",
		"gateway", "admin", "config", "observe", "auth", "policy", "ratelimit", "netguard", "hostguard", "request"},
		toOnly: []string{"mcp/endpoint"},
		why:    "the message view and the stdio drain read bytes and pipes: no face, no guard, no config; the face calls them"},
	{from: []string{"mcp/endpoint/relay"}, to: []string{"a2a", "mcp/connector", "mcp/elicitation", "mcp/expose", "mcp/front", "mcp/publish", "mcp/endpoint/stdio",
		"gateway", "admin", "config", "observe", "auth", "policy", "ratelimit", "netguard", "hostguard", "request"},
		toOnly: []string{"mcp/endpoint"},
		why:    "the server-request relay reads the message view and asks the face's sessions through relay.Sessions: it reaches into no face, guard or config"},
	{from: []string{"internal/bridgetest"}, to: []string{""}, allow: []string{"internal/syncbuf"},
		why: "the shared test harness drives the bridge from outside (processes, HTTP): every package's tests may import it, so it imports none of the bridge"},
	{from: []string{"gateway/reload"}, to: []string{"a2a", "mcp", "admin", "observe", "hostguard", "netguard", "gateway/listener", "gateway/observability", "gateway/preflight", "gateway/upstream", "gateway/mcptools"},
		toOnly: []string{"gateway"},
		why:    "reload's parts diff configurations, watch files and hold the guards in use: gateway builds the new parts and swaps them in"},
	{from: []string{""}, to: []string{"internal/archtest"},
		why: "the architecture tests have no code to import"},
}

// testHelpers are the <pkg>test packages: only tests and other test
// helpers may import them (house rule 1).
func isTestHelper(p string) bool {
	last := p[strings.LastIndex(p, "/")+1:]
	return strings.HasSuffix(last, "test") && last != "archtest" || strings.Contains(p, "test/")
}

// violations returns every forbidden arrow in pkgs, one line each.
func violations(pkgs map[string]pkg) []string {
	var out []string
	for from, p := range pkgs {
		for _, imp := range p.Imports {
			to, ok := rel(imp)
			if !ok {
				continue
			}
			if isTestHelper(to) && !isTestHelper(from) {
				out = append(out, from+" imports "+to+": test helpers (<pkg>test) are for tests only")
			}
			for _, a := range arrows {
				if (anyUnder(from, a.from) || anyIs(from, a.fromOnly)) && anyIs(to, a.toOnly) && !anyIs(from, a.except) {
					out = append(out, from+" imports "+to+": "+a.why)
				}
				if (anyUnder(from, a.from) || anyIs(from, a.fromOnly)) && anyUnder(to, a.to) && !inOwnTree(from, toFirst(a.to, to)) &&
					!anyIs(from, a.except) && !anyIs(to, a.allow) {
					out = append(out, from+" imports "+to+": "+a.why)
				}
			}
		}
	}
	sort.Strings(out)
	return out
}

// inOwnTree reports whether from lies in the forbidden tree prefix
// itself; the whole module ("") is nobody's own tree, so a rule to ""
// (request imports nothing of the bridge) holds for every importer.
func inOwnTree(from, prefix string) bool { return prefix != "" && under(from, prefix) }

// toFirst returns the prefix of tos that to is under, so that a package
// under a forbidden tree may still import inside its own tree (gateway
// imports gateway/health).
func toFirst(tos []string, to string) string {
	for _, x := range tos {
		if under(to, x) {
			return x
		}
	}
	return to
}

func TestImports_NoForbiddenArrow(t *testing.T) {
	pkgs := goList(t, "./...")
	for _, v := range violations(pkgs) {
		t.Error(v)
	}
}

// TestImports_RulesCatchAnArrow feeds the checker a graph with one
// forbidden arrow of each kind, so the table cannot rot into a test that
// cannot fail.
func TestImports_RulesCatchAnArrow(t *testing.T) {
	for _, tc := range []struct{ from, to string }{
		{"gateway", "cmd/bridge"},
		{"mcp/endpoint", "gateway"},
		{"policy", "a2a"},
		{"netguard", "config"},
		{"config", "mcp/connector"},
		{"a2a/front", "mcp/endpoint"},
		{"mcp/connector", "config"},
		{"observe", "gateway"},
		{"gateway", "bench"},
		{"a2a", "auth/authtest"},
		{"gateway", "internal/bridgetest"},
		{"mcp/front", "internal/bridgetest"},
		{"internal/bridgetest", "gateway/gatewaytest"},
		{"request", "auth"},
		{"internal/bridgetest", "a2a"},
		{"a2a", "a2a/client"},
		{"a2a/client", "a2a/server"},
		{"a2a/client", "a2a/taskmanager"},
		{"a2a", "a2a/server"},
		{"a2a", "a2a/taskmanager"},
		{"a2a/server", "a2a/client"},
		{"a2a/taskmanager", "a2a/server"},
		{"a2a/taskmanager", "a2a/client"},
		{"gateway/listener", "gateway"},
		{"gateway/listener", "config"},
		{"gateway/preflight", "gateway"},
		{"gateway/observability", "mcp/endpoint"},
		{"gateway/hops", "config"},
		{"gateway/upstream", "mcp/endpoint"},
		{"config/internal/yamlwalk", "config"},
		{"gateway/reload", "gateway"},
		{"gateway/reload", "mcp/endpoint"},
		{"config/internal/yamlwalk", "request"},
		{"mcp/endpoint/view", "mcp/endpoint"},
		{"mcp/endpoint/stdio", "mcp/endpoint"},
		{"mcp/endpoint/relay", "mcp/endpoint"},
		{"mcp/endpoint/relay", "auth"},
		{"mcp/endpoint/view", "request"},
	} {
		pkgs := map[string]pkg{tc.from: {Imports: []string{module + "/" + tc.to}}}
		if v := violations(pkgs); len(v) == 0 {
			t.Errorf("%s imports %s: not caught", tc.from, tc.to)
		}
	}
}
