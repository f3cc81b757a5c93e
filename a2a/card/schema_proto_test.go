package card

import (
	"slices"
	"testing"

	"google.golang.org/genproto/googleapis/api/annotations"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/reflect/protoreflect"

	"github.com/a2a-mcp-bridge/bridge/a2a/a2apb"
)

// TestSchemaMatchesProtoDescriptor checks the hand-written presence table
// against the descriptors generated from shared/spec/a2a.proto: same
// messages, same fields, same presence and kind.
func TestSchemaMatchesProtoDescriptor(t *testing.T) {
	seen := map[string]bool{}
	var walk func(md protoreflect.MessageDescriptor)
	walk = func(md protoreflect.MessageDescriptor) {
		name := string(md.Name())
		if seen[name] {
			return
		}
		seen[name] = true
		table, ok := cardSchema[name]
		if !ok {
			t.Errorf("message %s is reachable from AgentCard but missing from cardSchema", name)
			return
		}
		fields := md.Fields()
		if len(table) != fields.Len() {
			t.Errorf("%s: cardSchema has %d fields, proto has %d", name, len(table), fields.Len())
		}
		for i := range fields.Len() {
			fd := fields.Get(i)
			j := slices.IndexFunc(table, func(f field) bool { return f.proto == string(fd.Name()) })
			if j < 0 {
				t.Errorf("%s.%s missing from cardSchema", name, fd.Name())
				continue
			}
			got := table[j]
			if jsonName(got.proto) != fd.JSONName() {
				t.Errorf("%s.%s: json name %q, proto says %q", name, fd.Name(), jsonName(got.proto), fd.JSONName())
			}
			if want := protoPresence(fd); got.presence != want {
				t.Errorf("%s.%s: presence %d, want %d", name, fd.Name(), got.presence, want)
			}
			wantKind, nested, ok := protoKind(fd)
			if !ok {
				t.Errorf("%s.%s: proto kind %v is not modelled by cardSchema", name, fd.Name(), fd.Kind())
				continue
			}
			if got.kind != wantKind {
				t.Errorf("%s.%s: kind %d, want %d", name, fd.Name(), got.kind, wantKind)
			}
			if nested != nil {
				if got.message != string(nested.Name()) {
					t.Errorf("%s.%s: message %q, want %q", name, fd.Name(), got.message, nested.Name())
				}
				walk(nested)
			}
		}
	}
	walk((&a2apb.AgentCard{}).ProtoReflect().Descriptor())
	for name := range cardSchema {
		if !seen[name] {
			t.Errorf("cardSchema has %s, which AgentCard does not reach", name)
		}
	}
}

func protoPresence(fd protoreflect.FieldDescriptor) presence {
	if fb, _ := proto.GetExtension(fd.Options(), annotations.E_FieldBehavior).([]annotations.FieldBehavior); slices.Contains(fb, annotations.FieldBehavior_REQUIRED) {
		return required
	}
	if fd.HasOptionalKeyword() || fd.ContainingOneof() != nil {
		return optional
	}
	return plain
}

// protoKind maps a field to its cardSchema kind and the nested message the
// canonicalizer recurses into (nil for none).
func protoKind(fd protoreflect.FieldDescriptor) (kind, protoreflect.MessageDescriptor, bool) {
	isStruct := func(md protoreflect.MessageDescriptor) bool { return md.FullName() == "google.protobuf.Struct" }
	switch {
	case fd.IsMap():
		v := fd.MapValue()
		switch v.Kind() {
		case protoreflect.StringKind:
			return kindStringMap, nil, true
		case protoreflect.MessageKind:
			return kindMessageMap, v.Message(), true
		}
	case fd.IsList():
		switch fd.Kind() {
		case protoreflect.StringKind:
			return kindStrings, nil, true
		case protoreflect.MessageKind:
			if !isStruct(fd.Message()) {
				return kindMessages, fd.Message(), true
			}
		}
	default:
		switch fd.Kind() {
		case protoreflect.StringKind:
			return kindString, nil, true
		case protoreflect.BoolKind:
			return kindBool, nil, true
		case protoreflect.MessageKind:
			if isStruct(fd.Message()) {
				return kindStruct, nil, true
			}
			return kindMessage, fd.Message(), true
		}
	}
	return 0, nil, false
}
