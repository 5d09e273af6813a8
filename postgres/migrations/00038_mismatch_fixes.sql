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
--     orders_final_is_final, says both (on SQLite it lists the columns
--     it guards, every one but cost: a column added to orders must be
--     added to it there).
-- +goose Up
ALTER TABLE reconciliation_mismatches ADD COLUMN action TEXT CHECK (action IN ('accept', 'complete-order', 'refund-reseller', 'record-cost'));
ALTER TABLE reconciliation_mismatches ADD COLUMN note TEXT NOT NULL DEFAULT '';
ALTER TABLE reconciliation_mismatches ADD COLUMN resolved_by TEXT NOT NULL DEFAULT '';
ALTER TABLE reconciliation_mismatches ADD COLUMN resolved_at BIGINT
    CHECK ((state = 'resolved') = (action IS NOT NULL AND resolved_at IS NOT NULL AND resolved_by <> '' AND note <> ''));
ALTER TABLE reconciliation_mismatches ADD COLUMN entry_id BIGINT;
ALTER TABLE reconciliation_mismatches ADD COLUMN fix_cost BIGINT CHECK (fix_cost >= 0);
CREATE UNIQUE INDEX reconciliation_fix_entry ON reconciliation_mismatches (entry_id) WHERE entry_id IS NOT NULL;
CREATE UNIQUE INDEX reconciliation_one_refund ON reconciliation_mismatches (order_id) WHERE action = 'refund-reseller';
CREATE INDEX reconciliation_fixes ON reconciliation_mismatches (order_id) WHERE action IS NOT NULL;

-- +goose StatementBegin
CREATE FUNCTION orders_final_check() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    IF (to_jsonb(NEW) - 'cost') IS DISTINCT FROM (to_jsonb(OLD) - 'cost')
        OR (NEW.cost IS DISTINCT FROM OLD.cost AND (OLD.status <> 'completed' OR NOT EXISTS (SELECT 1 FROM reconciliation_mismatches m
            WHERE m.order_id = NEW.id AND m.state = 'resolved' AND m.fix_cost = NEW.cost))) THEN
        RAISE EXCEPTION 'orders: a final order cannot change';
    END IF;
    RETURN NEW;
END
$$;
-- +goose StatementEnd
DROP TRIGGER orders_final_is_final ON orders;
CREATE TRIGGER orders_final_is_final BEFORE UPDATE ON orders
    FOR EACH ROW WHEN (OLD.status <> 'processing')
    EXECUTE FUNCTION orders_final_check();

-- +goose StatementBegin
CREATE OR REPLACE FUNCTION ledger_check() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
    prev   BIGINT := 0;
    ord    orders%ROWTYPE;
    charge BIGINT;
BEGIN
    IF NEW.seq > 1 THEN
        SELECT balance_after INTO prev FROM ledger WHERE account_id = NEW.account_id AND seq = NEW.seq - 1;
        IF NOT FOUND THEN
            RAISE EXCEPTION 'ledger: entry does not continue the account chain';
        END IF;
    END IF;
    IF NEW.balance_after IS DISTINCT FROM prev + NEW.amount THEN
        RAISE EXCEPTION 'ledger: entry does not continue the account chain';
    END IF;
    IF NEW.order_seq IS NOT NULL THEN
        SELECT * INTO ord FROM orders WHERE seq = NEW.order_seq;
        IF NOT FOUND OR ord.account_id IS DISTINCT FROM NEW.account_id THEN
            RAISE EXCEPTION 'ledger: an order entry must belong to the order''s account';
        END IF;
        IF NEW.kind = 'charge' AND -NEW.amount IS DISTINCT FROM ord.amount THEN
            RAISE EXCEPTION 'ledger: a charge must be the order''s amount';
        END IF;
        IF NEW.kind = 'refund' THEN
            SELECT -amount INTO charge FROM ledger WHERE order_seq = NEW.order_seq AND kind = 'charge';
            IF NEW.amount IS DISTINCT FROM charge OR NOT ((ord.status = 'cancelled' AND ord.refunded = 1)
                OR (ord.status = 'completed' AND EXISTS (SELECT 1 FROM reconciliation_mismatches m WHERE m.order_id = ord.id
                    AND m.state = 'open' AND (m.kind = 'missing_upstream' OR (m.kind = 'status_mismatch' AND m.their_status = 'cancelled'))))) THEN
                RAISE EXCEPTION 'ledger: a refund must return the charge of a cancelled order flagged refunded, or of a completed order its supplier did not deliver';
            END IF;
        END IF;
    END IF;
    RETURN NEW;
END
$$;
-- +goose StatementEnd

-- +goose Down
-- +goose StatementBegin
CREATE OR REPLACE FUNCTION ledger_check() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
    prev   BIGINT := 0;
    ord    orders%ROWTYPE;
    charge BIGINT;
BEGIN
    IF NEW.seq > 1 THEN
        SELECT balance_after INTO prev FROM ledger WHERE account_id = NEW.account_id AND seq = NEW.seq - 1;
        IF NOT FOUND THEN
            RAISE EXCEPTION 'ledger: entry does not continue the account chain';
        END IF;
    END IF;
    IF NEW.balance_after IS DISTINCT FROM prev + NEW.amount THEN
        RAISE EXCEPTION 'ledger: entry does not continue the account chain';
    END IF;
    IF NEW.order_seq IS NOT NULL THEN
        SELECT * INTO ord FROM orders WHERE seq = NEW.order_seq;
        IF NOT FOUND OR ord.account_id IS DISTINCT FROM NEW.account_id THEN
            RAISE EXCEPTION 'ledger: an order entry must belong to the order''s account';
        END IF;
        IF NEW.kind = 'charge' AND -NEW.amount IS DISTINCT FROM ord.amount THEN
            RAISE EXCEPTION 'ledger: a charge must be the order''s amount';
        END IF;
        IF NEW.kind = 'refund' THEN
            SELECT -amount INTO charge FROM ledger WHERE order_seq = NEW.order_seq AND kind = 'charge';
            IF NEW.amount IS DISTINCT FROM charge OR ord.status <> 'cancelled' OR ord.refunded <> 1 THEN
                RAISE EXCEPTION 'ledger: a refund must return the charge of a cancelled order flagged refunded';
            END IF;
        END IF;
    END IF;
    RETURN NEW;
END
$$;
-- +goose StatementEnd
DROP TRIGGER orders_final_is_final ON orders;
CREATE TRIGGER orders_final_is_final BEFORE UPDATE ON orders
    FOR EACH ROW WHEN (OLD.status <> 'processing')
    EXECUTE FUNCTION topupd_refuse('orders: a final order cannot change');
DROP FUNCTION orders_final_check();
DROP INDEX reconciliation_fixes;
DROP INDEX reconciliation_one_refund;
DROP INDEX reconciliation_fix_entry;
ALTER TABLE reconciliation_mismatches DROP COLUMN fix_cost;
ALTER TABLE reconciliation_mismatches DROP COLUMN entry_id;
ALTER TABLE reconciliation_mismatches DROP COLUMN resolved_at;
ALTER TABLE reconciliation_mismatches DROP COLUMN resolved_by;
ALTER TABLE reconciliation_mismatches DROP COLUMN note;
ALTER TABLE reconciliation_mismatches DROP COLUMN action;
