#!/usr/bin/env python3
"""test/bench/tpch22.py — the 22 TPC-H queries over the eight tables: gpudb's results against PostgreSQL's
(diff), or their times (time).

usage: python3 test/bench/tpch22.py [diff|time] [--sf 0.1] [--queries 1-22] [more options: --help]

Needs what tpch.py needs (its docstring: psql and a server through the PG*
variables, gpudb installed, gcc and make, TPC-H's dbgen source 2.14.0 from
--dbgen-src, $TPCH_DBGEN_SRC, ../shared/tpch-dbgen, shared/tpch-dbgen or
.gpu-bundle/tpch-dbgen, never copied into the project) and shares its code:
dbgen's build, the FIFO load and its watch, the psql sessions, the
measurement and the check against the spec's answers.

 1. The data: the eight tables with the spec's columns and types (dss.ddl:
    numeric(15,2), char(n), varchar(n), date, NOT NULL as there;
    o_orderkey and l_orderkey bigint, as tpch.py's lineitem), each generated
    by dbgen -T <table> in --jobs chunks through FIFOs into COPY sessions
    (nation and region in one), its rows checked, VACUUM (ANALYZE), marked
    by its comment with the SF: a table so marked is reused (tpch.py's
    lineitem of the same SF too, and the other way round); --rebuild builds
    all again.  Then the keys of dss.ri, created where missing: the primary
    keys, the foreign keys (PostgreSQL's planner uses them for join sizes)
    and an index on each foreign key's columns that are not the start of
    their table's primary key (spec 1.4.2.4 allows those indexes; without
    them Q17's and Q20's correlated subqueries scan lineitem once per
    outer row), then CHECKPOINT.  The heap and the indexes take ~1.7 GB
    per SF (measured at SF 0.1 and 1); the disk check is tpch.py's.
 2. The queries: dbgen's qgen with its -d default substitutions, which are
    the spec's validation parameters (2.4.n.3; Q11's FRACTION is 0.0001 /
    SF, as qgen -s SF writes it), from the source's queries/*.sql, made
    PostgreSQL's: `interval '90' day (3)` loses its precision, qgen's row
    count (`where rownum <= n;`, the templates' `:n`) becomes `limit n`
    (Q2, Q3, Q10, Q18, Q21), and Q15's view is created as a TEMP view
    in each session that runs Q15 (the sides' sessions are open at once)
    before its select, which alone is run, timed and compared.  They are
    written to <stem>-queries.sql.  Five queries order by keys that can
    tie (Q3, Q5, Q10, Q11, Q18: the spec's ORDER BY is not unique there):
    an output that differs from PostgreSQL's byte for byte still counts as
    the same where it has the same rows (sorted lines equal) with the same
    sequence of ORDER BY keys, which makes both valid orders; under a
    LIMIT, rows whose keys equal the last row's may also differ (which of
    the tied rows a LIMIT keeps is not defined).  Every such case is said
    ("yes, ties in another order").
 3. diff (the default): each query on each side in a psql session of its
    own, once: PostgreSQL (gpudb.enabled = off), gpudb with its plan
    nodes' costs zeroed (gpu_setup_cost, gpu_tuple_cost and
    gpu_transfer_cost = 0: the planner takes a Gpudb node wherever one can
    run) and gpudb at its default costs, both over the heap
    (gpudb.use_cache = off); --cache loads the tables into the column
    cache first (the columns the queries name: query_columns) and adds
    both again over the cache.  Every side:
    max_parallel_workers_per_gather = --workers (default 2), the tables'
    parallel_workers reset (PostgreSQL's choice by size; time sets them) and
    statement_timeout = --max-run (default 600 s); --batch-rows sets
    gpudb.batch_rows on the gpudb sides (a small value makes the small
    SFs' tables several batches).  The plan of each side (EXPLAIN, COSTS
    OFF) names its Gpudb nodes; the `psql -At` output of each gpudb side is
    compared with PostgreSQL's.  A table, query by query: the Gpudb nodes
    with costs zeroed and at default costs, PostgreSQL's rows, whether
    each side's output is the same; a query that differs, or fails on a
    gpudb side, makes the exit status 1, and its outputs stay in the
    results folder (<Qn>-<side>.out) with a diff in the markdown.  On 2
    shared cores with gpudb.device = cpu: SF 0.1 loads in ~30 s (once; the
    tables are reused) and its 22 queries x 3 sides take ~10 s; SF 1 loads
    in ~2 minutes (keys ~20 s of it) and its queries take ~1.5 minutes.
 4. time: tpch.py's measurement of each query: PostgreSQL with --workers
    (default 16) parallel workers, gpudb uncached (gpudb.use_cache = off)
    and gpudb cached (after gpu_cache_load of the queries' columns), one
    warm-up and --reps (default 3) runs a side taking turns in sessions of
    their own, medians and min-max of psql's end-to-end time, the device
    time (gpu_last_execution()), the Gpudb nodes of each side's plan and
    whether each run's output is PostgreSQL's (as in diff: byte for byte,
    or the ties rule).  The tables' parallel_workers are set to --workers
    and, where their heaps fit 0.8 x shared_buffers together, they are read
    into shared_buffers first.  Without a GPU (gpudb.device = cpu) this
    is a smoke test of the harness at a small SF:
        python3 test/bench/tpch22.py time --sf 0.01 --workers 2 --reps 1
 5. Both modes check PostgreSQL's answers against dbgen's answers/q<n>.out
    at SF 1, numbers rounded to the decimals the answer prints (tpch.py's
    check; the ties rule again), and write <stem>.md and .json to --out
    DIR, by default test/bench/results/<date>-<gpu>-<commit>-tpch22-<mode>-
    sf<SF>/ (-2, -3, ... where that exists), rewritten after each query.

On the GPU host: test/gpu_host_run.sh tpch22 [SF] runs diff (SF 1 by
default), tpch22-start [SF] starts time (SF 10) detached and tpch-wait
follows it.
"""
import argparse
import difflib
import json
import os
import re
import shlex
import shutil
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import bench  # noqa: E402
import tpch  # noqa: E402  (dbgen, the load, the sessions, the measurement, the spec's answers)
from bench import fmt_ms, log, psql, sql_literal  # noqa: E402
from tpch import sf_label  # noqa: E402

# The spec's tables (dss.ddl), in the order they are loaded; l_orderkey and
# o_orderkey bigint (orderkeys pass 2^31 past SF 500).
DDL = {
    "region": """CREATE TABLE region (
    r_regionkey  integer       NOT NULL,
    r_name       char(25)      NOT NULL,
    r_comment    varchar(152)
) WITH (autovacuum_enabled = off)""",
    "nation": """CREATE TABLE nation (
    n_nationkey  integer       NOT NULL,
    n_name       char(25)      NOT NULL,
    n_regionkey  integer       NOT NULL,
    n_comment    varchar(152)
) WITH (autovacuum_enabled = off)""",
    "part": """CREATE TABLE part (
    p_partkey     integer        NOT NULL,
    p_name        varchar(55)    NOT NULL,
    p_mfgr        char(25)       NOT NULL,
    p_brand       char(10)       NOT NULL,
    p_type        varchar(25)    NOT NULL,
    p_size        integer        NOT NULL,
    p_container   char(10)       NOT NULL,
    p_retailprice numeric(15,2)  NOT NULL,
    p_comment     varchar(23)    NOT NULL
) WITH (autovacuum_enabled = off)""",
    "supplier": """CREATE TABLE supplier (
    s_suppkey     integer        NOT NULL,
    s_name        char(25)       NOT NULL,
    s_address     varchar(40)    NOT NULL,
    s_nationkey   integer        NOT NULL,
    s_phone       char(15)       NOT NULL,
    s_acctbal     numeric(15,2)  NOT NULL,
    s_comment     varchar(101)   NOT NULL
) WITH (autovacuum_enabled = off)""",
    "partsupp": """CREATE TABLE partsupp (
    ps_partkey     integer        NOT NULL,
    ps_suppkey     integer        NOT NULL,
    ps_availqty    integer        NOT NULL,
    ps_supplycost  numeric(15,2)  NOT NULL,
    ps_comment     varchar(199)   NOT NULL
) WITH (autovacuum_enabled = off)""",
    "customer": """CREATE TABLE customer (
    c_custkey     integer        NOT NULL,
    c_name        varchar(25)    NOT NULL,
    c_address     varchar(40)    NOT NULL,
    c_nationkey   integer        NOT NULL,
    c_phone       char(15)       NOT NULL,
    c_acctbal     numeric(15,2)  NOT NULL,
    c_mktsegment  char(10)       NOT NULL,
    c_comment     varchar(117)   NOT NULL
) WITH (autovacuum_enabled = off)""",
    "orders": """CREATE TABLE orders (
    o_orderkey       bigint         NOT NULL,
    o_custkey        integer        NOT NULL,
    o_orderstatus    char(1)        NOT NULL,
    o_totalprice     numeric(15,2)  NOT NULL,
    o_orderdate      date           NOT NULL,
    o_orderpriority  char(15)       NOT NULL,
    o_clerk          char(15)       NOT NULL,
    o_shippriority   integer        NOT NULL,
    o_comment        varchar(79)    NOT NULL
) WITH (autovacuum_enabled = off)""",
    "lineitem": tpch.LINEITEM_DDL,
}
TABLES = list(DDL)

# The benchmark the shared functions below run (query_columns, prepare_time,
# spec_check, markdown, chart): TPC-H's 22 queries over the eight tables,
# or the Star Schema Benchmark's 13 over its five (test/bench/ssb.py sets it)
BENCH = {"name": "TPC-H", "queries": "the 22 queries", "tables": TABLES, "ddl": DDL}
# rows per SF (dbgen's: base x SF), and the tables of fixed size
ROWS_PER_SF = {"part": 200000, "partsupp": 800000, "supplier": 10000, "customer": 150000, "orders": 1500000}
FIXED_ROWS = {"nation": 25, "region": 5}
# heap and indexes of the eight tables per SF (PostgreSQL 15, 8 kB pages;
# measured at SF 0.1 and 1), for the disk check
BYTES_PER_SF = 1.7e9

# dss.ri: the primary keys, the foreign keys; an index on a foreign key's
# columns where they do not begin the primary key
PRIMARY_KEYS = {"region": "r_regionkey", "nation": "n_nationkey", "part": "p_partkey", "supplier": "s_suppkey",
                "partsupp": "ps_partkey, ps_suppkey", "customer": "c_custkey", "orders": "o_orderkey",
                "lineitem": "l_orderkey, l_linenumber"}
FOREIGN_KEYS = [("nation", "n_regionkey", "region"), ("supplier", "s_nationkey", "nation"),
                ("partsupp", "ps_partkey", "part"), ("partsupp", "ps_suppkey", "supplier"),
                ("customer", "c_nationkey", "nation"), ("orders", "o_custkey", "customer"),
                ("lineitem", "l_orderkey", "orders"), ("lineitem", "l_partkey, l_suppkey", "partsupp")]

# The ORDER BY keys (0-based output columns) of the queries whose spec order
# can tie; the others order by unique keys (group keys, or one row).
TIE_KEYS = {3: (1, 2), 5: (1,), 10: (2,), 11: (1,), 18: (4, 3)}

COSTS_ZERO = "SET gpudb.gpu_setup_cost = 0; SET gpudb.gpu_tuple_cost = 0; SET gpudb.gpu_transfer_cost = 0;"


def query_columns(table, queries):
    """The columns of table (DDL's order) that the queries name: what the column cache loads.

    A column no query reads stays out of the cache: the comment columns are
    nearly all distinct strings, and at SF 10 l_comment's dictionary alone
    passes the cache's 1 GB dictionary limit (gpu_cache_load raises 54000).
    """
    text = "\n".join(q["prelude"] + q["sql"] for q in queries)
    names = re.findall(r"^\s+([a-z_]+)\s", BENCH["ddl"][table].split("(", 1)[1], re.M)
    return [c for c in names if re.search(r"\b%s\b" % c, text)]


def expected_rows(table, sf):
    if table in FIXED_ROWS:
        return FIXED_ROWS[table]
    if table == "lineitem":
        return tpch.expected_rows(sf)
    return int(round(ROWS_PER_SF[table] * sf))


def parse_queries(text):
    """'1-22', '3,5,Q18', ... -> sorted query numbers."""
    out = set()
    for part in text.replace(" ", "").split(","):
        if not part:
            continue
        a, _, b = part.upper().replace("Q", "").partition("-")
        try:
            lo, hi = int(a), int(b or a)
        except ValueError:
            sys.exit("tpch22: --queries takes numbers and ranges, e.g. 1-22 or 3,5,Q18 (got %s)" % text)
        if not 1 <= lo <= hi <= 22:
            sys.exit("tpch22: queries are 1 to 22 (got %s)" % part)
        out.update(range(lo, hi + 1))
    if not out:
        sys.exit("tpch22: no query chosen")
    return sorted(out)


# ---------------------------------------------------------------------------
# the data
# ---------------------------------------------------------------------------

def dbgen_programs(args):
    """(dbgen source, dbgen binary, qgen binary): built in --dbgen-build,
    reused there where both binaries exist and --rebuild is not given."""
    src = tpch.dbgen_source(args.dbgen_src)
    build = args.dbgen_build
    dbgen, qgen = os.path.join(build, "dbgen"), os.path.join(build, "qgen")
    if args.rebuild or not (os.access(dbgen, os.X_OK) and os.access(qgen, os.X_OK)
                            and os.path.isfile(os.path.join(build, "dists.dss"))):
        t0 = time.time()
        tpch.build_dbgen(src, build, ("dbgen", "qgen"))
        log("dbgen and qgen built from %s in %s (%.1f s)" % (src, build, time.time() - t0))
    return src, dbgen, qgen


def ensure_keys():
    """The primary keys, foreign keys and foreign-key indexes that are missing
    (a table built again lost its own, and CASCADE the foreign keys naming
    it); returns [(what, seconds)]."""
    have = set(psql("SELECT conname FROM pg_constraint WHERE conrelid IN (%s)"
                    % ", ".join("to_regclass(%s)" % sql_literal(t) for t in TABLES)).split())
    mem = "SET maintenance_work_mem = '1GB'; "
    done = []

    def run(what, sql):
        t0 = time.time()
        psql(mem + sql)
        done.append((what, time.time() - t0))
        log("  %s: %.1f s" % (what, done[-1][1]))
    for table in TABLES:
        if table + "_pkey" not in have:
            run("%s primary key (%s)" % (table, PRIMARY_KEYS[table]), "ALTER TABLE %s ADD CONSTRAINT %s_pkey "
                "PRIMARY KEY (%s)" % (table, table, PRIMARY_KEYS[table]))
    for table, cols, ref in FOREIGN_KEYS:
        name = "%s_%s" % (table, cols.replace(", ", "_"))
        if name + "_fkey" not in have:
            run("%s foreign key (%s) -> %s" % (table, cols, ref), "ALTER TABLE %s ADD CONSTRAINT %s_fkey FOREIGN KEY "
                "(%s) REFERENCES %s" % (table, name, cols, ref))
        if not PRIMARY_KEYS[table].startswith(cols) and psql(
                "SELECT to_regclass(%s) IS NULL" % sql_literal(name + "_idx")) == "t":
            run("%s index (%s)" % (table, cols), "CREATE INDEX %s_idx ON %s (%s)" % (name, table, cols))
    return done


def prepare_data(args, binary_needed):
    """The eight tables at args.sf (reused where marked so, else built), their
    keys; returns the data record.  binary_needed(): (src, dbgen, qgen)."""
    mark_ok = {t: not args.rebuild and bench.table_mark(t) == tpch.data_mark(t, args.sf) for t in TABLES}
    build = [t for t in TABLES if not mark_ok[t]]
    rec = {"sf": args.sf, "built": build, "tables": {}, "load_s": {}, "vacuum_s": {}}
    t0 = time.time()
    if build:
        tpch.check_disk(args.sf, BYTES_PER_SF, build, args.no_disk_check)
        _, dbgen, _ = binary_needed()
        for t in build:  # CASCADE: foreign keys that name it go (ensure_keys makes them again)
            bench.drop_table(t, cascade=True)
        for t in build:
            _, rec["load_s"][t], rec["vacuum_s"][t] = tpch.load_table(dbgen, t, DDL[t], args.sf, args.jobs,
                                                                      expected_rows(t, args.sf))
    else:
        log("the eight tables at SF %s: reused" % sf_label(args.sf))
    rec["keys"] = ensure_keys()
    if build or rec["keys"]:
        psql("CHECKPOINT", check=False)
    rec["build_s"] = round(time.time() - t0, 1)
    for t in TABLES:
        rows, heap, total = psql("SELECT (SELECT count(*) FROM %s), pg_table_size(%s), pg_total_relation_size(%s)"
                                 % (t, sql_literal(t), sql_literal(t))).split("|")
        rec["tables"][t] = {"rows": int(rows), "heap_bytes": int(heap), "total_bytes": int(total),
                            "reused": t not in build}
    tot = sum(x["total_bytes"] for x in rec["tables"].values())
    log("data: %s rows, %.2f GB with indexes (%.2f GB per SF); %s" % (
        "{:,}".format(sum(x["rows"] for x in rec["tables"].values())), tot / 1e9, tot / 1e9 / args.sf,
        "built in %.0f s" % rec["build_s"] if build else "reused"))
    return rec


# ---------------------------------------------------------------------------
# the queries
# ---------------------------------------------------------------------------

ROWNUM = re.compile(r"^where rownum <= (-?\d+);[ \t]*$", re.M)


def postgres_query(n, text):
    """qgen's text of query n (ORACLE's row count) in PostgreSQL's syntax:
    {"n", "id", "sql" (the select, with its limit), "prelude" (Q15's view,
    TEMP), "limit", "ties"}."""
    limits = [int(x) for x in ROWNUM.findall(text)]
    text = ROWNUM.sub("", text)
    text = "\n".join(ln for ln in text.splitlines() if not ln.startswith("-- using default substitutions"))
    text = re.sub(r"interval '(\d+)' day \(3\)", r"interval '\1' day", text)
    stmts = [s.strip() for s in text.split(";") if s.strip()]
    sel = [i for i, s in enumerate(stmts) if s.lower().startswith("select")]
    if len(sel) != 1 or len(limits) != 1 or re.search(r":[0-9a-z]", stmts[sel[0]].replace("::", "")):
        sys.exit("tpch22: qgen's Q%d is not as expected:\n%s" % (n, text))
    sql = stmts[sel[0]] + ("\nlimit %d" % limits[0] if limits[0] > 0 else "")
    prelude = "".join(re.sub(r"^create view", "create temp view", s, flags=re.I) + ";\n"
                      for s in stmts[:sel[0]])
    return {"n": n, "id": "Q%d" % n, "sql": sql, "prelude": prelude, "limit": max(limits[0], 0),
            "ties": TIE_KEYS.get(n), "after": stmts[sel[0] + 1:]}


def generate_queries(src, qgen, sf, numbers):
    env = dict(os.environ, DSS_QUERY=os.path.join(src, "queries"), DSS_CONFIG=os.path.dirname(qgen))
    out = []
    for n in numbers:
        r = subprocess.run([qgen, "-d", "-s", sf_label(sf), str(n)], env=env, cwd=os.path.dirname(qgen),
                           capture_output=True, text=True)
        if r.returncode != 0:
            sys.exit("tpch22: qgen -d -s %s %d failed: %s" % (sf_label(sf), n, r.stderr.strip()))
        out.append(postgres_query(n, r.stdout))
    return out


def same_rows(ref, out, ties, limit):
    """'yes' (byte for byte), 'yes, ties in another order' (ties: the ORDER BY
    columns; the same key sequence and rows, or, under a LIMIT, rows that
    differ only where their keys equal the last row's), or None."""
    if ref == out:
        return "yes"
    if not ties:
        return None
    a, b = ref.split(b"\n"), out.split(b"\n")

    def keys(rows):
        return [tuple(r.split(b"|")[k] for k in ties) for r in rows if r]
    if keys(a) != keys(b):
        return None
    if sorted(a) == sorted(b):
        return "yes, ties in another order"
    if limit and a[0]:
        last = keys(a)[-1]
        if sorted(r for r in a if r and keys([r])[0] != last) == sorted(r for r in b if r and keys([r])[0] != last):
            return "yes, ties in another order (and other rows tied at the LIMIT)"
    return None


def nodes_label(nodes):
    """['GpudbAgg', 'GpudbScan', 'GpudbScan'] -> 'GpudbAgg, GpudbScan x2'; '-' for none."""
    seen = []
    for n in nodes:
        if n not in seen:
            seen.append(n)
    return ", ".join(n + (" x%d" % nodes.count(n) if nodes.count(n) > 1 else "") for n in seen) or "-"


def spec_check(res, q, output):
    """At SF 1: PostgreSQL's output against answers/q<n>.out."""
    if res["meta"]["sf"] != 1 or BENCH["name"] != "TPC-H":
        return
    ok, why = tpch.spec_answer_check(res["meta"]["dbgen_source"], "q%d.out" % q["n"], output, bool(q["ties"]))
    q["spec_answer"] = {"ok": ok, "why": why}
    log("  spec answer (SF 1): %s" % why)


# ---------------------------------------------------------------------------
# diff
# ---------------------------------------------------------------------------

def diff_sides(args):
    par = "SET max_parallel_workers_per_gather = %d; SET statement_timeout = %d;" % (
        args.workers, int(args.max_run * 1000))
    on = "SET gpudb.enabled = on;" + (" SET gpudb.batch_rows = %d;" % args.batch_rows if args.batch_rows else "")
    sides = [("off", "PostgreSQL", par + " SET gpudb.enabled = off;"),
             ("zero", "gpudb, costs 0", par + " " + on + " SET gpudb.use_cache = off; " + COSTS_ZERO),
             ("default", "gpudb, default costs", par + " " + on + " SET gpudb.use_cache = off;")]
    if args.cache:
        sides += [("zero-cache", "gpudb cached, costs 0", par + " " + on + " SET gpudb.use_cache = on; " + COSTS_ZERO),
                  ("default-cache", "gpudb cached, default costs", par + " " + on + " SET gpudb.use_cache = on;")]
    return sides


def run_diff(args, res, q, outdir):
    sides = res["sides"]
    q["sides"] = {}
    ref = None
    for key, name, setup in sides:
        ex = bench.explain(setup + "\n" + q["prelude"], q["sql"])
        s = {"nodes": ex.get("nodes", []), "shape": ex.get("shape"), "plan_error": ex.get("error")}
        path = os.path.join(outdir, "%s-%s.out" % (q["id"], key))
        sess = tpch.Session(setup + "\n" + q["prelude"])
        t0 = time.time()
        ms, _, rows = sess.run_to(q["sql"], path, False)
        s["wall_s"] = round(time.time() - t0, 2)
        sess.close()
        s["ms"], s["error"] = ms, sess.error if ms is None else None
        if key == "off":
            ref = rows
            q["rows"] = rows.count(b"\n") if rows is not None else None
            if rows is not None:
                spec_check(res, q, rows.decode(errors="replace"))
        elif rows is not None and ref is not None:
            s["same"] = same_rows(ref, rows, q["ties"], q["limit"])
            if not s["same"]:
                s["diff"] = "".join(difflib.unified_diff(
                    ref.decode(errors="replace").splitlines(True), rows.decode(errors="replace").splitlines(True),
                    "%s-off.out" % q["id"], os.path.basename(path), n=1))[:4000]
        if s.get("same") or key == "off" and s["error"] is None:
            os.unlink(path)  # the outputs that differ (and PostgreSQL's beside them) stay
        q["sides"][key] = s
        log("  %-28s %-8s %-34s %s" % (name, "error" if s["error"] else fmt_ms(ms), nodes_label(s["nodes"]),
                                       "error: %s" % s["error"] if s["error"] else
                                       "" if key == "off" else "same: %s" % (s.get("same") or "NO")))
    if any(not s.get("same") for k, s in q["sides"].items() if k != "off") and ref is not None:
        with open(os.path.join(outdir, "%s-off.out" % q["id"]), "wb") as f:
            f.write(ref)
    q["ok"] = all(s.get("same") for k, s in q["sides"].items() if k != "off") and not q["sides"]["off"]["error"]


def text_table(head, rows):
    rows = [[c.replace("**", "") for c in r] for r in rows]
    width = [max(len(r[i]) for r in [head] + rows) for i in range(len(head))]
    return ["  ".join(c.ljust(w) for c, w in zip(r, width)).rstrip() for r in [head] + rows]


def diff_table(res, markdown):
    """The per-query table: text for the log, or markdown."""
    keys = [k for k, _, _ in res["sides"] if k != "off"]
    names = {k: n for k, n, _ in res["sides"]}
    head = ["query", "rows"] + sum((["%s: Gpudb nodes" % names[k], "same"] for k in keys), []) + [
        "ms (%s)" % " / ".join(["off"] + keys)]
    rows = []
    for q in res["queries"]:
        sd = q["sides"]
        cells = [q["id"], "-" if q.get("rows") is None else str(q["rows"])]
        for k in keys:
            s = sd.get(k, {})
            cells += [nodes_label(s.get("nodes", [])),
                      "error: %s" % s["error"] if s.get("error") else (s.get("same") or "**NO**")]
        cells.append(" / ".join("-" if sd.get(k, {}).get("ms") is None else fmt_ms(sd[k]["ms"])
                                for k in ["off"] + keys))
        if sd.get("off", {}).get("error"):
            cells[1] = "PostgreSQL failed: %s" % sd["off"]["error"]
        rows.append(cells)
    if markdown:
        return ["| " + " | ".join(head) + " |", "|" + "---|" * len(head)] + ["| " + " | ".join(r) + " |" for r in rows]
    return text_table(head, rows)


# ---------------------------------------------------------------------------
# time
# ---------------------------------------------------------------------------

def prepare_time(args, res, queries):
    """The tables' parallel_workers, the column cache, shared_buffers."""
    for t in BENCH["tables"]:
        psql("ALTER TABLE %s SET (parallel_workers = %d)" % (t, args.workers))
    res["cache"] = {}
    if args.no_uncached:
        res["notes"].append("Uncached gpudb side: left out (--no-uncached).")
    if args.no_cache:
        res["notes"].append("Cached side: left out (--no-cache).")
    elif psql("SELECT current_setting('shared_preload_libraries') LIKE '%gpudb%'") != "t":
        res["notes"].append("Cached side: not run (gpudb is not in shared_preload_libraries: no column cache).")
    else:
        for t in [t for t in BENCH["tables"] if query_columns(t, queries)]:
            c = res["cache"][t] = tpch.cache_load(query_columns(t, queries), t)
            log("cache load of %s: %s" % (t, c.get("error") or "%s ms, %d rows, %.3f GB" % (
                fmt_ms(c["ms"]), c["rows"], max(c["device_bytes"], c["host_bytes"]) / 1e9)))
            if c.get("error"):
                res["notes"].append("Cached side: not run: %s failed: %s." % (c["call"], c["error"]))
                res["cache"] = {}
                break
    heaps = [bench.heap_buffers_info(t) for t in BENCH["tables"]]
    total = sum(h["heap_bytes"] for h in heaps)
    fits = total < bench.HEAP_FIT * heaps[0]["shared_buffers_bytes"]
    res["buffers"] = {"heap_bytes": total, "shared_buffers_bytes": heaps[0]["shared_buffers_bytes"], "fits": fits,
                      "warm_ms": None}
    if fits and not args.no_prewarm:
        warm = [bench.warm_shared_buffers(t) for t in BENCH["tables"]]
        res["buffers"]["warm_ms"] = sum(w.get("ms") or 0 for w in warm)
        res["buffers"]["warm_errors"] = [w["error"] for w in warm if w.get("error")]
        log("the eight tables read into shared_buffers: %s ms" % fmt_ms(res["buffers"]["warm_ms"]))


def run_time(args, res, q, tmp):
    sides = [(k, setup) for k, _, setup in tpch.SIDES
             if (k != "cache" or res["cache"]) and (k != "heap" or not args.no_uncached)]
    par = "SET max_parallel_workers_per_gather = %d;" % args.workers
    q["sides"] = {}
    for key, setup in sides:
        ex = bench.explain(par + " " + setup + "\n" + q["prelude"], q["sql"])
        q["sides"][key] = {"nodes": ex.get("nodes", []), "shape": ex.get("shape"), "plan_error": ex.get("error")}
    measured, ref = tpch.measure(args, q["id"], q["sql"], sides, tmp, q["prelude"],
                                 lambda a, b: same_rows(a, b, q["ties"], q["limit"]))
    q["rows"] = ref.count("\n") if ref is not None else None
    pg = measured["pg"].get("e2e")
    for key, _ in sides:
        s = q["sides"][key]
        s.update(measured[key])
        s["speedup"] = pg["median"] / s["e2e"]["median"] if pg and s.get("e2e") and key != "pg" else None
        log("  %-16s %-26s %-30s %s" % (
            tpch.SIDE_NAMES[key], tpch.fmt_run(s.get("e2e")) if not s.get("error") else "error: " + s["error"],
            nodes_label(s["nodes"]), "" if key == "pg" else "results %s" % (
                "the same" if s.get("identical") else "DIFFER (%s of %d runs)" % (
                    s.get("differing_runs"), s.get("runs_checked")) if s.get("identical") is False
                else "not compared")))
    if ref is not None:
        spec_check(res, q, ref)
    q["ok"] = not measured["pg"].get("error") and all(
        s.get("identical") for k, s in q["sides"].items() if k != "pg")


def time_summary(res):
    """The log's table: each side's median ms, Gpudb nodes and whether its results were PostgreSQL's."""
    keys = [k for k, _, _ in tpch.SIDES if any(k in q["sides"] for q in res["queries"])]
    head = ["query", "rows"] + sum((["%s ms" % tpch.SIDE_NAMES[k]] + (
        ["Gpudb nodes", "same"] if k != "pg" else []) for k in keys), [])
    rows = []
    for q in res["queries"]:
        cells = [q["id"], "-" if q.get("rows") is None else str(q["rows"])]
        for k in keys:
            s = q["sides"].get(k) or {}
            cells.append("error" if s.get("error") else fmt_ms((s.get("e2e") or {}).get("median")))
            if k != "pg":
                cells += [nodes_label(s.get("nodes", [])), "yes" if s.get("identical") else
                          "NO" if s.get("identical") is False else "-"]
        rows.append(cells)
    return text_table(head, rows)


def time_table(res):
    out = ["| query | rows | side | end to end ms | speedup | Gpudb nodes | result = PostgreSQL's | device ms |",
           "|---|---|---|---|---|---|---|---|"]
    for q in res["queries"]:
        for k, name, _ in tpch.SIDES:
            s = q["sides"].get(k)
            if not s:
                continue
            out.append("| %s | %s | %s | %s | %s | %s | %s | %s |" % (
                q["id"], "-" if q.get("rows") is None else q["rows"], name,
                "error: %s" % s["error"] if s.get("error") else tpch.fmt_run(s.get("e2e")),
                bench.fmt_speedup(s.get("speedup")) if k != "pg" else "", nodes_label(s["nodes"]), tpch.same_cell(k, s),
                fmt_ms(s.get("device_ms")) if k != "pg" else ""))
    return out


# ---------------------------------------------------------------------------
# results
# ---------------------------------------------------------------------------

def markdown(res):
    m, d = res["meta"], res["data"]
    out = ["# gpudb %s, %s (%s) — SF %s, %s, commit %s, %s" % (
        BENCH["name"], BENCH["queries"], m["mode"], sf_label(m["sf"]), m["device"], m["commit"], m["date"]), ""]
    if not m.get("finished"):
        out += ["**Unfinished: written while the run went on (or after it was cut short).**", ""]
    out += ["`%s` on %s (gpudb path `%s`); %s." % (m["command"], m["host"], m["path"], m["pg_version"]),
            "Settings: %s." % ", ".join("%s = %s" % kv for kv in m["settings"].items()), "",
            "Harness time: %.0f s (queries %.0f s)." % (m.get("elapsed_s", 0), m.get("queries_s", 0)), ""]
    if res.get("chart"):
        out += ["![median end-to-end ms per query and side](%s)" % os.path.basename(res["chart"]), ""]
    if m["mode"] == "diff":
        out += ["Each query once on each side, in a psql session of its own: %s. Every gpudb side's `psql -At` "
                "output is compared with PostgreSQL's byte for byte; where the spec's ORDER BY can tie (Q3, Q5, "
                "Q10, Q11, Q18) an output with the same rows and the same sequence of ORDER BY keys is the same "
                "too (\"ties in another order\"). Gpudb nodes: `EXPLAIN (COSTS OFF)` of each side. ms: psql's time "
                "of the one run (for orientation; time mode measures)." % "; ".join(
                    "%s (`%s`)" % (n, s) for _, n, s in res["sides"]), ""]
        out += diff_table(res, True) + [""]
        for q in res["queries"]:
            for k, s in q["sides"].items():
                if s.get("diff"):
                    out += ["%s, %s: differs from PostgreSQL's output (outputs in %s-%s.out and %s-off.out):" % (
                        q["id"], k, q["id"], k, q["id"]), "", "```diff", s["diff"].rstrip(), "```", ""]
    else:
        out += ["tpch.py's measurement of each query: median (min–max) of psql's end-to-end time over %d runs a "
                "side after one warm-up, the sides taking turns in psql sessions of their own: %s; "
                "`max_parallel_workers_per_gather = %d` and the tables' `parallel_workers = %d`. Every run's "
                "output is compared with PostgreSQL's warm-up output (byte for byte, or the ties rule of Q3, Q5, "
                "Q10, Q11, Q18). Device ms: `gpu_last_execution()`, median." % (
                    m["reps"], "; ".join("%s (`%s`)" % (n, s) for _, n, s in tpch.SIDES), m["workers"],
                    m["workers"]), ""]
        out += time_table(res) + [""]
        b = res.get("buffers") or {}
        if b:
            out += ["Buffers: the eight heaps %.2f GB, shared_buffers %.2f GB: %s." % (
                b["heap_bytes"] / 1e9, b["shared_buffers_bytes"] / 1e9,
                "read into shared_buffers first (%s ms)" % fmt_ms(b["warm_ms"]) if b.get("warm_ms") is not None
                else "not read into shared_buffers first"), ""]
        if res.get("cache"):
            out += ["Cache: " + "; ".join("%s %s ms, %.3f GB" % (t, fmt_ms(c["ms"]),
                                                            max(c["device_bytes"], c["host_bytes"]) / 1e9)
                                          for t, c in res["cache"].items()) + ".", ""]
    for q in res["queries"]:
        if q.get("spec_answer"):
            out.append("- %s against the spec's SF 1 answer: %s" % (
                q["id"], q["spec_answer"]["why"] if q["spec_answer"]["ok"] else "**%s**" % q["spec_answer"]["why"]))
    if any(q.get("spec_answer") for q in res["queries"]):
        out.append("")
    for n in res.get("notes", []):
        out += [n, ""]
    out += ["## Data", "", "| table | rows | heap | with indexes | |", "|---|---|---|---|---|"]
    for t, x in d["tables"].items():
        out.append("| %s | %s | %.3f GB | %.3f GB | %s |" % (
            t, "{:,}".format(x["rows"]), x["heap_bytes"] / 1e9, x["total_bytes"] / 1e9,
            "reused" if x["reused"] else "built: load %.1f s, VACUUM (ANALYZE) %.1f s" % (d["load_s"][t],
                                                                                        d["vacuum_s"][t])))
    out.append("")
    if d.get("keys"):
        out += ["Keys made: " + "; ".join("%s %.1f s" % tuple(kv) for kv in d["keys"]) + ".", ""]
    out += ["The queries are in `%s-queries.sql`." % m["stem"], ""]
    return "\n".join(out)


def chart(res, path):
    """time: a PNG of each query's median end-to-end ms per side (log scale), the Gpudb nodes over the bars."""
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    colors = {"pg": "#888888", "heap": "#e0a030", "cache": "#2a7ab8"}
    names = {k: name for k, name, _ in tpch.SIDES}
    qs = [q for q in res["queries"] if q.get("sides")]
    keys = [k for k, _, _ in tpch.SIDES]
    fig, ax = plt.subplots(figsize=(max(8, 0.75 * len(qs) + 2), 5))
    width = 0.8 / len(keys)
    for i, k in enumerate(keys):
        xs = [n + (i - (len(keys) - 1) / 2) * width for n in range(len(qs))]
        vals = [((q["sides"].get(k) or {}).get("e2e") or {}).get("median") for q in qs]
        ax.bar(xs, [v or 0 for v in vals], width, color=colors[k], label=names[k])
        if k != "pg":
            for x, q, v in zip(xs, qs, vals):
                nodes = (q["sides"].get(k) or {}).get("nodes") or []
                if v and nodes:
                    ax.annotate(nodes_label(nodes).replace("Gpudb", ""), (x, v), ha="center", va="bottom",
                                fontsize=6, rotation=90)
    ax.set_yscale("log")
    ax.set_xticks(range(len(qs)))
    ax.set_xticklabels([q["id"] for q in qs], fontsize=8)
    ax.set_ylabel("ms, end to end in psql (median)")
    ax.legend(fontsize=8)
    m = res["meta"]
    ax.set_title("gpudb %s SF %s on %s, commit %s; PostgreSQL with %d workers" % (
        BENCH["name"], sf_label(m["sf"]), m["device"], m["commit"], m["workers"]), fontsize=9)
    fig.tight_layout()
    fig.savefig(path, dpi=100)
    plt.close(fig)
    return path


def write_results(res, outdir, final=False):
    res["meta"]["elapsed_s"] = round(time.time() - bench.T0, 1)
    res["meta"]["finished"] = final
    os.makedirs(outdir, exist_ok=True)
    base = os.path.join(outdir, res["meta"]["stem"])
    with open(base + ".json", "w") as f:
        json.dump(res, f, indent=1, default=str)
    if final and res["meta"]["mode"] == "time":
        try:
            res["chart"] = chart(res, base + ".png")
        except ImportError as e:
            res["chart_note"] = "No chart: %s (install matplotlib, e.g. Debian's python3-matplotlib)." % e
    with open(base + ".md", "w") as f:
        f.write(markdown(res) + "\n")
    return base


def start_run(args, script):
    """The gpudb extension, --cache-size, and the run's record: (res, outdir, stem) for
    test/bench/<script>.py's results (<date>-<device>-<commit>-<script>-<mode>-sf<SF>)."""
    psql("CREATE EXTENSION IF NOT EXISTS gpudb")
    if args.cache_size:
        psql("ALTER SYSTEM SET gpudb.cache_size = %s" % sql_literal(args.cache_size))
        psql("SELECT pg_reload_conf()")
        time.sleep(1)
    device, path, commit, date = bench.run_identity()
    outdir, stem = tpch.results_dir(args.out, "%s-%s-%s-%s-%s-sf%s" % (date, device, commit, script, args.mode,
                                                                      sf_label(args.sf)))
    res = {"meta": {"mode": args.mode, "date": date, "device": device, "path": path, "commit": commit, "stem": stem,
                    "sf": args.sf, "command": shlex.join(["python3", "test/bench/%s.py" % script] + sys.argv[1:]),
                    "host": "%s, %d CPUs" % (os.uname().nodename, os.cpu_count() or 0),
                    "pg_version": psql("SELECT version()").split(",")[0],
                    "settings": tpch.server_settings(args.workers), "workers": args.workers, "reps": args.reps},
           "data": None, "queries": [], "notes": [], "sides": diff_sides(args) if args.mode == "diff" else None}
    return res, outdir, stem


def run_queries(args, res, queries, outdir, script):
    """The queries over BENCH's tables: diff (their parallel_workers reset; with --cache the columns the
    queries name loaded first) or time (prepare_time), the results written after each query and at
    the end, the summary printed; returns the ids of the queries whose gpudb side differed or failed."""
    if args.mode == "diff":
        # PostgreSQL's own choice of workers by table size (a time run, or
        # tpch.py's lineitem, leaves parallel_workers set, and plans change)
        for t in BENCH["tables"]:
            psql("ALTER TABLE %s RESET (parallel_workers)" % t)
        if args.cache:
            for t in [t for t in BENCH["tables"] if query_columns(t, queries)]:
                c = tpch.cache_load(query_columns(t, queries), t)
                if c.get("error"):
                    sys.exit("%s: --cache: %s failed: %s" % (script, c["call"], c["error"]))
            log("the tables loaded into the column cache (the queries' columns)")
    else:
        prepare_time(args, res, queries)
    t0 = time.time()
    tmp = tempfile.mkdtemp(prefix="%s-out-" % script)
    os.chmod(tmp, 0o755)
    try:
        for q in queries:
            log("%s:" % q["id"])
            res["queries"].append(q)
            if args.mode == "diff":
                run_diff(args, res, q, outdir)
            else:
                run_time(args, res, q, tmp)
            res["meta"]["queries_s"] = round(time.time() - t0, 1)
            write_results(res, outdir)
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    base = write_results(res, outdir, final=True)
    print("\n".join(diff_table(res, False) if args.mode == "diff" else time_summary(res)), flush=True)
    bad = [q["id"] for q in res["queries"] if not q["ok"]]
    print("%s: %s: %d queries in %.0f s; wrote %s.md%s" % (
        script, args.mode, len(res["queries"]), res["meta"]["queries_s"], base,
        "; gpudb's results DIFFER from PostgreSQL's or failed: %s" % ", ".join(bad) if bad else
        "; every gpudb result is PostgreSQL's"), flush=True)
    return bad


def main():
    ap = argparse.ArgumentParser(description="The 22 TPC-H queries: gpudb's results against PostgreSQL's (diff) "
                                             "or their times (time); the module docstring says more")
    ap.add_argument("mode", nargs="?", default="diff", choices=("diff", "time"))
    ap.add_argument("--sf", type=float, default=float(os.environ.get("TPCH_SF", "0.1")),
                    help="scale factor (default 0.1, or $TPCH_SF); the spec's answers are checked at 1")
    ap.add_argument("--queries", default="1-22", help="the queries, e.g. 1-22 (default), 3,5,18")
    ap.add_argument("--workers", type=int, default=None,
                    help="max_parallel_workers_per_gather (time: and the tables' parallel_workers); default 2 for "
                         "diff, 16 for time")
    ap.add_argument("--max-run", type=float, default=None,
                    help="seconds one run may take (statement_timeout; default 600 for diff, none for time)")
    ap.add_argument("--cache", action="store_true",
                    help="diff: load the tables into the column cache and compare the cached sides too")
    ap.add_argument("--batch-rows", type=int, default=0, help="diff: gpudb.batch_rows for the gpudb sides")
    ap.add_argument("--reps", type=int, default=3, help="time: timed runs a side after one warm-up (default 3)")
    ap.add_argument("--cache-size", default=os.environ.get("BENCH_CACHE_SIZE", ""),
                    help="set gpudb.cache_size (ALTER SYSTEM, reload) first, e.g. 32GB")
    ap.add_argument("--no-cache", action="store_true", help="time: leave out the cached side")
    ap.add_argument("--no-uncached", action="store_true", help="time: leave out the uncached gpudb side")
    ap.add_argument("--no-prewarm", action="store_true", help="time: do not read the tables into shared_buffers")
    ap.add_argument("--jobs", type=int, default=min(16, os.cpu_count() or 1),
                    help="dbgen chunks and COPY sessions at once (default min(16, CPUs))")
    ap.add_argument("--dbgen-src", default="", help="dbgen's source (as tpch.py)")
    ap.add_argument("--dbgen-build", default="/tmp/gpudb-tpch22-dbgen",
                    help="where dbgen and qgen are built (default /tmp/gpudb-tpch22-dbgen; reused)")
    ap.add_argument("--rebuild", action="store_true", help="build dbgen and the eight tables even where they exist")
    ap.add_argument("--load-only", action="store_true", help="build the data, then stop")
    ap.add_argument("--no-disk-check", action="store_true", help="load even where the disk looks too small")
    ap.add_argument("--chart", default="", metavar="JSON",
                    help="only draw the PNG chart of a time run's results JSON (beside it), then stop")
    ap.add_argument("--out", default="", help="results folder (default test/bench/results/<date>-<gpu>-<commit>-"
                                              "tpch22-<mode>-sf<SF>, with -2, -3, ... where that exists)")
    args = ap.parse_args()
    if args.chart:
        with open(args.chart) as f:
            print(chart(json.load(f), os.path.splitext(args.chart)[0] + ".png"))
        return
    if args.sf <= 0:
        sys.exit("tpch22: --sf must be positive")
    numbers = parse_queries(args.queries)
    if args.workers is None:
        args.workers = 2 if args.mode == "diff" else 16
    if args.max_run is None:
        args.max_run = 600 if args.mode == "diff" else 0

    res, outdir, stem = start_run(args, "tpch22")
    m = res["meta"]
    log("gpudb TPC-H, %s of the 22 queries, %s at SF %s: %s, path %s, commit %s; results to %s" % (
        "all" if len(numbers) == 22 else len(numbers), args.mode, sf_label(args.sf), m["device"], m["path"],
        m["commit"], outdir))
    progs = []

    def programs():
        if not progs:
            progs.extend(dbgen_programs(args))
        return progs
    res["data"] = prepare_data(args, programs)
    src, _, qgen = programs()
    res["meta"]["dbgen_source"] = src
    queries = generate_queries(src, qgen, args.sf, numbers)
    os.makedirs(outdir, exist_ok=True)
    with open(os.path.join(outdir, stem + "-queries.sql"), "w") as f:
        for q in queries:
            f.write("-- %s%s\n%s%s;\n\n" % (q["id"], " (TPC-H qgen -d -s %s; Q15's view made TEMP)" % sf_label(
                args.sf) if q["n"] == 15 else "", q["prelude"], q["sql"]))
    write_results(res, outdir)
    if args.load_only:
        log("--load-only: data ready")
        return
    bad = run_queries(args, res, queries, outdir, "tpch22")
    wrong = [q["id"] for q in res["queries"] if q.get("spec_answer") and q["spec_answer"]["ok"] is False]
    if wrong:
        print("tpch22: PostgreSQL's answers differ from the spec's: %s" % ", ".join(wrong), flush=True)
    sys.exit(1 if bad or wrong else 0)


if __name__ == "__main__":
    main()
