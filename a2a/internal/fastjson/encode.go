//go:build !bridge_nofastjson

package fastjson

import (
	"encoding/base64"
	"encoding/json"
	"errors"
	"math"
	"reflect"
	"slices"
	"strconv"
	"time"
	"unicode/utf8"

	"github.com/a2a-mcp-bridge/bridge/a2a"
)

// The type appenders below write what the MarshalJSON methods of Part,
// Message, Artifact and TaskStatus (and encoding/json around them) write,
// by hand instead of through shadow structs: each json.Marshal below the
// top level copied its result, boxed the shadow value, and was validated
// again by the caller's encoder. The bytes are those json.Marshal writes
// (same member order and omissions, strings escaped as encoding/json does
// with HTML escaping on), and errors are wrapped as encoding/json wraps
// them at each method boundary.

var (
	typePart       = reflect.TypeFor[a2a.Part]()
	typeMessagePtr = reflect.TypeFor[*a2a.Message]()
)

func appendPart(dst []byte, p *a2a.Part) ([]byte, error) {
	switch p.Kind {
	case a2a.PartText:
		dst = append(dst, `{"text":`...)
		dst = appendString(dst, p.Text)
	case a2a.PartRaw:
		dst = append(dst, `{"raw":"`...)
		dst = base64.StdEncoding.AppendEncode(dst, p.Raw)
		dst = append(dst, '"')
	case a2a.PartURL:
		dst = append(dst, `{"url":`...)
		dst = appendString(dst, p.URL)
	case a2a.PartData:
		dst = append(dst, `{"data":`...)
		var err error
		if dst, err = appendRawJSON(dst, p.Data); err != nil {
			return nil, err
		}
	default:
		// a2a.Part.MarshalJSON's error, word for word: the caller wraps it
		// in the json.MarshalerError encoding/json would, so both paths
		// fail with the same text (encode_test compares them).
		return nil, errors.New("a2a: cannot encode a part of unknown kind")
	}
	var err error
	if dst, err = appendMetadata(dst, `,"metadata":`, p.Metadata); err != nil {
		return nil, err
	}
	if p.Filename != "" {
		dst = append(dst, `,"filename":`...)
		dst = appendString(dst, p.Filename)
	}
	if p.MediaType != "" {
		dst = append(dst, `,"mediaType":`...)
		dst = appendString(dst, p.MediaType)
	}
	return append(dst, '}'), nil
}

// appendRawJSON appends the value of a data part as encoding/json writes a
// json.RawMessage: compacted and HTML-escaped, "null" when empty. Data as
// decoded (compact, nothing to escape) is copied as is.
func appendRawJSON(dst []byte, d json.RawMessage) ([]byte, error) {
	if len(d) == 0 {
		return append(dst, "null"...), nil
	}
	plain := true
	for _, c := range d {
		switch c {
		case ' ', '\t', '\n', '\r', '<', '>', '&', 0xE2:
			plain = false
		}
	}
	if plain && json.Valid(d) {
		return append(dst, d...), nil
	}
	b, err := json.Marshal(d)
	if err != nil {
		return nil, err
	}
	return append(dst, b...), nil
}

// appendMetadata appends key and m unless m is empty (omitempty).
func appendMetadata(dst []byte, key string, m a2a.Metadata) ([]byte, error) {
	if len(m) == 0 {
		return dst, nil
	}
	dst = append(dst, key...)
	return appendObject(dst, m)
}

// errDeepValue stops the hand-written walk of a metadata value nested
// deeper than maxFastDepth, which may be a cycle: the whole object is then
// written by json.Marshal, whose cycle detection gives its usual error.
var errDeepValue = errors.New("fastjson: metadata nested too deep for the fast encoder")

const maxFastDepth = 100

// appendObject appends m as json.Marshal writes a map[string]any: keys
// sorted bytewise, strings HTML-escaped, "null" for a nil map. Strings,
// booleans, numbers, nil and nested maps and []any are written here; any
// other value is written by json.Marshal (same bytes and errors as when
// encoding/json meets it inside the map).
func appendObject(dst []byte, m map[string]any) ([]byte, error) {
	n := len(dst)
	out, err := appendMap(dst, m, 0)
	if err == errDeepValue {
		b, err := json.Marshal(m)
		if err != nil {
			return nil, err
		}
		return append(dst[:n], b...), nil
	}
	return out, err
}

func appendMap(dst []byte, m map[string]any, depth int) ([]byte, error) {
	if m == nil {
		return append(dst, "null"...), nil
	}
	if depth > maxFastDepth {
		return nil, errDeepValue
	}
	// Sorted as encoding/json sorts them; small maps sort on the stack.
	var small [8]string
	keys := small[:0]
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	dst = append(dst, '{')
	for i, k := range keys {
		if i > 0 {
			dst = append(dst, ',')
		}
		dst = appendString(dst, k)
		dst = append(dst, ':')
		var err error
		if dst, err = appendValue(dst, m[k], depth+1); err != nil {
			return nil, err
		}
	}
	return append(dst, '}'), nil
}

func appendValue(dst []byte, v any, depth int) ([]byte, error) {
	switch x := v.(type) {
	case nil:
		return append(dst, "null"...), nil
	case string:
		return appendString(dst, x), nil
	case bool:
		return strconv.AppendBool(dst, x), nil
	case float64:
		if b, ok := appendFloat(dst, x, 64); ok {
			return b, nil
		}
	case float32:
		if b, ok := appendFloat(dst, float64(x), 32); ok {
			return b, nil
		}
	case int:
		return strconv.AppendInt(dst, int64(x), 10), nil
	case int64:
		return strconv.AppendInt(dst, x, 10), nil
	case int32:
		return strconv.AppendInt(dst, int64(x), 10), nil
	case uint64:
		return strconv.AppendUint(dst, x, 10), nil
	case map[string]any:
		return appendMap(dst, x, depth)
	case []any:
		if x == nil {
			return append(dst, "null"...), nil
		}
		if depth > maxFastDepth {
			return nil, errDeepValue
		}
		dst = append(dst, '[')
		for i, e := range x {
			if i > 0 {
				dst = append(dst, ',')
			}
			var err error
			if dst, err = appendValue(dst, e, depth+1); err != nil {
				return nil, err
			}
		}
		return append(dst, ']'), nil
	}
	// Anything else, and NaN or an infinity (for json.Marshal's error).
	b, err := json.Marshal(v)
	if err != nil {
		return nil, err
	}
	return append(dst, b...), nil
}

// appendFloat appends f as encoding/json writes a float of the given bit
// size (ES6 number form: exponent below 1e-6 and from 1e21, no exponent
// padding). It reports false for NaN and infinities, which are errors.
func appendFloat(dst []byte, f float64, bits int) ([]byte, bool) {
	if math.IsInf(f, 0) || math.IsNaN(f) {
		return dst, false
	}
	abs := math.Abs(f)
	format := byte('f')
	if abs != 0 {
		if bits == 64 && (abs < 1e-6 || abs >= 1e21) || bits == 32 && (float32(abs) < 1e-6 || float32(abs) >= 1e21) {
			format = 'e'
		}
	}
	dst = strconv.AppendFloat(dst, f, format, -1, bits)
	if format == 'e' {
		// e-09 → e-9
		n := len(dst)
		if n >= 4 && dst[n-4] == 'e' && dst[n-3] == '-' && dst[n-2] == '0' {
			dst[n-2] = dst[n-1]
			dst = dst[:n-1]
		}
	}
	return dst, true
}

func appendParts(dst []byte, parts []a2a.Part) ([]byte, error) {
	dst = append(dst, `,"parts":[`...)
	for i := range parts {
		if i > 0 {
			dst = append(dst, ',')
		}
		var err error
		if dst, err = appendPart(dst, &parts[i]); err != nil {
			return nil, &json.MarshalerError{Type: typePart, Err: err}
		}
	}
	return append(dst, ']'), nil
}

func appendStrings(dst []byte, key string, list []string) []byte {
	if len(list) == 0 {
		return dst
	}
	dst = append(dst, key...)
	dst = append(dst, '[')
	for i, s := range list {
		if i > 0 {
			dst = append(dst, ',')
		}
		dst = appendString(dst, s)
	}
	return append(dst, ']')
}

func appendMessage(dst []byte, m *a2a.Message) ([]byte, error) {
	dst = append(dst, `{"messageId":`...)
	dst = appendString(dst, m.MessageID)
	if m.ContextID != "" {
		dst = append(dst, `,"contextId":`...)
		dst = appendString(dst, m.ContextID)
	}
	if m.TaskID != "" {
		dst = append(dst, `,"taskId":`...)
		dst = appendString(dst, m.TaskID)
	}
	dst = append(dst, `,"role":`...)
	var err error
	if dst, err = appendRole(dst, m.Role); err != nil {
		return nil, err
	}
	if dst, err = appendParts(dst, m.Parts); err != nil {
		return nil, err
	}
	if dst, err = appendMetadata(dst, `,"metadata":`, m.Metadata); err != nil {
		return nil, err
	}
	dst = appendStrings(dst, `,"extensions":`, m.Extensions)
	dst = appendStrings(dst, `,"referenceTaskIds":`, m.ReferenceTaskIDs)
	return append(dst, '}'), nil
}

func appendArtifact(dst []byte, a *a2a.Artifact) ([]byte, error) {
	dst = append(dst, `{"artifactId":`...)
	dst = appendString(dst, a.ArtifactID)
	if a.Name != "" {
		dst = append(dst, `,"name":`...)
		dst = appendString(dst, a.Name)
	}
	if a.Description != "" {
		dst = append(dst, `,"description":`...)
		dst = appendString(dst, a.Description)
	}
	var err error
	if dst, err = appendParts(dst, a.Parts); err != nil {
		return nil, err
	}
	if dst, err = appendMetadata(dst, `,"metadata":`, a.Metadata); err != nil {
		return nil, err
	}
	dst = appendStrings(dst, `,"extensions":`, a.Extensions)
	return append(dst, '}'), nil
}

func appendStatus(dst []byte, s *a2a.TaskStatus) ([]byte, error) {
	dst = append(dst, `{"state":`...)
	var err error
	if dst, err = appendState(dst, s.State); err != nil {
		return nil, err
	}
	if s.Message != nil {
		dst = append(dst, `,"message":`...)
		if dst, err = appendMessage(dst, s.Message); err != nil {
			return nil, &json.MarshalerError{Type: typeMessagePtr, Err: err}
		}
	}
	if s.Timestamp != nil {
		dst = append(dst, `,"timestamp":`...)
		dst = appendProtoTime(dst, *s.Timestamp)
	}
	return append(dst, '}'), nil
}

// appendProtoTime appends t as protoTime.MarshalJSON writes it (RFC 3339
// in UTC with 0, 3, 6 or 9 fractional digits) without allocating. Years
// of four digits are written digit by digit (time.AppendFormat took a
// quarter of the time of encoding a small task); others by AppendFormat.
func appendProtoTime(dst []byte, t time.Time) []byte {
	u := t.UTC()
	ns := u.Nanosecond()
	year, month, day := u.Date()
	if year < 0 || year > 9999 {
		var layout string
		switch {
		case ns == 0:
			layout = "2006-01-02T15:04:05"
		case ns%1_000_000 == 0:
			layout = "2006-01-02T15:04:05.000"
		case ns%1_000 == 0:
			layout = "2006-01-02T15:04:05.000000"
		default:
			layout = "2006-01-02T15:04:05.000000000"
		}
		dst = append(dst, '"')
		dst = u.AppendFormat(dst, layout)
		return append(dst, 'Z', '"')
	}
	hour, minute, sec := u.Clock()
	dst = append(dst, '"')
	dst = appendDigits(dst, year, 4)
	dst = append(dst, '-')
	dst = appendDigits(dst, int(month), 2)
	dst = append(dst, '-')
	dst = appendDigits(dst, day, 2)
	dst = append(dst, 'T')
	dst = appendDigits(dst, hour, 2)
	dst = append(dst, ':')
	dst = appendDigits(dst, minute, 2)
	dst = append(dst, ':')
	dst = appendDigits(dst, sec, 2)
	switch {
	case ns == 0:
	case ns%1_000_000 == 0:
		dst = appendDigits(append(dst, '.'), ns/1_000_000, 3)
	case ns%1_000 == 0:
		dst = appendDigits(append(dst, '.'), ns/1_000, 6)
	default:
		dst = appendDigits(append(dst, '.'), ns, 9)
	}
	return append(dst, 'Z', '"')
}

// appendDigits appends the n lowest decimal digits of v >= 0, zero-padded.
func appendDigits(dst []byte, v, n int) []byte {
	dst = append(dst, "000000000"[:n]...)
	for i := len(dst) - 1; n > 0; i, n = i-1, n-1 {
		dst[i] = byte('0' + v%10)
		v /= 10
	}
	return dst
}

// appendRole and appendState append an enum. A known name is written as
// is; anything else goes through json.Marshal, which calls the type's
// MarshalJSON and checks its output, as the encoder of the enclosing value
// did (a value of digits that is no JSON number is an error).
func appendRole(dst []byte, r a2a.Role) ([]byte, error) {
	if r == "" {
		r = a2a.RoleUnspecified
	}
	if b, ok := knownEnumJSON[string(r)]; ok {
		return append(dst, b...), nil
	}
	b, err := json.Marshal(r)
	if err != nil {
		return nil, err
	}
	return append(dst, b...), nil
}

func appendState(dst []byte, s a2a.TaskState) ([]byte, error) {
	if s == "" {
		s = a2a.TaskStateUnspecified
	}
	if b, ok := knownEnumJSON[string(s)]; ok {
		return append(dst, b...), nil
	}
	b, err := json.Marshal(s)
	if err != nil {
		return nil, err
	}
	return append(dst, b...), nil
}

const hexDigits = "0123456789abcdef"

// jsonSafe marks the ASCII bytes appendString copies as they are.
var jsonSafe = func() (t [utf8.RuneSelf]bool) {
	for b := 0x20; b < utf8.RuneSelf; b++ {
		t[b] = b != '"' && b != '\\' && b != '<' && b != '>' && b != '&'
	}
	return t
}()

// appendString appends s as a JSON string exactly as encoding/json writes
// it with HTML escaping on: <, > and & as \u003c etc., U+2028 and U+2029
// escaped, invalid UTF-8 replaced by U+FFFD, \b \f \n \r \t in short form.
func appendString(dst []byte, s string) []byte {
	dst = append(dst, '"')
	start := 0
	for i := 0; i < len(s); {
		if b := s[i]; b < utf8.RuneSelf {
			if jsonSafe[b] {
				i++
				continue
			}
			dst = append(dst, s[start:i]...)
			switch b {
			case '\\', '"':
				dst = append(dst, '\\', b)
			case '\b':
				dst = append(dst, '\\', 'b')
			case '\f':
				dst = append(dst, '\\', 'f')
			case '\n':
				dst = append(dst, '\\', 'n')
			case '\r':
				dst = append(dst, '\\', 'r')
			case '\t':
				dst = append(dst, '\\', 't')
			default:
				dst = append(dst, '\\', 'u', '0', '0', hexDigits[b>>4], hexDigits[b&0xF])
			}
			i++
			start = i
			continue
		}
		c, size := utf8.DecodeRuneInString(s[i:])
		if c == utf8.RuneError && size == 1 {
			dst = append(dst, s[start:i]...)
			dst = append(dst, `\ufffd`...)
			i += size
			start = i
			continue
		}
		if c == '\u2028' || c == '\u2029' {
			dst = append(dst, s[start:i]...)
			dst = append(dst, '\\', 'u', '2', '0', '2', hexDigits[c&0xF])
			i += size
			start = i
			continue
		}
		i += size
	}
	dst = append(dst, s[start:]...)
	return append(dst, '"')
}
