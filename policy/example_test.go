package policy_test

import (
	"context"
	"errors"
	"fmt"
	"log/slog"

	"github.com/a2a-mcp-bridge/bridge/policy"
	"github.com/a2a-mcp-bridge/bridge/request"
)

func Example() {
	e, err := policy.Compile(policy.Config{
		Default: policy.DefaultDeny,
		Rules: []policy.Rule{
			{Name: "staff-billing", Allow: `principal.groups.exists(g, g == "staff") && hop.agent == "billing"`},
			{Name: "bots-no-destructive", Deny: `principal.client_id.startsWith("bot-") && hop.tool_destructive`,
				Description: "automated clients may not call destructive tools"},
		},
	}, policy.WithLogger(slog.New(slog.DiscardHandler)))
	if err != nil {
		panic(err)
	}
	alice := &request.Principal{Subject: "alice", Method: "oidc", Groups: []string{"staff"}}
	ci := &request.Principal{Subject: "ci", Method: "apikey", ClientID: "bot-ci", Groups: []string{"staff"}}

	for _, h := range []request.Hop{
		{Principal: alice, Face: request.FaceA2A, Agent: "billing"},
		{Principal: ci, Face: request.FaceMCP, Agent: "billing", Tool: "refund", ToolDestructive: true},
		{Principal: alice, Face: request.FaceA2A, Agent: "research"},
	} {
		d := e.Decide(context.Background(), h)
		fmt.Printf("%s → allow=%v rule=%q reason=%q\n", h.Principal, d.Allow, d.Rule, d.Reason)
	}
	// Output:
	// oidc:alice → allow=true rule="staff-billing" reason="allowed by rule"
	// apikey:ci → allow=false rule="bots-no-destructive" reason="automated clients may not call destructive tools"
	// oidc:alice → allow=false rule="" reason="denied by default"
}

func ExampleCompile_problems() {
	_, err := policy.Compile(policy.Config{
		Default: "deny",
		Rules: []policy.Rule{
			{Name: "typo", Allow: `hop.toool == "search"`},
			{Name: "not-bool", Deny: `hop.agent`},
		},
	})
	var ps policy.Problems
	if errors.As(err, &ps) {
		for _, p := range ps {
			fmt.Println(p)
			fmt.Println(p.Snippet)
		}
	}
	// Output:
	// policy: rule "typo": ERROR: <input>:1:4: undefined field 'toool'
	//  | hop.toool == "search"
	//  | ...^
	// policy: rule "not-bool": ERROR: <input>:1:1: expression returns string, want bool
	//
}

func ExampleCompileCondition() {
	when, err := policy.CompileCondition(`hop.tool == "search"`)
	if err != nil {
		panic(err)
	}
	ok, err := when.Eval(request.Hop{Tool: "search"})
	fmt.Println(ok, err)
	// Output: true <nil>
}
