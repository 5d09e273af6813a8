package sqlstore

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/topupd/topupd"
)

// auditExamples is how many offending rows a check names.
const auditExamples = 5

// auditChecks are the invariants of the books, each a query returning the
// ids of the rows that break it. The schema already refuses most of these;
// the audit proves it on the data itself.
var auditChecks = []struct{ name, query string }{
	{"ledger-sums-to-balance", `SELECT l.account_id FROM ledger l GROUP BY l.account_id
		HAVING SUM(l.amount) <> (SELECT x.balance_after FROM ledger x WHERE x.account_id = l.account_id ORDER BY x.seq DESC LIMIT 1)
		    OR COUNT(*) <> MAX(l.seq)`},
	{"no-negative-balance", `SELECT account_id FROM ledger WHERE balance_after < 0`},
	{"one-charge-per-order", `SELECT o.id FROM orders o
		WHERE (SELECT COUNT(*) FROM ledger l WHERE l.order_seq = o.seq AND l.kind = 'charge') <> 1`},
	// A refund is a cancelled order's flagged refunded, or a completed
	// order's that a reconciliation's refund-reseller wrote (and names).
	{"refunded-exactly-once", `SELECT o.id FROM orders o
		WHERE (SELECT COUNT(*) FROM ledger l WHERE l.order_seq = o.seq AND l.kind = 'refund')
		   <> o.refunded + (SELECT COUNT(*) FROM reconciliation_mismatches m WHERE m.order_id = o.id AND m.action = 'refund-reseller')`},
	// Each fix of a reconciliation holds (reconcile_fix.go): a
	// refund-reseller names the refund of its completed order, and an
	// order whose cost a fix set costs what the newest such fix says.
	{"reconciliation-fixes-hold", `SELECT m.order_id FROM reconciliation_mismatches m WHERE m.action = 'refund-reseller'
		  AND NOT EXISTS (SELECT 1 FROM ledger l JOIN orders o ON o.seq = l.order_seq
		      WHERE l.id = m.entry_id AND l.kind = 'refund' AND o.id = m.order_id AND o.status = 'completed')
		UNION ALL SELECT o.id FROM orders o JOIN (SELECT DISTINCT order_id FROM reconciliation_mismatches WHERE fix_cost IS NOT NULL) f
		  ON f.order_id = o.id
		WHERE COALESCE(o.cost, -1) <> (SELECT m.fix_cost FROM reconciliation_mismatches m WHERE m.order_id = o.id AND m.fix_cost IS NOT NULL
		  ORDER BY m.resolved_at DESC, m.rec_seq DESC, m.id DESC LIMIT 1)`},
	// The price an order was placed at is what it charged.
	{"charge-is-order-price", `SELECT o.id FROM orders o JOIN ledger l ON l.order_seq = o.seq AND l.kind = 'charge' WHERE -l.amount <> o.amount`},
	// Only a completed order has a cost, one at most: none when it is not
	// known (no cost was set, or it completed before costs were kept).
	{"one-cost-per-completed-order", `SELECT id FROM orders WHERE (cost IS NOT NULL AND status <> 'completed') OR cost < 0`},
	// Orders placed since an account's limits were set keep to them
	// (limits.go).
	{"orders-within-spending-limits", limitsAuditSQL()},
	// A deposit ticket is credited once: a confirmed ticket names one
	// deposit entry of its account, of its credit, whose reference is its
	// id, and every deposit entry is a confirmed ticket's.
	{"deposits-credited-once", `SELECT d.id FROM deposits d WHERE d.status = 'confirmed' AND NOT EXISTS (SELECT 1 FROM ledger l
		  WHERE l.id = d.entry_id AND l.kind = 'deposit' AND l.account_id = d.account_id AND l.amount = d.credited AND l.reference = d.id)
		UNION ALL SELECT l.reference FROM ledger l WHERE l.kind = 'deposit'
		  AND NOT EXISTS (SELECT 1 FROM deposits d WHERE d.entry_id = l.id AND d.status = 'confirmed')`},
	{"refund-only-when-cancelled", `SELECT o.id FROM orders o WHERE o.refunded = 1 AND o.status <> 'cancelled'`},
	{"code-delivered-once", `SELECT MIN(c.pid) FROM codes c WHERE c.order_seq IS NOT NULL
		GROUP BY c.pid, c.fingerprint HAVING COUNT(*) > 1`},
	// Each code is held once across every pack, stock and delivered alike;
	// a code from before global fingerprints that duplicated another kept
	// none (see BackfillCodeFingerprints) and is named here.
	{"code-unique-globally", `SELECT MIN(c.pid) FROM codes c WHERE c.code_fp IS NOT NULL
		GROUP BY c.code_fp HAVING COUNT(*) > 1
		UNION ALL SELECT c.pid FROM codes c WHERE c.code_fp IS NULL`},
	{"key-orders-have-their-codes", `SELECT o.id FROM orders o
		WHERE o.status = 'completed' AND o.kind IN ('gamekey', 'giftcard') AND o.sandbox = 0
		  AND (SELECT COUNT(*) FROM codes c WHERE c.order_seq = o.seq) <> o.quantity`},
	{"code-count-matches-codes", `SELECT o.id FROM orders o
		WHERE o.sandbox = 0 AND o.code_count <> (SELECT COUNT(*) FROM codes c WHERE c.order_seq = o.seq)`},
	// The sandbox (sandbox.go) is apart from the live books: each order is
	// its account's kind (a sandbox's, or a live account's), a sandbox
	// order holds no code (its TEST- codes come from no stock) and a
	// completed key order of it has its quantity of them, and no sandbox
	// has a row of the sales roll-up. (Each sandbox's ledger is checked
	// like any account's by the checks above.)
	{"sandbox-apart", `SELECT o.id FROM orders o JOIN accounts a ON a.id = o.account_id
		WHERE o.sandbox <> CASE WHEN a.sandbox_of IS NULL THEN 0 ELSE 1 END
		UNION ALL SELECT o.id FROM orders o JOIN codes c ON c.order_seq = o.seq WHERE o.sandbox = 1
		UNION ALL SELECT o.id FROM orders o WHERE o.sandbox = 1 AND o.status = 'completed' AND o.kind IN ('gamekey', 'giftcard') AND o.code_count <> o.quantity
		UNION ALL SELECT d.account_id FROM sales_daily d JOIN accounts a ON a.id = d.account_id WHERE a.sandbox_of IS NOT NULL`},
	{"stock-levels-match-codes", `SELECT s.pid FROM stock_levels s
		WHERE s.available <> (SELECT COUNT(*) FROM codes c WHERE c.pid = s.pid AND c.order_seq IS NULL AND c.voided_at IS NULL)`},
	// Stock batches (batches.go): each batch's counts are its codes'; a
	// withdrawn code was never sold, and a voided batch sold nothing after
	// its void (what it had not sold then, it withdrew: sold + withdrawn
	// = added); a code is withdrawn only in a voided batch.
	{"batch-counts-match-codes", `SELECT CAST(b.id AS TEXT) FROM stock_batches b
		WHERE b.added <> (SELECT COUNT(*) FROM codes c WHERE c.batch_id = b.id)
		   OR b.sold <> (SELECT COUNT(*) FROM codes c WHERE c.batch_id = b.id AND c.order_seq IS NOT NULL)
		   OR b.withdrawn <> (SELECT COUNT(*) FROM codes c WHERE c.batch_id = b.id AND c.voided_at IS NOT NULL)
		   OR (b.voided_at IS NOT NULL AND b.sold + b.withdrawn <> b.added)
		   OR (b.voided_at IS NULL AND b.withdrawn <> 0)
		   OR EXISTS (SELECT 1 FROM codes c WHERE c.batch_id = b.id AND c.pid <> b.pid)`},
	{"voided-codes-never-sold", `SELECT CAST(c.id AS TEXT) FROM codes c WHERE c.voided_at IS NOT NULL AND c.order_seq IS NOT NULL
		UNION ALL SELECT CAST(c.id AS TEXT) FROM codes c WHERE c.voided_at IS NOT NULL
		  AND NOT EXISTS (SELECT 1 FROM stock_batches b WHERE b.id = c.batch_id AND b.voided_at IS NOT NULL)`},
	// A stock order whose codes all came from batches with a cost cost
	// their sum (a code of a batch without one costs the pack's cost at
	// the sale, which the books do not keep).
	{"stock-order-cost-matches-batches", `SELECT o.id FROM orders o
		WHERE o.status = 'completed' AND EXISTS (SELECT 1 FROM codes c WHERE c.order_seq = o.seq AND c.batch_id IS NOT NULL)
		  AND NOT EXISTS (SELECT 1 FROM codes c LEFT JOIN stock_batches b ON b.id = c.batch_id WHERE c.order_seq = o.seq AND b.cost IS NULL)
		  AND COALESCE(o.cost, -1) <> (SELECT SUM(b.cost) FROM codes c JOIN stock_batches b ON b.id = c.batch_id WHERE c.order_seq = o.seq)`},
	// A pack's low-stock alert is raised exactly while its lowStockAt is
	// set and its stock is at or below it.
	{"low-stock-alerts-match-levels", `SELECT p.pid FROM packs p
		WHERE (p.low_stock_at IS NOT NULL AND COALESCE((SELECT s.available FROM stock_levels s WHERE s.pid = p.pid), 0) <= p.low_stock_at)
		   <> EXISTS (SELECT 1 FROM stock_alerts a WHERE a.pid = p.pid)
		UNION ALL SELECT a.pid FROM stock_alerts a WHERE NOT EXISTS (SELECT 1 FROM packs p WHERE p.pid = a.pid)`},
	// An order is final once its deadline and FinalGrace have passed ($1
	// is topupd.FinalDue of the audit's time); before, processing is
	// every live order's normal state.
	{"orders-final", `SELECT id FROM orders WHERE status = 'processing' AND deadline_at < $1`},
	// The event stream (stream.go) tells of every change, once, and of
	// nothing that did not happen: each order has one placed event, one
	// completed event exactly when it is completed, one cancelled event
	// exactly when it is cancelled; each credit has one balance.credited
	// event (counted per account: credits and their events carry the
	// account, not each other).
	{"events-tell-every-order", `SELECT o.id FROM orders o
		WHERE (SELECT COUNT(*) FROM events e WHERE e.order_seq = o.seq AND e.type = 'order.placed') <> 1
		   OR (SELECT COUNT(*) FROM events e WHERE e.order_seq = o.seq AND e.type = 'order.completed') <> CASE WHEN o.status = 'completed' THEN 1 ELSE 0 END
		   OR (SELECT COUNT(*) FROM events e WHERE e.order_seq = o.seq AND e.type = 'order.cancelled') <> CASE WHEN o.status = 'cancelled' THEN 1 ELSE 0 END`},
	{"events-tell-every-credit", `SELECT a.id FROM accounts a
		WHERE (SELECT COUNT(*) FROM ledger l WHERE l.account_id = a.id AND l.kind IN ('credit', 'deposit'))
		   <> (` + creditEventsOf("a.id") + `)`},
	// The daily roll-ups that reports read hold exactly what the orders
	// they count say: each differing row is named by its day, account and
	// pack, from either side.
	{"sales-roll-ups-match-orders", `SELECT CAST(x.day AS TEXT) || ' ' || x.account_id || ' ' || x.pid FROM (
		SELECT ` + SalesDailyColumns + ` FROM sales_daily EXCEPT ` + SalesDailyFromOrders + `) x
		UNION ALL SELECT CAST(y.day AS TEXT) || ' ' || y.account_id || ' ' || y.pid FROM (` + SalesDailyFromOrders + `
		EXCEPT SELECT ` + SalesDailyColumns + ` FROM sales_daily) y`},
	// The roll-ups of time to a final state count each final live order once, in
	// the bucket its times say: each differing row is named by its day, line
	// and bucket, from either side.
	{"duration-roll-ups-match-orders", `SELECT CAST(x.day AS TEXT) || ' ' || x.slug || ' ' || CAST(x.bucket AS TEXT) FROM (
		SELECT day, slug, bucket, orders FROM durations_daily EXCEPT ` + DurationsDailyFromLiveOrders + `) x
		UNION ALL SELECT CAST(y.day AS TEXT) || ' ' || y.slug || ' ' || CAST(y.bucket AS TEXT) FROM (` + DurationsDailyFromLiveOrders + `
		EXCEPT SELECT day, slug, bucket, orders FROM durations_daily) y`},
	// An order with a supplier list (failover) was held by one supplier
	// only: one attempt that is trying, completed or cancelled as the
	// order is, the supplier the order row carries, with every attempt
	// before it left (skipped, refused, not-found) and every one after it
	// waiting; a completed order there costs that supplier's cost per unit
	// (unless a reconciliation's fix set its cost: see above).
	// An order that waited for supplier funds (its history has a waiting
	// step) may have gone back to a supplier it left for the money (so
	// left ones follow it), and while it waits, or if it ended waiting,
	// none holds it: every attempt was left, one at least for the money.
	{"supplier-attempts-consistent", `SELECT o.id FROM orders o JOIN order_attempts a ON a.order_seq = o.seq
		LEFT JOIN (SELECT DISTINCT order_seq FROM order_events WHERE kind = '` + topupd.EventWaiting + `') w ON w.order_seq = o.seq
		LEFT JOIN (SELECT DISTINCT order_id FROM reconciliation_mismatches WHERE fix_cost IS NOT NULL) f ON f.order_id = o.id
		GROUP BY o.seq, o.id, o.status, o.alert, w.order_seq, f.order_id
		HAVING (SUM(CASE WHEN a.outcome IN ('trying', 'completed', 'cancelled') THEN 1 ELSE 0 END) <> 1
		        AND NOT (SUM(CASE WHEN a.outcome IN ('trying', 'completed', 'cancelled', 'waiting') THEN 1 ELSE 0 END) = 0
		            AND w.order_seq IS NOT NULL AND SUM(` + fundsLeft + `) > 0
		            AND (o.status <> 'processing' OR o.alert = '` + topupd.AlertWaitingFunds + `')))
		    OR (SUM(CASE WHEN a.outcome IN ('trying', 'completed', 'cancelled') THEN 1 ELSE 0 END) = 1
		        AND SUM(CASE WHEN a.outcome = (CASE o.status WHEN 'processing' THEN 'trying' ELSE o.status END)
		        AND a.provider = o.provider AND a.upstream = o.upstream AND a.upstream_pid = o.upstream_pid
		        AND (a.outcome <> 'completed' OR a.cost IS NULL OR o.cost = a.cost * o.quantity OR f.order_id IS NOT NULL) THEN 1 ELSE 0 END) <> 1)
		    OR (MAX(CASE WHEN a.outcome IN ('skipped', 'refused', 'not-found') THEN a.attempt ELSE 0 END)
		        > MIN(CASE WHEN a.outcome IN ('trying', 'completed', 'cancelled') THEN a.attempt END) AND w.order_seq IS NULL)
		    OR MIN(CASE WHEN a.outcome = 'waiting' THEN a.attempt END)
		        < MIN(CASE WHEN a.outcome IN ('trying', 'completed', 'cancelled') THEN a.attempt END)`},
}

// SalesDailyColumns are the columns of sales_daily, in the order
// SalesDailyFromOrders computes them.
const SalesDailyColumns = `day, account_id, pid, slug, provider, orders, completed, cancelled, processing, charged, revenue, refunds, cost,
		revenue_without_cost`

// SalesDailyFromOrders computes the rows of sales_daily from the live
// orders (the sandbox's are never rolled up), in the order of
// SalesDailyColumns: a completed order refunded by a reconciliation's
// refund-reseller counts among the refunds, and one without a known cost
// in the revenue without cost.
const SalesDailyFromOrders = `SELECT o.created_at / 86400000 AS day, o.account_id, o.pid, o.slug, o.provider, COUNT(*) AS orders,
		SUM(CASE WHEN o.status = 'completed' THEN 1 ELSE 0 END) AS completed,
		SUM(CASE WHEN o.status = 'cancelled' THEN 1 ELSE 0 END) AS cancelled,
		SUM(CASE WHEN o.status = 'processing' THEN 1 ELSE 0 END) AS processing,
		SUM(o.amount) AS charged,
		SUM(CASE WHEN o.status = 'completed' THEN o.amount ELSE 0 END) AS revenue,
		SUM(CASE WHEN o.refunded = 1 OR m.order_id IS NOT NULL THEN o.amount ELSE 0 END) AS refunds,
		COALESCE(SUM(CASE WHEN o.status = 'completed' THEN o.cost ELSE 0 END), 0) AS cost,
		SUM(CASE WHEN o.status = 'completed' AND o.cost IS NULL THEN o.amount ELSE 0 END) AS revenue_without_cost
		FROM orders o LEFT JOIN reconciliation_mismatches m ON m.order_id = o.id AND m.action = 'refund-reseller'
		WHERE o.sandbox = 0 GROUP BY o.created_at / 86400000, o.account_id, o.pid, o.slug, o.provider`

// Audit checks every invariant of the books over the whole database, at
// now (for orders-final).
func (s *Store) Audit(ctx context.Context, now time.Time) (topupd.Audit, error) {
	var a topupd.Audit
	err := s.read.QueryRowContext(ctx, `SELECT (SELECT COUNT(*) FROM accounts), (SELECT COUNT(*) FROM orders), (SELECT COUNT(*) FROM ledger)`).
		Scan(&a.Accounts, &a.Orders, &a.LedgerEntries)
	if err != nil {
		return a, fmt.Errorf("store.Audit: %w", err)
	}
	due := ms(topupd.FinalDue(now))
	for _, c := range auditChecks {
		check := topupd.AuditCheck{Name: c.name, Examples: []string{}}
		var args []any
		if strings.Contains(c.query, "$1") {
			args = []any{due}
		}
		err := eachRow(ctx, s.read, func(r scanner) error {
			var id string
			if err := r.Scan(&id); err != nil {
				return err
			}
			check.Violations++
			if len(check.Examples) < auditExamples {
				check.Examples = append(check.Examples, id)
			}
			return nil
		}, c.query, args...)
		if err != nil {
			return a, fmt.Errorf("store.Audit %s: %w", c.name, err)
		}
		a.Checks = append(a.Checks, check)
	}
	return a, nil
}

// creditEventsOf counts the balance.credited events of the account that
// expr names, through the partial index events_credits (migration 00029).
func creditEventsOf(expr string) string {
	return `SELECT COUNT(*) FROM events e WHERE e.account_id = ` + expr + ` AND e.type = 'balance.credited'`
}

// creditEventsSQL is creditEventsOf an account given as $1 (a hot query).
var creditEventsSQL = creditEventsOf("$1")

// fundsLeft counts an attempt left for the money (topupd.FundsWhy).
const fundsLeft = `CASE WHEN a.outcome IN ('skipped', 'refused') AND a.why IN ('` + topupd.WhyBalance + `', '` + topupd.WhyInsufficient + `') THEN 1 ELSE 0 END`
