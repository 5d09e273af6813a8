-- Reconciliations with suppliers (back-office.md, section 2): each run,
-- its period (the first day and the last, as times at 00:00 UTC), its
-- totals and balance drift, and its mismatches, at most one a reference,
-- numbered from 1 within it. Resolutions come with the fixes.
-- +goose Up
CREATE TABLE reconciliations (
    seq          INTEGER PRIMARY KEY AUTOINCREMENT,
    id           TEXT NOT NULL UNIQUE,
    supplier     TEXT NOT NULL,
    period_from  INTEGER NOT NULL,
    period_to    INTEGER NOT NULL CHECK (period_to >= period_from),
    source       TEXT NOT NULL CHECK (source IN ('pull', 'csv')),
    state        TEXT NOT NULL DEFAULT 'open' CHECK (state IN ('open', 'closed')),
    created_at   INTEGER NOT NULL,
    operator     TEXT NOT NULL,
    closed_at    INTEGER,
    matched      INTEGER NOT NULL CHECK (matched >= 0),
    our_orders   INTEGER NOT NULL,
    their_orders INTEGER NOT NULL,
    our_cost     INTEGER NOT NULL,
    their_cost   INTEGER NOT NULL,
    balance_drift INTEGER
);
CREATE INDEX reconciliations_supplier ON reconciliations (supplier, seq);
CREATE TABLE reconciliation_mismatches (
    rec_seq       INTEGER NOT NULL REFERENCES reconciliations (seq),
    id            INTEGER NOT NULL CHECK (id >= 1),
    kind          TEXT NOT NULL CHECK (kind IN ('duplicate_upstream', 'missing_here', 'missing_upstream', 'status_mismatch', 'cost_mismatch')),
    reference     TEXT NOT NULL,
    order_id      TEXT NOT NULL DEFAULT '',
    supplier_ref  TEXT NOT NULL DEFAULT '',
    our_amount    INTEGER,
    their_amount  INTEGER,
    our_status    TEXT NOT NULL DEFAULT '',
    their_status  TEXT NOT NULL DEFAULT '',
    state         TEXT NOT NULL DEFAULT 'open' CHECK (state IN ('open', 'resolved')),
    PRIMARY KEY (rec_seq, id),
    UNIQUE (rec_seq, reference)
);
CREATE INDEX orders_upstream_created ON orders (upstream, created_at) WHERE provider = 'upstream';

-- +goose Down
DROP INDEX orders_upstream_created;
DROP TABLE reconciliation_mismatches;
DROP TABLE reconciliations;
