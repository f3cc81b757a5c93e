package a2a

import (
	"net/http"
	"time"
	"weak"
)

// SetStreamReleaseAfter sets how long a stream idles before release, for a
// test; it returns the previous value.
func SetStreamReleaseAfter(d time.Duration) time.Duration {
	return SetStreamReleaseDelayForTests(d)
}

// ReleasedStreams counts the streams srv has released that are open.
func ReleasedStreams(srv *http.Server) int {
	releaseSets.mu.Lock()
	s := releaseSets.m[weak.Make(srv)]
	releaseSets.mu.Unlock()
	if s == nil {
		return 0
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	return len(s.streams)
}

// KeepAliveComment is the SSE keep-alive comment.
var KeepAliveComment = string(keepAliveComment)
