package endpoint

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net"
	"net/http"
	"strings"

	"github.com/mark3labs/mcp-go/mcp"

	"github.com/a2a-mcp-bridge/bridge/mcp/endpoint/view"
	"github.com/a2a-mcp-bridge/bridge/ratelimit"
	"github.com/a2a-mcp-bridge/bridge/request"
)

// Limiter counts a hop against the rate limits (ratelimit.Limiter, or the
// gateway's reloadable one). A refusal is an error that wraps a
// *ratelimit.LimitError.
type Limiter interface {
	Allow(ctx context.Context, hop request.Hop) (ratelimit.Result, error)
}

var _ Limiter = (*ratelimit.Limiter)(nil)

// DefaultLimitedMethods counts every request: a limit on the principal then
// covers tools/list, resources/read and the rest as it covers tools/call.
var DefaultLimitedMethods = []string{"*"}

// CodeRateLimited is the JSON-RPC error code of a request refused by a rate
// limit (in the implementation-defined server error range; 29 as in 429).
const CodeRateLimited = -32029

// limited reports whether m is a request the limits count.
func (f *Face) limited(m *view.Message) bool {
	if f.cfg.Limiter == nil || m.Response || m.ID == nil {
		return false
	}
	methods := f.cfg.LimitedMethods
	if methods == nil {
		methods = DefaultLimitedMethods
	}
	return MethodListed(methods, m.Method)
}

// MethodListed reports whether method matches one of patterns: an exact
// name, "prefix/*" (any method under prefix/), or "*".
func MethodListed(patterns []string, method string) bool {
	for _, p := range patterns {
		switch {
		case p == "*", p == method:
			return true
		case strings.HasSuffix(p, "/*") && strings.HasPrefix(method, strings.TrimSuffix(p, "*")):
			return true
		}
	}
	return false
}

// hop is the view's hop for the limits: the method, and for tools/call the
// tool, its agent and hints, as the policy filter describes it.
func (f *Face) hop(p *request.Principal, m *view.Message, ip string) request.Hop {
	hop := request.Hop{}
	switch mcp.MCPMethod(m.Method) {
	case mcp.MethodToolsCall:
		hop = f.toolHop(p, m.Params.Name, f.toolDef(m.Params.Name))
	case mcp.MethodResourcesRead:
		hop = f.resourceHop(p, m.Params.URI, m.Params.URI)
	case mcp.MethodPromptsGet:
		hop = f.promptHop(p, m.Params.Name)
	}
	hop.Principal, hop.Face, hop.Method, hop.RemoteIP = p, request.FaceMCP, m.Method, ip
	return hop
}

// writeLimited answers a request over a limit: 429 (503 when the limit
// store cannot be reached) with the RateLimit headers and a JSON-RPC error.
func (f *Face) writeLimited(w http.ResponseWriter, m *view.Message, res ratelimit.Result, err error) {
	status, msg := http.StatusServiceUnavailable, "rate limiting is unavailable; retry later"
	var le *ratelimit.LimitError
	if errors.As(err, &le) {
		res = le.Result
		status = le.StatusCode()
		if status == http.StatusTooManyRequests {
			msg = fmt.Sprintf("rate limit %q exceeded; retry later", res.Rule)
		}
	}
	res.Allowed = false
	ratelimit.WriteHeaders(w, res)
	h := w.Header()
	if h.Get("Retry-After") == "" {
		h.Set("Retry-After", "1")
	}
	h.Set("Content-Type", "application/json")
	h.Set("Cache-Control", "no-store")
	w.WriteHeader(status)
	data, _ := json.Marshal(map[string]any{"retryAfter": h.Get("Retry-After"), "rule": res.Rule})
	_, _ = w.Write(rpcRaw(m.ID, "error", mustMarshal(map[string]any{"code": CodeRateLimited, "message": msg, "data": json.RawMessage(data)})))
	f.log.Info("endpoint: request over a rate limit", "method", view.ClipMethod(m.Method), "rule", res.Rule, "status", status)
}

// clientIP is the address of the peer (proxies are not trusted).
func clientIP(r *http.Request) string {
	host, _, err := net.SplitHostPort(r.RemoteAddr)
	if err != nil {
		return r.RemoteAddr
	}
	return host
}
