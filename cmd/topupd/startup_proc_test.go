package main

import (
	"bytes"
	"context"
	"crypto/rand"
	"database/sql"
	"encoding/base64"
	"errors"
	"fmt"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/topupd/topupd/internal/testing/topupdtest"
	"github.com/topupd/topupd/sqlite"
)

// refusal is how a topupd process that was meant to fail ended.
type refusal struct {
	code           int
	stdout, stderr string
}

// runToEnd runs topupd with args to its end (at most a minute), with the
// test environment and env on top; a server that starts instead of failing
// is stopped and reported as code -1.
func runToEnd(t *testing.T, env []string, args ...string) refusal {
	t.Helper()
	endToEnd(t)
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, os.Args[0], args...)
	cmd.Env = append(append(os.Environ(), "TOPUPD_TEST_RUN_MAIN=1", "TOPUPD_ADMIN_TOKEN="+testAdminToken, "TOPUPD_SIM=on"), env...)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	err := cmd.Run()
	r := refusal{stdout: stdout.String(), stderr: stderr.String()}
	var exit *exec.ExitError
	switch {
	case err == nil:
	case errors.As(err, &exit) && ctx.Err() == nil:
		r.code = exit.ExitCode()
	default:
		t.Fatalf("topupd %v did not end: %v\nstderr:\n%s", args, err, r.stderr)
	}
	return r
}

// wantRefused checks that a start failed with exit status 1 and one line
// on stderr holding every part of want, with no panic.
func wantRefused(t *testing.T, what string, r refusal, want ...string) {
	t.Helper()
	lines := strings.Split(strings.TrimSpace(r.stderr), "\n")
	last := lines[len(lines)-1]
	if r.code != 1 {
		t.Errorf("%s: exit status %d, want 1\nstderr:\n%s", what, r.code, r.stderr)
	}
	for _, w := range want {
		if !strings.Contains(last, w) {
			t.Errorf("%s: the last line of stderr does not say %q:\n%s", what, w, r.stderr)
		}
	}
	if strings.Contains(r.stderr, "panic") || strings.Contains(r.stderr, "goroutine ") {
		t.Errorf("%s: a panic or stack trace:\n%s", what, r.stderr)
	}
}

// serveArgs are the arguments of a server on db on free loopback ports.
func serveArgs(db string, extra ...string) []string {
	return append([]string{"serve", "--db", db, "--addr", "127.0.0.1:0", "--admin-addr", "127.0.0.1:0"}, extra...)
}

// newKey is a fresh secret key in base64.
func newKey() string {
	b := make([]byte, 32)
	rand.Read(b)
	return base64.StdEncoding.EncodeToString(b)
}

// TestSecretKeyRefusals: a SQLite database remembers the key that sealed
// it. Started with another key, from the environment or a key file, or
// without its key file, the server refuses to start, naming the key's
// source, and makes no key file; with its key it starts. A new database
// and its key file are its owner's alone (0600), the SQLite files beside
// it too.
func TestSecretKeyRefusals(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	db := filepath.Join(dir, "shop.db")
	p := startProc(t, db)
	for _, f := range []string{db, db + ".key", db + "-wal", db + "-shm"} {
		if fi, err := os.Stat(f); err != nil || fi.Mode().Perm() != 0o600 {
			t.Errorf("%s: %v, mode %v; want 0600", f, err, fi.Mode().Perm())
		}
	}
	p.must("PUT", "/admin/services/keys", map[string]any{"productName": "Keys", "gameName": "Keys", "game": "gamekey",
		"kind": "gamekey", "status": "active", "required": []map[string]string{}})
	p.must("PUT", "/admin/products/key", map[string]any{"slug": "keys", "name": "Key", "priceUsd": 2, "status": "active"})
	p.must("POST", "/admin/products/key/stock", map[string]any{"codes": []string{"SEALED-CODE-1"}})
	p.stop()
	key, err := os.ReadFile(db + ".key")
	if err != nil {
		t.Fatal(err)
	}

	r := runToEnd(t, []string{"TOPUPD_SECRET_KEY=" + newKey()}, serveArgs(db)...)
	wantRefused(t, "another TOPUPD_SECRET_KEY", r, "TOPUPD_SECRET_KEY", "not the key this database was sealed with")

	if err := os.WriteFile(db+".key", []byte(newKey()+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	r = runToEnd(t, nil, serveArgs(db)...)
	wantRefused(t, "another key file", r, db+".key", "not the key this database was sealed with")

	if err := os.Remove(db + ".key"); err != nil {
		t.Fatal(err)
	}
	r = runToEnd(t, nil, serveArgs(db)...)
	wantRefused(t, "no key file", r, db+".key", "is missing")
	if _, err := os.Stat(db + ".key"); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("a refused start made a key file: %v", err)
	}

	// With its own key, from the file or the environment, it starts.
	if err := os.WriteFile(db+".key", key, 0o600); err != nil {
		t.Fatal(err)
	}
	startProc(t, db).stop()
	os.Remove(db + ".key")
	startProcEnv(t, []string{"TOPUPD_SECRET_KEY=" + strings.TrimSpace(string(key))}, db).stop()
}

// TestSecretKeyRefusedPostgres: on PostgreSQL the key is always
// TOPUPD_SECRET_KEY; a node with another key than the database's is
// refused, whether or not the database holds anything sealed yet.
func TestSecretKeyRefusedPostgres(t *testing.T) {
	t.Parallel()
	dsn, ok := topupdtest.PostgresSchema(t)
	if !ok {
		t.Skip("TOPUPD_TEST_POSTGRES not set")
	}
	key := newKey()
	startProcEnv(t, []string{"TOPUPD_SECRET_KEY=" + key}, dsn).stop()
	r := runToEnd(t, []string{"TOPUPD_SECRET_KEY=" + newKey()}, serveArgs(dsn)...)
	wantRefused(t, "another key on PostgreSQL", r, "TOPUPD_SECRET_KEY", "not the key")
	r = runToEnd(t, []string{"TOPUPD_SECRET_KEY="}, serveArgs(dsn)...)
	wantRefused(t, "no key on PostgreSQL", r, "TOPUPD_SECRET_KEY is required")
	startProcEnv(t, []string{"TOPUPD_SECRET_KEY=" + key}, dsn).stop()
}

// TestOneServerPerSQLiteFile: a second server on a SQLite file that a
// server has open exits 1, saying so; once the first is gone, a server
// starts on it.
func TestOneServerPerSQLiteFile(t *testing.T) {
	t.Parallel()
	db := filepath.Join(t.TempDir(), "one.db")
	first := startProc(t, db)
	r := runToEnd(t, nil, serveArgs(db)...)
	wantRefused(t, "a second server", r, db, "another topupd server has this SQLite database open")
	first.kill() // even a crashed server leaves no lock behind
	startProc(t, db).stop()
}

// TestUnreachableAtStart: a database or Redis that does not answer stops
// start-up with exit status 1 and one line naming it, and no panic.
func TestUnreachableAtStart(t *testing.T) {
	t.Parallel()
	r := runToEnd(t, []string{"TOPUPD_SECRET_KEY=" + newKey()}, serveArgs("postgres://postgres@127.0.0.1:1/topupd?sslmode=disable&connect_timeout=5")...)
	wantRefused(t, "PostgreSQL on a closed port", r, "postgres", "127.0.0.1")
	r = runToEnd(t, nil, serveArgs(filepath.Join(t.TempDir(), "r.db"), "--redis", "redis://127.0.0.1:1/0")...)
	wantRefused(t, "Redis on a closed port", r, "--redis", "Redis does not answer")
	r = runToEnd(t, nil, serveArgs(filepath.Join(t.TempDir(), "no", "such", "dir.db"))...)
	wantRefused(t, "a SQLite file in a folder that does not exist", r, "no such file or directory")
}

// TestNewerSchemaRefused: a database migrated by a newer binary is refused
// at start, naming both schema versions, and nothing is changed.
func TestNewerSchemaRefused(t *testing.T) {
	t.Parallel()
	db := filepath.Join(t.TempDir(), "newer.db")
	startProc(t, db).stop()
	raw, err := sql.Open("sqlite", db)
	if err != nil {
		t.Fatal(err)
	}
	newer := sqlite.SchemaVersion() + 1
	if _, err := raw.Exec(`INSERT INTO goose_db_version (version_id, is_applied) VALUES ($1, 1)`, newer); err != nil {
		t.Fatal(err)
	}
	raw.Close()
	r := runToEnd(t, nil, serveArgs(db)...)
	wantRefused(t, "a newer schema", r, "schema is version "+itoa(newer), "newer than this binary's "+itoa(newer-1))
}

// itoa formats a whole number.
func itoa(n int64) string { return strconv.FormatInt(n, 10) }

// TestConsoleURL: --console-url (TOPUPD_CONSOLE_URL) starts the setup
// links, and with https:// the console's session cookie is Secure;
// something that is not an http(s) URL stops start-up.
func TestConsoleURL(t *testing.T) {
	t.Parallel()
	p := startProc(t, filepath.Join(t.TempDir(), "c.db"), "--console-url", "https://ops.example.com/console/")
	p.must("POST", "/admin/operators", map[string]any{"name": "kim", "role": "viewer"})
	if link := p.must("POST", "/admin/operators/kim/setup-link", nil); !strings.HasPrefix(fmt.Sprint(link["url"]), "https://ops.example.com/console/") {
		t.Errorf("setup link %v, want it under https://ops.example.com/console/", link["url"])
	}
	resp, err := http.Get(p.admin + "/console/login")
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	secure := false
	for _, c := range resp.Cookies() {
		secure = secure || c.Secure
	}
	if len(resp.Cookies()) == 0 || !secure {
		t.Errorf("the console's sign-in page set cookies %v; want a Secure one behind https", resp.Header.Values("Set-Cookie"))
	}
	r := runToEnd(t, []string{"TOPUPD_CONSOLE_URL=ops.example.com"}, serveArgs(filepath.Join(t.TempDir(), "d.db"))...)
	wantRefused(t, "a console URL without a scheme", r, "TOPUPD_CONSOLE_URL", "ops.example.com")
}
