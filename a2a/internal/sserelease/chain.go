package sserelease

import "net/http"

// Observer is a ResponseWriter wrapper that is told when its stream is
// released (a2a/server's StreamReleaseObserver states the contract).
type Observer interface {
	StreamReleased(write func(b []byte) error) (end func())
}

// Chain is the writers between a stream and its connection.
type Chain struct {
	Observers []Observer    // the wrappers, in Unwrap order
	Inner     http.Hijacker // the writer at the end (net/http's)
}

// ChainOf walks w's Unwrap chain: ok when every wrapper is an Observer
// and the writer at the end can be taken over.
func ChainOf(w http.ResponseWriter) (chain Chain, ok bool) {
	for {
		u, wrapped := w.(interface{ Unwrap() http.ResponseWriter })
		if !wrapped {
			chain.Inner, ok = w.(http.Hijacker)
			return chain, ok
		}
		o, ok := w.(Observer)
		if !ok {
			return Chain{}, false
		}
		chain.Observers = append(chain.Observers, o)
		if w = u.Unwrap(); w == nil {
			return Chain{}, false
		}
	}
}

// RequestConsumed reports whether nothing of r is left to read on its
// connection, so that the connection can serve another request once r's
// stream ends: r has no body, or the server read all of the body it
// declared (bodyRead bytes, to the end). A body that was not read (a GET
// subscription may carry one), or that a middleware cut short by putting
// another reader in its place, or one of no declared length (chunked,
// where that cannot be told), leaves bytes that must never be taken for a
// request. (net/http's own answer to a large unread body, closing the
// connection, is not visible from a handler.)
func RequestConsumed(r *http.Request, bodyRead int64) bool {
	if r.Body == nil || r.Body == http.NoBody {
		return true
	}
	return r.ContentLength > 0 && bodyRead == r.ContentLength
}
