"""Eager aggregation below a left join over the join tables (gen_eager: kinds
ea-plain, ea-q13, ea-wrap, ea-cte and the near misses ea-limit, ea-having,
ea-distinct): the shapes that src/planner/eager_aggregate_rewrite.c turns
into A LEFT JOIN a derived table grouping B by its join keys (TPC-H Q13's
inner query), and shapes next to them that it must leave alone.

  SELECT <A's key columns> [, A's other columns], <aggregates over B>
  FROM A a LEFT JOIN B b ON a.k = b.fk [AND a.k2 = b.fk2] [AND a.x = b.y]
       [AND B-only conditions]
  [WHERE A-only filter] GROUP BY <A's primary key> [, A's other columns]
  [ORDER BY every output column]
A is a table with a primary key (rq.jd1, jd2: one column, jd3: two), B any
join table (A's own now and then) with a key column of each of A's join
domains.  Aggregates: count(b.c) of any column (the join key too), sum and
avg of an integer or numeric, min and max; now and then an expression over
them (count(b.c) * 2, coalesce(sum(b.c), 0), max(b.c) - min(b.c)).  B-only
ON conditions that cannot raise (comparisons of a column with a constant of
its type, IN lists of leakproof equalities, BETWEEN, IS [NOT] NULL, LIKE,
NOT LIKE, ILIKE without a backslash, AND/OR/NOT of those).  Around it: an
ORDER BY at its own level, Q13's outer GROUP BY over an aggregate's column
(SELECT c_count, count(*) FROM (...) AS c_orders (c_custkey, c_count) GROUP
BY c_count), an outer ORDER BY ... LIMIT, a CTE.
Near misses (each query draws a few of these now and then; the rewrite
must refuse every query that has one): INNER, RIGHT and FULL joins, B LEFT
JOIN A, a third table; A without a primary key (rq.jd4, jf, jg grouped by a
key column or by id, unique but not declared so); GROUP BY without the
whole primary key (jd3's first column, a non-key column), or with a column
of B or an expression; join keys of two types (int4 = int8, char(10) =
text) or an expression on one side; ON conditions that may raise (arithmetic,
functions, numeric IN lists, casts, date against timestamp), over A, or
over both tables; a WHERE over B; count(*), count(1), count(DISTINCT),
FILTER, sum or avg of a float, an aggregate of an expression or of A's
column, bool_and; HAVING, DISTINCT, LIMIT at the query's own level.
Each query notes whether it was drawn to fit (q.eager_expect 'yes'), as a
near miss ('no'), or either (None: a filter from the general generator);
the summary counts how many of each the rewrite took (the planner's DEBUG1
line: it is printed for every query whose shape it takes, cheaper or not).
They are join queries (join_settings: planner switches, no overflow)."""
from rq.exprs import CMP, QRng, const
from rq.joins import JRel, jatom, jdoms, jfilter, join_settings
from rq.query import Query
from rq.tables import FIXED, FLOATS, INTS, TEXTS, is_float, sql_str

# the key domains' equality types: a join key pair the rewrite takes is of one
def base_type(c):
    ty = c.ty
    if ty in ('text', 'varchar'):
        return 'text'
    if ty == 'char(10)':
        return 'bpchar'
    if ty.startswith('numeric'):
        return 'numeric'
    return ty

def same_eq(a, b):
    """Whether a = b is an equality of one type, as the rewrite wants: one base
    type, or varchar and char(10) (varchar is binary-coercible to bpchar; text
    = char(10) casts the char(10) by a function)."""
    return base_type(a) == base_type(b) or {a.ty, b.ty} == {'varchar', 'char(10)'}

def summable(c):
    return c.ty in INTS + FIXED

class Draw:
    """What the query drew: the reasons the rewrite must refuse it (misses) and
    whether a part of it came from the general filter generator (unsure)."""
    def __init__(self, rng):
        self.rng, self.misses, self.unsure = rng, [], False

    def miss(self, p, why):
        """With probability p, a near miss of kind why (returns whether)."""
        if self.rng.random() < p:
            self.misses.append(why)
            return True
        return False

def lit(rng, c):
    """A constant of column c's own type, never NULL (a numeric with a decimal
    point: an integer literal would be converted by a function call)."""
    v = const(rng, c)
    for _ in range(5):
        if v != 'NULL':
            break
        v = const(rng, c)
    if v == 'NULL':
        v = sql_str(c.values[0]) if c.values else "'1'"
    if c.ty in FIXED:
        v = v.strip('()')
        if v in ("'NaN'", "'Infinity'", "'-Infinity'", "'NaN'::numeric"):
            return "'NaN'::numeric"
        if 'e' in v:
            return '1000000.5'
        return '(%s)' % (v if '.' in v else v + '.0') if v.startswith('-') else \
            (v if '.' in v else v + '.0')
    if c.ty in FLOATS:
        return "'%s'::float8" % (rng.choice(c.values) if c.values else '1.5')
    if c.ty in INTS:     # small ones (a wide literal would be a numeric), of c's type (an
        v = rng.choice(c.values) if c.values else '1'   # IN list's common type)
        return "'%s'::%s" % (v, c.ty) if c.ty != 'int4' else '(%s)' % v if v.startswith('-') \
            else v
    return v

def like_pat(rng, c):
    v = rng.choice(c.values) if c.values else 'a'
    k = rng.randint(0, len(v))
    p = rng.choice([v[:k] + '%', '%' + v[k:], '%' + v[k:k + 2] + '%', v[:k] + '_' + v[k + 1:],
                    '%special%requests%'])
    return sql_str(p.replace('\\', ''))

def b_cond(rng, B, depth=1):
    """(A condition over B's columns only, whether the rewrite deems it unable to
    raise)."""
    cols = [c for c in B.t.cols[1:] if c.values]
    c = rng.choice(cols)
    ref = B.ref(c)
    r = rng.random()
    if depth and r < 0.1:
        (x, sx), (y, sy) = b_cond(rng, B, 0), b_cond(rng, B, 0)
        return '(%s %s %s)' % (x, rng.choice(['AND', 'OR']), y), sx and sy
    if depth and r < 0.15:
        x, sx = b_cond(rng, B, 0)
        return 'NOT (%s)' % x, sx
    if r < 0.25:
        return '%s IS %sNULL' % (ref, rng.choice(['', 'NOT ', 'NOT '])), True
    if r < 0.33 and c.ty in TEXTS:
        return '%s %s %s' % (ref, rng.choice(['LIKE', 'NOT LIKE', 'NOT LIKE', 'ILIKE',
                                              'NOT ILIKE']), like_pat(rng, c)), True
    if c.ty == 'bool':
        return rng.choice([(ref, True), ('NOT %s' % ref, True), ('%s IS TRUE' % ref, True),
                           ('%s IS NOT FALSE' % ref, True)])
    if r < 0.45:
        n = rng.randint(1, 4)
        lst = ', '.join(lit(rng, c) for _ in range(n))
        # one item: an = (or <>); else numeric_eq is not leakproof (a numeric IN list
        # may raise), and a varchar's list is coerced to text[] (an ArrayCoerceExpr)
        return '%s %sIN (%s)' % (ref, rng.choice(['', '', 'NOT ']), lst), \
            n == 1 or c.ty not in FIXED + ('varchar',)
    if r < 0.55:
        return '%s BETWEEN %s AND %s' % (ref, lit(rng, c), lit(rng, c)), True
    if r < 0.6:     # what the rewrite must deem able to raise
        if c.ty in INTS:
            return '%s %s %d %s %d' % (ref, rng.choice(['+', '-', '*', '%']), rng.randint(1, 5),
                                       rng.choice(CMP), rng.randint(-5, 40)), False
        if c.ty in TEXTS:
            return rng.choice(['length(%s) > 1' % ref, "lower(%s) <> 'a'" % ref,
                               "%s ~ '^[a-k]'" % ref, "%s::text LIKE 'a%%'" % ref
                               if c.ty == 'char(10)' else "upper(%s) LIKE 'A%%'" % ref]), False
        if c.ty == 'date':
            return rng.choice(["%s < TIMESTAMP '1995-03-01 12:00'" % ref,
                               'extract(month FROM %s) > 1' % ref,
                               "%s + 3 > DATE '1995-02-01'" % ref]), False
        if c.ty == 'timestamp':
            return "%s < DATE '1995-03-01'" % ref, False
        if c.ty in FIXED:
            return rng.choice(['%s > 5' % ref, '%s * 2 > 10.5' % ref, 'round(%s) <> 3' % ref,
                               'trunc(%s) > 2' % ref]), False
        if c.ty in FLOATS:
            return '%s > 1.5' % ref, False
    return '%s %s %s' % (ref, rng.choice(CMP), lit(rng, c)), True

def a_filter(rng, A, d):
    """A WHERE over A's columns (the rewrite takes any, without a sublink or a
    volatile function)."""
    if rng.random() < 0.6:
        rng.table = A.t
        s = A.q(jatom(rng, A.t))
    else:
        s = jfilter(rng, A)
    if 'SELECT' in s or 'random()' in s:
        d.misses.append('a-sublink')
    return s

def key_pairs(rng, A, B, d):
    """[(A's column, B's column)]: A's primary key (jd3's both columns mostly, or
    one of them) or another key column of A, each with one of B's columns of its
    domain, of A's column's type mostly."""
    pk = list(A.t.pk) or [rng.choice(A.t.keys)]
    if len(pk) == 2 and rng.random() < 0.2:
        pk = [rng.choice(pk)]
    doms_b = jdoms(B.t)
    acols = [c for c in pk if c.dom in doms_b]
    if not acols or rng.random() < 0.1:
        acols = [rng.choice([c for c in A.t.keys if c.dom in doms_b])]
    if rng.random() < 0.12:         # and another pair, a non-key column of A
        more = [c for c in A.t.keys if c not in acols and c.dom in doms_b]
        if more:
            acols.append(rng.choice(more))
    out = []
    for ac in acols:
        bs = [c for c in B.t.keys if c.dom == ac.dom and (B.t is not A.t or c is not ac)] or \
            [c for c in B.t.keys if c.dom == ac.dom]
        same = [c for c in bs if same_eq(c, ac)]
        bc = rng.choice(same if same and rng.random() < 0.88 else bs)
        if not same_eq(bc, ac):
            d.misses.append('key-types')
        out.append((ac, bc))
    return out

def key_cond(rng, A, B, ac, bc, d):
    a, b = A.ref(ac), B.ref(bc)
    if d.miss(0.025, 'key-expr'):
        e = {'i': '(%s + 0)', 't': 'lower(%s)', 'd': '(%s + 0)', 'n': '(%s + 0)'}[ac.dom]
        if rng.random() < 0.5:
            a = e % a
        else:
            b = e % b
    return '%s = %s' % ((a, b) if rng.random() < 0.75 else (b, a))

def agg_item(rng, A, B, d):
    """(An aggregate (expression) over B's columns, compare flag, its own near
    miss or None)."""
    cs = B.t.cols[1:]
    r = rng.random()
    if r < 0.02:
        return 'count(*)', False, 'count-star'
    if r < 0.027:
        return 'count(1)', False, 'count-const'
    if r < 0.037:
        c = rng.choice(cs)
        return 'count(DISTINCT %s)' % B.ref(c), False, 'distinct'
    if r < 0.047:
        c, f = rng.choice(cs), rng.choice([x for x in cs if x.values] or cs)
        fn = 'count' if c.ty == 'bool' else rng.choice(['count', 'min', 'max'])
        cond = '%s IS NOT NULL' % B.ref(f) if rng.random() < 0.5 else \
            '%s %s %s' % (B.ref(f), rng.choice(CMP), lit(rng, f)) if f.values and \
            f.ty != 'bool' else B.ref(f) if f.ty == 'bool' else '%s IS NULL' % B.ref(f)
        return '%s(%s) FILTER (WHERE %s)' % (fn, B.ref(c), cond), \
            fn != 'count' and is_float(c), 'filter'
    if r < 0.057:
        fl = [c for c in cs if c.ty in FLOATS]
        if fl:
            fn = rng.choice(['sum', 'avg'])
            return '%s(%s)' % (fn, B.ref(rng.choice(fl))), True, 'float-sum'
    if r < 0.067:
        ints = [c for c in cs if c.ty in INTS + FIXED]
        if ints:
            c = rng.choice(ints)
            return '%s(%s %s)' % (rng.choice(['sum', 'max', 'count']), B.ref(c),
                                  rng.choice(['+ 1', '* 2'])), False, 'agg-expr'
    if r < 0.077:
        c = rng.choice([x for x in A.t.cols[1:] if x.ty != 'bool'])
        fn = rng.choice(['count', 'min', 'max'])
        return '%s(%s)' % (fn, A.ref(c)), fn != 'count' and is_float(c), 'agg-of-a'
    if r < 0.08:
        bl = [c for c in cs if c.ty == 'bool']
        if bl:
            return 'bool_and(%s)' % B.ref(rng.choice(bl)), False, 'bool-and'
    # what the rewrite takes
    c = rng.choice(B.t.keys if rng.random() < 0.2 else cs)
    fns = ['count', 'count'] + (['min', 'max'] if c.ty != 'bool' else []) + \
        (['sum', 'avg', 'sum'] if summable(c) else [])
    fn = rng.choice(fns)
    s, f = '%s(%s)' % (fn, B.ref(c)), fn != 'count' and is_float(c)
    r = rng.random()
    if r < 0.06 and fn == 'count':
        s = '%s * 2' % s
    elif r < 0.12 and fn == 'sum':
        s = 'coalesce(%s, 0)' % s
    elif r < 0.16 and c.ty in ('int4', 'int8', 'date') + FIXED:
        s = 'max(%s) - min(%s)' % (B.ref(c), B.ref(c))
        f = False
    return s, f, None

def order_all(rng, n, agg_first=None):
    """ORDER BY every output position (a total order where the keys are unique),
    one of them first now and then."""
    pos = [str(k + 1) for k in range(n)]
    rng.shuffle(pos)
    if agg_first and rng.random() < 0.5:
        pos.remove(str(agg_first))
        pos.insert(0, str(agg_first))
    return ' ORDER BY ' + ', '.join(p + rng.choice(['', ' DESC', ' ASC']) +
                                    rng.choice(['', '', ' NULLS FIRST', ' NULLS LAST'])
                                    for p in pos)

def gen_eager(seed, i, jt):
    """A random query of eager_aggregate_rewrite.c's shape (or a near miss) over the
    join tables jt."""
    rng = QRng('%d:%d:eager' % (seed, i))
    rng.nofail, rng.risk = True, False
    rng.xp = rng.choice([0.12, 0.12, 0.4])
    rng.flavor = rng.choice(['numeric', 'int', 'float', 'mix'])
    d = Draw(rng)
    keyed = [t for t in jt if t.pk]
    if d.miss(0.04, 'no-pk'):
        A = JRel('a', rng.choice([t for t in jt if not t.pk]))
    else:
        A = JRel('a', rng.choice(keyed))
    doms_a = jdoms(A.t) if not A.t.pk else set(c.dom for c in A.t.pk)
    bs = [t for t in jt if jdoms(t) & doms_a]
    # mostly tables with a key column of the type of each of A's primary key columns
    good = [t for t in bs if all(any(same_eq(c, k) for c in t.keys) for k in A.t.pk)]
    if good and rng.random() < 0.85:
        bs = good
    if rng.random() < 0.08:         # A's own table
        bt = A.t
    elif rng.random() < 0.5:        # a fact table most of the time (Q13's orders)
        bt = rng.choice([t for t in bs if t.role == 'fact'] or bs)
    else:
        bt = rng.choice(bs)
    B = JRel('b', bt)
    pairs = key_pairs(rng, A, B, d)
    on = [key_cond(rng, A, B, ac, bc, d) for ac, bc in pairs]
    for _ in range(rng.choice([0, 0, 1, 1, 1, 2])):
        if rng.random() < 0.08:         # the general generator's filter: either
            d.unsure = True
            on.append(jfilter(rng, B, rng.randint(0, 1)))
            continue
        s, safe = b_cond(rng, B)
        if not safe:
            d.misses.append('b-cond-may-raise')
        on.append(s)
    if d.miss(0.02, 'on-a'):
        on.append(a_filter(rng, A, d))
    if d.miss(0.02, 'on-cross'):
        ac, bc = rng.choice(A.t.cols[1:]), rng.choice(B.t.cols[1:])
        on.append('%s IS DISTINCT FROM %s' % (A.ref(ac), B.ref(bc))
                  if base_type(ac) == base_type(bc) and ac.ty != 'bool' else
                  '(%s IS NULL OR %s IS NOT NULL)' % (A.ref(ac), B.ref(bc)))
    rng.shuffle(on)
    onsql = ' AND '.join(on)
    r = rng.random()
    if r < 0.03:
        d.misses.append('inner')
        frm = '%s %s %s ON %s' % (A.sql, rng.choice(['JOIN', 'INNER JOIN']), B.sql, onsql)
    elif r < 0.05:
        d.misses.append('right')
        frm = '%s RIGHT JOIN %s ON %s' % (B.sql, A.sql, onsql)
    elif r < 0.065:
        d.misses.append('full')
        frm = '%s FULL JOIN %s ON %s' % (A.sql, B.sql, onsql)
    elif r < 0.08:
        d.misses.append('b-left-join-a')
        frm = '%s LEFT JOIN %s ON %s' % (B.sql, A.sql, onsql)
    else:
        frm = '%s %s %s ON %s' % (A.sql, rng.choice(['LEFT JOIN', 'LEFT JOIN',
                                                     'LEFT OUTER JOIN']), B.sql, onsql)
    if d.miss(0.02, 'three-tables'):
        C = JRel('c', rng.choice([t for t in jt if jdoms(t) & jdoms(A.t)]))
        ac = rng.choice([c for c in A.t.keys if c.dom in jdoms(C.t)])
        cc = rng.choice([c for c in C.t.keys if c.dom == ac.dom])
        frm += ' %s %s ON %s = %s' % (rng.choice(['LEFT JOIN', 'JOIN']), C.sql, A.ref(ac),
                                      C.ref(cc))
    where = []
    if rng.random() < 0.25:
        where.append(a_filter(rng, A, d))
    if d.miss(0.02, 'where-b'):
        where.append(rng.choice(['%s IS NULL', '%s IS NOT NULL']) % B.ref(pairs[0][1])
                     if rng.random() < 0.5 else b_cond(rng, B)[0])
    wsql = ' WHERE ' + ' AND '.join(where) if where else ''
    # GROUP BY: A's primary key [and other columns of A]
    keys = list(A.t.pk) if A.t.pk else [rng.choice(A.t.keys + A.t.cols[:1])]
    if A.t.pk and rng.random() < 0.04:
        d.misses.append('group-not-pk')
        nonpk = [c for c in A.t.cols[1:] if c not in A.t.pk]
        keys = [keys[0]] if len(keys) == 2 and rng.random() < 0.5 else [rng.choice(nonpk)]
    extra = [c for c in A.t.cols[1:] if c not in keys and
             (c not in A.t.pk or 'group-not-pk' not in d.misses)]
    if extra and rng.random() < 0.3:
        keys += rng.sample(extra, rng.randint(1, min(2, len(extra))))
    rng.shuffle(keys)
    gsql = [A.ref(c) for c in keys]
    sel = [(A.ref(c), is_float(c)) for c in keys]
    dep = []
    if A.t.pk and len(keys) == len(A.t.pk) and 'group-not-pk' not in d.misses and \
            rng.random() < 0.15:        # functionally dependent on the key: not grouped
        dep = [(A.ref(c), is_float(c)) for c in rng.sample(
            [x for x in A.t.cols[1:] if x not in keys], 1)]
    if d.miss(0.02, 'group-b'):
        c = rng.choice(B.t.cols[1:])
        gsql.append(B.ref(c))
        sel.append((B.ref(c), is_float(c)))
    elif rng.random() < 0.02:   # an expression over a key column: no functional dependence
        c = rng.choice([x for x in keys if x.ty in INTS] or keys)
        e = '(%s + 0)' % A.ref(c) if c.ty in INTS + FIXED else 'lower(%s)' % A.ref(c) \
            if c.ty in TEXTS else '(%s + 0)' % A.ref(c) if c.ty == 'date' else A.ref(c)
        if e != A.ref(c):
            d.misses.append('group-expr')
            gsql[gsql.index(A.ref(c))] = e
            sel[[s for s, _ in sel].index(A.ref(c))] = (e, is_float(c))
            dep = []
    sel += dep
    nk = len(sel)
    aggs = []
    for _ in range(rng.choice([1, 1, 2, 2, 3])):
        s, f, why = agg_item(rng, A, B, d)
        if why:
            d.misses.append(why)
        aggs.append((s, f))
    gby = ' GROUP BY ' + (', '.join(str(k + 1) for k in range(len(gsql)))
                          if rng.random() < 0.3 and len(gsql) == nk else ', '.join(gsql))
    items = sel + aggs
    flags = [f for _, f in items]
    inner = '%s FROM %s%s%s' % (', '.join(s for s, _ in items), frm, wsql, gby)
    r = rng.random()
    ordered = False
    if r < 0.47:
        kind = 'plain'
        sql = 'SELECT ' + inner
        if rng.random() < 0.5:
            sql += order_all(rng, len(items), rng.randint(nk + 1, len(items)))
            ordered = True
    elif r < 0.66:
        kind = 'q13'
        names = ['k%d' % k for k in range(nk)] + ['c%d' % k for k in range(len(aggs))]
        cnt = [k for k, (s, _) in enumerate(aggs) if s.startswith('count(')]
        ci = rng.choice(cnt) if cnt and rng.random() < 0.8 else rng.randrange(len(aggs))
        cn = names[nk + ci]
        extra = ', sum(%s)' % names[nk + ci] if rng.random() < 0.2 and \
            aggs[ci][0].startswith('count') else ''
        sql = 'SELECT %s, count(*) AS custdist%s FROM (SELECT %s) AS c_orders (%s) ' \
              'GROUP BY %s' % (cn, extra, inner, ', '.join(names), cn)
        # an average of integers or numerics: equal values of other scales group together
        flags = ['dec' if aggs[ci][0].startswith('avg(') and not aggs[ci][1] else aggs[ci][1],
                 False] + ([False] if extra else [])
        if rng.random() < 0.7:
            sql += ' ORDER BY custdist DESC, %s DESC' % cn if not extra else \
                order_all(rng, len(flags))
            ordered = True
    elif r < 0.78:
        kind = 'wrap'
        sql = 'SELECT * FROM (SELECT %s) AS s%s LIMIT %d' % (
            inner, order_all(rng, len(items), rng.randint(nk + 1, len(items))),
            rng.choice([1, 3, 5, 10, 20]))
        ordered = True
    elif r < 0.87:
        kind = 'cte'
        sql = 'WITH s AS %s(SELECT %s) SELECT * FROM s' % (
            rng.choice(['', '', 'MATERIALIZED ']), inner)
        if rng.random() < 0.5:
            sql += order_all(rng, len(items))
            ordered = True
    elif r < 0.92:
        kind = 'limit'
        d.misses.append('limit')
        sql = 'SELECT %s%s LIMIT %d' % (inner, order_all(rng, len(items), nk + 1),
                                        rng.choice([1, 3, 10]))
        ordered = True
    elif r < 0.97:
        kind = 'having'
        d.misses.append('having')
        sql = 'SELECT %s HAVING %s' % (inner, rng.choice([
            'count(%s) > 0' % B.ref(pairs[0][1]), 'count(*) >= 1',
            'min(%s) IS NOT NULL' % A.ref(pairs[0][0])]))
    else:
        kind = 'distinct'
        d.misses.append('distinct')
        sql = 'SELECT DISTINCT ' + inner
    q = Query('join', sql, flags, ordered)
    q.kind = 'ea-' + kind
    q.eager = True
    q.eager_expect = 'no' if d.misses else None if d.unsure else 'yes'
    q.eager_misses = d.misses
    join_settings(rng, q)
    if 'gpudb.enable_gpujoin' in q.gpu_off:     # the rewrites are off
        q.eager_expect = 'no'
        q.eager_misses.append('gpujoin-off')
    q.idx = i
    return q
