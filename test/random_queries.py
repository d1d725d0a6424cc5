#!/usr/bin/env python3
"""random_queries.py -- seeded random differential query tests for gpudb.

WHAT IT TESTS: gpudb's planner hooks may replace, in single-table queries, the
scan+WHERE by Custom Scan (GpudbScan), GROUP BY aggregation by Custom Scan (GpudbAgg)
and ORDER BY [LIMIT] by Custom Scan (GpudbSort); what the device cannot do must
keep PostgreSQL's own plan.  In join queries a GpudbScan may read any joined
table, and a GpudbAgg or GpudbSort the one table of a subquery (a derived table,
an IN subquery), and a GpudbJoin the GROUP BY over a join tree (counted
apart).  This script
builds random tables (schema rq, recreated each run) and runs each random
query twice in one session: with gpudb.enabled = on (every gpudb.enable_gpu*
on except a random one now and then, the gpudb.gpu_*_cost constants 0 so GPU
nodes win on small tables) and with gpudb.enabled = off (plain PostgreSQL);
sometimes a planner switch such as enable_hashagg = off applies to both.
EXPLAIN (COSTS OFF) with gpudb on counts the queries that get a Custom Scan
(Gpudb...) node.  GUCs missing from pg_settings are not SET, so the script runs
before and after the custom scan lands.
Tables: rq.t1..tN of random types, each with numeric(15,2), char(1), date and
timestamp columns among int2/4/8, float4/8, text, varchar(12), char(10), bool,
numeric(p,s) with p <= 18 (fixed point on the device; values small, prices
below 10^5, any of the precision, or its extremes), unconstrained numeric and
interval; and rq.li, TPC-H lineitem's types and value ranges (numeric(15,2)
quantity/price/discount/tax, char(1) flags, dates, a timestamp, char(10),
varchar).  Constants of numeric(p,s) come at other scales (exact or not), as
integers, NaN, +-Infinity and 1e30.  The join tables (their own RNG: the
others stay as they were without them): rq.jf (a fact table, --rows / 3
rows, at most 4000), rq.jg (a smaller one), rq.jd1 and rq.jd2 (dimensions
with a one-column primary key), rq.jd3 (a two-column primary key; the fact
tables' pairs of its domains copy one of its pairs 60% of the time) and
rq.jd4 (no key), 10 to 80 rows each; key columns (k<domain>_<n>) of four
domains, any two of a domain joinable: integers 1..30 (int4, int8, int2), 20
short strings ('', ' ', 'b ', cases; text, varchar, char(10)), 30 dates,
multiples of 0.25 (numeric(15,2), numeric(12,4)); skewed (duplicates on both
sides), 10-20% NULL and a few stray values no dimension holds (dangling keys,
NaN); every key column that is not a primary key holds a NULL, a stray value
and a duplicate.  Their other columns are of the usual types without 'extreme'
values (errors and order-dependent float sums stay out of the join queries).
About half of them are loaded into gpudb's column cache (gpu_cache_load; a
GpudbScan then reads the cache, "Source: cache") and one of those is changed
after its load (rows updated, deleted, and inserted where it has no primary
key: change capture); without the GPU server (no preload) they stay uncached,
with a note.
Queries (kinds as the log names them): --joins (0.2) of them join (below;
an RNG of their own decides, seeded "seed:I:j", so the others are those the
seed gives without joins); of the others ~45% are of the classic kinds: scan
(selections with random filters); agg (grouped and ungrouped count(*), count,
sum, avg, min, max, the variance/stddev family, count(DISTINCT),
percentile_cont/percentile_disc(f) and mode() WITHIN GROUP; up to 8 keys;
HAVING; ORDER BY keys; and GROUP BY ... ORDER BY an aggregate or a key, then
every group key (a total order), [LIMIT [OFFSET]], which a GpudbAgg may order
and cut on the device); sort (ORDER BY ... , id [LIMIT [OFFSET]],
text keys over the tables whose text columns are COLLATE "C"); unsup (4%:
constructs the device does not do: percentile arrays and DESC,
count(DISTINCT expr), ORDER BY text (C or not), numeric and interval columns,
FILTER, DISTINCT, ROLLUP).  ~55% draw expressions in every position (issue
25): xscan/xsort (expressions in the select list, in the filter, as ORDER BY
keys, then id, [LIMIT]); xagg (expression GROUP BY keys, written again or by
position, aggregates of expressions, count(DISTINCT expr), FILTER, HAVING
over expressions, ORDER BY the keys [LIMIT]); q1/q6 (TPC-H Q1: sum(a*(1-b)),
sum(a*(1-b)*(1+c)), avg grouped by two char(1) columns, shipdate <= date -
interval; Q6: sum(a*b), a date range with + interval '1' year, BETWEEN on
numeric; drawn constants).  Expressions nest arithmetic + - * / % and unary
minus over int2/4/8, float4/8 and numeric (PostgreSQL's result types), casts
among them (::numeric(15,2), ::int4, ::float8 ...), CASE (searched and
simple), COALESCE, NULLIF, GREATEST, LEAST, abs, round/trunc (also with
digits)/floor/ceil; date +- days, date/timestamp +- interval constants,
date_trunc, extract and date_part, date differences, date vs timestamp
comparisons and constants such as DATE '1998-12-01' - INTERVAL '90' DAY;
text: LIKE/ILIKE/NOT LIKE, ~/~*/!~/!~*, starts_with, length, lower, upper, substr, left,
right, ||, trims.  Many keep PostgreSQL's plan (the fallback), many run in a
Gpudb node; the summary counts both.  The generator tracks bounds so that
integers overflow (and columns divide by zero) only in the ~12% of queries
drawn "risky", and a fixed-point numeric value never reaches 10^18 (where
gpudb raises 22003 by design and PostgreSQL computes on); comparisons that
rescale a number past 10^18 are drawn only in risky queries.  Filters of the
classic kinds draw 12% of their atoms as expressions, the others 50%.
Data: 10-30% NULLs, duplicates, int extremes (int2/int4/int8 arithmetic can
overflow), NaN/Infinity/-0 and huge/tiny floats, infinite and BC dates, small
text domains, char(n) values with trailing blanks, dead tuples (DELETE/UPDATE
after load).  Filters nest AND/OR/NOT
over comparisons (also cross-type and column-vs-column), arithmetic that may
overflow or divide by zero, IS [NOT] NULL/TRUE/FALSE/DISTINCT FROM, IN, BETWEEN,
and now and then a column against a scalar subquery over its own table
(min, max or avg: at the top level an InitPlan, whose output the device
quals take as a parameter).
Join queries (jstar-agg, jstar-sel, jchain-agg, jchain-sel; "join" in the
summary): 2-4 of the join tables, a star (rq.jf or rq.jg and 1-3 others,
each joined to it) or a chain (each joined to the one before, a table may
come twice; the first two joins nested now and then, as in a LEFT JOIN (b
JOIN c) ON ...); INNER (also written as a comma and WHERE), LEFT, RIGHT and
FULL joins, semi joins (EXISTS, IN (subquery), (a, b) IN (subquery)) and
anti joins (NOT EXISTS, NOT IN with NULLs on either side or without them,
LEFT JOIN ... WHERE key IS NULL), some ORed with a filter (SubPlans), IN
subqueries with GROUP BY ... HAVING, DISTINCT or ORDER BY ..., id LIMIT;
dimensions as derived tables (GROUP BY the join keys with count and sum, or
DISTINCT).  Equi-joins on one key or two (mostly a dimension's primary key:
the foreign-key joins a GpudbJoin will take first), now and then an
expression on one side (x + 1, x % 7, x::numeric, lower(t), btrim(t), d + 5,
d + INTERVAL, date_trunc, round(n, 1) ...) and extra quals in ON (column
against column of two tables, or over one side only, which an outer join
must not push down); filters on each side (the usual ones or ranges, IN
lists and IS NOT NULL over the column's own values), now and then one
ORed over two tables.  Above: GROUP BY columns (or an expression) of
several tables with count(*), count, count(DISTINCT), sum, avg, min, max
(or an aggregate of an expression), [HAVING], [ORDER BY an aggregate and
every key [LIMIT]]; or a selection of columns (or an expression) of several
tables ordered by every output column (a total order: rows equal in every
column are alike) [LIMIT [OFFSET]], or without ORDER BY when small.  Join
queries draw no overflow or division by zero; their planner switches are
1-2 of enable_hashjoin/mergejoin/nestloop/material/memoize/hashagg/sort/
seqscan/indexscan off, or every join method but nested loops off (a GpudbScan
inside is rescanned per outer row), with jit = off (the disabled paths'
cost would JIT-compile every plan), or parallel plans made cheap; now and
then gpudb.use_cache = off, gpudb.batch_rows = 1024 (several batches where
--rows is above 3072), or gpudb.min_parallel_table_size = 0 with
gpudb.parallel_workers = 2 (a GpudbScan's own parallel heap readers).

Correlated scalar subqueries (--scalar, 0.08 of the queries, over the join
tables; kinds sq-agg, sq-sel, sq-q20-agg, sq-q20-sel; an RNG of their own
decides, seeded "seed:I:sq", so the others stay as the seed gives them):
src/planner/scalar_subquery_rewrite.c's shapes.  An outer table t (a fact
table or a dimension, now and then joined to d: inner, comma or LEFT JOIN),
a conjunct x op (SELECT agg FROM s [, w] WHERE s.k = t.k [AND s.k2 = t.k2 |
d.k2] [AND s's filter]) with op < <= = <> >= > (the sublink on either
side), agg avg, sum, min or max of an integer or numeric (also 0.5 *
sum(...), avg(...) * 2, sum(...) + 1), min or max of a date or text, x
mostly the aggregated column itself (Q17's, Q2's x = min(x)); and beside
them what the rewrite must leave alone: count (the count bug), avg of a
float, the conjunct under OR, correlation columns of two types; correlation
columns of every key domain (integers, text/varchar/char(10), dates,
numerics, NULLs, duplicates and stray keys) and bool; now and then two such
conjuncts.  Restrictions of t over its correlation columns only (t.k % 3 =
1, t.k > c, IN lists, t.k IN (SELECT ...), EXISTS correlated to t.k only,
(t.k, t.k2) IN (SELECT ...), LIKE, length(), extract(), a numeric key as
text: copied into the derived table's key restriction, and kept in the
WHERE), over its other columns,
over both, and over d.  sq-q20: TPC-H Q20's nesting, SELECT ... FROM d
WHERE d.k IN (SELECT t.k' FROM t WHERE t.k IN (SELECT ...) AND t.x >
(SELECT 0.5 * sum(s.v) FROM s WHERE s.k = t.k AND s.k2 = t.k2 ...)).  They
are join queries (settings, no overflow) and count among the joins too.

Eager aggregation (--eager, 0.05 of the queries, over the join tables;
kinds ea-plain, ea-q13, ea-wrap, ea-cte, and the near misses ea-limit,
ea-having, ea-distinct; an RNG of its own decides, seeded "seed:I:ea", after
the scalar one; test/rq/eager.py): src/planner/eager_aggregate_rewrite.c's
shape, TPC-H Q13's inner query: SELECT A's primary key [, A's other columns],
aggregates over B FROM a ... LEFT JOIN b ON a.k = b.fk [AND a.k2 = b.fk2]
[AND B-only conditions that cannot raise] [WHERE A-only filter] GROUP BY
A's primary key [, A's other columns] (A one of rq.jd1, jd2, jd3, the
tables with a primary key; B any join table, A's own now and then);
count(b.c), sum/avg of integers and numerics, min, max, expressions over
them; [ORDER BY every column], or wrapped: Q13's SELECT c_count, count(*)
FROM (...) AS c_orders (c_custkey, c_count) GROUP BY c_count, an outer
ORDER BY ... LIMIT, a CTE.  Beside it the near misses it must refuse (a
query draws one or a few now and then): INNER, RIGHT, FULL joins, B LEFT
JOIN A, a third table, A without a primary key, a GROUP BY short of the
key or with B's column or an expression, join keys of two types or under
an expression, ON conditions that may raise, over A or over both, a WHERE
over B, count(*), count(1), count(DISTINCT), FILTER, float sums, an
aggregate of an expression or of A's column, HAVING, DISTINCT, LIMIT at its
level.  TPC-H Q13's shape among the join queries (jstar-q13, jchain-q13)
counts with them.

HOW IT COMPARES: if either side errors, both must fail with the same SQLSTATE
(psql's :SQLSTATE; --loose-sqlstate accepts any two class-22 errors).  Else the
results must be equal: ORDER BY queries row by row in order (each ORDER BY ends
with the unique id, every group key or, in join selections, every output
column, so the order is total), others as multisets (rows sorted in Python).
Float-valued columns (float columns, their sum/min/max, every avg,
variance/stddev of floats, percentile_cont, percentile_disc and mode of floats,
float-valued expressions and their aggregates) compare numerically within 1e-12
relative (NaN = NaN, -0 = 0); numerics whose scale differs per row (division,
CASE arms of different scales) compare by value where min, max or a group key
may keep either of 1.5 and 1.50; all else exactly as text (numeric included).
Float data is dyadic (k/4, k/16) and bounded so sums are exact in any order;
"extreme" float columns (1e308, 5e-324) are never summed or averaged, as their
overflow depends on summation order; a float expression is summed or averaged
only where the generator proves every value a multiple of 2^-k small enough
that the sum over the table is exact (no division, bounded products).
In the risky queries (see above) two different data exceptions (class 22,
0A000) match too: with two error sources in different rows, which is raised
first depends on the order the plan evaluates rows and expressions in.
A data exception (class 22, 0A000) on one side only in a query with a LIMIT
may come from rows past the LIMIT that only one plan evaluates (PostgreSQL's
sorted GroupAggregate or a scan stops there, a Gpudb node computes every row):
the query runs again without the LIMIT and counts as matched only if both
sides then raise that SQLSTATE.  An EXPLAIN failing while the query succeeds,
or a lost connection (server crash: the query is retried alone to pin it
down) is a difference too.

USAGE: python3 stdlib; psql on PATH with PGHOST/PGPORT/PGDATABASE/PGUSER set, as
pg_virtualenv does (superuser: CREATE EXTENSION, LOAD 'gpudb' per session):
  pg_virtualenv -t -o shared_preload_libraries=gpudb -o gpudb.device=cpu \\
      python3 test/random_queries.py --setup-sql 'SET gpudb.device = cpu'
Options: --seed --queries (300) --tables (4) --rows (2000) --joins (the share of
join queries, 0.2; 0: none and no join tables) --scalar (the share of
correlated scalar subquery queries, 0.08; none without join tables) --eager
(the share of eager aggregation queries, 0.05; none without join tables)
--setup-sql --min-gpu --jobs (parallel sessions, 4) --log FILE --verbose
--only I,J --self-check.
Last line: the summary (queries, those with a Gpudb node by kind: scan, agg,
sort, join; those with expressions and how many of them had a Gpudb node; the
join queries, how many of them had a Gpudb node and how many a GpudbJoin; the
queries with a correlated scalar subquery (sq-* and the join kinds' own), how
many of them returned rows (an empty result compares trivially), how many of them the plan joins as a grouped derived table (the alias
scalar_subquery in the plan, or the planner's DEBUG1 line that the rewrite
cost less: rewrite_choice.c; the EXPLAIN of such a query runs with
client_min_messages = debug1 and a \\warn marker on stderr), how many had a
restriction the rewrite copies into the derived table and how many of those
were rewritten; the
queries of eager aggregation's shape or next to it (ea-* and the join kinds'
q13), how many of them the plan runs as eager_aggregate_rewrite.c writes
them (the alias eager_aggregate in the plan, or its DEBUG1 line that the
rewrite cost less), how many of those drawn to fit it the rewrite took (its
DEBUG1 line, printed whichever plan is kept; all of them unless
gpudb.enable_gpujoin is off, which counts as a near miss) and how many of
the near misses (none); how many had a GpudbAgg or GpudbJoin order its
groups on the host (text group keys or count(DISTINCT) among the sort
keys: its Host Sort Keys line); errors matched, differences).  A query drawn to
fit that the rewrite refused, or a near miss it took, is listed on a line
of its own above the summary (not a failure: the generator's idea of the
rewrite's conditions and the rewrite disagree; one or the other has
changed).  The --log marks the queries with expressions "+x", those
whose correlated scalar subquery the plan joins as a derived table "+sq",
those the eager aggregation rewrite planned "+ea", and those listed as
disagreeing "!ea".
Exit 1 on a difference or fewer than --min-gpu GPU queries, 2 (a message)
when setup fails.  test/random_queries.sh wraps it all.

REPRODUCING: tables and queries depend only on --seed, --tables, --rows,
--joins, --scalar and --eager (query I has its own RNG seeded "seed:I",
"seed:I:join" for a join, "seed:I:scalar", "seed:I:eager");
rerun with those and --only I --verbose for query I's SQL, settings, plan and
both results.  The tables stay in schema rq (in a persistent cluster;
pg_virtualenv drops its own on exit).

--self-check runs crafted pairs through the same machinery that must be found
different (extra row, reversed order of rows or of ordered groups, floats 1e-9
apart, NaN vs Infinity, NULL vs '', no row vs a '' row, error vs none, two
SQLSTATEs, a killed session, 1.5 vs 1.50 as text, 1.5 vs 1.51 and NaN vs 0 by
value, an error past the LIMIT that only one side raises without it, a join's
rows in reverse order, a count of foreign keys without their dimension row
against 0) or must not (same rows in another order, also of a join, floats
2.5e-16 apart, -0 vs 0, NaN vs NaN, one SQLSTATE twice, 1.5 vs 1.50 by value,
an error past the LIMIT that both raise without it, NOT IN a subquery that
holds a NULL against 0 rows); it exits 0 only if every case behaves as
expected.
"""
import argparse
import random
import sys
import time

# the generator, the runner and the comparison: test/rq/, by concept
from rq.compare import (compare, derived_join, device_having, host_ordered, eager_rewritten, eager_taken,
                        gpu_nodes, ordered_join, report, scalar_rewritten)
from rq.join_tables import cache_join_tables, make_join_tables
from rq.self_check import self_check
from rq.session import die, limit_retry, prelude, psql, run_all
from rq.single import gen_query
from rq.tables import make_tables

def main():
    ap = argparse.ArgumentParser(description=__doc__.split('\n')[0])
    ap.add_argument('--seed', type=int, default=20240601)
    ap.add_argument('--queries', type=int, default=300)
    ap.add_argument('--tables', type=int, default=4)
    ap.add_argument('--rows', type=int, default=2000)
    ap.add_argument('--setup-sql', default='')
    ap.add_argument('--min-gpu', type=int, default=0)
    ap.add_argument('--jobs', type=int, default=4)
    ap.add_argument('--joins', type=float, default=0.2,
                    help='the share of join queries (0: none, and no join tables)')
    ap.add_argument('--scalar', type=float, default=0.08,
                    help='the share of queries with a correlated scalar subquery (over the '
                         'join tables: none with --joins 0)')
    ap.add_argument('--eager', type=float, default=0.05,
                    help='the share of queries of eager aggregation\'s shape or next to it (over '
                         'the join tables: none with --joins 0)')
    ap.add_argument('--log')
    ap.add_argument('--only', help='comma-separated query numbers to run')
    ap.add_argument('--loose-sqlstate', action='store_true',
                    help='accept two different class-22 (data exception) SQLSTATEs')
    ap.add_argument('--no-load', action='store_true', help="do not LOAD 'gpudb' per session")
    ap.add_argument('--self-check', action='store_true')
    ap.add_argument('--verbose', action='store_true')
    args = ap.parse_args()
    t0 = time.time()
    rng = random.Random(args.seed)
    tables, setup = make_tables(rng, max(1, args.tables),
                                max(args.rows, 20 if args.self_check else 1))
    jtables = []
    if args.joins > 0 or args.self_check:
        jtables, jsetup = make_join_tables(args.seed, max(args.rows, 20 if args.self_check else 1))
        setup += jsetup
    out, err, rc = psql('\\set ON_ERROR_STOP 1\nCREATE EXTENSION IF NOT EXISTS gpudb;\n' + setup)
    if rc != 0:
        die('creating the tables failed:\n' + err[-3000:])
    cached = cache_join_tables(args, jtables)
    out, err, rc = psql(prelude(args) + "SELECT name FROM pg_settings WHERE name LIKE 'gpudb.%';")
    gucs = set(x for x in out.split('\n') if x.startswith('gpudb.'))
    if args.verbose:
        print('seed %d; tables: %s; gpudb GUCs: %s' % (
            args.seed, ', '.join('%s(%d rows: %s)' % (t.name, t.nrows, ' '.join(
                '%s:%s' % (c.name, c.mode) for c in t.cols[1:])) for t in tables + jtables),
            ' '.join(sorted(gucs))))
        print('cached: %s' % (' '.join(cached) or '-'))
    if args.self_check:
        return self_check(args, tables, gucs, jtables)
    idxs = range(args.queries) if not args.only else [int(x) for x in args.only.split(',')]
    queries = [gen_query(args.seed, i, tables, jtables, args.joins, args.scalar, args.eager)
               for i in idxs]
    results = run_all(args, queries, gucs)
    limit_retry(args, queries, results, gucs)
    ngpu, kinds, errs, diffs, log = 0, {'GpudbScan': 0, 'GpudbAgg': 0, 'GpudbSort': 0, 'GpudbJoin': 0}, \
        0, 0, []
    nexpr = nexpr_gpu = njoin = njoin_gpu = njoin_gpujoin = njoin_ordered = nhaving = 0
    nhost = 0
    nderived = nscalar = nscalar_rw = nmagic = nmagic_rw = nscalar_rows = 0
    neager = neager_rw = nfit = nfit_taken = nnear = nnear_taken = 0
    odd = []
    for q in queries:
        r = results[q.idx]
        why = compare(q, r, args.loose_sqlstate)
        nodes = gpu_nodes(r)
        ngpu += bool(nodes)
        nexpr += q.has_expr
        nexpr_gpu += q.has_expr and bool(nodes)
        njoin += q.join
        njoin_gpu += q.join and bool(nodes)
        njoin_gpujoin += q.join and 'GpudbJoin' in nodes
        njoin_ordered += q.join and ordered_join(r)
        nhost += host_ordered(r)
        nderived += q.join and derived_join(r)
        nhaving += device_having(r)
        nscalar += q.scalar
        nscalar_rw += q.scalar and scalar_rewritten(r)
        # returned rows (an empty result compares trivially)
        nscalar_rows += q.scalar and 'crash' not in r and r['A'][0] == '00000' and \
            bool(r['A'][2])
        nmagic += q.scalar and q.magic
        nmagic_rw += q.scalar and q.magic and scalar_rewritten(r)
        neager += q.eager
        neager_rw += q.eager and eager_rewritten(r)
        taken = q.eager and eager_taken(r)
        nfit += q.eager_expect == 'yes'
        nfit_taken += q.eager_expect == 'yes' and taken
        nnear += q.eager_expect == 'no'
        nnear_taken += q.eager_expect == 'no' and taken
        # drawn to fit but refused, or a near miss taken: the generator's idea of
        # the rewrite's conditions and the rewrite disagree (listed below)
        mismatch = 'E' in r and q.eager_expect is not None and \
            taken != (q.eager_expect == 'yes')
        if mismatch:
            odd.append('%d (%s%s)' % (q.idx, 'taken' if taken else 'refused',
                                      ', drawn as a near miss: ' + ' '.join(q.eager_misses)
                                      if q.eager_misses else ''))
        for n in nodes:
            kinds[n] = kinds.get(n, 0) + 1
        erred = 'crash' not in r and (r['A'][0] != '00000' or r['B'][0] != '00000')
        errs += erred and why is None
        diffs += why is not None
        outcome = 'DIFF: ' + why if why else 'error %s matched without LIMIT' % q.limit_excused \
            if q.limit_excused and erred else 'error %s matched' % r['A'][0] \
            if erred and r['A'][0] == r['B'][0] else 'errors %s/%s (risky)' % (
                r['A'][0], r['B'][0]) if erred else \
            'ok, %d rows' % len(r['A'][2])
        log.append('%d [%s%s%s%s%s] %s [%s] %s' % (
            q.idx, q.kind, '+x' if q.has_expr else '',
            '+sq' if q.scalar and scalar_rewritten(r) else '',
            '+ea' if q.eager and eager_rewritten(r) else '', '!ea' if mismatch else '',
            ','.join(sorted(nodes)) or '-', outcome, q.sql))
        if why:
            report(q, r, why, args.seed)
        elif args.verbose:
            print(log[-1])
            if args.only:
                report(q, r, 'none', args.seed, title='result')
    if args.log:
        with open(args.log, 'w') as f:
            f.write('seed %d, %d tables, %d rows max, joins %g, cached: %s\n'
                    % (args.seed, args.tables, args.rows, args.joins, ' '.join(cached) or '-'))
            f.write('\n'.join(log) + '\n')
    if odd:
        print('random_queries: eager aggregation, drawn to fit but refused or drawn as a near '
              'miss but taken (not a failure; the generator and eager_aggregate_rewrite.c '
              'disagree): %s' % ', '.join(odd))
    print('seed %d, %.1f s%s' % (args.seed, time.time() - t0,
                                 '' if ngpu >= args.min_gpu else
                                 '; FAIL: fewer than --min-gpu %d queries had a GPU node'
                                 % args.min_gpu))
    print('random_queries: %d queries, %d with a GPU node (scan %d, agg %d, sort %d, join %d), '
          '%d with expressions (%d of them with a GPU node), %d joins (%d of them with a GPU '
          'node, %d with a GpudbJoin, %d of those ordered on the device, %d with a derived '
          'table\'s build side), %d with a correlated scalar subquery (%d of them '
          'returned rows, %d rewritten as a join; %d with a restriction copied into the derived '
          'table, %d of those rewritten), %d with an eager-aggregation shape (%d of them rewritten; %d of the %d '
          'drawn to fit taken by the rewrite, %d of the %d near misses), %d with HAVING on the '
          'device, %d with groups ordered on the host, %d errors matched, %d differences'
          % (len(queries), ngpu, kinds['GpudbScan'], kinds['GpudbAgg'], kinds['GpudbSort'],
             kinds['GpudbJoin'], nexpr, nexpr_gpu, njoin, njoin_gpu, njoin_gpujoin,
             njoin_ordered, nderived, nscalar, nscalar_rows, nscalar_rw, nmagic, nmagic_rw, neager, neager_rw,
             nfit_taken, nfit, nnear_taken, nnear, nhaving, nhost, errs, diffs))
    return 1 if diffs or ngpu < args.min_gpu else 0

if __name__ == '__main__':
    sys.exit(main())
