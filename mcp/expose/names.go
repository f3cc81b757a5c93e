package expose

import (
	"crypto/sha256"
	"encoding/hex"
	"strconv"
	"strings"
	"unicode"

	"github.com/a2a-mcp-bridge/bridge/a2a"
)

// SanitizeName maps s to a tool name that major hosts accept as a function
// name (^[a-zA-Z0-9_-]{1,64}$): every other character ('.' among them)
// becomes '_', the result is cut to MaxToolName bytes, and an empty result
// becomes "agent".
func SanitizeName(s string) string {
	s = sanitize(s)
	return s[:min(len(s), MaxToolName)]
}

// sanitize maps every character of s outside [A-Za-z0-9_-] to '_'; an empty
// s becomes "agent".
func sanitize(s string) string {
	var b strings.Builder
	for _, r := range s {
		if nameChar(r) {
			b.WriteRune(r)
		} else {
			b.WriteByte('_')
		}
	}
	if b.Len() == 0 {
		return "agent"
	}
	return b.String()
}

func nameChar(r rune) bool {
	return r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || r == '_' || r == '-'
}

// ValidSeparator reports whether sep can join an alias and a skill id in a
// tool name: 1 to MaxSeparator characters of [A-Za-z0-9_-].
func ValidSeparator(sep string) bool {
	if sep == "" || len(sep) > MaxSeparator {
		return false
	}
	for _, r := range sep {
		if !nameChar(r) {
			return false
		}
	}
	return true
}

// namer hands out collision-free names. A name that had to be cut to
// MaxToolName, or that another key holds already, ends in "_" and eight hex
// digits of its key's hash (then a counter if even that is taken), so a
// name depends on its key, not on the order cards happen to load in: names
// are stable across card refreshes and restarts. A key keeps its name for
// the life of the namer.
type namer struct {
	byKey map[string]string
	taken map[string]bool
}

func newNamer() *namer { return &namer{byKey: map[string]string{}, taken: map[string]bool{}} }

func (n *namer) name(key, want string) string {
	if got, ok := n.byKey[key]; ok {
		return got
	}
	base := sanitize(want)
	name := base
	if len(base) > MaxToolName || n.taken[name] {
		sum := sha256.Sum256([]byte(key))
		suf := "_" + hex.EncodeToString(sum[:4])
		name = base[:min(len(base), MaxToolName-len(suf))] + suf
		for i := 2; n.taken[name]; i++ {
			s := suf + "_" + strconv.Itoa(i)
			name = base[:min(len(base), MaxToolName-len(s))] + s
		}
	}
	n.taken[name] = true
	n.byKey[key] = name
	return name
}

// cleanText strips control characters (newlines are kept, other whitespace
// becomes a space), trims, and caps s at max bytes on a rune boundary. Card
// text is untrusted and reaches the model: this limits what it can carry.
func cleanText(s string, max int) string {
	s = strings.Map(func(r rune) rune {
		switch {
		case r == '\n':
			return r
		case r == '\t' || r == '\r':
			return ' '
		case unicode.IsControl(r) || unicode.Is(unicode.Cf, r):
			return -1
		}
		return r
	}, s)
	s = strings.TrimSpace(s)
	if len(s) > max {
		cut := max
		for cut > 0 && !utfStart(s[cut]) {
			cut--
		}
		s = strings.TrimSpace(s[:cut]) + "…"
	}
	return s
}

func utfStart(b byte) bool { return b&0xC0 != 0x80 }

// describeAgent builds the tool description from the card and its skills.
func describeAgent(c *a2a.AgentCard, max int) string {
	var b strings.Builder
	b.WriteString("Calls the A2A agent ")
	b.WriteString(strconv.Quote(cleanText(c.Name, 100)))
	b.WriteString(". ")
	b.WriteString(cleanText(c.Description, 600))
	if len(c.Skills) > 0 {
		b.WriteString("\nSkills:")
		for _, s := range c.Skills {
			b.WriteString("\n- ")
			b.WriteString(cleanText(s.Name, 80))
			if s.Description != "" {
				b.WriteString(": ")
				b.WriteString(cleanText(s.Description, 300))
			}
			if len(s.Examples) > 0 {
				b.WriteString(" (e.g. ")
				b.WriteString(strconv.Quote(cleanText(s.Examples[0], 100)))
				b.WriteString(")")
			}
		}
	}
	b.WriteString("\nPut your request in `message`. To continue a task (answer a question), pass its `taskId` and `contextId` from the previous result.")
	return cleanText(b.String(), max)
}

func describeSkill(c *a2a.AgentCard, s a2a.AgentSkill, max int) string {
	var b strings.Builder
	b.WriteString("Skill ")
	b.WriteString(strconv.Quote(cleanText(s.Name, 80)))
	b.WriteString(" of the A2A agent ")
	b.WriteString(strconv.Quote(cleanText(c.Name, 100)))
	b.WriteString(". ")
	b.WriteString(cleanText(s.Description, 600))
	for i, e := range s.Examples {
		if i == 3 {
			break
		}
		b.WriteString("\nExample: ")
		b.WriteString(strconv.Quote(cleanText(e, 100)))
	}
	return cleanText(b.String(), max)
}
