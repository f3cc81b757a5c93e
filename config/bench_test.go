package config

import (
	"os"
	"testing"
)

func BenchmarkParseFull(b *testing.B) {
	data, err := os.ReadFile("testdata/full.yaml")
	if err != nil {
		b.Fatal(err)
	}
	lookup := func(string) (string, bool) { return "redis://127.0.0.1:6379/0", true }
	b.ReportAllocs()
	for b.Loop() {
		if _, ps := parse(data, "testdata/full.yaml", lookup); len(ps) > 0 {
			b.Fatal(ps)
		}
	}
}
