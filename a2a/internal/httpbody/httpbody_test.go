package httpbody

import (
	"bytes"
	"errors"
	"io"
	"strings"
	"testing"
	"testing/iotest"
)

func TestReadAllSized(t *testing.T) {
	body := strings.Repeat("x", 1500)
	for _, tc := range []struct {
		name     string
		declared int64
		limit    int64
	}{
		{"exact", 1500, 1 << 20},
		{"unknown", -1, 1 << 20},
		{"declared too short (the body wins)", 10, 1 << 20},
		{"declared too long", 5000, 1 << 20},
		{"declared above the limit is not trusted", 1 << 30, 1 << 20},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, err := ReadAll(iotest.HalfReader(strings.NewReader(body)), tc.declared, tc.limit)
			if err != nil || string(got) != body {
				t.Fatalf("got %d bytes, %v; want the %d-byte body", len(got), err, len(body))
			}
		})
	}
	boom := errors.New("boom")
	if _, err := ReadAll(io.MultiReader(bytes.NewReader([]byte("ab")), iotest.ErrReader(boom)), 2, 10); !errors.Is(err, boom) {
		t.Fatalf("read error = %v, want boom", err)
	}
}

func BenchmarkReadAllSized(b *testing.B) {
	body := strings.Repeat("x", 1389)
	b.ReportAllocs()
	for b.Loop() {
		if _, err := ReadAll(strings.NewReader(body), int64(len(body)), 10<<20); err != nil {
			b.Fatal(err)
		}
	}
}

// TestReadAtMost_AsLimitReader: ReadAtMost returns what ReadAll of an
// io.LimitReader at limit+1 returns, for bodies shorter than, equal to and
// longer than the limit, with honest, short, long and absent declared
// lengths.
func TestReadAtMost_AsLimitReader(t *testing.T) {
	const limit = 100
	for _, size := range []int{0, 1, 99, 100, 101, 102, 5000} {
		body := strings.Repeat("y", size)
		for _, declared := range []int64{-1, 0, 1, int64(size), int64(size) + 7, limit, limit + 1, 1 << 30} {
			want, _ := io.ReadAll(io.LimitReader(strings.NewReader(body), limit+1))
			got, err := ReadAtMost(iotest.HalfReader(strings.NewReader(body)), declared, limit)
			if err != nil || string(got) != string(want) {
				t.Errorf("size %d declared %d: got %d bytes, %v; want %d", size, declared, len(got), err, len(want))
			}
		}
	}
	boom := errors.New("boom")
	if _, err := ReadAtMost(io.MultiReader(bytes.NewReader([]byte("ab")), iotest.ErrReader(boom)), 2, 10); !errors.Is(err, boom) {
		t.Fatalf("read error = %v, want boom", err)
	}
}
