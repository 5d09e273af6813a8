-- Pricing rules (back-office.md, section 4 (c)): a rule prices the packs
-- it governs from their cost (one rule a scope: a pack, a line, or every
-- pack); a rise above hold_above_percent of the old price waits in
-- price_holds (one a pack) for an operator; a pinned pack keeps the price
-- set by hand. Money and percentages in ten-thousandths, as elsewhere.
-- +goose Up
CREATE TABLE pricing_rules (
    name       TEXT NOT NULL PRIMARY KEY,
    scope_line TEXT,
    scope_pid  TEXT,
    markup     INTEGER NOT NULL CHECK (markup BETWEEN 0 AND 10000000),
    fixed      INTEGER NOT NULL DEFAULT 0 CHECK (fixed >= 0 AND fixed % 100 = 0),
    min_margin INTEGER NOT NULL DEFAULT 0 CHECK (min_margin >= 0 AND min_margin % 100 = 0),
    round_to   INTEGER NOT NULL DEFAULT 100 CHECK (round_to >= 100 AND round_to % 100 = 0),
    updated_at INTEGER NOT NULL,
    CHECK (scope_line IS NULL OR scope_pid IS NULL)
);
CREATE UNIQUE INDEX pricing_rules_scope ON pricing_rules (COALESCE(scope_line, ''), COALESCE(scope_pid, ''));
CREATE TABLE price_holds (
    pid       TEXT NOT NULL PRIMARY KEY REFERENCES packs (pid),
    rule      TEXT NOT NULL,
    cost      INTEGER NOT NULL CHECK (cost > 0),
    old_price INTEGER NOT NULL,
    new_price INTEGER NOT NULL CHECK (new_price > old_price AND new_price % 100 = 0),
    held_at   INTEGER NOT NULL
);
ALTER TABLE packs ADD COLUMN price_pinned INTEGER NOT NULL DEFAULT 0 CHECK (price_pinned IN (0, 1));
ALTER TABLE settings ADD COLUMN hold_above_percent INTEGER NOT NULL DEFAULT 100000 CHECK (hold_above_percent >= 0);

-- +goose Down
ALTER TABLE settings DROP COLUMN hold_above_percent;
ALTER TABLE packs DROP COLUMN price_pinned;
DROP TABLE price_holds;
DROP TABLE pricing_rules;
