package auth

import (
	"encoding/base64"
	"encoding/json"
	"errors"
	"net/http"
	"strings"
)

// DefaultMaxTokenBytes caps a presented credential; anything longer is refused
// before any decoding.
const DefaultMaxTokenBytes = 8 << 10

// ParseBearer extracts the token from one Authorization header value. It
// returns ("", nil) when the value uses another scheme (e.g. Basic), and an
// *Error when the value is oversized or malformed. The scheme is matched
// case-insensitively (RFC 9110 §11.1); the token must be an RFC 6750 b64token.
func ParseBearer(value string, maxBytes int) (string, error) {
	if maxBytes <= 0 {
		maxBytes = DefaultMaxTokenBytes
	}
	if len(value) > maxBytes+len("Bearer ")+16 {
		return "", invalidToken(ReasonOversized, "credential too large", nil)
	}
	const scheme = "bearer"
	if len(value) < len(scheme) || !strings.EqualFold(value[:len(scheme)], scheme) {
		return "", nil
	}
	rest := value[len(scheme):]
	if rest == "" {
		return "", malformed("empty bearer token", nil)
	}
	if rest[0] != ' ' {
		return "", nil // e.g. "BearerX": another scheme
	}
	tok := strings.TrimLeft(rest, " ")
	tok = strings.TrimRight(tok, " ")
	if tok == "" {
		return "", malformed("empty bearer token", nil)
	}
	if len(tok) > maxBytes {
		return "", invalidToken(ReasonOversized, "credential too large", nil)
	}
	if !isB64Token(tok) {
		return "", malformed("malformed bearer token", nil)
	}
	return tok, nil
}

// isB64Token reports whether s matches RFC 6750's
// b64token = 1*( ALPHA / DIGIT / "-" / "." / "_" / "~" / "+" / "/" ) *"=".
func isB64Token(s string) bool {
	i := 0
	for ; i < len(s); i++ {
		c := s[i]
		if 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9' ||
			c == '-' || c == '.' || c == '_' || c == '~' || c == '+' || c == '/' {
			continue
		}
		break
	}
	if i == 0 {
		return false
	}
	for ; i < len(s); i++ {
		if s[i] != '=' {
			return false
		}
	}
	return true
}

// BearerToken returns the bearer token of r, or "" when r carries none. It
// refuses, with an *Error, a request with more than one Authorization header,
// a token in the URL query (RFC 6750 §2.3 is not supported: URLs end up in
// logs), and an oversized or malformed token.
func BearerToken(r *http.Request, maxBytes int) (string, error) {
	vals := r.Header.Values("Authorization")
	if r.URL != nil && r.URL.RawQuery != "" && r.URL.Query().Has("access_token") {
		return "", malformed("token in URL query is not accepted", nil)
	}
	switch len(vals) {
	case 0:
		return "", nil
	case 1:
		return ParseBearer(vals[0], maxBytes)
	default:
		return "", malformed("more than one Authorization header", nil)
	}
}

// jwtPeek is what the pre-parser reads from a token before any signature
// check: enough to route it to the right verifier and to refuse it cheaply.
type jwtPeek struct {
	Alg    string
	Kid    string
	Typ    string
	Issuer string
}

var (
	errNotJWT      = errors.New("not a compact JWS")
	errJWTHeader   = errors.New("malformed JWS header")
	errJWTPayload  = errors.New("malformed JWT payload")
	errJWTCritical = errors.New("unsupported crit header")
)

// peekJWT parses the header and the issuer of a compact JWS without verifying
// anything. Callers must treat every field as attacker-controlled.
func peekJWT(tok string) (jwtPeek, error) {
	var p jwtPeek
	h, rest, ok := strings.Cut(tok, ".")
	if !ok {
		return p, errNotJWT
	}
	body, sig, ok := strings.Cut(rest, ".")
	if !ok || strings.Contains(sig, ".") || h == "" || body == "" || sig == "" {
		return p, errNotJWT
	}
	hb, err := base64.RawURLEncoding.DecodeString(h)
	if err != nil {
		return p, errJWTHeader
	}
	var hdr struct {
		Alg  string          `json:"alg"`
		Kid  string          `json:"kid"`
		Typ  string          `json:"typ"`
		Crit json.RawMessage `json:"crit"`
	}
	if err := json.Unmarshal(hb, &hdr); err != nil || hdr.Alg == "" {
		return p, errJWTHeader
	}
	if len(hdr.Crit) > 0 {
		return p, errJWTCritical
	}
	bb, err := base64.RawURLEncoding.DecodeString(body)
	if err != nil {
		return p, errJWTPayload
	}
	var claims struct {
		Iss string `json:"iss"`
	}
	if err := json.Unmarshal(bb, &claims); err != nil {
		return p, errJWTPayload
	}
	p.Alg, p.Kid, p.Typ, p.Issuer = hdr.Alg, hdr.Kid, hdr.Typ, claims.Iss
	return p, nil
}
