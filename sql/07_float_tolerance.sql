--
-- 07_float_tolerance: float results on arbitrary data are within 1e-12
-- relative of PostgreSQL's (summation order may differ on the device),
-- over several batches; integer and count columns are exact.
--
SELECT setseed(0.42);
CREATE TABLE ft AS
SELECT (random() * 50)::int4 AS g,
       CASE WHEN random() < 0.05 THEN NULL ELSE random() * 1000 - 300 END AS v,
       CASE WHEN random() < 0.05 THEN NULL ELSE (random() * 100)::float4 END AS r,
       (random() * 1e6)::int8 AS w
FROM generate_series(1, 20000);

-- Plain SQL is this file's reference, so it keeps PostgreSQL's own plans
-- (the plan nodes are tested against gpudb.enabled = off in 12_plan_nodes).
SET gpudb.enable_gpuscan = off;
SET gpudb.enable_gpuagg = off;
SET gpudb.enable_gpusort = off;
SET gpudb.enable_gpujoin = off;

SET gpudb.batch_rows = 4096;
CREATE TEMP TABLE ft_gpu AS
SELECT * FROM gpu_groupby('ft', 'g', 'count(*), count(v), sum(v), avg(v), min(v), max(v), avg(r), sum(w), avg(w)', 'v > -250 OR r < 50')
    AS t(g int4, n bigint, c bigint, s float8, a float8, mn float8, mx float8, ar float8, sw numeric, aw numeric);
RESET gpudb.batch_rows;
CREATE TEMP TABLE ft_sql AS
SELECT g, count(*) AS n, count(v) AS c, sum(v) AS s, avg(v) AS a, min(v) AS mn, max(v) AS mx,
       avg(r) AS ar, sum(w) AS sw, avg(w) AS aw
FROM ft WHERE v > -250 OR r < 50 GROUP BY g;

CREATE FUNCTION rel_close(a float8, b float8) RETURNS bool LANGUAGE sql IMMUTABLE AS
$$ SELECT (a IS NULL AND b IS NULL) OR a = b OR abs(a - b) <= 1e-12 * greatest(abs(a), abs(b)) $$;

-- same groups, exact counts and integer results, floats within tolerance
SELECT (SELECT count(*) FROM ft_gpu) AS gpu_groups, (SELECT count(*) FROM ft_sql) AS sql_groups;
SELECT count(*) AS mismatches
FROM ft_gpu x FULL JOIN ft_sql y ON x.g = y.g
WHERE x.g IS NULL OR y.g IS NULL
   OR x.n <> y.n OR x.c <> y.c OR x.sw <> y.sw OR x.aw <> y.aw
   OR NOT rel_close(x.s, y.s) OR NOT rel_close(x.a, y.a)
   OR x.mn <> y.mn OR x.mx <> y.mx OR NOT rel_close(x.ar, y.ar);
-- the tolerance check can fail: a perturbed copy is caught
SELECT count(*) AS perturbed_mismatches
FROM ft_gpu x JOIN ft_sql y ON x.g = y.g
WHERE NOT rel_close(x.s * (1 + 1e-9), y.s);
