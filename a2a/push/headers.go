package push

import (
	"errors"
	"fmt"
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/a2a-mcp-bridge/bridge/a2a"
)

// Header names set on every delivery.
const (
	// HeaderNotificationID carries "<taskId>:<seq>", stable across retries
	// and restarts, for receivers to drop duplicates.
	HeaderNotificationID = "A2A-Notification-Id"
	// HeaderToken carries the config's token.
	HeaderToken = "A2A-Notification-Token"
	// HeaderLegacyToken carries the token again for A2A 0.3-era receivers.
	HeaderLegacyToken = "X-A2A-Notification-Token"
)

// MaxHeaderValue is the longest token, scheme or credentials accepted, in
// bytes.
const MaxHeaderValue = 4096

// ErrInvalidConfig matches (errors.Is) every refusal of [ValidateConfig]:
// a config whose headers could not be sent safely.
var ErrInvalidConfig = errors.New("push: invalid push notification config")

// configError is a refusal of a config's header values. It names the field,
// never the value.
type configError struct {
	field string
	err   error
}

func (e *configError) Error() string        { return "push: " + e.field + ": " + e.err.Error() }
func (e *configError) Unwrap() error        { return e.err }
func (e *configError) Is(target error) bool { return target == ErrInvalidConfig }

// ValidateConfig checks the parts of a push config that become request
// headers: the authentication scheme must be an HTTP token, and the
// credentials and the token must be at most [MaxHeaderValue] bytes without
// CR, LF, NUL or other control characters (which would inject headers). A
// config with credentials must name a scheme. It does not check the URL;
// use the netguard guard for that. Errors match [ErrInvalidConfig] and
// never quote the values.
func ValidateConfig(cfg *a2a.TaskPushNotificationConfig) error {
	if cfg == nil {
		return &configError{field: "config", err: errors.New("missing")}
	}
	var errs []error
	if err := checkHeaderValue(cfg.Token); err != nil {
		errs = append(errs, &configError{field: "token", err: err})
	}
	if a := cfg.Authentication; a != nil {
		switch {
		case a.Scheme == "" && a.Credentials != "":
			errs = append(errs, &configError{field: "authentication.scheme", err: errors.New("missing while credentials are set")})
		case a.Scheme != "":
			if err := checkToken(a.Scheme); err != nil {
				errs = append(errs, &configError{field: "authentication.scheme", err: err})
			}
		}
		if err := checkHeaderValue(a.Credentials); err != nil {
			errs = append(errs, &configError{field: "authentication.credentials", err: err})
		}
	}
	return errors.Join(errs...)
}

// checkHeaderValue accepts what RFC 9110 allows in a field value: visible
// characters, spaces and tabs, and bytes from 0x80 up.
func checkHeaderValue(v string) error {
	if len(v) > MaxHeaderValue {
		return fmt.Errorf("longer than %d bytes", MaxHeaderValue)
	}
	for i := 0; i < len(v); i++ {
		if c := v[i]; c < 0x20 && c != '\t' || c == 0x7f {
			return errors.New("contains a control character (CR, LF, NUL or other)")
		}
	}
	return nil
}

// checkToken accepts an RFC 9110 token (an auth scheme such as "Bearer").
func checkToken(v string) error {
	if len(v) > MaxHeaderValue {
		return fmt.Errorf("longer than %d bytes", MaxHeaderValue)
	}
	for i := 0; i < len(v); i++ {
		c := v[i]
		if c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || strings.IndexByte("!#$%&'*+-.^_`|~", c) >= 0 {
			continue
		}
		return errors.New("must be an HTTP token (letters, digits, !#$%&'*+-.^_`|~)")
	}
	return nil
}

// setHeaders writes the delivery headers for event seq of cfg.
func setHeaders(h http.Header, c *Config, cfg *a2a.TaskPushNotificationConfig, seq int64) {
	h.Set("Content-Type", c.ContentType)
	h.Set("User-Agent", c.UserAgent)
	h.Set(HeaderNotificationID, cfg.TaskID+":"+strconv.FormatInt(seq, 10))
	if a := cfg.Authentication; a != nil && a.Scheme != "" {
		v := a.Scheme
		if a.Credentials != "" {
			v += " " + a.Credentials
		}
		h.Set("Authorization", v)
	}
	if cfg.Token != "" {
		h.Set(HeaderToken, cfg.Token)
		h.Set(HeaderLegacyToken, cfg.Token)
	}
}

// parseRetryAfter reads a Retry-After value, delay-seconds or an HTTP date,
// relative to now. It returns 0 for a missing, malformed or past value.
func parseRetryAfter(v string, now time.Time) time.Duration {
	v = strings.TrimSpace(v)
	if v == "" {
		return 0
	}
	if v[0] >= '0' && v[0] <= '9' {
		n, err := strconv.ParseUint(v, 10, 32)
		if err != nil {
			return 0
		}
		return time.Duration(n) * time.Second
	}
	t, err := http.ParseTime(v)
	if err != nil {
		return 0
	}
	if d := t.Sub(now); d > 0 {
		return d
	}
	return 0
}
