"""harness — test/bench/bench.py's benchmark harness, by concept (bench.py is the entry
point and re-exports what tpch.py and tpch22.py import from it):

  server.py     the psql client: log, psql, psql_script, sql_literal, run_parallel,
                the paths (HERE: test/bench, ROOT) and the run's start time T0
  workloads.py  what is measured: issue 5's targets, the workloads of each section,
                the small-table sizes, EXPLAIN's phase names, the tables' marks
  fmt.py        sizes (parse_size, size_label) and the cells of the results tables
                (fmt_ms, fmt_run, fmt_speedup ...; med, ratio)
  measure.py    timing: Session (a psql session kept open) and measure_sides (the
                sides of a workload taking turns, within the budget)
  explain.py    EXPLAIN: plan_shape, explain (Gpudb nodes, workers, phase times,
                buffers), analyze_reps, kernel_ms
  data.py       the tables: synthetic and flights builds, their marks and reuse,
                drop_table, table_info, cache_load, column_bytes
  sections.py   the sections: plan_workload, run_synthetic, run_heap (and its
                buffer states), run_functions, run_flights, run_small,
                copy_bandwidth, kernels
  report.py     the results: targets, the markdown, write_results (JSON, markdown,
                charts through chart.py)
  identity.py   run_identity: the device, path, commit and date that name a run
"""
