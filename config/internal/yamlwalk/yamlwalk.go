// Package yamlwalk is config's strict YAML walker: before a file is decoded it
// walks the parsed tree against the Go types, records where every field's key
// and value are ([Positions]), and reports every unknown key and every value
// of the wrong shape at once, with a suggestion; the entries it reported are
// pruned so that the rest of the file can still be decoded and validated.
//
// It owns positions, field paths ("publish[1].stdio.command") and the
// type-shape messages. It knows no configuration type: the types that decode
// from a scalar (durations, sizes) come in as checks. It must not import
// config or anything of the bridge.
package yamlwalk

import (
	"errors"
	"fmt"
	"reflect"
	"slices"
	"strconv"
	"strings"

	"github.com/goccy/go-yaml"
	"github.com/goccy/go-yaml/ast"
	"github.com/goccy/go-yaml/token"
)

// Position is a 1-based line and column in the configuration file.
type Position struct {
	Line, Column int
}

// NodePos is where a field's key and value are.
type NodePos struct {
	Key, Value Position
	Quoted     bool // the value is a single-line quoted scalar
	Plain      bool // the value is a single-line plain scalar
}

// Positions maps field paths ("publish[1].stdio.command") to positions.
type Positions map[string]NodePos

// Lookup returns the position of path, or of its nearest ancestor present in
// the file, and whether any was found.
func (p Positions) Lookup(path string) (Position, bool) {
	for path != "" {
		if np, ok := p[path]; ok {
			return np.Key, true
		}
		path = ParentPath(path)
	}
	return Position{}, false
}

// PathAt returns the path whose key or value starts at line:col, or "".
func (p Positions) PathAt(line, col int) string {
	best := ""
	for path, np := range p {
		if (np.Key == Position{line, col} || np.Value == Position{line, col}) && len(path) > len(best) {
			best = path
		}
	}
	return best
}

// ParentPath is the path of the field or list that holds path, or "".
func ParentPath(path string) string {
	i := strings.LastIndexAny(path, ".[")
	if i < 0 {
		return ""
	}
	return path[:i]
}

var unmarshalerIf = reflect.TypeOf((*interface {
	UnmarshalYAML(func(any) error) error
})(nil)).Elem()

// field is one YAML-visible struct field; index is its path through
// inline (embedded) structs.
type field struct {
	name  string
	index []int
	sf    reflect.StructField
}

// yamlFields lists the fields of struct type t as YAML sees them, with
// inline structs flattened.
func yamlFields(t reflect.Type) []field {
	var out []field
	for i := 0; i < t.NumField(); i++ {
		sf := t.Field(i)
		if !sf.IsExported() {
			continue
		}
		tag := sf.Tag.Get("yaml")
		name, opts, _ := strings.Cut(tag, ",")
		if name == "-" {
			continue
		}
		if strings.Contains(opts, "inline") || (sf.Anonymous && tag == "") {
			ft := sf.Type
			if ft.Kind() == reflect.Pointer {
				ft = ft.Elem()
			}
			for _, f := range yamlFields(ft) {
				f.index = append([]int{i}, f.index...)
				out = append(out, f)
			}
			continue
		}
		if name == "" {
			name = strings.ToLower(sf.Name)
		}
		out = append(out, field{name: name, index: []int{i}, sf: sf})
	}
	return out
}

// Problem is one thing wrong in the file, at a 1-based line and column.
type Problem struct {
	Line, Column int
	Path         string
	Message      string
}

// Scalars are the types decoded from a scalar even though their kind may
// suggest otherwise, each with the check of its value (nil: none).
type Scalars map[reflect.Type]func(ast.Node) error

// Walker checks the parsed file against the Go types before decoding: it
// records every field's position and reports every unknown key at once.
type Walker struct {
	pos      Positions
	scalars  Scalars
	Problems []Problem
	// drop are the entries reported as problems, removed before decoding so
	// that the rest of the file can still be decoded and validated.
	drop   map[*ast.MappingValueNode]bool
	parent *ast.MappingValueNode
}

// New returns a walker that records into pos.
func New(pos Positions, scalars Scalars) *Walker {
	return &Walker{pos: pos, scalars: scalars, drop: map[*ast.MappingValueNode]bool{}}
}

func (w *Walker) bad(n ast.Node, path string, err error) {
	p := posOf(n)
	msg := err.Error()
	if se, ok := err.(*yaml.SyntaxError); ok {
		msg = se.Message
	}
	w.Problems = append(w.Problems, Problem{Line: p.Line, Column: p.Column, Path: path, Message: msg})
	if w.parent != nil {
		w.drop[w.parent] = true
	}
}

// Prune removes the dropped entries from the tree under n.
func (w *Walker) Prune(n ast.Node) {
	switch v := Unwrap(n).(type) {
	case *ast.MappingNode:
		kept := v.Values[:0]
		for _, mv := range v.Values {
			if !w.drop[mv] {
				w.Prune(mv.Value)
				kept = append(kept, mv)
			}
		}
		v.Values = kept
	case *ast.MappingValueNode:
		w.Prune(v.Value)
	case *ast.SequenceNode:
		for _, e := range v.Values {
			w.Prune(e)
		}
	}
}

// Walk checks n against type t; path is n's field path ("" for the file).
func (w *Walker) Walk(n ast.Node, t reflect.Type, path string) {
	n = Unwrap(n)
	if n == nil {
		return
	}
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	if check, ok := w.scalars[t]; ok {
		if check != nil {
			if err := check(n); err != nil {
				w.bad(n, path, err)
			}
		}
		return
	}
	if msg := mismatch(n, t); msg != "" {
		w.bad(n, path, errors.New(msg))
		return
	}
	switch t.Kind() {
	case reflect.Struct:
		fields := yamlFields(t)
		for _, mv := range mappingValues(n) {
			key := KeyString(mv.Key)
			if key == "<<" {
				continue
			}
			child := JoinKey(path, key)
			w.record(child, mv)
			i := slices.IndexFunc(fields, func(f field) bool { return f.name == key })
			if i < 0 {
				w.unknown(mv, child, key, fields)
				continue
			}
			w.parent = mv
			w.Walk(mv.Value, fields[i].sf.Type, child)
		}
	case reflect.Slice:
		if reflect.PointerTo(t).Implements(unmarshalerIf) {
			// Types such as ratelimit.Fields accept a scalar or a list.
			if seq, ok := n.(*ast.SequenceNode); ok {
				w.recordSeq(seq, path)
			}
			return
		}
		if seq, ok := n.(*ast.SequenceNode); ok {
			w.recordSeq(seq, path)
			parent := w.parent
			for i, e := range seq.Values {
				// A bad element drops the whole list entry that holds it.
				w.parent = parent
				w.Walk(e, t.Elem(), path+"["+strconv.Itoa(i)+"]")
			}
		}
	case reflect.Map:
		for _, mv := range mappingValues(n) {
			child := JoinKey(path, KeyString(mv.Key))
			w.record(child, mv)
			w.parent = mv
			w.Walk(mv.Value, t.Elem(), child)
		}
	}
}

func (w *Walker) recordSeq(seq *ast.SequenceNode, path string) {
	for i, e := range seq.Values {
		p := posOf(e)
		w.pos[path+"["+strconv.Itoa(i)+"]"] = NodePos{Key: p, Value: p}
	}
}

func (w *Walker) record(path string, mv *ast.MappingValueNode) {
	np := NodePos{Key: posOf(mv.Key), Value: posOf(mv.Value)}
	if s, ok := Unwrap(mv.Value).(*ast.StringNode); ok && s.Token != nil {
		switch {
		case s.Token.Type == token.SingleQuoteType || s.Token.Type == token.DoubleQuoteType:
			np.Quoted = true
		default:
			np.Plain = true
		}
	}
	w.pos[path] = np
}

func (w *Walker) unknown(mv *ast.MappingValueNode, path, key string, fields []field) {
	p := posOf(mv.Key)
	names := make([]string, len(fields))
	for i, f := range fields {
		names[i] = f.name
	}
	msg := "unknown key"
	if s := closest(key, names); s != "" {
		msg += fmt.Sprintf(": did you mean %q?", s)
	} else {
		msg += ": remove it (known keys here: " + strings.Join(names, ", ") + ")"
	}
	w.Problems = append(w.Problems, Problem{Line: p.Line, Column: p.Column, Path: path, Message: msg})
	w.drop[mv] = true
}

func mappingValues(n ast.Node) []*ast.MappingValueNode {
	switch v := n.(type) {
	case *ast.MappingNode:
		return v.Values
	case *ast.MappingValueNode:
		return []*ast.MappingValueNode{v}
	}
	return nil
}

// Unwrap is the node under anchors, tags and documents.
func Unwrap(n ast.Node) ast.Node {
	for {
		switch v := n.(type) {
		case *ast.AnchorNode:
			n = v.Value
		case *ast.TagNode:
			n = v.Value
		case *ast.DocumentNode:
			n = v.Body
		default:
			return n
		}
	}
}

func posOf(n ast.Node) Position {
	if n == nil {
		return Position{}
	}
	if m, ok := Unwrap(n).(*ast.MappingNode); ok && len(m.Values) > 0 && !m.IsFlowStyle {
		return posOf(m.Values[0].Key)
	}
	if tk := n.GetToken(); tk != nil && tk.Position != nil {
		return Position{tk.Position.Line, tk.Position.Column}
	}
	return Position{}
}

// closest returns the candidate within edit distance 2 of s, or "".
func closest(s string, candidates []string) string {
	best, bestD := "", 3
	for _, c := range candidates {
		if d := editDistance(s, c); d < bestD {
			best, bestD = c, d
		}
	}
	return best
}

func editDistance(a, b string) int {
	if len(a) > 64 || len(b) > 64 {
		return 99
	}
	prev := make([]int, len(b)+1)
	cur := make([]int, len(b)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(a); i++ {
		cur[0] = i
		for j := 1; j <= len(b); j++ {
			cost := 1
			if a[i-1] == b[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
		}
		prev, cur = cur, prev
	}
	return prev[len(b)]
}

// mismatch says, in the file's words, why node n cannot be decoded into a
// field of type t ("want a number, got \"abc\""), or "" when it can (or
// when the decoder is better placed to tell: types that decode themselves).
// Only values of number and boolean fields are quoted: those hold no
// secrets.
func mismatch(n ast.Node, t reflect.Type) string {
	if _, ok := n.(*ast.NullNode); ok {
		return ""
	}
	if _, ok := reflect.PointerTo(t).MethodByName("UnmarshalYAML"); ok {
		return ""
	}
	var want string
	switch t.Kind() {
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		if _, ok := n.(*ast.IntegerNode); ok {
			return ""
		}
		want = "a whole number"
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		if i, ok := n.(*ast.IntegerNode); ok {
			if _, neg := i.Value.(int64); !neg || i.Value.(int64) >= 0 {
				return ""
			}
			return "want a number of 0 or more, got " + strconv.Quote(Clip(i.GetToken().Value))
		}
		want = "a number of 0 or more"
	case reflect.Float32, reflect.Float64:
		switch n.(type) {
		case *ast.IntegerNode, *ast.FloatNode, *ast.InfinityNode, *ast.NanNode:
			return ""
		}
		want = "a number"
	case reflect.Bool:
		if _, ok := n.(*ast.BoolNode); ok {
			return ""
		}
		want = "true or false"
	case reflect.String:
		switch n.(type) {
		case *ast.MappingNode, *ast.MappingValueNode:
			return "want a string, got a mapping: quote the value if it holds a colon"
		case *ast.SequenceNode:
			return "want a string, got a list"
		}
		return ""
	case reflect.Struct, reflect.Map:
		switch n.(type) {
		case *ast.MappingNode, *ast.MappingValueNode:
			return ""
		case *ast.SequenceNode:
			return "want a mapping (key: value lines), got a list"
		}
		return "want a mapping (key: value lines), got " + scalarKind(n)
	case reflect.Slice:
		switch n.(type) {
		case *ast.SequenceNode:
			return ""
		case *ast.MappingNode, *ast.MappingValueNode:
			return "want a list (- item lines or [a, b]), got a mapping"
		}
		return "want a list (- item lines or [a, b]), got " + scalarKind(n)
	default:
		return ""
	}
	switch v := n.(type) {
	case *ast.MappingNode, *ast.MappingValueNode:
		return "want " + want + ", got a mapping"
	case *ast.SequenceNode:
		return "want " + want + ", got a list"
	case ast.ScalarNode:
		if tk := v.GetToken(); tk != nil {
			return "want " + want + ", got " + strconv.Quote(Clip(tk.Value))
		}
	}
	return "want " + want
}

// scalarKind names what a scalar node is, without quoting it (a string
// field's value may be a secret).
func scalarKind(n ast.Node) string {
	switch n.(type) {
	case *ast.IntegerNode, *ast.FloatNode:
		return "a number"
	case *ast.BoolNode:
		return "true or false"
	case *ast.StringNode, *ast.LiteralNode:
		return "a string"
	}
	return "a single value"
}

// KeyString is the text of a mapping key.
func KeyString(k ast.MapKeyNode) string {
	if k == nil {
		return ""
	}
	if s, ok := k.(*ast.StringNode); ok {
		return s.Value
	}
	return k.String()
}

// JoinKey is the path of key under path.
func JoinKey(path, key string) string {
	if path == "" {
		return key
	}
	return path + "." + key
}

// Clip shortens s for an error message.
func Clip(s string) string {
	const max = 64
	if len(s) > max {
		return s[:max] + "…"
	}
	return s
}
