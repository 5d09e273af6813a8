package sqlite

import (
	"context"
	"database/sql/driver"
	"errors"
)

// maxCachedStmts bounds each connection's statement cache.
const maxCachedStmts = 256

// cachingConnector opens connections that keep their prepared statements:
// SQLite spends most of a small transaction parsing SQL (and compiling the
// triggers an INSERT fires), so each query text is prepared once per
// connection and reused.
type cachingConnector struct{ base driver.Connector }

// Connect opens a caching connection.
func (c cachingConnector) Connect(ctx context.Context) (driver.Conn, error) {
	conn, err := c.base.Connect(ctx)
	if err != nil {
		return nil, err
	}
	for _, ok := range []bool{isA[driver.ConnPrepareContext](conn), isA[driver.ConnBeginTx](conn)} {
		if !ok {
			conn.Close()
			return nil, errors.New("sqlite: the driver's connections lack PrepareContext or BeginTx")
		}
	}
	return &cachingConn{base: conn, stmts: map[string]*cachedStmt{}}, nil
}

// Driver returns the underlying driver.
func (c cachingConnector) Driver() driver.Driver { return c.base.Driver() }

func isA[T any](v any) bool { _, ok := v.(T); return ok }

// cachingConn is one connection with its statements. database/sql uses a
// connection from one goroutine at a time, so it needs no lock.
type cachingConn struct {
	base  driver.Conn
	stmts map[string]*cachedStmt
}

// cachedStmt is a prepared statement; busy while rows it returned are open,
// when the same query text gets a statement of its own instead.
type cachedStmt struct {
	stmt driver.Stmt
	busy bool
}

var (
	_ driver.QueryerContext     = (*cachingConn)(nil)
	_ driver.ExecerContext      = (*cachingConn)(nil)
	_ driver.ConnBeginTx        = (*cachingConn)(nil)
	_ driver.ConnPrepareContext = (*cachingConn)(nil)
)

func (c *cachingConn) Prepare(query string) (driver.Stmt, error) {
	return c.base.Prepare(query)
}

func (c *cachingConn) PrepareContext(ctx context.Context, query string) (driver.Stmt, error) {
	return c.base.(driver.ConnPrepareContext).PrepareContext(ctx, query)
}

func (c *cachingConn) Begin() (driver.Tx, error) {
	return c.BeginTx(context.Background(), driver.TxOptions{})
}

func (c *cachingConn) BeginTx(ctx context.Context, opts driver.TxOptions) (driver.Tx, error) {
	return c.base.(driver.ConnBeginTx).BeginTx(ctx, opts)
}

func (c *cachingConn) Ping(ctx context.Context) error {
	if p, ok := c.base.(driver.Pinger); ok {
		return p.Ping(ctx)
	}
	return nil
}

// Close closes every cached statement, then the connection.
func (c *cachingConn) Close() error {
	var errs []error
	for _, s := range c.stmts {
		errs = append(errs, s.stmt.Close())
	}
	c.stmts = nil
	return errors.Join(append(errs, c.base.Close())...)
}

// stmt returns the cached statement for query, preparing it the first time.
func (c *cachingConn) stmt(ctx context.Context, query string) (*cachedStmt, error) {
	if s, ok := c.stmts[query]; ok {
		return s, nil
	}
	st, err := c.PrepareContext(ctx, query)
	if err != nil {
		return nil, err
	}
	if len(c.stmts) >= maxCachedStmts {
		for q, s := range c.stmts {
			if !s.busy {
				s.stmt.Close()
				delete(c.stmts, q)
			}
		}
	}
	s := &cachedStmt{stmt: st}
	c.stmts[query] = s
	return s, nil
}

// take returns a statement to run query on, and what to call when done
// with it: the cached statement, busy until then, or, while that one is
// busy with rows still open, a fresh statement that done closes.
func (c *cachingConn) take(ctx context.Context, query string) (driver.Stmt, func(), error) {
	s, err := c.stmt(ctx, query)
	if err != nil {
		return nil, nil, err
	}
	if s.busy {
		st, err := c.PrepareContext(ctx, query)
		if err != nil {
			return nil, nil, err
		}
		return st, func() { st.Close() }, nil
	}
	s.busy = true
	return s.stmt, func() { s.busy = false }, nil
}

// ExecContext runs query on its cached statement.
func (c *cachingConn) ExecContext(ctx context.Context, query string, args []driver.NamedValue) (driver.Result, error) {
	st, done, err := c.take(ctx, query)
	if err != nil {
		return nil, err
	}
	defer done()
	return st.(driver.StmtExecContext).ExecContext(ctx, args)
}

// QueryContext runs query on its cached statement, which stays busy until
// the rows are closed.
func (c *cachingConn) QueryContext(ctx context.Context, query string, args []driver.NamedValue) (driver.Rows, error) {
	st, done, err := c.take(ctx, query)
	if err != nil {
		return nil, err
	}
	rows, err := st.(driver.StmtQueryContext).QueryContext(ctx, args)
	if err != nil {
		done()
		return nil, err
	}
	return &releasingRows{Rows: rows, release: done}, nil
}

// releasingRows frees its statement when closed.
type releasingRows struct {
	driver.Rows
	release func()
}

func (r *releasingRows) Close() error {
	err := r.Rows.Close()
	if r.release != nil {
		r.release()
		r.release = nil
	}
	return err
}
