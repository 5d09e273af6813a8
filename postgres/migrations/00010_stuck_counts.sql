-- The supplier list counts each supplier's stuck orders (processing with
-- an alert, or past their deadline). This partial index holds only the
-- processing orders, with every column the count reads, in the order it
-- groups them: the count reads the index alone, however many orders there
-- are.

-- +goose Up
CREATE INDEX orders_stuck ON orders (provider, upstream, deadline_at, alert) WHERE status = 'processing';

-- +goose Down
DROP INDEX orders_stuck;
