package sqlite

import "io/fs"

// Migrations are the embedded migrations, for the external tests that
// move a database between their versions.
func Migrations() fs.FS {
	sub, _ := fs.Sub(migrations, "migrations")
	return sub
}
