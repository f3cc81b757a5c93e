// Package sserelease is the release of idle HTTP/1.1 event streams from
// net/http: once a stream has sent nothing for the release delay, the
// server takes its connection over, the handler returns, and the stream
// goes on in the goroutine that produces its events, without net/http's
// connection goroutine, its buffers and the stack the request grew; the
// connection is handed back to the http.Server when the stream ends.
//
// # What it buys
//
// The memory an idle stream holds. BASE_TAGS=bridge_nosserelease
// SCENARIOS=idle make bench (2026-12-03; 1,000 then 5,000 idle
// SubscribeToTask streams, slope between the steps) measured, with the
// release against without it: 12.2 against 37.7 KiB of Go heap and
// stacks retained per stream on the memory store (20.0 against 40.9 on
// SQLite), 17.8 against 39.3 KiB of RSS (20.0 against 46.9). Without it
// an idle stream costs twice nginx's 17.7 KiB; with it, about as much.
//
// This package owns the switch (Enabled: false under the
// bridge_nosserelease build tag, and every stream then stays with
// net/http), the contract between the server that releases a stream and
// the producer that goes on writing to it (Handoff), and the parts of the
// takeover that know nothing of A2A: which writers stand between a
// stream and its connection and whether all of them let it go (ChainOf,
// Observer), whether a request leaves nothing to read on its connection
// (RequestConsumed), the reader of a released connection that keeps what
// the client sends next (Watch), and the hand-back of the connection to
// the http.Server once the stream ends, through a listener that yields it
// once with the bytes read ahead put back in front (HandBack). What knows
// the stream (its idle detection, its SSE writer's lock and buffers, the
// wrappers' ends, the released streams of each server and their shutdown)
// is a2a/server's sse_release.go. It imports nothing of the bridge: the
// server (a2a/server) and the task manager (a2a/taskmanager) import it,
// never the other way round.
package sserelease
