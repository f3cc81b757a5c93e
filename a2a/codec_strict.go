package a2a

import (
	"encoding/json"
	"errors"
	"reflect"
	"sync"

	"github.com/a2a-mcp-bridge/bridge/internal/strictjson"
)

// What a peer sends is read one way only. encoding/json, which the slow
// path of every decoder here uses, matches member names case-insensitively
// ("stAtus" is "status"), lets the last of two equal names win and replaces
// invalid UTF-8; the fast decoders, the guards and ProtoJSON peers read
// names exactly. UnmarshalStrict checks a document against the schema of
// the type it is decoded into (strictjson) before encoding/json reads it,
// so a document both accept has one meaning, and a document that could be
// read two ways is refused: a member name that differs from a field's only
// in case, a duplicate member, invalid UTF-8 or a lone surrogate escape.
// With the enums' refusal of numbers in strings (enumFromJSON), that is
// what ProtoJSON refuses as well. The fast decoders decline each of these
// (codec_fastdecode.go), so the slow path, and its error, decides.

// wireTypes maps each type that decodes through a wire mirror (its
// UnmarshalJSON reads the mirror) to the mirror, whose fields the schema
// then holds; SecurityScheme and OAuthFlows decode their own fields.
var wireTypes = map[reflect.Type]reflect.Type{
	reflect.TypeFor[Part]():                reflect.TypeFor[partIn](),
	reflect.TypeFor[Message]():             reflect.TypeFor[messageIn](),
	reflect.TypeFor[Artifact]():            reflect.TypeFor[artifactIn](),
	reflect.TypeFor[TaskStatus]():          reflect.TypeFor[statusIn](),
	reflect.TypeFor[Task]():                reflect.TypeFor[taskIn](),
	reflect.TypeFor[StreamResponse]():      reflect.TypeFor[streamIn](),
	reflect.TypeFor[SendMessageResponse](): reflect.TypeFor[sendMessageResponseIn](),
	reflect.TypeFor[SecurityScheme]():      reflect.TypeFor[SecurityScheme](),
	reflect.TypeFor[OAuthFlows]():          reflect.TypeFor[OAuthFlows](),
	reflect.TypeFor[AgentCard]():           reflect.TypeFor[AgentCard](),
}

var schemas sync.Map // reflect.Type → *strictjson.Schema

// schemaOf is the schema of the type v points to.
func schemaOf(v any) *strictjson.Schema {
	t := reflect.TypeOf(v)
	if s, ok := schemas.Load(t); ok {
		return s.(*strictjson.Schema)
	}
	s := strictjson.For(t, strictjson.Options{Wire: wireTypes})
	schemas.Store(t, s)
	return s
}

// UnmarshalStrict is json.Unmarshal of a document that has one reading
// (see above); a document that has two is refused with a *strictjson.Error.
func UnmarshalStrict(b []byte, v any) error {
	if err := schemaOf(v).Check(b); err != nil {
		if strictjson.Is(err, strictjson.KindSyntax) {
			// Not JSON at all: encoding/json says where, in the words the
			// callers' errors have always had.
			if jerr := json.Unmarshal(b, v); jerr != nil {
				return jerr
			}
		}
		return err
	}
	return json.Unmarshal(b, v)
}

// strictError reports the strictjson refusal in err, if any.
func strictError(err error) (*strictjson.Error, bool) {
	var se *strictjson.Error
	if errors.As(err, &se) && se.Kind != strictjson.KindSyntax {
		return se, true
	}
	return nil, false
}
