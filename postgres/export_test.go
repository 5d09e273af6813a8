package postgres

import "github.com/topupd/topupd/internal/sqlstore"

// The dialect's error tests and the hot queries, for the external tests.
var (
	IsTransient       = dialect.IsTransient
	IsUniqueViolation = dialect.IsUniqueViolation
	HotQueries        = sqlstore.HotQueries(dialect)
)
