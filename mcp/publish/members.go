//go:build !bridge_nofastjson

package publish

import (
	"encoding/json"
	"unicode/utf8"
)

// toolMembers reads a data part's top-level "tool" and "arguments" members
// as Select did with json.Unmarshal into a map[string]json.RawMessage: ok is
// false for anything that is not a JSON object (invalid JSON included); a
// member's value is its raw bytes, the last one wins when a name repeats,
// and names are compared exactly once unescaped.
//
// Measured reason (a hand-written reader beside encoding/json): Select runs
// twice per published call (the guard's ToolOf and Execute), and the map
// decode was 8% of the publish path's allocations on `make bench` (about 35
// of 445 per call: the map, a copy of every member, the scanner's state)
// and 2.4% of its CPU. This reads the part in place, after one
// json.Valid; TestToolMembersMatchTheMapDecode and FuzzToolMembers hold it
// to the map decode. The bridge_nofastjson build tag (docs/performance.md)
// leaves it out for the map decode itself (members_off.go).
func toolMembers(d []byte) (tool, args json.RawMessage, hasTool, hasArgs, ok bool) {
	if !json.Valid(d) {
		return nil, nil, false, false, false
	}
	i := skipSpace(d, 0)
	if i >= len(d) || d[i] != '{' {
		return nil, nil, false, false, false // null, an array, a scalar
	}
	i = skipSpace(d, i+1)
	for i < len(d) && d[i] == '"' {
		kEnd := skipString(d, i)
		key := d[i:kEnd]
		i = skipSpace(d, kEnd)
		i = skipSpace(d, i+1) // ':'
		vEnd := skipValue(d, i)
		val := d[i:vEnd:vEnd]
		switch memberName(key) {
		case "tool":
			tool, hasTool = val, true
		case "arguments":
			args, hasArgs = val, true
		}
		i = skipSpace(d, vEnd)
		if i < len(d) && d[i] == ',' {
			i = skipSpace(d, i+1)
		}
	}
	return tool, args, hasTool, hasArgs, true
}

// stringValue decodes a JSON value (one of toolMembers') into a string, as
// json.Unmarshal does: a string of printable ASCII without escapes is its
// bytes, anything else goes through encoding/json (an error for a value
// that is not a string).
func stringValue(raw []byte) (string, error) {
	if len(raw) >= 2 && raw[0] == '"' && raw[len(raw)-1] == '"' {
		body := raw[1 : len(raw)-1]
		plain := true
		for _, c := range body {
			if c == '\\' || c == '"' || c < 0x20 || c >= utf8.RuneSelf {
				plain = false
				break
			}
		}
		if plain {
			return string(body), nil
		}
	}
	var s string
	err := json.Unmarshal(raw, &s)
	return s, err
}

// memberName is a quoted member name as the map decode keys it, for the
// comparison with "tool" and "arguments": names without escapes are their
// bytes (invalid UTF-8 cannot equal either), others are unquoted by
// encoding/json.
func memberName(quoted []byte) string {
	raw := quoted[1 : len(quoted)-1]
	plain := true
	for _, c := range raw {
		if c == '\\' || c >= utf8.RuneSelf {
			plain = false
			break
		}
	}
	if plain {
		if len(raw) != len("tool") && len(raw) != len("arguments") {
			return ""
		}
		return string(raw)
	}
	var s string
	if json.Unmarshal(quoted, &s) != nil {
		return ""
	}
	return s
}

func skipSpace(d []byte, i int) int {
	for i < len(d) {
		switch d[i] {
		case ' ', '\t', '\n', '\r':
			i++
		default:
			return i
		}
	}
	return i
}

// skipString returns the index after the string starting at d[i] ('"').
// d is valid JSON.
func skipString(d []byte, i int) int {
	for i++; i < len(d); i++ {
		switch d[i] {
		case '\\':
			i++
		case '"':
			return i + 1
		}
	}
	return i
}

// skipValue returns the index after the value starting at d[i]. d is
// valid JSON.
func skipValue(d []byte, i int) int {
	if i >= len(d) {
		return i
	}
	switch d[i] {
	case '"':
		return skipString(d, i)
	case '{', '[':
		depth := 0
		for ; i < len(d); i++ {
			switch d[i] {
			case '"':
				i = skipString(d, i) - 1
			case '{', '[':
				depth++
			case '}', ']':
				depth--
				if depth == 0 {
					return i + 1
				}
			}
		}
		return i
	}
	for ; i < len(d); i++ {
		switch d[i] {
		case ',', '}', ']', ' ', '\t', '\n', '\r':
			return i
		}
	}
	return i
}
