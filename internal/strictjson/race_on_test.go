//go:build race

package strictjson

// raceEnabled: the race detector makes sync.Pool drop what it is given,
// so allocation counts are measured without it (make test-go runs so).
const raceEnabled = true
