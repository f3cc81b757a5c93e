package strictjson

import (
	"reflect"
	"testing"

	"github.com/go-json-experiment/json/jsontext"
)

// TestNameLookupsAsStrings holds the byte forms of the member-name lookups
// (nameOf, foldOf) to the strings they stand for.
func TestNameLookupsAsStrings(t *testing.T) {
	var c checker
	for _, q := range []string{`""`, `"status"`, `"stAtus"`, `"STATUS"`, `"st\u0061tus"`, `"a\"b"`, `"\ud83d\ude00"`,
		"\"\u212aind\"", "\"\u017ftatus\"", `"Straße"`, `"_meta"`, `"x-y_z.0"`, `"\u0000"`, `"ǅ"`} {
		want, err := jsontext.AppendUnquote(nil, []byte(q))
		if err != nil {
			t.Fatal(q, err)
		}
		name := c.nameOf(jsontext.Value(q))
		if string(name) != string(want) {
			t.Errorf("nameOf(%s) = %q, want %q", q, name, want)
		}
		if got := string(c.foldOf(name)); got != Fold(string(want)) {
			t.Errorf("foldOf(%q) = %q, Fold says %q", want, got, Fold(string(want)))
		}
	}
}

// TestCheckNamesAllocateNothing: looking member names up in a schema
// allocates nothing (it made a string per member).
func TestCheckNamesAllocateNothing(t *testing.T) {
	if raceEnabled {
		t.Skip("sync.Pool drops its checkers under the race detector")
	}
	type in struct {
		Name string         `json:"name"`
		Args map[string]any `json:"arguments"`
	}
	type doc struct {
		JSONRPC string `json:"jsonrpc"`
		ID      any    `json:"id"`
		Method  string `json:"method"`
		Params  in     `json:"params"`
	}
	s := For(reflect.TypeFor[doc](), Options{})
	b := []byte(`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"agent","arguments":{"message":"hello"},"unknown":1}}`)
	if err := s.Check(b); err != nil {
		t.Fatal(err)
	}
	if n := testing.AllocsPerRun(100, func() { _ = s.Check(b) }); n != 0 {
		t.Errorf("Check allocates %v times per document", n)
	}
}
