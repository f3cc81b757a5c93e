// Package strictjson makes sure that a JSON document has one reading only,
// so that every decoder the bridge hands it to (encoding/json on the A2A
// slow path, mcp-go on the MCP face, the hand-written fast decoders, the
// guards' own views) reads the same values from it.
//
// encoding/json is lenient in four ways that let two readers of the same
// bytes disagree: it matches member names case-insensitively ("stAtus" is
// "status", and so is "ſtatus"), lets the last of two equal names win,
// replaces invalid UTF-8 and lone surrogate escapes with U+FFFD, and
// accepts anything after a valid member it does not know. A reader that is
// exact (a map lookup, a byte scan, a case-sensitive decoder, protojson)
// then sees another request than encoding/json does. Check refuses every
// document in which that can happen:
//
//   - a member name that equals a field of its object only under case
//     folding (Schema: the fields come from the Go type the document is
//     decoded into, with encoding/json's own field rules and its fold);
//   - two members of one object with the same name, escapes resolved
//     ("a" and "\u0061" are the same name);
//   - invalid UTF-8 anywhere, and a \u escape of a lone or broken surrogate;
//   - anything that is not exactly one valid JSON value.
//
// A document Check accepts decodes with encoding/json to the value a
// case-sensitive decoder that refuses duplicates and invalid UTF-8 (such as
// github.com/go-json-experiment/json with its defaults) decodes: the fuzz
// target FuzzCheckAgreesWithV2 holds the two to it.
//
// Names that match no field, exactly or folded, are not refused: they are
// the unknown members of a newer peer, which every reader skips.
package strictjson

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"reflect"
	"strings"
	"sync"
	"unicode"
	"unicode/utf8"

	"github.com/go-json-experiment/json/jsontext"
)

// Kind is the typed cause of a refusal.
type Kind int

// Kinds of refusal.
const (
	// KindSyntax: not one valid JSON value (encoding/json would refuse it
	// too; the decoder that runs next reports it in its own words).
	KindSyntax Kind = iota + 1
	// KindInvalidUTF8: invalid UTF-8, or an escaped lone surrogate.
	KindInvalidUTF8
	// KindDuplicate: a member name appears twice in one object.
	KindDuplicate
	// KindCaseFold: a member name equals a field's only under case folding.
	KindCaseFold
)

var kindNames = [...]string{KindSyntax: "syntax", KindInvalidUTF8: "invalid_utf8", KindDuplicate: "duplicate_member", KindCaseFold: "case_folded_member"}

// String is the kind's stable name, for logs and metrics.
func (k Kind) String() string {
	if k <= 0 || int(k) >= len(kindNames) {
		return "unknown"
	}
	return kindNames[k]
}

// Error is a refusal. Its message quotes at most a short, sanitized member
// name, never a value.
type Error struct {
	Kind Kind
	// Pointer is the JSON pointer (RFC 6901) of the object or value at
	// fault, "" for the document.
	Pointer string
	// Name is the member name at fault (KindDuplicate, KindCaseFold).
	Name string
	// Field is the field name Name folds to (KindCaseFold).
	Field string
	// Offset is the byte offset at which the problem was found.
	Offset int64
}

// Error describes the refusal without quoting values.
func (e *Error) Error() string {
	where := ""
	if e.Pointer != "" {
		where = " in " + clip(e.Pointer)
	}
	switch e.Kind {
	case KindInvalidUTF8:
		return "strictjson: invalid UTF-8 or a lone surrogate escape" + where
	case KindDuplicate:
		return fmt.Sprintf("strictjson: member %q appears twice%s", clip(e.Name), where)
	case KindCaseFold:
		return fmt.Sprintf("strictjson: member %q is not %q: member names are case-sensitive%s", clip(e.Name), e.Field, where)
	}
	return fmt.Sprintf("strictjson: not a single valid JSON value (at byte %d)", e.Offset)
}

// Path is the member at fault in dotted form ("message.parts[0].data"),
// for protocol errors that name the field; "" for the document.
func (e *Error) Path() string {
	p := e.Pointer
	if e.Name != "" {
		p += "/" + strings.ReplaceAll(strings.ReplaceAll(e.Name, "~", "~0"), "/", "~1")
	}
	var b strings.Builder
	for _, seg := range strings.Split(strings.TrimPrefix(p, "/"), "/") {
		if seg == "" {
			continue
		}
		seg = strings.ReplaceAll(strings.ReplaceAll(seg, "~1", "/"), "~0", "~")
		if isIndex(seg) && b.Len() > 0 {
			b.WriteString("[" + seg + "]")
			continue
		}
		if b.Len() > 0 {
			b.WriteByte('.')
		}
		b.WriteString(seg)
	}
	return clip(b.String())
}

func isIndex(s string) bool {
	for _, c := range s {
		if c < '0' || c > '9' {
			return false
		}
	}
	return s != ""
}

// clip keeps a name short and printable for an error message.
func clip(s string) string {
	if len(s) > 64 {
		s = s[:64]
		for !utf8.ValidString(s) {
			s = s[:len(s)-1]
		}
		s += "…"
	}
	return strings.Map(func(r rune) rune {
		if r < 0x20 || r == 0x7f {
			return '?'
		}
		return r
	}, s)
}

// Is reports whether err is a refusal of kind k.
func Is(err error, k Kind) bool {
	var e *Error
	return errors.As(err, &e) && e.Kind == k
}

// Schema is the shape of a Go type as encoding/json decodes into it: which
// member names of each object are fields, and the schema of each field's
// value. The zero value (and nil) checks nothing but the generic rules.
type Schema struct {
	fields map[string]*Schema // exact JSON name → value schema (objects of a struct)
	folds  map[string]string  // folded name → JSON name
	elem   *Schema            // values of a map, elements of a slice
	isMap  bool
}

// Options adjust how For reads Go types.
type Options struct {
	// Wire maps a type whose UnmarshalJSON decodes another type (a wire
	// mirror) to that type, whose fields are then the object's. A type
	// mapped to itself has its own fields walked although it has an
	// UnmarshalJSON. A struct type with an UnmarshalJSON that is not
	// listed is opaque: only the generic rules apply inside it.
	Wire map[reflect.Type]reflect.Type
	// Opaque lists types whose values are data, never walked (beyond the
	// generic rules) although they are structs or maps of structs.
	Opaque []reflect.Type
	// WalkUnmarshalers walks the fields of a struct type with an
	// UnmarshalJSON that Wire does not list, instead of treating it as
	// opaque: such methods mostly decode an alias of the type itself (with
	// encoding/json's case folding), so its fields are the members it
	// matches. A method that reads a map instead only makes the check
	// stricter than needed.
	WalkUnmarshalers bool
}

var unmarshalerType = reflect.TypeFor[json.Unmarshaler]()

// For returns the schema of t. The schema of a recursive type is built
// once: For is meant for package variables.
func For(t reflect.Type, opts Options) *Schema {
	b := builder{opts: opts, seen: map[reflect.Type]*Schema{}}
	return b.schema(t)
}

type builder struct {
	opts Options
	seen map[reflect.Type]*Schema
}

func (b *builder) schema(t reflect.Type) *Schema {
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	if s, ok := b.seen[t]; ok {
		return s
	}
	for _, o := range b.opts.Opaque {
		if t == o {
			return nil
		}
	}
	if w, ok := b.opts.Wire[t]; ok {
		if w != t {
			s := b.schema(w)
			b.seen[t] = s
			return s
		}
	} else if (reflect.PointerTo(t).Implements(unmarshalerType) || t.Implements(unmarshalerType)) && !(b.opts.WalkUnmarshalers && t.Kind() == reflect.Struct) {
		return nil // decoded by its own method: opaque
	}
	switch t.Kind() {
	case reflect.Struct:
		s := &Schema{fields: map[string]*Schema{}, folds: map[string]string{}}
		b.seen[t] = s
		depth := map[string]int{}
		b.fields(s, t, 0, depth)
		return s
	case reflect.Map:
		s := &Schema{isMap: true}
		b.seen[t] = s
		s.elem = b.schema(t.Elem())
		return s
	case reflect.Slice, reflect.Array:
		if t.Elem().Kind() == reflect.Uint8 {
			return nil // []byte is a base64 string
		}
		s := &Schema{}
		b.seen[t] = s
		s.elem = b.schema(t.Elem())
		if s.elem == nil {
			return nil
		}
		return s
	}
	return nil // scalars, interfaces: opaque
}

// fields adds the JSON fields of struct t to s, as encoding/json names them:
// the tag's name or the Go name, "-" skipped, untagged embedded structs
// inlined; of two fields with one name the shallower wins (depth holds the
// depth each name was found at), as in encoding/json.
func (b *builder) fields(s *Schema, t reflect.Type, level int, depth map[string]int) {
	if level > 8 {
		return
	}
	for i := range t.NumField() {
		f := t.Field(i)
		tag := f.Tag.Get("json")
		if tag == "-" {
			continue
		}
		name, _, _ := strings.Cut(tag, ",")
		ft := f.Type
		if f.Anonymous && name == "" {
			et := ft
			if et.Kind() == reflect.Pointer {
				et = et.Elem()
			}
			if et.Kind() == reflect.Struct {
				b.fields(s, et, level+1, depth)
				continue
			}
		}
		if !f.IsExported() {
			continue
		}
		if name == "" {
			name = f.Name
		}
		if d, dup := depth[name]; dup && d <= level {
			continue
		}
		depth[name] = level
		s.fields[name] = b.schema(ft)
		s.folds[Fold(name)] = name
	}
}

// Union is the schema of a document that several readers decode, each
// into its own type: a member is a field where any reader reads it, so a
// case-folded spelling of it is refused wherever one of them would match
// it. A nil schema (an opaque reader) adds nothing.
func Union(schemas ...*Schema) *Schema {
	var out *Schema
	for _, s := range schemas {
		out = union(out, s, map[[2]*Schema]*Schema{})
	}
	return out
}

func union(a, b *Schema, memo map[[2]*Schema]*Schema) *Schema {
	switch {
	case a == nil:
		return b
	case b == nil || a == b:
		return a
	}
	if u, ok := memo[[2]*Schema{a, b}]; ok {
		return u
	}
	u := &Schema{isMap: a.isMap && b.isMap}
	memo[[2]*Schema{a, b}] = u
	if a.fields != nil || b.fields != nil {
		u.fields, u.folds = map[string]*Schema{}, map[string]string{}
		for _, s := range []*Schema{a, b} {
			for name, child := range s.fields {
				u.fields[name] = union(u.fields[name], child, memo)
				u.folds[Fold(name)] = name
			}
		}
	}
	u.elem = union(a.elem, b.elem, memo)
	return u
}

// Fold is encoding/json's case folding of member names (its foldName):
// two names match there exactly when their folds are equal. ASCII letters
// fold to upper case, any other rune to the smallest rune of its simple
// fold orbit (so the Kelvin sign folds with k and the long s with s, but
// the dotted and dotless i do not fold with i).
func Fold(name string) string {
	ascii := true
	for i := 0; i < len(name); i++ {
		if name[i] >= utf8.RuneSelf {
			ascii = false
			break
		}
	}
	if ascii {
		return strings.ToUpper(name)
	}
	var b strings.Builder
	for _, r := range name {
		if r < utf8.RuneSelf {
			if 'a' <= r && r <= 'z' {
				r -= 'a' - 'A'
			}
			b.WriteRune(r)
			continue
		}
		b.WriteRune(foldRune(r))
	}
	return b.String()
}

// foldRune is the smallest rune of r's simple fold orbit.
func foldRune(r rune) rune {
	for {
		r2 := unicode.SimpleFold(r)
		if r2 <= r {
			return r2
		}
		r = r2
	}
}

// Field reports the exact field a name folds to, if the name is not one
// itself: the check a reader that looks names up exactly must make.
func (s *Schema) Field(name string) (field string, folded bool) {
	if s == nil || s.fields == nil {
		return "", false
	}
	if _, ok := s.fields[name]; ok {
		return name, false
	}
	f, ok := s.folds[Fold(name)]
	return f, ok
}

// Member returns the schema of a field (nil: opaque).
func (s *Schema) Member(name string) *Schema {
	if s == nil {
		return nil
	}
	return s.fields[name]
}

type checker struct {
	r bytes.Reader
	d jsontext.Decoder
	// name and fold hold a member name being looked up (nameOf, foldOf):
	// the lookups index the maps with string(bytes), which allocates
	// nothing, where a string per member was most of Check's allocations
	// in the MCP face's profile (seven per tools/call).
	name, fold []byte
}

var checkers = sync.Pool{New: func() any { return new(checker) }}

// maxKeptName bounds the name buffers a pooled checker keeps.
const maxKeptName = 1 << 10

// Check reports whether b is one JSON value with one reading under s (nil:
// the generic rules only). It returns an *Error.
func (s *Schema) Check(b []byte) error {
	c := checkers.Get().(*checker)
	c.r.Reset(b)
	c.d.Reset(&c.r)
	err := c.walk(s)
	if err == nil {
		if _, e := c.d.ReadToken(); e != io.EOF {
			err = c.convert(e, KindSyntax)
		}
	}
	c.r.Reset(nil)
	c.d.Reset(&c.r)
	if cap(c.name) > maxKeptName {
		c.name = nil
	}
	if cap(c.fold) > maxKeptName {
		c.fold = nil
	}
	checkers.Put(c)
	return err
}

// Check applies the generic rules alone: one valid value, no duplicate
// names, valid UTF-8.
func Check(b []byte) error { return (*Schema)(nil).Check(b) }

func (c *checker) walk(s *Schema) error {
	d := &c.d
	if s == nil {
		if err := d.SkipValue(); err != nil {
			return c.convert(err, KindSyntax)
		}
		return nil
	}
	switch d.PeekKind() {
	case '{':
		if _, err := d.ReadToken(); err != nil {
			return c.convert(err, KindSyntax)
		}
		for d.PeekKind() != '}' {
			v, err := d.ReadValue()
			if err != nil {
				return c.convert(err, KindSyntax)
			}
			var child *Schema
			if s.fields != nil {
				name := c.nameOf(v)
				if f, ok := s.fields[string(name)]; ok {
					child = f
				} else if f, ok := s.folds[string(c.foldOf(name))]; ok {
					return &Error{Kind: KindCaseFold, Pointer: pointerOf(d), Name: string(name), Field: f, Offset: d.InputOffset()}
				} else {
					child = s.elem // a map read as a struct elsewhere
				}
			} else if s.isMap {
				child = s.elem
			}
			if err := c.walk(child); err != nil {
				return err
			}
		}
		if _, err := d.ReadToken(); err != nil {
			return c.convert(err, KindSyntax)
		}
		return nil
	case '[':
		if _, err := d.ReadToken(); err != nil {
			return c.convert(err, KindSyntax)
		}
		for d.PeekKind() != ']' {
			if err := c.walk(s.elem); err != nil {
				return err
			}
		}
		if _, err := d.ReadToken(); err != nil {
			return c.convert(err, KindSyntax)
		}
		return nil
	}
	if err := d.SkipValue(); err != nil {
		return c.convert(err, KindSyntax)
	}
	return nil
}

// nameOf is the member name the quoted, valid JSON string v spells (nil
// if it cannot be unquoted), valid until the next nameOf: v's own bytes
// when it has no escape, else unquoted into c.name.
func (c *checker) nameOf(v jsontext.Value) []byte {
	if len(v) >= 2 && bytes.IndexByte(v, '\\') < 0 {
		return v[1 : len(v)-1]
	}
	b, err := jsontext.AppendUnquote(c.name[:0], v)
	if err != nil {
		return nil
	}
	c.name = b
	return b
}

// foldOf is []byte(Fold(string(name))), built in c.fold for an ASCII
// name, valid until the next foldOf.
func (c *checker) foldOf(name []byte) []byte {
	for _, b := range name {
		if b >= utf8.RuneSelf {
			return []byte(Fold(string(name)))
		}
	}
	f := c.fold[:0]
	for _, b := range name {
		if 'a' <= b && b <= 'z' {
			b -= 'a' - 'A'
		}
		f = append(f, b)
	}
	c.fold = f
	return f
}

// pointerOf is the JSON pointer of the object being read, without the
// member whose name was just read.
func pointerOf(d *jsontext.Decoder) string {
	p := string(d.StackPointer())
	if i := strings.LastIndexByte(p, '/'); i >= 0 {
		return p[:i]
	}
	return p
}

// convert maps a jsontext error to an *Error; an unknown error (which
// jsontext does not return) is a syntax error.
func (c *checker) convert(err error, def Kind) error {
	var se *jsontext.SyntacticError
	e := &Error{Kind: def, Offset: c.d.InputOffset()}
	if errors.As(err, &se) {
		e.Offset = se.ByteOffset
		e.Pointer = string(se.JSONPointer)
		msg := se.Err.Error()
		switch {
		case errors.Is(se.Err, jsontext.ErrDuplicateName), strings.Contains(msg, "duplicate"):
			e.Kind = KindDuplicate
			if i := strings.LastIndexByte(e.Pointer, '/'); i >= 0 {
				e.Name = strings.ReplaceAll(strings.ReplaceAll(e.Pointer[i+1:], "~1", "/"), "~0", "~")
				e.Pointer = e.Pointer[:i]
			}
		case strings.Contains(msg, "UTF-8"), strings.Contains(msg, "surrogate"):
			e.Kind = KindInvalidUTF8
		}
	}
	return e
}
