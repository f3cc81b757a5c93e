package taskmanager

import (
	"sync"
	"testing"

	"github.com/google/uuid"
)

func TestNewID_Version7InOrder(t *testing.T) {
	prev := ""
	for i := 0; i < 5000; i++ {
		s := NewID()
		id, err := uuid.Parse(s)
		if err != nil {
			t.Fatalf("NewID() = %q: %v", s, err)
		}
		if id.Version() != 7 || id.Variant() != uuid.RFC4122 {
			t.Fatalf("NewID() = %q: version %d variant %v, want 7 RFC4122", s, id.Version(), id.Variant())
		}
		if s <= prev {
			t.Fatalf("NewID() = %q after %q: not in order", s, prev)
		}
		prev = s
	}
}

func TestNewID_UniqueAcrossGoroutines(t *testing.T) {
	var mu sync.Mutex
	seen := map[string]bool{}
	var wg sync.WaitGroup
	for g := 0; g < 8; g++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := 0; i < 500; i++ {
				s := NewID()
				mu.Lock()
				if seen[s] {
					t.Errorf("NewID() = %q twice", s)
				}
				seen[s] = true
				mu.Unlock()
			}
		}()
	}
	wg.Wait()
}

func TestNewID_OneAllocation(t *testing.T) {
	if n := testing.AllocsPerRun(100, func() { _ = NewID() }); n > 1 {
		t.Errorf("NewID allocates %v times, want 1 (the string)", n)
	}
}
