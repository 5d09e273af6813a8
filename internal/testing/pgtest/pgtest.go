// Package pgtest gives each test a schema or a database of its own on this
// machine's PostgreSQL (TOPUPD_TEST_POSTGRES), dropped when the test ends,
// so that runs and tests never collide.
//
// A test that checks migrations takes an empty schema (Schema). Every other
// test takes a database already migrated (Migrated): a copy of a template
// database, which the first caller on the server migrates once for the
// migrations' digest. A copy takes about a fifth of the time that running
// the migrations again takes, and the migrations were most of the
// PostgreSQL tests' time.
package pgtest

import (
	"context"
	"crypto/rand"
	"database/sql"
	"encoding/hex"
	"errors"
	"fmt"
	"net/url"
	"os"
	"sync"
	"testing"
	"time"

	"github.com/jackc/pgx/v5/pgconn"
	_ "github.com/jackc/pgx/v5/stdlib" // the "pgx" database/sql driver

	"github.com/topupd/topupd"
	"github.com/topupd/topupd/postgres"
)

// Base is the server's URL from TOPUPD_TEST_POSTGRES; ok is false when the
// variable is unset.
func Base() (base string, ok bool) {
	base = os.Getenv("TOPUPD_TEST_POSTGRES")
	return base, base != ""
}

// Schema creates an empty schema of the test's own and returns a URL whose
// connections use it; ok is false when TOPUPD_TEST_POSTGRES is unset.
func Schema(tb testing.TB) (dsn string, ok bool) {
	tb.Helper()
	base, admin, ok := server(tb)
	if !ok {
		return "", false
	}
	schema := "t_" + randomHex()
	if _, err := admin.ExecContext(tb.Context(), `CREATE SCHEMA `+schema); err != nil {
		tb.Fatalf("CREATE SCHEMA: %v", err)
	}
	tb.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		defer cancel()
		if _, err := admin.ExecContext(ctx, `DROP SCHEMA `+schema+` CASCADE`); err != nil {
			tb.Errorf("DROP SCHEMA %s: %v", schema, err)
		}
	})
	u, err := url.Parse(base)
	if err != nil {
		tb.Fatalf("TOPUPD_TEST_POSTGRES must be a postgres:// URL: %v", err)
	}
	q := u.Query()
	q.Set("search_path", schema)
	u.RawQuery = q.Encode()
	return u.String(), true
}

// Migrated creates a database of the test's own, migrated to this binary's
// schema, and returns its URL; ok is false when TOPUPD_TEST_POSTGRES is
// unset. It holds no secret key's fingerprint: the first node to start
// records its own.
func Migrated(tb testing.TB) (dsn string, ok bool) {
	tb.Helper()
	base, admin, ok := server(tb)
	if !ok {
		return "", false
	}
	tmpl, err := template(tb.Context(), admin, base)
	if err != nil {
		tb.Fatalf("pgtest: the template database: %v", err)
	}
	name := "t_" + randomHex()
	if err := whileInUse(tb.Context(), func() error {
		_, err := admin.ExecContext(tb.Context(), `CREATE DATABASE `+name+` TEMPLATE `+tmpl)
		return err
	}); err != nil {
		tb.Fatalf("CREATE DATABASE: %v", err)
	}
	tb.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		defer cancel()
		if _, err := admin.ExecContext(ctx, `DROP DATABASE `+name+` WITH (FORCE)`); err != nil {
			tb.Errorf("DROP DATABASE %s: %v", name, err)
		}
	})
	return onDatabase(base, name), true
}

// server is the server's URL and the process's connection to it; ok is
// false when TOPUPD_TEST_POSTGRES is unset.
func server(tb testing.TB) (base string, db *sql.DB, ok bool) {
	tb.Helper()
	if base, ok = Base(); !ok {
		return "", nil, false
	}
	db, err := adminDB(base)
	if err != nil {
		tb.Fatal(err)
	}
	return base, db, true
}

// admin is the process's connection to the server's own database, for
// creating and dropping the tests' schemas and databases.
var admin struct {
	sync.Mutex
	db *sql.DB
}

func adminDB(base string) (*sql.DB, error) {
	admin.Lock()
	defer admin.Unlock()
	if admin.db == nil {
		db, err := sql.Open("pgx", base)
		if err != nil {
			return nil, err
		}
		db.SetMaxIdleConns(2)
		admin.db = db
	}
	return admin.db, nil
}

// tmpl is the process's template database, once made or found.
var tmpl struct {
	sync.Mutex
	name string
}

// template returns the name of the template database of this binary's
// migrations, migrating it first if no process did. Processes that start
// at once take turns under an advisory lock; a template is built under
// another name and renamed when complete, so that no copy is ever made of
// a template half built.
func template(ctx context.Context, admin *sql.DB, base string) (string, error) {
	tmpl.Lock()
	defer tmpl.Unlock()
	if tmpl.name != "" {
		return tmpl.name, nil
	}
	name := "topupd_tmpl_" + postgres.MigrationsDigest()[:16]
	conn, err := admin.Conn(ctx) // the advisory lock is the session's
	if err != nil {
		return "", err
	}
	defer conn.Close()
	const lockKey = 0x746f7075706474 // "topupdt"
	if _, err := conn.ExecContext(ctx, `SELECT pg_advisory_lock($1)`, lockKey); err != nil {
		return "", err
	}
	defer conn.ExecContext(context.WithoutCancel(ctx), `SELECT pg_advisory_unlock($1)`, lockKey)
	var exists bool
	if err := conn.QueryRowContext(ctx, `SELECT EXISTS (SELECT 1 FROM pg_database WHERE datname = $1)`, name).Scan(&exists); err != nil {
		return "", err
	}
	if !exists {
		if err := build(ctx, conn, base, name); err != nil {
			return "", err
		}
	}
	tmpl.name = name
	return name, nil
}

// build migrates a new database and names it name.
func build(ctx context.Context, conn *sql.Conn, base, name string) error {
	building := name + "_building"
	if _, err := conn.ExecContext(ctx, `DROP DATABASE IF EXISTS `+building+` WITH (FORCE)`); err != nil { // a killed run's
		return err
	}
	if _, err := conn.ExecContext(ctx, `CREATE DATABASE `+building); err != nil {
		return err
	}
	secret := make([]byte, topupd.SecretKeySize)
	rand.Read(secret)
	vault, err := topupd.NewVault(secret)
	if err != nil {
		return err
	}
	st, err := postgres.Open(ctx, onDatabase(base, building), vault)
	if err != nil {
		return err
	}
	st.Close()
	// The pool's backends may take a moment to end after it closed.
	return whileInUse(ctx, func() error {
		_, err := conn.ExecContext(ctx, `ALTER DATABASE `+building+` RENAME TO `+name)
		return err
	})
}

// whileInUse runs f again while it fails because another session is
// connected to the database it names (55006), for up to 10 s.
func whileInUse(ctx context.Context, f func() error) error {
	end := time.Now().Add(10 * time.Second)
	for {
		err := f()
		var pgErr *pgconn.PgError
		if err == nil || !errors.As(err, &pgErr) || pgErr.Code != "55006" || time.Now().After(end) {
			return err
		}
		select {
		case <-ctx.Done():
			return fmt.Errorf("%w (after: %v)", ctx.Err(), err)
		case <-time.After(20 * time.Millisecond):
		}
	}
}

// onDatabase is base with its database replaced by name.
func onDatabase(base, name string) string {
	u, err := url.Parse(base)
	if err != nil {
		return base // Open reports it
	}
	u.Path = "/" + name
	return u.String()
}

func randomHex() string {
	var b [8]byte
	rand.Read(b[:])
	return hex.EncodeToString(b[:])
}
