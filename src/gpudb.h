/*-------------------------------------------------------------------------
 *
 * gpudb.h
 *	  Declarations shared by the PostgreSQL-side files of gpudb (src/).
 *
 * Data path: heap (heap_batch.c) -> column batch (gpudb_device.h) ->
 * device or CPU path (device.c, cpu_path.c, cuda/) -> result batch ->
 * result tuples (groupby.c).  Filters are compiled by filter_compile.c into
 * the opcode program; group keys and aggregates are parsed by
 * groupby_parse.c; text values become integer codes in dictionary.c.
 *
 *-------------------------------------------------------------------------
 */
#ifndef GPUDB_H
#define GPUDB_H

#include "postgres.h"

#include "pg_compat.h"

#include "access/attnum.h"
#include "nodes/pg_list.h"
#include "nodes/primnodes.h"
#include "portability/instr_time.h"
#include "utils/relcache.h"
#include "utils/snapshot.h"

#include "gpudb_device.h"

/* ---- GUCs (gpudb.c); defaults are defined once, in gpudb_defaults.h ---- */

typedef enum GpudbDeviceMode
{
	GPUDB_DEVICE_AUTO,
	GPUDB_DEVICE_GPU,
	GPUDB_DEVICE_CPU
} GpudbDeviceMode;

extern bool gpudb_enabled;
extern int	gpudb_device_mode;
extern int	gpudb_batch_rows;
extern bool gpudb_use_cache;
extern int	gpudb_cache_size_kb;
extern int	gpudb_device_memory_limit_kb;
extern char *gpudb_devices;
extern int	gpudb_cache_shards;

/* Highest CUDA device ordinal gpudb.devices accepts. */
#define GDB_MAX_DEVICE_ORDINAL 63

/*
 * gdb_parse_devices: the ordinals of gpudb.devices' list (comma-separated
 * integers 0..GDB_MAX_DEVICE_ORDINAL, blanks allowed) into ordinals[],
 * at most max of them; returns how many (0 for an empty list), or -1 for
 * a malformed or too long list.  Raises nothing.
 */
extern int	gdb_parse_devices(const char *list, int *ordinals, int max);
extern bool gpudb_enable_gpuscan;
extern bool gpudb_enable_gpuagg;
extern bool gpudb_enable_gpusort;
extern bool gpudb_enable_gpujoin;
extern double gpudb_gpu_setup_cost;
extern double gpudb_gpu_tuple_cost;
extern double gpudb_gpu_transfer_cost;
extern bool gpudb_explain_hardware;
extern bool gpudb_debug_unsupported;
extern int	gpudb_parallel_workers;
extern int	gpudb_min_parallel_table_size;

/* custom_scan_path.c: register the planner hooks and the node methods */
extern void gdb_custom_scan_init(void);

/* true in processes forked from a postmaster that preloaded gpudb */
extern bool gpudb_preloaded;

/* ---- dictionary.c: text values to dense integer codes ---- */

typedef struct GdbDictionary GdbDictionary;

/*
 * gdb_dict_create: an empty dictionary in the current memory context.
 * Codes are dense, from 0, in order of first insertion.  One dictionary
 * serves every text column of a request, so codes of different columns
 * compare equal exactly when the strings are byte-equal (the equality of
 * every deterministic collation).
 */
extern GdbDictionary *gdb_dict_create(void);

/* gdb_dict_intern: code of the len bytes at data, added if new. */
extern int64 gdb_dict_intern(GdbDictionary *dict, const char *data, int len);

/* gdb_dict_lookup: code of the len bytes at data, or -1 if absent. */
extern int64 gdb_dict_lookup(GdbDictionary *dict, const char *data, int len);

/* gdb_dict_datum: the original text datum (a varlena) of code. */
extern Datum gdb_dict_datum(GdbDictionary *dict, int64 code);

/* gdb_dict_size: number of distinct strings. */
extern int64 gdb_dict_size(GdbDictionary *dict);

/*
 * gdb_dict_ranks: an array of gdb_dict_size(dict) ranks, indexed by code:
 * the position (0-based) of the code's string among all the dictionary's
 * strings in byte order (memcmp, a proper prefix before the longer
 * string), which is the order of PostgreSQL's C and POSIX collations.
 * Codes added later get ranks on the next call, which may change the ranks
 * of older codes (the array is valid until then and belongs to the
 * dictionary).  Algorithm: the new codes are sorted (qsort_arg) and
 * merged into the codes sorted by the previous call.  Raises only out of
 * memory.
 */
extern const int64 *gdb_dict_ranks(GdbDictionary *dict);

/* ---- text_tables.c: text operations evaluated once per string ---- */

/*
 * The words of code tables (GdbCodeTable, gpudb_device.h) evaluated so
 * far, by description (operation, constant, collation, encoding), for
 * one growing dictionary: a query's (or a parallel worker's), or a cached
 * relation's in the GPU server.  Lives in the memory context current at
 * creation.
 */
typedef struct GdbTableMemo GdbTableMemo;

/* gdb_table_memo_create: an empty memo in the current memory context. */
extern GdbTableMemo *gdb_table_memo_create(void);

/*
 * gdb_tables_bind: in a backend, bind req's code tables to dict, whose
 * strings are the data's (every code of the batch about to run is below
 * gdb_dict_size(dict)) and whose first strings are the request's text
 * constants (text_arg): evaluate each table's operation under its
 * collation for the strings memo has not seen yet, then set each table's
 * ncodes and word_off, req->ntable_words and req->table_words (words of
 * the memo, valid until its next bind).  Does nothing but clear the
 * words for a request without tables.  Raises only what PostgreSQL's
 * functions raise (out of memory; the compiler refuses the rest) and
 * elog(ERROR) for a request compiled in another database encoding.  The
 * text-valued functions add their results to dict.
 */
extern void gdb_tables_bind(GdbTableMemo *memo, GdbDictionary *dict,
							GdbRequest *req);

/*
 * gdb_tables_server_ok: can the GPU server, which has no catalog, bind
 * every code table of req (no ILIKE, lower or upper under a collation
 * whose LC_CTYPE is not C)?  Never raises.
 */
extern bool gdb_tables_server_ok(const GdbRequest *req);

/*
 * gdb_tables_bind_server: gdb_tables_bind in the GPU server, over a
 * cached relation's dictionary dict (NULL: no strings), the constants
 * being consts[0..nconsts) (the query's text constants, in PUSH_TEXT
 * numbering), each operation run under the C collation and the table's
 * encoding (see text_tables.c).  Returns false with a message in errbuf
 * instead of raising (a table the server cannot evaluate, a constant out
 * of range, an error of the evaluation).
 */
extern bool gdb_tables_bind_server(GdbTableMemo *memo, GdbDictionary *dict,
								   GdbRequest *req, const text *const *consts,
								   uint32 nconsts, char *errbuf, size_t errlen);

/* ---- heap_batch.c: the columns a request reads ---- */

/* How a column's PostgreSQL type maps to a batch column. */
typedef enum GdbTypeClass
{
	GDB_TYPE_UNSUPPORTED = 0,
	GDB_TYPE_INT,				/* int2, int4, int8 */
	GDB_TYPE_FLOAT,				/* float4, float8 */
	GDB_TYPE_BOOL,
	GDB_TYPE_DATETIME,			/* date, timestamp, timestamptz */
	GDB_TYPE_TEXT,				/* text, varchar: dictionary codes */
	GDB_TYPE_NUMERIC			/* numeric(p,s), p <= 18, s >= 0: fixed point
								 * (numeric_fixed.c); other typmods are not
								 * carried: see gdb_type_supported */
} GdbTypeClass;

/*
 * gdb_type_class: the class of type typid; GDB_TYPE_UNSUPPORTED for types
 * the batch cannot carry (they may still be counted: see nulls_only).
 * GDB_TYPE_NUMERIC depends on the typmod too: check gdb_type_supported.
 */
extern GdbTypeClass gdb_type_class(Oid typid);

/* ---- numeric_fixed.c: numeric(p,s) as int64 scaled by 10^s ---- */

/* The largest precision carried: |v * 10^s| < 10^18 fits an int64. */
#define GDB_NUMERIC_MAX_PRECISION 18

/*
 * Batch words of numeric(p,s) values that are not v * 10^s: NaN (above
 * every number, equal to itself, as PostgreSQL orders it).  In filter
 * programs only, constants beyond every column value: GDB_NUMERIC_ABOVE
 * (above every number, below NaN) and GDB_NUMERIC_BELOW.
 */
#define GDB_NUMERIC_NAN		PG_INT64_MAX
#define GDB_NUMERIC_ABOVE	(PG_INT64_MAX - 1)
#define GDB_NUMERIC_BELOW	PG_INT64_MIN

/*
 * gdb_numeric_typmod_scale: for a numeric typmod numeric(p,s) with
 * 1 <= p <= GDB_NUMERIC_MAX_PRECISION and s >= 0, sets *scale = s and
 * returns true; false for unconstrained numeric (typmod -1), larger
 * precisions and negative scales.  Never raises.
 */
extern bool gdb_numeric_typmod_scale(int32 typmod, int *scale);

/*
 * gdb_type_supported: can a batch carry a column of type typid with
 * typmod (gdb_type_class not UNSUPPORTED, and for numeric a typmod that
 * gdb_numeric_typmod_scale accepts)?  Never raises.
 */
extern bool gdb_type_supported(Oid typid, int32 typmod);

/* How a numeric value fits the fixed point of one scale. */
typedef enum GdbNumericFit
{
	GDB_NUMFIT_EXACT,			/* *out = v * 10^scale exactly */
	GDB_NUMFIT_INEXACT,			/* more digits: *out = floor(v * 10^scale) */
	GDB_NUMFIT_ABOVE,			/* v * 10^scale >= 10^18, or +Infinity */
	GDB_NUMFIT_BELOW,			/* v * 10^scale <= -10^18, or -Infinity */
	GDB_NUMFIT_NAN
} GdbNumericFit;

/*
 * gdb_numeric_to_scaled: how the numeric datum value (not NULL) fits
 * scale digits after the point; *out as GdbNumericFit says (0 for ABOVE,
 * BELOW, NAN).  Exact decimal arithmetic on numeric_out's text.  Raises
 * only out of memory.
 */
extern GdbNumericFit gdb_numeric_to_scaled(Datum value, int scale, int64 *out);

/*
 * gdb_scaled_to_numeric: the numeric v / 10^scale with display scale
 * scale (so its text is that of the stored numeric(p,s) value), or NaN
 * for GDB_NUMERIC_NAN.  gdb_scaled_int128_to_numeric: the same of the
 * 128-bit integer hi:lo (a SUM_INT state), never NaN.
 */
extern Datum gdb_scaled_to_numeric(int64 v, int scale);
extern Datum gdb_scaled_int128_to_numeric(int64 hi, int64 lo, int scale);

/*
 * The set of relation columns a request reads, in batch column order, and
 * its computed columns: entry GDB_EXPR_COL(j) of each array describes
 * computed column j (attnum 0; a numeric one has the typmod
 * numeric(18, s) of its scale s).
 */
typedef struct GdbColumnSet
{
	int			ncols;
	AttrNumber	attnums[GDB_MAX_BATCH_COLS];
	Oid			typids[GDB_MAX_BATCH_COLS];
	int32		typmods[GDB_MAX_BATCH_COLS];	/* the attribute's atttypmod */
	Oid			collations[GDB_MAX_BATCH_COLS];
	bool		nulls_only[GDB_MAX_BATCH_COLS];	/* only NULL-ness is read */
	int			nexprs;			/* computed columns */
	Node	   *exprs[GDB_MAX_EXPRS];	/* their expressions */

	/*
	 * 1 + the index of the text column whose byte-order ranks column i
	 * holds (a hidden INT64 column filled by text_rank.c after each batch
	 * is read, not from the heap); 0 for a column read from the heap.
	 */
	int			rank_of[GDB_MAX_BATCH_COLS];
	GdbDictionary *dict;		/* shared by all text columns */

	/*
	 * A join's payload columns (GpudbJoin): entry GDB_JOIN_COL(i) of each
	 * array above describes payload column i (attnums: its attribute in
	 * relation joinvarnos[i]).  While njoincols > 0, the compilers read a
	 * Var of any range table index but probe_varno (the request's own
	 * relation) as the payload column of that relation and attribute
	 * (gdb_columnset_join_col).
	 */
	int			njoincols;
	Index		joinvarnos[GDB_MAX_JOIN_COLS];
	Index		probe_varno;

	/*
	 * The values of the quals' parameters (param_values.c): params a List
	 * of Param, param_values the List of Const of each, set by the
	 * executor before it compiles the quals at the node's first run; NIL
	 * while planning and at the node's start (placeholders then).
	 */
	List	   *params;
	List	   *param_values;
} GdbColumnSet;

/*
 * gdb_columnset_add_join_col (join_build.c): register payload column
 * GDB_JOIN_COL(i) of cs, attribute attnum of relation rel at range table
 * index varno, and return its batch column GDB_JOIN_COL(i); an existing
 * one is returned again.  ERRCODE_PROGRAM_LIMIT_EXCEEDED past
 * GDB_MAX_JOIN_COLS, ERRCODE_FEATURE_NOT_SUPPORTED for a type the batch
 * does not carry.
 */
extern int	gdb_columnset_add_join_col(GdbColumnSet *cs, Relation rel, Index varno,
									   AttrNumber attnum);

/*
 * gdb_columnset_add_join_col_type (join_build.c): the same for column
 * attnum of range table entry varno of type typid (typmod, collation),
 * a table's or a derived table's.  The same errors.
 */
extern int	gdb_columnset_add_join_col_type(GdbColumnSet *cs, Index varno,
											AttrNumber attnum, Oid typid,
											int32 typmod, Oid collation);

/*
 * gdb_columnset_join_col (join_build.c): the batch column of payload
 * column (varno, attnum) of cs; elog(ERROR) when it was not registered.
 */
extern int	gdb_columnset_join_col(const GdbColumnSet *cs, Index varno,
								   AttrNumber attnum);

/*
 * gdb_columnset_attribute (heap_batch.c): the pg_attribute row of user
 * column attnum of rel (elog ERROR out of range); with check_type, ERROR
 * 0A000 naming the column and the supported types when gpudb cannot read
 * its type.
 */
extern Form_pg_attribute gdb_columnset_attribute(Relation rel, AttrNumber attnum,
												 bool check_type);

/*
 * gdb_columnset_add: the batch column index of attribute attnum of rel,
 * adding it if new.  nulls_only marks a column read only for count(col);
 * a later add without it clears the mark.  Raises
 * ERRCODE_FEATURE_NOT_SUPPORTED for an unsupported type (unless
 * nulls_only), ERRCODE_PROGRAM_LIMIT_EXCEEDED past GDB_MAX_COLUMNS.
 */
extern int	gdb_columnset_add(GdbColumnSet *cs, Relation rel, AttrNumber attnum,
							  bool nulls_only);

/*
 * ---- text_rank.c: text sort keys in the C collation ----
 *
 * gdb_text_sort_collation_ok: can a text sort key of collation collid
 * run on the device (a C or POSIX collation: byte order)?  Never raises.
 */
extern bool gdb_text_sort_collation_ok(Oid collid);

/*
 * gdb_columnset_add_sort_key: the batch column a sort key on attribute
 * attnum of rel sorts by: the column itself (gdb_columnset_add), or for a
 * text column its hidden rank column (added once per text column, after
 * the text column; its NULL flags are the text column's).  Raises as
 * gdb_columnset_add does, and ERRCODE_FEATURE_NOT_SUPPORTED for a text
 * column whose collation is not C or POSIX (callers check first).
 */
extern int	gdb_columnset_add_sort_key(GdbColumnSet *cs, Relation rel,
									   AttrNumber attnum);

/* gdb_columnset_has_ranks: does cs hold a rank column? */
extern bool gdb_columnset_has_ranks(const GdbColumnSet *cs);

/*
 * gdb_batch_fill_ranks: fill every rank column of batch (laid out for cs,
 * its text columns read) with the ranks of its text column's codes in
 * cs->dict as it is now (gdb_dict_ranks); NULL rows get rank 0 and the
 * NULL flag.  A no-op without rank columns.
 */
extern void gdb_batch_fill_ranks(GdbColumnSet *cs, GdbBatch *batch);

/*
 * gdb_result_fill_ranks: the same for a result batch of the SELECT or
 * SORT request req over cs: every result column that copies a rank
 * column is recomputed from the result column that copies its text
 * column (gdb_query_prepare puts it there), under cs->dict as it is now.
 * Used before the final re-sort of partial results whose ranks came from
 * older (or other processes') dictionaries.  elog(ERROR) when the text
 * column is missing from the result.
 */
extern void gdb_result_fill_ranks(GdbColumnSet *cs, const GdbRequest *req,
								  GdbBatch *batch);

/*
 * gdb_column_numeric_scale: the scale s of column col of cs, a carried
 * numeric(p,s) column; elog(ERROR) for any other column.
 */
extern int	gdb_column_numeric_scale(const GdbColumnSet *cs, int col);

/*
 * gdb_column_kind: GDB_KIND_FLOAT64 for float columns, else GDB_KIND_INT64.
 */
extern uint32 gdb_column_kind(const GdbColumnSet *cs, int col);

/*
 * gdb_column_is_text: does batch column col of cs (a stored column, or a
 * computed one: GDB_EXPR_COL) hold dictionary codes of cs->dict (text,
 * varchar or char(n) values, not read for NULL-ness only)?  false for an
 * index that names no column.  Never raises.
 */
extern bool gdb_column_is_text(const GdbColumnSet *cs, int32 col);

/*
 * gdb_value_to_datum: turn a batch value back into a Datum of typid
 * (int64 payload for INT/BOOL/DATETIME/TEXT/NUMERIC classes, float64 for
 * FLOAT; a numeric with the column's scale as display scale).
 */
extern Datum gdb_value_to_datum(const GdbColumnSet *cs, int col, int64 ival,
								double fval);

/* Heap scan producing batches; see heap_batch.c. */
typedef struct GdbHeapReader GdbHeapReader;

/*
 * gdb_heap_reader_begin: scan rel under snapshot (a plan node's
 * es_snapshot, or the active snapshot), filling batches of up to capacity
 * rows with the columns of cs.
 */
extern GdbHeapReader *gdb_heap_reader_begin(Relation rel, GdbColumnSet *cs,
											uint64 capacity, Snapshot snapshot);

/*
 * gdb_heap_reader_begin_parallel: the same over this process's share of a
 * parallel block scan (pscan, set up by table_parallelscan_initialize in
 * the leader under its active snapshot; every participant attaches to the
 * same one and takes the next blocks as it goes).  The rows come in no
 * particular order across participants: never for a cache load, which
 * needs ascending heap addresses.
 */
struct ParallelTableScanDescData;
extern GdbHeapReader *gdb_heap_reader_begin_parallel(Relation rel,
													 GdbColumnSet *cs,
													 struct ParallelTableScanDescData *pscan);

/*
 * gdb_heap_reader_next: fill batch (laid out for cs with capacity rows) with
 * the next rows; returns the number of rows (0 at the end).  ctids (may be
 * NULL) receives each row's heap address as GDB_CTID(block, offset).
 */
extern uint64 gdb_heap_reader_next(GdbHeapReader *reader, GdbBatch *batch,
								   uint64 *ctids);

/*
 * gdb_batch_store_value: store value (NULL if isnull) of column col of cs
 * into row row of batch, converted as the heap reader converts it (text
 * through cs->dict).
 */
extern void gdb_batch_store_value(GdbColumnSet *cs, GdbBatch *batch, int col,
								  uint64 row, Datum value, bool isnull);
extern void gdb_heap_reader_end(GdbHeapReader *reader);

/*
 * gdb_columnset_layout: lay batch (may be NULL) out for the columns of cs,
 * every one with NULL flags, and with_visibility the cache's visibility
 * column after them (INT64, index cs->ncols, no NULL flags), as cached rows
 * are sent to the GPU server; capacity rows.  Returns the bytes needed.
 */
extern uint64 gdb_columnset_layout(const GdbColumnSet *cs, GdbBatch *batch,
								   uint64 capacity,
								   bool with_visibility);

/* ---- filter_compile.c: filter text to opcode program ---- */

/*
 * gdb_compile_filter: parse filter (one boolean SQL expression over rel's
 * columns) with PostgreSQL's parser, type-check it, and compile it into
 * req->program / req->ninstr, adding the columns it reads to cs (text
 * constants are interned into cs->dict).  Raises ERRCODE_SYNTAX_ERROR for
 * text that is not exactly one expression, ERRCODE_FEATURE_NOT_SUPPORTED
 * for a construct, operator, function or type outside the supported set
 * (naming it), ERRCODE_PROGRAM_LIMIT_EXCEEDED past GDB_MAX_INSTR, and the
 * parser's own errors for unknown columns or bad types.  Never executes
 * anything.  fname names the calling SQL function in messages.
 */
extern void gdb_compile_filter(const char *filter, Relation rel,
							   GdbColumnSet *cs, GdbRequest *req,
							   const char *fname);

/*
 * gdb_compile_quals: compile the planner's quals (an implicit-AND list in
 * evaluation order) over rel into req; see filter_compile.c.  With soft,
 * returns false and sets *why instead of raising for what the device
 * cannot run.
 */
extern bool gdb_compile_quals(List *quals, Relation rel, GdbColumnSet *cs,
							  GdbRequest *req, const char *fname, bool soft,
							  char **why);

/*
 * param_values.c: parameters ($n, a top-level InitPlan's output) compared
 * with a column in device quals.  gdb_quals_param_values: a copy of quals
 * with each such Param replaced by its value in cs->param_values or a
 * placeholder constant of its type; gdb_quals_params: those Params, each
 * once (a List of Param); gdb_contains_param: whether node holds any
 * Param.  None raises.
 */
extern List *gdb_quals_param_values(List *quals, const GdbColumnSet *cs);
extern List *gdb_quals_params(List *quals);
extern bool gdb_contains_param(Node *node);

/*
 * gdb_columnset_add_expr (expr_compile.c): the batch column holding the
 * value of expr, a planner-preprocessed expression over rel's columns
 * (Vars of any varno): the column itself for a plain column, else a
 * computed column of req (gpudb_device.h), compiled once per distinct
 * expression, whose program reads the columns it needs (added to cs).
 * A text-valued expression (lower, upper, substr, left or right of a
 * column: string_compile.c) is a computed column of codes of cs->dict, of
 * the expression's type and collation.
 * Raises 0A000 naming what the device cannot compute (a type, a function,
 * a numeric of varying scale), 54000 past GDB_MAX_EXPRS or the program
 * limits; fname names the node or SQL function in messages.
 */
extern int	gdb_columnset_add_expr(GdbColumnSet *cs, Relation rel, Node *expr,
								   GdbRequest *req, const char *fname);

/*
 * gdb_expr_supported (expr_compile.c): can expr become a computed column
 * over rel (gdb_columnset_add_expr into a scratch request)?  false with
 * *why set to the reason when not; other errors propagate.
 */
extern bool gdb_expr_supported(Node *expr, Relation rel, char **why);

/*
 * gdb_exprs_supported (expr_compile.c): the same for every expression of
 * exprs together, as computed columns of one request (their count and
 * instructions within GDB_MAX_EXPRS and GDB_MAX_EXPR_INSTR).
 */
extern bool gdb_exprs_supported(List *exprs, Relation rel, char **why);

/*
 * gdb_exprs_supported_in (expr_compile.c): the same starting from a copy
 * of base (NULL: an empty column set), e.g. one whose join payload
 * columns are registered (gdb_columnset_add_join_col), so that Vars of
 * joined relations compile as those columns.
 */
extern bool gdb_exprs_supported_in(List *exprs, Relation rel,
								   const GdbColumnSet *base, char **why);

/*
 * gdb_text_operations (string_compile.c): the text operations of node
 * that compiling it would turn into code tables (LIKE, ILIKE,
 * starts_with, text comparisons, lengths: one per call, one per element
 * of an ANY/ALL array), counted without merging equal ones: an upper
 * bound the planner holds against GDB_MAX_CODE_TABLES for the parts of a
 * request that it checks one by one.  Never raises.
 */
extern int	gdb_text_operations(Node *node);

/* gdb_program_may_raise: can req's filter program raise an SQL error? */
extern bool gdb_program_may_raise(const GdbRequest *req);

/* ---- device.c: which path runs, and the device list ---- */

/* Result of choosing a path for one execution. */
typedef struct GdbExecutor
{
	bool		use_gpu;		/* through the GPU server */
	char		device_name[256];
	GdbStats	stats;
	MemoryContext mcxt;			/* where batches and results live */
	void	   *buffers;		/* shared batch buffers (device.c) */
	GdbBatch   *pending;		/* CPU path: result of the started request */
	uint32		last_oper;		/* GdbOperator of the started request */
	bool		last_is_combine;	/* it passes over earlier results: its
									 * rows are not counted (rows_in,
									 * rows_selected) */
} GdbExecutor;

/*
 * gdb_executor_begin: pick the path by gpudb.enabled and gpudb.device
 * (auto: the GPU server when it runs in GPU mode, else the CPU path in this
 * backend; gpu: ERROR 55000 if no GPU is usable; cpu: the CPU path).
 * Everything it allocates lives in the current memory context, so an ERROR
 * leaks nothing.
 */
extern GdbExecutor *gdb_executor_begin(void);

/*
 * gdb_executor_alloc_batch: a batch buffer of bytes bytes; on the GPU path
 * shared memory that the server maps without a copy.  Freed with the
 * memory context.
 */
extern void *gdb_executor_alloc_batch(GdbExecutor *ex, uint64 bytes);

/*
 * gdb_executor_groupby_start / _finish: run req over input on the chosen
 * path, in two halves, so that the caller can read the next batch while
 * the GPU server works on this one (one request in flight; input must stay
 * untouched until finish).  The CPU path runs in start.  finish returns
 * the result batch (palloc'd in ex->mcxt) and raises the SQL error that
 * the status maps to.  ex->stats adds up every request's statistics,
 * except groups_out, which is the last request's for a GROUPBY (the final
 * combine) or SORT (the re-sort) and the sum for SELECT batches.
 */
extern void gdb_executor_groupby_start(GdbExecutor *ex, const GdbRequest *req,
									   const GdbBatch *input);
extern GdbBatch *gdb_executor_groupby_finish(GdbExecutor *ex);

/*
 * gdb_executor_combine: run req, a pass over earlier results (a GROUP BY's
 * combine of partial transition states, a SORT's re-sort of the parts'
 * sorted rows), over input at once, returning its result batch as
 * gdb_executor_groupby_finish does, with the same errors.  Its rows are not
 * counted in ex->stats' rows_in and rows_selected, which count the
 * source's rows (EXPLAIN's "Rows In" and "Rows Selected"); its device time,
 * bytes and groups_out are.
 */
extern GdbBatch *gdb_executor_combine(GdbExecutor *ex, const GdbRequest *req,
									  const GdbBatch *input);

/*
 * The message of GDB_ERR_FIXED_POINT's error, by which a node with
 * PostgreSQL's plan behind it (custom_scan_fallback.c) recognises it, also
 * when a parallel worker raised it.
 */
#define GDB_FIXED_POINT_MESSAGE "numeric value out of range for gpudb's fixed point"

/*
 * The message of GDB_ERR_JOIN_DUPLICATE (21000): an INNER or LEFT join's
 * build side had two rows with equal keys; a GpudbJoin answers with the
 * PostgreSQL plan behind it instead (custom_scan_fallback.c).
 */
#define GDB_JOIN_DUPLICATE_MESSAGE "gpudb: a join's build side is not unique on its keys"

/* gdb_raise_status: ereport(ERROR) for a non-OK GdbStatus. */
pg_noreturn extern void gdb_raise_status(const GdbError *err);

/*
 * gdb_lap_ms: milliseconds from *t to now, then *t set to now: one step of
 * a clock that splits a run into phases (a cache load's, a parallel heap
 * read's DEBUG1 reports).  Never raises.
 */
static inline double
gdb_lap_ms(instr_time *t)
{
	instr_time	now;
	double		ms;

	INSTR_TIME_SET_CURRENT(now);
	ms = INSTR_TIME_GET_MILLISEC(now) - INSTR_TIME_GET_MILLISEC(*t);
	*t = now;
	return ms;
}

/* ---- cache.c ---- */

/*
 * gdb_cache_shmem_init: with shared_preload_libraries, reserve and set up
 * the shared per-relation change counters the cache triggers bump.
 */
extern void gdb_cache_shmem_init(void);

/* Last execution, for gpu_last_execution(). */
extern GdbStats gdb_last_stats;
extern char gdb_last_path[64];
extern int	gdb_last_batches;
extern double gdb_last_total_ms;
extern char gdb_last_source[16];

#endif							/* GPUDB_H */
