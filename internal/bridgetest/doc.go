// Package bridgetest is the one harness the tests share for starting the
// bridge, its peers and its servers: the real binary (BridgeBinary,
// StartBridge, StartDemo), any child process (Proc: output kept, log lines
// waited for, SIGTERM then SIGKILL, stopped at cleanup), the Node peers
// (Node, StartNodeServer, RunNodeTest), the MCP test servers
// (StartMCPTestServer, StartEverything), the bridge in-process
// (StartDemoInProcess, on gateway/gatewaytest) and the waits (Eventually,
// Wait) that replace sleeps, and the CPU clock of benchmarks (ProcessCPU,
// ReportCPUPerOp: cpu-ns/op).
//
// It is test support: only _test files import it (internal/archtest).
// A package that builds binaries with it removes them at exit with
//
//	func TestMain(m *testing.M) { os.Exit(bridgetest.Main(m)) }
//
// Every socket is on 127.0.0.1. Bounds are liveness bounds, not
// assertions about speed.
package bridgetest

import "time"

// ReadyBound bounds how long a started process may take to become ready.
const ReadyBound = 60 * time.Second

// StopGrace is how long a process has to exit after SIGTERM before it (and
// its process group) is killed.
const StopGrace = 10 * time.Second
