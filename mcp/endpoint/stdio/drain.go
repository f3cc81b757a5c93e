// Package stdio owns what the MCP face needs of a stdio host's pipes beyond
// mcp-go's line loop: the graceful shutdown that refuses new requests and
// lets the ones in flight finish (ServeGracefully), and how much of what was
// written to the host it has not read yet (UnreadBytes).
//
// It must not import mcp/endpoint, mcp-go or the guards: it sees JSON-RPC
// lines and file descriptors, nothing of what they mean to the face.
package stdio

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io"
	"log/slog"
	"sync"
	"syscall"
	"time"
)

// ShuttingDownMessage is the JSON-RPC error message of a request that
// arrives over stdio once the shutdown has begun.
const ShuttingDownMessage = "the bridge is shutting down"

// ServeGracefully serves over stdio with serve (the face's ServeStdio), and
// shuts down gracefully when ctx ends: requests that arrive from then on
// are answered with a JSON-RPC error (ShuttingDownMessage), the requests in
// flight may finish until grace has passed, then they are cancelled (tool
// calls cancel their upstream work) and it returns. Responses, and
// notifications such as notifications/cancelled, still pass while it
// drains.
func ServeGracefully(ctx context.Context, grace time.Duration, log *slog.Logger, in io.Reader, out io.Writer,
	serve func(ctx context.Context, in io.Reader, out io.Writer) error) error {
	serveCtx, stop := context.WithCancel(context.WithoutCancel(ctx))
	defer stop()
	d := &stdioDrain{pending: map[string]bool{}, idle: make(chan struct{}, 1), out: out}
	pr, pw := io.Pipe()
	go d.readRequests(in, pw)
	go func() {
		<-ctx.Done()
		d.mu.Lock()
		d.draining = true
		n := len(d.pending)
		d.mu.Unlock()
		if n > 0 {
			log.Info("shutting down: letting the requests in flight finish", "requests", n, "grace", grace.String())
			t := time.NewTimer(grace)
			defer t.Stop()
			select {
			case <-d.idle:
			case <-t.C:
				log.Warn("shutdown grace expired: cancelling the requests still in flight")
			case <-serveCtx.Done():
			}
		}
		stop()
	}()
	return serve(serveCtx, pr, d)
}

// stdioDrain tracks the requests in flight over stdio: it sees every
// message the host sends (readRequests) and every message written back
// (Write).
type stdioDrain struct {
	out io.Writer

	mu       sync.Mutex
	wmu      sync.Mutex // serializes writes to out
	pending  map[string]bool
	draining bool
	idle     chan struct{} // signalled when draining and nothing is pending
}

// rpcHead is what the drain reads of a JSON-RPC message.
type rpcHead struct {
	ID     json.RawMessage `json:"id"`
	Method string          `json:"method"`
	Params struct {
		RequestID json.RawMessage `json:"requestId"`
	} `json:"params"`
}

// readRequests copies the host's messages to w, one line each, refusing
// new requests once draining.
func (d *stdioDrain) readRequests(in io.Reader, w *io.PipeWriter) {
	br := bufio.NewReader(in)
	for {
		line, err := br.ReadBytes('\n')
		if t := bytes.TrimSpace(line); len(t) > 0 {
			var h rpcHead
			_ = json.Unmarshal(t, &h)
			isRequest := h.Method != "" && len(h.ID) > 0 && string(h.ID) != "null"
			d.mu.Lock()
			refuse := isRequest && d.draining
			if isRequest && !refuse {
				d.pending[normID(h.ID)] = true
			}
			if h.Method == "notifications/cancelled" && len(h.Params.RequestID) > 0 {
				d.doneLocked(normID(h.Params.RequestID))
			}
			d.mu.Unlock()
			if refuse {
				resp, _ := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": h.ID,
					"error": map[string]any{"code": -32000, "message": ShuttingDownMessage}})
				_, _ = d.Write(append(resp, '\n'))
			} else if _, werr := w.Write(line); werr != nil {
				return
			}
		}
		if err != nil {
			w.CloseWithError(err)
			return
		}
	}
}

// Write implements io.Writer for the server's output: a response ends its
// request.
func (d *stdioDrain) Write(p []byte) (int, error) {
	for _, line := range bytes.Split(p, []byte("\n")) {
		if len(bytes.TrimSpace(line)) == 0 {
			continue
		}
		var h rpcHead
		if json.Unmarshal(line, &h) == nil && h.Method == "" && len(h.ID) > 0 {
			d.mu.Lock()
			d.doneLocked(normID(h.ID))
			d.mu.Unlock()
		}
	}
	d.wmu.Lock()
	defer d.wmu.Unlock()
	return d.out.Write(p)
}

// SyscallConn implements syscall.Conn when the host's output does, so that
// the face can see how much of it the host has not read yet.
func (d *stdioDrain) SyscallConn() (syscall.RawConn, error) {
	if sc, ok := d.out.(syscall.Conn); ok {
		return sc.SyscallConn()
	}
	return nil, errors.New("stdio: the output is not a file")
}

func (d *stdioDrain) doneLocked(id string) {
	delete(d.pending, id)
	if d.draining && len(d.pending) == 0 {
		select {
		case d.idle <- struct{}{}:
		default:
		}
	}
}

// normID is a JSON-RPC id in one spelling (1, 1.0 and 1e0 are one id).
func normID(raw json.RawMessage) string {
	var v any
	if json.Unmarshal(raw, &v) != nil {
		return string(raw)
	}
	b, _ := json.Marshal(v)
	return string(b)
}
