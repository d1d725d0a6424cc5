"""Filters and typed random expressions over one table: constants of a column's
type (const), filter atoms and trees (atom, gen_filter), the query's RNG
(QRng) and the expressions of numbers, dates and timestamps, and text (E;
gen_num, gen_time, gen_text, gen_cond, gen_value, gen_expr_agg) with the
bounds that keep their results comparable."""
import datetime
import math
import random
import re

from rq.tables import (EXTREME_T, FIXED, FLOATS, INT_RANGE, INTS, NUMS, SUPPORTED, TEXT_POOL, TEXTS,
                       TIMES, char_len, fixed_ps, fixed_text, rand_value, sql_str)

CMP = ['=', '<>', '<', '<=', '>', '>=']

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
    if ty in NUMS + TIMES + FIXED and rng.random() < 0.04:
        # a scalar subquery: at the top level an InitPlan, whose output the
        # device quals compare with (a Param, param_values.c)
        noted(rng)
        # (avg only of integers and fixed point: floats may be extreme)
        aggs = ['min', 'max'] + (['avg'] if ty in INTS + FIXED else [])
        return '%s %s (SELECT %s(p.%s) FROM %s p)' % (
            c.name, rng.choice(CMP), rng.choice(aggs), c.name, t.name)
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
    scale) could reach 10^18: drawn only in risky queries, where a GpudbAgg or GpudbSort
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

def keyable(rng, t, e):
    """e, or a column when e holds none (a constant key reads as a position)."""
    return e if COLREF.search(e.sql) else col_e(pick_col(rng, t, lambda c: c.ty in SUPPORTED))
