package dbfault_test

import (
	"context"
	"fmt"
	"path/filepath"
	"testing"
	"time"

	"github.com/topupd/topupd"
	"github.com/topupd/topupd/internal/sqlstore"
	"github.com/topupd/topupd/internal/testing/dbfault"
	"github.com/topupd/topupd/internal/testing/pgtest"
	"github.com/topupd/topupd/postgres"
	"github.com/topupd/topupd/sqlite"
)

// TestFaults arms each kind of fault for one credit, a store call of one
// write transaction, on each store, and checks what the store answers and
// what it committed.
func TestFaults(t *testing.T) {
	stores := map[dbfault.Store]func(t *testing.T, in *dbfault.Injector) topupd.Store{
		dbfault.SQLite: func(t *testing.T, in *dbfault.Injector) topupd.Store {
			st, err := sqlite.Open(t.Context(), filepath.Join(t.TempDir(), "f.db"), vault(t), sqlstore.WithConnector(in.Connector))
			if err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { st.Close() })
			return st
		},
		dbfault.Postgres: func(t *testing.T, in *dbfault.Injector) topupd.Store {
			dsn, ok := pgtest.Migrated(t)
			if !ok {
				t.Skip("TOPUPD_TEST_POSTGRES is not set")
			}
			st, err := postgres.Open(t.Context(), dsn, vault(t), sqlstore.WithConnector(in.Connector))
			if err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { st.Close() })
			return st
		},
	}
	cases := []struct {
		name  string
		fault dbfault.Fault
		// fails: the credit answers an error Describe names; took: the
		// credit is in the books.
		fails     string
		took      bool
		firedOnPG int // how often it falls on PostgreSQL (SQLite: once)
	}{
		{"busy at begin", dbfault.Fault{Kind: dbfault.Busy, Tx: 1, At: dbfault.AtBegin}, "database busy", false, 5},
		{"busy at a statement", dbfault.Fault{Kind: dbfault.Busy, Tx: 1, At: dbfault.AtStatement, Stmt: 2}, "database busy", false, 5},
		{"deadlock at commit", dbfault.Fault{Kind: dbfault.Busy, Tx: 1, At: dbfault.AtCommit, Deadlock: true}, "database busy", false, 5},
		{"busy waited out", dbfault.Fault{Kind: dbfault.Waited, Tx: 1, At: dbfault.AtStatement, Stmt: 1}, "", true, 1},
		{"statement past the last", dbfault.Fault{Kind: dbfault.Busy, Tx: 1, At: dbfault.AtStatement, Stmt: 99}, "database busy", false, 5},
		{"connection lost at begin", dbfault.Fault{Kind: dbfault.Lost, Tx: 1, At: dbfault.AtBegin}, "", true, 1},
		{"connection lost at a statement", dbfault.Fault{Kind: dbfault.Lost, Tx: 1, At: dbfault.AtStatement, Stmt: 2}, "connection lost", false, 1},
		{"connection lost at commit", dbfault.Fault{Kind: dbfault.Lost, Tx: 1, At: dbfault.AtCommit}, "connection lost", false, 1},
		{"answer lost", dbfault.Fault{Kind: dbfault.AnswerLost, Tx: 1, At: dbfault.AtBegin}, "commit answer lost", true, 1},
		{"a transaction the call does not run", dbfault.Fault{Kind: dbfault.Busy, Tx: 2, At: dbfault.AtBegin}, "", true, 0},
	}
	for name, open := range stores {
		t.Run(string(name), func(t *testing.T) {
			var told []dbfault.Fired
			in := dbfault.New(name, func(f dbfault.Fired) { told = append(told, f) })
			st := open(t, in)
			ctx := context.Background()
			now := time.Date(2026, 11, 1, 12, 0, 0, 0, time.UTC)
			for i, c := range cases {
				told = nil
				acct := topupd.Account{ID: fmt.Sprintf("acc_%d", i), Name: "shop", APIEnabled: true, CreatedAt: now}
				if _, err := st.CreateAccount(ctx, nil, acct); err != nil {
					t.Fatal(err)
				}
				call := in.Arm(c.fault)
				_, _, err := st.Credit(ctx, nil, acct.ID, 100, "ref", now)
				fired := call.Done()
				if got := dbfault.Describe(err); got != c.fails || (err != nil) != (c.fails != "") {
					t.Errorf("%s: credit answered %v (%q), want %q", c.name, err, got, c.fails)
				}
				bal, err := st.Balance(ctx, acct.ID)
				if err != nil {
					t.Fatal(err)
				}
				if took := bal == 100; took != c.took {
					t.Errorf("%s: balance %v after the credit, want it taken %v", c.name, bal, c.took)
				}
				want := min(c.firedOnPG, 1)
				if name == dbfault.Postgres {
					want = c.firedOnPG
				}
				if len(fired) != want || len(told) != min(want, 1) {
					t.Errorf("%s: fell %d times, told %d; want %d", c.name, len(fired), len(told), want)
				}
				// The connections thrown away are replaced: the next call works.
				if _, _, err := st.Credit(ctx, nil, acct.ID, 1, "ref2", now); err != nil {
					t.Fatalf("%s (case %d): the credit after it: %v", c.name, i, err)
				}
			}
		})
	}
}

func vault(t *testing.T) *topupd.Vault {
	v, err := topupd.NewVault([]byte("0123456789abcdef0123456789abcdef"))
	if err != nil {
		t.Fatal(err)
	}
	return v
}
