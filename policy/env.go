package policy

import (
	"errors"
	"fmt"
	"reflect"
	"slices"
	"sync"

	"cel.dev/cel-go/cel"
	"cel.dev/cel-go/common/types"
	"cel.dev/cel-go/common/types/ref"
	"cel.dev/cel-go/interpreter"

	"github.com/a2a-mcp-bridge/bridge/request"
)

// The CEL environment exposes two variables, principal and hop, each of a
// declared object type. Their fields are served by a small type provider
// (celProvider) backed by the tables below, so the checker rejects unknown
// fields at compile time (hop.toool is an error) and evaluation reads the Go
// structs directly, without reflection.

// CEL type names of the two variables. Rules never need to spell them; they
// show up in type-check messages.
const (
	principalTypeName = "bridge.policy.Principal"
	hopTypeName       = "bridge.request.Hop"
)

var (
	principalType = types.NewObjectType(principalTypeName)
	hopType       = types.NewObjectType(hopTypeName)
	stringList    = types.NewListType(types.StringType)
	claimsMap     = types.NewMapType(types.StringType, types.DynType)
)

// field describes one field of a view: its CEL type, how to read it, and
// whether it holds a non-zero value (for has()).
type field struct {
	typ   *types.Type
	get   func(a *activation) ref.Val
	isSet func(a *activation) bool
}

func hopString(f func(h *request.Hop) string) field {
	return field{
		typ:   types.StringType,
		get:   func(a *activation) ref.Val { return types.String(f(&a.hop)) },
		isSet: func(a *activation) bool { return f(&a.hop) != "" },
	}
}

func hopBool(f func(h *request.Hop) bool) field {
	return field{
		typ:   types.BoolType,
		get:   func(a *activation) ref.Val { return types.Bool(f(&a.hop)) },
		isSet: func(a *activation) bool { return f(&a.hop) },
	}
}

// noPrincipal stands in for a nil Principal so every field reads as empty.
var noPrincipal request.Principal

func principalOf(a *activation) *request.Principal {
	if a.hop.Principal == nil {
		return &noPrincipal
	}
	return a.hop.Principal
}

func principalString(f func(p *request.Principal) string) field {
	return field{
		typ:   types.StringType,
		get:   func(a *activation) ref.Val { return types.String(f(principalOf(a))) },
		isSet: func(a *activation) bool { return f(principalOf(a)) != "" },
	}
}

func principalList(f func(p *request.Principal) []string) field {
	return field{
		typ:   stringList,
		get:   func(a *activation) ref.Val { return types.NewStringList(types.DefaultTypeAdapter, f(principalOf(a))) },
		isSet: func(a *activation) bool { return len(f(principalOf(a))) > 0 },
	}
}

// principalFields are the fields of the principal variable. A nil principal
// (no authentication at all) reads as empty strings, lists and map.
var principalFields = map[string]field{
	"subject":   principalString(func(p *request.Principal) string { return p.Subject }),
	"issuer":    principalString(func(p *request.Principal) string { return p.Issuer }),
	"client_id": principalString(func(p *request.Principal) string { return p.ClientID }),
	"method":    principalString(func(p *request.Principal) string { return p.Method }),
	"scopes":    principalList(func(p *request.Principal) []string { return p.Scopes }),
	"groups":    principalList(func(p *request.Principal) []string { return p.Groups }),
	"claims": {
		typ: claimsMap,
		get: func(a *activation) ref.Val {
			return types.NewStringInterfaceMap(types.DefaultTypeAdapter, principalOf(a).Claims)
		},
		isSet: func(a *activation) bool { return len(principalOf(a).Claims) > 0 },
	},
	// Token is deliberately absent: rules never see the raw credential.
}

// hopFields are the fields of the hop variable.
var hopFields = map[string]field{
	"face":             hopString(func(h *request.Hop) string { return string(h.Face) }),
	"direction":        hopString(func(h *request.Hop) string { return string(h.Direction) }),
	"agent":            hopString(func(h *request.Hop) string { return h.Agent }),
	"skill":            hopString(func(h *request.Hop) string { return h.Skill }),
	"tool":             hopString(func(h *request.Hop) string { return h.Tool }),
	"tool_destructive": hopBool(func(h *request.Hop) bool { return h.ToolDestructive }),
	"tool_read_only":   hopBool(func(h *request.Hop) bool { return h.ToolReadOnly }),
	"resource":         hopString(func(h *request.Hop) string { return h.Resource }),
	"prompt":           hopString(func(h *request.Hop) string { return h.Prompt }),
	"method":           hopString(func(h *request.Hop) string { return h.Method }),
	"task_id":          hopString(func(h *request.Hop) string { return h.TaskID }),
	"remote_ip":        hopString(func(h *request.Hop) string { return h.RemoteIP }),
}

// PrincipalFields lists the fields rules may read from principal, sorted.
func PrincipalFields() []string { return sortedKeys(principalFields) }

// HopFields lists the fields rules may read from hop, sorted.
func HopFields() []string { return sortedKeys(hopFields) }

func sortedKeys(m map[string]field) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	return keys
}

// activation is the CEL input for one evaluation: a copy of the Hop. The
// principal and hop variables are two views of the same struct, so building
// an activation is one allocation and no per-field work; fields are read
// lazily, only when a rule touches them.
type activation struct {
	hop request.Hop
}

// newActivation turns a Hop into the CEL input. It is the policy input
// builder: it must accept any Hop, including a nil Principal and nil or odd
// claims, without panicking.
func newActivation(h request.Hop) *activation {
	return &activation{hop: h}
}

// ResolveName implements interpreter.Activation.
func (a *activation) ResolveName(name string) (any, bool) {
	switch name {
	case "principal":
		return (*principalView)(a), true
	case "hop":
		return (*hopView)(a), true
	}
	return nil, false
}

// Parent implements interpreter.Activation.
func (a *activation) Parent() interpreter.Activation { return nil }

var _ interpreter.Activation = (*activation)(nil)

// principalView is the CEL value of the principal variable.
type principalView activation

// hopView is the CEL value of the hop variable.
type hopView activation

var (
	_ ref.Val = (*principalView)(nil)
	_ ref.Val = (*hopView)(nil)
)

var errNoConversion = errors.New("policy: principal and hop cannot be converted to native values")

// ConvertToNative implements ref.Val. Views never leave CEL.
func (v *principalView) ConvertToNative(reflect.Type) (any, error) { return nil, errNoConversion }

// ConvertToType implements ref.Val.
func (v *principalView) ConvertToType(t ref.Type) ref.Val { return convertView(principalType, t) }

// Equal implements ref.Val: a view equals only itself.
func (v *principalView) Equal(o ref.Val) ref.Val {
	ov, ok := o.(*principalView)
	return types.Bool(ok && ov == v)
}

// Type implements ref.Val.
func (v *principalView) Type() ref.Type { return principalType }

// Value implements ref.Val; the field getters receive the view itself.
func (v *principalView) Value() any { return v }

// Get implements traits.Indexer for dynamic access (dyn(principal).subject).
func (v *principalView) Get(index ref.Val) ref.Val {
	return getField(principalFields, (*activation)(v), index)
}

// IsSet implements traits.FieldTester for dynamic presence tests.
func (v *principalView) IsSet(index ref.Val) ref.Val {
	return isSetField(principalFields, (*activation)(v), index)
}

// ConvertToNative implements ref.Val. Views never leave CEL.
func (v *hopView) ConvertToNative(reflect.Type) (any, error) { return nil, errNoConversion }

// ConvertToType implements ref.Val.
func (v *hopView) ConvertToType(t ref.Type) ref.Val { return convertView(hopType, t) }

// Equal implements ref.Val: a view equals only itself.
func (v *hopView) Equal(o ref.Val) ref.Val { ov, ok := o.(*hopView); return types.Bool(ok && ov == v) }

// Type implements ref.Val.
func (v *hopView) Type() ref.Type { return hopType }

// Value implements ref.Val; the field getters receive the view itself.
func (v *hopView) Value() any { return v }

// Get implements traits.Indexer for dynamic access (dyn(hop).agent).
func (v *hopView) Get(index ref.Val) ref.Val { return getField(hopFields, (*activation)(v), index) }

// IsSet implements traits.FieldTester for dynamic presence tests.
func (v *hopView) IsSet(index ref.Val) ref.Val { return isSetField(hopFields, (*activation)(v), index) }

func convertView(self *types.Type, t ref.Type) ref.Val {
	if t == types.TypeType {
		return self
	}
	return types.NewErr("type conversion error from '%s' to '%s'", self.TypeName(), t.TypeName())
}

func getField(fields map[string]field, a *activation, index ref.Val) ref.Val {
	name, ok := index.(types.String)
	if !ok {
		return types.NewErr("no such key")
	}
	f, ok := fields[string(name)]
	if !ok {
		return types.NewErr("no such key: %s", string(name))
	}
	return f.get(a)
}

func isSetField(fields map[string]field, a *activation, index ref.Val) ref.Val {
	name, ok := index.(types.String)
	if !ok {
		return types.NewErr("no such key")
	}
	f, ok := fields[string(name)]
	if !ok {
		return types.NewErr("no such key: %s", string(name))
	}
	return types.Bool(f.isSet(a))
}

// viewActivation recovers the activation behind a field getter's target.
func viewActivation(target any) (*activation, error) {
	switch v := target.(type) {
	case *principalView:
		return (*activation)(v), nil
	case *hopView:
		return (*activation)(v), nil
	}
	return nil, fmt.Errorf("policy: unexpected CEL operand %T", target)
}

// celProvider adds the principal and hop object types to the standard
// registry. Everything else is delegated.
type celProvider struct {
	*types.Registry
	structs map[string]map[string]*types.FieldType
}

func newCELProvider() (*celProvider, error) {
	reg, err := types.NewRegistry()
	if err != nil {
		return nil, err
	}
	p := &celProvider{Registry: reg, structs: map[string]map[string]*types.FieldType{
		principalTypeName: fieldTypes(principalFields),
		hopTypeName:       fieldTypes(hopFields),
	}}
	return p, nil
}

func fieldTypes(fields map[string]field) map[string]*types.FieldType {
	out := make(map[string]*types.FieldType, len(fields))
	for name, f := range fields {
		out[name] = &types.FieldType{
			Type: f.typ,
			IsSet: func(target any) bool {
				a, err := viewActivation(target)
				return err == nil && f.isSet(a)
			},
			GetFrom: func(target any) (any, error) {
				a, err := viewActivation(target)
				if err != nil {
					return nil, err
				}
				return f.get(a), nil
			},
		}
	}
	return out
}

// FindStructType implements types.Provider.
func (p *celProvider) FindStructType(name string) (*types.Type, bool) {
	if _, ok := p.structs[name]; ok {
		return types.NewTypeTypeWithParam(types.NewObjectType(name)), true
	}
	return p.Registry.FindStructType(name)
}

// FindStructFieldNames implements types.Provider.
func (p *celProvider) FindStructFieldNames(name string) ([]string, bool) {
	if fs, ok := p.structs[name]; ok {
		names := make([]string, 0, len(fs))
		for n := range fs {
			names = append(names, n)
		}
		slices.Sort(names)
		return names, true
	}
	return p.Registry.FindStructFieldNames(name)
}

// FindStructFieldType implements types.Provider.
func (p *celProvider) FindStructFieldType(name, fieldName string) (*types.FieldType, bool) {
	if fs, ok := p.structs[name]; ok {
		ft, ok := fs[fieldName]
		return ft, ok
	}
	return p.Registry.FindStructFieldType(name, fieldName)
}

// FindIdent implements types.Provider, so rules may name the two types
// (type(hop) == bridge.request.Hop).
func (p *celProvider) FindIdent(name string) (ref.Val, bool) {
	switch name {
	case principalTypeName:
		return principalType, true
	case hopTypeName:
		return hopType, true
	}
	return p.Registry.FindIdent(name)
}

// NewValue implements types.Provider. Principal and Hop cannot be built
// inside an expression.
func (p *celProvider) NewValue(name string, fields map[string]ref.Val) ref.Val {
	if _, ok := p.structs[name]; ok {
		return types.NewErr("policy: %s values cannot be constructed in an expression", name)
	}
	return p.Registry.NewValue(name, fields)
}

// celEnv is the shared, immutable environment every rule and condition is
// compiled against. Building it costs milliseconds, so it is built once.
var celEnv = sync.OnceValues(func() (*cel.Env, error) {
	p, err := newCELProvider()
	if err != nil {
		return nil, fmt.Errorf("policy: build CEL type provider: %w", err)
	}
	env, err := cel.NewEnv(
		cel.CustomTypeProvider(p),
		cel.CustomTypeAdapter(p),
		cel.Variable("principal", principalType),
		cel.Variable("hop", hopType),
		cel.OptionalTypes(),
		cel.CrossTypeNumericComparisons(true),
	)
	if err != nil {
		return nil, fmt.Errorf("policy: build CEL environment: %w", err)
	}
	return env, nil
})
