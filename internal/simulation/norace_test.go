//go:build !race

package simulation

// raceOn is set under the race detector (see race_test.go).
const raceOn = false
