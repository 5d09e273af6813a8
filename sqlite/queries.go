package sqlite

// The hot queries, named so that plan_test.go can check that each is served
// by an index whatever the size of the tables.
const (
	// qBalance reads an account's newest ledger entry: its balance.
	qBalance = `SELECT balance_after, seq FROM ledger WHERE account_id = $1 ORDER BY seq DESC LIMIT 1`
	// qCreditedTotal sums an account's credits, for the eligibility rule.
	qCreditedTotal = `SELECT COALESCE(SUM(amount), 0) FROM ledger WHERE account_id = $1 AND kind = 'credit'`
	// qIdemKeyUsed finds an account's order by idempotency key.
	qIdemKeyUsed = `SELECT 1 FROM orders WHERE account_id = $1 AND idem_key = $2`
	// qHistoryTail selects one page of an account's orders, newest first, by
	// its place in the account: one index range whatever the page.
	qHistoryTail = `WHERE account_id = $1 AND account_seq <= $2 ORDER BY account_seq DESC LIMIT $3`
	// qCodesOfOrder reads the codes delivered to an order.
	qCodesOfOrder = `SELECT pid, sealed FROM codes WHERE order_seq = $1 ORDER BY id`
	// qDrawCodes gives the oldest available codes of a pack to an order.
	qDrawCodes = `UPDATE codes SET order_seq = $1
		WHERE id IN (SELECT id FROM codes WHERE pid = $2 AND order_seq IS NULL ORDER BY id LIMIT $3)`
	// qClaimDue leases the earliest due processing orders whose lease (if any) ran out.
	qClaimDue = `UPDATE orders SET lease_owner = $1, lease_until = $2
		WHERE seq IN (SELECT seq FROM orders
			WHERE status = 'processing' AND next_attempt_at <= $3 AND (lease_until IS NULL OR lease_until <= $3)
			ORDER BY next_attempt_at LIMIT $4)
		RETURNING ` + orderColumns
	// qNextDue finds when the earliest processing order falls due.
	qNextDue = `SELECT next_attempt_at FROM orders
		WHERE status = 'processing' AND next_attempt_at IS NOT NULL ORDER BY next_attempt_at LIMIT 1`
)
