package config

import (
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strconv"
	"strings"

	"github.com/a2a-mcp-bridge/bridge/config/internal/yamlwalk"
	"github.com/goccy/go-yaml"
	"github.com/goccy/go-yaml/ast"
	"github.com/goccy/go-yaml/parser"
	"github.com/goccy/go-yaml/token"
)

// MaxFileBytes caps the configuration file and every ${file:PATH} secret.
const MaxFileBytes = 1 << 20

// Load reads the file at path and returns the decoded, defaulted and
// validated configuration. On failure the error is [Problems] listing every
// problem found (or a single read error).
func Load(path string) (*Config, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("config: read %s: %w", path, errors.Unwrap(err))
	}
	defer f.Close()
	data, err := io.ReadAll(io.LimitReader(f, MaxFileBytes+1))
	if err != nil {
		return nil, fmt.Errorf("config: read %s: %w", path, err)
	}
	if len(data) > MaxFileBytes {
		return nil, fmt.Errorf("config: read %s: larger than %d bytes", path, MaxFileBytes)
	}
	return Parse(data, path)
}

// Parse decodes data, the contents of the file called name (used in
// messages and to resolve relative ${file:PATH} references), applies the
// defaults and validates the result. On failure it returns nil and
// [Problems].
//
// Before decoding, ${NAME} inside a scalar value is replaced by the
// environment variable NAME and ${file:PATH} by the file's contents (one
// trailing newline removed); $${ stands for a literal ${. Substitution
// happens after the YAML is parsed, so a value can never add keys or
// structure. Keys and comments are not expanded.
func Parse(data []byte, name string) (*Config, error) {
	c, ps := parse(data, name, os.LookupEnv)
	if len(ps) > 0 {
		return nil, ps
	}
	return c, nil
}

func parse(data []byte, name string, lookup func(string) (string, bool)) (*Config, Problems) {
	c := &Config{file: name, pos: yamlwalk.Positions{}}
	f, err := parser.ParseBytes(data, 0)
	if err != nil {
		return nil, Problems{yamlProblem(name, c.pos, err)}
	}
	var body ast.Node
	var pre Problems
	switch docs := nonEmptyDocs(f); len(docs) {
	case 0:
	case 1:
		body = docs[0].Body
	default:
		return nil, Problems{{File: name, Line: docs[1].GetToken().Position.Line, Column: docs[1].GetToken().Position.Column,
			Message: "more than one YAML document: keep the whole configuration in one document"}}
	}
	if body != nil {
		x := expander{file: name, dir: baseDir(name), lookup: lookup}
		body = x.node(body, "")
		if len(x.problems) > 0 {
			return nil, x.problems
		}
		w := yamlwalk.New(c.pos, scalars)
		w.Walk(body, reflect.TypeOf(c).Elem(), "")
		// Entries already reported are removed so that the rest of the file
		// is still decoded (strictly) and validated: one pass lists all.
		w.Prune(body)
		if err := decode(body, c); err != nil {
			return nil, append(walkProblems(name, w.Problems), yamlProblem(name, c.pos, err))
		}
		pre = walkProblems(name, w.Problems)
	}
	c.applyDefaults()
	if ps := append(pre, c.Validate()...); len(ps) > 0 {
		sortProblems(ps)
		return nil, ps
	}
	return c, nil
}

func nonEmptyDocs(f *ast.File) []*ast.DocumentNode {
	var out []*ast.DocumentNode
	for _, d := range f.Docs {
		if d != nil && d.Body != nil {
			out = append(out, d)
		}
	}
	return out
}

func baseDir(name string) string {
	if name == "" || name == "-" {
		return "."
	}
	return filepath.Dir(name)
}

// yamlProblem turns a goccy error into a Problem with its position, without
// the source excerpt (which could show a secret).
func yamlProblem(file string, pos yamlwalk.Positions, err error) Problem {
	p := Problem{File: file, Message: err.Error()}
	var ye yaml.Error
	if errors.As(err, &ye) {
		p.Message = ye.GetMessage()
		if tk := ye.GetToken(); tk != nil && tk.Position != nil {
			p.Line, p.Column = tk.Position.Line, tk.Position.Column
			p.Path = pos.PathAt(p.Line, p.Column)
		}
	}
	p.Message = strings.TrimSpace(p.Message)
	return p
}

// walkProblems are the walker's problems, in file.
func walkProblems(file string, wps []yamlwalk.Problem) Problems {
	ps := make(Problems, 0, len(wps))
	for _, wp := range wps {
		ps = append(ps, Problem{File: file, Line: wp.Line, Column: wp.Column, Path: wp.Path, Message: wp.Message})
	}
	return ps
}

// expander replaces ${…} references in scalar values.
type expander struct {
	file, dir string
	lookup    func(string) (string, bool)
	problems  Problems
}

// node expands n (at path) and returns the node to keep in its place.
func (x *expander) node(n ast.Node, path string) ast.Node {
	switch v := n.(type) {
	case *ast.MappingNode:
		for _, mv := range v.Values {
			mv.Value = x.node(mv.Value, yamlwalk.JoinKey(path, yamlwalk.KeyString(mv.Key)))
		}
	case *ast.MappingValueNode:
		v.Value = x.node(v.Value, yamlwalk.JoinKey(path, yamlwalk.KeyString(v.Key)))
	case *ast.SequenceNode:
		for i, e := range v.Values {
			v.Values[i] = x.node(e, path+"["+strconv.Itoa(i)+"]")
		}
	case *ast.AnchorNode:
		v.Value = x.node(v.Value, path)
	case *ast.TagNode:
		v.Value = x.node(v.Value, path)
	case *ast.LiteralNode:
		if v.Value != nil {
			v.Value.Value = x.expand(v.Value.Value, v.Value.GetToken(), path)
		}
	case *ast.StringNode:
		if !strings.Contains(v.Value, "$") {
			return v
		}
		s := x.expand(v.Value, v.Token, path)
		if s == v.Value {
			return v
		}
		v.Value = s
		if v.Token != nil && v.Token.Type == token.StringType {
			// A plain scalar keeps its YAML type: ${PORT} can fill an int,
			// ${FLAG} a bool. Only scalars are accepted, never structure.
			if typed := typedScalar(s, v.Token); typed != nil {
				return typed
			}
		}
	}
	return n
}

func typedScalar(s string, orig *token.Token) ast.Node {
	if strings.ContainsAny(s, "\n#:{}[],&*!|>'\"%@`") {
		return nil
	}
	f, err := parser.ParseBytes([]byte(s), 0)
	if err != nil || len(f.Docs) != 1 || f.Docs[0].Body == nil {
		return nil
	}
	switch b := f.Docs[0].Body.(type) {
	case *ast.IntegerNode, *ast.FloatNode, *ast.BoolNode:
		p := *orig.Position
		b.GetToken().Position = &p
		return b
	}
	return nil
}

// expand returns s with references replaced, recording a problem for every
// unset variable or unreadable file.
func (x *expander) expand(s string, tk *token.Token, path string) string {
	if !strings.Contains(s, "$") {
		return s
	}
	var b strings.Builder
	for i := 0; i < len(s); {
		if strings.HasPrefix(s[i:], "$${") {
			b.WriteString("${")
			i += 3
			continue
		}
		if !strings.HasPrefix(s[i:], "${") {
			b.WriteByte(s[i])
			i++
			continue
		}
		end := strings.IndexByte(s[i+2:], '}')
		if end < 0 {
			x.add(tk, path, "unterminated ${ reference: close it with }, or write $${ for a literal ${")
			return s
		}
		ref := s[i+2 : i+2+end]
		i += 3 + end
		if p, ok := strings.CutPrefix(ref, "file:"); ok {
			b.WriteString(x.readFile(p, tk, path))
			continue
		}
		if !validEnvName(ref) {
			x.add(tk, path, fmt.Sprintf("invalid reference ${%s}: write ${NAME} for an environment variable or ${file:PATH} for a file", clip(ref)))
			continue
		}
		v, ok := x.lookup(ref)
		if !ok {
			x.add(tk, path, fmt.Sprintf("environment variable %s is not set: set it, or write $${%s} to keep the text as it is", ref, ref))
			continue
		}
		b.WriteString(v)
	}
	return b.String()
}

func (x *expander) readFile(p string, tk *token.Token, path string) string {
	if p == "" {
		x.add(tk, path, "${file:} names no file: write ${file:PATH}")
		return ""
	}
	full := p
	if !filepath.IsAbs(full) {
		full = filepath.Join(x.dir, p)
	}
	st, err := os.Stat(full)
	switch {
	case err != nil:
		x.add(tk, path, fmt.Sprintf("${file:%s}: cannot read %s: %v", p, full, errors.Unwrap(err)))
		return ""
	case !st.Mode().IsRegular():
		x.add(tk, path, fmt.Sprintf("${file:%s}: %s is not a regular file", p, full))
		return ""
	case st.Size() > MaxFileBytes:
		x.add(tk, path, fmt.Sprintf("${file:%s}: %s is larger than %d bytes", p, full, MaxFileBytes))
		return ""
	}
	data, err := os.ReadFile(full)
	if err != nil {
		x.add(tk, path, fmt.Sprintf("${file:%s}: cannot read %s: %v", p, full, errors.Unwrap(err)))
		return ""
	}
	s := string(data)
	if t, ok := strings.CutSuffix(s, "\n"); ok {
		s = strings.TrimSuffix(t, "\r")
	}
	return s
}

func (x *expander) add(tk *token.Token, path, msg string) {
	p := Problem{File: x.file, Path: path, Message: msg}
	if tk != nil && tk.Position != nil {
		p.Line, p.Column = tk.Position.Line, tk.Position.Column
	}
	x.problems = append(x.problems, p)
}

func validEnvName(s string) bool {
	if s == "" {
		return false
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		if !(c == '_' || 'A' <= c && c <= 'Z' || 'a' <= c && c <= 'z' || i > 0 && '0' <= c && c <= '9') {
			return false
		}
	}
	return true
}

// sortProblems orders problems by position in the file; problems without a
// position come first, in the order they were found.
func sortProblems(ps Problems) {
	slices.SortStableFunc(ps, func(a, b Problem) int {
		if a.Line != b.Line {
			return a.Line - b.Line
		}
		return a.Column - b.Column
	})
}

// decode runs the strict decoder. The decoder panics on some malformed
// inputs (found by FuzzParse); such a file is reported, not fatal.
func decode(body ast.Node, c *Config) (err error) {
	defer func() {
		if r := recover(); r != nil {
			err = &yaml.SyntaxError{Message: "malformed YAML the decoder cannot read: check tags (!…) and anchors (&…) near here", Token: body.GetToken()}
		}
	}()
	return yaml.NodeToValue(body, c, yaml.Strict())
}
