-- One margin (back-office.md, section 4 (f)): an order's cost is known
-- when it was fixed at completion from a cost that was set (its
-- supplier's or its pack's, or each code's batch's, else its pack's);
-- otherwise the completed order has no cost (NULL), never 0. A report
-- row's margin is the charges of its completed orders with a known cost
-- less that cost; sales_daily keeps, beside their cost, the charges of
-- those without one (revenue_without_cost).
--
-- A pack's and a supplier's cost of 0 always meant "none set" (a PATCH of
-- 0 clears it; the supplier's is stored only above 0), and orders that
-- completed before costs were kept were given 0 (00014). So a completed
-- order's cost of 0 was a cost that was set only where a stock batch set
-- it (every code it drew came from a batch with a cost, all 0) or a
-- reconciliation's fix recorded it; every other 0 becomes NULL. Rewriting
-- those final orders drops orders_final_is_final around the UPDATE and
-- creates it again as 00038 made it (00021 says so), in this migration's
-- transaction; the roll-up is then refilled with the query the audit
-- recounts it with (sqlstore.SalesDailyFromOrders).
--
-- Only a completed order has a cost: SQLite cannot add a CHECK to a table,
-- so its two triggers change their rule (the trigger count stays).

-- +goose Up
DROP TRIGGER orders_cost_on_insert;
-- +goose StatementBegin
CREATE TRIGGER orders_cost_on_insert BEFORE INSERT ON orders
WHEN NEW.cost IS NOT NULL AND NEW.status <> 'completed'
BEGIN
    SELECT RAISE(ABORT, 'orders: only a completed order has a cost');
END;
-- +goose StatementEnd
DROP TRIGGER orders_cost_once;
-- +goose StatementBegin
CREATE TRIGGER orders_cost_once BEFORE UPDATE OF status, cost ON orders
WHEN OLD.status = 'processing' AND NEW.cost IS NOT NULL AND NEW.status <> 'completed'
BEGIN
    SELECT RAISE(ABORT, 'orders: only a completed order has a cost, fixed as it completes');
END;
-- +goose StatementEnd

DROP TRIGGER orders_final_is_final;
UPDATE orders SET cost = NULL
WHERE status = 'completed' AND cost = 0
  AND NOT EXISTS (SELECT 1 FROM reconciliation_mismatches m WHERE m.order_id = orders.id AND m.fix_cost IS NOT NULL)
  AND NOT (EXISTS (SELECT 1 FROM codes c WHERE c.order_seq = orders.seq)
       AND NOT EXISTS (SELECT 1 FROM codes c LEFT JOIN stock_batches b ON b.id = c.batch_id WHERE c.order_seq = orders.seq AND b.cost IS NULL));
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

ALTER TABLE sales_daily ADD COLUMN revenue_without_cost INTEGER NOT NULL DEFAULT 0 CHECK (revenue_without_cost >= 0);
DELETE FROM sales_daily;
INSERT INTO sales_daily (day, account_id, pid, slug, provider, orders, completed, cancelled, processing, charged, revenue, refunds, cost,
    revenue_without_cost)
SELECT o.created_at / 86400000 AS day, o.account_id, o.pid, o.slug, o.provider, COUNT(*) AS orders,
    SUM(CASE WHEN o.status = 'completed' THEN 1 ELSE 0 END) AS completed,
    SUM(CASE WHEN o.status = 'cancelled' THEN 1 ELSE 0 END) AS cancelled,
    SUM(CASE WHEN o.status = 'processing' THEN 1 ELSE 0 END) AS processing,
    SUM(o.amount) AS charged,
    SUM(CASE WHEN o.status = 'completed' THEN o.amount ELSE 0 END) AS revenue,
    SUM(CASE WHEN o.refunded = 1 OR m.order_id IS NOT NULL THEN o.amount ELSE 0 END) AS refunds,
    COALESCE(SUM(CASE WHEN o.status = 'completed' THEN o.cost ELSE 0 END), 0) AS cost,
    SUM(CASE WHEN o.status = 'completed' AND o.cost IS NULL THEN o.amount ELSE 0 END) AS revenue_without_cost
    FROM orders o LEFT JOIN reconciliation_mismatches m ON m.order_id = o.id AND m.action = 'refund-reseller'
    WHERE o.sandbox = 0 GROUP BY o.created_at / 86400000, o.account_id, o.pid, o.slug, o.provider;

-- +goose Down
-- Unknown costs count as 0 again, as before.
ALTER TABLE sales_daily DROP COLUMN revenue_without_cost;
DROP TRIGGER orders_final_is_final;
UPDATE orders SET cost = 0 WHERE status = 'completed' AND cost IS NULL;
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
DROP TRIGGER orders_cost_on_insert;
-- +goose StatementBegin
CREATE TRIGGER orders_cost_on_insert BEFORE INSERT ON orders
WHEN (NEW.status = 'completed') <> (NEW.cost IS NOT NULL)
BEGIN
    SELECT RAISE(ABORT, 'orders: a completed order, and only a completed order, has a cost');
END;
-- +goose StatementEnd
