-- Money we sent a supplier (back-office.md, section 1: "deposits we sent
-- to a supplier"), recorded by the operator: once per upstream and
-- reference, whoever records it at the same moment. The rows are never
-- changed; an upstream removed later keeps its deposits' history.
-- +goose Up
CREATE TABLE upstream_deposits (
    seq        INTEGER PRIMARY KEY AUTOINCREMENT,
    id         TEXT NOT NULL UNIQUE,
    upstream   TEXT NOT NULL,
    amount     INTEGER NOT NULL CHECK (amount > 0),
    reference  TEXT NOT NULL CHECK (length(reference) BETWEEN 1 AND 200),
    at         INTEGER NOT NULL,
    operator   TEXT NOT NULL,
    created_at INTEGER NOT NULL,
    UNIQUE (upstream, reference)
);
CREATE INDEX upstream_deposits_by_time ON upstream_deposits (upstream, at, seq);

-- +goose Down
DROP TABLE upstream_deposits;
