package a2a

import "bytes"

// maxScanDepth bounds the nesting protoNamesIn tracks; deeper input goes to
// the slow path, which has encoding/json's own limit.
const maxScanDepth = 256

// ProtoNamesIn reports whether normalizeFieldNames may have to rename a key
// of raw: whether raw has an object key, outside the values of Struct and
// Value fields, with an underscore after its first byte. It answers true
// too whenever it is unsure (an escaped key, nesting deeper than
// maxScanDepth, anything that is not a well-formed object), so that the
// slow path, and its errors, stay those of encoding/json. It does not
// allocate. Underscores in string values (enum names such as ROLE_USER,
// ids, text) do not count: they are why a plain byte search is not enough.
func ProtoNamesIn(raw []byte) bool {
	var inObject [maxScanDepth / 64]uint64 // bit set: the container at that depth is an object
	depth := 0
	expectKey := false
	skipping, skipDepth := false, 0 // inside the value of a Struct or Value field
	i := skipSpace(raw, 0)
	if i >= len(raw) || raw[i] != '{' {
		return true
	}
	for i < len(raw) {
		switch c := raw[i]; c {
		case ' ', '\t', '\n', '\r':
			i++
		case '{', '[':
			if depth == maxScanDepth {
				return true
			}
			if c == '{' {
				inObject[depth/64] |= 1 << (depth % 64)
			} else {
				inObject[depth/64] &^= 1 << (depth % 64)
			}
			depth++
			expectKey = c == '{'
			i++
		case '}', ']':
			if depth == 0 || (c == '}') != (inObject[(depth-1)/64]&(1<<((depth-1)%64)) != 0) {
				return true
			}
			if skipping && depth == skipDepth {
				skipping = false
			}
			depth--
			expectKey = false
			i++
			if depth == 0 {
				// The object is complete: anything but space after it is
				// left to the slow path and its error.
				return skipSpace(raw, i) != len(raw)
			}
		case ',':
			if depth == 0 {
				return true
			}
			if skipping && depth == skipDepth {
				skipping = false
			}
			expectKey = inObject[(depth-1)/64]&(1<<((depth-1)%64)) != 0
			i++
		case ':':
			expectKey = false
			i++
		case '"':
			start := i + 1
			escaped := false
			j := start
			for ; j < len(raw) && raw[j] != '"'; j++ {
				if raw[j] == '\\' {
					escaped = true
					j++
				}
			}
			if j >= len(raw) {
				return true
			}
			if expectKey && !(skipping && depth > skipDepth) {
				key := raw[start:j]
				if escaped || bytes.IndexByte(key, '_') > 0 {
					return true
				}
				if structFields[string(key)] {
					skipping, skipDepth = true, depth
				}
			}
			expectKey = false
			i = j + 1
		default:
			// A number or a literal: nothing to look at.
			i++
		}
	}
	return true
}

func skipSpace(b []byte, i int) int {
	for i < len(b) && (b[i] == ' ' || b[i] == '\t' || b[i] == '\n' || b[i] == '\r') {
		i++
	}
	return i
}
