package client

import (
	"bytes"
	"errors"
	"io"
	"testing"
)

// FuzzSSEReader feeds arbitrary bytes, split into two reads at an arbitrary
// offset, with an arbitrary event cap. The reader must never panic, never
// return an event larger than the cap, and return the same events and end
// as when it reads the whole input at once.
func FuzzSSEReader(f *testing.F) {
	f.Add([]byte("data: {\"task\":{\"id\":\"t\"}}\n\n"), uint16(3), uint16(64))
	f.Add([]byte(": keep-alive\r\n\r\ndata: a\r\ndata: b\r\n\r\n"), uint16(14), uint16(8))
	f.Add([]byte("data: a\r\rdata: b\r\n"), uint16(8), uint16(4))
	f.Add([]byte("id: 1\nevent: x\nretry: 5\ndata\n\n"), uint16(0), uint16(1))
	f.Add([]byte(":"+string(bytes.Repeat([]byte("x"), 300))), uint16(100), uint16(16))
	f.Fuzz(func(t *testing.T, in []byte, split, max uint16) {
		limit := int(max%4096) + 1
		at := int(split) % (len(in) + 1)
		whole, wholeErr := sseCollect(bytes.NewReader(in), limit)
		parts, partsErr := sseCollect(sseSplit(in, at), limit)
		for _, ev := range parts {
			if len(ev) > limit {
				t.Fatalf("event of %d bytes returned with a cap of %d", len(ev), limit)
			}
		}
		if len(whole) != len(parts) {
			t.Fatalf("whole read gave %d events, split at %d gave %d", len(whole), at, len(parts))
		}
		for i := range whole {
			if whole[i] != parts[i] {
				t.Fatalf("event %d: whole %q, split %q", i, whole[i], parts[i])
			}
		}
		if !sameEnd(wholeErr, partsErr) {
			t.Fatalf("whole read ended with %v, split read with %v", wholeErr, partsErr)
		}
	})
}

func sameEnd(a, b error) bool {
	for _, target := range []error{io.EOF, io.ErrUnexpectedEOF, ErrResponseTooLarge} {
		if errors.Is(a, target) || errors.Is(b, target) {
			return errors.Is(a, target) && errors.Is(b, target)
		}
	}
	return a == nil && b == nil
}
