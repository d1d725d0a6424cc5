#!/usr/bin/env python3
"""random_queries.py -- seeded random differential query tests for gpudb.

WHAT IT TESTS: gpudb's planner hooks may replace, in single-table queries, the
scan+WHERE by Custom Scan (GpuScan), GROUP BY aggregation by Custom Scan (GpuAgg)
and ORDER BY [LIMIT] by Custom Scan (GpuSort); what the device cannot do must
keep PostgreSQL's own plan.  In join queries a GpuScan may read any joined
table, and a GpuAgg or GpuSort the one table of a subquery (a derived table,
an IN subquery); a GpuJoin is to come, and is counted apart.  This script
builds random tables (schema rq, recreated each run) and runs each random
query twice in one session: with gpudb.enabled = on (every gpudb.enable_gpu*
on except a random one now and then, the gpudb.gpu_*_cost constants 0 so GPU
nodes win on small tables) and with gpudb.enabled = off (plain PostgreSQL);
sometimes a planner switch such as enable_hashagg = off applies to both.
EXPLAIN (COSTS OFF) with gpudb on counts the queries that get a Custom Scan
(Gpu...) node.  GUCs missing from pg_settings are not SET, so the script runs
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
GpuScan then reads the cache, "Source: cache") and one of those is changed
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
every group key (a total order), [LIMIT [OFFSET]], which a GpuAgg may order
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
Gpu node; the summary counts both.  The generator tracks bounds so that
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
overflow or divide by zero, IS [NOT] NULL/TRUE/FALSE/DISTINCT FROM, IN, BETWEEN.
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
the foreign-key joins a GpuJoin will take first), now and then an
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
seqscan/indexscan off, or every join method but nested loops off (a GpuScan
inside is rescanned per outer row), with jit = off (the disabled paths'
cost would JIT-compile every plan), or parallel plans made cheap; now and
then gpudb.use_cache = off, gpudb.batch_rows = 1024 (several batches where
--rows is above 3072), or gpudb.min_parallel_table_size = 0 with
gpudb.parallel_workers = 2 (a GpuScan's own parallel heap readers).

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
sorted GroupAggregate or a scan stops there, a Gpu node computes every row):
the query runs again without the LIMIT and counts as matched only if both
sides then raise that SQLSTATE.  An EXPLAIN failing while the query succeeds,
or a lost connection (server crash: the query is retried alone to pin it
down) is a difference too.

USAGE: python3 stdlib; psql on PATH with PGHOST/PGPORT/PGDATABASE/PGUSER set, as
pg_virtualenv does (superuser: CREATE EXTENSION, LOAD 'gpudb' per session):
  pg_virtualenv -t -o shared_preload_libraries=gpudb -o gpudb.device=cpu \\
      python3 test/random_queries.py --setup-sql 'SET gpudb.device = cpu'
Options: --seed --queries (300) --tables (4) --rows (2000) --joins (the share of
join queries, 0.2; 0: none and no join tables) --setup-sql --min-gpu --jobs
(parallel sessions, 4) --log FILE --verbose --only I,J --self-check.
Last line: the summary (queries, those with a Gpu node by kind: scan, agg,
sort, join; those with expressions and how many of them had a Gpu node; the
join queries, how many of them had a Gpu node and how many a GpuJoin; errors
matched, differences).  The --log marks the queries with expressions "+x".
Exit 1 on a difference or fewer than --min-gpu GPU queries, 2 (a message)
when setup fails.  test/random_queries.sh wraps it all.

REPRODUCING: tables and queries depend only on --seed, --tables, --rows and
--joins (query I has its own RNG seeded "seed:I", "seed:I:join" for a join);
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
import collections
import concurrent.futures
import copy
import datetime
import decimal
import math
import random
import re
import subprocess
import sys
import time

FS = '\x1f'                 # psql field separator (never in generated data)
NULL = '<<NULL>>'           # psql NULL display (never in generated data)
INTS = ('int2', 'int4', 'int8')
VARIANCE = ('variance', 'var_samp', 'var_pop', 'stddev', 'stddev_samp', 'stddev_pop')
FLOATS = ('float4', 'float8')
NUMS = INTS + FLOATS
TIMES = ('date', 'timestamp', 'timestamptz')
TEXTS = ('text', 'varchar', 'char(1)', 'char(10)')
# numeric(p,s) with p <= 18: fixed point on the device; scale from the type name
FIXED = ('numeric(10,2)', 'numeric(18,0)', 'numeric(15,6)', 'numeric(15,2)', 'numeric(12,4)',
         'numeric(4,1)')
SUPPORTED = NUMS + TIMES + TEXTS + ('bool',) + FIXED
INT_RANGE = {'int2': (-2**15, 2**15 - 1), 'int4': (-2**31, 2**31 - 1),
             'int8': (-2**63, 2**63 - 1)}
INT_WIDE = {'int2': 30000, 'int4': 10**6, 'int8': 10**12}
EXTREME_F = {'float4': ['3.4028235e+38', '-3.4028235e+38', '1e-45', '1.1754944e-38', '1e+38'],
             'float8': ['1e+308', '-1e+308', '1.7976931348623157e+308', '5e-324',
                        '-5e-324', '2.2250738585072014e-308', '1e-300', '123456789.123456789']}
EXTREME_T = {'date': ['infinity', '-infinity', '4713-01-01 BC', '5874897-12-31', '0001-01-01'],
             'timestamp': ['infinity', '-infinity', '4713-01-01 00:00:00 BC',
                           '294276-12-30 23:59:59.999999', '2000-02-29 23:59:59.999999'],
             'timestamptz': ['infinity', '-infinity', '0001-01-01 00:00:00+00',
                             '100000-01-01 00:00:00+00', '2000-02-29 23:59:59.999999+00']}
TEXT_POOL = ['a', 'b', 'c', 'ab', 'abc', 'A', 'B', '', ' ', 'a ', 'zz', 'é', 'x_y', "o'k"]
CHAR1_POOL = ['A', 'N', 'R', 'F', 'O', 'a', 'n', '', 'é', '_']
PREFIX = {'int2': 'i2', 'int4': 'i4', 'int8': 'i8', 'float4': 'f4', 'float8': 'f8',
          'bool': 'b', 'date': 'd', 'timestamp': 'ts', 'timestamptz': 'tz', 'text': 't',
          'varchar': 'vc', 'numeric': 'n', 'interval': 'iv',
          'numeric(10,2)': 'nf2', 'numeric(18,0)': 'nf0', 'numeric(15,6)': 'nf6',
          'numeric(15,2)': 'np2', 'numeric(12,4)': 'nf4', 'numeric(4,1)': 'nf1',
          'char(1)': 'c1', 'char(10)': 'c10'}
CMP = ['=', '<>', '<', '<=', '>', '>=']
ENABLE_GUCS = ['gpudb.enable_gpuscan', 'gpudb.enable_gpuagg', 'gpudb.enable_gpusort']
# set on (or off) only where pg_settings lists them: the join node is to come
ALL_ENABLE_GUCS = ENABLE_GUCS + ['gpudb.enable_gpujoin']
COST_GUCS = ['gpudb.gpu_setup_cost', 'gpudb.gpu_tuple_cost', 'gpudb.gpu_transfer_cost']
PG_TOGGLES = ['enable_hashagg', 'enable_sort', 'enable_seqscan', 'enable_indexscan']

class Col:
    def __init__(self, name, ty, mode, nullfrac):
        self.name, self.ty, self.mode, self.nullfrac = name, ty, mode, nullfrac
        self.values = []            # non-NULL values (literal bodies), for constants
        self.fbound = 1             # float columns: |value| bound keeping sums exact
        self.sum_safe = mode != 'extreme'
        self.collate_c = False      # text columns declared COLLATE "C"
        self.gen = None             # a value generator of its own (rng -> literal body)
        self.maxabs = 0.0           # numbers: the largest finite |value| loaded

    @property
    def family(self):
        if self.ty in NUMS or self.ty == 'numeric':
            return 'num'
        if self.ty in FIXED:
            return 'fix'
        return 'time' if self.ty in TIMES else 'text' if self.ty in TEXTS else self.ty

class Table:
    def __init__(self, name, nrows):
        self.name, self.nrows, self.cols, self.deleted = name, nrows, [], False

    def of(self, pred):
        return [c for c in self.cols if pred(c)]

# ---------------------------------------------------------------- data --
def rand_value(rng, c):
    """One random non-NULL value of column c, as the body of an SQL literal."""
    ty, mode = c.ty, c.mode
    if c.gen:
        return c.gen(rng)
    if ty in INTS:
        lo, hi = INT_RANGE[ty]
        if mode == 'small':
            return str(rng.randint(-5, 5))
        if mode == 'extreme' and rng.random() < 0.3:
            return str(rng.choice([lo, hi, lo + 1, hi - 1, 0, -1, hi // 2 + 1, lo // 2]))
        return str(rng.randint(-INT_WIDE[ty], INT_WIDE[ty]))
    if ty in FLOATS:
        r = rng.random()
        if r < 0.08:
            return rng.choice(['NaN', 'Infinity', '-Infinity', '-0', '0'])
        if mode == 'extreme' and r < 0.3:
            return rng.choice(EXTREME_F[ty])
        den = 4 if ty == 'float4' or mode == 'small' else 16
        b = 8 if mode == 'small' else c.fbound
        return repr(rng.randint(-b * den, b * den) / den)
    if ty == 'bool':
        return rng.choice(['t', 'f'])
    if ty in TIMES:
        if mode == 'extreme' and rng.random() < 0.2:
            return rng.choice(EXTREME_T[ty])
        base = datetime.date(2000, 1, 1).toordinal()
        day = base + (rng.randint(0, 4) * 31 if mode == 'small' else rng.randint(-36500, 36500))
        s = datetime.date.fromordinal(day).isoformat()
        if ty == 'date':
            return s
        if mode == 'small':
            s += rng.choice([' 00:00:00', ' 12:30:00', ' 23:59:59.999999'])
        else:
            s += ' %02d:%02d:%02d' % (rng.randint(0, 23), rng.randint(0, 59), rng.randint(0, 59))
            if rng.random() < 0.5:
                s += '.%06d' % rng.randint(0, 999999)
        return s + (rng.choice(['+00', '-08', '+05:30']) if ty == 'timestamptz' else '')
    if ty in TEXTS:
        if mode == 'small':
            return rng.choice(c.domain)
        return ''.join(rng.choice('abcxyz') for _ in range(rng.randint(0, 8)))[:char_len(ty)]
    if ty in FIXED:
        p, sc = fixed_ps(ty)
        if rng.random() < 0.05:
            return 'NaN'
        if mode == 'extreme' and rng.random() < 0.3:
            v = rng.choice([10**p - 1, -(10**p - 1), 0, 1, -1])
        elif mode == 'small':       # a few multiples of 1/4
            v = rng.randint(-20, 20) * (10**sc // 4 if sc else 1)
        elif mode == 'money':       # prices: below 10^5, all digits after the point
            v = rng.randint(-10**(min(p - sc, 5) + sc) + 1, 10**(min(p - sc, 5) + sc) - 1)
        else:
            v = rng.randint(-(10**p - 1), 10**p - 1)
        return fixed_text(v, sc)
    if ty == 'numeric':
        return rng.choice(['NaN', '0', '-0.5']) if rng.random() < 0.05 else \
            '%d.%04d' % (rng.randint(-10**6, 10**6), rng.randint(0, 9999))
    if ty == 'interval':
        return '%d days %d hours' % (rng.randint(-50, 50), rng.randint(0, 23))
    raise ValueError(ty)

def char_len(ty):
    """n of char(n), else None (no limit)."""
    m = re.fullmatch(r'char\((\d+)\)', ty)
    return int(m.group(1)) if m else None

def fixed_ps(ty):
    """(precision, scale) of a FIXED type name."""
    p, sc = re.fullmatch(r'numeric\((\d+),(\d+)\)', ty).groups()
    return int(p), int(sc)

def fixed_text(v, sc):
    """The integer v / 10^sc written with sc digits after the point."""
    a = str(abs(v)).rjust(sc + 1, '0')
    t = a[:len(a) - sc] + ('.' + a[len(a) - sc:] if sc else '')
    return ('-' if v < 0 else '') + t

def sql_str(v):
    return "'" + v.replace("'", "''") + "'"

def make_tables(rng, ntables, maxrows):
    """Random tables and rq.li (lineitem's shape); returns (list of Table, SQL script
    creating and loading them)."""
    tables, sql = [], ['DROP SCHEMA IF EXISTS rq CASCADE;', 'CREATE SCHEMA rq;']
    for ti in range(1, ntables + 1):
        r = rng.random()
        n = maxrows if ti == 1 else 0 if r < 0.08 else 1 if r < 0.15 else rng.randint(2, max(2, maxrows))
        t = Table('rq.t%d' % ti, n)
        # the real-schema types in every table: numeric(15,2), char(1), date, timestamp
        tys = ['int4', 'int8', 'float8', 'text', 'bool', 'numeric(15,2)', 'char(1)', 'date',
               'timestamp'] + [rng.choice(SUPPORTED) for _ in range(rng.randint(1, 6))]
        if rng.random() < 0.35:
            tys.append('numeric')
        if rng.random() < 0.25:
            tys.append('interval')
        rng.shuffle(tys)
        # the even tables declare every text column COLLATE "C" (one collation
        # per table, so that comparisons of two text columns stay valid):
        # their ORDER BY may then use text keys on the device
        collate_c = ti % 2 == 0
        t.cols.append(Col('id', 'int8', 'wide', 0.0))
        for k, ty in enumerate(tys, 1):
            mode = rng.choice(['small', 'money', 'money', 'wide', 'extreme'] if ty in FIXED else
                              ['small', 'small', 'wide', 'extreme'])
            c = Col('%s_%d' % (PREFIX[ty], k), ty, mode,
                    0.0 if rng.random() < 0.15 else rng.uniform(0.1, 0.3))
            if ty == 'float4':
                c.fbound = max(1, min(1000, 2**24 // (4 * max(n, 1))))
            elif ty == 'float8':
                c.fbound = max(1, min(10**9, 2**52 // (16 * max(n, 1))))
            c.domain = rng.sample(CHAR1_POOL if ty == 'char(1)' else TEXT_POOL,
                                  rng.randint(2, 5 if ty == 'char(1)' else 6))
            c.collate_c = collate_c and ty in TEXTS
            t.cols.append(c)
        sql += load_table(rng, t)
        tables.append(t)
    t = lineitem(rng, maxrows)
    sql += load_table(rng, t)
    tables.append(t)
    return tables, '\n'.join(sql) + '\n'

def lineitem(rng, n):
    """rq.li: TPC-H lineitem's types and value ranges (Q1 and Q6 run on it), with NULLs."""
    t = Table('rq.li', n)
    day0 = datetime.date(1992, 1, 2).toordinal()

    def money(lo, hi, sc=2):
        return lambda r: fixed_text(r.randint(lo, hi), sc)

    def day(r):
        return datetime.date.fromordinal(day0 + r.randint(0, 2525)).isoformat()
    cols = [('l_quantity', 'numeric(15,2)', lambda r: '%d.00' % r.randint(1, 50)),
            ('l_extendedprice', 'numeric(15,2)', money(90000, 10494950)),
            ('l_discount', 'numeric(15,2)', money(0, 10)),
            ('l_tax', 'numeric(15,2)', money(0, 8)),
            ('l_returnflag', 'char(1)', lambda r: r.choice('ANR')),
            ('l_linestatus', 'char(1)', lambda r: r.choice('FO')),
            ('l_shipdate', 'date', day),
            ('l_commitdate', 'date', day),
            ('l_receipt', 'timestamp', lambda r: '%s %02d:%02d:00' % (day(r), r.randint(0, 23),
                                                                     r.choice([0, 30]))),
            ('l_shipmode', 'char(10)', lambda r: r.choice(['AIR', 'MAIL', 'SHIP', 'TRUCK', 'RAIL',
                                                          'REG AIR', 'FOB'])),
            ('l_comment', 'varchar', lambda r: ' '.join(r.choice(['fox', 'Dep', 'a', 'ironic', 'é'])
                                                        for _ in range(r.randint(1, 3)))[:12]),
            ('l_linenumber', 'int4', lambda r: str(r.randint(1, 7))),
            ('l_partkey', 'int8', lambda r: str(r.randint(1, 200000))),
            ('l_weight', 'float8', lambda r: repr(r.randint(0, 16000) / 16))]
    t.cols.append(Col('id', 'int8', 'wide', 0.0))
    for name, ty, gen in cols:
        c = Col(name, ty, 'small' if ty in TEXTS else 'wide', rng.choice([0.0, 0.1, 0.2, 0.3]))
        c.gen, c.fbound = gen, 1000
        t.cols.append(c)
    return t

def load_table(rng, t):
    """SQL creating and loading table t (random rows, NULLs, dead tuples); sets the
    columns' values and maxabs."""
    n, sql = t.nrows, []
    decl = ['id int8 NOT NULL'] + ['%s %s%s%s' % (c.name, 'varchar(12)' if c.ty == 'varchar'
                                                  else c.ty, ' COLLATE "C"' if c.collate_c else '',
                                                  ' NOT NULL' if not c.nullfrac else '')
                                   for c in t.cols[1:]]
    if getattr(t, 'pk', None):
        decl.append('PRIMARY KEY (%s)' % ', '.join(c.name for c in t.pk))
    sql.append('CREATE TABLE %s (%s);' % (t.name, ', '.join(decl)))
    ids = list(range(1, n + 1))
    rng.shuffle(ids)
    rows = []
    for i in ids:
        vals = [str(i)]
        for c in t.cols[1:]:
            if rng.random() < c.nullfrac:
                vals.append('NULL')
            else:
                v = rand_value(rng, c)
                c.values.append(v)
                vals.append(sql_str(v))
        rows.append('(' + ','.join(vals) + ')')
    for s in range(0, len(rows), 500):
        sql.append('INSERT INTO %s VALUES\n%s;' % (t.name, ',\n'.join(rows[s:s + 500])))
    if n > 10 and rng.random() < 0.4:      # leave dead tuples behind
        t.deleted = True
        nullable = [c for c in t.cols[1:] if c.nullfrac]
        sql.append('DELETE FROM %s WHERE id %% 7 = 3;' % t.name)
        if nullable:
            sql.append('UPDATE %s SET %s = NULL WHERE id %% 11 = 5;'
                       % (t.name, rng.choice(nullable).name))
    sql += getattr(t, 'post_sql', [])
    sql.append('ANALYZE %s;' % t.name)
    t.cols[0].maxabs = n
    for c in t.cols[1:]:
        if c.ty in INTS + FLOATS + FIXED + ('numeric',):
            c.maxabs = max([abs(float(v)) for v in c.values
                            if v not in ('NaN', 'Infinity', '-Infinity')] or [0.0])
    return sql

# --------------------------------------------------------- join tables --
# Tables for the join queries (rq.jf, rq.jg, rq.jd1..rq.jd4): key columns
# (named k<domain>_<n>) in four domains, each with a value pool: i (int4,
# int8 or int2: 1..30), t (text, varchar, char(10) outside primary keys: 20
# short strings, '' ' ' 'b ' and cases among them), d (date: 30 dates) and n
# (numeric(15,2) or numeric(12,4): multiples of 0.25, NaN as a stray value).
# Any two key columns of one domain may be equi-joined.  Non-key values come
# skewed from the pool (duplicates), 10-20% NULL, and a few stray values no
# other table holds (dangling keys); every non-key join column has a NULL
# (id 1), a stray value and a duplicate.  jd1 and jd2 have a one-column
# primary key, jd3 a two-column one (the fact tables' pairs of those two
# domains copy one of jd3's pairs 60% of the time: foreign-key joins); jd4
# and jg (a second, smaller fact table) have neither.  Measures: no
# 'extreme' values (errors, overflows and order-dependent float sums stay out
# of the join queries), float8 multiples of 1/16 below 1000.
JTEXT = ['a', 'b', 'c', 'ab', 'abc', 'A', 'B', 'Ab', 'AB', 'x', 'xy', 'x y', 'é', 'É', '', ' ',
         'k1', 'K1', 'zz', 'b ']
JKEY_TYPES = {'i': ['int4', 'int4', 'int4', 'int8', 'int2'], 't': ['text', 'text', 'varchar'],
              'd': ['date'], 'n': ['numeric(15,2)', 'numeric(15,2)', 'numeric(12,4)']}
JSTRAY = {'i': ['0', '-7', '31', '1000'], 't': ['zzz', 'q', 'Q '],
          'd': ['2050-01-01', '1899-12-31', '1995-01-02'], 'n': ['999.99', '-0.01', '0.10', 'NaN']}
JMEASURES = ['int4', 'int8', 'int2', 'numeric(15,2)', 'numeric(15,2)', 'numeric(10,2)',
             'numeric(12,4)', 'float8', 'date', 'timestamp', 'text', 'varchar', 'char(1)',
             'char(10)', 'bool']
JKEY_PREFIX = {'i': 'ki', 't': 'kt', 'd': 'kd', 'n': 'kn'}

def jpool(dom):
    """The value pool of a key domain (literal bodies)."""
    if dom == 'i':
        return [str(k) for k in range(1, 31)]
    if dom == 't':
        return list(JTEXT)
    if dom == 'd':
        return [(datetime.date(1995, 1, 1) + datetime.timedelta(days=5 * k)).isoformat()
                for k in range(30)]
    return [fixed_text(25 * k, 2) for k in range(-4, 26)]

def jskewed(r, pool):
    return pool[int(len(pool) * r.random() ** 1.6)]

def jfk_gen(dom, pairs=None, partner=None, state=None):
    """A generator of a non-key join column's values: skewed pool values; its first
    value is a stray one, the next two are equal.  pairs: this column and partner
    (a later column) copy one of those pairs 60% of the time."""
    pool, calls = jpool(dom), [0]

    def gen(r):
        calls[0] += 1
        if calls[0] == 1:
            v = r.choice(JSTRAY[dom])
        elif calls[0] == 3:
            v = gen.last
        elif r.random() < 0.05:
            v = r.choice(JSTRAY[dom])
        else:
            v = jskewed(r, pool)
        if pairs is not None:
            state['pair'] = r.choice(pairs) if calls[0] > 3 and r.random() < 0.6 else None
            if state['pair']:
                v = state['pair'][0]
        if partner is not None and state.get('pair'):
            v = state.pop('pair')[1]
        gen.last = v
        return v
    gen.last = pool[0]
    return gen

def make_join_tables(seed, rows):
    """The join tables (a list of Table, their SQL); they depend on the seed and
    --rows only (an RNG of their own: the other tables stay as they were)."""
    rng = random.Random('%d:join' % seed)
    doms = ['i', 't', 'd', 'n']
    rng.shuffle(doms)
    nf = min(max(12, rows // 3), 4000)
    specs = [  # name, role, rows, key domains (primary key ones first), primary key width
        ('rq.jd1', 'dim', rng.randint(16, 28), [doms[0], doms[1]] + rng.sample(doms[2:], 1), 1),
        ('rq.jd2', 'dim', rng.randint(10, 18), [doms[1], rng.choice(doms[2:])], 1),
        ('rq.jd3', 'dim', rng.randint(25, 60), [doms[2], doms[3], doms[0]], 2),
        ('rq.jd4', 'dim', rng.randint(30, 80), rng.sample(doms, rng.randint(3, 4)), 0),
        ('rq.jf', 'fact', nf, ['i', 't', 'd', 'n', rng.choice(doms)], 0),
        ('rq.jg', 'fact', max(8, nf // 6), rng.sample(doms, 3) + [rng.choice(doms)], 0)]
    tables, sql, jd3_pairs, jd3_doms = [], [], [], ()
    for name, role, n, kdoms, npk in specs:
        t = Table(name, n)
        t.role, t.keys, t.pk, t.post_sql = role, [], [], []
        t.cols.append(Col('id', 'int8', 'wide', 0.0))
        state = {}
        if npk:     # distinct values (pairs) of the primary key
            pools = [jpool(d) for d in kdoms[:npk]]
            combos = [(a,) for a in pools[0]] if npk == 1 else \
                [(a, b) for a in pools[0] for b in pools[1]]
            t.nrows = n = min(n, len(combos) - 2)
            pk_rows = iter(rng.sample(combos, n))
        for k, dom in enumerate(kdoms):
            pk = k < npk
            ty = rng.choice([x for x in JKEY_TYPES[dom]] +
                            (['char(10)'] if dom == 't' and not pk else []))
            c = Col('%s_%d' % (JKEY_PREFIX[dom], k + 1), ty, 'small',
                    0.0 if pk else rng.uniform(0.1, 0.2))
            c.dom = dom
            if pk and k == 0:
                c.gen = lambda r, it=pk_rows, st=state: st.__setitem__('row', next(it)) or \
                    st['row'][0]
            elif pk:
                c.gen = lambda r, st=state: st['row'][1]
            elif role == 'fact' and dom in jd3_doms and 'first' not in state:
                # the first column of one of jd3's key domains, then one of the other
                state['first'] = dom
                c.gen = jfk_gen(dom, pairs=[p if dom == jd3_doms[0] else p[::-1]
                                            for p in jd3_pairs], state=state)
            elif role == 'fact' and dom in jd3_doms and state.get('first') not in (dom, None):
                state['first'] = None
                c.gen = jfk_gen(dom, partner=True, state=state)
            else:
                c.gen = jfk_gen(dom)
            t.cols.append(c)
            t.keys.append(c)
            if pk:
                t.pk.append(c)
        mtys = [rng.choice(JMEASURES) for _ in range(rng.randint(3, 6))]
        if not any(x.ty in TEXTS for x in t.cols) and not any(x in TEXTS for x in mtys):
            mtys.append('text')     # the expression generator needs a text column
        for ty in mtys:
            mode = rng.choice(['small', 'money'] if ty in FIXED else ['small', 'wide'])
            c = Col('%s_%d' % (PREFIX[ty], len(t.cols)), ty, mode,
                    0.0 if rng.random() < 0.2 else rng.uniform(0.1, 0.3))
            c.fbound = 1000
            c.domain = rng.sample(CHAR1_POOL if ty == 'char(1)' else TEXT_POOL,
                                  rng.randint(2, 5 if ty == 'char(1)' else 6))
            t.cols.append(c)
        nullable = [c.name for c in t.keys if c not in t.pk]
        if nullable and n > 1:
            t.post_sql.append('UPDATE %s SET %s WHERE id = 1;' % (
                name, ', '.join('%s = NULL' % x for x in nullable)))
        if role == 'fact' and rng.random() < 0.6:
            t.post_sql.append('CREATE INDEX ON %s (%s);' % (name, rng.choice(nullable)))
        sql += load_table(rng, t)
        for c in t.keys:        # for constants: without state (queries are drawn in any order)
            c.gen = lambda r, d=c.dom: r.choice(JSTRAY[d]) if r.random() < 0.1 else \
                jskewed(r, jpool(d))
        t.maxmult = {c.name: max(collections.Counter(c.values).values() or [0]) for c in t.keys}
        if npk == 2:
            jd3_pairs, jd3_doms = list(zip(t.pk[0].values, t.pk[1].values)), kdoms[:2]
        tables.append(t)
    # gpudb's column cache (cache_join_tables): about half the tables, one of
    # them changed after its load (rows updated, deleted and, without a primary
    # key, inserted: the cache's change capture)
    cached = [t for t in tables if rng.random() < 0.5]
    for t in cached:
        t.cache, t.after_cache = True, []
    if cached:
        t = rng.choice(cached)
        nullable = [c.name for c in t.keys if c not in t.pk]
        t.after_cache.append('UPDATE %s SET %s = NULL WHERE id %% 17 = 4;'
                             % (t.name, rng.choice(nullable)))
        t.after_cache.append('DELETE FROM %s WHERE id %% 19 = 6;' % t.name)
        if not t.pk:
            t.after_cache.append('INSERT INTO %s SELECT id + %d, %s FROM %s WHERE id %% 23 = 1;'
                                 % (t.name, t.nrows, ', '.join(c.name for c in t.cols[1:]),
                                    t.name))
            t.cols[0].maxabs = 2 * t.nrows
    return tables, '\n'.join(sql) + '\n'

def cache_join_tables(args, jtables):
    """Loads the join tables drawn for it into gpudb's column cache (gpu_cache_load,
    one transaction each), then changes one of them; without the GPU server (no
    preload) or the function, a note and no cache.  Returns the names cached."""
    cached = [t for t in jtables if getattr(t, 'cache', False)]
    if not cached:
        return []
    script = '\\set ON_ERROR_STOP 1\nSET client_min_messages = warning;\n' + ''.join(
        "SELECT gpu_cache_load('%s');\n" % t.name for t in cached) + \
        ''.join(x + '\n' for t in cached for x in t.after_cache)
    out, err, rc = psql(prelude(args) + script)
    if rc != 0:
        print('random_queries: the join tables stay uncached: %s'
              % (err.strip().split('\n') or ['?'])[0])
        return []
    return [t.name for t in cached]

# ------------------------------------------------------------- filters --
def const(rng, c):
    """A constant comparable with column c (usually of its type; sometimes NULL)."""
    ty, r = c.ty, rng.random()
    if r < 0.03:
        return 'NULL'
    v = rng.choice(c.values) if c.values and r < 0.6 else rand_value(rng, c)
    if r > 0.9 and ty in FLOATS + TIMES:        # edge values, whatever the column holds
        v = rng.choice(['NaN', 'Infinity', '-Infinity', '-0'] if ty in FLOATS else EXTREME_T[ty])
    if ty in INTS:
        if rng.random() < 0.1:
            v = str(rng.choice(INT_RANGE[ty]))
        return "'%s'::%s" % (v, ty) if rng.random() < 0.3 else ('(%s)' % v if v[0] == '-' else v)
    if ty in FLOATS:
        if rng.random() < 0.2 and re.fullmatch(r'-?[0-9.]+(e[-+]?[0-9]+)?', v) and v != '-0':
            return '(%s)' % v if v[0] == '-' else v      # a numeric literal, on purpose
        return "'%s'::%s" % (v, ty)
    if ty == 'bool':
        return 'true' if v == 't' else 'false'
    if ty in TIMES:
        return '%s %s' % ({'date': 'DATE', 'timestamp': 'TIMESTAMP',
                           'timestamptz': 'TIMESTAMPTZ'}[ty], sql_str(v))
    if ty == 'varchar' and rng.random() < 0.3:
        return sql_str(v) + '::varchar'
    if ty == 'interval':
        return 'INTERVAL ' + sql_str(v)
    if ty in FIXED:
        # numeric literals of other scales (exact or not), integers, edges
        r = rng.random()
        if r < 0.08:
            return rng.choice(["'NaN'", "'Infinity'", "'-Infinity'", '1e30', '(-1e30)'])
        if v != 'NaN' and r < 0.3:
            v = v + rng.choice(['0', '5', '01', '99'] if '.' in v else ['.5', '.001', '.0'])
        elif v != 'NaN' and r < 0.4:
            v = v.split('.')[0]
        if v == 'NaN':
            return "'NaN'::numeric"
        return '(%s)' % v if v[0] == '-' else v
    return sql_str(v)

def pick_col(rng, t, pred=lambda c: True):
    cs = t.of(pred)
    non_id = [c for c in cs if c.name != 'id']
    return rng.choice(cs if not non_id or rng.random() < 0.08 else non_id) if cs else None

def arith(rng, t, c):
    """(expression over int/float column c, 'int' or 'float'); may overflow / divide by 0."""
    noted(rng)
    isint = c.ty in INTS
    risky = rng.random() < 0.35 and not getattr(rng, 'nofail', False)
    kind = 'int' if isint else 'float'
    k = lambda: str(rng.randint(1, 9))  # noqa: E731
    others = [x for x in t.of(lambda x: x.ty in (INTS if isint else FLOATS)) if x is not c]
    r = rng.random()
    if risky:
        if isint and rng.random() < 0.5:
            opnd = rng.choice(['0', str(INT_RANGE['int4'][1]), '(-1)', '%s' % c.name]
                              + [o.name for o in others])
            e = '%s %s %s' % (c.name, rng.choice(['+', '-', '*', '/', '%']), opnd)
        else:
            o = rng.choice(others + t.of(lambda x: x.ty in NUMS))
            e = '%s %s %s' % (c.name, rng.choice(['+', '-', '*', '/']), o.name)
            kind = 'float' if o.ty in FLOATS else kind
        return ('-(%s)' % e if rng.random() < 0.2 else '(%s)' % e), kind
    if r < 0.45:
        ops = ['+', '-', '*', '/'] + (['%'] if isint else [])
        return '(%s %s %s)' % (c.name, rng.choice(ops), k()), kind
    if getattr(rng, 'nofail', False):   # int2 +- int2 may overflow
        others = [o for o in others if not isint or c.maxabs + o.maxabs <= INT_MAX[
            max(c.ty, o.ty, key=INTS.index)]]
    if r < 0.75 and others:
        o = rng.choice([x for x in others if x.mode != 'extreme'] or others)
        return '(%s %s %s)' % (c.name, rng.choice(['+', '-']), o.name), kind
    return '((%s * %s) - %s)' % (c.name, k(), k()), kind

def atom(rng, t):
    """One predicate over table t."""
    if rng.random() < getattr(rng, 'xp', 0):
        return gen_cond(rng, t, rng.randint(0, 2))
    c = pick_col(rng, t)
    ty, fam = c.ty, c.family
    r = rng.random()
    if r < 0.04:        # constructs beyond plain comparisons
        noted(rng)
        tc = pick_col(rng, t, lambda x: x.ty in TEXTS)
        nc = pick_col(rng, t, lambda x: x.ty in INTS)
        forms = ['coalesce(%s, %s) %s %s' % (c.name, const(rng, c), rng.choice(CMP), const(rng, c)),
                 'CASE WHEN %s THEN %s IS NULL ELSE true END' % (atom(rng, t), c.name),
                 'random() >= 0.0']
        if tc:
            forms += ["%s LIKE 'a%%'" % tc.name, "%s < 'b'" % tc.name, 'length(%s) = 1' % tc.name]
        if nc:
            forms += ['abs(%s) > 3' % nc.name, '%s::numeric > 2.5' % nc.name]
        return rng.choice(forms)
    if r < 0.12:
        return '%s IS %sNULL' % (c.name, rng.choice(['', 'NOT ']))
    if ty == 'bool':
        o = pick_col(rng, t, lambda x: x.ty == 'bool' and x is not c)
        return rng.choice([c.name, 'NOT %s' % c.name, '%s = %s' % (c.name, const(rng, c)),
                           '%s IS %s%s' % (c.name, rng.choice(['', 'NOT ']),
                                           rng.choice(['TRUE', 'FALSE', 'UNKNOWN'])),
                           '%s <> %s' % (c.name, o.name if o else 'true')])
    if ty in TEXTS and r < 0.6:
        o = pick_col(rng, t, lambda x: x.ty in TEXTS and x is not c)
        rhs = o.name if o and rng.random() < 0.3 else const(rng, c)
        return '%s %s %s' % (c.name, rng.choice(['=', '<>']), rhs)
    if ty in NUMS and r < 0.4:
        e, kind = arith(rng, t, c)
        cty = ty if kind == 'int' or ty in FLOATS else 'float8'
        if cty != ty:
            return '%s %s %s' % (e, rng.choice(CMP), "'%s'::float8" % rng.randint(-20, 20))
        return '%s %s %s' % (e, rng.choice(CMP), const(rng, c))
    r = rng.random()
    if r < 0.45:
        return '%s %s %s' % (c.name, rng.choice(CMP), const(rng, c))
    if r < 0.55:
        o = pick_col(rng, t, lambda x: x.family == fam and x is not c)
        if o:       # column vs column (same or cross type)
            return '%s %s %s' % (c.name, rng.choice(CMP) if fam != 'text' else '=', o.name)
        return '%s %s %s' % (c.name, rng.choice(CMP), const(rng, c))
    if r < 0.72:
        lst = ', '.join(const(rng, c) for _ in range(rng.randint(1, 5)))
        return '%s %sIN (%s)' % (c.name, rng.choice(['', '', 'NOT ']), lst)
    if r < 0.86:
        a, b = const(rng, c), const(rng, c)
        return '%s %sBETWEEN %s%s AND %s' % (c.name, rng.choice(['', '', 'NOT ']),
                                             'SYMMETRIC ' if rng.random() < 0.1 else '', a, b)
    o = pick_col(rng, t, lambda x: x.ty == ty and x is not c)
    return '%s IS %sDISTINCT FROM %s' % (c.name, rng.choice(['', 'NOT ']),
                                         o.name if o and rng.random() < 0.4 else const(rng, c))

def gen_filter(rng, t, depth):
    r = rng.random()
    if depth > 0 and r < 0.4:
        op = rng.choice([' AND ', ' OR '])
        return '(' + op.join(gen_filter(rng, t, depth - 1) for _ in range(rng.randint(2, 3))) + ')'
    if depth > 0 and r < 0.5:
        return 'NOT (%s)' % gen_filter(rng, t, depth - 1)
    return atom(rng, t)

# ---------------------------------------------------------- expressions --
# Typed random expressions (issue 25) for every position: filters, select
# lists, aggregate arguments, GROUP BY and ORDER BY keys, HAVING.  Each
# expression carries what the generator knows of its values, so that its
# results stay comparable: a bound on |value| (integer overflow is drawn only
# in the queries allowed to risk it, rng.risk; a fixed-point numeric reaches
# 10^18 only there too: the device stops at it and the node answers with
# PostgreSQL's plan behind it, so the results must still match), the
# numeric display scale (None: per row, as numeric division gives), and for
# floats den: every finite value is a multiple of 2^-den (None: inexact), so
# that a sum is exact in any order while bound * 2^den * rows < 2^mantissa.
FIX_LIMIT = 10**18 // 2         # margin below 10^18 for the rounding of bounds
INT_MAX = {ty: hi for ty, (lo, hi) in INT_RANGE.items()}
MANT = {'float4': 24, 'float8': 53}
# PostgreSQL's common type of CASE arms, COALESCE, GREATEST: the later wins
UNIFY = ('int2', 'int4', 'int8', 'numeric', 'float4', 'float8')
CASTS = ['int2', 'int4', 'int8', 'float4', 'float8', 'numeric', 'numeric(15,2)',
         'numeric(12,4)', 'numeric(10,0)', 'numeric(18,6)', 'numeric(6,3)']
COLREF = re.compile(r'\b(id|l_[a-z]+|[a-z]+[0-9]*_[0-9]+)\b')
INTERVALS = ["INTERVAL '1 month'", "INTERVAL '90' DAY", "INTERVAL '1' YEAR", "INTERVAL '3 days'",
             "INTERVAL '2 hours'", "INTERVAL '1 day 12:00:00'", "INTERVAL '-1 month'",
             "INTERVAL '1 year 2 months 3 days'", "INTERVAL '36 hours'", "INTERVAL '0.5 seconds'",
             "INTERVAL '-90 days'", "INTERVAL '1 week'"]
TRUNC_FIELDS = ['year', 'quarter', 'month', 'week', 'day', 'hour', 'minute']
DATE_FIELDS = ['year', 'quarter', 'month', 'week', 'day', 'dow', 'isodow', 'doy', 'epoch',
               'decade', 'century', 'isoyear']
TS_FIELDS = DATE_FIELDS + ['hour', 'minute', 'second', 'milliseconds', 'microseconds']

class QRng(random.Random):
    """A query's random source, with what its generation noted: exprs (how many
    expressions were drawn), risk (overflow and division by zero may be drawn),
    xp (the probability that a filter atom is an expression), flavor (the
    numbers expressions prefer: int, float, numeric or mix)."""
    def __init__(self, seed, xp=0.0):
        super().__init__(seed)
        self.exprs, self.risk, self.xp, self.flavor = 0, False, xp, 'mix'

def noted(rng):
    if hasattr(rng, 'exprs'):
        rng.exprs += 1

class E:
    """A generated expression: its SQL, PostgreSQL's type of it and bounds."""
    def __init__(self, sql, ty, bound=0.0, scale=None, den=None, cc=False, wide=False, col=None):
        self.sql, self.ty, self.bound, self.scale, self.den = sql, ty, bound, scale, den
        self.cc = cc            # text: of a COLLATE "C" column
        self.wide = wide        # dates and timestamps: may be extreme (BC, infinite, far)
        self.col = col          # a plain column reference: its Col

def col_e(c):
    ty = c.ty
    if ty in INTS:
        return E(c.name, ty, c.maxabs, col=c)
    if ty in FLOATS:
        if c.mode == 'extreme':
            return E(c.name, ty, math.inf, col=c)
        return E(c.name, ty, c.maxabs, den=2 if ty == 'float4' or c.mode == 'small' else 4, col=c)
    if ty in FIXED:
        return E(c.name, 'numeric', c.maxabs, scale=fixed_ps(ty)[1], col=c)
    if ty == 'numeric':         # unconstrained: PostgreSQL's plan
        return E(c.name, 'numeric', c.maxabs, col=c)
    if ty in TIMES:
        return E(c.name, ty, wide=c.mode == 'extreme', col=c)
    if ty in TEXTS:
        return E(c.name, 'bpchar' if char_len(ty) else 'text', cc=c.collate_c, col=c)
    return E(c.name, ty, col=c)

def num_cols(t, rng):
    """The number columns expressions may use (extreme ones only when risky)."""
    return t.of(lambda c: (c.ty in NUMS or c.ty in FIXED or c.ty == 'numeric')
                and (c.mode != 'extreme' or rng.risk or rng.random() < 0.1))

def num_const(rng, cls=None):
    cls = cls or rng.choice(['int', 'int', 'numeric', 'numeric', 'float'])
    if cls == 'int':
        v = rng.choice([0, 1, 1, 2, 3, 5, 7, 10, 24, 100, 1000, -1, -3])
        if rng.random() < 0.1:
            ty = rng.choice(INTS)
            return E("'%d'::%s" % (v, ty), ty, abs(v))
        return E(str(v) if v >= 0 else '(%d)' % v, 'int4', abs(v))
    if cls == 'numeric':
        v = rng.choice(['0.05', '0.06', '0.01', '1.5', '0.5', '2.00', '0.001', '100.25', '12.5',
                        '0.10', '3.14159', '1.0', '-2.5', '0.0'])
        return E(v if v[0] != '-' else '(%s)' % v, 'numeric', abs(float(v)),
                 scale=len(v.split('.')[1]))
    v = rng.choice(['0.5', '2', '0.25', '1.5', '-3', '1024', '0.0625', '-0.75'])
    ty = rng.choice(['float8', 'float8', 'float4'])
    den = next(d for d in range(8) if float(v) * 2**d == int(float(v) * 2**d))
    return E("'%s'::%s" % (v, ty), ty, abs(float(v)), den=den)

def num_leaf(rng, t):
    cs = num_cols(t, rng)
    if not cs or rng.random() < 0.2:
        cls = {'int': 'int', 'float': 'float', 'numeric': 'numeric'}.get(rng.flavor)
        return num_const(rng, cls if rng.random() < 0.7 else None)
    fl = {'int': INTS, 'float': FLOATS, 'numeric': FIXED}.get(rng.flavor, ())
    pref = [c for c in cs if c.ty in fl]
    return col_e(rng.choice(pref if pref and rng.random() < 0.8 else cs))

def special_cols(rng, e):
    """The columns named in e's SQL that hold NaN or +-Infinity."""
    t = getattr(rng, 'table', None)
    names = set(COLREF.findall(e.sql))
    return [c for c in (t.cols if t else []) if c.name in names and
            any(v in ('NaN', 'Infinity', '-Infinity') for v in c.values)]

def fden(e):
    """e's den once PostgreSQL converts it to a float (None: inexact)."""
    if e.ty in FLOATS:
        return e.den
    if e.ty in INTS or (e.ty == 'numeric' and e.scale == 0):
        return 0 if e.bound < 2**53 else None
    return None

def nscale(e):
    return 0 if e.ty in INTS else e.scale

def fixed_ok(e, *opnds):
    """False when e, a fixed-point numeric, or one of its operands (rescaled to e's
    scale) could reach 10^18: drawn only in risky queries, where a GpuAgg or GpuSort
    answers with PostgreSQL's plan behind it when a value does."""
    if e.ty != 'numeric' or e.scale is None:
        return True
    return all(x.bound * 10**e.scale < FIX_LIMIT for x in (e,) + opnds if x.ty != 'numeric'
               or x.scale is None or x.scale <= e.scale) and \
        all(x.bound < FIX_LIMIT for x in opnds if x.ty in INTS)

def num_binop(rng, a, b, op):
    """a op b with PostgreSQL's result type, or None when it must not be drawn."""
    if a.ty in FLOATS or b.ty in FLOATS:
        ty = 'float4' if a.ty == b.ty == 'float4' else 'float8'
        if op == '%':
            op = '-'
    elif 'numeric' in (a.ty, b.ty):
        ty = 'numeric'
    else:
        ty = max(a.ty, b.ty, key=INTS.index)
    sql = '(%s %s %s)' % (a.sql, op, b.sql)
    A, B = a.bound, b.bound
    bound = {'+': A + B, '-': A + B, '*': A * B, '%': min(A, B),
             '/': A if ty in INTS else math.inf}[op]
    if ty in INTS:
        return E(sql, ty, bound) if bound <= INT_MAX[ty] or rng.risk else None
    if ty == 'numeric':
        sa, sb = nscale(a), nscale(b)
        scale = None if op == '/' or None in (sa, sb) else sa + sb if op == '*' else max(sa, sb)
        e = E(sql, ty, bound, scale)
        if op in '+-%' and scale is not None:
            e.bound = max(A, B, bound)  # the operands rescaled count too
        if not fixed_ok(e, a, b) and not rng.risk:
            return None
        e.bound = bound
        return e
    da, db = fden(a), fden(b)
    den = None if op == '/' or None in (da, db) else da + db if op == '*' else max(da, db)
    if den is not None and bound * 2**den > 2**MANT[ty]:
        den = None
    return E(sql, ty, bound, den=den)

def divisor(rng, t, a):
    """A divisor for a: mostly a non-zero constant, else NULLIF(x, 0) or a column."""
    r = rng.random()
    if r < 0.6:
        if a.ty not in INTS and rng.random() < 0.3:
            return rng.choice([E('0.5', 'numeric', 0.5, scale=1), E('2.00', 'numeric', 2, scale=2),
                               E("'0.25'::float8", 'float8', 0.25, den=2)])
        return E(rng.choice(['2', '3', '4', '7', '10', '(-3)']), 'int4', 10)
    b = num_leaf(rng, t)
    if r < 0.9 or not rng.risk:
        b = E('NULLIF(%s, 0)' % b.sql, b.ty, b.bound, b.scale, b.den)
    return b

def convert(rng, a, ty, explicit):
    """a as type ty (explicit: written as a cast), or None when it must not be drawn."""
    sql = '(%s)::%s' % (a.sql, ty) if explicit else a.sql
    m = re.fullmatch(r'numeric\((\d+),(\d+)\)', ty)
    if ty in INTS:
        # NaN or +-Infinity in a column feeding a cannot become an integer
        ok = (a.bound + 1 <= INT_MAX[ty] and (a.ty in INTS or not special_cols(rng, a))) \
            or rng.risk
        return E(sql, ty, min(a.bound + 1, INT_MAX[ty] + 1)) if ok else None
    if ty in FLOATS:
        den = fden(a)
        if den is not None and a.bound * 2**den > 2**MANT[ty]:
            den = None
        if ty == 'float4' and a.bound > 3e38 and not rng.risk:
            return None
        return E(sql, ty, a.bound, den=den)
    if ty == 'numeric':
        e = E(sql, ty, a.bound, None if a.ty in FLOATS else nscale(a))
        return e if fixed_ok(e) or rng.risk else None
    if m:
        p, s = int(m.group(1)), int(m.group(2))
        # numeric field overflow (+-Infinity too)
        if (a.bound + 1 >= 10**(p - s) or a.ty in FLOATS and special_cols(rng, a)) \
                and not rng.risk:
            return None
        return E(sql, 'numeric', min(a.bound + 1, 10**(p - s)), scale=s)
    return E(sql, ty)

def unify(rng, arms):
    """Arms of CASE, COALESCE, GREATEST or LEAST in their common type (some cast
    explicitly), or None."""
    ty = max((a.ty for a in arms), key=UNIFY.index)
    out = [a if a.ty == ty else convert(rng, a, ty, rng.random() < 0.4) for a in arms]
    if None in out:
        return None
    scales = set(a.scale for a in out)
    dens = [a.den for a in out]
    return out, E('', ty, max(a.bound for a in out),
                  scale=scales.pop() if len(scales) == 1 else None,
                  den=None if None in dens else max(dens))

def gen_num(rng, t, depth):
    """A number-valued expression (int2/4/8, float4/8, numeric) over table t."""
    if depth <= 0 or rng.random() < 0.2:
        return num_leaf(rng, t)
    noted(rng)
    a = gen_num(rng, t, depth - 1)
    r = rng.random()
    e = None
    if r < 0.38:
        op = rng.choice(['+', '-', '*', '*', '+', '-', '/', '%'])
        b = divisor(rng, t, a) if op in '/%' else gen_num(rng, t, depth - 1)
        if rng.random() < 0.5:
            a, b = (b, a) if op not in '/%' else (a, b)
        e = num_binop(rng, a, b, op)
    elif r < 0.44:
        e = E('(-%s)' % a.sql, a.ty, a.bound, a.scale, a.den)
        if a.ty in INTS and a.bound > INT_MAX[a.ty] and not rng.risk:
            e = None
    elif r < 0.49:
        e = E('abs(%s)' % a.sql, a.ty, a.bound, a.scale, a.den)
        if a.ty in INTS and a.bound > INT_MAX[a.ty] and not rng.risk:
            e = None
    elif r < 0.58:
        e = num_round(rng, a)
    elif r < 0.68:
        e = convert(rng, a, rng.choice(CASTS), True)
    elif r < 0.76:
        e = gen_case(rng, t, depth, a)
    elif r < 0.81:
        arms = unify(rng, [a, gen_num(rng, t, depth - 1)] +
                     ([num_const(rng)] if rng.random() < 0.4 else []))
        if arms:
            e = arms[1]
            e.sql = 'COALESCE(%s)' % ', '.join(x.sql for x in arms[0])
    elif r < 0.85:
        # NULLIF's type is its first argument's as the = operator coerces it:
        # an integer, or a constant of a's own type, keeps it
        b = num_const(rng, 'int' if a.ty in INTS or rng.random() < 0.5 else
                      'numeric' if a.ty == 'numeric' else None)
        if a.ty in FLOATS and b.ty != 'int4':
            b = E("'%s'::%s" % (rng.choice(['0.5', '-3', '0']), a.ty), a.ty, 3, den=1)
        if cmp_ok(rng, a, b):
            e = E('NULLIF(%s, %s)' % (a.sql, b.sql), a.ty, a.bound, a.scale, a.den)
    elif r < 0.91:
        arms = unify(rng, [a, gen_num(rng, t, depth - 1)] +
                     ([num_const(rng)] if rng.random() < 0.3 else []))
        if arms:
            e = arms[1]
            e.sql = '%s(%s)' % (rng.choice(['GREATEST', 'LEAST']),
                                ', '.join(x.sql for x in arms[0]))
    else:
        e = num_from_other(rng, t, depth)
    return e or a

def num_round(rng, a):
    """round/trunc/floor/ceil of a (ints cast to numeric or float8 first)."""
    if a.ty in INTS:
        a = convert(rng, a, rng.choice(['numeric', 'float8']), True)
        if a is None:
            return None
    fn = rng.choice(['round', 'round', 'trunc', 'floor', 'ceil', 'ceiling'])
    if a.ty == 'numeric':
        if fn in ('round', 'trunc') and rng.random() < 0.5:
            k = rng.choice([-1, 0, 1, 2, 3])
            e = E('%s(%s, %d)' % (fn, a.sql, k), 'numeric', a.bound + 10**max(-k, 0),
                  scale=max(k, 0))
        else:
            e = E('%s(%s)' % (fn, a.sql), 'numeric', a.bound + 1, scale=0)
        return e if fixed_ok(e) or rng.risk else None
    den = 0 if a.bound + 1 < 2**53 else None
    return E('%s(%s)' % (fn, a.sql), 'float8', a.bound + 1, den=den)

def gen_case(rng, t, depth, a):
    """CASE, searched or simple, with a as one arm."""
    arms = [a] + [gen_num(rng, t, depth - 1) if rng.random() < 0.6 else num_const(rng)
                  for _ in range(rng.randint(1, 2))]
    u = unify(rng, arms)
    if not u:
        return None
    arms, e = u
    has_else = rng.random() < 0.75
    whens = arms[:-1] if has_else else arms
    sc = pick_col(rng, t, lambda c: c.values and (c.ty in INTS or c.ty in TEXTS)) \
        if rng.random() < 0.3 else None
    if sc:
        parts = ['WHEN %s THEN %s' % (const(rng, sc), x.sql) for x in whens]
        head = 'CASE %s ' % sc.name
    else:
        parts = ['WHEN %s THEN %s' % (gen_cond(rng, t, max(depth - 1, 0)), x.sql) for x in whens]
        head = 'CASE '
    e.sql = head + ' '.join(parts) + (' ELSE %s' % arms[-1].sql if has_else else '') + ' END'
    return e

def num_from_other(rng, t, depth):
    """A number from dates (difference, extract, date_part) or text (length)."""
    ts = t.of(lambda c: c.ty in TIMES)
    tx = t.of(lambda c: c.ty in TEXTS)
    r = rng.random()
    if ts and r < 0.35:
        a = gen_time(rng, t, depth - 1, 'date')
        b = gen_time(rng, t, 0, 'date') if rng.random() < 0.4 else time_const(rng, a, 'date')
        if a.ty == 'date' and b.ty == 'date':
            return E('(%s - %s)' % (a.sql, b.sql), 'int4',
                     INT_MAX['int4'] if a.wide or b.wide else 200000)
        return None
    if ts and r < 0.8:
        a = gen_time(rng, t, depth - 1)
        isdate = a.ty == 'date'
        # a time field of a date: 0A000 (not where no error may be drawn)
        f = rng.choice(DATE_FIELDS if isdate and (rng.random() < 0.95 or
                                                  getattr(rng, 'nofail', False)) else TS_FIELDS)
        years = 6e6 if a.wide else 3000
        bound = {'epoch': years * 3.2e7, 'milliseconds': 6e4, 'microseconds': 6e7, 'doy': 366,
                 'decade': years / 10, 'century': years / 100, 'year': years,
                 'isoyear': years}.get(f, 60)
        if rng.random() < 0.5:
            scale = 6 if f in ('second', 'epoch') and not isdate else 3 \
                if f == 'milliseconds' and not isdate else 0
            e = E('extract(%s FROM %s)' % (f, a.sql), 'numeric', bound, scale=scale)
            return e if fixed_ok(e) or rng.risk else None
        inexact = f in ('second', 'milliseconds', 'epoch') and not isdate
        return E("date_part('%s', %s)" % (f, a.sql), 'float8', bound, den=None if inexact else 0)
    if tx:
        s = gen_text(rng, t, depth - 1)
        fn = rng.choice(['length', 'length', 'char_length', 'octet_length'])
        return E('%s(%s)' % (fn, s.sql), 'int4', 100)
    return None

def time_leaf(rng, t, want=None):
    cs = t.of(lambda c: c.ty in TIMES and (c.mode != 'extreme' or rng.risk or rng.random() < 0.05)
              and (c.ty != 'timestamptz' or rng.random() < 0.2))
    pref = [c for c in cs if c.ty == want]
    if not cs or rng.random() < 0.1:
        return time_const(rng, None, want)
    return col_e(rng.choice(pref if pref and rng.random() < 0.8 else cs))

def time_const(rng, a, want=None):
    """A date or timestamp constant near a's values (a column's own, often)."""
    if a is not None and a.col is not None and a.col.values and rng.random() < 0.5:
        v = rng.choice(a.col.values)
        ty = a.col.ty
    else:
        r = rng.random()
        base = datetime.date(2000, 1, 1) if r < 0.5 else datetime.date(1992, 1, 1) \
            if r < 0.8 else datetime.date(1900, 1, 1)
        span = 160 if r < 0.5 else 2600 if r < 0.8 else 73000
        v = (base + datetime.timedelta(days=rng.randint(0, span))).isoformat()
        ty = want or rng.choice(['date', 'date', 'timestamp'])
        if ty != 'date':
            v += rng.choice([' 00:00:00', ' 12:00:00', ' 23:59:59.5'])
    lit = '%s %s' % ({'date': 'DATE', 'timestamp': 'TIMESTAMP', 'timestamptz': 'TIMESTAMPTZ'}[ty],
                     sql_str(v))
    if want != 'date' and rng.random() < 0.3:
        return E('%s %s %s' % (lit, rng.choice(['+', '-']), rng.choice(INTERVALS)),
                 'timestamptz' if ty == 'timestamptz' else 'timestamp')
    return E(lit, ty)

def gen_time(rng, t, depth, want=None):
    """A date or timestamp expression over t (want: prefer that type)."""
    a = time_leaf(rng, t, want)
    if depth <= 0 or rng.random() < 0.3:
        return a
    noted(rng)
    r = rng.random()
    w = a.wide
    if a.ty == 'date' and (want == 'date' or r < 0.25):
        k = rng.choice([1, 7, 30, 90, 365, -30])
        return E('(%s %s %d)' % (a.sql, rng.choice(['+', '-']), k), 'date', wide=w)
    if r < 0.5:
        return E('(%s %s %s)' % (a.sql, rng.choice(['+', '-']), rng.choice(INTERVALS)),
                 'timestamptz' if a.ty == 'timestamptz' else 'timestamp', wide=w)
    if r < 0.65:
        x = '%s::timestamp' % a.sql if a.ty == 'date' and rng.random() < 0.8 else a.sql
        return E("date_trunc('%s', %s)" % (rng.choice(TRUNC_FIELDS), x),
                 'timestamp' if x != a.sql or a.ty == 'timestamp' else 'timestamptz', wide=w)
    if r < 0.75:
        ty = 'timestamp' if a.ty == 'date' else 'date'
        return E('(%s)::%s' % (a.sql, ty), ty, wide=w)
    b = gen_time(rng, t, depth - 1, a.ty) if rng.random() < 0.6 else time_const(rng, a, a.ty)
    if b.ty != a.ty:
        b = E('(%s)::%s' % (b.sql, a.ty), a.ty, wide=b.wide)
    w = a.wide or b.wide
    if r < 0.85:
        return E('CASE WHEN %s THEN %s ELSE %s END' % (gen_cond(rng, t, 0), a.sql, b.sql),
                 a.ty, wide=w)
    if r < 0.92:
        return E('COALESCE(%s, %s)' % (a.sql, b.sql), a.ty, wide=w)
    return E('%s(%s, %s)' % (rng.choice(['GREATEST', 'LEAST']), a.sql, b.sql), a.ty, wide=w)

def text_col(rng, t):
    return pick_col(rng, t, lambda c: c.ty in TEXTS)

def gen_text(rng, t, depth):
    """A text expression over t (a text, varchar or char(n) column inside)."""
    c = text_col(rng, t)
    a = col_e(c)
    if depth <= 0 or rng.random() < 0.3:
        return a
    noted(rng)
    r = rng.random()
    k = rng.randint(1, 3)
    if r < 0.3:
        sql = '%s(%s)' % (rng.choice(['lower', 'upper']), a.sql)
    elif r < 0.45:
        n = ', %d' % rng.randint(0, 3) if rng.random() < 0.7 else ''
        sql = 'substr(%s, %d%s)' % (a.sql, k, n)
    elif r < 0.55:
        sql = '%s(%s, %d)' % (rng.choice(['left', 'left', 'right']), a.sql, rng.choice([k, -1]))
    elif r < 0.65:
        sql = "(%s || %s)" % (a.sql, sql_str(rng.choice(TEXT_POOL)))
    elif r < 0.75:
        sql = "COALESCE(%s, %s)" % (a.sql, sql_str(rng.choice(c.values or ['zz'])))
    elif r < 0.85:
        sql = "CASE WHEN %s THEN %s ELSE %s END" % (gen_cond(rng, t, 0), a.sql,
                                                    sql_str(rng.choice(TEXT_POOL)))
    elif r < 0.92:
        sql = "NULLIF(%s, %s)" % (a.sql, sql_str(rng.choice(c.values or ['a'])))
    else:
        sql = '%s(%s)' % (rng.choice(['btrim', 'rtrim', 'ltrim']), a.sql)
    return E(sql, 'text', cc=a.cc, col=None)

def like_pattern(rng, v):
    """A LIKE pattern from value v: a prefix, suffix or infix with % and _."""
    r = rng.random()
    k = rng.randint(0, len(v))
    if r < 0.3:
        p = v[:k] + '%'
    elif r < 0.5:
        p = '%' + v[k:]
    elif r < 0.7:
        p = '%' + v[k:k + 2] + '%'
    elif r < 0.85 and v:
        p = v[:k] + '_' + v[k + 1:]
    else:
        p = v
    return sql_str(p)

def text_cond(rng, t, depth):
    c = text_col(rng, t)
    e = col_e(c) if rng.random() < 0.5 else gen_text(rng, t, depth)
    v = rng.choice(c.values or [''])
    r = rng.random()
    if r < 0.35:
        if rng.random() < 0.25:
            # a regular expression: anchored prefixes and suffixes, a class
            op = rng.choice(['~', '~', '!~', '~*', '!~*'])
            k = rng.random()
            pat = '^' + re.escape(v[:rng.randint(0, 2)]) if k < 0.4 else \
                re.escape(v[-1:]) + '$' if k < 0.7 else \
                rng.choice(['[a-c]', '[[:digit:]]', '^.{2,3}$', 'e|o', '^$', '[[:alpha:]]{3}'])
            return '%s %s %s' % (e.sql, op, sql_str(pat))
        op = rng.choice(['LIKE', 'LIKE', 'NOT LIKE', 'ILIKE', 'NOT ILIKE'])
        return '%s %s %s' % (e.sql, op, like_pattern(rng, v))
    if r < 0.45:
        return 'starts_with(%s, %s)' % (e.sql, sql_str(v[:rng.randint(0, 2)]))
    if r < 0.6:
        return 'length(%s) %s %d' % (e.sql, rng.choice(CMP), rng.randint(0, 4))
    if r < 0.8:
        rhs = sql_str(v) + ('::text' if rng.random() < 0.2 else '')
        return '%s %s %s' % (e.sql, rng.choice(['=', '<>']), rhs)
    if r < 0.9:
        return '%s IN (%s)' % (e.sql, ', '.join(sql_str(rng.choice(c.values or [''])) for _ in
                                                range(rng.randint(1, 3))))
    return '%s %s %s' % (e.sql, rng.choice(CMP), sql_str(v))

def cmp_ok(rng, a, b):
    """False when comparing a with b converts an integer to a fixed point that could
    reach 10^18 (unless the query risks it).  A number rescaled to the other's scale
    past 10^18 is fine: the device saturates a comparison's operands."""
    if a.ty in FLOATS or b.ty in FLOATS or 'numeric' not in (a.ty, b.ty):
        return True
    return rng.risk or not any(x.ty in INTS and x.bound >= FIX_LIMIT for x in (a, b))

def num_const_like(rng, a):
    """A constant to compare with a, within its bound."""
    b = min(a.bound, 10**6) if math.isfinite(a.bound) else 1000
    r = rng.random()
    if r < 0.3:
        return num_const(rng, 'int')
    if a.ty in FLOATS:
        v = rng.randint(-int(b * 4), int(b * 4)) / 4
        return E("'%s'::%s" % (repr(v), a.ty) if rng.random() < 0.7 else
                 ('(%s)' % v if v < 0 else repr(v)), a.ty, abs(v), den=2)
    s = (a.scale if a.ty == 'numeric' and a.scale is not None else 0) + rng.choice([0, 0, 0, 1])
    if a.ty in INTS and s == 0:
        v = rng.randint(-int(b), int(b))
        return E(str(v) if v >= 0 else '(%d)' % v, 'int4' if abs(v) < 2**31 else 'int8', abs(v))
    v = rng.randint(-int(b * 10**s), int(b * 10**s))
    txt = fixed_text(v, s)
    if s == 0:
        txt += '.0' if rng.random() < 0.5 else ''
    return E(txt if v >= 0 else '(%s)' % txt, 'numeric' if '.' in txt else 'int8',
             abs(v) / 10**s, scale=len(txt.split('.')[1]) if '.' in txt else 0)

def gen_cond(rng, t, depth=1):
    """A condition over expressions of t: comparisons of numbers, dates and
    timestamps, text tests (LIKE, ILIKE, starts_with, length ...)."""
    noted(rng)
    kinds = ['num'] * 5 + ['time'] * 3 * bool(t.of(lambda c: c.ty in TIMES)) + \
        ['text'] * 3 * bool(t.of(lambda c: c.ty in TEXTS))
    k = rng.choice(kinds)
    if k == 'text':
        return text_cond(rng, t, depth)
    r = rng.random()
    if k == 'time':
        a = gen_time(rng, t, rng.randint(0, depth + 1))
        bs = [gen_time(rng, t, rng.randint(0, depth)) if rng.random() < 0.3 else time_const(rng, a)
              for _ in range(2)]
        if r < 0.75:
            return '%s %s %s' % (a.sql, rng.choice(CMP), bs[0].sql)
        if r < 0.9:
            return '%s %sBETWEEN %s AND %s' % (a.sql, rng.choice(['', 'NOT ']), bs[0].sql, bs[1].sql)
        return '%s IS %sNULL' % (a.sql, rng.choice(['', 'NOT ']))
    a = gen_num(rng, t, rng.randint(1, depth + 1))
    bs = []
    for _ in range(3):
        b = num_const_like(rng, a) if rng.random() < 0.65 else gen_num(rng, t, rng.randint(0, depth))
        bs.append(b if cmp_ok(rng, a, b) else num_const(rng, 'int'))
    if r < 0.65:
        return '%s %s %s' % (a.sql, rng.choice(CMP), bs[0].sql)
    if r < 0.8:
        return '%s %sBETWEEN %s AND %s' % (a.sql, rng.choice(['', '', 'NOT ']), bs[0].sql, bs[1].sql)
    if r < 0.9:
        return '%s %sIN (%s)' % (a.sql, rng.choice(['', 'NOT ']), ', '.join(b.sql for b in bs))
    if r < 0.95:
        return '%s IS %sDISTINCT FROM %s' % (a.sql, rng.choice(['', 'NOT ']), bs[0].sql)
    return '%s IS %sNULL' % (a.sql, rng.choice(['', 'NOT ']))

def gen_value(rng, t, depth):
    """An expression of any kind: mostly numbers, else a date/timestamp or text."""
    kinds = ['num'] * 6 + ['time'] * 2 * bool(t.of(lambda c: c.ty in TIMES)) + \
        ['text'] * 2 * bool(t.of(lambda c: c.ty in TEXTS))
    k = rng.choice(kinds)
    if k == 'time':
        return gen_time(rng, t, depth)
    if k == 'text':
        return gen_text(rng, t, depth)
    return gen_num(rng, t, depth)

def flag_of(e, agg=None):
    """How a result column holding e (or agg(e)) compares: True as floats, 'dec' as
    numeric values (numerics of per-row scales: min, max and group keys may keep
    either of 1.5 and 1.50), False exactly as text."""
    if agg == 'count':
        return False
    if e.ty in FLOATS:
        return True
    if agg == 'avg':
        return False
    if e.ty == 'numeric' and e.scale is None and agg in ('min', 'max', 'key'):
        return 'dec'
    return False

def sum_exact(e, t):
    """Whether a float e sums (and averages) exactly in any order over t's rows."""
    if e.ty not in FLOATS:
        return True
    return e.den is not None and math.isfinite(e.bound) and \
        e.bound * 2**e.den * max(t.nrows, 1) <= 2**MANT[e.ty] / 2

def gen_expr_agg(rng, t, e=None):
    """(an aggregate over an expression of t, its compare flag)."""
    noted(rng)
    if e is None:
        r = rng.random()
        e = gen_num(rng, t, rng.randint(1, 3)) if r < 0.7 else gen_time(rng, t, rng.randint(1, 2)) \
            if r < 0.85 else gen_text(rng, t, rng.randint(1, 2))
    fns = ['min', 'max', 'count']
    if e.ty in NUMS or e.ty == 'numeric':
        fns += ['sum', 'sum', 'sum', 'avg', 'avg'] if sum_exact(e, t) else []
    fn = rng.choice(fns)
    if rng.random() < 0.06:
        return 'count(DISTINCT %s)' % e.sql, False
    filt = ' FILTER (WHERE %s)' % gen_cond(rng, t, 0) if rng.random() < 0.04 else ''
    return '%s(%s)%s' % (fn, e.sql, filt), flag_of(e, fn)

# ------------------------------------------------------------- queries --
class Query:
    def __init__(self, kind, sql, floats, ordered, sql_off=None):
        self.kind, self.sql, self.floats, self.ordered = kind, sql, floats, ordered
        self.sql_off = sql_off or sql
        self.pg_set, self.gpu_off = [], []      # planner toggles (both sides), enable_gpu* off
        self.idx, self.expect_diff = None, None
        self.has_expr = False
        # the SQLSTATE both sides raise without the LIMIT, where only one side
        # raised it with the LIMIT (rows past it are evaluated or not by the plan)
        self.limit_excused = None
        self.risky = False          # drawn with overflow and division by zero
        self.join = False           # a join query (gen_join)

def is_float(c):
    return c.ty in FLOATS

def where(rng, t, p):
    return ' WHERE ' + gen_filter(rng, t, rng.randint(0, 3)) if rng.random() < p else ''

def select_cols(rng, t, supported_only=True):
    cs = t.of(lambda c: c.ty in SUPPORTED or not supported_only)
    return rng.sample(cs, rng.randint(1, min(5, len(cs))))

FRACTIONS = ['0', '0.1', '0.25', '0.5', '0.5', '0.75', '0.9', '1', '0.333']

def histogram_agg(rng, c):
    """(count(DISTINCT c), a percentile or mode() of c, is float-valued)."""
    fns = ['count_distinct', 'mode', 'disc']
    if c.ty in NUMS:
        fns += ['cont', 'cont']
    fn = rng.choice(fns)
    if fn == 'count_distinct':
        return 'count(DISTINCT %s)' % c.name, False
    if fn == 'mode':
        return 'mode() WITHIN GROUP (ORDER BY %s)' % c.name, is_float(c)
    f = rng.choice(FRACTIONS)
    if fn == 'cont':
        return 'percentile_cont(%s) WITHIN GROUP (ORDER BY %s)' % (f, c.name), True
    # -0 and 0 tie: either may be returned, compared as floats
    return 'percentile_disc(%s) WITHIN GROUP (ORDER BY %s)' % (f, c.name), is_float(c)

def agg_expr(rng, t):
    """(aggregate call, is float-valued)."""
    if rng.random() < 0.2:
        return 'count(*)', False
    c = rng.choice(t.of(lambda x: x.ty in SUPPORTED))
    if rng.random() < 0.15:
        return histogram_agg(rng, c)
    fns = ['count']
    if c.ty != 'bool':
        fns += ['min', 'max']
    if (c.ty in NUMS or c.ty in FIXED) and c.sum_safe:
        fns += ['sum', 'avg', 'sum', 'avg', VARIANCE, VARIANCE]
    fn = rng.choice(fns)
    if fn is VARIANCE:
        # integer arguments give exact numerics: compared as text
        fn = rng.choice(VARIANCE)
        return '%s(%s)' % (fn, c.name), is_float(c)
    return '%s(%s)' % (fn, c.name), fn == 'avg' or (fn != 'count' and is_float(c))

def gen_scan(rng, t):
    cols = t.cols if rng.random() < 0.1 else select_cols(rng, t, rng.random() < 0.9)
    sel = '*' if cols is t.cols else ', '.join(c.name for c in cols)
    return Query('scan', 'SELECT %s FROM %s%s' % (sel, t.name, where(rng, t, 0.95)),
                 [is_float(c) for c in cols], False)

def gen_agg(rng, t):
    nk = rng.choice([0, 0, 1, 1, 1, 2, 2, 3, rng.randint(4, 8)])
    keyable = t.of(lambda c: c.ty in SUPPORTED and (c.name != 'id' or rng.random() < 0.1))
    keys = rng.sample(keyable, min(nk, len(keyable)))
    aggs = [agg_expr(rng, t) for _ in range(rng.randint(1, 4))]
    sel = [k.name for k in keys] + [a for a, _ in aggs]
    floats = [is_float(k) for k in keys] + [f for _, f in aggs]
    sql = 'SELECT %s FROM %s%s' % (', '.join(sel), t.name, where(rng, t, 0.5))
    if keys:
        sql += ' GROUP BY ' + ', '.join(k.name for k in rng.sample(keys, len(keys)))
    if rng.random() < 0.2:
        ic = pick_col(rng, t, lambda x: x.ty in INTS)
        c = pick_col(rng, t, lambda x: x.ty in SUPPORTED and x.ty != 'bool')
        sql += ' HAVING ' + rng.choice(['count(*) > %d' % rng.randint(0, 3),
                                         'count(DISTINCT %s) > %d' % (c.name, rng.randint(0, 3)),
                                         'sum(%s) > %d' % (ic.name, rng.randint(-50, 50)),
                                         'min(%s) IS NOT NULL' % c.name,
                                         'max(%s) <> %s' % (c.name, const(rng, c))])
    ordered = bool(keys) and rng.random() < 0.15
    if ordered:
        sql += ' ORDER BY ' + ', '.join('%s %s' % (k.name, rng.choice(['ASC', 'DESC']))
                                        for k in keys)
        if rng.random() < 0.5:
            sql += ' LIMIT %d' % rng.choice([1, 3, 10, 100])
    return Query('agg', sql, floats, ordered)

def gen_agg_ordered(rng, t):
    """GROUP BY keys ORDER BY an aggregate (or a key) first, then every key, [LIMIT
    [OFFSET]]: the shape a GpuAgg orders and cuts on the device (B4).  Ending the
    ORDER BY with all the group keys makes the order total."""
    keyable = t.of(lambda c: c.ty in SUPPORTED and (c.name != 'id' or rng.random() < 0.1)
                   and (c.ty not in TEXTS or rng.random() < 0.2))
    if not keyable:
        return gen_agg(rng, t)
    keys = rng.sample(keyable, min(rng.randint(1, 3), len(keyable)))
    aggs = [agg_expr(rng, t) for _ in range(rng.randint(0, 2))]
    # the ordering aggregate: one the device can order most of the time
    c = rng.choice(t.of(lambda x: x.ty in SUPPORTED))
    fns = ['count(*)', 'count(%s)' % c.name]
    if c.ty != 'bool':
        fns += ['min(%s)' % c.name, 'max(%s)' % c.name] * 2
    if c.ty in NUMS and c.sum_safe:
        fns += ['sum(%s)' % c.name] * 3 + ['avg(%s)' % c.name]
    oagg = rng.choice(fns)
    ofloat = oagg.startswith('avg') or (not oagg.startswith('count') and is_float(c))
    sel = [k.name for k in keys] + [a for a, _ in aggs]
    floats = [is_float(k) for k in keys] + [f for _, f in aggs]
    first = None
    if rng.random() < 0.75:
        if rng.random() < 0.8:          # in the select list, named by position or call
            sel.append(oagg)
            floats.append(ofloat)
            first = str(len(sel)) if rng.random() < 0.5 else oagg
        else:                           # only in ORDER BY
            first = oagg
    items = [order_item(rng, first)] if first else []
    ks = rng.sample(keys, len(keys))
    items += [order_item(rng, k.name) for k in ks]
    sql = 'SELECT %s FROM %s%s GROUP BY %s' % (', '.join(sel), t.name, where(rng, t, 0.4),
                                               ', '.join(k.name for k in keys))
    if rng.random() < 0.15:
        sql += ' HAVING count(*) > %d' % rng.randint(0, 2)
    sql += ' ORDER BY ' + ', '.join(items)
    r = rng.random()
    if r < 0.75:
        sql += ' LIMIT %d' % rng.choice([1, 2, 3, 5, 10, 100])
        if rng.random() < 0.15:
            sql += ' OFFSET %d' % rng.randint(1, 5)
    return Query('agg', sql, floats, True)

def order_item(rng, name):
    return name + rng.choice(['', ' ASC', ' DESC']) + rng.choice(['', '', ' NULLS FIRST',
                                                                   ' NULLS LAST'])

def limit(rng, t):
    if rng.random() < 0.3:
        return ''
    s = ' LIMIT %d' % rng.choice([0, 1, 5, 10, 50, 100, t.nrows + 10])
    return s + (' OFFSET %d' % rng.randint(1, 20) if rng.random() < 0.15 else '')

def gen_sort(rng, t):
    cols = select_cols(rng, t)
    # text keys only in the C collation (others keep PostgreSQL's sort)
    sortable = t.of(lambda c: c.ty in SUPPORTED and (c.ty not in TEXTS or c.collate_c)
                    and c.name != 'id')
    keys = rng.sample(sortable, rng.randint(1, min(3, len(sortable))))
    order = ', '.join(order_item(rng, k.name) for k in keys) + ', ' + order_item(rng, 'id')
    sql = 'SELECT %s FROM %s%s ORDER BY %s%s' % (', '.join(c.name for c in cols), t.name,
                                                 where(rng, t, 0.6), order, limit(rng, t))
    return Query('sort', sql, [is_float(c) for c in cols], True)

def keyable(rng, t, e):
    """e, or a column when e holds none (a constant key reads as a position)."""
    return e if COLREF.search(e.sql) else col_e(pick_col(rng, t, lambda c: c.ty in SUPPORTED))

def gen_xscan(rng, t):
    """SELECT id, expressions FROM t WHERE ... [ORDER BY expressions, id [LIMIT]]."""
    items = []
    for _ in range(rng.randint(1, 4)):
        if rng.random() < 0.15:
            c = pick_col(rng, t)
            items.append((c.name, is_float(c)))
        else:
            e = gen_value(rng, t, rng.randint(1, 3))
            items.append((e.sql, flag_of(e)))
    # named x1, x2 ...: a cast of id is named id too, and ORDER BY id would be ambiguous
    sql = 'SELECT id, %s FROM %s%s' % (', '.join('%s AS x%d' % (x, k + 1) for k, (x, _) in
                                                 enumerate(items)), t.name, where(rng, t, 0.8))
    floats = [False] + [f for _, f in items]
    if rng.random() < 0.45:         # ORDER BY expressions (by position or written), then id
        keys = []
        for _ in range(rng.randint(1, 2)):
            keys.append(str(rng.randint(2, len(items) + 1)) if rng.random() < 0.4 else
                        keyable(rng, t, gen_value(rng, t, rng.randint(1, 2))).sql)
        sql += ' ORDER BY %s, id%s' % (', '.join(order_item(rng, k) for k in keys), limit(rng, t))
        return Query('xsort', sql, floats, True)
    return Query('xscan', sql, floats, False)

def gen_xagg(rng, t):
    """Grouped (by expressions) and ungrouped aggregates of expressions, HAVING,
    ORDER BY the keys [LIMIT]."""
    keys = []
    for _ in range(rng.choice([0, 1, 1, 1, 2, 2, 3])):
        if rng.random() < 0.25:
            c = pick_col(rng, t, lambda x: x.ty in SUPPORTED)
            keys.append((c.name, is_float(c)))
        else:
            noted(rng)
            e = keyable(rng, t, gen_value(rng, t, rng.randint(1, 2)))
            keys.append((e.sql, flag_of(e, 'key')))
    aggs = [gen_expr_agg(rng, t) if rng.random() < 0.8 else agg_expr(rng, t)
            for _ in range(rng.randint(1, 4))]
    sel = [k for k, _ in keys] + [a for a, _ in aggs]
    floats = [f for _, f in keys] + [f for _, f in aggs]
    sql = 'SELECT %s FROM %s%s' % (', '.join(sel), t.name, where(rng, t, 0.6))
    if keys:
        sql += ' GROUP BY ' + (', '.join(str(i + 1) for i in range(len(keys)))
                               if rng.random() < 0.5 else ', '.join(k for k, _ in keys))
    if rng.random() < 0.25:
        r = rng.random()
        if r < 0.3:
            h = 'count(*) > %d' % rng.randint(0, 3)
        else:
            e = gen_num(rng, t, rng.randint(1, 2))
            b = num_const_like(rng, e)
            fn = rng.choice(['min', 'max'] + (['sum', 'avg'] if sum_exact(e, t) else []))
            h = '%s(%s) %s %s' % (fn, e.sql, rng.choice(CMP), b.sql) if cmp_ok(rng, e, b) or \
                fn in ('sum', 'avg') else '%s(%s) IS NOT NULL' % (fn, e.sql)
        sql += ' HAVING ' + h
    ordered = bool(keys) and rng.random() < 0.35
    if ordered:
        items = [str(i + 1) for i in range(len(keys))]
        rng.shuffle(items)
        if rng.random() < 0.3:
            items.insert(0, str(len(keys) + rng.randint(1, len(aggs))))
        sql += ' ORDER BY ' + ', '.join(order_item(rng, k) for k in items)
        if rng.random() < 0.5:
            sql += ' LIMIT %d' % rng.choice([1, 3, 10, 100])
    return Query('xagg', sql, floats, ordered)

Q1_AGGS = [('sum(l_quantity)', False), ('sum(l_extendedprice)', False),
           ('sum(l_extendedprice * (1 - l_discount))', False),
           ('sum(l_extendedprice * (1 - l_discount) * (1 + l_tax))', False),
           ('avg(l_quantity)', False), ('avg(l_extendedprice)', False),
           ('avg(l_discount)', False), ('count(*)', False)]

def gen_tpch(rng, li):
    """TPC-H Q1 (sum(a*(1-b)*(1+c)) grouped by two char(1) columns, shipdate <= date -
    interval) or Q6 (sum(a*b), a date range, BETWEEN on numeric) over rq.li, with
    their constants drawn; now and then an aggregate over a drawn expression."""
    noted(rng)
    if rng.random() < 0.55:
        aggs = [a for a in Q1_AGGS if rng.random() < 0.7] or Q1_AGGS[3:4]
        if rng.random() < 0.3:
            aggs.append(gen_expr_agg(rng, li))
        keys = ['l_returnflag', 'l_linestatus']
        if rng.random() < 0.2:
            keys = rng.sample(['l_returnflag', 'l_linestatus', 'l_shipmode'], rng.randint(1, 3))
        day = rng.choice(["DATE '1998-12-01'", "DATE '1995-06-17'", "DATE '1993-01-01'"])
        w = '%s <= %s - INTERVAL \'%d\' DAY' % (rng.choice(['l_shipdate', 'l_shipdate',
                                                           'l_receipt']), day,
                                               rng.choice([60, 90, 120, 0]))
        if rng.random() < 0.2:
            w += ' AND ' + gen_filter(rng, li, 1)
        sql = 'SELECT %s, %s FROM rq.li WHERE %s GROUP BY %s ORDER BY %s' % (
            ', '.join(keys), ', '.join(a for a, _ in aggs), w, ', '.join(keys), ', '.join(keys))
        return Query('q1', sql, [False] * len(keys) + [f for _, f in aggs], True)
    year = rng.randint(1992, 1998)
    disc = rng.choice(['0.02', '0.05', '0.06', '0.09'])
    aggs = ['sum(l_extendedprice * l_discount)']
    if rng.random() < 0.3:
        aggs += ['count(*)', 'avg(l_extendedprice * l_discount)'][:rng.randint(1, 2)]
    w = ["l_shipdate >= DATE '%d-01-01'" % year,
         "l_shipdate < DATE '%d-01-01' + INTERVAL '1' YEAR" % year,
         'l_discount BETWEEN %s - 0.01 AND %s + 0.01' % (disc, disc),
         'l_quantity < %d' % rng.choice([24, 25, 10, 50])]
    if rng.random() < 0.3:
        rng.shuffle(w)
    sql = 'SELECT %s FROM rq.li WHERE %s' % (', '.join(aggs), ' AND '.join(w))
    return Query('q6', sql, [False] * len(aggs), False)

def gen_unsup(rng, t):
    """Constructs the device does not do: the fallback must give PostgreSQL's answer."""
    k = pick_col(rng, t, lambda c: c.ty in SUPPORTED)
    num = pick_col(rng, t, lambda c: c.ty in NUMS)
    i = pick_col(rng, t, lambda c: c.ty in INTS)
    txt = pick_col(rng, t, lambda c: c.ty in TEXTS)
    other = pick_col(rng, t, lambda c: c.ty in ('numeric', 'interval'))
    w = where(rng, t, 0.4)
    forms = [
        ('SELECT %s, percentile_cont(ARRAY[0.25, 0.5]) WITHIN GROUP (ORDER BY %s) FROM %s%s GROUP BY 1'
         % (k.name, num.name, t.name, w), [is_float(k), False], False),
        ('SELECT %s, percentile_disc(0.5) WITHIN GROUP (ORDER BY %s DESC) FROM %s%s GROUP BY 1'
         % (k.name, num.name, t.name, w), [is_float(k), is_float(num)], False),
        ('SELECT %s, count(DISTINCT %s * 2) FROM %s%s GROUP BY 1' % (k.name, num.name, t.name, w),
         [is_float(k), False], False),
        ('SELECT %s %% 3 AS g, count(*), sum(%s) FROM %s%s GROUP BY 1' % (i.name, i.name, t.name, w),
         [False, False, False], False),
        ('SELECT %s * 2 AS g, count(*) FROM %s%s GROUP BY 1' % (num.name, t.name, w),
         [num.ty in FLOATS, False], False),
        ('SELECT id, %s FROM %s%s ORDER BY %s, id%s' % (txt.name, t.name, w,
                                                        order_item(rng, txt.name), limit(rng, t)),
         [False, False], True),
        ('SELECT id, CASE WHEN %s THEN 1 ELSE 0 END FROM %s%s' % (atom(rng, t), t.name, w),
         [False, False], False),
        ('SELECT %s, count(*) FILTER (WHERE %s), sum(%s + 1) FROM %s GROUP BY 1'
         % (k.name, atom(rng, t), i.name, t.name), [is_float(k), False, False], False),
        ('SELECT DISTINCT %s FROM %s%s' % (k.name, t.name, w), [is_float(k)], False),
        ('SELECT id, %s FROM %s%s ORDER BY %s %% 5, id%s' % (i.name, t.name, w, i.name, limit(rng, t)),
         [False, False], True),
        ('SELECT %s, %s, count(*) FROM %s%s GROUP BY ROLLUP (%s, %s)'
         % (k.name, i.name, t.name, w, k.name, i.name), [is_float(k), False, False], False),
    ]
    bc = pick_col(rng, t, lambda c: c.ty == 'bool')
    if bc:
        forms.append(('SELECT %s, bool_and(%s), every(%s) FROM %s%s GROUP BY 1'
                      % (k.name, bc.name, bc.name, t.name, w), [is_float(k), False, False], False))
    if other:
        fn = rng.choice(['sum', 'avg', 'min', 'max'])
        forms += [('SELECT %s, %s(%s) FROM %s GROUP BY 1' % (k.name, fn, other.name, t.name),
                   [is_float(k), fn == 'avg' and other.ty == 'numeric'], False),
                  ('SELECT id, %s FROM %s WHERE %s %s %s' % (other.name, t.name, other.name,
                                                            rng.choice(CMP), const(rng, other)),
                   [False, False], False)]
    sql, floats, ordered = rng.choice(forms)
    return Query('unsup', sql, floats, ordered)

def gen_query(seed, i, tables, jtables=None, join_share=0.0):
    # whether query i joins: an RNG of its own, so that the others stay as they were
    if jtables and random.Random('%d:%d:j' % (seed, i)).random() < join_share:
        return gen_join(seed, i, jtables)
    rng = QRng('%d:%d' % (seed, i))
    t = rng.table = rng.choice(tables)
    r = rng.random()
    rng.risk = rng.random() < 0.12
    rng.flavor = rng.choice(['numeric', 'numeric', 'int', 'float', 'mix'])
    # expression queries (~55%) draw most filter atoms as expressions, the others some
    rng.xp = 0.5 if r >= 0.45 else 0.12
    if r >= 0.92:
        rng.table = tables[-1]
        q = gen_tpch(rng, tables[-1])
    else:
        q = (gen_scan if r < 0.14 else gen_agg if r < 0.25 else gen_agg_ordered if r < 0.32 else
             gen_sort if r < 0.41 else gen_unsup if r < 0.45 else gen_xscan if r < 0.66 else
             gen_xagg)(rng, t)
    q.has_expr, q.risky = rng.exprs > 0, rng.risk
    if rng.random() < 0.15:
        q.pg_set = [(rng.choice(PG_TOGGLES), 'off')]
    if rng.random() < 0.15:
        q.gpu_off = [rng.choice(ENABLE_GUCS)]
    q.idx = i
    return q

# ------------------------------------------------------- join queries --
# 2-4 tables in a star (a fact table and dimensions) or a chain (each table
# joined to the one before; two can be nested, as in a LEFT JOIN (b JOIN c)),
# inner, left, right and full joins (sometimes inner joins written with a
# comma and the key in WHERE), semi joins (EXISTS, IN (subquery), two-column
# IN) and anti joins (NOT EXISTS, NOT IN, LEFT JOIN ... WHERE key IS NULL),
# some of them ORed with a filter so that PostgreSQL keeps them as SubPlans;
# IN subqueries with GROUP BY ... HAVING, DISTINCT or ORDER BY ... id LIMIT;
# dimensions as aggregating or DISTINCT derived tables.  Keys: one or two
# columns, sometimes an expression on either side (x + 1, lower(t), d + 5,
# round(n, 1) ...), sometimes more quals in ON (column against column, or
# over one side only, which an outer join must not push down).
JKEY_EXPR = {'i': ['(%s + 1)', '(%s - 1)', '(%s %% 7)', 'abs(%s)', '(%s * 2)', '(%s)::int8',
                   '(%s)::numeric'],
             't': ['lower(%s)', 'upper(%s)', 'btrim(%s)', 'substr(%s, 1, 1)', "(%s || '')",
                   'left(%s, 2)', 'rtrim(%s)'],
             'd': ['(%s + 1)', '(%s - 5)', "(%s + INTERVAL '5 days')::date",
                   "date_trunc('month', %s)::date"],
             'n': ['(%s + 0.25)', '(%s * 2)', 'round(%s, 1)', 'trunc(%s)', 'abs(%s)', '(%s - 1)']}
JOIN_KINDS = ['INNER'] * 8 + ['LEFT'] * 5 + ['RIGHT'] * 2 + ['FULL'] * 2 + ['SEMI'] * 3 + \
    ['ANTI'] * 3
JOIN_TOGGLES = ['enable_hashjoin', 'enable_hashjoin', 'enable_mergejoin', 'enable_nestloop',
                'enable_material', 'enable_memoize', 'enable_hashagg', 'enable_sort',
                'enable_seqscan', 'enable_indexscan']
# nested loops that rescan their inner side (a GpuScan there runs once per outer row)
NESTLOOP_SET = [('enable_hashjoin', 'off'), ('enable_mergejoin', 'off'),
                ('enable_material', 'off'), ('enable_memoize', 'off'), ('jit', 'off')]
PARALLEL_SET = [('parallel_setup_cost', '0'), ('parallel_tuple_cost', '0'),
                ('min_parallel_table_scan_size', '0'), ('min_parallel_index_scan_size', '0')]
JOIN_SEL_MAX = 3000         # plain selections estimated larger get a LIMIT

class JRel:
    """A FROM item (or the table of a semi/anti join subquery): alias and Table."""
    def __init__(self, alias, t, sql=None):
        self.alias, self.t = alias, t
        self.sql = sql or '%s %s' % (t.name, alias)
        self.derived = sql is not None

    def ref(self, c):
        return '%s.%s' % (self.alias, c.name)

    def q(self, s):
        """s, an expression over the table's columns, with them qualified."""
        names = sorted(set(c.name for c in self.t.cols), key=len, reverse=True)
        return re.sub(r'(?<![.\w])(%s)\b' % '|'.join(names), self.alias + r'.\1', s)

def jdoms(t):
    return set(c.dom for c in t.keys)

def jfilter(rng, rel, depth=None):
    """A random filter over rel's table, qualified: gen_filter's half the time, else
    one or two of jatom's, which keep more rows (many joins stay non-empty)."""
    rng.table = rel.t
    if rng.random() < 0.5:
        return rel.q(gen_filter(rng, rel.t, rng.choice([0, 0, 1, 2]) if depth is None else depth))
    f = jatom(rng, rel.t)
    if depth != 0 and rng.random() < 0.3:
        f = '(%s %s %s)' % (f, rng.choice(['AND', 'OR', 'OR']), jatom(rng, rel.t))
    return rel.q(f)

def jatom(rng, t):
    """A comparison with the column's own values (ranges, IN lists, IS NOT NULL)."""
    c = pick_col(rng, t, lambda x: x.values)
    if c is None:
        return atom(rng, t)
    r = rng.random()
    if r < 0.35:
        return '%s %s %s' % (c.name, rng.choice(['<>', '>=', '<=', '>', '<'] if c.ty != 'bool'
                                                else ['<>', '=']), const(rng, c))
    if r < 0.55:
        return '%s %sIN (%s)' % (c.name, 'NOT ' if rng.random() < 0.2 else '',
                                 ', '.join(const(rng, c) for _ in range(rng.randint(2, 6))))
    if r < 0.7:
        return '%s IS %sNULL' % (c.name, '' if rng.random() < 0.2 else 'NOT ')
    if r < 0.85 and c.ty != 'bool':
        return '%s BETWEEN SYMMETRIC %s AND %s' % (c.name, const(rng, c), const(rng, c))
    return atom(rng, t)

def jpairs(rng, X, Y):
    """Key column pairs [(column of X, column of Y)] of an equi-join: Y's primary key
    (a foreign-key join) most of the time when X has its domains, else one or two
    shared domains."""
    shared = sorted(jdoms(X.t) & jdoms(Y.t))
    if Y.t.pk and all(c.dom in shared for c in Y.t.pk) and rng.random() < 0.7:
        return [(rng.choice([x for x in X.t.keys if x.dom == c.dom]), c) for c in Y.t.pk]
    if X.t.pk and all(c.dom in shared for c in X.t.pk) and rng.random() < 0.5:
        return [(c, rng.choice([y for y in Y.t.keys if y.dom == c.dom])) for c in X.t.pk]
    doms = rng.sample(shared, 2 if len(shared) >= 2 and rng.random() < 0.3 else 1)
    return [(rng.choice([x for x in X.t.keys if x.dom == d]),
             rng.choice([y for y in Y.t.keys if y.dom == d])) for d in doms]

def jkey(rng, rel, c, p=0.1):
    """rel's key column c, or (probability p) an expression over it."""
    s = rel.ref(c)
    return rng.choice(JKEY_EXPR[c.dom]) % s if rng.random() < p else s

def jconds(rng, X, Y, pairs):
    """The equalities of the key pairs (an expression on one side now and then)."""
    out = []
    for xc, yc in pairs:
        xs, ys = (jkey(rng, X, xc, 0.12), Y.ref(yc)) if rng.random() < 0.6 else \
            (X.ref(xc), jkey(rng, Y, yc, 0.12))
        out.append('%s = %s' % ((xs, ys) if rng.random() < 0.8 else (ys, xs)))
    return out

def jfam(c):
    return 'num' if c.ty in NUMS + FIXED or c.ty == 'numeric' else 'time' \
        if c.ty in TIMES else 'text' if c.ty in TEXTS else c.ty

def cross_qual(rng, X, Y):
    """A qual over a column of X and one of Y (same family), or None."""
    xs, ys = X.t.cols[1:], Y.t.cols[1:]
    fams = sorted(set(jfam(c) for c in xs) & set(jfam(c) for c in ys))
    if not fams:
        return None
    f = rng.choice(fams)
    a = X.ref(rng.choice([c for c in xs if jfam(c) == f]))
    bc = rng.choice([c for c in ys if jfam(c) == f])
    b = Y.ref(bc)
    ops = ['=', '<>'] if f in ('bool', 'text') else CMP
    r = rng.random()
    if r < 0.55:
        return '%s %s %s' % (a, rng.choice(ops), b)
    if r < 0.7:
        return '%s IS %sDISTINCT FROM %s' % (a, rng.choice(['', 'NOT ']), b)
    if r < 0.85 or bc.ty != 'date':
        return '(%s %s %s OR %s IS NULL)' % (a, rng.choice(ops), b, rng.choice([a, b]))
    return '%s BETWEEN %s - 30 AND %s + 30' % (a, b, b)

def jmult(rel, c):
    """The most rows of rel one value of key c matches (estimate)."""
    if rel.derived:
        return 1
    return rel.t.maxmult.get(c.name, rel.t.nrows) or 1

def derived_rel(rng, alias, t, keys):
    """A derived table over t grouped by (or DISTINCT on) the key columns keys: a
    unique key, and GpuAgg under the join."""
    inner = JRel(alias + 'x', t)
    w = ' WHERE ' + jfilter(rng, inner) if rng.random() < 0.5 else ''
    dt = Table('(derived)', t.nrows)
    dt.keys, dt.pk, dt.maxmult = list(keys), list(keys), {}
    dt.cols = [Col('id', 'int8', 'wide', 0.0)] + list(keys)
    ks = ', '.join(inner.ref(c) for c in keys)
    if rng.random() < 0.3:
        sql = '(SELECT DISTINCT %s FROM %s%s) %s' % (ks, inner.sql, w, alias)
    else:
        sums = t.of(lambda c: c.ty in INTS + FIXED)
        sel = [ks, 'count(*) AS cnt']
        dt.cols.append(Col('cnt', 'int8', 'wide', 0.0))
        if sums:
            m = rng.choice(sums)
            sel.append('sum(%s) AS sm' % inner.ref(m))
            dt.cols.append(Col('sm', 'int8' if m.ty in ('int2', 'int4') else 'numeric',
                               'wide', 0.0))
        sql = '(SELECT %s FROM %s%s GROUP BY %s) %s' % (', '.join(sel), inner.sql, w, ks, alias)
    dt.cols = dt.cols[1:]       # no id: a derived table is never ordered by it
    return JRel(alias, dt, sql)

def semi_part(rng, X, Y, anti):
    """EXISTS / IN (subquery) (anti: NOT EXISTS / NOT IN) from X to Y's table."""
    pairs = jpairs(rng, X, Y)
    fl = jfilter(rng, Y) if rng.random() < 0.5 else None
    neg = 'NOT ' if anti else ''
    if rng.random() < 0.5:
        conds = jconds(rng, X, Y, pairs)
        cq = cross_qual(rng, X, Y) if rng.random() < 0.2 else None
        conds += [x for x in (cq, fl) if x]
        s = '%sEXISTS (SELECT 1 FROM %s WHERE %s)' % (neg, Y.sql, ' AND '.join(conds))
    else:
        lhs, rhs = [], []
        for xc, yc in pairs:
            lhs.append(jkey(rng, X, xc, 0.1))
            rhs.append(jkey(rng, Y, yc, 0.1))
        where = [fl] if fl else []
        if anti and rng.random() < 0.4:     # else a NULL in the subquery empties NOT IN
            where += ['%s IS NOT NULL' % x for x in rhs]
        sel, tail, r = ', '.join(rhs), '', rng.random()
        if r < 0.12:
            tail = ' GROUP BY %s HAVING count(*) %s %d' % (sel, rng.choice(['>', '>=', '<']),
                                                          rng.randint(1, 3))
        elif r < 0.24:
            c = rng.choice(Y.t.cols[1:])
            tail = ' ORDER BY %s, %s LIMIT %d' % (order_item(rng, Y.ref(c)),
                                                 order_item(rng, Y.ref(Y.t.cols[0])),
                                                 rng.choice([1, 3, 10]))
        elif r < 0.32:
            sel = 'DISTINCT ' + sel
        s = '%s %sIN (SELECT %s FROM %s%s%s)' % (
            lhs[0] if len(lhs) == 1 else '(%s)' % ', '.join(lhs), neg, sel, Y.sql,
            ' WHERE ' + ' AND '.join(where) if where else '', tail)
    if rng.random() < 0.15:        # not pulled up: a SubPlan run per row (or hashed)
        s = '(%s OR %s)' % (jfilter(rng, X, 0), s)
    return s

def gen_join(seed, i, jt):
    """A random join query over the join tables jt."""
    rng = QRng('%d:%d:join' % (seed, i))
    rng.nofail, rng.risk = True, False
    rng.xp = rng.choice([0.12, 0.12, 0.4])
    rng.flavor = rng.choice(['numeric', 'int', 'float', 'mix'])
    facts = [t for t in jt if t.role == 'fact']
    shape = 'star' if rng.random() < 0.55 else 'chain'
    n = rng.choice([2, 2, 3, 3, 3, 4])
    rels, edges, where, comma = [], [], [], []
    if shape == 'star':
        root = facts[0] if rng.random() < 0.75 else facts[1]
        rels.append(JRel('f', root))
        others = [t for t in jt if t is not root and jdoms(t) & jdoms(root)]
        seq = [(rels[0], t) for t in rng.sample(others, min(n - 1, len(others)))]
    else:
        cur = rng.choice(jt)
        rels.append(JRel('a', cur))
        seq = []
        for k in range(n - 1):
            nxt = rng.choice([t for t in jt if jdoms(t) & jdoms(cur) and
                              (t.role == 'dim' or t not in [s[1] for s in seq] + [rels[0].t])])
            seq.append((None, nxt))
            cur = nxt
    bound, nsemi = rels[0].t.nrows, 0
    for k, (X, t) in enumerate(seq):
        X = X or rels[-1]
        last = k == len(seq) - 1
        kind = rng.choice(JOIN_KINDS)
        if kind in ('SEMI', 'ANTI') and (shape == 'star' or last):
            nsemi += 1
            where.append(semi_part(rng, X, JRel('s%d' % nsemi, t), kind == 'ANTI'))
            continue
        if kind in ('SEMI', 'ANTI'):
            kind = 'INNER'
        alias = 'abce'[len(rels)] if shape == 'chain' else 'd%d' % len(rels)
        Y = JRel(alias, t)
        pairs = jpairs(rng, X, Y)
        if shape == 'star' and rng.random() < 0.12:
            Y = derived_rel(rng, alias, t, [yc for _, yc in pairs])
        conds = jconds(rng, X, Y, pairs)
        if rng.random() < 0.15 and not Y.derived:
            cq = cross_qual(rng, X, Y)
            conds += [cq] if cq else []
        if kind != 'INNER' and rng.random() < 0.2:     # a qual over one side only, in ON
            side = X if rng.random() < 0.5 else Y
            if not side.derived:
                conds.append(jfilter(rng, side, rng.randint(0, 1)))
        m = min(jmult(Y, yc) for _, yc in pairs)
        bound = bound * m + (Y.t.nrows if kind in ('RIGHT', 'FULL') else 0)
        if kind == 'INNER' and shape == 'star' and rng.random() < 0.15:
            comma.append(Y.sql)
            where += conds
        else:
            edges.append([kind, Y, conds])
            if kind == 'LEFT' and rng.random() < 0.15:      # an anti join, written so
                where.append('%s IS NULL' % Y.ref(pairs[0][1]))
        rels.append(Y)
    # the FROM clause: left-deep, or the first two joins of a chain nested
    frm = rels[0].sql
    jw = {'INNER': ['JOIN', 'INNER JOIN'], 'LEFT': ['LEFT JOIN', 'LEFT OUTER JOIN'],
          'RIGHT': ['RIGHT JOIN'], 'FULL': ['FULL JOIN', 'FULL OUTER JOIN']}
    if shape == 'chain' and len(edges) >= 2 and rng.random() < 0.25:
        (k1, y1, c1), (k2, y2, c2) = edges[:2]
        frm += ' %s (%s %s %s ON %s) ON %s' % (rng.choice(jw[k1]), y1.sql, rng.choice(jw[k2]),
                                               y2.sql, ' AND '.join(c2), ' AND '.join(c1))
        edges = edges[2:]
    for kind, Y, conds in edges:
        frm += ' %s %s ON %s' % (rng.choice(jw[kind]), Y.sql, ' AND '.join(conds))
    frm += ''.join(', ' + x for x in comma)
    # filters on each side, now and then one over two tables
    for rel in rels:
        if not rel.derived and rng.random() < 0.3:
            where.append(jfilter(rng, rel))
    plain = [r for r in rels if not r.derived]
    if len(plain) >= 2 and rng.random() < 0.12:
        a, b = rng.sample(plain, 2)
        where.append('(%s OR %s)' % (jfilter(rng, a, 0), jfilter(rng, b, 0)))
    wsql = ' WHERE ' + ' AND '.join(where) if where else ''
    cols = [(r, c) for r in rels for c in (r.t.cols if r.derived else r.t.cols[1:])]
    rng.jbound = bound
    if rng.random() < 0.55:
        q = jagg_query(rng, rels, cols, frm, wsql)
        kind = 'agg'
    else:
        q = jsel_query(rng, rels, cols, frm, wsql, bound)
        kind = 'sel'
    q.kind = 'j%s-%s' % (shape, kind)
    q.join, q.risky = True, False
    q.has_expr = rng.exprs > 0
    r = rng.random()
    if r < 0.06:
        q.pg_set = list(NESTLOOP_SET)
    elif r < 0.3:
        # the disabled paths' cost would have every such plan JIT-compiled (~0.2 s)
        q.pg_set = [(x, 'off') for x in sorted(set(rng.sample(JOIN_TOGGLES, rng.randint(1, 2))))]
        q.pg_set.append(('jit', 'off'))
    elif rng.random() < 0.04:     # parallel plans (workers cost ~0.1 s a query)
        q.pg_set = list(PARALLEL_SET)
    if rng.random() < 0.1:        # the heap, not gpudb's cache of the tables
        q.pg_set.append(('gpudb.use_cache', 'off'))
    if rng.random() < 0.1:        # the least: several batches where --rows > 3072
        q.pg_set.append(('gpudb.batch_rows', '1024'))
    if rng.random() < 0.05:       # gpudb's parallel heap readers, whatever the size
        q.pg_set += [('gpudb.min_parallel_table_size', '0'), ('gpudb.parallel_workers', '2')]
    if rng.random() < 0.15:
        q.gpu_off = [rng.choice(ALL_ENABLE_GUCS)]
    q.idx = i
    return q

def jpick(rng, cols, k):
    """k of cols, the first ones from different tables."""
    by = {}
    for r, c in cols:
        by.setdefault(r.alias, []).append((r, c))
    first = [rng.choice(v) for v in by.values()]
    rng.shuffle(first)
    first = first[:k]
    rest = [x for x in cols if x not in first]
    return first + rng.sample(rest, min(k - len(first), len(rest)))

def jexpr(rng, rels, agg=None):
    """(SQL, compare flag) of an expression over one table (an aggregate of one when
    agg): float sums are exact up to 10^6 joined rows, or the query's bound."""
    rel = rng.choice([r for r in rels if not r.derived] or rels)
    rng.table = rel.t
    if agg:
        proxy = copy.copy(rel.t)
        proxy.nrows = max(10**6, getattr(rng, 'jbound', 0))
        s, f = gen_expr_agg(rng, proxy)
        return rel.q(s), f
    e = keyable(rng, rel.t, gen_value(rng, rel.t, rng.randint(1, 2)))
    return rel.q(e.sql), flag_of(e, 'key')

def jagg_item(rng, rels, cols):
    """(aggregate over the joined rows, compare flag)."""
    r = rng.random()
    if r < 0.15:
        return 'count(*)', False
    if r < 0.27 and any(not x.derived for x in rels):
        return jexpr(rng, rels, agg=True)
    rel, c = rng.choice(cols)
    ref = rel.ref(c)
    if r < 0.37:
        return 'count(DISTINCT %s)' % ref, False
    fns = ['count'] + (['min', 'max'] if c.ty != 'bool' else []) + \
        (['sum', 'avg'] * 2 if c.ty in NUMS + FIXED or c.ty == 'numeric' else [])
    fn = rng.choice(fns)
    return '%s(%s)' % (fn, ref), fn != 'count' and is_float(c)

def jagg_query(rng, rels, cols, frm, wsql):
    """GROUP BY columns of several tables (now and then an expression), aggregates,
    [HAVING], [ORDER BY an aggregate, every key [LIMIT]]."""
    nk = rng.choice([0, 1, 1, 2, 2, 2, 3])
    keys = []
    for r, c in jpick(rng, cols, nk):
        keys.append(jexpr(rng, rels) if rng.random() < 0.12 and not r.derived else
                    (r.ref(c), is_float(c)))
    aggs = [jagg_item(rng, rels, cols) for _ in range(rng.randint(1, 4))]
    sel = [k for k, _ in keys] + [a for a, _ in aggs]
    sql = 'SELECT %s FROM %s%s' % (', '.join(sel), frm, wsql)
    if keys:
        sql += ' GROUP BY ' + (', '.join(str(i + 1) for i in range(len(keys)))
                               if rng.random() < 0.4 else ', '.join(k for k, _ in keys))
    if rng.random() < 0.15:
        sql += ' HAVING count(*) > %d' % rng.randint(0, 3)
    ordered = bool(keys) and rng.random() < 0.5
    if ordered:         # the keys make the order total
        items = [str(i + 1) for i in range(len(keys))]
        rng.shuffle(items)
        if rng.random() < 0.5:
            items.insert(0, str(len(keys) + rng.randint(1, len(aggs))))
        sql += ' ORDER BY ' + ', '.join(order_item(rng, k) for k in items)
        if rng.random() < 0.7:
            sql += ' LIMIT %d' % rng.choice([1, 3, 10, 100])
    return Query('join', sql, [f for _, f in keys] + [f for _, f in aggs], ordered)

def jsel_query(rng, rels, cols, frm, wsql, bound):
    """Columns of several tables (now and then an expression), ORDER BY every one of
    them (a total order) [LIMIT [OFFSET]], or (small results) no order."""
    items = []
    for r, c in jpick(rng, cols, rng.randint(2, 6)):
        items.append(jexpr(rng, rels) if rng.random() < 0.1 and not r.derived else
                     (r.ref(c), is_float(c)))
    sql = 'SELECT %s FROM %s%s' % (', '.join(s for s, _ in items), frm, wsql)
    ordered = bound > JOIN_SEL_MAX or rng.random() < 0.85
    if ordered:
        pos = [str(k + 1) for k in range(len(items))]
        rng.shuffle(pos)
        sql += ' ORDER BY ' + ', '.join(order_item(rng, p) for p in pos)
        if bound > JOIN_SEL_MAX or rng.random() < 0.35:
            sql += ' LIMIT %d' % rng.choice([0, 1, 5, 5, 20, 20, 100, 100, 200, 200])
            if rng.random() < 0.1:
                sql += ' OFFSET %d' % rng.randint(1, 10)
    return Query('join', sql, [f for _, f in items], ordered)

# --------------------------------------------------------------- psql --
def die(msg):
    print('random_queries: ' + msg, file=sys.stderr)
    sys.exit(2)

def psql(script, timeout=900):
    """Run a psql script; (stdout, stderr, exit status), what came before a timeout."""
    cmd = ['psql', '-X', '-q', '-A', '-t', '-v', 'ON_ERROR_STOP=0', '-F', FS,
           '-P', 'null=' + NULL, '-P', 'pager=off']
    try:
        p = subprocess.run(cmd, input=script, capture_output=True, text=True,
                           encoding='utf-8', errors='replace', timeout=timeout)
        return p.stdout, p.stderr, p.returncode
    except subprocess.TimeoutExpired as e:
        dec = [x.decode('utf-8', 'replace') if isinstance(x, bytes) else x or ''
               for x in (e.stdout, e.stderr)]
        return dec[0], dec[1] + '\n(psql timed out)', -1

def prelude(args):
    s = "SET client_min_messages = warning;\nSET statement_timeout = '60s';\n"
    if not args.no_load:
        s += "LOAD 'gpudb';\n"
    return s + (args.setup_sql.rstrip().rstrip(';') + ';\n' if args.setup_sql else '') + \
        '\\echo @@S 0 :SQLSTATE :LAST_ERROR_MESSAGE\n'

def block(q, gucs):
    """psql script for one query: EXPLAIN + run with gpudb on, run with gpudb off."""
    i, out = q.idx, []
    out += ['SET %s = %s;' % kv for kv in q.pg_set]
    out.append('SET gpudb.enabled = on;')
    out += ['SET %s = %s;' % (g, 'off' if g in q.gpu_off else 'on') for g in ALL_ENABLE_GUCS
            if g in gucs]
    out += ['SET %s = 0;' % g for g in COST_GUCS if g in gucs]
    out += ['EXPLAIN (COSTS OFF) %s;' % q.sql, '\\echo @@E %d :SQLSTATE :LAST_ERROR_MESSAGE' % i,
            q.sql + ';', '\\echo @@A %d :SQLSTATE :LAST_ERROR_MESSAGE' % i,
            'SET gpudb.enabled = off;',
            q.sql_off + ';', '\\echo @@B %d :SQLSTATE :LAST_ERROR_MESSAGE' % i]
    out += ['RESET %s;' % k for k, _ in q.pg_set]
    return '\n'.join(out) + '\n'

def run_batch(args, queries, gucs):
    """Run queries in one session; returns {idx: {tag: (sqlstate, msg, lines)}}."""
    out, err, rc = psql(prelude(args) + ''.join(block(q, gucs) for q in queries))
    res, buf = {}, []
    for line in out.split('\n')[:-1] if out.endswith('\n') else out.split('\n'):
        m = re.match(r'@@([SEAB]) (\d+) (\S*) ?(.*)$', line)
        if not m:
            buf.append(line)
            continue
        tag, i, state, msg = m.group(1), int(m.group(2)), m.group(3), m.group(4)
        if tag == 'S' and state != '00000':
            die('session setup failed (%s %s); stderr:\n%s' % (state, msg, err))
        res.setdefault(i, {})[tag] = (state, msg if state != '00000' else '', buf)
        buf = []
    return res, err

def wait_server(deadline=60):
    t0 = time.time()
    while time.time() - t0 < deadline:
        if psql('SELECT 1;', timeout=30)[2] == 0:
            return
        time.sleep(1)

def run_all(args, queries, gucs):
    """All queries, --jobs sessions at a time; incomplete ones are retried alone."""
    size = max(1, min(40, (len(queries) + args.jobs - 1) // args.jobs))
    batches = [queries[s:s + size] for s in range(0, len(queries), size)]
    results = {}
    with concurrent.futures.ThreadPoolExecutor(max_workers=args.jobs) as ex:
        for res, err in ex.map(lambda b: run_batch(args, b, gucs), batches):
            results.update(res)
    missing = [q for q in queries if len(results.get(q.idx, {})) < 3]
    for q in missing:       # a lost connection: find the query that does it, alone
        wait_server()
        res, err = run_batch(args, [q], gucs)
        results[q.idx] = res.get(q.idx, {})
        if len(results[q.idx]) < 3:
            results[q.idx]['crash'] = err.strip()[-500:]
    return results

LIMIT_RE = re.compile(r' LIMIT \d+( OFFSET \d+)?$')

def limit_retry(args, queries, results, gucs):
    """A data exception (class 22, 0A000) on one side only, in a query with a LIMIT,
    may come from rows past the LIMIT that one plan evaluates (an aggregate or
    projection computed for every row) and the other never reads (a sorted
    GroupAggregate or a scan stopped by the Limit).  Such queries run again
    without the LIMIT: if both sides then raise that SQLSTATE, the query is
    excused (q.limit_excused); else the difference stands."""
    again = []
    for q in queries:
        r = results[q.idx]
        if 'crash' in r or not LIMIT_RE.search(q.sql):
            continue
        st = {r['A'][0], r['B'][0]}
        if len(st) == 2 and '00000' in st:
            bad = (st - {'00000'}).pop()
            if bad[:2] == '22' or bad == '0A000':
                nq = Query(q.kind, LIMIT_RE.sub('', q.sql), q.floats, q.ordered,
                           sql_off=LIMIT_RE.sub('', q.sql_off))
                nq.idx, nq.pg_set, nq.gpu_off, nq.bad = q.idx, q.pg_set, q.gpu_off, bad
                again.append(nq)
    if not again:
        return
    res = run_all(args, again, gucs)
    for nq in again:
        r = res.get(nq.idx, {})
        if 'crash' not in r and len(r) >= 3 and r['A'][0] == r['B'][0] == nq.bad:
            next(q for q in queries if q.idx == nq.idx).limit_excused = nq.bad

# ------------------------------------------------------------- compare --
def fnum(s):
    try:
        return float(s)     # also takes NaN, Infinity, -Infinity as psql prints them
    except ValueError:
        return None

def dnum(s):
    try:
        return decimal.Decimal(s)
    except decimal.InvalidOperation:
        return None

def cell_eq(a, b, isf):
    if a == b:
        return True
    if not isf or NULL in (a, b):
        return False
    if isf == 'dec':        # numerics by value (1.5 = 1.50)
        x, y = dnum(a), dnum(b)
        if x is None or y is None:
            return False
        return x.is_nan() and y.is_nan() if x.is_nan() or y.is_nan() else x == y
    x, y = fnum(a), fnum(b)
    if x is None or y is None:
        return False
    if math.isnan(x) or math.isnan(y):
        return math.isnan(x) and math.isnan(y)
    return x == y or abs(x - y) <= 1e-12 * max(abs(x), abs(y))

def row_key(row, floats):
    """Multiset sort key: exact columns first (as text), then float and 'dec' columns
    by value."""
    key = [[], []]
    for k, v in enumerate(row):
        isf = floats[k] if k < len(floats) else False
        f = None if not isf or v == NULL else dnum(v) if isf == 'dec' else fnum(v)
        key[bool(isf)].append((-1, 0.0, '') if v == NULL else (0, 0.0, v) if f is None else
                              (2, 0.0, '') if f != f else (1, f + 0, ''))   # -0 -> 0
    return key[0] + key[1]

def compare(q, r, loose):
    """None when both sides agree, else a description of the difference."""
    if 'crash' in r:
        return 'no result (server crash or lost connection?): %s' % r['crash']
    (sa, ma, la), (sb, mb, lb), (se, me, _) = r['A'], r['B'], r['E']
    if sa != '00000' or sb != '00000':
        if sa == sb or (loose and sa[:2] == sb[:2] == '22'):
            return None
        if q.limit_excused and q.limit_excused in (sa, sb) and '00000' in (sa, sb):
            return None
        if q.risky and all(x[:2] == '22' or x == '0A000' for x in (sa, sb)):
            return None     # two error sources: which row raises first is the plan's
        return 'SQLSTATE differs: gpudb on %s (%s), off %s (%s)' % (sa, ma, sb, mb)
    if se != '00000':
        return 'EXPLAIN failed (%s %s) but the query succeeded' % (se, me)
    ra, rb = [x.split(FS) for x in la], [x.split(FS) for x in lb]
    if len(ra) != len(rb):
        return 'row count differs: gpudb on %d, off %d' % (len(ra), len(rb))
    if not q.ordered:
        ra.sort(key=lambda x: row_key(x, q.floats))
        rb.sort(key=lambda x: row_key(x, q.floats))
    for n, (x, y) in enumerate(zip(ra, rb)):
        if len(x) != len(y) or not all(cell_eq(a, b, k < len(q.floats) and q.floats[k])
                                       for k, (a, b) in enumerate(zip(x, y))):
            return 'row %d differs%s: gpudb on %r, off %r' % (n, '' if q.ordered else ' (sorted)',
                                                              x, y)
    return None

def gpu_nodes(r):
    if 'E' not in r:
        return set()
    return set(m for line in r['E'][2] for m in re.findall(r'Custom Scan \((Gpu\w+)\)', line))

def show(lines, n=8):
    s = [x.replace(FS, ' | ') for x in lines[:n]]
    return '\n      '.join(s) + ('\n      ... (%d rows)' % len(lines) if len(lines) > n else '')

def report(q, r, why, seed, title='DIFFERENCE'):
    print('--- %s in query %d (%s), seed %d: %s' % (title, q.idx, q.kind, seed, why))
    print('    settings: planner %s, gpudb off-switches %s' % (q.pg_set or '-', q.gpu_off or '-'))
    print('    query (gpudb on):  %s' % q.sql)
    if q.sql_off != q.sql:
        print('    query (gpudb off): %s' % q.sql_off)
    for tag, what in (('E', 'plan'), ('A', 'gpudb on'), ('B', 'gpudb off')):
        if tag in r:
            print('    %s [%s]:\n      %s' % (what, r[tag][0], show(r[tag][2])))

# ---------------------------------------------------------------- main --
def join_cases(jtables):
    """Self-check cases over the join tables: a join's rows in another order (found
    or not, as ordered or not), and what the tables promise: a NULL in every
    nullable key column (NOT IN a subquery holding it gives no row) and foreign
    keys without their dimension row (NULL or dangling)."""
    jt = {t.name: t for t in jtables}
    f, d1, d4 = jt['rq.jf'], jt['rq.jd1'], jt['rq.jd4']
    pk = d1.pk[0]
    fk = next(c for c in f.keys if c.dom == pk.dom)
    k4 = d4.keys[0]
    fk4 = next(c for c in f.keys if c.dom == k4.dom)
    join = 'SELECT f.id, d.id FROM rq.jf f LEFT JOIN rq.jd1 d ON f.%s = d.%s' % (fk.name, pk.name)
    return [
        (join + ' ORDER BY 1, 2', join + ' ORDER BY 1 DESC, 2', [False] * 2, True, True),
        (join + ' ORDER BY 1, 2', join + ' ORDER BY 1 DESC, 2', [False] * 2, False, False),
        ('SELECT count(*) FROM rq.jf f WHERE f.%s NOT IN (SELECT d.%s FROM rq.jd4 d)'
         % (fk4.name, k4.name), 'SELECT 0::int8', [False], False, False),
        ('SELECT count(*) FROM rq.jf f LEFT JOIN rq.jd1 d ON f.%s = d.%s WHERE d.%s IS NULL'
         % (fk.name, pk.name, pk.name), 'SELECT 0::int8', [False], False, True)]

def self_check(args, tables, gucs, jtables):
    t = max(tables, key=lambda x: x.nrows)
    rng = QRng(args.seed)
    ids = [i for i in range(1, t.nrows + 1) if not (t.deleted and i % 7 == 3)]
    cases = [  # (on query, off query, float flags, ordered, expect difference)
        ('SELECT id FROM %s ORDER BY id LIMIT 5' % t.name,
         'SELECT id FROM %s ORDER BY id DESC LIMIT 5' % t.name, [False], True, True),
        ('SELECT id FROM %s ORDER BY id' % t.name,
         'SELECT id FROM %s ORDER BY id DESC' % t.name, [False], False, False),
        ('SELECT id %% 7 AS k, count(*) FROM %s GROUP BY 1 ORDER BY 1 LIMIT 3' % t.name,
         'SELECT id %% 7 AS k, count(*) FROM %s GROUP BY 1 ORDER BY 1 DESC LIMIT 3' % t.name,
         [False, False], True, True),
        ("SELECT '1'::float8", "SELECT '1.000000001'::float8", [True], False, True),
        ("SELECT '1e15'::float8", "SELECT '1000000000000000.25'::float8", [True], False, False),
        ("SELECT '-0'::float8, 'NaN'::float8", "SELECT '0'::float8, 'NaN'::float8",
         [True, True], False, False),
        ("SELECT 'NaN'::float8", "SELECT 'Infinity'::float8", [True], False, True),
        ('SELECT 1.5', 'SELECT 1.50', [False], False, True),
        ('SELECT 1.5, 2', 'SELECT 1.50, 2', ['dec', False], False, False),
        ('SELECT 1.5', 'SELECT 1.51', ['dec'], False, True),
        ("SELECT 'NaN'::numeric", 'SELECT 0', ['dec'], False, True),
        ("SELECT NULL::text", "SELECT ''", [False], False, True),
        ("SELECT '' WHERE false", "SELECT ''", [False], False, True),
        ("SELECT 'a'", "SELECT 'a '", [False], False, True),
        ('SELECT 1/0', 'SELECT 1', [False], False, True),
        ('SELECT 1/0', 'SELECT 2147483647 + 1', [False], False, True),
        ('SELECT 1/0', 'SELECT 1/0', [False], False, False),
        ('SELECT pg_terminate_backend(pg_backend_pid())', 'SELECT true', [False], False, True),
        # an error past the LIMIT on one side only: excused when both raise it without
        ('SELECT 1 / x FROM (VALUES (1), (0)) v(x) LIMIT 1',
         'SELECT 1 / x FROM (VALUES (0), (1)) v(x) LIMIT 1', [False], False, False),
        ('SELECT 1 / x FROM (VALUES (1), (2)) v(x) LIMIT 1',
         'SELECT 1 / x FROM (VALUES (0), (1)) v(x) LIMIT 1', [False], False, True),
    ]
    cases += join_cases(jtables)
    nfixed = len(cases)
    for _ in range(8):      # random filters, one extra row on one side
        k = rng.choice(ids)
        c = rng.choice(t.cols)
        f = gen_filter(rng, t, 2)
        cases.append(('SELECT id, %s FROM %s WHERE id <> %d AND (%s)' % (c.name, t.name, k, f),
                      'SELECT id, %s FROM %s WHERE (id <> %d AND (%s)) OR id = %d'
                      % (c.name, t.name, k, f, k), [is_float(c)] * 2, False, True))
    qs = [Query('self', a, fl, od, sql_off=b) for a, b, fl, od, _ in cases]
    for n, q in enumerate(qs):
        q.idx, q.expect_diff = n, cases[n][4]
    results = run_all(args, qs, gucs)
    limit_retry(args, qs, results, gucs)
    ok = inconclusive = 0
    for q in qs:
        r = results[q.idx]
        why = compare(q, r, args.loose_sqlstate)
        if q.idx >= nfixed and why is None and r['A'][0] != '00000':
            inconclusive += 1       # the random filter errors on both sides: no evidence
            continue
        good = (why is not None) == q.expect_diff
        ok += good
        if args.verbose or not good:
            print('%s case %d: expected %s, got %s\n    on:  %s\n    off: %s'
                  % ('ok ' if good else 'BAD', q.idx, 'a difference' if q.expect_diff else 'none',
                     why, q.sql, q.sql_off))
    n = len(qs) - inconclusive
    print('random_queries self-check: %d/%d cases behaved as expected (%d inconclusive)'
          % (ok, n, inconclusive))
    return 0 if ok == n and n >= nfixed + 3 else 1

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
    queries = [gen_query(args.seed, i, tables, jtables, args.joins) for i in idxs]
    results = run_all(args, queries, gucs)
    limit_retry(args, queries, results, gucs)
    ngpu, kinds, errs, diffs, log = 0, {'GpuScan': 0, 'GpuAgg': 0, 'GpuSort': 0, 'GpuJoin': 0}, \
        0, 0, []
    nexpr = nexpr_gpu = njoin = njoin_gpu = njoin_gpujoin = 0
    for q in queries:
        r = results[q.idx]
        why = compare(q, r, args.loose_sqlstate)
        nodes = gpu_nodes(r)
        ngpu += bool(nodes)
        nexpr += q.has_expr
        nexpr_gpu += q.has_expr and bool(nodes)
        njoin += q.join
        njoin_gpu += q.join and bool(nodes)
        njoin_gpujoin += q.join and 'GpuJoin' in nodes
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
        log.append('%d [%s%s] %s [%s] %s' % (q.idx, q.kind, '+x' if q.has_expr else '',
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
    print('seed %d, %.1f s%s' % (args.seed, time.time() - t0,
                                 '' if ngpu >= args.min_gpu else
                                 '; FAIL: fewer than --min-gpu %d queries had a GPU node'
                                 % args.min_gpu))
    print('random_queries: %d queries, %d with a GPU node (scan %d, agg %d, sort %d, join %d), '
          '%d with expressions (%d of them with a GPU node), %d joins (%d of them with a GPU '
          'node, %d with a GpuJoin), %d errors matched, %d differences'
          % (len(queries), ngpu, kinds['GpuScan'], kinds['GpuAgg'], kinds['GpuSort'],
             kinds['GpuJoin'], nexpr, nexpr_gpu, njoin, njoin_gpu, njoin_gpujoin, errs, diffs))
    return 1 if diffs or ngpu < args.min_gpu else 0

if __name__ == '__main__':
    sys.exit(main())
