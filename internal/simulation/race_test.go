//go:build race

package simulation

// raceOn is set under the race detector, which slows the pure-Go SQLite
// tenfold: the simulator runs in one goroutine, so fewer seeds lose
// little there, and the full set runs without -race.
const raceOn = true
