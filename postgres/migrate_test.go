package postgres_test

import (
	"testing"

	"github.com/topupd/topupd"
	"github.com/topupd/topupd/internal/testing/racer"
	"github.com/topupd/topupd/internal/testing/storetest"
	"github.com/topupd/topupd/postgres"
)

// TestConcurrentOpenMigratesOnce has three nodes open a fresh schema at the
// same moment: all succeed, the migration is applied once, and a node
// opening later finds the data and nothing to migrate.
func TestConcurrentOpenMigratesOnce(t *testing.T) {
	t.Parallel()
	dbURL := newSchema(t)
	v := storetest.NewVault(t)
	type opened struct {
		s   *postgres.Store
		err error
	}
	results := racer.Run(3, func(int) opened {
		s, err := postgres.Open(t.Context(), dbURL, v)
		return opened{s, err}
	})
	for i, r := range results {
		if r.err != nil {
			t.Fatalf("node %d: Open: %v", i, r.err)
		}
		t.Cleanup(func() { r.s.Close() })
	}
	db := rawDB(t, dbURL)
	applied := func(what string) {
		t.Helper()
		var migrations, settings int
		must(t, db.QueryRow(`SELECT count(*) FROM goose_db_version WHERE version_id = 1`).Scan(&migrations))
		must(t, db.QueryRow(`SELECT count(*) FROM settings`).Scan(&settings))
		if migrations != 1 || settings != 1 {
			t.Errorf("%s: migration 1 recorded %d times, %d settings rows; want 1 and 1", what, migrations, settings)
		}
	}
	applied("after three nodes opened at once")
	// Each node works on the one schema, and sees what the others wrote.
	for i, r := range results {
		if _, err := r.s.CreateAccount(t.Context(), nil, topupd.Account{ID: "acc_" + string(rune('a'+i)), Name: "n", CreatedAt: t0}); err != nil {
			t.Errorf("node %d: CreateAccount: %v", i, err)
		}
	}
	later := openStore(t, dbURL, v)
	if n, err := later.CountAccounts(t.Context()); err != nil || n != 3 {
		t.Errorf("a node opened later counts %d accounts, %v; want 3", n, err)
	}
	applied("after a fourth node opened")
}
