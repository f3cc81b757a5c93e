package taskmanager

import (
	"sync"
	"time"

	"github.com/google/uuid"

	"github.com/a2a-mcp-bridge/bridge/internal/randpool"
)

// NewID returns the id of a new task or context: a version 7 UUID, whose
// leading 48 bits are the Unix time in milliseconds, then (after the
// version) 12 bits of sub-millisecond time, moved on by one when the clock
// has not advanced so that ids made in the same millisecond stay in order,
// then (after the variant) 62 random bits: google/uuid's NewV7 layout.
//
// Ids made one after another sort one after another, so a store's index on
// them grows at its right edge: an insert dirties the same few pages as the
// one before it instead of a random page of the whole index (SQLite writes
// each dirtied page to its WAL and back at checkpoint; PostgreSQL's B-trees
// likewise). The time an id reveals is its task's creation time, which the
// task's owner, the only caller who can read the task, is shown anyway; a
// task is found by its owner and id, never by the id alone, so the 62
// random bits are uniqueness, not access control.
//
// The random bytes come from internal/randpool, the time from idGen under
// its lock: one allocation per id (the string) where uuid.NewV7 makes two.
// The allocation profile of bridge serve under load showed the two ids of
// each new task at four allocations.
func NewID() string {
	b := randpool.UUID()
	idGen.mu.Lock()
	milli, seq := idGen.v7TimeLocked(time.Now())
	idGen.mu.Unlock()
	b[0] = byte(milli >> 40)
	b[1] = byte(milli >> 32)
	b[2] = byte(milli >> 24)
	b[3] = byte(milli >> 16)
	b[4] = byte(milli >> 8)
	b[5] = byte(milli)
	b[6] = 0x70 | 0x0f&byte(seq>>8) // version 7, then the sequence's high bits
	b[7] = byte(seq)
	b[8] = b[8]&0x3f | 0x80 // RFC 4122 variant
	return uuid.UUID(b).String()
}

// idGen orders the ids' times.
var idGen idClock

// idClock holds the last time given out: milli<<12 + seq of the last id.
type idClock struct {
	mu   sync.Mutex
	last int64
}

// v7TimeLocked returns the millisecond and the 12-bit sequence of the next
// id: the sub-millisecond time in 256 ns steps, moved past the last id's
// when the clock has not advanced (google/uuid's getV7Time).
func (g *idClock) v7TimeLocked(t time.Time) (milli, seq int64) {
	nano := t.UnixNano()
	milli = nano / 1e6
	seq = (nano - milli*1e6) >> 8
	now := milli<<12 + seq
	if now <= g.last {
		now = g.last + 1
		milli, seq = now>>12, now&0xfff
	}
	g.last = now
	return milli, seq
}
