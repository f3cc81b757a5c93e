package a2a

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"testing"
)

func TestNormalizeFieldNamesRenamesProtoNames(t *testing.T) {
	for _, tc := range []struct {
		name, in, want string
	}{
		{"top level", `{"id":"t","history_length":2}`, `{"historyLength":2,"id":"t"}`},
		{"nested in configuration", `{"message":{"messageId":"m","role":"ROLE_USER","parts":[]},"configuration":{"history_length":1,"accepted_output_modes":["text/plain"]}}`,
			`{"configuration":{"acceptedOutputModes":["text/plain"],"historyLength":1},"message":{"messageId":"m","parts":[],"role":"ROLE_USER"}}`},
		{"inside a list", `{"configs":[{"task_id":"t"}]}`, `{"configs":[{"taskId":"t"}]}`},
		{"after a metadata value", `{"metadata":{"trace_id":"x"},"context_id":"c"}`, `{"contextId":"c","metadata":{"trace_id":"x"}}`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, err := normalizeFieldNames([]byte(tc.in))
			if err != nil {
				t.Fatal(err)
			}
			if string(got) != tc.want {
				t.Fatalf("got %s, want %s", got, tc.want)
			}
		})
	}
}

// TestNormalizeFieldNames_BothSpellingsRefused: a field given under its JSON
// name and its proto name could be read as either value; ProtoJSON refuses
// it, and so do we (formerly the JSON name won).
func TestNormalizeFieldNames_BothSpellingsRefused(t *testing.T) {
	for _, in := range []string{
		`{"historyLength":3,"history_length":2}`,
		`{"configuration":{"history_length":1,"historyLength":2}}`,
		`{"history_length":1,"history_length":2}`,
	} {
		if got, err := normalizeFieldNames([]byte(in)); err == nil {
			t.Errorf("normalizeFieldNames(%s) = %s, want an error", in, got)
		}
	}
}

func TestNormalizeFieldNamesKeepsBodyWithoutProtoNames(t *testing.T) {
	for _, tc := range []struct{ name, in string }{
		{"no underscore", `{"message":{"messageId":"m","parts":[{"text":"hi"}]}}`},
		{"underscores in values only", `{"message":{"messageId":"msg_1","role":"ROLE_USER","parts":[{"text":"a_b \"c_d\":"}]},"configuration":{"historyLength":1}}`},
		{"underscored keys inside Struct fields", `{"message":{"messageId":"m","role":"ROLE_AGENT","metadata":{"trace_id":"x","n":{"a_b":[{"c_d":1}]}},"parts":[{"data":{"snake_key":true}}]},"metadata":{"x_y":1}}`},
		{"leading underscore is not a proto name", `{"_private":1,"status":"TASK_STATE_WORKING"}`},
		{"whitespace", " {\n \"status\" : \"TASK_STATE_WORKING\" , \"metadata\" : { \"a_b\" : [ 1 , { \"c_d\" : null } ] } } \n"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			in := []byte(tc.in)
			var got []byte
			allocs := testing.AllocsPerRun(20, func() {
				var err error
				if got, err = normalizeFieldNames(in); err != nil {
					t.Fatal(err)
				}
			})
			if &got[0] != &in[0] || len(got) != len(in) {
				t.Fatalf("body not returned as is: %s", got)
			}
			if allocs != 0 {
				t.Fatalf("%v allocations for a body without proto names", allocs)
			}
		})
	}
}

// TestProtoNamesInAgreesWithRenaming: wherever the fast path says there is
// nothing to rename, the full renaming leaves the body unchanged.
func TestProtoNamesInAgreesWithRenaming(t *testing.T) {
	files, err := filepath.Glob(filepath.Join("testdata", "golden", "*.json"))
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		checkProtoNamesIn(t, b)
	}
	for _, s := range protoNamesSeeds {
		checkProtoNamesIn(t, []byte(s))
	}
}

var protoNamesSeeds = []string{
	`{"id":"t","history_length":2}`, `{"a":{"b":[{"c_d":1}]}}`, `{"data":{"x_y":1},"e_f":2}`,
	`{"params":[{"a_b":1}],"header":{"c_d":{}}}`, `{"metadata":1,"x_y":2}`, `{"x":{"a_b":1},"x":5}`,
	`{"metadata":{"a":[{"b":"}"}]},"k_v":1}`, `{"a\"_b":1}`, `{"a\\_b":1}`, `[{"a_b":1}]`, `{"a_b":1} x`,
	`{"a":"b_c"`, `{"a":[}`, `{"a":1]}`, `{"metadata_":{"x_y":1}}`, `{"_a":{"b_c":1}}`,
}

func checkProtoNamesIn(t *testing.T, b []byte) {
	t.Helper()
	if !json.Valid(b) || ProtoNamesIn(b) {
		return
	}
	got, err := renameFieldNames(b)
	if err != nil || !bytes.Equal(got, b) {
		t.Fatalf("fast path skips a body the renaming changes: %s -> %s (%v)", b, got, err)
	}
}

func FuzzProtoNamesIn(f *testing.F) {
	for _, s := range protoNamesSeeds {
		f.Add([]byte(s))
	}
	f.Fuzz(checkProtoNamesIn)
}

// BenchmarkNormalizeFieldNames is a SendMessage body with enum names (an
// underscore in a value, no proto field name).
func BenchmarkNormalizeFieldNames(b *testing.B) {
	in := []byte(`{"message":{"messageId":"bench-1","role":"ROLE_USER","parts":[{"text":"hello from the benchmark"}],"metadata":{"trace_id":"t"}},"configuration":{"historyLength":2}}`)
	b.ReportAllocs()
	for b.Loop() {
		if _, err := normalizeFieldNames(in); err != nil {
			b.Fatal(err)
		}
	}
}
