package server

import "net/http"

// ReleasedStreams counts the streams srv has released that are open.
func ReleasedStreams(srv *http.Server) int { return releasedStreams(srv) }

// KeepAliveComment is the SSE keep-alive comment.
var KeepAliveComment = string(keepAliveComment)
