package ratelimit

import (
	"encoding/binary"
	"hash/maphash"
	"net/netip"
	"strconv"
	"strings"

	"github.com/a2a-mcp-bridge/bridge/request"
)

// maxParts bounds the parts of one key: seven fields, hop counting three.
const maxParts = 9

// Part labels, one byte each, written before every value so that two fields
// can never be confused ("tool=a" and "skill=a" are different keys).
const (
	labelPrincipal = 'p' // authenticated caller: issuer and subject
	labelAnonIP    = 'a' // caller without a principal, counted by address
	labelAgent     = 'g'
	labelSkill     = 's'
	labelTool      = 't'
	labelFace      = 'f'
	labelDirection = 'd'
	labelIP        = 'i'
	labelMethod    = 'm'
)

// part is one labelled value of a key. Values are kept unformatted (a
// principal pointer, a parsed address) so that hashing them for the
// in-process store allocates nothing; String formats them for Redis.
type part struct {
	label byte
	s     string
	p     *request.Principal
	ip    netip.Addr // valid for labelIP and labelAnonIP when s is not an unparseable address
}

// key identifies one counter: a rule and the hop's values for its fields.
type key struct {
	rule  string
	n     int
	parts [maxParts]part
}

func (k *key) add(p part) { k.parts[k.n] = p; k.n++ }

// build fills k for rule name and fields from hop. It reports false when the
// hop lacks a value for one of the fields, in which case the rule does not
// count the hop.
func (k *key) build(name string, fields []Field, hop *request.Hop) bool {
	k.rule, k.n = name, 0
	for _, f := range fields {
		switch f {
		case FieldPrincipal:
			if p := hop.Principal; p != nil && p.Method != "anonymous" {
				k.add(part{label: labelPrincipal, p: p})
				continue
			}
			if hop.RemoteIP == "" {
				return false
			}
			k.add(ipPart(labelAnonIP, hop.RemoteIP))
		case FieldIP:
			if hop.RemoteIP == "" {
				return false
			}
			k.add(ipPart(labelIP, hop.RemoteIP))
		case FieldAgent:
			if hop.Agent == "" {
				return false
			}
			k.add(part{label: labelAgent, s: hop.Agent})
		case FieldSkill:
			if hop.Skill == "" {
				return false
			}
			k.add(part{label: labelSkill, s: hop.Skill})
		case FieldTool:
			if hop.Tool == "" {
				return false
			}
			k.add(part{label: labelTool, s: hop.Tool})
		case FieldMethod:
			if hop.Method == "" {
				return false
			}
			k.add(part{label: labelMethod, s: hop.Method})
		case FieldHop:
			if hop.Face == "" && hop.Direction == "" && hop.Agent == "" {
				return false
			}
			k.add(part{label: labelFace, s: string(hop.Face)})
			k.add(part{label: labelDirection, s: string(hop.Direction)})
			k.add(part{label: labelAgent, s: hop.Agent})
		default:
			return false // rejected by Validate; unreachable through New
		}
	}
	return true
}

// ipPart parses addr and masks IPv6 to its /64, the smallest block a single
// host is normally given; an unparseable address is kept as text.
func ipPart(label byte, addr string) part {
	ip, err := netip.ParseAddr(addr)
	if err != nil {
		return part{label: label, s: addr}
	}
	ip = ip.Unmap().WithZone("")
	if ip.Is6() {
		pfx, _ := ip.Prefix(64)
		ip = pfx.Addr()
	}
	return part{label: label, ip: ip}
}

func (p *part) value() string {
	switch {
	case p.p != nil:
		return p.p.Key()
	case p.ip.IsValid():
		return p.ip.String()
	default:
		return p.s
	}
}

// String is the key as stored in Redis: the rule name, then each part as
// "|" label length ":" value, so values holding '|' cannot forge another key.
func (k *key) String() string {
	var b strings.Builder
	b.Grow(len(k.rule) + 16*k.n)
	b.WriteString(k.rule)
	for i := 0; i < k.n; i++ {
		v := k.parts[i].value()
		b.WriteByte('|')
		b.WriteByte(k.parts[i].label)
		b.WriteString(strconv.Itoa(len(v)))
		b.WriteByte(':')
		b.WriteString(v)
	}
	return b.String()
}

// hash is the key's 64-bit digest for the in-process store. The seed is
// random per process, so collisions cannot be aimed at.
func (k *key) hash(seed maphash.Seed) uint64 {
	var h maphash.Hash
	h.SetSeed(seed)
	writeStr(&h, k.rule)
	for i := 0; i < k.n; i++ {
		p := &k.parts[i]
		h.WriteByte(p.label)
		switch {
		case p.p != nil:
			h.WriteByte(0)
			writeStr(&h, p.p.Issuer)
			writeStr(&h, p.p.Subject)
		case p.ip.IsValid():
			b := p.ip.As16()
			h.WriteByte(1)
			h.Write(b[:])
		default:
			h.WriteByte(2)
			writeStr(&h, p.s)
		}
	}
	return h.Sum64()
}

func writeStr(h *maphash.Hash, s string) {
	var n [8]byte
	binary.LittleEndian.PutUint64(n[:], uint64(len(s)))
	h.Write(n[:])
	h.WriteString(s)
}
