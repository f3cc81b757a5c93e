package auth

import (
	"errors"
	"fmt"
	"net/http"

	"github.com/a2a-mcp-bridge/bridge/netguard"
	"github.com/a2a-mcp-bridge/bridge/request"
)

// ErrAnonymousNotLoopback is returned when anonymous access is asked for on a
// listener that is not loopback-only.
var ErrAnonymousNotLoopback = errors.New("auth: anonymous access requires a loopback listener")

// Anonymous admits callers that present no credentials, as the principal
// "anonymous"@"local". It exists for local development and desktop use.
type Anonymous struct{}

var _ Authenticator = (*Anonymous)(nil)

// NewAnonymous returns the anonymous authenticator for a server listening on
// listenAddr ("127.0.0.1:8080", "[::1]:8080", "localhost:8080"). It refuses a
// listener reachable from other hosts ("0.0.0.0:8080", ":8080", a LAN IP)
// unless unsafeAllowNonLoopback is set, in which case anyone who can reach the
// port is a caller.
func NewAnonymous(listenAddr string, unsafeAllowNonLoopback bool) (*Anonymous, error) {
	if !netguard.IsLoopbackHost(listenAddr) && !unsafeAllowNonLoopback {
		return nil, fmt.Errorf("%w: listen address %q", ErrAnonymousNotLoopback, listenAddr)
	}
	return &Anonymous{}, nil
}

// Authenticate admits a request that carries no Authorization header. A
// request that presents a credential is not anonymous: it yields an error
// matching ErrNoCredentials so that a bad credential is never downgraded.
func (*Anonymous) Authenticate(r *http.Request) (*request.Principal, error) {
	if len(r.Header.Values("Authorization")) > 0 {
		return nil, noCredentials()
	}
	return AnonymousPrincipal(), nil
}

// AnonymousPrincipal returns the one principal of every anonymous caller
// (see Principal: shared, never modified).
func AnonymousPrincipal() *request.Principal { return anonymous }

var anonymous = &request.Principal{Subject: "anonymous", Issuer: "local", Method: "anonymous"}
