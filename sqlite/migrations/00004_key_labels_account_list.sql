-- Keys gain a label, their first 8 characters (prefix, to tell them apart
-- without showing them) and when they were last used, to the minute. The
-- operator's lists of accounts (newest first) and of an account's keys are
-- served by index.

-- +goose Up
ALTER TABLE api_keys ADD COLUMN label TEXT NOT NULL DEFAULT '';
ALTER TABLE api_keys ADD COLUMN prefix TEXT NOT NULL DEFAULT '';
ALTER TABLE api_keys ADD COLUMN last_used_at INTEGER;
CREATE INDEX api_keys_account_created ON api_keys (account_id, created_at);
CREATE INDEX accounts_created ON accounts (created_at, id);

-- +goose Down
DROP INDEX accounts_created;
DROP INDEX api_keys_account_created;
ALTER TABLE api_keys DROP COLUMN last_used_at;
ALTER TABLE api_keys DROP COLUMN prefix;
ALTER TABLE api_keys DROP COLUMN label;
