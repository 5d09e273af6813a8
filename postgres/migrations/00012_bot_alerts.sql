-- The alerts the messaging app's bot has told operators' chats of, so that
-- each is told once when it starts and once when it clears, across
-- restarts and a takeover by another node.

-- +goose Up
CREATE TABLE bot_alerts (
    key     TEXT PRIMARY KEY,
    message TEXT NOT NULL,
    since   BIGINT NOT NULL
);

-- +goose Down
DROP TABLE bot_alerts;
