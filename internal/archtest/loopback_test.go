package archtest

import (
	"go/ast"
	"go/parser"
	"go/token"
	"testing"
)

// loopbackIn returns the calls of an IsLoopback method in f: outside
// netguard, "is this loopback?" is asked of netguard.IsLoopbackHost only,
// so that the listener, auth, the MCP face, hostguard and observe cannot
// disagree again.
func loopbackIn(fset *token.FileSet, f *ast.File, name string) []finding {
	var out []finding
	ast.Inspect(f, func(n ast.Node) bool {
		if c, ok := n.(*ast.CallExpr); ok {
			if s, ok := c.Fun.(*ast.SelectorExpr); ok && s.Sel.Name == "IsLoopback" {
				out = append(out, finding{file: name, what: "IsLoopback()", line: fset.Position(c.Pos()).Line})
			}
		}
		return true
	})
	return out
}

func TestLoopback_OnePredicate(t *testing.T) {
	for _, f := range scan(t, loopbackIn) {
		t.Errorf("%s:%d: %s: use netguard.IsLoopbackHost, the one loopback predicate", f.file, f.line, f.what)
	}
}

func TestLoopback_DetectorCatchesASecondPredicate(t *testing.T) {
	fset := token.NewFileSet()
	src := "package x\nimport \"net/netip\"\nfunc f(a netip.Addr) bool { return a.Unmap().IsLoopback() }\n"
	f, err := parser.ParseFile(fset, "x.go", src, parser.SkipObjectResolution)
	if err != nil {
		t.Fatal(err)
	}
	if got := loopbackIn(fset, f, "x.go"); len(got) != 1 {
		t.Errorf("findings = %v, want one", got)
	}
}
