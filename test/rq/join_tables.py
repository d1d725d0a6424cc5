"""The join tables rq.jf, rq.jg, rq.jd1..jd4 (make_join_tables: their own RNG, so
that the other tables stay as they were) and their load into gpudb's column
cache (cache_join_tables)."""
import collections
import datetime
import random

from rq.session import prelude, psql
from rq.tables import CHAR1_POOL, FIXED, PREFIX, TEXT_POOL, TEXTS, Col, Table, fixed_text, load_table

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
