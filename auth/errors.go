package auth

import (
	"errors"
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/a2a-mcp-bridge/bridge/request"
)

// Reason is the typed cause of an authentication failure, stable for logs and
// metrics.
type Reason int

// Reasons an authenticator refuses a request.
const (
	ReasonUnknown           Reason = iota
	ReasonNoCredentials            // nothing was presented
	ReasonMalformed                // the header or token could not be parsed
	ReasonOversized                // the credential exceeds the size cap
	ReasonAlgorithm                // the token's alg is not on the allow-list
	ReasonTokenType                // the token's typ is not accepted
	ReasonSignature                // the signature does not verify
	ReasonUnknownKey               // no key with the token's kid
	ReasonKeysUnavailable          // the key set could not be fetched
	ReasonExpired                  // exp is in the past (beyond skew)
	ReasonNotYetValid              // nbf or iat is in the future (beyond skew)
	ReasonIssuer                   // iss is not a configured issuer
	ReasonAudience                 // aud does not name this resource
	ReasonClaims                   // a required claim is missing or mistyped
	ReasonInsufficientScope        // a required scope is missing
	ReasonUnknownAPIKey            // the API key matches no configured key
	ReasonRateLimited              // the per-IP verification budget is spent
)

var reasonNames = [...]string{
	ReasonUnknown:           "unknown",
	ReasonNoCredentials:     "no_credentials",
	ReasonMalformed:         "malformed",
	ReasonOversized:         "oversized",
	ReasonAlgorithm:         "algorithm",
	ReasonTokenType:         "token_type",
	ReasonSignature:         "signature",
	ReasonUnknownKey:        "unknown_key",
	ReasonKeysUnavailable:   "keys_unavailable",
	ReasonExpired:           "expired",
	ReasonNotYetValid:       "not_yet_valid",
	ReasonIssuer:            "issuer",
	ReasonAudience:          "audience",
	ReasonClaims:            "claims",
	ReasonInsufficientScope: "insufficient_scope",
	ReasonUnknownAPIKey:     "unknown_api_key",
	ReasonRateLimited:       "rate_limited",
}

// String returns the reason's stable snake_case name.
func (r Reason) String() string {
	if r < 0 || int(r) >= len(reasonNames) {
		return "unknown"
	}
	return reasonNames[r]
}

// RFC 6750 error codes used in WWW-Authenticate challenges.
const (
	CodeInvalidRequest    = "invalid_request"
	CodeInvalidToken      = "invalid_token"
	CodeInsufficientScope = "insufficient_scope"
)

// ErrNoCredentials is matched (errors.Is) by every *Error whose reason is
// ReasonNoCredentials. An authenticator returns it when the request carries
// nothing it recognises, so the Chain tries the next one.
var ErrNoCredentials = errors.New("auth: no credentials")

// Error is an authentication or authorisation failure. Its message is safe to
// log and to show: it never contains the token or any secret.
type Error struct {
	// Status is the HTTP status to answer with: 401, 403 or 429.
	Status int
	// Code is the RFC 6750 error code ("invalid_token", "insufficient_scope",
	// "invalid_request"), or empty when no credentials were presented.
	Code string
	// Reason is the typed cause, for logs and metrics.
	Reason Reason
	// Scopes lists the scopes required, for insufficient_scope challenges.
	Scopes []string
	// Message is a short human-readable description, safe to show the caller.
	Message string
	// RetryAfter is set for ReasonRateLimited.
	RetryAfter time.Duration

	cause error
}

// Error implements error: "auth: <message>: <cause>".
func (e *Error) Error() string {
	if e.cause != nil {
		return "auth: " + e.Message + ": " + e.cause.Error()
	}
	return "auth: " + e.Message
}

// Unwrap returns the underlying cause (never containing the token).
func (e *Error) Unwrap() error { return e.cause }

// Is makes errors.Is(err, ErrNoCredentials) true for no-credential errors.
func (e *Error) Is(target error) bool {
	return target == ErrNoCredentials && e.Reason == ReasonNoCredentials
}

// Challenge returns the WWW-Authenticate value for e; see the package
// function Challenge.
func (e *Error) Challenge(realm, resourceMetadata string) string {
	return Challenge(realm, e, resourceMetadata)
}

func newError(status int, code string, reason Reason, msg string, cause error) *Error {
	return &Error{Status: status, Code: code, Reason: reason, Message: msg, cause: cause}
}

// invalidToken builds the common 401 invalid_token error.
func invalidToken(reason Reason, msg string, cause error) *Error {
	return newError(http.StatusUnauthorized, CodeInvalidToken, reason, msg, cause)
}

// malformed builds the error of a credential that cannot be read: 401 with
// an invalid_request challenge, so that a client learns how to
// authenticate whatever it got wrong (RFC 6750 §3.1 lets it be 400; MCP
// and A2A clients look for the challenge on a 401).
func malformed(msg string, cause error) *Error {
	return newError(http.StatusUnauthorized, CodeInvalidRequest, ReasonMalformed, msg, cause)
}

func noCredentials() *Error {
	return newError(http.StatusUnauthorized, "", ReasonNoCredentials, "no credentials", nil)
}

// InsufficientScope returns the 403 error for a caller lacking scopes.
func InsufficientScope(scopes ...string) *Error {
	e := newError(http.StatusForbidden, CodeInsufficientScope, ReasonInsufficientScope, "insufficient scope", nil)
	e.Scopes = append([]string(nil), scopes...)
	return e
}

// RequireScopes returns nil when p holds every scope in scopes, else the 403
// insufficient_scope error naming all of them.
func RequireScopes(p *request.Principal, scopes ...string) error {
	for _, s := range scopes {
		if !p.HasScope(s) {
			return InsufficientScope(scopes...)
		}
	}
	return nil
}

// StatusOf returns the HTTP status for err: the *Error's status, or 401 for
// any other non-nil error.
func StatusOf(err error) int {
	if err == nil {
		return http.StatusOK
	}
	var e *Error
	if errors.As(err, &e) && e.Status != 0 {
		return e.Status
	}
	return http.StatusUnauthorized
}

// Challenge builds an RFC 6750 WWW-Authenticate value for err:
//
//	Bearer realm="bridge", error="invalid_token", error_description="…", resource_metadata="…"
//	Bearer realm="bridge", error="insufficient_scope", scope="a b", resource_metadata="…"
//
// A missing-credential error carries no error code (RFC 6750 §3.1). A non-*Error
// err is described as invalid_token. Empty realm and resourceMetadata are
// omitted; resourceMetadata is the RFC 9728 metadata URL MCP clients look for.
func Challenge(realm string, err error, resourceMetadata string) string {
	var b strings.Builder
	b.Grow(96)
	b.WriteString("Bearer")
	sep := " "
	param := func(k, v string) {
		b.WriteString(sep)
		sep = ", "
		b.WriteString(k)
		b.WriteString(`="`)
		writeQuoted(&b, v)
		b.WriteByte('"')
	}
	if realm != "" {
		param("realm", realm)
	}
	var e *Error
	switch {
	case err == nil:
	case errors.As(err, &e):
		if e.Code != "" {
			param("error", e.Code)
			if e.Message != "" {
				param("error_description", e.Message)
			}
		}
		if len(e.Scopes) > 0 {
			param("scope", strings.Join(e.Scopes, " "))
		}
	default:
		param("error", CodeInvalidToken)
	}
	if resourceMetadata != "" {
		param("resource_metadata", resourceMetadata)
	}
	return b.String()
}

// writeQuoted writes s as the body of an RFC 9110 quoted-string, escaping
// quotes and backslashes and dropping control characters.
func writeQuoted(b *strings.Builder, s string) {
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case c == '"' || c == '\\':
			b.WriteByte('\\')
			b.WriteByte(c)
		case c < 0x20 && c != '\t', c == 0x7f:
		default:
			b.WriteByte(c)
		}
	}
}

// SetHeaders writes the WWW-Authenticate challenge for err (and Retry-After
// when the error is a rate limit) into h, and returns the HTTP status to use.
func SetHeaders(h http.Header, realm string, err error, resourceMetadata string) int {
	status := StatusOf(err)
	var e *Error
	if errors.As(err, &e) && e.RetryAfter > 0 {
		secs := int((e.RetryAfter + time.Second - 1) / time.Second)
		h.Set("Retry-After", strconv.Itoa(secs))
	}
	if status == http.StatusUnauthorized || status == http.StatusForbidden {
		h.Set("WWW-Authenticate", Challenge(realm, err, resourceMetadata))
	}
	return status
}
