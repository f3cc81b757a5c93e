//go:build !bridge_nofastjson

package fastjson

// What the external tests (package fastjson_test) use of the package's
// internals and of its internal test helpers.

var (
	FastReqRPC        = fastReqRPC
	FastCanonicalTask = fastCanonicalTask
	FastQuietLog      = fastQuietLog
)

// FastReqBodies are the bodies of the fast request path's table.
func FastReqBodies() []string {
	var out []string
	for _, tc := range fastReqCases() {
		out = append(out, tc.body)
	}
	return out
}
