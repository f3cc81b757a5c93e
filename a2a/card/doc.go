// Package card signs and verifies A2A 1.0 agent cards (specification §8.4).
//
// It works on the card's raw JSON bytes, never on a re-marshalled struct, so
// unknown (future) fields and the exact field presence of the received card
// are part of what is signed and verified.
//
// The signing payload is the card with the top-level "signatures" member
// removed, reduced by the proto field-presence rules of §8.4.1 (see
// Canonicalize) and serialized with RFC 8785 (JCS). Signatures are detached
// JWS (RFC 7515 Appendix F, standard base64url payload) with the protected
// header {"alg","kid","typ":"JOSE"} and an optional "jku".
//
// Verification resolves keys by "kid" from keys pinned per upstream (a JWKS
// file or a JWKS URL); "jku" is followed only when VerifyOptions.JKU allows it,
// only through the injected fetcher and only to hosts the configuration trusts.
package card
