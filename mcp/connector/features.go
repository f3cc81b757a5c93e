package connector

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"

	"github.com/mark3labs/mcp-go/client/transport"
	"github.com/mark3labs/mcp-go/mcp"
)

// LogMessage is one notifications/message the server sent during a call.
type LogMessage struct {
	// Level is the syslog-style severity ("debug" … "emergency").
	Level string
	// Logger names the server's component, possibly empty.
	Logger string
	// Data is the message payload, raw.
	Data json.RawMessage
}

// LogFunc receives a call's log messages, never after the call returned.
type LogFunc func(m LogMessage)

// SampleFunc answers a server's sampling/createMessage request made during
// a call; it may block until the caller's model answers or ctx ends.
type SampleFunc func(ctx context.Context, req mcp.CreateMessageParams) (*mcp.CreateMessageResult, error)

// CallHandlers are the optional relays of one tool call; any may be nil.
type CallHandlers struct {
	// Progress receives progress notifications.
	Progress ProgressFunc
	// Elicit answers elicitation requests (nil declines them).
	Elicit ElicitFunc
	// Log receives notifications/message (nil drops them).
	Log LogFunc
	// LogLevel is the least severe level Log wants (default "debug"). On
	// 2026-07-28 connections it is asked for on the call itself; on older
	// ones the connection asks for every level once, at connect.
	LogLevel string
	// Sample answers sampling requests (nil refuses them).
	Sample SampleFunc
}

// do runs f on the current session and maps a dead transport to ErrDied.
func (c *Conn) do(ctx context.Context, what string, f func(s *session) error) error {
	s, err := c.current(ctx)
	if err != nil {
		return err
	}
	if err := f(s); err != nil {
		if ctx.Err() != nil {
			return fmt.Errorf("upstream %q: %s: %w", c.cfg.Name, what, ctx.Err())
		}
		if s.isDead() || errors.Is(err, transport.ErrTransportClosed) {
			s.kill()
			return fmt.Errorf("upstream %q: %s: %w", c.cfg.Name, what, ErrDied)
		}
		var te *transport.Error
		var se *ServerError
		if !errors.As(err, &te) && !errors.As(err, &se) {
			// Not the transport: the server's answer (or a check of ours),
			// safe to show; mcp-go keeps its message, not its code.
			err = &ServerError{Message: err.Error()}
		}
		return fmt.Errorf("upstream %q: %s: %w", c.cfg.Name, what, err)
	}
	return nil
}

// maxPages bounds cursor following on every list.
const maxPages = 1000

// Prompts returns the server's prompts in its order, following cursors; nil
// when the server declares no prompts.
func (c *Conn) Prompts(ctx context.Context) ([]mcp.Prompt, error) {
	var out []mcp.Prompt
	err := c.do(ctx, "list prompts", func(s *session) error {
		if s.c.GetServerCapabilities().Prompts == nil {
			return nil
		}
		return pages(func(cur mcp.Cursor) (mcp.Cursor, error) {
			req := mcp.ListPromptsRequest{}
			req.Params.Cursor = cur
			res, err := s.c.ListPromptsByPage(ctx, req)
			if err != nil {
				return "", err
			}
			out = append(out, res.Prompts...)
			return res.NextCursor, nil
		})
	})
	return out, err
}

// GetPrompt gets a prompt by its original name.
func (c *Conn) GetPrompt(ctx context.Context, name string, args map[string]string) (*mcp.GetPromptResult, error) {
	var out *mcp.GetPromptResult
	err := c.do(ctx, "get prompt "+name, func(s *session) error {
		req := mcp.GetPromptRequest{}
		req.Params.Name, req.Params.Arguments = name, args
		var err error
		out, err = s.c.GetPrompt(ctx, req)
		return err
	})
	return out, err
}

// Resources returns the server's resources in its order, following
// cursors; nil when the server declares no resources.
func (c *Conn) Resources(ctx context.Context) ([]mcp.Resource, error) {
	var out []mcp.Resource
	err := c.do(ctx, "list resources", func(s *session) error {
		if s.c.GetServerCapabilities().Resources == nil {
			return nil
		}
		return pages(func(cur mcp.Cursor) (mcp.Cursor, error) {
			req := mcp.ListResourcesRequest{}
			req.Params.Cursor = cur
			res, err := s.c.ListResourcesByPage(ctx, req)
			if err != nil {
				return "", err
			}
			out = append(out, res.Resources...)
			return res.NextCursor, nil
		})
	})
	return out, err
}

// ResourceTemplates returns the server's resource templates, following
// cursors; nil when the server declares no resources.
func (c *Conn) ResourceTemplates(ctx context.Context) ([]mcp.ResourceTemplate, error) {
	var out []mcp.ResourceTemplate
	err := c.do(ctx, "list resource templates", func(s *session) error {
		if s.c.GetServerCapabilities().Resources == nil {
			return nil
		}
		return pages(func(cur mcp.Cursor) (mcp.Cursor, error) {
			req := mcp.ListResourceTemplatesRequest{}
			req.Params.Cursor = cur
			res, err := s.c.ListResourceTemplatesByPage(ctx, req)
			if err != nil {
				return "", err
			}
			out = append(out, res.ResourceTemplates...)
			return res.NextCursor, nil
		})
	})
	return out, err
}

// ReadResource reads a resource (or a URI matching a template).
func (c *Conn) ReadResource(ctx context.Context, uri string) (*mcp.ReadResourceResult, error) {
	var out *mcp.ReadResourceResult
	err := c.do(ctx, "read resource", func(s *session) error {
		req := mcp.ReadResourceRequest{}
		req.Params.URI = uri
		var err error
		out, err = s.c.ReadResource(ctx, req)
		return err
	})
	return out, err
}

// SubscribeResource asks the server for notifications/resources/updated on
// uri (resources/subscribe; a subscription stream from 2026-07-28 on);
// updates reach the OnResourceUpdated listeners. A subscription does not
// survive a reconnect.
func (c *Conn) SubscribeResource(ctx context.Context, uri string) error {
	return c.do(ctx, "subscribe", func(s *session) error {
		if r := s.c.GetServerCapabilities().Resources; r == nil || !r.Subscribe {
			return errors.New("the server does not support resource subscriptions")
		}
		if mcp.IsModernProtocol(s.era) {
			c.subsMu.Lock()
			defer c.subsMu.Unlock()
			if _, ok := c.subs[uri]; ok {
				return nil
			}
			stop, err := s.c.ListenAsync(c.life, mcp.SubscriptionFilter{ResourceSubscriptions: []string{uri}}, func(err error) {
				c.log.Debug("resource subscription ended", "err", err)
			})
			if err != nil {
				return err
			}
			c.subs[uri] = stop
			return nil
		}
		resp, err := s.c.GetTransport().SendRequest(ctx, transport.JSONRPCRequest{
			JSONRPC: mcp.JSONRPC_VERSION, ID: mcp.NewRequestId(c.nextID()), Method: string(mcp.MethodResourcesSubscribe),
			Params: map[string]any{"uri": uri},
		})
		return rpcErr(resp, err)
	})
}

// UnsubscribeResource ends a subscription made with SubscribeResource.
func (c *Conn) UnsubscribeResource(ctx context.Context, uri string) error {
	return c.do(ctx, "unsubscribe", func(s *session) error {
		if r := s.c.GetServerCapabilities().Resources; r == nil || !r.Subscribe {
			return errors.New("the server does not support resource subscriptions")
		}
		if mcp.IsModernProtocol(s.era) {
			c.subsMu.Lock()
			stop := c.subs[uri]
			delete(c.subs, uri)
			c.subsMu.Unlock()
			if stop != nil {
				stop()
			}
			return nil
		}
		resp, err := s.c.GetTransport().SendRequest(ctx, transport.JSONRPCRequest{
			JSONRPC: mcp.JSONRPC_VERSION, ID: mcp.NewRequestId(c.nextID()), Method: string(mcp.MethodResourcesUnsubscribe),
			Params: map[string]any{"uri": uri},
		})
		return rpcErr(resp, err)
	})
}

// OnResourceUpdated registers f, called with the URI of every
// notifications/resources/updated the server sends.
func (c *Conn) OnResourceUpdated(f func(uri string)) {
	c.mu.Lock()
	c.resListeners = append(c.resListeners, f)
	c.mu.Unlock()
}

// Complete asks the server for completions of a prompt's or a resource
// template's argument; ref is an mcp.PromptReference or
// mcp.ResourceReference naming the upstream's prompt or template.
func (c *Conn) Complete(ctx context.Context, ref any, arg mcp.CompleteArgument, cctx mcp.CompleteContext) (*mcp.Completion, error) {
	var out *mcp.Completion
	err := c.do(ctx, "complete", func(s *session) error {
		if s.c.GetServerCapabilities().Completions == nil {
			out = &mcp.Completion{Values: []string{}}
			return nil
		}
		req := mcp.CompleteRequest{}
		req.Params.Ref, req.Params.Argument, req.Params.Context = ref, arg, cctx
		res, err := s.c.Complete(ctx, req)
		if err != nil {
			return err
		}
		out = &res.Completion
		return nil
	})
	return out, err
}

func (c *Conn) nextID() string { return "bridge-req-" + fmt.Sprint(c.tokenSeq.Add(1)) }

// pages follows cursors; next returns the following cursor.
func pages(next func(mcp.Cursor) (mcp.Cursor, error)) error {
	seen := map[mcp.Cursor]bool{}
	var cur mcp.Cursor
	for range maxPages {
		n, err := next(cur)
		if err != nil {
			return err
		}
		if n == "" {
			return nil
		}
		if seen[n] {
			return fmt.Errorf("cursor %q repeated", n)
		}
		seen[n], cur = true, n
	}
	return fmt.Errorf("more than %d pages", maxPages)
}

// rpcErr turns a JSON-RPC error response into an error.
func rpcErr(resp *transport.JSONRPCResponse, err error) error {
	if err != nil {
		return err
	}
	if resp != nil && resp.Error != nil {
		return fmt.Errorf("%d: %s", resp.Error.Code, resp.Error.Message)
	}
	return nil
}

// OnListChanged registers f, called when the server says its prompts or
// resources changed, and after each reconnect; f re-reads what it needs.
func (c *Conn) OnListChanged(f func()) {
	c.mu.Lock()
	c.listChangedF = append(c.listChangedF, f)
	c.mu.Unlock()
}

func (c *Conn) listChanged() {
	c.mu.Lock()
	ls := append([]func(){}, c.listChangedF...)
	c.mu.Unlock()
	for _, f := range ls {
		f()
	}
}
