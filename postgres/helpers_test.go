package postgres_test

import (
	"context"
	"database/sql"
	"os"
	"testing"
	"time"

	"github.com/topupd/topupd"
	"github.com/topupd/topupd/internal/testing/pgtest"
	"github.com/topupd/topupd/postgres"
)

// baseURL is the test database from TOPUPD_TEST_POSTGRES; without it the
// test is skipped.
func baseURL(t testing.TB) string {
	t.Helper()
	u := os.Getenv("TOPUPD_TEST_POSTGRES")
	if u == "" {
		t.Skip("TOPUPD_TEST_POSTGRES is not set: no PostgreSQL to test against")
	}
	return u
}

// newSchema creates an empty schema of the test's own, dropped when the
// test ends, and returns the URL of a connection that keeps to it: for the
// tests of migrations themselves.
func newSchema(t testing.TB) string {
	t.Helper()
	baseURL(t)
	u, _ := pgtest.Schema(t)
	return u
}

// newDB creates a database of the test's own, already migrated (a copy of
// pgtest's template), dropped when the test ends, and returns its URL.
func newDB(t testing.TB) string {
	t.Helper()
	baseURL(t)
	u, _ := pgtest.Migrated(t)
	return u
}

// openStore opens a store on dbURL and closes it when the test ends.
func openStore(t testing.TB, dbURL string, v *topupd.Vault) *postgres.Store {
	t.Helper()
	s, err := postgres.Open(t.Context(), dbURL, v)
	if err != nil {
		t.Fatalf("postgres.Open: %v", err)
	}
	t.Cleanup(func() { s.Close() })
	return s
}

// rawDB opens dbURL with plain database/sql, as another tool would.
func rawDB(t testing.TB, dbURL string) *sql.DB {
	t.Helper()
	db, err := sql.Open("pgx", dbURL)
	if err != nil {
		t.Fatalf("sql.Open: %v", err)
	}
	t.Cleanup(func() { db.Close() })
	return db
}

// The tests' own catalog.
const (
	price    topupd.Money = 12_500
	pidTopup              = "ff-1"
	pidKey                = "key-1"
)

// t0 is the tests' "now", millisecond-aligned.
var t0 = time.Date(2030, 1, 2, 3, 4, 5, 0, time.UTC)

// must fails the test on an error.
func must(t testing.TB, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}

// catalog stores a topup line with one pack and a key line with one pack.
func catalog(t testing.TB, s topupd.Store) {
	t.Helper()
	ctx := t.Context()
	must(t, s.PutLine(ctx, nil, topupd.Line{Slug: "ff", ProductName: "FF", GameName: "FF", Game: "ff", Kind: topupd.KindTopup, Status: topupd.StatusActive}))
	must(t, s.PutLine(ctx, nil, topupd.Line{Slug: "keys", ProductName: "Keys", GameName: "Keys", Game: "gamekey", Kind: topupd.KindGamekey, Status: topupd.StatusActive}))
	must(t, s.PutPack(ctx, nil, topupd.Pack{PID: pidTopup, Slug: "ff", Name: "FF 1", Price: price, Status: topupd.StatusActive, Provider: topupd.ProviderSim}))
	must(t, s.PutPack(ctx, nil, topupd.Pack{PID: pidKey, Slug: "keys", Name: "Key", Price: price, Status: topupd.StatusActive, Provider: topupd.ProviderSim}))
}

// account creates an account credited with balance.
func account(t testing.TB, s topupd.Store, id string, balance topupd.Money) string {
	t.Helper()
	_, err := s.CreateAccount(t.Context(), nil, topupd.Account{ID: id, Name: id, APIEnabled: true, CreatedAt: t0})
	must(t, err)
	if balance > 0 {
		_, _, err = s.Credit(t.Context(), nil, id, balance, "opening", t0)
		must(t, err)
	}
	return id
}

// place places an order at t0.
func place(s topupd.Store, ctx context.Context, accountID string, req topupd.OrderRequest) (topupd.Order, bool, error) {
	return s.PlaceOrder(ctx, topupd.PlaceOrder{AccountID: accountID, Request: req, Now: t0, Deadline: time.Hour})
}
