-- Fixing reconciliations' mismatches (back-office.md, section 2): each
-- mismatch is resolved once, by an action, with a note, an operator and a
-- time; refund-reseller names the ledger entry it wrote, record-cost and
-- complete-order the cost they fixed. A mismatch is resolved once: the
-- store resolves one only while it is open, under its row lock, and the
-- CHECKs hold a resolution whole (no trigger: the budget of issue 35).
--
-- Two rules of the books widen for the fixes, each only as far as a fix
-- needs:
--   - a refund returns the charge of a cancelled order flagged refunded,
--     or of a completed order an open mismatch says the supplier did not
--     deliver (missing_upstream, or status_mismatch with theirs
--     cancelled); ledger_one_refund still allows one an order, and
--     reconciliation_one_refund one refund-reseller an order;
--   - a final order still never changes, but for a completed order's
--     cost, to the cost a resolved mismatch of it fixed: one trigger,
--     orders_final_is_final, says both (orders_cost_once keeps its rule
--     for processing orders). It lists the columns it guards, every one
--     but cost: a column added to orders must be added to it.
-- +goose Up
ALTER TABLE reconciliation_mismatches ADD COLUMN action TEXT CHECK (action IN ('accept', 'complete-order', 'refund-reseller', 'record-cost'));
ALTER TABLE reconciliation_mismatches ADD COLUMN note TEXT NOT NULL DEFAULT '';
ALTER TABLE reconciliation_mismatches ADD COLUMN resolved_by TEXT NOT NULL DEFAULT '';
ALTER TABLE reconciliation_mismatches ADD COLUMN resolved_at INTEGER
    CHECK ((state = 'resolved') = (action IS NOT NULL AND resolved_at IS NOT NULL AND resolved_by <> '' AND note <> ''));
ALTER TABLE reconciliation_mismatches ADD COLUMN entry_id INTEGER;
ALTER TABLE reconciliation_mismatches ADD COLUMN fix_cost INTEGER CHECK (fix_cost >= 0);
CREATE UNIQUE INDEX reconciliation_fix_entry ON reconciliation_mismatches (entry_id) WHERE entry_id IS NOT NULL;
CREATE UNIQUE INDEX reconciliation_one_refund ON reconciliation_mismatches (order_id) WHERE action = 'refund-reseller';
CREATE INDEX reconciliation_fixes ON reconciliation_mismatches (order_id) WHERE action IS NOT NULL;

DROP TRIGGER orders_final_is_final;
-- +goose StatementBegin
CREATE TRIGGER orders_final_is_final BEFORE UPDATE ON orders
WHEN OLD.status <> 'processing'
BEGIN
    SELECT RAISE(ABORT, 'orders: a final order cannot change')
    WHERE NEW.seq IS NOT OLD.seq OR NEW.id IS NOT OLD.id OR NEW.account_id IS NOT OLD.account_id OR NEW.account_seq IS
       NOT OLD.account_seq OR NEW.trxid IS NOT OLD.trxid OR NEW.idem_key IS NOT OLD.idem_key OR NEW.fingerprint IS
       NOT OLD.fingerprint OR NEW.pid IS NOT OLD.pid OR NEW.slug IS NOT OLD.slug OR NEW.game IS NOT OLD.game OR
       NEW.kind IS NOT OLD.kind OR NEW.pack_name IS NOT OLD.pack_name OR NEW.provider IS NOT OLD.provider OR
       NEW.quantity IS NOT OLD.quantity OR NEW.amount IS NOT OLD.amount OR NEW.user_id IS NOT OLD.user_id OR
       NEW.zone_id IS NOT OLD.zone_id OR NEW.server_id IS NOT OLD.server_id OR NEW.region IS NOT OLD.region OR
       NEW.more_id IS NOT OLD.more_id OR NEW.status IS NOT OLD.status OR NEW.error IS NOT OLD.error OR NEW.refunded
       IS NOT OLD.refunded OR NEW.created_at IS NOT OLD.created_at OR NEW.finished_at IS NOT OLD.finished_at OR
       NEW.deadline_at IS NOT OLD.deadline_at OR NEW.supplier IS NOT OLD.supplier OR NEW.attempts IS NOT OLD.attempts
       OR NEW.next_attempt_at IS NOT OLD.next_attempt_at OR NEW.lease_owner IS NOT OLD.lease_owner OR NEW.lease_until
       IS NOT OLD.lease_until OR NEW.upstream IS NOT OLD.upstream OR NEW.upstream_pid IS NOT OLD.upstream_pid OR
       NEW.supplier_ref IS NOT OLD.supplier_ref OR NEW.code_count IS NOT OLD.code_count OR NEW.alert IS NOT OLD.alert
       OR NEW.sandbox IS NOT OLD.sandbox OR NEW.via IS NOT OLD.via OR NEW.hops IS NOT OLD.hops
       OR (NEW.cost IS NOT OLD.cost AND (OLD.status <> 'completed' OR NOT EXISTS (SELECT 1 FROM reconciliation_mismatches m
           WHERE m.order_id = NEW.id AND m.state = 'resolved' AND m.fix_cost = NEW.cost)));
END;
-- +goose StatementEnd
DROP TRIGGER orders_cost_once;
-- +goose StatementBegin
CREATE TRIGGER orders_cost_once BEFORE UPDATE OF status, cost ON orders
WHEN OLD.status = 'processing' AND (NEW.status = 'completed') <> (NEW.cost IS NOT NULL)
BEGIN
    SELECT RAISE(ABORT, 'orders: a completed order, and only a completed order, has a cost, fixed once');
END;
-- +goose StatementEnd

DROP TRIGGER ledger_chain;
-- +goose StatementBegin
CREATE TRIGGER ledger_chain BEFORE INSERT ON ledger
BEGIN
    SELECT RAISE(ABORT, 'ledger: entry does not continue the account chain')
    WHERE (NEW.seq > 1 AND NOT EXISTS (SELECT 1 FROM ledger WHERE account_id = NEW.account_id AND seq = NEW.seq - 1))
       OR NEW.balance_after IS NOT COALESCE((SELECT balance_after FROM ledger WHERE account_id = NEW.account_id AND seq = NEW.seq - 1), 0) + NEW.amount;
    SELECT RAISE(ABORT, 'ledger: an order entry must belong to the order''s account')
    WHERE NEW.order_seq IS NOT NULL
      AND NEW.account_id IS NOT (SELECT account_id FROM orders WHERE seq = NEW.order_seq);
    SELECT RAISE(ABORT, 'ledger: a charge must be the order''s amount')
    WHERE NEW.kind = 'charge' AND -NEW.amount IS NOT (SELECT amount FROM orders WHERE seq = NEW.order_seq);
    SELECT RAISE(ABORT, 'ledger: a refund must return the charge of a cancelled order flagged refunded, or of a completed order its supplier did not deliver')
    WHERE NEW.kind = 'refund'
      AND (NEW.amount IS NOT (SELECT -amount FROM ledger WHERE order_seq = NEW.order_seq AND kind = 'charge')
           OR NOT COALESCE((SELECT (o.status = 'cancelled' AND o.refunded = 1)
                  OR (o.status = 'completed' AND EXISTS (SELECT 1 FROM reconciliation_mismatches m WHERE m.order_id = o.id
                      AND m.state = 'open' AND (m.kind = 'missing_upstream' OR (m.kind = 'status_mismatch' AND m.their_status = 'cancelled'))))
                  FROM orders o WHERE o.seq = NEW.order_seq), 0));
END;
-- +goose StatementEnd

-- +goose Down
DROP TRIGGER ledger_chain;
-- +goose StatementBegin
CREATE TRIGGER ledger_chain BEFORE INSERT ON ledger
BEGIN
    SELECT RAISE(ABORT, 'ledger: entry does not continue the account chain')
    WHERE (NEW.seq > 1 AND NOT EXISTS (SELECT 1 FROM ledger WHERE account_id = NEW.account_id AND seq = NEW.seq - 1))
       OR NEW.balance_after IS NOT COALESCE((SELECT balance_after FROM ledger WHERE account_id = NEW.account_id AND seq = NEW.seq - 1), 0) + NEW.amount;
    SELECT RAISE(ABORT, 'ledger: an order entry must belong to the order''s account')
    WHERE NEW.order_seq IS NOT NULL
      AND NEW.account_id IS NOT (SELECT account_id FROM orders WHERE seq = NEW.order_seq);
    SELECT RAISE(ABORT, 'ledger: a charge must be the order''s amount')
    WHERE NEW.kind = 'charge' AND -NEW.amount IS NOT (SELECT amount FROM orders WHERE seq = NEW.order_seq);
    SELECT RAISE(ABORT, 'ledger: a refund must return the charge of a cancelled order flagged refunded')
    WHERE NEW.kind = 'refund'
      AND (NEW.amount IS NOT (SELECT -amount FROM ledger WHERE order_seq = NEW.order_seq AND kind = 'charge')
           OR (SELECT status || ':' || refunded FROM orders WHERE seq = NEW.order_seq) IS NOT 'cancelled:1');
END;
-- +goose StatementEnd
DROP TRIGGER orders_cost_once;
-- +goose StatementBegin
CREATE TRIGGER orders_cost_once BEFORE UPDATE OF status, cost ON orders
WHEN (OLD.status = 'processing' AND (NEW.status = 'completed') <> (NEW.cost IS NOT NULL))
  OR (OLD.cost IS NOT NULL AND NEW.cost IS NOT OLD.cost)
BEGIN
    SELECT RAISE(ABORT, 'orders: a completed order, and only a completed order, has a cost, fixed once');
END;
-- +goose StatementEnd
DROP TRIGGER orders_final_is_final;
-- +goose StatementBegin
CREATE TRIGGER orders_final_is_final BEFORE UPDATE ON orders
WHEN OLD.status <> 'processing'
BEGIN
    SELECT RAISE(ABORT, 'orders: a final order cannot change');
END;
-- +goose StatementEnd
DROP INDEX reconciliation_fixes;
DROP INDEX reconciliation_one_refund;
DROP INDEX reconciliation_fix_entry;
ALTER TABLE reconciliation_mismatches DROP COLUMN fix_cost;
ALTER TABLE reconciliation_mismatches DROP COLUMN entry_id;
ALTER TABLE reconciliation_mismatches DROP COLUMN resolved_at;
ALTER TABLE reconciliation_mismatches DROP COLUMN resolved_by;
ALTER TABLE reconciliation_mismatches DROP COLUMN note;
ALTER TABLE reconciliation_mismatches DROP COLUMN action;
