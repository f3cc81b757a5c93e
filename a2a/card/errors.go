package card

import "errors"

// Sentinel errors, matched with errors.Is. Returned errors wrap them with the
// package prefix and the signature index and key ID they concern.
var (
	// ErrInvalidCard: the card is not a JSON object this package can read
	// (invalid UTF-8, duplicate keys, too deep, too large, malformed
	// "signatures").
	ErrInvalidCard = errors.New("invalid card")
	// ErrNoSignature: the card carries no signature and one is required.
	ErrNoSignature = errors.New("card is not signed")
	// ErrBadSignature: a signature entry is malformed or does not verify over
	// the card's content.
	ErrBadSignature = errors.New("signature does not verify")
	// ErrUntrustedKey: the signature's kid names no trusted key.
	ErrUntrustedKey = errors.New("untrusted key")
	// ErrAlgorithmNotAllowed: the protected header's alg is not in the
	// allow-list (none and every HMAC algorithm are never allowed).
	ErrAlgorithmNotAllowed = errors.New("algorithm not allowed")
	// ErrJKUNotTrusted: the protected header's jku may not be followed (jku
	// disabled, not https, or host not trusted).
	ErrJKUNotTrusted = errors.New("jku not trusted")
	// ErrKeyFetch: a JWKS could not be fetched or parsed.
	ErrKeyFetch = errors.New("key set unavailable")
	// ErrInvalidKey: a key is malformed, of an unsupported type, or does not
	// match the algorithm it is used with.
	ErrInvalidKey = errors.New("invalid key")
)
