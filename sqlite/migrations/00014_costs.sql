-- Costs: what a pack costs the business (per unit, in minor units; 0 when not
-- set), its low-stock level, its ordered supplier list (JSON; '' for the
-- single provider), and each order's cost, fixed when it is fulfilled.
-- A completed order, and only a completed order, has a cost, and it never
-- changes: orders from before costs were kept count as costing 0.

-- +goose Up
ALTER TABLE packs ADD COLUMN cost INTEGER NOT NULL DEFAULT 0 CHECK (cost >= 0);
ALTER TABLE packs ADD COLUMN low_stock_at INTEGER CHECK (low_stock_at >= 0);
ALTER TABLE packs ADD COLUMN suppliers TEXT NOT NULL DEFAULT '';
ALTER TABLE orders ADD COLUMN cost INTEGER CHECK (cost >= 0);
UPDATE orders SET cost = 0 WHERE status = 'completed';
ALTER TABLE sales_daily ADD COLUMN cost INTEGER NOT NULL DEFAULT 0;

-- +goose StatementBegin
CREATE TRIGGER orders_cost_on_insert BEFORE INSERT ON orders
WHEN (NEW.status = 'completed') <> (NEW.cost IS NOT NULL)
BEGIN
    SELECT RAISE(ABORT, 'orders: a completed order, and only a completed order, has a cost');
END;
-- +goose StatementEnd

-- +goose StatementBegin
CREATE TRIGGER orders_cost_once BEFORE UPDATE OF status, cost ON orders
WHEN (OLD.status = 'processing' AND (NEW.status = 'completed') <> (NEW.cost IS NOT NULL))
  OR (OLD.cost IS NOT NULL AND NEW.cost IS NOT OLD.cost)
BEGIN
    SELECT RAISE(ABORT, 'orders: a completed order, and only a completed order, has a cost, fixed once');
END;
-- +goose StatementEnd

-- +goose Down
DROP TRIGGER orders_cost_once;
DROP TRIGGER orders_cost_on_insert;
ALTER TABLE sales_daily DROP COLUMN cost;
ALTER TABLE orders DROP COLUMN cost;
ALTER TABLE packs DROP COLUMN suppliers;
ALTER TABLE packs DROP COLUMN low_stock_at;
ALTER TABLE packs DROP COLUMN cost;
