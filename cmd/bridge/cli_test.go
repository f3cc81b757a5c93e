package main

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func runCLI(t *testing.T, args ...string) (int, string, string) {
	t.Helper()
	var out, errb bytes.Buffer
	code := run(context.Background(), args, &out, &errb)
	return code, out.String(), errb.String()
}

func TestVersionNamesTheProtocols(t *testing.T) {
	code, out, _ := runCLI(t, "version")
	if code != 0 || !strings.Contains(out, "A2A protocol: 1.0") {
		t.Fatalf("code %d, output %q", code, out)
	}
}

func TestUnknownCommandFails(t *testing.T) {
	if code, _, errOut := runCLI(t, "frobnicate"); code == 0 || !strings.Contains(errOut, "unknown command") {
		t.Fatalf("code %d, stderr %q", code, errOut)
	}
}

func TestCardSignedByTheCLIVerifiesAndATamperedOneDoesNot(t *testing.T) {
	dir := t.TempDir()
	key := filepath.Join(dir, "k.pem")
	if code, _, e := runCLI(t, "keys", "generate", "--alg", "EdDSA", key); code != 0 {
		t.Fatalf("keys generate: %s", e)
	}
	code, jwks, e := runCLI(t, "keys", "jwks", key)
	if code != 0 {
		t.Fatalf("keys jwks: %s", e)
	}
	jwksPath := filepath.Join(dir, "jwks.json")
	cardPath := filepath.Join(dir, "card.json")
	if err := os.WriteFile(jwksPath, []byte(jwks), 0o600); err != nil {
		t.Fatal(err)
	}
	unsigned := `{"name":"Demo","description":"d","supportedInterfaces":[{"url":"https://a.example/a2a","protocolBinding":"JSONRPC","protocolVersion":"1.0"}],"version":"1","capabilities":{"streaming":true},"defaultInputModes":["text/plain"],"defaultOutputModes":["text/plain"],"skills":[]}`
	if err := os.WriteFile(cardPath, []byte(unsigned), 0o600); err != nil {
		t.Fatal(err)
	}
	code, signed, e := runCLI(t, "card", "sign", "--key", key, cardPath)
	if code != 0 {
		t.Fatalf("card sign: %s", e)
	}
	if err := os.WriteFile(cardPath, []byte(signed), 0o600); err != nil {
		t.Fatal(err)
	}
	if code, out, e := runCLI(t, "card", "verify", "--jwks", jwksPath, cardPath); code != 0 || !strings.Contains(out, "verified") {
		t.Fatalf("verify: code %d %s %s", code, out, e)
	}
	tampered := strings.Replace(signed, `"Demo"`, `"Dem0"`, 1)
	if err := os.WriteFile(cardPath, []byte(tampered), 0o600); err != nil {
		t.Fatal(err)
	}
	if code, _, _ := runCLI(t, "card", "verify", "--jwks", jwksPath, cardPath); code == 0 {
		t.Fatal("a tampered card verified")
	}
	if err := os.WriteFile(cardPath, []byte(unsigned), 0o600); err != nil {
		t.Fatal(err)
	}
	if code, _, _ := runCLI(t, "card", "verify", "--jwks", jwksPath, cardPath); code == 0 {
		t.Fatal("an unsigned card verified although a signature is required")
	}
}

func TestPruneNeedsAStoreAndReportsWhatItDeleted(t *testing.T) {
	db := "sqlite:" + filepath.Join(t.TempDir(), "prune.db")
	code, out, e := runCLI(t, "prune", "--store", db, "--older-than", "1h")
	if code != 0 || !strings.Contains(out, "pruned 0") {
		t.Fatalf("code %d out %q err %q", code, out, e)
	}
	if code, _, _ := runCLI(t, "prune"); code == 0 {
		t.Fatal("prune without a store succeeded")
	}
}
