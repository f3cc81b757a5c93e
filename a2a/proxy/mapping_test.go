package proxy

import (
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
