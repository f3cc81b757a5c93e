//go:build !race

package strictjson

// raceEnabled: see race_on_test.go.
const raceEnabled = false
