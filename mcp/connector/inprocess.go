package connector

import (
	"context"
	"encoding/json"
	"fmt"
	"strconv"
	"sync"
	"sync/atomic"

	"github.com/mark3labs/mcp-go/client/transport"
	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"
)

// flushMethod marks the end of a request's notifications on an in-process
// session's notification channel; it never reaches the client.
const flushMethod = "bridge/flush"

// inProcess is the in-process transport: mcp-go's, except that a request's
// notifications reach the client before its response. A server's handler
// queues notifications (notifications/progress) on the session's channel,
// which a forwarder goroutine hands to the client; mcp-go's transport
// returns the response as soon as the handler does, so the last
// notifications arrived after the result (and a call's progress relay drops
// late ones). Here, once the handler has returned, a marker is queued behind
// everything it sent and the response waits until the forwarder, which
// delivers in order, has reached it.
type inProcess struct {
	srv             *server.MCPServer
	sampling        server.SamplingHandler
	elicitation     server.ElicitationHandler
	id              string
	session         *server.InProcessSession
	notifyMu        sync.RWMutex
	onNotification  func(mcp.JSONRPCNotification)
	startMu         sync.Mutex
	started, closed bool
	done            chan struct{}
	closeOnce       sync.Once
	flushSeq        atomic.Uint64
	flushMu         sync.Mutex
	flushes         map[string]chan struct{}
}

var _ transport.Interface = (*inProcess)(nil)

func newInProcess(s *server.MCPServer, sampling server.SamplingHandler, elicitation server.ElicitationHandler) *inProcess {
	return &inProcess{srv: s, sampling: sampling, elicitation: elicitation, id: s.GenerateInProcessSessionID(),
		done: make(chan struct{}), flushes: map[string]chan struct{}{}}
}

// Start implements transport.Interface.
func (t *inProcess) Start(ctx context.Context) error {
	t.startMu.Lock()
	defer t.startMu.Unlock()
	if t.closed {
		return transport.ErrTransportClosed
	}
	if t.started {
		return nil
	}
	sess := server.NewInProcessSessionWithHandlers(t.id, t.sampling, t.elicitation, nil)
	if err := t.srv.RegisterSession(ctx, sess); err != nil {
		return fmt.Errorf("connector: in-process session: %w", err)
	}
	t.session, t.started = sess, true
	go t.forward(sess.ClientNotifications())
	return nil
}

func (t *inProcess) forward(ch <-chan mcp.JSONRPCNotification) {
	for {
		select {
		case <-t.done:
			return
		case n, ok := <-ch:
			if !ok {
				return
			}
			if n.Method == flushMethod {
				t.flushed(n)
				continue
			}
			t.notifyMu.RLock()
			h := t.onNotification
			t.notifyMu.RUnlock()
			if h != nil {
				h(n)
			}
		}
	}
}

func (t *inProcess) flushed(n mcp.JSONRPCNotification) {
	id, _ := n.Params.AdditionalFields["id"].(string)
	t.flushMu.Lock()
	defer t.flushMu.Unlock()
	if ch, ok := t.flushes[id]; ok {
		close(ch)
		delete(t.flushes, id)
	}
}

// flush returns once every notification queued before it was handed to the
// client (or ctx ended, or the transport closed).
func (t *inProcess) flush(ctx context.Context) {
	id := strconv.FormatUint(t.flushSeq.Add(1), 10)
	ch := make(chan struct{})
	t.flushMu.Lock()
	t.flushes[id] = ch
	t.flushMu.Unlock()
	defer func() {
		t.flushMu.Lock()
		delete(t.flushes, id)
		t.flushMu.Unlock()
	}()
	marker := mcp.JSONRPCNotification{JSONRPC: mcp.JSONRPC_VERSION, Notification: mcp.Notification{
		Method: flushMethod, Params: mcp.NotificationParams{AdditionalFields: map[string]any{"id": id}},
	}}
	select {
	case t.session.NotificationChannel() <- marker:
	case <-ctx.Done():
		return
	case <-t.done:
		return
	}
	select {
	case <-ch:
	case <-ctx.Done():
	case <-t.done:
	}
}

// SendRequest implements transport.Interface.
func (t *inProcess) SendRequest(ctx context.Context, req transport.JSONRPCRequest) (*transport.JSONRPCResponse, error) {
	b, err := json.Marshal(req)
	if err != nil {
		return nil, fmt.Errorf("connector: in-process request: %w", err)
	}
	t.startMu.Lock()
	sess := t.session
	t.startMu.Unlock()
	if sess != nil {
		ctx = t.srv.WithContext(ctx, sess)
	}
	out := t.srv.HandleMessage(ctx, b)
	if sess != nil {
		t.flush(ctx)
	}
	rb, err := json.Marshal(out)
	if err != nil {
		return nil, fmt.Errorf("connector: in-process response: %w", err)
	}
	var resp transport.JSONRPCResponse
	if err := json.Unmarshal(rb, &resp); err != nil {
		return nil, fmt.Errorf("connector: in-process response: %w", err)
	}
	return &resp, nil
}

// SendNotification implements transport.Interface.
func (t *inProcess) SendNotification(ctx context.Context, n mcp.JSONRPCNotification) error {
	b, err := json.Marshal(n)
	if err != nil {
		return fmt.Errorf("connector: in-process notification: %w", err)
	}
	t.startMu.Lock()
	sess := t.session
	t.startMu.Unlock()
	if sess != nil {
		ctx = t.srv.WithContext(ctx, sess)
	}
	t.srv.HandleMessage(ctx, b)
	return nil
}

// SetNotificationHandler implements transport.Interface.
func (t *inProcess) SetNotificationHandler(h func(mcp.JSONRPCNotification)) {
	t.notifyMu.Lock()
	defer t.notifyMu.Unlock()
	t.onNotification = h
}

// Close implements transport.Interface.
func (t *inProcess) Close() error {
	t.startMu.Lock()
	t.closed = true
	sess := t.session
	t.startMu.Unlock()
	t.closeOnce.Do(func() { close(t.done) })
	if sess != nil {
		t.srv.UnregisterSession(context.Background(), t.id)
	}
	return nil
}

// GetSessionId implements transport.Interface.
func (t *inProcess) GetSessionId() string { return "" }
