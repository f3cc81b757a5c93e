//go:build race

package store

// raceEnabled: the race detector randomizes goroutine scheduling, so tests
// of scheduling behaviour run without it (make test-go runs them so).
const raceEnabled = true
