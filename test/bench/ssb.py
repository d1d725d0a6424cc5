#!/usr/bin/env python3
"""test/bench/ssb.py — the Star Schema Benchmark's 13 queries over TPC-H's generated tables rearranged as
SSB's star: gpudb's results against PostgreSQL's (diff), or their times (time).

usage: python3 test/bench/ssb.py [diff|time] [--sf 0.1] [--cache] [more options: --help]

The Star Schema Benchmark (O'Neil, O'Neil, Chen, Revilak: "The Star Schema
Benchmark and Augmented Fact Table Indexing", 2009) denormalises TPC-H
into one fact table, lineorder (a lineitem row with its order's columns,
its partsupp's supply cost and its dates as yyyymmdd keys), and four
dimensions: customer and supplier with their nation's and region's names
and a city (the nation's first 9 characters and a digit), part with SSB's
manufacturer, category and brand (MFGR#m, MFGR#mc, MFGR#mcb), and a
calendar, dwdate (1992-1998, keyed by yyyymmdd).  SSB's own generator is
not used: the same rows come from TPC-H's dbgen (tpch22.py builds the
eight tables, reused where they exist), and this script writes the five
tables in schema ssb from them with SQL (INSERT ... SELECT, the fact
table in --jobs sessions by o_orderkey ranges), with primary keys on the
dimensions, each table marked with the SF by its comment and reused.

The 13 queries (flights 1-4) are SSB's with its standard parameters, run
with search_path = ssb, public.  Everything else is tpch22.py's: the
sides, the comparison of every gpudb side's output with PostgreSQL's, the
cache loads of the columns the queries name, the timing (medians of
--reps runs after a warm-up), the results folder, its markdown and chart.
"""
import argparse
import os
import subprocess
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import tpch22  # noqa: E402  (the data, the sides, the comparison, the results)
from bench import log, psql, sql_literal  # noqa: E402
from tpch import sf_label  # noqa: E402

DDL = {
    "ssb.dwdate": """CREATE TABLE ssb.dwdate (
    d_datekey         integer   NOT NULL PRIMARY KEY,
    d_date            date      NOT NULL,
    d_dayofweek       char(9)   NOT NULL,
    d_month           char(9)   NOT NULL,
    d_year            integer   NOT NULL,
    d_yearmonthnum    integer   NOT NULL,
    d_yearmonth       char(7)   NOT NULL,
    d_daynuminweek    integer   NOT NULL,
    d_daynuminmonth   integer   NOT NULL,
    d_monthnuminyear  integer   NOT NULL,
    d_weeknuminyear   integer   NOT NULL
)""",
    "ssb.customer": """CREATE TABLE ssb.customer (
    c_custkey     integer      NOT NULL PRIMARY KEY,
    c_name        varchar(25)  NOT NULL,
    c_address     varchar(40)  NOT NULL,
    c_city        char(10)     NOT NULL,
    c_nation      char(15)     NOT NULL,
    c_region      char(12)     NOT NULL,
    c_phone       char(15)     NOT NULL,
    c_mktsegment  char(10)     NOT NULL
)""",
    "ssb.supplier": """CREATE TABLE ssb.supplier (
    s_suppkey     integer      NOT NULL PRIMARY KEY,
    s_name        char(25)     NOT NULL,
    s_address     varchar(40)  NOT NULL,
    s_city        char(10)     NOT NULL,
    s_nation      char(15)     NOT NULL,
    s_region      char(12)     NOT NULL,
    s_phone       char(15)     NOT NULL
)""",
    "ssb.part": """CREATE TABLE ssb.part (
    p_partkey     integer      NOT NULL PRIMARY KEY,
    p_name        varchar(55)  NOT NULL,
    p_mfgr        char(6)      NOT NULL,
    p_category    char(7)      NOT NULL,
    p_brand1      char(9)      NOT NULL,
    p_color       varchar(11)  NOT NULL,
    p_type        varchar(25)  NOT NULL,
    p_size        integer      NOT NULL,
    p_container   char(10)     NOT NULL
)""",
    "ssb.lineorder": """CREATE TABLE ssb.lineorder (
    lo_orderkey       bigint         NOT NULL,
    lo_linenumber     integer        NOT NULL,
    lo_custkey        integer        NOT NULL,
    lo_partkey        integer        NOT NULL,
    lo_suppkey        integer        NOT NULL,
    lo_orderdate      integer        NOT NULL,
    lo_orderpriority  char(15)       NOT NULL,
    lo_shippriority   integer        NOT NULL,
    lo_quantity       integer        NOT NULL,
    lo_extendedprice  numeric(15,2)  NOT NULL,
    lo_ordtotalprice  numeric(15,2)  NOT NULL,
    lo_discount       integer        NOT NULL,
    lo_revenue        numeric(15,2)  NOT NULL,
    lo_supplycost     numeric(15,2)  NOT NULL,
    lo_tax            integer        NOT NULL,
    lo_commitdate     integer        NOT NULL,
    lo_shipmode       char(10)       NOT NULL
) WITH (autovacuum_enabled = off)""",
}
TABLES = list(DDL)

# each dimension from TPC-H's tables (schema public); the fact table below
FILL = {
    "ssb.dwdate": """INSERT INTO ssb.dwdate
SELECT to_char(d, 'YYYYMMDD')::int, d, to_char(d, 'FMDay'), to_char(d, 'FMMonth'),
       extract(year FROM d)::int, to_char(d, 'YYYYMM')::int, to_char(d, 'MonYYYY'),
       extract(isodow FROM d)::int, extract(day FROM d)::int, extract(month FROM d)::int,
       extract(week FROM d)::int
FROM generate_series(date '1992-01-01', date '1998-12-31', interval '1 day') g(d)""",
    "ssb.customer": """INSERT INTO ssb.customer
SELECT c_custkey, c_name, c_address, rpad(left(n_name, 9), 9) || (c_custkey % 10), n_name, r_name,
       c_phone, c_mktsegment
FROM public.customer JOIN public.nation ON c_nationkey = n_nationkey
     JOIN public.region ON n_regionkey = r_regionkey""",
    "ssb.supplier": """INSERT INTO ssb.supplier
SELECT s_suppkey, s_name, s_address, rpad(left(n_name, 9), 9) || (s_suppkey % 10), n_name, r_name, s_phone
FROM public.supplier JOIN public.nation ON s_nationkey = n_nationkey
     JOIN public.region ON n_regionkey = r_regionkey""",
    "ssb.part": """INSERT INTO ssb.part
SELECT p_partkey, p_name, 'MFGR#' || substr(p_mfgr, 14, 1), 'MFGR#' || substr(p_brand, 7, 2),
       'MFGR#' || substr(p_brand, 7, 2) || (p_partkey % 40 + 1), split_part(p_name, ' ', 1),
       p_type, p_size, p_container
FROM public.part""",
}
LINEORDER_FILL = """INSERT INTO ssb.lineorder
SELECT l_orderkey, l_linenumber, o_custkey, l_partkey, l_suppkey, to_char(o_orderdate, 'YYYYMMDD')::int,
       o_orderpriority, o_shippriority, l_quantity::int, l_extendedprice, o_totalprice,
       (l_discount * 100)::int, round(l_extendedprice * (1 - l_discount), 2), ps_supplycost,
       (l_tax * 100)::int, to_char(l_commitdate, 'YYYYMMDD')::int, l_shipmode
FROM public.orders JOIN public.lineitem ON l_orderkey = o_orderkey
     JOIN public.partsupp ON ps_partkey = l_partkey AND ps_suppkey = l_suppkey
WHERE o_orderkey >= %d AND o_orderkey < %d"""

# SSB's 13 queries, its standard parameters
QUERIES = [
    ("Q1.1", """select sum(lo_extendedprice * lo_discount) as revenue
from lineorder, dwdate
where lo_orderdate = d_datekey and d_year = 1993 and lo_discount between 1 and 3 and lo_quantity < 25"""),
    ("Q1.2", """select sum(lo_extendedprice * lo_discount) as revenue
from lineorder, dwdate
where lo_orderdate = d_datekey and d_yearmonthnum = 199401 and lo_discount between 4 and 6
  and lo_quantity between 26 and 35"""),
    ("Q1.3", """select sum(lo_extendedprice * lo_discount) as revenue
from lineorder, dwdate
where lo_orderdate = d_datekey and d_weeknuminyear = 6 and d_year = 1994 and lo_discount between 5 and 7
  and lo_quantity between 26 and 35"""),
    ("Q2.1", """select sum(lo_revenue), d_year, p_brand1
from lineorder, dwdate, part, supplier
where lo_orderdate = d_datekey and lo_partkey = p_partkey and lo_suppkey = s_suppkey
  and p_category = 'MFGR#12' and s_region = 'AMERICA'
group by d_year, p_brand1 order by d_year, p_brand1"""),
    ("Q2.2", """select sum(lo_revenue), d_year, p_brand1
from lineorder, dwdate, part, supplier
where lo_orderdate = d_datekey and lo_partkey = p_partkey and lo_suppkey = s_suppkey
  and p_brand1 between 'MFGR#2221' and 'MFGR#2228' and s_region = 'ASIA'
group by d_year, p_brand1 order by d_year, p_brand1"""),
    ("Q2.3", """select sum(lo_revenue), d_year, p_brand1
from lineorder, dwdate, part, supplier
where lo_orderdate = d_datekey and lo_partkey = p_partkey and lo_suppkey = s_suppkey
  and p_brand1 = 'MFGR#2239' and s_region = 'EUROPE'
group by d_year, p_brand1 order by d_year, p_brand1"""),
    ("Q3.1", """select c_nation, s_nation, d_year, sum(lo_revenue) as revenue
from customer, lineorder, supplier, dwdate
where lo_custkey = c_custkey and lo_suppkey = s_suppkey and lo_orderdate = d_datekey
  and c_region = 'ASIA' and s_region = 'ASIA' and d_year >= 1992 and d_year <= 1997
group by c_nation, s_nation, d_year order by d_year asc, revenue desc, c_nation, s_nation"""),
    ("Q3.2", """select c_city, s_city, d_year, sum(lo_revenue) as revenue
from customer, lineorder, supplier, dwdate
where lo_custkey = c_custkey and lo_suppkey = s_suppkey and lo_orderdate = d_datekey
  and c_nation = 'UNITED STATES' and s_nation = 'UNITED STATES' and d_year >= 1992 and d_year <= 1997
group by c_city, s_city, d_year order by d_year asc, revenue desc, c_city, s_city"""),
    ("Q3.3", """select c_city, s_city, d_year, sum(lo_revenue) as revenue
from customer, lineorder, supplier, dwdate
where lo_custkey = c_custkey and lo_suppkey = s_suppkey and lo_orderdate = d_datekey
  and (c_city = 'UNITED KI1' or c_city = 'UNITED KI5') and (s_city = 'UNITED KI1' or s_city = 'UNITED KI5')
  and d_year >= 1992 and d_year <= 1997
group by c_city, s_city, d_year order by d_year asc, revenue desc, c_city, s_city"""),
    ("Q3.4", """select c_city, s_city, d_year, sum(lo_revenue) as revenue
from customer, lineorder, supplier, dwdate
where lo_custkey = c_custkey and lo_suppkey = s_suppkey and lo_orderdate = d_datekey
  and (c_city = 'UNITED KI1' or c_city = 'UNITED KI5') and (s_city = 'UNITED KI1' or s_city = 'UNITED KI5')
  and d_yearmonth = 'Dec1997'
group by c_city, s_city, d_year order by d_year asc, revenue desc, c_city, s_city"""),
    ("Q4.1", """select d_year, c_nation, sum(lo_revenue - lo_supplycost) as profit
from dwdate, customer, supplier, part, lineorder
where lo_custkey = c_custkey and lo_suppkey = s_suppkey and lo_partkey = p_partkey
  and lo_orderdate = d_datekey and c_region = 'AMERICA' and s_region = 'AMERICA'
  and (p_mfgr = 'MFGR#1' or p_mfgr = 'MFGR#2')
group by d_year, c_nation order by d_year, c_nation"""),
    ("Q4.2", """select d_year, s_nation, p_category, sum(lo_revenue - lo_supplycost) as profit
from dwdate, customer, supplier, part, lineorder
where lo_custkey = c_custkey and lo_suppkey = s_suppkey and lo_partkey = p_partkey
  and lo_orderdate = d_datekey and c_region = 'AMERICA' and s_region = 'AMERICA'
  and (d_year = 1997 or d_year = 1998) and (p_mfgr = 'MFGR#1' or p_mfgr = 'MFGR#2')
group by d_year, s_nation, p_category order by d_year, s_nation, p_category"""),
    ("Q4.3", """select d_year, s_city, p_brand1, sum(lo_revenue - lo_supplycost) as profit
from dwdate, customer, supplier, part, lineorder
where lo_custkey = c_custkey and lo_suppkey = s_suppkey and lo_partkey = p_partkey
  and lo_orderdate = d_datekey and c_region = 'AMERICA' and s_nation = 'UNITED STATES'
  and (d_year = 1997 or d_year = 1998) and p_category = 'MFGR#14'
group by d_year, s_city, p_brand1 order by d_year, s_city, p_brand1"""),
]


def ssb_queries():
    """tpch22's query records: {"n", "id", "sql", "prelude", "limit", "ties", "after"}."""
    return [{"n": i + 1, "id": qid, "sql": sql, "prelude": "SET search_path = ssb, public;\n", "limit": 0,
             "ties": None, "after": []} for i, (qid, sql) in enumerate(QUERIES)]


def build_ssb(args):
    """The five tables in schema ssb from TPC-H's eight (reused where marked with this SF)."""
    mark = "gpudb ssb sf=%s" % sf_label(args.sf)
    psql("CREATE SCHEMA IF NOT EXISTS ssb")
    info = {}
    for t in TABLES:
        have = psql("SELECT obj_description(to_regclass(%s), 'pg_class')" % sql_literal(t))
        if have == mark and not args.rebuild:
            info[t] = "reused"
            continue
        t0 = time.time()
        psql("DROP TABLE IF EXISTS %s" % t)
        psql(DDL[t])
        if t != "ssb.lineorder":
            psql(FILL[t])
        else:
            hi = int(psql("SELECT coalesce(max(o_orderkey), 0) + 1 FROM public.orders"))
            step = hi // args.jobs + 1
            procs = [subprocess.Popen(["psql", "-X", "-q", "-v", "ON_ERROR_STOP=1", "-c",
                                       LINEORDER_FILL % (lo, min(lo + step, hi))])
                     for lo in range(0, hi, step)]
            if any(p.wait() != 0 for p in procs):
                sys.exit("ssb: filling ssb.lineorder failed")
        psql("VACUUM (ANALYZE) %s" % t)
        psql("COMMENT ON TABLE %s IS %s" % (t, sql_literal(mark)))
        info[t] = "built in %.1f s" % (time.time() - t0)
        log("%s: %s rows, %s" % (t, psql("SELECT count(*) FROM %s" % t), info[t]))
    return info


def main():
    ap = argparse.ArgumentParser(description="SSB's 13 queries over TPC-H's tables rearranged: gpudb's results "
                                             "against PostgreSQL's (diff) or their times (time)")
    ap.add_argument("mode", nargs="?", default="diff", choices=("diff", "time"))
    ap.add_argument("--sf", type=float, default=float(os.environ.get("TPCH_SF", "0.1")))
    ap.add_argument("--workers", type=int, default=None)
    ap.add_argument("--max-run", type=float, default=None)
    ap.add_argument("--cache", action="store_true", help="diff: the cached sides too")
    ap.add_argument("--batch-rows", type=int, default=0)
    ap.add_argument("--reps", type=int, default=3)
    ap.add_argument("--cache-size", default=os.environ.get("BENCH_CACHE_SIZE", ""))
    ap.add_argument("--no-cache", action="store_true")
    ap.add_argument("--no-uncached", action="store_true")
    ap.add_argument("--no-prewarm", action="store_true")
    ap.add_argument("--jobs", type=int, default=min(16, os.cpu_count() or 1))
    ap.add_argument("--dbgen-src", default="")
    ap.add_argument("--dbgen-build", default="/tmp/gpudb-tpch22-dbgen")
    ap.add_argument("--rebuild", action="store_true", help="build the TPC-H and the SSB tables again")
    ap.add_argument("--no-disk-check", action="store_true")
    ap.add_argument("--out", default="")
    args = ap.parse_args()
    if args.workers is None:
        args.workers = 2 if args.mode == "diff" else 16
    if args.max_run is None:
        args.max_run = 600 if args.mode == "diff" else 0

    res, outdir, stem = tpch22.start_run(args, "ssb")
    m = res["meta"]
    log("gpudb SSB, the 13 queries, %s at SF %s: %s, path %s, commit %s; results to %s" % (
        args.mode, sf_label(args.sf), m["device"], m["path"], m["commit"], outdir))
    progs = []

    def programs():
        if not progs:
            progs.extend(tpch22.dbgen_programs(args))
        return progs
    res["data"] = tpch22.prepare_data(args, programs)
    res["data"]["ssb"] = build_ssb(args)
    tpch22.BENCH = {"name": "SSB", "queries": "the 13 queries", "tables": TABLES, "ddl": DDL}
    queries = ssb_queries()
    os.makedirs(outdir, exist_ok=True)
    with open(os.path.join(outdir, stem + "-queries.sql"), "w") as f:
        for q in queries:
            f.write("-- %s\n%s%s;\n\n" % (q["id"], q["prelude"], q["sql"]))
    sys.exit(1 if tpch22.run_queries(args, res, queries, outdir, "ssb") else 0)


if __name__ == "__main__":
    main()
