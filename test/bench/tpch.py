#!/usr/bin/env python3
"""test/bench/tpch.py — TPC-H Q1 and Q6 over lineitem: gpudb against PostgreSQL, same server, same data, same run.

usage: python3 test/bench/tpch.py [--sf 10] [--reps 5] [--workers 16] [--out DIR] [more options: --help]

Needs psql on PATH and a server reachable through the usual PG* variables,
with gpudb installed (shared_preload_libraries = gpudb for the column cache),
gcc and make, and TPC-H's dbgen source (2.14.0, as published; it is never
copied into the project): --dbgen-src, else $TPCH_DBGEN_SRC, else the first of
../shared/tpch-dbgen (beside the checkout), shared/tpch-dbgen and
.gpu-bundle/tpch-dbgen (a git-ignored copy that travels to the GPU host with
the bundle: cp -r ../shared/tpch-dbgen .gpu-bundle/).  python3's standard
library and bench.py's helpers; the chart needs matplotlib and is left out,
with a note, without it.

One run does this:

 1. The data (kept between runs: a lineitem whose comment says it was built
    at this SF is reused; --rebuild builds it again).  dbgen is built in
    /tmp (a copy of its source, make -f makefile.suite with MACHINE=LINUX,
    gcc -O2), then lineitem alone is generated in --jobs chunks at once
    (dbgen -s SF -T L -C n -S i), each chunk written into a FIFO (dbgen opens
    a FIFO as such), its trailing '|' cut by sed and loaded by a COPY session
    of its own into the one table: no .tbl file touches the disk.  The table
    has the official TPC-H columns (dss.ddl: NOT NULL, numeric(15,2),
    char(1), date, char(25), char(10), varchar(44)), with l_orderkey bigint
    (orderkeys pass 2^31 past SF 500).  Then VACUUM (ANALYZE), the table's
    parallel_workers = --workers, CHECKPOINT.  Before that, the disk: the
    heap takes 0.95 GB per SF (measured at SF 0.1 and 1; the text would be
    0.76 GB per SF, but none is written), and a run refuses where the data
    directory's file system has less free than the heap plus 4 GB (WAL):
    SF 100 (~95 GB of heap) does not fit the 64 GB disk of the lent GPU
    machine, SF 10 (~9.5 GB) does.
 2. The column cache: gpu_cache_load('lineitem') (every column of a type the
    cache carries; --cache-columns for a list), its time and bytes.  Then,
    where the heap fits in 0.8 x shared_buffers, lineitem is read into
    shared_buffers by a TID range scan (as bench.py's heap section does), so
    that PostgreSQL and gpudb's uncached path read the same buffers.
 3. Q1 and Q6 with the spec's validation parameters (Q1: DELTA = 90; Q6:
    DATE = 1994-01-01, DISCOUNT = 0.06, QUANTITY = 24), each on three sides
    in a psql session of its own: PostgreSQL (gpudb.enabled = off,
    max_parallel_workers_per_gather = --workers), gpudb uncached
    (gpudb.use_cache = off: the plan nodes over the heap) and gpudb cached;
    one warm-up of each side, then --reps runs of each, the sides taking
    turns (order reversed every round).  Median and min-max of psql's end
    to end time (\\timing, rows fetched by psql), gpu_last_execution()'s
    device time after each run, and whether the plan holds
    Custom Scan (GpudbAgg).  Every run's psql -At output is compared byte for
    byte with PostgreSQL's warm-up output.  Then EXPLAIN (ANALYZE, BUFFERS)
    of each side, its text kept in <stem>-explain.txt, and the medians of
    --explain-reps EXPLAIN (ANALYZE, FORMAT JSON) of the gpudb sides: the
    device time per phase of the Gpudb nodes.  At SF 1, PostgreSQL's answers
    are also checked against the spec's (dbgen's answers/q1.out, q6.out;
    rounded to the decimals they print, within the spec's tolerance).
 4. The HBM floor: the bytes of the columns a query reads as the cache stores
    them (8 bytes a value, int64 or fixed-point numeric, plus 1 NULL-flag
    byte a value: 9 bytes x rows x columns; Q1 reads 7 columns, Q6 4)
    divided by the device's memory bandwidth (--hbm-tbps, default by the
    device's name: 3.35 TB/s for an H100 SXM, 4.8 for an H200), next to the
    measured device time.
 5. Results: <date>-<gpu>-<commit>-tpch-sf<SF>.md (tables, the targets of
    the TPC-H issue: cached SF 10 Q1 <= 10 ms and Q6 <= 3 ms, SF 100 Q1 <= 60
    ms, end to end), .json (everything measured), .png (end-to-end time per
    side, log scale, the HBM floor and the target marked) and -explain.txt,
    in --out DIR, by default test/bench/results/<that name>/ (-2, -3, ...
    where that exists): four files.  The JSON and markdown are rewritten
    after each query, so a run cut short keeps what it measured.

Time: on 2 cores, generation + load took 15 s at SF 1 (0.4M rows/s, CPU
bound: dbgen, sed, psql and the COPY backend ~5 us of CPU a row together),
VACUUM (ANALYZE) 0.8 s.  On the lent GPU machine's 16 cores that is expected
at ~5 s for SF 1 and 0.5-1 minute for SF 10 (60M rows; 16 COPY sessions into
one table contend for its extension lock in PostgreSQL 15), plus VACUUM and
CHECKPOINT (~10 GB written) of under a minute, and the gpu_cache_load of all
columns (l_comment's dictionary is most of it: 4.6 of 7.5 s at SF 1 on the
CPU path); then the queries, about 2 minutes at SF 10 (mostly PostgreSQL's
Q1, and the gpudb sides where they are not offloaded).  A warm machine reuses
lineitem.
On the GPU host: bash test/gpu_host_run.sh tpch [SF] (or tpch-start /
tpch-wait).  test/bench/tpch22.py runs the 22 queries over the eight tables
(a differential against PostgreSQL, and times) with this file's code.  A smoke test without a GPU (gpudb.device = cpu):
    python3 test/bench/tpch.py --sf 0.1 --workers 2 --reps 2 --out /tmp/tpch-out
"""
import argparse
import datetime
import decimal
import json
import os
import re
import shlex
import shutil
import statistics
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
sys.path.insert(0, HERE)
import bench  # noqa: E402  (the psql session, EXPLAIN parsing, cache and buffer helpers)
from bench import fmt_ms, log, psql, sql_literal  # noqa: E402

TABLE = "lineitem"
# dbgen's -T letter of each table (tpch22.py loads all eight); nation and
# region are generated whole (dbgen does not split them into chunks)
DBGEN_TABLES = {"part": "P", "partsupp": "S", "supplier": "s", "customer": "c", "orders": "O", "lineitem": "L",
                "nation": "n", "region": "r"}
UNSPLIT_TABLES = ("nation", "region")
# heap bytes per SF of lineitem as created here (PostgreSQL 15, 8 kB pages):
# 0.947 GB at SF 1 and 0.1; the disk check adds WAL_MARGIN
HEAP_BYTES_PER_SF = 0.95e9
WAL_MARGIN = 4e9

LINEITEM_DDL = """CREATE TABLE lineitem (
    l_orderkey      bigint         NOT NULL,
    l_partkey       integer        NOT NULL,
    l_suppkey       integer        NOT NULL,
    l_linenumber    integer        NOT NULL,
    l_quantity      numeric(15,2)  NOT NULL,
    l_extendedprice numeric(15,2)  NOT NULL,
    l_discount      numeric(15,2)  NOT NULL,
    l_tax           numeric(15,2)  NOT NULL,
    l_returnflag    char(1)        NOT NULL,
    l_linestatus    char(1)        NOT NULL,
    l_shipdate      date           NOT NULL,
    l_commitdate    date           NOT NULL,
    l_receiptdate   date           NOT NULL,
    l_shipinstruct  char(25)       NOT NULL,
    l_shipmode      char(10)       NOT NULL,
    l_comment       varchar(44)    NOT NULL
) WITH (autovacuum_enabled = off)"""

# The spec's queries (dbgen's queries/1.sql and 6.sql) with the validation
# parameters of 2.4.1.3 and 2.4.6.3, in PostgreSQL's interval syntax.
Q1 = """select
    l_returnflag,
    l_linestatus,
    sum(l_quantity) as sum_qty,
    sum(l_extendedprice) as sum_base_price,
    sum(l_extendedprice * (1 - l_discount)) as sum_disc_price,
    sum(l_extendedprice * (1 - l_discount) * (1 + l_tax)) as sum_charge,
    avg(l_quantity) as avg_qty,
    avg(l_extendedprice) as avg_price,
    avg(l_discount) as avg_disc,
    count(*) as count_order
from
    lineitem
where
    l_shipdate <= date '1998-12-01' - interval '90' day
group by
    l_returnflag,
    l_linestatus
order by
    l_returnflag,
    l_linestatus"""

Q6 = """select
    sum(l_extendedprice * l_discount) as revenue
from
    lineitem
where
    l_shipdate >= date '1994-01-01'
    and l_shipdate < date '1994-01-01' + interval '1' year
    and l_discount between 0.06 - 0.01 and 0.06 + 0.01
    and l_quantity < 24"""

# id, query, the columns it reads (for the HBM floor), the spec's answer file
QUERIES = [
    ("Q1", Q1, ("l_returnflag", "l_linestatus", "l_quantity", "l_extendedprice", "l_discount", "l_tax",
                "l_shipdate"), "q1.out"),
    ("Q6", Q6, ("l_shipdate", "l_discount", "l_quantity", "l_extendedprice"), "q6.out"),
]
# bytes a value of a column read, as the cache stores it: 8 (int64 or float64
# / fixed-point numeric) + 1 NULL flag
STORE_BYTES_PER_VALUE = 9

# The TPC-H issue's targets: end to end in psql, cached.
TARGETS = [(10, "Q1", 10.0), (10, "Q6", 3.0), (100, "Q1", 60.0)]

SIDES = [
    ("pg", "PostgreSQL", "SET gpudb.enabled = off;"),
    ("heap", "gpudb uncached", "SET gpudb.enabled = on; SET gpudb.use_cache = off;"),
    ("cache", "gpudb cached", "SET gpudb.enabled = on; SET gpudb.use_cache = on;"),
]
SIDE_NAMES = {k: n for k, n, _ in SIDES}

# memory bandwidth by device name (TB/s), the first match wins; --hbm-tbps overrides
HBM_TBPS = [("H200", 4.8), ("H100 PCIe", 2.0), ("H100 NVL", 3.9), ("H100", 3.35), ("A100-SXM4-80GB", 2.04),
            ("A100", 1.56)]
HBM_DEFAULT = 3.35


def sf_label(sf):
    return "%g" % sf


def expected_rows(sf):
    """lineitem's rows at the spec's scale factors (dbgen 2.14.0); None otherwise."""
    return {0.1: 600572, 1: 6001215, 10: 59986052, 100: 600037902}.get(sf)


# ---------------------------------------------------------------------------
# dbgen and the data
# ---------------------------------------------------------------------------

def dbgen_source(arg):
    cands = [arg] if arg else []
    if os.environ.get("TPCH_DBGEN_SRC"):
        cands.append(os.environ["TPCH_DBGEN_SRC"])
    cands += [os.path.join(ROOT, "..", "shared", "tpch-dbgen"), os.path.join(ROOT, "shared", "tpch-dbgen"),
              os.path.join(ROOT, ".gpu-bundle", "tpch-dbgen")]
    for c in cands:
        if c and os.path.isfile(os.path.join(c, "makefile.suite")) and os.path.isfile(os.path.join(c, "dists.dss")):
            return os.path.abspath(c)
    sys.exit("tpch: no dbgen source (looked in %s): pass --dbgen-src or set TPCH_DBGEN_SRC; for the GPU host, "
             "cp -r ../shared/tpch-dbgen .gpu-bundle/ on the development machine (git-ignored; the bundle "
             "carries it)" % ", ".join(c for c in cands if c))


def build_dbgen(src, build, programs=("dbgen",)):
    """Copies the source to build (in /tmp) and makes dbgen there (and the other
    programs named, e.g. qgen); returns dbgen's path.
    Without _FORTIFY_SOURCE: dbgen opens its files with O_CREAT and no mode,
    which a fortified glibc aborts (seen on the GPU host, whose gcc fortifies
    by default: every chunk died with SIGABRT)."""
    shutil.rmtree(build, ignore_errors=True)
    shutil.copytree(src, build)
    # makefile.suite leaves CC, DATABASE, MACHINE and WORKLOAD to be set
    # (DATABASE matters to qgen only); -O2 writes the same rows (checked at SF 1)
    cmd = ["make", "-s", "-C", build, "-f", "makefile.suite", "-j%d" % min(8, os.cpu_count() or 1),
           "CC=gcc -O2 -U_FORTIFY_SOURCE -D_FORTIFY_SOURCE=0", "DATABASE=ORACLE", "MACHINE=LINUX",
           "WORKLOAD=TPCH"] + list(programs)
    try:
        r = subprocess.run(cmd, capture_output=True, text=True)
    except OSError as e:  # no make
        r = subprocess.CompletedProcess(cmd, 127, "", str(e))
    binary = os.path.join(build, "dbgen")
    if r.returncode != 0 and all(os.access(os.path.join(src, p), os.X_OK) for p in programs):
        # a machine without a compiler: the dbgen built beside the source
        # (make -C SRC -f makefile.suite CC='gcc -O2' DATABASE=ORACLE MACHINE=LINUX WORKLOAD=TPCH dbgen)
        log("building dbgen failed (%s); using the one built in %s" % (
            (r.stderr.strip().splitlines() or ["exit %d" % r.returncode])[-1], src))
        for p in programs:
            shutil.copy2(os.path.join(src, p), os.path.join(build, p))
    elif r.returncode != 0 or not all(os.access(os.path.join(build, p), os.X_OK) for p in programs):
        sys.exit("tpch: building dbgen failed: %s\n%s%s" % (shlex.join(cmd), r.stdout[-2000:], r.stderr[-4000:]))
    return binary


def data_dir_free():
    """Free bytes of the data directory's file system, or None where it cannot be read."""
    try:
        d = psql("SHOW data_directory")
        st = os.statvfs(d)
        return st.f_bavail * st.f_frsize
    except (OSError, SystemExit):
        return None


def process_states(pids):
    """'pid name state wchan' of each live pid, from /proc (for a stall report)."""
    out = []
    for pid in pids:
        try:
            with open("/proc/%d/stat" % pid) as f:
                fields = f.read().split()
            with open("/proc/%d/wchan" % pid) as f:
                wchan = f.read().strip()
            out.append("%d %s %s %s" % (pid, fields[1], fields[2], wchan or "-"))
        except OSError:
            pass
    return out


def watch_load(gens, loaders, stall_s, table=TABLE):
    """Waits for the dbgen and COPY processes, logging the rows COPY has taken
    every 30 s.  A dbgen that fails, or no new row for stall_s seconds, ends
    the wait: the processes are killed (a FIFO's reader would otherwise wait
    for a writer that never comes) and the list returned says what was seen:
    each process's state and kernel wait channel and the COPY sessions'
    wait events.  Returns [] when every process ended."""
    last_rows, last_change, last_log = -1, time.time(), time.time()
    while True:
        if all(p.poll() is not None for p in gens + loaders):
            return []
        if any(g.poll() is not None and g.returncode != 0 for g in gens):
            reason = "a dbgen chunk failed"
        else:
            try:
                rows = int(psql("SELECT coalesce(sum(tuples_processed), 0) FROM pg_stat_progress_copy "
                                "WHERE relid = to_regclass(%s)" % sql_literal(table)) or 0)
            except Exception:  # noqa: BLE001 (a failed probe is no progress)
                rows = last_rows
            now = time.time()
            if rows != last_rows:
                last_rows, last_change = rows, now
            if now - last_log >= 30:
                log("  loading: %d rows in the COPY sessions so far" % max(rows, 0))
                last_log = now
            if now - last_change < stall_s:
                for _ in range(20):  # 2 s, or less where the processes end
                    if all(p.poll() is not None for p in gens + loaders):
                        break
                    time.sleep(0.1)
                continue
            reason = "no row loaded for %d s (%d so far)" % (stall_s, max(last_rows, 0))
        report = [reason, "processes (pid name state wchan):"]
        report += ["  " + x for x in process_states([p.pid for p in gens + loaders])]
        try:
            report.append("COPY sessions: " + psql(
                "SELECT string_agg(pid || ' ' || coalesce(wait_event_type, '-') || '/' || "
                "coalesce(wait_event, '-') || ' ' || state, '; ') FROM pg_stat_activity "
                "WHERE query LIKE 'COPY %%'"))
        except Exception as e:  # noqa: BLE001
            report.append("COPY sessions: not known (%s)" % e)
        for p in gens + loaders:
            if p.poll() is None:
                p.kill()
        return report


def generate_and_load(binary, sf, jobs, stall_s=120, table=TABLE):
    """dbgen -T L (or table's letter) in jobs chunks, each through a FIFO, sed
    and a COPY session of its own into lineitem (or table); returns the
    seconds it took.  Exits with what was seen (watch_load) when a chunk
    fails or the load stalls."""
    build = os.path.dirname(binary)
    fifo_dir = tempfile.mkdtemp(prefix="tpch-fifo-")
    env = dict(os.environ, DSS_PATH=fifo_dir, DSS_CONFIG=build)
    copy = "COPY %s FROM STDIN (DELIMITER '|')" % table
    loaders, gens = [], []
    t0 = time.time()
    try:
        for i in range(1, jobs + 1):
            fifo = os.path.join(fifo_dir, table + ".tbl" + (".%d" % i if jobs > 1 else ""))
            os.mkfifo(fifo)
            err = tempfile.TemporaryFile(mode="w+")
            loaders.append((subprocess.Popen(
                "sed 's/|$//' < %s | psql -X -q -v ON_ERROR_STOP=1 -c %s" % (shlex.quote(fifo), shlex.quote(copy)),
                shell=True, stdout=subprocess.DEVNULL, stderr=err, executable="/bin/bash"), err))
            chunk = ["-C", str(jobs), "-S", str(i)] if jobs > 1 else []
            # stderr to a file: a pipe nobody reads could fill and stop dbgen
            gerr = tempfile.TemporaryFile(mode="w+")
            gens.append(subprocess.Popen([binary, "-q", "-f", "-s", sf_label(sf), "-T", DBGEN_TABLES[table]] + chunk,
                                         cwd=build, env=env, stdout=subprocess.DEVNULL, stderr=gerr, text=True))
            gens[-1].errfile = gerr
        failed = watch_load(gens, [p for p, _ in loaders], stall_s, table)
        for i, g in enumerate(gens):
            if g.poll() is not None and g.returncode != 0:
                g.errfile.seek(0)
                failed.append("dbgen chunk %d: exit %d %s" % (i + 1, g.returncode,
                                                              g.errfile.read().strip()[-500:]))
        for i, (p, err) in enumerate(loaders):
            if p.poll() is not None and p.returncode != 0:
                err.seek(0)
                failed.append("COPY of chunk %d: %s" % (i + 1, err.read().strip()[-500:]))
            err.close()
        if failed:
            sys.exit("tpch: loading failed:\n  " + "\n  ".join(failed))
    finally:
        for p, _ in loaders:
            if p.poll() is None:
                p.kill()
        for g in gens:
            if g.poll() is None:
                g.kill()
        shutil.rmtree(fifo_dir, ignore_errors=True)
    return time.time() - t0


def data_mark(table, sf):
    """The comment of a table built here at sf (tpch22.py's tables too)."""
    return "gpudb tpch %s v1 dbgen 2.14.0 sf=%s" % (table, sf_label(sf))


def check_disk(sf, bytes_per_sf, tables, no_check):
    """Exits where the data directory's file system lacks sf x bytes_per_sf of
    heap plus WAL_MARGIN (the tables named, dropped first, count as free)."""
    need = sf * bytes_per_sf + WAL_MARGIN
    free = data_dir_free()
    old = sum(int(psql("SELECT coalesce(pg_total_relation_size(to_regclass(%s)), 0)" % sql_literal(t)))
              for t in tables)
    if free is not None and need > free + old and not no_check:
        sys.exit("tpch: SF %s needs about %.0f GB (the heap of %s ~%.2f GB per SF, plus %.0f GB of WAL); the data "
                 "directory's file system has %.0f GB free (+%.0f GB of those tables there now). SF 100 does not "
                 "fit the 64 GB disk of the lent GPU machine; use SF 10 there (--no-disk-check to try anyway)."
                 % (sf_label(sf), need / 1e9, ", ".join(tables), bytes_per_sf / 1e9, WAL_MARGIN / 1e9, free / 1e9,
                    old / 1e9))


def load_table(binary, table, ddl, sf, jobs, want=None, workers=0):
    """Creates table (ddl; dropped first where it exists), generates and loads
    it (generate_and_load), checks its rows against want, VACUUM (ANALYZE),
    autovacuum back on (and parallel_workers where workers), then the comment
    that marks it complete (data_mark); returns (rows, load_s, vacuum_s)."""
    bench.drop_table(table)
    psql(ddl)
    jobs = 1 if table in UNSPLIT_TABLES else max(1, jobs)
    log("generating and loading %s at SF %s: %d chunk%s, each dbgen -> FIFO -> sed -> COPY"
        % (table, sf_label(sf), jobs, "" if jobs == 1 else "s"))
    load_s = generate_and_load(binary, sf, jobs, table=table)
    rows = int(psql("SELECT count(*) FROM %s" % table))
    log("  %d rows in %.1f s (%.0f rows/s)" % (rows, load_s, rows / max(load_s, 1e-9)))
    if want is not None and rows != want:
        sys.exit("tpch: %s has %d rows; dbgen's SF %s has %d" % (table, rows, sf_label(sf), want))
    t1 = time.time()
    psql("VACUUM (ANALYZE) %s" % table)
    vac_s = time.time() - t1
    psql("ALTER TABLE %s SET (%sautovacuum_enabled = on)" % (
        table, "parallel_workers = %d, " % workers if workers else ""))
    psql("COMMENT ON TABLE %s IS %s" % (table, sql_literal(data_mark(table, sf))))
    return rows, load_s, vac_s


def prepare_data(args, res):
    """lineitem at args.sf: reused where its comment says so, else built."""
    if not args.rebuild and bench.table_mark(TABLE) == data_mark(TABLE, args.sf):
        info = bench.table_info(TABLE, "tpch", time.time(), False)
        if info["rows"] > 0:
            psql("ALTER TABLE %s SET (parallel_workers = %d)" % (TABLE, args.workers))
            log("lineitem at SF %s: reused (%d rows, %.2f GB)" % (sf_label(args.sf), info["rows"],
                                                                   info["heap_bytes"] / 1e9))
            return info
    # a lineitem of another SF is dropped first: its space counts as free
    check_disk(args.sf, HEAP_BYTES_PER_SF, [TABLE], args.no_disk_check)
    src = dbgen_source(args.dbgen_src)
    t0 = time.time()
    binary = build_dbgen(src, args.dbgen_build)
    built_s = time.time() - t0
    log("dbgen built from %s in %s (%.1f s)" % (src, args.dbgen_build, built_s))
    jobs = max(1, args.jobs)
    _, load_s, vac_s = load_table(binary, TABLE, LINEITEM_DDL, args.sf, jobs, expected_rows(args.sf), args.workers)
    t2 = time.time()
    psql("CHECKPOINT", check=False)
    ckpt_s = time.time() - t2
    info = bench.table_info(TABLE, "tpch", t0, True, {"dbgen_build_s": built_s, "generate_load_s": load_s,
                                                        "vacuum_analyze_s": vac_s, "checkpoint_s": ckpt_s})
    info["jobs"] = jobs
    info["dbgen_source"] = src
    log("  VACUUM (ANALYZE) %.1f s, CHECKPOINT %.1f s; heap %.2f GB (%.2f GB per SF)"
        % (vac_s, ckpt_s, info["heap_bytes"] / 1e9, info["heap_bytes"] / 1e9 / args.sf))
    return info


def cache_load(columns, table=TABLE):
    """gpu_cache_load of lineitem or table (columns: None for all): its numbers, or an error."""
    psql("SELECT gpu_cache_drop(%s)" % sql_literal(table), check=False)
    arg = sql_literal(table) + (", %s::name[]" % sql_literal("{" + ",".join(columns) + "}") if columns else "")
    r = bench.psql_script("\\timing on\nSELECT gpu_cache_load(%s);\n" % arg)
    if r.returncode != 0:
        return {"error": (r.stderr.strip().splitlines() or ["failed"])[-1], "call": "gpu_cache_load(%s)" % arg}
    ms = float(re.findall(r"^Time: ([0-9.]+) ms", r.stdout, re.M)[0])
    row = psql("SELECT array_to_string(columns, ','), rows, device_bytes, host_bytes, load_ms FROM gpu_cache "
               "WHERE relation = %s::regclass" % sql_literal(table))
    if not row:
        return {"error": "no gpu_cache entry after the load", "call": "gpu_cache_load(%s)" % arg}
    cols, rows, dev, host, load_ms = row.split("|")
    nbytes = max(int(dev), int(host))
    return {"call": "gpu_cache_load(%s)" % arg, "columns": cols.split(",") if cols else [], "rows": int(rows),
            "ms": ms, "server_load_ms": float(load_ms or 0), "device_bytes": int(dev), "host_bytes": int(host),
            "gbps": nbytes / 1e6 / ms if ms else None}


# ---------------------------------------------------------------------------
# measuring
# ---------------------------------------------------------------------------

class Session(bench.Session):
    """bench.py's psql session; each run's rows go to a file, for the comparison."""

    def run_to(self, query, path, device):
        """(psql's ms, device ms or None, the rows as psql -At printed them); None ms when it failed."""
        text = "\\o %s\n%s;\n\\o\n" % (path, query)
        if device:
            text += "SELECT 'device:' || device_ms FROM gpu_last_execution();\n"
        out = self.exchange(text)
        if out is None:
            return None, None, None
        times = re.findall(r"^Time: ([0-9.]+) ms", "".join(out), re.M)
        if not times:
            self.error = "no timing from psql: %s" % "".join(out).strip()[:200]
            return None, None, None
        dev = re.findall(r"^device:([-0-9.e+]+)$", "".join(out), re.M)
        with open(path, "rb") as f:
            rows = f.read()
        return float(times[0]), (float(dev[0]) if dev else None), rows


def summary(times):
    if not times:
        return None
    return {"n": len(times), "median": statistics.median(times), "min": min(times), "max": max(times),
            "times": times}


def fmt_run(m):
    if not m:
        return "-"
    return "%s (%s–%s)" % (fmt_ms(m["median"]), fmt_ms(m["min"]), fmt_ms(m["max"]))


def measure(args, qid, query, sides, tmp, prelude="", same=None):
    """sides: [(key, setup)]: one warm-up each, then args.reps rounds, the order
    reversed every round.  Returns {key: {...}}; every output is compared with
    PostgreSQL's warm-up output (the reference), byte for byte or by same(ref,
    output) where given.  prelude: SQL each session runs after its setup
    (Q15's view)."""
    timeout = " SET statement_timeout = %d;" % int(args.max_run * 1000) if args.max_run else ""
    par = "SET max_parallel_workers_per_gather = %d;" % args.workers
    st = {}
    for key, setup in sides:
        st[key] = {"session": Session(par + " " + setup + timeout + prelude), "times": [], "device": [], "warm": None,
                   "error": None, "outputs": [], "done": False}
    ref = None
    try:
        order = [k for k, _ in sides]
        for rnd in range(args.reps + 1):
            for key in (order if rnd % 2 == 0 else order[::-1]):
                s = st[key]
                if s["done"]:
                    continue
                path = os.path.join(tmp, "%s-%s-%d.out" % (qid, key, rnd))
                ms, dev, rows = s["session"].run_to(query, path, key != "pg")
                if ms is None:
                    s["error"], s["done"] = s["session"].error, True
                    log("  %s %s: error: %s" % (qid, SIDE_NAMES[key], s["error"]))
                    continue
                if key == "pg" and ref is None:
                    ref = rows
                s["outputs"].append(rows)
                if rnd == 0:
                    s["warm"] = ms
                else:
                    s["times"].append(ms)
                    if dev is not None:
                        s["device"].append(dev)
    finally:
        for s in st.values():
            s["session"].close()
    out = {}
    for key, _ in sides:
        s = st[key]
        rec = {"error": s["error"], "warmup_ms": s["warm"], "e2e": summary(s["times"]),
               "device_ms": statistics.median(s["device"]) if s["device"] else None,
               "runs_checked": len(s["outputs"])}
        if key != "pg":
            if ref is None:
                rec["identical"] = None
            else:
                diff = [i for i, o in enumerate(s["outputs"]) if (not same(ref, o) if same else o != ref)]
                # (a side that failed: None unless a run it finished differed)
                rec["identical"] = False if diff else (None if s["error"] else True)
                rec["differing_runs"] = len(diff)
                if diff:
                    rec["first_difference"] = s["outputs"][diff[0]].decode(errors="replace")[:2000]
        out[key] = rec
    return out, (ref.decode(errors="replace") if ref is not None else None)


def explain_text(workers, setup, query):
    r = bench.psql_script("SET max_parallel_workers_per_gather = %d;\n%s\nEXPLAIN (ANALYZE, BUFFERS) %s;\n"
                          % (workers, setup, query))
    if r.returncode != 0:
        return "(failed: %s)" % r.stderr.strip()
    return r.stdout.rstrip()


NUMBER = re.compile(r"-?[0-9]+(\.[0-9]+)?")


def _answer_cell(cell, places):
    """A cell as compared with the answers: a number rounded half up to places
    decimals (the answers print 2, or none for integers), other text without
    its trailing blanks (the answers pad their columns, as char(n) does)."""
    t = cell.strip()
    if places is not None and NUMBER.fullmatch(t):
        return str(decimal.Decimal(t).quantize(decimal.Decimal(1).scaleb(-places), rounding=decimal.ROUND_HALF_UP))
    return cell.rstrip()


def column_kinds(src, answer_file):
    """The kinds of q<n>.out's columns as dbgen's check_answers/colprecision.txt
    names them (str, int, cnt, num, sum, avg, rat; line n), or []."""
    m = re.fullmatch(r"q(\d+)\.out", answer_file)
    path = os.path.join(src or "", "check_answers", "colprecision.txt")
    if not m or not os.path.isfile(path):
        return []
    lines = open(path).read().splitlines()
    n = int(m.group(1))
    return lines[n - 1].split() if n <= len(lines) else []


def within_tolerance(kind, want, got):
    """The spec's validation tolerances: a SUM within 100, an AVG or a ratio
    within 1 % (the other kinds match exactly)."""
    if not (NUMBER.fullmatch(want) and NUMBER.fullmatch(got)):
        return False
    w, g = decimal.Decimal(want), decimal.Decimal(got)
    if kind == "sum":
        return abs(g - w) <= 100
    if kind in ("avg", "rat"):
        return abs(g - w) <= abs(w) / 100
    return False


def spec_answer_check(src, answer_file, output, ties=False):
    """PostgreSQL's rows against dbgen's answers/<file> (SF 1), numbers rounded
    to the decimals the answer prints in that column: (True/False, why).
    A value that differs still matches within the spec's tolerance for its
    column's kind (within_tolerance; why says which values).  ties: the
    query's ORDER BY may tie, so rows in another order than the answer's
    match as a multiset (said so in why)."""
    path = os.path.join(src or "", "answers", answer_file)
    if not src or not os.path.isfile(path):
        return None, "no answers/%s" % answer_file
    lines = [ln for ln in open(path).read().splitlines() if ln.strip()]
    want = [ln.split("|") for ln in lines[1:]]
    got = [ln.split("|") for ln in output.splitlines() if ln.strip()]
    if len(want) != len(got):
        return False, "%d rows, the answer has %d" % (len(got), len(want))
    if any(len(w) != len(g) for w, g in zip(want, got)):
        return False, "%d columns, the answer has %d" % (len(got[0]), len(want[0]))
    places = []
    for j in range(len(want[0]) if want else 0):
        col = [w[j].strip() for w in want]
        places.append(max(len(c.partition(".")[2]) for c in col) if all(NUMBER.fullmatch(c) for c in col) else None)
    want = [[_answer_cell(c, p) for c, p in zip(w, places)] for w in want]
    got = [[_answer_cell(c, p) for c, p in zip(g, places)] for g in got]
    kinds = column_kinds(src, answer_file)
    tolerated = []
    for i, (w, g) in enumerate(zip(want, got)):
        if w == g:
            continue
        off = [j for j, (a, b) in enumerate(zip(w, g)) if a != b]
        if all(j < len(kinds) and within_tolerance(kinds[j], w[j], g[j]) for j in off):
            tolerated += ["row %d column %d (%s) %s for %s" % (i + 1, j + 1, kinds[j], g[j], w[j]) for j in off]
            continue
        if ties and sorted(want) == sorted(got):
            return True, "matches answers/%s as a multiset (rows whose sort keys tie in another order)" % (
                answer_file)
        return False, "row %d: %s against the answer's %s" % (i + 1, "|".join(g), "|".join(w))
    if tolerated:
        return True, "matches answers/%s within the spec's tolerance (a SUM within 100, an AVG or ratio within " \
            "1 %%): %s" % (answer_file, "; ".join(tolerated[:3]) + ("; ..." if len(tolerated) > 3 else ""))
    return True, "matches answers/%s" % answer_file


def hbm_tbps(args, device):
    if args.hbm_tbps:
        return args.hbm_tbps, "--hbm-tbps"
    for name, tbps in HBM_TBPS:
        if name.lower() in device.replace("_", " ").lower():
            return tbps, "the spec sheet of the %s" % name
    return HBM_DEFAULT, "assumed: an H100 SXM's; --hbm-tbps sets it"


def run_query(args, res, qid, query, cols, answer_file, tmp, cached):
    rows = res["data"]["rows"]
    par = "SET max_parallel_workers_per_gather = %d;" % args.workers
    sides = [(k, setup) for k, _, setup in SIDES if k != "cache" or cached]
    rec = {"id": qid, "query": query, "columns": list(cols), "sides": {}}
    for key, setup in sides:
        ex = bench.explain(par + " " + setup, query)
        rec["sides"][key] = {"plan": ex.get("shape"), "nodes": ex.get("nodes", []),
                             "gpuagg": "GpudbAgg" in ex.get("nodes", []), "plan_error": ex.get("error")}
    log("%s: plans: %s" % (qid, "; ".join("%s %s" % (SIDE_NAMES[k], rec["sides"][k]["plan"]) for k, _ in sides)))
    measured, ref = measure(args, qid, query, sides, tmp)
    rec["result"] = ref
    for key, _ in sides:
        rec["sides"][key].update(measured[key])
    pg = rec["sides"]["pg"].get("e2e")
    for key, _ in sides:
        s = rec["sides"][key]
        s["speedup"] = (pg["median"] / s["e2e"]["median"]) if pg and s.get("e2e") and key != "pg" else None
        log("  %-16s %-26s %s%s" % (SIDE_NAMES[key], fmt_run(s.get("e2e")) if not s.get("error") else "error",
                                    "GpudbAgg" if s["gpuagg"] else ",".join(s["nodes"]) or "no Gpudb node",
                                    "" if key == "pg" else ", results %s" % (
                                        "identical" if s.get("identical") else "DIFFER (%s of %d runs)"
                                        % (s.get("differing_runs"), s.get("runs_checked"))
                                        if s.get("identical") is False else "not compared")))
    # EXPLAIN ANALYZE: the text of each side, and the gpudb sides' phase times
    texts = []
    for key, setup in sides:
        s = rec["sides"][key]
        texts.append("==== %s, %s (%s) ====\n%s\n%s\n" % (qid, SIDE_NAMES[key], setup, "EXPLAIN (ANALYZE, BUFFERS)",
                                                          explain_text(args.workers, setup, query)))
        if key != "pg" and s["nodes"] and s.get("e2e"):
            reps = max(1, min(args.explain_reps, int(args.explain_budget * 1000 // max(s["e2e"]["median"], 1e-3))))
            s["explain"] = bench.explain(par + " " + setup, query, reps)
    rec["explain_text"] = "\n".join(texts)
    # the HBM floor
    nbytes = rows * len(cols) * STORE_BYTES_PER_VALUE
    tbps = res["meta"]["hbm_tbps"]
    rec["floor"] = {"bytes": nbytes, "ms": nbytes / (tbps * 1e9)}
    for key in ("heap", "cache"):
        s = rec["sides"].get(key)
        if not s:
            continue
        dev = (s.get("explain") or {}).get("Device Time") or s.get("device_ms")
        s["device_for_floor_ms"] = dev
        s["floor_ratio"] = dev / rec["floor"]["ms"] if dev else None
    if args.sf == 1 and not res["meta"].get("reused_without_source"):
        ok, why = spec_answer_check(res["meta"].get("dbgen_source"), answer_file, ref or "")
        rec["spec_answer"] = {"ok": ok, "why": why}
        log("  spec answer (SF 1): %s" % why)
    return rec


# ---------------------------------------------------------------------------
# results
# ---------------------------------------------------------------------------

def targets(res):
    out = []
    for sf, qid, ms in TARGETS:
        rec = next((q for q in res["queries"] if q["id"] == qid), None)
        cache = (rec or {}).get("sides", {}).get("cache") or {}
        if res["meta"]["sf"] != sf:
            continue
        e2e = cache.get("e2e")
        if not e2e:
            out.append({"what": "cached SF %d %s" % (sf, qid), "target": "<= %g ms" % ms, "met": False,
                        "value": "not measured", "miss": "not measured (%s)" % (cache.get("error") or "no cache")})
            continue
        v = e2e["median"]
        out.append({"what": "cached SF %d %s" % (sf, qid), "target": "<= %g ms" % ms, "met": v <= ms,
                    "value": "%s ms end to end%s" % (fmt_ms(v), "" if cache.get("gpuagg") else " (no GpudbAgg)"),
                    "miss": None if v <= ms else "missed by %s ms (%.1fx the target)" % (fmt_ms(v - ms), v / ms)})
    return out


def chart(res, path):
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    colors = {"pg": "#888888", "heap": "#e0a030", "cache": "#2a7ab8"}
    qs = res["queries"]
    fig, axes = plt.subplots(1, len(qs), figsize=(5.5 * len(qs), 4.4), squeeze=False)
    for ax, q in zip(axes[0], qs):
        keys = [k for k, _, _ in SIDES if k in q["sides"]]
        vals = [((q["sides"][k].get("e2e") or {}).get("median")) for k in keys]
        xs = range(len(keys))
        bars = ax.bar(xs, [v or 0 for v in vals], color=[colors[k] for k in keys])
        for b, v, k in zip(bars, vals, keys):
            if v:
                s = q["sides"][k]
                dev = s.get("device_for_floor_ms")
                label = fmt_ms(v) + " ms" + ("" if k == "pg" else "\n" + (
                    "GpudbAgg%s" % (", device %s ms" % fmt_ms(dev) if dev is not None else "") if s["gpuagg"]
                    else "no GpudbAgg"))
                ax.annotate(label, (b.get_x() + b.get_width() / 2, v), ha="center", va="bottom", fontsize=7)
        ax.axhline(q["floor"]["ms"], color="#2a9a3a", linestyle=":", linewidth=1)
        ax.annotate("HBM floor %s ms" % fmt_ms(q["floor"]["ms"]), (-0.45, q["floor"]["ms"]),
                    ha="left", va="bottom", fontsize=7, color="#2a9a3a")
        for sf, qid, ms in TARGETS:
            if sf == res["meta"]["sf"] and qid == q["id"]:
                ax.axhline(ms, color="#cc3333", linestyle="--", linewidth=0.8)
                ax.annotate("target %g ms (cached)" % ms, (len(keys) - 0.55, ms), ha="right", va="bottom",
                            fontsize=7, color="#cc3333")
        ax.set_yscale("log")
        present = [v for v in vals if v] + [q["floor"]["ms"]]
        ax.set_ylim(min(present) / 3, max(present) * 4)
        ax.set_xticks(list(xs))
        ax.set_xticklabels([SIDE_NAMES[k] for k in keys], fontsize=8)
        ax.set_ylabel("ms, end to end in psql (median)")
        ax.set_title("TPC-H %s, SF %s" % (q["id"], sf_label(res["meta"]["sf"])))
    m = res["meta"]
    fig.suptitle("gpudb on %s (path %s), commit %s; PostgreSQL with %d workers" % (
        m["device"], m["path"], m["commit"], m["workers"]), fontsize=9)
    fig.tight_layout(rect=(0, 0, 1, 0.94))
    fig.savefig(path, dpi=100)
    plt.close(fig)
    return path


def same_cell(key, side):
    """Whether a side's runs gave PostgreSQL's output, for a results table."""
    if key == "pg":
        return "(reference)"
    if side.get("identical"):
        return "yes, %d of %d runs" % (side["runs_checked"], side["runs_checked"])
    if side.get("identical") is False:
        return "**no: %s of %d runs differ**" % (side.get("differing_runs"), side.get("runs_checked"))
    return "not compared"


def markdown(res):
    m, d = res["meta"], res["data"]
    out = ["# gpudb TPC-H Q1 and Q6 — SF %s, %s, commit %s, %s" % (sf_label(m["sf"]), m["device"], m["commit"],
                                                                    m["date"]), ""]
    if not m.get("finished"):
        out += ["**Unfinished: written while the run went on (or after it was cut short).**", ""]
    out += ["`%s` on %s (gpudb path `%s`); %s." % (m["command"], m["host"], m["path"], m["pg_version"]),
            "Settings: %s." % ", ".join("%s = %s" % kv for kv in m["settings"].items()), "",
            "Times are end to end in psql (`\\timing`, rows fetched by psql), median (min–max) of %d runs a "
            "side after one warm-up of each, the three sides in psql sessions of their own in the same run on "
            "the same server and data, taking turns (the order reversed every round): PostgreSQL "
            "(`gpudb.enabled = off`), gpudb uncached (`gpudb.use_cache = off`: the plan nodes over the heap) and "
            "gpudb cached (after `%s`), all with `max_parallel_workers_per_gather = %d` and lineitem's "
            "`parallel_workers = %d`. Every gpudb run's `psql -At` output, the warm-up's included, is compared "
            "byte for byte with PostgreSQL's. Device times: `gpu_last_execution()` after each run, and the Gpudb "
            "nodes' `Device Time` and phases from `EXPLAIN (ANALYZE, FORMAT JSON)` (median of up to %d). The "
            "EXPLAIN (ANALYZE, BUFFERS) text of every side is in `%s-explain.txt`."
            % (m["reps"], (res.get("cache") or {}).get("call", "gpu_cache_load('lineitem')"), m["workers"],
               m["workers"], m["explain_reps"], m["stem"]), "",
            "Harness time: %.0f s." % m.get("elapsed_s", 0), ""]
    if res.get("chart"):
        out += ["![%s](%s)" % (os.path.basename(res["chart"]), os.path.basename(res["chart"])), ""]
    if res.get("chart_note"):
        out += [res["chart_note"], ""]

    out += ["## Against the targets", ""]
    if m["path"] != "gpu":
        out += ["The path was `%s`: the targets are for the GPU; shown to exercise the harness." % m["path"], ""]
    for t in res.get("targets", []):
        out.append("- %s: %s; target %s: %s" % (t["what"], t["value"], t["target"],
                                                "met" if t["met"] else "**%s**" % t["miss"]))
    if not res.get("targets"):
        out.append("- none at SF %s (they are set for cached Q1 and Q6 at SF 10 and Q1 at SF 100)" % sf_label(m["sf"]))
    out.append("")

    out += ["## Results", "",
            "| query | side | end to end ms | speedup | plan | GpudbAgg (rows from) | result = PostgreSQL's | device ms "
            "(gpu_last_execution) |",
            "|---|---|---|---|---|---|---|---|"]
    for q in res["queries"]:
        for k, name, _ in SIDES:
            s = q["sides"].get(k)
            if not s:
                continue
            same = same_cell(k, s)
            src = (s.get("explain") or {}).get("source")
            out.append("| %s | %s | %s | %s | %s | %s | %s | %s |" % (
                q["id"], name, "error: %s" % s["error"] if s.get("error") else fmt_run(s.get("e2e")),
                bench.fmt_speedup(s.get("speedup")) if k != "pg" else "",
                s.get("plan") or s.get("plan_error") or "-",
                "" if k == "pg" else ("yes" + (" (from the %s)" % src if src else "")) if s["gpuagg"] else "**no**",
                same, fmt_ms(s.get("device_ms"))))
    out.append("")
    for q in res["queries"]:
        for k in ("heap", "cache"):
            s = q["sides"].get(k) or {}
            if s.get("first_difference") is not None:
                out += ["%s, %s: the first differing output:" % (q["id"], SIDE_NAMES[k]), "", "```",
                        s["first_difference"].rstrip(), "```", "", "PostgreSQL's:", "", "```",
                        (q.get("result") or "").rstrip(), "```", ""]

    out += ["## Device time against the HBM floor", "",
            "Bytes read: the columns the query reads as the cache stores them, %d bytes a value (an 8-byte value "
            "and a NULL-flag byte) x %s rows x the columns; the floor is those bytes / %.2f TB/s (%s)."
            % (STORE_BYTES_PER_VALUE, "{:,}".format(d["rows"]), m["hbm_tbps"], m["hbm_from"]), "",
            "| query | columns | bytes read | HBM floor ms | side | device ms | phases (EXPLAIN) | device / floor "
            "| GB/s |", "|---|---|---|---|---|---|---|---|---|"]
    for q in res["queries"]:
        for k in ("heap", "cache"):
            s = q["sides"].get(k)
            if not s:
                continue
            ex = s.get("explain") or {}
            phases = ", ".join("%s %s" % (p.replace(" Time", "").lower(), fmt_ms(ex[p]))
                               for p in bench.PHASES if ex.get(p) is not None) or "-"
            dev = s.get("device_for_floor_ms")
            out.append("| %s | %d | %.2f GB | %s | %s | %s | %s | %s | %s |" % (
                q["id"], len(q["columns"]), q["floor"]["bytes"] / 1e9, fmt_ms(q["floor"]["ms"]), SIDE_NAMES[k],
                fmt_ms(dev) if s["nodes"] else "- (no Gpudb node)", phases,
                "%.1fx" % s["floor_ratio"] if s.get("floor_ratio") and s["nodes"] else "-",
                "%.0f" % (q["floor"]["bytes"] / 1e6 / dev) if dev and s["nodes"] else "-"))
    out += ["", "Device ms: EXPLAIN's `Device Time` where the plan had Gpudb nodes, else gpu_last_execution()'s.", ""]

    out += ["## Data", "",
            "| table | SF | rows | heap | built | generate + load | VACUUM (ANALYZE) | COPY sessions |",
            "|---|---|---|---|---|---|---|---|"]
    ph = d.get("build_phases") or {}
    out.append("| lineitem | %s | %s | %.2f GB | %s | %s | %s | %s |" % (
        sf_label(m["sf"]), "{:,}".format(d["rows"]), d["heap_bytes"] / 1e9,
        "%.0f s in all" % d["build_s"] if d.get("built") else "reused",
        "%.1f s" % ph["generate_load_s"] if ph else "-", "%.1f s" % ph["vacuum_analyze_s"] if ph else "-",
        d.get("jobs", "-")))
    out.append("")
    c = res.get("cache")
    if c:
        out += ["Cache: %s" % ("`%s`: %s" % (c["call"], c["error"]) if c.get("error") else
                               "`%s`: %s ms, %s rows, %.2f GB on the device (%s), %.2f GB/s; columns cached: %s."
                               % (c["call"], fmt_ms(c["ms"]), "{:,}".format(c["rows"]),
                                  c["device_bytes"] / 1e9, "host %.2f GB" % (c["host_bytes"] / 1e9),
                                  c["gbps"] or 0, ", ".join(c["columns"]) or "none")), ""]
    hb = res.get("buffers") or {}
    if hb:
        out += ["Buffers: lineitem's heap %.2f GB, shared_buffers %.2f GB: %s" % (
            hb["heap_bytes"] / 1e9, hb["shared_buffers_bytes"] / 1e9,
            ("read into shared_buffers first by a TID range scan (%s ms)%s." % (
                fmt_ms((hb.get("warm") or {}).get("ms")),
                "; that failed: %s" % hb["warm"]["error"] if (hb.get("warm") or {}).get("error") else ""))
            if hb.get("fits") else "over 0.8 x shared_buffers: read through the OS page cache"), ""]
    for q in res["queries"]:
        if q.get("spec_answer"):
            out.append("- %s against the spec's SF 1 answer: %s" % (
                q["id"], "matches" if q["spec_answer"]["ok"] else "**%s**" % q["spec_answer"]["why"]))
    if any(q.get("spec_answer") for q in res["queries"]):
        out.append("")
    for n in res.get("notes", []):
        out += [n, ""]

    out += ["## Queries", ""]
    for q in res["queries"]:
        out += ["%s (PostgreSQL's result, `psql -At`):" % q["id"], "", "```sql", q["query"] + ";", "```", "", "```",
                (q.get("result") or "").rstrip(), "```", ""]
    return "\n".join(out)


def write_results(res, outdir, final=False):
    res["meta"]["elapsed_s"] = round(time.time() - bench.T0, 1)
    res["targets"] = targets(res)
    os.makedirs(outdir, exist_ok=True)
    base = os.path.join(outdir, res["meta"]["stem"])
    if final and res["queries"]:
        res["chart"], res["chart_note"] = None, None
        try:
            res["chart"] = chart(res, base + ".png")
        except ImportError as e:
            res["chart_note"] = "No chart: %s (install matplotlib, e.g. Debian's python3-matplotlib)." % e
        except Exception as e:  # a chart must not cost the measurements
            res["chart_note"] = "No chart: %r." % (e,)
    with open(base + "-explain.txt", "w") as f:
        f.write("\n".join(q.get("explain_text", "") for q in res["queries"]))
    saved = {k: v for k, v in res.items()}
    saved["queries"] = [{k: v for k, v in q.items() if k != "explain_text"} for q in res["queries"]]
    with open(base + ".json", "w") as f:
        json.dump(saved, f, indent=1, default=str)
    with open(base + ".md", "w") as f:
        f.write(markdown(res) + "\n")
    return base


# ---------------------------------------------------------------------------

def results_dir(out, stem):
    """(folder, stem): out where given, else test/bench/results/<stem>, with
    -2, -3, ... added to the stem where that folder exists."""
    if out:
        return out, stem
    base_stem, k = stem, 1
    while os.path.exists(os.path.join(HERE, "results", stem)):
        k += 1
        stem = "%s-%d" % (base_stem, k)
    return os.path.join(HERE, "results", stem), stem


def server_settings(workers):
    """The server settings a run's results name."""
    settings = {}
    for s in ("max_parallel_workers", "shared_buffers", "work_mem", "jit", "gpudb.device", "gpudb.batch_rows",
              "gpudb.cache_size", "gpudb.parallel_workers"):
        settings[s] = psql("SELECT current_setting(%s, true)" % sql_literal(s))
    settings["max_parallel_workers_per_gather"] = "%d (set by the harness)" % workers
    return settings


def main():
    ap = argparse.ArgumentParser(description="TPC-H Q1 and Q6: gpudb against PostgreSQL (the module docstring "
                                             "says more)")
    ap.add_argument("--sf", type=float, default=float(os.environ.get("TPCH_SF", "10")),
                    help="scale factor (default 10, or $TPCH_SF): 0.1, 1, 10; 100 needs ~140 GB of disk")
    ap.add_argument("--reps", type=int, default=5, help="timed runs a side after one warm-up (default 5)")
    ap.add_argument("--workers", type=int, default=16,
                    help="PostgreSQL's parallel workers: max_parallel_workers_per_gather and lineitem's "
                         "parallel_workers (default 16)")
    ap.add_argument("--jobs", type=int, default=min(16, os.cpu_count() or 1),
                    help="dbgen chunks and COPY sessions at once (default min(16, CPUs))")
    ap.add_argument("--queries", default="Q1,Q6", help="the queries to run (default Q1,Q6)")
    ap.add_argument("--explain-reps", type=int, default=3,
                    help="EXPLAIN (ANALYZE, FORMAT JSON) runs of each gpudb side for the phase times (default 3)")
    ap.add_argument("--explain-budget", type=float, default=20,
                    help="seconds those may take a side (fewer runs of a slow side; one at least; default 20)")
    ap.add_argument("--max-run", type=float, default=0, help="seconds one run may take (statement_timeout; 0: none)")
    ap.add_argument("--hbm-tbps", type=float, default=0,
                    help="the device's memory bandwidth in TB/s for the HBM floor (default by its name: H100 SXM "
                         "3.35, H200 4.8; else 3.35)")
    ap.add_argument("--cache-size", default=os.environ.get("BENCH_CACHE_SIZE", ""),
                    help="set gpudb.cache_size (ALTER SYSTEM, reload) first, e.g. 32GB")
    ap.add_argument("--cache-columns", default="",
                    help="the columns to cache, comma separated (default: all, gpu_cache_load('lineitem'))")
    ap.add_argument("--no-cache", action="store_true", help="leave out the cached side")
    ap.add_argument("--no-prewarm", action="store_true",
                    help="do not read lineitem into shared_buffers first (a TID range scan, where it fits)")
    ap.add_argument("--dbgen-src", default="", help="dbgen's source (default: $TPCH_DBGEN_SRC, ../shared/tpch-dbgen, "
                                                    "shared/tpch-dbgen, .gpu-bundle/tpch-dbgen)")
    ap.add_argument("--dbgen-build", default="/tmp/gpudb-tpch-dbgen", help="where dbgen is built (default "
                                                                           "/tmp/gpudb-tpch-dbgen; replaced)")
    ap.add_argument("--rebuild", action="store_true", help="generate and load lineitem even where it exists")
    ap.add_argument("--load-only", action="store_true", help="build the data, then stop")
    ap.add_argument("--no-disk-check", action="store_true", help="load even where the disk looks too small")
    ap.add_argument("--out", default="", help="results folder (default test/bench/results/<date>-<gpu>-<commit>-"
                                              "tpch-sf<SF>, with -2, -3, ... where that exists)")
    args = ap.parse_args()
    wanted = [q.strip().upper() for q in args.queries.split(",") if q.strip()]
    if set(wanted) - {q[0] for q in QUERIES} or not wanted:
        sys.exit("tpch: --queries takes Q1,Q6 (got %s)" % args.queries)
    if args.sf <= 0:
        sys.exit("tpch: --sf must be positive")

    psql("CREATE EXTENSION IF NOT EXISTS gpudb")
    if args.cache_size:
        psql("ALTER SYSTEM SET gpudb.cache_size = %s" % sql_literal(args.cache_size))
        psql("SELECT pg_reload_conf()")
        time.sleep(1)
    device, path, commit, date = bench.run_identity()
    outdir, stem = results_dir(args.out, "%s-%s-%s-tpch-sf%s" % (date, device, commit, sf_label(args.sf)))
    preload = psql("SELECT current_setting('shared_preload_libraries') LIKE '%gpudb%'") == "t"
    settings = server_settings(args.workers)
    tbps, tbps_from = hbm_tbps(args, device)
    res = {"meta": {"date": date, "device": device, "path": path, "commit": commit, "stem": stem, "sf": args.sf,
                    "command": shlex.join(["python3", "test/bench/tpch.py"] + sys.argv[1:]),
                    "host": "%s, %d CPUs" % (os.uname().nodename, os.cpu_count() or 0),
                    "pg_version": psql("SELECT version()").split(",")[0], "settings": settings,
                    "reps": args.reps, "workers": args.workers, "explain_reps": args.explain_reps,
                    "hbm_tbps": tbps, "hbm_from": tbps_from, "finished": False},
           "data": None, "cache": None, "buffers": None, "queries": [], "targets": [], "notes": []}
    log("gpudb TPC-H Q1/Q6 at SF %s: %s, path %s, commit %s; results to %s" % (sf_label(args.sf), device, path,
                                                                              commit, outdir))
    res["data"] = prepare_data(args, res)
    res["meta"]["dbgen_source"] = res["data"].get("dbgen_source")
    if not res["meta"]["dbgen_source"]:
        try:
            res["meta"]["dbgen_source"] = dbgen_source(args.dbgen_src)
        except SystemExit:
            res["meta"]["reused_without_source"] = True
    write_results(res, outdir)
    if args.load_only:
        log("--load-only: data ready")
        return

    cached = False
    if args.no_cache:
        res["notes"].append("Cached side: left out (--no-cache).")
    elif not preload:
        res["notes"].append("Cached side: not run (gpudb is not in shared_preload_libraries: no column cache).")
    else:
        cols = [c.strip() for c in args.cache_columns.split(",") if c.strip()] or None
        res["cache"] = cache_load(cols)
        cached = not res["cache"].get("error")
        c = res["cache"]
        log("cache load: %s" % (c.get("error") or "%s ms, %d rows, %.2f GB on the device, %.2f GB/s; columns %s"
                                % (fmt_ms(c["ms"]), c["rows"], c["device_bytes"] / 1e9, c["gbps"] or 0,
                                   ",".join(c["columns"]))))
        if not cached:
            res["notes"].append("Cached side: not run: %s failed: %s." % (c["call"], c["error"]))
    hb = bench.heap_buffers_info(TABLE)
    if hb["fits"] and not args.no_prewarm:
        hb["warm"] = bench.warm_shared_buffers(TABLE)
        log("lineitem read into shared_buffers: %s" % (hb["warm"].get("error") or "%s ms" % fmt_ms(hb["warm"]["ms"])))
    res["buffers"] = hb
    write_results(res, outdir)

    tmp = tempfile.mkdtemp(prefix="tpch-out-")
    os.chmod(tmp, 0o755)
    try:
        for qid, query, cols, answer in QUERIES:
            if qid in wanted:
                res["queries"].append(run_query(args, res, qid, query, cols, answer, tmp, cached))
                write_results(res, outdir)
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    res["meta"]["finished"] = True
    base = write_results(res, outdir, final=True)
    for t in res["targets"]:
        log("target: %s: %s (%s)%s" % (t["what"], t["value"], t["target"], "" if t["met"] else " — " + t["miss"]))
    bad = [(q["id"], SIDE_NAMES[k]) for q in res["queries"] for k, s in q["sides"].items()
           if k != "pg" and s.get("identical") is False]
    if res.get("chart_note"):
        log(res["chart_note"])
    print("tpch: wrote %s.md%s" % (base, "; results DIFFER from PostgreSQL's: %s" % bad if bad else ""), flush=True)
    sys.exit(1 if bad else 0)


if __name__ == "__main__":
    main()
