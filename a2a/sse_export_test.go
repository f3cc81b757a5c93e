package a2a

import (
	"net/http"
	"time"
)

// SetStreamReleaseAfter sets how long a stream idles before release, for a
// test; it returns the previous value.
func SetStreamReleaseAfter(d time.Duration) time.Duration {
	return SetStreamReleaseDelayForTests(d)
}

// ReleasedStreams counts the streams srv has released that are open.
func ReleasedStreams(srv *http.Server) int { return releasedStreams(srv) }

// KeepAliveComment is the SSE keep-alive comment.
var KeepAliveComment = string(keepAliveComment)
