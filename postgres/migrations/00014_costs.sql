-- Costs: what a pack costs the business (per unit, in minor units; 0 when not
-- set), its low-stock level, its ordered supplier list (JSON; '' for the
-- single provider), and each order's cost, fixed when it is fulfilled.
-- A completed order, and only a completed order, has a cost; a final order
-- never changes (orders_final_is_final), so the cost is fixed once. Orders
-- from before costs were kept count as costing 0.

-- +goose Up
ALTER TABLE packs ADD COLUMN cost BIGINT NOT NULL DEFAULT 0 CHECK (cost >= 0);
ALTER TABLE packs ADD COLUMN low_stock_at INTEGER CHECK (low_stock_at >= 0);
ALTER TABLE packs ADD COLUMN suppliers TEXT NOT NULL DEFAULT '';
ALTER TABLE orders ADD COLUMN cost BIGINT CHECK (cost >= 0);
ALTER TABLE orders DISABLE TRIGGER orders_final_is_final;
UPDATE orders SET cost = 0 WHERE status = 'completed';
ALTER TABLE orders ENABLE TRIGGER orders_final_is_final;
ALTER TABLE orders ADD CONSTRAINT orders_cost_when_completed CHECK ((status = 'completed') = (cost IS NOT NULL));
ALTER TABLE sales_daily ADD COLUMN cost BIGINT NOT NULL DEFAULT 0;

-- +goose Down
ALTER TABLE sales_daily DROP COLUMN cost;
ALTER TABLE orders DROP CONSTRAINT orders_cost_when_completed;
ALTER TABLE orders DROP COLUMN cost;
ALTER TABLE packs DROP COLUMN suppliers;
ALTER TABLE packs DROP COLUMN low_stock_at;
ALTER TABLE packs DROP COLUMN cost;
