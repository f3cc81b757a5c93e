package config

import (
	"strings"
	"testing"
)

// TestBuiltinsAndOwnAgents: what names a built-in upstream or one of the
// bridge's own agents, and the exact problems of the wrong forms.
func TestBuiltinsAndOwnAgents(t *testing.T) {
	const head = "auth: {anonymous: true}\npolicy: {default: deny}\n"
	tests := []struct {
		name string
		yaml string
		want []string // problems, exact; none: valid
	}{
		{name: "the demo's three", yaml: "publish: [{name: tools, builtin: demo}]\nfront: {a2a: [{name: echo, builtin: demo}], mcp: [{name: m, builtin: demo}]}\nexpose: {agents: [{alias: e, agent: echo}]}\nserver: {root_agent: echo}\n"},
		{name: "unknown MCP builtin", yaml: "publish: [{name: tools, builtin: everything}]\n",
			want: []string{`x.yaml:3:25: publish[0].builtin: "everything" is not an MCP server built into the bridge: use "demo"`}},
		{name: "builtin and stdio", yaml: "publish: [{name: tools, builtin: demo, stdio: {command: x}}]\n",
			want: []string{`x.yaml:3:11: publish[0]: set only one of stdio, http, sse or builtin`}},
		{name: "builtin with credentials", yaml: "publish: [{name: tools, builtin: demo, credentials: {static: {header: X-K, value: '{secret}', env: K}}}]\n",
			want: []string{`x.yaml:3:40: publish[0].credentials: a builtin server gets no credentials: remove them`}},
		{name: "unknown A2A builtin", yaml: "front: {a2a: [{name: echo, builtin: billing}]}\n",
			want: []string{`x.yaml:3:28: front.a2a[0].builtin: "billing" is not an A2A agent built into the bridge: use "demo"`}},
		{name: "A2A builtin and url", yaml: "front: {a2a: [{name: echo, builtin: demo, url: 'https://a.example.com'}]}\n",
			want: []string{`x.yaml:3:15: front.a2a[0]: set only one of url and builtin`}},
		{name: "A2A builtin with card", yaml: "front: {a2a: [{name: echo, builtin: demo, card: {require_signature: true}}]}\n",
			want: []string{`x.yaml:3:15: front.a2a[0]: a builtin agent is reached in process: remove credentials, credential_hosts, card and binding`}},
		{name: "exposed agent not served", yaml: "expose: {agents: [{alias: e, agent: nobody}]}\n",
			want: []string{`x.yaml:3:30: expose.agents[0].agent: "nobody" is not an agent this bridge serves: name a publish or front.a2a entry`}},
		{name: "exposed agent with url too", yaml: "front: {a2a: [{name: echo, builtin: demo}]}\nexpose: {agents: [{alias: e, agent: echo, url: 'https://a.example.com'}]}\n",
			want: []string{`x.yaml:4:19: expose.agents[0]: set only one of url and agent`}},
		{name: "root agent not served", yaml: "server: {root_agent: nobody}\n",
			want: []string{`x.yaml:3:10: server.root_agent: "nobody" is not an agent this bridge serves: name a publish or front.a2a entry`}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := Parse([]byte(head+tt.yaml), "x.yaml")
			var got []string
			if ps, ok := err.(Problems); ok {
				for _, p := range ps {
					got = append(got, p.Error())
				}
			} else if err != nil {
				t.Fatal(err)
			}
			if strings.Join(got, "\n") != strings.Join(tt.want, "\n") {
				t.Errorf("problems:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(tt.want, "\n"))
			}
		})
	}
}

// TestBuiltinOnANetworkListenerWarns: a built-in agent or server served
// beyond loopback is said at start.
func TestBuiltinOnANetworkListenerWarns(t *testing.T) {
	c, err := Parse([]byte("listen: 0.0.0.0:8080\npublic_url: https://b.example.com\nauth: {api_keys: [{name: a, sha256: '0c848abb03307b06cf70cd4e29c157dc81af5e94ab3eb1d0c59a120269572376'}]}\npolicy: {default: deny}\npublish: [{name: tools, builtin: demo}]\nfront: {a2a: [{name: echo, builtin: demo}]}\n"), "x.yaml")
	if err != nil {
		t.Fatal(err)
	}
	w := strings.Join(c.Warnings(), "\n")
	for _, want := range []string{
		"config: front.a2a[0] (echo): the built-in demo agent is served on the non-loopback listener 0.0.0.0:8080",
		"config: publish[0] (tools): the built-in demo MCP server is served on the non-loopback listener 0.0.0.0:8080",
	} {
		if !strings.Contains(w, want) {
			t.Errorf("warnings:\n%s\nwant %q", w, want)
		}
	}
}
