package gateway_test

import (
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// TestSecurityIndexNamesRealTests: every attack test SECURITY.md's index
// names exists, in the file it names, so the index cannot drift from the
// tests.
func TestSecurityIndexNamesRealTests(t *testing.T) {
	doc, err := os.ReadFile(filepath.Join("..", "SECURITY.md"))
	if err != nil {
		t.Fatal(err)
	}
	row := regexp.MustCompile("(?m)^\\| [^|]+ \\| [^|]* \\| `(Test[A-Za-z0-9_]+)` \\| `([^`]+)` \\|")
	rows := row.FindAllStringSubmatch(string(doc), -1)
	if len(rows) < 40 {
		t.Fatalf("the index lists %d tests", len(rows))
	}
	files := map[string]string{}
	_ = filepath.WalkDir("..", func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() && (d.Name() == "node_modules" || strings.HasPrefix(d.Name(), ".")) && p != ".." {
			if d != nil && d.IsDir() {
				return filepath.SkipDir
			}
			return nil
		}
		if strings.HasSuffix(p, "_test.go") {
			b, err := os.ReadFile(p)
			if err == nil {
				rel, _ := filepath.Rel("..", p)
				files[filepath.ToSlash(rel)] = string(b)
			}
		}
		return nil
	})
	for _, r := range rows {
		name, file := r[1], r[2]
		if !strings.Contains(files[file], "func "+name+"(") {
			t.Errorf("SECURITY.md names %s in %s, which has no such test", name, file)
		}
	}
}
