-- 39_host_order: a GpudbAgg or GpudbJoin that orders its finished groups on
-- the host (src/executor/host_order.c), where a sort key is a text group
-- key (its collation's order: ranks of its strings) or a count(DISTINCT)
-- (finished on the host from its histogram), with count and count(*) and
-- any other group key beside them: TPC-H Q16's ORDER BY count(DISTINCT)
-- DESC, p_brand, p_type, p_size.  Every query's rows, in order, against
-- gpudb off (gpu_diff ordered), its plan pinned: ascending and descending,
-- NULLS FIRST and LAST, NULL keys, ties (kept in the result's order, which
-- the queries break with a last key), char(n) with trailing blanks and
-- characters below the blank, C and another collation, a LIMIT and OFFSET,
-- several heap batches; a min() sort key beside a text key keeps
-- PostgreSQL's Sort.
\i sql/include/plan_node_settings.sql

CREATE TABLE ho (i int4, k int4, b char(6), t varchar(10), u text COLLATE "C",
                 s int4, x int4);
INSERT INTO ho SELECT i, i % 17,
  CASE WHEN i % 13 = 0 THEN NULL WHEN i % 5 = 0 THEN 'a' || chr(9) ELSE 'a' || (i % 4) END,
  CASE WHEN i % 11 = 0 THEN NULL ELSE 'T' || (i % 7) || CASE WHEN i % 3 = 0 THEN ' z' ELSE 'Z' END END,
  CASE WHEN i % 9 = 0 THEN 'B' || (i % 5) ELSE 'a' || (i % 6) END,
  i % 5, CASE WHEN i % 7 = 0 THEN NULL ELSE i % 23 END
  FROM generate_series(1, 3000) i;
CREATE TABLE hd (s int4 PRIMARY KEY, name text);
INSERT INTO hd VALUES (0, 'zero'), (1, 'one'), (2, 'two'), (3, 'three'), (4, NULL);
ANALYZE ho, hd;
\i sql/include/differential.sql

SELECT q, (gpu_diff(q, true)).* FROM (VALUES
  ('SELECT b, t, count(DISTINCT x) FROM ho GROUP BY b, t ORDER BY count(DISTINCT x) DESC, b, t'),
  ('SELECT b, count(*) FROM ho GROUP BY b ORDER BY b DESC NULLS LAST'),
  ('SELECT b, count(*) FROM ho GROUP BY b ORDER BY b NULLS FIRST'),
  ('SELECT t, s, count(x) FROM ho GROUP BY t, s ORDER BY t, s DESC'),
  ('SELECT u, k, count(*) FROM ho GROUP BY u, k ORDER BY u DESC, k'),
  ('SELECT t, count(DISTINCT k) FROM ho GROUP BY t ORDER BY count(DISTINCT k), t NULLS FIRST'),
  ('SELECT b, t, count(DISTINCT x) FROM ho GROUP BY b, t ORDER BY count(DISTINCT x) DESC, b, t LIMIT 7'),
  ('SELECT b, t, count(DISTINCT x) FROM ho GROUP BY b, t ORDER BY 3 DESC, 1, 2 LIMIT 5 OFFSET 4'),
  ('SELECT t COLLATE "C", count(*) FROM ho GROUP BY 1 ORDER BY 1'),
  ('SELECT hd.name, ho.b, count(DISTINCT ho.x) FROM ho JOIN hd ON ho.s = hd.s GROUP BY hd.name, ho.b ORDER BY 3 DESC, 1, 2'),
  ('SELECT hd.name, count(*) FROM ho JOIN hd ON ho.s = hd.s GROUP BY hd.name ORDER BY hd.name DESC')
) t(q);
EXPLAIN (COSTS OFF)
SELECT b, t, count(DISTINCT x) FROM ho GROUP BY b, t ORDER BY count(DISTINCT x) DESC, b, t;
EXPLAIN (COSTS OFF)
SELECT hd.name, ho.b, count(DISTINCT ho.x) FROM ho JOIN hd ON ho.s = hd.s
  GROUP BY hd.name, ho.b ORDER BY 3 DESC, 1, 2 LIMIT 3;
-- a min() beside a text key: PostgreSQL's Sort
EXPLAIN (COSTS OFF)
SELECT t, min(x) FROM ho GROUP BY t ORDER BY min(x), t;
SELECT q, (gpu_diff(q, true)).* FROM (VALUES
  ('SELECT t, min(x) FROM ho GROUP BY t ORDER BY min(x), t')
) t(q);

-- several heap batches, concatenated before the order
SET gpudb.batch_rows = 1024;
SET gpudb.parallel_workers = 0;
SELECT q, (gpu_diff(q, true)).* FROM (VALUES
  ('SELECT b, t, count(DISTINCT x) FROM ho GROUP BY b, t ORDER BY count(DISTINCT x) DESC, b, t'),
  ('SELECT t, count(*) FROM ho GROUP BY t ORDER BY t DESC LIMIT 4')
) t(q);
RESET gpudb.batch_rows;
RESET gpudb.parallel_workers;

DROP FUNCTION gpu_diff(text, bool);
DROP FUNCTION gpu_diff_rows(text, bool);
DROP TABLE ho, hd;
