package ratelimit

import (
	"fmt"
	"strconv"
	"strings"
	"time"
)

// MaxRateLimit is the largest request count a Rate may allow per period. It
// keeps counters and header values far from integer overflow.
const MaxRateLimit = 1_000_000_000

// Rate is a fixed-window quota: at most Limit requests per Period.
type Rate struct {
	// Limit is the number of requests allowed in one window (1..MaxRateLimit).
	Limit int64
	// Period is the window length: one second, minute, hour or day.
	Period time.Duration
}

var rateUnits = [...]struct {
	unit   string
	period time.Duration
}{
	{"s", time.Second},
	{"m", time.Minute},
	{"h", time.Hour},
	{"d", 24 * time.Hour},
}

// ParseRate parses "N/U": N is a positive decimal integer without sign or
// leading zeros (at most MaxRateLimit) and U is one of s, m, h, d (second,
// minute, hour, day). Examples: "60/m", "10/s", "1000/h". Nothing else is
// accepted: no spaces, no upper case, no other separators.
func ParseRate(s string) (Rate, error) {
	num, unit, ok := strings.Cut(s, "/")
	if !ok {
		return Rate{}, fmt.Errorf("ratelimit: invalid rate %q: want N/U such as 60/m (U is s, m, h or d)", clip(s))
	}
	if num == "" {
		return Rate{}, fmt.Errorf("ratelimit: invalid rate %q: missing request count before '/'", clip(s))
	}
	for i := 0; i < len(num); i++ {
		if num[i] < '0' || num[i] > '9' {
			return Rate{}, fmt.Errorf("ratelimit: invalid rate %q: request count must be a positive decimal integer", clip(s))
		}
	}
	if num[0] == '0' {
		return Rate{}, fmt.Errorf("ratelimit: invalid rate %q: request count must be at least 1, without leading zeros", clip(s))
	}
	n, err := strconv.ParseInt(num, 10, 64)
	if err != nil || n > MaxRateLimit {
		return Rate{}, fmt.Errorf("ratelimit: invalid rate %q: request count must be at most %d", clip(s), MaxRateLimit)
	}
	for _, u := range rateUnits {
		if unit == u.unit {
			return Rate{Limit: n, Period: u.period}, nil
		}
	}
	return Rate{}, fmt.Errorf("ratelimit: invalid rate %q: unit %q is not one of s, m, h, d", clip(s), clip(unit))
}

// MustParseRate is ParseRate for constants; it panics on an invalid rate.
func MustParseRate(s string) Rate {
	r, err := ParseRate(s)
	if err != nil {
		panic(err)
	}
	return r
}

// String formats r as ParseRate accepts it ("60/m"). A Period that is not one
// of the four units is written in seconds ("90/5s" is not parseable and marks
// a Rate built by hand).
func (r Rate) String() string {
	for _, u := range rateUnits {
		if r.Period == u.period {
			return strconv.FormatInt(r.Limit, 10) + "/" + u.unit
		}
	}
	return strconv.FormatInt(r.Limit, 10) + "/" + strconv.FormatFloat(r.Period.Seconds(), 'f', -1, 64) + "s"
}

// valid reports whether r can drive a limiter.
func (r Rate) valid() bool {
	return r.Limit >= 1 && r.Limit <= MaxRateLimit && r.Period >= time.Second
}

// clip shortens attacker- or operator-supplied text quoted in errors.
func clip(s string) string {
	const max = 64
	if len(s) <= max {
		return s
	}
	return s[:max] + "…"
}
