// Package v03 is A2A 0.3 at the bridge's edge: the 0.3 wire shapes, and
// their translation to and from the 1.0 types of package a2a, in both
// directions. It is the one place where the two versions meet.
//
// As a server's server.Legacy (Dialect), it answers 0.3 callers: a request is
// decoded strictly, once, into the 1.0 call the server runs exactly as a
// 1.0 request (guards, owner scoping, limits, push, the event log), and
// the result and the events are written back in 0.3 shapes: "kind"
// discriminators, "file" parts, lowercase kebab-case states
// ("input-required"), "final" on the status update that ends a stream,
// push configs nested under "pushNotificationConfig". CardJSON adds the
// members a 0.3 client reads to a 1.0 card.
//
// Reading is forward compatible: unknown members are ignored, a part or
// event of an unknown kind is skipped and logged, and a state 0.3 does not
// define is TASK_STATE_UNSPECIFIED, which is never terminal and never
// success.
package v03
