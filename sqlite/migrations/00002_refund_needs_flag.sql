-- A refund entry must belong to an order flagged refunded: without this, a
-- cancelled order that was kept charged (refunded = 0, which a final order can
-- never change) could still get its money back in the ledger, and the order
-- and the ledger would disagree. The trigger is 00001's ledger_chain with that
-- one condition added.

-- +goose Up
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
    SELECT RAISE(ABORT, 'ledger: a refund must return the charge of a cancelled order')
    WHERE NEW.kind = 'refund'
      AND (NEW.amount IS NOT (SELECT -amount FROM ledger WHERE order_seq = NEW.order_seq AND kind = 'charge')
           OR (SELECT status FROM orders WHERE seq = NEW.order_seq) IS NOT 'cancelled');
END;
-- +goose StatementEnd
