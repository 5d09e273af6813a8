-- Codes are unique across every pack, delivered or in stock: code_fp is a
-- keyed fingerprint of the code alone (the fingerprint column is keyed by
-- pack as well). Rows from before this migration are given theirs by the
-- store when it opens (sqlstore.Store.BackfillCodeFingerprints); every new
-- row must carry one.
-- Orders gain alert: why a processing order needs the operator (its outcome
-- is unknown past its deadline, or its supplier handed over a used code).

-- +goose Up
ALTER TABLE codes ADD COLUMN code_fp BYTEA;
CREATE UNIQUE INDEX codes_code_fp ON codes (code_fp);
CREATE TRIGGER codes_need_code_fp BEFORE INSERT ON codes
    FOR EACH ROW WHEN (NEW.code_fp IS NULL)
    EXECUTE FUNCTION topupd_refuse('codes: every code carries its global fingerprint');
CREATE TRIGGER codes_code_fp_fixed BEFORE UPDATE OF code_fp ON codes
    FOR EACH ROW WHEN (OLD.code_fp IS NOT NULL AND NEW.code_fp IS DISTINCT FROM OLD.code_fp)
    EXECUTE FUNCTION topupd_refuse('codes: a code never changes');

ALTER TABLE orders ADD COLUMN alert TEXT NOT NULL DEFAULT '';
-- The operator's listings by account.
CREATE INDEX orders_account ON orders (account_id, seq);

-- +goose Down
DROP INDEX orders_account;
ALTER TABLE orders DROP COLUMN alert;
DROP TRIGGER codes_code_fp_fixed ON codes;
DROP TRIGGER codes_need_code_fp ON codes;
DROP INDEX codes_code_fp;
ALTER TABLE codes DROP COLUMN code_fp;
