package client

import (
	"context"
	"net/http"
	"strings"

	"github.com/a2a-mcp-bridge/bridge/a2a"
)

// Transport carries a client's calls over a binding this package does not
// speak itself (gRPC: a2a/a2agrpc). Params and results are this package's
// request and response types, as for JSON-RPC.
type Transport interface {
	// Call runs the unary method with params and fills result (a pointer
	// to the method's response type; nil for a method without one). An
	// answer of the agent's is an *Error.
	Call(ctx context.Context, method string, params, result any) error
	// Stream opens the streaming method with params.
	Stream(ctx context.Context, method string, params any) (EventSource, error)
}

// EventSource is the event stream a Transport opened.
type EventSource interface {
	// Next returns the next event, io.EOF at the stream's clean end, the
	// agent's *Error when it ended the stream with one.
	Next() (*a2a.StreamResponse, error)
	// Close ends the stream; it unblocks a waiting Next.
	Close() error
}

// TransportFactory returns the Transport of one interface of a card;
// header is the client's WithHeader hook (nil: none), which the transport
// runs on a request describing each call (its URL names the interface's
// host) to learn the headers to send, credentials included.
type TransportFactory func(iface a2a.AgentInterface, header func(context.Context, *http.Request) error) (Transport, error)

// WithTransport lets the client use interfaces of binding (BindingGRPC)
// through f. Such interfaces are used when the card offers no JSON-RPC or
// HTTP+JSON interface, or when WithBinding asks for binding.
func WithTransport(binding string, f TransportFactory) Option {
	return func(c *clientConfig) {
		if c.transports == nil {
			c.transports = map[string]TransportFactory{}
		}
		c.transports[strings.ToUpper(binding)] = f
	}
}

// transportFor is the factory of a binding, if one was given.
func (cfg *clientConfig) transportFor(binding string) TransportFactory {
	return cfg.transports[strings.ToUpper(binding)]
}
