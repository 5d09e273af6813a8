-- What placing an order reads of the catalog and of an account's prices
-- (a pack, its line, the account's price book for the pack) is kept in
-- memory under terms_version (internal/sqlstore/termscache.go). Every
-- change to the tables it comes from (packs, lines, tiers, tier_prices,
-- account_prices) raises the version, by the triggers here, in the
-- change's own transaction; an order reads the version with its account's
-- row lock, and uses what it kept only at the version it was read at. The
-- account's own terms (its tier and limits) are read from its locked row
-- every time. The triggers here and on PostgreSQL have the same names and events.

-- +goose Up
CREATE TABLE terms_version (
    id      INTEGER PRIMARY KEY CHECK (id = 1),
    version INTEGER NOT NULL
);
INSERT INTO terms_version (id, version) VALUES (1, 1);

-- +goose StatementBegin
CREATE TRIGGER packs_terms_new AFTER INSERT ON packs
BEGIN
    UPDATE terms_version SET version = version + 1;
END;
-- +goose StatementEnd

-- +goose StatementBegin
CREATE TRIGGER packs_terms_changed AFTER UPDATE ON packs
BEGIN
    UPDATE terms_version SET version = version + 1;
END;
-- +goose StatementEnd

-- +goose StatementBegin
CREATE TRIGGER packs_terms_gone AFTER DELETE ON packs
BEGIN
    UPDATE terms_version SET version = version + 1;
END;
-- +goose StatementEnd

-- +goose StatementBegin
CREATE TRIGGER lines_terms_new AFTER INSERT ON lines
BEGIN
    UPDATE terms_version SET version = version + 1;
END;
-- +goose StatementEnd

-- +goose StatementBegin
CREATE TRIGGER lines_terms_changed AFTER UPDATE ON lines
BEGIN
    UPDATE terms_version SET version = version + 1;
END;
-- +goose StatementEnd

-- +goose StatementBegin
CREATE TRIGGER lines_terms_gone AFTER DELETE ON lines
BEGIN
    UPDATE terms_version SET version = version + 1;
END;
-- +goose StatementEnd

-- +goose StatementBegin
CREATE TRIGGER tiers_terms_new AFTER INSERT ON tiers
BEGIN
    UPDATE terms_version SET version = version + 1;
END;
-- +goose StatementEnd

-- +goose StatementBegin
CREATE TRIGGER tiers_terms_changed AFTER UPDATE ON tiers
BEGIN
    UPDATE terms_version SET version = version + 1;
END;
-- +goose StatementEnd

-- +goose StatementBegin
CREATE TRIGGER tiers_terms_gone AFTER DELETE ON tiers
BEGIN
    UPDATE terms_version SET version = version + 1;
END;
-- +goose StatementEnd

-- +goose StatementBegin
CREATE TRIGGER tier_prices_terms_new AFTER INSERT ON tier_prices
BEGIN
    UPDATE terms_version SET version = version + 1;
END;
-- +goose StatementEnd

-- +goose StatementBegin
CREATE TRIGGER tier_prices_terms_changed AFTER UPDATE ON tier_prices
BEGIN
    UPDATE terms_version SET version = version + 1;
END;
-- +goose StatementEnd

-- +goose StatementBegin
CREATE TRIGGER tier_prices_terms_gone AFTER DELETE ON tier_prices
BEGIN
    UPDATE terms_version SET version = version + 1;
END;
-- +goose StatementEnd

-- +goose StatementBegin
CREATE TRIGGER account_prices_terms_new AFTER INSERT ON account_prices
BEGIN
    UPDATE terms_version SET version = version + 1;
END;
-- +goose StatementEnd

-- +goose StatementBegin
CREATE TRIGGER account_prices_terms_changed AFTER UPDATE ON account_prices
BEGIN
    UPDATE terms_version SET version = version + 1;
END;
-- +goose StatementEnd

-- +goose StatementBegin
CREATE TRIGGER account_prices_terms_gone AFTER DELETE ON account_prices
BEGIN
    UPDATE terms_version SET version = version + 1;
END;
-- +goose StatementEnd

-- +goose Down
DROP TRIGGER account_prices_terms_gone;
DROP TRIGGER account_prices_terms_changed;
DROP TRIGGER account_prices_terms_new;
DROP TRIGGER tier_prices_terms_gone;
DROP TRIGGER tier_prices_terms_changed;
DROP TRIGGER tier_prices_terms_new;
DROP TRIGGER tiers_terms_gone;
DROP TRIGGER tiers_terms_changed;
DROP TRIGGER tiers_terms_new;
DROP TRIGGER lines_terms_gone;
DROP TRIGGER lines_terms_changed;
DROP TRIGGER lines_terms_new;
DROP TRIGGER packs_terms_gone;
DROP TRIGGER packs_terms_changed;
DROP TRIGGER packs_terms_new;
DROP TABLE terms_version;
