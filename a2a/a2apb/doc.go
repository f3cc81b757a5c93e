// Package a2apb is the protoc-gen-go output of the pinned A2A 1.0.1 proto
// (specification/a2a.proto, sha256 e195bf96…5104016), package lf.a2a.v1.
//
// The bridge speaks A2A through the hand-written types of package a2a; this
// package is the oracle their tests compare against with protojson, and the
// message set of a gRPC binding. Regenerate with gen.sh (make proto); never
// edit a2a.pb.go by hand.
package a2apb

//go:generate ./gen.sh
