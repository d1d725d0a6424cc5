/*-------------------------------------------------------------------------
 *
 * filter_vm.cu
 *	  The device's filter interpreter: evaluate a request's filter program
 *	  (the opcode table of gpudb_device.h; each opcode's meaning is
 *	  gdb_vm_step of gpudb_semantics.h, the same code the CPU path runs)
 *	  over every row of a batch in device memory and write one flag per
 *	  row.  No PostgreSQL header.
 *
 * Algorithm: a tile interpreter.  Each thread evaluates GDB_VM_TILE rows
 * together, instruction by instruction, so that one decode serves the
 * tile and the tile's column loads are in flight together.  The dispatch is
 * the opcode X-macro list expanded into a switch whose every case runs
 * gdb_vm_step with a constant opcode, so a case compiles to that opcode's
 * semantics only.  The top of each row's stack lives in registers; the
 * entries below it live in shared memory, laid out [entry][tile row]
 * [thread] so that a warp's accesses are conflict-free.
 *
 * Jumps (the short-circuit AND/OR) are forward, and the stack depth at
 * every instruction is the same along every path (the request validation,
 * gdb_cpu_validate_request, checks both).  So the tile walks the program
 * once, linearly: a row that jumps sits out every instruction before its
 * target, and finds its stack entries as it left them; all rows see the
 * same depth at every instruction.  A row that raises a SQL error sits out
 * the rest of the program, gets flag 0 and reports atomicMin(err_key,
 * row << 4 | status), so the reported error is that of the lowest failing
 * row, as on the CPU path.
 *
 * Predicate fast path: a program that is only a conjunction of comparisons
 * of a column (or of a column modulo a non-zero integer constant) with a
 * constant -- the common WHERE of range queries, e.g. v BETWEEN a AND b or
 * id % 7 = 3 -- cannot raise, and is TRUE exactly when every comparison is
 * TRUE.  gdb_predicate_compile recognises it from the instructions and
 * turns each comparison into a range test on the order-preserving key
 * encoding of gpudb_semantics.h (gdb_key_encode_int / _float, whose
 * unsigned order is PostgreSQL's order of the values, -0 = +0 and every
 * NaN equal and above +Infinity): col < c becomes enc(col) in [0, enc(c) -
 * 1], and so on.  gdb_predicate_kernel then tests every row with no stack
 * and no dispatch, near memory bandwidth (the range-query formulation of
 * Govindaraju et al., SIGMOD 2004).
 *
 * Predicate prefix: a WHERE whose first conjuncts are such comparisons and
 * whose others are not (the compiler puts comparisons first where the
 * conjuncts before them cannot raise, filter_compile.c) runs those first
 * in gdb_predicate_kernel, compacts the ids of the rows they pass
 * (cub::DeviceSelect::Flagged: selection by flags and a prefix sum), and
 * walks the rest of the program from the point after them for those rows
 * only, their AND-ed result so far TRUE: the interpreter's work follows the
 * rows left, not the batch.  A row the prefix rejects would have jumped to
 * the end at that same point (a top-level conjunct that is not TRUE jumps
 * there), so the flags and the first error are the whole program's.
 *
 *-------------------------------------------------------------------------
 */
#include <limits.h>
#include <stdio.h>
#include <string.h>

#include <cub/device/device_select.cuh>
#include <thrust/iterator/counting_iterator.h>

#include "cuda_exec.cuh"
#include "gpudb_semantics.h"
#include "predicate.cuh"

/* Rows per thread of the tile interpreter, and its block size. */
#define GDB_VM_TILE		4
#define GDB_VM_BLOCK	128

/* Shared memory the tile interpreter may ask for per block (bytes). */
#define GDB_VM_SMEM_MAX (96 * 1024)

/* Rows from which a program's comparison prefix runs apart (launch costs). */
#define GDB_VM_PREFIX_MIN_ROWS 2048

/*
 * Stack entry i (0 = bottom; only entries below the top) of tile row j of
 * this thread, in the block's shared stack area.
 */
#define GDB_VM_DEEP(deep, i, j, tile) \
	((deep)[((size_t) (i) * (tile) + (j)) * blockDim.x + threadIdx.x])

/*
 * gdb_tile_step: instruction in (opcode OP with stack effect EFFECT, at
 * program counter pc, stack depth sp before it) for each row j of the tile
 * that takes part (pc >= resume[j]).  top[j] is row j's top entry.
 */
template <int OP, int EFFECT, int TILE>
__device__ __forceinline__ void
gdb_tile_step(const GdbInstr *in, int pc, int sp, GdbValue (&top)[TILE],
			  int (&resume)[TILE], int (&status)[TILE],
			  const uint64_t (&row)[TILE], GdbValue *deep,
			  const GdbBatch *hdr, const char *base)
{
	GdbValue	v[TILE];
	int			st[TILE];

	if (OP == GDB_OP_JUMP_IF_FALSE || OP == GDB_OP_JUMP_IF_TRUE ||
		OP == GDB_OP_JUMP || OP == GDB_OP_JUMP_IF_NOT_TRUE ||
		OP == GDB_OP_JUMP_IF_NOT_NULL)
	{
#pragma unroll
		for (int j = 0; j < TILE; j++)
			if (pc >= resume[j] && gdb_vm_jumps(OP, &top[j]))
				resume[j] = in->arg;
		return;
	}
	if (EFFECT > 0 && sp > 0)
	{
		/* spill every top first, so that the pushes' loads go together */
#pragma unroll
		for (int j = 0; j < TILE; j++)
			if (pc >= resume[j])
				GDB_VM_DEEP(deep, sp - 1, j, TILE) = top[j];
	}
#pragma unroll
	for (int j = 0; j < TILE; j++)
	{
		st[j] = GDB_OK;
		if (pc < resume[j])
			continue;
		if (EFFECT > 0)
			st[j] = gdb_vm_step(OP, in, &v[j], &top[j], &top[j], hdr, base, row[j]);
		else if (EFFECT == 0)
			st[j] = gdb_vm_step(OP, in, &top[j], &top[j], &top[j], hdr, base, row[j]);
		else
		{
			v[j] = GDB_VM_DEEP(deep, sp - 2, j, TILE);
			st[j] = gdb_vm_step(OP, in, &v[j], &top[j], &v[j], hdr, base, row[j]);
		}
	}
#pragma unroll
	for (int j = 0; j < TILE; j++)
	{
		if (pc < resume[j])
			continue;
		if (st[j] != GDB_OK)
		{
			status[j] = st[j];
			resume[j] = INT_MAX;
		}
		else if (EFFECT != 0)
			top[j] = v[j];
	}
}

/*
 * gdb_tile_walk: walk the ninstr instructions at prog once for the tile's
 * rows (those with resume[j] <= pc take part at pc), dispatching each
 * opcode to its gdb_tile_step instance, from instruction pc0 with sp0
 * entries on the stack (0 and 0: the whole program from an empty stack;
 * the top entries in top).
 */
template <int TILE>
__device__ __forceinline__ void
gdb_tile_walk(const GdbInstr *prog, int ninstr, GdbValue (&top)[TILE],
			  int (&resume)[TILE], int (&status)[TILE], const uint64_t (&row)[TILE],
			  GdbValue *deep, const GdbBatch *hdr, const char *base, int pc0 = 0,
			  int sp0 = 0)
{
	int			sp = sp0;

	for (int pc = pc0; pc < ninstr; pc++)
	{
		const GdbInstr *in = &prog[pc];

		switch (in->op)
		{
#define GDB_VM_CASE(name, effect, raises, doc) \
			case GDB_OP_##name: \
				gdb_tile_step<GDB_OP_##name, effect, TILE>(in, pc, sp, top, resume, \
														   status, row, deep, hdr, base); \
				break;
				GDB_OPCODE_LIST(GDB_VM_CASE)
#undef GDB_VM_CASE
			default:
				break;
		}
		sp += gdb_vm_effect(in->op);
	}
}

/*
 * gdb_vm_stage: copy the batch header at base and the ninstr instructions
 * at prog into the block's shared memory smem (header first, the program
 * right after it), then wait for the block.
 */
__device__ __forceinline__ void
gdb_vm_stage(unsigned long long *smem, const char *base, const GdbInstr *prog, int ninstr)
{
	const unsigned long long *src_hdr = (const unsigned long long *) base;
	const unsigned long long *src_prog = (const unsigned long long *) prog;
	unsigned long long *dst_prog = smem + sizeof(GdbBatch) / 8;

	for (size_t i = threadIdx.x; i < sizeof(GdbBatch) / 8; i += blockDim.x)
		smem[i] = src_hdr[i];
	for (size_t i = threadIdx.x; i < (size_t) ninstr * sizeof(GdbInstr) / 8; i += blockDim.x)
		dst_prog[i] = src_prog[i];
	__syncthreads();
}

/*
 * gdb_filter_kernel: flags[row] = 1 when the filter program (ninstr
 * instructions at prog, whose stack holds at most deep_entries + 1
 * entries) is TRUE for row, for rows [0, nrows) of the batch at base;
 * TILE rows per thread, grid-stride over tiles of TILE * blockDim rows.
 * With ids (the predicate prefix): only rows ids[0 .. *nids), from
 * instruction pc0 with one TRUE on the stack, and nrows is ignored.
 * Dynamic shared memory: the batch header, the program, then
 * deep_entries * TILE * blockDim GdbValues (gdb_filter_smem).  A row that
 * raises gets flag 0 and does atomicMin(err_key, row << 4 | status).
 */
template <int TILE>
__global__ void __launch_bounds__(GDB_VM_BLOCK)
gdb_filter_kernel(const char *base, const GdbInstr *prog, int ninstr,
				  uint64_t nrows, uint8_t *flags, unsigned long long *err_key,
				  const uint32_t *ids, const unsigned long long *nids, int pc0)
{
	extern __shared__ unsigned long long gdb_vm_smem[];
	GdbBatch   *hdr = (GdbBatch *) gdb_vm_smem;
	GdbInstr   *sprog = (GdbInstr *) ((char *) gdb_vm_smem + sizeof(GdbBatch));
	GdbValue   *deep = (GdbValue *) (sprog + ninstr);
	const uint64_t span = (uint64_t) TILE * blockDim.x;
	const uint64_t n = ids != NULL ? *nids : nrows;

	gdb_vm_stage(gdb_vm_smem, base, prog, ninstr);

	for (uint64_t first = blockIdx.x * span; first < n;
		 first += (uint64_t) gridDim.x * span)
	{
		GdbValue	top[TILE];
		int			resume[TILE];	/* first pc at which row j takes part */
		int			status[TILE];
		uint64_t	row[TILE];
		bool		in[TILE];

#pragma unroll
		for (int j = 0; j < TILE; j++)
		{
			uint64_t	i = first + (uint64_t) j * blockDim.x + threadIdx.x;

			in[j] = i < n;
			row[j] = !in[j] ? i : ids != NULL ? (uint64_t) ids[i] : i;
			resume[j] = in[j] ? pc0 : INT_MAX;
			status[j] = GDB_OK;
			/* after the prefix: its AND so far, TRUE */
			top[j].v.i = ids != NULL ? 1 : 0;
			top[j].isnull = ids != NULL ? 0 : 1;
		}
		gdb_tile_walk<TILE>(sprog, ninstr, top, resume, status, row, deep, hdr, base,
							ids != NULL ? pc0 : 0, ids != NULL ? 1 : 0);
#pragma unroll
		for (int j = 0; j < TILE; j++)
		{
			if (!in[j])
				continue;
			if (status[j] != GDB_OK)
			{
				gdb_error_min(err_key, (unsigned long long) (row[j] << GDB_STATUS_BITS) | (unsigned) status[j]);
				flags[row[j]] = 0;
			}
			else
				flags[row[j]] = gdb_vm_result(&top[j]) == GDB_TRUE;
		}
	}
}

/*
 * gdb_values_kernel: the computed columns of a.nexprs programs (spans of
 * the eprogram at eprog, jump targets relative to each span, together at
 * most deep_entries + 1 deep) for rows [0, nrows): for a row the filter
 * selected (a.flags, or every row when NULL) the program's value into
 * a.vals[e][row] (0 when NULL) and a.nulls[e][row]; NULL for the others.
 * The programs run in order, as gdb_vm_value would one after the other: a
 * row that raises does atomicMin(err_key, row << 4 | status), sits out the
 * later programs and gets NULLs from its failing one on.  TILE rows per
 * thread, grid-stride over tiles of TILE * blockDim rows; dynamic shared
 * memory as gdb_filter_kernel's, with the whole eprogram.
 */
template <int TILE>
__global__ void __launch_bounds__(GDB_VM_BLOCK)
gdb_values_kernel(const char *base, const GdbInstr *eprog, int neinstr,
				  GdbValuesArgs a, uint64_t nrows, unsigned long long *err_key)
{
	extern __shared__ unsigned long long gdb_vm_smem[];
	GdbBatch   *hdr = (GdbBatch *) gdb_vm_smem;
	GdbInstr   *sprog = (GdbInstr *) ((char *) gdb_vm_smem + sizeof(GdbBatch));
	GdbValue   *deep = (GdbValue *) (sprog + neinstr);
	const uint64_t span = (uint64_t) TILE * blockDim.x;

	gdb_vm_stage(gdb_vm_smem, base, eprog, neinstr);

	for (uint64_t first = blockIdx.x * span; first < nrows;
		 first += (uint64_t) gridDim.x * span)
	{
		uint64_t	row[TILE];
		int			status[TILE];
		bool		live[TILE];	/* selected, and no error so far */

#pragma unroll
		for (int j = 0; j < TILE; j++)
		{
			row[j] = first + (uint64_t) j * blockDim.x + threadIdx.x;
			live[j] = row[j] < nrows && (a.flags == NULL || a.flags[row[j]]);
			status[j] = GDB_OK;
		}
		for (uint32_t e = 0; e < a.nexprs; e++)
		{
			const GdbInstr *prog = sprog + a.start[e];
			const int	ninstr = (int) a.len[e];
			GdbValue	top[TILE];
			int			resume[TILE];

#pragma unroll
			for (int j = 0; j < TILE; j++)
			{
				resume[j] = live[j] ? 0 : INT_MAX;
				top[j].v.i = 0;
				top[j].isnull = 1;
			}
			gdb_tile_walk<TILE>(prog, ninstr, top, resume, status, row, deep, hdr, base);
#pragma unroll
			for (int j = 0; j < TILE; j++)
			{
				if (row[j] >= nrows)
					continue;
				if (live[j] && status[j] != GDB_OK)
				{
					gdb_error_min(err_key, (unsigned long long) (row[j] << GDB_STATUS_BITS) | (unsigned) status[j]);
					live[j] = false;
				}
				a.vals[e][row[j]] = live[j] && !top[j].isnull ? top[j].v.i : 0;
				a.nulls[e][row[j]] = !live[j] || top[j].isnull;
			}
		}
	}
}

/*
 * gdb_predicate_kernel: flags[row] = 1 when row passes every term of p,
 * for rows [0, nrows); GDB_VM_TILE grid-stride rows per thread, their
 * loads issued together.
 */
__global__ void __launch_bounds__(GDB_BLOCK)
gdb_predicate_kernel(GdbPredicate p, uint64_t nrows, uint8_t *flags)
{
	const uint64_t stride = (uint64_t) gridDim.x * blockDim.x;

	for (uint64_t row = blockIdx.x * (uint64_t) blockDim.x + threadIdx.x;
		 row < nrows; row += GDB_VM_TILE * stride)
	{
		bool		pass[GDB_VM_TILE];

#pragma unroll
		for (int j = 0; j < GDB_VM_TILE; j++)
			pass[j] = row + j * stride < nrows;
		for (int t = 0; t < p.nterms; t++)
		{
			const GdbPredTerm &term = p.t[t];
			int64_t		v[GDB_VM_TILE];
			uint8_t		isnull[GDB_VM_TILE];

#pragma unroll
			for (int j = 0; j < GDB_VM_TILE; j++)
			{
				uint64_t	r = row + j * stride;

				v[j] = pass[j] ? term.vals[r] : 0;
				isnull[j] = pass[j] && term.nulls ? term.nulls[r] : 0;
			}
#pragma unroll
			for (int j = 0; j < GDB_VM_TILE; j++)
				pass[j] = pass[j] && gdb_pred_term_pass(term, v[j], isnull[j] != 0);
		}
#pragma unroll
		for (int j = 0; j < GDB_VM_TILE; j++)
			if (row + j * stride < nrows)
				flags[row + j * stride] = pass[j];
	}
}

/*
 * One comparison term at prog[*pc]: PUSH_COL c [PUSH_INT m INT_MOD], then
 * PUSH_INT k with an INT_ comparison (c an INT64 column) or PUSH_FLOAT k
 * with an FLT_ comparison (c FLOAT64), into *t; advances *pc.  Returns 0
 * when the instructions are not such a term.
 */
static int
gdb_predicate_term(const GdbInstr *prog, int ninstr, int *pc, const GdbBatch *hdr,
				   const char *d_in, GdbPredTerm *t)
{
	int			i = *pc;
	int			col;
	int			is_float;
	int			rel;
	unsigned long long c;

	if (i + 2 >= ninstr || prog[i].op != GDB_OP_PUSH_COL)
		return 0;
	col = prog[i].arg;
	if (col < 0 || (uint32_t) col >= hdr->ncols || hdr->cols[col].kind == GDB_KIND_STATE)
		return 0;
	is_float = hdr->cols[col].kind == GDB_KIND_FLOAT64;
	memset(t, 0, sizeof(*t));
	t->vals = (const int64_t *) (d_in + hdr->cols[col].values_off);
	t->nulls = hdr->cols[col].has_nulls ? (const uint8_t *) (d_in + hdr->cols[col].nulls_off) : NULL;
	t->is_float = is_float;
	i++;
	if (!is_float && i + 3 < ninstr && prog[i].op == GDB_OP_PUSH_INT &&
		prog[i + 1].op == GDB_OP_INT_MOD)
	{
		if (prog[i].ival == 0)
			return 0;			/* division by zero: the interpreter raises it */
		t->modulus = prog[i].ival;
		i += 2;
	}
	if (i + 1 >= ninstr)
		return 0;
	if (!is_float && prog[i].op == GDB_OP_PUSH_INT &&
		prog[i + 1].op >= GDB_OP_INT_EQ && prog[i + 1].op <= GDB_OP_INT_GE)
	{
		c = gdb_key_encode_int(prog[i].ival);
		rel = prog[i + 1].op - GDB_OP_INT_EQ;
	}
	else if (is_float && prog[i].op == GDB_OP_PUSH_FLOAT &&
			 prog[i + 1].op >= GDB_OP_FLT_EQ && prog[i + 1].op <= GDB_OP_FLT_GE)
	{
		c = gdb_key_encode_float(prog[i].fval);
		rel = prog[i + 1].op - GDB_OP_FLT_EQ;
	}
	else
		return 0;
	/* rel: 0 EQ, 1 NE, 2 LT, 3 LE, 4 GT, 5 GE; an empty range is lo > hi */
	t->lo = 0;
	t->hi = ~0ULL;
	switch (rel)
	{
		case 0:
		case 1:
			t->lo = t->hi = c;
			t->negate = rel == 1;
			break;
		case 2:
			if (c == 0)
				t->lo = 1, t->hi = 0;
			else
				t->hi = c - 1;
			break;
		case 3:
			t->hi = c;
			break;
		case 4:
			if (c == ~0ULL)
				t->lo = 1, t->hi = 0;
			else
				t->lo = c + 1;
			break;
		default:
			t->lo = c;
			break;
	}
	*pc = i + 2;
	return 1;
}

/*
 * gdb_predicate_compile (declared in predicate.cuh): 1 when the ninstr
 * validated instructions at prog are a conjunction of comparison terms
 * (gdb_predicate_term), joined by AND with any IS_TRUE and JUMP_IF_FALSE
 * between them, at most GDB_PRED_MAX_TERMS of them after merging the
 * non-negated range tests of one column; then *p holds them, with device
 * addresses in the batch at d_in whose host header is hdr.  Such a program is TRUE exactly when
 * every term is: no term raises, AND is TRUE only when both sides are,
 * IS_TRUE keeps TRUE, and a row that jumps on FALSE ends FALSE.
 */
int
gdb_predicate_compile(const GdbInstr *prog, int ninstr, const GdbBatch *hdr,
					  const char *d_in, GdbPredicate *p)
{
	int			pc = 0;
	int			depth = 0;

	p->nterms = 0;
	while (pc < ninstr)
	{
		int			op = prog[pc].op;

		if (op == GDB_OP_PUSH_COL)
		{
			GdbPredTerm t;
			int			merged = 0;

			if (depth >= 2 || !gdb_predicate_term(prog, ninstr, &pc, hdr, d_in, &t))
				return 0;
			depth++;
			for (int k = 0; k < p->nterms && !t.negate && !t.modulus; k++)
			{
				GdbPredTerm *o = &p->t[k];

				if (o->vals == t.vals && !o->negate && !o->modulus)
				{
					o->lo = t.lo > o->lo ? t.lo : o->lo;
					o->hi = t.hi < o->hi ? t.hi : o->hi;
					merged = 1;
					break;
				}
			}
			if (!merged)
			{
				if (p->nterms >= GDB_PRED_MAX_TERMS)
					return 0;
				p->t[p->nterms++] = t;
			}
			continue;
		}
		if (op == GDB_OP_AND)
		{
			if (depth != 2)
				return 0;
			depth--;
		}
		else if (op != GDB_OP_IS_TRUE && op != GDB_OP_JUMP_IF_FALSE)
			return 0;
		pc++;
	}
	return depth == 1 && p->nterms > 0;
}

/*
 * Entries below the top that program prog (ninstr validated instructions)
 * ever holds: its maximum depth minus one.  The depth at an instruction is
 * the same on every path, so the linear running sum of the stack effects
 * is that depth.
 */
static int
gdb_program_deep_entries(const GdbInstr *prog, int ninstr)
{
	int			depth = 0,
				most = 0;

	for (int pc = 0; pc < ninstr; pc++)
	{
		depth += gdb_vm_effect(prog[pc].op);
		most = depth > most ? depth : most;
	}
	return most > 0 ? most - 1 : 0;
}

/* Dynamic shared memory of gdb_filter_kernel<tile> (bytes). */
static size_t
gdb_filter_smem(int ninstr, int deep_entries, int tile)
{
	return sizeof(GdbBatch) + (size_t) ninstr * sizeof(GdbInstr) +
		(size_t) deep_entries * tile * GDB_VM_BLOCK * sizeof(GdbValue);
}

/* Blocks for tiles of span rows over nrows, at most per_sm per SM. */
static unsigned
gdb_tile_grid(const GdbCudaExec *ex, uint64_t nrows, uint64_t span, uint64_t per_sm)
{
	uint64_t	want = (nrows + span - 1) / span;
	uint64_t	cap = (uint64_t) (ex->multiprocessors > 0 ? ex->multiprocessors : 1) * per_sm;

	return (unsigned) (want < 1 ? 1 : (want > cap ? cap : want));
}

/*
 * Launch gdb_filter_kernel<TILE> with smem bytes over nrows rows (with ids:
 * over the *nids rows listed, at most nrows, from instruction pc0).
 */
template <int TILE>
static int
gdb_filter_launch_tile(GdbCudaExec *ex, const char *d_in, const GdbInstr *d_prog,
					   int ninstr, uint64_t nrows, uint8_t *flags,
					   unsigned long long *err_key, size_t smem, GdbError *err,
					   const uint32_t *ids = NULL, const unsigned long long *nids = NULL,
					   int pc0 = 0)
{
	unsigned	grid = gdb_tile_grid(ex, nrows, (uint64_t) TILE * GDB_VM_BLOCK, 16);

	if (smem > 48 * 1024)
		GDB_CUDA_CHECK(err, cudaFuncSetAttribute(gdb_filter_kernel<TILE>,
												 cudaFuncAttributeMaxDynamicSharedMemorySize,
												 (int) smem));
	gdb_filter_kernel<TILE><<<grid, GDB_VM_BLOCK, smem, ex->stream>>>(
		d_in, d_prog, ninstr, nrows, flags, err_key, ids, nids, pc0);
	GDB_CUDA_CHECK_LAUNCH(err, "gdb_filter_kernel");
	return GDB_OK;
}

/*
 * gdb_predicate_prefix: the instruction after the program's leading
 * top-level conjuncts that are comparison terms (gdb_predicate_term), as
 * compile_chain lays a WHERE out:
 *	 t1 IS_TRUE JUMP_IF_FALSE end, t2 IS_TRUE AND JUMP_IF_FALSE end, ...
 * (end = ninstr), with those terms in *p; 0 when the program does not
 * start so, when the terms are all of it (the whole predicate fast path
 * takes it), or when they do not fit one GdbPredicate.  The stack there
 * holds one entry, TRUE for every row still walking.
 */
static int
gdb_predicate_prefix(const GdbInstr *prog, int ninstr, const GdbBatch *hdr,
					 const char *d_in, GdbPredicate *p)
{
	int			pc = 0;
	int			split = 0;

	p->nterms = 0;
	while (pc < ninstr && p->nterms < GDB_PRED_MAX_TERMS)
	{
		GdbPredTerm t;
		int			i = pc;

		if (!gdb_predicate_term(prog, ninstr, &i, hdr, d_in, &t))
			break;
		if (i >= ninstr || prog[i].op != GDB_OP_IS_TRUE)
			break;
		i++;
		if (split > 0)
		{
			if (i >= ninstr || prog[i].op != GDB_OP_AND)
				break;
			i++;
		}
		if (i >= ninstr || prog[i].op != GDB_OP_JUMP_IF_FALSE || prog[i].arg != ninstr)
			break;
		p->t[p->nterms++] = t;
		split = pc = i + 1;
	}
	return split < ninstr ? split : 0;
}

/*
 * gdb_filter_launch: see cuda_exec.cuh.  The predicate fast path when the
 * program is a conjunction of comparisons (and GPUDB_FAST_PATHS is not 0);
 * else the tile interpreter, GDB_VM_TILE rows per thread when
 * their shared stack fits GDB_VM_SMEM_MAX, else one row per thread (a
 * program of GDB_MAX_INSTR instructions and a GDB_MAX_STACK-deep stack
 * needs about 90 KiB then, within every supported device's limit).
 */
int
gdb_filter_launch(GdbCudaExec *ex, const GdbBatch *hdr, const char *d_in,
				  const GdbInstr *prog, const GdbInstr *d_prog, int ninstr,
				  uint64_t nrows, uint8_t *flags, unsigned long long *err_key,
				  GdbError *err)
{
	int			deep = gdb_program_deep_entries(prog, ninstr);
	size_t		smem = gdb_filter_smem(ninstr, deep, GDB_VM_TILE);
	unsigned	pgrid = gdb_tile_grid(ex, nrows, (uint64_t) GDB_VM_TILE * GDB_BLOCK, 8);
	GdbPredicate pred;
	uint32_t   *ids = NULL;		/* the rows the interpreter walks, or all */
	unsigned long long *d_nids = NULL;
	int			split = 0;		/* the instruction it starts from */

	if (gdb_fast_paths_enabled())
	{
		/*
		 * a conjunction of comparisons: the predicate fast path alone; the
		 * comparisons that lead the WHERE: they first, then the interpreter
		 * over the ids of the rows they pass (see the file header)
		 */
		if (gdb_predicate_compile(prog, ninstr, hdr, d_in, &pred))
			split = ninstr;
		else if (nrows >= GDB_VM_PREFIX_MIN_ROWS && nrows < (uint64_t) INT32_MAX)
			split = gdb_predicate_prefix(prog, ninstr, hdr, d_in, &pred);
		if (split > 0 && split < ninstr)
		{
			void	   *surv;

			GDB_TRY(gdb_cuda_scratch(ex, GDB_SCR_SURVIVORS,
									 sizeof(unsigned long long) + nrows * sizeof(uint32_t),
									 &surv, err));
			d_nids = (unsigned long long *) surv;
			ids = (uint32_t *) (d_nids + 1);
		}
		if (split > 0)
		{
			gdb_predicate_kernel<<<pgrid, GDB_BLOCK, 0, ex->stream>>>(pred, nrows, flags);
			GDB_CUDA_CHECK_LAUNCH(err, "gdb_predicate_kernel");
		}
		if (split == ninstr)
			return GDB_OK;
		if (split > 0)
			GDB_TRY(gdb_cub(ex, "cub::DeviceSelect::Flagged", [&](void *t, size_t &b) {
				return cub::DeviceSelect::Flagged(t, b, thrust::counting_iterator<uint32_t>(0),
												  flags, ids, d_nids, (int64_t) nrows,
												  ex->stream);
			}, err));
	}

	if (smem <= GDB_VM_SMEM_MAX)
		return gdb_filter_launch_tile<GDB_VM_TILE>(ex, d_in, d_prog, ninstr, nrows,
												   flags, err_key, smem, err, ids,
												   d_nids, split);
	return gdb_filter_launch_tile<1>(ex, d_in, d_prog, ninstr, nrows, flags, err_key,
									 gdb_filter_smem(ninstr, deep, 1), err, ids,
									 d_nids, split);
}

/* Launch gdb_values_kernel<TILE> with smem bytes over nrows rows. */
template <int TILE>
static int
gdb_values_launch_tile(GdbCudaExec *ex, const char *d_in, const GdbInstr *d_eprog,
					   int neinstr, const GdbValuesArgs *a, uint64_t nrows,
					   unsigned long long *err_key, size_t smem, GdbError *err)
{
	unsigned	grid = gdb_tile_grid(ex, nrows, (uint64_t) TILE * GDB_VM_BLOCK, 16);

	if (smem > 48 * 1024)
		GDB_CUDA_CHECK(err, cudaFuncSetAttribute(gdb_values_kernel<TILE>,
												 cudaFuncAttributeMaxDynamicSharedMemorySize,
												 (int) smem));
	gdb_values_kernel<TILE><<<grid, GDB_VM_BLOCK, smem, ex->stream>>>(
		d_in, d_eprog, neinstr, *a, nrows, err_key);
	GDB_CUDA_CHECK_LAUNCH(err, "gdb_values_kernel");
	return GDB_OK;
}

/*
 * gdb_values_launch: see cuda_exec.cuh.  The tile interpreter
 * (gdb_values_kernel) with GDB_VM_TILE rows per thread when the shared
 * stack of the deepest program fits GDB_VM_SMEM_MAX, else one.
 */
int
gdb_values_launch(GdbCudaExec *ex, const char *d_in, const GdbInstr *eprog,
				  const GdbInstr *d_eprog, int neinstr, const GdbValuesArgs *a,
				  uint64_t nrows, unsigned long long *err_key, GdbError *err)
{
	int			deep = 0;
	size_t		smem;

	if (nrows == 0 || a->nexprs == 0)
		return GDB_OK;
	for (uint32_t e = 0; e < a->nexprs; e++)
	{
		int			d = gdb_program_deep_entries(eprog + a->start[e], (int) a->len[e]);

		deep = d > deep ? d : deep;
	}
	smem = gdb_filter_smem(neinstr, deep, GDB_VM_TILE);
	if (smem <= GDB_VM_SMEM_MAX)
		return gdb_values_launch_tile<GDB_VM_TILE>(ex, d_in, d_eprog, neinstr, a, nrows,
												   err_key, smem, err);
	return gdb_values_launch_tile<1>(ex, d_in, d_eprog, neinstr, a, nrows, err_key,
									 gdb_filter_smem(neinstr, deep, 1), err);
}
