package netguard_test

import (
	"errors"
	"strings"
	"testing"

	"github.com/a2a-mcp-bridge/bridge/netguard"
)

func TestRedactURL_HidesWebhookSecrets(t *testing.T) {
	g, _ := newGuard(t, netguard.Config{})
	_, err := g.Client().Get("https://127.0.0.1/services/T000/B000/s3cr3tpath?token=s3cr3tquery")
	if err == nil {
		t.Fatal("request to loopback succeeded")
	}
	if !strings.Contains(err.Error(), "s3cr3t") {
		t.Fatalf("net/http no longer quotes the URL (%q); RedactURL may be unnecessary", err)
	}
	red := netguard.RedactURL(err)
	if strings.Contains(red.Error(), "s3cr3t") {
		t.Errorf("RedactURL(err) = %q still carries the secret", red)
	}
	want := `Get "https://127.0.0.1/…": netguard: blocked 127.0.0.1:443: loopback`
	if red.Error() != want {
		t.Errorf("RedactURL(err) = %q, want %q", red, want)
	}
	if !errors.Is(red, netguard.ErrBlocked) {
		t.Error("redacted error no longer matches ErrBlocked")
	}
	plain := errors.New("x")
	if netguard.RedactURL(plain) != plain {
		t.Error("an error without a URL was changed")
	}
}
