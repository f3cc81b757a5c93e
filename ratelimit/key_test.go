package ratelimit

import (
	"hash/maphash"
	"testing"

	"github.com/a2a-mcp-bridge/bridge/request"
)

var (
	alice = &request.Principal{Issuer: "https://idp.example", Subject: "alice", Method: "oidc"}
	bob   = &request.Principal{Issuer: "https://idp.example", Subject: "bob", Method: "oidc"}
	anon  = &request.Principal{Issuer: "local", Subject: "anonymous", Method: "anonymous"}
)

func fullHop() request.Hop {
	return request.Hop{
		Principal: alice,
		Face:      request.FaceA2A,
		Direction: request.DirPublish,
		Agent:     "billing",
		Skill:     "refund",
		Tool:      "search",
		Method:    "SendMessage",
		RemoteIP:  "192.0.2.7",
	}
}

func TestKeyBuild(t *testing.T) {
	tests := []struct {
		name   string
		fields []Field
		hop    func(h *request.Hop)
		want   string // "" means the rule does not apply
	}{
		{name: "principal", fields: []Field{FieldPrincipal}, want: "r|p25:https://idp.example|alice"},
		{name: "principal anonymous uses ip", fields: []Field{FieldPrincipal}, hop: func(h *request.Hop) { h.Principal = anon }, want: "r|a9:192.0.2.7"},
		{name: "principal nil uses ip", fields: []Field{FieldPrincipal}, hop: func(h *request.Hop) { h.Principal = nil }, want: "r|a9:192.0.2.7"},
		{name: "principal nil no ip", fields: []Field{FieldPrincipal}, hop: func(h *request.Hop) { h.Principal, h.RemoteIP = nil, "" }},
		{name: "agent", fields: []Field{FieldAgent}, want: "r|g7:billing"},
		{name: "skill", fields: []Field{FieldSkill}, want: "r|s6:refund"},
		{name: "tool", fields: []Field{FieldTool}, want: "r|t6:search"},
		{name: "tool missing", fields: []Field{FieldTool}, hop: func(h *request.Hop) { h.Tool = "" }},
		{name: "method", fields: []Field{FieldMethod}, want: "r|m11:SendMessage"},
		{name: "hop", fields: []Field{FieldHop}, want: "r|f3:a2a|d7:publish|g7:billing"},
		{name: "hop missing", fields: []Field{FieldHop}, hop: func(h *request.Hop) { h.Face, h.Direction, h.Agent = "", "", "" }},
		{name: "ip v4", fields: []Field{FieldIP}, want: "r|i9:192.0.2.7"},
		{name: "ip v4-mapped v6", fields: []Field{FieldIP}, hop: func(h *request.Hop) { h.RemoteIP = "::ffff:192.0.2.7" }, want: "r|i9:192.0.2.7"},
		{name: "ip v6 masked to /64", fields: []Field{FieldIP}, hop: func(h *request.Hop) { h.RemoteIP = "2001:db8:1:2:aaaa:bbbb:cccc:dddd" }, want: "r|i14:2001:db8:1:2::"},
		{name: "ip v6 zone dropped", fields: []Field{FieldIP}, hop: func(h *request.Hop) { h.RemoteIP = "fe80::1%eth0" }, want: "r|i6:fe80::"},
		{name: "ip unparseable kept as text", fields: []Field{FieldIP}, hop: func(h *request.Hop) { h.RemoteIP = "pipe" }, want: "r|i4:pipe"},
		{name: "ip missing", fields: []Field{FieldIP}, hop: func(h *request.Hop) { h.RemoteIP = "" }},
		{name: "principal and tool", fields: []Field{FieldPrincipal, FieldTool}, want: "r|p25:https://idp.example|alice|t6:search"},
		{name: "tool and principal keep order", fields: []Field{FieldTool, FieldPrincipal}, want: "r|t6:search|p25:https://idp.example|alice"},
		{name: "principal agent skill", fields: []Field{FieldPrincipal, FieldAgent, FieldSkill}, want: "r|p25:https://idp.example|alice|g7:billing|s6:refund"},
		{name: "agent method", fields: []Field{FieldAgent, FieldMethod}, want: "r|g7:billing|m11:SendMessage"},
		{name: "all fields", fields: knownFields, want: "r|p25:https://idp.example|alice|g7:billing|s6:refund|t6:search|f3:a2a|d7:publish|g7:billing|i9:192.0.2.7|m11:SendMessage"},
		{name: "one missing field skips the rule", fields: []Field{FieldPrincipal, FieldSkill}, hop: func(h *request.Hop) { h.Skill = "" }},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			hop := fullHop()
			if tt.hop != nil {
				tt.hop(&hop)
			}
			var k key
			ok := k.build("r", tt.fields, &hop)
			if tt.want == "" {
				if ok {
					t.Fatalf("build applied the rule: key %q", k.String())
				}
				return
			}
			if !ok {
				t.Fatal("build skipped the rule")
			}
			if got := k.String(); got != tt.want {
				t.Fatalf("key = %q, want %q", got, tt.want)
			}
		})
	}
}

// TestKeyFieldValueCannotForgeAnotherKey pins that a caller-chosen value
// holding the separator cannot make its counter collide with another
// caller's (tool "a|t1:b" vs tools "a" then "b").
func TestKeyFieldValueCannotForgeAnotherKey(t *testing.T) {
	seed := maphash.MakeSeed()
	a := request.Hop{Tool: "x|s1:y", Skill: "z"}
	b := request.Hop{Tool: "x", Skill: "y|s1:z"}
	var ka, kb key
	ka.build("r", []Field{FieldTool, FieldSkill}, &a)
	kb.build("r", []Field{FieldTool, FieldSkill}, &b)
	if ka.String() == kb.String() {
		t.Fatalf("distinct hops share Redis key %q", ka.String())
	}
	if ka.hash(seed) == kb.hash(seed) {
		t.Fatal("distinct hops share an in-process counter")
	}
}

func TestKeyHashSeparatesFieldsAndRules(t *testing.T) {
	seed := maphash.MakeSeed()
	hashOf := func(rule string, f Field, hop request.Hop) uint64 {
		var k key
		if !k.build(rule, []Field{f}, &hop) {
			t.Fatalf("build(%s) skipped", f)
		}
		return k.hash(seed)
	}
	seen := map[uint64]string{}
	for name, h := range map[string]uint64{
		"tool=a":         hashOf("r", FieldTool, request.Hop{Tool: "a"}),
		"skill=a":        hashOf("r", FieldSkill, request.Hop{Skill: "a"}),
		"tool=a rule r2": hashOf("r2", FieldTool, request.Hop{Tool: "a"}),
		"alice":          hashOf("r", FieldPrincipal, request.Hop{Principal: alice}),
		"bob":            hashOf("r", FieldPrincipal, request.Hop{Principal: bob}),
		"anon ip":        hashOf("r", FieldPrincipal, request.Hop{RemoteIP: "192.0.2.7"}),
		"ip":             hashOf("r", FieldIP, request.Hop{RemoteIP: "192.0.2.7"}),
		"ip text":        hashOf("r", FieldIP, request.Hop{RemoteIP: "192.0.2.7x"}),
	} {
		if prev, dup := seen[h]; dup {
			t.Fatalf("%s and %s share a counter", name, prev)
		}
		seen[h] = name
	}
	if hashOf("r", FieldIP, request.Hop{RemoteIP: "2001:db8::1"}) != hashOf("r", FieldIP, request.Hop{RemoteIP: "2001:db8::2"}) {
		t.Fatal("two addresses of one IPv6 /64 are counted apart")
	}
}

// FuzzKeyDistinct checks that two hops whose counted fields differ never
// share a counter, whatever bytes the caller puts in them.
func FuzzKeyDistinct(f *testing.F) {
	f.Add("search", "a", "search", "b")
	f.Add("x|s1:y", "z", "x", "y|s1:z")
	f.Add("", "a", "a", "")
	f.Add("1.2.3.4", "::1", "1.2.3.4", "::2")
	seed := maphash.MakeSeed()
	fields := []Field{FieldTool, FieldSkill}
	f.Fuzz(func(t *testing.T, tool1, skill1, tool2, skill2 string) {
		a := request.Hop{Tool: tool1, Skill: skill1}
		b := request.Hop{Tool: tool2, Skill: skill2}
		var ka, kb key
		okA, okB := ka.build("r", fields, &a), kb.build("r", fields, &b)
		if okA != (tool1 != "" && skill1 != "") || okB != (tool2 != "" && skill2 != "") {
			t.Fatal("rule applied to a hop lacking a field, or skipped a complete one")
		}
		if !okA || !okB || (tool1 == tool2 && skill1 == skill2) {
			return
		}
		if ka.String() == kb.String() {
			t.Fatalf("hops %q/%q and %q/%q share Redis key %q", tool1, skill1, tool2, skill2, ka.String())
		}
		if ka.hash(seed) == kb.hash(seed) {
			t.Fatalf("hops %q/%q and %q/%q share an in-process counter", tool1, skill1, tool2, skill2)
		}
	})
}
