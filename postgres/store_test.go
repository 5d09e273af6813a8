package postgres_test

import (
	"net/url"
	"strings"
	"testing"

	"github.com/topupd/topupd"
	"github.com/topupd/topupd/internal/testing/storetest"
	"github.com/topupd/topupd/postgres"
)

// TestStore runs the behaviour suite every store passes, each subtest on a
// fresh schema of its own.
func TestStore(t *testing.T) {
	baseURL(t)
	storetest.Run(t, func(t *testing.T) topupd.Store {
		return openStore(t, newDB(t), storetest.NewVault(t))
	})
}

// TestStoreSimpleProtocol runs the suite again with pgx's simple protocol,
// which PgBouncer in transaction mode needs: no statement is prepared on the
// server, and every argument is sent as text. All of it but the races
// (storetest.RunWithoutRaces says why): every statement and every type of
// argument and column is there, and the races ran once, in TestStore.
func TestStoreSimpleProtocol(t *testing.T) {
	baseURL(t)
	storetest.RunWithoutRaces(t, func(t *testing.T) topupd.Store {
		u, err := url.Parse(newDB(t))
		must(t, err)
		q := u.Query()
		q.Set("default_query_exec_mode", "simple_protocol")
		u.RawQuery = q.Encode()
		return openStore(t, u.String(), storetest.NewVault(t))
	})
}

func TestOpenNeedsVault(t *testing.T) {
	if s, err := postgres.Open(t.Context(), newSchema(t), nil); err == nil {
		s.Close()
		t.Errorf("Open without a vault succeeded")
	}
}

// TestOpenNeedsSchema shows that a search_path naming no existing schema is
// refused rather than migrated somewhere unexpected, and that the error does
// not show the URL's password.
func TestOpenNeedsSchema(t *testing.T) {
	u, err := url.Parse(baseURL(t))
	must(t, err)
	const password = "pw-that-must-not-show"
	u.User = url.UserPassword(u.User.Username(), password) // the test server trusts local connections
	q := u.Query()
	q.Set("search_path", "t_no_such_schema")
	u.RawQuery = q.Encode()
	s, err := postgres.Open(t.Context(), u.String(), storetest.NewVault(t))
	if err == nil {
		s.Close()
		t.Fatalf("Open on a missing schema succeeded")
	}
	if !strings.Contains(err.Error(), "no existing schema") {
		t.Errorf("Open on a missing schema: %v; want it to say the schema is missing", err)
	}
	if strings.Contains(err.Error(), password) {
		t.Errorf("the error shows the password: %v", err)
	}
}

// TestDefaultMaxConns shows the pool's default size stays within bounds.
func TestDefaultMaxConns(t *testing.T) {
	if n := postgres.DefaultMaxConns(); n < 8 || n > 32 {
		t.Errorf("DefaultMaxConns() = %d, want 8 to 32", n)
	}
}
