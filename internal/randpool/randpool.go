// Package randpool hands out the random bytes of UUIDs from crypto/rand,
// read in blocks: one read per 32 ids instead of one per id, and nothing
// allocated (the caller's array stays on its stack, where google/uuid's
// readers make it escape). The allocation profile of bridge serve under load
// showed uuid.NewString and uuid.NewV7 at two allocations and one
// crypto/rand read per id; uuid.EnableRandPool would pool every version 4 id
// of the process instead. The task ids (taskmanager.NewID) and the request
// ids (observe.NewRequestID) draw from it.
package randpool

import (
	"crypto/rand"
	"sync"
)

// block is how many ids one crypto/rand read serves.
const block = 32

var pool = struct {
	mu  sync.Mutex
	buf [16 * block]byte
	// next is the offset of the first unused byte (len(buf): none left).
	next int
}{next: 16 * block}

// UUID returns 16 random bytes, to be stamped with a UUID's version and
// variant by the caller.
func UUID() (b [16]byte) {
	pool.mu.Lock()
	defer pool.mu.Unlock()
	if pool.next == len(pool.buf) {
		if _, err := rand.Read(pool.buf[:]); err != nil {
			panic("randpool: crypto/rand: " + err.Error()) // crypto/rand.Read does not fail on supported systems
		}
		pool.next = 0
	}
	copy(b[:], pool.buf[pool.next:])
	pool.next += len(b)
	return b
}
