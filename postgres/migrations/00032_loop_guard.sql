-- The loop guard (back-office.md, "Loop guard"): this deployment's
-- instance id, made by the first server to start on the database and never
-- changed (the same on every node, since it is the database's; a copy of
-- a database migrated but never served, as the tests' templates are, gets
-- one of its own), and the route each order came by: the
-- instance ids of the servers it passed through before this one
-- (comma-separated) and their count as its request said (Topupd-Hops), so
-- that the engine's calls to an upstream, at any later time, name them.
-- +goose Up
CREATE TABLE instance (
    singleton INTEGER PRIMARY KEY CHECK (singleton = 1),
    id        TEXT NOT NULL CHECK (length(id) = 24 AND substr(id, 1, 4) = 'ins_')
);
ALTER TABLE orders ADD COLUMN via TEXT NOT NULL DEFAULT '';
ALTER TABLE orders ADD COLUMN hops INTEGER NOT NULL DEFAULT 0 CHECK (hops >= 0);

-- +goose Down
ALTER TABLE orders DROP COLUMN hops;
ALTER TABLE orders DROP COLUMN via;
DROP TABLE instance;
