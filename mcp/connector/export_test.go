package connector

// SetLibraryCalls sends every call through mcp-go's client (on) or lets
// streamable HTTP calls go direct (off), for the differential tests.
func SetLibraryCalls(on bool) (restore func()) {
	old := libraryCalls
	libraryCalls = on
	return func() { libraryCalls = old }
}
