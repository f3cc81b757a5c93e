package yamlwalk

import (
	"reflect"
	"testing"

	"github.com/goccy/go-yaml/parser"
)

type inner struct {
	Port int `yaml:"port"`
}

type doc struct {
	Name  string  `yaml:"name"`
	Inner inner   `yaml:"inner"`
	List  []inner `yaml:"list"`
}

func TestWalk_UnknownKeyAndShape(t *testing.T) {
	f, err := parser.ParseBytes([]byte("name: a\ninner:\n  prot: 1\nlist:\n  - port: x\n"), 0)
	if err != nil {
		t.Fatal(err)
	}
	pos := Positions{}
	w := New(pos, nil)
	w.Walk(f.Docs[0].Body, reflect.TypeOf(doc{}), "")
	want := []Problem{
		{Line: 3, Column: 3, Path: "inner.prot", Message: `unknown key: did you mean "port"?`},
		{Line: 5, Column: 11, Path: "list[0].port", Message: `want a whole number, got "x"`},
	}
	if !reflect.DeepEqual(w.Problems, want) {
		t.Errorf("problems = %#v, want %#v", w.Problems, want)
	}
	if p, ok := pos.Lookup("list[0].port.deeper"); !ok || p != (Position{Line: 5, Column: 5}) {
		t.Errorf("Lookup = %v %v, want 5:5", p, ok)
	}
	if got := pos.PathAt(3, 3); got != "inner.prot" {
		t.Errorf("PathAt(3, 3) = %q, want inner.prot", got)
	}
}
