/*-------------------------------------------------------------------------
 *
 * cpu_hash_join.h
 *	  The join probe step on the CPU path (cpu_hash_join.c), shared by
 *	  cpu_path.c.  Plain C99 (no PostgreSQL header).
 *
 *-------------------------------------------------------------------------
 */
#ifndef GPUDB_CPU_HASH_JOIN_H
#define GPUDB_CPU_HASH_JOIN_H

#include "join_semantics.h"

/* cpu_path.c: see there */
extern int	gdb_cpu_validate_batch(const GdbBatch *batch, GdbError *err);

/*
 * gdb_cpu_validate_joins: check req's joins against shape (the input
 * batch's header as the validator builds it, stored columns set): at most
 * GDB_MAX_JOINS joins and GDB_MAX_JOIN_COLS payload columns, only in a
 * GROUPBY over values or a SELECT (a nested build side), a known type
 * and 1..GDB_MAX_JOIN_KEYS keys each, a qual only as an INT64 computed
 * column, payload columns numbered in join order,
 * each build side a valid batch (gdb_cpu_validate_batch) within the
 * njoin_bytes at join_data with INT64 keys then INT64 or FLOAT64 payload
 * columns and fewer than 2^32 - 1 rows, each probe key an INT64 stored
 * column or an earlier join's INT64 payload column; join_filter 0, or 1
 * with joins and an INT64 computed column 0.  Sets shape's slots
 * GDB_JOIN_COL(i) of the payload columns (kind, NULL flags; offsets 0)
 * and zeroes the others, so that the computed columns and the operator
 * may name them.  GDB_OK or GDB_ERR_BAD_REQUEST.
 */
extern int	gdb_cpu_validate_joins(const GdbRequest *req, GdbBatch *shape,
								   GdbError *err);

/*
 * gdb_cpu_join_build: the hash tables of req's validated joins into
 * sides[0 .. njoins) (GDB_MAX_JOINS entries; the slots malloc'd, freed by
 * gdb_cpu_join_free).  With req->join_id, the tables are kept for the
 * next request of that id, which gets them without building (the build
 * sides' addresses taken from its own join_data).  Returns GDB_OK,
 * GDB_ERR_OUT_OF_MEMORY, or
 * GDB_ERR_JOIN_DUPLICATE when an INNER or LEFT join's build side has two
 * rows with equal non-NULL keys; on error nothing stays allocated.
 */
extern int	gdb_cpu_join_build(const GdbRequest *req, GdbHashSide *sides,
							   GdbError *err);

/*
 * gdb_cpu_join_free: free the tables of sides (GDB_MAX_JOINS entries),
 * but those kept for the request's join_id (see gdb_cpu_join_build).
 */
extern void gdb_cpu_join_free(GdbHashSide *sides);

/*
 * gdb_cpu_join_cache_release: free the tables kept for join_id (0: for
 * any), if they are the ones this process keeps.
 */
extern void gdb_cpu_join_cache_release(uint64_t join_id);

#endif							/* GPUDB_CPU_HASH_JOIN_H */
