// Package server serves one A2A 1.0 agent over HTTP: an http.Handler (New)
// for the JSON-RPC binding and the HTTP+JSON binding, with Server-Sent
// Events for the streaming calls, the agent card, the version negotiation,
// and the hooks through which an older protocol version (Legacy, the 0.3
// dialect in a2a/v03) and another binding (a2a/a2agrpc, through Call and
// Serve) reach the same core. Each call is decoded, checked by the Guard,
// and handed to the task manager.
//
// It owns the inbound side of the protocol: routing, the bindings' error
// shapes, SSE writing, and the release of idle event streams from
// net/http (a2a/internal/sserelease). The wire types and their codec are
// package a2a; the task lifecycle is the task manager's. It must not import
// the client (a2a/client): a bridge that only serves agents links none of
// the calling side.
//
// The package is named server, a noun that reads well at the call site
// (server.New, server.Config); the few importers that also import
// mcp-go's server package name this one a2aserver.
package server
