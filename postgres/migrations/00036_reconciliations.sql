-- Reconciliations with suppliers (back-office.md, section 2): each run,
-- its period (the first day and the last, as times at 00:00 UTC), its
-- totals and balance drift, and its mismatches, at most one a reference,
-- numbered from 1 within it. Resolutions come with the fixes.
-- +goose Up
CREATE TABLE reconciliations (
    seq          BIGINT GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    id           TEXT NOT NULL UNIQUE,
    supplier     TEXT NOT NULL,
    period_from  BIGINT NOT NULL,
    period_to    BIGINT NOT NULL CHECK (period_to >= period_from),
    source       TEXT NOT NULL CHECK (source IN ('pull', 'csv')),
    state        TEXT NOT NULL DEFAULT 'open' CHECK (state IN ('open', 'closed')),
    created_at   BIGINT NOT NULL,
    operator     TEXT NOT NULL,
    closed_at    BIGINT,
    matched      INTEGER NOT NULL CHECK (matched >= 0),
    our_orders   INTEGER NOT NULL,
    their_orders INTEGER NOT NULL,
    our_cost     BIGINT NOT NULL,
    their_cost   BIGINT NOT NULL,
    balance_drift BIGINT
);
CREATE INDEX reconciliations_supplier ON reconciliations (supplier, seq);
CREATE TABLE reconciliation_mismatches (
    rec_seq       BIGINT NOT NULL REFERENCES reconciliations (seq),
    id            INTEGER NOT NULL CHECK (id >= 1),
    kind          TEXT NOT NULL CHECK (kind IN ('duplicate_upstream', 'missing_here', 'missing_upstream', 'status_mismatch', 'cost_mismatch')),
    reference     TEXT NOT NULL,
    order_id      TEXT NOT NULL DEFAULT '',
    supplier_ref  TEXT NOT NULL DEFAULT '',
    our_amount    BIGINT,
    their_amount  BIGINT,
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
