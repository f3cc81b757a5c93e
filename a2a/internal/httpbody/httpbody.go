// Package httpbody reads HTTP bodies for the A2A client and server: one
// buffer sized from the declared length. It imports nothing of the bridge.
package httpbody

import "io"

// ReadAll reads r to the end like io.ReadAll, in one buffer sized
// from the declared length when there is one (no regrowth and copying for
// the usual small body). A declared length is only a hint: the read stops
// at the end of r either way, and a length above limit (or above 1 MiB) is
// not trusted for the allocation. The caller still caps r itself.
func ReadAll(r io.Reader, declared, limit int64) ([]byte, error) {
	if declared <= 0 || declared > limit || declared > 1<<20 {
		return io.ReadAll(r)
	}
	// One spare byte, so that reading the end needs no regrowth.
	b := make([]byte, 0, declared+1)
	for {
		if len(b) == cap(b) {
			b = append(b, 0)[:len(b)] // the body is longer than declared
		}
		n, err := r.Read(b[len(b):cap(b)])
		b = b[:len(b)+n]
		if err == io.EOF {
			return b, nil
		}
		if err != nil {
			return b, err
		}
	}
}

// ReadAtMost is ReadAll(io.LimitReader(r, limit+1), declared, limit): it
// reads r to the end or to limit+1 bytes, whichever comes first (a result
// longer than limit tells the caller the body is too large), without the
// LimitReader's allocation, which the allocation profile of bridge serve
// showed on every relayed call's answer.
func ReadAtMost(r io.Reader, declared, limit int64) ([]byte, error) {
	if declared <= 0 || declared > limit || declared > 1<<20 {
		return io.ReadAll(io.LimitReader(r, limit+1))
	}
	b := make([]byte, 0, declared+1)
	for {
		if int64(len(b)) > limit {
			return b, nil // limit+1 bytes: as a LimitReader's end
		}
		if len(b) == cap(b) {
			b = append(b, 0)[:len(b)] // the body is longer than declared
		}
		room := b[len(b):cap(b)]
		if left := limit + 1 - int64(len(b)); int64(len(room)) > left {
			room = room[:left]
		}
		n, err := r.Read(room)
		b = b[:len(b)+n]
		if err == io.EOF {
			return b, nil
		}
		if err != nil {
			return b, err
		}
	}
}
