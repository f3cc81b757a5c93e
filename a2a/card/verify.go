package card

import (
	"context"
	"errors"
	"fmt"
	"net/url"
	"slices"
	"strings"

	jose "github.com/go-jose/go-jose/v4"
)

// KeyResolver returns the trusted public key for a kid, or an error wrapping
// ErrUntrustedKey when it has none. Implemented by *KeySet, *StaticJWKS and
// *RemoteJWKS.
type KeyResolver interface {
	Key(ctx context.Context, kid string) (jose.JSONWebKey, error)
}

// JWKSFetcher fetches a JWKS document by URL. The gateway passes one built on
// netguard's SSRF-safe client (see NewHTTPFetcher); the fetcher is the only
// way a "jku" URL is ever dereferenced.
type JWKSFetcher interface {
	FetchJWKS(ctx context.Context, url string) ([]byte, error)
}

// JKUPolicy allows following the "jku" protected header. Without it (the
// default) jku is ignored and keys come only from the pinned KeyResolver.
type JKUPolicy struct {
	// TrustedHosts lists the hosts (host or host:port, compared
	// case-insensitively and exactly, no wildcards) a jku URL may name. Empty
	// means none: every jku is refused.
	TrustedHosts []string
	// Fetcher dereferences trusted jku URLs. Required.
	Fetcher JWKSFetcher
}

// DefaultAlgorithms is the verification allow-list used when
// VerifyOptions.Algorithms is empty.
var DefaultAlgorithms = []string{ES256, ES384, EdDSA}

// allowableAlgorithms are the asymmetric algorithms an allow-list may name;
// "none" and the HMAC family can never be allowed.
var allowableAlgorithms = []string{
	ES256, ES384, string(jose.ES512), EdDSA,
	string(jose.RS256), string(jose.RS384), string(jose.RS512),
	string(jose.PS256), string(jose.PS384), string(jose.PS512),
}

// DefaultMaxCardBytes caps the card size Verify accepts when
// VerifyOptions.MaxCardBytes is zero.
const DefaultMaxCardBytes = 256 << 10

// maxSignatures caps how many signature entries Verify examines.
const maxSignatures = 16

// VerifyOptions is the per-upstream verification policy. The zero value
// verifies ES256/ES384/EdDSA signatures against pinned keys only, never
// follows jku and accepts unsigned cards (reporting StatusUnsigned).
type VerifyOptions struct {
	// RequireSignature makes an unsigned card an error (ErrNoSignature).
	// Default false: unsigned cards are reported as StatusUnsigned.
	RequireSignature bool
	// Algorithms is the alg allow-list (default DefaultAlgorithms). Allowed
	// values: ES256, ES384, ES512, EdDSA, RS256/384/512, PS256/384/512.
	Algorithms []string
	// JKU, when non-nil, allows keys to be fetched from a signature's "jku"
	// when the pinned resolver does not know its kid. Default nil: never.
	JKU *JKUPolicy
	// SpecFormOnly accepts only signatures over the §8.4.1 form (FormSpec).
	// Default false: FormStripped, FormSDK and FormRaw are also tried, for
	// signers that drop empty REQUIRED fields, sign what @a2a-js/sdk and
	// a2a-python canonicalize, or skip the presence rules. Every form is
	// derived from the received bytes, so none lets an altered card verify
	// (but FormSDK does not cover members outside the schema nor empty
	// values: Result.Form says which form matched).
	SpecFormOnly bool
	// MaxCardBytes caps the card size (default DefaultMaxCardBytes).
	MaxCardBytes int
}

func (o VerifyOptions) algorithms() ([]jose.SignatureAlgorithm, error) {
	names := o.Algorithms
	if len(names) == 0 {
		names = DefaultAlgorithms
	}
	out := make([]jose.SignatureAlgorithm, 0, len(names))
	for _, n := range names {
		if !slices.Contains(allowableAlgorithms, n) {
			return nil, fmt.Errorf("card: verify options: %w: %q cannot be allowed (asymmetric JWS algorithms only)", ErrAlgorithmNotAllowed, n)
		}
		out = append(out, jose.SignatureAlgorithm(n))
	}
	return out, nil
}

// Status is the outcome of a successful Verify.
type Status uint8

const (
	// StatusUnsigned: the card has no signature and none was required.
	StatusUnsigned Status = iota + 1
	// StatusVerified: at least one signature verified with a trusted key.
	StatusVerified
)

// String returns the status name for logs and metrics.
func (s Status) String() string {
	switch s {
	case StatusUnsigned:
		return "unsigned"
	case StatusVerified:
		return "verified"
	default:
		return "unknown"
	}
}

// Result describes a successful verification.
type Result struct {
	// Status is StatusVerified or StatusUnsigned.
	Status Status
	// Index is the position in "signatures" of the signature that verified.
	Index int
	// KeyID and Algorithm are from that signature's protected header.
	KeyID     string
	Algorithm string
	// JKU is the URL the key came from when it was fetched via jku; "" when it
	// came from the pinned resolver.
	JKU string
	// Form is the payload form the signature was made over.
	Form Form
	// Covered is that payload: the card as far as the signature covers it
	// (JSON, without "signatures"). Read the card from Covered, not from the
	// received bytes: a member the form leaves out (FormSDK drops members
	// outside the schema and empty values) is not vouched for by the
	// signature.
	Covered []byte
}

// Verify checks a card's signatures. It succeeds when at least one signature
// verifies with a trusted key over a payload recomputed from the received
// bytes, or when the card is unsigned and opts.RequireSignature is false
// (Status StatusUnsigned). Otherwise the error joins one error per signature,
// each wrapping a sentinel (ErrBadSignature, ErrUntrustedKey,
// ErrAlgorithmNotAllowed, ErrJKUNotTrusted, ErrKeyFetch, ErrInvalidKey).
// keys may be nil when only jku is to be used.
func Verify(ctx context.Context, cardJSON []byte, keys KeyResolver, opts VerifyOptions) (Result, error) {
	algs, err := opts.algorithms()
	if err != nil {
		return Result{}, err
	}
	limit := opts.MaxCardBytes
	if limit <= 0 {
		limit = DefaultMaxCardBytes
	}
	if len(cardJSON) > limit {
		return Result{}, fmt.Errorf("card: verify: %w: %d bytes exceeds the %d-byte cap", ErrInvalidCard, len(cardJSON), limit)
	}
	obj, err := decodeCard(cardJSON)
	if err != nil {
		return Result{}, err
	}

	var entries []any
	switch s := obj["signatures"].(type) {
	case nil:
	case []any:
		entries = s
	default:
		return Result{}, fmt.Errorf("card: verify: %w: \"signatures\" is not an array", ErrInvalidCard)
	}
	if len(entries) == 0 {
		if opts.RequireSignature {
			return Result{}, fmt.Errorf("card: verify: %w", ErrNoSignature)
		}
		return Result{Status: StatusUnsigned}, nil
	}
	if len(entries) > maxSignatures {
		return Result{}, fmt.Errorf("card: verify: %w: %d signatures exceeds the cap of %d", ErrInvalidCard, len(entries), maxSignatures)
	}

	p := payloads{obj: obj, specOnly: opts.SpecFormOnly}
	var errs []error
	for i, e := range entries {
		res, err := verifyOne(ctx, e, &p, keys, algs, opts.JKU)
		if err == nil {
			res.Index = i
			res.Status = StatusVerified
			return res, nil
		}
		errs = append(errs, fmt.Errorf("card: signature %d: %w", i, err))
	}
	return Result{}, errors.Join(errs...)
}

// payloads computes each payload form at most once.
type payloads struct {
	obj      map[string]any
	specOnly bool
	done     [FormSDK + 1]bool
	forms    [FormSDK + 1][]byte
	errs     [FormSDK + 1]error
}

func (p *payloads) get(f Form) ([]byte, error) {
	if !p.done[f] {
		p.forms[f], p.errs[f] = canonicalForm(p.obj, f)
		p.done[f] = true
	}
	return p.forms[f], p.errs[f]
}

func (p *payloads) list() []Form {
	if p.specOnly {
		return []Form{FormSpec}
	}
	return []Form{FormSpec, FormStripped, FormSDK, FormRaw}
}

func verifyOne(ctx context.Context, entry any, p *payloads, keys KeyResolver, algs []jose.SignatureAlgorithm, jku *JKUPolicy) (Result, error) {
	m, ok := entry.(map[string]any)
	if !ok {
		return Result{}, fmt.Errorf("%w: entry is not an object", ErrBadSignature)
	}
	protected, _ := m["protected"].(string)
	if protected == "" {
		return Result{}, fmt.Errorf("%w: \"protected\" must be a non-empty string", ErrBadSignature)
	}
	h, err := decodeProtected(protected)
	if err != nil {
		return Result{}, fmt.Errorf("%w: %v", ErrBadSignature, err)
	}
	alg := jose.SignatureAlgorithm(h.Algorithm)
	if !slices.Contains(algs, alg) {
		return Result{}, fmt.Errorf("%w: %q", ErrAlgorithmNotAllowed, h.Algorithm)
	}
	sigB64, _ := m["signature"].(string)
	if sigB64 == "" {
		return Result{}, fmt.Errorf("%w: \"signature\" must be a non-empty string", ErrBadSignature)
	}
	if h.KeyID == "" {
		return Result{}, fmt.Errorf("%w: protected header has no kid", ErrBadSignature)
	}
	res := Result{KeyID: h.KeyID, Algorithm: h.Algorithm}

	key, source, err := resolveKey(ctx, h, keys, jku)
	if err != nil {
		return Result{}, fmt.Errorf("kid %q: %w", h.KeyID, err)
	}
	res.JKU = source
	if !key.IsPublic() {
		key = key.Public()
	}
	if err := keyMatchesAlg(key, alg); err != nil {
		return Result{}, fmt.Errorf("kid %q: %w", h.KeyID, err)
	}

	spec, err := p.get(FormSpec)
	if err != nil {
		return Result{}, err
	}
	jws, err := jose.ParseDetached(protected+".."+sigB64, spec, []jose.SignatureAlgorithm{alg})
	if err != nil {
		return Result{}, fmt.Errorf("kid %q: %w: %v", h.KeyID, ErrBadSignature, err)
	}
	var seen [][]byte
	for _, f := range p.list() {
		payload, err := p.get(f)
		if err != nil {
			continue
		}
		if slices.ContainsFunc(seen, func(b []byte) bool { return string(b) == string(payload) }) {
			continue
		}
		seen = append(seen, payload)
		if jws.DetachedVerify(payload, key) == nil {
			res.Form, res.Covered = f, payload
			return res, nil
		}
	}
	return Result{}, fmt.Errorf("kid %q: %w", h.KeyID, ErrBadSignature)
}

// resolveKey finds the key for h.KeyID: pinned keys first, then (only when
// the policy allows and the host is trusted) the header's jku. It returns the
// jku URL when the key came from there.
func resolveKey(ctx context.Context, h protectedHeader, keys KeyResolver, jku *JKUPolicy) (jose.JSONWebKey, string, error) {
	var pinnedErr error = ErrUntrustedKey
	if keys != nil {
		k, err := keys.Key(ctx, h.KeyID)
		if err == nil {
			return k, "", nil
		}
		if !errors.Is(err, ErrUntrustedKey) {
			return jose.JSONWebKey{}, "", err // fail closed: pinned source unavailable
		}
		pinnedErr = err
	}
	if h.JKU == "" {
		return jose.JSONWebKey{}, "", pinnedErr
	}
	if jku == nil || jku.Fetcher == nil {
		return jose.JSONWebKey{}, "", fmt.Errorf("%w (jku is disabled)", pinnedErr)
	}
	if err := jku.check(h.JKU); err != nil {
		return jose.JSONWebKey{}, "", err
	}
	body, err := jku.Fetcher.FetchJWKS(ctx, h.JKU)
	if err != nil {
		return jose.JSONWebKey{}, "", fmt.Errorf("%w: jku: %v", ErrKeyFetch, err)
	}
	set, err := parseJWKS(body)
	if err != nil {
		return jose.JSONWebKey{}, "", err
	}
	k, err := set.Key(ctx, h.KeyID)
	if err != nil {
		return jose.JSONWebKey{}, "", err
	}
	return k, h.JKU, nil
}

// check refuses a jku that is not https or names an untrusted host.
func (p *JKUPolicy) check(raw string) error {
	u, err := url.Parse(raw)
	if err != nil {
		return fmt.Errorf("%w: unparsable URL", ErrJKUNotTrusted)
	}
	if u.Scheme != "https" || u.User != nil || u.Host == "" {
		return fmt.Errorf("%w: %q must be an https URL without credentials", ErrJKUNotTrusted, u.Redacted())
	}
	for _, h := range p.TrustedHosts {
		if strings.EqualFold(h, u.Host) {
			return nil
		}
	}
	return fmt.Errorf("%w: host %q is not trusted", ErrJKUNotTrusted, u.Host)
}
