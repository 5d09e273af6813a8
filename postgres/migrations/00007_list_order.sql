-- The admin lists of orders and of actions run newest first by time, then
-- by number (an order's created_at and seq, an action's at and id), and a
-- cursor names the last row's time and number. Every filter has an index
-- that ends in those two columns, so any page, on its own or inside a
-- period, is one range of one index, whatever its depth.

-- +goose Up
DROP INDEX orders_status;
CREATE INDEX orders_status ON orders (status, created_at, seq);
DROP INDEX orders_account;
CREATE INDEX orders_account ON orders (account_id, created_at, seq);
CREATE INDEX orders_pack ON orders (pid, created_at, seq);
CREATE INDEX orders_line ON orders (slug, created_at, seq);
CREATE INDEX orders_provider ON orders (provider, created_at, seq);
DROP INDEX orders_created;
CREATE INDEX orders_created ON orders (created_at, seq);

DROP INDEX actions_operator;
CREATE INDEX actions_operator ON actions (operator, at, id);
DROP INDEX actions_account;
CREATE INDEX actions_account ON actions (account_id, at, id);
DROP INDEX actions_action;
CREATE INDEX actions_action ON actions (action, at, id);
CREATE INDEX actions_at ON actions (at, id);

-- +goose Down
DROP INDEX actions_at;
DROP INDEX actions_action;
CREATE INDEX actions_action ON actions (action, id);
DROP INDEX actions_account;
CREATE INDEX actions_account ON actions (account_id, id);
DROP INDEX actions_operator;
CREATE INDEX actions_operator ON actions (operator, id);

DROP INDEX orders_created;
CREATE INDEX orders_created ON orders (created_at);
DROP INDEX orders_provider;
DROP INDEX orders_line;
DROP INDEX orders_pack;
DROP INDEX orders_account;
CREATE INDEX orders_account ON orders (account_id, seq);
DROP INDEX orders_status;
CREATE INDEX orders_status ON orders (status, seq);
