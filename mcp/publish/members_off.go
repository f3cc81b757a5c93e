//go:build bridge_nofastjson

package publish

import "encoding/json"

// With the bridge_nofastjson build tag, Select reads a data part with
// encoding/json, as before the in-place reader of members.go: the part into
// a map of raw members, the tool's name with json.Unmarshal.

// toolMembers reads a data part's top-level "tool" and "arguments" members
// (ok false for anything that is not a JSON object).
func toolMembers(d []byte) (tool, args json.RawMessage, hasTool, hasArgs, ok bool) {
	var m map[string]json.RawMessage
	if json.Unmarshal(d, &m) != nil || m == nil {
		return nil, nil, false, false, false
	}
	tool, hasTool = m["tool"]
	args, hasArgs = m["arguments"]
	return tool, args, hasTool, hasArgs, true
}

// stringValue decodes a JSON value into a string.
func stringValue(raw []byte) (string, error) {
	var s string
	err := json.Unmarshal(raw, &s)
	return s, err
}
