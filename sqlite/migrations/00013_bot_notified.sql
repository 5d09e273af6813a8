-- The newest action log entry the bot has told account chats of, so that
-- the node that takes the poller's lease over (or the same one, restarted)
-- tells of the changes made meanwhile instead of skipping them.

-- +goose Up
ALTER TABLE bot_state ADD COLUMN notified_action INTEGER NOT NULL DEFAULT 0;

-- +goose Down
ALTER TABLE bot_state DROP COLUMN notified_action;
