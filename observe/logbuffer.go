package observe

import (
	"io"
	"sync"
	"time"
)

// logBufferSize is how many bytes of lines a [LogBuffer] holds before a
// Write passes them on at once, whatever the timer says.
const logBufferSize = 64 << 10

// LogBuffer is an io.Writer for log lines that passes them on to the
// writer it wraps in batches: a line is copied into a buffer and written
// with the others at most interval later, at once when the buffer holds
// 64 KiB, and at [LogBuffer.Flush] and [LogBuffer.Close]. Under load that is
// one write(2) for hundreds of access and audit lines instead of one each.
//
// No line is dropped: Write never discards what it is given, and a Write
// that fills the buffer waits for the write that empties it. The
// trade-off is what an abrupt end of the process (SIGKILL, a fatal runtime
// error) takes with it: the lines of the last interval not yet written.
// [Logger] flushes at once after every record at warn level or above, so a
// warning or an error is on its way out when the call that logged it
// returns. Lines reach the wrapped writer in the order they were written.
//
// A zero interval makes it a pass-through: every Write goes straight to the
// wrapped writer.
type LogBuffer struct {
	w        io.Writer
	interval time.Duration

	// outMu orders the writes to w: it is taken before mu by whoever
	// passes a batch on, and held while it is written.
	outMu sync.Mutex
	mu    sync.Mutex
	buf   []byte
	// spare is the other buffer: buf is swapped with it under mu, so that
	// Writes go on filling one while the other is being written.
	spare  []byte
	timer  *time.Timer
	armed  bool
	closed bool
	// err is a write's error the timer met, for the next Flush to return.
	err error
}

// NewLogBuffer wraps w; interval bounds how long a line waits (0: not at
// all, every Write is passed through).
func NewLogBuffer(w io.Writer, interval time.Duration) *LogBuffer {
	b := &LogBuffer{w: w, interval: interval}
	if interval > 0 {
		b.timer = time.AfterFunc(time.Hour, func() { _ = b.flush(true) })
		b.timer.Stop()
	}
	return b
}

// Write implements io.Writer: p (one or more whole lines) is copied into
// the buffer, or written through when the buffer is off or closed.
func (b *LogBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	if b.interval <= 0 || b.closed {
		b.mu.Unlock()
		b.outMu.Lock()
		defer b.outMu.Unlock()
		return b.w.Write(p)
	}
	b.buf = append(b.buf, p...)
	full := len(b.buf) >= logBufferSize
	if !full && !b.armed {
		b.armed = true
		b.timer.Reset(b.interval)
	}
	b.mu.Unlock()
	if full {
		if err := b.flush(false); err != nil {
			return len(p), err
		}
	}
	return len(p), nil
}

// Flush writes what the buffer holds and returns the first error writing
// it since the last Flush.
func (b *LogBuffer) Flush() error {
	return b.flush(false)
}

// flush passes the buffer on; byTimer says the timer fired.
func (b *LogBuffer) flush(byTimer bool) error {
	b.outMu.Lock()
	defer b.outMu.Unlock()
	b.mu.Lock()
	if byTimer {
		b.armed = false
	}
	out := b.buf
	b.buf = b.spare[:0]
	b.mu.Unlock()
	var err error
	if len(out) > 0 {
		_, err = b.w.Write(out)
	}
	b.mu.Lock()
	if cap(out) <= 4*logBufferSize { // keep it unless a burst grew it far
		b.spare = out[:0]
	}
	if byTimer {
		// Nobody to tell now: the next Flush or full Write returns it.
		if b.err == nil {
			b.err = err
		}
		err = nil
	} else if err == nil {
		err, b.err = b.err, nil
	}
	b.mu.Unlock()
	return err
}

// Close flushes the buffer and makes every later Write a pass-through (a
// line logged during shutdown, after Close, is still written).
func (b *LogBuffer) Close() error {
	b.mu.Lock()
	b.closed = true
	if b.timer != nil {
		b.timer.Stop()
	}
	b.mu.Unlock()
	return b.flush(false)
}
