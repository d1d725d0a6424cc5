-- 22_float4_sum: sum(real) adds as PostgreSQL's float4pl does (issue 22,
-- item 4): float4 steps, and "value out of range: overflow" when the sum of
-- two finite operands is infinite.  On the CPU path, which folds a batch's
-- rows one by one in the order read, the result is PostgreSQL's serial sum
-- bit for bit (the GPU adds in another order, as PostgreSQL's parallel
-- plans do, so this file pins the CPU path).  Before, gpudb added in double
-- and rounded once: 10000 for 100,000 x 0.1 where PostgreSQL gives
-- 9998.557, and 3e+38 where PostgreSQL raises.
\i sql/include/plan_node_settings.sql
SET gpudb.device = cpu;
SET extra_float_digits = 3;

CREATE TABLE fs (id int, g int, f real);
INSERT INTO fs SELECT i, i % 3, 0.1 FROM generate_series(1, 100000) i;
INSERT INTO fs VALUES (-1, 7, 3e38), (-2, 7, 3e38), (-3, 7, -3e38),
                      (-4, 8, 3e38), (-5, 8, 'Infinity'), (-6, 8, 3e38),
                      (-7, 9, 'NaN'), (-8, 9, 1.5);
ANALYZE fs;
\i sql/include/differential.sql

EXPLAIN (COSTS OFF) SELECT g, sum(f) FROM fs WHERE g < 3 GROUP BY g;
SELECT * FROM gpu_diff('SELECT g, sum(f) FROM fs WHERE g < 3 GROUP BY g');
SELECT g, sum(f) FROM fs WHERE g < 3 GROUP BY g ORDER BY g;
SELECT * FROM gpu_diff('SELECT sum(f) FROM fs WHERE id > 0');
SELECT sum(f) FROM fs WHERE id > 0;
-- the SQL function: the same sums
SELECT * FROM gpu_groupby('fs', 'g', 'sum(f)', 'g < 3') AS t(g int, s real) ORDER BY g;
-- an overflow from finite inputs raises; with an infinite input it does not
SELECT * FROM gpu_diff('SELECT g, sum(f) FROM fs WHERE g = 7 GROUP BY g');
SELECT * FROM gpu_diff('SELECT g, sum(f) FROM fs WHERE g >= 8 GROUP BY g');
SELECT * FROM gpu_groupby('fs', 'g', 'sum(f)', 'g = 7') AS t(g int, s real);
-- avg(real) accumulates in float8, as PostgreSQL's float4_accum does
SELECT * FROM gpu_diff('SELECT g, avg(f) FROM fs WHERE g < 3 GROUP BY g');

DROP TABLE fs;
DROP FUNCTION gpu_diff(text, bool);
DROP FUNCTION gpu_diff_rows(text, bool);
