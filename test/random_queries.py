#!/usr/bin/env python3
"""random_queries.py -- seeded random differential query tests for gpudb.

WHAT IT TESTS: gpudb's planner hooks may replace, in single-table queries, the
scan+WHERE by Custom Scan (GpuScan), GROUP BY aggregation by Custom Scan (GpuAgg)
and ORDER BY [LIMIT] by Custom Scan (GpuSort); what the device cannot do must
keep PostgreSQL's own plan.  This script builds random tables (schema rq,
recreated each run) and runs each random query twice in one session: with
gpudb.enabled = on (every gpudb.enable_gpu* on except a random one now and then,
the gpudb.gpu_*_cost constants 0 so GPU nodes win on small tables) and with
gpudb.enabled = off (plain PostgreSQL); sometimes a planner switch such as
enable_hashagg = off applies to both.  EXPLAIN (COSTS OFF) with gpudb on counts
the queries that get a Custom Scan (Gpu...) node.  GUCs missing from pg_settings
are not SET, so the script runs before and after the custom scan lands.
Columns include numeric(p,s) with p <= 18 (fixed point on the device), whose
constants come at other scales (exact or not), as integers, NaN, +-Infinity
and 1e30.
Queries: selections with random filters; grouped and ungrouped aggregates
(count(*), count, sum, avg, min, max, the variance/stddev family,
count(DISTINCT), percentile_cont/percentile_disc(f) and mode() WITHIN GROUP;
up to 8 keys; HAVING; ORDER BY keys); GROUP BY ... ORDER BY an aggregate or a key,
then every group key (a total order), [LIMIT [OFFSET]], which a GpuAgg may
order and cut on the device;
ORDER BY ... , id [LIMIT [OFFSET]] (text keys over the tables whose text columns
are COLLATE "C"); and ~12% constructs the device does not do
(percentile arrays and DESC, count(DISTINCT expr), GROUP BY/ORDER BY expressions, ORDER BY text (C or not), numeric
and interval columns, CASE, LIKE, FILTER, DISTINCT, ROLLUP) to test the fallback.
Data: 10-30% NULLs, duplicates, int extremes (int2/int4/int8 arithmetic can
overflow), NaN/Infinity/-0 and huge/tiny floats, infinite and BC dates, small
text domains, dead tuples (DELETE/UPDATE after load).  Filters nest AND/OR/NOT
over comparisons (also cross-type and column-vs-column), arithmetic that may
overflow or divide by zero, IS [NOT] NULL/TRUE/FALSE/DISTINCT FROM, IN, BETWEEN.

HOW IT COMPARES: if either side errors, both must fail with the same SQLSTATE
(psql's :SQLSTATE; --loose-sqlstate accepts any two class-22 errors).  Else the
results must be equal: ORDER BY queries row by row in order (each ORDER BY ends
with the unique id, so the order is total), others as multisets (rows sorted in
Python).  Float-valued columns (float columns, their sum/min/max, every avg,
variance/stddev of floats, percentile_cont, percentile_disc and mode of floats) compare numerically within 1e-12 relative (NaN = NaN, -0 = 0); all else
exactly as text.  Float data is dyadic (k/4, k/16) and bounded so sums are exact
in any order; "extreme" float columns (1e308, 5e-324) are never summed or
averaged, as their overflow depends on summation order.  An EXPLAIN failing
while the query succeeds, or a lost connection (server crash: the query is
retried alone to pin it down) is a difference too.

USAGE: python3 stdlib; psql on PATH with PGHOST/PGPORT/PGDATABASE/PGUSER set, as
pg_virtualenv does (superuser: CREATE EXTENSION, LOAD 'gpudb' per session):
  pg_virtualenv -t -o shared_preload_libraries=gpudb -o gpudb.device=cpu \\
      python3 test/random_queries.py --setup-sql 'SET gpudb.device = cpu'
Options: --seed --queries (300) --tables (4) --rows (2000) --setup-sql --min-gpu
--jobs (parallel sessions, 4) --log FILE --verbose --only I,J --self-check.
Last line: the summary.  Exit 1 on a difference or fewer than --min-gpu GPU
queries, 2 (a message) when setup fails.  test/random_queries.sh wraps it all.

REPRODUCING: tables and queries depend only on --seed, --tables and --rows
(query I has its own RNG seeded "seed:I"); rerun with those and --only I
--verbose for query I's SQL, settings, plan and both results.  The tables stay
in schema rq (in a persistent cluster; pg_virtualenv drops its own on exit).

--self-check runs crafted pairs through the same machinery that must be found
different (extra row, reversed order of rows or of ordered groups, floats 1e-9
apart, NaN vs Infinity, NULL vs '', no row vs a '' row, error vs none, two
SQLSTATEs, a killed session) or
must not (same rows in another order, floats 2.5e-16 apart, -0 vs 0, NaN vs
NaN, one SQLSTATE twice); it exits 0 only if every case behaves as expected.
"""
import argparse
import concurrent.futures
import datetime
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
TEXTS = ('text', 'varchar')
# numeric(p,s) with p <= 18: fixed point on the device; scale from the type name
FIXED = ('numeric(10,2)', 'numeric(18,0)', 'numeric(15,6)')
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
PREFIX = {'int2': 'i2', 'int4': 'i4', 'int8': 'i8', 'float4': 'f4', 'float8': 'f8',
          'bool': 'b', 'date': 'd', 'timestamp': 'ts', 'timestamptz': 'tz', 'text': 't',
          'varchar': 'vc', 'numeric': 'n', 'interval': 'iv',
          'numeric(10,2)': 'nf2', 'numeric(18,0)': 'nf0', 'numeric(15,6)': 'nf6'}
CMP = ['=', '<>', '<', '<=', '>', '>=']
ENABLE_GUCS = ['gpudb.enable_gpuscan', 'gpudb.enable_gpuagg', 'gpudb.enable_gpusort']
COST_GUCS = ['gpudb.gpu_setup_cost', 'gpudb.gpu_tuple_cost', 'gpudb.gpu_transfer_cost']
PG_TOGGLES = ['enable_hashagg', 'enable_sort', 'enable_seqscan', 'enable_indexscan']

class Col:
    def __init__(self, name, ty, mode, nullfrac):
        self.name, self.ty, self.mode, self.nullfrac = name, ty, mode, nullfrac
        self.values = []            # non-NULL values (literal bodies), for constants
        self.fbound = 1             # float columns: |value| bound keeping sums exact
        self.sum_safe = mode != 'extreme'
        self.collate_c = False      # text columns declared COLLATE "C"

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
        return ''.join(rng.choice('abcxyz') for _ in range(rng.randint(0, 8)))
    if ty in FIXED:
        p, sc = fixed_ps(ty)
        if rng.random() < 0.05:
            return 'NaN'
        if mode == 'extreme' and rng.random() < 0.3:
            v = rng.choice([10**p - 1, -(10**p - 1), 0, 1, -1])
        elif mode == 'small':       # a few multiples of 1/4
            v = rng.randint(-20, 20) * (10**sc // 4 if sc else 1)
        else:
            v = rng.randint(-(10**p - 1), 10**p - 1)
        return fixed_text(v, sc)
    if ty == 'numeric':
        return rng.choice(['NaN', '0', '-0.5']) if rng.random() < 0.05 else \
            '%d.%04d' % (rng.randint(-10**6, 10**6), rng.randint(0, 9999))
    if ty == 'interval':
        return '%d days %d hours' % (rng.randint(-50, 50), rng.randint(0, 23))
    raise ValueError(ty)

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
    """Random tables; returns (list of Table, SQL script creating and loading them)."""
    tables, sql = [], ['DROP SCHEMA IF EXISTS rq CASCADE;', 'CREATE SCHEMA rq;']
    for ti in range(1, ntables + 1):
        r = rng.random()
        n = maxrows if ti == 1 else 0 if r < 0.08 else 1 if r < 0.15 else rng.randint(2, max(2, maxrows))
        t = Table('rq.t%d' % ti, n)
        tys = ['int4', 'int8', 'float8', 'text', 'bool'] + \
            [rng.choice(SUPPORTED) for _ in range(rng.randint(1, 6))]
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
            mode = rng.choice(['small', 'small', 'wide', 'extreme'])
            c = Col('%s_%d' % (PREFIX[ty], k), ty, mode,
                    0.0 if rng.random() < 0.15 else rng.uniform(0.1, 0.3))
            if ty == 'float4':
                c.fbound = max(1, min(1000, 2**24 // (4 * max(n, 1))))
            elif ty == 'float8':
                c.fbound = max(1, min(10**9, 2**52 // (16 * max(n, 1))))
            c.domain = rng.sample(TEXT_POOL, rng.randint(2, 6))
            c.collate_c = collate_c and ty in TEXTS
            t.cols.append(c)
        decl = ['id int8 NOT NULL'] + ['%s %s%s%s' % (c.name, 'varchar(12)' if c.ty == 'varchar'
                                                      else c.ty, ' COLLATE "C"' if c.collate_c else '',
                                                      ' NOT NULL' if not c.nullfrac else '')
                                       for c in t.cols[1:]]
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
        sql.append('ANALYZE %s;' % t.name)
        tables.append(t)
    return tables, '\n'.join(sql) + '\n'

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
    isint = c.ty in INTS
    risky = rng.random() < 0.35
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
    if r < 0.75 and others:
        o = rng.choice([x for x in others if x.mode != 'extreme'] or others)
        return '(%s %s %s)' % (c.name, rng.choice(['+', '-']), o.name), kind
    return '((%s * %s) - %s)' % (c.name, k(), k()), kind

def atom(rng, t):
    """One predicate over table t."""
    c = pick_col(rng, t)
    ty, fam = c.ty, c.family
    r = rng.random()
    if r < 0.04:        # constructs the device does not support
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

# ------------------------------------------------------------- queries --
class Query:
    def __init__(self, kind, sql, floats, ordered, sql_off=None):
        self.kind, self.sql, self.floats, self.ordered = kind, sql, floats, ordered
        self.sql_off = sql_off or sql
        self.pg_set, self.gpu_off = [], []      # planner toggles (both sides), enable_gpu* off
        self.idx, self.expect_diff = None, None

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

def gen_query(seed, i, tables):
    rng = random.Random('%d:%d' % (seed, i))
    t = rng.choice(tables)
    r = rng.random()
    q = (gen_scan if r < 0.30 else gen_agg if r < 0.55 else gen_agg_ordered if r < 0.67 else
         gen_sort if r < 0.88 else gen_unsup)(rng, t)
    if rng.random() < 0.15:
        q.pg_set = [(rng.choice(PG_TOGGLES), 'off')]
    if rng.random() < 0.15:
        q.gpu_off = [rng.choice(ENABLE_GUCS)]
    q.idx = i
    return q

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
    out += ['SET %s = %s;' % (g, 'off' if g in q.gpu_off else 'on') for g in ENABLE_GUCS if g in gucs]
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

# ------------------------------------------------------------- compare --
def fnum(s):
    try:
        return float(s)     # also takes NaN, Infinity, -Infinity as psql prints them
    except ValueError:
        return None

def cell_eq(a, b, isf):
    if a == b:
        return True
    if not isf or NULL in (a, b):
        return False
    x, y = fnum(a), fnum(b)
    if x is None or y is None:
        return False
    if math.isnan(x) or math.isnan(y):
        return math.isnan(x) and math.isnan(y)
    return x == y or abs(x - y) <= 1e-12 * max(abs(x), abs(y))

def row_key(row, floats):
    """Multiset sort key: exact columns first (as text), then float columns by value."""
    key = [[], []]
    for k, v in enumerate(row):
        isf = k < len(floats) and floats[k]
        f = fnum(v) if isf and v != NULL else None
        key[isf].append((-1, 0.0, '') if v == NULL else (0, 0.0, v) if f is None else
                        (2, 0.0, '') if math.isnan(f) else (1, f + 0.0, ''))   # -0 -> 0
    return key[0] + key[1]

def compare(q, r, loose):
    """None when both sides agree, else a description of the difference."""
    if 'crash' in r:
        return 'no result (server crash or lost connection?): %s' % r['crash']
    (sa, ma, la), (sb, mb, lb), (se, me, _) = r['A'], r['B'], r['E']
    if sa != '00000' or sb != '00000':
        if sa == sb or (loose and sa[:2] == sb[:2] == '22'):
            return None
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
def self_check(args, tables, gucs):
    t = max(tables, key=lambda x: x.nrows)
    rng = random.Random(args.seed)
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
        ("SELECT NULL::text", "SELECT ''", [False], False, True),
        ("SELECT '' WHERE false", "SELECT ''", [False], False, True),
        ("SELECT 'a'", "SELECT 'a '", [False], False, True),
        ('SELECT 1/0', 'SELECT 1', [False], False, True),
        ('SELECT 1/0', 'SELECT 2147483647 + 1', [False], False, True),
        ('SELECT 1/0', 'SELECT 1/0', [False], False, False),
        ('SELECT pg_terminate_backend(pg_backend_pid())', 'SELECT true', [False], False, True),
    ]
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
    out, err, rc = psql('\\set ON_ERROR_STOP 1\nCREATE EXTENSION IF NOT EXISTS gpudb;\n' + setup)
    if rc != 0:
        die('creating the tables failed:\n' + err[-3000:])
    out, err, rc = psql(prelude(args) + "SELECT name FROM pg_settings WHERE name LIKE 'gpudb.%';")
    gucs = set(x for x in out.split('\n') if x.startswith('gpudb.'))
    if args.verbose:
        print('seed %d; tables: %s; gpudb GUCs: %s' % (
            args.seed, ', '.join('%s(%d rows: %s)' % (t.name, t.nrows, ' '.join(
                '%s:%s' % (c.name, c.mode) for c in t.cols[1:])) for t in tables),
            ' '.join(sorted(gucs))))
    if args.self_check:
        return self_check(args, tables, gucs)
    idxs = range(args.queries) if not args.only else [int(x) for x in args.only.split(',')]
    queries = [gen_query(args.seed, i, tables) for i in idxs]
    results = run_all(args, queries, gucs)
    ngpu, kinds, errs, diffs, log = 0, {'GpuScan': 0, 'GpuAgg': 0, 'GpuSort': 0}, 0, 0, []
    for q in queries:
        r = results[q.idx]
        why = compare(q, r, args.loose_sqlstate)
        nodes = gpu_nodes(r)
        ngpu += bool(nodes)
        for n in nodes:
            kinds[n] = kinds.get(n, 0) + 1
        erred = 'crash' not in r and (r['A'][0] != '00000' or r['B'][0] != '00000')
        errs += erred and why is None
        diffs += why is not None
        outcome = 'DIFF: ' + why if why else 'error %s matched' % r['A'][0] if erred else \
            'ok, %d rows' % len(r['A'][2])
        log.append('%d [%s] %s [%s] %s' % (q.idx, q.kind, ','.join(sorted(nodes)) or '-',
                                           outcome, q.sql))
        if why:
            report(q, r, why, args.seed)
        elif args.verbose:
            print(log[-1])
            if args.only:
                report(q, r, 'none', args.seed, title='result')
    if args.log:
        with open(args.log, 'w') as f:
            f.write('seed %d, %d tables, %d rows max\n' % (args.seed, args.tables, args.rows))
            f.write('\n'.join(log) + '\n')
    print('seed %d, %.1f s%s' % (args.seed, time.time() - t0,
                                 '' if ngpu >= args.min_gpu else
                                 '; FAIL: fewer than --min-gpu %d queries had a GPU node'
                                 % args.min_gpu))
    print('random_queries: %d queries, %d with a GPU node (scan %d, agg %d, sort %d), '
          '%d errors matched, %d differences' % (len(queries), ngpu, kinds['GpuScan'],
                                                 kinds['GpuAgg'], kinds['GpuSort'], errs, diffs))
    return 1 if diffs or ngpu < args.min_gpu else 0

if __name__ == '__main__':
    sys.exit(main())
