package push

import (
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/a2a-mcp-bridge/bridge/a2a"
)

// FuzzParseRetryAfter checks that any Retry-After value parses without
// panicking to a wait that is never negative.
func FuzzParseRetryAfter(f *testing.F) {
	for _, s := range []string{"", "0", "120", " 7 ", "-1", "1e3", "Wed, 21 Oct 2015 07:28:00 GMT", "99999999999999999999", "\x00"} {
		f.Add(s)
	}
	now := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	f.Fuzz(func(t *testing.T, v string) {
		if d := parseRetryAfter(v, now); d < 0 {
			t.Fatalf("parseRetryAfter(%q) = %s", v, d)
		}
	})
}

// FuzzValidateConfig checks that whatever ValidateConfig accepts becomes
// header values net/http sends as they are: no CR, LF or NUL, so no header
// injection, and that its errors do not quote the refused values.
func FuzzValidateConfig(f *testing.F) {
	f.Add("Bearer", "abc", "tok")
	f.Add("Bearer", "abc\r\nX-Injected: 1", "")
	f.Add("", "creds", "t\n")
	f.Add("Basic", "dXNlcjpwYXNz", "\x7f")
	f.Fuzz(func(t *testing.T, scheme, creds, token string) {
		cfg := a2a.TaskPushNotificationConfig{TaskID: "t", Token: token, Authentication: &a2a.AuthenticationInfo{Scheme: scheme, Credentials: creds}}
		if err := ValidateConfig(&cfg); err != nil {
			// One line per problem, at most four problems: a quoted LF
			// would add a line.
			if msg := err.Error(); strings.ContainsAny(msg, "\r\x00") || strings.Count(msg, "\n") > 3 {
				t.Fatalf("error %q quotes a refused value", err)
			}
			return
		}
		h := http.Header{}
		c := Config{}.withDefaults()
		setHeaders(h, &c, &cfg, 1)
		for k, vs := range h {
			for _, v := range vs {
				if strings.ContainsAny(v, "\r\n\x00") {
					t.Fatalf("header %s = %q after ValidateConfig accepted it", k, v)
				}
			}
		}
	})
}
