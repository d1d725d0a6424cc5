--
-- 02_types: every group key type and every aggregate over every input type,
-- compared with PostgreSQL's own GROUP BY (EXCEPT ALL both ways).
--
CREATE TABLE ty (
    id   int8 NOT NULL,
    i2   int2,
    i4   int4,
    i8   int8,
    f4   float4,
    f8   float8,
    b    bool,
    d    date,
    ts   timestamp,
    tz   timestamptz,
    txt  text,
    vc   varchar(12),
    num  numeric
);
-- values chosen so float sums are exact in any order (multiples of 1/4)
INSERT INTO ty
SELECT i,
       CASE WHEN i % 11 = 0 THEN NULL ELSE (i % 7) - 3 END,
       CASE WHEN i % 13 = 0 THEN NULL ELSE (i * 7919) % 1000 - 500 END,
       CASE WHEN i % 17 = 0 THEN NULL ELSE (i::int8 * 1000000007) % 100000000000 END,
       CASE WHEN i % 19 = 0 THEN NULL ELSE ((i % 40) - 20) * 0.25 END,
       CASE WHEN i % 23 = 0 THEN NULL ELSE ((i % 1000) - 500) * 0.25 END,
       CASE WHEN i % 5 = 0 THEN NULL ELSE i % 3 = 0 END,
       CASE WHEN i % 29 = 0 THEN NULL ELSE date '2020-01-01' + (i % 30) END,
       CASE WHEN i % 31 = 0 THEN NULL ELSE timestamp '2021-06-01 12:00' + (i % 24) * interval '1 hour' END,
       CASE WHEN i % 37 = 0 THEN NULL ELSE timestamptz '2021-06-01 12:00+00' + (i % 5) * interval '1 day' END,
       CASE WHEN i % 41 = 0 THEN NULL ELSE 'k' || (i % 9) END,
       CASE WHEN i % 43 = 0 THEN NULL ELSE 'v' || (i % 4) END,
       i / 3.0
FROM generate_series(1, 5000) i;

-- Plain SQL is this file's reference, so it keeps PostgreSQL's own plans
-- (the plan nodes are tested against gpudb.enabled = off in 12_plan_nodes).
SET gpudb.enable_gpuscan = off;
SET gpudb.enable_gpuagg = off;
SET gpudb.enable_gpusort = off;
SET gpudb.enable_gpujoin = off;

-- the answer itself, for one key of each kind
SELECT * FROM gpu_groupby('ty', 'i2', 'count(*), count(i4), sum(i4), avg(i4), min(i4), max(i4)')
    AS t(i2 int2, n bigint, c bigint, s bigint, a numeric, mn int4, mx int4) ORDER BY i2;
SELECT * FROM gpu_groupby('ty', 'b', 'count(*), sum(f8), avg(f8), min(f4), max(f4), sum(f4), avg(f4)')
    AS t(b bool, n bigint, s float8, a float8, mn float4, mx float4, s4 float4, a4 float8) ORDER BY b;
SELECT * FROM gpu_groupby('ty', 'vc', 'count(*), sum(i8), avg(i8), min(d), max(ts), min(tz)')
    AS t(vc varchar, n bigint, s numeric, a numeric, d date, ts timestamp, tz timestamptz) ORDER BY vc;
SELECT * FROM gpu_groupby('ty', '', 'count(*), sum(i2), avg(i2), min(i8), max(i8), count(num), count(txt)')
    AS t(n bigint, s bigint, a numeric, mn int8, mx int8, cn bigint, ct bigint);

-- each key type, differential
SELECT k, gdb_diff(
    format('SELECT * FROM gpu_groupby(''ty'', %L, ''count(*), sum(i4), avg(f8), max(i8)'') AS t(k %s, n bigint, s bigint, a float8, m int8)', k, typ),
    format('SELECT %I, count(*), sum(i4), avg(f8), max(i8) FROM ty GROUP BY %I', k, k))
FROM (VALUES ('i2','int2'), ('i4','int4'), ('i8','int8'), ('f4','float4'), ('f8','float8'),
             ('b','bool'), ('d','date'), ('ts','timestamp'), ('tz','timestamptz'),
             ('txt','text'), ('vc','varchar')) v(k, typ);

-- each aggregate over each input type, differential
SELECT fn, c, gdb_diff(
    format('SELECT * FROM gpu_groupby(''ty'', ''txt'', %L) AS t(k text, v %s)', fn || '(' || c || ')', rt),
    format('SELECT txt, %s(%I) FROM ty GROUP BY txt', fn, c))
FROM (VALUES ('count','i2','bigint'), ('count','num','bigint'), ('count','txt','bigint'),
             ('sum','i2','bigint'), ('sum','i4','bigint'), ('sum','i8','numeric'),
             ('sum','f4','real'), ('sum','f8','float8'),
             ('avg','i2','numeric'), ('avg','i4','numeric'), ('avg','i8','numeric'),
             ('avg','f4','float8'), ('avg','f8','float8'),
             ('min','i2','int2'), ('min','i4','int4'), ('min','i8','int8'), ('min','f4','real'),
             ('min','f8','float8'), ('min','d','date'), ('min','ts','timestamp'), ('min','tz','timestamptz'),
             ('max','i2','int2'), ('max','i4','int4'), ('max','i8','int8'), ('max','f4','real'),
             ('max','f8','float8'), ('max','d','date'), ('max','ts','timestamp'), ('max','tz','timestamptz')
     ) v(fn, c, rt);

-- several keys at once, up to the limit of 8
SELECT gdb_diff(
    $$SELECT * FROM gpu_groupby('ty', 'i2, b, txt', 'count(*), sum(i4), min(f8)') AS t(i2 int2, b bool, txt text, n bigint, s bigint, m float8)$$,
    $$SELECT i2, b, txt, count(*), sum(i4), min(f8) FROM ty GROUP BY i2, b, txt$$);
SELECT gdb_diff(
    $$SELECT * FROM gpu_groupby('ty', 'i2, i4, f4, b, d, ts, txt, vc', 'count(*)') AS t(a int2, b int4, c float4, d bool, e date, f timestamp, g text, h varchar, n bigint)$$,
    $$SELECT i2, i4, f4, b, d, ts, txt, vc, count(*) FROM ty GROUP BY 1,2,3,4,5,6,7,8$$);
-- the same key twice, and group keys without aggregates (like DISTINCT)
SELECT gdb_diff(
    $$SELECT * FROM gpu_groupby('ty', 'txt, txt', 'count(*)') AS t(a text, b text, n bigint)$$,
    $$SELECT txt, txt, count(*) FROM ty GROUP BY txt, txt$$);
SELECT gdb_diff(
    $$SELECT * FROM gpu_groupby('ty', 'vc, b', '') AS t(vc varchar, b bool)$$,
    $$SELECT vc, b FROM ty GROUP BY vc, b$$);

-- many small batches: partial results are combined across batches
SET gpudb.batch_rows = 1024;
SELECT gdb_diff(
    $$SELECT * FROM gpu_groupby('ty', 'i2, txt', 'count(*), count(f4), sum(i8), avg(i4), min(f8), max(ts), sum(f8)') AS t(i2 int2, txt text, n bigint, c bigint, s numeric, a numeric, m float8, x timestamp, sf float8)$$,
    $$SELECT i2, txt, count(*), count(f4), sum(i8), avg(i4), min(f8), max(ts), sum(f8) FROM ty GROUP BY i2, txt$$);
SELECT gdb_diff(
    $$SELECT * FROM gpu_groupby('ty', '', 'count(*), sum(i4), avg(i8)') AS t(n bigint, s bigint, a numeric)$$,
    $$SELECT count(*), sum(i4), avg(i8) FROM ty$$);
SELECT batches > 1 AS several_batches, rows_in FROM gpu_last_execution();
RESET gpudb.batch_rows;

-- gpudb.enabled off runs the CPU path; the answer is the same
SET gpudb.enabled = off;
SELECT gdb_diff(
    $$SELECT * FROM gpu_groupby('ty', 'txt', 'count(*), sum(i4), avg(f8)') AS t(k text, n bigint, s bigint, a float8)$$,
    $$SELECT txt, count(*), sum(i4), avg(f8) FROM ty GROUP BY txt$$);
SELECT path, rows_in, rows_selected, groups, batches FROM gpu_last_execution();
RESET gpudb.enabled;
