-- Codes are unique across every pack, delivered or in stock: code_fp is a
-- keyed fingerprint of the code alone (the fingerprint column is keyed by
-- pack as well). Rows from before this migration are given theirs by the
-- store when it opens (sqlstore.Store.BackfillCodeFingerprints); every new
-- row must carry one.
-- Orders gain alert: why a processing order needs the operator (its outcome
-- is unknown past its deadline, or its supplier handed over a used code).

-- +goose Up
ALTER TABLE codes ADD COLUMN code_fp BLOB;
CREATE UNIQUE INDEX codes_code_fp ON codes (code_fp);

-- +goose StatementBegin
CREATE TRIGGER codes_need_code_fp BEFORE INSERT ON codes
WHEN NEW.code_fp IS NULL
BEGIN
    SELECT RAISE(ABORT, 'codes: every code carries its global fingerprint');
END;
-- +goose StatementEnd

-- +goose StatementBegin
CREATE TRIGGER codes_code_fp_fixed BEFORE UPDATE OF code_fp ON codes
WHEN OLD.code_fp IS NOT NULL AND NEW.code_fp IS NOT OLD.code_fp
BEGIN
    SELECT RAISE(ABORT, 'codes: a code never changes');
END;
-- +goose StatementEnd

ALTER TABLE orders ADD COLUMN alert TEXT NOT NULL DEFAULT '';
-- The operator's listings by account.
CREATE INDEX orders_account ON orders (account_id, seq);

-- +goose Down
DROP INDEX orders_account;
ALTER TABLE orders DROP COLUMN alert;
DROP TRIGGER codes_code_fp_fixed;
DROP TRIGGER codes_need_code_fp;
DROP INDEX codes_code_fp;
ALTER TABLE codes DROP COLUMN code_fp;
