-- Named operators, each with a role and tokens of their own (stored as
-- SHA-256 hashes, like API keys), and the action log: every admin change,
-- who made it, from where, and the fields it changed, written in the same
-- transaction as the change. The log is append-only.

-- +goose Up
CREATE TABLE operators (
    name         TEXT COLLATE "C" PRIMARY KEY,
    role         TEXT NOT NULL CHECK (role IN ('owner', 'finance', 'support', 'viewer')),
    disabled     SMALLINT NOT NULL DEFAULT 0 CHECK (disabled IN (0, 1)),
    created_at   BIGINT NOT NULL,
    last_seen_at BIGINT
);

CREATE TABLE operator_tokens (
    id         TEXT PRIMARY KEY,
    operator   TEXT COLLATE "C" NOT NULL REFERENCES operators (name),
    hash       BYTEA NOT NULL UNIQUE CHECK (octet_length(hash) = 32),
    created_at BIGINT NOT NULL
);

CREATE TABLE actions (
    id         BIGINT GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    at         BIGINT NOT NULL,
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

CREATE TRIGGER actions_no_update BEFORE UPDATE ON actions
    FOR EACH ROW EXECUTE FUNCTION topupd_refuse('actions: the action log is never changed');
CREATE TRIGGER actions_no_delete BEFORE DELETE ON actions
    FOR EACH ROW EXECUTE FUNCTION topupd_refuse('actions: the action log is never deleted');
CREATE TRIGGER actions_no_truncate BEFORE TRUNCATE ON actions
    FOR EACH STATEMENT EXECUTE FUNCTION topupd_refuse('actions: the action log is never deleted');

-- +goose Down
DROP TABLE actions;
DROP TABLE operator_tokens;
DROP TABLE operators;
