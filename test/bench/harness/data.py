"""The data: the synthetic tables and the flights tables (built, or reused where
their mark says they were built the same way), gpu_cache_load of a table, and
the bytes of its columns in the column store."""
import gzip
import os
import re
import shutil
import subprocess
import time

from harness.fmt import table_suffix
from harness.server import HERE, PSQL, ROOT, log, psql, psql_script, run_parallel, sql_literal
from harness.workloads import FLIGHTS_BASE_MARK, FLIGHTS_COLUMNS, FLIGHTS_MARK, SYNTH_MARK


def table_mark(name):
    r = psql("SELECT coalesce(obj_description(to_regclass(%s), 'pg_class'), '')" % sql_literal(name))
    return r or None


def drop_table(name, cascade=False):
    """Drops name and its cached columns; cascade: the foreign keys that name it too."""
    if psql("SELECT to_regclass(%s) IS NOT NULL" % sql_literal(name)) == "t":
        psql("SELECT gpu_cache_drop(%s)" % sql_literal(name), check=False)
        psql("DROP TABLE %s%s" % (name, " CASCADE" if cascade else ""))


def finish_table(name, mark, workers):
    """VACUUM (ANALYZE) (hint bits and the visibility map set before anything
    is timed), the parallel workers, then the comment that marks it complete;
    returns the seconds VACUUM took."""
    t0 = time.time()
    psql("VACUUM (ANALYZE) %s" % name)
    took = time.time() - t0
    if workers > 0:
        psql("ALTER TABLE %s SET (parallel_workers = %d)" % (name, workers))
    psql("COMMENT ON TABLE %s IS %s" % (name, sql_literal(mark)))
    return took


def table_info(name, kind, t0, built, phases=None):
    rows = int(psql("SELECT count(*) FROM %s" % name))
    size = int(psql("SELECT pg_table_size(%s)" % sql_literal(name)))
    info = {"table": name, "kind": kind, "rows": rows, "heap_bytes": size, "built": built,
            "build_s": round(time.time() - t0, 1) if built else None}
    if phases:
        info["build_phases"] = {k: round(v, 1) for k, v in phases.items()}
    return info


def reusable(name, mark, rows, workers, rebuild):
    """table_info of name where it was built as mark says (its comment, set
    last) and holds rows rows (None: any number but 0); else None."""
    if rebuild or table_mark(name) != mark:
        return None
    info = table_info(name, "", time.time(), False)
    if info["rows"] != rows if rows is not None else info["rows"] == 0:
        log("table %s: %d rows where %s were built: building it again" % (name, info["rows"], rows or "some"))
        return None
    if workers > 0:
        psql("ALTER TABLE %s SET (parallel_workers = %d)" % (name, workers))
    return info


def build_synthetic(name, n, jobs, workers, rebuild):
    mark = "%s rows=%d" % (SYNTH_MARK, n)
    t0 = time.time()
    info = reusable(name, mark, n, workers, rebuild)
    if info:
        return dict(info, kind="synthetic")
    log("building %s: %d rows (%d sessions)" % (name, n, jobs))
    drop_table(name)
    psql("CREATE TABLE %s (g int4, h int4, v float8, id int8, k text)" % name)
    groups = max(n // 5, 1)
    # statements of at most 5M rows, in whole rounds of the sessions
    jobs = max(jobs, 1)
    chunk = max(1, -(-n // (jobs * -(-n // (jobs * 5000000)))))
    stmts = ["""INSERT INTO %s
        SELECT (i %% 1000)::int4,
               CASE WHEN i %% 89 = 0 THEN NULL ELSE ((hashint8(i)::int8 & 2147483647) %% %d)::int4 END,
               CASE WHEN i %% 97 = 0 THEN NULL ELSE (hashint8(i * 31) & 1048575)::float8 / 1048576.0 END,
               i,
               CASE WHEN i %% 101 = 0 THEN NULL ELSE 'key' || (i %% 100) END
          FROM generate_series(%d::int8, %d::int8) i""" % (name, groups, a, min(a + chunk - 1, n))
             for a in range(1, n + 1, chunk)]
    t1 = time.time()
    run_parallel(stmts, jobs)
    inserted = time.time() - t1
    vac = finish_table(name, mark, workers)
    return table_info(name, "synthetic", t0, True, {"insert_s": inserted, "vacuum_analyze_s": vac})


def flights_candidates(arg):
    if arg:
        return [arg]
    prefix = os.environ.get("GPUDB_NPM_PREFIX") or os.path.join(
        os.environ.get("GPUDB_CACHE") or os.path.join(os.path.expanduser("~"), ".cache", "gpudb"), "npm")
    out = [os.environ.get("BENCH_FLIGHTS_FILE", "")]
    for d in (os.path.join(HERE, "data"), os.path.join(ROOT, ".gpu-bundle")):
        out += [os.path.join(d, "flights-3m." + ext) for ext in ("csv.gz", "csv", "parquet")]
    out.append(os.path.join(prefix, "node_modules", "vega-datasets", "data", "flights-3m.parquet"))
    return [p for p in out if p]


def copy_flights(table, path):
    """COPY the file into table (date, delay, distance, origin, destination);
    returns None, or why it could not."""
    copy = PSQL + ["-c", "COPY %s (%s) FROM STDIN (FORMAT csv)" % (table, ", ".join(FLIGHTS_COLUMNS))]
    if path.endswith(".parquet"):
        try:
            import pyarrow.csv as pacsv
            import pyarrow.parquet as pq
        except ImportError:
            pq = None
        if pq is not None:
            p = subprocess.Popen(copy, stdin=subprocess.PIPE, stderr=subprocess.PIPE)
            try:
                pacsv.write_csv(pq.read_table(path, columns=FLIGHTS_COLUMNS), p.stdin,
                                write_options=pacsv.WriteOptions(include_header=False))
                failed = None
            except Exception as e:  # then node, if it is here
                failed = "pyarrow: %r" % (e,)
            finally:
                p.stdin.close()
            err = p.stderr.read().decode()
            if p.wait() == 0 and not failed:
                return None
            log("flights: reading %s with pyarrow failed (%s %s); trying node" % (path, failed or "", err.strip()))
            psql("TRUNCATE %s" % table)
        prefix = os.environ.get("GPUDB_NPM_PREFIX") or os.path.join(
            os.environ.get("GPUDB_CACHE") or os.path.join(os.path.expanduser("~"), ".cache", "gpudb"), "npm")
        if not shutil.which("node") or not os.path.exists(
                os.path.join(prefix, "node_modules", "hyparquet", "package.json")):
            return ("%s is parquet, and neither pyarrow nor node with hyparquet (test/demo_flights.sh "
                    "installs it) is here; or give a CSV: node test/load_flights.mjs | gzip > "
                    "test/bench/data/flights-3m.csv.gz" % path)
        node = subprocess.Popen(["node", os.path.join(ROOT, "test", "load_flights.mjs"), path],
                                stdout=subprocess.PIPE, stderr=subprocess.PIPE)
        p = subprocess.run(copy, stdin=node.stdout, capture_output=True, text=True)
        node.stdout.close()
        nerr = node.stderr.read().decode()
        if node.wait() != 0 or p.returncode != 0:
            return "load_flights.mjs | COPY failed: %s %s" % (nerr.strip(), p.stderr.strip())
        return None
    opener = gzip.open if path.endswith(".gz") else open
    p = subprocess.Popen(copy, stdin=subprocess.PIPE, stderr=subprocess.PIPE)
    try:
        with opener(path, "rb") as f:
            shutil.copyfileobj(f, p.stdin, 1 << 20)
    finally:
        p.stdin.close()
    err = p.stderr.read().decode()
    return None if p.wait() == 0 else "COPY failed: " + err


def flights_ddl(name):
    return ("CREATE TABLE %s (date timestamp, delay integer, distance integer, origin text, "
            "destination text, month date)" % name)


def build_flights(sizes, args):
    """([table_info] of every flights table, the base table (the file's rows)
    first; [table_info] of those of sizes; a message), or (None, None, why not)."""
    path = next((p for p in flights_candidates(args.flights_file) if os.path.exists(p)), None)
    infos = []
    if not path:
        return None, None, ("no flights file (looked for %s); test/demo_flights.sh fetches it"
                      % ", ".join(flights_candidates(args.flights_file)))
    fname = os.path.basename(path)
    base_mark = "%s file=%s" % (FLIGHTS_BASE_MARK, re.sub(r"\.(parquet|csv|csv\.gz)$", "", fname))
    found = psql("SELECT c.relname FROM pg_class c JOIN pg_description d ON d.objoid = c.oid "
                 "AND d.classoid = 'pg_class'::regclass AND d.objsubid = 0 "
                 "WHERE c.relkind = 'r' AND d.description = %s LIMIT 1" % sql_literal(base_mark))
    t0 = time.time()
    info = reusable(found, base_mark, None, args.workers, args.rebuild) if found else None
    if info:
        base = found
        infos.append(dict(info, kind="flights"))
    else:
        log("loading flights from %s" % path)
        drop_table("flights_load")
        psql("CREATE UNLOGGED TABLE flights_load (%s)" % (
            "date timestamp, delay integer, distance integer, origin text, destination text"))
        err = copy_flights("flights_load", path)
        if err:
            drop_table("flights_load")
            return None, None, err
        nbase = int(psql("SELECT count(*) FROM flights_load"))
        base = "flights_" + table_suffix(nbase)
        drop_table(base)
        psql(flights_ddl(base))
        psql("INSERT INTO %s SELECT date, delay, distance, origin, destination, "
             "date_trunc('month', date)::date FROM flights_load" % base)
        drop_table("flights_load")
        finish_table(base, base_mark, args.workers)
        infos.append(table_info(base, "flights", t0, True))
    nbase = infos[0]["rows"]
    # copies are shifted by the file's span in whole months (6 for Jan-Jun 2001)
    months = int(psql("WITH r AS (SELECT date_trunc('month', min(date)) AS a, max(date) AS b FROM %s) "
                      "SELECT coalesce(min(k), 1) FROM r, generate_series(1, 1200) k "
                      "WHERE a + k * interval '1 month' >= b" % base))
    bench = [infos[0]] if nbase in sizes else []
    for n in sizes:
        t0 = time.time()
        if n == nbase:
            continue
        if n < nbase:
            name, rows = "flights_" + table_suffix(n), n
            mark = "%s rows=%d of %s" % (FLIGHTS_MARK, n, base_mark)
        else:
            copies = max(1, int(round(n / nbase)))
            rows = copies * nbase
            name = "flights_" + table_suffix(rows)
            mark = "%s rows=%d copies=%d shift=%d months of %s" % (FLIGHTS_MARK, rows, copies, months,
                                                                   base_mark)
        info = reusable(name, mark, rows, args.workers, args.rebuild)
        if info:
            infos.append(dict(info, kind="flights"))
            bench.append(infos[-1])
            continue
        drop_table(name)
        psql(flights_ddl(name))
        if n < nbase:
            log("building %s: the first %d flights" % (name, n))
            psql("SET synchronize_seqscans = off; INSERT INTO %s SELECT * FROM %s LIMIT %d" % (name, base, n))
        else:
            log("building %s: %d copies of %s, %d months apart (%d sessions)"
                % (name, copies, base, months, args.load_jobs))
            # the copies spread evenly over the sessions
            k = max(1, min(args.load_jobs, copies))
            stmts = ["""INSERT INTO %s
                SELECT date + c * interval '%d months', delay, distance, origin, destination,
                       date_trunc('month', date + c * interval '%d months')::date
                  FROM %s, generate_series(%d, %d) c""" % (name, months, months, base, j * copies // k,
                                                           (j + 1) * copies // k - 1)
                     for j in range(k)]
            run_parallel(stmts, args.load_jobs)
        inserted = time.time() - t0
        vac = finish_table(name, mark, args.workers)
        infos.append(table_info(name, "flights", t0, True, {"insert_s": inserted, "vacuum_analyze_s": vac}))
        bench.append(infos[-1])
    return infos, sorted(bench, key=lambda i: i["rows"]), "flights from %s" % path


def cache_load(table):
    """Loads table into the column cache: its numbers, or None with why not."""
    psql("SELECT gpu_cache_drop(%s)" % sql_literal(table), check=False)
    # client_min_messages = debug1: gpu_cache_load's report of where the time went
    r = psql_script("SET client_min_messages = debug1;\n\\timing on\nSELECT gpu_cache_load(%s);\n"
                    % sql_literal(table))
    if r.returncode != 0:
        return {"table": table, "error": r.stderr.strip()}
    ms = float(re.findall(r"^Time: ([0-9.]+) ms", r.stdout, re.M)[0])
    rep = re.search(r"reading the heap ([0-9.]+) ms, waiting on the server ([0-9.]+) ms", r.stderr)
    row = psql("SELECT rows, device_bytes, host_bytes, load_ms FROM gpu_cache "
               "WHERE relation = %s::regclass" % sql_literal(table))
    if not row:
        return {"table": table, "error": "no gpu_cache entry after the load"}
    rows, dev, host, load_ms = row.split("|")
    nbytes = max(int(dev), int(host))
    return {"table": table, "rows": int(rows), "ms": ms, "server_load_ms": float(load_ms or 0),
            "bytes": nbytes, "gbps": nbytes / 1e6 / ms if ms else None,
            "read_ms": float(rep.group(1)) if rep else None,
            "wait_ms": float(rep.group(2)) if rep else None}


def column_bytes(table, cols, rows):
    """(store, least): the bytes of these columns in the column store, which
    the kernel reads (src/gpudb_device.h: 8 bytes a value of every type, int64
    or float64, plus a NULL flag byte a row in a column with NULLs), and the
    least a kernel could read: rows x width (4 for a text column's
    dictionary code), plus a validity bit per row where NULLs occur."""
    out = psql("SELECT a.attname, a.attlen, coalesce((SELECT max(s.null_frac) FROM pg_stats s "
               "WHERE s.tablename = %s AND s.attname = a.attname), 0) > 0 FROM pg_attribute a "
               "WHERE a.attrelid = %s::regclass AND a.attname = ANY(%s::name[])"
               % (sql_literal(table), sql_literal(table), sql_literal("{" + ",".join(cols) + "}")))
    store = least = 0
    for line in out.splitlines():
        _, attlen, nulls = line.split("|")
        least += rows * (int(attlen) if int(attlen) > 0 else 4) + (-(-rows // 8) if nulls == "t" else 0)
        store += rows * 8 + (rows if nulls == "t" else 0)
    return store, least
