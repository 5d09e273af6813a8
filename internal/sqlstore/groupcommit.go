package sqlstore

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"sync/atomic"
	"time"
)

// maxGroup bounds how many callers' transactions share one commit.
const maxGroup = 128

// committer runs the write transactions of concurrent callers together, in
// one database transaction with one commit (one fsync): group commit. Each
// caller's work runs in a savepoint of its own, so a caller that fails is
// rolled back alone; no caller hears of success before the shared commit
// is durable, and if the commit fails every caller in the group hears so.
// A group of one needs no savepoint: its failure rolls back the whole
// transaction.
type committer struct {
	db   *sql.DB
	opts *sql.TxOptions
	ops  chan *groupOp
	stop chan struct{}
	done chan struct{}
	// since is when the group in progress began, in Unix ms, or 0 while
	// none is (syncPoint).
	since atomic.Int64
}

// groupOp is one caller's transaction waiting for its group.
type groupOp struct {
	ctx    context.Context
	fn     func(ctx context.Context, tx *sql.Tx) error
	result chan error
	alone  bool // withAlone: runs in a group of its own
}

// aloneKey marks a context whose write transaction runs alone (withAlone).
type aloneKey struct{}

// withAlone marks ctx's write transactions to run in a group of their own
// under group commit: one that writes many rows (a stock upload, a void).
// A caller that shares a group runs in a savepoint, and SQLite keeps the
// first image of every page a savepoint changes in memory until it ends
// (temp_store MEMORY): for an upload of 10,000 codes into a large stock
// that is tens of MB, as many as the pages of the codes' indexes it
// touches. Alone it needs no savepoint. It changes nothing where there is
// no group commit (PostgreSQL).
func withAlone(ctx context.Context) context.Context {
	return context.WithValue(ctx, aloneKey{}, true)
}

func newCommitter(db *sql.DB, opts *sql.TxOptions) *committer {
	c := &committer{db: db, opts: opts, ops: make(chan *groupOp), stop: make(chan struct{}), done: make(chan struct{})}
	go c.loop()
	return c
}

// run hands fn to the next group and waits for the group's commit, so that
// the answer is always what happened. A caller whose ctx ends before its
// turn is skipped and hears ctx's error; once its turn has begun, fn runs
// to the end on a context ctx's cancellation cannot reach, since an
// interrupted statement can make SQLite roll back the whole shared
// transaction, the other callers' work with it. Either way the caller's
// work commits or rolls back alone.
func (c *committer) run(ctx context.Context, fn func(ctx context.Context, tx *sql.Tx) error) error {
	alone, _ := ctx.Value(aloneKey{}).(bool)
	op := &groupOp{ctx: ctx, fn: fn, result: make(chan error, 1), alone: alone}
	select {
	case c.ops <- op:
	case <-ctx.Done():
		return ctx.Err()
	case <-c.stop:
		return errors.New("store is closed")
	}
	return <-op.result
}

// close stops the committer after the group in progress.
func (c *committer) close() {
	close(c.stop)
	<-c.done
}

func (c *committer) loop() {
	defer close(c.done)
	for {
		var first *groupOp
		select {
		case first = <-c.ops:
		case <-c.stop:
			return
		}
		group := []*groupOp{first}
	more:
		for len(group) < maxGroup && !first.alone {
			select {
			case op := <-c.ops:
				if op.alone { // the group so far commits first
					c.commit(group)
					group = []*groupOp{op}
					break more
				}
				group = append(group, op)
			default:
				break more
			}
		}
		c.commit(group)
	}
}

// commit runs one group in one transaction.
func (c *committer) commit(group []*groupOp) {
	// Marked before the transaction begins, and cleared before any caller
	// hears how it ended (its commit has returned, or it is rolled back
	// and shows nothing): whatever the group writes is stamped by the
	// database's clock at or after since.
	c.since.Store(time.Now().UnixMilli())
	results := make([]error, len(group))
	finish := func(shared error) {
		c.since.Store(0)
		for i, op := range group {
			if results[i] == nil {
				results[i] = shared
			}
			op.result <- results[i]
		}
	}
	tx, err := c.db.BeginTx(context.Background(), c.opts)
	if err != nil {
		finish(err)
		return
	}
	defer tx.Rollback()
	if len(group) == 1 { // no one else's work to keep from a failure: no savepoint
		op := group[0]
		if err := op.ctx.Err(); err != nil {
			finish(err)
			return
		}
		if err := op.fn(context.WithoutCancel(op.ctx), tx); err != nil {
			finish(err) // rolled back
			return
		}
		finish(tx.Commit())
		return
	}
	for i, op := range group {
		if err := op.ctx.Err(); err != nil {
			results[i] = err
			continue
		}
		if _, err := tx.Exec("SAVEPOINT caller"); err != nil {
			finish(fmt.Errorf("group commit: savepoint: %w", err))
			return
		}
		if err := op.fn(context.WithoutCancel(op.ctx), tx); err != nil {
			results[i] = err
			if _, rerr := tx.Exec("ROLLBACK TO caller"); rerr != nil {
				finish(fmt.Errorf("group commit: rolling back a caller: %w", rerr))
				return
			}
		}
		if _, err := tx.Exec("RELEASE caller"); err != nil {
			finish(fmt.Errorf("group commit: release: %w", err))
			return
		}
	}
	finish(tx.Commit())
}

// syncPoint is a catalog sync point (catalogsync.go) taken without a write
// transaction, for a database only this committer writes (one writer, no
// other process): now, or the start of the group in progress when that
// is earlier. A change stamped before it is one a committed group made: a
// group in progress stamps at or after its start, and one that begins
// after the look stamps after now, as the clock is read before the look.
// So a read begun after it sees every change stamped before it, without
// waiting behind the writers as a write transaction would.
func (c *committer) syncPoint() time.Time {
	now := time.Now().UnixMilli()
	if b := c.since.Load(); b != 0 && b < now {
		now = b
	}
	return time.UnixMilli(now)
}
