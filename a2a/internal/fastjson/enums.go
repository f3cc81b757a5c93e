//go:build !bridge_nofastjson

package fastjson

import (
	"encoding/json"

	"github.com/a2a-mcp-bridge/bridge/a2a"
)

// knownEnumJSON holds the JSON strings of the known enum names (what their
// MarshalJSON writes), each with len == cap so that an append by a caller
// copies.
var knownEnumJSON = func() map[string][]byte {
	names := []string{
		string(a2a.TaskStateUnspecified), string(a2a.TaskStateSubmitted), string(a2a.TaskStateWorking),
		string(a2a.TaskStateCompleted), string(a2a.TaskStateFailed), string(a2a.TaskStateCanceled),
		string(a2a.TaskStateInputRequired), string(a2a.TaskStateRejected), string(a2a.TaskStateAuthRequired),
		string(a2a.RoleUnspecified), string(a2a.RoleUser), string(a2a.RoleAgent),
	}
	m := make(map[string][]byte, len(names))
	for _, k := range names {
		b, _ := json.Marshal(k)
		m[k] = b[:len(b):len(b)]
	}
	return m
}()

// skipSpace skips JSON whitespace from i.
func skipSpace(b []byte, i int) int {
	for i < len(b) && (b[i] == ' ' || b[i] == '\t' || b[i] == '\n' || b[i] == '\r') {
		i++
	}
	return i
}

func countSet(set ...bool) int {
	n := 0
	for _, s := range set {
		if s {
			n++
		}
	}
	return n
}
