package ratelimit_test

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"

	"github.com/a2a-mcp-bridge/bridge/policy"
	"github.com/a2a-mcp-bridge/bridge/ratelimit"
	"github.com/a2a-mcp-bridge/bridge/request"
)

// celConditions plugs the policy package's CEL conditions into the limiter.
func celConditions(expr string) (ratelimit.Matcher, error) {
	c, err := policy.CompileCondition(expr)
	if err != nil {
		return nil, err
	}
	return ratelimit.MatcherFunc(c.Eval), nil
}

// A gateway checks every hop after authentication, and answers 429 with its
// own protocol's error body when a limit is reached.
func Example() {
	lim, err := ratelimit.New(ratelimit.Config{Rules: []ratelimit.Rule{
		{Per: ratelimit.Fields{"principal"}, Rate: "60/m"},
		{Per: ratelimit.Fields{"principal", "tool"}, When: `hop.tool == "search"`, Rate: "1/m"},
	}}, ratelimit.WithCompiler(celConditions))
	if err != nil {
		fmt.Println(err)
		return
	}
	defer lim.Close()

	caller := &request.Principal{Issuer: "https://idp.example", Subject: "alice", Method: "oidc"}
	for _, tool := range []string{"fetch", "search", "search"} {
		rec := httptest.NewRecorder()
		res, err := lim.Allow(context.Background(), request.Hop{Principal: caller, Tool: tool, RemoteIP: "192.0.2.7"})
		ratelimit.WriteHeaders(rec, res)
		if le := (*ratelimit.LimitError)(nil); errors.As(err, &le) {
			rec.WriteHeader(le.StatusCode()) // plus a JSON-RPC error body, written by the gateway
		}
		fmt.Println(tool, rec.Code, res.Rule, rec.Header().Get("RateLimit-Policy"), res.Remaining)
	}
	// Output:
	// fetch 200 per-principal "per-principal";q=60;w=60 59
	// search 200 per-principal-tool "per-principal-tool";q=1;w=60 0
	// search 429 per-principal-tool "per-principal-tool";q=1;w=60 0
}

// The IP limit runs before the token is verified.
func ExampleIPLimiter() {
	ipl, err := ratelimit.NewIPLimiter(ratelimit.MustParseRate("2/h"))
	if err != nil {
		fmt.Println(err)
		return
	}
	for i := 0; i < 3; i++ {
		res := ipl.Check("192.0.2.7")
		if !res.Allowed {
			rec := httptest.NewRecorder()
			ratelimit.WriteHeaders(rec, res)
			rec.WriteHeader(http.StatusTooManyRequests)
			fmt.Println("refused", rec.Code)
			continue
		}
		fmt.Println("allowed")
	}
	// Output:
	// allowed
	// allowed
	// refused 429
}
