package a2a

// What the external tests (package a2a_test) use of the package's
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

// SetFastRequestOff turns the fast request path off (or back on).
func SetFastRequestOff(off bool) { fastRequestOff.Store(off) }
