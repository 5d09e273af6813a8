-- The price an order charged is fixed at placement: its amount and
-- quantity never change, processing or final (the ledger's charge must
-- equal the amount; a final order's amount is orders_final_is_final's).

-- +goose Up
-- +goose StatementBegin
CREATE TRIGGER orders_price_fixed BEFORE UPDATE OF amount, quantity ON orders
WHEN (NEW.amount IS NOT OLD.amount AND OLD.status = 'processing') OR NEW.quantity IS NOT OLD.quantity
BEGIN
    SELECT RAISE(ABORT, 'orders: the price an order charged never changes');
END;
-- +goose StatementEnd

-- +goose Down
DROP TRIGGER orders_price_fixed;
