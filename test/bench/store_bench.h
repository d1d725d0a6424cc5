/*-------------------------------------------------------------------------
 *
 * store_bench.h
 *	  What the column-store benchmarks (kernel_bw.c, q1_phases.c) share:
 *	  the result allocator gdb_cuda_store_execute takes and the comparison
 *	  that sorts timings for their medians.  Header-only (static).
 *
 *-------------------------------------------------------------------------
 */
#ifndef GPUDB_STORE_BENCH_H
#define GPUDB_STORE_BENCH_H

#include <stdlib.h>

/* GdbAllocFn: a result batch of bytes (at least 1) from malloc. */
static void *
bench_alloc(void *arg, size_t bytes)
{
	(void) arg;
	return malloc(bytes ? bytes : 1);
}

/* qsort order of doubles, ascending. */
static int
cmp_double(const void *a, const void *b)
{
	double		x = *(const double *) a,
				y = *(const double *) b;

	return x < y ? -1 : x > y;
}

#endif							/* GPUDB_STORE_BENCH_H */
