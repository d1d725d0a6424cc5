"""What the benchmark measures: issue 5's targets, the workloads of each section
(synthetic, heap, functions, flights, small), the phases EXPLAIN reports, and
the marks (table comments) of the data it builds."""

# Issue 5's targets (end to end, at 100M rows, cached).
TARGET_MS = {"B1": 2.0, "B2": 2.0, "B3": 4.0, "B4": 40.0, "B5": 4.0}
TARGET_UNCACHED_SPEEDUP = 2.0
TARGET_LOAD_GBPS = 1.0
TARGET_KERNEL_PCT = 80.0
TARGET_SMALL_RATIO = 1.05

# Plan-node workloads over the synthetic table: id, name, query ({t}: table,
# {n10}: a tenth of its rows), columns read (for the kernel bandwidth).
SYNTH_WORKLOADS = [
    ("B1", "B1 group by g (1,000 groups)",
     "SELECT g, count(*), sum(v), avg(v) FROM {t} GROUP BY g", ("g", "v")),
    ("B2", "B2 filter + sum, 0.1 %",
     "SELECT count(*), sum(v) FROM {t} WHERE v BETWEEN 0 AND 0.001", ("v",)),
    ("B2", "B2 filter + sum, 1 %",
     "SELECT count(*), sum(v) FROM {t} WHERE v BETWEEN 0 AND 0.01", ("v",)),
    ("B2", "B2 filter + sum, 10 %",
     "SELECT count(*), sum(v) FROM {t} WHERE v BETWEEN 0 AND 0.1", ("v",)),
    ("B2", "B2 filter + sum, 50 %",
     "SELECT count(*), sum(v) FROM {t} WHERE v BETWEEN 0 AND 0.5", ("v",)),
    ("B3", "B3 order by v desc, id limit 10",
     "SELECT id, v FROM {t} ORDER BY v DESC, id LIMIT 10", ("v", "id")),
    ("B4", "B4 group by h (rows/5 groups), top 10 sums",
     "SELECT h, sum(v) FROM {t} GROUP BY h ORDER BY 2 DESC NULLS LAST, 1 LIMIT 10", ("h", "v")),
    ("B5", "B5 filter id % 7 = 3, min/max by g",
     "SELECT g, min(v), max(v), count(*) FROM {t} WHERE id % 7 = 3 GROUP BY g", ("id", "g", "v")),
    ("B6", "B6 order by v, the 10 % of rows with id <= rows/10",
     "SELECT id, v FROM {t} WHERE id <= {n10} ORDER BY v, id", ("id", "v")),
    ("K", "text key k (100 keys + NULL)",
     "SELECT k, count(*), avg(v) FROM {t} GROUP BY k", ("k", "v")),
    ("S", "selection id % 1000 = 0",
     "SELECT id, v FROM {t} WHERE id % 1000 = 0", ("id", "v")),
]

# Uncached: these, with gpudb.use_cache = off, against the same PostgreSQL runs.
HEAP_WORKLOADS = ("B1 group by g (1,000 groups)", "B2 filter + sum, 1 %", "B2 filter + sum, 50 %")

# Their buffer states (--heap-buffers), in this order: t as the ring leaves
# it, then t read into shared_buffers by WARM_QUERY (a TID range scan, which
# takes no ring), where its heap is under HEAP_FIT x shared_buffers.
HEAP_BUFFERS = {"os": "OS page cache", "shared": "shared_buffers"}
HEAP_FIT = 0.8
WARM_QUERY = "SELECT count(*) FROM {t} WHERE ctid >= '(0,0)'::tid"
WARM_SETUP = "SET gpudb.enabled = off; SET max_parallel_workers_per_gather = 0; SET enable_seqscan = off;"

# gpu_groupby (the SQL function) against the same query as plain SQL.
FUNCTION_WORKLOADS = [
    ("B1 group by g (1,000 groups)",
     "SELECT * FROM gpu_groupby('{t}', 'g', 'count(*), sum(v), avg(v)') AS x(g int4, n bigint, s float8, a float8)",
     "SELECT g, count(*), sum(v), avg(v) FROM {t} GROUP BY g"),
    ("B2 filter + sum, 1 %",
     "SELECT * FROM gpu_groupby('{t}', '', 'count(*), sum(v)', 'v BETWEEN 0 AND 0.01') AS x(n bigint, s float8)",
     "SELECT count(*), sum(v) FROM {t} WHERE v BETWEEN 0 AND 0.01"),
    ("B2 filter + sum, 50 %",
     "SELECT * FROM gpu_groupby('{t}', '', 'count(*), sum(v)', 'v BETWEEN 0 AND 0.5') AS x(n bigint, s float8)",
     "SELECT count(*), sum(v) FROM {t} WHERE v BETWEEN 0 AND 0.5"),
    ("B5 filter id % 7 = 3, min/max by g",
     "SELECT * FROM gpu_groupby('{t}', 'g', 'min(v), max(v), count(*)', 'id % 7 = 3') AS x(g int4, mn float8, mx float8, n bigint)",
     "SELECT g, min(v), max(v), count(*) FROM {t} WHERE id % 7 = 3 GROUP BY g"),
    ("text key k",
     "SELECT * FROM gpu_groupby('{t}', 'k', 'count(*), avg(v)') AS x(k text, n bigint, a float8)",
     "SELECT k, count(*), avg(v) FROM {t} GROUP BY k"),
    ("B4 group by h (all groups returned)",
     "SELECT * FROM gpu_groupby('{t}', 'h', 'sum(v)') AS x(h int4, s float8)",
     "SELECT h, sum(v) FROM {t} GROUP BY h"),
]

# Flights: each without and with the date range ({where}: '' or ' WHERE ...').
FLIGHTS_WORKLOADS = [
    ("F1", "F1 avg delay and count by origin",
     "SELECT origin, avg(delay), count(*) FROM {t}{where} GROUP BY origin"),
    ("F2", "F2 by origin and month",
     "SELECT origin, month, avg(delay), count(*) FROM {t}{where} GROUP BY origin, month"),
    ("F2x", "F2x by origin and date_trunc('month', date) (expression key)",
     "SELECT origin, date_trunc('month', date) AS m, avg(delay), count(*) FROM {t}{where} GROUP BY 1, 2"),
    ("F3", "F3 top 20 routes by count",
     "SELECT origin, destination, count(*) AS n FROM {t}{where} GROUP BY origin, destination "
     "ORDER BY n DESC, origin, destination LIMIT 20"),
    ("F4", "F4 delay percentiles by origin",
     "SELECT origin, percentile_cont(ARRAY[0.5, 0.9, 0.99]) WITHIN GROUP (ORDER BY delay) "
     "FROM {t}{where} GROUP BY origin"),
    ("F4s", "F4s delay median, 90th percentile and mode by origin (one fraction each)",
     "SELECT origin, percentile_cont(0.5) WITHIN GROUP (ORDER BY delay), "
     "percentile_disc(0.9) WITHIN GROUP (ORDER BY delay), mode() WITHIN GROUP (ORDER BY delay) "
     "FROM {t}{where} GROUP BY origin"),
]

SECTIONS = ["synthetic", "heap", "functions", "flights", "small"]
# workloads whose kernel bandwidth is reported (cached, synthetic)
KERNEL_WORKLOADS = ("B1", "B2")
SYNTH_SECTIONS = {"synthetic", "heap", "functions"}

SMALL_SIZES = [1000, 10000, 100000]
SMALL_MIN_RUNS, SMALL_MIN_S, SMALL_MAX_RUNS = 30, 0.5, 500
# a small-table sample: executions back to back until about SMALL_SAMPLE_MS
SMALL_SAMPLE_MS, SAMPLE_MAX_REPEAT = 5.0, 64
SMALL_WORKLOADS = [
    ("B1", "SELECT g, count(*), sum(v), avg(v) FROM {t} GROUP BY g"),
    ("B2 1 %", "SELECT count(*), sum(v) FROM {t} WHERE v BETWEEN 0 AND 0.01"),
    ("B3", "SELECT id, v FROM {t} ORDER BY v DESC, id LIMIT 10"),
]

PHASES = ["Transfer In Time", "Filter Time", "Sort Time", "Aggregate Time", "Transfer Out Time"]
NODE_NUMBERS = ["Device Time", "Run Time", "Bytes To Device", "Bytes From Device", "Batches",
                "Workers Launched"] + PHASES

SAME_PLAN_SKIPPED = ("PostgreSQL's plan, as with gpudb off, and one run of it took longer than the budget: "
                     "run on the off side only")

SYNTH_MARK = "gpudb bench synthetic v2"
FLIGHTS_BASE_MARK = "gpudb bench flights base v1"
FLIGHTS_MARK = "gpudb bench flights v1"
FLIGHTS_COLUMNS = ["date", "delay", "distance", "origin", "destination"]
