/*-------------------------------------------------------------------------
 *
 * q1_phases.c
 *	  Device time by phase of TPC-H Q1's request shape over a column store,
 *	  through the column-store entry points of gpudb_device.h (no
 *	  PostgreSQL), to place the time of tpch.py's cached Q1 among the
 *	  pipeline's steps:
 *		SELECT rf, ls, sum(qty), sum(price), sum(price * (1 - disc)),
 *			   sum(price * (1 - disc) * (1 + tax)), avg(qty), avg(price),
 *			   avg(disc), count(*)
 *		FROM lineitem WHERE shipdate < X GROUP BY rf, ls
 *	  with numeric(15,2) columns as fixed point (scale 2) and rf / ls as
 *	  dictionary codes (rf in {0, 2, 4}, ls in {1, 3}: codes in order of
 *	  first appearance, the two columns interleaved, so 15 slots of which 4
 *	  hold rows, half of them in one, as Q1's groups), and variants that
 *	  leave a step out: no computed columns, no filter, one key, the block
 *	  table's atomics instead of the warp-aggregated pass, the fast paths
 *	  off (the sort path).
 *
 * For each variant: 3 warm-ups, then reps timed runs; the medians of the
 * filter phase (filter, key ranges, computed columns), the aggregate
 * phase and the device time (CUDA events, GdbStats).  The first result's
 * row count is checked against the host's count of selected rows.
 * Timings are printed, never asserted.
 *
 * build (after make, which builds the cuda/ objects):
 *	 make test/bench/q1_phases
 * usage: test/bench/q1_phases [nrows [reps]]   (default 60000000, 10)
 *
 *-------------------------------------------------------------------------
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gpudb_device.h"
#include "../splitmix64.h"
#include "store_bench.h"

enum
{
	C_SHIPDATE, C_RF, C_LS, C_QTY, C_PRICE, C_DISC, C_TAX, NCOLS
};

#define SHIP_CUT 10500			/* days: about 98 % of the rows pass */

static int	failures = 0;

/* Test hooks of the CUDA build (cuda/groupby_kernels.cu, slot_agg_warp.cu). */
extern void gdb_cuda_set_fast_paths(int mode);
extern int	gdb_cuda_last_path(void);
extern void gdb_cuda_set_warp_slots(int on);

/* lineitem's Q1 columns, nrows rows, every value as the cache holds it. */
static GdbBatch *
make_table(uint64_t nrows, uint64_t *selected)
{
	uint32_t	kinds[NCOLS] = {0};
	uint32_t	hn[NCOLS] = {0};
	uint64_t	bytes = gdb_batch_layout(NULL, NCOLS, kinds, hn, nrows);
	GdbBatch   *b = malloc(bytes);
	int64_t    *c[NCOLS];

	if (b == NULL)
		return NULL;
	gdb_batch_layout(b, NCOLS, kinds, hn, nrows);
	b->nrows = nrows;
	for (int k = 0; k < NCOLS; k++)
		c[k] = GDB_COL_PTR(b, b, k, int64_t);
	*selected = 0;
	for (uint64_t i = 0; i < nrows; i++)
	{
		uint64_t	h = mix64(i + 1);

		c[C_SHIPDATE][i] = 8036 + (int64_t) (h % 2526);	/* days 8036 .. 10561 */
		/* Q1's groups: N/O half the rows, R/F and A/F a quarter, N/F 1 % */
		{
			int			u = (int) ((h >> 12) % 100);

			c[C_RF][i] = u < 50 ? 0 : u < 75 ? 2 : u < 99 ? 4 : 0;
			c[C_LS][i] = u < 50 ? 1 : 3;
		}
		c[C_QTY][i] = (int64_t) (1 + (h >> 24) % 50) * 100;
		c[C_PRICE][i] = (int64_t) (90000 + (h >> 30) % 10400000);
		c[C_DISC][i] = (int64_t) ((h >> 40) % 11);
		c[C_TAX][i] = (int64_t) ((h >> 48) % 9);
		*selected += c[C_SHIPDATE][i] < SHIP_CUT;
	}
	return b;
}

static void
emit(GdbInstr *code, uint32_t *n, int op, int32_t arg, int64_t ival)
{
	memset(&code[*n], 0, sizeof(GdbInstr));
	code[*n].op = (uint16_t) op;
	code[*n].arg = arg;
	code[*n].ival = ival;
	(*n)++;
}

/*
 * Q1's request: with_filter (shipdate < SHIP_CUT), with_exprs (the two
 * computed columns; else their sums read price twice), nkeys (rf, then ls).
 */
static void
q1_request(GdbRequest *r, int with_filter, int with_exprs, int nkeys)
{
	uint32_t	n = 0;

	memset(r, 0, sizeof(*r));
	if (with_filter)
	{
		emit(r->program, &r->ninstr, GDB_OP_PUSH_COL, C_SHIPDATE, 0);
		emit(r->program, &r->ninstr, GDB_OP_PUSH_INT, 0, SHIP_CUT);
		emit(r->program, &r->ninstr, GDB_OP_INT_LT, 0, 0);
	}
	if (with_exprs)
	{
		/* e0 = price * (100 - disc), e1 = e0 * (100 + tax) */
		for (int e = 0; e < 2; e++)
		{
			uint32_t	start = n;

			emit(r->eprogram, &n, GDB_OP_PUSH_COL, C_PRICE, 0);
			emit(r->eprogram, &n, GDB_OP_PUSH_INT, 0, 100);
			emit(r->eprogram, &n, GDB_OP_PUSH_COL, C_DISC, 0);
			emit(r->eprogram, &n, GDB_OP_NUM_SUB, 0, 0);
			emit(r->eprogram, &n, GDB_OP_NUM_MUL, 0, 0);
			if (e == 1)
			{
				emit(r->eprogram, &n, GDB_OP_PUSH_INT, 0, 100);
				emit(r->eprogram, &n, GDB_OP_PUSH_COL, C_TAX, 0);
				emit(r->eprogram, &n, GDB_OP_NUM_ADD, 0, 0);
				emit(r->eprogram, &n, GDB_OP_NUM_MUL, 0, 0);
			}
			r->exprs[e].kind = GDB_KIND_INT64;
			r->exprs[e].start = start;
			r->exprs[e].len = n - start;
		}
		r->nexprs = 2;
		r->neinstr = n;
	}
	r->nkeys = (uint32_t) nkeys;
	r->key_cols[0] = C_RF;
	r->key_cols[1] = C_LS;
	{
		static const int cols[7] = {C_QTY, C_PRICE, -2, -3, C_QTY, C_PRICE, C_DISC};

		for (int a = 0; a < 7; a++)
		{
			r->aggs[a].kind = GDB_AGG_SUM_INT;
			r->aggs[a].input_col = cols[a] >= 0 ? cols[a] :
				with_exprs ? GDB_EXPR_COL(-cols[a] - 2) : C_PRICE + (-cols[a] - 2);
		}
		r->aggs[7].kind = GDB_AGG_COUNT_STAR;
		r->aggs[7].input_col = -1;
		r->naggs = 8;
	}
}

static void
time_case(GdbCudaExec *ex, GdbStore *s, const GdbRequest *req, const char *name,
		  uint64_t want_rows, int reps)
{
	double	   *f = calloc((size_t) reps, sizeof(double));
	double	   *a = calloc((size_t) reps, sizeof(double));
	double	   *d = calloc((size_t) reps, sizeof(double));

	for (int i = -3; i < reps; i++)
	{
		GdbStats	st;
		GdbError	err;
		GdbBatch   *res = NULL;

		memset(&st, 0, sizeof(st));
		if (gdb_cuda_store_execute(ex, s, req, bench_alloc, NULL, &res, &st, &err) != GDB_OK)
		{
			printf("%s: error %s\n", name, err.message);
			failures++;
			return;
		}
		if (i == -3 && st.rows_selected != want_rows)
		{
			printf("%s: %llu rows selected, expected %llu\n", name,
				   (unsigned long long) st.rows_selected, (unsigned long long) want_rows);
			failures++;
		}
		if (i >= 0)
		{
			f[i] = st.phase_ms[GDB_PHASE_FILTER];
			a[i] = st.phase_ms[GDB_PHASE_AGGREGATE];
			d[i] = st.device_ms;
		}
		free(res);
	}
	qsort(f, (size_t) reps, sizeof(double), cmp_double);
	qsort(a, (size_t) reps, sizeof(double), cmp_double);
	qsort(d, (size_t) reps, sizeof(double), cmp_double);
	printf("%-44s filter %7.3f ms  aggregate %7.3f ms  device %7.3f ms  path %d\n", name,
		   f[reps / 2], a[reps / 2], d[reps / 2], gdb_cuda_last_path());
	free(f);
	free(a);
	free(d);
}

int
main(int argc, char **argv)
{
	uint64_t	nrows = argc > 1 ? strtoull(argv[1], NULL, 0) : 60000000ULL;
	int			reps = argc > 2 ? atoi(argv[2]) : 10;
	GdbDeviceInfo dev;
	GdbCudaExec *ex = NULL;
	GdbError	err;
	GdbRequest *req = calloc(1, sizeof(GdbRequest));
	uint32_t	kinds[NCOLS] = {0};
	uint32_t	hn[NCOLS] = {0};
	GdbStore   *s = NULL;
	GdbBatch   *tab;
	uint64_t	sel = 0;
	int			ndev = 0;

	if (reps < 1 || nrows < 1 || req == NULL)
		return 2;
	if (gdb_cuda_probe(&dev, 1, &ndev, &err) != GDB_OK || ndev < 1 ||
		gdb_cuda_open(0, &ex, &err) != GDB_OK)
	{
		printf("q1_phases: no device (%s)\n", err.message);
		return 2;
	}
	tab = make_table(nrows, &sel);
	if (tab == NULL ||
		gdb_cuda_store_create(ex, NCOLS, kinds, hn, nrows, &s, &err) != GDB_OK ||
		gdb_cuda_store_append(ex, s, tab, NULL, &err) != GDB_OK)
	{
		printf("q1_phases: store not built (%s)\n", err.message);
		return 2;
	}
	printf("q1_phases: %s, %llu rows (%llu selected), %d reps\n", dev.name,
		   (unsigned long long) nrows, (unsigned long long) sel, reps);
	q1_request(req, 1, 1, 2);
	time_case(ex, s, req, "Q1", sel, reps);
	q1_request(req, 1, 0, 2);
	time_case(ex, s, req, "Q1, no computed columns", sel, reps);
	q1_request(req, 0, 1, 2);
	time_case(ex, s, req, "Q1, no filter", nrows, reps);
	q1_request(req, 0, 0, 2);
	time_case(ex, s, req, "Q1, no filter, no computed columns", nrows, reps);
	q1_request(req, 1, 1, 1);
	time_case(ex, s, req, "Q1, one key", sel, reps);
	q1_request(req, 1, 1, 0);
	time_case(ex, s, req, "Q1, no keys", sel, reps);
	gdb_cuda_set_warp_slots(0);
	q1_request(req, 1, 1, 2);
	time_case(ex, s, req, "Q1, block atomics (no warp aggregation)", sel, reps);
	q1_request(req, 1, 0, 2);
	time_case(ex, s, req, "Q1, block atomics, no computed columns", sel, reps);
	gdb_cuda_set_warp_slots(1);
	gdb_cuda_set_fast_paths(0);
	q1_request(req, 1, 1, 2);
	time_case(ex, s, req, "Q1, fast paths off (sort path)", sel, reps);
	gdb_cuda_set_fast_paths(-1);
	gdb_cuda_store_free(s);
	free(tab);
	gdb_cuda_close(ex);
	free(req);
	printf("q1_phases: %s\n", failures ? "FAILED" : "ok");
	return failures ? 1 : 0;
}
