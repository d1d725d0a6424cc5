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
 *-------------------------------------------------------------------------
 */
#include <limits.h>
#include <stdio.h>

#include "cuda_exec.cuh"
#include "gpudb_semantics.h"

/* Rows per thread of the tile interpreter, and its block size. */
#define GDB_VM_TILE		4
#define GDB_VM_BLOCK	128

/* Shared memory the tile interpreter may ask for per block (bytes). */
#define GDB_VM_SMEM_MAX (96 * 1024)

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
#pragma unroll
	for (int j = 0; j < TILE; j++)
	{
		int			st = GDB_OK;

		if (pc < resume[j])
			continue;
		if (OP == GDB_OP_JUMP_IF_FALSE || OP == GDB_OP_JUMP_IF_TRUE)
		{
			if (gdb_vm_jumps(OP, &top[j]))
				resume[j] = in->arg;
			continue;
		}
		if (EFFECT > 0)
		{
			GdbValue	v;

			if (sp > 0)
				GDB_VM_DEEP(deep, sp - 1, j, TILE) = top[j];
			st = gdb_vm_step(OP, in, &v, &top[j], &top[j], hdr, base, row[j]);
			top[j] = v;
		}
		else if (EFFECT == 0)
			st = gdb_vm_step(OP, in, &top[j], &top[j], &top[j], hdr, base, row[j]);
		else
		{
			GdbValue	y = GDB_VM_DEEP(deep, sp - 2, j, TILE);

			st = gdb_vm_step(OP, in, &y, &top[j], &y, hdr, base, row[j]);
			top[j] = y;
		}
		if (st != GDB_OK)
		{
			status[j] = st;
			resume[j] = INT_MAX;
		}
	}
}

/*
 * gdb_filter_kernel: flags[row] = 1 when the filter program (ninstr
 * instructions at prog, whose stack holds at most deep_entries + 1
 * entries) is TRUE for row, for rows [0, nrows) of the batch at base;
 * TILE rows per thread, grid-stride over tiles of TILE * blockDim rows.
 * Dynamic shared memory: the batch header, the program, then
 * deep_entries * TILE * blockDim GdbValues (gdb_filter_smem).  A row that
 * raises gets flag 0 and does atomicMin(err_key, row << 4 | status).
 */
template <int TILE>
__global__ void __launch_bounds__(GDB_VM_BLOCK)
gdb_filter_kernel(const char *base, const GdbInstr *prog, int ninstr,
				  uint64_t nrows, uint8_t *flags, unsigned long long *err_key)
{
	extern __shared__ unsigned long long gdb_vm_smem[];
	GdbBatch   *hdr = (GdbBatch *) gdb_vm_smem;
	GdbInstr   *sprog = (GdbInstr *) ((char *) gdb_vm_smem + sizeof(GdbBatch));
	GdbValue   *deep = (GdbValue *) (sprog + ninstr);
	const unsigned long long *src_hdr = (const unsigned long long *) base;
	const unsigned long long *src_prog = (const unsigned long long *) prog;
	unsigned long long *dst_prog = (unsigned long long *) sprog;
	const uint64_t span = (uint64_t) TILE * blockDim.x;

	for (size_t i = threadIdx.x; i < sizeof(GdbBatch) / 8; i += blockDim.x)
		gdb_vm_smem[i] = src_hdr[i];
	for (size_t i = threadIdx.x; i < (size_t) ninstr * sizeof(GdbInstr) / 8; i += blockDim.x)
		dst_prog[i] = src_prog[i];
	__syncthreads();

	for (uint64_t first = blockIdx.x * span; first < nrows;
		 first += (uint64_t) gridDim.x * span)
	{
		GdbValue	top[TILE];
		int			resume[TILE];	/* first pc at which row j takes part */
		int			status[TILE];
		uint64_t	row[TILE];
		int			sp = 0;

#pragma unroll
		for (int j = 0; j < TILE; j++)
		{
			row[j] = first + (uint64_t) j * blockDim.x + threadIdx.x;
			resume[j] = row[j] < nrows ? 0 : INT_MAX;
			status[j] = GDB_OK;
			top[j].v.i = 0;
			top[j].isnull = 1;
		}
		for (int pc = 0; pc < ninstr; pc++)
		{
			const GdbInstr *in = &sprog[pc];

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
#pragma unroll
		for (int j = 0; j < TILE; j++)
		{
			if (row[j] >= nrows)
				continue;
			if (status[j] != GDB_OK)
			{
				atomicMin(err_key, (unsigned long long) (row[j] << 4) | (unsigned) status[j]);
				flags[row[j]] = 0;
			}
			else
				flags[row[j]] = gdb_vm_result(&top[j]) == GDB_TRUE;
		}
	}
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

/* Launch gdb_filter_kernel<TILE> with smem bytes over nrows rows. */
template <int TILE>
static int
gdb_filter_launch_tile(GdbCudaExec *ex, const char *d_in, const GdbInstr *d_prog,
					   int ninstr, uint64_t nrows, uint8_t *flags,
					   unsigned long long *err_key, size_t smem, GdbError *err)
{
	uint64_t	span = (uint64_t) TILE * GDB_VM_BLOCK;
	uint64_t	want = (nrows + span - 1) / span;
	uint64_t	cap = (uint64_t) (ex->multiprocessors > 0 ? ex->multiprocessors : 1) * 16;
	unsigned	grid = (unsigned) (want < 1 ? 1 : (want > cap ? cap : want));

	if (smem > 48 * 1024)
		GDB_CUDA_CHECK(err, cudaFuncSetAttribute(gdb_filter_kernel<TILE>,
												 cudaFuncAttributeMaxDynamicSharedMemorySize,
												 (int) smem));
	gdb_filter_kernel<TILE><<<grid, GDB_VM_BLOCK, smem, ex->stream>>>(
		d_in, d_prog, ninstr, nrows, flags, err_key);
	GDB_CUDA_CHECK_LAUNCH(err, "gdb_filter_kernel");
	return GDB_OK;
}

/*
 * gdb_filter_launch: see cuda_exec.cuh.  GDB_VM_TILE rows per thread when
 * their shared stack fits GDB_VM_SMEM_MAX, else one row per thread (a
 * program of GDB_MAX_INSTR instructions and a GDB_MAX_STACK-deep stack
 * needs about 90 KiB then, within every supported device's limit).
 */
int
gdb_filter_launch(GdbCudaExec *ex, const char *d_in, const GdbInstr *prog,
				  const GdbInstr *d_prog, int ninstr, uint64_t nrows,
				  uint8_t *flags, unsigned long long *err_key, GdbError *err)
{
	int			deep = gdb_program_deep_entries(prog, ninstr);
	size_t		smem = gdb_filter_smem(ninstr, deep, GDB_VM_TILE);

	if (smem <= GDB_VM_SMEM_MAX)
		return gdb_filter_launch_tile<GDB_VM_TILE>(ex, d_in, d_prog, ninstr, nrows,
												   flags, err_key, smem, err);
	return gdb_filter_launch_tile<1>(ex, d_in, d_prog, ninstr, nrows, flags, err_key,
									 gdb_filter_smem(ninstr, deep, 1), err);
}
