//go:build bridge_nosserelease

package sserelease

// Enabled reports whether idle streams are released from net/http: not
// under the bridge_nosserelease build tag.
const Enabled = false
