// Package reference builds the configuration's JSON Schema and its Markdown
// reference from the Go types of package config, by reflection, with the
// descriptions taken from the doc comments on the struct fields where they
// are defined (in config, auth, policy, ratelimit). Nothing is written twice:
// a field's comment is its documentation in the schema, in docs/config.md and
// in godoc.
package reference

import (
	"bytes"
	"encoding/json"
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/a2a-mcp-bridge/bridge/config"
)

// Module is the module path; packages under it are read from the source tree.
const Module = "github.com/a2a-mcp-bridge/bridge"

// SchemaID is the $id of the generated schema.
const SchemaID = "https://github.com/a2a-mcp-bridge/bridge/config/schema.json"

// enums lists the allowed values of string fields, keyed by Go type and
// field name, for fields whose packages cannot carry an enum tag.
var enums = map[string][]string{
	"policy.Config.Default":          {"allow", "deny"},
	"ratelimit.Config.OnRedisError":  {"open", "closed"},
	"config.Observability.LogLevel":  {"debug", "info", "warn", "error"},
	"config.Observability.LogFormat": {"json", "text"},
	"config.Server.A2AErrorTable":    {"1.0.1", "1.0.0"},
	"config.Server.A2AV03":           {"accept", "refuse"},
	"config.Server.A2AV03Card":       {"on_request", "default"},
}

// fallbackDocs documents fields of other packages that carry no doc
// comment of their own, keyed by Go type and field name. Fields of package
// config must be documented in place; the generator fails otherwise.
var fallbackDocs = map[string]string{
	"auth.ClientCredentialsConfig.TokenURL":     "TokenURL is the token endpoint (https). Required.",
	"auth.ClientCredentialsConfig.ClientID":     "ClientID is the bridge's client id at the token endpoint. Required.",
	"auth.ClientCredentialsConfig.ClientSecret": "ClientSecret is the bridge's client secret; write ${ENV} or ${file:PATH} rather than the secret itself. Never logged.",
	"auth.ClientCredentialsConfig.Scopes":       "Scopes requested for the bridge's token. Default: none.",
	"auth.ClientCredentialsConfig.Resource":     "Resource (RFC 8707) names the upstream the token is for; sent when set.",
	"auth.TokenExchangeConfig.TokenURL":         "TokenURL is the token endpoint that performs the exchange (https). Required.",
	"auth.TokenExchangeConfig.ClientID":         "ClientID is the bridge's client id at the token endpoint. Required.",
	"auth.TokenExchangeConfig.ClientSecret":     "ClientSecret is the bridge's client secret; write ${ENV} or ${file:PATH} rather than the secret itself. Never logged.",
	"auth.TokenExchangeConfig.Resource":         "Resource (RFC 8707) names the upstream the token is for; at least one of audience and resource is required.",
	"auth.TokenExchangeConfig.Scopes":           "Scopes requested for the exchanged token. Default: none.",
}

var (
	durationType  = reflect.TypeOf(config.Duration(0))
	byteSizeType  = reflect.TypeOf(config.ByteSize(0))
	stdDuration   = reflect.TypeOf(time.Duration(0))
	unmarshalerIf = reflect.TypeOf((*interface {
		UnmarshalYAML(func(any) error) error
	})(nil)).Elem()
)

// Build returns the JSON Schema and the Markdown reference. root is the
// module's root directory (the one holding go.mod).
func Build(root string) (schema, markdown []byte, err error) {
	b := &builder{root: root, docs: map[string]*pkgDocs{}, defs: map[string]any{}}
	rootType := reflect.TypeOf(config.Config{})
	props, required, err := b.properties(rootType, "", 0)
	if err != nil {
		return nil, nil, err
	}
	_ = required
	typeDoc, err := b.typeDoc(rootType)
	if err != nil {
		return nil, nil, err
	}
	s := map[string]any{
		"$schema":              "https://json-schema.org/draft/2020-12/schema",
		"$id":                  SchemaID,
		"title":                "a2a-mcp-bridge configuration",
		"description":          typeDoc,
		"type":                 "object",
		"properties":           props,
		"additionalProperties": false,
		"$defs":                b.defs,
	}
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	enc.SetIndent("", "  ")
	if err := enc.Encode(s); err != nil {
		return nil, nil, err
	}
	return buf.Bytes(), b.markdown(), nil
}

// FindRoot walks up from dir to the directory holding go.mod.
func FindRoot(dir string) (string, error) {
	dir, err := filepath.Abs(dir)
	if err != nil {
		return "", err
	}
	for {
		if _, err := os.Stat(filepath.Join(dir, "go.mod")); err == nil {
			return dir, nil
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return "", fmt.Errorf("reference: no go.mod above %s", dir)
		}
		dir = parent
	}
}

type builder struct {
	root string
	docs map[string]*pkgDocs // by package path
	defs map[string]any
	rows []row // Markdown rows in document order
}

// row is one documented field in the Markdown reference.
type row struct {
	path, typ, def, doc string
	depth               int
}

type pkgDocs struct {
	types  map[string]string            // type name → doc
	fields map[string]map[string]string // type name → field name → doc
}

// pkgDocsFor parses the non-test Go files of the package holding t.
func (b *builder) pkgDocsFor(t reflect.Type) (*pkgDocs, error) {
	pkg := t.PkgPath()
	if d, ok := b.docs[pkg]; ok {
		return d, nil
	}
	rel, ok := strings.CutPrefix(pkg, Module)
	if !ok {
		return nil, fmt.Errorf("reference: type %s is outside the module; its fields cannot be documented", t)
	}
	dir := filepath.Join(b.root, filepath.FromSlash(strings.TrimPrefix(rel, "/")))
	fset := token.NewFileSet()
	matches, err := filepath.Glob(filepath.Join(dir, "*.go"))
	if err != nil {
		return nil, err
	}
	d := &pkgDocs{types: map[string]string{}, fields: map[string]map[string]string{}}
	for _, m := range matches {
		if strings.HasSuffix(m, "_test.go") {
			continue
		}
		f, err := parser.ParseFile(fset, m, nil, parser.ParseComments)
		if err != nil {
			return nil, err
		}
		for _, decl := range f.Decls {
			gd, ok := decl.(*ast.GenDecl)
			if !ok || gd.Tok != token.TYPE {
				continue
			}
			for _, spec := range gd.Specs {
				ts := spec.(*ast.TypeSpec)
				doc := ts.Doc
				if doc == nil && len(gd.Specs) == 1 {
					doc = gd.Doc
				}
				d.types[ts.Name.Name] = text(doc)
				st, ok := ts.Type.(*ast.StructType)
				if !ok {
					continue
				}
				fm := map[string]string{}
				for _, fl := range st.Fields.List {
					doc := text(fl.Doc)
					if doc == "" {
						doc = text(fl.Comment)
					}
					for _, n := range fl.Names {
						fm[n.Name] = doc
					}
					if len(fl.Names) == 0 {
						fm[typeName(fl.Type)] = doc
					}
				}
				d.fields[ts.Name.Name] = fm
			}
		}
	}
	b.docs[pkg] = d
	return d, nil
}

func typeName(e ast.Expr) string {
	switch x := e.(type) {
	case *ast.Ident:
		return x.Name
	case *ast.StarExpr:
		return typeName(x.X)
	case *ast.SelectorExpr:
		return x.Sel.Name
	}
	return ""
}

func text(cg *ast.CommentGroup) string {
	if cg == nil {
		return ""
	}
	return strings.Join(strings.Fields(cg.Text()), " ")
}

func (b *builder) typeDoc(t reflect.Type) (string, error) {
	d, err := b.pkgDocsFor(t)
	if err != nil {
		return "", err
	}
	return d.types[t.Name()], nil
}

// fieldDoc is the field's comment with the Go name replaced by the key.
func (b *builder) fieldDoc(t reflect.Type, sf reflect.StructField, key string) (string, error) {
	d, err := b.pkgDocsFor(t)
	if err != nil {
		return "", err
	}
	doc := d.fields[t.Name()][sf.Name]
	if doc == "" {
		doc = fallbackDocs[qualified(t)+"."+sf.Name]
	}
	if doc == "" {
		return "", fmt.Errorf("reference: %s.%s (%s) has no doc comment: document it where it is defined", t, sf.Name, key)
	}
	if rest, ok := strings.CutPrefix(doc, sf.Name+" "); ok {
		doc = "`" + key + "` " + rest
	}
	return doc, nil
}

func qualified(t reflect.Type) string {
	pkg := t.PkgPath()
	return pkg[strings.LastIndexByte(pkg, '/')+1:] + "." + t.Name()
}

// properties returns the schema properties of struct t (inline fields
// flattened) and records Markdown rows under path.
func (b *builder) properties(t reflect.Type, path string, depth int) (map[string]any, []string, error) {
	props := map[string]any{}
	var required []string
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
		if strings.Contains(opts, "inline") {
			ft := sf.Type
			p, r, err := b.properties(ft, path, depth)
			if err != nil {
				return nil, nil, err
			}
			for k, v := range p {
				props[k] = v
			}
			required = append(required, r...)
			continue
		}
		if name == "" {
			name = strings.ToLower(sf.Name)
		}
		fpath := name
		if path != "" {
			fpath = path + "." + name
		}
		doc, err := b.fieldDoc(t, sf, name)
		if err != nil {
			return nil, nil, err
		}
		r := row{path: fpath, doc: doc, depth: depth, typ: typeLabel(sf.Type)}
		b.rows = append(b.rows, r)
		idx := len(b.rows) - 1
		fs, err := b.schemaFor(sf.Type, fpath, depth+1)
		if err != nil {
			return nil, nil, err
		}
		fs["description"] = doc
		if def, ok := sf.Tag.Lookup("default"); ok {
			fs["default"] = typedDefault(sf.Type, def)
			b.rows[idx].def = def
		}
		if e, ok := enums[qualified(t)+"."+sf.Name]; ok {
			fs["enum"] = e
		}
		props[name] = fs
	}
	return props, required, nil
}

func typedDefault(t reflect.Type, s string) any {
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	if t == durationType || t == byteSizeType {
		return s
	}
	switch t.Kind() {
	case reflect.Bool:
		v, _ := strconv.ParseBool(s)
		return v
	case reflect.Int, reflect.Int64:
		v, _ := strconv.ParseInt(s, 10, 64)
		return v
	}
	return s
}

const durationPattern = `^(0|([0-9]+(\.[0-9]+)?(ns|us|µs|ms|s|m|h))+)$`
const sizePattern = `^[0-9]+ ?(B|KiB|MiB|GiB|kB|KB|MB|GB)?$`

// schemaFor returns the schema of a value of type t at path.
func (b *builder) schemaFor(t reflect.Type, path string, depth int) (map[string]any, error) {
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	switch t {
	case durationType, stdDuration:
		return map[string]any{"type": []string{"string", "integer"}, "pattern": durationPattern, "minimum": 0, "maximum": 0}, nil
	case byteSizeType:
		return map[string]any{"type": []string{"string", "integer"}, "pattern": sizePattern, "minimum": 0}, nil
	}
	switch t.Kind() {
	case reflect.String:
		return map[string]any{"type": "string"}, nil
	case reflect.Bool:
		return map[string]any{"type": "boolean"}, nil
	case reflect.Int, reflect.Int64, reflect.Int32:
		return map[string]any{"type": "integer"}, nil
	case reflect.Uint16:
		return map[string]any{"type": "integer", "minimum": 0, "maximum": 65535}, nil
	case reflect.Float64, reflect.Float32:
		return map[string]any{"type": "number"}, nil
	case reflect.Slice:
		items, err := b.schemaFor(t.Elem(), path+"[]", depth)
		if err != nil {
			return nil, err
		}
		arr := map[string]any{"type": "array", "items": items}
		if reflect.PointerTo(t).Implements(unmarshalerIf) {
			// One value or a list of them (ratelimit per: principal).
			return map[string]any{"anyOf": []any{items, arr}}, nil
		}
		return arr, nil
	case reflect.Map:
		vals, err := b.schemaFor(t.Elem(), path+".*", depth)
		if err != nil {
			return nil, err
		}
		return map[string]any{"type": "object", "additionalProperties": vals}, nil
	case reflect.Struct:
		name := qualified(t)
		props, _, err := b.properties(t, path, depth)
		if err != nil {
			return nil, err
		}
		if _, done := b.defs[name]; !done {
			doc, err := b.typeDoc(t)
			if err != nil {
				return nil, err
			}
			b.defs[name] = map[string]any{
				"description":          doc,
				"type":                 "object",
				"properties":           props,
				"additionalProperties": false,
			}
		}
		return map[string]any{"$ref": "#/$defs/" + name}, nil
	}
	return nil, fmt.Errorf("reference: %s at %s: unsupported kind %s", t, path, t.Kind())
}

func typeLabel(t reflect.Type) string {
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	switch t {
	case durationType, stdDuration:
		return "duration"
	case byteSizeType:
		return "size"
	}
	switch t.Kind() {
	case reflect.String:
		return "string"
	case reflect.Bool:
		return "bool"
	case reflect.Int, reflect.Int64, reflect.Int32, reflect.Uint16:
		return "integer"
	case reflect.Float64, reflect.Float32:
		return "number"
	case reflect.Slice:
		if reflect.PointerTo(t).Implements(unmarshalerIf) {
			return typeLabel(t.Elem()) + " or list"
		}
		return "list of " + typeLabel(t.Elem())
	case reflect.Map:
		return "map of " + typeLabel(t.Elem())
	case reflect.Struct:
		return "object"
	}
	return t.Kind().String()
}

// markdown renders docs/config.md from the rows, in declaration order.
func (b *builder) markdown() []byte {
	var w bytes.Buffer
	w.WriteString("<!-- Code generated by `go generate ./config`; DO NOT EDIT. -->\n\n")
	w.WriteString("# Configuration reference\n\n")
	w.WriteString("The bridge reads one YAML file (`bridge serve --config FILE`; check it with\n")
	w.WriteString("`bridge check-config FILE`). Unknown keys are errors, every problem is reported\n")
	w.WriteString("at once with its line and column, and defaults are applied to what is left out.\n\n")
	w.WriteString("- `${NAME}` in a value is replaced by the environment variable NAME (an unset\n")
	w.WriteString("  variable is an error); `${file:PATH}` by the contents of a file, one trailing\n")
	w.WriteString("  newline removed, PATH relative to the config file; `$${` is a literal `${`.\n")
	w.WriteString("  Substitution happens after parsing, so a value can never add keys. In flow\n")
	w.WriteString("  style (`{a: b}`) quote values holding `${…}`.\n")
	w.WriteString("- Durations are Go durations (`30s`, `5m`, `1h30m`); sizes are bytes or\n")
	w.WriteString("  `512KiB`, `1MiB`, `10MB`.\n")
	w.WriteString("- Options that weaken security are named `unsafe_…`, are off by default, are\n")
	w.WriteString("  logged at start, and on a non-loopback `listen` address need a confirmation.\n\n")
	w.WriteString("Editors can complete and check the file with the JSON Schema\n")
	w.WriteString("[`config/schema.json`](../config/schema.json), generated from the same source:\n")
	w.WriteString("add `# yaml-language-server: $schema=../config/schema.json` at the top.\n")
	for _, r := range b.rows {
		if r.depth == 0 {
			fmt.Fprintf(&w, "\n## `%s`\n\n", r.path)
			fmt.Fprintf(&w, "*%s*%s. %s\n\n", r.typ, defSuffix(r.def), r.doc)
			continue
		}
		indent := strings.Repeat("  ", r.depth-1)
		fmt.Fprintf(&w, "%s- **`%s`** *%s*%s. %s\n", indent, r.path, r.typ, defSuffix(r.def), r.doc)
	}
	return w.Bytes()
}

func defSuffix(def string) string {
	if def == "" {
		return ""
	}
	return ", default `" + def + "`"
}

// Keys returns the documented field paths, for tests.
func Keys(root string) ([]string, error) {
	b := &builder{root: root, docs: map[string]*pkgDocs{}, defs: map[string]any{}}
	if _, _, err := b.properties(reflect.TypeOf(config.Config{}), "", 0); err != nil {
		return nil, err
	}
	out := make([]string, len(b.rows))
	for i, r := range b.rows {
		out[i] = r.path
	}
	slices.Sort(out)
	return out, nil
}
