// Package sqlstore is the topupd.Store on database/sql that the SQLite and
// PostgreSQL stores share. Every query is written here once; a Dialect
// supplies the little that differs between the two databases: row-locking
// clauses, the name of GREATEST, how a write transaction begins and how its
// errors are recognised.
//
// Concurrency: on SQLite one writer connection runs write transactions one
// at a time, so the lock clauses render empty. On PostgreSQL write
// transactions run at READ COMMITTED and queue on explicit row locks: the
// account row for anything that appends to its ledger (PlaceOrder, Credit, a
// refund), the pack's stock_levels row for a draw of codes, the order row for
// Settle and RetryOrder; ClaimDue passes over locked orders (SKIP LOCKED).
// The unique indexes are the backstop: a transaction that trips one where
// a repeat is possible, and one failed as a deadlock or serialization
// failure, is run again, at most maxAttempts times.
package sqlstore

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"math/rand/v2"
	"time"

	"github.com/topupd/topupd"
)

// Dialect is what differs between the databases a Store runs on.
type Dialect struct {
	// Name names the database in messages.
	Name string
	// TxOptions begin every write transaction; nil takes the driver's default.
	TxOptions *sql.TxOptions
	// LockRow ends a SELECT of rows the transaction is about to change, so
	// that concurrent writers queue for them (" FOR NO KEY UPDATE"); empty
	// where writers are serialised anyway.
	LockRow string
	// SkipLocked ends a SELECT of work to claim, passing over rows another
	// transaction holds (" FOR NO KEY UPDATE SKIP LOCKED"); empty where
	// writers are serialised anyway.
	SkipLocked string
	// Greatest names the function that returns the larger of two values.
	Greatest string
	// IndexedBy follows a table name to make a query read one index
	// (" INDEXED BY x"), where the planner might choose a worse one; empty
	// where it needs no telling.
	IndexedBy string
	// Bytewise follows a text expression to compare it byte by byte (as
	// the index of lowered trxids is ordered), so that a prefix is one range
	// of it (` COLLATE "C"`); empty where text compares so already.
	Bytewise string
	// IsUniqueViolation reports an error raised by a unique index.
	IsUniqueViolation func(error) bool
	// IsTransient reports a deadlock or serialization failure: the
	// transaction was rolled back and a fresh attempt may succeed. Nil means
	// the database raises none.
	IsTransient func(error) bool
	// StreamSettled ends the condition of a read of the event stream: on a
	// database whose transactions may commit out of the order they took
	// their events' sequence numbers, it keeps to the events of
	// transactions older than any still open ("" where one writer commits
	// in order).
	StreamSettled string
	// StreamAfter, when set, is the condition of a read of the event
	// stream after the position ($1, $2) = (tx, seq); else the row value
	// (e.tx, e.seq) > ($1, $2). SQLite's is e.tx = $1 AND e.seq > $2: its
	// one writer leaves every event's tx 0 (events.tx's default), and on a
	// row value it seeks events_stream to tx alone, reading the stream
	// from its start on every read.
	StreamAfter string
	// GroupCommit runs concurrent write transactions together, one commit
	// for the group, each caller in a savepoint: for a database with one
	// writer, where each commit's fsync is the bottleneck.
	GroupCommit bool
	// OneWriter says no other process writes the database (SQLite: one
	// server per file, enforced at start), so the store may answer reads
	// of what only its own writes change from memory (balancecache.go).
	OneWriter bool
	// CatalogSyncPoint selects the database's clock in ms once every write
	// transaction that stamped a catalog change before it has committed
	// (catalogsync.go).
	CatalogSyncPoint string
	// CatalogStamp is the expression that stamps a catalog change
	// (catalog_marks.changed_at): the database's clock in ms, taken so
	// that CatalogSyncPoint waits for the stamping transaction.
	CatalogStamp string
}

// Store is a topupd.Store on database/sql.
type Store struct {
	write *sql.DB // write transactions
	read  *sql.DB // plain reads; may be the same pool as write
	vault *topupd.Vault
	d     Dialect
	q     queries
	group *committer // nil unless the dialect asks for group commit
	// balances caches Balance's answers; nil unless the dialect is OneWriter.
	balances *balanceCache
	// termsKept keeps what orders read of the catalog and prices (termscache.go).
	termsKept *termsCache
	// now is the clock of what the store stamps by itself (Options.Now).
	now func() time.Time
}

var _ topupd.Store = (*Store)(nil)

// New returns a store whose write transactions run on write and whose plain
// reads run on read (the same pool may serve both), on a migrated database.
func New(write, read *sql.DB, vault *topupd.Vault, d Dialect, o Options) (*Store, error) {
	switch {
	case write == nil || read == nil:
		return nil, errors.New("sqlstore.New: a write and a read pool are required")
	case vault == nil:
		return nil, errors.New("sqlstore.New: a vault is required")
	case d.IsUniqueViolation == nil || d.Greatest == "":
		return nil, fmt.Errorf("sqlstore.New: dialect %q is incomplete", d.Name)
	}
	s := &Store{write: write, read: read, vault: vault, d: d, q: render(d), termsKept: &termsCache{entries: map[termsKey]*termsEntry{}}, now: o.Now}
	if s.now == nil {
		s.now = time.Now
	}
	if d.GroupCommit {
		s.group = newCommitter(write, d.TxOptions)
	}
	if d.OneWriter {
		s.balances = &balanceCache{m: make(map[string]cachedBalance)}
	}
	return s, nil
}

// Ping checks that both pools answer.
func (s *Store) Ping(ctx context.Context) error {
	if err := s.write.PingContext(ctx); err != nil {
		return fmt.Errorf("store.Ping: %w", err)
	}
	if err := s.read.PingContext(ctx); err != nil {
		return fmt.Errorf("store.Ping: %w", err)
	}
	return nil
}

// Close closes both pools.
func (s *Store) Close() error {
	if s.group != nil {
		s.group.close()
	}
	if s.read == s.write {
		return s.write.Close()
	}
	return errors.Join(s.read.Close(), s.write.Close())
}

// maxAttempts bounds how often one transaction is run.
const maxAttempts = 5

// retryError marks an error after which the whole transaction is run
// again: after a short pause, or at once (atOnce).
type retryError struct {
	err    error
	atOnce bool
}

func (e retryError) Error() string { return e.err.Error() }
func (e retryError) Unwrap() error { return e.err }

// again marks err so that inTx runs the transaction again.
func again(err error) error { return retryError{err: err} }

// againAtOnce marks err so that inTx runs the transaction again without a
// pause: fn changed what its next run does, and nothing is contended.
func againAtOnce(err error) error { return retryError{err: err, atOnce: true} }

// inTx runs fn in one write transaction and commits it. A transaction that
// failed as transient, or whose fn marked its error with again, is rolled
// back and run again after a short random pause, at most maxAttempts times;
// fn must therefore set its results afresh on every run, and run its
// statements with the context it is given (see runTx).
//
// When ctx carries the change a store method was given (change.go), its
// entry in the action log is written in the same transaction, after fn:
// both commit, or neither does.
func (s *Store) inTx(ctx context.Context, fn func(ctx context.Context, tx *sql.Tx) error) error {
	c := changeOf(ctx)
	if c == nil || c.Recorded {
		return s.retryTx(ctx, fn)
	}
	err := s.retryTx(ctx, func(ctx context.Context, tx *sql.Tx) error {
		if err := fn(ctx, tx); err != nil {
			return err
		}
		return s.recordChange(ctx, tx, c)
	})
	if err == nil {
		c.Recorded = true
	}
	return err
}

// retryTx is inTx's loop: fn in one transaction, run again when it failed
// as transient.
func (s *Store) retryTx(ctx context.Context, fn func(ctx context.Context, tx *sql.Tx) error) error {
	if err := beforeTx(ctx); err != nil {
		return err
	}
	ctx, alerts := withPendingAlerts(ctx) // low-stock flips, told once committed
	ctx, balances := s.withPendingBalances(ctx)
	for attempt := 1; ; attempt++ {
		alerts.reset()
		err := s.runTx(ctx, fn)
		s.settleBalances(balances)
		if err == nil {
			alerts.commit()
			return nil
		}
		var r retryError
		retry := errors.As(err, &r) || (s.d.IsTransient != nil && s.d.IsTransient(err))
		if !retry {
			return err
		}
		if attempt == maxAttempts {
			return fmt.Errorf("%d attempts: %w", attempt, err)
		}
		if r.atOnce {
			continue
		}
		pause := time.Duration(attempt) * (time.Millisecond + rand.N(4*time.Millisecond))
		select {
		case <-ctx.Done():
			return errors.Join(ctx.Err(), err)
		case <-time.After(pause):
		}
	}
}

// retryExec runs one statement in a transaction of its own, retried as
// retryTx retries, and returns how many rows it changed.
func (s *Store) retryExec(ctx context.Context, query string, args ...any) (int64, error) {
	var n int64
	err := s.retryTx(ctx, func(ctx context.Context, tx *sql.Tx) error {
		res, err := tx.ExecContext(ctx, query, args...)
		n, err = rowsAffected(res, err)
		return err
	})
	return n, err
}

// seenAt records in column col of the row of table whose keyCol is key
// that it was used in the minute that starts at minute; a row seen in that
// minute already is not written again, so most calls write nothing.
func (s *Store) seenAt(ctx context.Context, table, keyCol, col string, key any, minute time.Time) error {
	_, err := s.retryExec(ctx, `UPDATE `+table+` SET `+col+` = $2 WHERE `+keyCol+` = $1 AND (`+col+` IS NULL OR `+col+` < $2)`, key, ms(minute))
	return err
}

// txTimeout bounds a write transaction once it has begun.
const txTimeout = 30 * time.Second

// runTx runs fn in one write transaction and commits it, or in the next
// group commit. A caller whose ctx has ended before its transaction begins
// gets ctx's error; once begun, the transaction runs to its commit or
// rollback on a context the caller cannot cancel (bounded by txTimeout). A
// cancelled statement would otherwise reach other callers: on SQLite an
// interrupt can roll back the whole shared group, and on PostgreSQL a
// cancellation can break a pooled connection that another caller then
// draws. A caller that hangs up thus never touches anyone else's work, and
// its own work commits or rolls back alone.
func (s *Store) runTx(ctx context.Context, fn func(ctx context.Context, tx *sql.Tx) error) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	if s.group != nil {
		return s.group.run(ctx, fn)
	}
	ctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), txTimeout)
	defer cancel()
	tx, err := s.write.BeginTx(ctx, s.d.TxOptions)
	if err != nil {
		return err
	}
	defer tx.Rollback()
	if err := fn(ctx, tx); err != nil {
		return err
	}
	return tx.Commit()
}

// lockAccount takes the account's row lock, which every transaction that
// appends to the account's ledger or places its orders holds, so that they
// run one at a time per account. It reports whether the account exists.
func (s *Store) lockAccount(ctx context.Context, tx *sql.Tx, accountID string) (bool, error) {
	var one int
	err := tx.QueryRowContext(ctx, s.q.lockAccount, accountID).Scan(&one)
	if isNoRows(err) {
		return false, nil
	}
	if err != nil {
		return false, fmt.Errorf("lock account %s: %w", accountID, err)
	}
	return true, nil
}
