package front

import (
	"encoding/json"
	"errors"
	"strings"
	"testing"
)

func testSealer(t testing.TB) *sealer {
	t.Helper()
	s, err := newSealer([]byte("0123456789abcdef0123456789abcdef"))
	if err != nil {
		t.Fatal(err)
	}
	return s
}

func TestMappingRoundTrip(t *testing.T) {
	s := testSealer(t)
	ref := upstreamRef{TaskID: "up-task", ContextID: "up-ctx"}
	v, err := s.seal("alice", "t1", ref)
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(v, "up-task") || strings.Contains(v, "up-ctx") {
		t.Fatalf("sealed value %q shows the upstream ids", v)
	}
	got, err := s.open("alice", "t1", v)
	if err != nil || got != ref {
		t.Fatalf("open = %+v, %v; want %+v", got, err, ref)
	}
}

// TestMappingBoundToOwnerAndTask: a sealed mapping does not open for
// another owner, another task, or under another key.
func TestMappingBoundToOwnerAndTask(t *testing.T) {
	s := testSealer(t)
	v, err := s.seal("alice", "t1", upstreamRef{TaskID: "up"})
	if err != nil {
		t.Fatal(err)
	}
	other, err := newSealer([]byte("fedcba9876543210fedcba9876543210"))
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name        string
		s           *sealer
		owner, task string
		value       string
	}{
		{"other owner", s, "bob", "t1", v},
		{"other task", s, "alice", "t2", v},
		{"other key", other, "alice", "t1", v},
		{"no prefix", s, "alice", "t1", strings.TrimPrefix(v, "v1.")},
		{"flipped byte", s, "alice", "t1", v[:len(v)-2] + flip(v[len(v)-2])},
		{"plain ids", s, "alice", "t1", `{"t":"up"}`},
		{"empty", s, "alice", "t1", ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if _, err := tc.s.open(tc.owner, tc.task, tc.value); !errors.Is(err, ErrNoMapping) {
				t.Fatalf("err = %v, want ErrNoMapping", err)
			}
		})
	}
}

func flip(c byte) string {
	if c == 'A' {
		return "B"
	}
	return "A"
}

func FuzzOpenMapping(f *testing.F) {
	s := testSealer(f)
	v, err := s.seal("alice", "t1", upstreamRef{TaskID: "up", ContextID: "c"})
	if err != nil {
		f.Fatal(err)
	}
	for _, seed := range []string{v, "", "v1.", "v1.AAAA", "v1.!!!", `{"t":"x"}`, v + "A"} {
		f.Add(seed)
	}
	f.Fuzz(func(t *testing.T, in string) {
		ref, err := s.open("alice", "t1", in)
		if err == nil && ref.TaskID == "" {
			t.Fatalf("open(%q) succeeded without a task id", in)
		}
		if err != nil && !errors.Is(err, ErrNoMapping) {
			t.Fatalf("open(%q) = %v, want ErrNoMapping", in, err)
		}
	})
}

// The sealed plaintext is what json.Marshal writes, escaped ids included,
// so mappings sealed before and after stay readable by one another.
func TestAppendRefMatchesJSONMarshal(t *testing.T) {
	for _, ref := range []upstreamRef{
		{TaskID: "3f2a9c1e-7b4d-4e0f-9a6b-2c8d5e1f0a3b", ContextID: "ctx-1"},
		{TaskID: "t"},
		{TaskID: `quote"back\slash`, ContextID: "<html>&amp;"},
		{TaskID: "tab\tnew\nline", ContextID: "\x7f\x00"},
		{TaskID: "é ünïcode ✓", ContextID: "\xff\xfe invalid"},
		{TaskID: "\u2028\u2029"},
		{},
	} {
		fuzzAppendRef(t, ref)
	}
}

func FuzzAppendRef(f *testing.F) {
	f.Add("3f2a9c1e-7b4d", "ctx")
	f.Add(`a"b`, "<>&")
	f.Add("\xff", "")
	f.Fuzz(func(t *testing.T, id, ctxID string) { fuzzAppendRef(t, upstreamRef{TaskID: id, ContextID: ctxID}) })
}

func fuzzAppendRef(t *testing.T, ref upstreamRef) {
	t.Helper()
	want, err := json.Marshal(ref)
	if err != nil {
		t.Fatal(err)
	}
	got, err := appendRef([]byte("prefix"), ref)
	if err != nil {
		t.Fatal(err)
	}
	if string(got) != "prefix"+string(want) {
		t.Fatalf("appendRef(%q) = %s, want prefix%s", ref, got, want)
	}
}

func BenchmarkSeal(b *testing.B) {
	s := testSealer(b)
	ref := upstreamRef{TaskID: "3f2a9c1e-7b4d-4e0f-9a6b-2c8d5e1f0a3b", ContextID: "9d8c7b6a-5f4e-4d3c-8b2a-1f0e9d8c7b6a"}
	b.ReportAllocs()
	for b.Loop() {
		if _, err := s.seal("https://idp.example.com|alice", "5b1c2d3e-4f50-4617-8293-a4b5c6d7e8f9", ref); err != nil {
			b.Fatal(err)
		}
	}
}
