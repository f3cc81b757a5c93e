package front

import (
	"crypto/sha256"
	"encoding/hex"
	"strconv"
	"strings"
)

// MaxNameLen is the longest tool name served: major hosts' function-name
// rule (^[a-zA-Z0-9_-]{1,64}$) is stricter than the MCP spec's 128.
const MaxNameLen = 64

// sanitize maps s onto the tool name alphabet hosts accept, [A-Za-z0-9_-]:
// every other byte ('.' among them, and every byte of a multi-byte rune)
// becomes '_'.
func sanitize(s string) string {
	b := []byte(s)
	for i, c := range b {
		switch {
		case c >= 'a' && c <= 'z', c >= 'A' && c <= 'Z', c >= '0' && c <= '9', c == '_', c == '-':
		default:
			b[i] = '_'
		}
	}
	return string(b)
}

// clip shortens s to n bytes (s is ASCII after sanitize).
func clip(s string, n int) string {
	if len(s) > n {
		return s[:n]
	}
	return s
}

// key identifies one upstream tool.
type key struct{ server, tool string }

// namer hands out public tool names. A name, once given to an upstream
// tool, stays with it for the namer's lifetime (even while the tool is
// absent from its server's list), so hosts and models never see a tool
// renamed under them.
type namer struct {
	byKey  map[key]string
	byName map[string]key
}

func newNamer() *namer {
	return &namer{byKey: map[key]string{}, byName: map[string]key{}}
}

// name returns the public name of k, assigning one on first sight: the
// sanitized prefix+tool, clipped to MaxNameLen; on a collision the name
// gets "_" and a short hash of the server and tool name (deterministic),
// then a counter if even that is taken. collided reports the collision.
func (n *namer) name(k key, prefix string) (name string, collided bool) {
	if s, ok := n.byKey[k]; ok {
		return s, false
	}
	base := clip(sanitize(prefix+k.tool), MaxNameLen)
	if base == "" {
		base = "tool"
	}
	name = base
	if _, taken := n.byName[name]; taken {
		collided = true
		sum := sha256.Sum256([]byte(k.server + "\x00" + k.tool))
		suffix := "_" + hex.EncodeToString(sum[:4])
		name = clip(base, MaxNameLen-len(suffix)) + suffix
		for i := 2; ; i++ {
			if _, taken := n.byName[name]; !taken {
				break
			}
			s := suffix + "_" + strconv.Itoa(i)
			name = clip(base, MaxNameLen-len(s)) + s
		}
	}
	n.byKey[k] = name
	n.byName[name] = k
	return name, collided
}

// validName reports whether s is a servable tool name.
func validName(s string) bool {
	return s != "" && len(s) <= MaxNameLen && sanitize(s) == s && !strings.ContainsRune(s, 0)
}
