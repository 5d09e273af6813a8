package simulation

import (
	"context"
	"database/sql"
	"fmt"
	"io"
	"net/url"
	"os"

	_ "github.com/jackc/pgx/v5/stdlib" // the "pgx" driver, to make each run's schema
)

// DefaultSteps is how many steps a seed takes while faults happen.
const DefaultSteps = 300

// RunSeed runs one seed on SQLite in a temporary directory and, when pg
// (a PostgreSQL URL) is set, on PostgreSQL in a schema of its own, each
// dropped afterwards.
func RunSeed(ctx context.Context, seed uint64, steps int, pg string, trace io.Writer) ([]Result, error) {
	dir, err := os.MkdirTemp("", "topupd-sim-")
	if err != nil {
		return nil, err
	}
	defer os.RemoveAll(dir)
	res, err := Run(ctx, Config{Seed: seed, Steps: steps, Dir: dir, Trace: trace})
	res.Store = "sqlite"
	out := []Result{res}
	if err != nil || pg == "" {
		return out, err
	}
	dsn, drop, err := pgSchema(ctx, pg, seed)
	if err != nil {
		return out, err
	}
	defer drop()
	res, err = Run(ctx, Config{Seed: seed, Steps: steps, Postgres: dsn, Trace: trace})
	res.Store = "postgres"
	return append(out, res), err
}

// pgSchema makes a schema of the run's own and returns a URL that uses it,
// and a function that drops it.
func pgSchema(ctx context.Context, pg string, seed uint64) (string, func(), error) {
	db, err := sql.Open("pgx", pg)
	if err != nil {
		return "", nil, err
	}
	schema := fmt.Sprintf("sim_%d_%d", os.Getpid(), seed)
	if _, err := db.ExecContext(ctx, "DROP SCHEMA IF EXISTS "+schema+" CASCADE; CREATE SCHEMA "+schema); err != nil {
		db.Close()
		return "", nil, err
	}
	u, err := url.Parse(pg)
	if err != nil {
		db.Close()
		return "", nil, err
	}
	q := u.Query()
	q.Set("search_path", schema)
	u.RawQuery = q.Encode()
	return u.String(), func() {
		db.Exec("DROP SCHEMA " + schema + " CASCADE")
		db.Close()
	}, nil
}
