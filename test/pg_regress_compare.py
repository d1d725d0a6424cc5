#!/usr/bin/env python3
"""pg_regress_compare.py — compare two runs of PostgreSQL's regression suite.

usage: pg_regress_compare.py [options] VANILLA_RESULTS GPUDB_RESULTS
       pg_regress_compare.py --self-check

test/pg_regress_suite.sh runs PostgreSQL's own src/test/regress twice, once
on a vanilla server and once with gpudb preloaded and its plan nodes forced,
and hands the two results/ directories (one TEST.out per test, psql -a
output) to this script.  Each test is classified:

  same        the two outputs are identical;
  plan-only   they differ, but only inside plan text: a psql result whose
              column header is "QUERY PLAN" or names an explain helper
              (explain_filter(...), ...) or whose rows look like a plan
              ("->", "Seq Scan on", "Custom Scan (GpudbAgg)", ...), or NOTICE
              lines printing a plan (plpgsql loops over EXPLAIN: a plan-like
              notice and the indented notices that follow it).
              Those blocks are masked in both outputs (one placeholder line
              each, row count included) before the masked texts are compared;
  order-only  the masked outputs differ only in the order of a result's rows
              where the statement echoed before it has no ORDER BY (and is
              not a FETCH or MOVE): SQL leaves that order to the plan.  Such
              results are compared as sorted rows;
  result      the masked outputs still differ (rows, the order of rows under
              an ORDER BY, errors, notices, a test missing from one run):
              printed as a unified diff of the masked texts.

--known FILE lists result differences that are known and tracked, one test
per line: "TEST  reason" ('#' starts a comment), or "@MAJOR TEST  reason"
for a difference known only with that major version's suite (--suite-major,
e.g. the fallback to a newer suite than the server).  A listed test that differs
is reported as known; a listed test that ran and no longer differs is warned
about.

Exit status: 0 when every result difference is listed in --known, 1 when one
is not (or a results directory is missing or empty), 2 on bad usage.  The last
line of output is the summary:
  pg_regress_compare: N tests, M with result differences (K known),
  P with plan-only differences, O with order-only differences
--self-check runs the classifier on built-in examples (a plan change must be
plan-only, rows reordered without ORDER BY order-only, a changed row, error or
row count, or rows reordered under ORDER BY a result difference) and exits 1
if one is misclassified.
"""

import argparse
import difflib
import os
import re
import sys

SEPARATOR = re.compile(r'^-+(\+-+)*$')
FOOTER = re.compile(r'^\((\d+) rows?\)$')

# The start of a plan line: a node name (optionally after "->"), as EXPLAIN's
# text format prints it.
PLAN_NODE = re.compile(
    r'^\s*(->\s+)?('
    r'Seq Scan|Sample Scan|Index Scan|Index Only Scan|Bitmap Heap Scan|'
    r'Bitmap Index Scan|BitmapAnd|BitmapOr|Tid Scan|Tid Range Scan|'
    r'Subquery Scan|Function Scan|Table Function Scan|Values Scan|CTE Scan|'
    r'Named Tuplestore Scan|WorkTable Scan|Foreign Scan|Custom Scan|'
    r'Result|ProjectSet|ModifyTable|Insert on|Update on|Delete on|Merge on|'
    r'Append|Merge Append|Recursive Union|Nested Loop|Merge Join|Hash Join|'
    r'Hash Semi Join|Hash Anti Join|Hash Right Join|Hash Left Join|'
    r'Hash Full Join|Merge Semi Join|Merge Anti Join|Merge Left Join|'
    r'Merge Right Join|Merge Full Join|Nested Loop Semi Join|'
    r'Nested Loop Anti Join|Nested Loop Left Join|Materialize|Memoize|Sort|'
    r'Incremental Sort|Group|Aggregate|GroupAggregate|HashAggregate|'
    r'MixedAggregate|Partial Aggregate|Finalize Aggregate|Partial HashAggregate|'
    r'Finalize HashAggregate|Partial GroupAggregate|Finalize GroupAggregate|'
    r'WindowAgg|Unique|Gather|Gather Merge|SetOp|HashSetOp|LockRows|Limit|Hash'
    r')( on | using |\s*\(|\s*$)')
PLAN_ARROW = re.compile(r'^\s*->  \S')
# A column header naming EXPLAIN output (QUERY PLAN, explain_filter, ...).
PLAN_HEADER = re.compile(r'query plan|explain', re.IGNORECASE)
NOTICE = 'NOTICE:  '
ORDERED = re.compile(r'\border\s+by\b|^\s*(fetch|move)\b', re.IGNORECASE | re.MULTILINE)
STATEMENT_END = re.compile(r';\s*(--.*)?$')


def statement_before(lines, i):
    """The echoed statement that produced the result whose header is
    lines[i]: the lines back to the previous statement's end, a result's
    footer or a blank line."""
    j = i - 1
    while j >= 0 and i - j <= 100:
        l = lines[j]
        if j < i - 1 and (not l.strip() or FOOTER.match(l) or STATEMENT_END.search(l)):
            break
        j -= 1
    return '\n'.join(lines[j + 1:i])


def plan_like(line):
    """Is line (a result row or a NOTICE's text) a line of plan text?"""
    return bool(PLAN_NODE.match(line) or PLAN_ARROW.match(line))


def result_end(lines, i):
    """If lines[i] is the header of a psql aligned result (a header line, a
    separator of dashes and '+' as long as the header, rows, and no blank
    line before the "(N rows)" footer), the footer's index; else None.
    (An SQL comment such as "-- X" above a "--" line is no header.)"""
    n = len(lines)
    if i + 1 >= n or not lines[i].strip() or lines[i].startswith('--') \
            or not SEPARATOR.match(lines[i + 1]) \
            or len(lines[i + 1]) != len(lines[i]):
        return None
    j = i + 2
    while j < n and lines[j] and not FOOTER.match(lines[j]):
        j += 1
    return j if j < n and lines[j] else None


def plan_result(header, body):
    """Is this result plan text?  Its header names one (QUERY PLAN, an explain
    helper), or a row is a plan's "->  Node" line, or the result has one
    column and its first row is a plan node."""
    return bool(PLAN_HEADER.search(header) or any(PLAN_ARROW.match(b) for b in body)
                or ('|' not in header and body and PLAN_NODE.match(body[0])))


def mask(lines, unordered=False):
    """lines with plan text replaced by placeholders (see the module doc);
    unordered: also the rows of each result whose statement has no ORDER BY
    sorted."""
    out = []
    i, n = 0, len(lines)
    while i < n:
        line = lines[i]
        # a psql aligned result: header, separator, rows, "(N rows)"
        j = result_end(lines, i)
        if j is not None:
            body = lines[i + 2:j]
            if plan_result(line, body):
                out.append('<plan result: %s>' % line.strip())
                i = j + 1
                continue
            if unordered and not ORDERED.search(statement_before(lines, i)):
                out.extend(lines[i:i + 2] + sorted(body) + [lines[j]])
                i = j + 1
                continue
        # plan lines raised as notices by a loop over EXPLAIN: a plan-like
        # notice and the indented notices after it (the plan's other lines)
        if line.startswith(NOTICE) and plan_like(line[len(NOTICE):]):
            j = i + 1
            while j < n and lines[j].startswith(NOTICE) and (
                    lines[j][len(NOTICE):].startswith(' ') or plan_like(lines[j][len(NOTICE):])):
                j += 1
            out.append('<plan notices>')
            i = j
            continue
        out.append(line)
        i += 1
    return out


def classify(vanilla, gpudb):
    """('same' | 'plan-only' | 'order-only' | 'result', masked diff lines)
    for two texts."""
    if vanilla == gpudb:
        return 'same', []
    a = mask(vanilla.splitlines())
    b = mask(gpudb.splitlines())
    if a == b:
        return 'plan-only', []
    if mask(vanilla.splitlines(), True) == mask(gpudb.splitlines(), True):
        return 'order-only', []
    diff = list(difflib.unified_diff(a, b, 'vanilla', 'gpudb', n=3, lineterm=''))
    return 'result', diff


def read_known(path, suite_major=None):
    """{test: reason} from the known-differences file; "@MAJOR" lines only
    when MAJOR is suite_major."""
    known = {}
    if not path:
        return known
    with open(path, encoding='utf-8') as f:
        for raw in f:
            line = raw.split('#', 1)[0].strip()
            if line.startswith('@'):
                major, _, line = line[1:].partition(' ')
                if major != suite_major:
                    continue
                line = line.strip()
            if not line:
                continue
            parts = line.split(None, 1)
            known[parts[0]] = parts[1] if len(parts) > 1 else '(no reason given)'
    return known


def read(path):
    with open(path, encoding='utf-8', errors='surrogateescape') as f:
        return f.read()


def compare(vdir, gdir, known, diff_lines):
    names = set()
    for d in (vdir, gdir):
        if not os.path.isdir(d):
            print('pg_regress_compare: %s is not a directory' % d)
            return 1
        names |= {f[:-4] for f in os.listdir(d) if f.endswith('.out')}
    if not names:
        print('pg_regress_compare: no TEST.out files in %s or %s' % (vdir, gdir))
        return 1
    plan_only, order_only, results, unknown = [], [], [], []
    for name in sorted(names):
        vp, gp = (os.path.join(d, name + '.out') for d in (vdir, gdir))
        if not (os.path.exists(vp) and os.path.exists(gp)):
            kind, diff = 'result', ['only in the %s run' % ('vanilla' if os.path.exists(vp) else 'gpudb')]
        else:
            kind, diff = classify(read(vp), read(gp))
        if kind == 'plan-only':
            plan_only.append(name)
        elif kind == 'order-only':
            order_only.append(name)
        elif kind == 'result':
            results.append(name)
            tag = 'known result difference' if name in known else 'RESULT DIFFERENCE'
            print('---- %s: %s%s' % (name, tag, (' (%s)' % known[name]) if name in known else ''))
            shown = diff if diff_lines <= 0 else diff[:diff_lines]
            for l in shown:
                print(l)
            if len(shown) < len(diff):
                print('... (%d more diff lines)' % (len(diff) - len(shown)))
            if name not in known:
                unknown.append(name)
    print('plan-only differences (%d): %s' % (len(plan_only), ' '.join(plan_only) or '-'))
    print('order-only differences (%d): %s' % (len(order_only), ' '.join(order_only) or '-'))
    print('result differences (%d): %s' % (len(results), ' '.join(
        r + ('(known)' if r in known else '') for r in results) or '-'))
    for name in sorted(known):
        if name in names and name not in results:
            print('WARNING: %s is listed as a known result difference but no longer differs'
                  ' (%s): remove it from the list' % (name, known[name]))
    if unknown:
        print('unlisted result differences: %s' % ' '.join(unknown))
    print('pg_regress_compare: %d tests, %d with result differences (%d known), '
          '%d with plan-only differences, %d with order-only differences'
          % (len(names), len(results), len(results) - len(unknown), len(plan_only),
             len(order_only)))
    return 1 if unknown else 0


SELF_CHECK = [
    # (what, vanilla, gpudb, expected class)
    ('identical', 'SELECT 1;\n ?column? \n----------\n        1\n(1 row)\n', None, 'same'),
    ('QUERY PLAN block, other row count',
     'EXPLAIN SELECT a FROM t ORDER BY a;\n     QUERY PLAN      \n---------------------\n'
     ' Sort\n   Sort Key: a\n   ->  Seq Scan on t\n(3 rows)\n\nSELECT 1;\n',
     'EXPLAIN SELECT a FROM t ORDER BY a;\n     QUERY PLAN      \n---------------------\n'
     ' Custom Scan (GpudbSort) on t\n   Sort Keys: a\n(2 rows)\n\nSELECT 1;\n', 'plan-only'),
    ('explain helper column',
     "select explain_filter('explain analyze select * from t');\n explain_filter \n----------------\n"
     ' Seq Scan on t (actual rows=N loops=N)\n(1 row)\n\n',
     "select explain_filter('explain analyze select * from t');\n explain_filter \n----------------\n"
     ' Custom Scan (GpudbScan) on t (actual rows=N loops=N)\n   GPU Filter: (a > 1)\n(2 rows)\n\n',
     'plan-only'),
    ('plan raised as notices',
     'do $$ ... $$;\nNOTICE:  Sort\nNOTICE:    ->  Seq Scan on t\nSELECT 2;\n',
     'do $$ ... $$;\nNOTICE:  Custom Scan (GpudbSort) on t\nSELECT 2;\n', 'plan-only'),
    ('changed row',
     'SELECT a FROM t;\n a \n---\n 1\n 2\n(2 rows)\n\n',
     'SELECT a FROM t;\n a \n---\n 1\n 3\n(2 rows)\n\n', 'result'),
    ('row order without ORDER BY',
     'SELECT 1;\nSELECT a\n  FROM t;\n a \n---\n 1\n 2\n(2 rows)\n\n',
     'SELECT 1;\nSELECT a\n  FROM t;\n a \n---\n 2\n 1\n(2 rows)\n\n', 'order-only'),
    ('row order under ORDER BY',
     'SELECT 1;\nSELECT a FROM t\n  ORDER BY a;\n a \n---\n 1\n 2\n(2 rows)\n\n',
     'SELECT 1;\nSELECT a FROM t\n  ORDER BY a;\n a \n---\n 2\n 1\n(2 rows)\n\n', 'result'),
    ('row order of a FETCH',
     'fetch 2 in c;\n a \n---\n 1\n 2\n(2 rows)\n\n',
     'fetch 2 in c;\n a \n---\n 2\n 1\n(2 rows)\n\n', 'result'),
    ('other rows without ORDER BY',
     'SELECT a FROM t;\n a \n---\n 1\n 2\n(2 rows)\n\n',
     'SELECT a FROM t;\n a \n---\n 2\n 3\n(2 rows)\n\n', 'result'),
    ('comment lines are no result header',
     '--\n--\nSELECT a FROM t;\n a \n---\n 1\n(1 row)\n\n',
     '--\n--\nSELECT a FROM t;\n a \n---\n 2\n(1 row)\n\n', 'result'),
    ('row count',
     'SELECT a FROM t;\n a \n---\n 1\n(1 row)\n\n',
     'SELECT a FROM t;\n a \n---\n 1\n 1\n(2 rows)\n\n', 'result'),
    ('error instead of rows',
     'fetch backward 1 in c1;\n q1 \n----\n  4\n(1 row)\n\n',
     'fetch backward 1 in c1;\nERROR:  cursor can only scan forward\n', 'result'),
    ('plan text outside a result (an error message naming a node)',
     'SELECT f();\nERROR:  boom\n',
     'SELECT f();\nERROR:  boom in Custom Scan (GpudbAgg)\n', 'result'),
    ('ordinary notice after plan notices',
     'NOTICE:  Sort\nNOTICE:    Sort Key: a\nNOTICE:    ->  Seq Scan on t\nNOTICE:  x = 1\n',
     'NOTICE:  Custom Scan (GpudbSort) on t\nNOTICE:    Sort Keys: a\nNOTICE:  x = 2\n', 'result'),
    ('plan notices with properties',
     'NOTICE:  Sort\nNOTICE:    Sort Key: a\nNOTICE:    ->  Seq Scan on t\nNOTICE:  x = 1\n',
     'NOTICE:  Custom Scan (GpudbSort) on t\nNOTICE:    Sort Keys: a\nNOTICE:  x = 1\n', 'plan-only'),
]


def self_check():
    bad = 0
    for what, v, g, want in SELF_CHECK:
        got, _ = classify(v, v if g is None else g)
        ok = got == want
        print('%s  %-60s %s' % ('ok  ' if ok else 'FAIL', what, got))
        bad += not ok
    print('pg_regress_compare self-check: %s' % ('FAIL' if bad else 'ok'))
    return 1 if bad else 0


def main():
    ap = argparse.ArgumentParser(description=__doc__.split('\n', 1)[0])
    ap.add_argument('vanilla', nargs='?')
    ap.add_argument('gpudb', nargs='?')
    ap.add_argument('--known', help='known result differences: [@MAJOR] TEST reason')
    ap.add_argument('--suite-major', help="the suite's major version (for @MAJOR lines)")
    ap.add_argument('--diff-lines', type=int, default=200,
                    help='diff lines printed per test (0: all)')
    ap.add_argument('--self-check', action='store_true')
    args = ap.parse_args()
    if args.self_check:
        return self_check()
    if not (args.vanilla and args.gpudb):
        ap.print_usage()
        return 2
    return compare(args.vanilla, args.gpudb, read_known(args.known, args.suite_major), args.diff_lines)


if __name__ == '__main__':
    sys.exit(main())
