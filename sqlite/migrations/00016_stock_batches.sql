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

-- +goose Up
CREATE TABLE stock_batches (
    id         INTEGER PRIMARY KEY AUTOINCREMENT,
    pid        TEXT NOT NULL,
    cost       INTEGER CHECK (cost >= 0),
    note       TEXT NOT NULL DEFAULT '',
    operator   TEXT NOT NULL DEFAULT '',
    created_at INTEGER NOT NULL,
    added      INTEGER NOT NULL DEFAULT 0 CHECK (added >= 0),
    sold       INTEGER NOT NULL DEFAULT 0 CHECK (sold >= 0),
    withdrawn  INTEGER NOT NULL DEFAULT 0 CHECK (withdrawn >= 0),
    voided_at  INTEGER,
    CHECK (sold + withdrawn <= added),
    CHECK (voided_at IS NOT NULL OR withdrawn = 0)
);
CREATE INDEX stock_batches_pid ON stock_batches (pid, id);

-- (No REFERENCES clause, so that the Down migration can drop the column:
-- codes_batch_open checks that the batch exists.)
ALTER TABLE codes ADD COLUMN batch_id INTEGER;
ALTER TABLE codes ADD COLUMN voided_at INTEGER;

INSERT INTO stock_batches (pid, note, created_at, added)
    SELECT pid, 'in stock before batches', MIN(added_at), COUNT(*) FROM codes WHERE order_seq IS NULL GROUP BY pid;
UPDATE codes SET batch_id = (SELECT b.id FROM stock_batches b WHERE b.pid = codes.pid) WHERE order_seq IS NULL;

-- Draws read only codes neither sold nor withdrawn.
DROP INDEX codes_available;
CREATE INDEX codes_available ON codes (pid, id) WHERE order_seq IS NULL AND voided_at IS NULL;
CREATE INDEX codes_by_batch ON codes (batch_id, id) WHERE batch_id IS NOT NULL;

-- +goose StatementBegin
CREATE TRIGGER codes_batch_open BEFORE INSERT ON codes
WHEN NEW.batch_id IS NOT NULL
BEGIN
    SELECT RAISE(ABORT, 'codes: a code joins a batch of its own pack that is not voided')
    WHERE NOT EXISTS (SELECT 1 FROM stock_batches b WHERE b.id = NEW.batch_id AND b.pid = NEW.pid AND b.voided_at IS NULL)
       OR NEW.order_seq IS NOT NULL OR NEW.voided_at IS NOT NULL;
END;
-- +goose StatementEnd

-- +goose StatementBegin
CREATE TRIGGER codes_batch_fixed BEFORE UPDATE OF batch_id ON codes
WHEN NEW.batch_id IS NOT OLD.batch_id
BEGIN
    SELECT RAISE(ABORT, 'codes: a code never changes batch');
END;
-- +goose StatementEnd

-- +goose StatementBegin
CREATE TRIGGER codes_void_once BEFORE UPDATE OF voided_at ON codes
WHEN NEW.voided_at IS NOT OLD.voided_at
BEGIN
    SELECT RAISE(ABORT, 'codes: only an unsold code of a voided batch is withdrawn, once')
    WHERE OLD.voided_at IS NOT NULL OR OLD.order_seq IS NOT NULL
       OR NOT EXISTS (SELECT 1 FROM stock_batches b WHERE b.id = OLD.batch_id AND b.voided_at IS NOT NULL);
END;
-- +goose StatementEnd

-- The guard of voids: a withdrawn code, or any code of a voided batch, is
-- never given to an order.
-- +goose StatementBegin
CREATE TRIGGER codes_never_sold_voided BEFORE UPDATE OF order_seq ON codes
WHEN NEW.order_seq IS NOT NULL
BEGIN
    SELECT RAISE(ABORT, 'codes: a code of a voided batch is never sold')
    WHERE NEW.voided_at IS NOT NULL
       OR EXISTS (SELECT 1 FROM stock_batches b WHERE b.id = OLD.batch_id AND b.voided_at IS NOT NULL);
END;
-- +goose StatementEnd

-- +goose StatementBegin
CREATE TRIGGER codes_tally_in AFTER INSERT ON codes
WHEN NEW.batch_id IS NOT NULL
BEGIN
    UPDATE stock_batches SET added = added + 1 WHERE id = NEW.batch_id;
END;
-- +goose StatementEnd

-- +goose StatementBegin
CREATE TRIGGER codes_tally_sold AFTER UPDATE OF order_seq ON codes
WHEN OLD.order_seq IS NULL AND NEW.order_seq IS NOT NULL AND NEW.batch_id IS NOT NULL
BEGIN
    UPDATE stock_batches SET sold = sold + 1 WHERE id = NEW.batch_id;
END;
-- +goose StatementEnd

-- +goose StatementBegin
CREATE TRIGGER codes_tally_withdrawn AFTER UPDATE OF voided_at ON codes
WHEN OLD.voided_at IS NULL AND NEW.voided_at IS NOT NULL
BEGIN
    UPDATE stock_batches SET withdrawn = withdrawn + 1 WHERE id = NEW.batch_id;
    UPDATE stock_levels SET available = available - 1 WHERE pid = NEW.pid;
END;
-- +goose StatementEnd

-- A batch's pack, cost, note, author and time never change; a void is
-- final, and a voided batch sells nothing more.
-- +goose StatementBegin
CREATE TRIGGER stock_batches_fixed BEFORE UPDATE ON stock_batches
BEGIN
    SELECT RAISE(ABORT, 'stock_batches: a batch never changes but for its counts and its void')
    WHERE NEW.id IS NOT OLD.id OR NEW.pid IS NOT OLD.pid OR NEW.cost IS NOT OLD.cost OR NEW.note IS NOT OLD.note
       OR NEW.operator IS NOT OLD.operator OR NEW.created_at IS NOT OLD.created_at;
    SELECT RAISE(ABORT, 'stock_batches: a void is final')
    WHERE OLD.voided_at IS NOT NULL AND NEW.voided_at IS NOT OLD.voided_at;
    SELECT RAISE(ABORT, 'stock_batches: a voided batch sells and adds nothing')
    WHERE OLD.voided_at IS NOT NULL AND (NEW.sold <> OLD.sold OR NEW.added <> OLD.added);
END;
-- +goose StatementEnd

-- +goose StatementBegin
CREATE TRIGGER stock_batches_no_delete BEFORE DELETE ON stock_batches
BEGIN
    SELECT RAISE(ABORT, 'stock_batches: batches are never deleted');
END;
-- +goose StatementEnd

CREATE TABLE stock_alerts (
    pid TEXT PRIMARY KEY
);
INSERT INTO stock_alerts (pid)
    SELECT p.pid FROM packs p LEFT JOIN stock_levels s ON s.pid = p.pid
    WHERE p.low_stock_at IS NOT NULL AND COALESCE(s.available, 0) <= p.low_stock_at;

-- +goose StatementBegin
CREATE TRIGGER stock_levels_low_in AFTER INSERT ON stock_levels
BEGIN
    DELETE FROM stock_alerts WHERE pid = NEW.pid
        AND NEW.available > COALESCE((SELECT low_stock_at FROM packs WHERE pid = NEW.pid), -1);
    INSERT INTO stock_alerts (pid) SELECT NEW.pid
        WHERE NEW.available <= (SELECT low_stock_at FROM packs WHERE pid = NEW.pid)
    ON CONFLICT (pid) DO NOTHING;
END;
-- +goose StatementEnd

-- +goose StatementBegin
CREATE TRIGGER stock_levels_low_down AFTER UPDATE OF available ON stock_levels
WHEN NEW.available < OLD.available AND NEW.available <= (SELECT low_stock_at FROM packs WHERE pid = NEW.pid)
BEGIN
    INSERT INTO stock_alerts (pid) VALUES (NEW.pid) ON CONFLICT (pid) DO NOTHING;
END;
-- +goose StatementEnd

-- +goose StatementBegin
CREATE TRIGGER stock_levels_low_up AFTER UPDATE OF available ON stock_levels
WHEN NEW.available > OLD.available
BEGIN
    DELETE FROM stock_alerts WHERE pid = NEW.pid
        AND NEW.available > COALESCE((SELECT low_stock_at FROM packs WHERE pid = NEW.pid), -1);
END;
-- +goose StatementEnd

-- +goose StatementBegin
CREATE TRIGGER packs_low_in AFTER INSERT ON packs
WHEN NEW.low_stock_at IS NOT NULL AND COALESCE((SELECT available FROM stock_levels WHERE pid = NEW.pid), 0) <= NEW.low_stock_at
BEGIN
    INSERT INTO stock_alerts (pid) VALUES (NEW.pid) ON CONFLICT (pid) DO NOTHING;
END;
-- +goose StatementEnd

-- +goose StatementBegin
CREATE TRIGGER packs_low_level AFTER UPDATE OF low_stock_at ON packs
BEGIN
    DELETE FROM stock_alerts WHERE pid = NEW.pid
        AND (NEW.low_stock_at IS NULL OR COALESCE((SELECT available FROM stock_levels WHERE pid = NEW.pid), 0) > NEW.low_stock_at);
    INSERT INTO stock_alerts (pid) SELECT NEW.pid
        WHERE NEW.low_stock_at IS NOT NULL AND COALESCE((SELECT available FROM stock_levels WHERE pid = NEW.pid), 0) <= NEW.low_stock_at
    ON CONFLICT (pid) DO NOTHING;
END;
-- +goose StatementEnd

-- +goose Down
DROP TRIGGER packs_low_level;
DROP TRIGGER packs_low_in;
DROP TRIGGER stock_levels_low_up;
DROP TRIGGER stock_levels_low_down;
DROP TRIGGER stock_levels_low_in;
DROP TABLE stock_alerts;
DROP TRIGGER stock_batches_no_delete;
DROP TRIGGER stock_batches_fixed;
DROP TRIGGER codes_tally_withdrawn;
DROP TRIGGER codes_tally_sold;
DROP TRIGGER codes_tally_in;
DROP TRIGGER codes_never_sold_voided;
DROP TRIGGER codes_void_once;
DROP TRIGGER codes_batch_fixed;
DROP TRIGGER codes_batch_open;
DROP INDEX codes_by_batch;
DROP INDEX codes_available;
CREATE INDEX codes_available ON codes (pid, id) WHERE order_seq IS NULL;
ALTER TABLE codes DROP COLUMN voided_at;
ALTER TABLE codes DROP COLUMN batch_id;
DROP TABLE stock_batches;
