package card

import (
	"context"
	"fmt"
	"os"
)

// GenerateKeyFile creates a private key for alg (ES256, ES384 or EdDSA),
// writes it to path as PKCS#8 PEM with mode 0600 (refusing to overwrite an
// existing file) and returns its kid.
func GenerateKeyFile(path, alg string) (string, error) {
	pemBytes, err := GenerateKey(alg)
	if err != nil {
		return "", err
	}
	k, err := ParseSigningKey(pemBytes)
	if err != nil {
		return "", err
	}
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o600)
	if err != nil {
		return "", fmt.Errorf("card: write key: %w", err)
	}
	if _, err := f.Write(pemBytes); err != nil {
		f.Close()
		return "", fmt.Errorf("card: write key: %w", err)
	}
	if err := f.Close(); err != nil {
		return "", fmt.Errorf("card: write key: %w", err)
	}
	return k.KeyID(), nil
}

// SignFile signs a card file's bytes with ks (see Sign).
func SignFile(in []byte, ks *KeySet) ([]byte, error) {
	return Sign(in, ks)
}

// VerifyFile verifies a card file's bytes against the keys of a JWKS
// document (see Verify). Set opts.RequireSignature to fail on unsigned cards.
func VerifyFile(in []byte, jwks []byte, opts VerifyOptions) (Result, error) {
	keys, err := ParseJWKS(jwks)
	if err != nil {
		return Result{}, err
	}
	return Verify(context.Background(), in, keys, opts)
}
