-- The secret key's fingerprint, and the stock provider.
--
-- secret_key: a keyed digest of a constant under the key that seals codes,
-- upstream keys and TOTP secrets (sqlstore/secretkey.go). A start with
-- another key is refused instead of running with values it cannot open and
-- code fingerprints that no longer find duplicates.
--
-- Packs that draw from stock (a gamekey or giftcard line, or stockBased)
-- are fulfilled from their own codes whatever --sim says: their provider is
-- 'stock'. Those stored as 'sim' (the old default) become 'stock'; a supplier
-- list starting with sim meant nothing for them and is dropped.

-- +goose Up
CREATE TABLE secret_key (
    id          INTEGER PRIMARY KEY CHECK (id = 1),
    fingerprint BYTEA NOT NULL,
    created_at  BIGINT NOT NULL
);

UPDATE packs SET provider = 'stock', suppliers = ''
WHERE provider = 'sim'
  AND (stock_based = 1 OR slug IN (SELECT slug FROM lines WHERE kind IN ('gamekey', 'giftcard')));

-- +goose Down
UPDATE packs SET provider = 'sim' WHERE provider = 'stock';
DROP TABLE secret_key;
