package elicitation

import (
	"encoding/json"
	"strings"
	"testing"
)

const full = `{"type":"object","properties":{
  "name":{"type":"string","minLength":2,"maxLength":5},
  "email":{"type":"string","format":"email"},
  "site":{"type":"string","format":"uri"},
  "born":{"type":"string","format":"date"},
  "at":{"type":"string","format":"date-time"},
  "age":{"type":"integer","minimum":0,"maximum":150},
  "score":{"type":"number","maximum":1.5},
  "ok":{"type":"boolean"},
  "color":{"type":"string","enum":["red","green"]},
  "size":{"type":"string","oneOf":[{"const":"s","title":"Small"},{"const":"l","title":"Large"}]},
  "tags":{"type":"array","items":{"type":"string","enum":["a","b","c"]},"minItems":1,"maxItems":2}
},"required":["name"]}`

func TestValidate(t *testing.T) {
	s, err := Parse([]byte(full))
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name, answer, problem string
	}{
		{"all good", `{"name":"Ada","email":"ada@example.com","site":"https://x.example","born":"1815-12-10","at":"2026-01-02T03:04:05Z","age":36,"score":1.5,"ok":true,"color":"red","size":"l","tags":["a","c"]}`, ""},
		{"required only", `{"name":"Ada"}`, ""},
		{"empty answer", `{}`, "name is required"},
		{"another property", `{"name":"Ada","nick":"A"}`, "nick is not asked for"},
		{"wrong type", `{"name":7}`, "name must be a string"},
		{"too short", `{"name":"A"}`, "at least 2 characters"},
		{"too long", `{"name":"Adalovelace"}`, "at most 5 characters"},
		{"bad email", `{"name":"Ada","email":"ada"}`, "email must be an email address"},
		{"bad uri", `{"name":"Ada","site":"not a uri"}`, "site must be an absolute URI"},
		{"bad date", `{"name":"Ada","born":"10/12/1815"}`, "born must be a date"},
		{"bad date-time", `{"name":"Ada","at":"2026-01-02"}`, "at must be a date and time"},
		{"fractional integer", `{"name":"Ada","age":3.5}`, "age must be a whole number"},
		{"below minimum", `{"name":"Ada","age":-1}`, "age must be at least 0"},
		{"above maximum", `{"name":"Ada","score":2}`, "score must be at most 1.5"},
		{"number as string", `{"name":"Ada","age":"36"}`, "age must be an integer"},
		{"boolean as string", `{"name":"Ada","ok":"yes"}`, "ok must be true or false"},
		{"not in enum", `{"name":"Ada","color":"blue"}`, `color must be one of "red", "green"`},
		{"not in titled enum", `{"name":"Ada","size":"Small"}`, "size must be one of"},
		{"multi select outside", `{"name":"Ada","tags":["d"]}`, "tags must hold only"},
		{"multi select too many", `{"name":"Ada","tags":["a","b","c"]}`, "at most 2 choices"},
		{"multi select empty", `{"name":"Ada","tags":[]}`, "at least 1 choices"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			d := json.NewDecoder(strings.NewReader(tt.answer))
			d.UseNumber()
			var m map[string]any
			if err := d.Decode(&m); err != nil {
				t.Fatal(err)
			}
			err := s.Validate(m)
			switch {
			case tt.problem == "" && err != nil:
				t.Fatalf("refused a good answer: %v", err)
			case tt.problem != "" && (err == nil || !strings.Contains(err.Error(), tt.problem)):
				t.Fatalf("error %v, want one naming %q", err, tt.problem)
			}
		})
	}
}

// TestAnswerForAnotherSchemaIsRefused is the reported case: {"name":"Ada"}
// to a request for {response} was sent on as an empty reply.
func TestAnswerForAnotherSchemaIsRefused(t *testing.T) {
	s, err := Parse([]byte(`{"type":"object","properties":{"response":{"type":"string"}},"required":["response"]}`))
	if err != nil {
		t.Fatal(err)
	}
	err = s.Validate(map[string]any{"name": "Ada"})
	if err == nil || !strings.Contains(err.Error(), "response is required") || !strings.Contains(err.Error(), "name is not asked for") {
		t.Fatalf("error %v", err)
	}
}

func TestParseRefusesWhatMCPDoesNotAllow(t *testing.T) {
	for name, raw := range map[string]string{
		"not an object":  `{"type":"string"}`,
		"nested object":  `{"type":"object","properties":{"a":{"type":"object","properties":{}}}}`,
		"plain array":    `{"type":"object","properties":{"a":{"type":"array","items":{"type":"string"}}}}`,
		"unknown type":   `{"type":"object","properties":{"a":{"type":"null"}}}`,
		"unknown format": `{"type":"object","properties":{"a":{"type":"string","format":"ipv4"}}}`,
		"stray required": `{"type":"object","properties":{},"required":["a"]}`,
		"not even JSON":  `{`,
	} {
		if _, err := Parse([]byte(raw)); err == nil {
			t.Errorf("%s: accepted", name)
		}
	}
}

func FuzzValidate(f *testing.F) {
	f.Add([]byte(full), []byte(`{"name":"Ada"}`))
	f.Add([]byte(`{"type":"object","properties":{"r":{"type":"string"}}}`), []byte(`{"r":1}`))
	f.Fuzz(func(t *testing.T, schema, answer []byte) {
		s, err := Parse(schema)
		if err != nil {
			return
		}
		var m map[string]any
		if json.Unmarshal(answer, &m) != nil {
			return
		}
		err = s.Validate(m)
		for _, r := range s.required {
			if _, ok := m[r]; !ok && err == nil {
				t.Fatalf("missing required %q accepted", r)
			}
		}
		for k := range m {
			if s.props[k] == nil && err == nil {
				t.Fatalf("property %q outside the schema accepted", k)
			}
		}
	})
}
