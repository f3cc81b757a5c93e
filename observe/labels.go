package observe

import (
	"sync"
)

// Label values that stand for many: a value that is not safe to export, or
// one past the cap of distinct values a label may take.
const (
	labelOther   = "other"
	labelUnknown = "unknown"
)

// maxLabelLen bounds one label value.
const maxLabelLen = 64

// boundedLabel keeps a label's set of values finite: each value is checked
// ([safeLabel]) and, once max distinct values have been seen, every new
// one is reported as "other". Without it, a caller choosing JSON-RPC method
// names or task states could grow the registry without bound.
type boundedLabel struct {
	mu   sync.RWMutex
	seen map[string]struct{}
	max  int
}

func newBoundedLabel(max int, preset ...string) *boundedLabel {
	b := &boundedLabel{seen: make(map[string]struct{}, max), max: max}
	for _, p := range preset {
		b.seen[p] = struct{}{}
	}
	return b
}

// value returns the label value to export for s.
func (b *boundedLabel) value(s string) string {
	if s == "" {
		return labelUnknown
	}
	if !safeLabel(s) {
		return labelOther
	}
	b.mu.RLock()
	_, ok := b.seen[s]
	b.mu.RUnlock()
	if ok {
		return s
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	if _, ok := b.seen[s]; ok {
		return s
	}
	if len(b.seen) >= b.max {
		return labelOther
	}
	b.seen[s] = struct{}{}
	return s
}

// safeLabel accepts 1 to maxLabelLen bytes of ASCII letters, digits and
// "._-/:".
func safeLabel(s string) bool {
	if s == "" || len(s) > maxLabelLen {
		return false
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case c >= 'a' && c <= 'z', c >= 'A' && c <= 'Z', c >= '0' && c <= '9',
			c == '.', c == '_', c == '-', c == '/', c == ':':
		default:
			return false
		}
	}
	return true
}

// httpMethod bounds the HTTP method to the registered ones.
func httpMethod(m string) string {
	switch m {
	case "GET", "HEAD", "POST", "PUT", "PATCH", "DELETE", "OPTIONS", "CONNECT", "TRACE":
		return m
	}
	return labelOther
}

// statusClass is the outcome label of a status code: "1xx" … "5xx".
func statusClass(code int) string {
	switch {
	case code < 200:
		return "1xx"
	case code < 300:
		return "2xx"
	case code < 400:
		return "3xx"
	case code < 500:
		return "4xx"
	}
	return "5xx"
}
