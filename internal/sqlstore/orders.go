package sqlstore

import (
	"context"
	"database/sql"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/topupd/topupd"
)

// scanOrder scans the orderColumns of an order.
func scanOrder(row scanner) (topupd.Order, error) {
	var o topupd.Order
	var kind, status, supplier string
	var created, deadline int64
	var finished, cost sql.NullInt64
	var via string
	err := row.Scan(&o.Seq, &o.ID, &o.AccountID, &o.TrxID, &o.IdempotencyKey, &o.Fingerprint, &o.PID, &o.Slug, &o.Game, &kind, &o.PackName, &o.Provider,
		&o.Quantity, &o.Amount, &o.Fields.UserID, &o.Fields.ZoneID, &o.Fields.ServerID, &o.Fields.Region, &o.Fields.MoreID, &status, &o.Error, &o.Refunded,
		&created, &finished, &deadline, &supplier, &o.Attempts, &o.Upstream, &o.UpstreamPID, &o.SupplierRef, &o.CodeCount, &o.Alert, &cost, &o.Sandbox,
		&via, &o.Route.Hops)
	if via != "" {
		o.Route.Via = strings.Split(via, ",")
	}
	if cost.Valid {
		c := topupd.Money(cost.Int64)
		o.Cost = &c
	}
	o.Kind, o.Status, o.Supplier = topupd.LineKind(kind), topupd.OrderStatus(status), topupd.SupplierState(supplier)
	o.CreatedAt, o.FinishedAt, o.DeadlineAt = fromMS(created), nullMS(finished), fromMS(deadline)
	return o, err
}

// scanOrderView scans the viewColumns of an order: topupd.Order.ResellerView.
func scanOrderView(row scanner) (topupd.Order, error) {
	var o topupd.Order
	var status string
	var created int64
	var finished sql.NullInt64
	err := row.Scan(&o.Seq, &o.ID, &o.AccountID, &o.TrxID, &o.PID, &o.Game, &o.PackName, &o.Quantity, &o.Amount,
		&o.Fields.UserID, &o.Fields.ZoneID, &o.Fields.ServerID, &o.Fields.Region, &o.Fields.MoreID, &status, &o.Error, &o.Refunded,
		&created, &finished, &o.CodeCount, &o.Sandbox)
	o.Status = topupd.OrderStatus(status)
	o.CreatedAt, o.FinishedAt = fromMS(created), nullMS(finished)
	return o, err
}

// loadCodes fills in the codes delivered to a completed order.
func (s *Store) loadCodes(ctx context.Context, q querier, o *topupd.Order) error {
	if !codesInTable(o) {
		addTestCodes(o)
		return nil
	}
	return eachRow(ctx, q, func(r scanner) error {
		var pid string
		var sealed []byte
		if err := r.Scan(&pid, &sealed); err != nil {
			return err
		}
		return s.openCode(o, pid, sealed)
	}, s.q.codesOfOrder, o.Seq)
}

// codesInTable reports whether the codes table holds codes of o: a live
// order completed with codes. Any other order spares the query (the audit
// checks the count).
func codesInTable(o *topupd.Order) bool {
	return !o.Sandbox && o.Status == topupd.StatusCompleted && o.CodeCount > 0
}

// addTestCodes gives a sandbox order completed with codes its TEST- codes:
// drawn from no stock, the codes table holds none of them.
func addTestCodes(o *topupd.Order) {
	if o.Sandbox && o.Status == topupd.StatusCompleted && o.CodeCount > 0 {
		o.Codes = append(o.Codes, topupd.TestCodes(o.ID, o.CodeCount)...)
	}
}

// openCode opens a code of o sealed under its pack and adds it to o's codes.
func (s *Store) openCode(o *topupd.Order, pid string, sealed []byte) error {
	code, err := s.vault.Open(pid, sealed)
	if err != nil {
		return fmt.Errorf("order %s: %w", o.ID, err)
	}
	o.Codes = append(o.Codes, code)
	return nil
}

// orderBy reads one order with one of the orderBy… queries, and its codes.
func (s *Store) orderBy(ctx context.Context, q querier, query string, arg any) (topupd.Order, error) {
	o, err := scanOrder(q.QueryRowContext(ctx, query, arg))
	if err != nil {
		return o, err
	}
	return o, s.loadCodes(ctx, q, &o)
}

// Order returns one order by public or internal id.
func (s *Store) Order(ctx context.Context, accountID, id string) (topupd.Order, error) {
	return s.lookup(ctx, accountID, id, s.q.orderByID, s.q.orderBySeq, scanOrder, true)
}

// OrderCodes reads one order and its codes in a transaction that records
// the read (the Change in ctx) in the action log.
func (s *Store) OrderCodes(ctx context.Context, ch *topupd.Change, id string) (topupd.Order, error) {
	ctx = withChange(ctx, ch)
	if changeOf(ctx) == nil {
		return topupd.Order{}, fmt.Errorf("store.OrderCodes %s: no action-log entry to record the read in", id)
	}
	var o topupd.Order
	err := s.inTx(ctx, func(ctx context.Context, tx *sql.Tx) error {
		query, arg := s.q.orderByID, any(id)
		if seq, err := strconv.ParseInt(id, 10, 64); err == nil {
			query, arg = s.q.orderBySeq, seq
		}
		var err error
		o, err = s.orderBy(ctx, tx, query, arg)
		if isNoRows(err) {
			return topupd.Fail(topupd.EOrderNotFound)
		} else if err != nil {
			return err
		}
		if ch := changeOf(ctx); ch != nil {
			ch.Target = o.ID
		}
		noteChange(ctx, o.AccountID, map[string]any{}, map[string]any{"codesViewed": len(o.Codes)})
		return nil
	})
	if err != nil {
		return topupd.Order{}, fmt.Errorf("store.OrderCodes %s: %w", id, err)
	}
	return o, nil
}

// ResellerOrder returns the reseller's view of one of the account's orders.
func (s *Store) ResellerOrder(ctx context.Context, accountID, id string) (topupd.Order, error) {
	return s.lookup(ctx, accountID, id, s.q.viewByID, s.q.viewBySeq, scanOrderView, true)
}

// ResellerOrderWithoutCodes returns the reseller's view of one of the
// account's orders without its codes, which it neither reads nor opens.
func (s *Store) ResellerOrderWithoutCodes(ctx context.Context, accountID, id string) (topupd.Order, error) {
	return s.lookup(ctx, accountID, id, s.q.viewByID, s.q.viewBySeq, scanOrderView, false)
}

// lookup reads one order, by public id with byID or by internal id with
// bySeq, scanned by scan, and, with codes, its codes.
func (s *Store) lookup(ctx context.Context, accountID, id, byID, bySeq string, scan func(scanner) (topupd.Order, error), codes bool) (topupd.Order, error) {
	query, arg := byID, any(id)
	if seq, err := strconv.ParseInt(id, 10, 64); err == nil {
		query, arg = bySeq, seq
	}
	o, err := scan(s.read.QueryRowContext(ctx, query, arg))
	if isNoRows(err) || (err == nil && accountID != "" && o.AccountID != accountID) {
		return topupd.Order{}, topupd.Fail(topupd.EOrderNotFound)
	}
	if err == nil && codes {
		err = s.loadCodes(ctx, s.read, &o)
	}
	if err != nil {
		return o, fmt.Errorf("store.Order %s: %w", id, err)
	}
	return o, nil
}

// History returns a page of the account's orders, newest first. Each order
// carries its place in the account (account_seq), so any page is one index
// range, whatever the page number or the account's size. With a trxid, the
// page holds the account's order of that trxid alone, if any (trxids are
// unique, so one index entry).
func (s *Store) History(ctx context.Context, accountID string, q topupd.HistoryQuery) ([]topupd.Order, int, error) {
	if q.TrxID != "" {
		orders, err := s.list(ctx, s.q.viewByTrxID, scanOrderView, q.TrxID, accountID)
		if err != nil {
			return nil, 0, fmt.Errorf("store.History %s %q: %w", accountID, q.TrxID, err)
		}
		total := len(orders)
		if q.Offset >= total || q.Limit < 1 {
			orders = orders[:0]
		}
		return orders, total, nil
	}
	var total int
	err := s.read.QueryRowContext(ctx, `SELECT order_count FROM accounts WHERE id = $1`, accountID).Scan(&total)
	if err != nil {
		return nil, 0, fmt.Errorf("store.History %s: %w", accountID, err)
	}
	orders, err := s.list(ctx, `SELECT `+viewColumns+` FROM orders `+s.q.historyTail, scanOrderView, accountID, total-q.Offset, q.Limit)
	if err != nil {
		return nil, 0, fmt.Errorf("store.History %s: %w", accountID, err)
	}
	return orders, total, nil
}

// Orders returns orders of every account, newest first: by created_at,
// then seq. Each filter's index ends in those two columns, so every page is
// one descending range of the index of its first filter, at any depth.
func (s *Store) Orders(ctx context.Context, q topupd.OrdersQuery) ([]topupd.Order, error) {
	var print []byte
	if q.Code != "" {
		print = s.vault.CodeFingerprint(q.Code)
	}
	query, args := ordersPage(q, s.d, print)
	orders, err := s.list(ctx, query, scanOrder, args...)
	if err != nil {
		return nil, fmt.Errorf("store.Orders: %w", err)
	}
	return orders, nil
}

// ordersPage renders the query of a page of the order list, and its
// arguments; codePrint, when set, is q.Code's fingerprint.
func ordersPage(q topupd.OrdersQuery, d Dialect, codePrint []byte) (string, []any) {
	var w conds
	if q.Sandbox { // the sandbox's orders alone, or the live ones alone
		w.add("sandbox = 1")
	} else {
		w.add("sandbox = 0")
	}
	if q.Status != "" {
		w.add("status = ?", string(q.Status))
	}
	for _, f := range []struct{ col, v string }{{"account_id", q.AccountID}, {"trxid", q.TrxID}, {"user_id", q.PlayerID}, {"pid", q.PID}, {"slug", q.Slug}, {"provider", q.Provider}} {
		if f.v != "" {
			w.add(f.col+" = ?", f.v)
		}
	}
	if codePrint != nil { // the one order that delivered the code, if any
		w.add("seq IN (SELECT order_seq FROM codes WHERE code_fp = ?)", codePrint)
	}
	if q.TrxIDPrefix != "" { // one range of orders_trxid_fold, in its order
		fold := "lower(trxid)" + d.Bytewise
		lo := strings.ToLower(q.TrxIDPrefix)
		w.add(fold+" >= ? AND "+fold+" < ?", lo, lo+"\U0010FFFF")
		w.span("created_at", q.From, q.To)
		if q.Stuck {
			w.add(stuckWhere, ms(q.Now))
		}
		return `SELECT ` + orderColumns + ` FROM orders ` + w.tail(fold+", seq", q.Limit), w.args
	}
	w.span("created_at", q.From, untilCursor(q.To, q.Before))
	if q.Stuck {
		w.add(stuckWhere, ms(q.Now))
	}
	if q.Before != nil {
		w.add("(created_at, seq) < (?, ?)", ms(q.Before.At), q.Before.Seq)
	}
	return `SELECT ` + orderColumns + ` FROM orders ` + w.tail("created_at DESC, seq DESC", q.Limit), w.args
}

// stuckWhere selects the stuck orders: processing with an alert, or past
// their deadline.
const stuckWhere = "status = 'processing' AND (alert <> '' OR deadline_at < ?)"

// StuckCounts counts the stuck orders of each provider and upstream, in
// the database rather than by reading them.
func (s *Store) StuckCounts(ctx context.Context, now time.Time) ([]topupd.StuckCount, error) {
	out, err := queryAll(ctx, s.read, func(r scanner) (topupd.StuckCount, error) {
		var c topupd.StuckCount
		err := r.Scan(&c.Provider, &c.Upstream, &c.Orders)
		return c, err
	}, s.q.stuckCounts, ms(now))
	if err != nil {
		return nil, fmt.Errorf("store.StuckCounts: %w", err)
	}
	return out, nil
}

// list reads the orders query selects, each scanned by scan, and their codes.
func (s *Store) list(ctx context.Context, query string, scan func(scanner) (topupd.Order, error), args ...any) ([]topupd.Order, error) {
	orders, err := queryAll(ctx, s.read, scan, query, args...)
	if err != nil {
		return nil, err
	}
	if err := s.loadPageCodes(ctx, s.read, orders); err != nil {
		return nil, err
	}
	return orders, nil
}

// codesPage is how many orders' codes one query of a list reads. Every
// query of a list's codes names this many orders (the last one repeated to
// fill it), so that it is one statement text, prepared once.
const codesPage = 50

// loadPageCodes fills in the codes of a list's completed orders, as
// loadCodes does for one, in one query per codesPage orders that hold
// codes rather than one per order.
func (s *Store) loadPageCodes(ctx context.Context, q querier, orders []topupd.Order) error {
	var held []*topupd.Order // the orders whose codes the codes table holds
	for i := range orders {
		if o := &orders[i]; codesInTable(o) {
			held = append(held, o)
		} else {
			addTestCodes(o)
		}
	}
	for len(held) > 0 {
		chunk := held[:min(codesPage, len(held))]
		held = held[len(chunk):]
		bySeq := make(map[int64]*topupd.Order, len(chunk))
		args := make([]any, codesPage)
		for i := range args {
			o := chunk[min(i, len(chunk)-1)]
			bySeq[o.Seq] = o
			args[i] = o.Seq
		}
		err := eachRow(ctx, q, func(r scanner) error {
			var seq int64
			var pid string
			var sealed []byte
			if err := r.Scan(&seq, &pid, &sealed); err != nil {
				return err
			}
			return s.openCode(bySeq[seq], pid, sealed)
		}, s.q.codesOfOrders, args...)
		if err != nil {
			return err
		}
	}
	return nil
}

// placeholders renders n numbered placeholders from $from, comma-separated.
func placeholders(from, n int) string {
	var b strings.Builder
	for i := range n {
		if i > 0 {
			b.WriteString(", ")
		}
		fmt.Fprintf(&b, "$%d", from+i)
	}
	return b.String()
}

// pageSeqs are example arguments of codesOfOrders.
func pageSeqs() []any {
	args := make([]any, codesPage)
	for i := range args {
		args[i] = int64(i + 1)
	}
	return args
}

// Gauges counts the orders processing and sums every live account's
// balance (each account's newest ledger entry, found by index).
func (s *Store) Gauges(ctx context.Context) (topupd.Gauges, error) {
	var g topupd.Gauges
	err := s.read.QueryRowContext(ctx, `SELECT COUNT(*) FROM orders WHERE status = 'processing'`).Scan(&g.Processing)
	if err == nil {
		err = s.read.QueryRowContext(ctx, `SELECT CAST(COALESCE(SUM((SELECT l.balance_after FROM ledger l WHERE l.account_id = a.id
			ORDER BY l.seq DESC LIMIT 1)), 0) AS BIGINT) FROM accounts a WHERE a.sandbox_of IS NULL`).Scan(&g.Balances)
	}
	if err != nil {
		return g, fmt.Errorf("store.Gauges: %w", err)
	}
	return g, nil
}
