-- Supplier failover: the suppliers an order may go to, and how trying each
-- went (see docs/failover.md).
--
-- order_attempts: for an order of a pack that lists suppliers, one row per
-- supplier of the list as it was when the order was placed (a later edit
-- of the pack does not change where a placed order may go), by its place
-- in the list. cost is that supplier's own cost of one unit, NULL when it
-- has none (the pack's cost applies). outcome is
--   waiting    not reached (yet);
--   trying     the order's current supplier, whose provider, upstream and
--              upstream_pid the order row carries: at most one per order;
--   skipped    passed over, never called (unhealthy when reached, or, the
--              first, when the order was about to be sent to it);
--   refused    refused the order at submit: it holds no order;
--   not-found  its status lookup found no order, so the order moved on;
--   completed, cancelled   the order ended while this supplier was current.
-- Only trying, completed and cancelled rows ever held the order, and an
-- order has at most one of them: the order moves only when its current
-- supplier surely has none. A row moves forward only (waiting to trying or
-- skipped; trying to any end) and its supplier never changes; rows are
-- never deleted.

-- +goose Up
CREATE TABLE order_attempts (
    order_seq    INTEGER NOT NULL REFERENCES orders (seq),
    attempt      INTEGER NOT NULL CHECK (attempt >= 1),
    provider     TEXT NOT NULL,
    upstream     TEXT NOT NULL DEFAULT '',
    upstream_pid TEXT NOT NULL DEFAULT '',
    cost         INTEGER CHECK (cost >= 0),
    outcome      TEXT NOT NULL CHECK (outcome IN ('waiting', 'trying', 'skipped', 'refused', 'not-found', 'completed', 'cancelled')),
    why          TEXT NOT NULL DEFAULT '',
    started_at   INTEGER,
    finished_at  INTEGER,
    PRIMARY KEY (order_seq, attempt)
);
CREATE UNIQUE INDEX order_attempts_one_holder ON order_attempts (order_seq)
    WHERE outcome IN ('trying', 'completed', 'cancelled');

-- +goose StatementBegin
CREATE TRIGGER order_attempts_forward BEFORE UPDATE ON order_attempts
WHEN NEW.order_seq IS NOT OLD.order_seq OR NEW.attempt IS NOT OLD.attempt OR NEW.provider IS NOT OLD.provider
  OR NEW.upstream IS NOT OLD.upstream OR NEW.upstream_pid IS NOT OLD.upstream_pid OR NEW.cost IS NOT OLD.cost
  OR NOT ((OLD.outcome = 'waiting' AND NEW.outcome IN ('trying', 'skipped'))
       OR (OLD.outcome = 'trying' AND NEW.outcome IN ('skipped', 'refused', 'not-found', 'completed', 'cancelled')))
BEGIN
    SELECT RAISE(ABORT, 'order_attempts: an attempt only moves forward, and its supplier never changes');
END;
-- +goose StatementEnd

-- +goose StatementBegin
CREATE TRIGGER order_attempts_no_delete BEFORE DELETE ON order_attempts
BEGIN
    SELECT RAISE(ABORT, 'order_attempts: attempts are never deleted');
END;
-- +goose StatementEnd

-- +goose Down
DROP TRIGGER order_attempts_no_delete;
DROP TRIGGER order_attempts_forward;
DROP TABLE order_attempts;
