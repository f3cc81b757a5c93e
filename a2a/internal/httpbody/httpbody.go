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
