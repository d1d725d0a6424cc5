/*-------------------------------------------------------------------------
 *
 * kernel_bw.c
 *	  Device bandwidth of the benchmark's two cached-table kernels, through
 *	  the column-store entry points of gpudb_device.h (no PostgreSQL):
 *		B2	SELECT count(*), sum(v) FROM t WHERE v BETWEEN a AND b
 *			(the fused filter + aggregation pass, cuda/fused_filter_agg.cu)
 *			at selectivities 0.1, 1, 10 and 50 %;
 *		B1	SELECT g, count(*), sum(v), avg(v) FROM t GROUP BY g
 *			(the small-key slot pass, cuda/groupby_fastpath.cu).
 *	  Each runs over a store of nrows rows (g int8 = a hash of the row mod
 *	  1,000; v float8 = 20 random bits / 2^20), once with v nullable (NULL
 *	  for every 97th row) and once with no NULL flags.
 *
 * For each case: warm-up runs, then reps timed runs; the median and best
 * of the Aggregate phase (CUDA events, GdbStats.phase_ms) and the bytes
 * the pass must read (each input array once: 8 per value, 1 per NULL
 * flag -- the store keeps a byte per row) over the median.  With copy_gbps
 * (a device-to-device copy's bytes read + written per second, from
 * test/bench/copy_bandwidth) it prints the fraction of it too.  The first
 * result of each case is checked against a host computation (counts
 * exact, sums within 1e-12 relative); a mismatch makes the exit status 1.
 * Timings are printed, never asserted.
 *
 * build (after make, which builds the cuda/ objects):
 *	 make test/bench/kernel_bw
 * usage: test/bench/kernel_bw [nrows [reps [copy_gbps]]]
 *		  (default 100000000, 20, 0)
 *
 *-------------------------------------------------------------------------
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gpudb_device.h"
#include "../splitmix64.h"
#include "store_bench.h"

#define NGROUPS 1000

static int	failures = 0;

/* The table (g int8, v float8, v nullable when nullable), nrows rows. */
static GdbBatch *
make_table(uint64_t nrows, int nullable)
{
	uint32_t	kinds[2] = {GDB_KIND_INT64, GDB_KIND_FLOAT64};
	uint32_t	hn[2] = {0, (uint32_t) nullable};
	uint64_t	bytes = gdb_batch_layout(NULL, 2, kinds, hn, nrows);
	GdbBatch   *b = malloc(bytes);
	int64_t    *g;
	double	   *v;
	uint8_t    *n;

	if (b == NULL)
		return NULL;
	gdb_batch_layout(b, 2, kinds, hn, nrows);
	b->nrows = nrows;
	g = GDB_COL_PTR(b, b, 0, int64_t);
	v = GDB_COL_PTR(b, b, 1, double);
	n = GDB_NULL_PTR(b, b, 1);
	for (uint64_t i = 0; i < nrows; i++)
	{
		uint64_t	id = i + 1;
		int			isnull = nullable && id % 97 == 0;

		g[i] = (int64_t) (mix64(id * 7) % NGROUPS);
		v[i] = isnull ? 0.0 : (double) (mix64(id * 31) & 1048575) / 1048576.0;
		if (n)
			n[i] = (uint8_t) isnull;
	}
	return b;
}

/* Relative difference of a and b (0 when both are 0). */
static double
rel_diff(double a, double b)
{
	double		m = fabs(a) > fabs(b) ? fabs(a) : fabs(b);

	return m == 0 ? 0 : fabs(a - b) / m;
}

/* Check a B2 result against the host's count and sum over [lo, hi]. */
static int
check_b2(const GdbBatch *tab, const GdbBatch *res, double lo, double hi)
{
	const double *v = GDB_COL_PTR(tab, tab, 1, const double);
	const uint8_t *n = GDB_NULL_PTR(tab, tab, 1);
	const GdbAggState *cnt = GDB_COL_PTR(res, res, 0, const GdbAggState);
	const GdbAggState *sum = GDB_COL_PTR(res, res, 1, const GdbAggState);
	long double s = 0;
	int64_t		c = 0;

	for (uint64_t i = 0; i < tab->nrows; i++)
		if (!(n && n[i]) && v[i] >= lo && v[i] <= hi)
		{
			c++;
			s += v[i];
		}
	if (res->nrows != 1 || cnt->count != c || sum->count != c ||
		rel_diff(sum->f, (double) s) > 1e-12)
	{
		printf("  MISMATCH: count %lld / %lld, sum %.17g, expected %lld, %.17g\n",
			   (long long) cnt->count, (long long) sum->count, sum->f,
			   (long long) c, (double) s);
		return 0;
	}
	return 1;
}

/* Check a B1 result: every group's count(*), count(v) and sum(v). */
static int
check_b1(const GdbBatch *tab, const GdbBatch *res)
{
	const int64_t *g = GDB_COL_PTR(tab, tab, 0, const int64_t);
	const double *v = GDB_COL_PTR(tab, tab, 1, const double);
	const uint8_t *n = GDB_NULL_PTR(tab, tab, 1);
	int64_t		rows[NGROUPS] = {0},
				nn[NGROUPS] = {0};
	long double s[NGROUPS] = {0};
	uint64_t	ng = 0;

	for (uint64_t i = 0; i < tab->nrows; i++)
	{
		rows[g[i]]++;
		if (!(n && n[i]))
		{
			nn[g[i]]++;
			s[g[i]] += v[i];
		}
	}
	for (int k = 0; k < NGROUPS; k++)
		ng += rows[k] > 0;
	if (res->nrows != ng)
	{
		printf("  MISMATCH: %llu groups, expected %llu\n",
			   (unsigned long long) res->nrows, (unsigned long long) ng);
		return 0;
	}
	for (uint64_t r = 0; r < res->nrows; r++)
	{
		int64_t		k = GDB_COL_PTR(res, res, 0, const int64_t)[r];
		const GdbAggState *c = &GDB_COL_PTR(res, res, 1, const GdbAggState)[r];
		const GdbAggState *a = &GDB_COL_PTR(res, res, 2, const GdbAggState)[r];
		const GdbAggState *b = &GDB_COL_PTR(res, res, 3, const GdbAggState)[r];

		if (k < 0 || k >= NGROUPS || c->count != rows[k] || a->count != nn[k] ||
			b->count != nn[k] || rel_diff(a->f, (double) s[k]) > 1e-12 ||
			rel_diff(b->f, (double) s[k]) > 1e-12)
		{
			printf("  MISMATCH: group %lld: rows %lld, count(v) %lld, sum %.17g; "
				   "expected %lld, %lld, %.17g\n", (long long) k, (long long) c->count,
				   (long long) a->count, a->f, (long long) rows[k], (long long) nn[k],
				   (double) s[k]);
			return 0;
		}
	}
	return 1;
}

/* PUSH_COL 1, PUSH_FLOAT lo, FLT_GE, PUSH_COL 1, PUSH_FLOAT hi, FLT_LE, AND */
static void
between(GdbRequest *r, double lo, double hi)
{
	static const uint16_t ops[7] = {GDB_OP_PUSH_COL, GDB_OP_PUSH_FLOAT, GDB_OP_FLT_GE,
	GDB_OP_PUSH_COL, GDB_OP_PUSH_FLOAT, GDB_OP_FLT_LE, GDB_OP_AND};

	memset(r->program, 0, 7 * sizeof(GdbInstr));
	for (int i = 0; i < 7; i++)
		r->program[i].op = ops[i];
	r->program[0].arg = r->program[3].arg = 1;
	r->program[1].fval = lo;
	r->program[4].fval = hi;
	r->ninstr = 7;
}

/*
 * Time req over s (reps runs after 3 warm-ups) and print one line; the
 * first result is checked by b1 / the B2 range.
 */
static void
time_case(GdbCudaExec *ex, GdbStore *s, const GdbBatch *tab, const GdbRequest *req,
		  const char *name, double bytes, int reps, double copy_gbps,
		  int b1, double lo, double hi)
{
	double	   *agg = calloc((size_t) reps, sizeof(double));
	double	   *dev = calloc((size_t) reps, sizeof(double));
	int			ok = -1;

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
			break;
		}
		if (ok < 0)
		{
			ok = b1 ? check_b1(tab, res) : check_b2(tab, res, lo, hi);
			failures += !ok;
		}
		if (i >= 0)
		{
			agg[i] = st.phase_ms[GDB_PHASE_AGGREGATE];
			dev[i] = st.device_ms;
		}
		free(res);
	}
	qsort(agg, (size_t) reps, sizeof(double), cmp_double);
	qsort(dev, (size_t) reps, sizeof(double), cmp_double);
	printf("%-34s aggregate %.4f ms (best %.4f) %6.0f GB/s", name, agg[reps / 2], agg[0],
		   bytes / (agg[reps / 2] * 1e6));
	if (copy_gbps > 0)
		printf(" = %4.1f %% of copy", 100.0 * bytes / (agg[reps / 2] * 1e6) / copy_gbps);
	printf("; device %.4f ms; %s\n", dev[reps / 2], ok > 0 ? "check ok" : "CHECK FAILED");
	free(agg);
	free(dev);
}

int
main(int argc, char **argv)
{
	uint64_t	nrows = argc > 1 ? strtoull(argv[1], NULL, 0) : 100000000ULL;
	int			reps = argc > 2 ? atoi(argv[2]) : 20;
	double		copy_gbps = argc > 3 ? atof(argv[3]) : 0;
	static const double sel[4][2] = {
		{0.25, 0.251}, {0.25, 0.26}, {0.25, 0.35}, {0.25, 0.75}
	};
	static const char *const selname[4] = {"0.1 %", "1 %", "10 %", "50 %"};
	GdbDeviceInfo dev;
	GdbCudaExec *ex = NULL;
	GdbError	err;
	GdbRequest *req = calloc(1, sizeof(GdbRequest));
	int			ndev = 0;

	if (reps < 1 || nrows < 1 || req == NULL)
		return 2;
	if (gdb_cuda_probe(&dev, 1, &ndev, &err) != GDB_OK || ndev < 1 ||
		gdb_cuda_open(0, &ex, &err) != GDB_OK)
	{
		printf("kernel_bw: no device (%s)\n", err.message);
		return 2;
	}
	printf("kernel_bw: %s, %d SMs, %llu rows, %d reps, copy %.0f GB/s\n", dev.name,
		   dev.multiprocessors, (unsigned long long) nrows, reps, copy_gbps);
	for (int nullable = 1; nullable >= 0; nullable--)
	{
		GdbBatch   *tab = make_table(nrows, nullable);
		uint32_t	kinds[2] = {GDB_KIND_INT64, GDB_KIND_FLOAT64};
		uint32_t	hn[2] = {0, (uint32_t) nullable};
		GdbStore   *s = NULL;
		double		vb = 8.0 + (nullable ? 1.0 : 0.0);
		char		name[128];

		if (tab == NULL ||
			gdb_cuda_store_create(ex, 2, kinds, hn, nrows, &s, &err) != GDB_OK ||
			gdb_cuda_store_append(ex, s, tab, NULL, &err) != GDB_OK)
		{
			printf("kernel_bw: store not built (%s)\n", err.message);
			return 2;
		}
		/* B2 */
		memset(req, 0, sizeof(*req));
		req->naggs = 2;
		req->aggs[0].kind = GDB_AGG_COUNT_STAR;
		req->aggs[0].input_col = -1;
		req->aggs[1].kind = GDB_AGG_SUM_FLOAT;
		req->aggs[1].input_col = 1;
		for (int k = 0; k < 4; k++)
		{
			between(req, sel[k][0], sel[k][1]);
			snprintf(name, sizeof(name), "B2 %s, %s", selname[k],
					 nullable ? "NULLs" : "no NULLs");
			time_case(ex, s, tab, req, name, vb * (double) nrows, reps, copy_gbps,
					  0, sel[k][0], sel[k][1]);
		}
		/* B1 */
		memset(req, 0, sizeof(*req));
		req->nkeys = 1;
		req->key_cols[0] = 0;
		req->naggs = 3;
		req->aggs[0].kind = GDB_AGG_COUNT_STAR;
		req->aggs[0].input_col = -1;
		req->aggs[1].kind = GDB_AGG_SUM_FLOAT;
		req->aggs[1].input_col = 1;
		req->aggs[2].kind = GDB_AGG_SUM_FLOAT;
		req->aggs[2].input_col = 1;
		snprintf(name, sizeof(name), "B1 %d groups, %s", NGROUPS,
				 nullable ? "NULLs" : "no NULLs");
		time_case(ex, s, tab, req, name, (8.0 + vb) * (double) nrows, reps, copy_gbps,
				  1, 0, 0);
		gdb_cuda_store_free(s);
		free(tab);
	}
	gdb_cuda_close(ex);
	free(req);
	printf("kernel_bw: %s\n", failures ? "FAILED" : "all checks ok");
	return failures ? 1 : 0;
}
