package policy

import (
	"hash/maphash"
	"sync"

	"github.com/a2a-mcp-bridge/bridge/request"
)

// A decision is a pure function of the compiled rules and the hop: rules are
// CEL over principal and hop, and the environment offers no clock, no
// randomness and no I/O. So an engine remembers the decisions it made and
// answers the same hop again without running the rules (a few µs and a
// dozen allocations per decision, several percent of a proxied call).
//
// The principal is part of the key by pointer: a principal is built once
// when its credential is verified and shared, unchanged, by every request
// that credential authenticates (the token cache hands out the same value;
// see auth.TokenCache.Get). A different principal value, even one with
// equal claims, is a different key, so a remembered decision never crosses
// from one caller to another. Every other field of the hop is part of the
// key by value. Only rule and default outcomes are remembered; evaluation
// failures and cancellations are decided afresh each time. A reloaded
// policy is a new Engine with an empty memo.
//
// The memo is bounded: a shard that reaches its share of the capacity is
// emptied, so high-cardinality hops (one task id per request) cost a map
// insert each and never grow memory.

// DefaultDecisionMemo is the default capacity of an engine's decision memo.
const DefaultDecisionMemo = 4096

const memoShards = 16

// memoKey is every input of a decision: the hop itself, so that a field
// added to Hop is part of the key without anyone having to remember it.
type memoKey = request.Hop

type memoShard struct {
	mu sync.RWMutex
	m  map[memoKey]Decision
}

type memo struct {
	seed     maphash.Seed
	perShard int
	shards   [memoShards]memoShard
}

// newMemo returns a memo holding up to about capacity decisions, or nil
// (no memo) when capacity is not positive.
func newMemo(capacity int) *memo {
	if capacity <= 0 {
		return nil
	}
	return &memo{seed: maphash.MakeSeed(), perShard: max(capacity/memoShards, 1)}
}

func (m *memo) shard(k *memoKey) *memoShard {
	return &m.shards[maphash.Comparable(m.seed, *k)%memoShards]
}

func (m *memo) get(k *memoKey) (Decision, bool) {
	s := m.shard(k)
	s.mu.RLock()
	d, ok := s.m[*k]
	s.mu.RUnlock()
	return d, ok
}

func (m *memo) put(k *memoKey, d Decision) {
	s := m.shard(k)
	s.mu.Lock()
	if s.m == nil || len(s.m) >= m.perShard {
		s.m = make(map[memoKey]Decision, min(m.perShard, 64))
	}
	s.m[*k] = d
	s.mu.Unlock()
}

// len counts the remembered decisions (for tests).
func (m *memo) len() int {
	n := 0
	for i := range m.shards {
		s := &m.shards[i]
		s.mu.RLock()
		n += len(s.m)
		s.mu.RUnlock()
	}
	return n
}

// remembered reports whether a decision's code may be reused.
func remembered(c Code) bool {
	switch c {
	case CodeAllowRule, CodeDenyRule, CodeDefaultAllow, CodeDefaultDeny:
		return true
	}
	return false
}
