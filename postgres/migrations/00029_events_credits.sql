-- The stream's events by account served one reader: the audit's count of
-- each account's balance.credited events. Every event paid for it, an
-- order's two or three among them (issue 24). The index now holds the
-- credits alone, which is all that count reads.
-- +goose Up
DROP INDEX events_account;
CREATE INDEX events_credits ON events (account_id, seq) WHERE type = 'balance.credited';

-- +goose Down
DROP INDEX events_credits;
CREATE INDEX events_account ON events (account_id, seq);
