//go:build simbug_codeunique

package sqlstore

// A planted bug (see planted.go): the code-uniqueness check removed.
const plantedNoCodeCheck = true
