//go:build !bridge_nofastjson

package fastjson

import (
	"bytes"
	"encoding/json"
	"time"
	"unicode"
	"unicode/utf16"
	"unicode/utf8"

	"github.com/a2a-mcp-bridge/bridge/a2a"
)

// A fast path for the JSON-RPC responses the client reads on its hot
// calls: a send's answer, a task, a stream event. encoding/json validates
// the whole body once and then decodes it again by reflection into the
// wire mirror types of codec_decode.go, which cost a front-A2A bridge about
// a twentieth of its CPU and a seventh of its allocated bytes. The decoder
// below reads the canonical form of these bodies (what an A2A server
// writes: exact member names, each once, strings where strings go) in one
// pass straight into the public types.
//
// Its one rule: it either produces exactly what the slow path produces
// (decodeRPCResponseIn over the same bytes), or it declines and the slow
// path runs. It declines on anything outside the canonical form — a member
// name that differs from a field's only in case (encoding/json would match
// it), a name with an escape or a non-ASCII byte, a duplicate member, a
// value of another JSON type than the field's, a null element in a list,
// a part of unknown kind (the slow path logs it when dropping it) — and on
// every error, invalid JSON included, so the slow path makes every error
// and every odd input behave as before. Unknown members are skipped, as
// encoding/json skips them, only when their name is ASCII, matches no
// field of the object case-insensitively and is not repeated. Inside the
// values it skips (metadata, data, unknown members) it declines a repeated
// or escaped member name, and anywhere invalid UTF-8 or an escaped lone
// surrogate: the slow path refuses all of these (codec_strict.go), so that
// every document the bridge accepts has one reading.
//
// Scalars with methods are decoded by those methods on the literal bytes,
// as encoding/json hands them over (TaskState, Role, time.Time); metadata
// goes to json.Unmarshal and data to compactJSON, as in the slow path, so
// the values are the same. A null member reads as the member absent, which
// is what encoding/json makes of it for each field here (nil pointer, map
// and slice; strings, bools and structs left alone; the enums' methods map
// null to ""), except the raw members, id and data, which keep "null".
// Nothing returned aliases the input: the caller may reuse its buffer.

// fastMaxDepth bounds the nesting of skipped values (metadata, data,
// unknown members). Deeper input is declined, not rejected: the slow path
// reads it.
const fastMaxDepth = 512

// The members of each object, as named by the json tags of the wire types
// in codec_decode.go (a test keeps them in step). An unknown member is
// skipped only if it matches none of these case-insensitively.
var (
	fastEnvelopeFields       = []string{"id", "result", "error"}
	fastSendFields           = []string{"task", "message"}
	fastStreamFields         = []string{"task", "message", "statusUpdate", "artifactUpdate"}
	fastTaskFields           = []string{"id", "contextId", "status", "artifacts", "history", "metadata"}
	fastStatusFields         = []string{"state", "message", "timestamp"}
	fastMessageFields        = []string{"messageId", "contextId", "taskId", "role", "parts", "metadata", "extensions", "referenceTaskIds"}
	fastArtifactFields       = []string{"artifactId", "name", "description", "parts", "metadata", "extensions"}
	fastPartFields           = []string{"text", "raw", "url", "data", "metadata", "filename", "mediaType"}
	fastStatusUpdateFields   = []string{"taskId", "contextId", "status", "metadata"}
	fastArtifactUpdateFields = []string{"taskId", "contextId", "artifact", "append", "lastChunk", "metadata"}
)

// fastDecodeRPCResponse decodes data as decodeRPCResponseIn would for the
// result types it knows; ok is false when it declines.
func fastDecodeRPCResponse[T any](data []byte) (env *a2a.RPCResponse[T], ok bool) {
	switch any((*T)(nil)).(type) {
	case *a2a.SendMessageResponse:
		return fastRPCResponse[T, a2a.SendMessageResponse](data)
	case *a2a.Task:
		return fastRPCResponse[T, a2a.Task](data)
	case *a2a.StreamResponse:
		return fastRPCResponse[T, a2a.StreamResponse](data)
	}
	return nil, false
}

// fastEnvelope holds an envelope with its result, a short id and one
// status timestamp in one allocation instead of four; a task kept after
// its envelope is dropped keeps these few dozen bytes with it.
type fastEnvelope[T, V any] struct {
	env a2a.RPCResponse[T]
	v   V
	id  [8]byte
	ts  time.Time
}

// fastRPCResponse reads the envelope and its result of type V, which is T.
func fastRPCResponse[T, V any](data []byte) (*a2a.RPCResponse[T], bool) {
	d := fastDec{b: data}
	if !d.open('{') {
		return nil, false
	}
	box := new(fastEnvelope[T, V])
	d.spareTime = &box.ts
	var seen uint32
	var unk fastUnknown
	for n := 0; ; n++ {
		name, done, ok := d.member(n)
		if !ok {
			return nil, false
		}
		if done {
			break
		}
		switch string(name) {
		case "id":
			if !fastOnce(&seen, 0) {
				return nil, false
			}
			span, ok := d.value()
			if !ok {
				return nil, false
			}
			if len(span) <= len(box.id) {
				k := copy(box.id[:], span)
				box.env.ID = box.id[:k:k]
			} else {
				box.env.ID = append(json.RawMessage(nil), span...)
			}
		case "result":
			if !fastOnce(&seen, 1) {
				return nil, false
			}
			if d.null() {
				continue
			}
			switch v := any(&box.v).(type) {
			case *a2a.SendMessageResponse:
				ok = d.sendMessageResponse(v)
			case *a2a.Task:
				ok = d.task(v)
			case *a2a.StreamResponse:
				ok = d.streamResponse(v)
			}
			if !ok {
				return nil, false
			}
			box.env.Result = any(&box.v).(*T)
		case "error":
			if !fastOnce(&seen, 2) {
				return nil, false
			}
			if d.null() {
				continue
			}
			span, ok := d.value()
			if !ok {
				return nil, false
			}
			// The error is rare and small: encoding/json reads it, as the
			// slow path does.
			e := new(a2a.ErrorBody)
			if a2a.UnmarshalStrict(span, e) != nil {
				return nil, false
			}
			box.env.Error = e
		default:
			if !d.skipUnknown(name, fastEnvelopeFields, &unk) {
				return nil, false
			}
		}
	}
	if !d.end() {
		return nil, false
	}
	return &box.env, true
}

// fastOnce marks member k of an object as seen; false if it was already.
func fastOnce(seen *uint32, k uint) bool {
	if *seen&(1<<k) != 0 {
		return false
	}
	*seen |= 1 << k
	return true
}

// fastDec is a cursor over a JSON document. Each method returns false to
// decline; the cursor is then meaningless.
type fastDec struct {
	b []byte
	i int
	// spareTime, when not nil, is where the next timestamp is stored
	// instead of a new allocation.
	spareTime *time.Time
	// recent holds ids decoded lately: a task's id and context id come
	// back in each of its messages, and are shared instead of copied.
	recent [4]string
	next   int
}

// ws skips whitespace.
func (d *fastDec) ws() { d.i = skipSpace(d.b, d.i) }

// peek returns the next byte after whitespace, 0 at the end.
func (d *fastDec) peek() byte {
	d.ws()
	if d.i < len(d.b) {
		return d.b[d.i]
	}
	return 0
}

// open consumes c ('{' or '[') after whitespace.
func (d *fastDec) open(c byte) bool {
	if d.peek() != c {
		return false
	}
	d.i++
	return true
}

// end reports whether only whitespace is left.
func (d *fastDec) end() bool {
	d.ws()
	return d.i == len(d.b)
}

// null consumes a null literal if one is next.
func (d *fastDec) null() bool {
	if d.peek() == 'n' && bytes.HasPrefix(d.b[d.i:], fastNull) {
		d.i += len(fastNull)
		return true
	}
	return false
}

var (
	fastNull  = []byte("null")
	fastTrue  = []byte("true")
	fastFalse = []byte("false")
)

// member starts member n (0-based) of an object whose '{' is consumed: it
// returns the member's name with the colon consumed, or done at the
// closing brace. A name with an escape is declined.
func (d *fastDec) member(n int) (name []byte, done, ok bool) {
	c := d.peek()
	if c == '}' {
		d.i++
		return nil, true, true
	}
	if n > 0 {
		if c != ',' {
			return nil, false, false
		}
		d.i++
		c = d.peek()
	}
	if c != '"' {
		return nil, false, false
	}
	start := d.i + 1
	j := start
	for ; j < len(d.b); j++ {
		c := d.b[j]
		if c == '"' {
			break
		}
		if c == '\\' || c < 0x20 {
			return nil, false, false
		}
	}
	if j >= len(d.b) {
		return nil, false, false
	}
	name = d.b[start:j]
	d.i = j + 1
	if d.peek() != ':' {
		return nil, false, false
	}
	d.i++
	return name, false, true
}

// element starts element n (0-based) of a list whose '[' is consumed; done
// at the closing bracket. A null element is declined.
func (d *fastDec) element(n int) (done, ok bool) {
	c := d.peek()
	if c == ']' {
		d.i++
		return true, true
	}
	if n > 0 {
		if c != ',' {
			return false, false
		}
		d.i++
		c = d.peek()
	}
	return false, c != 'n'
}

// skipUnknown skips the value of a member that is none of fields. A name
// encoding/json could match to one of them (differing in case, or with
// non-ASCII bytes that fold to ASCII) is declined, and so is an unknown
// name seen before in the same object (unk), or more unknown names than
// unk holds: the slow path refuses both.
func (d *fastDec) skipUnknown(name []byte, fields []string, unk *fastUnknown) bool {
	for _, c := range name {
		if c >= utf8.RuneSelf {
			return false
		}
	}
	for _, f := range fields {
		if len(f) == len(name) && fastEqualFold(name, f) {
			return false
		}
	}
	if !unk.add(name) {
		return false
	}
	_, ok := d.value()
	return ok
}

// fastUnknown holds the unknown member names of one object, to decline a
// duplicate among them.
type fastUnknown struct {
	names [4][]byte
	n     int
}

// add records name; false if it was already there or there is no room.
func (u *fastUnknown) add(name []byte) bool {
	for _, seen := range u.names[:u.n] {
		if bytes.Equal(seen, name) {
			return false
		}
	}
	if u.n == len(u.names) {
		return false
	}
	u.names[u.n] = name
	u.n++
	return true
}

func fastEqualFold(b []byte, s string) bool {
	for i := range len(b) {
		x, y := b[i], s[i]
		if 'a' <= x && x <= 'z' {
			x -= 'a' - 'A'
		}
		if 'a' <= y && y <= 'z' {
			y -= 'a' - 'A'
		}
		if x != y {
			return false
		}
	}
	return true
}

// value skips a valid JSON value and returns its bytes.
func (d *fastDec) value() ([]byte, bool) {
	d.ws()
	start := d.i
	if !d.skip(0) {
		return nil, false
	}
	return d.b[start:d.i], true
}

// skip skips a valid JSON value, checking it as encoding/json's scanner
// does.
func (d *fastDec) skip(depth int) bool {
	if depth > fastMaxDepth {
		return false
	}
	switch d.peek() {
	case '{':
		d.i++
		if d.peek() == '}' {
			d.i++
			return true
		}
		// The names seen in this object: a duplicate is declined (the slow
		// path refuses it), and so is a name with an escape, which would
		// have to be unescaped to be compared.
		var names [8][]byte
		n := 0
		var more map[string]struct{}
		for {
			if d.peek() != '"' {
				return false
			}
			start := d.i + 1
			if !d.skipString() {
				return false
			}
			name := d.b[start : d.i-1]
			if bytes.IndexByte(name, '\\') >= 0 {
				return false
			}
			for _, seen := range names[:n] {
				if bytes.Equal(seen, name) {
					return false
				}
			}
			if n < len(names) {
				names[n] = name
				n++
			} else {
				if more == nil {
					more = make(map[string]struct{})
				}
				if _, dup := more[string(name)]; dup {
					return false
				}
				more[string(name)] = struct{}{}
			}
			if d.peek() != ':' {
				return false
			}
			d.i++
			if !d.skip(depth + 1) {
				return false
			}
			switch d.peek() {
			case ',':
				d.i++
			case '}':
				d.i++
				return true
			default:
				return false
			}
		}
	case '[':
		d.i++
		if d.peek() == ']' {
			d.i++
			return true
		}
		for {
			if !d.skip(depth + 1) {
				return false
			}
			switch d.peek() {
			case ',':
				d.i++
			case ']':
				d.i++
				return true
			default:
				return false
			}
		}
	case '"':
		return d.skipString()
	case 't':
		return d.literal(fastTrue)
	case 'f':
		return d.literal(fastFalse)
	case 'n':
		return d.literal(fastNull)
	}
	return d.skipNumber()
}

func (d *fastDec) literal(lit []byte) bool {
	if !bytes.HasPrefix(d.b[d.i:], lit) {
		return false
	}
	d.i += len(lit)
	return true
}

// skipString skips the string at the cursor, checking its escapes. Invalid
// UTF-8 and an escaped lone surrogate are declined: the slow path refuses
// them.
func (d *fastDec) skipString() bool {
	b := d.b
	for j := d.i + 1; j < len(b); {
		switch c := b[j]; {
		case c == '"':
			d.i = j + 1
			return true
		case c == '\\':
			if j+1 >= len(b) {
				return false
			}
			switch b[j+1] {
			case '"', '\\', '/', 'b', 'f', 'n', 'r', 't':
				j += 2
			case 'u':
				r := fastHex4(b[j:])
				if r < 0 {
					return false
				}
				j += 6
				if utf16.IsSurrogate(r) {
					if r >= 0xdc00 || utf16.DecodeRune(r, fastHex4(b[j:])) == unicode.ReplacementChar {
						return false
					}
					j += 6
				}
			default:
				return false
			}
		case c < 0x20:
			return false
		case c >= utf8.RuneSelf:
			r, size := utf8.DecodeRune(b[j:])
			if r == utf8.RuneError && size == 1 {
				return false
			}
			j += size
		default:
			j++
		}
	}
	return false
}

// skipNumber skips a number as JSON writes it.
func (d *fastDec) skipNumber() bool {
	b, j := d.b, d.i
	if j < len(b) && b[j] == '-' {
		j++
	}
	switch {
	case j < len(b) && b[j] == '0':
		j++
	case j < len(b) && '1' <= b[j] && b[j] <= '9':
		j = fastDigits(b, j+1)
	default:
		return false
	}
	if j < len(b) && b[j] == '.' {
		k := fastDigits(b, j+1)
		if k == j+1 {
			return false
		}
		j = k
	}
	if j < len(b) && (b[j] == 'e' || b[j] == 'E') {
		j++
		if j < len(b) && (b[j] == '+' || b[j] == '-') {
			j++
		}
		k := fastDigits(b, j)
		if k == j {
			return false
		}
		j = k
	}
	d.i = j
	return true
}

func fastDigits(b []byte, j int) int {
	for j < len(b) && '0' <= b[j] && b[j] <= '9' {
		j++
	}
	return j
}

// fastHex4 reads the \uXXXX escape at the start of b, as encoding/json's getu4
// does; -1 if there is none.
func fastHex4(b []byte) rune {
	if len(b) < 6 || b[0] != '\\' || b[1] != 'u' {
		return -1
	}
	var r rune
	for _, c := range b[2:6] {
		switch {
		case '0' <= c && c <= '9':
			c -= '0'
		case 'a' <= c && c <= 'f':
			c = c - 'a' + 10
		case 'A' <= c && c <= 'F':
			c = c - 'A' + 10
		default:
			return -1
		}
		r = r*16 + rune(c)
	}
	return r
}

// str reads a string value. With intern, an id equal to one read lately
// is shared instead of copied.
func (d *fastDec) str(intern bool) (string, bool) {
	if d.peek() != '"' {
		return "", false
	}
	b := d.b
	start := d.i + 1
	for j := start; j < len(b); j++ {
		c := b[j]
		if c == '"' {
			d.i = j + 1
			raw := b[start:j]
			if !intern {
				return string(raw), true
			}
			return d.intern(raw), true
		}
		if c == '\\' || c < 0x20 {
			return d.unquote(start, j)
		}
		if c >= utf8.RuneSelf {
			// Valid UTF-8 is kept as is; anything else is declined (the
			// slow path refuses it).
			r, size := utf8.DecodeRune(b[j:])
			if r == utf8.RuneError && size == 1 {
				return "", false
			}
			j += size - 1
		}
	}
	return "", false
}

func (d *fastDec) intern(raw []byte) string {
	for _, s := range d.recent {
		if s == string(raw) && s != "" {
			return s
		}
	}
	s := string(raw)
	d.recent[d.next%len(d.recent)] = s
	d.next++
	return s
}

// unquote reads the string that starts at start, plain up to j, as
// encoding/json's unquote does, escapes resolved. A lone or broken
// surrogate and invalid UTF-8, which encoding/json replaces by U+FFFD, are
// declined: the slow path refuses them.
func (d *fastDec) unquote(start, j int) (string, bool) {
	b := d.b
	out := make([]byte, j-start, j-start+64)
	copy(out, b[start:j])
	for j < len(b) {
		switch c := b[j]; {
		case c == '"':
			d.i = j + 1
			return string(out), true
		case c == '\\':
			if j+1 >= len(b) {
				return "", false
			}
			switch e := b[j+1]; e {
			case '"', '\\', '/':
				out = append(out, e)
				j += 2
			case 'b':
				out = append(out, '\b')
				j += 2
			case 'f':
				out = append(out, '\f')
				j += 2
			case 'n':
				out = append(out, '\n')
				j += 2
			case 'r':
				out = append(out, '\r')
				j += 2
			case 't':
				out = append(out, '\t')
				j += 2
			case 'u':
				r := fastHex4(b[j:])
				if r < 0 {
					return "", false
				}
				j += 6
				if utf16.IsSurrogate(r) {
					dec := utf16.DecodeRune(r, fastHex4(b[j:]))
					if r >= 0xdc00 || dec == unicode.ReplacementChar {
						return "", false
					}
					out = utf8.AppendRune(out, dec)
					j += 6
					break
				}
				out = utf8.AppendRune(out, r)
			default:
				return "", false
			}
		case c < 0x20:
			return "", false
		case c < utf8.RuneSelf:
			out = append(out, c)
			j++
		default:
			r, size := utf8.DecodeRune(b[j:])
			if r == utf8.RuneError && size == 1 {
				return "", false
			}
			out = append(out, b[j:j+size]...)
			j += size
		}
	}
	return "", false
}

// strField reads a string member into dst; null leaves it alone.
func (d *fastDec) strField(dst *string, intern bool) bool {
	if d.null() {
		return true
	}
	s, ok := d.str(intern)
	*dst = s
	return ok
}

// boolField reads a bool member; null leaves it alone.
func (d *fastDec) boolField(dst *bool) bool {
	switch d.peek() {
	case 't':
		*dst = true
		return d.literal(fastTrue)
	case 'f':
		*dst = false
		return d.literal(fastFalse)
	case 'n':
		return d.literal(fastNull)
	}
	return false
}

// metadata reads a Struct member with json.Unmarshal, as the slow path
// does; null leaves it nil.
func (d *fastDec) metadata(dst *a2a.Metadata) bool {
	if d.null() {
		return true
	}
	span, ok := d.value()
	if !ok {
		return false
	}
	var m a2a.Metadata
	if json.Unmarshal(span, &m) != nil {
		return false
	}
	*dst = m
	return true
}

// strings reads a list of strings; null leaves it nil, [] is empty.
func (d *fastDec) strings(dst *[]string) bool {
	if d.null() {
		return true
	}
	if !d.open('[') {
		return false
	}
	var buf [4]string
	list := buf[:0]
	for n := 0; ; n++ {
		done, ok := d.element(n)
		if !ok {
			return false
		}
		if done {
			break
		}
		s, ok := d.str(false)
		if !ok {
			return false
		}
		list = append(list, s)
	}
	*dst = append(make([]string, 0, len(list)), list...)
	return true
}

// part reads a part, which must set exactly one content member: none is a
// part of unknown kind, which the slow path drops with a log line, and
// more than one is its error.
func (d *fastDec) part(p *a2a.Part) bool {
	if !d.open('{') {
		return false
	}
	var seen uint32
	var unk fastUnknown
	content := 0
	for n := 0; ; n++ {
		name, done, ok := d.member(n)
		if !ok {
			return false
		}
		if done {
			break
		}
		switch string(name) {
		case "text":
			if !fastOnce(&seen, 0) {
				return false
			}
			if d.null() {
				continue
			}
			s, ok := d.str(false)
			if !ok {
				return false
			}
			p.Kind, p.Text = a2a.PartText, s
			content++
		case "raw":
			if !fastOnce(&seen, 1) {
				return false
			}
			if d.null() {
				continue
			}
			s, ok := d.str(false)
			if !ok {
				return false
			}
			raw, err := a2a.DecodeBase64(s)
			if err != nil {
				return false
			}
			p.Kind, p.Raw = a2a.PartRaw, raw
			content++
		case "url":
			if !fastOnce(&seen, 2) {
				return false
			}
			if d.null() {
				continue
			}
			s, ok := d.str(false)
			if !ok {
				return false
			}
			p.Kind, p.URL = a2a.PartURL, s
			content++
		case "data":
			if !fastOnce(&seen, 3) {
				return false
			}
			// Present even as null, as a json.RawMessage is.
			span, ok := d.value()
			if !ok {
				return false
			}
			p.Kind, p.Data = a2a.PartData, a2a.CompactJSON(append(json.RawMessage(nil), span...))
			content++
		case "metadata":
			if !fastOnce(&seen, 4) || !d.metadata(&p.Metadata) {
				return false
			}
		case "filename":
			if !fastOnce(&seen, 5) || !d.strField(&p.Filename, false) {
				return false
			}
		case "mediaType":
			if !fastOnce(&seen, 6) || !d.strField(&p.MediaType, false) {
				return false
			}
		default:
			if !d.skipUnknown(name, fastPartFields, &unk) {
				return false
			}
		}
	}
	return content == 1
}

// parts reads a list of parts; null leaves it nil, [] is empty.
func (d *fastDec) parts(dst *[]a2a.Part) bool {
	if d.null() {
		return true
	}
	if !d.open('[') {
		return false
	}
	var buf [2]a2a.Part
	list := buf[:0]
	for n := 0; ; n++ {
		done, ok := d.element(n)
		if !ok {
			return false
		}
		if done {
			break
		}
		list = append(list, a2a.Part{})
		if !d.part(&list[len(list)-1]) {
			return false
		}
	}
	*dst = append(make([]a2a.Part, 0, len(list)), list...)
	return true
}

// message reads a message; an absent role reads as ROLE_UNSPECIFIED.
func (d *fastDec) message(m *a2a.Message) bool {
	if !d.open('{') {
		return false
	}
	var seen uint32
	var unk fastUnknown
	for n := 0; ; n++ {
		name, done, ok := d.member(n)
		if !ok {
			return false
		}
		if done {
			break
		}
		switch string(name) {
		case "messageId":
			ok = fastOnce(&seen, 0) && d.strField(&m.MessageID, false)
		case "contextId":
			ok = fastOnce(&seen, 1) && d.strField(&m.ContextID, true)
		case "taskId":
			ok = fastOnce(&seen, 2) && d.strField(&m.TaskID, true)
		case "role":
			ok = fastOnce(&seen, 3) && d.role(&m.Role)
		case "parts":
			ok = fastOnce(&seen, 4) && d.parts(&m.Parts)
		case "metadata":
			ok = fastOnce(&seen, 5) && d.metadata(&m.Metadata)
		case "extensions":
			ok = fastOnce(&seen, 6) && d.strings(&m.Extensions)
		case "referenceTaskIds":
			ok = fastOnce(&seen, 7) && d.strings(&m.ReferenceTaskIDs)
		default:
			ok = d.skipUnknown(name, fastMessageFields, &unk)
		}
		if !ok {
			return false
		}
	}
	if m.Role == "" {
		m.Role = a2a.RoleUnspecified
	}
	return true
}

// role reads a role with Role.UnmarshalJSON, given the literal as
// encoding/json gives it (null included).
func (d *fastDec) role(dst *a2a.Role) bool {
	span, ok := d.value()
	return ok && dst.UnmarshalJSON(span) == nil
}

// state reads a task state with TaskState.UnmarshalJSON, given the
// literal as encoding/json gives it (null included).
func (d *fastDec) state(dst *a2a.TaskState) bool {
	span, ok := d.value()
	return ok && dst.UnmarshalJSON(span) == nil
}

// messagePtr reads an optional message.
func (d *fastDec) messagePtr(dst **a2a.Message) bool {
	if d.null() {
		return true
	}
	m := new(a2a.Message)
	*dst = m
	return d.message(m)
}

// artifact reads an artifact.
func (d *fastDec) artifact(a *a2a.Artifact) bool {
	if !d.open('{') {
		return false
	}
	var seen uint32
	var unk fastUnknown
	for n := 0; ; n++ {
		name, done, ok := d.member(n)
		if !ok {
			return false
		}
		if done {
			break
		}
		switch string(name) {
		case "artifactId":
			ok = fastOnce(&seen, 0) && d.strField(&a.ArtifactID, false)
		case "name":
			ok = fastOnce(&seen, 1) && d.strField(&a.Name, false)
		case "description":
			ok = fastOnce(&seen, 2) && d.strField(&a.Description, false)
		case "parts":
			ok = fastOnce(&seen, 3) && d.parts(&a.Parts)
		case "metadata":
			ok = fastOnce(&seen, 4) && d.metadata(&a.Metadata)
		case "extensions":
			ok = fastOnce(&seen, 5) && d.strings(&a.Extensions)
		default:
			ok = d.skipUnknown(name, fastArtifactFields, &unk)
		}
		if !ok {
			return false
		}
	}
	return true
}

// status reads a status (null: the zero status); its timestamp must be
// within the range of google.protobuf.Timestamp, as the slow path checks.
func (d *fastDec) status(s *a2a.TaskStatus) bool {
	if d.null() {
		return true
	}
	if !d.open('{') {
		return false
	}
	var seen uint32
	var unk fastUnknown
	for n := 0; ; n++ {
		name, done, ok := d.member(n)
		if !ok {
			return false
		}
		if done {
			break
		}
		switch string(name) {
		case "state":
			ok = fastOnce(&seen, 0) && d.state(&s.State)
		case "message":
			ok = fastOnce(&seen, 1) && d.messagePtr(&s.Message)
		case "timestamp":
			ok = fastOnce(&seen, 2) && d.timestamp(&s.Timestamp)
		default:
			ok = d.skipUnknown(name, fastStatusFields, &unk)
		}
		if !ok {
			return false
		}
	}
	return true
}

// timestamp reads a timestamp with time.Time's UnmarshalJSON, as
// encoding/json does; null leaves it nil.
func (d *fastDec) timestamp(dst **time.Time) bool {
	if d.null() {
		return true
	}
	span, ok := d.value()
	if !ok {
		return false
	}
	t := d.spareTime
	if t != nil {
		d.spareTime = nil
	} else {
		t = new(time.Time)
	}
	if t.UnmarshalJSON(span) != nil {
		return false
	}
	if y := t.UTC().Year(); y < 1 || y > 9999 {
		return false
	}
	*dst = t
	return true
}

// task reads a task.
func (d *fastDec) task(t *a2a.Task) bool {
	if !d.open('{') {
		return false
	}
	var seen uint32
	var unk fastUnknown
	for n := 0; ; n++ {
		name, done, ok := d.member(n)
		if !ok {
			return false
		}
		if done {
			break
		}
		switch string(name) {
		case "id":
			ok = fastOnce(&seen, 0) && d.strField(&t.ID, true)
		case "contextId":
			ok = fastOnce(&seen, 1) && d.strField(&t.ContextID, true)
		case "status":
			ok = fastOnce(&seen, 2) && d.status(&t.Status)
		case "artifacts":
			ok = fastOnce(&seen, 3) && d.artifacts(&t.Artifacts)
		case "history":
			ok = fastOnce(&seen, 4) && d.history(&t.History)
		case "metadata":
			ok = fastOnce(&seen, 5) && d.metadata(&t.Metadata)
		default:
			ok = d.skipUnknown(name, fastTaskFields, &unk)
		}
		if !ok {
			return false
		}
	}
	return true
}

// taskPtr reads an optional task.
func (d *fastDec) taskPtr(dst **a2a.Task) bool {
	if d.null() {
		return true
	}
	t := new(a2a.Task)
	*dst = t
	return d.task(t)
}

// artifacts reads a list of artifacts; null leaves it nil, [] is empty.
func (d *fastDec) artifacts(dst *[]a2a.Artifact) bool {
	if d.null() {
		return true
	}
	if !d.open('[') {
		return false
	}
	var buf [2]a2a.Artifact
	list := buf[:0]
	for n := 0; ; n++ {
		done, ok := d.element(n)
		if !ok {
			return false
		}
		if done {
			break
		}
		list = append(list, a2a.Artifact{})
		if !d.artifact(&list[len(list)-1]) {
			return false
		}
	}
	*dst = append(make([]a2a.Artifact, 0, len(list)), list...)
	return true
}

// history reads a list of messages; null leaves it nil, [] is empty.
func (d *fastDec) history(dst *[]a2a.Message) bool {
	if d.null() {
		return true
	}
	if !d.open('[') {
		return false
	}
	var buf [2]a2a.Message
	list := buf[:0]
	for n := 0; ; n++ {
		done, ok := d.element(n)
		if !ok {
			return false
		}
		if done {
			break
		}
		list = append(list, a2a.Message{})
		if !d.message(&list[len(list)-1]) {
			return false
		}
	}
	*dst = append(make([]a2a.Message, 0, len(list)), list...)
	return true
}

// sendMessageResponse reads a send's answer: a task or a message, not both.
func (d *fastDec) sendMessageResponse(r *a2a.SendMessageResponse) bool {
	if !d.open('{') {
		return false
	}
	var seen uint32
	var unk fastUnknown
	for n := 0; ; n++ {
		name, done, ok := d.member(n)
		if !ok {
			return false
		}
		if done {
			break
		}
		switch string(name) {
		case "task":
			ok = fastOnce(&seen, 0) && d.taskPtr(&r.Task)
		case "message":
			ok = fastOnce(&seen, 1) && d.messagePtr(&r.Message)
		default:
			ok = d.skipUnknown(name, fastSendFields, &unk)
		}
		if !ok {
			return false
		}
	}
	return r.Task == nil || r.Message == nil
}

// streamResponse reads a stream event: at most one member (none is an
// event of unknown kind, as in the slow path).
func (d *fastDec) streamResponse(r *a2a.StreamResponse) bool {
	if !d.open('{') {
		return false
	}
	var seen uint32
	var unk fastUnknown
	for n := 0; ; n++ {
		name, done, ok := d.member(n)
		if !ok {
			return false
		}
		if done {
			break
		}
		switch string(name) {
		case "task":
			ok = fastOnce(&seen, 0) && d.taskPtr(&r.Task)
		case "message":
			ok = fastOnce(&seen, 1) && d.messagePtr(&r.Message)
		case "statusUpdate":
			ok = fastOnce(&seen, 2) && d.statusUpdate(&r.StatusUpdate)
		case "artifactUpdate":
			ok = fastOnce(&seen, 3) && d.artifactUpdate(&r.ArtifactUpdate)
		default:
			ok = d.skipUnknown(name, fastStreamFields, &unk)
		}
		if !ok {
			return false
		}
	}
	return countSet(r.Task != nil, r.Message != nil, r.StatusUpdate != nil, r.ArtifactUpdate != nil) <= 1
}

// statusUpdate reads an optional status update event.
func (d *fastDec) statusUpdate(dst **a2a.TaskStatusUpdateEvent) bool {
	if d.null() {
		return true
	}
	if !d.open('{') {
		return false
	}
	ev := new(a2a.TaskStatusUpdateEvent)
	*dst = ev
	var seen uint32
	var unk fastUnknown
	for n := 0; ; n++ {
		name, done, ok := d.member(n)
		if !ok {
			return false
		}
		if done {
			break
		}
		switch string(name) {
		case "taskId":
			ok = fastOnce(&seen, 0) && d.strField(&ev.TaskID, true)
		case "contextId":
			ok = fastOnce(&seen, 1) && d.strField(&ev.ContextID, true)
		case "status":
			ok = fastOnce(&seen, 2) && d.status(&ev.Status)
		case "metadata":
			ok = fastOnce(&seen, 3) && d.metadata(&ev.Metadata)
		default:
			ok = d.skipUnknown(name, fastStatusUpdateFields, &unk)
		}
		if !ok {
			return false
		}
	}
	return true
}

// artifactUpdate reads an optional artifact update event.
func (d *fastDec) artifactUpdate(dst **a2a.TaskArtifactUpdateEvent) bool {
	if d.null() {
		return true
	}
	if !d.open('{') {
		return false
	}
	ev := new(a2a.TaskArtifactUpdateEvent)
	*dst = ev
	var seen uint32
	var unk fastUnknown
	for n := 0; ; n++ {
		name, done, ok := d.member(n)
		if !ok {
			return false
		}
		if done {
			break
		}
		switch string(name) {
		case "taskId":
			ok = fastOnce(&seen, 0) && d.strField(&ev.TaskID, true)
		case "contextId":
			ok = fastOnce(&seen, 1) && d.strField(&ev.ContextID, true)
		case "artifact":
			ok = fastOnce(&seen, 2) && (d.null() || d.artifact(&ev.Artifact))
		case "append":
			ok = fastOnce(&seen, 3) && d.boolField(&ev.Append)
		case "lastChunk":
			ok = fastOnce(&seen, 4) && d.boolField(&ev.LastChunk)
		case "metadata":
			ok = fastOnce(&seen, 5) && d.metadata(&ev.Metadata)
		default:
			ok = d.skipUnknown(name, fastArtifactUpdateFields, &unk)
		}
		if !ok {
			return false
		}
	}
	return true
}
