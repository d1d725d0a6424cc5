-- 18_heap_reader: the heap reader's edges (heap_deform.c reads heap-AM
-- tables straight from their pages: fixed offsets for tuples without NULLs,
-- a walk of the tuple otherwise, missing attributes after ADD COLUMN).
-- Every query runs with gpudb.enabled on and off; EXCEPT ALL both ways must
-- be empty, and EXPLAIN is pinned so that the Gpudb node is really under test
-- and read the heap (Source: heap).  Each column is checked on its own
-- (GROUP BY the column: every distinct value, NULL included, and its count)
-- and whole rows through GpudbScan (SELECT * with a filter).
\i sql/include/plan_node_settings.sql
SET gpudb.parallel_workers = 0;

-- gpu_diff(query, ordered): the Gpudb nodes in the plan with gpudb on, and how
-- many rows differ between gpudb on and off (sql/include/differential.sql)
\i sql/include/differential.sql

-- hr_cols(table, columns): gpu_diff of GROUP BY each column, one row each
CREATE FUNCTION hr_cols(t text, cols text[])
RETURNS TABLE (col text, node text, nrows int, on_minus_off int,
               off_minus_on int, error text)
LANGUAGE sql AS $$
  SELECT c, d.* FROM unnest(cols) WITH ORDINALITY u(c, o),
    LATERAL gpu_diff(format('SELECT %I, count(*) FROM %I GROUP BY 1', c, t)) d
  ORDER BY o
$$;

-- EXPLAIN ANALYZE, the lines that show where the node read its rows (with
-- workers, how many they started and the rows in, which count their
-- partial results, depend on timing and are masked)
CREATE FUNCTION hr_explain(q text) RETURNS SETOF text
LANGUAGE plpgsql AS $$
DECLARE
  l text;
  workers bool := false;
BEGIN
  FOR l IN EXECUTE 'EXPLAIN (ANALYZE, BUFFERS OFF, COSTS OFF, TIMING OFF, SUMMARY OFF) ' || q LOOP
    l := regexp_replace(l, '(rows=[0-9]+)\.00 ', '\1 ', 'g');
    IF l ~ 'Workers Launched: [1-9]' THEN
      workers := true;
      l := regexp_replace(l, 'Workers Launched: [0-9]+', 'Workers Launched: >0');
    END IF;
    IF workers THEN
      l := regexp_replace(l, 'Rows In: [0-9]+', 'Rows In: N');
    END IF;
    IF l ~ '(Custom Scan|Source|Cache|Workers Launched|Rows In)' THEN
      RETURN NEXT l;
    END IF;
  END LOOP;
END $$;

-- ---------------------------------------------------------------------------
-- fixed-width columns first (each has a fixed offset in a tuple without
-- NULLs), then text; NULLs in some rows only, so that some tuples have a
-- NULL bitmap and others not; long text values, compressed inline
-- (repetitive) or moved out of line (incompressible)
-- ---------------------------------------------------------------------------
CREATE TABLE hr_fix (g int4, i2 int2, b bool, d date, ts timestamp,
                     f4 real, v float8, n numeric(10,2), id int8, k text,
                     big text);
INSERT INTO hr_fix
SELECT i % 50, (i % 300 - 150)::int2,
       CASE WHEN i % 5 = 0 THEN NULL ELSE i % 3 = 0 END,
       date '2020-02-28' + (i % 700), timestamp '1999-12-31 23:00' + (i % 900) * interval '37 minutes',
       (i % 64) * 0.125 - 3, CASE WHEN i % 7 = 0 THEN NULL ELSE (i % 1000) * 0.5 - 250 END,
       CASE WHEN i % 11 = 0 THEN NULL ELSE ((i * 7919) % 200000 - 100000) / 100.0 END,
       i, 'k' || (i % 37),
       CASE WHEN i % 97 = 0 THEN repeat('compressible ', 400) || (i % 5)
            WHEN i % 89 = 0 THEN (SELECT string_agg(md5((i * 1000 + j)::text), '') FROM generate_series(1, 120) j)
            ELSE 's' || (i % 13) END
FROM generate_series(1, 12000) i;
-- a run of tuples without any NULL, the fixed-offset path alone
INSERT INTO hr_fix
SELECT i % 50, (i % 300)::int2, i % 2 = 0, date '2024-01-01' + i % 40,
       timestamp '2024-01-01' + i * interval '1 second', i * 0.25, i * 1.5,
       i / 8.0, i, 'run' || (i / 100), 'r'
FROM generate_series(12001, 15000) i;
ANALYZE hr_fix;
-- the table has compressed and out-of-line values
SELECT count(*) FILTER (WHERE pg_column_size(big) < octet_length(big)) > 0 AS compressed,
       (SELECT reltoastrelid <> 0 AND pg_relation_size(reltoastrelid) > 0
        FROM pg_class WHERE relname = 'hr_fix') AS out_of_line
FROM hr_fix;

SELECT * FROM hr_explain('SELECT * FROM hr_fix WHERE g % 10 = 3');
SELECT * FROM gpu_diff('SELECT * FROM hr_fix WHERE g % 10 = 3');
SELECT * FROM gpu_diff('SELECT * FROM hr_fix WHERE id > 11900');
SELECT * FROM hr_cols('hr_fix', ARRAY['g', 'i2', 'b', 'd', 'ts', 'f4', 'v', 'n', 'id', 'k', 'big']);
SELECT * FROM gpu_diff('SELECT k, count(*), sum(v), min(n), max(n), sum(n), min(d), max(ts), sum(f4), sum(i2) FROM hr_fix GROUP BY k');
SELECT * FROM gpu_diff('SELECT id, big FROM hr_fix WHERE id % 89 = 0 OR id % 97 = 0');

-- in batches of 1024 rows
SET gpudb.batch_rows = 1024;
SELECT * FROM hr_explain('SELECT k, count(*), sum(v) FROM hr_fix GROUP BY k');
SELECT * FROM gpu_diff('SELECT * FROM hr_fix WHERE i2 > 140 OR id % 1000 = 0');
SELECT * FROM hr_cols('hr_fix', ARRAY['b', 'f4', 'v', 'n', 'k', 'big']);
RESET gpudb.batch_rows;

-- ---------------------------------------------------------------------------
-- missing attributes: ADD COLUMN with and without a default leaves the older
-- tuples shorter than the descriptor; a dropped column stays in the tuples
-- ---------------------------------------------------------------------------
ALTER TABLE hr_fix ADD COLUMN a_null int4;
ALTER TABLE hr_fix ADD COLUMN a_i8 int8 DEFAULT 42;
ALTER TABLE hr_fix ADD COLUMN a_txt text DEFAULT 'dflt';
ALTER TABLE hr_fix ADD COLUMN a_f8 float8 DEFAULT -1.5;
ALTER TABLE hr_fix ADD COLUMN a_n numeric(10,2) DEFAULT 12.34;
ALTER TABLE hr_fix ADD COLUMN a_d date DEFAULT date '2001-02-03';
ALTER TABLE hr_fix DROP COLUMN i2;
INSERT INTO hr_fix (g, b, d, ts, f4, v, n, id, k, big, a_null, a_i8, a_txt, a_f8, a_n, a_d)
SELECT i % 50, true, date '2024-01-01', timestamp '2024-01-01', 1, i, i, i, 'new' || (i % 3), 'b',
       i, i * 10, 'added' || (i % 4), i * 0.5, i / 4.0, date '2030-01-01' + i % 9
FROM generate_series(15001, 16000) i;
INSERT INTO hr_fix (g, id, k) SELECT 7, i, 'sparse' FROM generate_series(16001, 16100) i;
ANALYZE hr_fix;
SELECT * FROM hr_explain('SELECT a_i8, count(*) FROM hr_fix GROUP BY a_i8');
SELECT * FROM hr_cols('hr_fix', ARRAY['a_null', 'a_i8', 'a_txt', 'a_f8', 'a_n', 'a_d', 'g', 'id', 'k', 'n']);
SELECT * FROM gpu_diff('SELECT * FROM hr_fix WHERE a_i8 <> 420 AND g % 4 = 1');
SELECT * FROM gpu_diff('SELECT a_txt, count(*), sum(a_i8), sum(a_f8), sum(a_n), count(a_null), max(a_d) FROM hr_fix GROUP BY a_txt');

-- ---------------------------------------------------------------------------
-- a varlena column before the fixed-width ones (no fixed offsets at all);
-- dead tuples (UPDATE, DELETE) are skipped
-- ---------------------------------------------------------------------------
CREATE TABLE hr_var (s text, i4 int4, f8 float8, i8 int8, b bool, vc varchar(20),
                     ts timestamptz, n numeric(10,2));
INSERT INTO hr_var
SELECT CASE WHEN i % 13 = 0 THEN NULL ELSE repeat('x', i % 5) || (i % 9) END,
       i % 100, CASE WHEN i % 17 = 0 THEN NULL ELSE (i % 2000) * 0.125 END, i,
       i % 4 = 0, 'v' || (i % 6), timestamptz '2022-03-04 05:06:07+00' + i * interval '1 minute',
       (i % 1000) / 4.0
FROM generate_series(1, 8000) i;
UPDATE hr_var SET f8 = -f8, s = 'updated' WHERE i4 = 7;
DELETE FROM hr_var WHERE i4 = 8 OR i8 % 1000 = 1;
ANALYZE hr_var;
SELECT * FROM hr_explain('SELECT * FROM hr_var WHERE i4 < 10');
SELECT * FROM gpu_diff('SELECT * FROM hr_var WHERE i4 < 10');
SELECT * FROM hr_cols('hr_var', ARRAY['s', 'i4', 'f8', 'i8', 'b', 'vc', 'ts', 'n']);
SELECT * FROM gpu_diff('SELECT vc, count(*), sum(f8), sum(n), min(ts), count(s) FROM hr_var GROUP BY vc');

-- ---------------------------------------------------------------------------
-- ADD COLUMN after fixed-width columns only: the added attributes have fixed
-- offsets, which the older (shorter) tuples must not be read at
-- ---------------------------------------------------------------------------
CREATE TABLE hr_add (a int4, b int8);
INSERT INTO hr_add SELECT i, i * 3 FROM generate_series(1, 3000) i;
ALTER TABLE hr_add ADD COLUMN c int8 DEFAULT 7;
ALTER TABLE hr_add ADD COLUMN d float8;
ALTER TABLE hr_add ADD COLUMN e int2 DEFAULT -3;
INSERT INTO hr_add SELECT i, i * 3, i % 5, i * 0.5, (i % 9)::int2 FROM generate_series(3001, 4000) i;
ANALYZE hr_add;
SELECT * FROM hr_explain('SELECT c, count(*) FROM hr_add GROUP BY c');
SELECT * FROM hr_cols('hr_add', ARRAY['a', 'b', 'c', 'd', 'e']);
SELECT * FROM gpu_diff('SELECT * FROM hr_add WHERE a % 100 < 3');

-- a varlena at an offset its alignment does not give (after an int2): short
-- values are stored there unaligned, longer ones after padding, so it has no
-- fixed offset; and many distinct short strings of one length (4, 8 and 9
-- bytes: the reader caches strings of up to 8 bytes by their bytes)
CREATE TABLE hr_pad (h int2, t text, x int4, u4 text, u8 text, u9 text);
INSERT INTO hr_pad
SELECT i % 7, CASE WHEN i % 3 = 0 THEN repeat('long', 50) || (i % 4) ELSE 's' || (i % 5) END, i,
       to_char((i * 7919) % 2500, 'FM0000'), to_char((i * 7919) % 2600, 'FM00000000'),
       to_char((i * 7919) % 2700, 'FM000000000')
FROM generate_series(1, 3000) i;
ANALYZE hr_pad;
SELECT * FROM hr_explain('SELECT t, count(*) FROM hr_pad GROUP BY t');
SELECT * FROM hr_cols('hr_pad', ARRAY['h', 't', 'x', 'u4', 'u8', 'u9']);
SELECT * FROM gpu_diff('SELECT u4, u8, count(*), sum(x) FROM hr_pad GROUP BY u4, u8');
SELECT * FROM gpu_diff('SELECT * FROM hr_pad WHERE x % 10 = 0');

-- ---------------------------------------------------------------------------
-- the parallel feed: the backend and its workers read their shares of the
-- same scan (sql/16_parallel_feed.sql)
-- ---------------------------------------------------------------------------
SET gpudb.parallel_workers = 3;
SET gpudb.min_parallel_table_size = '64kB';
SELECT pg_relation_size('hr_fix') >= 64 * 1024 AS above_threshold;
SELECT * FROM hr_explain('SELECT k, count(*), sum(v), sum(n) FROM hr_fix GROUP BY k');
SELECT * FROM gpu_diff('SELECT k, count(*), sum(v), sum(n), max(a_i8), sum(a_f8) FROM hr_fix GROUP BY k');
SELECT * FROM hr_cols('hr_fix', ARRAY['a_i8', 'a_txt', 'v', 'big']);
SET gpudb.batch_rows = 1024;
SELECT * FROM gpu_diff('SELECT a_txt, b, count(*), min(ts), max(d), sum(f4) FROM hr_fix GROUP BY a_txt, b');
SELECT * FROM gpu_diff('SELECT vc, count(*), sum(f8), sum(n) FROM hr_var GROUP BY vc');
RESET gpudb.batch_rows;
RESET gpudb.parallel_workers;
RESET gpudb.min_parallel_table_size;
SET gpudb.parallel_workers = 0;

-- ---------------------------------------------------------------------------
-- a cache load reads the same way; queries from the cache agree
-- ---------------------------------------------------------------------------
SELECT current_setting('shared_preload_libraries') LIKE '%gpudb%' AS preloaded \gset
\if :preloaded
SELECT gpu_cache_load('hr_fix');
SELECT gpu_cache_load('hr_var');
SELECT * FROM hr_explain('SELECT k, count(*), sum(v) FROM hr_fix GROUP BY k');
SELECT * FROM gpu_diff('SELECT * FROM hr_fix WHERE g % 10 = 3');
SELECT * FROM hr_cols('hr_fix', ARRAY['g', 'b', 'd', 'ts', 'f4', 'v', 'n', 'id', 'k', 'big',
                                      'a_null', 'a_i8', 'a_txt', 'a_f8', 'a_n', 'a_d']);
SELECT * FROM hr_cols('hr_var', ARRAY['s', 'i4', 'f8', 'i8', 'b', 'vc', 'ts', 'n']);
SELECT * FROM gpu_diff('SELECT * FROM hr_var WHERE i4 < 10');
SELECT gpu_cache_drop('hr_fix');
SELECT gpu_cache_drop('hr_var');
\endif

DROP TABLE hr_fix, hr_var, hr_add, hr_pad;
DROP FUNCTION gpu_diff(text, bool), gpu_diff_rows(text, bool), hr_cols(text, text[]),
  hr_explain(text);
