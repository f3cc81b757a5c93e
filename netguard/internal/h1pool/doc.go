// Package h1pool is netguard's HTTP/1.1 connection pool: a
// [http.RoundTripper] that writes a request and reads its response on the
// caller's goroutine, with no reader or writer goroutine per connection.
// netguard uses it for the clients whose Config sets HTTP1Direct (the
// gateway's calls to a fronted A2A agent and to an exposed one); every
// other client, and every client of a binary built with the build tag
// bridge_noh1pool, uses net/http's Transport instead.
//
// # What it buys
//
// net/http's transport hands each request from the caller to the
// connection's writer goroutine and each response from its reader
// goroutine back: two goroutine switches and a few channel operations per
// call, which for a gateway relaying many small calls to one upstream on
// one core cost more CPU than the syscalls. BenchmarkRoundTrip here and
// `make bench` (docs/performance.md) measure the difference: on the front
// path, BASE_TAGS=bridge_noh1pool SCENARIOS=front ROUNDS=3 make bench
// (2026-12-03, load 24) gave 170 against 191 allocations per call on the
// memory store (198 against 219 on SQLite) and throughput on/off of 0.97
// (0.93-1.04) and 0.99 (0.83-1.13): no gain resolved; a second run at
// b50bea0 gave 159 against 184 (memory) and 186 against 212 (SQLite)
// allocations, throughput 0.93 and 1.06 within noise. It is kept for those
// allocations (docs/performance.md says when to remove it).
//
// # What it costs
//
// About 900 lines that net/http's maintainers do not keep for us (the
// request writer of write.go among them: see writeRequest for why), and
// features it does not have: HTTP/1.1 only (TLS offers only http/1.1), no
// gzip negotiation, no proxy, no Expect: 100-continue, no protocol
// upgrades (both refused), and a pooled connection the server closed
// while idle is found by a non-blocking peek before reuse (Unix) or when
// a request written to it fails (the request then goes again once on a
// new connection, only if no response byte arrived and, once sent, only
// if it is idempotent, as net/http does).
//
// # What stays the same
//
// The guards are netguard's and apply on both paths: every connection is
// opened by netguard's checked dialer (Options.Dial), TLS uses netguard's
// roots, and the TLS handshake timeout, the response header timeout and
// the 64 KiB response header cap come from the same Config values as the
// net/http transport's. Response body caps, URL checks, redirects and the
// overall timeout sit above the transport, in netguard, for both.
//
// Errors read "netguard: …": the pool is an implementation of netguard's
// clients, and callers see it through them.
package h1pool
