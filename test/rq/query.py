"""A generated query (Query: its SQL for gpudb on and off, how its results
compare, the settings it runs with), the GUCs a query may set, and
order_item (an ORDER BY item of either query family)."""

ENABLE_GUCS = ['gpudb.enable_gpuscan', 'gpudb.enable_gpuagg', 'gpudb.enable_gpusort']
# set on (or off) only where pg_settings lists them: the join node is to come
ALL_ENABLE_GUCS = ENABLE_GUCS + ['gpudb.enable_gpujoin']
COST_GUCS = ['gpudb.gpu_setup_cost', 'gpudb.gpu_tuple_cost', 'gpudb.gpu_transfer_cost']
PG_TOGGLES = ['enable_hashagg', 'enable_sort', 'enable_seqscan', 'enable_indexscan']

class Query:
    def __init__(self, kind, sql, floats, ordered, sql_off=None):
        self.kind, self.sql, self.floats, self.ordered = kind, sql, floats, ordered
        self.sql_off = sql_off or sql
        self.pg_set, self.gpu_off = [], []      # planner toggles (both sides), enable_gpu* off
        self.idx, self.expect_diff = None, None
        self.has_expr = False
        # the SQLSTATE both sides raise without the LIMIT, where only one side
        # raised it with the LIMIT (rows past it are evaluated or not by the plan)
        self.limit_excused = None
        self.risky = False          # drawn with overflow and division by zero
        self.join = False           # a join query (gen_join)
        self.scalar = False         # has a correlated scalar subquery (scalar.py, scalar_part)
        self.magic = False          # and a restriction copied into its derived table (scalar.py)
        self.eager = False          # of eager aggregation's shape or next to it (eager.py, q13)
        self.eager_expect = None    # 'yes': drawn to fit it, 'no': a near miss (eager.py)
        self.eager_misses = []      # and why (eager.py)

def order_item(rng, name):
    return name + rng.choice(['', ' ASC', ' DESC']) + rng.choice(['', '', ' NULLS FIRST',
                                                                   ' NULLS LAST'])

def group_order_by(rng, nkeys, naggs, agg_first, limit):
    """' ORDER BY' the nkeys group keys (output positions 1..nkeys, which make
    the order total) in a random order, with probability agg_first behind one
    of the naggs aggregates' positions, and with probability limit a LIMIT."""
    items = [str(i + 1) for i in range(nkeys)]
    rng.shuffle(items)
    if rng.random() < agg_first:
        items.insert(0, str(nkeys + rng.randint(1, naggs)))
    sql = ' ORDER BY ' + ', '.join(order_item(rng, k) for k in items)
    if rng.random() < limit:
        sql += ' LIMIT %d' % rng.choice([1, 3, 10, 100])
    return sql
