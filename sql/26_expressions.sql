-- 26_expressions: expressions and real-schema types in GpudbAgg (issue 25):
-- computed columns (aggregate arguments and group keys that are
-- expressions), numeric(p,s) fixed-point arithmetic, char(n) keys and
-- constants, date/timestamp arithmetic and cross-type comparisons, CASE,
-- COALESCE, NULLIF, GREATEST, LEAST, abs, round/trunc/floor/ceil, casts,
-- date_trunc, extract and date_part.  Every query: the plan with gpudb on
-- (a Gpudb node must be in it), and EXCEPT ALL both ways between gpudb on
-- and off (numeric compared as text, so scales must match exactly);
-- errors must be the same SQLSTATE and message on both sides.  TPC-H Q1
-- and Q6 as the specification writes them, on a lineitem of TPC-H's
-- schema.
\i sql/include/plan_node_settings.sql

CREATE TABLE lineitem (
  l_orderkey bigint, l_quantity numeric(15,2), l_extendedprice numeric(15,2),
  l_discount numeric(15,2), l_tax numeric(15,2), l_returnflag char(1),
  l_linestatus char(1), l_shipdate date, l_shipmode char(10), l_comment varchar(44));
INSERT INTO lineitem
SELECT g, (g % 50) + 1, ((g * 7919) % 100000) / 100.0 + 900, (g % 11) / 100.0,
       (g % 9) / 100.0, (ARRAY['A','N','R'])[g % 3 + 1], (ARRAY['F','O'])[g % 2 + 1],
       date '1992-01-01' + (g % 2500), (ARRAY['AIR','MAIL','SHIP ','TRUCK'])[g % 4 + 1],
       'c' || (g % 7)
FROM generate_series(1, 20000) g;
INSERT INTO lineitem VALUES (0, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL),
  (-1, 1, 'NaN', 0.5, 0, 'A', 'F', 'infinity', 'AIR', NULL),
  (-2, 2, 3.25, 0.5, 0, 'N', 'O', '-infinity', 'MAIL', NULL);
ANALYZE lineitem;
\i sql/include/differential.sql

-- TPC-H Q1 (DELTA = 90) and Q6, the specification's text
EXPLAIN (COSTS OFF)
select l_returnflag, l_linestatus, sum(l_quantity) as sum_qty,
  sum(l_extendedprice) as sum_base_price,
  sum(l_extendedprice * (1 - l_discount)) as sum_disc_price,
  sum(l_extendedprice * (1 - l_discount) * (1 + l_tax)) as sum_charge,
  avg(l_quantity) as avg_qty, avg(l_extendedprice) as avg_price,
  avg(l_discount) as avg_disc, count(*) as count_order
from lineitem where l_shipdate <= date '1998-12-01' - interval '90' day
group by l_returnflag, l_linestatus order by l_returnflag, l_linestatus;
SELECT * FROM gpu_diff($$
select l_returnflag, l_linestatus, sum(l_quantity) as sum_qty,
  sum(l_extendedprice) as sum_base_price,
  sum(l_extendedprice * (1 - l_discount)) as sum_disc_price,
  sum(l_extendedprice * (1 - l_discount) * (1 + l_tax)) as sum_charge,
  avg(l_quantity) as avg_qty, avg(l_extendedprice) as avg_price,
  avg(l_discount) as avg_disc, count(*) as count_order
from lineitem where l_shipdate <= date '1998-12-01' - interval '90' day
group by l_returnflag, l_linestatus order by l_returnflag, l_linestatus$$, true);
select l_returnflag, l_linestatus, sum(l_quantity) as sum_qty,
  sum(l_extendedprice) as sum_base_price,
  sum(l_extendedprice * (1 - l_discount)) as sum_disc_price,
  sum(l_extendedprice * (1 - l_discount) * (1 + l_tax)) as sum_charge,
  avg(l_quantity) as avg_qty, avg(l_extendedprice) as avg_price,
  avg(l_discount) as avg_disc, count(*) as count_order
from lineitem where l_shipdate <= date '1998-12-01' - interval '90' day
group by l_returnflag, l_linestatus order by l_returnflag, l_linestatus;
EXPLAIN (COSTS OFF)
select sum(l_extendedprice * l_discount) as revenue from lineitem
where l_shipdate >= date '1994-01-01' and l_shipdate < date '1994-01-01' + interval '1' year
  and l_discount between 0.06 - 0.01 and 0.06 + 0.01 and l_quantity < 24;
SELECT * FROM gpu_diff($$
select sum(l_extendedprice * l_discount) as revenue from lineitem
where l_shipdate >= date '1994-01-01' and l_shipdate < date '1994-01-01' + interval '1' year
  and l_discount between 0.06 - 0.01 and 0.06 + 0.01 and l_quantity < 24$$);
select sum(l_extendedprice * l_discount) as revenue from lineitem
where l_shipdate >= date '1994-01-01' and l_shipdate < date '1994-01-01' + interval '1' year
  and l_discount between 0.06 - 0.01 and 0.06 + 0.01 and l_quantity < 24;

-- numeric: scales of +, -, *, unary minus, abs, casts, round/trunc/floor/ceil
SELECT q, d.* FROM (VALUES
  ('SELECT l_returnflag, sum(l_extendedprice - l_discount * 2), min(-l_tax), max(abs(l_discount - 0.05)) FROM lineitem GROUP BY 1'),
  ('SELECT sum(l_quantity * l_quantity * l_discount), avg(l_extendedprice * 1.5) FROM lineitem'),
  ('SELECT round(l_extendedprice / 1000), count(*) FROM lineitem GROUP BY 1'),
  ('SELECT round(l_extendedprice, -2), trunc(l_extendedprice, 1), count(*) FROM lineitem GROUP BY 1, 2'),
  ('SELECT floor(l_extendedprice), ceil(l_discount * 10), count(*) FROM lineitem GROUP BY 1, 2'),
  ('SELECT (l_extendedprice * l_discount)::numeric(12,1), count(*) FROM lineitem GROUP BY 1'),
  ('SELECT sum(l_quantity::int * 3), sum(l_extendedprice::float8), max(l_tax::float4) FROM lineitem'),
  ('SELECT sum(l_orderkey::numeric * 0.01), sum((l_orderkey % 100)::numeric(10,2)) FROM lineitem'),
  ('SELECT min(l_extendedprice * 2), max(l_extendedprice + 1) FROM lineitem'),
  ('SELECT sum(l_extendedprice * 0.001) FROM lineitem WHERE l_extendedprice * l_discount > 50'),
  ('SELECT l_extendedprice::int % 7, count(*) FROM lineitem GROUP BY 1')
) v(q), LATERAL gpu_diff(q) d;

-- char(n): keys, constants compared with blank padding, varchar
SELECT q, d.* FROM (VALUES
  ('SELECT l_shipmode, count(*) FROM lineitem GROUP BY 1'),
  ($$SELECT l_returnflag, count(*) FROM lineitem WHERE l_shipmode = 'SHIP' GROUP BY 1$$),
  ($$SELECT count(*) FROM lineitem WHERE l_shipmode <> 'AIR   ' AND l_returnflag = 'R'$$),
  ($$SELECT count(*) FROM lineitem WHERE l_shipmode IN ('MAIL', 'TRUCK')$$),
  ('SELECT l_comment, sum(l_quantity) FROM lineitem GROUP BY 1')
) v(q), LATERAL gpu_diff(q) d;

-- dates and timestamps
SELECT q, d.* FROM (VALUES
  ($$SELECT count(*) FROM lineitem WHERE l_shipdate < timestamp '1995-03-15 12:00'$$),
  ($$SELECT count(*) FROM lineitem WHERE timestamp '1995-03-15' >= l_shipdate$$),
  ($$SELECT date_trunc('month', l_shipdate::timestamp), count(*) FROM lineitem GROUP BY 1$$),
  ($$SELECT date_trunc('week', l_shipdate + interval '1 month 2 days 3 hours'), count(*) FROM lineitem GROUP BY 1$$),
  ($$SELECT date_part('year', l_shipdate), extract(quarter FROM l_shipdate), count(*) FROM lineitem WHERE l_orderkey > 0 GROUP BY 1, 2$$),
  ($$SELECT extract(dow FROM l_shipdate), extract(doy FROM l_shipdate), count(*) FROM lineitem GROUP BY 1, 2$$),
  ($$SELECT date_part('month', l_shipdate), count(*) FROM lineitem GROUP BY 1$$),
  ($$SELECT date_part('epoch', l_shipdate::timestamp), count(*) FROM lineitem WHERE l_orderkey % 97 = 0 GROUP BY 1$$),
  ($$SELECT max(l_shipdate - date '1990-01-01'), min(l_shipdate + 30) FROM lineitem WHERE l_orderkey > 0$$),
  ($$SELECT min(l_shipdate - interval '1 year'), max(l_shipdate::timestamp + interval '3 months') FROM lineitem WHERE l_orderkey > 0$$),
  ($$SELECT date_part('year', l_shipdate), extract(month FROM l_shipdate), count(*) FROM lineitem GROUP BY 1, 2$$),
  ($$SELECT max(l_shipdate - date '1990-01-01') FROM lineitem$$)
) v(q), LATERAL gpu_diff(q) d;

-- CASE, COALESCE, NULLIF, GREATEST, LEAST
SELECT q, d.* FROM (VALUES
  ($$SELECT CASE WHEN l_discount > 0.05 THEN 1 WHEN l_discount > 0.02 THEN 2 END, count(*) FROM lineitem GROUP BY 1$$),
  ($$SELECT sum(CASE WHEN l_returnflag = 'R' THEN l_extendedprice ELSE 0.00 END) FROM lineitem$$),
  ($$SELECT sum(CASE l_linestatus WHEN 'F' THEN l_quantity WHEN 'O' THEN -l_quantity END) FROM lineitem$$),
  ($$SELECT sum(CASE WHEN l_discount = 0 THEN 0 ELSE l_orderkey / (l_discount * 100)::int END) FROM lineitem$$),
  ($$SELECT COALESCE(l_tax, l_discount, 0.00), count(*) FROM lineitem GROUP BY 1$$),
  ($$SELECT sum(NULLIF(l_quantity, 1.00)), count(NULLIF(l_discount, 0.05)) FROM lineitem$$),
  ($$SELECT max(GREATEST(l_tax, l_discount)), min(LEAST(l_tax, l_discount, 0.03)) FROM lineitem$$),
  ($$SELECT GREATEST(l_orderkey % 5, 2), count(*) FROM lineitem GROUP BY 1$$)
) v(q), LATERAL gpu_diff(q) d;

-- errors: the same rows raise the same errors, and only the rows PostgreSQL
-- evaluates (filtered-out rows and untaken CASE arms do not raise)
SELECT q, d.* FROM (VALUES
  ('SELECT sum(l_orderkey::int / (l_orderkey % 10)::int) FROM lineitem'),
  ('SELECT sum(l_orderkey::int / (l_orderkey % 10)::int) FROM lineitem WHERE l_orderkey % 10 <> 0'),
  ('SELECT sum((l_quantity * 100000)::numeric(8,2)) FROM lineitem'),
  ('SELECT sum((l_extendedprice::int * 1000000)::int4) FROM lineitem'),
  ($$SELECT max(l_shipdate + 2147483000) FROM lineitem WHERE l_orderkey > 0$$),
  ($$SELECT max(l_shipdate - date '2000-01-01') FROM lineitem$$),
  ('SELECT sum(l_extendedprice::int) FROM lineitem')
) v(q), LATERAL gpu_diff(q) d;

-- count(DISTINCT) and mode with an expression group key: their histogram
-- requests carry the request's computed columns
SELECT * FROM gpu_diff($$SELECT l_orderkey % 3, count(DISTINCT l_returnflag), mode() WITHIN GROUP (ORDER BY l_linestatus) FROM lineitem GROUP BY 1$$);

-- GpudbSort: expression sort keys and target columns computed on the device
-- (ordered comparison, row by row); a target expression that can raise is
-- computed for every selected row, as PostgreSQL's plan computes it below
-- its Sort
EXPLAIN (COSTS OFF, VERBOSE)
SELECT l_orderkey, l_extendedprice * (1 - l_discount) AS net FROM lineitem
ORDER BY l_extendedprice * (1 - l_discount) DESC, l_orderkey LIMIT 5;
SELECT q, d.* FROM (VALUES
  ($$SELECT l_orderkey, l_extendedprice * (1 - l_discount) AS net FROM lineitem ORDER BY 2 DESC, 1 LIMIT 7$$),
  ($$SELECT l_orderkey, l_shipdate + 30 FROM lineitem WHERE l_quantity < 3 ORDER BY l_shipdate + 30, l_orderkey$$),
  ($$SELECT l_orderkey FROM lineitem ORDER BY CASE WHEN l_tax > 0.04 THEN l_tax END NULLS FIRST, l_orderkey LIMIT 20$$),
  ($$SELECT l_orderkey, -l_orderkey % 7 FROM lineitem ORDER BY -l_orderkey % 7, l_orderkey DESC LIMIT 9$$),
  ($$SELECT l_orderkey, l_quantity * 2 FROM lineitem ORDER BY l_orderkey LIMIT 4$$),
  ($$SELECT l_orderkey, 1000 / (l_orderkey % 10)::int FROM lineitem ORDER BY l_orderkey DESC LIMIT 3$$),
  ($$SELECT l_orderkey, 1000 / (l_orderkey % 10)::int FROM lineitem WHERE l_orderkey % 10 <> 0 ORDER BY 2, 1 LIMIT 3$$)
) v(q), LATERAL gpu_diff(q, true) d;

-- count(DISTINCT expr) and ordered-set aggregates over expressions: the
-- histogram groups by the keys and the computed column
SELECT q, d.* FROM (VALUES
  ($$SELECT l_returnflag, count(DISTINCT l_orderkey % 97), percentile_disc(0.5) WITHIN GROUP (ORDER BY l_extendedprice * (1 - l_discount)) FROM lineitem GROUP BY 1$$),
  ($$SELECT l_linestatus, mode() WITHIN GROUP (ORDER BY l_shipdate + 7), count(DISTINCT l_tax + l_discount) FROM lineitem GROUP BY 1$$),
  ($$SELECT percentile_cont(0.25) WITHIN GROUP (ORDER BY l_orderkey * 3), percentile_cont(0.5) WITHIN GROUP (ORDER BY l_quantity * 2) FROM lineitem$$),
  ($$SELECT l_orderkey % 4, percentile_disc(0.9) WITHIN GROUP (ORDER BY coalesce(l_tax, -1.00)) FROM lineitem GROUP BY 1$$),
  ($$SELECT count(DISTINCT 100 / (l_orderkey % 10)::int) FROM lineitem$$)
) v(q), LATERAL gpu_diff(q) d;

-- ---- the cached path (with shared_preload_libraries = gpudb): the server
-- remaps the computed columns' programs onto its copy's columns and
-- dictionaries ----
SELECT current_setting('shared_preload_libraries') LIKE '%gpudb%' AS preloaded \gset
DO $$ BEGIN
  IF current_setting('shared_preload_libraries') LIKE '%gpudb%' THEN
    PERFORM gpu_cache_load('lineitem');
  END IF;
END $$;
\i sql/include/explain_analyze.sql
SELECT gpu_source($$select sum(l_extendedprice * l_discount) from lineitem where l_shipdate >= date '1994-01-01' and l_shipdate < date '1994-01-01' + interval '1' year and l_discount between 0.06 - 0.01 and 0.06 + 0.01 and l_quantity < 24$$)
       = CASE WHEN :'preloaded'::bool THEN 'cache' ELSE 'heap' END AS expected_source;
SELECT q, d.* FROM (VALUES
  ($$select l_returnflag, l_linestatus, sum(l_quantity), sum(l_extendedprice * (1 - l_discount)), sum(l_extendedprice * (1 - l_discount) * (1 + l_tax)), avg(l_discount), count(*) from lineitem where l_shipdate <= date '1998-12-01' - interval '90' day group by l_returnflag, l_linestatus$$),
  ($$select sum(l_extendedprice * l_discount) from lineitem where l_shipdate >= date '1994-01-01' and l_shipdate < date '1994-01-01' + interval '1' year and l_discount between 0.06 - 0.01 and 0.06 + 0.01 and l_quantity < 24$$),
  ($$SELECT date_trunc('month', l_shipdate::timestamp), CASE WHEN l_shipmode = 'AIR' THEN 1 ELSE 2 END, count(*) FROM lineitem GROUP BY 1, 2$$),
  ($$SELECT l_returnflag, count(DISTINCT l_orderkey % 97), mode() WITHIN GROUP (ORDER BY l_tax * 100) FROM lineitem GROUP BY 1$$),
  ($$SELECT sum(l_orderkey::int / (l_orderkey % 10)::int) FROM lineitem$$)
) v(q), LATERAL gpu_diff(q) d;
SELECT * FROM gpu_diff($$SELECT l_orderkey, l_extendedprice * (1 - l_discount) FROM lineitem WHERE l_shipmode = 'MAIL' ORDER BY 2 DESC, 1 LIMIT 6$$, true);
-- committed changes reach the cached copy, and the computed columns see them
INSERT INTO lineitem VALUES (30001, 3, 99999.99, 0.10, 0.08, 'R', 'F', date '1995-05-05', 'MAIL', 'new');
UPDATE lineitem SET l_discount = 0.06 WHERE l_orderkey BETWEEN 100 AND 140;
SELECT q, d.* FROM (VALUES
  ($$select l_returnflag, l_linestatus, sum(l_extendedprice * (1 - l_discount) * (1 + l_tax)), count(*) from lineitem group by 1, 2$$),
  ($$select sum(l_extendedprice * l_discount) from lineitem where l_discount between 0.05 and 0.07$$)
) v(q), LATERAL gpu_diff(q) d;
SELECT * FROM gpu_diff($$SELECT l_orderkey, l_extendedprice * (1 - l_discount) FROM lineitem WHERE l_shipmode = 'MAIL' ORDER BY 2 DESC, 1 LIMIT 6$$, true);
DO $$ BEGIN
  IF current_setting('shared_preload_libraries') LIKE '%gpudb%' THEN
    PERFORM gpu_cache_drop('lineitem');
  END IF;
END $$;

-- found by random_queries: a key expression inside an aggregate's argument
-- (was XX000 "Aggref found in non-Agg plan node" / "variable not found"),
-- numeric columns of different scales compared (the rescaled operand
-- saturates: was 22003 for 9999999999999.99 at scale 6), and char(n)
-- compared with a varchar or text column (trailing blanks: was a wrong
-- count; now PostgreSQL's plan)
CREATE TABLE rq_found (a numeric(15,2), b int4, c char(3), v varchar(5), n6 numeric(15,6), t text);
INSERT INTO rq_found VALUES (1.5, 1, 'a', 'a', 1.5, 'a '), (2.5, 2, 'ab', 'ab', 2, 'ab'),
  (9999999999999.99, 3, '', '', 0, ''), (-9999999999999.99, 4, 'x', 'x ', -3, 'x'),
  (NULL, NULL, NULL, NULL, NULL, NULL);
ANALYZE rq_found;
SELECT q, d.* FROM (VALUES
  ($$SELECT b + 1, sum(b + 1) FROM rq_found GROUP BY 1$$),
  ($$SELECT a + 1, sum(b - (a + 1)), count(DISTINCT a) FROM rq_found GROUP BY 1$$),
  ($$SELECT count(*) FILTER (WHERE true), sum(b) FROM rq_found WHERE a >= n6$$),
  ($$SELECT b, count(*) FROM rq_found WHERE a < n6 OR a > n6 OR a = n6 GROUP BY b$$),
  ($$SELECT count(*) FROM rq_found WHERE c = v$$),
  ($$SELECT count(*) FROM rq_found WHERE c = t::bpchar$$),
  ($$SELECT count(*) FROM rq_found WHERE t::bpchar = 'a'$$)
) v(q), LATERAL gpu_diff(q) d;
-- found by random_queries (eager aggregation shapes): a varchar or text
-- value cast to char(n) as a group or sort key, or inside an expression:
-- 'b' and 'b ' are one char(n) value and two varchar values (was two
-- groups in GpudbAgg; now PostgreSQL's plan)
CREATE TABLE rq_bp (k varchar(12), t text, n int4);
INSERT INTO rq_bp SELECT CASE WHEN g % 3 = 0 THEN 'b' WHEN g % 3 = 1 THEN 'b ' ELSE 'b' || chr(9) END,
  CASE WHEN g % 2 = 0 THEN 'a  ' ELSE 'a' END, g FROM generate_series(1, 600) g;
ANALYZE rq_bp;
SELECT q, d.* FROM (VALUES
  ($$SELECT k::bpchar, count(*), sum(n) FROM rq_bp GROUP BY 1$$),
  ($$SELECT t::bpchar, count(*) FROM rq_bp GROUP BY 1$$),
  ($$SELECT k::bpchar AS kb, n FROM rq_bp ORDER BY 1, 2 LIMIT 5$$),
  ($$SELECT count(*) FROM rq_bp WHERE k::bpchar = 'b'$$),
  ($$SELECT length(k::bpchar), count(*) FROM rq_bp GROUP BY 1$$)
) v(q), LATERAL gpu_diff(q) d;
DROP TABLE rq_bp;
-- a numeric value past the 64-bit fixed point (9999999999999.99^2 is
-- about 10^26): the node runs PostgreSQL's plan behind it instead of
-- raising (was 22003 "numeric value out of range for gpudb's fixed point")
SELECT q, d.* FROM (VALUES
  ($$SELECT b % 2, sum(a * a), count(*) FROM rq_found GROUP BY 1$$),
  ($$SELECT sum(a * n6) FROM rq_found WHERE b > 0$$),
  ($$SELECT a * a, count(*) FROM rq_found GROUP BY 1$$),
  ($$SELECT count(DISTINCT a * a) FROM rq_found$$),
  ($$SELECT b, a * a FROM rq_found WHERE a * a > 2 ORDER BY b$$)
) v(q), LATERAL gpu_diff(q) d;
SELECT * FROM gpu_diff($$SELECT b, a * a FROM rq_found ORDER BY a * a DESC NULLS LAST, b LIMIT 3$$, true);
SELECT gpu_analyze('SELECT b % 2, sum(a * a) FROM rq_found GROUP BY 1');
SELECT gpu_analyze('SELECT b, a * a FROM rq_found ORDER BY a * a DESC NULLS LAST, b LIMIT 3');
-- the fallback's rows serve backward fetches and rescans
BEGIN;
DECLARE fbc CURSOR FOR SELECT b % 2, sum(a * a) FROM rq_found GROUP BY 1 ORDER BY 1;
FETCH ALL fbc;
FETCH BACKWARD 2 fbc;
FETCH FIRST fbc;
COMMIT;
-- in parallel mode (a Gather anywhere, or force_parallel_mode) the node
-- leaves parallel mode for its request's subtransaction while no parallel
-- workers run (from 17 on a subtransaction may start in parallel mode):
-- the fixed-point error still gives PostgreSQL's answer (was 22003, the
-- fixed-point error, instead of the answer)
-- (named debug_parallel_query from 16 on)
SELECT set_config(name, 'on', false) FROM pg_settings
WHERE name IN ('force_parallel_mode', 'debug_parallel_query');
EXPLAIN (COSTS OFF) SELECT b % 2, sum(a * a) FROM rq_found GROUP BY 1 ORDER BY 1;
SELECT b % 2, sum(a * a) FROM rq_found GROUP BY 1 ORDER BY 1;
SELECT b % 2, sum(a * a)::text FROM rq_found GROUP BY 1
EXCEPT ALL SELECT b % 2, sum(a * a)::text FROM rq_found GROUP BY 1;
SELECT set_config(name, reset_val, false) FROM pg_settings
WHERE name IN ('force_parallel_mode', 'debug_parallel_query');
-- the fallback's rows go out in the node's own (virtual) slot: a parent
-- that reads them through a projection (a set operation's subquery scan)
-- crashed the backend on the tuplestore's minimal tuples
SELECT b % 2 AS k, sum(a * a)::text AS s FROM rq_found GROUP BY 1
EXCEPT ALL SELECT 7, 'x' ORDER BY 1;
-- a GpudbScan leaves numeric arithmetic to the CPU (no plan behind it)
EXPLAIN (COSTS OFF) SELECT b FROM rq_found WHERE a * a > 2 AND b > 1;
DROP TABLE rq_found;

-- a date compared with a timestamp constant compiles to a date bound, and a
-- numeric constant's rescale is done at compile time (the forms the
-- device's predicate fast path takes): the same rows at every edge
-- (infinities, the last second of a day, dates past timestamp's range,
-- julian day 0, saturating rescales); each line: queries, Gpudb nodes, rows
-- that differ
CREATE TABLE dt_bounds (d date, q numeric(15,2), id int);
INSERT INTO dt_bounds SELECT date '1990-01-01' + (i % 4000), (i % 5000) / 100.0, i
FROM generate_series(1, 5000) i;
INSERT INTO dt_bounds VALUES ('infinity', 1, -1), ('-infinity', 2, -2), (NULL, NULL, -3),
  ('5874897-12-31', 3, -4), ('294276-12-31', 4, -5), ('294277-01-01', 5, -6),
  ('4714-11-24 BC', 6, -7), (NULL, 'NaN', -8);
ANALYZE dt_bounds;
SELECT count(*) AS queries, count(*) FILTER (WHERE d.node = 'GpudbAgg') AS gpuagg,
       sum(d.on_minus_off + d.off_minus_on) AS differing, count(d.error) AS errors
FROM (VALUES ('1998-09-02'), ('1998-09-02 00:00:01'), ('1998-09-01 23:59:59'),
             ('infinity'), ('-infinity'), ('294276-12-31 23:59:59'),
             ('4713-01-01 00:00:00 BC'), ('4714-11-24 00:00:00 BC')) t(ts),
     (VALUES ('<'), ('<='), ('>'), ('>='), ('='), ('<>')) o(op),
     (VALUES (true), (false)) f(date_first),
     LATERAL gpu_diff(format('SELECT count(*), sum(id), sum(q) FROM dt_bounds WHERE %s',
                             CASE WHEN f.date_first THEN format('d %s timestamp %L', o.op, t.ts)
                                  ELSE format('timestamp %L %s d', t.ts, o.op) END)) d;
SELECT count(*) AS queries, count(*) FILTER (WHERE d.node = 'GpudbAgg') AS gpuagg,
       sum(d.on_minus_off + d.off_minus_on) AS differing, count(d.error) AS errors
FROM (VALUES ('q < 24'), ('q <= 24'), ('24 > q'), ('q >= 0.05'), ('q <> 3'),
             ('q < 99999999999999999'), ('q > -99999999999999999'),
             ('q < 9223372036854775807'), ('q = 3 OR q = 4.5')) c(cond),
     LATERAL gpu_diff(format('SELECT count(*), sum(id), sum(q) FROM dt_bounds WHERE %s', c.cond)) d;
DROP TABLE dt_bounds;

-- still PostgreSQL's plan: division of numerics, arms of different scales
-- anywhere but directly under sum (avg's, or inside a product)
SET gpudb.debug_unsupported = on;
EXPLAIN (COSTS OFF) SELECT sum(l_extendedprice / 3) FROM lineitem;
EXPLAIN (COSTS OFF) SELECT avg(CASE WHEN l_tax > 0 THEN 1.5 ELSE 2 END) FROM lineitem;
EXPLAIN (COSTS OFF) SELECT sum(l_tax * CASE WHEN l_tax > 0 THEN 1.5 ELSE 2 END) FROM lineitem;
-- (directly under sum: on the device, see below)
EXPLAIN (COSTS OFF) SELECT sum(CASE WHEN l_tax > 0 THEN 1.5 ELSE 2 END) FROM lineitem;
EXPLAIN (COSTS OFF) SELECT extract(epoch FROM l_shipdate), count(*) FROM lineitem GROUP BY 1;
-- extract(year) on the device, PostgreSQL's plan behind the node: an
-- infinite date's year is Infinity, which the fixed point cannot carry
EXPLAIN (COSTS OFF) SELECT extract(year FROM l_shipdate), count(*) FROM lineitem GROUP BY 1;
-- more computed columns than one request holds (was 54000 at execution)
EXPLAIN (COSTS OFF) SELECT sum(l_orderkey + 1), sum(l_orderkey + 2), sum(l_orderkey + 3),
  sum(l_orderkey + 4), sum(l_orderkey + 5), sum(l_orderkey + 6), sum(l_orderkey + 7),
  sum(l_orderkey + 8), sum(l_orderkey + 9), sum(l_orderkey + 10), sum(l_orderkey + 11),
  sum(l_orderkey + 12), sum(l_orderkey + 13), sum(l_orderkey + 14), sum(l_orderkey + 15),
  sum(l_orderkey + 16), sum(l_orderkey + 17) FROM lineitem;
RESET gpudb.debug_unsupported;
SELECT * FROM gpu_diff($$SELECT extract(year FROM l_shipdate), count(*) FROM lineitem GROUP BY 1$$);
BEGIN;
UPDATE lineitem SET l_shipdate = 'infinity' WHERE l_orderkey % 101 = 5;
SELECT l FROM gpu_analyze($$SELECT extract(year FROM l_shipdate), count(*) FROM lineitem GROUP BY 1$$) l
WHERE l ~ 'GpudbAgg|Fallback';
SELECT * FROM gpu_diff($$SELECT extract(year FROM l_shipdate), count(*) FROM lineitem GROUP BY 1$$);
ROLLBACK;

-- sum over a CASE whose arms are numeric of different scales (TPC-H Q8 and
-- Q14): computed at the largest scale, shown at the largest display scale
-- of the values each group added ('0' where every row took ELSE 0); a NULL
-- arm adds nothing and sets no scale; the NaN row (-1) too
EXPLAIN (COSTS OFF)
SELECT l_returnflag, sum(CASE WHEN l_shipmode = 'MAIL' THEN l_extendedprice * (1 - l_discount) ELSE 0 END)
FROM lineitem GROUP BY 1;
SELECT q, d.* FROM (VALUES
  ($$SELECT l_orderkey % 5 AS g, sum(CASE WHEN l_shipmode = 'MAIL' AND l_orderkey % 5 <> 2 THEN l_extendedprice * (1 - l_discount) ELSE 0 END) FROM lineitem GROUP BY 1$$),
  ($$SELECT l_orderkey % 5 AS g, sum(CASE WHEN l_orderkey % 5 = 1 THEN l_extendedprice WHEN l_orderkey % 5 = 2 THEN NULL WHEN l_orderkey % 5 = 3 THEN l_discount * l_tax ELSE 1.5 END) FROM lineitem GROUP BY 1$$),
  ($$SELECT 100.00 * sum(CASE WHEN l_shipmode = 'MAIL' THEN l_extendedprice * (1 - l_discount) ELSE 0 END) / sum(l_extendedprice * (1 - l_discount)) FROM lineitem WHERE l_orderkey > 0$$),
  ($$SELECT l_orderkey % 5 AS g, sum(CASE l_orderkey % 5 WHEN 1 THEN l_extendedprice WHEN 2 THEN 7 END), sum(CASE WHEN l_orderkey % 5 = 4 THEN l_tax * l_discount ELSE l_quantity END) FROM lineitem GROUP BY 1$$),
  ($$SELECT l_returnflag, sum(CASE WHEN l_quantity > 40 THEN l_quantity ELSE 0.125 END) FROM lineitem GROUP BY 1$$)
) v(q), LATERAL gpu_diff(q) d;

DROP TABLE lineitem;
DROP FUNCTION gpu_diff(text, bool);
DROP FUNCTION gpu_source(text), gpu_analyze(text);
DROP FUNCTION gpu_diff_rows(text, bool);
