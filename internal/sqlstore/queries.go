package sqlstore

import (
	"cmp"
	"fmt"
	"strings"
	"time"

	"github.com/topupd/topupd"
)

// accountColumns are the columns scanAccount reads, in order.
var accountColumns = `id, name, api_enabled, admin_disabled, banned, restricted_until, ip_allowlist, ip_allowlist_required, created_at,
	tier, ` + limitColumns("")

// The columns each other scan function reads, in order.
const (
	lineColumns  = `slug, product_name, game_name, game, kind, status, required, server_id_options, region_options`
	packColumns  = `pid, slug, name, category, price, status, stock_based, provider, upstream, upstream_pid, cost, low_stock_at, suppliers, price_pinned`
	orderColumns = `seq, id, account_id, trxid, idem_key, fingerprint, pid, slug, game, kind, pack_name, provider,
	quantity, amount, user_id, zone_id, server_id, region, more_id, status, error, refunded,
	created_at, finished_at, deadline_at, supplier, attempts, upstream, upstream_pid, supplier_ref, code_count, alert, cost, sandbox, via, hops`
	// viewColumns are the columns of topupd.Order.ResellerView: lookups and
	// history pages read only these, about half of orderColumns.
	viewColumns = `seq, id, account_id, trxid, pid, game, pack_name, quantity, amount,
	user_id, zone_id, server_id, region, more_id, status, error, refunded, created_at, finished_at, code_count, sandbox`
	// packAndLineSQL reads a pack and its line in one statement: both by
	// primary key, the line by the pack's slug.
	packAndLineSQL = `SELECT p.pid, p.slug, p.name, p.category, p.price, p.status, p.stock_based, p.provider, p.upstream, p.upstream_pid,
	p.cost, p.low_stock_at, p.suppliers, p.price_pinned,
	l.slug, l.product_name, l.game_name, l.game, l.kind, l.status, l.required, l.server_id_options, l.region_options
	FROM packs p JOIN lines l ON l.slug = p.slug WHERE p.pid = $1`
	entryColumns    = `l.id, l.account_id, l.kind, l.amount, l.balance_after, COALESCE((SELECT o.id FROM orders o WHERE o.seq = l.order_seq), ''), COALESCE(l.reference, CASE WHEN l.kind = 'refund' THEN (SELECT r.id || '/' || CAST(m.id AS TEXT) FROM reconciliation_mismatches m JOIN reconciliations r ON r.seq = m.rec_seq WHERE m.entry_id = l.id) END, ''), l.created_at`
	settingsColumns = `maintenance, orders_disabled, eligibility_min_topup, sim_delay_ms, sim_call_ms, upstream_balance_poll_minutes, reconcile_at,
	deposit_bank, deposit_ticket_hours, deposit_second_approval_above, hold_above_percent,
	dispute_window_days, dispute_answer_hours`
)

// queries are the statements whose text depends on the dialect, and the hot
// queries, rendered once per store.
type queries struct {
	balance       string // an account's newest ledger entry: its balance
	creditedTotal string // the sum of an account's credits
	orderRepeat   string // the order a request repeats: the account's by idempotency key, or else the one by trxid
	historyTail   string // one page of an account's orders by their place in the account
	codesOfOrder  string // the codes delivered to an order
	codesOfOrders string // the codes delivered to codesPage orders, by order
	orderBySeq    string
	orderByID     string
	viewBySeq     string
	viewByID      string
	viewByTrxID   string // an account's order of a trxid, as GET /history?trxid= lists it
	accountByKey  string
	drawCodes     string // gives the oldest available codes of a pack (not withdrawn) to an order, returning them
	claimDue      string // leases the earliest due processing orders whose lease ran out
	nextDue       string // when the earliest processing order no lease holds falls due
	lockAccount   string // takes an account's row lock
	orderLock     string // takes an account's row lock, reading its terms
	orderBalance  string // the terms version and an account's newest ledger entry, read under its lock
	lockOrder     string // reads an order and its lease owner, and takes its row lock
	lockStock     string // reads a pack's stock level and takes its row lock
	lockPack      string // takes a pack's row lock
	lockSettings  string // reads the settings and takes their row lock
	accountLocked string // reads an account and takes its row lock
	retryOrder    string // makes an order due now and extends its deadline, leaving a live lease (and an order waiting for funds waiting)
	orderEvents   string // an order's history, oldest first
	orderEntries  string // an order's charge and refund, oldest first
	stuckCounts   string // the stuck orders of each supplier, counted from orders_stuck
	streamRead    string // a batch of the event stream after a position
}

// indexedBy names the index a query must read, where the dialect takes
// such a hint.
func indexedBy(d Dialect, index string) string {
	if d.IndexedBy == "" {
		return ""
	}
	return d.IndexedBy + index
}

// render writes the queries for one dialect.
func render(d Dialect) queries {
	after := cmp.Or(d.StreamAfter, `(e.tx, e.seq) > ($1, $2)`)
	return queries{
		streamRead: `SELECT ` + eventColumns + ` FROM events e LEFT JOIN orders o ON o.seq = e.order_seq
			WHERE ` + after + d.StreamSettled + ` ORDER BY e.tx, e.seq LIMIT $3`,
		balance:       `SELECT balance_after, seq FROM ledger WHERE account_id = $1 ORDER BY seq DESC LIMIT 1`,
		creditedTotal: `SELECT CAST(COALESCE(SUM(amount), 0) AS BIGINT) FROM ledger WHERE account_id = $1 AND kind IN ('credit', 'deposit')`,
		// Each look-up is of a unique index: at most one order each.
		orderRepeat: `SELECT ` + orderColumns + ` FROM orders WHERE seq = COALESCE(
			(SELECT seq FROM orders WHERE account_id = $1 AND idem_key = $2),
			(SELECT seq FROM orders WHERE sandbox = $4 AND trxid = $3))`,
		historyTail:  `WHERE account_id = $1 AND account_seq <= $2 ORDER BY account_seq DESC LIMIT $3`,
		codesOfOrder: `SELECT pid, sealed FROM codes WHERE order_seq = $1 ORDER BY id`,
		codesOfOrders: `SELECT order_seq, pid, sealed FROM codes WHERE order_seq IN (` + placeholders(1, codesPage) + `)
			ORDER BY order_seq, id`,
		orderBySeq:  `SELECT ` + orderColumns + ` FROM orders WHERE seq = $1`,
		orderByID:   `SELECT ` + orderColumns + ` FROM orders WHERE id = $1`,
		viewBySeq:   `SELECT ` + viewColumns + ` FROM orders WHERE seq = $1`,
		viewByID:    `SELECT ` + viewColumns + ` FROM orders WHERE id = $1`,
		viewByTrxID: `SELECT ` + viewColumns + ` FROM orders WHERE trxid = $1 AND account_id = $2`,
		accountByKey: `SELECT a.id, a.name, a.api_enabled, a.admin_disabled, a.banned, a.restricted_until, a.ip_allowlist,
			a.ip_allowlist_required, a.created_at, a.tier, ` + limitColumns("a.") + `, k.sandbox FROM api_keys k JOIN accounts a ON a.id = k.account_id
			WHERE k.hash = $1 AND (k.revoked_at IS NULL OR k.revoked_at > $2)`,
		drawCodes: `UPDATE codes SET order_seq = $1
			WHERE id IN (SELECT id FROM codes WHERE pid = $2 AND order_seq IS NULL AND voided_at IS NULL ORDER BY id LIMIT $3` + d.LockRow + `)
			RETURNING id, sealed, (SELECT low_stock_at FROM packs WHERE pid = $2)`,
		claimDue: `UPDATE orders SET lease_owner = $1, lease_until = $2
			WHERE seq IN (SELECT seq FROM orders
				WHERE status = 'processing' AND next_attempt_at <= $3 AND (lease_until IS NULL OR lease_until <= $3)
				ORDER BY next_attempt_at, seq LIMIT $4` + d.SkipLocked + `)
			RETURNING ` + orderColumns,
		nextDue: `SELECT next_attempt_at FROM orders
			WHERE status = 'processing' AND next_attempt_at IS NOT NULL AND (lease_until IS NULL OR lease_until <= $1)
			ORDER BY next_attempt_at LIMIT 1`,
		lockAccount: `SELECT 1 FROM accounts WHERE id = $1` + d.LockRow,
		orderLock:   `SELECT a.tier, ` + limitColumns("a.") + ` FROM accounts a WHERE a.id = $1` + d.LockRow,
		orderBalance: `SELECT v.version, COALESCE(l.balance_after, 0), COALESCE(l.seq, 0) FROM terms_version v
			LEFT JOIN (SELECT balance_after, seq FROM ledger WHERE account_id = $1 ORDER BY seq DESC LIMIT 1) l ON TRUE`,
		lockOrder:     `SELECT ` + orderColumns + `, COALESCE(lease_owner, '') FROM orders WHERE seq = $1` + d.LockRow,
		lockStock:     `SELECT available FROM stock_levels WHERE pid = $1` + d.LockRow,
		lockPack:      `SELECT 1 FROM packs WHERE pid = $1` + d.LockRow,
		lockSettings:  `SELECT ` + settingsColumns + ` FROM settings WHERE id = 1` + d.LockRow,
		accountLocked: `SELECT ` + accountColumns + ` FROM accounts WHERE id = $1 AND sandbox_of IS NULL` + d.LockRow,
		// A lease still running is the node's that works on the order now:
		// it keeps it (another node claims the order once it lets go or
		// its lease runs out); one run out is cleared.
		retryOrder: `UPDATE orders SET next_attempt_at = $2, alert = CASE WHEN alert = '` + topupd.AlertWaitingFunds + `' THEN alert ELSE '' END,
			lease_owner = CASE WHEN lease_until > $2 THEN lease_owner END, lease_until = CASE WHEN lease_until > $2 THEN lease_until END,
			deadline_at = ` + d.Greatest + `(deadline_at, $3) WHERE seq = $1`,
		orderEvents: `SELECT at, kind, note FROM order_events WHERE order_seq = $1 ORDER BY at, id`,
		stuckCounts: `SELECT provider, upstream, COUNT(*) FROM orders` + indexedBy(d, "orders_stuck") + ` WHERE ` +
			strings.Replace(stuckWhere, "?", "$1", 1) + ` GROUP BY provider, upstream ORDER BY provider, upstream`,
		orderEntries: `SELECT ` + entryColumns + ` FROM ledger l WHERE order_seq = $1 AND kind = 'charge'
			UNION ALL SELECT ` + entryColumns + ` FROM ledger l WHERE order_seq = $1 AND kind = 'refund'`,
	}
}

// HotQuery is one query the store runs often, with example arguments, so
// that each database's tests can check that an index serves it.
type HotQuery struct {
	Name string
	SQL  string
	Args []any
	// Cursor, on a page of a list, is the column its cursor bounds: the
	// index must seek to the cursor on it, not filter the rows before it.
	Cursor string
	// After, on a read of a stream, is the column its position bounds
	// from below: the index must seek to the position on it.
	After string
}

// HotQueries returns the hot queries as the store runs them on d, with
// example arguments.
func HotQueries(d Dialect) []HotQuery {
	q := render(d)
	hot := []HotQuery{
		{Name: "balance", SQL: q.balance, Args: []any{"a"}},
		{Name: "event stream, after a position", SQL: q.streamRead, Args: []any{0, 5, 200}, After: "seq"},
		{Name: "an account's credit events (the audit)", SQL: creditEventsSQL, Args: []any{"a"}},
		{Name: "credited total", SQL: q.creditedTotal, Args: []any{"a"}},
		{Name: "order a request repeats", SQL: q.orderRepeat, Args: []any{"a", "k", "t", 0}},
		{Name: "history page", SQL: `SELECT ` + viewColumns + ` FROM orders ` + q.historyTail, Args: []any{"a", 100, 20}},
		{Name: "codes of order", SQL: q.codesOfOrder, Args: []any{1}},
		{Name: "codes of a page of orders", SQL: q.codesOfOrders, Args: pageSeqs()},
		{Name: "draw codes", SQL: q.drawCodes, Args: []any{1, "p", 3}},
		{Name: "cost of a draw", SQL: stockCostSQL, Args: []any{"p", 3, 0}},
		{Name: "claim due", SQL: q.claimDue, Args: []any{"o", 1, 1, 10}},
		{Name: "next due", SQL: q.nextDue, Args: []any{0}},
		{Name: "order by id", SQL: q.orderByID, Args: []any{"ord_x"}},
		{Name: "order by seq", SQL: q.orderBySeq, Args: []any{1}},
		{Name: "reseller order by id", SQL: q.viewByID, Args: []any{"ord_x"}},
		{Name: "reseller order by seq", SQL: q.viewBySeq, Args: []any{1}},
		{Name: "history by trxid", SQL: q.viewByTrxID, Args: []any{"t", "a"}},
		{Name: "account by key", SQL: q.accountByKey, Args: []any{[]byte("h"), 1}},
		{Name: "lock account", SQL: q.lockAccount, Args: []any{"a"}},
		{Name: "pack and its line", SQL: packAndLineSQL, Args: []any{"p"}},
		{Name: "stock level", SQL: q.lockStock, Args: []any{"p"}},
		{Name: "order events", SQL: q.orderEvents, Args: []any{1}},
		{Name: "ledger of order", SQL: q.orderEntries, Args: []any{1}},
		{Name: "older ledger entries", SQL: ledgerBeforeSQL, Args: []any{"a", 100, 51}}, // seeks seq < its cursor entry's
		{Name: "stuck counts", SQL: q.stuckCounts, Args: []any{1}},
		{Name: "claim webhook deliveries", SQL: claimDeliveriesSQL(d), Args: []any{"o", 2, 1, 10}},
	}
	return append(hot, listQueries(d)...)
}

// listQueries are the pages of the admin lists deep inside them (after a
// cursor), under each filter alone and within a period. (A trxid is unique:
// its page is at most one order, by its own index.)
func listQueries(d Dialect) []HotQuery {
	var out []HotQuery
	key := &topupd.ListKey{At: time.UnixMilli(2_000_000_000_000), Seq: 12_345}
	from, to := time.UnixMilli(1_000_000_000_000), time.UnixMilli(3_000_000_000_000)
	for name, q := range map[string]topupd.OrdersQuery{
		"every order": {}, "by status": {Status: topupd.StatusCompleted}, "by account": {AccountID: "a"},
		"by pack": {PID: "p"}, "by line": {Slug: "s"}, "by provider": {Provider: "sim"},
		"in a period": {From: from, To: to}, "by pack in a period": {PID: "p", From: from, To: to},
		"by account in a period": {AccountID: "a", From: from, To: to}, "stuck": {Stuck: true, Now: to},
		"by player": {PlayerID: "5123"},
	} {
		q.Before, q.Limit = key, 51
		sql, args := ordersPage(q, d, nil)
		out = append(out, HotQuery{Name: "order list " + name + ", after a cursor", SQL: sql, Args: args, Cursor: "created_at"})
	}
	sql, args := ordersPage(topupd.OrdersQuery{TrxIDPrefix: "Ab", Limit: 51}, d, nil)
	out = append(out, HotQuery{Name: "order list by trxid prefix", SQL: sql, Args: args})
	for name, q := range map[string]topupd.ActionsQuery{
		"every action": {}, "by operator": {Operator: "o"}, "by account": {AccountID: "a"}, "by action": {Action: "x"},
		"in a period": {From: from, To: to}, "by operator in a period": {Operator: "o", From: from, To: to},
	} {
		q.Before, q.Limit = key, 51
		sql, args := actionsPage(q)
		out = append(out, HotQuery{Name: "action log " + name + ", after a cursor", SQL: sql, Args: args, Cursor: "at"})
	}
	sql, args = accountsPage(topupd.AccountsQuery{After: &topupd.Account{ID: "a", CreatedAt: from}, Limit: 51})
	return append(out, HotQuery{Name: "account list, after a cursor", SQL: sql, Args: args, Cursor: "created_at"})
}

// insertCodes is the statement that adds n codes of a pack ($1) to its
// stock at $2 in batch $3, each code's fingerprint, code_fp and sealed
// code three arguments from $4 on; a code that trips a unique index is
// left out.
func insertCodes(n int) string {
	var b strings.Builder
	b.WriteString("INSERT INTO codes (pid, fingerprint, code_fp, sealed, added_at, batch_id) VALUES ")
	for i := range n {
		if i > 0 {
			b.WriteString(", ")
		}
		fmt.Fprintf(&b, "($1, $%d, $%d, $%d, $2, $3)", 4+3*i, 5+3*i, 6+3*i)
	}
	b.WriteString(" ON CONFLICT DO NOTHING")
	return b.String()
}
