-- Confirming deposits (back-office.md, section 3): a ticket's
-- confirmations, its rejection, and its credit, one ledger entry of the
-- new kind 'deposit' whose reference is the deposit's id: one per deposit,
-- ever (ledger_one_deposit). A bank reference confirms one ticket, ever
-- (deposits_bank_ref). A confirmed ticket names its entry, its credit and
-- when; the CHECKs hold that whole.
--
-- SQLite cannot change a table's CHECKs, so the ledger is rebuilt with
-- the new kind, every index and trigger it had (its rows are copied as
-- they are; nothing refers to it by a foreign key), as 00023 rebuilt
-- orders.

-- +goose Up
PRAGMA defer_foreign_keys = ON;
PRAGMA legacy_alter_table = ON;
CREATE TABLE ledger_new (
    id            INTEGER PRIMARY KEY AUTOINCREMENT,
    account_id    TEXT NOT NULL REFERENCES accounts (id),
    seq           INTEGER NOT NULL CHECK (seq >= 1),
    kind          TEXT NOT NULL CHECK (kind IN ('credit', 'charge', 'refund', 'deposit')),
    amount        INTEGER NOT NULL,
    balance_after INTEGER NOT NULL CHECK (balance_after >= 0),
    order_seq     INTEGER REFERENCES orders (seq),
    reference     TEXT,
    created_at    INTEGER NOT NULL,
    UNIQUE (account_id, seq),
    CHECK ((kind IN ('credit', 'deposit')) = (reference IS NOT NULL)),
    CHECK ((kind IN ('credit', 'deposit')) = (order_seq IS NULL)),
    CHECK (kind <> 'charge' OR amount < 0),
    CHECK (kind <> 'refund' OR amount > 0),
    CHECK (kind <> 'deposit' OR amount > 0)
);
INSERT INTO ledger_new (id, account_id, seq, kind, amount, balance_after, order_seq, reference, created_at)
    SELECT id, account_id, seq, kind, amount, balance_after, order_seq, reference, created_at FROM ledger;
DROP TABLE ledger;
ALTER TABLE ledger_new RENAME TO ledger;
PRAGMA legacy_alter_table = OFF;
CREATE UNIQUE INDEX ledger_credit_reference ON ledger (account_id, reference) WHERE kind = 'credit';
CREATE UNIQUE INDEX ledger_one_charge ON ledger (order_seq) WHERE kind = 'charge';
CREATE UNIQUE INDEX ledger_one_refund ON ledger (order_seq) WHERE kind = 'refund';
CREATE INDEX ledger_kind ON ledger (account_id, kind);
CREATE INDEX ledger_account_time ON ledger (account_id, created_at, amount);
CREATE UNIQUE INDEX ledger_one_deposit ON ledger (reference) WHERE kind = 'deposit';

-- +goose StatementBegin
CREATE TRIGGER ledger_chain BEFORE INSERT ON ledger
BEGIN
    SELECT RAISE(ABORT, 'ledger: entry does not continue the account chain')
    WHERE (NEW.seq > 1 AND NOT EXISTS (SELECT 1 FROM ledger WHERE account_id = NEW.account_id AND seq = NEW.seq - 1))
       OR NEW.balance_after IS NOT COALESCE((SELECT balance_after FROM ledger WHERE account_id = NEW.account_id AND seq = NEW.seq - 1), 0) + NEW.amount;
    SELECT RAISE(ABORT, 'ledger: an order entry must belong to the order''s account')
    WHERE NEW.order_seq IS NOT NULL
      AND NEW.account_id IS NOT (SELECT account_id FROM orders WHERE seq = NEW.order_seq);
    SELECT RAISE(ABORT, 'ledger: a charge must be the order''s amount')
    WHERE NEW.kind = 'charge' AND -NEW.amount IS NOT (SELECT amount FROM orders WHERE seq = NEW.order_seq);
    SELECT RAISE(ABORT, 'ledger: a refund must return the charge of a cancelled order flagged refunded, or of a completed order its supplier did not deliver')
    WHERE NEW.kind = 'refund'
      AND (NEW.amount IS NOT (SELECT -amount FROM ledger WHERE order_seq = NEW.order_seq AND kind = 'charge')
           OR NOT COALESCE((SELECT (o.status = 'cancelled' AND o.refunded = 1)
                  OR (o.status = 'completed' AND EXISTS (SELECT 1 FROM reconciliation_mismatches m WHERE m.order_id = o.id
                      AND m.state = 'open' AND (m.kind = 'missing_upstream' OR (m.kind = 'status_mismatch' AND m.their_status = 'cancelled'))))
                  FROM orders o WHERE o.seq = NEW.order_seq), 0));
END;
-- +goose StatementEnd

-- +goose StatementBegin
CREATE TRIGGER ledger_no_update BEFORE UPDATE ON ledger
BEGIN
    SELECT RAISE(ABORT, 'ledger: entries are never changed');
END;
-- +goose StatementEnd

-- +goose StatementBegin
CREATE TRIGGER ledger_no_delete BEFORE DELETE ON ledger
BEGIN
    SELECT RAISE(ABORT, 'ledger: entries are never deleted');
END;
-- +goose StatementEnd

ALTER TABLE deposits ADD COLUMN bank_ref TEXT;
ALTER TABLE deposits ADD COLUMN received INTEGER CHECK (received > 0);
ALTER TABLE deposits ADD COLUMN first_by TEXT NOT NULL DEFAULT '';
ALTER TABLE deposits ADD COLUMN first_at INTEGER CHECK ((first_at IS NULL) = (first_by = ''));
ALTER TABLE deposits ADD COLUMN reason TEXT NOT NULL DEFAULT '';
ALTER TABLE deposits ADD COLUMN rejected_by TEXT NOT NULL DEFAULT '' CHECK ((status = 'rejected') = (rejected_by <> '' AND reason <> ''));
ALTER TABLE deposits ADD COLUMN credited INTEGER CHECK (credited > 0);
ALTER TABLE deposits ADD COLUMN confirmed_by TEXT NOT NULL DEFAULT '';
ALTER TABLE deposits ADD COLUMN confirmed_at INTEGER;
ALTER TABLE deposits ADD COLUMN entry_id INTEGER
    CHECK ((status = 'confirmed') = (entry_id IS NOT NULL AND credited IS NOT NULL AND confirmed_at IS NOT NULL AND confirmed_by <> '' AND bank_ref IS NOT NULL));
CREATE UNIQUE INDEX deposits_bank_ref ON deposits (bank_ref) WHERE bank_ref IS NOT NULL;
CREATE UNIQUE INDEX deposits_entry ON deposits (entry_id) WHERE entry_id IS NOT NULL;

-- +goose Down
-- (A deposit entry left in the ledger fails the rebuild's copy: the
-- old kinds do not allow it.)
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
PRAGMA defer_foreign_keys = ON;
PRAGMA legacy_alter_table = ON;
CREATE TABLE ledger_new (
    id            INTEGER PRIMARY KEY AUTOINCREMENT,
    account_id    TEXT NOT NULL REFERENCES accounts (id),
    seq           INTEGER NOT NULL CHECK (seq >= 1),
    kind          TEXT NOT NULL CHECK (kind IN ('credit', 'charge', 'refund')),
    amount        INTEGER NOT NULL,
    balance_after INTEGER NOT NULL CHECK (balance_after >= 0),
    order_seq     INTEGER REFERENCES orders (seq),
    reference     TEXT,
    created_at    INTEGER NOT NULL,
    UNIQUE (account_id, seq),
    CHECK ((kind = 'credit') = (reference IS NOT NULL)),
    CHECK ((kind = 'credit') = (order_seq IS NULL)),
    CHECK (kind <> 'charge' OR amount < 0),
    CHECK (kind <> 'refund' OR amount > 0)
);
INSERT INTO ledger_new (id, account_id, seq, kind, amount, balance_after, order_seq, reference, created_at)
    SELECT id, account_id, seq, kind, amount, balance_after, order_seq, reference, created_at FROM ledger;
DROP TABLE ledger;
ALTER TABLE ledger_new RENAME TO ledger;
PRAGMA legacy_alter_table = OFF;
CREATE UNIQUE INDEX ledger_credit_reference ON ledger (account_id, reference) WHERE kind = 'credit';
CREATE UNIQUE INDEX ledger_one_charge ON ledger (order_seq) WHERE kind = 'charge';
CREATE UNIQUE INDEX ledger_one_refund ON ledger (order_seq) WHERE kind = 'refund';
CREATE INDEX ledger_kind ON ledger (account_id, kind);
CREATE INDEX ledger_account_time ON ledger (account_id, created_at, amount);

-- +goose StatementBegin
CREATE TRIGGER ledger_chain BEFORE INSERT ON ledger
BEGIN
    SELECT RAISE(ABORT, 'ledger: entry does not continue the account chain')
    WHERE (NEW.seq > 1 AND NOT EXISTS (SELECT 1 FROM ledger WHERE account_id = NEW.account_id AND seq = NEW.seq - 1))
       OR NEW.balance_after IS NOT COALESCE((SELECT balance_after FROM ledger WHERE account_id = NEW.account_id AND seq = NEW.seq - 1), 0) + NEW.amount;
    SELECT RAISE(ABORT, 'ledger: an order entry must belong to the order''s account')
    WHERE NEW.order_seq IS NOT NULL
      AND NEW.account_id IS NOT (SELECT account_id FROM orders WHERE seq = NEW.order_seq);
    SELECT RAISE(ABORT, 'ledger: a charge must be the order''s amount')
    WHERE NEW.kind = 'charge' AND -NEW.amount IS NOT (SELECT amount FROM orders WHERE seq = NEW.order_seq);
    SELECT RAISE(ABORT, 'ledger: a refund must return the charge of a cancelled order flagged refunded, or of a completed order its supplier did not deliver')
    WHERE NEW.kind = 'refund'
      AND (NEW.amount IS NOT (SELECT -amount FROM ledger WHERE order_seq = NEW.order_seq AND kind = 'charge')
           OR NOT COALESCE((SELECT (o.status = 'cancelled' AND o.refunded = 1)
                  OR (o.status = 'completed' AND EXISTS (SELECT 1 FROM reconciliation_mismatches m WHERE m.order_id = o.id
                      AND m.state = 'open' AND (m.kind = 'missing_upstream' OR (m.kind = 'status_mismatch' AND m.their_status = 'cancelled'))))
                  FROM orders o WHERE o.seq = NEW.order_seq), 0));
END;
-- +goose StatementEnd

-- +goose StatementBegin
CREATE TRIGGER ledger_no_update BEFORE UPDATE ON ledger
BEGIN
    SELECT RAISE(ABORT, 'ledger: entries are never changed');
END;
-- +goose StatementEnd

-- +goose StatementBegin
CREATE TRIGGER ledger_no_delete BEFORE DELETE ON ledger
BEGIN
    SELECT RAISE(ABORT, 'ledger: entries are never deleted');
END;
-- +goose StatementEnd
