"""--self-check: crafted pairs of queries run through the same machinery, which
must be found different (or must not); a join's among them."""
from rq.compare import compare
from rq.exprs import QRng, gen_filter
from rq.query import Query
from rq.session import limit_retry, run_all
from rq.tables import is_float

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
