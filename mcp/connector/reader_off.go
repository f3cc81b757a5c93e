//go:build bridge_nomcpreader

package connector

import (
	"context"
	"net/http"

	"github.com/mark3labs/mcp-go/client/transport"
)

// With the bridge_nomcpreader build tag, a direct call's answer is read by
// mcp-go's transport (StreamableHTTP.SendRequest), as before the reader of
// reader.go.

// callReader is left out.
type callReader struct{}

func newCallReader(*HTTPConfig, *http.Client) *callReader { return nil }

// send sends one direct call through the transport.
func (c *Conn) send(ctx context.Context, s *session, req transport.JSONRPCRequest) (*transport.JSONRPCResponse, error) {
	return s.rt.SendRequest(ctx, req)
}
