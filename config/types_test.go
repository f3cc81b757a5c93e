package config

import (
	"errors"
	"strings"
	"testing"
)

// TestTypeErrorsInTheFilesWords: a value of the wrong type is reported at
// its line and column, in the file's words ("want a number, got …"), never
// in Go's ("cannot unmarshal string into Go struct field …"), and the rest
// of the file is still validated.
func TestTypeErrorsInTheFilesWords(t *testing.T) {
	const head = "listen: 127.0.0.1:8080\nstore: \"memory:\"\nauth: {anonymous: true}\npolicy: {default: deny}\n"
	tests := []struct {
		name, yaml string
		want       []string
	}{
		{"string for an int", "server:\n  max_connections: abc\n",
			[]string{`config.yaml:6:20: server.max_connections: want a whole number, got "abc"`}},
		{"float for an int", "push:\n  max_attempts: 2.5\n",
			[]string{`config.yaml:6:17: push.max_attempts: want a whole number, got "2.5"`}},
		{"list for an int", "server:\n  max_connections: [1]\n",
			[]string{`config.yaml:6:20: server.max_connections: want a whole number, got a list`}},
		{"negative for an unsigned", "netguard:\n  ports: [-1]\n",
			[]string{`config.yaml:6:11: netguard.ports[0]: want a number of 0 or more, got "-1"`}},
		{"string for a bool", "expose:\n  mcp:\n    stdio: sure\n",
			[]string{`config.yaml:7:12: expose.mcp.stdio: want true or false, got "sure"`}},
		{"scalar for a list", "netguard:\n  ports: 80\n",
			[]string{`config.yaml:6:10: netguard.ports: want a list (- item lines or [a, b]), got a number`}},
		{"mapping for a list", "publish: {name: x}\n",
			[]string{`config.yaml:5:10: publish: want a list (- item lines or [a, b]), got a mapping`}},
		{"string for a mapping", "server: fast\n",
			[]string{`config.yaml:5:9: server: want a mapping (key: value lines), got a string`}},
		{"mapping for a string", "public_url: {a: b}\n",
			[]string{`config.yaml:5:13: public_url: want a string, got a mapping: quote the value if it holds a colon`}},
		{"every problem at once", "server:\n  max_connections: abc\n  idle_timeout: soon\nnetguard:\n  max_redirects: lots\n",
			[]string{
				`config.yaml:6:20: server.max_connections: want a whole number, got "abc"`,
				`config.yaml:7:17: server.idle_timeout: invalid duration "soon": write a Go duration such as "30s", "5m" or "1h30m"`,
				`config.yaml:9:18: netguard.max_redirects: want a whole number, got "lots"`,
			}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := Parse([]byte(head+tt.yaml), "config.yaml")
			var ps Problems
			if !errors.As(err, &ps) {
				t.Fatalf("err = %v, want Problems", err)
			}
			got := strings.Split(ps.Error(), "\n")
			if strings.Join(got, "\n") != strings.Join(tt.want, "\n") {
				t.Errorf("problems:\n%s\nwant:\n%s", ps.Error(), strings.Join(tt.want, "\n"))
			}
			if strings.Contains(ps.Error(), "unmarshal") || strings.Contains(ps.Error(), "Go struct") {
				t.Errorf("a problem in Go's words: %s", ps.Error())
			}
		})
	}
}
