-- The messaging app (Telegram): one-time codes that link a private chat to
-- an account or to an operator (SHA-256 hashes, like API keys); the linked
-- chats, each with its balance alert (money, as everywhere) and whether the
-- balance was last seen below it; the Bot API updates already acted on,
-- so that each is acted on at most once; and the bot's state, one row: the
-- poller's lease and the next getUpdates offset. An action made at a bot
-- update's request carries the update's id, once.

-- +goose Up
CREATE TABLE chat_links (
    hash       BLOB PRIMARY KEY CHECK (length(hash) = 32),
    account_id TEXT REFERENCES accounts (id),
    operator   TEXT REFERENCES operators (name),
    created_at INTEGER NOT NULL,
    expires_at INTEGER NOT NULL,
    used_at    INTEGER,
    CHECK ((account_id IS NULL) <> (operator IS NULL))
);

CREATE TABLE chats (
    chat_id       INTEGER PRIMARY KEY,
    username      TEXT NOT NULL DEFAULT '',
    account_id    TEXT REFERENCES accounts (id),
    operator      TEXT REFERENCES operators (name),
    linked_at     INTEGER NOT NULL,
    balance_alert INTEGER CHECK (balance_alert >= 0),
    balance_low   INTEGER NOT NULL DEFAULT 0 CHECK (balance_low IN (0, 1)),
    CHECK ((account_id IS NULL) <> (operator IS NULL)),
    CHECK (balance_low = 0 OR balance_alert IS NOT NULL)
);
CREATE INDEX chats_account ON chats (account_id, linked_at) WHERE account_id IS NOT NULL;
CREATE INDEX chats_operator ON chats (operator, linked_at) WHERE operator IS NOT NULL;

CREATE TABLE bot_updates (
    update_id INTEGER PRIMARY KEY,
    chat_id   INTEGER NOT NULL,
    at        INTEGER NOT NULL
);

CREATE TABLE bot_state (
    id           INTEGER PRIMARY KEY CHECK (id = 1),
    lease_holder TEXT,
    lease_until  INTEGER NOT NULL DEFAULT 0,
    next_offset  INTEGER NOT NULL DEFAULT 0
);
INSERT INTO bot_state (id) VALUES (1);

ALTER TABLE actions ADD COLUMN update_id INTEGER;
CREATE UNIQUE INDEX actions_update ON actions (update_id) WHERE update_id IS NOT NULL;

-- +goose Down
DROP INDEX actions_update;
ALTER TABLE actions DROP COLUMN update_id;
DROP TABLE bot_state;
DROP TABLE bot_updates;
DROP TABLE chats;
DROP TABLE chat_links;
