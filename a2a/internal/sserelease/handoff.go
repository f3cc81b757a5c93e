package sserelease

import (
	"context"
	"errors"
)

// Handoff is what the producer of an event stream (the task manager's
// follower) sees of a stream the server may release from net/http: whether
// it has been released, and how to go on in a goroutine of its own once it
// has. The server puts it in the call's context (With); a producer that
// finds none (From returns nil) streams in the handler's goroutine, as
// with any other http.Handler.
type Handoff struct {
	released chan struct{}
	end      func(ctx context.Context, err error)
	next     func()
}

// NewHandoff returns the handoff of one stream; end answers a producer's
// error, if any, and ends the released stream.
func NewHandoff(end func(ctx context.Context, err error)) *Handoff {
	return &Handoff{released: make(chan struct{}), end: end}
}

type handoffKey struct{}

// With returns ctx carrying h.
func With(ctx context.Context, h *Handoff) context.Context {
	return context.WithValue(ctx, handoffKey{}, h)
}

// From returns the handoff of the stream ctx's call streams to, or nil
// when the stream cannot be released.
func From(ctx context.Context) *Handoff {
	h, _ := ctx.Value(handoffKey{}).(*Handoff)
	return h
}

// ErrContinues is what a released stream's call returns when its producer
// goes on in another goroutine (Continue), which ends the stream.
var ErrContinues = errors.New("sserelease: the stream goes on in another goroutine")

// Released is closed when the stream has been released from net/http.
func (h *Handoff) Released() <-chan struct{} { return h.released }

// IsReleased reports whether the stream has been released.
func (h *Handoff) IsReleased() bool {
	select {
	case <-h.released:
		return true
	default:
		return false
	}
}

// MarkReleased records the release; the server calls it once.
func (h *Handoff) MarkReleased() { close(h.released) }

// Continue sets what goes on producing the released stream once the call
// has returned ErrContinues: the server starts next in a fresh goroutine,
// and next must end the stream (End).
func (h *Handoff) Continue(next func()) { h.next = next }

// Next returns what Continue set, or nil.
func (h *Handoff) Next() func() { return h.next }

// End answers err, if any, and ends the released stream.
func (h *Handoff) End(ctx context.Context, err error) { h.end(ctx, err) }
