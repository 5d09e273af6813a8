package sqlstore

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"path/filepath"
	"strings"
	"testing"
	"time"

	_ "modernc.org/sqlite" // a real database for the transaction runner to commit to

	"github.com/topupd/topupd"
)

// errFlaky stands for a deadlock or a serialization failure.
var errFlaky = errors.New("flaky: try again")

// newTestStore returns a store on a scratch SQLite file with one table,
// whose dialect calls errFlaky transient.
func newTestStore(t *testing.T) *Store {
	t.Helper()
	return openTestStore(t, `CREATE TABLE runs (n INTEGER NOT NULL)`, testDialect(false))
}

// testDialect is newTestStore's dialect, with group commit or without.
func testDialect(group bool) Dialect {
	return Dialect{Name: "test", Greatest: "MAX", GroupCommit: group,
		IsUniqueViolation: func(error) bool { return false },
		IsTransient:       func(err error) bool { return errors.Is(err, errFlaky) }}
}

// openTestStore returns a store of dialect d on a scratch SQLite file
// holding schema, over one connection.
func openTestStore(t *testing.T, schema string, d Dialect) *Store {
	t.Helper()
	db, err := sql.Open("sqlite", "file:"+filepath.Join(t.TempDir(), "tx.db"))
	if err != nil {
		t.Fatal(err)
	}
	db.SetMaxOpenConns(1)
	t.Cleanup(func() { db.Close() })
	if _, err := db.Exec(schema); err != nil {
		t.Fatal(err)
	}
	v, err := topupd.NewVault(make([]byte, topupd.SecretKeySize))
	if err != nil {
		t.Fatal(err)
	}
	s, err := New(db, db, v, d, Options{})
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// inTxCase is a case of TestInTxRetries.
type inTxCase struct {
	name     string
	failures int   // runs that fail before one succeeds
	fail     error // what they fail with
	runs     int   // runs wanted
	ok       bool  // whether inTx succeeds
}

// TestInTxRetries shows which failures run a transaction again, that each
// failed run is rolled back, and that the runs are bounded; with group
// commit too, where each run is a group of one, run without a savepoint.
func TestInTxRetries(t *testing.T) {
	cases := []inTxCase{
		{"success runs once", 0, nil, 1, true},
		{"a transient failure runs again", 2, errFlaky, 3, true},
		{"a failure marked again runs again", 1, again(errors.New("unique")), 2, true},
		{"transient failures are bounded", 100, errFlaky, maxAttempts, false},
		{"marked failures are bounded", 100, again(errors.New("unique")), maxAttempts, false},
		{"a refusal is not run again", 100, topupd.Fail(topupd.EInsufficientBalance), 1, false},
		{"another error is not run again", 100, errors.New("disk on fire"), 1, false},
	}
	for _, c := range cases {
		for _, group := range []bool{false, true} {
			t.Run(fmt.Sprintf("%s/group=%v", c.name, group), func(t *testing.T) {
				testInTxRuns(t, openTestStore(t, `CREATE TABLE runs (n INTEGER NOT NULL)`, testDialect(group)), c)
			})
		}
	}
}

// testInTxRuns runs case c of TestInTxRetries on store s.
func testInTxRuns(t *testing.T, s *Store, c inTxCase) {
	runs := 0
	err := s.inTx(t.Context(), func(_ context.Context, tx *sql.Tx) error {
		runs++
		if _, err := tx.Exec(`INSERT INTO runs (n) VALUES ($1)`, runs); err != nil {
			return err
		}
		if runs <= c.failures {
			return c.fail
		}
		return nil
	})
	if runs != c.runs || (err == nil) != c.ok {
		t.Fatalf("%d runs, err %v; want %d runs, success %v", runs, err, c.runs, c.ok)
	}
	if !c.ok && !errors.Is(err, errors.Unwrap(c.fail)) && !errors.Is(err, c.fail) {
		t.Errorf("error %v does not carry the last failure %v", err, c.fail)
	}
	var rows, last int
	if err := s.write.QueryRow(`SELECT count(*), COALESCE(MAX(n), 0) FROM runs`).Scan(&rows, &last); err != nil {
		t.Fatal(err)
	}
	if want := map[bool]int{true: 1, false: 0}[c.ok]; rows != want || (c.ok && last != c.runs) {
		t.Errorf("%d rows committed (last from run %d); want only the successful run's", rows, last)
	}
}

// TestInTxStopsWithContext shows that a cancelled caller is not kept waiting
// between runs.
func TestInTxStopsWithContext(t *testing.T) {
	s := newTestStore(t)
	ctx, cancel := context.WithCancel(t.Context())
	runs := 0
	start := time.Now()
	err := s.inTx(ctx, func(context.Context, *sql.Tx) error {
		runs++
		cancel()
		return errFlaky
	})
	if !errors.Is(err, context.Canceled) || runs != 1 {
		t.Errorf("%d runs, err %v; want 1 run and context.Canceled", runs, err)
	}
	if d := time.Since(start); d > time.Second {
		t.Errorf("inTx took %v after its context was cancelled", d)
	}
}

// TestHotQueriesLockOnlyWhereAsked shows that the dialect's lock clauses land
// in the queries that need them and nowhere else.
func TestHotQueriesLockOnlyWhereAsked(t *testing.T) {
	d := Dialect{Name: "test", Greatest: "GREATEST", LockRow: " FOR NO KEY UPDATE", SkipLocked: " FOR NO KEY UPDATE SKIP LOCKED"}
	q := render(d)
	for name, text := range map[string]string{"lockAccount": q.lockAccount, "lockOrder": q.lockOrder, "lockStock": q.lockStock,
		"lockPack": q.lockPack, "lockSettings": q.lockSettings, "accountLocked": q.accountLocked} {
		if !strings.HasSuffix(text, d.LockRow) {
			t.Errorf("%s does not end with the row lock: %q", name, text)
		}
	}
	if want := "LIMIT $3 FOR NO KEY UPDATE)"; !strings.Contains(q.drawCodes, want) {
		t.Errorf("drawCodes does not lock the codes it draws: %q", q.drawCodes)
	}
	if want := "LIMIT $4 FOR NO KEY UPDATE SKIP LOCKED)"; !strings.Contains(q.claimDue, want) {
		t.Errorf("claimDue does not skip locked orders: %q", q.claimDue)
	}
	if !strings.Contains(q.retryOrder, "GREATEST(deadline_at, $3)") {
		t.Errorf("retryOrder does not use the dialect's GREATEST: %q", q.retryOrder)
	}
	plain := render(Dialect{Greatest: "MAX"})
	for _, text := range []string{plain.lockAccount, plain.drawCodes, plain.claimDue} {
		if strings.Contains(text, "FOR ") {
			t.Errorf("a dialect without locks got one: %q", text)
		}
	}
}
