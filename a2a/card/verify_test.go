package card

import (
	"bytes"
	"context"
	"crypto/hmac"
	"crypto/sha256"
	"crypto/x509"
	"encoding/base64"
	"encoding/json"
	"errors"
	"os"
	"reflect"
	"strings"
	"testing"

	jose "github.com/go-jose/go-jose/v4"
)

const testCard = `{"name":"Example Agent","description":"","version":"1.0.0",
"supportedInterfaces":[{"url":"https://agent.example.com/a2a","protocolBinding":"JSONRPC","protocolVersion":"1.0"}],
"capabilities":{"streaming":false,"pushNotifications":true,"extensions":[]},
"defaultInputModes":["text/plain"],"defaultOutputModes":["text/plain"],
"skills":[{"id":"echo","name":"Echo","description":"Echoes","tags":["demo"]}],"x-future":{"a":1}}`

// newKey returns a fresh signing key for alg.
func newKey(t testing.TB, alg string) *SigningKey {
	t.Helper()
	pemBytes, err := GenerateKey(alg)
	if err != nil {
		t.Fatal(err)
	}
	k, err := ParseSigningKey(pemBytes)
	if err != nil {
		t.Fatal(err)
	}
	return k
}

func sign(t testing.TB, card string, ks *KeySet) []byte {
	t.Helper()
	out, err := Sign([]byte(card), ks)
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// editCard decodes a card, lets fn change it and re-encodes it.
func editCard(t *testing.T, card []byte, fn func(m map[string]any)) []byte {
	t.Helper()
	var m map[string]any
	if err := json.Unmarshal(card, &m); err != nil {
		t.Fatal(err)
	}
	fn(m)
	out, err := json.Marshal(m)
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// forgedSignature builds a signatures entry with an arbitrary protected header.
func forgedSignature(t *testing.T, header map[string]any, sig []byte) map[string]any {
	t.Helper()
	h, err := json.Marshal(header)
	if err != nil {
		t.Fatal(err)
	}
	return map[string]any{
		"protected": base64.RawURLEncoding.EncodeToString(h),
		"signature": base64.RawURLEncoding.EncodeToString(sig),
	}
}

func wantErr(t *testing.T, err, target error) {
	t.Helper()
	if !errors.Is(err, target) {
		t.Fatalf("error = %v, want %v", err, target)
	}
	if !strings.HasPrefix(err.Error(), "card: ") {
		t.Errorf("error %q lacks the package prefix", err)
	}
}

func TestSignVerifyRoundTrip(t *testing.T) {
	for _, alg := range []string{ES256, ES384, EdDSA} {
		t.Run(alg, func(t *testing.T) {
			ks := &KeySet{Current: newKey(t, alg)}
			signed := sign(t, testCard, ks)
			res, err := Verify(context.Background(), signed, ks, VerifyOptions{RequireSignature: true})
			if err != nil {
				t.Fatal(err)
			}
			want := Result{Status: StatusVerified, KeyID: ks.Current.KeyID(), Algorithm: alg, Form: FormSpec}
			if payload, _ := Canonicalize(signed); !bytes.Equal(res.Covered, payload) {
				t.Fatalf("covered %s, want the spec form %s", res.Covered, payload)
			}
			res.Covered = nil
			if !reflect.DeepEqual(res, want) {
				t.Fatalf("result = %+v, want %+v", res, want)
			}
			h := protectedOf(t, signed, 0)
			if h["typ"] != "JOSE" || h["alg"] != alg || h["kid"] != ks.Current.KeyID() || len(h) != 3 {
				t.Errorf("protected header = %v", h)
			}
		})
	}
}

func protectedOf(t *testing.T, card []byte, i int) map[string]any {
	t.Helper()
	var c struct{ Signatures []Signature }
	if err := json.Unmarshal(card, &c); err != nil {
		t.Fatal(err)
	}
	raw, err := base64.RawURLEncoding.DecodeString(c.Signatures[i].Protected)
	if err != nil {
		t.Fatal(err)
	}
	var h map[string]any
	if err := json.Unmarshal(raw, &h); err != nil {
		t.Fatal(err)
	}
	return h
}

func TestSignedCardServesSpecForm(t *testing.T) {
	ks := &KeySet{Current: newKey(t, ES256)}
	signed := sign(t, testCard, ks)
	got := string(signed)
	if strings.Contains(got, `"extensions"`) {
		t.Errorf("signed card still carries the default-valued extensions: %s", got)
	}
	for _, keep := range []string{`"description": ""`, `"streaming": false`, `"x-future"`} {
		if !strings.Contains(got, keep) {
			t.Errorf("signed card lost %s: %s", keep, got)
		}
	}
}

func TestRejectsChangedField(t *testing.T) {
	ks := &KeySet{Current: newKey(t, ES256)}
	tampered := editCard(t, sign(t, testCard, ks), func(m map[string]any) {
		m["supportedInterfaces"].([]any)[0].(map[string]any)["url"] = "https://attacker.example/a2a"
	})
	_, err := Verify(context.Background(), tampered, ks, VerifyOptions{})
	wantErr(t, err, ErrBadSignature)
}

func TestRejectsAddedField(t *testing.T) {
	ks := &KeySet{Current: newKey(t, ES256)}
	for name, fn := range map[string]func(m map[string]any){
		"known field": func(m map[string]any) { m["iconUrl"] = "https://attacker.example/i.png" },
		"optional false": func(m map[string]any) {
			m["capabilities"].(map[string]any)["extendedAgentCard"] = false
		},
	} {
		t.Run(name, func(t *testing.T) {
			_, err := Verify(context.Background(), editCard(t, sign(t, testCard, ks), fn), ks, VerifyOptions{})
			wantErr(t, err, ErrBadSignature)
		})
	}
}

func TestAcceptsReorderedAndReformattedFields(t *testing.T) {
	ks := &KeySet{Current: newKey(t, ES256)}
	signed := sign(t, testCard, ks)
	// editCard re-encodes with sorted keys and no indentation; add whitespace
	// and default-valued plain fields too: none changes the payload.
	reordered := editCard(t, signed, func(m map[string]any) {
		m["securitySchemes"] = map[string]any{}
		m["capabilities"].(map[string]any)["extensions"] = []any{}
	})
	reordered = []byte(" \n" + strings.ReplaceAll(string(reordered), ",", " ,\n\t") + "\n")
	if _, err := Verify(context.Background(), reordered, ks, VerifyOptions{RequireSignature: true}); err != nil {
		t.Fatal(err)
	}
}

func TestRejectsStrippedSignatureWhenRequired(t *testing.T) {
	ks := &KeySet{Current: newKey(t, ES256)}
	signed := sign(t, testCard, ks)
	for name, fn := range map[string]func(m map[string]any){
		"removed": func(m map[string]any) { delete(m, "signatures") },
		"emptied": func(m map[string]any) { m["signatures"] = []any{} },
		"null":    func(m map[string]any) { m["signatures"] = nil },
	} {
		t.Run(name, func(t *testing.T) {
			stripped := editCard(t, signed, fn)
			_, err := Verify(context.Background(), stripped, ks, VerifyOptions{RequireSignature: true})
			wantErr(t, err, ErrNoSignature)
			res, err := Verify(context.Background(), stripped, ks, VerifyOptions{})
			if err != nil || res.Status != StatusUnsigned {
				t.Fatalf("not required: got %+v, %v; want unsigned", res, err)
			}
		})
	}
}

func TestRejectsAlgNone(t *testing.T) {
	ks := &KeySet{Current: newKey(t, ES256)}
	for _, sig := range [][]byte{nil, []byte("x")} {
		card := editCard(t, []byte(testCard), func(m map[string]any) {
			m["signatures"] = []any{forgedSignature(t, map[string]any{"alg": "none", "kid": ks.Current.KeyID(), "typ": "JOSE"}, sig)}
		})
		_, err := Verify(context.Background(), card, ks, VerifyOptions{RequireSignature: true})
		wantErr(t, err, ErrAlgorithmNotAllowed)
	}
	_, err := Verify(context.Background(), []byte(testCard), ks, VerifyOptions{Algorithms: []string{"none"}})
	wantErr(t, err, ErrAlgorithmNotAllowed)
}

// TestRejectsHS256WithPublicKeyAsSecret: the classic alg-confusion attack,
// an HMAC keyed with the (public) verification key.
func TestRejectsHS256WithPublicKeyAsSecret(t *testing.T) {
	ks := &KeySet{Current: newKey(t, ES256)}
	jwk := ks.Current.PublicJWK()
	der, err := x509.MarshalPKIXPublicKey(jwk.Key)
	if err != nil {
		t.Fatal(err)
	}
	jwksBytes, err := ks.JWKS()
	if err != nil {
		t.Fatal(err)
	}
	payload, err := Canonicalize([]byte(testCard))
	if err != nil {
		t.Fatal(err)
	}
	for name, secret := range map[string][]byte{"pkix der": der, "jwks json": jwksBytes} {
		t.Run(name, func(t *testing.T) {
			header := map[string]any{"alg": "HS256", "kid": ks.Current.KeyID(), "typ": "JOSE"}
			h, _ := json.Marshal(header)
			input := base64.RawURLEncoding.EncodeToString(h) + "." + base64.RawURLEncoding.EncodeToString(payload)
			mac := hmac.New(sha256.New, secret)
			mac.Write([]byte(input))
			card := editCard(t, []byte(testCard), func(m map[string]any) {
				m["signatures"] = []any{forgedSignature(t, header, mac.Sum(nil))}
			})
			_, err := Verify(context.Background(), card, ks, VerifyOptions{RequireSignature: true})
			wantErr(t, err, ErrAlgorithmNotAllowed)
			_, err = Verify(context.Background(), card, ks, VerifyOptions{Algorithms: []string{"HS256"}})
			wantErr(t, err, ErrAlgorithmNotAllowed)
		})
	}
}

func TestRejectsUnknownKID(t *testing.T) {
	signer := &KeySet{Current: newKey(t, ES256)}
	trusted := &KeySet{Current: newKey(t, ES256)}
	_, err := Verify(context.Background(), sign(t, testCard, signer), trusted, VerifyOptions{})
	wantErr(t, err, ErrUntrustedKey)
	_, err = Verify(context.Background(), sign(t, testCard, signer), nil, VerifyOptions{})
	wantErr(t, err, ErrUntrustedKey)
}

// TestRejectsKeyOfWrongType: a pinned JWKS maps the header's kid to a key of
// another type; the alg/key binding refuses it before any crypto runs.
func TestRejectsKeyOfWrongType(t *testing.T) {
	signer := &KeySet{Current: newKey(t, EdDSA)}
	other := newKey(t, ES256).PublicJWK()
	other.KeyID = signer.Current.KeyID()
	other.Algorithm = ""
	set, _ := json.Marshal(jose.JSONWebKeySet{Keys: []jose.JSONWebKey{other}})
	keys, err := ParseJWKS(set)
	if err != nil {
		t.Fatal(err)
	}
	_, err = Verify(context.Background(), sign(t, testCard, signer), keys, VerifyOptions{})
	wantErr(t, err, ErrInvalidKey)
}

func TestRejectsUnknownCriticalHeader(t *testing.T) {
	k := newKey(t, ES256)
	ks := &KeySet{Current: k}
	payload, err := Canonicalize([]byte(testCard))
	if err != nil {
		t.Fatal(err)
	}
	signer, err := jose.NewSigner(jose.SigningKey{Algorithm: jose.ES256, Key: jose.JSONWebKey{Key: k.signer, KeyID: k.KeyID()}},
		(&jose.SignerOptions{}).WithType("JOSE").WithHeader("crit", []string{"x-must-understand"}).WithHeader("x-must-understand", true))
	if err != nil {
		t.Fatal(err)
	}
	obj, err := signer.Sign(payload)
	if err != nil {
		t.Fatal(err)
	}
	compact, _ := obj.DetachedCompactSerialize()
	parts := strings.Split(compact, ".")
	card := editCard(t, []byte(testCard), func(m map[string]any) {
		m["signatures"] = []any{map[string]any{"protected": parts[0], "signature": parts[2]}}
	})
	_, err = Verify(context.Background(), card, ks, VerifyOptions{})
	wantErr(t, err, ErrBadSignature)
}

func TestRotatedOutKeyInPreviousStillVerifies(t *testing.T) {
	old, cur := newKey(t, ES256), newKey(t, EdDSA)
	signedByOld := sign(t, testCard, &KeySet{Current: old})
	rotated := &KeySet{Current: cur, Previous: []*SigningKey{old}}
	res, err := Verify(context.Background(), signedByOld, rotated, VerifyOptions{RequireSignature: true})
	if err != nil {
		t.Fatal(err)
	}
	if res.KeyID != old.KeyID() {
		t.Errorf("verified by %q, want the previous key %q", res.KeyID, old.KeyID())
	}
	// Once dropped from Previous, the old key no longer verifies.
	_, err = Verify(context.Background(), signedByOld, &KeySet{Current: cur}, VerifyOptions{})
	wantErr(t, err, ErrUntrustedKey)
}

// TestAddedUnknownFieldIsNotCovered_SDKForm: the SDKs' form leaves members
// outside the schema out of the payload, so a member added to a signed card
// still verifies under FormSDK, but the card to use (Result.Covered) does
// not have it; under SpecFormOnly it does not verify at all.
func TestAddedUnknownFieldIsNotCovered_SDKForm(t *testing.T) {
	ks := &KeySet{Current: newKey(t, ES256)}
	tampered := editCard(t, sign(t, testCard, ks), func(m map[string]any) { m["x-extra"] = "https://attacker.example" })
	res, err := Verify(context.Background(), tampered, ks, VerifyOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if res.Form != FormSDK || bytes.Contains(res.Covered, []byte("x-extra")) {
		t.Fatalf("form %v, covered %s: the added member must not be vouched for", res.Form, res.Covered)
	}
	_, err = Verify(context.Background(), tampered, ks, VerifyOptions{SpecFormOnly: true})
	wantErr(t, err, ErrBadSignature)
}

func TestResignReplacesSameKIDKeepsOthers(t *testing.T) {
	old, cur := newKey(t, ES256), newKey(t, EdDSA)
	card := sign(t, testCard, &KeySet{Current: old})
	card = sign(t, string(card), &KeySet{Current: cur})
	card = sign(t, string(card), &KeySet{Current: cur})
	var c struct{ Signatures []Signature }
	if err := json.Unmarshal(card, &c); err != nil {
		t.Fatal(err)
	}
	// Each key signs the spec form and, where it differs, the SDK form.
	if len(c.Signatures) != 4 {
		t.Fatalf("got %d signatures, want 4 (old kept, current replaced)", len(c.Signatures))
	}
	if kid := protectedOf(t, card, 0)["kid"]; kid != old.KeyID() {
		t.Errorf("first signature kid %v, want the old key", kid)
	}
	// Each signature verifies on its own.
	for _, k := range []*SigningKey{old, cur} {
		if _, err := Verify(context.Background(), card, &KeySet{Current: k}, VerifyOptions{RequireSignature: true}); err != nil {
			t.Errorf("kid %s: %v", k.KeyID(), err)
		}
	}
}

// TestVerifiesWithIndependentGoJose checks the detached JWS this package
// emits with go-jose alone: payload reattached to "protected..signature".
func TestVerifiesWithIndependentGoJose(t *testing.T) {
	for _, alg := range []string{ES256, EdDSA} {
		t.Run(alg, func(t *testing.T) {
			k := newKey(t, alg)
			signed := sign(t, testCard, &KeySet{Current: k, JKU: "https://agent.example.com/.well-known/jwks.json"})
			var c struct{ Signatures []Signature }
			if err := json.Unmarshal(signed, &c); err != nil {
				t.Fatal(err)
			}
			payload, err := Canonicalize(signed)
			if err != nil {
				t.Fatal(err)
			}
			compact := c.Signatures[0].Protected + "." + base64.RawURLEncoding.EncodeToString(payload) + "." + c.Signatures[0].Signature
			jws, err := jose.ParseSignedCompact(compact, []jose.SignatureAlgorithm{jose.SignatureAlgorithm(alg)})
			if err != nil {
				t.Fatal(err)
			}
			got, err := jws.Verify(k.signer.Public())
			if err != nil {
				t.Fatalf("independent verification failed: %v", err)
			}
			if string(got) != string(payload) {
				t.Fatal("payload mismatch")
			}
			if h := jws.Signatures[0].Protected; h.KeyID != k.KeyID() || h.ExtraHeaders["typ"] != "JOSE" || h.ExtraHeaders["jku"] != "https://agent.example.com/.well-known/jwks.json" {
				t.Errorf("protected header = %+v", h)
			}
		})
	}
}

// TestAcceptsStrippedFormFromOtherSDKs: a signer that drops empty REQUIRED
// fields (a2a-tck, a2a-python, a2a-js) still verifies unless SpecFormOnly.
func TestAcceptsStrippedFormFromOtherSDKs(t *testing.T) {
	k := newKey(t, ES256)
	obj, err := decodeCard([]byte(testCard))
	if err != nil {
		t.Fatal(err)
	}
	payload, err := canonicalForm(obj, FormStripped)
	if err != nil {
		t.Fatal(err)
	}
	sig, err := signPayload(payload, k, "")
	if err != nil {
		t.Fatal(err)
	}
	card := editCard(t, []byte(testCard), func(m map[string]any) {
		m["signatures"] = []any{map[string]any{"protected": sig.Protected, "signature": sig.Signature}}
	})
	ks := &KeySet{Current: k}
	res, err := Verify(context.Background(), card, ks, VerifyOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if res.Form != FormStripped {
		t.Errorf("form = %v, want stripped", res.Form)
	}
	_, err = Verify(context.Background(), card, ks, VerifyOptions{SpecFormOnly: true})
	wantErr(t, err, ErrBadSignature)
}

func TestRejectsMalformedCards(t *testing.T) {
	ks := &KeySet{Current: newKey(t, ES256)}
	tests := []struct {
		name string
		card string
		opts VerifyOptions
		want error
	}{
		{"oversized card", `{"name":"` + strings.Repeat("a", 300<<10) + `"}`, VerifyOptions{}, ErrInvalidCard},
		{"signatures not an array", `{"signatures":{}}`, VerifyOptions{}, ErrInvalidCard},
		{"signature entry not an object", `{"signatures":[1]}`, VerifyOptions{}, ErrBadSignature},
		{"protected not base64url", `{"signatures":[{"protected":"***","signature":"AA"}]}`, VerifyOptions{}, ErrBadSignature},
		{"protected not an object", `{"signatures":[{"protected":"WzFd","signature":"AA"}]}`, VerifyOptions{}, ErrBadSignature},
		{"empty kid", `{"signatures":[{"protected":"` + b64(`{"alg":"ES256"}`) + `","signature":"AA"}]}`, VerifyOptions{}, ErrBadSignature},
		{"duplicate signatures key", `{"signatures":[],"signatures":[]}`, VerifyOptions{}, ErrInvalidCard},
		{"too many signatures", `{"signatures":[` + strings.Repeat(`{},`, maxSignatures) + `{}]}`, VerifyOptions{}, ErrInvalidCard},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := Verify(context.Background(), []byte(tt.card), ks, tt.opts)
			wantErr(t, err, tt.want)
		})
	}
}

func b64(s string) string { return base64.RawURLEncoding.EncodeToString([]byte(s)) }

func TestKeyFilesAndJWKS(t *testing.T) {
	dir := t.TempDir()
	path := dir + "/card.key"
	kid, err := GenerateKeyFile(path, EdDSA)
	if err != nil {
		t.Fatal(err)
	}
	fi, err := os.Stat(path)
	if err != nil {
		t.Fatal(err)
	}
	if fi.Mode().Perm() != 0o600 {
		t.Errorf("key file mode %v, want 0600", fi.Mode().Perm())
	}
	if _, err := GenerateKeyFile(path, EdDSA); err == nil {
		t.Error("overwrote an existing key file")
	}
	k, err := LoadSigningKey(path)
	if err != nil {
		t.Fatal(err)
	}
	if k.KeyID() != kid || k.Algorithm() != EdDSA {
		t.Errorf("loaded kid %s alg %s, want %s EdDSA", k.KeyID(), k.Algorithm(), kid)
	}
	prev := newKey(t, ES256)
	ks := &KeySet{Current: k, Previous: []*SigningKey{prev}}
	jwks, err := ks.JWKS()
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(string(jwks), `"d"`) {
		t.Fatalf("JWKS leaks private key material: %s", jwks)
	}
	var set jose.JSONWebKeySet
	if err := json.Unmarshal(jwks, &set); err != nil {
		t.Fatal(err)
	}
	if len(set.Keys) != 2 || set.Keys[0].KeyID != kid || set.Keys[1].KeyID != prev.KeyID() {
		t.Fatalf("JWKS keys = %+v", set.Keys)
	}
	for _, key := range set.Keys { // kid is the RFC 7638 thumbprint
		tp, _ := key.Thumbprint(crypto256)
		if base64.RawURLEncoding.EncodeToString(tp) != key.KeyID {
			t.Errorf("kid %s is not the key's thumbprint", key.KeyID)
		}
	}

	signed, err := SignFile([]byte(testCard), ks)
	if err != nil {
		t.Fatal(err)
	}
	res, err := VerifyFile(signed, jwks, VerifyOptions{RequireSignature: true})
	if err != nil || res.KeyID != kid {
		t.Fatalf("VerifyFile = %+v, %v", res, err)
	}
	if _, err := GenerateKey("HS256"); !errors.Is(err, ErrInvalidKey) {
		t.Errorf("GenerateKey(HS256) error = %v", err)
	}
	if _, err := ParseSigningKey([]byte("-----BEGIN EC PRIVATE KEY-----\nAA==\n-----END EC PRIVATE KEY-----\n")); !errors.Is(err, ErrInvalidKey) {
		t.Errorf("non-PKCS#8 PEM error = %v", err)
	}
}

func TestParseJWKSRefusesSymmetricKeys(t *testing.T) {
	_, err := ParseJWKS([]byte(`{"keys":[{"kty":"oct","kid":"k","k":"c2VjcmV0"}]}`))
	wantErr(t, err, ErrInvalidKey)
}

func FuzzVerify(f *testing.F) {
	ks := &KeySet{Current: newKey(f, ES256)}
	signed, err := Sign([]byte(testCard), ks)
	if err != nil {
		f.Fatal(err)
	}
	f.Add(signed)
	f.Add([]byte(testCard))
	f.Add([]byte(`{"signatures":[{"protected":"eyJhbGciOiJub25lIn0","signature":""}]}`))
	f.Fuzz(func(t *testing.T, in []byte) {
		res, err := Verify(context.Background(), in, ks, VerifyOptions{})
		if err == nil && res.Status == StatusVerified {
			// Anything that verifies must carry our key's signature over
			// the payload we compute.
			if res.KeyID != ks.Current.KeyID() {
				t.Fatalf("verified with unexpected kid %q", res.KeyID)
			}
		}
	})
}
