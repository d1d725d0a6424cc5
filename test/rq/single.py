"""The single-table query shapes: selections (scan), aggregates (agg, the ordered
GROUP BY of a GpudbAgg), ORDER BY (sort), constructs the device does not do
(unsup), expressions everywhere (xscan, xsort, xagg), TPC-H Q1/Q6 (q1, q6);
and gen_query, which draws query I of a seed (a join: joins.gen_join)."""
import random

from rq.exprs import (CMP, QRng, atom, cmp_ok, const, flag_of, gen_expr_agg, gen_filter, gen_num,
                      gen_value, keyable, noted, num_const_like, pick_col, sum_exact)
from rq.joins import gen_join
from rq.query import ENABLE_GUCS, PG_TOGGLES, Query, group_order_by, order_item
from rq.eager import gen_eager
from rq.scalar import gen_scalar
from rq.tables import FIXED, FLOATS, INTS, NUMS, SUPPORTED, TEXTS, VARIANCE, is_float

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
                                         'sum(%s) >= (SELECT avg(%s) * %d FROM %s)'
                                         % (ic.name, ic.name, rng.randint(1, 20), t.name),
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
    [OFFSET]]: the shape a GpudbAgg orders and cuts on the device (B4).  Ending the
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
        sql += group_order_by(rng, len(keys), len(aggs), 0.3, 0.5)
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

def gen_query(seed, i, tables, jtables=None, join_share=0.0, scalar_share=0.0, eager_share=0.0):
    # whether query i has a correlated scalar subquery, is of eager aggregation's
    # shape, or joins: RNGs of their own, so that the others stay as they were
    if jtables and random.Random('%d:%d:sq' % (seed, i)).random() < scalar_share:
        return gen_scalar(seed, i, jtables)
    if jtables and random.Random('%d:%d:ea' % (seed, i)).random() < eager_share:
        return gen_eager(seed, i, jtables)
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
