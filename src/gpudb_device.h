/*-------------------------------------------------------------------------
 *
 * gpudb_device.h
 *	  The boundary between the PostgreSQL side (src/) and the device side
 *	  (cuda/): column batches in, result batches out.
 *
 * This header is plain C99.  It includes no PostgreSQL header and no CUDA
 * header, so both gcc (src/) and nvcc (cuda/) compile it.  Everything that
 * crosses the boundary is a fixed-layout value with no pointers into backend
 * memory:
 *
 *	 GdbRequest  the operator description: filter program (opcodes), group
 *				 key columns, aggregates.  A plain struct; memcpy serialises it.
 *	 GdbBatch	 a column batch: one contiguous buffer holding a header, column
 *				 descriptors (byte offsets, not pointers) and the column arrays.
 *				 Copying the buffer (to the device, or through shared memory)
 *				 copies the batch.
 *
 * A group-by takes a request and an input batch and returns a result batch
 * whose columns are the group keys followed by one transition-state column
 * per aggregate.  A result batch can be fed back as input (with
 * req->input_is_states set) to combine partial results of several batches.
 *
 * Two implementations sit behind this header: the CPU path (src/cpu/cpu_path.c,
 * plain C, always built) and the CUDA path (the .cu files in cuda/, built when nvcc is
 * found).  Both evaluate the filter and combine transition states with the
 * same code, gpudb_semantics.h.
 *
 *-------------------------------------------------------------------------
 */
#ifndef GPUDB_DEVICE_H
#define GPUDB_DEVICE_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C"
{
#endif

/* Limits; each is checked by the PostgreSQL side with a clear ERROR. */
#define GDB_MAX_GROUP_KEYS	8		/* group key columns */
#define GDB_MAX_AGGREGATES	64		/* aggregates in one request */
#define GDB_MAX_COLUMNS		128		/* columns in one batch */
#define GDB_MAX_INSTR		1024	/* instructions in a filter program */
#define GDB_MAX_STACK		32		/* VM stack depth */
#define GDB_MAX_SORT_KEYS	8		/* sort keys of a SORT request */
#define GDB_MAX_HAVING		8		/* group qualifier terms of a GROUPBY */
#define GDB_MAX_EXPRS		16		/* computed columns of one request */
#define GDB_MAX_EXPR_INSTR	1024	/* instructions of all computed columns */
#define GDB_MAX_CODE_TABLES	16		/* code tables of one request */

/*
 * Computed column j of a request is batch column GDB_EXPR_COL(j): column
 * indexes from GDB_MAX_COLUMNS on name the request's computed columns, so
 * a request names them the same way whatever the input's column count.
 */
#define GDB_EXPR_COL(j)		(GDB_MAX_COLUMNS + (j))

/*
 * Code table j of a request (see GdbCodeTable) is header slot
 * GDB_TABLE_COL(j) of the batch a path runs the request over: a slot of
 * kind GDB_KIND_CODES, which only the opcodes TEXT_IN_SET and TEXT_MAP
 * read (gdb_batch_attach_tables).
 */
#define GDB_TABLE_COL(j)	(GDB_MAX_COLUMNS + GDB_MAX_EXPRS + (j))

/*
 * Join payload column i of a request (see GdbJoinSpec) is batch column
 * GDB_JOIN_COL(i) of the view the operator reads, as computed columns
 * are GDB_EXPR_COL(j): the value of a build side's column for the probe
 * row's matching build row.  GDB_JOIN_KEEP_COL is the device's own
 * column of rows kept by the filter and every probe (cuda/hash_join.cu);
 * a request never names it.
 */
#define GDB_MAX_JOINS		8		/* hash joins (build sides) of one request */
#define GDB_MAX_JOIN_KEYS	4		/* equi-join keys of one join */
#define GDB_MAX_JOIN_COLS	32		/* payload columns of all joins together */
#define GDB_JOIN_COL(i)		(GDB_MAX_COLUMNS + GDB_MAX_EXPRS + GDB_MAX_CODE_TABLES + (i))
#define GDB_JOIN_KEEP_COL	GDB_JOIN_COL(GDB_MAX_JOIN_COLS)
#define GDB_MAX_BATCH_COLS	(GDB_JOIN_KEEP_COL + 1)

#define GDB_BATCH_MAGIC		0x47444231u /* "GDB1" */
#define GDB_BATCH_ALIGN		64		/* every column array starts aligned */

/*
 * Column kinds.  The PostgreSQL side widens every value to one of two
 * canonical representations: INT64 (int2/int4/int8, bool, date, timestamp,
 * timestamptz, dictionary codes of text) or FLOAT64 (float4, float8; a
 * float4 widens exactly).  STATE columns hold GdbAggState transition states.
 * CODES is the kind of a code table's header slot only (GDB_TABLE_COL):
 * values_off locates the table's uint64 words, nulls_off holds the number
 * of codes it covers; never a stored column.
 */
typedef enum GdbColumnKind
{
	GDB_KIND_INT64 = 0,
	GDB_KIND_FLOAT64 = 1,
	GDB_KIND_STATE = 2,
	GDB_KIND_CODES = 3
} GdbColumnKind;

/* Aggregate transition kinds; avg is sum + count, finished on the host. */
typedef enum GdbAggKind
{
	GDB_AGG_COUNT_STAR = 0,		/* count(*): counts rows */
	GDB_AGG_COUNT,				/* count(x): counts non-NULL x */
	GDB_AGG_SUM_INT,			/* 128-bit exact integer sum */
	GDB_AGG_SUM_FLOAT,			/* float64 sum, counts infinite inputs */
	GDB_AGG_MIN_INT,
	GDB_AGG_MAX_INT,
	GDB_AGG_MIN_FLOAT,			/* PostgreSQL order: NaN above +Infinity */
	GDB_AGG_MAX_FLOAT,
	GDB_AGG_SUMSQ_INT,			/* 128-bit exact sum of squares, |x| < 2^31 */
	GDB_AGG_VAR_FLOAT,			/* (N, Sx, Sxx) of the variance family */
	GDB_AGG_SUM_FLOAT4			/* sum(real): float4 steps, overflow flag */
} GdbAggKind;

/* The last kind; the fast paths take the kinds up to GDB_AGG_MAX_FLOAT. */
#define GDB_AGG_LAST_KIND GDB_AGG_SUM_FLOAT4

/*
 * Transition state of one aggregate for one group (32 bytes).
 *	 count		rows (count(*)) or non-NULL inputs (every other kind)
 *	 i0, i1		SUM_INT, SUMSQ_INT: low and high 64 bits of a two's-complement
 *				int128 (the sum of the values, or of their squares);
 *				MIN/MAX_INT: the extreme in i0;
 *				SUM_FLOAT, SUM_FLOAT4: i0 counts infinite inputs;
 *				SUM_FLOAT4: i1 is 1 once a step overflowed (an infinite
 *				sum of two finite operands);
 *				VAR_FLOAT: i0 holds the bits of Sxx (double), the sum of
 *				squared deviations from the mean, i1 counts non-finite
 *				inputs (Infinity, NaN)
 *	 f			SUM_FLOAT: the sum; SUM_FLOAT4: the sum, a float4 value
 *				held as a double; MIN/MAX_FLOAT: the extreme;
 *				VAR_FLOAT: Sx, the sum
 * A state with count == 0 stands for "no input" (SQL result NULL for
 * sum/min/max/avg, 0 for count).
 */
typedef struct GdbAggState
{
	int64_t		count;
	int64_t		i0;
	int64_t		i1;
	double		f;
} GdbAggState;

/* Where one column's arrays lie, as byte offsets from the batch start. */
typedef struct GdbColumnDesc
{
	uint32_t	kind;			/* GdbColumnKind */
	uint32_t	has_nulls;		/* 1: nulls_off points at nrows flag bytes */
	uint64_t	values_off;		/* int64_t, double or GdbAggState [capacity] */
	uint64_t	nulls_off;		/* uint8_t [capacity], 1 = NULL */
} GdbColumnDesc;

/*
 * A column batch.  The header is followed, in the same buffer, by the column
 * arrays at the offsets in cols[].  total_bytes covers header and arrays.
 */
typedef struct GdbBatch
{
	uint32_t	magic;			/* GDB_BATCH_MAGIC */
	uint32_t	ncols;
	uint64_t	nrows;			/* rows filled */
	uint64_t	capacity;		/* rows allocated per column */
	uint64_t	total_bytes;
	/* [0, ncols): the stored columns; GDB_EXPR_COL(j): computed column j of
	 * a view (gdb_batch_view), zero in a stored batch; GDB_TABLE_COL(j):
	 * code table j (gdb_batch_attach_tables), zero in a stored batch */
	GdbColumnDesc cols[GDB_MAX_BATCH_COLS];
} GdbBatch;

/*
 * The opcode table: one X-macro list serves the expression compiler
 * (src/planner/filter_compile.c) and the interpreter run by the CPU path and the
 * device (gpudb_semantics.h).  X(name, stack effect, raises, description):
 * raises is 1 for the opcodes that can raise an SQL error (overflow,
 * division by zero).
 * Values on the VM stack are (int64 or float64, null flag); booleans are
 * int64 0/1.  Integer ops carry the SQL result width in bytes (2, 4, 8) in
 * GdbInstr.width and raise PostgreSQL's out-of-range error past it; float
 * ops compute in float4 when width is 4.
 */
#define GDB_OPCODE_LIST(X) \
	X(PUSH_COL,		 1, 0, "push column arg of the batch") \
	X(PUSH_INT,		 1, 0, "push the integer constant ival") \
	X(PUSH_FLOAT,	 1, 0, "push the float constant fval") \
	X(PUSH_NULL,	 1, 0, "push NULL") \
	X(PUSH_TEXT,	 1, 0, "text constant arg; bound to PUSH_INT of its dictionary code before execution") \
	X(INT_ADD,		-1, 1, "a + b, checked at width") \
	X(INT_SUB,		-1, 1, "a - b, checked at width") \
	X(INT_MUL,		-1, 1, "a * b, checked at width") \
	X(INT_DIV,		-1, 1, "a / b truncating; division by zero is an error") \
	X(INT_MOD,		-1, 1, "a % b; division by zero is an error") \
	X(INT_NEG,		 0, 1, "-a, checked at width") \
	X(FLT_ADD,		-1, 1, "a + b with overflow check") \
	X(FLT_SUB,		-1, 1, "a - b with overflow check") \
	X(FLT_MUL,		-1, 1, "a * b with overflow and underflow checks") \
	X(FLT_DIV,		-1, 1, "a / b; division by zero is an error") \
	X(FLT_NEG,		 0, 0, "-a") \
	X(INT_TO_FLT,	 0, 0, "integer to float64 (width 4: to float4)") \
	X(INT_EQ,		-1, 0, "a = b") \
	X(INT_NE,		-1, 0, "a <> b") \
	X(INT_LT,		-1, 0, "a < b") \
	X(INT_LE,		-1, 0, "a <= b") \
	X(INT_GT,		-1, 0, "a > b") \
	X(INT_GE,		-1, 0, "a >= b") \
	X(FLT_EQ,		-1, 0, "a = b, NaN equals NaN") \
	X(FLT_NE,		-1, 0, "a <> b") \
	X(FLT_LT,		-1, 0, "a < b, NaN sorts above every number") \
	X(FLT_LE,		-1, 0, "a <= b") \
	X(FLT_GT,		-1, 0, "a > b") \
	X(FLT_GE,		-1, 0, "a >= b") \
	X(AND,			-1, 0, "three-valued AND") \
	X(OR,			-1, 0, "three-valued OR") \
	X(NOT,			 0, 0, "three-valued NOT") \
	X(JUMP_IF_FALSE, 0, 0, "if top is FALSE jump to arg (short-circuit AND)") \
	X(JUMP_IF_TRUE,	 0, 0, "if top is TRUE jump to arg (short-circuit OR)") \
	X(IS_NULL,		 0, 0, "a IS NULL") \
	X(IS_NOT_NULL,	 0, 0, "a IS NOT NULL") \
	X(IS_TRUE,		 0, 0, "a IS TRUE") \
	X(IS_NOT_TRUE,	 0, 0, "a IS NOT TRUE") \
	X(IS_FALSE,		 0, 0, "a IS FALSE") \
	X(IS_NOT_FALSE,	 0, 0, "a IS NOT FALSE") \
	X(JUMP,			 0, 0, "jump to arg") \
	X(JUMP_IF_NOT_TRUE, 0, 0, "if top is FALSE or NULL jump to arg (CASE)") \
	X(JUMP_IF_NOT_NULL, 0, 0, "if top is not NULL jump to arg (COALESCE)") \
	X(REPLACE,		-1, 0, "b replaces a (the next CASE arm's value)") \
	X(INT_ABS,		 0, 1, "abs(a), checked at width") \
	X(FLT_ABS,		 0, 0, "abs(a)") \
	X(INT_GREATEST,	-1, 0, "GREATEST(a, b): NULLs ignored (numeric too: NaN largest)") \
	X(INT_LEAST,	-1, 0, "LEAST(a, b): NULLs ignored") \
	X(FLT_GREATEST,	-1, 0, "GREATEST(a, b) of floats, NaN largest") \
	X(FLT_LEAST,	-1, 0, "LEAST(a, b) of floats") \
	X(INT_NULLIF,	-1, 0, "NULLIF(a, b): NULL when a = b") \
	X(FLT_NULLIF,	-1, 0, "NULLIF(a, b) of floats") \
	X(FLT_TO_INT,	 0, 1, "float to integer: rounded to nearest even, checked at width") \
	X(FLT_ROUND,	 0, 0, "float round/trunc/floor/ceil (width 0..3)") \
	X(NUM_ADD,		-1, 1, "numeric a + b at one scale (fixed point, NaN-aware)") \
	X(NUM_SUB,		-1, 1, "numeric a - b at one scale") \
	X(NUM_MUL,		-1, 1, "numeric a * b: scales add") \
	X(NUM_NEG,		 0, 0, "numeric -a") \
	X(NUM_ABS,		 0, 0, "numeric abs(a)") \
	X(NUM_RESCALE,	 0, 1, "numeric a * 10^ival: ival more digits after the point (width 1 saturates: comparisons)") \
	X(NUM_ROUND,	 0, 0, "numeric a to ival fewer digits: width 0 round, 1 trunc, 2 floor, 3 ceil") \
	X(NUM_CHECK,	 0, 1, "numeric(p,s) typmod: |a| < ival or numeric field overflow") \
	X(NUM_TO_FLT,	 0, 0, "numeric of scale ival to float (width 4: float4)") \
	X(NUM_TO_INT,	 0, 1, "numeric of scale ival to integer, rounded half away from zero, checked at width") \
	X(DATE_TO_TS,	 0, 1, "date to timestamp; width 1 raises past timestamp's range, width 0 saturates (comparisons)") \
	X(TS_TO_DATE,	 0, 0, "timestamp to date") \
	X(TS_ADD_INTERVAL, 0, 1, "timestamp + interval of arg months and ival microseconds") \
	X(DATE_ADD_DAYS, -1, 1, "date + b days (width 1: date - b days)") \
	X(DATE_DIFF,	-1, 1, "date a - date b in days") \
	X(TS_TRUNC,		 0, 0, "date_trunc(field arg, timestamp a)") \
	X(DATE_PART,	 0, 0, "field arg of timestamp a (width 1: a is a date); integer result") \
	X(TEXT_IN_SET,	 0, 0, "code a in code table arg (a bit per code): boolean; NULL stays NULL") \
	X(TEXT_MAP,		 0, 0, "code a's word in code table arg (an integer, or a text result's code); NULL stays NULL")

typedef enum GdbOpcode
{
#define GDB_OPCODE_ENUM(name, effect, raises, doc) GDB_OP_##name,
	GDB_OPCODE_LIST(GDB_OPCODE_ENUM)
#undef GDB_OPCODE_ENUM
	GDB_OP__COUNT
} GdbOpcode;

/* Is op one of the jumps (whose arg is a target; gdb_vm_step skips them)? */
#ifdef __CUDACC__
__host__ __device__
#endif
static inline int
gdb_op_is_jump(int op)
{
	return op == GDB_OP_JUMP_IF_FALSE || op == GDB_OP_JUMP_IF_TRUE ||
		op == GDB_OP_JUMP || op == GDB_OP_JUMP_IF_NOT_TRUE ||
		op == GDB_OP_JUMP_IF_NOT_NULL;
}

/* One VM instruction (24 bytes). */
typedef struct GdbInstr
{
	uint16_t	op;				/* GdbOpcode */
	uint16_t	width;			/* integer width in bytes, or float width */
	int32_t		arg;			/* column index or jump target */
	int64_t		ival;
	double		fval;
} GdbInstr;

/*
 * One computed column of a request: the value of the expression program
 * eprogram[start, start + len) (jump targets relative to start) for each
 * row, of kind kind (GDB_KIND_INT64 or GDB_KIND_FLOAT64), with NULL flags.
 */
typedef struct GdbExprSpec
{
	uint32_t	kind;
	uint32_t	start;
	uint32_t	len;
	uint32_t	pad_;
} GdbExprSpec;

typedef struct GdbAggSpec
{
	uint32_t	kind;			/* GdbAggKind */
	int32_t		input_col;		/* batch column; -1 for count(*) */
} GdbAggSpec;

/*
 * The operators a request runs.  Each first applies the filter program
 * (rows for which it is TRUE are selected), then:
 *	 GROUPBY	groups the selected rows by key_cols and folds aggs; with
 *				nsort > 0 the groups are then ordered and cut to limit (an
 *				ordered group-by, see GdbRequest);
 *	 SELECT		returns the selected rows' out_cols, in input row order
 *				(selection + projection);
 *	 SORT		returns the selected rows' out_cols ordered by sort_keys,
 *				ties in input row order (a stable sort), at most limit rows
 *				when limit > 0 (top-k).
 */
typedef enum GdbOperator
{
	GDB_OPER_GROUPBY = 0,
	GDB_OPER_SELECT = 1,
	GDB_OPER_SORT = 2
} GdbOperator;

/*
 * One sort key: an INT64 or FLOAT64 input column (for an ordered GROUPBY, a
 * result column: see GdbRequest), ascending unless
 * descending, NULLs after every value unless nulls_first (PostgreSQL's
 * default is NULLS LAST for ASC and NULLS FIRST for DESC; the PostgreSQL
 * side always sets both flags).  Values compare as the group keys do
 * (gdb_key_encode_int / gdb_key_encode_float: integers by value, floats in
 * PostgreSQL's order with -0 = +0 and NaN above +Infinity).
 */
typedef struct GdbSortKey
{
	int32_t		col;
	uint8_t		descending;
	uint8_t		nulls_first;
	uint16_t	exact;			/* ordered GROUPBY: see GDB_SORT_EXACT_SUM */
} GdbSortKey;

/*
 * GdbSortKey.exact of an ordered GROUPBY's sort key that is a SUM_INT
 * aggregate whose SQL result is numeric (a sum of numeric(p,s) fixed
 * point, or of int8): GDB_SORT_EXACT_SUM, plus 1 + the request index of
 * the MAX_INT state over the same input that tells a NaN input
 * (GDB_NUMERIC_NAN), or plus 0 without one.  Such a sum orders by its low
 * 64 bits only where it is exact: before anything is cut, a group whose
 * 128-bit sum is outside int64, or that summed a NaN, fails the request
 * with GDB_ERR_FIXED_POINT (the PostgreSQL side answers with its own
 * plan); gdb_order_key_status.  0 for every other key (a SUM_INT of
 * int2/int4 orders by the low 64 bits, as PostgreSQL's int8 result wraps).
 */
#define GDB_SORT_EXACT_SUM		0x8000
#define GDB_SORT_NAN_STATE(e)	((int) ((e) & 0x7fff) - 1)

/*
 * One term of a GROUPBY's group qualifier (the HAVING quals that run on
 * the device): a group passes the term when the finished value of
 * aggregate agg (an orderable kind: gdb_order_agg_kind_ok, not SUM_FLOAT)
 * compares with value by op.  value is an int64 for the integer kinds
 * (COUNT_STAR, COUNT, SUM_INT and MIN/MAX_INT: the count, the full 128-bit
 * sum, the extreme), a double's bits for MIN/MAX_FLOAT (compared in
 * PostgreSQL's float order: gdb_sort_encode).  A NULL value (no input)
 * never passes.  nan_state is 1 + the request index of the MAX_INT state
 * that tells a NaN summed into a numeric SUM_INT (GDB_NUMERIC_NAN), 0
 * without one: such a group always passes, as does a sum(int2/int4) whose
 * 128-bit sum is outside int64 (its int8 result wraps).  The qualifier is
 * a pre-filter: the PostgreSQL side keeps its HAVING, so a term may keep a
 * group that the HAVING drops, never the reverse (gdb_having_keep).
 */
typedef enum GdbHavingOp
{
	GDB_HAVING_LT = 0,
	GDB_HAVING_LE,
	GDB_HAVING_EQ,
	GDB_HAVING_NE,
	GDB_HAVING_GE,
	GDB_HAVING_GT,
	GDB_HAVING_NOT_NULL,		/* value is not NULL (x <> 1.5 over integers) */
	GDB_HAVING_NEVER			/* no group passes (x = 1.5 over integers) */
} GdbHavingOp;

typedef struct GdbHavingTerm
{
	uint32_t	agg;			/* request aggregate index */
	uint8_t		op;				/* GdbHavingOp */
	uint8_t		wraps;			/* SUM_INT: the int8 result of sum(int2/int4) */
	uint16_t	nan_state;		/* 1 + the NaN finder's index; 0 none */
	int64_t		value;			/* int64, or a double's bits */
} GdbHavingTerm;

/*
 * What the PostgreSQL side computes for each string of a dictionary to
 * fill a code table (src/common/text_tables.c), so that the row-level work on
 * the device reads codes only.  The device never interprets these: it
 * reads a bit (TEXT_IN_SET) or a word (TEXT_MAP) per code.
 *	 LIKE			textlike(s, pattern): bit (bpcharlike is textlike too)
 *	 ILIKE			texticlike(s, pattern) under the table's collation: bit
 *	 PREFIX			starts_with(s, prefix), a byte prefix under every
 *					deterministic collation: bit
 *	 LT .. GE		s < c, <=, >, >= in byte order (memcmp, then the shorter
 *					first: the C collation's order): bit
 *	 CHAR_LENGTH	characters of s in the database encoding: word
 *	 OCTET_LENGTH	bytes of s: word
 *	 LOWER, UPPER	lower(s), upper(s) under the table's collation: word,
 *					the result's code in the same dictionary
 *	 SUBSTR			substr(s, iarg[0], iarg[1]) (without GDB_TF_NOLEN) or
 *					substr(s, iarg[0]): word, the result's code
 *	 LEFT, RIGHT	left(s, iarg[0]), right(s, iarg[0]): word, the code
 * The argument (pattern, prefix, constant) is the request's text constant
 * text_arg, numbered as PUSH_TEXT's arg.  The text-valued functions add
 * their results to the dictionary they are evaluated over.
 */
typedef enum GdbTextFn
{
	GDB_TFN_LIKE = 0,
	GDB_TFN_ILIKE,
	GDB_TFN_PREFIX,
	GDB_TFN_LT,
	GDB_TFN_LE,
	GDB_TFN_GT,
	GDB_TFN_GE,
	GDB_TFN_CHAR_LENGTH,
	GDB_TFN_OCTET_LENGTH,
	GDB_TFN_LOWER,
	GDB_TFN_UPPER,
	GDB_TFN_SUBSTR,
	GDB_TFN_LEFT,
	GDB_TFN_RIGHT,
	GDB_TFN_REGEX,				/* ~ (a bit per code, as LIKE) */
	GDB_TFN_IREGEX				/* ~* */
} GdbTextFn;

#define GDB_TFN_LAST GDB_TFN_IREGEX

/* Does fn give a word per code (TEXT_MAP) rather than a bit (TEXT_IN_SET)? */
#define GDB_TFN_IS_MAP(fn) ((fn) >= GDB_TFN_CHAR_LENGTH && (fn) <= GDB_TFN_RIGHT)

/* Is fn's word the code of a string (a text-valued function)? */
#define GDB_TFN_IS_TEXT(fn) ((fn) >= GDB_TFN_LOWER && (fn) <= GDB_TFN_RIGHT)

/* GdbCodeTable.flags */
#define GDB_TF_RTRIM		0x1 /* s loses its trailing blanks first (a char(n)
								 * value as text, or compared as bpchar) */
#define GDB_TF_CTYPE_C		0x2 /* the collation's LC_CTYPE is C (ILIKE, lower
								 * and upper fold ASCII only: the GPU server
								 * can evaluate them) */
#define GDB_TF_NOLEN		0x4 /* SUBSTR without a length */

/*
 * One code table of a request: fn of every dictionary string, as a bit
 * (TEXT_IN_SET) or a word (TEXT_MAP) per code.  fn, flags, text_arg,
 * collation and encoding are set when the request is compiled; ncodes and
 * word_off when it is bound to the dictionary of the data it runs on
 * (every code of that data below ncodes): the table's words are
 * table_words[word_off ..], ncodes / 64 rounded up of them for a bit
 * table, ncodes for a word table (bit c of a bit table is bit c % 64 of
 * word c / 64).
 */
typedef struct GdbCodeTable
{
	uint16_t	fn;				/* GdbTextFn */
	uint16_t	flags;			/* GDB_TF_* */
	int32_t		text_arg;		/* text constant (PUSH_TEXT numbering) or -1 */
	uint32_t	collation;		/* the operation's collation (an Oid) */
	int32_t		encoding;		/* the database's encoding (pg_enc) */
	int32_t		iarg[2];		/* integer arguments (SUBSTR, LEFT, RIGHT) */
	uint64_t	ncodes;			/* bound: codes covered */
	uint64_t	word_off;		/* bound: first word in table_words */
} GdbCodeTable;

/* uint64 words of a bound code table. */
#define GDB_TABLE_WORDS(t) \
	(GDB_TFN_IS_MAP((t)->fn) ? (t)->ncodes : ((t)->ncodes + 63) / 64)

/*
 * Join types of a probe step (GdbJoinSpec.type), with SQL's meaning for
 * a probe row whose keys are K (NULL keys never match any build row):
 *	 INNER	kept when a build row has keys K; its payload is that row's
 *	 SEMI	kept when a build row has keys K (EXISTS, IN); no payload
 *	 ANTI	kept when no build row has keys K (NOT EXISTS); no payload
 *	 LEFT	always kept; payload of the matching build row, else NULL
 * INNER and LEFT need a build side unique on its keys (one match per
 * probe row: the step never expands rows); a duplicate fails the request
 * with GDB_ERR_JOIN_DUPLICATE.  A join's other quals (GdbJoinSpec.qual)
 * decide among the build rows with the probe row's keys.
 */
typedef enum GdbJoinType
{
	GDB_JOIN_INNER = 0,
	GDB_JOIN_SEMI = 1,
	GDB_JOIN_ANTI = 2,
	GDB_JOIN_LEFT = 3
} GdbJoinType;

/*
 * One hash join of a request's probe step.  Its build side is a batch
 * (GdbBatch layout, offsets from its own start) at join_data + build_off
 * of build_bytes bytes: columns 0..nkeys-1 are the join keys (INT64:
 * integers, dates, timestamps, numeric(p,s) of one scale, dictionary
 * codes of one dictionary), then npayload payload columns (INT64 or
 * FLOAT64).  The probe row's keys are the view columns probe_cols[k]:
 * stored columns, or payload columns of an earlier join of the same
 * request (a chain of joins).  Payload column p of the join becomes view
 * column GDB_JOIN_COL(payload_first + p).  With qual, a build row with the
 * probe row's keys matches only when computed column qual_expr (a boolean
 * over the stored columns and the payload, the candidate's written in
 * place first) is TRUE: every build row with those keys is tried, in the
 * table's order, until one matches; a LEFT join's row without a match is
 * NULL-extended, a SEMI join keeps the row when one matches, an ANTI join
 * when none does (a SEMI or ANTI join's payload only serves its qual and
 * is NULL after the probe).
 */
typedef struct GdbJoinSpec
{
	uint32_t	type;			/* GdbJoinType */
	uint32_t	nkeys;			/* 1 .. GDB_MAX_JOIN_KEYS */
	int32_t		probe_cols[GDB_MAX_JOIN_KEYS];
	uint32_t	npayload;
	uint32_t	payload_first;
	uint32_t	qual;			/* 1: computed column qual_expr is the
								 * join's other quals (LEFT, SEMI, ANTI) */
	uint32_t	qual_expr;
	uint64_t	build_off;
	uint64_t	build_bytes;
	/*
	 * nonzero: the build side is one the GPU server kept from an earlier
	 * request of the query (server_protocol.h, GdbCacheQuery.keep_id), not
	 * in join_data; the server binds it (build_sides[], build_bytes) before
	 * the request reaches a path, which never sees the id
	 */
	uint64_t	build_keep;
} GdbJoinSpec;

/*
 * A request.  ninstr == 0 means no filter.  GROUPBY: with input_is_states,
 * the input batch is a result batch (keys, then one STATE column per
 * aggregate) and the aggregates combine states instead of values.
 * SELECT and SORT: the result batch has nout columns, column i a copy of
 * input column out_cols[i] (same kind and NULL flags) for the rows
 * returned; nkeys, naggs and input_is_states must be 0.  SORT: nsort keys
 * in sort_keys (1..GDB_MAX_SORT_KEYS); limit 0 returns every selected row.
 *
 * Ordered GROUPBY (nsort 1..GDB_MAX_SORT_KEYS; nsort == 0 requires limit
 * == 0, and nout/out_cols are unused): the result batch is the same as
 * without an order (same columns, same group keys and states), but its
 * groups are ordered by sort_keys and, when limit > 0, only the first
 * limit groups are returned.  For GROUPBY, sort_keys[i].col names a RESULT
 * column: 0..nkeys-1 group key col (its values compare as a SORT key's,
 * NULL flags included; a key of dictionary codes orders by code, not by
 * collation, so the PostgreSQL side never orders by a text key), nkeys + j
 * the finished value of aggregate j (gdb_order_agg_value in
 * gpudb_semantics.h), which must be of an orderable kind:
 *	 COUNT_STAR, COUNT	the count (INT64, never NULL);
 *	 MIN/MAX_INT		the extreme (INT64), NULL when count == 0;
 *	 MIN/MAX_FLOAT		the extreme (FLOAT64), NULL when count == 0;
 *	 SUM_INT			the low 64 bits of the sum as int64 (INT64): the int8
 *						result of sum(int2/int4), which wraps as PostgreSQL's
 *						int4_sum/int2_sum transition does; NULL when count == 0;
 *	 SUM_FLOAT			the sum (FLOAT64), NULL when count == 0.
 * descending and nulls_first as for SORT; groups that tie on every sort key
 * keep their order of the unordered result (ascending key encodings, NULL
 * keys last): the order is a stable sort.  Before anything is cut, every
 * group is checked as the host would finish it: a SUM_FLOAT state (of any
 * aggregate, sort key or not) whose sum is infinite while it counted no
 * infinite input, or a VAR_FLOAT state whose sums are not finite while it
 * counted no infinite or NaN input, fails the request with
 * GDB_ERR_FLOAT_OVERFLOW (PostgreSQL's float8 accumulators raise for that
 * group whether or not it would have been returned).  Other finishing
 * errors (sum(real) past float4's range) are not checked: the PostgreSQL
 * side does not cut groups of such requests.
 * A group qualifier (nhaving > 0, with or without sort keys) drops the
 * groups that fail any of its terms after those checks and before the
 * order and the cut: the result holds the passing groups only, in the
 * unordered order when nsort == 0.
 * distinct_last_key (count(DISTINCT x) per group, from the histogram of
 * groupby_ordered_set.c): a request grouped by keys k1..kn-1 and x = kn,
 * with count(*) as its only aggregate, ordered by the keys in order
 * (sort key i names key i), with no limit and no qualifier, whose result
 * after the order keeps one row per run of rows that agree on k1..kn-1
 * (gdb_same_key_prefix): the run's first row's keys, and a count(*)
 * state whose count is the number of the run's rows whose x is not NULL
 * (the group's distinct non-NULL x; its other fields 0).  Like the order,
 * it is the last step: gdb_unordered_request clears it for partial runs,
 * the final combine carries it.
 * An ordered request (gdb_request_ordered: sort keys or a qualifier) may
 * combine states (input_is_states) only as the FINAL combine of a
 * multi-batch run: its result is cut, filtered and ordered, so it cannot
 * be combined any further; per-batch requests must not carry an order, a
 * limit or a qualifier (the validator cannot tell, the caller must).
 */
typedef struct GdbRequest
{
	uint32_t	nkeys;
	uint32_t	naggs;
	uint32_t	ninstr;
	uint32_t	input_is_states;
	int32_t		key_cols[GDB_MAX_GROUP_KEYS];
	GdbAggSpec	aggs[GDB_MAX_AGGREGATES];
	GdbInstr	program[GDB_MAX_INSTR];
	uint32_t	oper;			/* GdbOperator */
	uint32_t	nout;			/* SELECT/SORT: result columns */
	int32_t		out_cols[GDB_MAX_COLUMNS];
	uint32_t	nsort;			/* SORT, ordered GROUPBY: keys in sort_keys */
	uint32_t	distinct_last_key;	/* ordered GROUPBY: 1 = count the distinct
									 * values of the last key per group of
									 * the others (see above) */
	GdbSortKey	sort_keys[GDB_MAX_SORT_KEYS];
	uint64_t	limit;			/* SORT, ordered GROUPBY: at most this many
								 * rows / groups; 0 = all */
	/* GROUPBY: the group qualifier, nhaving terms ANDed (GdbHavingTerm) */
	uint32_t	nhaving;
	uint32_t	pad4_;
	GdbHavingTerm having[GDB_MAX_HAVING];
	/* computed columns GDB_EXPR_COL(0 .. nexprs-1); see gdb_batch_view */
	uint32_t	nexprs;
	uint32_t	neinstr;		/* instructions used in eprogram */
	GdbExprSpec exprs[GDB_MAX_EXPRS];
	GdbInstr	eprogram[GDB_MAX_EXPR_INSTR];
	/* code tables that TEXT_IN_SET and TEXT_MAP of either program read */
	uint32_t	ntables;
	uint32_t	pad2_;
	GdbCodeTable tables[GDB_MAX_CODE_TABLES];
	uint64_t	ntable_words;	/* bound: words at table_words */

	/*
	 * bound: nonzero where the words' content has an identity (the GPU
	 * server's memo of a cached relation's tables, text_tables.c): two
	 * requests with one key have the same words, so the device may keep
	 * them from one request to the next (code_tables.cu); 0: unknown
	 */
	uint64_t	table_words_key;

	/*
	 * bound: the tables' words in this process's memory.  The only field
	 * that is an address: a process that receives a copy of the request
	 * (the GPU server, a parallel worker) points it at its own copy of the
	 * words, or binds the tables itself; NULL when ntable_words is 0.
	 */
	const uint64_t *table_words;

	/*
	 * the join probe step (between the filter and the computed columns):
	 * njoins hash joins, probed in order; their build sides lie in the
	 * njoin_bytes bytes at join_data, which travel after the code table
	 * words in the GROUPBY message.  join_data is an address like
	 * table_words: a receiver points it at its own copy.
	 */
	uint32_t	njoins;
	uint32_t	njoin_cols;		/* payload columns of all joins */
	/*
	 * 1: computed column 0 is the joins' other quals (a boolean over the
	 * stored and payload columns), evaluated right after the probes: a row
	 * for which it is not TRUE is dropped, as INNER joins drop the rows
	 * their quals reject (every INNER build side being unique on its keys,
	 * a probe row meets at most one build row per join)
	 */
	uint32_t	join_filter;
	uint32_t	pad3_;
	GdbJoinSpec joins[GDB_MAX_JOINS];
	uint64_t	njoin_bytes;
	/*
	 * the build sides' identity (0: none): requests with one join_id carry
	 * equal join_data bytes, so a path may keep the hash tables it built
	 * for one (the CPU path does) for the next batches of the same query
	 */
	uint64_t	join_id;
	const void *join_data;
	/*
	 * bound, like join_data: join j's build side at build_sides[j] (of
	 * joins[j].build_bytes bytes) instead of at join_data + build_off;
	 * NULL for the build sides in join_data.  A receiver sets them NULL or
	 * to its own addresses (gdb_join_build_side reads them).
	 */
	const void *build_sides[GDB_MAX_JOINS];
	/*
	 * bound by the GPU server only: join j's build side kept in device
	 * memory (gdb_cuda_take_result), header included, at this device
	 * address; build_sides[j] then points at a host copy of its header
	 * alone (its arrays are not there: only the device path may run such
	 * a request).  NULL for every other build side.  A receiver sets them
	 * NULL before it binds its own.
	 */
	const void *build_sides_dev[GDB_MAX_JOINS];
} GdbRequest;

/*
 * The pipeline of a request over a batch: (1) the filter program selects
 * rows; (2) each computed column's program is evaluated for the selected
 * rows (for the others it is NULL and never read), in row order, so that
 * the first row that raises (in the filter or in a computed column, in
 * that order) is the one PostgreSQL's executor would raise for; (3) the
 * operator (group-by, select, sort) runs over the stored columns and the
 * computed ones alike, through a view of the batch (gdb_batch_view) in
 * which the computed columns are ordinary columns: same kinds, same NULL
 * flags.  Between (1) and (2), the join probe step (njoins > 0) looks
 * each selected row up in every join's hash table, in join order, drops
 * the rows an INNER, SEMI or ANTI join does not keep, and adds the
 * payload columns GDB_JOIN_COL(i) to the view the same way (NULL for
 * rows not kept, and for a LEFT join's rows without a match); with
 * join_filter, computed column 0 is evaluated next and drops the rows
 * for which it is not TRUE; the other computed columns and the operator
 * then read the payload as stored columns.  Both
 * programs read the request's code tables (TEXT_IN_SET, TEXT_MAP) through
 * the header slots GDB_TABLE_COL(j), which each path attaches to the
 * header it runs the programs over (gdb_batch_attach_tables), with the
 * words copied to the device where the device runs them.
 */

/*
 * gdb_batch_view: make *view the header of a batch whose columns are
 * those of src (base address src_base) plus, for j < nexprs, computed
 * column GDB_EXPR_COL(j) at vals[j] / nulls[j], all as offsets from
 * view_base (which may be any address: offsets are taken modulo 2^64, see
 * GDB_COL_PTR).  total_bytes keeps src's; a view is never copied whole.
 */
static inline void
gdb_batch_view(const GdbBatch *src, const void *src_base, GdbBatch *view,
			   const void *view_base, uint32_t nexprs, const uint32_t *kinds,
			   void *const *vals, void *const *nulls)
{
	uint64_t	delta = (uint64_t) (uintptr_t) src_base - (uint64_t) (uintptr_t) view_base;
	uint32_t	c;

	*view = *src;
	for (c = 0; c < src->ncols && c < GDB_MAX_COLUMNS; c++)
	{
		view->cols[c].values_off += delta;
		if (view->cols[c].has_nulls)
			view->cols[c].nulls_off += delta;
	}
	for (c = 0; c < nexprs && c < GDB_MAX_EXPRS; c++)
	{
		GdbColumnDesc *d = &view->cols[GDB_EXPR_COL(c)];

		d->kind = kinds[c];
		d->has_nulls = 1;
		d->values_off = (uint64_t) (uintptr_t) vals[c] - (uint64_t) (uintptr_t) view_base;
		d->nulls_off = (uint64_t) (uintptr_t) nulls[c] - (uint64_t) (uintptr_t) view_base;
	}
	/* code tables and join columns of src stay where they are */
	for (c = 0; c < GDB_MAX_CODE_TABLES; c++)
		if (view->cols[GDB_TABLE_COL(c)].kind == GDB_KIND_CODES)
			view->cols[GDB_TABLE_COL(c)].values_off += delta;
	for (c = GDB_JOIN_COL(0); c <= GDB_JOIN_KEEP_COL; c++)
		if (view->cols[c].has_nulls)
		{
			view->cols[c].values_off += delta;
			view->cols[c].nulls_off += delta;
		}
}

/*
 * gdb_batch_set_column: make slot col of hdr (a view's header whose
 * offsets are taken from base) a column of kind kind whose values and
 * NULL flags lie at vals and nulls (any addresses: offsets modulo 2^64).
 * Used for the join columns GDB_JOIN_COL(i) and GDB_JOIN_KEEP_COL.
 */
static inline void
gdb_batch_set_column(GdbBatch *hdr, const void *base, uint32_t col,
					 uint32_t kind, const void *vals, const void *nulls)
{
	GdbColumnDesc *d = &hdr->cols[col];

	d->kind = kind;
	d->has_nulls = 1;
	d->values_off = (uint64_t) (uintptr_t) vals - (uint64_t) (uintptr_t) base;
	d->nulls_off = (uint64_t) (uintptr_t) nulls - (uint64_t) (uintptr_t) base;
}

/*
 * gdb_batch_attach_tables: set the code-table slots of hdr, the header of
 * a batch (or view) whose offsets are taken from base, for req's bound
 * tables, whose words lie at words (req->ntable_words of them, in base's
 * address space: host or device memory): slot GDB_TABLE_COL(j) gets kind
 * GDB_KIND_CODES, values_off the address of table j's first word less
 * base (modulo 2^64, as GDB_COL_PTR adds it) and nulls_off the codes it
 * covers.  The slots of tables past req->ntables are zeroed.  The request
 * must have passed validation (gdb_cpu_validate_request: every table
 * within the words).
 */
static inline void
gdb_batch_attach_tables(GdbBatch *hdr, const void *base, const GdbRequest *req,
						const uint64_t *words)
{
	uint32_t	j;

	for (j = 0; j < GDB_MAX_CODE_TABLES; j++)
	{
		GdbColumnDesc *d = &hdr->cols[GDB_TABLE_COL(j)];

		d->kind = 0;
		d->has_nulls = 0;
		d->values_off = 0;
		d->nulls_off = 0;
		if (j >= req->ntables)
			continue;
		d->kind = GDB_KIND_CODES;
		d->values_off = (uint64_t) (uintptr_t) (words + req->tables[j].word_off) -
			(uint64_t) (uintptr_t) base;
		d->nulls_off = req->tables[j].ncodes;
	}
}

/*
 * gdb_request_result_source: the input column that result column i of req
 * copies (a group key for GROUPBY, an output column for SELECT and SORT),
 * or -1 when result column i is a transition state (or out of range).
 */
static inline int32_t
gdb_request_result_source(const GdbRequest *req, uint32_t i)
{
	if (req->oper == GDB_OPER_GROUPBY)
		return i < req->nkeys && i < GDB_MAX_GROUP_KEYS ? req->key_cols[i] : -1;
	return i < req->nout && i < GDB_MAX_COLUMNS ? req->out_cols[i] : -1;
}

/*
 * gdb_request_ordered: req is a GROUPBY whose groups are ordered (and cut
 * to limit) by sort keys over its result columns, or filtered by a group
 * qualifier (nhaving > 0): both are the last step over the groups, run
 * once every partial result is combined.
 */
static inline int
gdb_request_ordered(const GdbRequest *req)
{
	return req->oper == GDB_OPER_GROUPBY && (req->nsort > 0 || req->nhaving > 0);
}

/* Error codes; the PostgreSQL side turns each into its ereport. */
typedef enum GdbStatus
{
	GDB_OK = 0,
	GDB_ERR_INT2_RANGE,			/* smallint out of range (22003) */
	GDB_ERR_INT4_RANGE,			/* integer out of range (22003) */
	GDB_ERR_INT8_RANGE,			/* bigint out of range (22003) */
	GDB_ERR_DIV_ZERO,			/* division by zero (22012) */
	GDB_ERR_FLOAT_OVERFLOW,		/* value out of range: overflow (22003) */
	GDB_ERR_FLOAT_UNDERFLOW,	/* value out of range: underflow (22003) */
	GDB_ERR_BAD_REQUEST,		/* malformed request or batch (XX000) */
	GDB_ERR_OUT_OF_MEMORY,		/* host or device allocation failed (53200) */
	GDB_ERR_NO_DEVICE,			/* no usable GPU or driver (55000) */
	GDB_ERR_DEVICE,				/* any other CUDA failure (58000) */
	GDB_ERR_NUMERIC_FIELD,		/* numeric field overflow: a numeric(p,s)
								 * cast past p digits (22003) */
	GDB_ERR_FIXED_POINT,		/* a numeric value past the device's 18-digit
								 * fixed point (22003; PostgreSQL computes it) */
	GDB_ERR_DATE_RANGE,			/* date out of range (22008) */
	GDB_ERR_TIMESTAMP_RANGE,	/* timestamp out of range (22008) */
	GDB_ERR_DATE_TS_RANGE,		/* date out of range for timestamp (22008) */
	GDB_ERR_INFINITE_DATES,		/* cannot subtract infinite dates (22008) */
	GDB_ERR_NAN_TO_INT,			/* cannot convert NaN to integer (0A000) */
	GDB_ERR_NAN_TO_BIGINT,		/* cannot convert NaN to bigint (0A000) */
	GDB_ERR_NAN_TO_SMALLINT,	/* cannot convert NaN to smallint (0A000) */
	GDB_ERR_JOIN_DUPLICATE		/* an INNER or LEFT join's build side has two
								 * rows with the same keys (the PostgreSQL
								 * side answers with its own plan) */
} GdbStatus;

/* Row errors are packed as row << GDB_STATUS_BITS | status. */
#define GDB_STATUS_BITS 5

typedef struct GdbError
{
	int			status;			/* GdbStatus */
	char		message[256];	/* detail, e.g. the CUDA error string */
} GdbError;

/*
 * Phases of one request, for the per-phase times of GdbStats: the copy of
 * column batches to the device (including cache appends), the filter VM and
 * compaction, sorting (group-key or sort-key radix passes, segmentation,
 * top-k selection), aggregation or projection (reductions, gathers, result
 * layout), the copy of the result back and, for a request with joins,
 * the join probe step (hash tables built, then the filter, the probes and
 * the joins' quals in one pass, its program's computed columns included).
 * The CPU path reports its filter, sort and aggregate phases in wall-clock
 * ms and no transfers.
 */
typedef enum GdbPhase
{
	GDB_PHASE_TRANSFER_IN = 0,
	GDB_PHASE_FILTER,
	GDB_PHASE_SORT,
	GDB_PHASE_AGGREGATE,
	GDB_PHASE_TRANSFER_OUT,
	GDB_PHASE_JOIN,
	GDB_PHASE__COUNT
} GdbPhase;

/* The phases' names as EXPLAIN prints them ("<name> Time"), in order. */
#define GDB_PHASE_NAMES \
	{"Transfer In", "Filter", "Sort", "Aggregate", "Transfer Out", "Join"}

/* Shards whose times GdbStats carries. */
#define GDB_STATS_MAX_SHARDS 16

/* Execution statistics, filled by both paths (units in the names). */
typedef struct GdbStats
{
	uint64_t	rows_in;
	uint64_t	rows_selected;
	uint64_t	groups_out;
	uint64_t	bytes_to_device;
	uint64_t	bytes_from_device;
	double		device_ms;		/* kernel + copy time, CUDA events */
	double		phase_ms[GDB_PHASE__COUNT]; /* device_ms split by GdbPhase */
	/*
	 * a cached relation split into shards (the GPU server's, over its
	 * devices): how many, and each shard's wall-clock ms of running the
	 * request on its device (or the CPU path); 0 where the request ran
	 * over one store
	 */
	uint32_t	nshards;
	uint32_t	pad_;
	double		shard_ms[GDB_STATS_MAX_SHARDS];
} GdbStats;

/*
 * gdb_stats_add: add src's counters and times to dst (shard times shard by
 * shard, nshards the larger); groups_out is added too (callers that want
 * the last request's count set it themselves).
 */
static inline void
gdb_stats_add(GdbStats *dst, const GdbStats *src)
{
	dst->rows_in += src->rows_in;
	dst->rows_selected += src->rows_selected;
	dst->groups_out += src->groups_out;
	dst->bytes_to_device += src->bytes_to_device;
	dst->bytes_from_device += src->bytes_from_device;
	dst->device_ms += src->device_ms;
	for (int p = 0; p < GDB_PHASE__COUNT; p++)
		dst->phase_ms[p] += src->phase_ms[p];
	if (src->nshards > dst->nshards)
		dst->nshards = src->nshards;
	for (int i = 0; i < GDB_STATS_MAX_SHARDS; i++)
		dst->shard_ms[i] += src->shard_ms[i];
}

/* What the probe learns of one device. */
typedef struct GdbDeviceInfo
{
	int			ordinal;
	char		name[256];
	int			cc_major;
	int			cc_minor;
	uint64_t	memory_total;	/* bytes */
	uint64_t	memory_free;	/* bytes */
	int			driver_version; /* e.g. 13000 for CUDA 13.0 */
	int			runtime_version;
	int			multiprocessors;
} GdbDeviceInfo;

/*
 * gdb_error_set: set err (when not NULL) to status and a printf-style
 * message, NUL-terminated; returns status.  One helper for both paths
 * (defined in src/cpu/cpu_path.c, which every build links).
 */
extern int	gdb_error_set(GdbError *err, int status, const char *fmt,...)
			__attribute__((format(printf, 3, 4)));

/* Allocator for result batches: returns NULL on failure, never longjmps. */
typedef void *(*GdbAllocFn) (void *arg, size_t bytes);

/* ---- batch layout helpers (shared by both sides) ---- */

static inline uint64_t
gdb_align_up(uint64_t n)
{
	return (n + GDB_BATCH_ALIGN - 1) & ~((uint64_t) GDB_BATCH_ALIGN - 1);
}

/*
 * gdb_join_build_side: join j's build side batch: build_sides[j] where
 * bound, else join_data + joins[j].build_off (the caller validated it).
 */
static inline const GdbBatch *
gdb_join_build_side(const GdbRequest *req, uint32_t j)
{
	if (req->build_sides[j] != NULL)
		return (const GdbBatch *) req->build_sides[j];
	return (const GdbBatch *) ((const char *) req->join_data + req->joins[j].build_off);
}

static inline uint64_t
gdb_kind_width(uint32_t kind)
{
	return kind == GDB_KIND_STATE ? sizeof(GdbAggState) : 8;
}

/*
 * gdb_batch_layout: fill b's header for ncols columns of the given kinds and
 * null flags, capacity rows each, and return the buffer size in bytes that
 * the batch needs (header included).  b may be NULL to only size it.
 */
static inline uint64_t
gdb_batch_layout(GdbBatch *b, uint32_t ncols, const uint32_t *kinds,
				 const uint32_t *has_nulls, uint64_t capacity)
{
	uint64_t	off = gdb_align_up(sizeof(GdbBatch));
	uint32_t	c;

	for (c = ncols; b && c < GDB_MAX_BATCH_COLS; c++)
	{
		b->cols[c].kind = 0;
		b->cols[c].has_nulls = 0;
		b->cols[c].values_off = 0;
		b->cols[c].nulls_off = 0;
	}
	for (c = 0; c < ncols; c++)
	{
		if (b)
		{
			b->cols[c].kind = kinds[c];
			b->cols[c].has_nulls = has_nulls[c];
			b->cols[c].values_off = off;
		}
		off = gdb_align_up(off + capacity * gdb_kind_width(kinds[c]));
		if (b)
			b->cols[c].nulls_off = has_nulls[c] ? off : 0;
		if (has_nulls[c])
			off = gdb_align_up(off + capacity);
	}
	if (b)
	{
		b->magic = GDB_BATCH_MAGIC;
		b->ncols = ncols;
		b->nrows = 0;
		b->capacity = capacity;
		b->total_bytes = off;
	}
	return off;
}

/*
 * gdb_batch_layout_like: gdb_batch_layout of like's columns (their kinds
 * and NULL flags), capacity rows each, for a batch of like's columns; b
 * may be NULL, or like itself.
 */
static inline uint64_t
gdb_batch_layout_like(GdbBatch *b, const GdbBatch *like, uint64_t capacity)
{
	uint32_t	kinds[GDB_MAX_COLUMNS];
	uint32_t	has_nulls[GDB_MAX_COLUMNS];
	uint32_t	ncols = like->ncols < GDB_MAX_COLUMNS ? like->ncols : GDB_MAX_COLUMNS;
	uint32_t	c;

	for (c = 0; c < ncols; c++)
	{
		kinds[c] = like->cols[c].kind;
		has_nulls[c] = like->cols[c].has_nulls;
	}
	return gdb_batch_layout(b, ncols, kinds, has_nulls, capacity);
}

/* Column arrays of a batch at base (host or device address of the buffer). */
/*
 * Offsets are added as unsigned integers (modulo 2^64), so that a view's
 * columns may lie outside, even below, its base (gdb_batch_view).
 */
#define GDB_COL_PTR(base, b, c, type) \
	((type *) ((uintptr_t) (base) + (uintptr_t) (b)->cols[c].values_off))
#define GDB_NULL_PTR(base, b, c) \
	((b)->cols[c].has_nulls ? (uint8_t *) ((uintptr_t) (base) + (uintptr_t) (b)->cols[c].nulls_off) : (uint8_t *) 0)

/* ---- the two implementations ---- */

/*
 * gdb_cpu_execute: run req over input on the CPU.
 *	 input		a batch of input->nrows rows (values or, with
 *				req->input_is_states, partial states)
 *	 alloc		allocates the result batch; called once
 *	 *result	on GDB_OK, a batch of ngroups rows: req->nkeys key columns
 *				(same kinds and NULL flags as the input keys) then req->naggs
 *				STATE columns.  Groups appear in ascending key order, NULL
 *				keys last; each key value is the first row's of its group.
 *				An ordered request (nsort > 0) returns the first
 *				min(limit, ngroups) groups (all when limit == 0) in sort-key
 *				order instead, ties in that group order (see GdbRequest).
 *	 stats		rows in, selected and groups out (groups returned) are added
 * With no group keys, the result has exactly one row (even for no input).
 * Returns a GdbStatus; err->message says more.  Raises nothing; the
 * algorithm is a stable sort of row indices by the keys (qsort_r with the
 * row index as the last key) followed by one sequential pass per group;
 * an ordered request then sorts the group indexes by (NULL rank, sort
 * encoding) per sort key with the group index last (stable) and gathers
 * the first groups into a batch of that many rows, the only one alloc()
 * provides (the unordered groups are built in malloc'd scratch).
 * Ordered requests also fail with GDB_ERR_FLOAT_OVERFLOW (see GdbRequest).
 * A SELECT or SORT request (req->oper) is handed to gdb_cpu_select_sort:
 * every entry point that runs a request runs any operator.
 */
extern int	gdb_cpu_execute(const GdbRequest *req, const GdbBatch *input,
							GdbAllocFn alloc, void *alloc_arg,
							GdbBatch **result, GdbStats *stats, GdbError *err);

/*
 * gdb_cpu_select_sort: run a SELECT or SORT request over input on the CPU.
 *	 *result	on GDB_OK, a batch of req->nout columns (see GdbRequest) and
 *				one row per returned row: for SELECT the selected rows in
 *				input order; for SORT the first min(limit, selected) rows in
 *				sort-key order, ties in input order
 *	 stats		rows_in, rows_selected and groups_out (rows returned) added
 * Algorithm: the filter VM over every row, then (SORT) qsort_r of the
 * selected row ids by the key encodings with the row id as the last key,
 * then a gather of the output columns.  Errors as gdb_cpu_execute's.
 */
extern int	gdb_cpu_select_sort(const GdbRequest *req, const GdbBatch *input,
								GdbAllocFn alloc, void *alloc_arg,
								GdbBatch **result, GdbStats *stats,
								GdbError *err);

/* Opaque per-execution device state (stream, buffers). */
typedef struct GdbCudaExec GdbCudaExec;

/*
 * gdb_cuda_built: 1 if this build contains the CUDA path, else 0.
 */
extern int	gdb_cuda_built(void);

/*
 * gdb_cuda_probe: discover CUDA devices.  Fills up to max entries of devs,
 * sets *ndev.  Returns GDB_OK, or GDB_ERR_NO_DEVICE with err->message naming
 * the reason (no driver, no device, build without CUDA).  Initialises the
 * CUDA runtime in the calling process: never call it in the postmaster.
 */
extern int	gdb_cuda_probe(GdbDeviceInfo *devs, int max, int *ndev,
						   GdbError *err);

/*
 * gdb_cuda_open / gdb_cuda_close: per-execution state on device ordinal:
 * one stream, growing device buffers and pinned host staging buffers.
 * gdb_cuda_close frees all of it and accepts NULL.
 */
extern int	gdb_cuda_open(int ordinal, GdbCudaExec **exec, GdbError *err);
extern void gdb_cuda_close(GdbCudaExec *exec);

/*
 * gdb_cuda_host_alloc: pinned host memory for an input batch (so its copy to
 * the device is asynchronous); NULL on failure.  Freed by gdb_cuda_host_free
 * or at gdb_cuda_close.
 */
extern void *gdb_cuda_host_alloc(GdbCudaExec *exec, size_t bytes);
extern void gdb_cuda_host_free(GdbCudaExec *exec, void *p);

/*
 * gdb_cuda_host_register: page-lock bytes of existing host memory at p (a
 * backend's shared batch buffer as the GPU server maps it), so that copies
 * from it run by DMA at the link's speed instead of through the driver's
 * staging buffers (H200: 55 GB/s against 6.6 GB/s for a 72 MB buffer, and
 * registering it costs 2.4 ms; test/bench/host_copy.cu).  1 when
 * registered, 0 when not (the CUDA error is cleared; the memory is then
 * copied as pageable memory).  gdb_cuda_host_unregister undoes it, waiting
 * for exec's stream first; it ignores memory that was not registered.
 */
extern int	gdb_cuda_host_register(GdbCudaExec *exec, void *p, size_t bytes);
extern void gdb_cuda_host_unregister(GdbCudaExec *exec, void *p);

/*
 * gdb_cuda_execute: the same contract as gdb_cpu_execute, on the device.
 * The algorithm (after the thesis/CUDADB line of work): filter by the opcode
 * VM into flags; compact selected row ids (cub::DeviceSelect::Flagged);
 * order them by the keys with stable LSD passes of cub::DeviceRadixSort over
 * order-preserving 64-bit key encodings; mark group boundaries and compact
 * them to segment offsets; reduce each aggregate per segment
 * (cub::DeviceSegmentedReduce) with the shared combine function.
 * SELECT and SORT requests run the same filter and compaction, then (SORT)
 * the same stable LSD radix passes over the sort keys (descending keys
 * inverted, NULL flags as an extra pass), then gather the output columns;
 * results are identical to gdb_cpu_select_sort's.  An ordered GROUPBY
 * (nsort > 0) builds the unordered groups in device memory only, orders
 * the group ids with the same LSD passes over the finished sort values
 * (cuda/groupby_order.cu), and copies back only the first limit groups
 * (alloc() is asked for that many rows, never for every group).
 */
extern int	gdb_cuda_execute(GdbCudaExec *exec, const GdbRequest *req,
							 const GdbBatch *input, GdbAllocFn alloc,
							 void *alloc_arg, GdbBatch **result,
							 GdbStats *stats, GdbError *err);

/*
 * gdb_request_bind_text: replace every PUSH_TEXT instruction of req (filter
 * and computed columns) by a
 * PUSH_INT of codes[arg] (the dictionary code of text constant arg in the
 * dictionary of the data the request runs on; -1 for a string absent from
 * it, which equals no code).  Returns GDB_ERR_BAD_REQUEST if an arg is out
 * of [0, ncodes).  The CPU and CUDA paths reject unbound PUSH_TEXT.
 */
static inline int
gdb_request_bind_text(GdbRequest *req, const int64_t *codes, uint32_t ncodes)
{
	uint32_t	i;

	for (i = 0; i < req->ninstr + req->neinstr; i++)
	{
		GdbInstr   *in;

		if (i >= GDB_MAX_INSTR + GDB_MAX_EXPR_INSTR ||
			(i >= req->ninstr && i - req->ninstr >= GDB_MAX_EXPR_INSTR) ||
			(i < req->ninstr && i >= GDB_MAX_INSTR))
			return GDB_ERR_BAD_REQUEST;
		in = i < req->ninstr ? &req->program[i] : &req->eprogram[i - req->ninstr];
		if (in->op != GDB_OP_PUSH_TEXT)
			continue;
		if (in->arg < 0 || (uint32_t) in->arg >= ncodes)
			return GDB_ERR_BAD_REQUEST;
		in->op = GDB_OP_PUSH_INT;
		in->ival = codes[in->arg];
	}
	return GDB_OK;
}

/* ---- the column store: a relation's columns resident on one path ---- */

/*
 * A column store holds rows of ncols columns (kinds and NULL flags fixed at
 * creation) in one GdbBatch-layout buffer: device memory on the CUDA path,
 * host memory on the CPU path.  It is what the GPU server keeps for each
 * cached relation.  Appends copy a batch's rows behind the stored ones
 * (growing the buffer by doubling, which needs old + new size while it
 * copies); a group-by runs a request over all stored rows without copying
 * them again.  All functions return a GdbStatus and raise nothing.
 */
typedef struct GdbStore GdbStore;

/*
 * *_store_create: an empty store of ncols columns of the given kinds
 * (GDB_KIND_INT64 / FLOAT64) and NULL flags, with room for capacity rows
 * (0: a small default).  GDB_ERR_OUT_OF_MEMORY when it cannot be allocated.
 */
extern int	gdb_cpu_store_create(uint32_t ncols, const uint32_t *kinds,
								 const uint32_t *has_nulls, uint64_t capacity,
								 GdbStore **store, GdbError *err);
extern int	gdb_cuda_store_create(GdbCudaExec *exec, uint32_t ncols,
								  const uint32_t *kinds, const uint32_t *has_nulls,
								  uint64_t capacity, GdbStore **store,
								  GdbError *err);

/*
 * *_store_append: copy batch->nrows rows of batch (same ncols, kinds and
 * NULL flags as the store, else GDB_ERR_BAD_REQUEST) behind the stored rows.
 * On GDB_ERR_OUT_OF_MEMORY the store is unchanged.  The CUDA copy is
 * asynchronous on the exec's stream when batch is pinned; the call returns
 * after it completed.  stats->bytes_to_device counts the bytes copied.
 */
extern int	gdb_cpu_store_append(GdbStore *store, const GdbBatch *batch,
								 GdbError *err);
extern int	gdb_cuda_store_append(GdbCudaExec *exec, GdbStore *store,
								  const GdbBatch *batch, GdbStats *stats,
								  GdbError *err);

/*
 * *_store_groupby: gdb_cpu_execute's contract, with all stored rows as the
 * input batch (column indexes of req refer to the store's columns).
 */
extern int	gdb_cpu_store_execute(GdbStore *store, const GdbRequest *req,
								  GdbAllocFn alloc, void *alloc_arg,
								  GdbBatch **result, GdbStats *stats,
								  GdbError *err);
extern int	gdb_cuda_store_execute(GdbCudaExec *exec, GdbStore *store,
								   const GdbRequest *req, GdbAllocFn alloc,
								   void *alloc_arg, GdbBatch **result,
								   GdbStats *stats, GdbError *err);

/*
 * *_store_scatter: set row rows[i] of column col (an INT64 column) to
 * vals[i], for i < n, and clear its NULL flag if the column has them.
 * rows[i] must be below the stored row count and col below ncols, else
 * GDB_ERR_BAD_REQUEST (and nothing is written).  Used for the cache's
 * per-row visibility column.  The CUDA version copies rows and vals to the
 * device and scatters with one kernel; it returns when done and adds the
 * copied bytes to stats->bytes_to_device.
 */
extern int	gdb_cpu_store_scatter(GdbStore *store, uint32_t col,
								  const uint32_t *rows, const int64_t *vals,
								  uint64_t n, GdbError *err);
extern int	gdb_cuda_store_scatter(GdbCudaExec *exec, GdbStore *store,
								   uint32_t col, const uint32_t *rows,
								   const int64_t *vals, uint64_t n,
								   GdbStats *stats, GdbError *err);

/* Rows stored, and bytes held (capacity, header included). */
extern uint64_t gdb_store_rows(const GdbStore *store);
extern uint64_t gdb_store_bytes(const GdbStore *store);

/* *_store_free: release the store (NULL allowed). */
extern void gdb_cpu_store_free(GdbStore *store);
extern void gdb_cuda_store_free(GdbStore *store);

/*
 * gdb_cuda_recover: after a GDB_ERR_DEVICE, tell whether exec's device
 * context is still usable (GDB_OK).  If CUDA reports a sticky error, reset
 * the device (every store and exec made before is then lost: their calls
 * return GDB_ERR_DEVICE, and freeing or closing them only releases host
 * memory) and return GDB_ERR_DEVICE.
 */
extern int	gdb_cuda_recover(GdbCudaExec *exec, GdbError *err);

/*
 * gdb_cuda_scratch_bytes: device scratch memory exec holds now (its slots
 * only grow; freed by gdb_cuda_close).  0 for NULL, or in a build without
 * CUDA.
 */
extern uint64_t gdb_cuda_scratch_bytes(GdbCudaExec *exec);

/*
 * gdb_cuda_release_scratch: free exec's scratch buffers, the largest
 * first, until it holds at most keep bytes (0: all); the next request
 * that needs one allocates it again.  Waits for exec's stream first.
 * Returns the bytes freed (0 for NULL, a lost exec, or in a build without
 * CUDA).  The GPU server calls it after every request
 * (GPUDB_SCRATCH_KEPT_DIVISOR), and a column store's allocation, once,
 * when it does not fit (column_store.cu).
 */
extern uint64_t gdb_cuda_release_scratch(GdbCudaExec *exec, uint64_t keep);

/*
 * A result batch kept in device memory of its own (a GpudbJoin's build
 * side the GPU server keeps for the probe, so that it never crosses PCIe).
 */
typedef struct GdbDeviceBuffer GdbDeviceBuffer;

/*
 * gdb_cuda_keep_result: with on = 1, the next result of exec's
 * gdb_cuda_execute or gdb_cuda_store_execute (a SELECT's or an unordered
 * GROUPBY's; any other is returned as usual) is written to a device
 * allocation of its own and not copied back: the host result batch holds
 * its header only (its total_bytes those of the whole batch, its arrays
 * unwritten).  With on > 1, only a result of at least on bytes is kept (a
 * smaller one comes back as usual, sparing the allocation).  If that
 * allocation fails, the result is copied back as usual.  on = 0 ends the
 * mode and frees a kept result not taken.
 */
extern void gdb_cuda_keep_result(GdbCudaExec *exec, int on);

/*
 * gdb_cuda_take_result: the result kept by the last call in
 * gdb_cuda_keep_result's mode (header included, total_bytes bytes), now
 * the caller's to free with gdb_cuda_buffer_free; NULL when that call
 * failed or copied its result back.
 */
extern GdbDeviceBuffer *gdb_cuda_take_result(GdbCudaExec *exec);

/*
 * gdb_cuda_buffer_address: buf's device address, or NULL when a device
 * reset (gdb_cuda_recover) lost it.
 */
extern const void *gdb_cuda_buffer_address(const GdbDeviceBuffer *buf);

/*
 * gdb_cuda_buffer_to_host: copy buf's arrays (all but the header) into
 * host, a batch of buf's layout whose header is written; waits for the
 * copy.  GDB_ERR_DEVICE when the copy fails or buf was lost.
 */
extern int	gdb_cuda_buffer_to_host(GdbCudaExec *exec, const GdbDeviceBuffer *buf,
									GdbBatch *host, GdbError *err);

/*
 * A translation of one dictionary's codes (a cache entry's) into another's
 * (a probe relation's), kept in device memory: entry c holds the other
 * dictionary's code of code c, or nothing yet.  Made and grown by
 * gdb_cuda_code_map_missing, freed by gdb_cuda_code_map_free; 8 bytes
 * a code plus a bit.
 */
typedef struct GdbDeviceCodeMap GdbDeviceCodeMap;

/*
 * gdb_cuda_code_map_missing: the codes that columns cols[0, ncols) of buf
 * (header hdr, the host's copy; INT64 columns of codes in [0, ncodes))
 * hold in rows that are not NULL and that *map does not translate yet:
 * their number in *nmissing and, ascending, the codes in *missing (from
 * alloc(alloc_arg, bytes); NULL when there are none).  *map is
 * made first when NULL (or lost in a device reset, or of another device),
 * or grown to ncodes entries, the new ones untranslated.  One pass over
 * the rows on the device; the host reads a counter and, when some code is
 * missing, a bitmap of ncodes bits.  Waits for the device.
 * GDB_ERR_DEVICE, GDB_ERR_BAD_REQUEST (a column not INT64) or
 * GDB_ERR_OUT_OF_MEMORY (alloc returned NULL too).
 */
extern int	gdb_cuda_code_map_missing(GdbCudaExec *exec, GdbDeviceCodeMap **map,
									  uint64_t ncodes, const GdbDeviceBuffer *buf,
									  const GdbBatch *hdr, const uint32_t *cols, uint32_t ncols,
									  GdbAllocFn alloc, void *alloc_arg, int64_t **missing,
									  uint64_t *nmissing, GdbError *err);

/*
 * gdb_cuda_code_map_apply: record to[i] as the translation of code from[i]
 * in map (host arrays of n codes, each below the map's size: the codes
 * gdb_cuda_code_map_missing found), then replace every code of columns
 * cols[0, ncols) of buf in a row that is not NULL by its translation (a
 * code without one is left as it is).  Waits for the device.
 * GDB_ERR_DEVICE (map or buf lost), GDB_ERR_BAD_REQUEST or
 * GDB_ERR_OUT_OF_MEMORY.
 */
extern int	gdb_cuda_code_map_apply(GdbCudaExec *exec, GdbDeviceCodeMap *map,
									const int64_t *from, const int64_t *to, uint64_t n,
									const GdbDeviceBuffer *buf, const GdbBatch *hdr,
									const uint32_t *cols, uint32_t ncols, GdbError *err);

/* gdb_cuda_code_map_free: release map (NULL allowed; waits for the device). */
extern void gdb_cuda_code_map_free(GdbDeviceCodeMap *map);

/* gdb_cuda_buffer_free: release buf (NULL allowed; waits for the device). */
extern void gdb_cuda_buffer_free(GdbDeviceBuffer *buf);

/*
 * gdb_cuda_store_append_kept: gdb_cuda_store_append's contract, the rows
 * being those of a result kept on a device (buf, gdb_cuda_take_result;
 * hdr its header, as the host received it) instead of a host batch: a
 * shard's partial result gathered for the combine.  buf may be on another
 * device than the store (copied peer to peer); it is not freed.
 * stats->bytes_to_device counts bytes that came from another device.
 * GDB_ERR_DEVICE when buf was lost in a device reset.
 */
extern int	gdb_cuda_store_append_kept(GdbCudaExec *exec, GdbStore *store,
									   const GdbBatch *hdr, const GdbDeviceBuffer *buf,
									   GdbStats *stats, GdbError *err);

#ifdef __cplusplus
}
#endif

#endif							/* GPUDB_DEVICE_H */
