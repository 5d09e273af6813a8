package sqlstore

import (
	"context"
	"database/sql"
	"fmt"
	"io/fs"
	"path"
	"strconv"
	"strings"

	"github.com/pressly/goose/v3"
)

// Schema is what a store found and did to its database's schema at open.
type Schema struct {
	// Version is the database's schema version once migrated: the highest
	// migration applied, which is the binary's own SchemaVersion.
	Version int64
	// Applied names the migrations this open applied, in order (for
	// example "00019_key_check"); empty when the schema was up to date.
	Applied []string
	// Repaired says what this open repaired of a database made by an early
	// development build (see repairEarlyBuilds); usually empty.
	Repaired []string
}

// SchemaNewerError refuses a database migrated by a newer binary: its
// schema may hold rules this binary does not know to keep.
type SchemaNewerError struct {
	// Database is the database's schema version, Binary this binary's.
	Database, Binary int64
}

func (e *SchemaNewerError) Error() string {
	return fmt.Sprintf("the database's schema is version %d, newer than this binary's %d: run a topupd that migrates to %d or later (downgrades are not supported; restore a backup made before the upgrade instead)",
		e.Database, e.Binary, e.Database)
}

// SchemaVersion is the highest migration number in fsys, a folder of
// migrations named NNNNN_name.sql: the schema version a binary embedding
// them migrates a database to.
func SchemaVersion(fsys fs.FS) int64 {
	var top int64
	names, _ := fs.Glob(fsys, "*.sql")
	for _, n := range names {
		if v, ok := migrationVersion(n); ok && v > top {
			top = v
		}
	}
	return top
}

// migrationVersion reads the number a migration's file name starts with.
func migrationVersion(name string) (int64, bool) {
	num, _, ok := strings.Cut(path.Base(name), "_")
	if !ok {
		return 0, false
	}
	v, err := strconv.ParseInt(num, 10, 64)
	return v, err == nil && v > 0
}

// Migrate applies fsys's migrations to db with goose, under the options
// given (PostgreSQL passes its session locker). It refuses a database whose
// schema is newer than fsys's. A migration missing below the database's
// version is applied too, in order: builds made while several changes were
// under way landed migrations out of numeric order (00017 before 00015 and
// 00016), and a database such a build made must still reach this binary's
// schema; each migration depends only on those numbered before it that
// landed before it, which every migration so far does.
func Migrate(ctx context.Context, db *sql.DB, dialect goose.Dialect, fsys fs.FS, opts ...goose.ProviderOption) (Schema, error) {
	repairs := "sqlite"
	if dialect == goose.DialectPostgres {
		repairs = "postgres"
	}
	binary := SchemaVersion(fsys)
	p, err := goose.NewProvider(dialect, db, fsys, append(opts, goose.WithAllowOutofOrder(true))...)
	if err != nil {
		return Schema{}, fmt.Errorf("migrations: %w", err)
	}
	current, err := p.GetDBVersion(ctx)
	if err != nil {
		return Schema{}, fmt.Errorf("migrations: reading the schema version: %w", err)
	}
	if current > binary {
		return Schema{}, &SchemaNewerError{Database: current, Binary: binary}
	}
	repaired, err := repairEarlyBuilds(ctx, db, repairs, fsys)
	if err != nil {
		return Schema{}, fmt.Errorf("migrations: %w", err)
	}
	results, err := p.Up(ctx)
	if err != nil {
		return Schema{}, fmt.Errorf("migrations: %w", err)
	}
	s := Schema{Version: binary, Repaired: repaired}
	for _, r := range results {
		s.Applied = append(s.Applied, strings.TrimSuffix(path.Base(r.Source.Path), ".sql"))
	}
	if now, err := p.GetDBVersion(ctx); err != nil {
		return Schema{}, fmt.Errorf("migrations: reading the schema version: %w", err)
	} else if now > binary { // a newer node migrated meanwhile
		return Schema{}, &SchemaNewerError{Database: now, Binary: binary}
	}
	return s, nil
}
