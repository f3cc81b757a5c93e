package netguard

import (
	"errors"
	"io"
	"strconv"
)

// ErrBodyTooLarge matches (errors.Is) a response body longer than the
// configured cap.
var ErrBodyTooLarge = errors.New("netguard: response body too large")

// BodyTooLargeError reports a response body longer than Limit bytes. It
// matches [ErrBodyTooLarge].
type BodyTooLargeError struct {
	// Limit is the cap in bytes.
	Limit int64
}

// Error reads "netguard: response body exceeds the N-byte limit".
func (e *BodyTooLargeError) Error() string {
	return "netguard: response body exceeds the " + strconv.FormatInt(e.Limit, 10) + "-byte limit"
}

// Is reports whether target is [ErrBodyTooLarge].
func (e *BodyTooLargeError) Is(target error) bool { return target == ErrBodyTooLarge }

// cappedBody returns at most limit bytes and then, if the body goes on, an
// error instead of io.EOF: a body cut at the cap is never mistaken for a
// complete one.
type cappedBody struct {
	rc    io.ReadCloser
	left  int64
	limit int64
	err   error
}

func (b *cappedBody) Read(p []byte) (int, error) {
	if b.err != nil {
		return 0, b.err
	}
	if len(p) == 0 {
		return 0, nil
	}
	// Ask for one byte more than is left, to learn whether the body goes on.
	if int64(len(p)) > b.left+1 {
		p = p[:b.left+1]
	}
	n, err := b.rc.Read(p)
	if int64(n) > b.left {
		n = int(b.left)
		b.left = 0
		b.err = &BodyTooLargeError{Limit: b.limit}
		return n, b.err
	}
	b.left -= int64(n)
	return n, err
}

func (b *cappedBody) Close() error { return b.rc.Close() }
