-- An upload of codes counted each code into its pack's stock level and its
-- batch with a row trigger: one UPDATE of the same two rows per code, in
-- one transaction. Each such UPDATE walks the row's chain of versions that
-- the transaction made before it, so an upload of n codes cost O(n²):
-- 2,000 codes took 0.4 s, 10,000 took 6.8 s, and all that time the upload
-- held the stock level's row lock, which every order of the pack takes
-- turns on. Key orders of the pack then held every pooled connection while
-- they waited, and every other order waited for a connection: a bench run
-- stood still for six seconds at each restock.
--
-- The two counts of an INSERT are now made once per statement, from its
-- transition table: one UPDATE of each row per statement of (at most
-- 1,000) codes. They run in the same order as before (codes_stock_in,
-- then codes_tally_in: PostgreSQL runs triggers of one kind by name), so
-- the stock level is still locked before the batch. Codes inserted with an
-- order (a supplier's delivery) are counted in neither, as before.
--
-- A void had the same shape: its one UPDATE of a batch's unsold codes took
-- one code at a time out of the stock level and into the batch's
-- withdrawn count (10,000 codes: 3.1 s). The withdrawals are now counted
-- once per statement too (codes_withdrawn, from the statement's old and
-- new rows), the stock level before the batch; codes_tally_out counts
-- sales alone, one code at a time as a draw takes it.
-- +goose Up
DROP TRIGGER codes_stock_in ON codes;
DROP TRIGGER codes_tally_in ON codes;

-- +goose StatementBegin
CREATE OR REPLACE FUNCTION codes_stock_in() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    INSERT INTO stock_levels AS s (pid, available)
        SELECT pid, COUNT(*) FROM added WHERE order_seq IS NULL GROUP BY pid ORDER BY pid
    ON CONFLICT (pid) DO UPDATE SET available = s.available + EXCLUDED.available;
    RETURN NULL;
END
$$;
-- +goose StatementEnd

-- +goose StatementBegin
CREATE FUNCTION codes_tally_added() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    UPDATE stock_batches b SET added = b.added + n.codes
        FROM (SELECT batch_id, COUNT(*) AS codes FROM added WHERE batch_id IS NOT NULL GROUP BY batch_id) n
        WHERE b.id = n.batch_id;
    RETURN NULL;
END
$$;
-- +goose StatementEnd

CREATE TRIGGER codes_stock_in AFTER INSERT ON codes
    REFERENCING NEW TABLE AS added
    FOR EACH STATEMENT EXECUTE FUNCTION codes_stock_in();
CREATE TRIGGER codes_tally_in AFTER INSERT ON codes
    REFERENCING NEW TABLE AS added
    FOR EACH STATEMENT EXECUTE FUNCTION codes_tally_added();

-- +goose StatementBegin
CREATE FUNCTION codes_withdrawn() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
    packs BIGINT;
    levels BIGINT;
BEGIN
    IF NOT EXISTS (SELECT 1 FROM after_rows WHERE voided_at IS NOT NULL) THEN
        RETURN NULL; -- a draw, or any update that withdraws nothing
    END IF;
    SELECT COUNT(DISTINCT n.pid) INTO packs FROM after_rows n JOIN before_rows o ON o.id = n.id
        WHERE n.batch_id IS NOT NULL AND o.voided_at IS NULL AND n.voided_at IS NOT NULL;
    IF packs = 0 THEN
        RETURN NULL;
    END IF;
    UPDATE stock_levels s SET available = s.available - w.codes
        FROM (SELECT n.pid, COUNT(*) AS codes FROM after_rows n JOIN before_rows o ON o.id = n.id
              WHERE n.batch_id IS NOT NULL AND o.voided_at IS NULL AND n.voided_at IS NOT NULL GROUP BY n.pid) w
        WHERE s.pid = w.pid;
    GET DIAGNOSTICS levels = ROW_COUNT;
    IF levels <> packs THEN
        RAISE EXCEPTION 'codes: a pack whose codes are withdrawn has no stock level';
    END IF;
    UPDATE stock_batches b SET withdrawn = b.withdrawn + w.codes
        FROM (SELECT n.batch_id, COUNT(*) AS codes FROM after_rows n JOIN before_rows o ON o.id = n.id
              WHERE n.batch_id IS NOT NULL AND o.voided_at IS NULL AND n.voided_at IS NOT NULL GROUP BY n.batch_id) w
        WHERE b.id = w.batch_id;
    RETURN NULL;
END
$$;
-- +goose StatementEnd

DROP TRIGGER codes_tally_out ON codes;
CREATE TRIGGER codes_tally_out AFTER UPDATE OF order_seq ON codes
    FOR EACH ROW WHEN (NEW.batch_id IS NOT NULL AND OLD.order_seq IS NULL AND NEW.order_seq IS NOT NULL)
    EXECUTE FUNCTION codes_tally();
CREATE TRIGGER codes_withdrawn AFTER UPDATE ON codes
    REFERENCING OLD TABLE AS before_rows NEW TABLE AS after_rows
    FOR EACH STATEMENT EXECUTE FUNCTION codes_withdrawn();

-- +goose Down
DROP TRIGGER codes_withdrawn ON codes;
DROP FUNCTION codes_withdrawn();
DROP TRIGGER codes_tally_out ON codes;
CREATE TRIGGER codes_tally_out AFTER UPDATE OF order_seq, voided_at ON codes
    FOR EACH ROW WHEN (NEW.batch_id IS NOT NULL AND ((OLD.order_seq IS NULL AND NEW.order_seq IS NOT NULL)
        OR (OLD.voided_at IS NULL AND NEW.voided_at IS NOT NULL)))
    EXECUTE FUNCTION codes_tally();
DROP TRIGGER codes_tally_in ON codes;
DROP TRIGGER codes_stock_in ON codes;
DROP FUNCTION codes_tally_added();

-- +goose StatementBegin
CREATE OR REPLACE FUNCTION codes_stock_in() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    INSERT INTO stock_levels AS s (pid, available) VALUES (NEW.pid, 1)
    ON CONFLICT (pid) DO UPDATE SET available = s.available + 1;
    RETURN NULL;
END
$$;
-- +goose StatementEnd

CREATE TRIGGER codes_stock_in AFTER INSERT ON codes
    FOR EACH ROW WHEN (NEW.order_seq IS NULL)
    EXECUTE FUNCTION codes_stock_in();
CREATE TRIGGER codes_tally_in AFTER INSERT ON codes
    FOR EACH ROW WHEN (NEW.batch_id IS NOT NULL)
    EXECUTE FUNCTION codes_tally();
