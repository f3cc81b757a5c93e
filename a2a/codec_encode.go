package a2a

import (
	"encoding/json"
	"errors"
)

// The MarshalJSON methods of Part, Message, Artifact and TaskStatus write
// what ProtoJSON writes with encoding/json: the oneof member of a part,
// parts as a list even when empty, the state even when unspecified, the
// timestamp in ProtoJSON form. (a2a/internal/fastjson appends the same
// bytes by hand for the responses written most often.)

// MarshalJSON writes the oneof member named by Kind.
func (p Part) MarshalJSON() ([]byte, error) {
	type wire struct {
		Text      *string         `json:"text,omitempty"`
		Raw       *[]byte         `json:"raw,omitempty"`
		URL       *string         `json:"url,omitempty"`
		Data      json.RawMessage `json:"data,omitempty"`
		Metadata  Metadata        `json:"metadata,omitempty"`
		Filename  string          `json:"filename,omitempty"`
		MediaType string          `json:"mediaType,omitempty"`
	}
	w := wire{Metadata: p.Metadata, Filename: p.Filename, MediaType: p.MediaType}
	switch p.Kind {
	case PartText:
		w.Text = &p.Text
	case PartRaw:
		raw := p.Raw
		if raw == nil {
			raw = []byte{}
		}
		w.Raw = &raw
	case PartURL:
		w.URL = &p.URL
	case PartData:
		w.Data = p.Data
		if len(w.Data) == 0 {
			w.Data = json.RawMessage("null")
		}
	default:
		return nil, errors.New("a2a: cannot encode a part of unknown kind")
	}
	return json.Marshal(w)
}

// MarshalJSON writes parts as a list even when empty (the field is REQUIRED).
func (m Message) MarshalJSON() ([]byte, error) {
	type plain Message
	w := plain(m)
	if w.Parts == nil {
		w.Parts = []Part{}
	}
	return json.Marshal(w)
}

// MarshalJSON writes parts as a list even when empty (the field is REQUIRED).
func (a Artifact) MarshalJSON() ([]byte, error) {
	type plain Artifact
	w := plain(a)
	if w.Parts == nil {
		w.Parts = []Part{}
	}
	return json.Marshal(w)
}

// MarshalJSON writes the state even when unspecified (the field is REQUIRED)
// and the timestamp in ProtoJSON form.
func (s TaskStatus) MarshalJSON() ([]byte, error) {
	w := struct {
		State     TaskState  `json:"state"`
		Message   *Message   `json:"message,omitempty"`
		Timestamp *protoTime `json:"timestamp,omitempty"`
	}{s.State, s.Message, (*protoTime)(s.Timestamp)}
	if w.State == "" {
		w.State = TaskStateUnspecified
	}
	return json.Marshal(w)
}
