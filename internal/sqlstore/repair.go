package sqlstore

import (
	"bufio"
	"context"
	"database/sql"
	"fmt"
	"io/fs"
	"strings"
)

// repairEarlyBuilds brings a database made by a development build of the
// project's first days to what this binary's migrations of the same
// numbers make, so that the later ones apply. Those builds recorded a
// migration as applied whose text was later changed in place:
//
//   - 00001 before 5bd88b3 (2026-11-21) lacked orders.code_count, and
//     before 8b58071 orders.upstream, upstream_pid, supplier_ref and the
//     upstreams table; before 72a30b1 (SQLite) orders_due was on
//     next_attempt_at alone; before 243b807 (SQLite) orders.idem_key was
//     null without an idempotencyKey, and ledger_chain let a refund reach
//     an order not flagged refunded;
//   - 8aa50c5's 00002 was refund_needs_flag, later folded into 00001, so
//     00002_global_codes_alerts was never applied;
//   - 8e1d8a3's 00009 lacked durations_daily.
//
// Each repair takes the statements of this binary's own migration files,
// in one transaction; a database of any other build has nothing to repair,
// and the check costs a few catalog queries at start. It returns what it
// repaired.
func repairEarlyBuilds(ctx context.Context, db *sql.DB, dialect string, fsys fs.FS) ([]string, error) {
	tx, err := db.BeginTx(ctx, nil)
	if err != nil {
		return nil, err
	}
	defer tx.Rollback()
	r := &repair{ctx: ctx, tx: tx, dialect: dialect, fsys: fsys}
	if !r.hasTable("goose_db_version") || !r.hasTable("orders") || r.err != nil {
		return nil, r.err
	}
	if !r.hasColumn("orders", "code_count") {
		r.earlyInit()
	}
	if r.applied(9) && !r.hasTable("durations_daily") {
		r.note("00009 without durations_daily")
		r.exec(r.statement("00009_order_events_durations.sql", "CREATE TABLE durations_daily"))
		r.exec(`INSERT INTO durations_daily (day, slug, bucket, orders) ` + DurationsDailyFromOrders)
	}
	if r.err != nil {
		return nil, fmt.Errorf("repairing a database of an early build (%s): %w", strings.Join(r.done, "; "), r.err)
	}
	if len(r.done) == 0 {
		return nil, nil
	}
	return r.done, tx.Commit()
}

// earlyInit repairs a database whose 00001 lacked orders.code_count.
func (r *repair) earlyInit() {
	r.note("00001 without orders.code_count")
	if r.dialect == "postgres" { // the PostgreSQL store began with every other column
		r.exec(`ALTER TABLE orders ADD COLUMN code_count INTEGER NOT NULL DEFAULT 0 CHECK (code_count >= 0)`)
		r.exec(`ALTER TABLE orders DISABLE TRIGGER orders_final_is_final`)
		r.exec(`UPDATE orders SET code_count = c.n FROM (SELECT order_seq, count(*) AS n FROM codes WHERE order_seq IS NOT NULL GROUP BY order_seq) c
			WHERE c.order_seq = orders.seq`)
		r.exec(`ALTER TABLE orders ENABLE TRIGGER orders_final_is_final`)
		return
	}
	if !r.hasColumn("orders", "upstream") {
		r.note("00001 without upstreams")
		for _, col := range []string{"upstream", "upstream_pid", "supplier_ref"} {
			r.exec(`ALTER TABLE orders ADD COLUMN ` + col + ` TEXT NOT NULL DEFAULT ''`)
		}
		r.exec(r.statement("00001_init.sql", "CREATE TABLE upstreams"))
	}
	r.exec(`ALTER TABLE orders ADD COLUMN code_count INTEGER NOT NULL DEFAULT 0 CHECK (code_count >= 0)`)
	r.exec(`UPDATE orders SET code_count = (SELECT count(*) FROM codes WHERE codes.order_seq = orders.seq)
		WHERE seq IN (SELECT order_seq FROM codes WHERE order_seq IS NOT NULL)`)
	// An idempotency key is the idempotencyKey, or else the trxid; the
	// column stays nullable here, but the store always sets it.
	r.exec(`UPDATE orders SET idem_key = trxid WHERE idem_key IS NULL`)
	r.exec(`DROP INDEX IF EXISTS orders_idem_key`)
	r.exec(r.statement("00001_init.sql", "CREATE UNIQUE INDEX orders_idem_key"))
	r.exec(`DROP INDEX IF EXISTS orders_due`)
	r.exec(r.statement("00001_init.sql", "CREATE INDEX orders_due"))
	r.exec(`DROP TRIGGER IF EXISTS ledger_chain`)
	r.exec(r.statement("00001_init.sql", "CREATE TRIGGER ledger_chain"))
	if r.applied(2) && !r.hasColumn("codes", "code_fp") { // 8aa50c5's 00002, refund_needs_flag, is in 00001 now
		r.note("00002 was refund_needs_flag")
		r.exec(`DELETE FROM goose_db_version WHERE version_id = 2`)
	}
}

// repair is one repair's transaction; its first error stops the rest.
type repair struct {
	ctx     context.Context
	tx      *sql.Tx
	dialect string
	fsys    fs.FS
	err     error
	done    []string
}

func (r *repair) note(what string) { r.done = append(r.done, what) }

func (r *repair) exec(stmt string) {
	if r.err == nil {
		_, r.err = r.tx.ExecContext(r.ctx, stmt)
	}
}

// count runs a query of one number; 0 after an error.
func (r *repair) count(query string, args ...any) int {
	var n int
	if r.err == nil {
		r.err = r.tx.QueryRowContext(r.ctx, query, args...).Scan(&n)
	}
	return n
}

func (r *repair) hasTable(name string) bool {
	if r.dialect == "postgres" {
		return r.count(`SELECT count(*) FROM information_schema.tables WHERE table_schema = current_schema() AND table_name = $1`, name) > 0
	}
	return r.count(`SELECT count(*) FROM sqlite_master WHERE type = 'table' AND name = $1`, name) > 0
}

func (r *repair) hasColumn(table, column string) bool {
	if r.dialect == "postgres" {
		return r.count(`SELECT count(*) FROM information_schema.columns WHERE table_schema = current_schema() AND table_name = $1 AND column_name = $2`,
			table, column) > 0
	}
	return r.count(`SELECT count(*) FROM pragma_table_info($1) WHERE name = $2`, table, column) > 0
}

func (r *repair) applied(version int) bool {
	return r.count(`SELECT count(*) FROM goose_db_version WHERE version_id = $1`, version) > 0
}

// statement returns the statement of a migration file's Up section that
// starts with prefix.
func (r *repair) statement(file, prefix string) string {
	if r.err != nil {
		return ""
	}
	stmts, err := upStatements(r.fsys, file)
	if err != nil {
		r.err = err
		return ""
	}
	for _, s := range stmts {
		if strings.HasPrefix(s, prefix) {
			return s
		}
	}
	r.err = fmt.Errorf("%s has no statement %q", file, prefix)
	return ""
}

// upStatements splits the Up section of a goose SQL migration into its
// statements, as goose does: each ends with a semicolon at the end of a
// line, unless it is within StatementBegin and StatementEnd; comments
// between statements are dropped.
func upStatements(fsys fs.FS, file string) ([]string, error) {
	b, err := fs.ReadFile(fsys, file)
	if err != nil {
		return nil, err
	}
	var out []string
	var cur strings.Builder
	up, block := false, false
	sc := bufio.NewScanner(strings.NewReader(string(b)))
	for sc.Scan() {
		line := sc.Text()
		trimmed := strings.TrimSpace(line)
		switch {
		case strings.HasPrefix(trimmed, "-- +goose Up"):
			up = true
			continue
		case strings.HasPrefix(trimmed, "-- +goose Down"):
			return out, nil
		case strings.HasPrefix(trimmed, "-- +goose StatementBegin"):
			block = true
			continue
		case strings.HasPrefix(trimmed, "-- +goose StatementEnd"):
			block = false
			out = append(out, strings.TrimSpace(cur.String()))
			cur.Reset()
			continue
		case !up || (cur.Len() == 0 && (trimmed == "" || strings.HasPrefix(trimmed, "--"))):
			continue
		}
		cur.WriteString(line + "\n")
		if !block && strings.HasSuffix(trimmed, ";") {
			out = append(out, strings.TrimSpace(cur.String()))
			cur.Reset()
		}
	}
	return out, sc.Err()
}
