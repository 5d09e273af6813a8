-- The price an order charged is fixed at placement: its amount and
-- quantity never change, processing or final (the ledger's charge must
-- equal the amount, and a final order already never changes).

-- +goose Up
CREATE TRIGGER orders_price_fixed BEFORE UPDATE OF amount, quantity ON orders
    FOR EACH ROW WHEN (NEW.amount IS DISTINCT FROM OLD.amount OR NEW.quantity IS DISTINCT FROM OLD.quantity)
    EXECUTE FUNCTION topupd_refuse('orders: the price an order charged never changes');

-- +goose Down
DROP TRIGGER orders_price_fixed ON orders;
