-- Statements read an account's ledger by time: the balance at a time is the
-- sum of the entries before it, and the entries of a period follow.

-- +goose Up
CREATE INDEX ledger_account_time ON ledger (account_id, created_at, amount);

-- +goose Down
DROP INDEX ledger_account_time;
