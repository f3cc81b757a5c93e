package strictjson_test

import (
	"encoding/json"
	"reflect"
	"testing"

	jsonv2 "github.com/go-json-experiment/json"

	"github.com/a2a-mcp-bridge/bridge/internal/strictjson"
)

type inner struct {
	State string         `json:"state"`
	Tags  []string       `json:"tags"`
	Data  map[string]any `json:"data"`
}

type embedded struct {
	Extra string `json:"extra"`
}

type doc struct {
	embedded
	ID      string            `json:"id"`
	Status  inner             `json:"status"`
	History []inner           `json:"history"`
	Named   map[string]inner  `json:"named"`
	Raw     json.RawMessage   `json:"raw"`
	Any     any               `json:"any"`
	Skipped string            `json:"-"`
	GoName  string            //nolint: a field without a tag is named by its Go name
	Ptr     *inner            `json:"ptr,omitempty"`
	Labels  map[string]string `json:"labels"`
	Kind    string            `json:"kind"`
}

var docSchema = strictjson.For(reflect.TypeFor[doc](), strictjson.Options{})

func TestCheck(t *testing.T) {
	tests := []struct {
		name    string
		in      string
		kind    strictjson.Kind
		path    string
		message string
	}{
		{name: "canonical", in: `{"id":"t","status":{"state":"s","tags":["a"]},"history":[{"state":"x"}],"extra":"e","GoName":"g"}`},
		{name: "unknown member is skipped", in: `{"id":"t","future":{"Status":1,"status":2}}`},
		{name: "escaped name is its name", in: `{"st\u0061tus":{"state":"s"}}`},
		{name: "map keys are data", in: `{"labels":{"ID":"x","id":"y"},"data":{}}`},
		{name: "data keys are data", in: `{"status":{"data":{"STATE":1,"state":2}}}`},
		{name: "surrogate pair", in: `{"id":"\ud83d\ude00"}`},
		{name: "case-folded member", in: `{"stAtus":{}}`, kind: strictjson.KindCaseFold, path: "stAtus", message: `strictjson: member "stAtus" is not "status": member names are case-sensitive`},
		{name: "case-folded nested member", in: `{"status":{"STATE":"x"}}`, kind: strictjson.KindCaseFold, path: "status.STATE", message: `strictjson: member "STATE" is not "state": member names are case-sensitive in /status`},
		{name: "case-folded in list", in: `{"history":[{},{"State":"x"}]}`, kind: strictjson.KindCaseFold, path: "history[1].State"},
		{name: "case-folded in map value", in: `{"named":{"k":{"Tags":[]}}}`, kind: strictjson.KindCaseFold, path: "named.k.Tags"},
		{name: "case-folded embedded field", in: `{"EXTRA":""}`, kind: strictjson.KindCaseFold},
		{name: "case-folded Go name", in: `{"goname":""}`, kind: strictjson.KindCaseFold},
		{name: "Kelvin sign folds to k", in: "{\"\u212aind\":\"x\"}", kind: strictjson.KindCaseFold, path: "\u212aind"},
		{name: "long s folds to s", in: "{\"\u017ftatus\":{}}", kind: strictjson.KindCaseFold},
		{name: "escaped case-folded member", in: `{"\u0053tatus":{}}`, kind: strictjson.KindCaseFold},
		{name: "duplicate member", in: `{"id":"a","id":"b"}`, kind: strictjson.KindDuplicate, path: "id", message: `strictjson: member "id" appears twice`},
		{name: "duplicate through an escape", in: `{"id":"a","\u0069d":"b"}`, kind: strictjson.KindDuplicate},
		{name: "duplicate in data", in: `{"status":{"data":{"tool":"a","tool":"b"}}}`, kind: strictjson.KindDuplicate, path: "status.data.tool"},
		{name: "duplicate in opaque value", in: `{"raw":{"a":[{"b":1,"b":2}]}}`, kind: strictjson.KindDuplicate},
		{name: "duplicate in unknown member", in: `{"x":{"a":1,"a":1}}`, kind: strictjson.KindDuplicate},
		{name: "invalid UTF-8 in a value", in: "{\"id\":\"\xff\"}", kind: strictjson.KindInvalidUTF8, message: "strictjson: invalid UTF-8 or a lone surrogate escape in /id"},
		{name: "invalid UTF-8 in a name", in: "{\"i\xc3\":1}", kind: strictjson.KindInvalidUTF8},
		{name: "lone high surrogate", in: `{"id":"\ud800"}`, kind: strictjson.KindInvalidUTF8},
		{name: "lone low surrogate", in: `{"any":["\udc00x"]}`, kind: strictjson.KindInvalidUTF8},
		{name: "reversed surrogates", in: `{"id":"\ude00\ud83d"}`, kind: strictjson.KindInvalidUTF8},
		{name: "trailing garbage", in: `{"id":"a"} {}`, kind: strictjson.KindSyntax},
		{name: "truncated", in: `{"id":`, kind: strictjson.KindSyntax},
		{name: "empty", in: ``, kind: strictjson.KindSyntax},
		{name: "type mismatch is the decoder's business", in: `{"status":"x","history":{}}`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := docSchema.Check([]byte(tt.in))
			if tt.kind == 0 {
				if err != nil {
					t.Fatalf("Check: %v", err)
				}
				return
			}
			if !strictjson.Is(err, tt.kind) {
				t.Fatalf("Check = %v, want kind %v", err, tt.kind)
			}
			e := err.(*strictjson.Error)
			if tt.path != "" && e.Path() != tt.path {
				t.Errorf("Path = %q, want %q", e.Path(), tt.path)
			}
			if tt.message != "" && err.Error() != tt.message {
				t.Errorf("message = %q, want %q", err.Error(), tt.message)
			}
		})
	}
}

func TestCheckGenericRulesWithoutSchema(t *testing.T) {
	for in, ok := range map[string]bool{
		`{"a":1,"A":2}`:    true, // no schema: no fields to fold to
		`{"a":1,"a":2}`:    false,
		"\"\xfe\"":         false,
		`[{"x":"\ud800"}]`: false,
		`1 2`:              false,
		` {"a":[1,{}]} `:   true,
	} {
		if err := strictjson.Check([]byte(in)); (err == nil) != ok {
			t.Errorf("Check(%q) = %v, want ok=%v", in, err, ok)
		}
	}
}

func TestFoldMatchesEncodingJSON(t *testing.T) {
	// encoding/json matches a member to a field exactly when the names
	// fold equal; Fold must agree for every name the schema may meet.
	names := []string{"status", "Status", "STATUS", "stAtus", "\u017ftatus", "\u212aind", "kind", "Straße", "STRASSE", "ǅ", "ǆ", "Ǆ", "i", "İ", "ı", "σ", "ς", "Σ"}
	for _, field := range names {
		for _, member := range names {
			var v map[string]any
			b := []byte(`{"` + member + `":1}`)
			typ := reflect.StructOf([]reflect.StructField{{Name: "F", Type: reflect.TypeFor[any](), Tag: reflect.StructTag(`json:"` + field + `"`)}})
			x := reflect.New(typ)
			if err := json.Unmarshal(b, x.Interface()); err != nil {
				t.Fatal(err)
			}
			matched := x.Elem().Field(0).Interface() != nil
			if got := strictjson.Fold(member) == strictjson.Fold(field); got != matched {
				t.Errorf("Fold(%q) == Fold(%q) is %v; encoding/json matched: %v", member, field, got, matched)
			}
			_ = v
		}
	}
}

// FuzzCheckAgreesWithV2 holds Check to its promise: a document it accepts
// decodes with encoding/json (case-insensitive, last duplicate wins,
// invalid UTF-8 replaced) to exactly what a strict, case-sensitive decoder
// reads from it.
func FuzzCheckAgreesWithV2(f *testing.F) {
	for _, s := range []string{
		`{"id":"t","status":{"state":"s","tags":["a"]},"history":[{"state":"x"}],"extra":"e","GoName":"g"}`,
		`{"stAtus":{}}`, `{"id":"a","id":"b"}`, `{"status":{"data":{"a":1}}}`, `{"named":{"k":{"state":"x"}}}`,
		`{"labels":{"a":"b"},"ptr":{"state":"p"},"any":[1,"x",{"y":null}],"raw":{"z":1}}`, `{"id":"\ud83d\ude00"}`,
		"{\"\u017ftatus\":{}}", `{"history":null,"status":null}`, `[]`, `null`,
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		if docSchema.Check(b) != nil {
			return
		}
		var v1, v2 doc
		err1 := json.Unmarshal(b, &v1)
		err2 := jsonv2.Unmarshal(b, &v2)
		if (err1 == nil) != (err2 == nil) {
			// Both decoders must agree on whether the value fits the type
			// except where their documented type rules differ, which the
			// type above avoids.
			t.Fatalf("accepted %q: encoding/json err %v, strict decoder err %v", b, err1, err2)
		}
		if err1 != nil {
			return
		}
		if !reflect.DeepEqual(normal(v1), normal(v2)) {
			t.Fatalf("accepted %q reads two ways:\nencoding/json: %#v\nstrict:        %#v", b, v1, v2)
		}
	})
}

// normal compacts the raw member (the two decoders keep its bytes with
// different whitespace) for comparison.
func normal(d doc) doc {
	if d.Raw != nil {
		var v any
		if json.Unmarshal(d.Raw, &v) == nil {
			d.Raw, _ = json.Marshal(v)
		}
	}
	return d
}

type base struct {
	Method string         `json:"method"`
	Params map[string]any `json:"params"`
}

type callParams struct {
	Name string `json:"name"`
}

type call struct {
	base
	Params callParams `json:"params"`
}

type peek struct {
	Params struct {
		Meta map[string]any `json:"_meta"`
	} `json:"params"`
}

func TestSchemaShallowerFieldWins(t *testing.T) {
	s := strictjson.For(reflect.TypeFor[call](), strictjson.Options{})
	if err := s.Check([]byte(`{"method":"m","params":{"Name":"x"}}`)); !strictjson.Is(err, strictjson.KindCaseFold) {
		t.Fatalf("the params of call (not of its embedded base) must be read: %v", err)
	}
}

func TestUnionRefusesWhatAnyReaderFolds(t *testing.T) {
	u := strictjson.Union(strictjson.For(reflect.TypeFor[base](), strictjson.Options{}), strictjson.For(reflect.TypeFor[peek](), strictjson.Options{}), nil,
		strictjson.For(reflect.TypeFor[call](), strictjson.Options{}))
	for in, kind := range map[string]strictjson.Kind{
		`{"method":"m","params":{"name":"x","_meta":{"a":1},"other":{"A":1}}}`: 0,
		`{"METHOD":"m"}`:                     strictjson.KindCaseFold,
		`{"params":{"NAME":"x"}}`:            strictjson.KindCaseFold,
		`{"params":{"_META":{}}}`:            strictjson.KindCaseFold,
		`{"params":{"_meta":{"a":1,"a":2}}}`: strictjson.KindDuplicate,
	} {
		err := u.Check([]byte(in))
		if kind == 0 && err != nil || kind != 0 && !strictjson.Is(err, kind) {
			t.Errorf("Check(%s) = %v, want %v", in, err, kind)
		}
	}
}
