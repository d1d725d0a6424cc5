/*-------------------------------------------------------------------------
 *
 * hash_join.cu
 *	  The join probe step of the request pipeline on the device
 *	  (gdb_hash_join_step): each build side's open-addressing hash table
 *	  built in device memory, then every row of the batch filtered and
 *	  probed against all of them in one pass.  No PostgreSQL header.
 *
 * Algorithm.  Build: one thread per build row (grid-stride) inserts the
 * row's number + 1 into a power-of-two array of uint32 slots with linear
 * probing, claiming an empty slot with atomicCAS (the lock-free open
 * addressing of the GPU hash table literature, e.g. Alcantara et al.,
 * "Real-time parallel hashing on the GPU", SIGGRAPH Asia 2009, here with
 * linear rather than cuckoo probing); rows with a NULL key are left out.
 * An INNER or LEFT join's table is then checked by one thread per build
 * row: a row whose own keys find another row means two rows with equal
 * keys (gdb_hj_unique_row), and the request fails with
 * GDB_ERR_JOIN_DUPLICATE.  Probe: one thread per batch row runs the
 * filter program and, for a selected row, gdb_hj_probe_row -- the same
 * function the CPU path runs (join_semantics.h) -- which looks the row up
 * in every table in join order (a join with a qual tries the build rows
 * with the row's keys against it) and writes its payload columns, then
 * evaluates the INNER joins' other quals (join_filter: computed column
 * 0's program, with gdb_vm_value as on the CPU path); a keep column
 * records the rows that the filter, every join and those quals keep.  The
 * tables' layout, hash and lookup are the CPU path's, so both keep the
 * same rows with the same payload whatever order the insertions took.
 * The later steps (computed columns, operator) then run with the keep
 * column as their filter (r->joined_req), over a view of the batch with
 * the payload and keep columns in it.
 *
 * A filter error is reported for the lowest failing row (atomicMin of
 * row << GDB_STATUS_BITS | status), as the CPU path and PostgreSQL's
 * sequential scan report it.  The build sides and tables stay in the JOIN
 * scratch after a request: the next one of the same join_id (the next
 * batch of the query) neither copies nor builds them again, unless another
 * request's join used the scratch meanwhile (GdbCudaExec.join_id).  A
 * build side the GPU server keeps on the device (build_sides_dev,
 * kept_result.cu) is read where it is, never copied.  Build and probe time
 * count under the JOIN phase, the copy of the build sides under
 * TRANSFER_IN.
 *
 *-------------------------------------------------------------------------
 */
#include <stdlib.h>
#include <string.h>

#include "cuda_exec.cuh"
#include "join_semantics.h"

/* Threads per block of the join kernels. */
#define GDB_HJ_BLOCK 256

/* What the probe kernel takes (device addresses). */
struct GdbJoinArgs
{
	uint32_t	njoins;
	uint32_t	njoin_cols;
	int32_t		ninstr;			/* filter instructions at prog */
	uint32_t	join_filter;	/* computed column 0 is the join filter */
	const GdbInstr *eprog;		/* the computed columns' programs (the join
								 * filter's and the joins' quals) */
	GdbExprSpec exprs[GDB_MAX_EXPRS];
	GdbJoinSpec joins[GDB_MAX_JOINS];
	GdbHashSide sides[GDB_MAX_JOINS];
	int64_t    *pvals[GDB_MAX_JOIN_COLS];
	uint8_t    *pnulls[GDB_MAX_JOIN_COLS];
	int64_t    *keep_vals;
	uint8_t    *keep_nulls;
};

/*
 * gdb_hj_insert_kernel: insert every build row of build (device address)
 * whose nkeys keys are not NULL into slots[0 .. mask].
 */
__global__ void __launch_bounds__(GDB_HJ_BLOCK)
gdb_hj_insert_kernel(const GdbBatch *build, uint32_t nkeys, uint32_t *slots,
					 uint64_t mask, uint64_t nrows)
{
	for (uint64_t row = blockIdx.x * (uint64_t) blockDim.x + threadIdx.x;
		 row < nrows; row += (uint64_t) gridDim.x * blockDim.x)
	{
		int64_t		keys[GDB_MAX_JOIN_KEYS];
		uint64_t	i;

		if (!gdb_hj_build_keys(build, nkeys, row, keys))
			continue;
		i = gdb_hj_hash(keys, nkeys) & mask;
		while (atomicCAS(&slots[i], GDB_HJ_EMPTY, (uint32_t) (row + 1)) != GDB_HJ_EMPTY)
			i = (i + 1) & mask;
	}
}

/*
 * gdb_hj_unique_kernel: *dup = the lowest build row of side (built) that
 * is not the only one with its keys; untouched when there is none.
 */
__global__ void __launch_bounds__(GDB_HJ_BLOCK)
gdb_hj_unique_kernel(GdbHashSide side, uint32_t nkeys, uint64_t nrows,
					 unsigned long long *dup)
{
	for (uint64_t row = blockIdx.x * (uint64_t) blockDim.x + threadIdx.x;
		 row < nrows; row += (uint64_t) gridDim.x * blockDim.x)
		if (!gdb_hj_unique_row(&side, nkeys, row))
			gdb_error_min(dup, (unsigned long long) row);	/* the lowest */
}

/*
 * gdb_hj_probe_kernel: for rows [0, nrows) of the view at base (its
 * header at base, payload and keep slots set): the filter program, then
 * for a selected row the probes (gdb_hj_probe_row); the keep column says
 * whether the row survived both; every payload column of a row not kept
 * is NULL.  A row whose filter raises sets err_key (atomicMin).
 */
__global__ void __launch_bounds__(GDB_HJ_BLOCK)
gdb_hj_probe_kernel(const char *base, const GdbInstr *prog, GdbJoinArgs a,
					uint64_t nrows, unsigned long long *err_key)
{
	__shared__ unsigned long long smem[sizeof(GdbBatch) / 8];
	const GdbBatch *hdr = (const GdbBatch *) smem;
	const unsigned long long *src = (const unsigned long long *) base;

	for (size_t i = threadIdx.x; i < sizeof(GdbBatch) / 8; i += blockDim.x)
		smem[i] = src[i];
	__syncthreads();

	for (uint64_t row = blockIdx.x * (uint64_t) blockDim.x + threadIdx.x;
		 row < nrows; row += (uint64_t) gridDim.x * blockDim.x)
	{
		int			st = GDB_OK;
		int			keep = 1;

		if (a.ninstr > 0)
			keep = gdb_vm_eval(prog, a.ninstr, hdr, base, row, &st) == GDB_TRUE &&
				st == GDB_OK;
		if (keep)
			keep = gdb_hj_probe_row(a.joins, a.njoins, a.njoin_cols, a.sides, a.eprog,
									a.exprs, hdr, base, row, a.pvals, a.pnulls, &st);
		if (keep && a.join_filter)
		{
			/* the INNER joins' other quals, over the probe row and its payload */
			GdbValue	v;

			st = gdb_vm_value(a.eprog + a.exprs[0].start, (int) a.exprs[0].len,
							  hdr, base, row, &v);
			keep = st == GDB_OK && !v.isnull && v.v.i != 0;
		}
		if (!keep)
			for (uint32_t p = 0; p < a.njoin_cols; p++)
			{
				a.pvals[p][row] = 0;
				a.pnulls[p][row] = 1;
			}
		a.keep_vals[row] = keep;
		a.keep_nulls[row] = 0;
		if (st != GDB_OK)
			gdb_error_min(err_key, (unsigned long long) (row << GDB_STATUS_BITS) | (unsigned) st);
	}
}

/* gdb_hash_join_step: see cuda_exec.cuh. */
int
gdb_hash_join_step(GdbRun *r, GdbBatch *view, GdbError *err)
{
	GdbCudaExec *ex = r->ex;
	const GdbRequest *req = r->req;
	cudaStream_t s = ex->stream;
	uint64_t	n = r->nrows;
	size_t		hdrbytes = (size_t) gdb_align_up(sizeof(GdbBatch));
	size_t		colbytes = (size_t) (gdb_align_up(n * 8) + gdb_align_up(n));
	size_t		pbytes = (size_t) req->ninstr * sizeof(GdbInstr);
	size_t		slots_at;
	size_t		build_at[GDB_MAX_JOINS];
	size_t		slot_off[GDB_MAX_JOINS];
	size_t		dup_at;
	size_t		jf_at;
	size_t		hdr_at;
	size_t		jf_bytes = (size_t) req->neinstr * sizeof(GdbInstr);
	size_t		total;
	uint64_t	nbuild[GDB_MAX_JOINS];
	unsigned long long dup_host[GDB_MAX_JOINS];
	void	   *scr;
	void	   *d_prog = NULL;
	char	   *d_data;
	char	   *cols;
	GdbJoinArgs a;
	GdbRequest *jr;
	uint32_t	j;
	int			reuse;

	/*
	 * The JOIN scratch: the build sides and their hash tables first (their
	 * place does not depend on the batch, so that the next batch of the
	 * same join_id finds them built), then the programs, the view's header
	 * and its payload and keep columns.  The tables' sizes come from the
	 * build sides' headers (host copies).
	 */
	slots_at = 0;
	for (j = 0; j < req->njoins; j++)
	{
		build_at[j] = slots_at;
		/* (a build side the server keeps on the device is read there) */
		if (req->build_sides_dev[j] == NULL)
			slots_at += (size_t) gdb_align_up(req->joins[j].build_bytes);
	}
	total = slots_at;
	for (j = 0; j < req->njoins; j++)
	{
		const GdbBatch *b = gdb_join_build_side(req, j);

		nbuild[j] = b->nrows;
		slot_off[j] = total;
		total += (size_t) gdb_align_up(gdb_hj_slot_count(b->nrows) * sizeof(uint32_t));
	}
	dup_at = total;
	total += (size_t) gdb_align_up(GDB_MAX_JOINS * sizeof(unsigned long long));
	jf_at = total;
	total += (size_t) gdb_align_up(jf_bytes);
	hdr_at = total;
	total += hdrbytes + (req->njoin_cols + 1) * colbytes;

	/* the tables of this join_id, built for an earlier batch, still there */
	reuse = req->join_id != 0 && ex->join_id == req->join_id &&
		total <= ex->scratch_bytes[GDB_SCR_JOIN];

	GDB_TRY(gdb_phase_begin(r, GDB_PHASE_TRANSFER_IN, err));
	GDB_TRY(gdb_copy_in(r, err));
	if (!reuse)
		ex->join_id = 0;		/* whatever the scratch held is overwritten */
	GDB_TRY(gdb_cuda_scratch(ex, GDB_SCR_JOIN, total, &scr, err));
	if (pbytes > 0)
		GDB_TRY(gdb_cuda_scratch(ex, GDB_SCR_PROGRAM, pbytes, &d_prog, err));
	d_data = (char *) scr;
	if (!reuse)
	{
		for (j = 0; j < req->njoins; j++)
		{
			if (req->build_sides_dev[j] != NULL)
				continue;
			GDB_CUDA_CHECK(err, cudaMemcpyAsync(d_data + build_at[j], gdb_join_build_side(req, j),
												req->joins[j].build_bytes,
												cudaMemcpyHostToDevice, s));
			r->to_device += req->joins[j].build_bytes;
		}
	}
	if (pbytes > 0)
	{
		GDB_CUDA_CHECK(err, cudaMemcpyAsync(d_prog, req->program, pbytes,
											cudaMemcpyHostToDevice, s));
		r->to_device += pbytes;
	}
	if (jf_bytes > 0)
	{
		/* the computed columns' programs: the join filter's and the quals' */
		GDB_CUDA_CHECK(err, cudaMemcpyAsync((char *) scr + jf_at, req->eprogram,
											jf_bytes, cudaMemcpyHostToDevice, s));
		r->to_device += jf_bytes;
	}

	/* build every table; INNER and LEFT tables checked unique */
	GDB_TRY(gdb_phase_begin(r, GDB_PHASE_JOIN, err));
	if (!reuse)
	{
		GDB_CUDA_CHECK(err, cudaMemsetAsync((char *) scr + slots_at, 0, dup_at - slots_at, s));
		GDB_CUDA_CHECK(err, cudaMemsetAsync((char *) scr + dup_at, 0xff,
											GDB_MAX_JOINS * sizeof(unsigned long long), s));
	}
	memset(&a, 0, sizeof(a));
	a.njoins = req->njoins;
	a.njoin_cols = req->njoin_cols;
	a.ninstr = (int32_t) req->ninstr;
	a.join_filter = req->join_filter;
	a.eprog = (const GdbInstr *) ((char *) scr + jf_at);
	memcpy(a.exprs, req->exprs, sizeof(a.exprs));
	for (j = 0; j < req->njoins; j++)
	{
		const GdbJoinSpec *spec = &req->joins[j];
		GdbHashSide *side = &a.sides[j];

		a.joins[j] = *spec;
		side->build = req->build_sides_dev[j] != NULL ?
			(const GdbBatch *) req->build_sides_dev[j] :
			(const GdbBatch *) (d_data + build_at[j]);
		side->slots = (const uint32_t *) ((char *) scr + slot_off[j]);
		side->mask = gdb_hj_slot_count(nbuild[j]) - 1;
		if (nbuild[j] == 0 || reuse)
			continue;
		gdb_hj_insert_kernel<<<gdb_blocks(ex, nbuild[j]), GDB_HJ_BLOCK, 0, s>>>(
			side->build, spec->nkeys, (uint32_t *) side->slots, side->mask, nbuild[j]);
		GDB_CUDA_CHECK_LAUNCH(err, "gdb_hj_insert_kernel");
		if (spec->type == GDB_JOIN_INNER || spec->type == GDB_JOIN_LEFT)
		{
			gdb_hj_unique_kernel<<<gdb_blocks(ex, nbuild[j]), GDB_HJ_BLOCK, 0, s>>>(
				*side, spec->nkeys, nbuild[j],
				(unsigned long long *) ((char *) scr + dup_at) + j);
			GDB_CUDA_CHECK_LAUNCH(err, "gdb_hj_unique_kernel");
		}
	}
	cols = (char *) scr + hdr_at + hdrbytes;

	/* the view: stored columns where they are, the join's in scratch */
	gdb_batch_view(r->input, r->d_in, view, (char *) scr + hdr_at, 0, NULL, NULL, NULL);
	for (j = 0; j < req->njoins; j++)
	{
		const GdbJoinSpec *spec = &req->joins[j];
		const GdbBatch *b = gdb_join_build_side(req, j);

		for (uint32_t p = 0; p < spec->npayload; p++)
		{
			uint32_t	i = spec->payload_first + p;
			char	   *col = cols + i * colbytes;

			a.pvals[i] = (int64_t *) col;
			a.pnulls[i] = (uint8_t *) (col + gdb_align_up(n * 8));
			gdb_batch_set_column(view, (char *) scr + hdr_at, GDB_JOIN_COL(i),
								 b->cols[spec->nkeys + p].kind, a.pvals[i], a.pnulls[i]);
		}
	}
	{
		char	   *col = cols + req->njoin_cols * colbytes;

		a.keep_vals = (int64_t *) col;
		a.keep_nulls = (uint8_t *) (col + gdb_align_up(n * 8));
		gdb_batch_set_column(view, (char *) scr + hdr_at, GDB_JOIN_KEEP_COL, GDB_KIND_INT64,
							 a.keep_vals, a.keep_nulls);
	}
	GDB_CUDA_CHECK(err, cudaMemcpyAsync((char *) scr + hdr_at, view, sizeof(GdbBatch),
										cudaMemcpyHostToDevice, s));
	r->to_device += sizeof(GdbBatch);
	GDB_CUDA_CHECK(err, cudaMemsetAsync(&r->d_counters->err_key, 0xff,
										sizeof(unsigned long long), s));
	if (n > 0)
	{
		gdb_hj_probe_kernel<<<gdb_blocks(ex, n), GDB_HJ_BLOCK, 0, s>>>(
			(const char *) scr + hdr_at, (const GdbInstr *) d_prog, a, n,
			&r->d_counters->err_key);
		GDB_CUDA_CHECK_LAUNCH(err, "gdb_hj_probe_kernel");
	}
	GDB_CUDA_CHECK(err, cudaMemcpyAsync(ex->host_counters, r->d_counters,
										sizeof(GdbDevCounters),
										cudaMemcpyDeviceToHost, s));
	GDB_CUDA_CHECK(err, cudaMemcpyAsync(dup_host, (char *) scr + dup_at,
										sizeof(dup_host), cudaMemcpyDeviceToHost, s));
	r->from_device += sizeof(GdbDevCounters) + sizeof(dup_host);
	GDB_TRY(gdb_phase_end(r, err));
	for (j = 0; j < req->njoins; j++)
		if (dup_host[j] != ~0ULL)
		{
			ex->join_id = 0;
			return gdb_error_set(err, GDB_ERR_JOIN_DUPLICATE,
								 "join %u: build row %llu's keys are not unique",
								 j, dup_host[j]);
		}
	/* built and checked: the next batch of this join_id keeps them */
	ex->join_id = req->join_id;
	GDB_TRY(gdb_filter_status(ex, err));

	/* the later steps keep the rows of the keep column */
	jr = (GdbRequest *) malloc(sizeof(GdbRequest));
	if (jr == NULL)
		return gdb_error_set(err, GDB_ERR_OUT_OF_MEMORY,
							 "out of memory for the joined request");
	memcpy(jr, req, sizeof(GdbRequest));
	memset(&jr->program[0], 0, sizeof(GdbInstr));
	jr->program[0].op = GDB_OP_PUSH_COL;
	jr->program[0].arg = GDB_JOIN_KEEP_COL;
	jr->ninstr = 1;
	jr->njoins = 0;
	jr->njoin_cols = 0;
	jr->join_filter = 0;
	jr->njoin_bytes = 0;
	jr->join_data = NULL;
	memset(jr->build_sides, 0, sizeof(jr->build_sides));
	memset(jr->build_sides_dev, 0, sizeof(jr->build_sides_dev));
	r->joined_req = jr;
	r->req = jr;
	r->input = view;
	r->d_in = (char *) scr + hdr_at;
	return GDB_OK;
}
