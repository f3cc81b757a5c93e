package main

import (
	"os"
	"runtime"
	"runtime/debug"
	"runtime/metrics"
	"sync/atomic"
)

// maxGCPercent bounds the percent the floor sets (a live heap of a few
// hundred KiB would otherwise ask for tens of thousands).
const maxGCPercent = 10000

// startGCFloor is server.gc_min_heap: after every collection it sets the
// collector's percent (GOGC) so that the next collection comes when the
// heap reaches min bytes, or has doubled since the live heap if that is
// more (GOGC=100, the runtime's default, for a live heap of min/2 and
// above). With GOGC set in the environment, or min 0, it does nothing.
// stop puts back the percent it found.
func startGCFloor(min int64) (stop func()) {
	if min <= 0 || os.Getenv("GOGC") != "" {
		return func() {}
	}
	f := &gcFloor{min: uint64(min), base: debug.SetGCPercent(100)}
	debug.SetGCPercent(f.base)
	f.sample = []metrics.Sample{{Name: "/gc/heap/live:bytes"}}
	f.adjust()
	f.arm()
	return func() {
		f.stopped.Store(true)
		debug.SetGCPercent(f.base)
	}
}

type gcFloor struct {
	min     uint64
	base    int // the percent found (100 unless set otherwise)
	set     int // the percent last set
	sample  []metrics.Sample
	stopped atomic.Bool
}

// sentinel is an object made only to be collected: its finalizer runs
// once per collection that finds it unreachable. It holds a pointer so
// that the runtime's tiny allocator, whose objects share a block and are
// finalized late or never, does not take it.
type sentinel struct {
	_ *byte
	_ [48]byte
}

// arm leaves a sentinel for the next collection.
func (f *gcFloor) arm() {
	runtime.SetFinalizer(&sentinel{}, func(*sentinel) {
		if f.stopped.Load() {
			return
		}
		f.adjust()
		f.arm()
	})
}

// adjust sets the percent for the live heap the last collection found. It
// runs on the finalizer goroutine, one at a time.
func (f *gcFloor) adjust() {
	metrics.Read(f.sample)
	if f.sample[0].Value.Kind() != metrics.KindUint64 {
		return
	}
	p := gcPercentFor(f.sample[0].Value.Uint64(), f.min, f.base)
	if p != f.set {
		f.set = p
		debug.SetGCPercent(p)
	}
}

// gcPercentFor is the percent that puts the next collection at min bytes of
// heap for a live heap of live bytes, never below base.
func gcPercentFor(live, min uint64, base int) int {
	if live == 0 || live >= min {
		return base
	}
	p := (min - live) * 100 / live
	if p > maxGCPercent {
		p = maxGCPercent
	}
	if int(p) < base {
		return base
	}
	return int(p)
}
