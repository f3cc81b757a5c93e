package publish

import "sync"

// workers runs the upstream calls of one Agent on goroutines that stay for
// the next call while other calls are in flight, so that the next call
// finds a goroutine whose stack has already grown.
//
// Measured reason: CPU profile of BenchmarkSendMessageThroughAgentHTTP
// (mcp/publish, streamable HTTP, 2026-12-04): runtime.newstack/copystack
// (2% of the CPU in process; about 29 µs per call in the profile of
// `bridge serve` under the publish load) sat almost all under the goroutine
// start launched per call, whose connector.CallTool (encoding, the HTTP
// round trip) grew a fresh 8 KiB stack two or three times per call. A kept
// goroutine pays that at most once per garbage collection (the collector
// halves the stack of a waiting goroutine that uses little of it). The call
// itself is unchanged: the same function, context, timeout and relays, on
// a goroutine other than the Execute that started it, as before.
//
// No timer: a goroutine waits for the next call only while another call of
// the Agent is running, and every waiting one ends when the last running
// call ends, so an Agent with no call in flight holds no goroutine (tests
// run Agents in synctest bubbles, which must empty when they end). Each
// Agent has its own workers, so that a call runs on a goroutine one of the
// Agent's own calls started (a goroutine belongs to the bubble of the one
// that started it).
type workers struct {
	// idle hands a call to a waiting goroutine (unbuffered: a send
	// succeeds only when one waits).
	idle chan func()

	mu    sync.Mutex
	busy  int           // calls handed out and not finished
	quiet chan struct{} // closed, and replaced, when busy drops to zero
}

func newWorkers() *workers {
	return &workers{idle: make(chan func()), quiet: make(chan struct{})}
}

// run runs f on a waiting goroutine, or on a new one when none waits.
func (w *workers) run(f func()) {
	w.mu.Lock()
	w.busy++
	w.mu.Unlock()
	select {
	case w.idle <- f:
	default:
		go w.loop(f)
	}
}

// loop runs f, then each call handed to it, until no call is in flight.
func (w *workers) loop(f func()) {
	for {
		f()
		w.mu.Lock()
		w.busy--
		if w.busy == 0 {
			close(w.quiet)
			w.quiet = make(chan struct{})
			w.mu.Unlock()
			return
		}
		quiet := w.quiet
		w.mu.Unlock()
		select {
		case f = <-w.idle:
		case <-quiet:
			return
		}
	}
}
