package card

import (
	"context"
	"crypto"
	"crypto/ecdsa"
	"crypto/ed25519"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/rsa"
	"crypto/x509"
	"encoding/base64"
	"encoding/json"
	"encoding/pem"
	"fmt"
	"os"

	jose "github.com/go-jose/go-jose/v4"
)

// Signing algorithms this package can generate keys for and sign with.
const (
	ES256 = string(jose.ES256)
	ES384 = string(jose.ES384)
	EdDSA = string(jose.EdDSA)
)

// GenerateKey creates a private key for alg (ES256, ES384 or EdDSA) and
// returns it PEM-encoded as PKCS#8 ("PRIVATE KEY").
func GenerateKey(alg string) ([]byte, error) {
	var priv crypto.Signer
	var err error
	switch alg {
	case ES256:
		priv, err = ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	case ES384:
		priv, err = ecdsa.GenerateKey(elliptic.P384(), rand.Reader)
	case EdDSA:
		_, priv, err = ed25519.GenerateKey(rand.Reader)
	default:
		return nil, fmt.Errorf("card: generate key: %w: algorithm %q (want ES256, ES384 or EdDSA)", ErrInvalidKey, alg)
	}
	if err != nil {
		return nil, fmt.Errorf("card: generate key: %w", err)
	}
	der, err := x509.MarshalPKCS8PrivateKey(priv)
	if err != nil {
		return nil, fmt.Errorf("card: generate key: %w", err)
	}
	return pem.EncodeToMemory(&pem.Block{Type: "PRIVATE KEY", Bytes: der}), nil
}

// SigningKey is a private card-signing key with its algorithm and key ID
// (the RFC 7638 SHA-256 thumbprint of its public JWK, base64url).
type SigningKey struct {
	signer crypto.Signer
	alg    jose.SignatureAlgorithm
	kid    string
}

// NewSigningKey wraps an ECDSA P-256 (ES256), ECDSA P-384 (ES384) or Ed25519
// (EdDSA) private key.
func NewSigningKey(priv crypto.Signer) (*SigningKey, error) {
	var alg jose.SignatureAlgorithm
	switch k := priv.(type) {
	case *ecdsa.PrivateKey:
		switch k.Curve {
		case elliptic.P256():
			alg = jose.ES256
		case elliptic.P384():
			alg = jose.ES384
		default:
			return nil, fmt.Errorf("card: signing key: %w: unsupported ECDSA curve %s", ErrInvalidKey, k.Curve.Params().Name)
		}
	case ed25519.PrivateKey:
		alg = jose.EdDSA
	default:
		return nil, fmt.Errorf("card: signing key: %w: unsupported key type %T (want ECDSA P-256/P-384 or Ed25519)", ErrInvalidKey, priv)
	}
	kid, err := thumbprint(priv.Public())
	if err != nil {
		return nil, err
	}
	return &SigningKey{signer: priv, alg: alg, kid: kid}, nil
}

// ParseSigningKey reads a PKCS#8 PEM private key ("PRIVATE KEY").
func ParseSigningKey(pemBytes []byte) (*SigningKey, error) {
	block, _ := pem.Decode(pemBytes)
	if block == nil || block.Type != "PRIVATE KEY" {
		return nil, fmt.Errorf("card: signing key: %w: no PKCS#8 \"PRIVATE KEY\" PEM block", ErrInvalidKey)
	}
	priv, err := x509.ParsePKCS8PrivateKey(block.Bytes)
	if err != nil {
		return nil, fmt.Errorf("card: signing key: %w: %v", ErrInvalidKey, err)
	}
	signer, ok := priv.(crypto.Signer)
	if !ok {
		return nil, fmt.Errorf("card: signing key: %w: unsupported key type %T", ErrInvalidKey, priv)
	}
	return NewSigningKey(signer)
}

// LoadSigningKey reads a PKCS#8 PEM private key from a file.
func LoadSigningKey(path string) (*SigningKey, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("card: signing key: %w", err)
	}
	return ParseSigningKey(data)
}

// KeyID returns the key's kid: its RFC 7638 SHA-256 thumbprint, base64url.
func (k *SigningKey) KeyID() string { return k.kid }

// Algorithm returns the JWS algorithm the key signs with.
func (k *SigningKey) Algorithm() string { return string(k.alg) }

// PublicJWK returns the public half as a JWK with kid, alg and use "sig".
func (k *SigningKey) PublicJWK() jose.JSONWebKey {
	return jose.JSONWebKey{Key: k.signer.Public(), KeyID: k.kid, Algorithm: string(k.alg), Use: "sig"}
}

// KeySet is the bridge's own card-signing keys: one current key that signs,
// and previous keys still published (and accepted) so that cards signed
// before a rotation keep verifying. Only the public halves of Previous are
// used.
type KeySet struct {
	// Current signs new cards. Required for signing.
	Current *SigningKey
	// Previous are rotated-out keys still published in the JWKS.
	Previous []*SigningKey
	// JKU, when set, is put in the protected header of new signatures as the
	// URL of the published JWKS (for example https://host/.well-known/jwks.json).
	JKU string
}

var _ KeyResolver = (*KeySet)(nil)

// Key returns the public key with the given kid, current or previous.
func (ks *KeySet) Key(_ context.Context, kid string) (jose.JSONWebKey, error) {
	if ks.Current != nil && ks.Current.kid == kid {
		return ks.Current.PublicJWK(), nil
	}
	for _, k := range ks.Previous {
		if k != nil && k.kid == kid {
			return k.PublicJWK(), nil
		}
	}
	return jose.JSONWebKey{}, fmt.Errorf("card: key %q: %w", kid, ErrUntrustedKey)
}

// JWKS returns the public keys (current first, then previous) as a JSON Web
// Key Set, ready to serve at /.well-known/jwks.json.
func (ks *KeySet) JWKS() ([]byte, error) {
	set := jose.JSONWebKeySet{Keys: []jose.JSONWebKey{}}
	if ks.Current != nil {
		set.Keys = append(set.Keys, ks.Current.PublicJWK())
	}
	for _, k := range ks.Previous {
		if k != nil && (ks.Current == nil || k.kid != ks.Current.kid) {
			set.Keys = append(set.Keys, k.PublicJWK())
		}
	}
	out, err := json.Marshal(set)
	if err != nil {
		return nil, fmt.Errorf("card: jwks: %w", err)
	}
	return out, nil
}

// thumbprint is the RFC 7638 SHA-256 thumbprint of a public key, base64url.
func thumbprint(pub crypto.PublicKey) (string, error) {
	jwk := jose.JSONWebKey{Key: pub}
	tp, err := jwk.Thumbprint(crypto.SHA256)
	if err != nil {
		return "", fmt.Errorf("card: key thumbprint: %w: %v", ErrInvalidKey, err)
	}
	return base64.RawURLEncoding.EncodeToString(tp), nil
}

// keyMatchesAlg checks that a verification key's type (and curve) is the one
// alg needs, and that the JWK's own "alg" and "use", when set, agree.
func keyMatchesAlg(k jose.JSONWebKey, alg jose.SignatureAlgorithm) error {
	if k.Algorithm != "" && k.Algorithm != string(alg) {
		return fmt.Errorf("%w: key is for %s, header says %s", ErrInvalidKey, k.Algorithm, alg)
	}
	if k.Use != "" && k.Use != "sig" {
		return fmt.Errorf("%w: key use is %q, want \"sig\"", ErrInvalidKey, k.Use)
	}
	ok := false
	switch pub := k.Key.(type) {
	case *ecdsa.PublicKey:
		ok = (alg == jose.ES256 && pub.Curve == elliptic.P256()) ||
			(alg == jose.ES384 && pub.Curve == elliptic.P384()) ||
			(alg == jose.ES512 && pub.Curve == elliptic.P521())
	case ed25519.PublicKey:
		ok = alg == jose.EdDSA
	case *rsa.PublicKey:
		ok = (alg == jose.RS256 || alg == jose.PS256 || alg == jose.RS384 || alg == jose.PS384 ||
			alg == jose.RS512 || alg == jose.PS512) && pub.N.BitLen() >= 2048
	}
	if !ok {
		return fmt.Errorf("%w: %T key cannot verify %s", ErrInvalidKey, k.Key, alg)
	}
	return nil
}
