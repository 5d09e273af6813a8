package main

import (
	"compress/gzip"
	"crypto/rand"
	"database/sql"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"net/url"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/topupd/topupd/sqlite"
)

// fixture describes an upgrade fixture (testdata/upgrade/<name>), made by
// make-fixture.sh with topupd as built from an older commit.
type fixture struct {
	Commit    string `json:"commit"`
	SecretKey string `json:"secretKey"`
	SQLite    struct {
		APIKey, AccountID, BalanceUsd string
	} `json:"sqlite"`
	Postgres struct {
		APIKey, AccountID, BalanceUsd string
	} `json:"postgres"`
}

// TestUpgradeFromOldDatabase starts this binary, as a process, on databases
// that older builds made, on SQLite and PostgreSQL: one at schema 8, and
// one made by a build that had migrations 1 to 14, 16 and 17 but not 15
// (they landed out of order, and were once refused as "missing
// (out-of-order) migrations"). Each migrates to this binary's schema,
// applying exactly the migrations it lacked; the orders, balance and codes
// written before are all there and the audit is clean; the old demo's key
// packs, stored as sim, are now stock and sell with sim off.
func TestUpgradeFromOldDatabase(t *testing.T) {
	t.Parallel()
	for _, name := range []string{"schema-8", "schema-17-without-15", "dev-8aa50c5", "dev-243b807", "dev-2726afa", "dev-8e1d8a3"} {
		dir := filepath.Join("testdata", "upgrade", name)
		var fx fixture
		b, err := os.ReadFile(filepath.Join(dir, "fixture.json"))
		if err != nil {
			t.Fatal(err)
		}
		if err := json.Unmarshal(b, &fx); err != nil {
			t.Fatal(err)
		}
		t.Run(name+"/sqlite", func(t *testing.T) {
			t.Parallel()
			db := filepath.Join(t.TempDir(), "topupd.db")
			gunzip(t, filepath.Join(dir, "topupd.db.gz"), db)
			if err := os.WriteFile(db+".key", []byte(fx.SecretKey+"\n"), 0o600); err != nil { // its key file
				t.Fatal(err)
			}
			had := appliedVersions(t, "sqlite", db)
			p := startProcEnv(t, []string{"TOPUPD_SIM=", "TOPUPD_LOG_LEVEL=info"}, db)
			checkUpgraded(t, p, had, fx.SQLite.APIKey, fx.SQLite.AccountID, fx.SQLite.BalanceUsd)
		})
		t.Run(name+"/postgres", func(t *testing.T) {
			t.Parallel()
			if fx.Postgres.APIKey == "" {
				t.Skip("made by a build without PostgreSQL")
			}
			dsn := restoredDatabase(t, filepath.Join(dir, "postgres.sql.gz"))
			had := appliedVersions(t, "pgx", dsn)
			p := startProcEnv(t, []string{"TOPUPD_SIM=", "TOPUPD_LOG_LEVEL=info", "TOPUPD_SECRET_KEY=" + fx.SecretKey}, dsn)
			checkUpgraded(t, p, had, fx.Postgres.APIKey, fx.Postgres.AccountID, fx.Postgres.BalanceUsd)
		})
	}
}

// checkUpgraded checks a server started on an old database: the migrations
// it applied are exactly those the database lacked, and what the old build
// wrote is all there and still works.
func checkUpgraded(t *testing.T, p *proc, had []int64, apiKey, account, balance string) {
	t.Helper()
	start := p.logLine(t, "start")
	if v, _ := start["schemaVersion"].(float64); int64(v) != sqlite.SchemaVersion() {
		t.Errorf("schema version %v after the upgrade, want %d", start["schemaVersion"], sqlite.SchemaVersion())
	}
	repaired := fmt.Sprint(start["repaired"])
	if dev := strings.HasPrefix(filepath.Base(t.Name()), "dev-") || strings.Contains(t.Name(), "/dev-"); dev != (start["repaired"] != nil) {
		t.Errorf("a database of a development build: %v; repaired %v", dev, start["repaired"])
	}
	if strings.Contains(repaired, "00002 was refund_needs_flag") { // 8aa50c5's 00002 is in 00001 now: this 00002 was never applied
		had = slices.DeleteFunc(slices.Clone(had), func(v int64) bool { return v == 2 })
	}
	var want []string
	entries, err := os.ReadDir("../../sqlite/migrations")
	if err != nil {
		t.Fatal(err)
	}
	for i, e := range entries {
		if !slices.Contains(had, int64(i+1)) {
			want = append(want, strings.TrimSuffix(e.Name(), ".sql"))
		}
	}
	var got []string
	for _, m := range start["migrationsApplied"].([]any) {
		got = append(got, m.(string))
	}
	if !slices.Equal(got, want) || len(want) == 0 {
		t.Errorf("migrations applied %v, want %v (the database had %v)", got, want, had)
	}

	if acct := p.must("GET", "/admin/accounts/"+account, nil); jsonNumber(acct["balanceUsd"]) != balance {
		t.Errorf("balance after the upgrade %v, want %s", acct["balanceUsd"], balance)
	}
	status, hist := call(t, "GET", p.api+"/history?page=1&pageSize=50", apiKey, nil)
	if status != 200 {
		t.Fatalf("history: %d %v", status, hist)
	}
	byTrx := map[string]map[string]any{}
	for _, o := range hist["orders"].([]any) {
		m := o.(map[string]any)
		byTrx[m["trxid"].(string)] = m
	}
	if o := byTrx["fx-topup"]; o == nil || o["status"] != "completed" {
		t.Errorf("the top-up from before: %v", o)
	}
	if o := byTrx["fx-refused"]; o == nil || o["status"] != "cancelled" || o["refunded"] != true {
		t.Errorf("the refused top-up from before: %v", o)
	}
	keys := byTrx["fx-keys"]
	if keys == nil || keys["status"] != "completed" {
		t.Fatalf("the key order from before: %v", keys)
	}
	status, one := call(t, "GET", p.api+"/orders/"+keys["orderId"].(string), apiKey, nil)
	if codes, _ := one["codes"].([]any); status != 200 || len(codes) != 3 || codes[0] == "" {
		t.Errorf("the codes sold before the upgrade, read after it: %d %v", status, one)
	}

	packs := map[string]string{}
	for _, pk := range p.must("GET", "/admin/products", nil)["products"].([]any) {
		m := pk.(map[string]any)
		packs[m["pid"].(string)] = m["provider"].(string)
	}
	if packs["gamekeypubg-60"] != "stock" || packs["giftcard-steam-10"] != "stock" || packs["pubg-60"] != "sim" {
		t.Errorf("providers after the upgrade: key %q, card %q, top-up %q; want stock, stock, sim",
			packs["gamekeypubg-60"], packs["giftcard-steam-10"], packs["pubg-60"])
	}
	status, o := call(t, "POST", p.api+"/orders", apiKey, map[string]any{"pid": "gamekeypubg-60", "trxid": "after-upgrade", "quantity": 1})
	if codes, _ := o["codes"].([]any); status != 200 || o["status"] != "completed" || len(codes) != 1 {
		t.Errorf("a key order after the upgrade, sim off: %d %v", status, o)
	}
	if audit := p.must("GET", "/admin/audit", nil); audit["success"] != true {
		t.Errorf("audit after the upgrade: %v", audit)
	}
}

// jsonNumber prints a decoded JSON number as the fixture records it.
func jsonNumber(v any) string {
	b, _ := json.Marshal(v)
	return string(b)
}

// gunzip writes the gzip file src, uncompressed, to dst (mode 0600).
func gunzip(t *testing.T, src, dst string) {
	t.Helper()
	f, err := os.Open(src)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	zr, err := gzip.NewReader(f)
	if err != nil {
		t.Fatal(err)
	}
	out, err := os.OpenFile(dst, os.O_CREATE|os.O_WRONLY|os.O_EXCL, 0o600)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := io.Copy(out, zr); err != nil {
		t.Fatal(err)
	}
	if err := out.Close(); err != nil {
		t.Fatal(err)
	}
}

// appliedVersions lists the migrations a database records as applied.
func appliedVersions(t *testing.T, driver, dsn string) []int64 {
	t.Helper()
	db, err := sql.Open(driver, dsn)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	rows, err := db.Query(`SELECT version_id FROM goose_db_version WHERE version_id > 0 AND is_applied ORDER BY version_id`)
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	var out []int64
	for rows.Next() {
		var v int64
		if err := rows.Scan(&v); err != nil {
			t.Fatal(err)
		}
		out = append(out, v)
	}
	return out
}

// restoredDatabase creates a database of the test's own on this machine's
// PostgreSQL, restores a plain pg_dump (gzipped) into it, and returns its
// URL; it is dropped when the test ends.
func restoredDatabase(t *testing.T, dump string) string {
	t.Helper()
	dsn := newDatabase(t)
	dst := filepath.Join(t.TempDir(), "dump.sql")
	gunzip(t, dump, dst)
	script, err := os.ReadFile(dst)
	if err != nil {
		t.Fatal(err)
	}
	db, err := sql.Open("pgx", dsn)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	if _, err := db.Exec(string(script)); err != nil { // no arguments: the simple protocol, many statements
		t.Fatalf("restoring %s: %v", dump, err)
	}
	return dsn
}

// newDatabase creates an empty database of the test's own on this
// machine's PostgreSQL (TOPUPD_TEST_POSTGRES; the test is skipped without
// it) and returns its URL; it is dropped when the test ends.
func newDatabase(t *testing.T) string {
	t.Helper()
	pg := os.Getenv("TOPUPD_TEST_POSTGRES")
	if pg == "" {
		t.Skip("TOPUPD_TEST_POSTGRES not set: SQLite only")
	}
	admin, err := sql.Open("pgx", pg)
	if err != nil {
		t.Fatal(err)
	}
	b := make([]byte, 6)
	rand.Read(b)
	name := "topupd_t_" + hex.EncodeToString(b)
	if _, err := admin.Exec("CREATE DATABASE " + name); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		admin.Exec("DROP DATABASE " + name + " WITH (FORCE)")
		admin.Close()
	})
	u, err := url.Parse(pg)
	if err != nil {
		t.Fatal(err)
	}
	u.Path = "/" + name
	return u.String()
}
