-- Named operators, each with a role and tokens of their own (stored as
-- SHA-256 hashes, like API keys), and the action log: every admin change,
-- who made it, from where, and the fields it changed, written in the same
-- transaction as the change. The log is append-only.

-- +goose Up
CREATE TABLE operators (
    name         TEXT PRIMARY KEY,
    role         TEXT NOT NULL CHECK (role IN ('owner', 'finance', 'support', 'viewer')),
    disabled     INTEGER NOT NULL DEFAULT 0 CHECK (disabled IN (0, 1)),
    created_at   INTEGER NOT NULL,
    last_seen_at INTEGER
);

CREATE TABLE operator_tokens (
    id         TEXT PRIMARY KEY,
    operator   TEXT NOT NULL REFERENCES operators (name),
    hash       BLOB NOT NULL UNIQUE CHECK (length(hash) = 32),
    created_at INTEGER NOT NULL
);

CREATE TABLE actions (
    id         INTEGER PRIMARY KEY AUTOINCREMENT,
    at         INTEGER NOT NULL,
    operator   TEXT NOT NULL,
    ip         TEXT NOT NULL,
    request_id TEXT NOT NULL,
    action     TEXT NOT NULL,
    target     TEXT NOT NULL,
    account_id TEXT,
    before     TEXT NOT NULL,
    after      TEXT NOT NULL
);
CREATE INDEX actions_operator ON actions (operator, id);
CREATE INDEX actions_account ON actions (account_id, id);
CREATE INDEX actions_action ON actions (action, id);

-- +goose StatementBegin
CREATE TRIGGER actions_no_update BEFORE UPDATE ON actions
BEGIN
    SELECT RAISE(ABORT, 'actions: the action log is never changed');
END;
-- +goose StatementEnd

-- +goose StatementBegin
CREATE TRIGGER actions_no_delete BEFORE DELETE ON actions
BEGIN
    SELECT RAISE(ABORT, 'actions: the action log is never deleted');
END;
-- +goose StatementEnd

-- +goose Down
DROP TRIGGER actions_no_delete;
DROP TRIGGER actions_no_update;
DROP TABLE actions;
DROP TABLE operator_tokens;
DROP TABLE operators;
