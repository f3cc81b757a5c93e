package card

import (
	"bytes"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"strings"

	jose "github.com/go-jose/go-jose/v4"
)

// Signature is one entry of a card's "signatures" array (proto
// AgentCardSignature): a detached JWS whose payload is the card's canonical
// form.
type Signature struct {
	// Protected is the base64url protected header.
	Protected string `json:"protected"`
	// Signature is the base64url signature.
	Signature string `json:"signature"`
}

// Sign signs a card with ks.Current and returns the card to serve: the §8.4.1
// presence form that was signed (so verifiers that skip the presence rules
// still match), with the new signature appended to "signatures". When the
// form @a2a-js/sdk and a2a-python verify (FormSDK: empty values dropped)
// differs from it, a second signature by the same key covers that form, so
// that their verifyAgentCardSignature accepts the card too. Existing
// signatures by the same kid are replaced; others are kept as received, for
// key rotation.
func Sign(cardJSON []byte, ks *KeySet) ([]byte, error) {
	if ks == nil || ks.Current == nil {
		return nil, fmt.Errorf("card: sign: %w: no current signing key", ErrInvalidKey)
	}
	obj, err := decodeCard(cardJSON)
	if err != nil {
		return nil, err
	}
	reduced := reduceMessage(obj, "AgentCard", false, true)
	payload, err := encodeJCS(reduced)
	if err != nil {
		return nil, err
	}
	sig, err := signPayload(payload, ks.Current, ks.JKU)
	if err != nil {
		return nil, err
	}
	added := []any{sig}
	sdk, err := canonicalForm(reduced, FormSDK)
	if err != nil {
		return nil, err
	}
	if !bytes.Equal(sdk, payload) {
		s2, err := signPayload(sdk, ks.Current, ks.JKU)
		if err != nil {
			return nil, err
		}
		added = append(added, s2)
	}

	var sigs []any
	switch existing := obj["signatures"].(type) {
	case nil:
	case []any:
		for _, e := range existing {
			if signatureKID(e) != ks.Current.kid {
				sigs = append(sigs, e)
			}
		}
	default:
		return nil, fmt.Errorf("card: sign: %w: \"signatures\" is not an array", ErrInvalidCard)
	}
	reduced["signatures"] = append(sigs, added...)

	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	enc.SetIndent("", "  ")
	if err := enc.Encode(reduced); err != nil {
		return nil, fmt.Errorf("card: sign: %w", err)
	}
	return buf.Bytes(), nil
}

// signPayload produces a detached JWS over payload with the protected header
// {"alg","kid","typ":"JOSE"} (+ "jku").
func signPayload(payload []byte, k *SigningKey, jku string) (Signature, error) {
	opts := (&jose.SignerOptions{}).WithType("JOSE")
	if jku != "" {
		opts = opts.WithHeader("jku", jku)
	}
	signer, err := jose.NewSigner(jose.SigningKey{
		Algorithm: k.alg,
		Key:       jose.JSONWebKey{Key: k.signer, KeyID: k.kid, Algorithm: string(k.alg)},
	}, opts)
	if err != nil {
		return Signature{}, fmt.Errorf("card: sign: %w", err)
	}
	obj, err := signer.Sign(payload)
	if err != nil {
		return Signature{}, fmt.Errorf("card: sign: %w", err)
	}
	compact, err := obj.DetachedCompactSerialize()
	if err != nil {
		return Signature{}, fmt.Errorf("card: sign: %w", err)
	}
	parts := strings.Split(compact, ".")
	if len(parts) != 3 || parts[1] != "" {
		return Signature{}, fmt.Errorf("card: sign: unexpected detached JWS shape")
	}
	return Signature{Protected: parts[0], Signature: parts[2]}, nil
}

// signatureKID returns the kid of a received signatures entry, or "" when it
// cannot be read.
func signatureKID(entry any) string {
	m, ok := entry.(map[string]any)
	if !ok {
		return ""
	}
	p, ok := m["protected"].(string)
	if !ok {
		return ""
	}
	h, err := decodeProtected(p)
	if err != nil {
		return ""
	}
	return h.KeyID
}

// protectedHeader is the part of a JWS protected header this package reads.
type protectedHeader struct {
	Algorithm string `json:"alg"`
	KeyID     string `json:"kid"`
	Type      string `json:"typ"`
	JKU       string `json:"jku"`
}

// maxProtectedBytes caps the encoded protected header.
const maxProtectedBytes = 4096

func decodeProtected(p string) (protectedHeader, error) {
	var h protectedHeader
	if len(p) > maxProtectedBytes {
		return h, fmt.Errorf("protected header longer than %d bytes", maxProtectedBytes)
	}
	raw, err := base64.RawURLEncoding.DecodeString(p)
	if err != nil {
		return h, fmt.Errorf("protected header is not base64url: %v", err)
	}
	if err := json.Unmarshal(raw, &h); err != nil {
		return h, fmt.Errorf("protected header is not a JSON object: %v", err)
	}
	return h, nil
}
