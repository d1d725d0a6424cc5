/*-------------------------------------------------------------------------
 *
 * groupby_order.cu
 *	  The ordered group-by of gpudb_device.h (a GROUPBY request with sort
 *	  keys and maybe a limit, or a group qualifier, or both) on a CUDA
 *	  device: after any group-by pipeline has built its unordered result
 *	  batch in device memory, drop the groups the qualifier rejects, order
 *	  the rest and copy back only the first limit of them.  Same result as
 *	  gdb_cpu_order_groups (src/cpu/cpu_select_sort.c).
 *
 * Algorithm (gdb_order_groups), on the execution's stream:
 *	 1. gdb_order_check_kernel: every state of every aggregate whose
 *		finishing can raise (gdb_order_state_status: float sums and
 *		variances that overflowed from finite inputs), and every numeric
 *		sum a sort key orders by (gdb_order_key_status: exact within
 *		int64, no NaN summed), is checked, groups cut by the limit
 *		included; a failing group does atomicMin on the
 *		counters' err_key (group << 4 | status), as the filter does for
 *		rows, so the lowest failing group decides the status;
 *	 2. with a group qualifier (HAVING terms, GdbHavingTerm),
 *		gdb_having_flags_kernel flags the groups that pass every term
 *		(gdb_having_keep) and cub::DeviceSelect::Flagged compacts their
 *		ids, ascending; their number is read back (one wait).  Without
 *		one, the ids are 0..ngroups-1 (gdb_order_iota_kernel);
 *	 3. those group ids are ordered by
 *		the sort keys, least significant key first, each with the stable
 *		LSD radix passes of the SORT operator (gdb_sort_by_column: a
 *		64-bit pass over gdb_sort_encode, a 1-bit pass over the NULL
 *		ranks).  A group-key sort key passes the result's key column
 *		itself; an aggregate sort key first has its finished values and
 *		NULL flags written per group by gdb_order_value_kernel
 *		(gdb_order_agg_value) into the ORDER_VALS scratch.  Stable passes
 *		over ids that start ascending keep the unordered group order
 *		between ties, as the CPU path's group-index tie-break does;
 *	 4. gdb_order_gather_kernel copies, column by column, the first k
 *		groups of that order (values or states, and NULL flags) into a
 *		k-row batch in the ORDER_RESULT scratch;
 *	 4b. with distinct_last_key (count(DISTINCT x) per group: the runs of
 *		rows that agree on every key but the last), gdb_run_heads_kernel
 *		flags each run's first row (gdb_same_key_prefix),
 *		cub::DeviceScan::InclusiveSum numbers the runs, the last number
 *		(the runs) is read back (one wait), and gdb_run_collapse_kernel
 *		writes each run's first row's keys and counts its rows with a
 *		non-NULL last key (atomicAdd) into a batch of one row per run in
 *		the ORDER_RUNS scratch, which replaces the k rows;
 *	 5. the counters are read back (the check's status); only then is the
 *		host batch of k rows allocated and the k rows copied back.
 * The full sort of the group ids costs a few radix passes over ngroups
 * 12-byte pairs, small against the group-by that produced them, and needs
 * no special case for small limits (the top-k radix select of
 * topk_select.cu is bound to SORT requests over input columns).
 *
 *-------------------------------------------------------------------------
 */
#include <stdio.h>
#include <string.h>

#include <cub/device/device_scan.cuh>
#include <cub/device/device_select.cuh>
#include <thrust/iterator/counting_iterator.h>

#include "cuda_exec.cuh"
#include "gpudb_semantics.h"

/* The aggregates whose every group gdb_order_check_kernel checks. */
struct GdbOrderChecks
{
	uint32_t	n;
	uint32_t	kind[GDB_MAX_AGGREGATES + GDB_MAX_SORT_KEYS];
	const GdbAggState *col[GDB_MAX_AGGREGATES + GDB_MAX_SORT_KEYS];
	/* a sort key's exact-sum flags and NaN finder (gdb_order_key_status) */
	uint32_t	exact[GDB_MAX_AGGREGATES + GDB_MAX_SORT_KEYS];
	const GdbAggState *nan[GDB_MAX_AGGREGATES + GDB_MAX_SORT_KEYS];
};

/*
 * gdb_order_check_kernel: for group g in [0, ngroups) and each checked
 * aggregate a, when gdb_order_state_status(kind[a], col[a][g]) is not
 * GDB_OK, atomicMin(err_key, g << 4 | status): the lowest failing group's
 * status survives.  Grid-stride over the groups.
 */
__global__ void
gdb_order_check_kernel(GdbOrderChecks checks, uint64_t ngroups,
					   unsigned long long *err_key)
{
	for (uint64_t g = blockIdx.x * (uint64_t) blockDim.x + threadIdx.x;
		 g < ngroups; g += (uint64_t) gridDim.x * blockDim.x)
	{
		for (uint32_t a = 0; a < checks.n; a++)
		{
			int			st = gdb_order_state_status(checks.kind[a], checks.col[a][g]);

			if (st == GDB_OK && checks.exact[a] != 0)
				st = gdb_order_key_status(checks.exact[a], checks.col[a][g],
										  checks.nan[a] ? &checks.nan[a][g] : NULL);

			if (st != GDB_OK)
			{
				gdb_error_min(err_key, (unsigned long long) (g << GDB_STATUS_BITS) | (unsigned) st);
				break;
			}
		}
	}
}

/* The group qualifier's terms with their states (gdb_having_flags_kernel). */
struct GdbHavingArgs
{
	uint32_t	n;
	GdbHavingTerm term[GDB_MAX_HAVING];
	uint32_t	kind[GDB_MAX_HAVING];
	const GdbAggState *col[GDB_MAX_HAVING];
	const GdbAggState *nan[GDB_MAX_HAVING];
};

/*
 * gdb_having_flags_kernel: flags[g] = 1 when group g in [0, ngroups) passes
 * every term (gdb_having_keep), else 0: the flags cub::DeviceSelect::Flagged
 * compacts the group ids by.  Grid-stride over the groups.
 */
__global__ void
gdb_having_flags_kernel(GdbHavingArgs h, uint64_t ngroups, uint8_t *flags)
{
	for (uint64_t g = blockIdx.x * (uint64_t) blockDim.x + threadIdx.x;
		 g < ngroups; g += (uint64_t) gridDim.x * blockDim.x)
	{
		int			keep = 1;

		for (uint32_t i = 0; i < h.n && keep; i++)
			keep = gdb_having_keep(&h.term[i], h.kind[i], h.col[i][g],
								   h.nan[i] ? &h.nan[i][g] : NULL);
		flags[g] = (uint8_t) keep;
	}
}

/* gdb_order_iota_kernel: ids[i] = i for i in [0, n): the unordered order. */
__global__ void
gdb_order_iota_kernel(uint32_t *ids, uint64_t n)
{
	for (uint64_t i = blockIdx.x * (uint64_t) blockDim.x + threadIdx.x; i < n;
		 i += (uint64_t) gridDim.x * blockDim.x)
		ids[i] = (uint32_t) i;
}

/*
 * gdb_order_value_kernel: for group g in [0, ngroups), vals[g] = the 64-bit
 * word of the finished value of states[g] (an aggregate of kind) and
 * nulls[g] = 1 when it is NULL (gdb_order_agg_value); the value columns
 * that gdb_sort_by_column reads.  Grid-stride over the groups.
 */
__global__ void
gdb_order_value_kernel(uint32_t kind, const GdbAggState *states, uint64_t ngroups,
					   int64_t *vals, uint8_t *nulls)
{
	for (uint64_t g = blockIdx.x * (uint64_t) blockDim.x + threadIdx.x;
		 g < ngroups; g += (uint64_t) gridDim.x * blockDim.x)
	{
		int64_t		raw;

		nulls[g] = (uint8_t) gdb_order_agg_value(kind, states[g], &raw);
		vals[g] = raw;
	}
}

/*
 * gdb_order_gather_kernel: row i in [0, k) of one output column gets the
 * words of row ids[i] of the input column (words 64-bit words per row: 1
 * for a value, 4 for a GdbAggState) and, when dnulls is not NULL, its NULL
 * flag.  A gather through the sorted group ids.
 */
__global__ void
gdb_order_gather_kernel(const unsigned long long *src, unsigned long long *dst,
						uint32_t words, const uint8_t *snulls, uint8_t *dnulls,
						const uint32_t *ids, uint64_t k)
{
	for (uint64_t i = blockIdx.x * (uint64_t) blockDim.x + threadIdx.x; i < k;
		 i += (uint64_t) gridDim.x * blockDim.x)
	{
		uint64_t	g = ids[i];

		for (uint32_t w = 0; w < words; w++)
			dst[i * words + w] = src[g * words + w];
		if (dnulls)
			dnulls[i] = snulls[g];
	}
}

/* The key columns of an ordered result for step 4b (distinct_last_key). */
struct GdbRunKeys
{
	uint32_t	nkeys;			/* the last one is x */
	uint32_t	kind[GDB_MAX_GROUP_KEYS];
	const int64_t *vals[GDB_MAX_GROUP_KEYS];
	const uint8_t *nulls[GDB_MAX_GROUP_KEYS];
	int64_t    *dvals[GDB_MAX_GROUP_KEYS];	/* the batch of runs' columns */
	uint8_t    *dnulls[GDB_MAX_GROUP_KEYS];
	GdbAggState *dstates;		/* its count(*) states, zeroed */
};

/*
 * gdb_run_heads_kernel: heads[i] = 1 where row i of k starts a run (row 0,
 * or a row whose keys but the last differ from row i - 1's:
 * gdb_same_key_prefix), else 0.  Grid-stride over the rows.
 */
__global__ void
gdb_run_heads_kernel(GdbRunKeys rk, uint64_t k, uint32_t *heads)
{
	for (uint64_t i = blockIdx.x * (uint64_t) blockDim.x + threadIdx.x; i < k;
		 i += (uint64_t) gridDim.x * blockDim.x)
		heads[i] = i == 0 || !gdb_same_key_prefix(rk.nkeys - 1, rk.kind, rk.vals, rk.nulls,
												  i - 1, i);
}

/*
 * gdb_run_collapse_kernel: for row i of k in run runs[i] - 1 (runs: the
 * inclusive sum of the heads), a run's first row writes its keys into
 * that row of the runs' batch, and each row whose last key is not NULL
 * adds 1 to the run's count (atomicAdd).  Grid-stride over the rows.
 */
__global__ void
gdb_run_collapse_kernel(GdbRunKeys rk, uint64_t k, const uint32_t *heads,
						const uint32_t *runs)
{
	uint32_t	x = rk.nkeys - 1;

	for (uint64_t i = blockIdx.x * (uint64_t) blockDim.x + threadIdx.x; i < k;
		 i += (uint64_t) gridDim.x * blockDim.x)
	{
		uint64_t	g = runs[i] - 1;

		if (heads[i])
			for (uint32_t c = 0; c < rk.nkeys; c++)
			{
				rk.dvals[c][g] = rk.vals[c][i];
				if (rk.dnulls[c])
					rk.dnulls[c][g] = rk.nulls[c][i];
			}
		if (!(rk.nulls[x] && rk.nulls[x][i]))
			atomicAdd((unsigned long long *) &rk.dstates[g].count, 1ULL);
	}
}

/*
 * Step 4b of gdb_order_groups (file header): the k ordered rows at *d_out
 * (layout *lay) become one row per run, in the ORDER_RUNS scratch; *d_out,
 * *lay and *k then describe those.  heads and runs: uint32 scratch of k.
 */
static int
collapse_runs(GdbRun *r, char **d_out, GdbBatch *lay, uint64_t *k, uint32_t *heads,
			  uint32_t *runs, GdbError *err)
{
	GdbCudaExec *ex = r->ex;
	const GdbRequest *req = r->req;
	cudaStream_t s = ex->stream;
	GdbRunKeys	rk;
	GdbBatch	runs_lay;
	uint64_t	n = *k;
	uint64_t	m;
	char	   *d_runs;
	void	   *p;

	memset(&rk, 0, sizeof(rk));
	rk.nkeys = req->nkeys;
	for (uint32_t c = 0; c < req->nkeys; c++)
	{
		rk.kind[c] = lay->cols[c].kind;
		rk.vals[c] = GDB_COL_PTR(*d_out, lay, c, const int64_t);
		rk.nulls[c] = GDB_NULL_PTR(*d_out, lay, c);
	}
	gdb_run_heads_kernel<<<gdb_blocks(ex, n), GDB_BLOCK, 0, s>>>(rk, n, heads);
	GDB_CUDA_CHECK_LAUNCH(err, "gdb_run_heads_kernel");
	GDB_TRY(gdb_cub(ex, "cub::DeviceScan::InclusiveSum", [&](void *t, size_t &b) {
		return cub::DeviceScan::InclusiveSum(t, b, heads, runs, (int64_t) n, s);
	}, err));
	GDB_CUDA_CHECK(err, cudaMemcpyAsync(&ex->host_counters->nkept, runs + (n - 1),
										sizeof(uint32_t), cudaMemcpyDeviceToHost, s));
	GDB_CUDA_CHECK(err, cudaStreamSynchronize(s));
	r->from_device += sizeof(uint32_t);
	m = (uint32_t) ex->host_counters->nkept;

	gdb_batch_layout_like(&runs_lay, lay, m);
	runs_lay.nrows = m;
	GDB_TRY(gdb_cuda_scratch(ex, GDB_SCR_ORDER_RUNS, (size_t) runs_lay.total_bytes, &p, err));
	d_runs = (char *) p;
	GDB_CUDA_CHECK(err, cudaMemsetAsync(d_runs, 0, (size_t) runs_lay.total_bytes, s));
	for (uint32_t c = 0; c < req->nkeys; c++)
	{
		rk.dvals[c] = GDB_COL_PTR(d_runs, &runs_lay, c, int64_t);
		rk.dnulls[c] = GDB_NULL_PTR(d_runs, &runs_lay, c);
	}
	rk.dstates = GDB_COL_PTR(d_runs, &runs_lay, req->nkeys, GdbAggState);
	gdb_run_collapse_kernel<<<gdb_blocks(ex, n), GDB_BLOCK, 0, s>>>(rk, n, heads, runs);
	GDB_CUDA_CHECK_LAUNCH(err, "gdb_run_collapse_kernel");
	*d_out = d_runs;
	*lay = runs_lay;
	*k = m;
	return GDB_OK;
}

/* gdb_order_groups: see cuda_exec.cuh and the file header. */
int
gdb_order_groups(GdbRun *r, GdbAllocFn alloc, void *alloc_arg,
				 GdbBatch **result, GdbError *err)
{
	GdbCudaExec *ex = r->ex;
	const GdbRequest *req = r->req;
	const GdbBatch *hdr = &r->order_hdr;
	const char *d_res = r->order_d_res;
	cudaStream_t s = ex->stream;
	uint64_t	n = hdr->nrows;
	uint64_t	nkept = n;
	uint64_t	k;
	uint64_t	saved_nsel = r->nsel;
	uint32_t	ncols = hdr->ncols;
	GdbBatch	out_lay;
	GdbBatch   *host;
	GdbOrderChecks checks;
	char	   *d_out;
	char	   *vals;
	size_t		slot = (size_t) (n ? n : 1);
	size_t		nulls_off = (size_t) gdb_align_up(slot * sizeof(int64_t));
	void	   *p;
	int			st;

	*result = NULL;
	if (d_res == NULL || ncols != req->nkeys + req->naggs || n > (uint64_t) UINT32_MAX ||
		req->nhaving > GDB_MAX_HAVING)
		return gdb_error_set(err, GDB_ERR_BAD_REQUEST,
							 "gdb_order_groups: no unordered result of the request");

	/*
	 * every buffer before any work (growing one waits, loses its contents),
	 * but ORDER_RESULT, sized by the groups kept, which nothing has written
	 * before it is made
	 */
	GDB_TRY(gdb_cuda_scratch(ex, GDB_SCR_ORDER_VALS, nulls_off + slot, &p, err));
	vals = (char *) p;
	GDB_TRY(gdb_cuda_scratch(ex, GDB_SCR_PERM0, slot * sizeof(uint32_t), &p, err));
	r->perm[0] = (uint32_t *) p;
	GDB_TRY(gdb_cuda_scratch(ex, GDB_SCR_PERM1, slot * sizeof(uint32_t), &p, err));
	r->perm[1] = (uint32_t *) p;

	GDB_TRY(gdb_phase_begin(r, GDB_PHASE_SORT, err));

	/* 1. the states the host would refuse to finish, in every group */
	memset(&checks, 0, sizeof(checks));
	for (uint32_t a = 0; a < req->naggs; a++)
	{
		uint32_t	kind = req->aggs[a].kind;

		if (kind != GDB_AGG_SUM_FLOAT && kind != GDB_AGG_VAR_FLOAT &&
			kind != GDB_AGG_SUM_FLOAT4)
			continue;
		checks.kind[checks.n] = kind;
		checks.col[checks.n++] = GDB_COL_PTR(d_res, hdr, req->nkeys + a, const GdbAggState);
	}
	/* ... and the numeric sums a sort key orders by, exact within int64 */
	for (uint32_t i = 0; i < req->nsort; i++)
	{
		const GdbSortKey *sk = &req->sort_keys[i];
		int			nan = GDB_SORT_NAN_STATE(sk->exact);

		if (!(sk->exact & GDB_SORT_EXACT_SUM))
			continue;
		checks.kind[checks.n] = GDB_AGG_SUM_INT;
		checks.exact[checks.n] = sk->exact;
		checks.nan[checks.n] = nan >= 0 ?
			GDB_COL_PTR(d_res, hdr, req->nkeys + nan, const GdbAggState) : NULL;
		checks.col[checks.n++] = GDB_COL_PTR(d_res, hdr, sk->col, const GdbAggState);
	}
	GDB_CUDA_CHECK(err, cudaMemsetAsync(&r->d_counters->err_key, 0xff,
										sizeof(unsigned long long), s));
	if (checks.n > 0 && n > 0)
	{
		gdb_order_check_kernel<<<gdb_blocks(ex, n), GDB_BLOCK, 0, s>>>(
			checks, n, &r->d_counters->err_key);
		GDB_CUDA_CHECK_LAUNCH(err, "gdb_order_check_kernel");
	}

	/*
	 * 2. the ids of the groups that pass the group qualifier (flags in the
	 * ORDER_VALS scratch, compacted by cub::DeviceSelect::Flagged; their
	 * number read back), or of every group
	 */
	if (req->nhaving > 0 && n > 0)
	{
		GdbHavingArgs h;
		uint8_t    *flags = (uint8_t *) (vals + nulls_off);
		uint32_t   *ids = r->perm[0];
		unsigned long long *d_nkept = &r->d_counters->nkept;

		memset(&h, 0, sizeof(h));
		h.n = req->nhaving;
		for (uint32_t i = 0; i < req->nhaving; i++)
		{
			const GdbHavingTerm *t = &req->having[i];

			h.term[i] = *t;
			h.kind[i] = req->aggs[t->agg].kind;
			h.col[i] = GDB_COL_PTR(d_res, hdr, req->nkeys + t->agg, const GdbAggState);
			h.nan[i] = t->nan_state > 0 ?
				GDB_COL_PTR(d_res, hdr, req->nkeys + t->nan_state - 1, const GdbAggState) : NULL;
		}
		gdb_having_flags_kernel<<<gdb_blocks(ex, n), GDB_BLOCK, 0, s>>>(h, n, flags);
		GDB_CUDA_CHECK_LAUNCH(err, "gdb_having_flags_kernel");
		GDB_TRY(gdb_cub(ex, "cub::DeviceSelect::Flagged", [&](void *t, size_t &b) {
			return cub::DeviceSelect::Flagged(t, b, thrust::counting_iterator<uint32_t>(0),
											  flags, ids, d_nkept, (int64_t) n, s);
		}, err));
		GDB_CUDA_CHECK(err, cudaMemcpyAsync(&ex->host_counters->nkept, d_nkept,
											sizeof(unsigned long long),
											cudaMemcpyDeviceToHost, s));
		GDB_CUDA_CHECK(err, cudaStreamSynchronize(s));
		r->from_device += sizeof(unsigned long long);
		nkept = ex->host_counters->nkept;
	}
	else if (n > 0)
	{
		gdb_order_iota_kernel<<<gdb_blocks(ex, n), GDB_BLOCK, 0, s>>>(r->perm[0], n);
		GDB_CUDA_CHECK_LAUNCH(err, "gdb_order_iota_kernel");
	}
	k = req->limit > 0 && req->limit < nkept ? req->limit : nkept;
	gdb_batch_layout_like(&out_lay, hdr, k);
	out_lay.nrows = k;
	GDB_TRY(gdb_cuda_scratch(ex, GDB_SCR_ORDER_RESULT, (size_t) out_lay.total_bytes, &p, err));
	d_out = (char *) p;

	/* 3. the kept group ids, by the sort keys, last key first */
	r->cur = 0;
	r->nsel = nkept;			/* gdb_sort_by_column sorts r->nsel ids */
	st = GDB_OK;
	for (int i = (int) req->nsort - 1; i >= 0 && st == GDB_OK && nkept > 1; i--)
	{
		const GdbSortKey *sk = &req->sort_keys[i];
		uint32_t	col = (uint32_t) sk->col;

		if (col < req->nkeys)
			st = gdb_sort_by_column(r, GDB_COL_PTR(d_res, hdr, col, const int64_t),
									GDB_NULL_PTR(d_res, hdr, col), hdr->cols[col].kind,
									sk->descending, sk->nulls_first, err);
		else
		{
			uint32_t	kind = req->aggs[col - req->nkeys].kind;
			int			nullable = kind != GDB_AGG_COUNT_STAR && kind != GDB_AGG_COUNT;

			gdb_order_value_kernel<<<gdb_blocks(ex, n), GDB_BLOCK, 0, s>>>(
				kind, GDB_COL_PTR(d_res, hdr, col, const GdbAggState), n,
				(int64_t *) vals, (uint8_t *) (vals + nulls_off));
			GDB_CUDA_CHECK_LAUNCH(err, "gdb_order_value_kernel");
			st = gdb_sort_by_column(r, (const int64_t *) vals,
									nullable ? (const uint8_t *) (vals + nulls_off) : NULL,
									gdb_order_agg_value_kind(kind),
									sk->descending, sk->nulls_first, err);
		}
	}
	r->nsel = saved_nsel;
	if (st != GDB_OK)
		return st;

	/* 4. the first k groups, column by column */
	for (uint32_t c = 0; c < ncols && k > 0; c++)
	{
		uint32_t	words = (uint32_t) (gdb_kind_width(hdr->cols[c].kind) / 8);

		gdb_order_gather_kernel<<<gdb_blocks(ex, k), GDB_BLOCK, 0, s>>>(
			GDB_COL_PTR(d_res, hdr, c, const unsigned long long),
			GDB_COL_PTR(d_out, &out_lay, c, unsigned long long), words,
			GDB_NULL_PTR(d_res, hdr, c), GDB_NULL_PTR(d_out, &out_lay, c),
			r->perm[r->cur], k);
		GDB_CUDA_CHECK_LAUNCH(err, "gdb_order_gather_kernel");
	}

	/* 4b. distinct_last_key: one row per run (perm[] are free again) */
	if (req->distinct_last_key && k > 0)
		GDB_TRY(collapse_runs(r, &d_out, &out_lay, &k, r->perm[0], r->perm[1], err));

	/* 5. the check's status; then k rows to the host */
	GDB_CUDA_CHECK(err, cudaMemcpyAsync(ex->host_counters, r->d_counters,
										sizeof(GdbDevCounters),
										cudaMemcpyDeviceToHost, s));
	r->from_device += sizeof(GdbDevCounters);
	GDB_TRY(gdb_phase_end(r, err));
	GDB_TRY(gdb_filter_status(ex, err));
	host = (GdbBatch *) alloc(alloc_arg, (size_t) out_lay.total_bytes);
	if (host == NULL)
		return gdb_error_set(err, GDB_ERR_OUT_OF_MEMORY,
							 "could not allocate a result batch of %llu bytes",
							 (unsigned long long) out_lay.total_bytes);
	memcpy(host, &out_lay, sizeof(GdbBatch));
	GDB_TRY(gdb_result_finish(r, host, d_out, err));
	r->ngroups = k;
	*result = host;
	return GDB_OK;
}
