//go:build !simbug_codeunique

package sqlstore

// plantedNoCodeCheck (build tag simbug_codeunique) is a planted bug of the
// simulator's proof that it finds bugs (docs/simulation.md): a code a
// supplier delivers escapes the global code-uniqueness check. Off, it
// compiles away.
const plantedNoCodeCheck = false
