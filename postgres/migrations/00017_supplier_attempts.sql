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
    order_seq    BIGINT NOT NULL REFERENCES orders (seq),
    attempt      INTEGER NOT NULL CHECK (attempt >= 1),
    provider     TEXT NOT NULL,
    upstream     TEXT NOT NULL DEFAULT '',
    upstream_pid TEXT NOT NULL DEFAULT '',
    cost         BIGINT CHECK (cost >= 0),
    outcome      TEXT NOT NULL CHECK (outcome IN ('waiting', 'trying', 'skipped', 'refused', 'not-found', 'completed', 'cancelled')),
    why          TEXT NOT NULL DEFAULT '',
    started_at   BIGINT,
    finished_at  BIGINT,
    PRIMARY KEY (order_seq, attempt)
);
CREATE UNIQUE INDEX order_attempts_one_holder ON order_attempts (order_seq)
    WHERE outcome IN ('trying', 'completed', 'cancelled');

CREATE TRIGGER order_attempts_forward BEFORE UPDATE ON order_attempts
    FOR EACH ROW WHEN (NEW.order_seq IS DISTINCT FROM OLD.order_seq OR NEW.attempt IS DISTINCT FROM OLD.attempt
        OR NEW.provider IS DISTINCT FROM OLD.provider OR NEW.upstream IS DISTINCT FROM OLD.upstream
        OR NEW.upstream_pid IS DISTINCT FROM OLD.upstream_pid OR NEW.cost IS DISTINCT FROM OLD.cost
        OR NOT ((OLD.outcome = 'waiting' AND NEW.outcome IN ('trying', 'skipped'))
             OR (OLD.outcome = 'trying' AND NEW.outcome IN ('skipped', 'refused', 'not-found', 'completed', 'cancelled'))))
    EXECUTE FUNCTION topupd_refuse('order_attempts: an attempt only moves forward, and its supplier never changes');
CREATE TRIGGER order_attempts_no_delete BEFORE DELETE ON order_attempts
    FOR EACH ROW EXECUTE FUNCTION topupd_refuse('order_attempts: attempts are never deleted');
CREATE TRIGGER order_attempts_no_truncate BEFORE TRUNCATE ON order_attempts
    FOR EACH STATEMENT EXECUTE FUNCTION topupd_refuse('order_attempts: attempts are never deleted');

-- +goose Down
DROP TABLE order_attempts;
