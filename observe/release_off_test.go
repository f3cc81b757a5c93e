//go:build bridge_nosserelease

package observe

// streamsReleased: under bridge_nosserelease the a2a server keeps every
// event stream with net/http's handler goroutine (release_on_test.go).
const streamsReleased = false
