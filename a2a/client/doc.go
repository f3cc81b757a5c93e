// Package client is the A2A 1.0 client: Dial fetches an agent's card and
// picks one of its interfaces (New starts from a card already in hand),
// and the Client calls the agent over the JSON-RPC or the HTTP+JSON
// binding, reading streams as Server-Sent Events (sse_reader.go). Other
// bindings (gRPC, in a2a/a2agrpc) plug in as a Transport, older protocol
// versions (a2a/v03) as a Legacy dialect.
//
// It owns the outbound side of the protocol only. It imports a2a for the
// wire types and their codec, and must not import the server
// (a2a/server) or the task manager (a2a/taskmanager): a bridge that only
// calls agents links none of the serving side. Every request goes out
// through netguard.
package client
