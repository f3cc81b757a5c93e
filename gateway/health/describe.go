package health

import (
	"context"
	"crypto/tls"
	"crypto/x509"
	"errors"
	"io"
	"net"
	"regexp"
	"strings"
	"syscall"
	"unicode"

	"github.com/a2a-mcp-bridge/bridge/netguard"
)

// maxDescription caps Describe's text.
const maxDescription = 300

// Describe turns err into text safe to show in /readyz and status pages:
// what kind of failure it was (connection refused, timed out, …), never the
// addresses, URLs and credentials that net/http's and the dialer's errors
// quote. Log the error itself for the detail.
func Describe(err error) string {
	var dnsErr *net.DNSError
	var certErr *tls.CertificateVerificationError
	var unknownAuthority x509.UnknownAuthorityError
	var hostErr x509.HostnameError
	var recordErr tls.RecordHeaderError
	var netErr net.Error
	switch {
	case err == nil:
		return ""
	case errors.Is(err, netguard.ErrBlocked):
		return "refused by netguard: the destination is not allowed"
	case errors.Is(err, syscall.ECONNREFUSED):
		return "connection refused"
	case errors.Is(err, syscall.ECONNRESET), errors.Is(err, syscall.EPIPE), errors.Is(err, io.ErrUnexpectedEOF), errors.Is(err, io.EOF):
		return "connection lost"
	case errors.As(err, &dnsErr):
		return "host name not resolved"
	case errors.As(err, &certErr), errors.As(err, &unknownAuthority), errors.As(err, &hostErr), errors.As(err, &recordErr):
		return "TLS handshake failed"
	case errors.Is(err, context.DeadlineExceeded), errors.As(err, &netErr) && netErr.Timeout():
		return "timed out"
	}
	return Redact(err.Error())
}

var (
	urlPattern  = regexp.MustCompile(`[a-zA-Z][a-zA-Z0-9+.-]*://[^\s"'<>]+`)
	ipv4Pattern = regexp.MustCompile(`\b\d{1,3}(\.\d{1,3}){3}(:\d+)?\b`)
	ipv6Pattern = regexp.MustCompile(`\[[0-9a-fA-F:.%]+\](:\d+)?`)
	hostPort    = regexp.MustCompile(`\b(dial|lookup|read|write) (tcp|udp|tcp4|tcp6|ip)\S* [^\s:]+:\d+`)
)

// Redact drops URLs and network addresses from a message, removes control
// characters and caps its length.
func Redact(s string) string {
	s = urlPattern.ReplaceAllString(s, "<url>")
	s = hostPort.ReplaceAllString(s, "$1 $2 <address>")
	s = ipv6Pattern.ReplaceAllString(s, "<address>")
	s = ipv4Pattern.ReplaceAllString(s, "<address>")
	s = strings.Map(func(r rune) rune {
		if unicode.IsControl(r) {
			return ' '
		}
		return r
	}, s)
	if len(s) > maxDescription {
		s = s[:maxDescription] + "…"
	}
	return s
}
