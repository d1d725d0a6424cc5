"""The random tables: the column types and their value generators (rand_value),
Col and Table, the tables rq.t1..tN of random types and rq.li of TPC-H
lineitem's (make_tables), and the SQL that creates and loads them
(load_table)."""
import datetime
import re

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

def is_float(c):
    return c.ty in FLOATS

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
