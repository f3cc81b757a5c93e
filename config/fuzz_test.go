package config

import (
	"os"
	"path/filepath"
	"testing"
)

// FuzzParse: Parse never panics, and a Config it returns validates cleanly.
func FuzzParse(f *testing.F) {
	files, _ := filepath.Glob("testdata/*.yaml")
	for _, p := range files {
		data, err := os.ReadFile(p)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(data)
	}
	f.Add([]byte("a: ${X"))
	f.Add([]byte("redis: $${X}${file:}${}"))
	f.Add([]byte("- [\n"))
	f.Add([]byte("publish: &a [{name: x, <<: *a}]"))
	lookup := func(name string) (string, bool) {
		if name == "SET" {
			return "{evil: [1", true
		}
		return "", false
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		c, ps := parse(data, "fuzz.yaml", lookup)
		if c != nil {
			if len(ps) != 0 {
				t.Fatalf("config returned with problems: %v", ps)
			}
			if again := c.Validate(); len(again) != 0 {
				t.Fatalf("returned config does not validate: %v", again)
			}
		} else if len(ps) == 0 {
			t.Fatal("no config and no problems")
		}
		for _, p := range ps {
			_ = p.Error()
		}
	})
}
