//go:build !bridge_nosserelease

package sserelease

// Enabled reports whether idle streams are released from net/http (false
// under the bridge_nosserelease build tag: every stream then stays with
// net/http for its whole life, its handler running as long as it does).
const Enabled = true
