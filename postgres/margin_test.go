package postgres_test

import (
	"testing"

	"github.com/pressly/goose/v3"

	"github.com/topupd/topupd"
	"github.com/topupd/topupd/internal/testing/storetest"
	"github.com/topupd/topupd/postgres"
)

// TestUnknownCostsMigration: 00042 tells the costs that were set from the
// zeros written for none, on a database taken back to 00041 (see
// storetest.UnknownCostsMigration).
func TestUnknownCostsMigration(t *testing.T) {
	t.Parallel()
	url, v := newDB(t), storetest.NewVault(t)
	db := rawDB(t, url)
	down := func(t *testing.T) {
		p, err := goose.NewProvider(goose.DialectPostgres, db, postgres.Migrations(), goose.WithAllowOutofOrder(true))
		if err != nil {
			t.Fatal(err)
		}
		if _, err := p.DownTo(t.Context(), 41); err != nil {
			t.Fatalf("down to 00041: %v", err)
		}
	}
	storetest.UnknownCostsMigration(t, func(t *testing.T) topupd.Store {
		s, err := postgres.Open(t.Context(), url, v)
		if err != nil {
			t.Fatalf("postgres.Open: %v", err)
		}
		return s
	}, down, db)
}

// TestWholeCentsMigration: 00041 rounds stored prices up to the cent, on a
// database taken back to 00040 (see storetest.WholeCentsMigration).
func TestWholeCentsMigration(t *testing.T) {
	t.Parallel()
	url, v := newDB(t), storetest.NewVault(t)
	db := rawDB(t, url)
	down := func(t *testing.T) {
		p, err := goose.NewProvider(goose.DialectPostgres, db, postgres.Migrations(), goose.WithAllowOutofOrder(true))
		if err != nil {
			t.Fatal(err)
		}
		if _, err := p.DownTo(t.Context(), 40); err != nil {
			t.Fatalf("down to 00040: %v", err)
		}
	}
	storetest.WholeCentsMigration(t, func(t *testing.T) topupd.Store {
		s, err := postgres.Open(t.Context(), url, v)
		if err != nil {
			t.Fatalf("postgres.Open: %v", err)
		}
		return s
	}, down, db)
}
