-- Stock batches: each upload of codes is a batch, with the cost of one code
-- (NULL: the pack's cost at each sale) and a note. A batch counts its codes
-- added, sold and withdrawn, kept by triggers on codes. Voiding a batch
-- withdraws its unsold codes: they leave the stock level and are never
-- given to an order, whatever races the void.
--
-- Codes in stock at this migration are put in one batch per pack, noted
-- "in stock before batches", without a cost; codes delivered before it
-- (and codes a supplier hands over, which never were stock) belong to no
-- batch.
--
-- Low stock: stock_alerts holds a row for a pack exactly while its
-- low_stock_at is set and its stock (none counts as 0) is at or below it,
-- kept by triggers on stock_levels and packs.
--
-- Locks: the pack's stock_levels row is taken first by everything that
-- changes a pack's stock or its low-stock state (a draw, a void, a change
-- of low_stock_at); the triggers on codes that count a batch are named to
-- run after codes_stock_in/out (PostgreSQL runs triggers by name), so the
-- stock level is locked before the batch row, as a draw does.

-- +goose Up
CREATE TABLE stock_batches (
    id         BIGINT GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    pid        TEXT NOT NULL,
    cost       BIGINT CHECK (cost >= 0),
    note       TEXT NOT NULL DEFAULT '',
    operator   TEXT NOT NULL DEFAULT '',
    created_at BIGINT NOT NULL,
    added      BIGINT NOT NULL DEFAULT 0 CHECK (added >= 0),
    sold       BIGINT NOT NULL DEFAULT 0 CHECK (sold >= 0),
    withdrawn  BIGINT NOT NULL DEFAULT 0 CHECK (withdrawn >= 0),
    voided_at  BIGINT,
    CHECK (sold + withdrawn <= added),
    CHECK (voided_at IS NOT NULL OR withdrawn = 0)
);
CREATE INDEX stock_batches_pid ON stock_batches (pid, id);

ALTER TABLE codes ADD COLUMN batch_id BIGINT REFERENCES stock_batches (id);
ALTER TABLE codes ADD COLUMN voided_at BIGINT;

INSERT INTO stock_batches (pid, note, created_at, added)
    SELECT pid, 'in stock before batches', MIN(added_at), COUNT(*) FROM codes WHERE order_seq IS NULL GROUP BY pid;
UPDATE codes SET batch_id = (SELECT b.id FROM stock_batches b WHERE b.pid = codes.pid) WHERE order_seq IS NULL;

-- Draws read only codes neither sold nor withdrawn.
DROP INDEX codes_available;
CREATE INDEX codes_available ON codes (pid, id) WHERE order_seq IS NULL AND voided_at IS NULL;
CREATE INDEX codes_by_batch ON codes (batch_id, id) WHERE batch_id IS NOT NULL;

-- +goose StatementBegin
CREATE FUNCTION codes_batch_check() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    IF TG_OP = 'INSERT' THEN
        IF NEW.batch_id IS NOT NULL AND (NEW.order_seq IS NOT NULL OR NEW.voided_at IS NOT NULL OR NOT EXISTS (
            SELECT 1 FROM stock_batches b WHERE b.id = NEW.batch_id AND b.pid = NEW.pid AND b.voided_at IS NULL)) THEN
            RAISE EXCEPTION 'codes: a code joins a batch of its own pack that is not voided';
        END IF;
        RETURN NEW;
    END IF;
    IF NEW.batch_id IS DISTINCT FROM OLD.batch_id THEN
        RAISE EXCEPTION 'codes: a code never changes batch';
    END IF;
    IF NEW.voided_at IS DISTINCT FROM OLD.voided_at AND (OLD.voided_at IS NOT NULL OR OLD.order_seq IS NOT NULL
        OR NOT EXISTS (SELECT 1 FROM stock_batches b WHERE b.id = OLD.batch_id AND b.voided_at IS NOT NULL)) THEN
        RAISE EXCEPTION 'codes: only an unsold code of a voided batch is withdrawn, once';
    END IF;
    -- The guard of voids: a withdrawn code, or any code of a voided batch,
    -- is never given to an order.
    IF NEW.order_seq IS NOT NULL AND OLD.order_seq IS NULL AND (NEW.voided_at IS NOT NULL
        OR EXISTS (SELECT 1 FROM stock_batches b WHERE b.id = OLD.batch_id AND b.voided_at IS NOT NULL)) THEN
        RAISE EXCEPTION 'codes: a code of a voided batch is never sold';
    END IF;
    RETURN NEW;
END
$$;
-- +goose StatementEnd

CREATE TRIGGER codes_batch_check BEFORE INSERT OR UPDATE OF batch_id, voided_at, order_seq ON codes
    FOR EACH ROW EXECUTE FUNCTION codes_batch_check();

-- +goose StatementBegin
CREATE FUNCTION codes_tally() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    IF TG_OP = 'INSERT' THEN
        UPDATE stock_batches SET added = added + 1 WHERE id = NEW.batch_id;
    ELSIF OLD.order_seq IS NULL AND NEW.order_seq IS NOT NULL THEN
        UPDATE stock_batches SET sold = sold + 1 WHERE id = NEW.batch_id;
    ELSIF OLD.voided_at IS NULL AND NEW.voided_at IS NOT NULL THEN
        UPDATE stock_levels SET available = available - 1 WHERE pid = NEW.pid;
        IF NOT FOUND THEN
            RAISE EXCEPTION 'codes: pack % has no stock level', NEW.pid;
        END IF;
        UPDATE stock_batches SET withdrawn = withdrawn + 1 WHERE id = NEW.batch_id;
    END IF;
    RETURN NULL;
END
$$;
-- +goose StatementEnd

CREATE TRIGGER codes_tally_in AFTER INSERT ON codes
    FOR EACH ROW WHEN (NEW.batch_id IS NOT NULL)
    EXECUTE FUNCTION codes_tally();
CREATE TRIGGER codes_tally_out AFTER UPDATE OF order_seq, voided_at ON codes
    FOR EACH ROW WHEN (NEW.batch_id IS NOT NULL AND ((OLD.order_seq IS NULL AND NEW.order_seq IS NOT NULL)
        OR (OLD.voided_at IS NULL AND NEW.voided_at IS NOT NULL)))
    EXECUTE FUNCTION codes_tally();

-- A batch's pack, cost, note, author and time never change; a void is
-- final, and a voided batch sells and adds nothing more.
-- +goose StatementBegin
CREATE FUNCTION stock_batches_check() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    IF NEW.id <> OLD.id OR NEW.pid <> OLD.pid OR NEW.cost IS DISTINCT FROM OLD.cost OR NEW.note <> OLD.note
        OR NEW.operator <> OLD.operator OR NEW.created_at <> OLD.created_at THEN
        RAISE EXCEPTION 'stock_batches: a batch never changes but for its counts and its void';
    END IF;
    IF OLD.voided_at IS NOT NULL AND NEW.voided_at IS DISTINCT FROM OLD.voided_at THEN
        RAISE EXCEPTION 'stock_batches: a void is final';
    END IF;
    IF OLD.voided_at IS NOT NULL AND (NEW.sold <> OLD.sold OR NEW.added <> OLD.added) THEN
        RAISE EXCEPTION 'stock_batches: a voided batch sells and adds nothing';
    END IF;
    RETURN NEW;
END
$$;
-- +goose StatementEnd

CREATE TRIGGER stock_batches_check BEFORE UPDATE ON stock_batches
    FOR EACH ROW EXECUTE FUNCTION stock_batches_check();
CREATE TRIGGER stock_batches_no_delete BEFORE DELETE ON stock_batches
    FOR EACH ROW EXECUTE FUNCTION topupd_refuse('stock_batches: batches are never deleted');
CREATE TRIGGER stock_batches_no_truncate BEFORE TRUNCATE ON stock_batches
    FOR EACH STATEMENT EXECUTE FUNCTION topupd_refuse('stock_batches: batches are never deleted');

CREATE TABLE stock_alerts (
    pid TEXT PRIMARY KEY
);
INSERT INTO stock_alerts (pid)
    SELECT p.pid FROM packs p LEFT JOIN stock_levels s ON s.pid = p.pid
    WHERE p.low_stock_at IS NOT NULL AND COALESCE(s.available, 0) <= p.low_stock_at;

-- stock_low_set makes stock_alerts say whether a pack is low on stock now:
-- at most one row a pack, inserted or deleted only when the state flips.
-- +goose StatementBegin
CREATE FUNCTION stock_low_set(p_pid TEXT) RETURNS void LANGUAGE plpgsql AS $$
DECLARE
    lvl BIGINT;
    avail BIGINT;
BEGIN
    SELECT low_stock_at INTO lvl FROM packs WHERE pid = p_pid;
    SELECT available INTO avail FROM stock_levels WHERE pid = p_pid;
    IF lvl IS NOT NULL AND COALESCE(avail, 0) <= lvl THEN
        INSERT INTO stock_alerts (pid) VALUES (p_pid) ON CONFLICT (pid) DO NOTHING;
    ELSE
        DELETE FROM stock_alerts WHERE pid = p_pid;
    END IF;
END
$$;
-- +goose StatementEnd

-- +goose StatementBegin
CREATE FUNCTION stock_levels_low() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    PERFORM stock_low_set(NEW.pid);
    RETURN NULL;
END
$$;
-- +goose StatementEnd

CREATE TRIGGER stock_levels_low AFTER INSERT OR UPDATE OF available ON stock_levels
    FOR EACH ROW EXECUTE FUNCTION stock_levels_low();

-- A change of a pack's low_stock_at takes the stock level's row lock
-- first, so that it takes turns with draws and uploads of that pack.
-- +goose StatementBegin
CREATE FUNCTION packs_low() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    PERFORM 1 FROM stock_levels WHERE pid = NEW.pid FOR NO KEY UPDATE;
    PERFORM stock_low_set(NEW.pid);
    RETURN NULL;
END
$$;
-- +goose StatementEnd

CREATE TRIGGER packs_low AFTER INSERT OR UPDATE OF low_stock_at ON packs
    FOR EACH ROW EXECUTE FUNCTION packs_low();

-- +goose Down
DROP TRIGGER packs_low ON packs;
DROP FUNCTION packs_low();
DROP TRIGGER stock_levels_low ON stock_levels;
DROP FUNCTION stock_levels_low();
DROP FUNCTION stock_low_set(TEXT);
DROP TABLE stock_alerts;
DROP TABLE stock_batches CASCADE;
DROP TRIGGER codes_tally_out ON codes;
DROP TRIGGER codes_tally_in ON codes;
DROP FUNCTION codes_tally();
DROP TRIGGER codes_batch_check ON codes;
DROP FUNCTION codes_batch_check();
DROP FUNCTION stock_batches_check();
DROP INDEX codes_by_batch;
DROP INDEX codes_available;
CREATE INDEX codes_available ON codes (pid, id) WHERE order_seq IS NULL;
ALTER TABLE codes DROP COLUMN voided_at;
ALTER TABLE codes DROP COLUMN batch_id;
