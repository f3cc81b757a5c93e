package front

import "testing"

func FuzzNames(f *testing.F) {
	f.Add("files_", "read", "files_r", "ead")
	f.Add("a_", "hello world", "a_", "hello_world")
	f.Add("", "ünïcode", "x", "\x00")
	f.Fuzz(func(t *testing.T, p1, t1, p2, t2 string) {
		n := newNamer()
		a, _ := n.name(key{"s1", t1}, p1)
		b, _ := n.name(key{"s2", t2}, p2)
		for _, s := range []string{a, b} {
			if !validName(s) {
				t.Fatalf("invalid name %q", s)
			}
		}
		if a == b {
			t.Fatalf("two tools share the name %q", a)
		}
		if again, _ := n.name(key{"s1", t1}, p1); again != a {
			t.Fatalf("name changed: %q then %q", a, again)
		}
	})
}
