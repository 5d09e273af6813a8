// Package dbfault injects faults at the SQL driver, for the simulator
// (docs/simulation.md): a driver.Connector wrapper that, when the store
// call in progress has a fault armed (Injector.Arm), makes the database
// busy, loses the connection, or applies a commit and loses its answer, at
// one of the call's write transactions: at its begin, before one of its
// statements runs, or at its commit. The errors are those the real drivers
// return, so the store's own tests of them (Dialect.IsTransient,
// IsUniqueViolation) see what they see in production.
//
// Faults fall in write transactions only (read-only transactions and
// plain reads go through untouched): the SQLite and PostgreSQL stores run
// the same write transactions with the same statements, but not the same
// reads (SQLite's store answers some from memory), and a seed must make
// one history on both.
package dbfault

import (
	"database/sql/driver"
	"errors"
	"fmt"
	"sync"
)

// Store names the database whose driver the wrapper stands in front of.
type Store string

// The stores.
const (
	SQLite   Store = "sqlite"
	Postgres Store = "postgres"
)

// Kind is what goes wrong.
type Kind uint8

// The kinds of fault.
const (
	// Waited: the database is busy, and the wait ends in time. On
	// PostgreSQL a serialization failure (40001) or a deadlock (40P01),
	// which the store rolls back and runs again (Dialect.IsTransient); on
	// SQLite the driver's busy handler waits (busy_timeout), so nothing
	// reaches the store and nothing is injected.
	Waited Kind = iota + 1
	// Busy: the database stays busy past the store's patience. On SQLite
	// SQLITE_BUSY, which the busy handler answers once busy_timeout has
	// passed; on PostgreSQL a serialization failure or deadlock at every
	// run of the transaction, until the store gives up. The transaction
	// is rolled back and the store call fails.
	Busy
	// Lost: the connection is lost before the statement (or the begin,
	// or the commit) is sent: driver.ErrBadConn, and the connection is
	// thrown away. database/sql begins again on another connection by
	// itself; in a transaction, the transaction is rolled back and the
	// store call fails.
	Lost
	// AnswerLost: the commit is applied and its answer lost: the store
	// call fails although its transaction committed. It falls at a
	// commit, whatever the point drawn.
	AnswerLost
)

// String names the kind in a trace.
func (k Kind) String() string {
	switch k {
	case Waited:
		return "busy, waited out"
	case Busy:
		return "busy, given up"
	case Lost:
		return "connection lost"
	case AnswerLost:
		return "commit applied, answer lost"
	}
	return fmt.Sprintf("kind %d", k)
}

// Point is where in a transaction a fault falls.
type Point uint8

// The points.
const (
	AtBegin Point = iota + 1
	AtStatement
	AtCommit
)

// Fault is one fault armed for a store call.
type Fault struct {
	Kind Kind
	// Tx is the write transaction it falls in, from 1, counting each run
	// of a transaction the store runs again.
	Tx int
	// At is where; Stmt, from 1, is the statement for AtStatement. A
	// transaction that commits before its Stmt-th statement has the fault
	// at its commit instead.
	At   Point
	Stmt int
	// Deadlock makes PostgreSQL's error a deadlock (40P01) rather than a
	// serialization failure (40001).
	Deadlock bool
}

// Fired is a fault as it fell.
type Fired struct {
	Fault
	// At and Stmt say where it fell (a statement's fault may fall at the
	// commit); Tx which transaction.
	At   Point
	Stmt int
	Tx   int
	// Err is what the driver answered; nil where nothing was injected
	// (Waited, on SQLite).
	Err error
}

// String describes where it fell, for a trace: the same on both stores.
func (f Fired) String() string {
	where := "commit"
	switch f.At {
	case AtBegin:
		where = "begin"
	case AtStatement:
		where = fmt.Sprintf("statement %d", f.Stmt)
	}
	return fmt.Sprintf("%s at the %s of write transaction %d", f.Kind, where, f.Tx)
}

// Injector wraps a store's connectors and injects the faults armed for
// the store call in progress. Store calls may nest (one may run inside
// another's hook, sqlstore.WithBeforeTx), never overlap: the innermost
// armed call owns every write transaction begun meanwhile.
type Injector struct {
	store Store
	// onFire, when set, hears of each fault as it falls.
	onFire func(Fired)
	mu     sync.Mutex
	calls  []*Call
}

// New returns an injector of store's errors; onFire, when not nil, is
// called as each fault falls, in the goroutine of the driver call.
func New(store Store, onFire func(Fired)) *Injector {
	return &Injector{store: store, onFire: onFire}
}

// Call is one store call's arming.
type Call struct {
	in    *Injector
	fault Fault // zero: none
	txs   int
	fired []Fired
}

// Arm makes f the fault of the store call about to run, until Done; a
// zero f arms none, which still keeps the call's transactions from an
// enclosing call's count.
func (in *Injector) Arm(f Fault) *Call {
	in.mu.Lock()
	defer in.mu.Unlock()
	c := &Call{in: in, fault: f}
	in.calls = append(in.calls, c)
	return c
}

// Done ends the call's arming and returns the faults that fell in it.
func (c *Call) Done() []Fired {
	in := c.in
	in.mu.Lock()
	defer in.mu.Unlock()
	for i := len(in.calls) - 1; i >= 0; i-- {
		if in.calls[i] == c {
			in.calls = append(in.calls[:i], in.calls[i+1:]...)
			break
		}
	}
	return c.fired
}

// begin counts a write transaction of the call in progress, if any.
func (in *Injector) begin() *txRun {
	in.mu.Lock()
	defer in.mu.Unlock()
	if len(in.calls) == 0 {
		return nil
	}
	c := in.calls[len(in.calls)-1]
	c.txs++
	return &txRun{call: c, n: c.txs}
}

// txRun is one write transaction of a call.
type txRun struct {
	call  *Call
	n     int
	stmts int
}

// due reports the call's fault if it falls at point p of t (stmt: the
// statement about to run, for AtStatement).
func (t *txRun) due(p Point) (Fault, bool) {
	f := t.call.fault
	if f.Kind == 0 || f.Tx != t.n {
		return f, false
	}
	at := f.At
	if f.Kind == AnswerLost {
		at = AtCommit
	}
	switch {
	case at == p && p != AtStatement:
		return f, true
	case at == AtStatement && p == AtStatement:
		return f, f.Stmt == t.stmts
	case at == AtStatement && p == AtCommit:
		return f, t.stmts < f.Stmt // committing before the statement came
	}
	return f, false
}

// fire records that f fell at p of t and returns the error to answer
// (nil: none). A busy PostgreSQL stays busy for the call's next
// transaction, the store's next run of this one, from its first statement.
func (t *txRun) fire(f Fault, p Point) error {
	in := t.call.in
	err := in.errorOf(f)
	fired := Fired{Fault: f, At: p, Tx: t.n, Err: err}
	if p == AtStatement {
		fired.Stmt = t.stmts
	}
	in.mu.Lock()
	c := t.call
	c.fired = append(c.fired, fired)
	if f.Kind == Busy && in.store == Postgres {
		// The store's next run takes another path maybe (a cache filled
		// by this one), with fewer statements: it fails at its first.
		c.fault = Fault{Kind: Busy, Tx: t.n + 1, At: AtStatement, Stmt: 1, Deadlock: f.Deadlock}
	} else {
		c.fault = Fault{}
	}
	in.mu.Unlock()
	if in.onFire != nil && len(c.fired) == 1 { // a busy PostgreSQL's later runs are not told again
		in.onFire(fired)
	}
	return err
}

// errorOf is the driver's error for f.
func (in *Injector) errorOf(f Fault) error {
	switch f.Kind {
	case Waited, Busy:
		if in.store == SQLite {
			if f.Kind == Waited {
				return nil // the busy handler waited it out
			}
			return sqliteBusy()
		}
		return pgBusy(f.Deadlock)
	case Lost:
		return driver.ErrBadConn
	case AnswerLost:
		return ErrAnswerLost
	}
	return nil
}

// ErrAnswerLost is the error of a commit applied whose answer was lost:
// what a driver reports when the connection breaks while it waits for the
// commit's answer (pgx: an EOF or a reset, wrapped).
var ErrAnswerLost = errors.New("dbfault: the connection broke while reading the commit's answer (the commit was applied)")
