// Package dbcount counts what a piece of work costs its storage: the SQL
// statements, transactions and commits it makes through database/sql (a
// driver.Connector wrapper) and its Redis round trips (a go-redis hook).
// Tests use it to publish and pin the counts per order; topupd serve never
// does.
//
// Work is attributed by a tag in its context (WithTag): a statement to the
// tag of its context, a transaction to the tags of the statements run in
// it. On SQLite's group commit one database transaction holds several
// callers' transactions, each in a savepoint: each savepoint holding tagged
// statements counts as one transaction of its tag, and the shared commit
// as one commit of each tag in it. Work without a tag counts under "".
package dbcount

import (
	"context"
	"database/sql/driver"
	"fmt"
	"net"
	"strings"
	"sync"

	"github.com/redis/go-redis/v9"
)

// Counts are one tag's costs.
type Counts struct {
	// Statements are the SQL statements run, savepoints aside.
	Statements int
	// InTx are the statements among them run inside a transaction.
	InTx int
	// Transactions are the transactions begun, or savepoints of a shared
	// transaction, that ran a statement of the tag.
	Transactions int
	// Commits are the commits of transactions that ran a statement of the tag.
	Commits int
	// Redis are the Redis round trips (a pipeline is one).
	Redis int
	// Queries are the statements' texts, shortened, in the order they ran,
	// each after "#n " naming its connection, with the start of each
	// transaction (or savepoint) marked BEGIN and each commit COMMIT.
	Queries []string
}

// Add returns c plus d.
func (c Counts) Add(d Counts) Counts {
	return Counts{c.Statements + d.Statements, c.InTx + d.InTx, c.Transactions + d.Transactions, c.Commits + d.Commits, c.Redis + d.Redis,
		append(append([]string(nil), c.Queries...), d.Queries...)}
}

type tagKey struct{}

// WithTag returns ctx with the tag its work is counted under.
func WithTag(ctx context.Context, tag string) context.Context {
	return context.WithValue(ctx, tagKey{}, tag)
}

func tagOf(ctx context.Context) string {
	if ctx == nil {
		return ""
	}
	t, _ := ctx.Value(tagKey{}).(string)
	return t
}

// Counter counts by tag. Its zero value is not ready: use New.
type Counter struct {
	mu    sync.Mutex
	byTag map[string]*Counts
	conns int
}

// New returns an empty Counter.
func New() *Counter { return &Counter{byTag: map[string]*Counts{}} }

// Take returns the counts of tag and forgets them.
func (c *Counter) Take(tag string) Counts {
	c.mu.Lock()
	defer c.mu.Unlock()
	n := c.byTag[tag]
	delete(c.byTag, tag)
	if n == nil {
		return Counts{}
	}
	return *n
}

func (c *Counter) add(tag string, f func(*Counts)) {
	c.mu.Lock()
	defer c.mu.Unlock()
	n := c.byTag[tag]
	if n == nil {
		n = &Counts{}
		c.byTag[tag] = n
	}
	f(n)
}

// Connector wraps base so that the work of its connections is counted.
func (c *Counter) Connector(base driver.Connector) driver.Connector {
	return connector{base: base, c: c}
}

type connector struct {
	base driver.Connector
	c    *Counter
}

func (k connector) Connect(ctx context.Context) (driver.Conn, error) {
	conn, err := k.base.Connect(ctx)
	if err != nil {
		return nil, err
	}
	k.c.mu.Lock()
	k.c.conns++
	id := fmt.Sprintf("#%d ", k.c.conns)
	k.c.mu.Unlock()
	return &conn_{base: conn, c: k.c, id: id}, nil
}

func (k connector) Driver() driver.Driver { return k.base.Driver() }

// conn_ is one counted connection. database/sql uses a connection from one
// goroutine at a time.
type conn_ struct {
	base driver.Conn
	c    *Counter
	id   string // "#n ", starting each of its Queries
	inTx bool
	// txTags are the tags of the statements of the open transaction;
	// segTags those of its current savepoint (or of the whole
	// transaction when it has none).
	txTags, segTags map[string]bool
}

var (
	_ driver.QueryerContext     = (*conn_)(nil)
	_ driver.ExecerContext      = (*conn_)(nil)
	_ driver.ConnBeginTx        = (*conn_)(nil)
	_ driver.ConnPrepareContext = (*conn_)(nil)
	_ driver.NamedValueChecker  = (*conn_)(nil)
	_ driver.SessionResetter    = (*conn_)(nil)
	_ driver.Validator          = (*conn_)(nil)
	_ driver.Pinger             = (*conn_)(nil)
)

// statement counts one statement of ctx's tag.
func (k *conn_) statement(ctx context.Context, query string) {
	q := strings.ToUpper(strings.TrimSpace(query))
	if strings.HasPrefix(q, "SAVEPOINT") {
		k.segTags = map[string]bool{}
		return
	}
	if strings.HasPrefix(q, "RELEASE") || strings.HasPrefix(q, "ROLLBACK TO") {
		return
	}
	tag := tagOf(ctx)
	k.c.add(tag, func(n *Counts) {
		n.Statements++
		if k.inTx {
			n.InTx++
		}
		if k.inTx && !k.segTags[tag] {
			n.Transactions++
			n.Queries = append(n.Queries, k.id+"BEGIN")
		}
		n.Queries = append(n.Queries, k.id+short(query))
	})
	if k.inTx {
		k.segTags[tag] = true
		k.txTags[tag] = true
	}
}

// end closes the open transaction, counting a commit of each of its tags.
func (k *conn_) end(commit bool) {
	for tag := range k.txTags {
		if commit {
			k.c.add(tag, func(n *Counts) { n.Commits++; n.Queries = append(n.Queries, k.id+"COMMIT") })
		} else {
			k.c.add(tag, func(n *Counts) { n.Queries = append(n.Queries, k.id+"ROLLBACK") })
		}
	}
	k.inTx, k.txTags, k.segTags = false, nil, nil
}

func (k *conn_) Prepare(query string) (driver.Stmt, error) {
	return k.PrepareContext(context.Background(), query)
}

func (k *conn_) PrepareContext(ctx context.Context, query string) (driver.Stmt, error) {
	var s driver.Stmt
	var err error
	if p, ok := k.base.(driver.ConnPrepareContext); ok {
		s, err = p.PrepareContext(ctx, query)
	} else {
		s, err = k.base.Prepare(query)
	}
	if err != nil {
		return nil, err
	}
	return &stmt{base: s, conn: k, query: query}, nil
}

func (k *conn_) Close() error { return k.base.Close() }

func (k *conn_) Begin() (driver.Tx, error) {
	return k.BeginTx(context.Background(), driver.TxOptions{})
}

func (k *conn_) BeginTx(ctx context.Context, opts driver.TxOptions) (driver.Tx, error) {
	var t driver.Tx
	var err error
	if b, ok := k.base.(driver.ConnBeginTx); ok {
		t, err = b.BeginTx(ctx, opts)
	} else {
		//lint:ignore SA1019 the driver has nothing newer
		t, err = k.base.Begin()
	}
	if err != nil {
		return nil, err
	}
	k.inTx, k.txTags, k.segTags = true, map[string]bool{}, map[string]bool{}
	return tx{base: t, conn: k}, nil
}

func (k *conn_) ExecContext(ctx context.Context, query string, args []driver.NamedValue) (driver.Result, error) {
	e, ok := k.base.(driver.ExecerContext)
	if !ok {
		return nil, driver.ErrSkip
	}
	r, err := e.ExecContext(ctx, query, args)
	if err != driver.ErrSkip {
		k.statement(ctx, query)
	}
	return r, err
}

func (k *conn_) QueryContext(ctx context.Context, query string, args []driver.NamedValue) (driver.Rows, error) {
	q, ok := k.base.(driver.QueryerContext)
	if !ok {
		return nil, driver.ErrSkip
	}
	r, err := q.QueryContext(ctx, query, args)
	if err != driver.ErrSkip {
		k.statement(ctx, query)
	}
	return r, err
}

func (k *conn_) CheckNamedValue(v *driver.NamedValue) error {
	if c, ok := k.base.(driver.NamedValueChecker); ok {
		return c.CheckNamedValue(v)
	}
	return driver.ErrSkip
}

func (k *conn_) ResetSession(ctx context.Context) error {
	if r, ok := k.base.(driver.SessionResetter); ok {
		return r.ResetSession(ctx)
	}
	return nil
}

func (k *conn_) IsValid() bool {
	if v, ok := k.base.(driver.Validator); ok {
		return v.IsValid()
	}
	return true
}

func (k *conn_) Ping(ctx context.Context) error {
	if p, ok := k.base.(driver.Pinger); ok {
		return p.Ping(ctx)
	}
	return nil
}

type tx struct {
	base driver.Tx
	conn *conn_
}

func (t tx) Commit() error {
	err := t.base.Commit()
	t.conn.end(err == nil)
	return err
}

func (t tx) Rollback() error {
	err := t.base.Rollback()
	t.conn.end(false)
	return err
}

// stmt is a prepared statement, counted at each run.
type stmt struct {
	base  driver.Stmt
	conn  *conn_
	query string
}

func (s *stmt) Close() error  { return s.base.Close() }
func (s *stmt) NumInput() int { return s.base.NumInput() }

func (s *stmt) Exec(args []driver.Value) (driver.Result, error) {
	s.conn.statement(context.Background(), s.query)
	//lint:ignore SA1019 database/sql calls this only when the driver has nothing newer
	return s.base.Exec(args)
}

func (s *stmt) Query(args []driver.Value) (driver.Rows, error) {
	s.conn.statement(context.Background(), s.query)
	//lint:ignore SA1019 as Exec
	return s.base.Query(args)
}

func (s *stmt) ExecContext(ctx context.Context, args []driver.NamedValue) (driver.Result, error) {
	s.conn.statement(ctx, s.query)
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
	s.conn.statement(ctx, s.query)
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

// RedisHook returns a go-redis hook that counts each command, and each
// pipeline, as one round trip of its context's tag.
func (c *Counter) RedisHook() redis.Hook { return redisHook{c} }

type redisHook struct{ c *Counter }

func (h redisHook) DialHook(next redis.DialHook) redis.DialHook {
	return func(ctx context.Context, network, addr string) (net.Conn, error) { return next(ctx, network, addr) }
}

func (h redisHook) ProcessHook(next redis.ProcessHook) redis.ProcessHook {
	return func(ctx context.Context, cmd redis.Cmder) error {
		h.c.add(tagOf(ctx), func(n *Counts) { n.Redis++; n.Queries = append(n.Queries, "redis "+cmd.Name()) })
		return next(ctx, cmd)
	}
}

func (h redisHook) ProcessPipelineHook(next redis.ProcessPipelineHook) redis.ProcessPipelineHook {
	return func(ctx context.Context, cmds []redis.Cmder) error {
		h.c.add(tagOf(ctx), func(n *Counts) { n.Redis++; n.Queries = append(n.Queries, "redis pipeline") })
		return next(ctx, cmds)
	}
}

// short is a statement's text on one line, at most 90 characters.
func short(q string) string {
	q = strings.Join(strings.Fields(q), " ")
	if len(q) > 90 {
		q = q[:90] + "…"
	}
	return q
}

// Tx is one transaction (or savepoint of a shared one) of a tag, read
// back from its Queries.
type Tx struct {
	// Statements are its statements' texts.
	Statements []string
	// Committed reports whether a commit followed it.
	Committed bool
}

// Transactions reads the transactions back from Queries: each runs from
// a BEGIN to the next BEGIN, COMMIT or ROLLBACK of its connection, and a
// COMMIT commits every one its connection began since the last.
func Transactions(queries []string) []Tx {
	var out []Tx
	open := map[string][]int{} // connection → its transactions since its last commit or rollback
	for _, q := range queries {
		conn, text, _ := strings.Cut(q, " ")
		txs := open[conn]
		switch text {
		case "BEGIN":
			out = append(out, Tx{})
			open[conn] = append(txs, len(out)-1)
		case "COMMIT", "ROLLBACK":
			for _, i := range txs {
				out[i].Committed = text == "COMMIT"
			}
			delete(open, conn)
		default:
			if len(txs) > 0 {
				i := txs[len(txs)-1]
				out[i].Statements = append(out[i].Statements, text)
			}
		}
	}
	return out
}
