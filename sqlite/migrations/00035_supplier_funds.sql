-- Suppliers' money (back-office.md, section 1): each upstream's balance
-- alert, as the hysteresis left it, and when its balance was last polled
-- (the nodes share one schedule); how often to poll (a setting); the
-- burn's index (the costs of the orders completed at an upstream in the
-- last 24 hours); the operator events' index in the stream; and an
-- attempt left for the money ('balance', or refused with 'balance:
-- INSUFFICIENT BALANCE') may become current again, once its order waited
-- for funds: it surely holds no order (order_attempts_forward).
-- +goose Up
ALTER TABLE upstreams ADD COLUMN balance_alert TEXT NOT NULL DEFAULT 'none' CHECK (balance_alert IN ('none', 'warn', 'critical'));
ALTER TABLE upstreams ADD COLUMN polled_at INTEGER;
ALTER TABLE settings ADD COLUMN upstream_balance_poll_minutes INTEGER NOT NULL DEFAULT 5
    CHECK (upstream_balance_poll_minutes BETWEEN 0 AND 1440);
CREATE INDEX orders_upstream_done ON orders (upstream, finished_at) WHERE status = 'completed';
CREATE INDEX events_operator ON events (tx, seq) WHERE type IN ('supplier.balance.warn', 'supplier.balance.critical',
    'supplier.balance.recovered', 'reconciliation.mismatches', 'reconciliation.failed', 'price.held');
DROP TRIGGER order_attempts_forward;
-- +goose StatementBegin
CREATE TRIGGER order_attempts_forward BEFORE UPDATE ON order_attempts
WHEN NEW.order_seq IS NOT OLD.order_seq OR NEW.attempt IS NOT OLD.attempt OR NEW.provider IS NOT OLD.provider
  OR NEW.upstream IS NOT OLD.upstream OR NEW.upstream_pid IS NOT OLD.upstream_pid OR NEW.cost IS NOT OLD.cost
  OR NOT ((OLD.outcome = 'waiting' AND NEW.outcome IN ('trying', 'skipped'))
       OR (OLD.outcome = 'trying' AND NEW.outcome IN ('skipped', 'refused', 'not-found', 'completed', 'cancelled'))
       OR (OLD.outcome IN ('skipped', 'refused') AND OLD.why IN ('balance', 'balance: INSUFFICIENT BALANCE') AND NEW.outcome = 'trying'))
BEGIN
    SELECT RAISE(ABORT, 'order_attempts: an attempt only moves forward, and its supplier never changes');
END;
-- +goose StatementEnd

-- +goose Down
DROP TRIGGER order_attempts_forward;
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
DROP INDEX events_operator;
DROP INDEX orders_upstream_done;
ALTER TABLE settings DROP COLUMN upstream_balance_poll_minutes;
ALTER TABLE upstreams DROP COLUMN polled_at;
ALTER TABLE upstreams DROP COLUMN balance_alert;
