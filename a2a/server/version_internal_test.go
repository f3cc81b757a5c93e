package server

import "testing"

// TestVersionSupported pins which A2A-Version values the server accepts:
// 1.0 and 1.0.<patch>, nothing else.
func TestVersionSupported(t *testing.T) {
	tests := []struct {
		v    string
		want bool
	}{
		{"1.0", true},
		{"1.0.0", true},
		{"1.0.12", true},
		{"1.0.", false},
		{"1.0.x", false},
		{"1.0.1.2", false},
		{"1.0.1.", false},
		{"1.0.-1", false},
		{"1.1", false},
		{"1", false},
		{"0.3", false},
		{"01.0", false},
		{"1.00", false},
		{"", false},
		{" 1.0", false},
		{"1.0 ", false},
	}
	for _, tt := range tests {
		if got := versionSupported(tt.v); got != tt.want {
			t.Errorf("versionSupported(%q) = %v, want %v", tt.v, got, tt.want)
		}
	}
}
