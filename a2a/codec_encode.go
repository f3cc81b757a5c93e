package a2a

import (
	"encoding/base64"
	"encoding/json"
	"errors"
	"reflect"
	"unicode/utf8"
)

// The MarshalJSON methods of Part, Message, Artifact and TaskStatus append
// their JSON by hand instead of building a shadow struct for json.Marshal:
// each json.Marshal below the top level copied its result, boxed the
// shadow value, and was validated again by the caller's encoder. The bytes
// are those json.Marshal wrote (same member order and omissions, strings
// escaped as encoding/json does with HTML escaping on), and errors are
// wrapped as encoding/json wrapped them at each former method boundary.

var (
	typePart       = reflect.TypeFor[Part]()
	typeMessagePtr = reflect.TypeFor[*Message]()
)

// MarshalJSON writes the oneof member named by Kind.
func (p Part) MarshalJSON() ([]byte, error) {
	return appendPart(make([]byte, 0, 64+len(p.Text)+len(p.URL)+len(p.Data)+len(p.Raw)*4/3), &p)
}

// MarshalJSON writes parts as a list even when empty (the field is REQUIRED).
func (m Message) MarshalJSON() ([]byte, error) {
	return appendMessage(make([]byte, 0, 256), &m)
}

// MarshalJSON writes parts as a list even when empty (the field is REQUIRED).
func (a Artifact) MarshalJSON() ([]byte, error) {
	return appendArtifact(make([]byte, 0, 256), &a)
}

// MarshalJSON writes the state even when unspecified (the field is REQUIRED)
// and the timestamp in ProtoJSON form.
func (s TaskStatus) MarshalJSON() ([]byte, error) {
	return appendStatus(make([]byte, 0, 128), &s)
}

func appendPart(dst []byte, p *Part) ([]byte, error) {
	switch p.Kind {
	case PartText:
		dst = append(dst, `{"text":`...)
		dst = appendString(dst, p.Text)
	case PartRaw:
		dst = append(dst, `{"raw":"`...)
		dst = base64.StdEncoding.AppendEncode(dst, p.Raw)
		dst = append(dst, '"')
	case PartURL:
		dst = append(dst, `{"url":`...)
		dst = appendString(dst, p.URL)
	case PartData:
		dst = append(dst, `{"data":`...)
		var err error
		if dst, err = appendRawJSON(dst, p.Data); err != nil {
			return nil, err
		}
	default:
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
	b, err := json.Marshal(&d)
	if err != nil {
		return nil, err
	}
	return append(dst, b...), nil
}

func appendMetadata(dst []byte, key string, m Metadata) ([]byte, error) {
	if len(m) == 0 {
		return dst, nil
	}
	b, err := json.Marshal(m)
	if err != nil {
		return nil, err
	}
	dst = append(dst, key...)
	return append(dst, b...), nil
}

func appendParts(dst []byte, parts []Part) ([]byte, error) {
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

func appendMessage(dst []byte, m *Message) ([]byte, error) {
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

func appendArtifact(dst []byte, a *Artifact) ([]byte, error) {
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

func appendStatus(dst []byte, s *TaskStatus) ([]byte, error) {
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
		b, _ := protoTime(*s.Timestamp).MarshalJSON()
		dst = append(dst, b...)
	}
	return append(dst, '}'), nil
}

// appendRole and appendState append an enum. A known name is written as
// is; anything else goes through json.Marshal, which calls the type's
// MarshalJSON and checks its output, as the encoder of the enclosing value
// did (a value of digits that is no JSON number is an error).
func appendRole(dst []byte, r Role) ([]byte, error) {
	if r == "" {
		r = RoleUnspecified
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

func appendState(dst []byte, s TaskState) ([]byte, error) {
	if s == "" {
		s = TaskStateUnspecified
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

// appendString appends s as a JSON string exactly as encoding/json writes
// it with HTML escaping on: <, > and & as \u003c etc., U+2028 and U+2029
// escaped, invalid UTF-8 replaced by U+FFFD, \b \f \n \r \t in short form.
func appendString(dst []byte, s string) []byte {
	dst = append(dst, '"')
	start := 0
	for i := 0; i < len(s); {
		if b := s[i]; b < utf8.RuneSelf {
			if b >= 0x20 && b != '"' && b != '\\' && b != '<' && b != '>' && b != '&' {
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
