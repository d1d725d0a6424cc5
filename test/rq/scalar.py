"""Correlated scalar subqueries over the join tables (gen_scalar: kinds
sq-agg, sq-sel, sq-q20-agg, sq-q20-sel): the shapes that
src/planner/scalar_subquery_rewrite.c turns into a join with a grouped
derived table, restricted by a "magic set" IN over the correlation table's
own restrictions (which stay in the outer WHERE too), and shapes next to
them that it must leave alone.

  outer table t (a fact table or a dimension), now and then joined to d
  (inner join, comma join or LEFT JOIN, the same table now and then); a
  conjunct
    x op (SELECT agg FROM S s [, U w] WHERE s.k = t.k [AND s.k2 = t.k2 |
          d.k2] [AND s's own filter])
  op one of < <= = <> >= >, the sublink on either side, agg avg, sum, min
  or max of an integer or numeric column (also 0.5 * sum(...), 0.2 *
  avg(...), sum(...) + 1), min or max of a text or date column compared
  with one of t's, now and then count (the count bug: never rewritten),
  avg of a float (not rewritten) or the conjunct ORed with a filter (a
  SubPlan); correlation pairs of the same type mostly (of another: a cast,
  not rewritten), of the key domains (integers, text/varchar/char(10),
  dates, numerics) and now and then bool; a second such conjunct now and
  then.  Restrictions on t: over its correlation columns only (t.k % 3 =
  1, t.k > c, BETWEEN, IN lists, t.k IN (SELECT ... FROM U ...), EXISTS
  correlated to t.k, (t.k, t.k2) IN (SELECT ...), LIKE and length() of a
  text key, extract() of a date key, numeric keys as text), over its other
  columns, over both, under OR; and on d.
  sq-q20: TPC-H Q20's nesting, SELECT ... FROM D d WHERE d.k IN (SELECT
  t.k' FROM T t WHERE <restrictions> AND t.x > (SELECT 0.5 * sum(s.v) FROM
  S s WHERE s.k = t.k AND s.k2 = t.k2 ...)) [AND d's filter].
The outer query is jagg_query's or jsel_query's (joins.py): every plan must
give PostgreSQL's answer."""
from rq.exprs import CMP, QRng, const
from rq.joins import (JRel, jagg_query, jatom, jconds, jdoms, jfilter, jmult, jpairs, join_settings,
                      jsel_query)
from rq.tables import FIXED, INTS, TEXTS, sql_str

FLIP = {'<': '>', '<=': '>=', '=': '=', '<>': '<>', '>=': '<=', '>': '<'}

def key_cols(t, dom=None):
    return [c for c in t.keys if dom is None or c.dom == dom]

def corr_pairs(rng, T, S, jt=()):
    """[(column of T, column of S)]: one or two pairs of key columns of a shared
    domain, of one type mostly; now and then a pair of bool columns.  Two
    pairs of two tables: mostly of jd3's primary key domains (the fact
    tables copy its pairs: the groups are seldom empty)."""
    shared = sorted(jdoms(T) & jdoms(S))
    doms = rng.sample(shared, 2 if len(shared) >= 2 and rng.random() < 0.35 else 1)
    pk2 = [set(c.dom for c in t.pk) for t in jt if len(t.pk) == 2]
    if len(doms) == 2 and T is not S and rng.random() < 0.85:
        doms = sorted(pk2[0]) if pk2 and pk2[0] <= set(shared) else doms[:1]
    out = []
    for d in doms:
        tc = rng.choice(key_cols(T, d))
        same = [c for c in key_cols(S, d) if c.ty == tc.ty]
        out.append((tc, rng.choice(same if same and rng.random() < 0.85 else key_cols(S, d))))
    tb = [c for c in T.cols if c.ty == 'bool']
    sb = [c for c in S.cols if c.ty == 'bool']
    if tb and sb and rng.random() < 0.25:
        out.append((rng.choice(tb), rng.choice(sb)))
        if rng.random() < 0.3:
            out = out[-1:] + out[:-1]
    return out

def lit(rng, c):
    """A constant of key column c's type (a NULL now and then); of a key column
    mostly one of the values it holds (restrictions that keep rows: an empty
    result compares trivially)."""
    if getattr(c, 'dom', None) and c.values and rng.random() < 0.7:
        return plain_lit(rng.choice([v for v in c.values if v is not None] or [None]), c)
    return const(rng, c)

def plain_lit(v, c):
    """Value v (a literal's body, or None) of key column c as an SQL literal."""
    if v is None:
        return 'NULL'
    if c.ty in INTS or c.ty in FIXED:
        return "'NaN'::numeric" if v == 'NaN' else '(%s)' % v if v[0] == '-' else v
    if c.ty == 'date':
        return "DATE %s" % sql_str(v)
    return sql_str(v)

def lit_range(rng, c):
    """Two constants for BETWEEN: of a key column's values, low first mostly."""
    vals = [v for v in (c.values or []) if v is not None and v != 'NaN']
    if getattr(c, 'dom', None) in ('i', 'd', 'n') and vals and rng.random() < 0.8:
        key = (lambda v: v) if c.dom == 'd' else float
        a, b = sorted([rng.choice(vals), rng.choice(vals)], key=key)
        return plain_lit(a, c), plain_lit(b, c)
    return lit(rng, c), lit(rng, c)

def corr_restriction(rng, jt, rel, cs, n):
    """A restriction of rel that reads only its columns cs (correlation columns)."""
    c = rng.choice(cs)
    ref, ty, dom = rel.ref(c), c.ty, getattr(c, 'dom', None)
    r = rng.random()
    if len(cs) >= 2 and r < 0.12:   # over two of them
        a, b = rng.sample(cs, 2)
        us = [t for t in jt if jdoms(t) >= {getattr(a, 'dom', '?'), getattr(b, 'dom', '?')}]
        if us and rng.random() < 0.6:
            u = JRel('u%d' % n, rng.choice(us))
            ua, ub = rng.choice(key_cols(u.t, a.dom)), rng.choice(key_cols(u.t, b.dom))
            w = ' WHERE ' + soft(rng, u) if rng.random() < 0.5 else ''
            return '(%s, %s) IN (SELECT %s, %s FROM %s%s)' % (rel.ref(a), rel.ref(b), u.ref(ua),
                                                              u.ref(ub), u.sql, w)
        return '(%s %s %s)' % (simple(rng, rel, a), rng.choice(['AND', 'OR']),
                               simple(rng, rel, b))
    if dom and r < 0.35:         # a semi join with another table's key column
        u = JRel('u%d' % n, rng.choice([t for t in jt if dom in jdoms(t)]))
        uc = rng.choice(key_cols(u.t, dom))
        w = soft(rng, u) if rng.random() < 0.6 else None
        if rng.random() < 0.25:     # correlated to rel's column only
            return '%sEXISTS (SELECT 1 FROM %s WHERE %s = %s%s)' % (
                'NOT ' if rng.random() < 0.2 else '', u.sql, u.ref(uc), ref,
                ' AND ' + w if w else '')
        neg = 'NOT ' if rng.random() < 0.1 else ''
        return '%s %sIN (SELECT %s FROM %s WHERE %s%s)' % (
            ref, neg, u.ref(uc), u.sql, '%s IS NOT NULL' % u.ref(uc) if neg else 'true',
            ' AND ' + w if w else '')
    if r < 0.45:
        return '(%s OR %s)' % (simple(rng, rel, c), simple(rng, rel, c))
    if r < 0.5:
        return 'NOT (%s)' % simple(rng, rel, c)
    return simple(rng, rel, c)

def simple(rng, rel, c):
    """A comparison of rel's column c with constants (an expression over it now
    and then)."""
    ref, ty = rel.ref(c), c.ty
    r = rng.random()
    if ty == 'bool':
        return rng.choice([ref, 'NOT %s' % ref, '%s IS TRUE' % ref, '%s IS NOT FALSE' % ref,
                           '%s = %s' % (ref, lit(rng, c))])
    if r < 0.1:
        return '%s IS %sNULL' % (ref, 'NOT ' if rng.random() < 0.8 else '')
    if r < 0.2:
        return '%s %sIN (%s)' % (ref, 'NOT ' if rng.random() < 0.2 else '',
                                 ', '.join(lit(rng, c) for _ in range(rng.randint(1, 5))))
    if r < 0.3:
        return '%s BETWEEN %s AND %s' % ((ref,) + lit_range(rng, c))
    if r < 0.6:
        if ty in INTS:
            return rng.choice(['%s %% 3 = %d' % (ref, rng.randint(0, 2)),
                               '%s %% 2 <> 0' % ref, 'abs(%s - 12) < %d' % (ref, rng.randint(2, 9)),
                               '(%s * 2 + 1) %s %d' % (ref, rng.choice(CMP), rng.randint(0, 60))])
        if ty == 'date':
            return rng.choice(['extract(dow FROM %s) %s %d' % (ref, rng.choice(CMP),
                                                              rng.randint(0, 6)),
                               "%s - DATE '1995-01-01' %s %d" % (ref, rng.choice(CMP),
                                                                 rng.randint(0, 150)),
                               "date_trunc('month', %s) = DATE '1995-0%d-01'"
                               % (ref, rng.randint(1, 5))])
        if ty in TEXTS:
            return rng.choice(["%s LIKE '%s%%'" % (ref, rng.choice(['a', 'A', 'b', 'x', 'k'])),
                               'length(%s) %s %d' % (ref, rng.choice(CMP), rng.randint(0, 3)),
                               "lower(%s) = %s" % (ref, sql_str(rng.choice(['a', 'ab', 'b', 'x']))),
                               "%s::text = 'b '" % ref, "%s || '|' LIKE '%% |'" % ref,
                               "octet_length(%s) > 1" % ref])
        if ty in FIXED:
            return rng.choice(["%s::text LIKE '%%.50%%'" % ref, 'trunc(%s) %% 2 = 0' % ref,
                               '%s * 4 %s %d' % (ref, rng.choice(CMP), rng.randint(-4, 40))])
    return '%s %s %s' % (ref, rng.choice(CMP), lit(rng, c))

def soft(rng, rel, depth=None, keep=0.6):
    """A filter over rel: jatom's comparisons with the column's own values most
    of the time (keep: they keep rows), else jfilter's."""
    if rng.random() < keep:
        rng.table = rel.t
        return rel.q(jatom(rng, rel.t))
    return jfilter(rng, rel, depth)

def pick_op(rng, own, fn=None, big=False, same=False):
    """The comparison of x with the subquery's value, drawn so that it holds for a
    fair share of the rows (an empty result compares trivially): where that is
    min or max of x's own column over x's own group (own), = mostly (Q2's x =
    min(x)) or the side that x's own group keeps (x >= min, x < max; x < min
    holds for none, now and then all the same); where the value is a sum or
    a multiple of the group's values (big), < <= mostly; else <, <=, >, >=
    mostly (an average is seldom equal to anything)."""
    if own:
        keep = {'min': ['>=', '>=', '>'], 'max': ['<=', '<=', '<']}.get(fn, ['<=', '>='])
        return rng.choice(['=', '=', '='] + keep * 2 + ['<>', '<', '>'])
    if big:
        return rng.choice(['<', '<='] * 4 + ['>', '>=', '=', '<>'])
    if same:        # x's own column, its own group (of one row, often)
        return rng.choice(['<=', '>='] * 4 + ['<', '>', '=', '<>'])
    return rng.choice(['<', '<=', '>', '>='] * 4 + ['=', '<>'])

def scalar_value(rng, T, S):
    """(the subquery's select item, x over T's columns it is compared with, the
    comparison operator), or None.  Q17's and Q2's: most of the time x is the
    aggregated column itself (S is T's table) or one of its type and range."""
    tn = [c for c in T.t.cols[1:] if c.ty in INTS + FIXED] + \
        [c for c in T.t.cols[1:] if c.ty == 'float8' and rng.random() < 0.3]
    sn = [c for c in S.t.cols[1:] if c.ty in INTS + FIXED]
    r = rng.random()
    if tn and sn and r < 0.75:
        y = rng.choice(sn)
        like = [c for c in tn if c.name == y.name and T.t is S.t] or \
            [c for c in tn if c.ty == y.ty and c.mode == y.mode]
        x = rng.choice(like if like and rng.random() < 0.8 else tn)
        fn = rng.choice(['avg', 'sum', 'min', 'max', 'avg', 'avg'] + (['count'] if r < 0.05
                                                                       else []))
        val = '%s(%s)' % (fn, S.ref(y))
        big = fn in ('sum', 'count')
        if fn in ('avg', 'sum') and rng.random() < 0.5:
            form = rng.choice(['0.5 * %s', '0.2 * %s', '%s * 2', '(%s + 1)', '1.5 * %s - 3',
                               '0.9 * %s'])
            val = form % val
            big = big or form in ('%s * 2', '1.5 * %s - 3')
        lhs = T.ref(x)
        if rng.random() < 0.1:
            lhs = '(%s + 1)' % lhs
        return val, lhs, pick_op(rng, fn in ('min', 'max') and x.name == y.name and
                                 T.t is S.t and lhs == T.ref(x), fn, big,
                                 x.name == y.name and T.t is S.t)
    op = rng.choice(CMP)
    sf = [c for c in S.t.cols[1:] if c.ty == 'float8']
    tf = [c for c in T.t.cols[1:] if c.ty in INTS + FIXED + ('float8',)]
    if sf and tf and r < 0.8:       # avg of a float: kept as written
        return 'avg(%s)' % S.ref(rng.choice(sf)), T.ref(rng.choice(tf)), op
    for fam in rng.sample(['date', 'text'], 2):    # min or max of another family
        ok = (lambda c: c.ty == 'date') if fam == 'date' else (lambda c: c.ty in TEXTS)
        ts, ss = [c for c in T.t.cols[1:] if ok(c)], [c for c in S.t.cols[1:] if ok(c)]
        if ts and ss:
            y = rng.choice(ss)
            same = [c for c in ts if c.name == y.name and T.t is S.t]
            x = rng.choice(same if same and rng.random() < 0.7 else ts)
            fn = rng.choice(['min', 'max'])
            return '%s(%s)' % (fn, S.ref(y)), T.ref(x), pick_op(rng, x in same, fn)
    return None

def scalar_conjunct(rng, jt, T, D, n):
    """x op (SELECT agg FROM S WHERE S's keys = T's [and D's] ...), and the
    correlation columns of T (their Cols)."""
    S = JRel('s%d' % n, T.t if rng.random() < 0.35 else
             rng.choice([t for t in jt if jdoms(t) & jdoms(T.t)]))
    pairs = corr_pairs(rng, T.t, S.t, jt)
    conds, tcorr = [], []
    for k, (tc, sc) in enumerate(pairs):
        src = T
        if k > 0 and D is not None and not D.derived and rng.random() < 0.4:
            dc = [c for c in D.t.keys if getattr(c, 'dom', None) == getattr(tc, 'dom', '?') and
                  c.ty == sc.ty]
            if dc:
                src, tc = D, rng.choice(dc)
        if src is T:
            tcorr.append(tc)
        conds.append('%s = %s' % ((S.ref(sc), src.ref(tc)) if rng.random() < 0.7 else
                                  (src.ref(tc), S.ref(sc))))
    frm = S.sql
    if rng.random() < 0.15:         # Q2's: the subquery joins another table
        U = JRel('w%d' % n, rng.choice([t for t in jt if jdoms(t) & jdoms(S.t)]))
        frm += ', ' + U.sql
        conds += jconds(rng, S, U, jpairs(rng, S, U)[:1])
        if rng.random() < 0.5:
            conds.append(soft(rng, U, keep=0.8))
    if rng.random() < 0.4:
        conds.append(soft(rng, S, keep=0.8))
    rng.shuffle(conds)
    v = scalar_value(rng, T, S)
    if v is None:                   # the key's own: min or max of S's first key column
        tc, sc = pairs[0]
        fn = rng.choice(['min', 'max'])
        v = '%s(%s)' % (fn, S.ref(sc)), T.ref(tc), pick_op(rng, True, fn)
    val, lhs, op = v
    if any(val in ('min(%s)' % S.ref(sc), 'max(%s)' % S.ref(sc)) and lhs == T.ref(tc)
           for tc, sc in pairs[:len(tcorr)] if tc in tcorr):
        # min or max of the correlation column: x's own value (of a group that
        # holds x), so = <= >= (a strict one or <> holds for no row)
        op = rng.choice(['=', '=', '<=', '>=', '<=', '>=', '<>'])
    sub = '(SELECT %s FROM %s WHERE %s)' % (val, frm, ' AND '.join(conds))
    s = '%s %s %s' % (lhs, op, sub) if rng.random() < 0.75 else '%s %s %s' % (sub, FLIP[op], lhs)
    if rng.random() < 0.06:         # not a top-level conjunct: a SubPlan
        s = '(%s OR %s)' % (soft(rng, T, 0), s)
    return s, tcorr

def restrictions(rng, jt, T, tcorr, D):
    """Restrictions of the query: over T's correlation columns only, over its
    others, over both, over D; sets rng.magic where one reads only correlation
    columns (the rewrite copies it into the derived table's key restriction)."""
    out = []
    for k in range(rng.choice([0, 1, 1, 1, 2, 2, 3])):
        r = rng.random()
        if r < 0.55 and tcorr:
            cs = rng.sample(tcorr, rng.randint(1, len(tcorr)))
            out.append(corr_restriction(rng, jt, T, cs, k))
            rng.magic = True
        elif r < 0.8:
            out.append(soft(rng, T))
        elif r < 0.9 and tcorr:     # a correlation column and another column
            c = rng.choice(tcorr)
            o = [x for x in T.t.cols[1:] if x.ty == c.ty and x is not c]
            out.append('(%s %s %s)' % (T.ref(c), rng.choice(CMP), T.ref(o[0])) if o else
                       '(%s OR %s)' % (simple(rng, T, c), soft(rng, T, 0)))
        elif D is not None and not D.derived:
            out.append(soft(rng, D))
    return out

def gen_scalar(seed, i, jt):
    """A random query with a correlated scalar subquery over the join tables jt."""
    rng = QRng('%d:%d:scalar' % (seed, i))
    rng.nofail, rng.risk = True, False
    rng.xp = rng.choice([0.12, 0.12, 0.4])
    rng.flavor = rng.choice(['numeric', 'int', 'float', 'mix'])
    rng.magic = False
    facts = [t for t in jt if t.role == 'fact']
    if rng.random() < 0.25:
        q, shape = q20_query(rng, jt), 'q20-'
    else:
        shape = ''
        r = rng.random()
        T = JRel('t', facts[0] if r < 0.35 else facts[1] if r < 0.55 else rng.choice(jt))
        rels, frm, where, D = [T], T.sql, [], None
        bound = T.t.nrows
        if rng.random() < 0.4:
            D = JRel('d', rng.choice([t for t in jt if jdoms(t) & jdoms(T.t)]))
            pairs = jpairs(rng, T, D)
            conds = jconds(rng, T, D, pairs)
            bound *= min(jmult(D, yc) for _, yc in pairs)
            r = rng.random()
            if r < 0.3:
                frm += ', ' + D.sql
                where += conds
            else:
                frm += ' %s %s ON %s' % ('LEFT JOIN' if r < 0.45 else 'JOIN', D.sql,
                                         ' AND '.join(conds))
            rels.append(D)
        s, tcorr = scalar_conjunct(rng, jt, T, D, 1)
        where.append(s)
        if rng.random() < 0.12:     # a second one
            s2, tcorr2 = scalar_conjunct(rng, jt, T, D, 2)
            where.append(s2)
            tcorr += [c for c in tcorr2 if c not in tcorr]
        where += restrictions(rng, jt, T, tcorr, D)
        rng.shuffle(where)
        wsql = ' WHERE ' + ' AND '.join(where)
        q = outer_query(rng, rels, frm, wsql, bound, 0.5)
    q.kind = 'sq-' + shape + q.kind
    q.scalar, q.magic = True, rng.magic
    join_settings(rng, q)
    q.idx = i
    return q

def q20_query(rng, jt):
    """TPC-H Q20's nesting: D's rows whose key is IN the keys of T's rows that
    pass T's restrictions and a correlated scalar subquery."""
    facts = [t for t in jt if t.role == 'fact']
    T = JRel('t', rng.choice(facts) if rng.random() < 0.7 else rng.choice(jt))
    s, tcorr = scalar_conjunct(rng, jt, T, None, 1)
    inner = [s] + restrictions(rng, jt, T, tcorr, None)
    if not any(x.startswith(T.ref(c) + ' IN (SELECT') for x in inner for c in tcorr) and \
            tcorr and getattr(tcorr[0], 'dom', None) and rng.random() < 0.6:
        inner.append(corr_restriction_in(rng, jt, T, tcorr[0]))    # Q20's own
        rng.magic = True
    rng.shuffle(inner)
    # the IN's column: one of T's key columns (a correlation column or not)
    tk = rng.choice(T.t.keys)
    D = JRel('d', rng.choice([t for t in jt if tk.dom in jdoms(t)]))
    dk = rng.choice(key_cols(D.t, tk.dom))
    where = ['%s IN (SELECT %s FROM %s WHERE %s)' % (D.ref(dk), T.ref(tk), T.sql,
                                                     ' AND '.join(inner))]
    rels, frm = [D], D.sql
    if rng.random() < 0.3:      # Q20's nation: D joined to another table
        E = JRel('e', rng.choice([t for t in jt if jdoms(t) & jdoms(D.t)]))
        frm += ', ' + E.sql
        where += jconds(rng, D, E, jpairs(rng, D, E))
        if rng.random() < 0.5:
            where.append(soft(rng, E))
        rels.append(E)
    if rng.random() < 0.4:
        where.append(soft(rng, D))
    wsql = ' WHERE ' + ' AND '.join(where)
    bound = D.t.nrows * (1 if len(rels) == 1 else 80)
    return outer_query(rng, rels, frm, wsql, bound, 0.4)

def outer_query(rng, rels, frm, wsql, bound, p_agg):
    """jagg_query's (probability p_agg) or jsel_query's query over rels; its kind
    'agg' or 'sel'."""
    cols = [(r, c) for r in rels for c in r.t.cols[1:]]
    rng.jbound = bound
    if rng.random() < p_agg:
        q = jagg_query(rng, rels, cols, frm, wsql)
        q.kind = 'agg'
    else:
        q = jsel_query(rng, rels, cols, frm, wsql, bound)
        q.kind = 'sel'
    return q

def corr_restriction_in(rng, jt, rel, c):
    """Q20's ps_partkey IN (SELECT p_partkey FROM part WHERE p_name LIKE ...)."""
    u = JRel('p', rng.choice([t for t in jt if c.dom in jdoms(t)]))
    uc = rng.choice(key_cols(u.t, c.dom))
    return '%s IN (SELECT %s FROM %s WHERE %s)' % (rel.ref(c), u.ref(uc), u.sql, soft(rng, u))
