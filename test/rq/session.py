"""Running the queries through psql: the script of each query (EXPLAIN and the
query with gpudb on, the query with gpudb off), batches in --jobs parallel
sessions (a lost connection retried alone), and the LIMIT retry of an error
on one side only."""
import concurrent.futures
import re
import subprocess
import sys
import time

from rq.query import ALL_ENABLE_GUCS, COST_GUCS, Query

FS = '\x1f'                 # psql field separator (never in generated data)
NULL = '<<NULL>>'           # psql NULL display (never in generated data)

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
    out += ['SET %s = %s;' % (g, 'off' if g in q.gpu_off else 'on') for g in ALL_ENABLE_GUCS
            if g in gucs]
    out += ['SET %s = 0;' % g for g in COST_GUCS if g in gucs]
    if q.scalar or q.eager:     # the planner's DEBUG1 line of its choice, on stderr up to a marker
        out.append('SET client_min_messages = debug1;')
    out += ['EXPLAIN (COSTS OFF) %s;' % q.sql, '\\echo @@E %d :SQLSTATE :LAST_ERROR_MESSAGE' % i,
            'SET client_min_messages = warning;\n\\warn @@W %d' % i if q.scalar or q.eager
            else '',
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
    # the DEBUG lines before each @@W marker on stderr: the EXPLAIN's (a scalar or
    # eager aggregation query's)
    buf = []
    for line in err.split('\n'):
        m = re.match(r'@@W (\d+)$', line)
        if m and int(m.group(1)) in res:
            res[int(m.group(1))]['W'] = ('00000', '', [x for x in buf if 'DEBUG' in x])
        buf = [] if m else buf + [line]
    return res, err

def wait_server(deadline=60):
    t0 = time.time()
    while time.time() - t0 < deadline:
        if psql('SELECT 1;', timeout=30)[2] == 0:
            return
        time.sleep(1)

def complete(r):
    """Whether a query's results hold its EXPLAIN and both runs."""
    return all(k in r for k in 'EAB')

def run_all(args, queries, gucs):
    """All queries, --jobs sessions at a time; incomplete ones are retried alone."""
    size = max(1, min(40, (len(queries) + args.jobs - 1) // args.jobs))
    batches = [queries[s:s + size] for s in range(0, len(queries), size)]
    results = {}
    with concurrent.futures.ThreadPoolExecutor(max_workers=args.jobs) as ex:
        for res, err in ex.map(lambda b: run_batch(args, b, gucs), batches):
            results.update(res)
    missing = [q for q in queries if not complete(results.get(q.idx, {}))]
    for q in missing:       # a lost connection: find the query that does it, alone
        wait_server()
        res, err = run_batch(args, [q], gucs)
        results[q.idx] = res.get(q.idx, {})
        if not complete(results[q.idx]):
            results[q.idx]['crash'] = err.strip()[-500:]
    return results

LIMIT_RE = re.compile(r' LIMIT \d+( OFFSET \d+)?$')

def limit_retry(args, queries, results, gucs):
    """A data exception (class 22, 0A000) on one side only, in a query with a LIMIT,
    may come from rows past the LIMIT that one plan evaluates (an aggregate or
    projection computed for every row) and the other never reads (a sorted
    GroupAggregate or a scan stopped by the Limit).  Such queries run again
    without the LIMIT: if both sides then raise that SQLSTATE, the query is
    excused (q.limit_excused); else the difference stands."""
    again = []
    for q in queries:
        r = results[q.idx]
        if 'crash' in r or not LIMIT_RE.search(q.sql):
            continue
        st = {r['A'][0], r['B'][0]}
        if len(st) == 2 and '00000' in st:
            bad = (st - {'00000'}).pop()
            if bad[:2] == '22' or bad == '0A000':
                nq = Query(q.kind, LIMIT_RE.sub('', q.sql), q.floats, q.ordered,
                           sql_off=LIMIT_RE.sub('', q.sql_off))
                nq.idx, nq.pg_set, nq.gpu_off, nq.bad = q.idx, q.pg_set, q.gpu_off, bad
                nq.scalar, nq.eager = q.scalar, q.eager
                again.append(nq)
    if not again:
        return
    res = run_all(args, again, gucs)
    for nq in again:
        r = res.get(nq.idx, {})
        if 'crash' not in r and complete(r) and r['A'][0] == r['B'][0] == nq.bad:
            next(q for q in queries if q.idx == nq.idx).limit_excused = nq.bad
