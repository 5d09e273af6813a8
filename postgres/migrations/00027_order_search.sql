-- The console's order search (issue 22): by the player's id, newest first
-- as every list; and by a trxid's start whatever its case, one range of
-- the lowered trxids compared byte by byte (COLLATE "C"), so that a prefix
-- is one range whatever the database's collation.
-- +goose Up
CREATE INDEX orders_player ON orders (user_id, created_at, seq);
CREATE INDEX orders_trxid_fold ON orders ((lower(trxid) COLLATE "C"), seq);

-- +goose Down
DROP INDEX orders_trxid_fold;
DROP INDEX orders_player;
