/*-------------------------------------------------------------------------
 *
 * predicate.cuh
 *	  The predicate fast path's form of a filter: a conjunction of
 *	  column-versus-constant comparisons, each a range test on the
 *	  order-preserving key encodings of gpudb_semantics.h.  filter_vm.cu
 *	  compiles it from a filter program (gdb_predicate_compile; see that
 *	  file's header for why such a program never raises and is TRUE exactly
 *	  when every comparison is) and tests it in gdb_predicate_kernel;
 *	  fused_filter_agg.cu tests it inside the no-keys aggregation pass.
 *	  Both test a value with gdb_pred_term_pass.  No PostgreSQL header.
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
 * gdb_pred_term_pass: whether a row whose value in term t's column is x
 * (the raw 64-bit word: an int64, or a float8's bits when t.is_float) and
 * whose NULL flag is isnull passes t.  A NULL never passes (the
 * comparison is NULL, which a conjunction under a WHERE rejects).  The
 * modulus -1 gives 0 for every x (INT64_MIN % -1 would trap).
 */
__device__ __forceinline__ bool
gdb_pred_term_pass(const GdbPredTerm &t, int64_t x, bool isnull)
{
	unsigned long long e;

	if (t.modulus != 0)
		x = t.modulus == -1 ? 0 : x % t.modulus;
	e = t.is_float ? gdb_key_encode_float(__longlong_as_double(x)) : gdb_key_encode_int(x);
	return !isnull && ((t.lo <= e && e <= t.hi) != (t.negate != 0));
}

/*
 * gdb_predicate_compile (filter_vm.cu): 1 when the ninstr validated
 * instructions at prog are a conjunction of at most GDB_PRED_MAX_TERMS
 * comparison terms (after merging the non-negated range tests of one
 * column) over the batch whose host header is hdr and device buffer d_in;
 * then *p holds them, with device addresses into d_in.  Else 0 (the
 * program needs the interpreter).  Never raises, touches no device memory.
 */
int			gdb_predicate_compile(const GdbInstr *prog, int ninstr, const GdbBatch *hdr,
								  const char *d_in, GdbPredicate *p);

#endif							/* GPUDB_PREDICATE_CUH */
