-- 28_timestamptz: timestamp with time zone computed on the device in a
-- fixed-offset session time zone (UTC, '+05:30'): date_trunc, date_part,
-- extract, casts from and to date and timestamp, interval arithmetic (in
-- local time), each against gpudb off; a zone with daylight-saving rules
-- keeps PostgreSQL's plan at planning, and at execution a plan made in
-- another zone (a prepared statement's generic plan) answers with
-- PostgreSQL's plan behind the node (issue 25).
\i sql/include/plan_node_settings.sql
\i sql/include/differential.sql
\i sql/include/explain_analyze.sql
SET TIME ZONE 'UTC';
CREATE TABLE tz28 (id int, d date, ts timestamp, tt timestamptz, v int);
INSERT INTO tz28 SELECT i, date '2020-01-01' + (i * 7 % 900),
  timestamp '2020-01-01' + i * interval '37 minutes 13 seconds',
  timestamptz '2020-01-01 00:00+00' + i * interval '41 minutes 7 seconds', i % 10
FROM generate_series(1, 3000) i;
INSERT INTO tz28 VALUES (0, NULL, NULL, NULL, NULL),
  (-1, 'infinity', 'infinity', 'infinity', 1), (-2, '-infinity', '-infinity', '-infinity', 2);
ANALYZE tz28;
-- date_trunc of a date is date_trunc(text, timestamptz) of its local midnight
EXPLAIN (COSTS OFF) SELECT date_trunc('month', d), count(*) FROM tz28 GROUP BY 1;
CREATE FUNCTION tz28_queries() RETURNS TABLE(q text) LANGUAGE sql AS $$ VALUES
 ($q$SELECT date_trunc('month', d), count(*) FROM tz28 GROUP BY 1$q$),
 ($q$SELECT date_trunc('day', tt), count(*), sum(v) FROM tz28 GROUP BY 1$q$),
 ($q$SELECT date_trunc('week', tt), date_trunc('hour', tt), count(*) FROM tz28 GROUP BY 1, 2$q$),
 ($q$SELECT date_part('hour', tt), date_part('dow', tt), count(*) FROM tz28 GROUP BY 1, 2$q$),
 ($q$SELECT extract(month from tt), count(*) FROM tz28 GROUP BY 1$q$),
 ($q$SELECT date_part('epoch', tt), count(*) FROM tz28 WHERE id < 100 GROUP BY 1$q$),
 ($q$SELECT tt::date, count(*) FROM tz28 GROUP BY 1$q$),
 ($q$SELECT tt::timestamp, count(*) FROM tz28 WHERE id < 50 GROUP BY 1$q$),
 ($q$SELECT ts::timestamptz, count(*) FROM tz28 WHERE id < 50 GROUP BY 1$q$),
 ($q$SELECT max(tt + interval '1 month 3 hours'), min(tt - interval '2 days') FROM tz28$q$),
 ($q$SELECT date_trunc('year', d::timestamptz), count(*) FROM tz28 GROUP BY 1$q$),
 ($q$SELECT count(*) FROM tz28 WHERE date_trunc('month', tt) = tt::date::timestamptz$q$)
$$;
SELECT q, d.* FROM tz28_queries() t(q), LATERAL gpu_diff(q) d;
SELECT * FROM gpu_diff($q$SELECT id, date_trunc('day', tt) FROM tz28 ORDER BY 2 DESC, 1 LIMIT 5$q$, true);
SET TIME ZONE '+05:30';
SELECT q, d.* FROM tz28_queries() t(q), LATERAL gpu_diff(q) d;
-- a GpudbScan leaves a qual computed in the session's time zone to the CPU
EXPLAIN (COSTS OFF) SELECT id FROM tz28 WHERE tt::date = date '2020-01-05' AND v = 3;
-- daylight-saving rules: PostgreSQL's plan
SET TIME ZONE 'America/New_York';
SET gpudb.debug_unsupported = on;
EXPLAIN (COSTS OFF) SELECT date_trunc('month', d), count(*) FROM tz28 GROUP BY 1;
RESET gpudb.debug_unsupported;
SELECT q, d.* FROM tz28_queries() t(q), LATERAL gpu_diff(q) d;
-- a generic plan made in UTC, executed in Europe/Warsaw: the plan behind
-- the node answers
SET TIME ZONE 'UTC';
SET plan_cache_mode = force_generic_plan;
PREPARE tz28_p AS SELECT date_trunc('day', tt), count(*) FROM tz28 GROUP BY 1 ORDER BY 1 LIMIT 3;
EXPLAIN (COSTS OFF) EXECUTE tz28_p;
EXECUTE tz28_p;
SET TIME ZONE 'Europe/Warsaw';
SELECT gpu_analyze('EXECUTE tz28_p');
EXECUTE tz28_p;
SET gpudb.enabled = off;
EXECUTE tz28_p;
RESET gpudb.enabled;
DEALLOCATE tz28_p;
RESET plan_cache_mode;
RESET TIME ZONE;
DROP TABLE tz28;
DROP FUNCTION tz28_queries();
DROP FUNCTION gpu_analyze(text), gpu_source(text);
DROP FUNCTION gpu_diff(text, bool);
DROP FUNCTION gpu_diff_rows(text, bool);
