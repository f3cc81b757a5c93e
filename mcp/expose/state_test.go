package expose

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/a2a-mcp-bridge/bridge/netguard"
	"github.com/a2a-mcp-bridge/bridge/request"
)

func testTools(t testing.TB, now func() time.Time) *AgentTools {
	t.Helper()
	tools, err := New(Config{Agents: []AgentConfig{{Alias: "echo", CardURL: "http://127.0.0.1:1/card"}}, HTTPClient: netguard.Trusted(netguard.Config{}), Now: now, StateKey: []byte(strings.Repeat("k", 32))})
	if err != nil {
		t.Fatal(err)
	}
	return tools
}

func TestForgedContinuationStateIsRefused(t *testing.T) {
	now := time.Unix(1_800_000_000, 0)
	clock := func() time.Time { return now }
	tools := testTools(t, clock)
	alice := &request.Principal{Subject: "alice", Issuer: "idp"}
	mallory := &request.Principal{Subject: "mallory", Issuer: "idp"}
	good, err := tools.sealState(stateClaims{Tool: "echo", TaskID: "t1", ContextID: "c1", Principal: alice.Key()})
	if err != nil {
		t.Fatal(err)
	}
	if c, err := tools.openState(good, alice, "echo"); err != nil || c.TaskID != "t1" {
		t.Fatalf("valid state refused: %v %+v", err, c)
	}
	body, sig, _ := strings.Cut(good, ".")
	other := testTools(t, clock)
	otherKey, _ := other.sealState(stateClaims{Tool: "echo", TaskID: "t1", Principal: mallory.Key()})
	tests := []struct {
		name  string
		state string
		p     *request.Principal
		tool  string
	}{
		{"state replayed by another principal", good, mallory, "echo"},
		{"state used on another tool", good, alice, "echo_slow"},
		{"body swapped under a valid mac", otherKey[:strings.Index(otherKey, ".")] + "." + sig, mallory, "echo"},
		{"mac stripped", body, alice, "echo"},
		{"mac truncated", body + "." + sig[:10], alice, "echo"},
		{"garbage", "x.y", alice, "echo"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if _, err := tools.openState(tt.state, tt.p, tt.tool); err == nil {
				t.Fatal("accepted")
			}
		})
	}
	now = now.Add(StateTTL + time.Second)
	if _, err := tools.openState(good, alice, "echo"); err == nil {
		t.Fatal("expired state accepted")
	}
}

func TestOwnersBindTasksToTheirCreator(t *testing.T) {
	o := newOwners(time.Now)
	o.add("alice", "echo", "task", "t1")
	o.add("mallory", "echo", "task", "t1") // cannot take it over
	if !o.owns("alice", "echo", "task", "t1") || o.owns("mallory", "echo", "task", "t1") {
		t.Fatal("ownership not kept by the first owner")
	}
	if o.owns("alice", "other", "task", "t1") {
		t.Fatal("ownership leaked across agents")
	}
}

func FuzzOpenState(f *testing.F) {
	tools := testTools(f, time.Now)
	good, _ := tools.sealState(stateClaims{Tool: "echo", TaskID: "t", Principal: "idp|alice"})
	f.Add(good)
	f.Add("")
	f.Add(".")
	f.Add("eyJ0b29sIjoiZWNobyJ9.AAAA")
	p := &request.Principal{Subject: "alice", Issuer: "idp"}
	f.Fuzz(func(t *testing.T, s string) {
		c, err := tools.openState(s, p, "echo")
		if err == nil && s != good {
			t.Fatalf("accepted a state it did not seal: %q -> %+v", s, c)
		}
	})
}

func FuzzSanitizeName(f *testing.F) {
	for _, s := range []string{"echo", "", "a b/c", strings.Repeat("x", 300), "ünïcode", "\x00\n"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		n := SanitizeName(s)
		if n == "" || len(n) > MaxToolName {
			t.Fatalf("bad length %d", len(n))
		}
		for _, r := range n {
			if !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || r == '_' || r == '-') {
				t.Fatalf("bad rune %q in %q", r, n)
			}
		}
	})
}

// TestNamesAreCollisionFreeAndStable: a name depends on its key, not on
// which other names were handed out first, so a tool keeps its name across
// restarts whatever order the cards load in.
func TestNamesAreCollisionFreeAndStable(t *testing.T) {
	n := newNamer()
	tests := []struct{ key, want, got string }{
		{"a", "billing", "billing"},
		{"b", "billing", "billing_%s"},
		{"c", "bill ing", "bill_ing"},
		{"d", "bill_ing", "bill_ing_%s"},
		{"g", "billing.pay", "billing_pay"},
		{"a", "renamed", "billing"}, // stable per key
		{"e", strings.Repeat("x", 200), strings.Repeat("x", 55) + "_%s"},
		{"f", strings.Repeat("x", 200), strings.Repeat("x", 55) + "_%s"},
	}
	for _, tt := range tests {
		want := tt.got
		if strings.Contains(want, "%s") {
			sum := sha256.Sum256([]byte(tt.key))
			want = fmt.Sprintf(want, hex.EncodeToString(sum[:4]))
		}
		got := n.name(tt.key, tt.want)
		if got != want {
			t.Errorf("name(%q, %q) = %q, want %q", tt.key, tt.want, got, want)
		}
		if !hostToolName.MatchString(got) {
			t.Errorf("name(%q, %q) = %q: refused by hosts' function-name rule", tt.key, tt.want, got)
		}
	}
	// Another namer that meets the keys in the opposite order.
	m := newNamer()
	for i := len(tests) - 1; i >= 0; i-- {
		m.name(tests[i].key, tests[i].want)
	}
	for _, k := range []string{"e", "f", "g"} {
		if n.byKey[k] != m.byKey[k] {
			t.Errorf("key %q: %q in one order, %q in the other", k, n.byKey[k], m.byKey[k])
		}
	}
}

// hostToolName is the function-name rule of major hosts.
var hostToolName = regexp.MustCompile(`^[a-zA-Z0-9_-]{1,64}$`)

func TestValidSeparator(t *testing.T) {
	for sep, want := range map[string]bool{"_": true, "__": true, "-": true, "x": true, "": false, ".": false, "/": false, " ": false, "123456789": false} {
		if got := ValidSeparator(sep); got != want {
			t.Errorf("ValidSeparator(%q) = %v, want %v", sep, got, want)
		}
	}
}

func TestCleanTextStripsControlsAndCaps(t *testing.T) {
	tests := []struct {
		in   string
		max  int
		want string
	}{
		{"a\x1b[31mb", 100, "a[31mb"},
		{"line\nnext\ttab", 100, "line\nnext tab"},
		{"zero\u200bwidth", 100, "zerowidth"},
		{"ééééé", 5, "éé…"},
		{"  padded  ", 100, "padded"},
	}
	for _, tt := range tests {
		if got := cleanText(tt.in, tt.max); got != tt.want {
			t.Errorf("cleanText(%q, %d) = %q, want %q", tt.in, tt.max, got, tt.want)
		}
	}
}

func TestCacheTTL(t *testing.T) {
	tests := []struct {
		cc   string
		want time.Duration
	}{
		{"", DefaultCardTTL},
		{"max-age=600", 10 * time.Minute},
		{"public, max-age=1", MinCardTTL},
		{"max-age=999999", MaxCardTTL},
		{"no-store", MinCardTTL},
		{"max-age=abc", DefaultCardTTL},
	}
	for _, tt := range tests {
		if got := CacheTTL(tt.cc, MinCardTTL, MaxCardTTL); got != tt.want {
			t.Errorf("cacheTTL(%q) = %s, want %s", tt.cc, got, tt.want)
		}
	}
}

func TestCardURLOf(t *testing.T) {
	tests := []struct{ in, want string }{
		{"https://a.example/.well-known/agent-card.json", "https://a.example/.well-known/agent-card.json"},
		{"https://a.example/cards/billing.json", "https://a.example/cards/billing.json"},
		{"https://a.example", "https://a.example/.well-known/agent-card.json"},
		{"https://a.example/a2a/billing/", "https://a.example/a2a/billing/.well-known/agent-card.json"},
	}
	for _, tt := range tests {
		if got := CardURLOf(tt.in); got != tt.want {
			t.Errorf("CardURLOf(%q) = %q, want %q", tt.in, got, tt.want)
		}
	}
}
