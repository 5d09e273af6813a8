package main

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

// acked is an order as the server acknowledged it.
type acked struct {
	id, trxid, status string
	codes             []string
}

// TestBackupUnderLoad takes a backup with topupd backup, as a process,
// while orders flow into a server, and starts a server on the copy with
// the key written beside it: every order acknowledged before the backup
// began is there, with its status and codes; the books and the audit are
// clean; and the copy and its key are their owner's alone.
func TestBackupUnderLoad(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	db := filepath.Join(dir, "live.db")
	p := startProc(t, db)
	account, key := p.setup("100000")
	p.must("PUT", "/admin/services/keys", map[string]any{"productName": "Keys", "gameName": "Keys", "game": "gamekey",
		"kind": "gamekey", "status": "active", "required": []map[string]string{}})
	p.must("PUT", "/admin/products/key", map[string]any{"slug": "keys", "name": "Key", "priceUsd": 1, "status": "active"})
	codes := make([]string, 5000)
	for i := range codes {
		codes[i] = fmt.Sprintf("BACKUP-CODE-%05d", i)
	}
	p.must("POST", "/admin/products/key/stock", map[string]any{"codes": codes})

	var (
		mu     sync.Mutex
		orders []acked // in the order they were acknowledged
		stop   atomic.Bool
		wg     sync.WaitGroup
		seq    atomic.Int64
	)
	for w := range 6 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for !stop.Load() {
				n := seq.Add(1)
				body := map[string]any{"pid": "uc60", "trxid": fmt.Sprintf("bk-%d", n), "userId": "5123456"}
				if w%2 == 1 {
					body = map[string]any{"pid": "key", "trxid": fmt.Sprintf("bk-%d", n), "quantity": 2}
				}
				status, o := call(t, "POST", p.api+"/orders", key, body)
				if status != 200 {
					continue // refused or cut off: not acknowledged
				}
				a := acked{trxid: o["trxid"].(string), status: o["status"].(string), codes: anyStrings(o["codes"])}
				mu.Lock()
				orders = append(orders, a)
				mu.Unlock()
			}
		}()
	}
	deadline := time.Now().Add(time.Minute)
	for {
		mu.Lock()
		n := len(orders)
		mu.Unlock()
		if n >= 150 {
			break
		}
		if time.Now().After(deadline) {
			stop.Store(true)
			wg.Wait()
			t.Fatalf("only %d orders acknowledged in a minute", n)
		}
		time.Sleep(10 * time.Millisecond)
	}
	mu.Lock()
	before := slices.Clone(orders) // acknowledged before the backup began
	mu.Unlock()
	copyDB := filepath.Join(dir, "backups", "copy.db")
	os.Mkdir(filepath.Dir(copyDB), 0o700)
	cmd := exec.Command(os.Args[0], "backup", "--db", db, copyDB)
	cmd.Env = append(os.Environ(), "TOPUPD_TEST_RUN_MAIN=1")
	var out, errOut bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errOut
	err := cmd.Run()
	mu.Lock()
	during := len(orders) - len(before)
	mu.Unlock()
	time.Sleep(100 * time.Millisecond) // orders go on after the backup too
	stop.Store(true)
	wg.Wait()
	if err != nil {
		t.Fatalf("topupd backup: %v\nstdout: %s\nstderr: %s", err, out.String(), errOut.String())
	}
	t.Logf("%d orders acknowledged before the backup began, %d while it ran, %d in all", len(before), during, len(orders))
	if !strings.Contains(out.String(), copyDB+".key") {
		t.Errorf("backup's output does not name the key file: %s", out.String())
	}
	for _, f := range []string{copyDB, copyDB + ".key"} {
		if fi, err := os.Stat(f); err != nil || fi.Mode().Perm() != 0o600 {
			t.Errorf("%s: %v, mode %v; want 0600", f, err, fi.Mode().Perm())
		}
	}
	p.stop()

	// The copy, on a server of its own with the key beside it.
	restored := startProc(t, copyDB)
	byTrx := map[string]map[string]any{}
	for page := 1; ; page++ {
		status, hist := call(t, "GET", fmt.Sprintf("%s/history?page=%d&pageSize=100", restored.api, page), key, nil)
		if status != 200 {
			t.Fatalf("history of the copy: %d %v", status, hist)
		}
		for _, o := range hist["orders"].([]any) {
			m := o.(map[string]any)
			byTrx[m["trxid"].(string)] = m
		}
		if hist["hasMore"] != true {
			break
		}
	}
	for _, a := range before {
		o := byTrx[a.trxid]
		if o == nil {
			t.Errorf("order %s, acknowledged before the backup began, is not in the copy", a.trxid)
			continue
		}
		if o["status"] != a.status {
			t.Errorf("order %s: %v in the copy, %s when acknowledged", a.trxid, o["status"], a.status)
		}
		if len(a.codes) > 0 {
			status, one := call(t, "GET", restored.api+"/orders/"+o["orderId"].(string), key, nil)
			if got := anyStrings(one["codes"]); status != 200 || !slices.Equal(got, a.codes) {
				t.Errorf("order %s: codes %v in the copy, %v when acknowledged", a.trxid, got, a.codes)
			}
		}
	}
	if len(byTrx) < len(before) {
		t.Errorf("the copy holds %d orders, fewer than the %d acknowledged before the backup", len(byTrx), len(before))
	}
	restored.books(account, key) // the ledger adds up, one charge per order, and /admin/audit is clean
	if audit := restored.must("GET", "/admin/audit", nil); audit["success"] != true {
		t.Errorf("audit of the copy: %v", audit)
	}
}

// anyStrings reads a JSON array of strings.
func anyStrings(v any) []string {
	arr, _ := v.([]any)
	out := make([]string, 0, len(arr))
	for _, s := range arr {
		out = append(out, fmt.Sprint(s))
	}
	return out
}

// TestBackupRefusals: backup copies only a SQLite database that exists,
// with its own key, and never over an existing file; a failed backup
// leaves no copy behind.
func TestBackupRefusals(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	db := filepath.Join(dir, "b.db")
	startProc(t, db).stop()
	for _, c := range []struct {
		what string
		env  []string
		args []string
		want string
	}{
		{"no database", nil, []string{"--db", filepath.Join(dir, "none.db"), filepath.Join(dir, "x1.db")}, "no database to back up"},
		{"PostgreSQL", nil, []string{"--db", "postgres://127.0.0.1/x", filepath.Join(dir, "x2.db")}, "pg_dump"},
		{"another key", []string{"TOPUPD_SECRET_KEY=" + newKey()}, []string{"--db", db, filepath.Join(dir, "x3.db")}, "not the key"},
		{"over a file", nil, []string{"--db", db, db}, "exists"},
		{"no copy named", nil, []string{"--db", db}, "name the copy"},
	} {
		r := runToEnd(t, c.env, append([]string{"backup"}, c.args...)...)
		wantRefused(t, c.what, r, c.want)
		if n := len(c.args); n == 3 && c.args[2] != db {
			if _, err := os.Stat(c.args[2]); !os.IsNotExist(err) {
				t.Errorf("%s: a refused backup left %s behind (%v)", c.what, c.args[2], err)
			}
		}
	}
	if _, err := os.Stat(db + ".key"); err != nil {
		t.Errorf("the database's key file: %v", err)
	}
}

// TestPostgresDumpRestore runs the PostgreSQL backup and restore that
// docs/operations.md gives, with this machine's pg_dump and pg_restore:
// a dump in pg_dump's custom format taken while orders flow, restored into
// a new database, on which a server with the same TOPUPD_SECRET_KEY finds
// every order acknowledged before the dump began, their codes, and a clean
// audit.
func TestPostgresDumpRestore(t *testing.T) {
	t.Parallel()
	live := newDatabase(t)
	for _, tool := range []string{"pg_dump", "pg_restore"} {
		if _, err := exec.LookPath(tool); err != nil {
			t.Skipf("%s is not installed (Debian's postgresql-client has it)", tool)
		}
	}
	key := newKey()
	env := []string{"TOPUPD_SECRET_KEY=" + key}
	p := startProcEnv(t, env, live)
	account, apiKey := p.setup("1000")
	p.must("PUT", "/admin/services/keys", map[string]any{"productName": "Keys", "gameName": "Keys", "game": "gamekey",
		"kind": "gamekey", "status": "active", "required": []map[string]string{}})
	p.must("PUT", "/admin/products/key", map[string]any{"slug": "keys", "name": "Key", "priceUsd": 1, "status": "active"})
	p.must("POST", "/admin/products/key/stock", map[string]any{"codes": []string{"PG-CODE-1", "PG-CODE-2", "PG-CODE-3"}})
	var before []acked
	for i, body := range []map[string]any{
		{"pid": "uc60", "userId": "5123456"}, {"pid": "key", "quantity": 2}, {"pid": "uc60", "userId": "99990001"},
	} {
		body["trxid"] = fmt.Sprintf("pg-%d", i)
		status, o := call(t, "POST", p.api+"/orders", apiKey, body)
		if status != 200 {
			t.Fatalf("order %v: %d %v", body, status, o)
		}
		before = append(before, acked{id: o["orderId"].(string), trxid: o["trxid"].(string), status: o["status"].(string), codes: anyStrings(o["codes"])})
	}
	dump := filepath.Join(t.TempDir(), "topupd.dump")
	pgTool(t, "pg_dump", "--format=custom", "--file="+dump, live)
	_, after := call(t, "POST", p.api+"/orders", apiKey, map[string]any{"pid": "uc60", "userId": "5123456", "trxid": "pg-after"})
	p.stop()

	restored := newDatabase(t)
	pgTool(t, "pg_restore", "--no-owner", "--dbname="+restored, dump)
	r := startProcEnv(t, env, restored)
	for _, a := range before {
		status, o := call(t, "GET", r.api+"/orders/"+a.id, apiKey, nil)
		if status != 200 || o["status"] != a.status || !slices.Equal(anyStrings(o["codes"]), a.codes) {
			t.Errorf("order %s after the restore: %d %v; want %s with codes %v", a.trxid, status, o, a.status, a.codes)
		}
	}
	if status, o := call(t, "GET", r.api+"/orders/"+fmt.Sprint(after["orderId"]), apiKey, nil); after["orderId"] == nil || status != 404 {
		t.Errorf("an order placed after the dump is in the restored database: %d %v", status, o)
	}
	r.books(account, apiKey)
	if audit := r.must("GET", "/admin/audit", nil); audit["success"] != true {
		t.Errorf("audit of the restored database: %v", audit)
	}
}

// pgTool runs one of PostgreSQL's command-line tools, bounded to a minute.
func pgTool(t *testing.T, name string, args ...string) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	if out, err := exec.CommandContext(ctx, name, args...).CombinedOutput(); err != nil {
		t.Fatalf("%s %v: %v\n%s", name, args, err, out)
	}
}
