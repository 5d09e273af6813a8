-- The nightly reconciliation (back-office.md, section 2): when it runs,
-- "HH:MM" UTC (NULL: never), and which upstream's day a node has taken,
-- so that each is reconciled by one node once.
-- +goose Up
ALTER TABLE settings ADD COLUMN reconcile_at TEXT DEFAULT '03:00';
CREATE TABLE reconciliation_nightly (
    supplier TEXT NOT NULL,
    day      TEXT NOT NULL,
    taken_at INTEGER NOT NULL,
    PRIMARY KEY (supplier, day)
);

-- +goose Down
DROP TABLE reconciliation_nightly;
ALTER TABLE settings DROP COLUMN reconcile_at;
