package observe

import (
	"context"
	"net/http"
	"sync"

	"github.com/google/uuid"

	"github.com/a2a-mcp-bridge/bridge/internal/randpool"
)

// RequestIDHeader carries the request id in (when the caller sets a valid
// one) and out (always).
const RequestIDHeader = "X-Request-Id"

// MaxRequestIDLen bounds an inbound request id.
const MaxRequestIDLen = 128

type ctxKey int

const (
	requestIDKey ctxKey = iota
	slotKey
	valuesKey // a RequestValues: only its own Lookup answers it
)

// ValidRequestID reports whether s may be taken from a caller as a request
// id: 1 to [MaxRequestIDLen] bytes of ASCII letters, digits and ".-_:".
// Anything else (spaces, quotes, control characters, newlines, non-ASCII)
// could forge or break log lines and is refused.
func ValidRequestID(s string) bool {
	if s == "" || len(s) > MaxRequestIDLen {
		return false
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case c >= 'a' && c <= 'z', c >= 'A' && c <= 'Z', c >= '0' && c <= '9',
			c == '-', c == '_', c == '.', c == ':':
		default:
			return false
		}
	}
	return true
}

// NewRequestID mints a request id: a random (version 4) UUID in its
// canonical form, one allocation (the string), its random bytes from
// internal/randpool. A request id is not a secret (it is sent back in every
// answer); it only has to be unique.
func NewRequestID() string {
	b := randpool.UUID()
	b[6] = b[6]&0x0f | 0x40 // version 4
	b[8] = b[8]&0x3f | 0x80 // RFC 4122 variant
	return uuid.UUID(b).String()
}

// WithRequestID returns a context carrying id (for work not started by an
// HTTP request, e.g. a push delivery or a stdio MCP call). An invalid id is
// replaced by a new one.
func WithRequestID(ctx context.Context, id string) context.Context {
	if !ValidRequestID(id) {
		id = NewRequestID()
	}
	return context.WithValue(ctx, requestIDKey, id)
}

// RequestID returns the request id ctx carries, or "".
func RequestID(ctx context.Context) string {
	switch id := ctx.Value(requestIDKey).(type) {
	case string:
		return id
	case *string: // a RequestValues'
		return *id
	}
	return ""
}

// RequestIDMiddleware takes the caller's X-Request-Id when it is valid
// ([ValidRequestID]) and otherwise mints one, echoes it in the response
// header, and puts it in the request's context ([RequestID]).
func RequestIDMiddleware(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		next.ServeHTTP(w, r.WithContext(RequestIDContext(w, r)))
	})
}

// RequestIDContext is what [RequestIDMiddleware] does, for a middleware
// that adds values of its own to the request's context and makes one copy
// of the request for all: the request id taken from r (or made) is set on
// w's header and returned in r's context.
func RequestIDContext(w http.ResponseWriter, r *http.Request) context.Context {
	id := r.Header.Get(RequestIDHeader)
	if !ValidRequestID(id) {
		id = NewRequestID()
	}
	w.Header()[RequestIDHeader] = []string{id} // the name is canonical: Set without canonicalising
	return context.WithValue(r.Context(), requestIDKey, id)
}

// RequestValues holds what [RequestIDContext] and [WithMethodSlot] put in a
// request's context (the request id and the method slot), for a middleware
// that makes a context type of its own: it embeds RequestValues, answers
// [RequestValues.Lookup]'s keys in its Value method and so carries all of a
// request's values in one allocation. The allocation profile of bridge
// serve under load showed the two context.WithValue calls, the boxed id
// string and the slot at five allocations per request; embedded, they are
// none beyond the middleware's own context.
type RequestValues struct {
	id   string
	hdr  [1]string // the response header's value
	slot methodSlot
	// metered is the request's meteredRequest for the first Metrics
	// middleware it passes (meteredUsed), who owns it from then on.
	metered     meteredRequest
	meteredUsed bool
}

// Init takes the request id from r (or makes one) as [RequestIDContext]
// does and echoes it on w's header.
func (v *RequestValues) Init(w http.ResponseWriter, r *http.Request) {
	id := r.Header.Get(RequestIDHeader)
	if !ValidRequestID(id) {
		id = NewRequestID()
	}
	v.id = id
	v.hdr[0] = id
	w.Header()[RequestIDHeader] = v.hdr[:1:1] // the name is canonical: Set without canonicalising
}

// Lookup returns the value of key when it is one of v's, for the Value
// method of the context that embeds v.
func (v *RequestValues) Lookup(key any) (any, bool) {
	switch key {
	case requestIDKey:
		return &v.id, true // a pointer: a boxed string would allocate per lookup
	case slotKey:
		return &v.slot, true
	case valuesKey:
		return v, true
	}
	return nil, false
}

// methodSlot is where a face records the protocol method of the request it
// is serving, once it has parsed it, for the metrics middleware and the
// server span.
type methodSlot struct {
	mu     sync.Mutex
	method string
	onSet  []func(string)
}

// SetMethod records the protocol method (e.g. "SendMessage", "tools/call")
// of the request ctx belongs to. The metrics middleware labels the request
// with it and the tracing middleware names the server span after it. It is
// a no-op outside those middlewares. Call it from the a2a Guard hook or an
// MCP hook; the value is bounded before it becomes a label.
func SetMethod(ctx context.Context, method string) {
	s, _ := ctx.Value(slotKey).(*methodSlot)
	if s == nil {
		return
	}
	s.mu.Lock()
	s.method = method
	fns := s.onSet
	s.mu.Unlock()
	for _, fn := range fns {
		fn(method)
	}
}

// WithMethodSlot returns ctx with the slot [SetMethod] writes to, for a
// middleware in front of [Metrics.Middleware] and [TraceMiddleware] that
// copies the request once for all its context values: those two then find
// the slot and make no copy of the request of their own.
func WithMethodSlot(ctx context.Context) context.Context {
	ctx, _ = slotFor(ctx)
	return ctx
}

// slotFor returns the request's method slot, adding one to ctx if absent.
func slotFor(ctx context.Context) (context.Context, *methodSlot) {
	if s, _ := ctx.Value(slotKey).(*methodSlot); s != nil {
		return ctx, s
	}
	s := &methodSlot{}
	return context.WithValue(ctx, slotKey, s), s
}

func (s *methodSlot) get() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.method
}

func (s *methodSlot) watch(fn func(string)) {
	s.mu.Lock()
	s.onSet = append(s.onSet, fn)
	s.mu.Unlock()
}
