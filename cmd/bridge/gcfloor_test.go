package main

import (
	"runtime"
	"runtime/debug"
	"runtime/metrics"
	"testing"
)

func TestGCPercentFor(t *testing.T) {
	const mib = 1 << 20
	for _, c := range []struct {
		live, min  uint64
		base, want int
	}{
		{live: 8 * mib, min: 64 * mib, base: 100, want: 700},  // next collection at 64 MiB
		{live: 32 * mib, min: 64 * mib, base: 100, want: 100}, // doubling reaches the floor anyway
		{live: 48 * mib, min: 64 * mib, base: 100, want: 100},
		{live: 128 * mib, min: 64 * mib, base: 100, want: 100}, // above the floor: the runtime's pacing
		{live: 8 * mib, min: 64 * mib, base: 1000, want: 1000}, // never below what was found
		{live: 1024, min: 64 * mib, base: 100, want: maxGCPercent},
		{live: 0, min: 64 * mib, base: 100, want: 100},
	} {
		if got := gcPercentFor(c.live, c.min, c.base); got != c.want {
			t.Errorf("gcPercentFor(%d, %d, %d) = %d, want %d", c.live, c.min, c.base, got, c.want)
		}
	}
}

func TestGCFloorSetsThePercentAndPutsItBack(t *testing.T) {
	t.Setenv("GOGC", "") // unset for the test: the floor applies
	before := debug.SetGCPercent(100)
	defer debug.SetGCPercent(before)
	stop := startGCFloor(1 << 40) // far above any live heap here
	runtime.GC()
	if p := gogc(); p != maxGCPercent {
		t.Errorf("percent with a floor far above the live heap = %d, want %d", p, maxGCPercent)
	}
	stop()
	if p := gogc(); p != 100 {
		t.Errorf("percent after stop = %d, want the 100 found", p)
	}
}

func TestGCFloorLeavesGOGCAlone(t *testing.T) {
	t.Setenv("GOGC", "100")
	before := debug.SetGCPercent(100)
	defer debug.SetGCPercent(before)
	stop := startGCFloor(1 << 40)
	defer stop()
	if p := gogc(); p != 100 {
		t.Errorf("percent with GOGC set = %d, want 100", p)
	}
}

func gogc() int {
	s := []metrics.Sample{{Name: "/gc/gogc:percent"}}
	metrics.Read(s)
	return int(s[0].Value.Uint64())
}
