package ratelimit

import (
	"net/http"
	"strconv"
	"strings"
	"time"
)

// WriteHeaders sets the rate-limit response headers for r, in the syntax of
// draft-ietf-httpapi-ratelimit-headers-10 (Structured Field lists; the
// parameters are unchanged in -11):
//
//	RateLimit-Policy: "per-principal";q=60;w=60
//	RateLimit: "per-principal";r=12;t=30
//
// q is the quota, w the window in seconds, r the requests remaining and t
// the seconds until the window resets (rounded up). On a refusal it also
// sets Retry-After to the same number of seconds, at least 1. Only the
// deciding rule is described. A Result no rule decided writes nothing. It
// writes no body and no status: the caller answers in its protocol.
func WriteHeaders(w http.ResponseWriter, r Result) {
	setHeaders(w.Header(), r, time.Now())
}

func setHeaders(h http.Header, r Result, now time.Time) {
	t := secondsUntil(r.Reset, now)
	if !r.Allowed {
		t = max(t, 1)
		h.Set("Retry-After", strconv.FormatInt(t, 10))
	}
	if r.Policy == "" {
		return
	}
	h.Set("RateLimit-Policy", r.Policy)
	h.Set("RateLimit", sfString(r.Rule)+";r="+strconv.FormatInt(r.Remaining, 10)+";t="+strconv.FormatInt(t, 10))
}

// secondsUntil is the whole seconds from now to reset, rounded up, never
// negative.
func secondsUntil(reset, now time.Time) int64 {
	d := reset.Sub(now)
	if d <= 0 {
		return 0
	}
	return int64((d + time.Second - 1) / time.Second)
}

// sfString serialises s as an RFC 9651 sf-string: quoted, with '"' and '\'
// escaped; characters outside printable ASCII (which rule names never
// hold) are replaced by '?'.
func sfString(s string) string {
	var b strings.Builder
	b.Grow(len(s) + 2)
	b.WriteByte('"')
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case c == '"' || c == '\\':
			b.WriteByte('\\')
			b.WriteByte(c)
		case c < 0x20 || c > 0x7e:
			b.WriteByte('?')
		default:
			b.WriteByte(c)
		}
	}
	b.WriteByte('"')
	return b.String()
}
