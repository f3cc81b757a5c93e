package elicitation

import (
	"context"
	"sync"

	"github.com/mark3labs/mcp-go/server"
)

// Turns lets one question at a time out to each host session: hosts show
// one elicitation dialog at a time, and a question sent while another is
// open may be dropped or refused by the host, which the user never saw. A
// later question waits its turn (bounded by its call's context) and is
// never declined on the user's behalf.
type Turns struct {
	mu    sync.Mutex
	turns map[string]*turn
}

type turn struct {
	ch    chan struct{} // holds a token while a question is out
	users int
}

// NewTurns returns an empty queue.
func NewTurns() *Turns { return &Turns{turns: map[string]*turn{}} }

// Acquire waits for the session's turn; release gives it back. Without a
// session (no id) there is nothing to queue on.
func (q *Turns) Acquire(ctx context.Context, cs server.ClientSession) (release func(), err error) {
	if cs == nil || cs.SessionID() == "" {
		return func() {}, nil
	}
	id := cs.SessionID()
	q.mu.Lock()
	tn := q.turns[id]
	if tn == nil {
		tn = &turn{ch: make(chan struct{}, 1)}
		q.turns[id] = tn
	}
	tn.users++
	q.mu.Unlock()
	done := func() {
		q.mu.Lock()
		if tn.users--; tn.users == 0 {
			delete(q.turns, id)
		}
		q.mu.Unlock()
	}
	select {
	case tn.ch <- struct{}{}:
		return func() { <-tn.ch; done() }, nil
	case <-ctx.Done():
		done()
		return nil, ctx.Err()
	}
}
