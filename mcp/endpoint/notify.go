package endpoint

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"sync/atomic"
	"time"

	"github.com/a2a-mcp-bridge/bridge/mcp/endpoint/stdio"
	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"
)

// errNoHost is returned by Notify when ctx is not a request's.
var errNoHost = errors.New("endpoint: notify: no host for this request")

// directOut writes a message on the stream of the request in flight, at
// once and whole, ahead of the request's response.
type directOut interface {
	WriteMessage(msg []byte) error
}

type directKey struct{}

func withDirect(ctx context.Context, d directOut) context.Context {
	return context.WithValue(ctx, directKey{}, d)
}

// Notify sends a notification about the request in ctx (a tools/call: its
// notifications/progress) to the host that made it. Over streamable HTTP
// and stdio it is written on the request's own stream before Notify
// returns, so that every notification a tool handler sends reaches the
// host before the handler's result. mcp-go relays them asynchronously
// (a channel read by a forwarder goroutine) and loses or reorders the last
// ones when the result wins the race (mark3labs/mcp-go#969 on HTTP, the
// stdio writer likewise); handlers of the face's sources must use Notify
// (and NotifyLog), never server.MCPServer.SendNotificationToClient. Where
// the request has no stream of its own (in-process clients, a call running
// as a task) it falls back to mcp-go's relay.
func Notify(ctx context.Context, method string, params map[string]any) error {
	n := mcp.JSONRPCNotification{
		JSONRPC:      mcp.JSONRPC_VERSION,
		Notification: mcp.Notification{Method: method, Params: mcp.NotificationParams{AdditionalFields: params}},
	}
	if d, ok := ctx.Value(directKey{}).(directOut); ok && d != nil {
		b, err := json.Marshal(n)
		if err != nil {
			return fmt.Errorf("endpoint: notify %s: encode: %w", method, err)
		}
		return d.WriteMessage(b)
	}
	srv := server.ServerFromContext(ctx)
	if srv == nil {
		return errNoHost
	}
	return srv.SendNotificationToClient(ctx, method, params)
}

// NotifyLog sends a notifications/message about the request in ctx to its
// host, like Notify, when the host asked for that level: the session's
// level (logging/setLevel) before 2026-07-28, the request's own level
// (_meta) from 2026-07-28 on, which also sends nothing to a request that
// named no level.
func NotifyLog(ctx context.Context, n mcp.LoggingMessageNotification) error {
	if _, ok := ctx.Value(directKey{}).(directOut); !ok {
		srv := server.ServerFromContext(ctx)
		if srv == nil {
			return errNoHost
		}
		return srv.SendLogMessageToClient(ctx, n)
	}
	if info := server.RequestProtocolInfoFromContext(ctx); info != nil && info.Modern {
		if info.LogLevel == "" || !n.Params.Level.ShouldSendTo(info.LogLevel) {
			return nil
		}
	} else {
		sl, ok := server.ClientSessionFromContext(ctx).(server.SessionWithLogging)
		if !ok || !n.Params.Level.ShouldSendTo(sl.GetLogLevel()) {
			return nil
		}
	}
	return Notify(ctx, n.Method, map[string]any{"level": n.Params.Level, "logger": n.Params.Logger, "data": n.Params.Data})
}

// stdioSettle is the least time between the last notification written to
// a stdio host and a tool call's result, where the face cannot see whether
// the host has read it; stdioSettleMax bounds the wait where it can. The MCP
// TypeScript client (1.x) handles a notification one microtask late but a
// response at once, and forgets a call's progress handler with its
// response: a progress notification read in the same chunk as the result
// is dropped. So the result is written once the host has read everything
// before it (the pipe is empty), or stdioSettle after the last
// notification.
const (
	stdioSettle    = 5 * time.Millisecond
	stdioSettleMax = 250 * time.Millisecond
)

// stdioOut is the direct stream of a stdio request: whole lines on the
// face's serialised output (mcp-go writes each of its messages with one
// Write, under the same lock). sink is the output as given to the face
// (the host's pipe), asked how much of it is unread.
type stdioOut struct {
	w    io.Writer
	sink any
	last atomic.Int64 // when the last notification was written (UnixNano)
}

func (s *stdioOut) WriteMessage(msg []byte) error {
	b := make([]byte, 0, len(msg)+1)
	b = append(append(b, msg...), '\n')
	if _, err := s.w.Write(b); err != nil {
		return fmt.Errorf("endpoint: notify: write to the host: %w", err)
	}
	s.last.Store(time.Now().UnixNano())
	return nil
}

// settle waits, before a tool call's result is written, until the host has
// read the notifications written before it (see stdioSettle); no wait when
// none is recent.
func (s *stdioOut) settle(ctx context.Context) {
	last := time.Unix(0, s.last.Load())
	if time.Since(last) >= stdioSettleMax {
		return
	}
	until := last.Add(stdioSettle)
	if n, ok := stdio.UnreadBytes(s.sink); ok {
		if n == 0 {
			return
		}
		until = last.Add(stdioSettleMax)
	}
	t := time.NewTicker(time.Millisecond)
	defer t.Stop()
	for time.Now().Before(until) {
		select {
		case <-t.C:
		case <-ctx.Done():
			return
		}
		if n, ok := stdio.UnreadBytes(s.sink); ok && n == 0 {
			return
		}
	}
}

// settleStdio is settle for the stdio host of the request in ctx, if any.
func settleStdio(ctx context.Context) {
	if s, ok := ctx.Value(directKey{}).(*stdioOut); ok {
		s.settle(ctx)
	}
}
