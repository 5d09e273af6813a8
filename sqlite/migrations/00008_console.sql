-- The operator console: each operator's password (argon2id, encoded) and
-- TOTP secret (sealed by the vault), with the last TOTP step used so that a
-- code works once; one-time setup links and recovery codes (SHA-256
-- hashes); failed logins per name, which lock it; the login log; and the
-- server-side sessions (the hash of the cookie's value).

-- +goose Up
ALTER TABLE operators ADD COLUMN password_hash TEXT;
ALTER TABLE operators ADD COLUMN totp_sealed BLOB;
ALTER TABLE operators ADD COLUMN totp_last_step INTEGER NOT NULL DEFAULT 0;

CREATE TABLE operator_setup_links (
    hash       BLOB PRIMARY KEY CHECK (length(hash) = 32),
    operator   TEXT NOT NULL REFERENCES operators (name),
    created_at INTEGER NOT NULL,
    expires_at INTEGER NOT NULL,
    used_at    INTEGER
);
CREATE INDEX operator_setup_links_operator ON operator_setup_links (operator);

CREATE TABLE operator_recovery_codes (
    operator TEXT NOT NULL REFERENCES operators (name),
    hash     BLOB NOT NULL CHECK (length(hash) = 32),
    used_at  INTEGER,
    PRIMARY KEY (operator, hash)
);

CREATE TABLE login_locks (
    name         TEXT PRIMARY KEY,
    failures     INTEGER NOT NULL CHECK (failures >= 0),
    locked_until INTEGER
);

CREATE TABLE logins (
    id     INTEGER PRIMARY KEY AUTOINCREMENT,
    at     INTEGER NOT NULL,
    name   TEXT NOT NULL,
    ip     TEXT NOT NULL,
    ok     INTEGER NOT NULL CHECK (ok IN (0, 1)),
    reason TEXT NOT NULL
);
CREATE INDEX logins_at ON logins (at, id);

CREATE TABLE console_sessions (
    hash         BLOB PRIMARY KEY CHECK (length(hash) = 32),
    operator     TEXT NOT NULL REFERENCES operators (name),
    csrf         TEXT NOT NULL,
    ip           TEXT NOT NULL,
    created_at   INTEGER NOT NULL,
    last_seen_at INTEGER NOT NULL
);
CREATE INDEX console_sessions_operator ON console_sessions (operator);

-- +goose Down
DROP TABLE console_sessions;
DROP TABLE logins;
DROP TABLE login_locks;
DROP TABLE operator_recovery_codes;
DROP TABLE operator_setup_links;
ALTER TABLE operators DROP COLUMN totp_last_step;
ALTER TABLE operators DROP COLUMN totp_sealed;
ALTER TABLE operators DROP COLUMN password_hash;
