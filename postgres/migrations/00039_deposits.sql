-- Deposits, money in by bank transfer (back-office.md, section 3): the
-- settings (the bank, how long a ticket stays pending, the credit above
-- which a second operator confirms), and the tickets. A pending ticket's
-- exact amount is unique among the pending tickets of the live books, and
-- among a sandbox's (deposits_pending_amount); a memo is unique for ever.
-- Confirmations, rejections and the credit come with the next migration.
-- +goose Up
ALTER TABLE settings ADD COLUMN deposit_bank TEXT;
ALTER TABLE settings ADD COLUMN deposit_ticket_hours INTEGER NOT NULL DEFAULT 24 CHECK (deposit_ticket_hours BETWEEN 1 AND 720);
ALTER TABLE settings ADD COLUMN deposit_second_approval_above BIGINT NOT NULL DEFAULT 10000000 CHECK (deposit_second_approval_above >= 0);
CREATE TABLE deposits (
    seq         BIGINT GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    id          TEXT NOT NULL UNIQUE,
    account_id  TEXT NOT NULL REFERENCES accounts (id),
    sandbox     INTEGER NOT NULL DEFAULT 0 CHECK (sandbox IN (0, 1)),
    requested   BIGINT NOT NULL CHECK (requested > 0),
    amount      BIGINT NOT NULL,
    memo        TEXT NOT NULL UNIQUE,
    bank        TEXT NOT NULL,
    status      TEXT NOT NULL DEFAULT 'pending' CHECK (status IN ('pending', 'awaiting_second', 'confirmed', 'rejected', 'expired')),
    created_at  BIGINT NOT NULL,
    expires_at  BIGINT NOT NULL CHECK (expires_at > created_at),
    CHECK (amount > requested AND amount < requested + 10000)
);
CREATE UNIQUE INDEX deposits_pending_amount ON deposits (sandbox, amount) WHERE status = 'pending';
CREATE INDEX deposits_account ON deposits (account_id, seq);
CREATE INDEX deposits_due ON deposits (expires_at) WHERE status = 'pending';
CREATE INDEX deposits_status ON deposits (status, seq);

-- +goose Down
DROP TABLE deposits;
ALTER TABLE settings DROP COLUMN deposit_second_approval_above;
ALTER TABLE settings DROP COLUMN deposit_ticket_hours;
ALTER TABLE settings DROP COLUMN deposit_bank;
