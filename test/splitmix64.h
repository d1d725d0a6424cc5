/*
 * test/splitmix64.h
 *	  splitmix64 (Steele, Lea and Flood, "Fast splittable pseudorandom number
 *	  generators", OOPSLA 2014): a 64-bit hash of a counter, the random data
 *	  of the device self-test's timings and of test/bench/kernel_bw, which
 *	  build the same table from it.  Plain C, header only.
 */
#ifndef GDB_TEST_SPLITMIX64_H
#define GDB_TEST_SPLITMIX64_H

#include <stdint.h>

/* splitmix64 of x: a well-mixed 64-bit value; the same x, the same value. */
static inline uint64_t
mix64(uint64_t x)
{
	uint64_t	z = x + 0x9e3779b97f4a7c15ULL;

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
	return z ^ (z >> 31);
}

#endif							/* GDB_TEST_SPLITMIX64_H */
