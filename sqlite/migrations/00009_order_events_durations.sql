-- The order's history and the time orders take to a final state.
--
-- order_events: each step of an order after it was placed, written in the
-- transaction that takes it: a submit started (submitting), a supplier
-- call that left it processing (retry, with why), an operator's retry
-- (retried), and its end (completed, cancelled). The placement and, for
-- orders settled before this table, the end are read from the order row.
--
-- durations_daily: per UTC day of an order's creation and line, how many
-- orders reached a final state within each bucket of time from placed to
-- final. The bucket edges are topupd.DurationBuckets; the CASE below is
-- sqlstore's bucketCase, which a test holds this file to. The store adds
-- each order in the transaction that makes it final, so the dashboard's
-- percentiles of a month read a few thousand rows instead of every order;
-- /admin/audit checks the roll-ups against the orders. Filled here from
-- the final orders already stored.

-- +goose Up
CREATE TABLE order_events (
    id        INTEGER PRIMARY KEY,
    order_seq INTEGER NOT NULL REFERENCES orders (seq),
    at        INTEGER NOT NULL,
    kind      TEXT NOT NULL,
    note      TEXT NOT NULL DEFAULT ''
);
CREATE INDEX order_events_order ON order_events (order_seq, at);

CREATE TABLE durations_daily (
    day    INTEGER NOT NULL,
    slug   TEXT NOT NULL,
    bucket INTEGER NOT NULL CHECK (bucket >= 0),
    orders INTEGER NOT NULL CHECK (orders > 0),
    PRIMARY KEY (day, slug, bucket)
);

INSERT INTO durations_daily (day, slug, bucket, orders)
SELECT day, slug, bucket, COUNT(*) AS orders FROM (
	SELECT created_at / 86400000 AS day, slug, CASE
	WHEN finished_at - created_at <= 100 THEN 0
	WHEN finished_at - created_at <= 250 THEN 1
	WHEN finished_at - created_at <= 500 THEN 2
	WHEN finished_at - created_at <= 1000 THEN 3
	WHEN finished_at - created_at <= 2000 THEN 4
	WHEN finished_at - created_at <= 5000 THEN 5
	WHEN finished_at - created_at <= 10000 THEN 6
	WHEN finished_at - created_at <= 30000 THEN 7
	WHEN finished_at - created_at <= 60000 THEN 8
	WHEN finished_at - created_at <= 120000 THEN 9
	WHEN finished_at - created_at <= 300000 THEN 10
	WHEN finished_at - created_at <= 600000 THEN 11
	WHEN finished_at - created_at <= 1800000 THEN 12
	WHEN finished_at - created_at <= 3600000 THEN 13
	WHEN finished_at - created_at <= 7200000 THEN 14
	WHEN finished_at - created_at <= 21600000 THEN 15
	WHEN finished_at - created_at <= 43200000 THEN 16
	WHEN finished_at - created_at <= 86400000 THEN 17
	WHEN finished_at - created_at <= 172800000 THEN 18
	ELSE 19 END AS bucket
	FROM orders WHERE status IN ('completed', 'cancelled')) f
GROUP BY day, slug, bucket;

-- +goose Down
DROP TABLE durations_daily;
DROP TABLE order_events;
