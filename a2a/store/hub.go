package store

import (
	"sync"
)

// hub fans task change signals out to Watch channels in this process.
// Signals are coalesced: a watcher that has not read the last one gets no
// second one, which is all a reader needs to re-read the log.
type hub struct {
	mu       sync.Mutex
	watchers map[string]map[chan struct{}]struct{}
}

func newHub() *hub {
	return &hub{watchers: map[string]map[chan struct{}]struct{}{}}
}

// watch registers a channel for taskID until stop is called.
func (h *hub) watch(taskID string) (<-chan struct{}, func()) {
	ch := make(chan struct{}, 1)
	h.mu.Lock()
	set := h.watchers[taskID]
	if set == nil {
		set = map[chan struct{}]struct{}{}
		h.watchers[taskID] = set
	}
	set[ch] = struct{}{}
	h.mu.Unlock()
	var once sync.Once
	return ch, func() {
		once.Do(func() {
			h.mu.Lock()
			delete(h.watchers[taskID], ch)
			if len(h.watchers[taskID]) == 0 {
				delete(h.watchers, taskID)
			}
			h.mu.Unlock()
		})
	}
}

// notify wakes every watcher of taskID.
func (h *hub) notify(taskID string) {
	h.mu.Lock()
	for ch := range h.watchers[taskID] {
		select {
		case ch <- struct{}{}:
		default:
		}
	}
	h.mu.Unlock()
}

// notifyAll wakes every watcher (after a reconnect, when signals may have
// been lost).
func (h *hub) notifyAll() {
	h.mu.Lock()
	for _, set := range h.watchers {
		for ch := range set {
			select {
			case ch <- struct{}{}:
			default:
			}
		}
	}
	h.mu.Unlock()
}
