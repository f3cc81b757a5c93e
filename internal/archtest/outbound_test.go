package archtest

import (
	"go/ast"
	"go/parser"
	"go/token"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"testing"
)

// outsideRule lists the trees the outbound rule does not read, each with
// its reason. Everything else in the module — every package linked into
// bin/bridge and the examples it embeds — must make outbound HTTP calls
// through netguard only (house rule 8).
var outsideRule = []struct{ tree, why string }{
	{"netguard", "netguard is the way out: it builds the transports"},
	{"bench", "the load generator and bench SUT drive the real binary from outside; they are not the bridge"},
	{"interop", "interop harnesses are peers of the bridge, not the bridge"},
	{"internal/bridgetest", "the shared test harness drives the bridge from outside; only tests import it (imports_test.go)"},
}

// exceptions are the outbound calls outside netguard that are allowed, by
// file and finding, each with its reason. The test fails when one no
// longer matches a finding, so the list cannot silently outlive its code
// (or grow without a line here).
var exceptions = []struct{ file, finding, why string }{
	{"mcp/connector/transport.go", "http.DefaultTransport",
		"fallback when the caller's client has no Transport (tests pass http.DefaultClient); the gateway always passes a netguard client, whose Transport is wrapped instead"},
}

// finding is one outbound call outside netguard.
type finding struct {
	file, what string
	line       int
}

// outboundIn parses one file and returns its bare outbound HTTP uses:
// http.DefaultClient, http.DefaultTransport, http.Get/Post/Head/PostForm,
// an http.Transport literal or new(http.Transport), new(http.Client), and
// an http.Client literal without a Transport (which means net/http's
// default transport).
func outboundIn(fset *token.FileSet, f *ast.File, name string) []finding {
	httpName := ""
	for _, imp := range f.Imports {
		if p, _ := strconv.Unquote(imp.Path.Value); p == "net/http" {
			httpName = "http"
			if imp.Name != nil {
				httpName = imp.Name.Name
			}
		}
	}
	if httpName == "" || httpName == "_" {
		return nil
	}
	isHTTP := func(e ast.Expr, sels ...string) (string, bool) {
		s, ok := e.(*ast.SelectorExpr)
		if !ok {
			return "", false
		}
		if id, ok := s.X.(*ast.Ident); !ok || id.Name != httpName {
			return "", false
		}
		for _, x := range sels {
			if s.Sel.Name == x {
				return "http." + x, true
			}
		}
		return "", false
	}
	var out []finding
	add := func(n ast.Node, what string) {
		out = append(out, finding{file: name, what: what, line: fset.Position(n.Pos()).Line})
	}
	ast.Inspect(f, func(n ast.Node) bool {
		switch n := n.(type) {
		case *ast.SelectorExpr:
			if what, ok := isHTTP(n, "DefaultClient", "DefaultTransport", "Get", "Post", "Head", "PostForm"); ok {
				add(n, what)
			}
		case *ast.CompositeLit:
			if _, ok := isHTTP(n.Type, "Transport"); ok {
				add(n, "http.Transport{...}")
			}
			if _, ok := isHTTP(n.Type, "Client"); ok && !hasKey(n, "Transport") {
				add(n, "http.Client{...} without a Transport")
			}
		case *ast.CallExpr:
			if id, ok := n.Fun.(*ast.Ident); ok && id.Name == "new" && len(n.Args) == 1 {
				if what, ok := isHTTP(n.Args[0], "Client", "Transport"); ok {
					add(n, "new("+what+")")
				}
			}
		}
		return true
	})
	return out
}

func hasKey(lit *ast.CompositeLit, key string) bool {
	for _, e := range lit.Elts {
		if kv, ok := e.(*ast.KeyValueExpr); ok {
			if id, ok := kv.Key.(*ast.Ident); ok && id.Name == key {
				return true
			}
		}
	}
	return false
}

// outbound returns every finding in the module's non-test files outside
// the trees of outsideRule, sorted.
func outbound(t *testing.T) []finding { return scan(t, outboundIn) }

// scan runs detect on every non-test file of the module outside the trees
// of outsideRule and returns the findings sorted.
func scan(t *testing.T, detect func(*token.FileSet, *ast.File, string) []finding) []finding {
	t.Helper()
	fset := token.NewFileSet()
	var out []finding
	for path, p := range goList(t, "./...") {
		skip := isTestHelper(path)
		for _, o := range outsideRule {
			skip = skip || under(path, o.tree)
		}
		if skip {
			continue
		}
		for _, name := range p.GoFiles {
			f, err := parser.ParseFile(fset, filepath.Join(p.Dir, name), nil, parser.SkipObjectResolution)
			if err != nil {
				t.Fatal(err)
			}
			out = append(out, detect(fset, f, strings.TrimPrefix(path+"/"+name, "/"))...)
		}
	}
	sort.Slice(out, func(i, j int) bool {
		if out[i].file != out[j].file {
			return out[i].file < out[j].file
		}
		return out[i].line < out[j].line
	})
	return out
}

func TestOutboundHTTP_OnlyThroughNetguard(t *testing.T) {
	used := make([]bool, len(exceptions))
	for _, f := range outbound(t) {
		allowed := false
		for i, e := range exceptions {
			if e.file == f.file && e.finding == f.what {
				allowed, used[i] = true, true
			}
		}
		if !allowed {
			t.Errorf("%s:%d: %s: outbound HTTP must go through netguard (netguard.New/Trusted), or be a named exception", f.file, f.line, f.what)
		}
	}
	for i, e := range exceptions {
		if !used[i] {
			t.Errorf("exception %s %s no longer matches anything: remove it", e.file, e.finding)
		}
	}
}

// TestOutboundHTTP_DetectorCatchesBareClients runs the detector on small
// sources, so that it cannot rot into a check that finds nothing.
func TestOutboundHTTP_DetectorCatchesBareClients(t *testing.T) {
	for _, tc := range []struct {
		name, body string
		want       []string
	}{
		{"default client", `var _ = http.DefaultClient`, []string{"http.DefaultClient"}},
		{"default transport", `var _ = http.DefaultTransport`, []string{"http.DefaultTransport"}},
		{"get", `func f() { http.Get("http://x") }`, []string{"http.Get"}},
		{"post form", `var _ = http.PostForm`, []string{"http.PostForm"}},
		{"bare transport", `var _ = &http.Transport{}`, []string{"http.Transport{...}"}},
		{"client with a bare transport", `var _ = &http.Client{Transport: &http.Transport{}}`, []string{"http.Transport{...}"}},
		{"client without transport", `var _ = http.Client{Timeout: 1}`, []string{"http.Client{...} without a Transport"}},
		{"new client", `var _ = new(http.Client)`, []string{"new(http.Client)"}},
		{"renamed import", `var _ = h2.DefaultClient`, []string{"http.DefaultClient"}},
		{"client with an injected transport", `func f(rt http.RoundTripper) *http.Client { return &http.Client{Transport: rt} }`, nil},
		{"server side", `var _ = http.NewServeMux()`, nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			imp := `import "net/http"`
			if strings.Contains(tc.body, "h2.") {
				imp = `import h2 "net/http"`
			}
			fset := token.NewFileSet()
			f, err := parser.ParseFile(fset, "x.go", "package x\n"+imp+"\n"+tc.body+"\n", parser.SkipObjectResolution)
			if err != nil {
				t.Fatal(err)
			}
			var got []string
			for _, fd := range outboundIn(fset, f, "x.go") {
				got = append(got, fd.what)
			}
			if strings.Join(got, ",") != strings.Join(tc.want, ",") {
				t.Errorf("findings = %q, want %q", got, tc.want)
			}
		})
	}
}
