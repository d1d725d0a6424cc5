/*-------------------------------------------------------------------------
 *
 * fast_acc.cuh
 *	  The register accumulators of the group-by fast paths, shared by
 *	  groupby_fastpath.cu (the no-keys and small-key-domain passes) and
 *	  fused_filter_agg.cu (the no-keys pass with the filter fused in), so
 *	  that every pass folds rows with the same code.  No PostgreSQL header.
 *
 * GdbAcc is the accumulator of one aggregate (32 bytes, 4 words):
 *	 count		non-NULL inputs (COUNT_STAR: rows)
 *	 w0			SUM_INT low 64 bits; MIN/MAX_INT the extreme; SUM_FLOAT the
 *				number of infinite inputs; MIN/MAX_FLOAT the extreme's
 *				gdb_fenc encoding
 *	 w1			SUM_INT high 64 bits (the sum is exact in 128 bits: each
 *				addition carries out of w0 and adds the sign extension)
 *	 f			SUM_FLOAT sum, starting at -0.0 (the exact additive identity)
 * gdb_acc_state turns it into the GdbAggState that gdb_state_combine
 * (gpudb_semantics.h) would have produced from the same rows (the identity
 * when count == 0), NULL inputs skipped.
 *
 *-------------------------------------------------------------------------
 */
#ifndef GPUDB_FAST_ACC_CUH
#define GPUDB_FAST_ACC_CUH

#include "cuda_exec.cuh"
#include "gpudb_semantics.h"

#define GDB_SIGN 0x8000000000000000ULL

typedef struct GdbAcc
{
	unsigned long long count;
	unsigned long long w0;
	unsigned long long w1;
	double		f;
} GdbAcc;

static_assert(sizeof(GdbAcc) == 32, "GdbAcc is 4 words");

/* The shared state combine as a CUB reduction operator. */
struct GdbFastCombine
{
	int			kind;

	__host__ __device__ GdbAggState
	operator()(const GdbAggState &a, const GdbAggState &b) const
	{
		return gdb_state_combine(kind, a, b);
	}
};

/* ---- float order encoding ---- */

/*
 * gdb_fenc: a uint64 whose unsigned order is the order in which
 * gdb_state_combine picks float min/max: gdb_float_cmp first (NaN above
 * everything), ties broken by gdb_float_total_cmp (-0 < +0, -NaN < +NaN,
 * payloads).  A bijection on bit patterns: the IEEE total-order key t,
 * shifted so that -NaNs (t in [0, 2^52 - 2]) move from below -Inf to just
 * above +Inf, under the +NaNs.
 */
__device__ __forceinline__ unsigned long long
gdb_fenc(double d)
{
	unsigned long long u = (unsigned long long) __double_as_longlong(d);
	unsigned long long t = (u & GDB_SIGN) ? ~u : (u | GDB_SIGN);

	if (isnan(d))
		return (u & GDB_SIGN) ? t + 0xffe0000000000002ULL : t;
	return t - 0x000fffffffffffffULL;
}

__device__ __forceinline__ double
gdb_fdec(unsigned long long e)
{
	unsigned long long t,
				u;

	if (e <= 0xffe0000000000001ULL)
		t = e + 0x000fffffffffffffULL;
	else if (e <= 0xfff0000000000000ULL)
		t = e - 0xffe0000000000002ULL;
	else
		t = e;
	u = (t & GDB_SIGN) ? (t & ~GDB_SIGN) : ~t;
	return __longlong_as_double((long long) u);
}

/*
 * gdb_pick: the value of row u of column c among NC loaded columns x[NC][R]
 * (a thread's rows of a step): a select chain rather than x[c][u], so that
 * x stays in registers for any run-time c.
 */
template <int NC, int R, typename T>
__device__ __forceinline__ T
gdb_pick(const T (&x)[NC][R], int c, int u)
{
	T			v = x[0][u];

#pragma unroll
	for (int k = 1; k < NC; k++)
		if (c == k)
			v = x[k][u];
	return v;
}

/* ---- accumulators ---- */

__device__ __forceinline__ GdbAcc
gdb_acc_init(int kind)
{
	GdbAcc		a;

	a.count = 0;
	a.w0 = kind == GDB_AGG_MIN_INT ? (unsigned long long) INT64_MAX :
		kind == GDB_AGG_MAX_INT ? (unsigned long long) INT64_MIN :
		kind == GDB_AGG_MIN_FLOAT ? ~0ULL : 0ULL;
	a.w1 = 0;
	a.f = -0.0;
	return a;
}

/* Fold one row (raw value v, NULL flag) into a register accumulator. */
template <int K>
__device__ __forceinline__ void
gdb_acc_add(GdbAcc &a, int64_t v, int isnull)
{
	if (K == GDB_AGG_COUNT_STAR)
	{
		a.count++;
		return;
	}
	if (isnull)
		return;
	a.count++;
	if (K == GDB_AGG_SUM_INT)
	{
		unsigned long long lo = a.w0 + (unsigned long long) v;

		a.w1 += (unsigned long long) (lo < a.w0) + (v < 0 ? ~0ULL : 0ULL);
		a.w0 = lo;
	}
	else if (K == GDB_AGG_MIN_INT)
	{
		if (v < (int64_t) a.w0)
			a.w0 = (unsigned long long) v;
	}
	else if (K == GDB_AGG_MAX_INT)
	{
		if (v > (int64_t) a.w0)
			a.w0 = (unsigned long long) v;
	}
	else if (K == GDB_AGG_SUM_FLOAT)
	{
		double		d = __longlong_as_double((long long) v);

		a.f += d;
		a.w0 += isinf(d) ? 1 : 0;
	}
	else if (K == GDB_AGG_MIN_FLOAT || K == GDB_AGG_MAX_FLOAT)
	{
		unsigned long long e = gdb_fenc(__longlong_as_double((long long) v));

		if (K == GDB_AGG_MIN_FLOAT ? e < a.w0 : e > a.w0)
			a.w0 = e;
	}
}

/* The GdbAggState that gdb_state_combine makes of the same inputs. */
__device__ __forceinline__ GdbAggState
gdb_acc_state(int kind, const GdbAcc &a)
{
	GdbAggState s = gdb_state_identity(kind);

	if (a.count == 0)
		return s;
	s.count = (int64_t) a.count;
	switch (kind)
	{
		case GDB_AGG_SUM_INT:
			s.i0 = (int64_t) a.w0;
			s.i1 = (int64_t) a.w1;
			break;
		case GDB_AGG_MIN_INT:
		case GDB_AGG_MAX_INT:
			s.i0 = (int64_t) a.w0;
			break;
		case GDB_AGG_SUM_FLOAT:
			s.i0 = (int64_t) a.w0;
			s.f = a.f;
			break;
		case GDB_AGG_MIN_FLOAT:
		case GDB_AGG_MAX_FLOAT:
			s.f = gdb_fdec(a.w0);
			break;
		default:
			break;
	}
	return s;
}

#endif							/* GPUDB_FAST_ACC_CUH */
