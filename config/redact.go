package config

import (
	"encoding/json"
	"fmt"
	"net/url"
	"reflect"
	"slices"
	"strings"
	"time"

	"github.com/goccy/go-yaml"
)

// RedactedText is what replaces a secret in Config.Redacted.
const RedactedText = "[redacted]"

// Secret fields carry a `secret` struct tag that says how they are
// redacted for display (the admin status page and API):
//
//	secret:"value"  the whole value (each element of a list, each value of
//	                a map) is replaced by [redacted];
//	secret:"url"    a URL keeps its scheme, host and path; its password and
//	                query values are replaced by [redacted] (text that is not
//	                a URL is replaced whole).
//
// A test walks the configuration type and fails on a text field that is
// neither tagged nor listed as plain, so that a new secret-bearing field
// cannot be shown by mistake.
const secretTag = "secret"

// Secret tag values.
const (
	secretValue = "value"
	secretURL   = "url"
)

// Redacted returns the configuration as a tree of ordered maps, lists and
// scalars, keyed by the file's names, every secret redacted (see the
// `secret` tag): what an operator may see of the running configuration.
// Empty fields (nil, "", empty lists and maps) are left out.
func (c *Config) Redacted() RedactedConfig {
	v, _ := redactValue(reflect.ValueOf(c).Elem(), "")
	return RedactedConfig{v}
}

// RedactedConfig is a redacted configuration tree. It marshals to JSON
// (keys in the file's order) and to YAML.
type RedactedConfig struct{ v any }

// MarshalJSON implements json.Marshaler.
func (r RedactedConfig) MarshalJSON() ([]byte, error) { return json.Marshal(jsonTree(r.v)) }

// YAML renders the tree as YAML, in the file's key order.
func (r RedactedConfig) YAML() ([]byte, error) { return yaml.Marshal(r.v) }

// orderedJSON is a map that marshals its keys in order.
type orderedJSON yaml.MapSlice

func (o orderedJSON) MarshalJSON() ([]byte, error) {
	var b strings.Builder
	b.WriteByte('{')
	for i, it := range o {
		if i > 0 {
			b.WriteByte(',')
		}
		k, err := json.Marshal(fmt.Sprint(it.Key))
		if err != nil {
			return nil, err
		}
		val, err := json.Marshal(it.Value)
		if err != nil {
			return nil, err
		}
		b.Write(k)
		b.WriteByte(':')
		b.Write(val)
	}
	b.WriteByte('}')
	return []byte(b.String()), nil
}

func jsonTree(v any) any {
	switch t := v.(type) {
	case yaml.MapSlice:
		out := make(orderedJSON, len(t))
		for i, it := range t {
			out[i] = yaml.MapItem{Key: it.Key, Value: jsonTree(it.Value)}
		}
		return out
	case []any:
		out := make([]any, len(t))
		for i, e := range t {
			out[i] = jsonTree(e)
		}
		return out
	}
	return v
}

// yamlMarshaler is how Duration and ByteSize render themselves.
type yamlMarshaler interface{ MarshalYAML() (any, error) }

var (
	yamlMarshalerType = reflect.TypeFor[yamlMarshaler]()
	stdDurationType   = reflect.TypeFor[time.Duration]()
)

// redact turns v into a display tree, redacting by mode (a secret tag
// value, "" for plain); ok is false for an empty value, left out.
func redactValue(v reflect.Value, mode string) (any, bool) {
	if !v.IsValid() {
		return nil, false
	}
	if v.Type() == stdDurationType {
		if v.Int() == 0 {
			return nil, false
		}
		return time.Duration(v.Int()).String(), true
	}
	if v.Kind() != reflect.Pointer && v.Type().Implements(yamlMarshalerType) {
		if v.IsZero() {
			return nil, false
		}
		out, err := v.Interface().(yamlMarshaler).MarshalYAML()
		if err != nil {
			return RedactedText, true
		}
		return out, true
	}
	switch v.Kind() {
	case reflect.Pointer, reflect.Interface:
		if v.IsNil() {
			return nil, false
		}
		return redactValue(v.Elem(), mode)
	case reflect.Struct:
		var out yaml.MapSlice
		redactFields(v, &out)
		return out, len(out) > 0
	case reflect.Slice, reflect.Array:
		if v.Len() == 0 {
			return nil, false
		}
		out := make([]any, 0, v.Len())
		for i := range v.Len() {
			e, ok := redactValue(v.Index(i), mode)
			if !ok {
				e = ""
			}
			out = append(out, e)
		}
		return out, true
	case reflect.Map:
		if v.Len() == 0 {
			return nil, false
		}
		keys := v.MapKeys()
		slices.SortFunc(keys, func(a, b reflect.Value) int { return strings.Compare(fmt.Sprint(a), fmt.Sprint(b)) })
		var out yaml.MapSlice
		for _, k := range keys {
			e, ok := redactValue(v.MapIndex(k), mode)
			if !ok {
				e = ""
			}
			out = append(out, yaml.MapItem{Key: fmt.Sprint(k.Interface()), Value: e})
		}
		return out, true
	case reflect.String:
		s := v.String()
		if s == "" {
			return nil, false
		}
		return redactString(s, mode), true
	case reflect.Bool:
		if !v.Bool() {
			return nil, false
		}
		return true, true
	}
	if v.IsZero() {
		return nil, false
	}
	if mode != "" {
		return RedactedText, true
	}
	return v.Interface(), true
}

// redactFields appends v's fields (inline ones flattened) to out.
func redactFields(v reflect.Value, out *yaml.MapSlice) {
	t := v.Type()
	for i := range t.NumField() {
		sf := t.Field(i)
		if !sf.IsExported() {
			continue
		}
		name, opts, _ := strings.Cut(sf.Tag.Get("yaml"), ",")
		if name == "-" {
			continue
		}
		if strings.Contains(opts, "inline") {
			redactFields(v.Field(i), out)
			continue
		}
		if name == "" {
			name = strings.ToLower(sf.Name)
		}
		if e, ok := redactValue(v.Field(i), sf.Tag.Get(secretTag)); ok {
			*out = append(*out, yaml.MapItem{Key: name, Value: e})
		}
	}
}

// redactString applies a secret mode to one string.
func redactString(s, mode string) string {
	switch mode {
	case "":
		return s
	case secretURL:
		return redactURLSecrets(s)
	}
	return RedactedText
}

// sqliteQueryKnown reports whether a sqlite: URL carries no query or only
// its one option (synchronous), which holds no secret.
func sqliteQueryKnown(s string) bool {
	_, q, ok := strings.Cut(s, "?")
	if !ok {
		return true
	}
	q = strings.ToLower(q)
	return q == "synchronous=full" || q == "synchronous=normal"
}

// redactURLSecrets keeps a URL's scheme, host and path, and replaces its
// password and query values; text that does not parse as a URL with a
// scheme is replaced whole, except the store's sqlite: and memory: forms,
// which carry a path only.
func redactURLSecrets(s string) string {
	if s == "memory:" || s == "memory" || strings.HasPrefix(s, "sqlite:") && !strings.Contains(s, "@") && sqliteQueryKnown(s) {
		return s
	}
	u, err := url.Parse(s)
	if err != nil || u.Scheme == "" || u.Opaque != "" {
		return RedactedText
	}
	if u.User != nil {
		if _, has := u.User.Password(); has {
			u.User = url.UserPassword(u.User.Username(), RedactedText)
		}
	}
	if u.RawQuery != "" {
		q := u.Query()
		for k := range q {
			q[k] = []string{RedactedText}
		}
		u.RawQuery = q.Encode()
	}
	u.Fragment, u.RawFragment = "", ""
	out, err := url.PathUnescape(u.String())
	if err != nil {
		return u.String()
	}
	return out
}
