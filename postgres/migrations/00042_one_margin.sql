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
-- those final orders disables orders_final_is_final around the UPDATE, in
-- this migration's transaction; the roll-up is then refilled with the
-- query the audit recounts it with (sqlstore.SalesDailyFromOrders).
--
-- Only a completed order has a cost: orders_cost_when_completed says so.

-- +goose Up
ALTER TABLE orders DROP CONSTRAINT orders_cost_when_completed;
ALTER TABLE orders DISABLE TRIGGER orders_final_is_final;
UPDATE orders SET cost = NULL
WHERE status = 'completed' AND cost = 0
  AND NOT EXISTS (SELECT 1 FROM reconciliation_mismatches m WHERE m.order_id = orders.id AND m.fix_cost IS NOT NULL)
  AND NOT (EXISTS (SELECT 1 FROM codes c WHERE c.order_seq = orders.seq)
       AND NOT EXISTS (SELECT 1 FROM codes c LEFT JOIN stock_batches b ON b.id = c.batch_id WHERE c.order_seq = orders.seq AND b.cost IS NULL));
ALTER TABLE orders ENABLE TRIGGER orders_final_is_final;
ALTER TABLE orders ADD CONSTRAINT orders_cost_when_completed CHECK (cost IS NULL OR status = 'completed');

ALTER TABLE sales_daily ADD COLUMN revenue_without_cost BIGINT NOT NULL DEFAULT 0 CHECK (revenue_without_cost >= 0);
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
ALTER TABLE orders DROP CONSTRAINT orders_cost_when_completed;
ALTER TABLE orders DISABLE TRIGGER orders_final_is_final;
UPDATE orders SET cost = 0 WHERE status = 'completed' AND cost IS NULL;
ALTER TABLE orders ENABLE TRIGGER orders_final_is_final;
ALTER TABLE orders ADD CONSTRAINT orders_cost_when_completed CHECK ((status = 'completed') = (cost IS NOT NULL));
