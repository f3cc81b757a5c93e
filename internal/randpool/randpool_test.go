package randpool

import "testing"

func TestUUIDBytesDifferAcrossBlocks(t *testing.T) {
	seen := map[[16]byte]bool{}
	for range 3*block + 1 {
		b := UUID()
		if seen[b] {
			t.Fatalf("UUID returned %x twice", b)
		}
		seen[b] = true
	}
}

func TestUUIDAllocatesNothing(t *testing.T) {
	if n := testing.AllocsPerRun(100, func() { _ = UUID() }); n != 0 {
		t.Fatalf("UUID: %v allocations per call, want 0", n)
	}
}
