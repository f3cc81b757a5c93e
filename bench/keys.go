package bench

import (
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"

	jose "github.com/go-jose/go-jose/v4"
	"github.com/go-jose/go-jose/v4/jwt"

	"github.com/a2a-mcp-bridge/bridge/a2a/card"
)

// ServeKeys are the files `bridge serve` reads in the benchmark (see
// bench/bridge.yaml): the identity provider's public keys, the card-signing
// key, and a bearer token of the bench caller.
type ServeKeys struct {
	// JWKS is the JWKS file of the bench issuer (auth.jwks[].file).
	JWKS string
	// Signing is the card-signing key (keys.signing).
	Signing string
	// Token is a bearer JWT valid for a day, for every face of publicURL.
	Token string
}

// WriteServeKeys writes the key files into dir (which must exist) and mints
// the caller's token: issuer Issuer, audience publicURL and publicURL/mcp
// (the MCP face's resource URL), scope Scope, group "staff".
func WriteServeKeys(dir, publicURL string) (*ServeKeys, error) {
	publicURL = strings.TrimSuffix(publicURL, "/")
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		return nil, fmt.Errorf("bench: generate the issuer key: %w", err)
	}
	jwks, err := json.Marshal(jose.JSONWebKeySet{Keys: []jose.JSONWebKey{{Key: &key.PublicKey, KeyID: "bench", Algorithm: "ES256", Use: "sig"}}})
	if err != nil {
		return nil, fmt.Errorf("bench: encode the JWKS: %w", err)
	}
	k := &ServeKeys{JWKS: filepath.Join(dir, "jwks.json"), Signing: filepath.Join(dir, "signing.pem")}
	if err := os.WriteFile(k.JWKS, jwks, 0o600); err != nil {
		return nil, fmt.Errorf("bench: write the JWKS: %w", err)
	}
	_ = os.Remove(k.Signing)
	if _, err := card.GenerateKeyFile(k.Signing, card.ES256); err != nil {
		return nil, fmt.Errorf("bench: signing key: %w", err)
	}
	now := time.Now()
	if k.Token, err = mint(key, map[string]any{
		"iss": Issuer, "aud": []string{publicURL, publicURL + "/mcp"}, "sub": Subject, "scope": Scope,
		"groups": []string{"staff"}, "iat": now.Unix(), "nbf": now.Unix(), "exp": now.Add(24 * time.Hour).Unix(),
	}); err != nil {
		return nil, err
	}
	return k, nil
}

// mint signs claims as an ES256 access token (typ at+jwt, kid "bench").
func mint(key *ecdsa.PrivateKey, claims map[string]any) (string, error) {
	sig, err := jose.NewSigner(jose.SigningKey{Algorithm: jose.ES256, Key: key},
		(&jose.SignerOptions{}).WithType("at+jwt").WithHeader("kid", "bench"))
	if err != nil {
		return "", fmt.Errorf("bench: token signer: %w", err)
	}
	tok, err := jwt.Signed(sig).Claims(claims).Serialize()
	if err != nil {
		return "", fmt.Errorf("bench: sign token: %w", err)
	}
	return tok, nil
}
