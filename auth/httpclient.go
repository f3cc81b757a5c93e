package auth

import (
	"net/http"
	"time"

	"github.com/a2a-mcp-bridge/bridge/netguard"
)

// NewHTTPClient returns the default client for discovery, JWKS and token
// endpoints when the caller passes none: netguard's client for operator
// URLs ([netguard.Trusted]) with timeouts everywhere, no proxy from the
// environment, no redirects (refused with a netguard error) and netguard's
// body cap. The gateway passes its own netguard client instead.
func NewHTTPClient() *http.Client {
	return netguard.Trusted(netguard.Config{
		Timeout:               15 * time.Second,
		DialTimeout:           5 * time.Second,
		TLSHandshakeTimeout:   5 * time.Second,
		ResponseHeaderTimeout: 10 * time.Second,
		MaxIdleConnsPerHost:   4,
	})
}
