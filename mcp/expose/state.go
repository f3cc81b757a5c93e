package expose

import (
	"crypto/hmac"
	"crypto/sha256"
	"encoding/base64"
	"encoding/json"
	"errors"
	"strings"
	"sync"
	"time"

	"github.com/a2a-mcp-bridge/bridge/request"
)

// StateTTL is how long a multi round-trip continuation state stays valid.
const StateTTL = 15 * time.Minute

// stateClaims is the continuation state handed to 2026-07-28 hosts with an
// elicitation. Hosts echo it back; it is attacker-controlled input, so it is
// HMAC-sealed and bound to the principal, the tool and an expiry.
type stateClaims struct {
	Tool      string `json:"tool"`
	TaskID    string `json:"task"`
	ContextID string `json:"ctx"`
	Principal string `json:"sub"`
	Question  string `json:"q,omitempty"`
	Auth      bool   `json:"auth,omitempty"`
	Expires   int64  `json:"exp"`
}

func (t *AgentTools) sealState(c stateClaims) (string, error) {
	c.Expires = t.cfg.Now().Add(StateTTL).Unix()
	b, err := json.Marshal(c)
	if err != nil {
		return "", err
	}
	body := base64.RawURLEncoding.EncodeToString(b)
	return body + "." + base64.RawURLEncoding.EncodeToString(t.mac(body)), nil
}

func (t *AgentTools) mac(body string) []byte {
	m := hmac.New(sha256.New, t.key)
	m.Write([]byte("expose-state-v1\x00"))
	m.Write([]byte(body))
	return m.Sum(nil)
}

var errBadState = errors.New("expose: continuation state is invalid")

// openState verifies a sealed state for principal p and tool.
func (t *AgentTools) openState(s string, p *request.Principal, tool string) (stateClaims, error) {
	body, sig, ok := strings.Cut(s, ".")
	if !ok || len(s) > 8192 {
		return stateClaims{}, errBadState
	}
	got, err := base64.RawURLEncoding.DecodeString(sig)
	if err != nil || !hmac.Equal(got, t.mac(body)) {
		return stateClaims{}, errBadState
	}
	b, err := base64.RawURLEncoding.DecodeString(body)
	if err != nil {
		return stateClaims{}, errBadState
	}
	var c stateClaims
	if err := json.Unmarshal(b, &c); err != nil {
		return stateClaims{}, errBadState
	}
	if c.Principal != p.Key() || c.Tool != tool || t.cfg.Now().Unix() > c.Expires {
		return stateClaims{}, errBadState
	}
	return c, nil
}

// OwnerTTL is how long the bridge remembers who started a task or context.
const OwnerTTL = 24 * time.Hour

// maxOwners bounds the owner table; past it, expired entries are swept and
// then the oldest half is dropped.
const maxOwners = 100_000

// owners binds upstream task and context ids to the principal that created
// them through the bridge. Upstream agents see only the bridge's own
// credentials, so without this binding one MCP caller could continue (and
// read) another caller's task by passing its id.
type owners struct {
	now func() time.Time
	mu  sync.Mutex
	m   map[string]ownerEntry
}

type ownerEntry struct {
	owner   string
	expires time.Time
}

func newOwners(now func() time.Time) *owners {
	return &owners{now: now, m: map[string]ownerEntry{}}
}

func ownerKey(alias, kind, id string) string { return alias + "\x00" + kind + "\x00" + id }

func (o *owners) add(owner, alias, kind, id string) {
	o.mu.Lock()
	defer o.mu.Unlock()
	k := ownerKey(alias, kind, id)
	if e, ok := o.m[k]; ok && e.owner != owner {
		return // first owner wins
	}
	now := o.now()
	if len(o.m) >= maxOwners {
		for k, e := range o.m {
			if now.After(e.expires) {
				delete(o.m, k)
			}
		}
		for k := range o.m {
			if len(o.m) < maxOwners/2 {
				break
			}
			delete(o.m, k)
		}
	}
	o.m[k] = ownerEntry{owner: owner, expires: now.Add(OwnerTTL)}
}

func (o *owners) owns(owner, alias, kind, id string) bool {
	o.mu.Lock()
	defer o.mu.Unlock()
	e, ok := o.m[ownerKey(alias, kind, id)]
	return ok && e.owner == owner && !o.now().After(e.expires)
}
