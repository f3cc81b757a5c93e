package a2a

import (
	"reflect"
	"strings"
	"testing"
)

// TestWireMirrorsMatchPublicTypes: the wire mirrors the slow path decodes
// into have the members of the public types, in order, so that the fast
// path of a2a/internal/fastjson, which checks its member lists against the
// public types, knows every member the slow path reads.
func TestWireMirrorsMatchPublicTypes(t *testing.T) {
	members := func(typ reflect.Type) []string {
		var names []string
		for i := range typ.NumField() {
			name, _, _ := strings.Cut(typ.Field(i).Tag.Get("json"), ",")
			if name != "-" {
				names = append(names, name)
			}
		}
		return names
	}
	for _, tc := range []struct{ mirror, public reflect.Type }{
		{reflect.TypeFor[rpcResponseIn[taskIn]](), reflect.TypeFor[RPCResponse[Task]]()},
		{reflect.TypeFor[sendMessageResponseIn](), reflect.TypeFor[SendMessageResponse]()},
		{reflect.TypeFor[streamIn](), reflect.TypeFor[StreamResponse]()},
		{reflect.TypeFor[taskIn](), reflect.TypeFor[Task]()},
		{reflect.TypeFor[statusIn](), reflect.TypeFor[TaskStatus]()},
		{reflect.TypeFor[messageIn](), reflect.TypeFor[Message]()},
		{reflect.TypeFor[artifactIn](), reflect.TypeFor[Artifact]()},
		{reflect.TypeFor[statusUpdateIn](), reflect.TypeFor[TaskStatusUpdateEvent]()},
		{reflect.TypeFor[artifactUpdateIn](), reflect.TypeFor[TaskArtifactUpdateEvent]()},
		{reflect.TypeFor[sendMessageRequestIn](), reflect.TypeFor[SendMessageRequest]()},
	} {
		if got, want := members(tc.mirror), members(tc.public); !reflect.DeepEqual(got, want) {
			t.Errorf("%v: members %q, %v has %q", tc.mirror, got, tc.public, want)
		}
	}
	parts := []string{"text", "raw", "url", "data", "metadata", "filename", "mediaType"}
	if got := members(reflect.TypeFor[partIn]()); !reflect.DeepEqual(got, parts) {
		t.Errorf("partIn: members %q, want %q", got, parts)
	}
}
