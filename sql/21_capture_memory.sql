-- 21_capture_memory: change capture keeps one statement's changes at a time
-- (issue 22, item 2).  A transaction of 100,000 single-row UPDATEs of a
-- cached table, each its own statement, must not grow the "gpudb change
-- capture" memory context: each statement's capture is freed once its
-- changes are sent.  Before the fix it held about 35 kB per statement (3.4
-- GB here).  The answers after the loop are compared with plain SQL.
--
-- Without shared_preload_libraries = gpudb there is no cache, nothing is
-- captured and the context does not exist (expected/21_capture_memory_1.out).
CREATE TABLE cm (id int PRIMARY KEY, v int8 NOT NULL, s text);
INSERT INTO cm SELECT i, 0, 'k' || (i % 7) FROM generate_series(1, 1000) i;
DO $$ BEGIN
  PERFORM gpu_cache_load('cm');
EXCEPTION WHEN object_not_in_prerequisite_state THEN
  RAISE NOTICE 'no GPU server: nothing is cached';
END $$;

CREATE FUNCTION capture_bytes() RETURNS bigint LANGUAGE sql AS $$
  SELECT coalesce(sum(total_bytes), 0)::bigint FROM pg_backend_memory_contexts
  WHERE name IN ('gpudb change capture', 'gpudb statement capture') $$;

-- 100,000 statements in one transaction; the capture's memory is sampled
-- after the first 1,000 and at the end: it must stay under 1 MB and not grow
CREATE TEMP TABLE samples (n int, bytes bigint);
DO $$
DECLARE
  i int;
BEGIN
  FOR i IN 1 .. 100000 LOOP
    UPDATE cm SET v = v + 1, s = 'u' || (i % 5) WHERE id = 1 + i % 1000;
    IF i IN (1000, 100000) THEN
      INSERT INTO samples VALUES (i, capture_bytes());
    END IF;
  END LOOP;
END $$;
SELECT n, bytes < 1024 * 1024 AS under_1mb FROM samples ORDER BY n;
SELECT max(bytes) FILTER (WHERE n = 100000) <= max(bytes) FILTER (WHERE n = 1000) AS no_growth
FROM samples;

-- the cache followed every statement: gpu_groupby (cache or heap) = SQL
SELECT count(*) AS differences FROM (
  (SELECT * FROM gpu_groupby('cm', 's', 'count(*), sum(v)') AS t(s text, n bigint, v numeric)
   EXCEPT ALL SELECT s, count(*), sum(v) FROM cm GROUP BY s)
  UNION ALL
  (SELECT s, count(*), sum(v) FROM cm GROUP BY s
   EXCEPT ALL SELECT * FROM gpu_groupby('cm', 's', 'count(*), sum(v)') AS t(s text, n bigint, v numeric))
) d;
SELECT sum(v) FROM cm;

-- gpu_cache_drop removes the two capture triggers gpu_cache_load installed
-- (issue 22, item 6): writers stop paying for them
SELECT count(*) AS capture_triggers FROM pg_trigger
WHERE tgrelid = 'cm'::regclass AND tgfoid = 'gpudb_cache_invalidate'::regproc;
DO $$ BEGIN
  PERFORM gpu_cache_drop('cm');
EXCEPTION WHEN object_not_in_prerequisite_state THEN NULL;
END $$;
SELECT count(*) AS capture_triggers_after_drop FROM pg_trigger
WHERE tgrelid = 'cm'::regclass AND tgfoid = 'gpudb_cache_invalidate'::regproc;
UPDATE cm SET v = v + 1 WHERE id = 1;
SELECT sum(v) FROM cm;

DROP FUNCTION capture_bytes();
DROP TABLE cm;
