package dbfault

// The driver's wrappers: a connector whose connections, transactions and
// statements inject the faults an Injector armed.

import (
	"context"
	"database/sql/driver"
)

// Connector wraps base so that its connections inject the armed faults.
func (in *Injector) Connector(base driver.Connector) driver.Connector {
	return connector{base: base, in: in}
}

type connector struct {
	base driver.Connector
	in   *Injector
}

func (k connector) Connect(ctx context.Context) (driver.Conn, error) {
	c, err := k.base.Connect(ctx)
	if err != nil {
		return nil, err
	}
	return &conn{base: c, in: k.in}, nil
}

func (k connector) Driver() driver.Driver { return k.base.Driver() }

// conn is one connection. database/sql uses it from one goroutine at a time.
type conn struct {
	base driver.Conn
	in   *Injector
	tx   *txRun // the write transaction open on it and armed, if any
	// bad: its connection was lost; database/sql throws it away.
	bad bool
}

var (
	_ driver.QueryerContext     = (*conn)(nil)
	_ driver.ExecerContext      = (*conn)(nil)
	_ driver.ConnBeginTx        = (*conn)(nil)
	_ driver.ConnPrepareContext = (*conn)(nil)
	_ driver.NamedValueChecker  = (*conn)(nil)
	_ driver.SessionResetter    = (*conn)(nil)
	_ driver.Validator          = (*conn)(nil)
	_ driver.Pinger             = (*conn)(nil)
)

// statement is called before a statement runs on the connection: the
// error to answer instead of running it, if any.
func (c *conn) statement() error {
	if c.bad {
		return driver.ErrBadConn
	}
	t := c.tx
	if t == nil {
		return nil
	}
	t.stmts++
	f, ok := t.due(AtStatement)
	if !ok {
		return nil
	}
	err := t.fire(f, AtStatement)
	if f.Kind == Lost {
		c.bad = true
	}
	return err
}

func (c *conn) Prepare(query string) (driver.Stmt, error) {
	return c.PrepareContext(context.Background(), query)
}

func (c *conn) PrepareContext(ctx context.Context, query string) (driver.Stmt, error) {
	if c.bad {
		return nil, driver.ErrBadConn
	}
	var s driver.Stmt
	var err error
	if p, ok := c.base.(driver.ConnPrepareContext); ok {
		s, err = p.PrepareContext(ctx, query)
	} else {
		s, err = c.base.Prepare(query)
	}
	if err != nil {
		return nil, err
	}
	return &stmt{base: s, conn: c}, nil
}

func (c *conn) Close() error { return c.base.Close() }

func (c *conn) Begin() (driver.Tx, error) {
	return c.BeginTx(context.Background(), driver.TxOptions{})
}

func (c *conn) BeginTx(ctx context.Context, opts driver.TxOptions) (driver.Tx, error) {
	if c.bad {
		return nil, driver.ErrBadConn
	}
	var t *txRun
	if !opts.ReadOnly {
		t = c.in.begin()
	}
	if t != nil {
		if f, ok := t.due(AtBegin); ok {
			if err := t.fire(f, AtBegin); err != nil {
				if f.Kind == Lost {
					c.bad = true
				}
				return nil, err
			}
		}
	}
	var base driver.Tx
	var err error
	if b, ok := c.base.(driver.ConnBeginTx); ok {
		base, err = b.BeginTx(ctx, opts)
	} else {
		//lint:ignore SA1019 the driver has nothing newer
		base, err = c.base.Begin()
	}
	if err != nil {
		return nil, err
	}
	c.tx = t
	return &tx{base: base, conn: c, run: t}, nil
}

func (c *conn) ExecContext(ctx context.Context, query string, args []driver.NamedValue) (driver.Result, error) {
	e, ok := c.base.(driver.ExecerContext)
	if !ok {
		return nil, driver.ErrSkip // database/sql prepares it: counted at the stmt
	}
	if err := c.statement(); err != nil {
		return nil, err
	}
	return e.ExecContext(ctx, query, args)
}

func (c *conn) QueryContext(ctx context.Context, query string, args []driver.NamedValue) (driver.Rows, error) {
	q, ok := c.base.(driver.QueryerContext)
	if !ok {
		return nil, driver.ErrSkip
	}
	if err := c.statement(); err != nil {
		return nil, err
	}
	return q.QueryContext(ctx, query, args)
}

func (c *conn) CheckNamedValue(v *driver.NamedValue) error {
	if k, ok := c.base.(driver.NamedValueChecker); ok {
		return k.CheckNamedValue(v)
	}
	return driver.ErrSkip
}

func (c *conn) ResetSession(ctx context.Context) error {
	if c.bad {
		return driver.ErrBadConn
	}
	if r, ok := c.base.(driver.SessionResetter); ok {
		return r.ResetSession(ctx)
	}
	return nil
}

func (c *conn) IsValid() bool {
	if c.bad {
		return false
	}
	if v, ok := c.base.(driver.Validator); ok {
		return v.IsValid()
	}
	return true
}

func (c *conn) Ping(ctx context.Context) error {
	if c.bad {
		return driver.ErrBadConn
	}
	if p, ok := c.base.(driver.Pinger); ok {
		return p.Ping(ctx)
	}
	return nil
}

// tx is a transaction whose commit may fail, or succeed unheard.
type tx struct {
	base driver.Tx
	conn *conn
	run  *txRun
}

func (t *tx) Commit() error {
	c := t.conn
	c.tx = nil
	if c.bad {
		t.base.Rollback()
		return driver.ErrBadConn
	}
	if t.run != nil {
		if f, ok := t.run.due(AtCommit); ok {
			if f.Kind == AnswerLost {
				if err := t.base.Commit(); err != nil {
					return err // it failed before any fault could fall
				}
				c.bad = true
				return t.run.fire(f, AtCommit)
			}
			err := t.run.fire(f, AtCommit)
			if err == nil { // waited out
				return t.base.Commit()
			}
			t.base.Rollback() // the database rolled it back, or never saw the commit
			if f.Kind == Lost {
				c.bad = true
			}
			return err
		}
	}
	return t.base.Commit()
}

func (t *tx) Rollback() error {
	t.conn.tx = nil
	return t.base.Rollback()
}

// stmt is a prepared statement; a fault may fall before each run.
type stmt struct {
	base driver.Stmt
	conn *conn
}

func (s *stmt) Close() error  { return s.base.Close() }
func (s *stmt) NumInput() int { return s.base.NumInput() }

func (s *stmt) Exec(args []driver.Value) (driver.Result, error) {
	if err := s.conn.statement(); err != nil {
		return nil, err
	}
	//lint:ignore SA1019 database/sql calls this only when the driver has nothing newer
	return s.base.Exec(args)
}

func (s *stmt) Query(args []driver.Value) (driver.Rows, error) {
	if err := s.conn.statement(); err != nil {
		return nil, err
	}
	//lint:ignore SA1019 as Exec
	return s.base.Query(args)
}

func (s *stmt) ExecContext(ctx context.Context, args []driver.NamedValue) (driver.Result, error) {
	if err := s.conn.statement(); err != nil {
		return nil, err
	}
	if e, ok := s.base.(driver.StmtExecContext); ok {
		return e.ExecContext(ctx, args)
	}
	vals, err := values(args)
	if err != nil {
		return nil, err
	}
	//lint:ignore SA1019 the driver has nothing newer
	return s.base.Exec(vals)
}

func (s *stmt) QueryContext(ctx context.Context, args []driver.NamedValue) (driver.Rows, error) {
	if err := s.conn.statement(); err != nil {
		return nil, err
	}
	if q, ok := s.base.(driver.StmtQueryContext); ok {
		return q.QueryContext(ctx, args)
	}
	vals, err := values(args)
	if err != nil {
		return nil, err
	}
	//lint:ignore SA1019 the driver has nothing newer
	return s.base.Query(vals)
}

func (s *stmt) CheckNamedValue(v *driver.NamedValue) error {
	if c, ok := s.base.(driver.NamedValueChecker); ok {
		return c.CheckNamedValue(v)
	}
	return s.conn.CheckNamedValue(v)
}

// values drops the names of positional arguments.
func values(args []driver.NamedValue) ([]driver.Value, error) {
	out := make([]driver.Value, len(args))
	for i, a := range args {
		if a.Name != "" {
			return nil, driver.ErrSkip
		}
		out[i] = a.Value
	}
	return out, nil
}
