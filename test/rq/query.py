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

def order_item(rng, name):
    return name + rng.choice(['', ' ASC', ' DESC']) + rng.choice(['', '', ' NULLS FIRST',
                                                                   ' NULLS LAST'])
