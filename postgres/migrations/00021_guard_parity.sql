-- The settings row and the bot_state row are never deleted: their DELETE
-- triggers (00001, 00011) are row triggers, which TRUNCATE skips, so
-- TRUNCATE is refused too, as it is on every other table that keeps its
-- rows. (The same migration on SQLite adds the rules that its schema
-- lacked and this one had; see the SQLite store's 00021.)

-- +goose Up
CREATE TRIGGER settings_no_truncate BEFORE TRUNCATE ON settings
    FOR EACH STATEMENT EXECUTE FUNCTION topupd_refuse('settings: the settings row is never deleted');
CREATE TRIGGER bot_state_no_truncate BEFORE TRUNCATE ON bot_state
    FOR EACH STATEMENT EXECUTE FUNCTION topupd_refuse('bot_state: the bot state row is never deleted');

-- +goose Down
DROP TRIGGER bot_state_no_truncate ON bot_state;
DROP TRIGGER settings_no_truncate ON settings;
