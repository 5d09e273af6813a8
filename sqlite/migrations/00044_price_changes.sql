-- Scheduled prices (back-office.md, section 4 (e)): a pack's list price
-- scheduled to change at effective_at (ms). At most one change of a pack
-- is scheduled at a time (price_changes_one_scheduled); the server writes
-- a due change into packs.price and marks it applied, keeping the price it
-- replaced (old_price) and when (applied_at), which an applied change has
-- and a scheduled one has not. Orders and the catalog resolve a pack's
-- list price at their own time from its latest change, so a change takes
-- effect at effective_at however late it is written. Deleting a scheduled
-- change deletes its row; the action log keeps it.
-- +goose Up
CREATE TABLE price_changes (
    seq          INTEGER PRIMARY KEY AUTOINCREMENT,
    id           TEXT NOT NULL UNIQUE,
    pid          TEXT NOT NULL REFERENCES packs (pid),
    price        INTEGER NOT NULL CHECK (price > 0 AND price % 100 = 0),
    effective_at INTEGER NOT NULL,
    state        TEXT NOT NULL DEFAULT 'scheduled' CHECK (state IN ('scheduled', 'applied')),
    created_at   INTEGER NOT NULL CHECK (created_at < effective_at),
    operator     TEXT NOT NULL,
    old_price    INTEGER,
    applied_at   INTEGER,
    CHECK ((state = 'applied') = (old_price IS NOT NULL AND applied_at IS NOT NULL)),
    CHECK (old_price IS NULL OR old_price > 0)
);
CREATE UNIQUE INDEX price_changes_one_scheduled ON price_changes (pid) WHERE state = 'scheduled';
CREATE INDEX price_changes_due ON price_changes (effective_at) WHERE state = 'scheduled';
CREATE INDEX price_changes_pack ON price_changes (pid, effective_at, seq);
CREATE INDEX price_changes_time ON price_changes (effective_at, seq);

-- +goose Down
DROP TABLE price_changes;
