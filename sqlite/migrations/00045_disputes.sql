-- Disputes (back-office.md, section 5): a reseller disputes a completed
-- order (one open dispute an order, disputes_one_open), within
-- dispute_window_days of its completion; the operator answers within
-- dispute_answer_hours (due_at). codes are the disputed codes, sealed as
-- delivered codes are (JSON of sealed strings). The resolution's columns
-- come with the resolution.
-- +goose Up
ALTER TABLE settings ADD COLUMN dispute_window_days INTEGER NOT NULL DEFAULT 7 CHECK (dispute_window_days BETWEEN 1 AND 365);
ALTER TABLE settings ADD COLUMN dispute_answer_hours INTEGER NOT NULL DEFAULT 48 CHECK (dispute_answer_hours BETWEEN 1 AND 720);
CREATE TABLE disputes (
    seq            INTEGER PRIMARY KEY AUTOINCREMENT,
    id             TEXT NOT NULL UNIQUE,
    account_id     TEXT NOT NULL REFERENCES accounts (id),
    order_seq      INTEGER NOT NULL REFERENCES orders (seq),
    sandbox        INTEGER NOT NULL DEFAULT 0 CHECK (sandbox IN (0, 1)),
    status         TEXT NOT NULL DEFAULT 'open' CHECK (status IN ('open', 'resolved')),
    reason         TEXT NOT NULL CHECK (reason IN ('code_invalid', 'code_used', 'wrong_region', 'not_credited', 'duplicate_charge', 'other')),
    codes          TEXT NOT NULL,
    detail         TEXT NOT NULL DEFAULT '',
    created_at     INTEGER NOT NULL,
    due_at         INTEGER NOT NULL CHECK (due_at > created_at),
    claim_ref      TEXT,
    claim_state    TEXT CHECK (claim_state IN ('open', 'won', 'lost')),
    CHECK ((claim_ref IS NULL) = (claim_state IS NULL))
);
CREATE UNIQUE INDEX disputes_one_open ON disputes (order_seq) WHERE status = 'open';
CREATE INDEX disputes_account ON disputes (account_id, seq);
CREATE INDEX disputes_status ON disputes (status, seq);

-- +goose Down
DROP TABLE disputes;
ALTER TABLE settings DROP COLUMN dispute_answer_hours;
ALTER TABLE settings DROP COLUMN dispute_window_days;
