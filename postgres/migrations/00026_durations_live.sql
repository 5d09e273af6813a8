-- Sandbox orders are never in reports (integration.md, "Sandbox"), but
-- until this migration a sandbox order that became final was counted in
-- durations_daily, the roll-up of time to a final state that the reports'
-- percentiles read. The store no longer counts them (sqlstore
-- rollUpDuration); this refills the roll-up from the live orders alone,
-- with the query the audit recounts it with
-- (sqlstore.DurationsDailyFromLiveOrders, held to this file by a test).
-- Down refills it from every final order, as 00009 did.
-- +goose Up
DELETE FROM durations_daily;
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
	FROM orders WHERE status IN ('completed', 'cancelled') AND sandbox = 0) f
GROUP BY day, slug, bucket;

-- +goose Down
DELETE FROM durations_daily;
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
