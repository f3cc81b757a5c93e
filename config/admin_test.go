package config

import (
	"strings"
	"testing"
)

// TestAdminListenValidation: off loopback the admin listener needs
// admin.auth; loopback does not; admin.auth alone is a mistake.
func TestAdminListenValidation(t *testing.T) {
	const base = "listen: 127.0.0.1:8080\nstore: \"memory:\"\nauth: {anonymous: true}\npolicy: {default: deny}\n"
	const key = "{api_keys: [{name: ops, sha256: 9f86d081884c7d659a2feaa0c55ad015a3bf4f1b2b0b822cd15d6c15b0f00a08, scopes: [\"bridge:admin\"]}]}"
	tests := []struct {
		name, admin, want string
	}{
		{"off", "", ""},
		{"loopback without auth", "admin: {listen: 127.0.0.1:9090}", ""},
		{"localhost without auth", "admin: {listen: \"localhost:9090\"}", ""},
		{"any address with auth", "admin: {listen: \"0.0.0.0:9090\", auth: " + key + "}", ""},
		{"any address without auth", "admin: {listen: \"0.0.0.0:9090\"}", "admin.listen: 0.0.0.0:9090 is not a loopback address"},
		{"auth without listen", "admin: {auth: " + key + "}", "admin.auth: set without admin.listen"},
		{"the main listener's address", "admin: {listen: 127.0.0.1:8080}", "admin.listen: is the same address as listen"},
		{"not an address", "admin: {listen: \"9090\"}", `admin.listen: "9090" is not HOST:PORT`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := Parse([]byte(base+tt.admin), "bridge.yaml")
			switch {
			case tt.want == "" && err != nil:
				t.Errorf("unexpected problems: %v", err)
			case tt.want != "" && (err == nil || !strings.Contains(err.Error(), tt.want)):
				t.Errorf("problems %v, want %q", err, tt.want)
			}
		})
	}
}
