"""rq -- test/random_queries.py's seeded random differential query tests, by
concept (random_queries.py is the entry point: its docstring says what is
tested and how; its main runs it all):

  tables.py       the column types and their value generators, Col and Table,
                  the random tables rq.t1..tN and rq.li (make_tables)
  join_tables.py  the join tables rq.jf, rq.jg, rq.jd1..jd4 (make_join_tables)
                  and their load into gpudb's column cache (cache_join_tables)
  exprs.py        filters (gen_filter, atom, const) and the typed expression
                  generator (QRng, E; gen_num, gen_time, gen_text, gen_cond,
                  gen_value, gen_expr_agg) with the bounds it tracks
  query.py        Query (a generated query and its settings), the GUCs it may
                  set, order_item
  single.py       the single-table query shapes (scan, agg, sort, unsup, xscan,
                  xagg, q1/q6) and gen_query, which draws query I of a seed
  joins.py        the join query shapes (gen_join: stars, chains, semi and anti
                  joins, derived tables)
  scalar.py       correlated scalar subqueries over the join tables (gen_scalar:
                  scalar_subquery_rewrite.c's shapes, TPC-H Q2/Q17/Q20's)
  eager.py        eager aggregation below a left join over the join tables
                  (gen_eager: eager_aggregate_rewrite.c's shape, TPC-H Q13's,
                  and the near misses it must refuse)
  session.py      psql: the session script of each query (gpudb on, off,
                  EXPLAIN), batches in parallel sessions, the LIMIT retry
  compare.py      the comparison of both sides' results, and the report of a
                  difference
  self_check.py   --self-check: crafted pairs that must (or must not) differ

Each query has its own RNG seeded from --seed and its number; the modules
draw from it in the order the single file did, so that a seed gives the
same queries.
"""
