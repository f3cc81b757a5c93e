package bridgetest

import (
	"syscall"
	"testing"
	"time"
)

// ProcessCPU is the CPU time (user and system) the test process has used
// so far: every goroutine's, the collector's too. Zero if the kernel does
// not tell.
func ProcessCPU() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// ReportCPUPerOp reports the process's CPU time since start (a
// ProcessCPU reading) per op, as cpu-ns/op. On a shared, loaded machine
// ns/op also counts the time spent waiting for a core, and with callers
// waiting on I/O it is latency; cpu-ns/op is what an op costs the machine.
func ReportCPUPerOp(b *testing.B, start time.Duration) {
	if b.N > 0 {
		b.ReportMetric(float64(ProcessCPU()-start)/float64(b.N), "cpu-ns/op")
	}
}
