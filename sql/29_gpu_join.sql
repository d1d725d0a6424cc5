-- 29_gpu_join: GpudbJoin (issue 18): GROUP BY and aggregates over a join
-- tree that PostgreSQL's planner chose, one probe relation's rows probed
-- against hash tables of the others (inner, semi, anti and left
-- equi-joins).  Every query: the plan with gpudb on (EXPLAIN pinned where
-- the shape matters), and EXCEPT ALL both ways between gpudb on and off
-- (sql/include/differential.sql; numeric compared as text).  Star joins
-- of a fact table to 2-3 dimensions, TPC-H-like shapes (Q3, Q5, Q10,
-- Q12), count(DISTINCT), percentiles and mode over joins, NULL keys,
-- duplicate probe keys, dangling keys, semi and anti joins through
-- EXISTS, IN and NOT EXISTS, text and numeric keys, a join's other quals
-- (inner, left, semi and anti joins), a bushy tree's nested build side,
-- a build side with duplicate keys (PostgreSQL's plan behind the node
-- answers), parallel heap readers, and build sides and the probe table
-- from the column cache.
\i sql/include/plan_node_settings.sql

-- a star: fact f, dimensions d1 (int key), d2 (bigint key), d3 (text key)
CREATE TABLE d1 (id int PRIMARY KEY, name text, grp int, price numeric(10,2));
CREATE TABLE d2 (id bigint PRIMARY KEY, region varchar(8), w float8, day date);
CREATE TABLE d3 (code text PRIMARY KEY, cat char(3), lim int);
CREATE TABLE dnokey (id int, tag text);		-- no key: duplicates
CREATE TABLE f (id int, k1 int, k2 bigint, k3 text, v int, amt numeric(12,2),
                x float8, day date);
INSERT INTO d1 SELECT g, 'n' || (g % 7), g % 5, g * 1.25 FROM generate_series(1, 200) g;
INSERT INTO d2 SELECT g, 'r' || (g % 3), g / 4.0, date '2020-01-01' + g
FROM generate_series(1, 50) g;
INSERT INTO d3 SELECT 'c' || g, (ARRAY['a', 'bb', 'ccc'])[g % 3 + 1], g % 40
FROM generate_series(1, 30) g;
INSERT INTO dnokey SELECT g % 20, 't' || g FROM generate_series(1, 30) g;
-- NULL keys, dangling keys (k1 above 200, k2 above 50, k3 'c31'..), and
-- every key value many times (duplicate probe keys)
INSERT INTO f
SELECT g,
       CASE WHEN g % 17 = 0 THEN NULL ELSE g % 230 END,
       CASE WHEN g % 23 = 0 THEN NULL ELSE g % 60 END,
       CASE WHEN g % 19 = 0 THEN NULL ELSE 'c' || (g % 36) END,
       g % 100, (g % 1000) / 10.0, g * 0.5, date '2020-01-01' + g % 90
FROM generate_series(1, 6000) g;
ANALYZE d1, d2, d3, dnokey, f;
\i sql/include/differential.sql
\i sql/include/explain_analyze.sql
\i sql/include/explain_plan.sql

-- ---------------------------------------------------------------------------
-- star joins
-- ---------------------------------------------------------------------------
EXPLAIN (COSTS OFF)
SELECT d1.grp, d2.region, count(*), sum(f.v), avg(f.amt)
FROM f JOIN d1 ON f.k1 = d1.id JOIN d2 ON f.k2 = d2.id
GROUP BY d1.grp, d2.region;
SELECT * FROM gpu_diff($$
SELECT d1.grp, d2.region, count(*), sum(f.v), avg(f.amt), min(d1.price), max(d2.w)
FROM f JOIN d1 ON f.k1 = d1.id JOIN d2 ON f.k2 = d2.id
GROUP BY d1.grp, d2.region$$);
-- three dimensions, quals on each relation, a text key
EXPLAIN (COSTS OFF)
SELECT d3.cat, d1.grp, count(*), sum(f.amt * d1.price)
FROM f JOIN d1 ON f.k1 = d1.id JOIN d2 ON f.k2 = d2.id JOIN d3 ON f.k3 = d3.code
WHERE d1.grp < 4 AND d2.w > 2 AND d3.lim >= 3 AND f.v > 10
GROUP BY d3.cat, d1.grp;
SELECT * FROM gpu_diff($$
SELECT d3.cat, d1.grp, count(*), sum(f.amt * d1.price), sum(f.x), max(d3.lim)
FROM f JOIN d1 ON f.k1 = d1.id JOIN d2 ON f.k2 = d2.id JOIN d3 ON f.k3 = d3.code
WHERE d1.grp < 4 AND d2.w > 2 AND d3.lim >= 3 AND f.v > 10
GROUP BY d3.cat, d1.grp$$);
-- group keys and aggregate arguments over both sides, expressions too
SELECT * FROM gpu_diff($$
SELECT d1.name, date_trunc('month', d2.day::timestamp) AS m, count(*),
       sum(f.v * d1.grp), avg(d1.price * f.v), min(f.day - d2.day)
FROM f JOIN d1 ON f.k1 = d1.id JOIN d2 ON f.k2 = d2.id
GROUP BY d1.name, date_trunc('month', d2.day::timestamp)$$);
-- count(DISTINCT), percentiles and mode: histograms over the same joins
EXPLAIN (COSTS OFF)
SELECT d1.grp, count(DISTINCT f.v), count(DISTINCT d1.name),
       percentile_disc(0.5) WITHIN GROUP (ORDER BY d1.price)
FROM f JOIN d1 ON f.k1 = d1.id GROUP BY d1.grp;
SELECT * FROM gpu_diff($$
SELECT d1.grp, count(DISTINCT f.v), count(DISTINCT d1.name),
       percentile_disc(0.5) WITHIN GROUP (ORDER BY d1.price),
       mode() WITHIN GROUP (ORDER BY d3.cat),
       percentile_cont(0.25) WITHIN GROUP (ORDER BY f.x + d1.grp)
FROM f JOIN d1 ON f.k1 = d1.id JOIN d3 ON f.k3 = d3.code GROUP BY d1.grp$$);
SELECT * FROM gpu_diff($$
SELECT count(DISTINCT d1.grp), count(*) FROM f LEFT JOIN d1 ON f.k1 = d1.id$$);
-- no group keys; an empty build side (no d1 row passes its qual)
SELECT * FROM gpu_diff($$
SELECT count(*), sum(f.v), avg(d1.price) FROM f JOIN d1 ON f.k1 = d1.id$$);
SELECT * FROM gpu_diff($$
SELECT count(*), sum(f.v), avg(d1.price) FROM f JOIN d1 ON f.k1 = d1.id
WHERE d1.grp > 100$$);
SELECT * FROM gpu_diff($$
SELECT d1.grp, count(*) FROM f JOIN d1 ON f.k1 = d1.id
WHERE d1.grp > 100 GROUP BY d1.grp$$);
-- the join's key columns themselves grouped and summed
SELECT * FROM gpu_diff($$
SELECT d1.id % 10, count(*), sum(f.k1) FROM f JOIN d1 ON f.k1 = d1.id GROUP BY 1$$);
-- an INNER join's other quals, evaluated after the probe
EXPLAIN (COSTS OFF)
SELECT d1.grp, count(*) FROM f JOIN d1 ON f.k1 = d1.id AND f.v > d1.grp * 10
GROUP BY d1.grp;
SELECT * FROM gpu_diff($$
SELECT d1.grp, count(*), sum(f.v) FROM f JOIN d1 ON f.k1 = d1.id AND f.v > d1.grp * 10
GROUP BY d1.grp$$);
SELECT * FROM gpu_diff($$
SELECT d3.cat, count(*) FROM f JOIN d3 ON f.k3 = d3.code AND (f.v < d3.lim OR d3.cat = 'a')
GROUP BY d3.cat$$);

-- ---------------------------------------------------------------------------
-- key types: smallint against integer, date, numeric(p,s) of one scale
-- (numeric(12,2) against numeric(10,2)), two keys at once
-- ---------------------------------------------------------------------------
CREATE TABLE dsmall (id smallint PRIMARY KEY, w int);
INSERT INTO dsmall SELECT g, g * 3 FROM generate_series(1, 120) g;
ANALYZE dsmall;
SELECT * FROM gpu_diff($$
SELECT dsmall.w % 7, count(*), sum(f.v) FROM f JOIN dsmall ON f.k1 = dsmall.id GROUP BY 1$$);
EXPLAIN (COSTS OFF)
SELECT d2.region, count(*) FROM f JOIN d2 ON f.day = d2.day GROUP BY d2.region;
SELECT * FROM gpu_diff($$
SELECT d2.region, count(*), min(f.id) FROM f JOIN d2 ON f.day = d2.day GROUP BY d2.region$$);
SELECT * FROM gpu_diff($$
SELECT d1.grp, count(*), sum(f.v) FROM f JOIN d1 ON f.amt = d1.price GROUP BY d1.grp$$);
SELECT * FROM gpu_diff($$
SELECT d2.region, count(*) FROM f JOIN d2 ON f.k2 = d2.id AND f.day = d2.day GROUP BY d2.region$$);
SELECT * FROM gpu_diff($$
SELECT d1.grp, count(*) FROM f LEFT JOIN d1 ON f.amt = d1.price GROUP BY d1.grp$$);

-- ---------------------------------------------------------------------------
-- semi and anti joins: EXISTS, IN, NOT EXISTS (NULL probe keys never
-- match: NOT EXISTS keeps them); NOT IN keeps PostgreSQL's plan
-- ---------------------------------------------------------------------------
-- (EXISTS against a unique key is an inner join to PostgreSQL's planner)
EXPLAIN (COSTS OFF)
SELECT f.v % 5, count(*) FROM f
WHERE EXISTS (SELECT 1 FROM d1 WHERE d1.id = f.k1 AND d1.grp = 2) GROUP BY 1;
EXPLAIN (COSTS OFF)
SELECT f.v % 5, count(*) FROM f
WHERE EXISTS (SELECT 1 FROM dnokey n WHERE n.id = f.k1 AND n.tag LIKE 't1%') GROUP BY 1;
SELECT * FROM gpu_diff($$
SELECT f.v % 5, count(*), sum(f.amt) FROM f
WHERE EXISTS (SELECT 1 FROM d1 WHERE d1.id = f.k1 AND d1.grp = 2) GROUP BY 1$$);
SELECT * FROM gpu_diff($$
SELECT f.v % 5, count(*) FROM f WHERE f.k2 IN (SELECT id FROM d2 WHERE w > 5) GROUP BY 1$$);
SELECT * FROM gpu_diff($$
SELECT f.v % 5, count(*) FROM f WHERE f.k3 IN (SELECT code FROM d3 WHERE cat = 'bb') GROUP BY 1$$);
EXPLAIN (COSTS OFF)
SELECT f.v % 5, count(*) FROM f
WHERE NOT EXISTS (SELECT 1 FROM d1 WHERE d1.id = f.k1) GROUP BY 1;
SELECT * FROM gpu_diff($$
SELECT f.v % 5, count(*), count(f.k1), sum(f.x) FROM f
WHERE NOT EXISTS (SELECT 1 FROM d1 WHERE d1.id = f.k1) GROUP BY 1$$);
-- a semi join against a relation with duplicate keys (no uniqueness needed)
SELECT * FROM gpu_diff($$
SELECT count(*), sum(f.v) FROM f WHERE EXISTS (SELECT 1 FROM dnokey n WHERE n.id = f.k1)$$);
SELECT * FROM gpu_diff($$
SELECT count(*), sum(f.v) FROM f WHERE NOT EXISTS (SELECT 1 FROM dnokey n WHERE n.id = f.k1)$$);
-- semi and anti joins with other quals: every build row with the probe
-- row's keys is tried (duplicates on the build side), as TPC-H Q21's
-- EXISTS over lineitem with l2.l_suppkey <> l1.l_suppkey
EXPLAIN (COSTS OFF)
SELECT f.v % 5, count(*) FROM f
WHERE EXISTS (SELECT 1 FROM dnokey n WHERE n.id = f.k1 AND length(n.tag) > f.v % 4) GROUP BY 1;
SELECT * FROM gpu_diff($$
SELECT f.v % 5, count(*) FROM f
WHERE EXISTS (SELECT 1 FROM dnokey n WHERE n.id = f.k1 AND length(n.tag) > f.v % 4) GROUP BY 1$$);
SELECT * FROM gpu_diff($$
SELECT f.v % 5, count(*) FROM f
WHERE NOT EXISTS (SELECT 1 FROM dnokey n WHERE n.id = f.k1 AND length(n.tag) > f.v % 4) GROUP BY 1$$);
SELECT * FROM gpu_diff($$
SELECT f.v % 5, count(*) FROM f
WHERE EXISTS (SELECT 1 FROM f f2 WHERE f2.k1 = f.k1 AND f2.id <> f.id AND f2.v > f.v)
GROUP BY 1$$);
-- NOT IN: PostgreSQL's NULL rules, PostgreSQL's plan
SELECT * FROM gpu_diff($$
SELECT count(*) FROM f WHERE f.k1 NOT IN (SELECT id FROM d1)$$);
-- inner and semi joins together
SELECT * FROM gpu_diff($$
SELECT d1.grp, count(*) FROM f JOIN d1 ON f.k1 = d1.id
WHERE EXISTS (SELECT 1 FROM d3 WHERE d3.code = f.k3 AND d3.lim > 10)
  AND NOT EXISTS (SELECT 1 FROM d2 WHERE d2.id = f.k2 AND d2.region = 'r1')
GROUP BY d1.grp$$);

-- ---------------------------------------------------------------------------
-- left joins: NULL-extended payload for dangling and NULL keys
-- ---------------------------------------------------------------------------
EXPLAIN (COSTS OFF)
SELECT d1.grp, count(*), count(d1.id) FROM f LEFT JOIN d1 ON f.k1 = d1.id GROUP BY d1.grp;
SELECT * FROM gpu_diff($$
SELECT d1.grp, count(*), count(d1.id), sum(f.v), max(d1.price)
FROM f LEFT JOIN d1 ON f.k1 = d1.id GROUP BY d1.grp$$);
-- the ON clause's qual on the inner relation filters the build side
SELECT * FROM gpu_diff($$
SELECT d2.region, count(*), sum(d2.w) FROM f LEFT JOIN d2 ON f.k2 = d2.id AND d2.w > 3
GROUP BY d2.region$$);
-- a left join's other quals decide the match (no match: NULL-extended)
EXPLAIN (COSTS OFF)
SELECT d1.grp, count(*) FROM f LEFT JOIN d1 ON f.k1 = d1.id AND f.v > d1.grp * 20
GROUP BY d1.grp;
SELECT * FROM gpu_diff($$
SELECT d1.grp, count(*), sum(d1.price) FROM f LEFT JOIN d1 ON f.k1 = d1.id AND f.v > d1.grp * 20
GROUP BY d1.grp$$);
-- a right join is a left join with the sides swapped
SELECT * FROM gpu_diff($$
SELECT d1.grp, count(*) FROM d1 RIGHT JOIN f ON f.k1 = d1.id GROUP BY d1.grp$$);

-- ---------------------------------------------------------------------------
-- a build side that is not unique on its keys: an inner join would
-- expand rows.  Where the planner's statistics say so, PostgreSQL's plan;
-- where they do not (duplicates added after ANALYZE), the node answers
-- with PostgreSQL's plan behind it (gpu_plan_nodes: that plan's shape
-- varies, 19 aggregates below the join)
-- ---------------------------------------------------------------------------
SELECT gpu_plan_nodes($$
SELECT n.tag, count(*) FROM f JOIN dnokey n ON f.k1 = n.id GROUP BY n.tag$$);
SELECT * FROM gpu_diff($$
SELECT n.tag, count(*), sum(f.v) FROM f JOIN dnokey n ON f.k1 = n.id GROUP BY n.tag$$);
CREATE TABLE dlate (id int, tag text);
INSERT INTO dlate SELECT g, 'l' || g FROM generate_series(1, 40) g;
ANALYZE dlate;
INSERT INTO dlate VALUES (3, 'dup3'), (7, 'dup7');
EXPLAIN (COSTS OFF)
SELECT n.tag, count(*) FROM f JOIN dlate n ON f.k1 = n.id GROUP BY n.tag;
SELECT * FROM gpu_diff($$
SELECT n.tag, count(*), sum(f.v) FROM f JOIN dlate n ON f.k1 = n.id GROUP BY n.tag$$);
SELECT l FROM gpu_analyze($$
SELECT n.tag, count(*) FROM f JOIN dlate n ON f.k1 = n.id GROUP BY n.tag$$) l
WHERE l ~ 'GpudbJoin|Fallback';

-- ---------------------------------------------------------------------------
-- TPC-H shapes, on tables of TPC-H's schema
-- ---------------------------------------------------------------------------
CREATE TABLE region (r_regionkey int PRIMARY KEY, r_name char(25));
CREATE TABLE nation (n_nationkey int PRIMARY KEY, n_name char(25), n_regionkey int);
CREATE TABLE supplier (s_suppkey int PRIMARY KEY, s_name char(25), s_nationkey int);
CREATE TABLE customer (c_custkey int PRIMARY KEY, c_name varchar(25), c_address varchar(40),
  c_nationkey int, c_phone char(15), c_acctbal numeric(15,2), c_mktsegment char(10),
  c_comment varchar(117));
CREATE TABLE orders (o_orderkey bigint PRIMARY KEY, o_custkey int, o_orderstatus char(1),
  o_totalprice numeric(15,2), o_orderdate date, o_orderpriority char(15),
  o_shippriority int);
CREATE TABLE lineitem (l_orderkey bigint, l_suppkey int, l_linenumber int,
  l_quantity numeric(15,2), l_extendedprice numeric(15,2), l_discount numeric(15,2),
  l_returnflag char(1), l_shipdate date, l_commitdate date, l_receiptdate date,
  l_shipmode char(10), PRIMARY KEY (l_orderkey, l_linenumber));
INSERT INTO region SELECT g, (ARRAY['AFRICA','AMERICA','ASIA','EUROPE','MIDDLE EAST'])[g + 1]
FROM generate_series(0, 4) g;
INSERT INTO nation SELECT g, 'NATION' || g, g % 5 FROM generate_series(0, 24) g;
INSERT INTO supplier SELECT g, 'Supplier#' || g, g % 25 FROM generate_series(1, 40) g;
INSERT INTO customer SELECT g, 'Customer#' || g, 'addr' || (g % 13), g % 25,
  '10-' || (100 + g % 900), (g % 2000) - 500.25,
  (ARRAY['BUILDING','AUTOMOBILE','MACHINERY','HOUSEHOLD','FURNITURE'])[g % 5 + 1],
  'comment ' || (g % 11)
FROM generate_series(1, 300) g;
INSERT INTO orders SELECT g, CASE WHEN g % 97 = 0 THEN 9999 ELSE g % 300 + 1 END,
  (ARRAY['F','O','P'])[g % 3 + 1], (g % 5000) * 10.5,
  date '1993-01-01' + (g * 7) % 2000, (ARRAY['1-URGENT','2-HIGH','3-MEDIUM','4-NOT SPECIFIED','5-LOW'])[g % 5 + 1],
  0
FROM generate_series(1, 3000) g;
INSERT INTO lineitem SELECT o, CASE WHEN (o + n) % 31 = 0 THEN NULL ELSE (o * n) % 40 + 1 END, n,
  (o + n) % 50 + 1, ((o * 7919 + n) % 100000) / 100.0 + 900, ((o + n) % 11) / 100.0,
  (ARRAY['A','N','R'])[(o + n) % 3 + 1],
  date '1993-01-01' + (o * 7) % 2000 + n * 5, date '1993-01-01' + (o * 7) % 2000 + 30,
  date '1993-01-01' + (o * 7) % 2000 + n * 9,
  (ARRAY['MAIL','SHIP','AIR','TRUCK','RAIL'])[(o + n) % 5 + 1]
FROM generate_series(1, 3000) o, generate_series(1, 4) n;
ANALYZE region, nation, supplier, customer, orders, lineitem;

-- Q3: shipping priority
EXPLAIN (COSTS OFF)
SELECT l_orderkey, sum(l_extendedprice * (1 - l_discount)) AS revenue, o_orderdate, o_shippriority
FROM customer, orders, lineitem
WHERE c_mktsegment = 'BUILDING' AND c_custkey = o_custkey AND l_orderkey = o_orderkey
  AND o_orderdate < date '1995-03-15' AND l_shipdate > date '1995-03-15'
GROUP BY l_orderkey, o_orderdate, o_shippriority;
SELECT * FROM gpu_diff($$
SELECT l_orderkey, sum(l_extendedprice * (1 - l_discount)) AS revenue, o_orderdate, o_shippriority
FROM customer, orders, lineitem
WHERE c_mktsegment = 'BUILDING' AND c_custkey = o_custkey AND l_orderkey = o_orderkey
  AND o_orderdate < date '1995-03-15' AND l_shipdate > date '1995-03-15'
GROUP BY l_orderkey, o_orderdate, o_shippriority$$);
-- lineitem probes the hash of orders joined to customer (a nested build
-- side, unique on o_orderkey): no fallback
SELECT l FROM gpu_analyze($$
SELECT l_orderkey, sum(l_extendedprice * (1 - l_discount)) AS revenue, o_orderdate, o_shippriority
FROM customer, orders, lineitem
WHERE c_mktsegment = 'BUILDING' AND c_custkey = o_custkey AND l_orderkey = o_orderkey
  AND o_orderdate < date '1995-03-15' AND l_shipdate > date '1995-03-15'
GROUP BY l_orderkey, o_orderdate, o_shippriority$$) l
WHERE l ~ 'Build Rows|Fallback|Rows In|Groups';
-- Q5: local supplier volume (a customer and a supplier of one nation)
EXPLAIN (COSTS OFF)
SELECT n_name, sum(l_extendedprice * (1 - l_discount)) AS revenue
FROM customer, orders, lineitem, supplier, nation, region
WHERE c_custkey = o_custkey AND l_orderkey = o_orderkey AND l_suppkey = s_suppkey
  AND c_nationkey = s_nationkey AND s_nationkey = n_nationkey AND n_regionkey = r_regionkey
  AND r_name = 'ASIA' AND o_orderdate >= date '1994-01-01'
  AND o_orderdate < date '1994-01-01' + interval '1' year
GROUP BY n_name;
SELECT * FROM gpu_diff($$
SELECT n_name, sum(l_extendedprice * (1 - l_discount)) AS revenue
FROM customer, orders, lineitem, supplier, nation, region
WHERE c_custkey = o_custkey AND l_orderkey = o_orderkey AND l_suppkey = s_suppkey
  AND c_nationkey = s_nationkey AND s_nationkey = n_nationkey AND n_regionkey = r_regionkey
  AND r_name = 'ASIA' AND o_orderdate >= date '1994-01-01'
  AND o_orderdate < date '1994-01-01' + interval '1' year
GROUP BY n_name$$);
-- Q10: returned items (customer's columns depend on its grouped key).  The
-- plan's GROUP BY lists the kept keys first, then the dependent columns in
-- target list order: the order in which the node lists its keys whether
-- the planner left the dependent ones out of the GROUP BY (before 18) or not
EXPLAIN (COSTS OFF)
SELECT c_custkey, c_name, sum(l_extendedprice * (1 - l_discount)) AS revenue,
  c_acctbal, n_name, c_address, c_phone, c_comment
FROM customer, orders, lineitem, nation
WHERE c_custkey = o_custkey AND l_orderkey = o_orderkey
  AND o_orderdate >= date '1993-10-01' AND o_orderdate < date '1993-10-01' + interval '3' month
  AND l_returnflag = 'R' AND c_nationkey = n_nationkey
GROUP BY c_custkey, n_name, c_name, c_acctbal, c_address, c_phone, c_comment;
SELECT * FROM gpu_diff($$
SELECT c_custkey, c_name, sum(l_extendedprice * (1 - l_discount)) AS revenue,
  c_acctbal, n_name, c_address, c_phone, c_comment
FROM customer, orders, lineitem, nation
WHERE c_custkey = o_custkey AND l_orderkey = o_orderkey
  AND o_orderdate >= date '1993-10-01' AND o_orderdate < date '1993-10-01' + interval '3' month
  AND l_returnflag = 'R' AND c_nationkey = n_nationkey
GROUP BY c_custkey, c_name, c_acctbal, c_phone, n_name, c_address, c_comment$$);
-- Q12: shipping modes and order priority
EXPLAIN (COSTS OFF)
SELECT l_shipmode,
  sum(CASE WHEN o_orderpriority = '1-URGENT' OR o_orderpriority = '2-HIGH' THEN 1 ELSE 0 END) AS high,
  sum(CASE WHEN o_orderpriority <> '1-URGENT' AND o_orderpriority <> '2-HIGH' THEN 1 ELSE 0 END) AS low
FROM orders, lineitem
WHERE o_orderkey = l_orderkey AND l_shipmode IN ('MAIL', 'SHIP')
  AND l_commitdate < l_receiptdate AND l_shipdate < l_commitdate
  AND l_receiptdate >= date '1994-01-01' AND l_receiptdate < date '1994-01-01' + interval '1' year
GROUP BY l_shipmode;
SELECT * FROM gpu_diff($$
SELECT l_shipmode,
  sum(CASE WHEN o_orderpriority = '1-URGENT' OR o_orderpriority = '2-HIGH' THEN 1 ELSE 0 END) AS high,
  sum(CASE WHEN o_orderpriority <> '1-URGENT' AND o_orderpriority <> '2-HIGH' THEN 1 ELSE 0 END) AS low
FROM orders, lineitem
WHERE o_orderkey = l_orderkey AND l_shipmode IN ('MAIL', 'SHIP')
  AND l_commitdate < l_receiptdate AND l_shipdate < l_commitdate
  AND l_receiptdate >= date '1994-01-01' AND l_receiptdate < date '1994-01-01' + interval '1' year
GROUP BY l_shipmode$$);
-- Q4-like: a semi join of orders to lineitem (duplicates on the build side)
SELECT * FROM gpu_diff($$
SELECT o_orderpriority, count(*) FROM orders
WHERE o_orderdate >= date '1993-07-01' AND o_orderdate < date '1993-10-01'
  AND EXISTS (SELECT * FROM lineitem WHERE l_orderkey = o_orderkey AND l_commitdate < l_receiptdate)
GROUP BY o_orderpriority$$);
-- a chain: lineitem -> orders -> customer -> nation, keyed by payload columns
SELECT * FROM gpu_diff($$
SELECT n_name, o_orderstatus, count(*), sum(l_quantity), avg(c_acctbal)
FROM lineitem JOIN orders ON l_orderkey = o_orderkey
  JOIN customer ON o_custkey = c_custkey JOIN nation ON c_nationkey = n_nationkey
GROUP BY n_name, o_orderstatus$$);

-- ---------------------------------------------------------------------------
-- EXPLAIN ANALYZE: build rows and sources; the probe side reads the heap
-- ---------------------------------------------------------------------------
SELECT l FROM gpu_analyze($$
SELECT d1.grp, count(*) FROM f JOIN d1 ON f.k1 = d1.id JOIN d2 ON f.k2 = d2.id
WHERE d2.w > 2 GROUP BY d1.grp$$) l;

-- ---------------------------------------------------------------------------
-- the probe relation read by parallel workers with the backend, in small
-- batches: the build sides go to the workers in the segment, their text
-- codes the backend's (how many workers start depends on free slots)
-- ---------------------------------------------------------------------------
SET gpudb.min_parallel_table_size = 0;
SET gpudb.parallel_workers = 2;
SET gpudb.batch_rows = 1024;
SELECT regexp_replace(l, 'Workers Launched: [1-9][0-9]*', 'Workers Launched: >0') AS l
FROM gpu_analyze($$
SELECT d3.cat, d1.name, count(*), sum(f.v) FROM f JOIN d1 ON f.k1 = d1.id
  JOIN d3 ON f.k3 = d3.code GROUP BY d3.cat, d1.name$$) l
WHERE l ~ 'Workers|Rows In|Groups';
SELECT * FROM gpu_diff($$
SELECT d3.cat, d1.name, count(*), sum(f.v), min(f.x) FROM f JOIN d1 ON f.k1 = d1.id
  JOIN d3 ON f.k3 = d3.code GROUP BY d3.cat, d1.name$$);
SELECT * FROM gpu_diff($$
SELECT d1.grp, count(*), count(d1.id) FROM f LEFT JOIN d1 ON f.k1 = d1.id AND f.v > d1.grp * 20
GROUP BY d1.grp$$);
SELECT * FROM gpu_diff($$
SELECT f.k3, count(*) FROM f WHERE EXISTS (SELECT 1 FROM d3 WHERE d3.code = f.k3 AND d3.lim > 5)
GROUP BY 1$$);
RESET gpudb.min_parallel_table_size;
RESET gpudb.parallel_workers;
RESET gpudb.batch_rows;
-- in parallel mode (a Gather in PostgreSQL's plan behind the node, or
-- force_parallel_mode): the request leaves parallel mode for its
-- subtransaction while no parallel workers run (from 17 on a
-- subtransaction may start in parallel mode), and a value past the fixed
-- point or a build side's duplicate key gives PostgreSQL's plan's answer
-- (named debug_parallel_query from 16 on)
SELECT set_config(name, 'on', false) FROM pg_settings
WHERE name IN ('force_parallel_mode', 'debug_parallel_query');
SET max_parallel_workers_per_gather = 2;
SELECT l FROM gpu_analyze($$
SELECT d1.grp, count(*), sum(f.v) FROM f JOIN d1 ON f.k1 = d1.id GROUP BY d1.grp$$) l
WHERE l ~ 'GpudbJoin|Fallback';
SELECT l FROM gpu_analyze($$
SELECT d1.grp, sum(f.amt * f.amt * f.amt * f.amt * d1.price) FROM f JOIN d1 ON f.k1 = d1.id
GROUP BY d1.grp$$) l
WHERE l ~ 'GpudbJoin|Fallback';
SELECT * FROM gpu_diff($$
SELECT d1.grp, sum(f.amt * f.amt * f.amt * f.amt * d1.price) FROM f JOIN d1 ON f.k1 = d1.id
GROUP BY d1.grp$$);
-- (the same expression over values that stay inside the fixed point: the
-- request runs, in the subtransaction, and answers)
SELECT l FROM gpu_analyze($$
SELECT d1.grp, sum(f.amt * f.amt * f.amt * f.amt * d1.price) FROM f JOIN d1 ON f.k1 = d1.id
WHERE f.amt < 10 GROUP BY d1.grp$$) l
WHERE l ~ 'GpudbJoin|Fallback';
SELECT * FROM gpu_diff($$
SELECT d1.grp, sum(f.amt * f.amt * f.amt * f.amt * d1.price) FROM f JOIN d1 ON f.k1 = d1.id
WHERE f.amt < 10 GROUP BY d1.grp$$);
SELECT l FROM gpu_analyze($$
SELECT n.tag, count(*) FROM f JOIN dlate n ON f.k1 = n.id GROUP BY n.tag$$) l
WHERE l ~ 'GpudbJoin|Fallback';
SELECT set_config(name, reset_val, false) FROM pg_settings
WHERE name IN ('force_parallel_mode', 'debug_parallel_query');
SET max_parallel_workers_per_gather = 0;

-- ---------------------------------------------------------------------------
-- the build sides and the probe relation in the column cache: the build
-- sides' rows travel with the probe request to the GPU server, which
-- probes its cached copy (a server without preload has none: the heap
-- answers the same)
-- ---------------------------------------------------------------------------
SELECT gpu_cache_load('d1') > 0 AS loaded;
SELECT gpu_cache_load('d2') > 0 AS loaded;
SELECT gpu_cache_load('f') > 0 AS loaded;
SELECT l FROM gpu_analyze($$
SELECT d1.grp, count(*) FROM f JOIN d1 ON f.k1 = d1.id JOIN d2 ON f.k2 = d2.id
WHERE d2.w > 2 GROUP BY d1.grp$$) l WHERE l ~ 'Source|Cache';
SELECT * FROM gpu_diff($$
SELECT d1.grp, d2.region, count(*), sum(f.v), avg(f.amt)
FROM f JOIN d1 ON f.k1 = d1.id JOIN d2 ON f.k2 = d2.id
GROUP BY d1.grp, d2.region$$);
SELECT * FROM gpu_diff($$
SELECT d1.grp, count(*), count(d1.id) FROM f LEFT JOIN d1 ON f.k1 = d1.id GROUP BY d1.grp$$);
-- a build side changed after its load: its new rows are seen
UPDATE d1 SET grp = grp + 10 WHERE id % 3 = 0;
SELECT * FROM gpu_diff($$
SELECT d1.grp, count(*), sum(f.v) FROM f JOIN d1 ON f.k1 = d1.id GROUP BY d1.grp$$);
-- a dimension changed in this transaction: its build side reads the heap,
-- the cached fact table is still probed from the cache
BEGIN;
DELETE FROM d1 WHERE id % 4 = 0;
SELECT l FROM gpu_analyze($$
SELECT d1.grp, count(*), sum(f.v) FROM f JOIN d1 ON f.k1 = d1.id GROUP BY d1.grp$$) l
WHERE l ~ 'Source|Cache';
SELECT * FROM gpu_diff($$
SELECT d1.grp, count(*), sum(f.v) FROM f JOIN d1 ON f.k1 = d1.id GROUP BY d1.grp$$);
ROLLBACK;
-- text keys and payload (codes of the query's own dictionary, re-encoded
-- by the GPU server into the cached relation's): the probe reads the cache;
-- the payload as a group key, in comparisons with constants (one of them
-- in no relation), in LIKE (code tables over the cache's strings), NULL
-- after a LEFT join; text keys in a semi and an anti join, and strings of
-- the build side that the cached column does not hold ('c1'..'c9' are in
-- d3 only where f has no such k3)
SELECT l FROM gpu_analyze($$
SELECT d3.cat, count(*) FROM f JOIN d3 ON f.k3 = d3.code GROUP BY d3.cat$$) l
WHERE l ~ 'Source|Cache';
SELECT * FROM gpu_diff($$
SELECT d3.cat, count(*), sum(f.v) FROM f JOIN d3 ON f.k3 = d3.code GROUP BY d3.cat$$);
SELECT * FROM gpu_diff($$
SELECT d3.cat, f.k3, count(*) FROM f JOIN d3 ON f.k3 = d3.code GROUP BY 1, 2$$);
SELECT l FROM gpu_analyze($$
SELECT sum(CASE WHEN d3.cat = 'bb' THEN 1 ELSE 0 END),
       sum(CASE WHEN d3.cat <> 'zzz' AND d3.cat LIKE 'c%' THEN f.v ELSE 0 END),
       sum(CASE WHEN d3.cat = 'zzz' THEN 1 ELSE 0 END)
FROM f JOIN d3 ON f.k3 = d3.code$$) l
WHERE l ~ 'GpudbJoin|Source|Cache';
SELECT * FROM gpu_diff($$
SELECT sum(CASE WHEN d3.cat = 'bb' THEN 1 ELSE 0 END),
       sum(CASE WHEN d3.cat <> 'zzz' AND d3.cat LIKE 'c%' THEN f.v ELSE 0 END),
       sum(CASE WHEN d3.cat = 'zzz' THEN 1 ELSE 0 END)
FROM f JOIN d3 ON f.k3 = d3.code$$);
SELECT * FROM gpu_diff($$
SELECT d3.cat, count(*), count(d3.code) FROM f LEFT JOIN d3 ON f.k3 = d3.code
WHERE f.id % 3 = 0 GROUP BY d3.cat$$);
SELECT * FROM gpu_diff($$
SELECT count(*), sum(f.v) FROM f WHERE EXISTS (SELECT 1 FROM d3 WHERE d3.code = f.k3 AND d3.lim > 5)$$);
SELECT * FROM gpu_diff($$
SELECT count(*), sum(f.v) FROM f WHERE NOT EXISTS (SELECT 1 FROM d3 WHERE d3.code = f.k3)$$);
-- build sides with more strings than one request carries (512 MB; the
-- fault point makes it 64 bytes): the probe reads the heap
SELECT gpu_debug_fault('dictionary_limit', 2);
SELECT l FROM gpu_analyze($$
SELECT d3.cat, count(*) FROM f JOIN d3 ON f.k3 = d3.code GROUP BY d3.cat$$) l
WHERE l ~ 'Source|Cache';
SELECT * FROM gpu_diff($$
SELECT d3.cat, f.k3, count(*) FROM f JOIN d3 ON f.k3 = d3.code GROUP BY 1, 2$$);
SELECT gpu_debug_fault('none');
-- the same from the heap, after the cache's dictionary took d3's strings
SET gpudb.use_cache = off;
SELECT * FROM gpu_diff($$
SELECT d3.cat, f.k3, count(*) FROM f JOIN d3 ON f.k3 = d3.code GROUP BY 1, 2$$);
RESET gpudb.use_cache;
-- a cached build side stays in the GPU server (server_join_keep.c) for the
-- probe: its text codes re-encoded there into the probe relation's copy;
-- released once the probe has run
SELECT gpu_cache_load('d3') > 0 AS loaded;
SELECT l FROM gpu_analyze($$
SELECT d3.cat, count(*) FROM f JOIN d3 ON f.k3 = d3.code GROUP BY d3.cat$$) l
WHERE l ~ 'Source|Cache';
SELECT * FROM gpu_diff($$
SELECT d3.cat, f.k3, count(*), sum(f.v) FROM f JOIN d3 ON f.k3 = d3.code GROUP BY 1, 2$$);
SELECT * FROM gpu_diff($$
SELECT sum(CASE WHEN d3.cat = 'bb' THEN 1 ELSE 0 END),
       sum(CASE WHEN d3.cat <> 'zzz' AND d3.cat LIKE 'c%' THEN f.v ELSE 0 END)
FROM f JOIN d3 ON f.k3 = d3.code JOIN d1 ON f.k1 = d1.id WHERE d1.grp < 12$$);
SELECT * FROM gpu_diff($$
SELECT d3.cat, count(*), count(d3.code) FROM f LEFT JOIN d3 ON f.k3 = d3.code
GROUP BY d3.cat$$);
SELECT * FROM gpu_diff($$
SELECT count(*), sum(f.v) FROM f WHERE NOT EXISTS (SELECT 1 FROM d3 WHERE d3.code = f.k3)$$);
SELECT coalesce(kept_bytes, 0) AS kept_bytes FROM gpu_server_status();
-- the probe relation changed in this transaction: the probe reads the heap,
-- and the build sides kept with the cache's text codes come to the backend
BEGIN;
UPDATE f SET v = v + 1 WHERE id % 5 = 0;
SELECT l FROM gpu_analyze($$
SELECT d3.cat, d1.grp, count(*), sum(f.v) FROM f JOIN d3 ON f.k3 = d3.code
JOIN d1 ON f.k1 = d1.id GROUP BY 1, 2$$) l
WHERE l ~ 'Source|Cache';
SELECT * FROM gpu_diff($$
SELECT d3.cat, d1.grp, count(*), sum(f.v) FROM f JOIN d3 ON f.k3 = d3.code
JOIN d1 ON f.k1 = d1.id GROUP BY 1, 2$$);
ROLLBACK;
-- an error after the build sides were kept: the transaction's end frees them
SELECT d1.grp, sum(f.v / (d1.grp - d1.grp)) FROM f JOIN d1 ON f.k1 = d1.id GROUP BY 1;
SELECT coalesce(kept_bytes, 0) AS kept_bytes FROM gpu_server_status();
-- in parallel mode too the build sides stay kept (the request's own build
-- checks the inner join's for duplicate keys, in its subtransaction)
SELECT set_config(name, 'on', false) FROM pg_settings
WHERE name IN ('force_parallel_mode', 'debug_parallel_query');
SET max_parallel_workers_per_gather = 2;
SELECT l FROM gpu_analyze($$
SELECT d1.grp, count(*) FROM f JOIN d1 ON f.k1 = d1.id
WHERE EXISTS (SELECT 1 FROM d3 WHERE d3.lim = f.k1 AND d3.code <> f.k3) GROUP BY d1.grp$$) l
WHERE l ~ 'Join \d+:|Source';
SELECT * FROM gpu_diff($$
SELECT d1.grp, count(*) FROM f JOIN d1 ON f.k1 = d1.id
WHERE EXISTS (SELECT 1 FROM d3 WHERE d3.lim = f.k1 AND d3.code <> f.k3) GROUP BY d1.grp$$);
SELECT set_config(name, reset_val, false) FROM pg_settings
WHERE name IN ('force_parallel_mode', 'debug_parallel_query');
SET max_parallel_workers_per_gather = 0;
SELECT coalesce(kept_bytes, 0) AS kept_bytes FROM gpu_server_status();
-- cached build sides under a probe read from the heap, in small batches:
-- each batch's request names the kept build sides (the GPU server binds
-- them) or, where the backend runs the batches itself (the CPU path) or
-- they hold the cache's text codes, they come to the backend first
SELECT gpu_cache_drop('f');
SET gpudb.batch_rows = 1024;
SELECT l FROM gpu_analyze($$
SELECT d1.grp, d2.region, count(*), sum(f.v) FROM f JOIN d1 ON f.k1 = d1.id
JOIN d2 ON f.k2 = d2.id GROUP BY 1, 2$$) l
WHERE l ~ '^\s+(Source|Cache|Batches):';
SELECT * FROM gpu_diff($$
SELECT d1.grp, d2.region, count(*), sum(f.v) FROM f JOIN d1 ON f.k1 = d1.id
JOIN d2 ON f.k2 = d2.id GROUP BY 1, 2$$);
SELECT * FROM gpu_diff($$
SELECT d3.cat, d1.grp, count(*), sum(f.v) FROM f JOIN d3 ON f.k3 = d3.code
JOIN d1 ON f.k1 = d1.id GROUP BY 1, 2$$);
RESET gpudb.batch_rows;
SELECT coalesce(kept_bytes, 0) AS kept_bytes FROM gpu_server_status();
SELECT gpu_cache_drop('d1');
SELECT gpu_cache_drop('d2');
SELECT gpu_cache_drop('d3');

-- ---------------------------------------------------------------------------
-- extract(year) over a join (TPC-H Q7-Q9's group keys): the node carries
-- PostgreSQL's plan, which answers where a date is infinite (its year is
-- Infinity, which the fixed point cannot carry)
-- ---------------------------------------------------------------------------
EXPLAIN (COSTS OFF)
SELECT d1.name, extract(year FROM d2.day) AS y, count(*), sum(f.v)
FROM f JOIN d1 ON f.k1 = d1.id JOIN d2 ON f.k2 = d2.id GROUP BY 1, 2;
SELECT * FROM gpu_diff($$
SELECT d1.name, extract(year FROM d2.day) AS y, count(*), sum(f.v)
FROM f JOIN d1 ON f.k1 = d1.id JOIN d2 ON f.k2 = d2.id GROUP BY 1, 2$$);
-- Q9-like: nation and year of the order
SELECT * FROM gpu_diff($$
SELECT n_name, extract(year FROM o_orderdate) AS o_year,
       sum(l_extendedprice * (1 - l_discount)) AS amount
FROM lineitem, orders, supplier, nation
WHERE s_suppkey = l_suppkey AND o_orderkey = l_orderkey AND s_nationkey = n_nationkey
GROUP BY n_name, o_year$$);
BEGIN;
UPDATE d2 SET day = 'infinity' WHERE id = 7;
UPDATE f SET day = '-infinity' WHERE id % 97 = 3;
SELECT l FROM gpu_analyze($$
SELECT d1.name, extract(year FROM d2.day) AS y, count(*), sum(f.v)
FROM f JOIN d1 ON f.k1 = d1.id JOIN d2 ON f.k2 = d2.id GROUP BY 1, 2$$) l
WHERE l ~ 'GpudbJoin|Fallback';
SELECT * FROM gpu_diff($$
SELECT d1.name, extract(year FROM d2.day) AS y, count(*), sum(f.v)
FROM f JOIN d1 ON f.k1 = d1.id JOIN d2 ON f.k2 = d2.id GROUP BY 1, 2$$);
SELECT * FROM gpu_diff($$
SELECT extract(year FROM f.day) AS y, d1.grp, count(*)
FROM f JOIN d1 ON f.k1 = d1.id GROUP BY 1, 2$$);
ROLLBACK;

-- ---------------------------------------------------------------------------
-- what keeps PostgreSQL's plan: a full join, a join whose only equality
-- compares keys of different types (a derived table's build side runs:
-- its plan under the GpudbJoin, 35_derived_join)
-- ---------------------------------------------------------------------------
SELECT * FROM gpu_diff($$
SELECT d1.grp, count(*) FROM f FULL JOIN d1 ON f.k1 = d1.id GROUP BY d1.grp$$);
-- gpudb.enable_gpujoin = off
SET gpudb.enable_gpujoin = off;
SELECT * FROM gpu_diff($$
SELECT d1.grp, count(*) FROM f JOIN d1 ON f.k1 = d1.id GROUP BY d1.grp$$);
RESET gpudb.enable_gpujoin;
SELECT * FROM gpu_diff($$
SELECT count(*) FROM f JOIN d2 ON f.day = d2.day::timestamp$$);
SELECT * FROM gpu_diff($$
SELECT d.grp, count(*) FROM f JOIN (SELECT grp, min(id) AS id FROM d1 GROUP BY grp) d
  ON f.k1 = d.id GROUP BY d.grp$$);

-- ---------------------------------------------------------------------------
-- numeric keys of different scales: the build side's keys are rescaled to
-- the probe key's scale (values the other scale cannot hold -- a remainder,
-- or past 10^18 at the larger scale -- match nothing; NaN matches NaN)
-- ---------------------------------------------------------------------------
CREATE TABLE nd2 (k numeric(15,2) PRIMARY KEY, tag int);
CREATE TABLE nd4 (k numeric(12,4) PRIMARY KEY, tag int);
CREATE TABLE nf (id int, k2 numeric(15,2), k4 numeric(12,4), v int);
INSERT INTO nd2 VALUES (1.25, 1), (2.50, 2), (0, 3), (-3.75, 4), ('NaN', 5),
  (9999999999999.99, 6), (7.10, 7);
INSERT INTO nd4 VALUES (1.2500, 1), (2.5001, 2), (0, 3), (-3.7500, 4), ('NaN', 5),
  (99999999.9999, 6), (7.1000, 7), (7.1001, 8);
INSERT INTO nf SELECT g,
  (ARRAY[1.25, 2.50, 0, -3.75, 'NaN', 9999999999999.99, 7.10, NULL, 5])[g % 9 + 1],
  (ARRAY[1.25, 2.5001, 0, -3.75, 'NaN', 99999999.9999, 7.1, 7.1001, NULL])[g % 9 + 1], g
FROM generate_series(1, 500) g;
ANALYZE nf, nd2, nd4;
EXPLAIN (COSTS OFF)
SELECT d.tag, count(*), sum(f.v) FROM nf f JOIN nd4 d ON f.k2 = d.k GROUP BY d.tag;
SELECT * FROM gpu_diff($$
SELECT d.tag, count(*), sum(f.v) FROM nf f JOIN nd4 d ON f.k2 = d.k GROUP BY d.tag$$);
SELECT * FROM gpu_diff($$
SELECT d.tag, count(*), sum(f.v) FROM nf f JOIN nd2 d ON f.k4 = d.k GROUP BY d.tag$$);
SELECT * FROM gpu_diff($$
SELECT d.tag, count(*), sum(f.v), min(f.k2) FROM nf f LEFT JOIN nd4 d ON f.k2 = d.k
GROUP BY d.tag$$);
SELECT * FROM gpu_diff($$
SELECT count(*), sum(f.v) FROM nf f WHERE NOT EXISTS (SELECT 1 FROM nd4 d WHERE d.k = f.k2)$$);
SELECT * FROM gpu_diff($$
SELECT count(*), sum(f.v) FROM nf f WHERE EXISTS (SELECT 1 FROM nd2 d WHERE d.k = f.k4)$$);
SELECT d.tag, count(*), sum(f.v) FROM nf f JOIN nd2 d ON f.k4 = d.k GROUP BY d.tag ORDER BY 1;
-- ORDER BY ... LIMIT on the device over a join (an ordered GpudbJoin):
-- a numeric sum orders by value where it fits 64 bits and summed no NaN;
-- else (a group past int64, a NaN) PostgreSQL's plan behind the node
-- answers, sorted as the query asks
SELECT * FROM gpu_diff($$
SELECT d.tag, sum(f.k2) FROM nf f JOIN nd4 d ON f.k2 = d.k GROUP BY d.tag
ORDER BY sum(f.k2) DESC LIMIT 3$$, true);
SELECT l FROM gpu_analyze($$
SELECT d.tag, sum(f.k2) FROM nf f JOIN nd4 d ON f.k2 = d.k GROUP BY d.tag
ORDER BY sum(f.k2) DESC LIMIT 3$$) l WHERE l ~ 'Fallback|Top-k|Sort Keys|GpudbJoin';
DROP TABLE nf, nd2, nd4;
CREATE TABLE od (id int PRIMARY KEY, grp int);
CREATE TABLE ofact (id int, d int, amt numeric(18,2), big numeric(18,0), q int8);
INSERT INTO od SELECT i, i % 4 FROM generate_series(1, 20) i;
INSERT INTO ofact SELECT g, g % 20 + 1, (g % 97) * 1.25,
  CASE WHEN g % 20 = 3 THEN 900000000000000000 ELSE g END, g * 1000
FROM generate_series(1, 400) g;
ANALYZE od, ofact;
EXPLAIN (COSTS OFF)
SELECT o.id, sum(f.amt) FROM ofact f JOIN od o ON f.d = o.id GROUP BY o.id
ORDER BY sum(f.amt) DESC, o.id LIMIT 5;
SELECT * FROM gpu_diff($$
SELECT o.id, sum(f.amt) FROM ofact f JOIN od o ON f.d = o.id GROUP BY o.id
ORDER BY sum(f.amt) DESC, o.id LIMIT 5$$, true);
SELECT * FROM gpu_diff($$
SELECT o.grp, sum(f.q), count(*) FROM ofact f JOIN od o ON f.d = o.id GROUP BY o.grp
ORDER BY sum(f.q) LIMIT 2$$, true);
SELECT * FROM gpu_diff($$
SELECT o.id, count(*), max(f.amt) FROM ofact f JOIN od o ON f.d = o.id GROUP BY o.id
ORDER BY count(*) DESC, max(f.amt), o.id LIMIT 4 OFFSET 1$$, true);
-- group 4's sum of big is past int64: PostgreSQL's plan answers
SELECT * FROM gpu_diff($$
SELECT o.id, sum(f.big) FROM ofact f JOIN od o ON f.d = o.id GROUP BY o.id
ORDER BY sum(f.big) DESC LIMIT 3$$, true);
SELECT l FROM gpu_analyze($$
SELECT o.id, sum(f.big) FROM ofact f JOIN od o ON f.d = o.id GROUP BY o.id
ORDER BY sum(f.big) DESC LIMIT 3$$) l WHERE l ~ 'Fallback|Top-k|Sort Keys|GpudbJoin';
SELECT l FROM gpu_analyze($$
SELECT o.id, sum(f.amt) FROM ofact f JOIN od o ON f.d = o.id GROUP BY o.id
ORDER BY sum(f.amt) DESC, o.id LIMIT 5$$) l WHERE l ~ 'Fallback|Top-k|Sort Keys|GpudbJoin|Groups';
DROP TABLE od, ofact;

DROP FUNCTION gpu_diff(text, bool);
DROP FUNCTION gpu_diff_rows(text, bool);
DROP FUNCTION gpu_source(text);
DROP FUNCTION gpu_analyze(text);
DROP FUNCTION gpu_explain(text), gpu_explain_format(text, text), gpu_plan_nodes(text);
DROP TABLE f, d1, d2, d3, dnokey, dlate, dsmall, region, nation, supplier, customer, orders, lineitem;
