-- Floe demo: an Iceberg table partitioned by day, written twice and read back through Spark.
-- Run it with:  bin/floe-sql -f demo/demo.sql
-- The table lives in the embedded default warehouse, ./floe-warehouse under the directory you run
-- it from. The demo starts from scratch each time, so it can be run again.

CREATE NAMESPACE IF NOT EXISTS floe.demo;

DROP TABLE IF EXISTS floe.demo.events PURGE;

CREATE TABLE floe.demo.events (
  id     BIGINT,
  kind   STRING,
  amount DECIMAL(10, 2),
  ts     TIMESTAMP)
USING iceberg
PARTITIONED BY (days(ts));

-- first write: one snapshot, two daily partitions
INSERT INTO floe.demo.events VALUES
  (1, 'click',    1.50,  TIMESTAMP '2024-05-01 09:15:00'),
  (2, 'view',     0.00,  TIMESTAMP '2024-05-01 17:40:00'),
  (3, 'purchase', 42.00, TIMESTAMP '2024-05-02 11:05:00');

-- second write: a second snapshot
INSERT INTO floe.demo.events VALUES
  (4, 'click',    2.25,  TIMESTAMP '2024-05-02 12:00:00'),
  (5, 'purchase', 17.99, TIMESTAMP '2024-05-03 08:30:00');

-- a filtered read: the filter on ts prunes the 2024-05-01 partition
SELECT id, kind, amount, ts
FROM floe.demo.events
WHERE ts >= TIMESTAMP '2024-05-02 00:00:00'
ORDER BY id;

-- floe is the current catalog, so demo.events names the same table
SELECT kind, count(*) AS events, sum(amount) AS total
FROM demo.events
GROUP BY kind
ORDER BY kind;

-- every write is one snapshot
SELECT snapshot_id, operation
FROM floe.demo.events.snapshots
ORDER BY committed_at;

DESCRIBE TABLE EXTENDED floe.demo.events;
