"""The join query shapes (gen_join) over the join tables: 2-4 tables in a star or
a chain, inner, outer, semi and anti joins, derived tables, filters on each
side; then grouped aggregates (jagg_query) or ordered selections
(jsel_query) of several tables' columns."""
import copy
import re

from rq.exprs import (CMP, QRng, atom, const, flag_of, gen_expr_agg, gen_filter, gen_value, keyable,
                      pick_col)
from rq.query import ALL_ENABLE_GUCS, Query, group_order_by, order_item
from rq.tables import FIXED, INTS, NUMS, TEXTS, TIMES, Col, Table, is_float

# 2-4 tables in a star (a fact table and dimensions) or a chain (each table
# joined to the one before; two can be nested, as in a LEFT JOIN (b JOIN c)),
# inner, left, right and full joins (sometimes inner joins written with a
# comma and the key in WHERE), semi joins (EXISTS, IN (subquery), two-column
# IN) and anti joins (NOT EXISTS, NOT IN, LEFT JOIN ... WHERE key IS NULL),
# some of them ORed with a filter so that PostgreSQL keeps them as SubPlans;
# IN subqueries with GROUP BY ... HAVING, DISTINCT or ORDER BY ... id LIMIT;
# dimensions as aggregating or DISTINCT derived tables; correlated scalar
# subqueries of an aggregate compared in WHERE (x < (SELECT avg(y) FROM ...
# WHERE key = x's key)).  Keys: one or two
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
# nested loops that rescan their inner side (a GpudbScan there runs once per outer row)
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
    unique key, and GpudbAgg under the join."""
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
        if anti and len(X.t.pk) == 1 and len(Y.t.pk) == 1 and \
                X.t.pk[0].dom == Y.t.pk[0].dom and rng.random() < 0.35:
            # both NOT NULL (primary keys): planned as an anti join
            # (src/planner/not_in_rewrite.c)
            pairs = [(X.t.pk[0], Y.t.pk[0])]
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

def scalar_part(rng, X, Y):
    """x op (SELECT agg FROM Y's table WHERE its keys = X's ...), a correlated scalar
    subquery (a join with a grouped derived table where that is the same query:
    src/planner/scalar_subquery_rewrite.c); count, and one ORed with a filter, keep
    their SubPlan."""
    pairs = jpairs(rng, X, Y)
    conds = ['%s = %s' % ((Y.ref(yc), X.ref(xc)) if rng.random() < 0.7 else
                          (X.ref(xc), Y.ref(yc))) for xc, yc in pairs]
    if rng.random() < 0.4:
        conds.append(jfilter(rng, Y))
    xn = [c for c in X.t.cols[1:] if c.ty in INTS + FIXED]
    yn = [c for c in Y.t.cols[1:] if c.ty in INTS + FIXED]
    if xn and yn and rng.random() < 0.7:
        x, y = rng.choice(xn), rng.choice(yn)
        agg = rng.choice(['avg', 'sum', 'min', 'max', 'count'])
        val = '%s(%s)' % (agg, Y.ref(y))
        if agg in ('avg', 'sum') and rng.random() < 0.5:
            val = '%s * %s' % (rng.choice(['0.5', '0.2', '2']), val)
        lhs = X.ref(x)
    else:   # the key's own domain: min or max of Y's first key column
        xc, yc = pairs[0]
        lhs, val = X.ref(xc), '%s(%s)' % (rng.choice(['min', 'max']), Y.ref(yc))
    op = rng.choice(['<', '<=', '=', '<>', '>=', '>'])
    sub = '(SELECT %s FROM %s WHERE %s)' % (val, Y.sql, ' AND '.join(conds))
    s = '%s %s %s' % (lhs, op, sub) if rng.random() < 0.7 else '%s %s %s' % (
        sub, {'<': '>', '<=': '>=', '=': '=', '<>': '<>', '>=': '<=', '>': '<'}[op], lhs)
    if rng.random() < 0.1:         # not decorrelated: a SubPlan run per row
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
            if rng.random() < 0.3:
                rng.scalar = True
                where.append(scalar_part(rng, X, JRel('s%d' % nsemi, t)))
            else:
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
    if len(edges) == 1 and len(rels) == 2 and edges[0][0] == 'LEFT' and not comma and \
            not rels[0].derived and not rels[1].derived and rels[0].t.pk and \
            rng.random() < 0.4:
        q = q13_query(rng, rels, frm, wsql)
        kind = 'q13'
    elif rng.random() < 0.55:
        q = jagg_query(rng, rels, cols, frm, wsql)
        kind = 'agg'
    else:
        q = jsel_query(rng, rels, cols, frm, wsql, bound)
        kind = 'sel'
    q.kind = 'j%s-%s' % (shape, kind)
    q.scalar = getattr(rng, 'scalar', False)
    q.eager = kind == 'q13'
    join_settings(rng, q)
    q.idx = i
    return q

def join_settings(rng, q):
    """The settings of a join query (q.pg_set, q.gpu_off), its flags."""
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
    if ordered:
        sql += group_order_by(rng, len(keys), len(aggs), 0.5, 0.7)
    return Query('join', sql, [f for _, f in keys] + [f for _, f in aggs], ordered)

def q13_query(rng, rels, frm, wsql):
    """TPC-H Q13's shape over A LEFT JOIN B: GROUP BY A's primary key (now and then
    with another column of A), count, sum, min or max of B's columns [ORDER BY]
    (eager_aggregate_rewrite.c's case)."""
    A, B = rels
    keys = [(A.ref(c), is_float(c)) for c in A.t.pk]
    if rng.random() < 0.3:
        c = rng.choice(A.t.cols[1:])
        if c not in A.t.pk:
            keys.append((A.ref(c), is_float(c)))
    aggs = []
    for _ in range(rng.randint(1, 3)):
        c = rng.choice(B.t.cols[1:])
        fns = ['count', 'count'] + (['min', 'max'] if c.ty != 'bool' else []) + \
            (['sum'] if c.ty in NUMS + FIXED or c.ty == 'numeric' else [])
        fn = rng.choice(fns)
        aggs.append(('%s(%s)' % (fn, B.ref(c)), fn != 'count' and is_float(c)))
    sql = 'SELECT %s FROM %s%s GROUP BY %s' % (', '.join(x for x, _ in keys + aggs), frm,
                                               wsql, ', '.join(k for k, _ in keys))
    ordered = rng.random() < 0.5
    if ordered:
        sql += group_order_by(rng, len(keys), len(aggs), 0.5, 0.15)
    return Query('join', sql, [f for _, f in keys + aggs], ordered)

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
