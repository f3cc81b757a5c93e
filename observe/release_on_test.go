//go:build !bridge_nosserelease

package observe

// streamsReleased: the a2a server releases idle HTTP/1.1 event streams
// from net/http (docs/performance.md); under bridge_nosserelease they stay
// with the handler (release_off_test.go).
const streamsReleased = true
