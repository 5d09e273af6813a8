package postgres

import (
	"io/fs"

	"github.com/topupd/topupd/internal/sqlstore"
)

// The dialect's error tests and the hot queries, for the external tests.
var (
	IsTransient       = dialect.IsTransient
	IsUniqueViolation = dialect.IsUniqueViolation
	HotQueries        = sqlstore.HotQueries(dialect)
)

// Migrations are the embedded migrations, for the external tests that
// move a database between their versions.
func Migrations() fs.FS {
	sub, _ := fs.Sub(migrations, "migrations")
	return sub
}
