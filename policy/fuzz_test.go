package policy

import (
	"context"
	"encoding/json"
	"strings"
	"testing"

	"cel.dev/cel-go/common/types"

	"github.com/a2a-mcp-bridge/bridge/request"
)

// fuzzProbes read every field of both variables, iterate the lists and the
// claims, and compare them with values taken from the input, so the fuzzer
// drives the input builder and the field getters with arbitrary data.
var fuzzProbes = []string{
	`hop.face == hop.face && hop.direction == hop.direction && hop.agent == hop.agent && hop.skill == hop.skill &&
	 hop.tool == hop.tool && hop.method == hop.method && hop.task_id == hop.task_id && hop.remote_ip == hop.remote_ip &&
	 (hop.tool_destructive || !hop.tool_destructive) && (hop.tool_read_only || !hop.tool_read_only)`,
	`principal.subject == principal.subject && principal.issuer == principal.issuer &&
	 principal.client_id == principal.client_id && principal.method == principal.method`,
	`principal.scopes.all(s, s in principal.scopes) && principal.groups.all(g, g in principal.groups)`,
	`principal.claims.all(k, k in principal.claims)`,
	`principal.claims.exists(k, string(principal.claims[k]) == "x")`,
	`has(principal.claims.tenant) || principal.claims.?tenant.orValue("") == ""`,
	`dyn(hop).agent == hop.agent && dyn(principal).subject == principal.subject`,
	`hop.agent.startsWith(principal.subject) || hop.tool.contains(principal.client_id) || hop.remote_ip.matches("^[0-9.]+$")`,
	`size(principal.groups) + size(principal.scopes) + size(principal.claims) >= 0 && size(hop.agent) >= 0`,
}

// FuzzPolicyInput drives newActivation, the field getters and evaluation
// with arbitrary hops and claims. It must never panic, and the string fields
// must come back unchanged.
func FuzzPolicyInput(f *testing.F) {
	f.Add(false, "alice", "https://idp.example.com", "web", "agents tickets:read", "staff billing", `{"tenant":"acme","level":3,"org":{"unit":"x"},"roles":["a","b"]}`, "oidc",
		"a2a", "publish", "billing", "echo", "search", true, false, "SendMessage", "t-1", "127.0.0.1")
	f.Add(true, "", "", "", "", "", "", "", "", "", "", "", "", false, false, "", "", "")
	f.Add(false, "bot", "apikey", "bot-ci", "", "", `null`, "apikey", "mcp", "front_mcp", "files", "", "rm", true, true, "tools/call", "", "::1")
	f.Add(false, "\xff\xfe", "\x00", "é", " , ", "\n", `{"":{"":[null,true,1e308,-0,"\u0000"]}}`, "x", "??", "local", "a\x00b", "s", "t", false, true, "GetTask", "\xc3", "1.2.3.4")
	f.Add(false, "a", "b", "c", "d", "e", `[1,2,3]`, "f", "mcp", "expose", "g", "h", "i", false, false, "j", "k", "l")
	f.Add(false, "deep", "", "", "", "", strings.Repeat(`{"a":`, 200)+"1"+strings.Repeat("}", 200), "", "", "", "", "", "", false, false, "", "", "")

	var progs []*program
	o := buildOptions(nil)
	for _, src := range fuzzProbes {
		prg, ps := compileBool(src, "fuzz", &o)
		if len(ps) > 0 {
			f.Fatalf("probe %q: %v", src, ps)
		}
		progs = append(progs, prg)
	}
	f.Fuzz(func(t *testing.T, nilPrincipal bool, subject, issuer, clientID, scopes, groups, claimsJSON, method,
		face, direction, agent, skill, tool string, destructive, readOnly bool, hopMethod, taskID, remoteIP string) {
		var p *request.Principal
		if !nilPrincipal {
			p = &request.Principal{
				Subject: subject, Issuer: issuer, ClientID: clientID, Method: method,
				Scopes: strings.Fields(scopes), Groups: strings.Fields(groups),
				Token: "fuzz-token",
			}
			var claims map[string]any
			if json.Unmarshal([]byte(claimsJSON), &claims) == nil {
				p.Claims = claims
			}
		}
		h := request.Hop{
			Principal: p, Face: request.Face(face), Direction: request.Direction(direction), Agent: agent, Skill: skill, Tool: tool,
			ToolDestructive: destructive, ToolReadOnly: readOnly, Method: hopMethod, TaskID: taskID, RemoteIP: remoteIP,
		}
		a := newActivation(h)

		// Every field getter and presence test works on every input.
		for name, fld := range hopFields {
			v := fld.get(a)
			if types.IsError(v) {
				t.Fatalf("hop.%s = %v", name, v)
			}
			_ = fld.isSet(a)
		}
		for name, fld := range principalFields {
			v := fld.get(a)
			if types.IsError(v) {
				t.Fatalf("principal.%s = %v", name, v)
			}
			_ = fld.isSet(a)
		}
		if got := hopFields["agent"].get(a); got != types.String(agent) {
			t.Fatalf("hop.agent = %v, want %q", got, agent)
		}
		wantSubject := subject
		if nilPrincipal {
			wantSubject = ""
		}
		if got := principalFields["subject"].get(a); got != types.String(wantSubject) {
			t.Fatalf("principal.subject = %v, want %q", got, wantSubject)
		}

		// Evaluation may fail (a claim that is not a string), but never panics.
		for _, prg := range progs {
			_, _ = prg.eval(context.Background(), a)
		}
		ok, err := progs[0].eval(context.Background(), a)
		if err != nil || !ok {
			t.Fatalf("hop fields probe = %v, %v; want true", ok, err)
		}
	})
}
