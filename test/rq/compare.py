"""The comparison of both sides' results (SQLSTATEs, rows in order or as
multisets, floats and numerics by value) and the report of a difference."""
import decimal
import math
import re

from rq.session import FS, NULL

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
    return set(m for line in r['E'][2] for m in re.findall(r'Custom Scan \((Gpudb\w+)\)', line))

def ordered_join(r):
    """Whether the plan's GpudbJoin orders (and cuts) its groups itself: its
    Sort Keys line, in a plan with no other Gpudb node that has one."""
    nodes = gpu_nodes(r)
    return 'GpudbJoin' in nodes and not nodes & {'GpudbSort', 'GpudbAgg'} and \
        any('Sort Keys:' in line for line in r['E'][2])

def host_ordered(r):
    """Whether a GpudbAgg or GpudbJoin of the plan orders its finished groups on
    the host (its "Host Sort Keys" line: text keys or count(DISTINCT) among the
    sort keys, src/executor/host_order.c)."""
    return 'E' in r and any('Host Sort Keys:' in line for line in r['E'][2])

def device_having(r):
    """Whether a Gpudb node of the plan evaluates HAVING quals on the device
    (its "HAVING Quals on Device" line, groupby_having.c)."""
    return 'E' in r and any('HAVING Quals on Device:' in line for line in r['E'][2])

SCALAR_DEBUG = re.compile(r'correlated scalar subquery as a join: cost ([0-9.e+]+), '
                          r'as written ([0-9.e+]+)')

def plan_rewritten(r, alias, debug):
    """Whether the plan is a rewrite's (rewrite_choice.c): its derived table's
    alias in the plan, or where the plan elides that subquery scan, the
    planner's DEBUG1 line (regex debug: rewritten cost, cost as written) that
    the rewrite cost less."""
    if 'E' in r and any(re.search(r'\b%s\b' % alias, line) for line in r['E'][2]):
        return True
    for line in r.get('W', (0, 0, []))[2]:
        m = debug.search(line)
        if m and float(m.group(1)) < float(m.group(2)):
            return True
    return False

def scalar_rewritten(r):
    """Whether the plan joins a correlated scalar subquery's grouped derived
    table (src/planner/scalar_subquery_rewrite.c; alias scalar_subquery)."""
    return plan_rewritten(r, 'scalar_subquery', SCALAR_DEBUG)

EAGER_DEBUG = re.compile(r'eager aggregation below a left join: cost ([0-9.e+]+), '
                         r'as written ([0-9.e+]+)')

def eager_taken(r):
    """Whether src/planner/eager_aggregate_rewrite.c took the query's shape (some
    level of it): its DEBUG1 line, printed whichever plan costs less."""
    return any(EAGER_DEBUG.search(line) for line in r.get('W', (0, 0, []))[2])

def eager_rewritten(r):
    """Whether the plan is the eager aggregation rewrite's
    (src/planner/eager_aggregate_rewrite.c; alias eager_aggregate)."""
    return plan_rewritten(r, 'eager_aggregate', EAGER_DEBUG)

def derived_join(r):
    """Whether a GpudbJoin of the plan has a derived table's build side: a plan
    node under it (the derived table's plan, join_build.c)."""
    lines = r['E'][2] if 'E' in r else []
    for i, line in enumerate(lines):
        if 'Custom Scan (GpudbJoin)' not in line:
            continue
        depth = len(line) - len(line.lstrip(' -'))
        for below in lines[i + 1:]:
            d = len(below) - len(below.lstrip(' -'))
            if d <= depth and below.strip():
                break
            if below.lstrip().startswith('->'):
                return True
    return False

def show(lines, n=8):
    s = [x.replace(FS, ' | ') for x in lines[:n]]
    return '\n      '.join(s) + ('\n      ... (%d rows)' % len(lines) if len(lines) > n else '')

def report(q, r, why, seed, title='DIFFERENCE'):
    print('--- %s in query %d (%s), seed %d: %s' % (title, q.idx, q.kind, seed, why))
    print('    settings: planner %s, gpudb off-switches %s' % (q.pg_set or '-', q.gpu_off or '-'))
    print('    query (gpudb on):  %s' % q.sql)
    if q.sql_off != q.sql:
        print('    query (gpudb off): %s' % q.sql_off)
    for tag, what in (('E', 'plan'), ('W', 'planner DEBUG1 lines'), ('A', 'gpudb on'),
                      ('B', 'gpudb off')):
        if tag in r and (tag != 'W' or r[tag][2]):
            print('    %s [%s]:\n      %s' % (what, r[tag][0], show(r[tag][2])))
