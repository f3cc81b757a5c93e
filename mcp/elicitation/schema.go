// Package elicitation checks answers to MCP form elicitations against the
// schema that asked for them. MCP restricts a requested schema to a flat
// object of primitive properties (string with length and format limits,
// number or integer with bounds, boolean, single- and multi-select enums)
// and a required list; Parse reads that subset and Validate holds an answer
// to it, so an answer that does not fit is refused with the property it
// breaks instead of reaching the asker as something else (an empty reply).
package elicitation

import (
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"net/mail"
	"net/url"
	"slices"
	"sort"
	"strings"
	"time"
	"unicode/utf8"
)

// Schema is a parsed requested schema.
type Schema struct {
	props    map[string]*prop
	required []string
}

type prop struct {
	typ                string // string, number, integer, boolean, array
	minLen, maxLen     *int
	format             string
	min, max           *float64
	enum               []string // single select (string) or the items of a multi select (array)
	minItems, maxItems *int
	hasEnum            bool
}

// rawProp is a property as MCP writes it (2025-06-18 and 2025-11-25).
type rawProp struct {
	Type      string          `json:"type"`
	MinLength *int            `json:"minLength"`
	MaxLength *int            `json:"maxLength"`
	Format    string          `json:"format"`
	Minimum   *float64        `json:"minimum"`
	Maximum   *float64        `json:"maximum"`
	Enum      []string        `json:"enum"`
	OneOf     []constTitle    `json:"oneOf"`
	Items     *rawItems       `json:"items"`
	MinItems  *int            `json:"minItems"`
	MaxItems  *int            `json:"maxItems"`
	Props     json.RawMessage `json:"properties"`
}

type constTitle struct {
	Const string `json:"const"`
}

type rawItems struct {
	Type  string       `json:"type"`
	Enum  []string     `json:"enum"`
	AnyOf []constTitle `json:"anyOf"`
}

// Parse reads a requested schema. It refuses what MCP does not allow in
// one: a top level that is not an object, a nested object or a list that
// is not a multi-select enum, an unknown type, a required name that is no
// property.
func Parse(raw []byte) (*Schema, error) {
	var top struct {
		Type       string             `json:"type"`
		Properties map[string]rawProp `json:"properties"`
		Required   []string           `json:"required"`
	}
	if err := json.Unmarshal(raw, &top); err != nil {
		return nil, fmt.Errorf("elicitation: requested schema: %w", err)
	}
	if top.Type != "object" {
		return nil, fmt.Errorf("elicitation: requested schema: type %q, want object", top.Type)
	}
	s := &Schema{props: map[string]*prop{}}
	for name, rp := range top.Properties {
		p, err := parseProp(rp)
		if err != nil {
			return nil, fmt.Errorf("elicitation: requested schema: property %q: %w", name, err)
		}
		s.props[name] = p
	}
	for _, r := range top.Required {
		if s.props[r] == nil {
			return nil, fmt.Errorf("elicitation: requested schema: required %q is not a property", r)
		}
	}
	s.required = slices.Clone(top.Required)
	return s, nil
}

func parseProp(rp rawProp) (*prop, error) {
	if rp.Props != nil {
		return nil, errors.New("nested objects are not allowed")
	}
	p := &prop{typ: rp.Type}
	switch rp.Type {
	case "string":
		p.minLen, p.maxLen, p.format = rp.MinLength, rp.MaxLength, rp.Format
		switch rp.Format {
		case "", "email", "uri", "date", "date-time":
		default:
			return nil, fmt.Errorf("format %q is not one MCP allows", rp.Format)
		}
		if len(rp.Enum) > 0 || len(rp.OneOf) > 0 {
			p.hasEnum = true
			p.enum = append(slices.Clone(rp.Enum), consts(rp.OneOf)...)
		}
	case "number", "integer":
		p.min, p.max = rp.Minimum, rp.Maximum
	case "boolean":
	case "array":
		if rp.Items == nil || (len(rp.Items.Enum) == 0 && len(rp.Items.AnyOf) == 0) {
			return nil, errors.New("an array must be a multi-select enum (items with enum or anyOf)")
		}
		p.hasEnum = true
		p.enum = append(slices.Clone(rp.Items.Enum), consts(rp.Items.AnyOf)...)
		p.minItems, p.maxItems = rp.MinItems, rp.MaxItems
	default:
		return nil, fmt.Errorf("type %q is not a primitive MCP allows", rp.Type)
	}
	return p, nil
}

func consts(cs []constTitle) []string {
	out := make([]string, 0, len(cs))
	for _, c := range cs {
		out = append(out, c.Const)
	}
	return out
}

// Properties are the schema's property names, sorted.
func (s *Schema) Properties() []string {
	out := make([]string, 0, len(s.props))
	for k := range s.props {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}

// Type is the type of property name ("" when there is none).
func (s *Schema) Type(name string) string {
	if p := s.props[name]; p != nil {
		return p.typ
	}
	return ""
}

// Validate holds accepted content to the schema: every required property
// present, no property the schema does not ask for, each value of its type
// and within its limits. The error names every property that fails, in
// name order.
func (s *Schema) Validate(content map[string]any) error {
	var problems []string
	for _, r := range s.required {
		if _, ok := content[r]; !ok {
			problems = append(problems, fmt.Sprintf("%s is required", r))
		}
	}
	names := make([]string, 0, len(content))
	for k := range content {
		names = append(names, k)
	}
	sort.Strings(names)
	for _, k := range names {
		p := s.props[k]
		if p == nil {
			problems = append(problems, fmt.Sprintf("%s is not asked for (the schema asks for %s)", clip(k), strings.Join(s.Properties(), ", ")))
			continue
		}
		if err := p.check(content[k]); err != nil {
			problems = append(problems, fmt.Sprintf("%s %s", k, err))
		}
	}
	if len(problems) == 0 {
		return nil
	}
	return &Error{Problems: problems}
}

// Error is an answer that does not fit its schema.
type Error struct {
	// Problems name each property that fails and why.
	Problems []string
}

func (e *Error) Error() string {
	return "the answer does not match the requested schema: " + strings.Join(e.Problems, "; ")
}

func (p *prop) check(v any) error {
	switch p.typ {
	case "string":
		str, ok := v.(string)
		if !ok {
			return fmt.Errorf("must be a string")
		}
		n := utf8.RuneCountInString(str)
		if p.minLen != nil && n < *p.minLen {
			return fmt.Errorf("must be at least %d characters", *p.minLen)
		}
		if p.maxLen != nil && n > *p.maxLen {
			return fmt.Errorf("must be at most %d characters", *p.maxLen)
		}
		if p.hasEnum && !slices.Contains(p.enum, str) {
			return fmt.Errorf("must be one of %s", strings.Join(quoted(p.enum), ", "))
		}
		if err := checkFormat(p.format, str); err != nil {
			return err
		}
	case "number", "integer":
		f, ok := number(v)
		if !ok && p.typ == "integer" {
			return fmt.Errorf("must be an integer")
		} else if !ok {
			return fmt.Errorf("must be a number")
		}
		if p.typ == "integer" && f != math.Trunc(f) {
			return fmt.Errorf("must be a whole number")
		}
		if p.min != nil && f < *p.min {
			return fmt.Errorf("must be at least %g", *p.min)
		}
		if p.max != nil && f > *p.max {
			return fmt.Errorf("must be at most %g", *p.max)
		}
	case "boolean":
		if _, ok := v.(bool); !ok {
			return fmt.Errorf("must be true or false")
		}
	case "array":
		list, ok := v.([]any)
		if !ok {
			return fmt.Errorf("must be a list")
		}
		if p.minItems != nil && len(list) < *p.minItems {
			return fmt.Errorf("must hold at least %d choices", *p.minItems)
		}
		if p.maxItems != nil && len(list) > *p.maxItems {
			return fmt.Errorf("must hold at most %d choices", *p.maxItems)
		}
		for _, item := range list {
			str, ok := item.(string)
			if !ok || !slices.Contains(p.enum, str) {
				return fmt.Errorf("must hold only %s", strings.Join(quoted(p.enum), ", "))
			}
		}
	}
	return nil
}

func number(v any) (float64, bool) {
	switch x := v.(type) {
	case float64:
		return x, true
	case json.Number:
		f, err := x.Float64()
		return f, err == nil
	case int:
		return float64(x), true
	case int64:
		return float64(x), true
	}
	return 0, false
}

func checkFormat(format, s string) error {
	switch format {
	case "email":
		if a, err := mail.ParseAddress(s); err != nil || a.Address != s {
			return fmt.Errorf("must be an email address")
		}
	case "uri":
		if u, err := url.Parse(s); err != nil || u.Scheme == "" {
			return fmt.Errorf("must be an absolute URI")
		}
	case "date":
		if _, err := time.Parse(time.DateOnly, s); err != nil {
			return fmt.Errorf("must be a date (YYYY-MM-DD)")
		}
	case "date-time":
		if _, err := time.Parse(time.RFC3339, s); err != nil {
			return fmt.Errorf("must be a date and time (RFC 3339)")
		}
	}
	return nil
}

func quoted(ss []string) []string {
	out := make([]string, len(ss))
	for i, s := range ss {
		out[i] = fmt.Sprintf("%q", clip(s))
	}
	return out
}

// clip keeps a name from the answer short and printable in an error.
func clip(s string) string {
	s = strings.ToValidUTF8(s, "?")
	if len(s) > 64 {
		s = s[:64] + "…"
	}
	return strings.Map(func(r rune) rune {
		if r < 0x20 || r == 0x7f {
			return '?'
		}
		return r
	}, s)
}
