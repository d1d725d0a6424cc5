--
-- 04_filter: every supported filter form, each compared with the same WHERE
-- clause in plain SQL (EXCEPT ALL both ways).
--
CREATE TABLE fl (
    id int8 NOT NULL, g int4, i2 int2, i4 int4, i8 int8, f4 float4, f8 float8,
    b bool, d date, ts timestamp, tz timestamptz, txt text, vc varchar(8)
);
INSERT INTO fl
SELECT i, i % 10,
       CASE WHEN i % 9 = 0 THEN NULL ELSE (i % 200) - 100 END,
       CASE WHEN i % 11 = 0 THEN NULL ELSE (i * 37) % 1000 END,
       CASE WHEN i % 13 = 0 THEN NULL ELSE i::int8 * 100003 END,
       CASE WHEN i % 7 = 0 THEN NULL ELSE (i % 64) * 0.5 END,
       CASE WHEN i % 17 = 0 THEN NULL WHEN i % 101 = 0 THEN 'NaN' ELSE (i % 500) * 0.125 - 20 END,
       CASE WHEN i % 6 = 0 THEN NULL ELSE i % 4 = 1 END,
       date '2024-01-01' + (i % 366),
       timestamp '2024-01-01' + i * interval '37 minutes',
       timestamptz '2024-01-01 00:00+00' + i * interval '41 minutes',
       CASE WHEN i % 8 = 0 THEN NULL ELSE (ARRAY['SFO','LAX','JFK','ORD','SEA'])[1 + i % 5] END,
       CASE WHEN i % 12 = 0 THEN NULL ELSE 'c' || (i % 3) END
FROM generate_series(1, 4000) i;

-- Plain SQL is this file's reference, so it keeps PostgreSQL's own plans
-- (the plan nodes are tested against gpudb.enabled = off in 12_plan_nodes).
SET gpudb.enable_gpuscan = off;
SET gpudb.enable_gpuagg = off;
SET gpudb.enable_gpusort = off;
SET gpudb.enable_gpujoin = off;

CREATE TABLE filters (n serial, f text);
INSERT INTO filters (f) VALUES
    ('i4 > 500'), ('i4 >= 500'), ('i4 < 100'), ('i4 <= 100'), ('i4 = 37'), ('i4 <> 37'),
    ('i2 = i4'), ('i2 < i8'), ('i8 > 100000000'), ('i2 > 50'),
    ('f8 > 10.5::float8'), ('f8 < 0'), ('f4 = 3.5'), ('f4 > i2'), ('f8 <> f4'), ('f8 = ''NaN''::float8'),
    ('f8 > 1'), ('i4 > 2.5::float8'), ('f4 < 7'),
    ('b'), ('NOT b'), ('b = true'), ('b IS TRUE'), ('b IS NOT TRUE'), ('b IS FALSE'), ('b IS NOT FALSE'),
    ('b IS UNKNOWN'), ('b IS NOT UNKNOWN'),
    ('i4 IS NULL'), ('i4 IS NOT NULL'), ('txt IS NULL'), ('f8 IS NOT NULL AND i2 IS NULL'),
    ('i4 BETWEEN 100 AND 300'), ('i4 NOT BETWEEN 100 AND 300'), ('f8 BETWEEN -5 AND 5'),
    ('i4 IN (1, 37, 74, 999)'), ('i4 NOT IN (1, 37, 74)'), ('i4 IN (1, NULL)'), ('i4 NOT IN (1, NULL)'),
    ('i4 = ANY (ARRAY[5, 10, 15])'), ('i4 <> ALL (ARRAY[5, 10, 15])'),
    ('txt = ''SFO'''), ('txt <> ''SFO'''), ('txt IN (''SFO'', ''JFK'')'), ('txt NOT IN (''SFO'', ''JFK'')'),
    ('txt = ''nowhere'''), ('vc = ''c1'''), ('vc IN (''c0'', ''c2'')'), ('txt = vc'),
    ('d > ''2024-06-01'''), ('d = date ''2024-02-29'''), ('d BETWEEN ''2024-03-01'' AND ''2024-03-31'''),
    ('ts >= ''2024-01-15 12:00'''), ('ts < timestamp ''2024-01-02'''), ('tz > ''2024-01-20 00:00+00'''),
    ('i4 + i2 > 500'), ('i4 - i2 < 0'), ('i2 * 3 > 100'), ('i4 / 7 = 3'), ('i4 % 5 = 0'), ('-i4 < -900'),
    ('i8 * 2 > 500000000'), ('i8 / 3 > 1000000'), ('i8 % 7 = 1'), ('i2 + i8 > 1000000'),
    ('f8 * 2 > 40'), ('f8 / 4 < 1'), ('f8 + f4 > 10'), ('f4 - 1 > 10'), ('-f8 > 0'), ('f4 * f4 > 100'),
    ('i4 * 1.5::float8 > 600'), ('i2 + 0.5::float4 > 10'),
    ('i4 > 100 AND i4 < 200'), ('i4 < 100 OR i4 > 900'), ('NOT (i4 > 100 AND b)'),
    ('(i4 > 100 OR txt = ''LAX'') AND (b OR f8 < 0)'), ('i4 > 100 AND i2 < 0 AND b AND txt <> ''ORD'''),
    ('i2 IS NULL OR i4 IS NULL OR b'), ('NOT (i2 IS NULL)'), ('g = 3 OR NULL'), ('g = 3 AND NULL'),
    ('NOT (g = 3 OR NULL)'), ('true'), ('false'), ('NULL'), ('1 = 1'),
    ('"i4" > 10'), ('fl.i4 > 10'), ('id % 2 = 0');

-- every filter, differential against the same WHERE clause
SELECT n, f, gdb_diff(
    format('SELECT * FROM gpu_groupby(''fl'', ''g'', ''count(*), sum(i4), min(f8), max(i8)'', %L) AS t(g int4, c bigint, s bigint, m float8, x int8)', f),
    format('SELECT g, count(*), sum(i4), min(f8), max(i8) FROM fl WHERE %s GROUP BY g', f))
FROM filters ORDER BY n;

-- the selections are not trivial: rows each filter keeps, by gpu_groupby and by SQL
CREATE FUNCTION fl_count(f text, use_gpu bool) RETURNS bigint LANGUAGE plpgsql AS $$
DECLARE n bigint;
BEGIN
    IF use_gpu THEN
        EXECUTE format('SELECT n FROM gpu_groupby(''fl'', '''', ''count(*)'', %L) AS t(n bigint)', f) INTO n;
    ELSE
        EXECUTE format('SELECT count(*) FROM fl WHERE %s', f) INTO n;
    END IF;
    RETURN n;
END $$;
SELECT n, f, fl_count(f, true) AS gpu_rows, fl_count(f, false) AS sql_rows
FROM filters ORDER BY n;

-- a filter on a column that is neither key nor aggregate input
SELECT * FROM gpu_groupby('fl', 'txt', 'count(*)', 'ts < ''2024-01-03''') AS t(txt text, n bigint) ORDER BY txt;
SELECT txt, count(*) FROM fl WHERE ts < '2024-01-03' GROUP BY txt ORDER BY txt;
SELECT rows_in, rows_selected, groups FROM gpu_last_execution();

-- a filter that selects nothing, and one that selects everything
SELECT * FROM gpu_groupby('fl', 'g', 'count(*)', 'i4 > 100000') AS t(g int4, n bigint);
SELECT * FROM gpu_groupby('fl', '', 'count(*), sum(i4)', 'i4 > 100000') AS t(n bigint, s bigint);
SELECT * FROM gpu_groupby('fl', '', 'count(*)', 'id > 0') AS t(n bigint);

-- filters across several batches
SET gpudb.batch_rows = 1024;
SELECT gdb_diff(
    $$SELECT * FROM gpu_groupby('fl', 'txt, b', 'count(*), avg(i4), max(f8)', 'i4 % 3 = 1 OR txt IN (''SEA'', ''ORD'')') AS t(txt text, b bool, n bigint, a numeric, m float8)$$,
    $$SELECT txt, b, count(*), avg(i4), max(f8) FROM fl WHERE i4 % 3 = 1 OR txt IN ('SEA', 'ORD') GROUP BY txt, b$$);
RESET gpudb.batch_rows;
