// Package gateway builds the running bridge from a config.Config: it
// builds every part, mounts the faces on one handler, applies the hop chain
// (gateway/hops), and owns reload and shutdown of what it built. Serving
// the handler is gateway/listener's; the observing middleware is
// gateway/observability's; the machine checks of check-config are
// gateway/preflight's.
//
// Only cmd/bridge, admin and bench import it; nothing it imports may
// import it back.
package gateway

// Version is the bridge's version, set at build time with -ldflags.
var Version = "0.1.0-dev"
