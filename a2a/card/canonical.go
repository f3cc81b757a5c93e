package card

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"unicode/utf8"

	"github.com/gowebpki/jcs"
)

// MaxDepth is the deepest JSON nesting a card may have. Struct-valued fields
// (AgentExtension.params, AgentCardSignature.header) let a sender nest without
// bound, and RFC 8785 serializers recurse, so the parser refuses deeper input.
const MaxDepth = 128

// Form names one way of deriving the signing payload from a received card.
type Form uint8

const (
	// FormSpec is the §8.4.1 form: "signatures" removed, optional fields kept
	// iff present, REQUIRED fields never dropped, other defaults omitted. It is
	// the form this package signs.
	FormSpec Form = iota + 1
	// FormStripped treats REQUIRED fields like plain ones, dropping them when
	// they hold defaults. It is what the a2a-tck validator and the a2a-python
	// and a2a-js canonicalizers produce, accepted on verification for interop.
	FormStripped
	// FormRaw drops only "signatures" and applies no presence rules: the card
	// exactly as served. Accepted on verification for signers that skip §8.4.1.
	FormRaw
	// FormSDK is what @a2a-js/sdk 1.3.0 (canonicalizeAgentCard) and
	// a2a-python sign and verify: the card read into the v1.0 schema and
	// written back (members outside it dropped, keys in their JSON names,
	// defaults of non-optional fields omitted), then every "", null, [] and
	// {} removed at every depth, Struct values included, and an object or
	// list left empty by that removed in turn. Accepted on verification for
	// interop; it covers less of the card than FormSpec (what it drops is
	// not signed), which is why Result.Form records the form that matched.
	FormSDK
)

// String returns the form's name for logs and metrics.
func (f Form) String() string {
	switch f {
	case FormSpec:
		return "spec"
	case FormStripped:
		return "stripped"
	case FormRaw:
		return "raw"
	case FormSDK:
		return "sdk"
	default:
		return "unknown"
	}
}

// Canonicalize returns the A2A 1.0 §8.4.1 signing payload of a card: the
// received JSON with the top-level "signatures" member removed, reduced by the
// proto field-presence rules, serialized with RFC 8785 (JCS).
//
// Presence rules, taken from the table in schema.go (written from a2a.proto):
//   - fields declared optional (and oneof members) are kept iff present, even
//     when false, 0 or "";
//   - REQUIRED fields are kept whenever present, even when empty ("", [], {}),
//     and are never dropped; absent REQUIRED fields are NOT invented. The spec's
//     worked example omits absent REQUIRED fields (supportedInterfaces,
//     version, defaultInputModes…), and adding them would produce a payload no
//     other implementation signs, so "always present" is read as "never
//     removed";
//   - other fields are omitted at their default: "", false, [], {} (maps);
//   - singular message fields have explicit presence in proto3, so a present
//     message is kept (after its own fields are reduced) even when it ends up
//     empty; JSON null on a known field means "unset" and is omitted;
//   - google.protobuf.Struct fields (params, header) are kept verbatim;
//   - unknown fields are kept as received, because they are signed content;
//   - a known field holding a value of the wrong JSON type is kept as received.
//
// Keys are matched by JSON name or proto name and kept as received. Input must
// be valid UTF-8 without lone surrogate escapes or duplicate keys, nest at most
// MaxDepth deep and hold a JSON object.
func Canonicalize(cardJSON []byte) ([]byte, error) {
	obj, err := decodeCard(cardJSON)
	if err != nil {
		return nil, err
	}
	return canonicalForm(obj, FormSpec)
}

// canonicalForm derives the payload of one form from a decoded card. obj is
// not modified.
func canonicalForm(obj map[string]any, form Form) ([]byte, error) {
	var reduced map[string]any
	switch form {
	case FormSpec:
		reduced = reduceMessage(obj, "AgentCard", false, true)
	case FormStripped:
		reduced = reduceMessage(obj, "AgentCard", true, true)
	case FormRaw:
		reduced = make(map[string]any, len(obj))
		for k, v := range obj {
			if k != "signatures" {
				reduced[k] = v
			}
		}
	case FormSDK:
		reduced, _ = cleanEmpty(sdkMessage(obj, "AgentCard", true)).(map[string]any)
		if reduced == nil {
			reduced = map[string]any{}
		}
	default:
		return nil, fmt.Errorf("card: canonicalize: unknown form %d", form)
	}
	return encodeJCS(reduced)
}

// encodeJCS serializes v with RFC 8785.
func encodeJCS(v any) ([]byte, error) {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return nil, fmt.Errorf("card: canonicalize: %w", err)
	}
	out, err := jcs.Transform(buf.Bytes())
	if err != nil {
		return nil, fmt.Errorf("card: canonicalize: jcs: %w", err)
	}
	return out, nil
}

// reduceMessage applies the presence rules to one message object. When
// stripRequired is true REQUIRED fields are treated as plain (FormStripped).
// top marks the AgentCard itself, whose "signatures" member is removed.
func reduceMessage(obj map[string]any, message string, stripRequired, top bool) map[string]any {
	fields := messageIndex[message]
	out := make(map[string]any, len(obj))
	for k, v := range obj {
		if top && k == "signatures" {
			continue
		}
		f, known := fields[k]
		if !known {
			out[k] = v // unknown: signed content, kept as received
			continue
		}
		if v == nil {
			continue // ProtoJSON null = unset
		}
		rv := reduceValue(f, v, stripRequired)
		p := f.presence
		if p == required && stripRequired {
			p = plain
		}
		if p == plain && isDefault(f.kind, rv) {
			continue
		}
		out[k] = rv
	}
	return out
}

// sdkMessage is a message as the SDKs' generated fromJSON/toJSON pair
// leaves it: only schema members, under their JSON names, non-optional
// fields at their default omitted. top marks the AgentCard, whose
// "signatures" member is removed.
func sdkMessage(obj map[string]any, message string, top bool) map[string]any {
	fields := messageIndex[message]
	out := make(map[string]any, len(obj))
	for k, v := range obj {
		if top && k == "signatures" {
			continue
		}
		f, known := fields[k]
		if !known || v == nil {
			continue
		}
		switch f.kind {
		case kindMessage:
			if m, ok := v.(map[string]any); ok {
				v = sdkMessage(m, f.message, false)
			}
		case kindMessages:
			if list, ok := v.([]any); ok {
				items := make([]any, len(list))
				for i, item := range list {
					if m, ok := item.(map[string]any); ok {
						item = sdkMessage(m, f.message, false)
					}
					items[i] = item
				}
				v = items
			}
		case kindMessageMap:
			if m, ok := v.(map[string]any); ok {
				items := make(map[string]any, len(m))
				for mk, item := range m {
					if mm, ok := item.(map[string]any); ok {
						item = sdkMessage(mm, f.message, false)
					}
					items[mk] = item
				}
				v = items
			}
		}
		if f.presence != optional && isDefault(f.kind, v) {
			continue
		}
		out[jsonName(f.proto)] = v
	}
	return out
}

// cleanEmpty removes "", null, empty lists and empty objects at every
// depth (the SDKs' cleanEmpty / _clean_empty); nil means v itself is
// removed.
func cleanEmpty(v any) any {
	switch x := v.(type) {
	case nil:
		return nil
	case string:
		if x == "" {
			return nil
		}
	case []any:
		out := make([]any, 0, len(x))
		for _, item := range x {
			if c := cleanEmpty(item); c != nil {
				out = append(out, c)
			}
		}
		if len(out) == 0 {
			return nil
		}
		return out
	case map[string]any:
		out := make(map[string]any, len(x))
		for k, item := range x {
			if c := cleanEmpty(item); c != nil {
				out[k] = c
			}
		}
		if len(out) == 0 {
			return nil
		}
		return out
	}
	return v
}

// reduceValue recurses into message-typed values; anything of an unexpected
// JSON type is returned unchanged.
func reduceValue(f *field, v any, stripRequired bool) any {
	switch f.kind {
	case kindMessage:
		if m, ok := v.(map[string]any); ok {
			return reduceMessage(m, f.message, stripRequired, false)
		}
	case kindMessages:
		if list, ok := v.([]any); ok {
			out := make([]any, len(list))
			for i, item := range list {
				if m, ok := item.(map[string]any); ok {
					out[i] = reduceMessage(m, f.message, stripRequired, false)
				} else {
					out[i] = item
				}
			}
			return out
		}
	case kindMessageMap:
		if m, ok := v.(map[string]any); ok {
			out := make(map[string]any, len(m))
			for k, item := range m {
				if mm, ok := item.(map[string]any); ok {
					out[k] = reduceMessage(mm, f.message, stripRequired, false)
				} else {
					out[k] = item
				}
			}
			return out
		}
	}
	return v
}

// isDefault reports whether v is the proto3 default of a plain field of kind k.
// Messages and Structs have explicit presence and are never "default".
func isDefault(k kind, v any) bool {
	switch k {
	case kindString:
		s, ok := v.(string)
		return ok && s == ""
	case kindBool:
		b, ok := v.(bool)
		return ok && !b
	case kindStrings, kindMessages:
		l, ok := v.([]any)
		return ok && len(l) == 0
	case kindStringMap, kindMessageMap:
		m, ok := v.(map[string]any)
		return ok && len(m) == 0
	default:
		return false
	}
}

// errInvalidJSON is wrapped into ErrInvalidCard by decodeCard.
var errDuplicateKey = errors.New("duplicate key")

// decodeCard parses a card into map[string]any with json.Number numbers,
// refusing invalid UTF-8, lone surrogate escapes, duplicate keys, nesting
// deeper than MaxDepth, trailing data and non-object input.
func decodeCard(data []byte) (map[string]any, error) {
	if !utf8.Valid(data) {
		return nil, fmt.Errorf("card: parse: %w: invalid UTF-8", ErrInvalidCard)
	}
	if err := checkSurrogates(data); err != nil {
		return nil, fmt.Errorf("card: parse: %w: %v", ErrInvalidCard, err)
	}
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber()
	v, err := decodeValue(dec, 0)
	if err != nil {
		return nil, fmt.Errorf("card: parse: %w: %v", ErrInvalidCard, err)
	}
	if _, err := dec.Token(); err != io.EOF {
		return nil, fmt.Errorf("card: parse: %w: trailing data after the card object", ErrInvalidCard)
	}
	obj, ok := v.(map[string]any)
	if !ok {
		return nil, fmt.Errorf("card: parse: %w: card is not a JSON object", ErrInvalidCard)
	}
	return obj, nil
}

func decodeValue(dec *json.Decoder, depth int) (any, error) {
	tok, err := dec.Token()
	if err != nil {
		if err == io.EOF {
			return nil, io.ErrUnexpectedEOF
		}
		return nil, err
	}
	d, ok := tok.(json.Delim)
	if !ok {
		return tok, nil // string, json.Number, bool or nil
	}
	if depth >= MaxDepth {
		return nil, fmt.Errorf("nesting deeper than %d", MaxDepth)
	}
	switch d {
	case '{':
		obj := make(map[string]any)
		for dec.More() {
			kt, err := dec.Token()
			if err != nil {
				return nil, err
			}
			key, ok := kt.(string)
			if !ok {
				return nil, fmt.Errorf("object key is not a string")
			}
			if _, dup := obj[key]; dup {
				return nil, fmt.Errorf("%w %q", errDuplicateKey, key)
			}
			val, err := decodeValue(dec, depth+1)
			if err != nil {
				return nil, err
			}
			obj[key] = val
		}
		if _, err := dec.Token(); err != nil { // '}'
			return nil, err
		}
		return obj, nil
	case '[':
		list := []any{}
		for dec.More() {
			val, err := decodeValue(dec, depth+1)
			if err != nil {
				return nil, err
			}
			list = append(list, val)
		}
		if _, err := dec.Token(); err != nil { // ']'
			return nil, err
		}
		return list, nil
	default:
		return nil, fmt.Errorf("unexpected %q", rune(d))
	}
}

// checkSurrogates refuses \u escapes that encode a lone UTF-16 surrogate.
// encoding/json (and jcs) silently turn those into U+FFFD, which would let two
// different byte strings share one signing payload. Backslashes only occur
// inside JSON strings, so a flat scan is enough; malformed escapes are left
// for the JSON parser to reject.
func checkSurrogates(data []byte) error {
	for i := 0; i < len(data); i++ {
		if data[i] != '\\' {
			continue
		}
		if i+1 >= len(data) {
			return nil
		}
		if data[i+1] != 'u' {
			i++ // skip the escaped byte
			continue
		}
		r, ok := hex4(data, i+2)
		if !ok {
			return nil
		}
		i += 5
		switch {
		case r >= 0xDC00 && r <= 0xDFFF:
			return fmt.Errorf("lone low surrogate \\u%04x", r)
		case r >= 0xD800 && r <= 0xDBFF:
			lo, ok := -1, false
			if i+2 < len(data) && data[i+1] == '\\' && data[i+2] == 'u' {
				lo, ok = hex4(data, i+3)
			}
			if !ok || lo < 0xDC00 || lo > 0xDFFF {
				return fmt.Errorf("lone high surrogate \\u%04x", r)
			}
			i += 6
		}
	}
	return nil
}

func hex4(data []byte, at int) (int, bool) {
	if at+4 > len(data) {
		return 0, false
	}
	v := 0
	for _, c := range data[at : at+4] {
		switch {
		case '0' <= c && c <= '9':
			v = v<<4 | int(c-'0')
		case 'a' <= c && c <= 'f':
			v = v<<4 | int(c-'a'+10)
		case 'A' <= c && c <= 'F':
			v = v<<4 | int(c-'A'+10)
		default:
			return 0, false
		}
	}
	return v, true
}
