-- Confirming deposits (back-office.md, section 3): a ticket's
-- confirmations, its rejection, and its credit, one ledger entry of the
-- new kind 'deposit' whose reference is the deposit's id: one per deposit,
-- ever (ledger_one_deposit). A bank reference confirms one ticket, ever
-- (deposits_bank_ref). A confirmed ticket names its entry, its credit and
-- when; the CHECKs hold that whole.
-- +goose Up
ALTER TABLE ledger DROP CONSTRAINT ledger_kind_check;
ALTER TABLE ledger DROP CONSTRAINT ledger_check;
ALTER TABLE ledger DROP CONSTRAINT ledger_check1;
ALTER TABLE ledger ADD CONSTRAINT ledger_kind_check CHECK (kind IN ('credit', 'charge', 'refund', 'deposit'));
ALTER TABLE ledger ADD CONSTRAINT ledger_check CHECK ((kind IN ('credit', 'deposit')) = (reference IS NOT NULL));
ALTER TABLE ledger ADD CONSTRAINT ledger_check1 CHECK ((kind IN ('credit', 'deposit')) = (order_seq IS NULL));
ALTER TABLE ledger ADD CONSTRAINT ledger_check4 CHECK (kind <> 'deposit' OR amount > 0);
CREATE UNIQUE INDEX ledger_one_deposit ON ledger (reference) WHERE kind = 'deposit';

ALTER TABLE deposits ADD COLUMN bank_ref TEXT;
ALTER TABLE deposits ADD COLUMN received BIGINT CHECK (received > 0);
ALTER TABLE deposits ADD COLUMN first_by TEXT NOT NULL DEFAULT '';
ALTER TABLE deposits ADD COLUMN first_at BIGINT CHECK ((first_at IS NULL) = (first_by = ''));
ALTER TABLE deposits ADD COLUMN reason TEXT NOT NULL DEFAULT '';
ALTER TABLE deposits ADD COLUMN rejected_by TEXT NOT NULL DEFAULT '' CHECK ((status = 'rejected') = (rejected_by <> '' AND reason <> ''));
ALTER TABLE deposits ADD COLUMN credited BIGINT CHECK (credited > 0);
ALTER TABLE deposits ADD COLUMN confirmed_by TEXT NOT NULL DEFAULT '';
ALTER TABLE deposits ADD COLUMN confirmed_at BIGINT;
ALTER TABLE deposits ADD COLUMN entry_id BIGINT
    CHECK ((status = 'confirmed') = (entry_id IS NOT NULL AND credited IS NOT NULL AND confirmed_at IS NOT NULL AND confirmed_by <> '' AND bank_ref IS NOT NULL));
CREATE UNIQUE INDEX deposits_bank_ref ON deposits (bank_ref) WHERE bank_ref IS NOT NULL;
CREATE UNIQUE INDEX deposits_entry ON deposits (entry_id) WHERE entry_id IS NOT NULL;

-- +goose Down
DROP INDEX deposits_entry;
DROP INDEX deposits_bank_ref;
ALTER TABLE deposits DROP COLUMN entry_id;
ALTER TABLE deposits DROP COLUMN confirmed_at;
ALTER TABLE deposits DROP COLUMN confirmed_by;
ALTER TABLE deposits DROP COLUMN credited;
ALTER TABLE deposits DROP COLUMN rejected_by;
ALTER TABLE deposits DROP COLUMN reason;
ALTER TABLE deposits DROP COLUMN first_at;
ALTER TABLE deposits DROP COLUMN first_by;
ALTER TABLE deposits DROP COLUMN received;
ALTER TABLE deposits DROP COLUMN bank_ref;
DROP INDEX ledger_one_deposit;
ALTER TABLE ledger DROP CONSTRAINT ledger_check4;
ALTER TABLE ledger DROP CONSTRAINT ledger_check1;
ALTER TABLE ledger DROP CONSTRAINT ledger_check;
ALTER TABLE ledger DROP CONSTRAINT ledger_kind_check;
ALTER TABLE ledger ADD CONSTRAINT ledger_kind_check CHECK (kind IN ('credit', 'charge', 'refund'));
ALTER TABLE ledger ADD CONSTRAINT ledger_check CHECK ((kind = 'credit') = (reference IS NOT NULL));
ALTER TABLE ledger ADD CONSTRAINT ledger_check1 CHECK ((kind = 'credit') = (order_seq IS NULL));
