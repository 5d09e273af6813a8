package simulation

import (
	"context"
	"database/sql"
	"fmt"
	"io"
	"net/url"
	"os"
	"path/filepath"

	_ "github.com/jackc/pgx/v5/stdlib" // the "pgx" driver, to make each run's schema

	"github.com/topupd/topupd/sqlite"
)

// DefaultSteps is how many steps a seed takes while faults happen.
const DefaultSteps = 300

// Runner runs seeds, each on a SQLite database of its own copied from one
// migrated template and, when Postgres is set, on a PostgreSQL schema of
// its own too.
type Runner struct {
	// Postgres, when set, is a PostgreSQL URL each seed also runs on.
	Postgres string
	// Steps is each seed's length (DefaultSteps when 0).
	Steps int
	// Trace, when set, receives every seed's trace.
	Trace io.Writer
	// FullMix runs every seed with every kind of fault on, at its base
	// rate, instead of the mix it draws (swarm.go).
	FullMix bool
	// Bursts adds concurrent bursts to every seed (Config.Bursts).
	Bursts bool
	dir    string
}

// NewRunner migrates the template database once.
func NewRunner(ctx context.Context, pg string, steps int, trace io.Writer) (*Runner, error) {
	dir, err := os.MkdirTemp(tempRoot(), "topupd-sim-")
	if err != nil {
		return nil, err
	}
	st, err := sqlite.Open(ctx, filepath.Join(dir, "template.db"), vault())
	if err != nil {
		os.RemoveAll(dir)
		return nil, err
	}
	if err := st.Close(); err != nil { // the last close checkpoints the WAL into the file
		os.RemoveAll(dir)
		return nil, err
	}
	if steps <= 0 {
		steps = DefaultSteps
	}
	return &Runner{Postgres: pg, Steps: steps, Trace: trace, dir: dir}, nil
}

// Close removes the template and every run's files.
func (r *Runner) Close() error { return os.RemoveAll(r.dir) }

// Seed runs one seed on SQLite and, when r.Postgres is set, on PostgreSQL;
// each store is dropped afterwards.
func (r *Runner) Seed(ctx context.Context, seed uint64) ([]Result, error) {
	dir, err := os.MkdirTemp(r.dir, "run-")
	if err != nil {
		return nil, err
	}
	defer os.RemoveAll(dir)
	tpl, err := os.ReadFile(filepath.Join(r.dir, "template.db"))
	if err != nil {
		return nil, err
	}
	if err := os.WriteFile(filepath.Join(dir, "sim.db"), tpl, 0o600); err != nil {
		return nil, err
	}
	res, err := Run(ctx, Config{Seed: seed, Steps: r.Steps, Dir: dir, Trace: r.Trace, FullMix: r.FullMix, Bursts: r.Bursts})
	res.Store = "sqlite"
	out := []Result{res}
	if err != nil || r.Postgres == "" {
		return out, err
	}
	dsn, drop, err := pgSchema(ctx, r.Postgres, seed)
	if err != nil {
		return out, err
	}
	defer drop()
	res, err = Run(ctx, Config{Seed: seed, Steps: r.Steps, Postgres: dsn, Trace: r.Trace, FullMix: r.FullMix, Bursts: r.Bursts})
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
	// The run's database is thrown away: its commits need not wait for
	// the disk.
	q.Set("synchronous_commit", "off")
	u.RawQuery = q.Encode()
	return u.String(), func() {
		db.Exec("DROP SCHEMA " + schema + " CASCADE")
		db.Close()
	}, nil
}

// tempRoot is where a run's SQLite file goes: memory-backed /dev/shm where
// there is one (a run's database is thrown away, so its fsyncs need not
// reach a disk), the system's temporary directory otherwise.
func tempRoot() string {
	if fi, err := os.Stat("/dev/shm"); err == nil && fi.IsDir() {
		return "/dev/shm"
	}
	return ""
}
