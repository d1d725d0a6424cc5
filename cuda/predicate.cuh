/*-------------------------------------------------------------------------
 *
 * predicate.cuh
 *	  The predicate fast path's form of a filter: a conjunction of
 *	  column-versus-constant comparisons as range tests on the
 *	  order-preserving key encodings of gpudb_semantics.h (filter_vm.cu
 *	  compiles it from a filter program, see its header), and the row test
 *	  that gdb_predicate_kernel (filter_vm.cu) and the fused no-keys
 *	  aggregation (groupby_fastpath.cu) both run.
 *
 *-------------------------------------------------------------------------
 */
#ifndef GPUDB_PREDICATE_CUH
#define GPUDB_PREDICATE_CUH

#include "cuda_exec.cuh"
#include "gpudb_semantics.h"

/* Comparisons in a predicate of the fast path. */
#define GDB_PRED_MAX_TERMS 8

/*
 * One comparison of the predicate fast path: row passes when column col's
 * value (taken modulo modulus first when modulus != 0) is not NULL and its
 * encoding enc lies in [lo, hi] (outside it when negate: the <> test).
 */
struct GdbPredTerm
{
	const int64_t *vals;		/* device address of the column's values */
	const uint8_t *nulls;		/* its NULL flags, or NULL */
	int64_t		modulus;		/* 0: none; else value % modulus (-1: 0) */
	unsigned long long lo;
	unsigned long long hi;
	int			is_float;		/* encode as FLOAT64, else INT64 */
	int			negate;
};

/* A conjunction of comparisons (gdb_predicate_compile). */
struct GdbPredicate
{
	int			nterms;
	GdbPredTerm t[GDB_PRED_MAX_TERMS];
};

/*
 * gdb_predicate_compile (filter_vm.cu): 1 when the ninstr validated
 * instructions at prog are a conjunction of comparison terms over the
 * batch whose header is hdr and device buffer d_in, filled into *p; else
 * 0 (the program needs the interpreter).  Never raises.
 */
int			gdb_predicate_compile(const GdbInstr *prog, int ninstr, const GdbBatch *hdr,
								  const char *d_in, GdbPredicate *p);

/*
 * gdb_predicate_tile: pass[j] = whether row row + j * stride (< nrows)
 * passes every term of p, for j in [0, TILE); the loads of a term's TILE
 * rows are issued together.
 */
template <int TILE>
__device__ __forceinline__ void
gdb_predicate_tile(const GdbPredicate &p, uint64_t row, uint64_t stride,
				   uint64_t nrows, bool pass[TILE])
{
#pragma unroll
	for (int j = 0; j < TILE; j++)
		pass[j] = row + j * stride < nrows;
	for (int t = 0; t < p.nterms; t++)
	{
		const GdbPredTerm &term = p.t[t];
		int64_t		v[TILE];
		uint8_t		isnull[TILE];

#pragma unroll
		for (int j = 0; j < TILE; j++)
		{
			uint64_t	r = row + j * stride;

			v[j] = pass[j] ? term.vals[r] : 0;
			isnull[j] = pass[j] && term.nulls ? term.nulls[r] : 0;
		}
#pragma unroll
		for (int j = 0; j < TILE; j++)
		{
			int64_t		x = v[j];
			unsigned long long e;

			if (term.modulus != 0)
				x = term.modulus == -1 ? 0 : x % term.modulus;
			e = term.is_float ? gdb_key_encode_float(__longlong_as_double(x)) :
				gdb_key_encode_int(x);
			pass[j] = pass[j] && !isnull[j] &&
				((term.lo <= e && e <= term.hi) != (term.negate != 0));
		}
	}
}

#endif							/* GPUDB_PREDICATE_CUH */
