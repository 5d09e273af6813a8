-- What we know of each upstream, kept in the database so that every node
-- answers the same (back-office.md, section 1): our balance there and when
-- it was learned (NULL until then), whether the last call succeeded
-- (state: unchecked until the first successful call), and the runway
-- thresholds of its balance alert, in hours.
-- +goose Up
ALTER TABLE upstreams ADD COLUMN balance BIGINT;
ALTER TABLE upstreams ADD COLUMN balance_at BIGINT;
ALTER TABLE upstreams ADD COLUMN state TEXT NOT NULL DEFAULT 'unchecked' CHECK (state IN ('unchecked', 'ok', 'failing'));
ALTER TABLE upstreams ADD COLUMN warn_hours DOUBLE PRECISION NOT NULL DEFAULT 24 CHECK (warn_hours > 0);
ALTER TABLE upstreams ADD COLUMN critical_hours DOUBLE PRECISION NOT NULL DEFAULT 4 CHECK (critical_hours > 0 AND critical_hours <= warn_hours);

-- +goose Down
ALTER TABLE upstreams DROP COLUMN critical_hours;
ALTER TABLE upstreams DROP COLUMN warn_hours;
ALTER TABLE upstreams DROP COLUMN state;
ALTER TABLE upstreams DROP COLUMN balance_at;
ALTER TABLE upstreams DROP COLUMN balance;
