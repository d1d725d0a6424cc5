/*-------------------------------------------------------------------------
 *
 * cpu_path.c
 *	  The CPU implementation of a group-by over a column batch
 *	  (gdb_cpu_execute, see gpudb_device.h), and the request/batch validation
 *	  that the CUDA path shares with it.
 *
 * Plain C99 plus glibc's qsort_r: no PostgreSQL header, no longjmp, so the
 * device self-test (test/device_selftest.c) compiles it standalone.  Scratch
 * memory comes from malloc and is freed on every return path; the result
 * batch comes from the caller's allocator.
 *
 * Algorithm:
 *	 1. evaluate the filter program (gdb_vm_eval) for every row in row order;
 *		the first row that raises decides the returned status;
 *	 2. encode the group keys of the selected rows (gdb_key_encode_*; NULL
 *		keys get encoding 0 and a null flag that sorts after every value);
 *	 3. qsort_r the selected positions by (null flag, encoding) per key, the
 *		position last, so the sort is stable and each group's first row is
 *		its first row in input order;
 *	 4. one sequential pass per group and aggregate folds the rows' states
 *		with gdb_state_combine;
 *	 5. an ordered request (nsort > 0) orders and cuts the groups
 *		(gdb_cpu_order_groups in cpu_select_sort.c).
 * The CUDA path (cuda/groupby_kernels.cu) produces the same groups in the
 * same order with the same key values.
 *
 *-------------------------------------------------------------------------
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE				/* qsort_r */
#endif

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cpu_hash_join.h"
#include "gpudb_semantics.h"

/*
 * Shared with the CUDA path (declared again in cuda/cuda_exec.cuh); not
 * part of the boundary header.
 */
extern int	gdb_cpu_validate_request(const GdbRequest *req,
									 const GdbBatch *input, GdbError *err);
extern const char *gdb_cpu_status_text(int status);
extern int	gdb_cpu_select_rows(const GdbRequest *req, const GdbBatch *input,
								uint64_t **sel, uint64_t *nsel,
								const GdbBatch **view, GdbError *err);
extern int	gdb_cpu_validate_batch(const GdbBatch *batch, GdbError *err);
extern int	gdb_cpu_order_groups(const GdbRequest *req, const GdbBatch *groups,
								 GdbAllocFn alloc, void *alloc_arg,
								 GdbBatch **result, GdbError *err);

/* Stack effect of every opcode, from the X-macro table. */
static const signed char gdb_op_effect[GDB_OP__COUNT] = {
#define GDB_OPCODE_EFFECT(name, effect, raises, doc) effect,
	GDB_OPCODE_LIST(GDB_OPCODE_EFFECT)
#undef GDB_OPCODE_EFFECT
};

/* see gpudb_device.h */
int
gdb_error_set(GdbError *err, int status, const char *fmt,...)
{
	va_list		ap;

	if (err == NULL)
		return status;
	err->status = status;
	va_start(ap, fmt);
	vsnprintf(err->message, sizeof(err->message), fmt, ap);
	va_end(ap);
	err->message[sizeof(err->message) - 1] = '\0';
	return status;
}

static void
gdb_set_ok(GdbError *err)
{
	err->status = GDB_OK;
	err->message[0] = '\0';
}

/*
 * gdb_cpu_status_text: PostgreSQL's message text for a status raised by the
 * filter (e.g. "division by zero"), or a short description of the others.
 * Never NULL.
 */
const char *
gdb_cpu_status_text(int status)
{
	switch (status)
	{
		case GDB_OK:
			return "success";
		case GDB_ERR_INT2_RANGE:
			return "smallint out of range";
		case GDB_ERR_INT4_RANGE:
			return "integer out of range";
		case GDB_ERR_INT8_RANGE:
			return "bigint out of range";
		case GDB_ERR_DIV_ZERO:
			return "division by zero";
		case GDB_ERR_FLOAT_OVERFLOW:
			return "value out of range: overflow";
		case GDB_ERR_FLOAT_UNDERFLOW:
			return "value out of range: underflow";
		case GDB_ERR_BAD_REQUEST:
			return "malformed request or batch";
		case GDB_ERR_OUT_OF_MEMORY:
			return "out of memory";
		case GDB_ERR_NO_DEVICE:
			return "no usable CUDA device";
		case GDB_ERR_DEVICE:
			return "CUDA failure";
		case GDB_ERR_NUMERIC_FIELD:
			return "numeric field overflow";
		case GDB_ERR_FIXED_POINT:
			return "numeric value out of range for the fixed point";
		case GDB_ERR_DATE_RANGE:
			return "date out of range";
		case GDB_ERR_TIMESTAMP_RANGE:
			return "timestamp out of range";
		case GDB_ERR_DATE_TS_RANGE:
			return "date out of range for timestamp";
		case GDB_ERR_INFINITE_DATES:
			return "cannot subtract infinite dates";
		case GDB_ERR_NAN_TO_INT:
			return "cannot convert NaN to integer";
		case GDB_ERR_NAN_TO_BIGINT:
			return "cannot convert NaN to bigint";
		case GDB_ERR_NAN_TO_SMALLINT:
			return "cannot convert NaN to smallint";
		case GDB_ERR_JOIN_DUPLICATE:
			return "a join's build side is not unique on its keys";
	}
	return "unknown status";
}

/* Does [off, off + count * width) lie within total bytes?  Overflow-safe. */
static int
gdb_range_ok(uint64_t off, uint64_t count, uint64_t width, uint64_t total)
{
	return off <= total && count <= (total - off) / width;
}

static int
gdb_validate_batch(const GdbBatch *b, GdbError *err)
{
	uint32_t	c;

	if (b == NULL)
		return gdb_error_set(err, GDB_ERR_BAD_REQUEST, "input batch is NULL");
	if (b->magic != GDB_BATCH_MAGIC)
		return gdb_error_set(err, GDB_ERR_BAD_REQUEST,
							 "input batch has bad magic 0x%08x", (unsigned) b->magic);
	if (b->ncols > GDB_MAX_COLUMNS)
		return gdb_error_set(err, GDB_ERR_BAD_REQUEST,
							 "input batch has %u columns (at most %d)",
							 (unsigned) b->ncols, GDB_MAX_COLUMNS);
	if (b->nrows > b->capacity)
		return gdb_error_set(err, GDB_ERR_BAD_REQUEST,
							 "input batch has %llu rows but capacity %llu",
							 (unsigned long long) b->nrows,
							 (unsigned long long) b->capacity);
	if (b->total_bytes < sizeof(GdbBatch))
		return gdb_error_set(err, GDB_ERR_BAD_REQUEST,
							 "input batch total_bytes %llu is smaller than its header",
							 (unsigned long long) b->total_bytes);
	for (c = 0; c < b->ncols; c++)
	{
		const GdbColumnDesc *d = &b->cols[c];

		if (d->kind > GDB_KIND_STATE || d->has_nulls > 1)
			return gdb_error_set(err, GDB_ERR_BAD_REQUEST,
								 "input column %u has bad kind %u or null flag %u",
								 c, (unsigned) d->kind, (unsigned) d->has_nulls);
		if (d->values_off < sizeof(GdbBatch) || d->values_off % 8 != 0 ||
			!gdb_range_ok(d->values_off, b->capacity, gdb_kind_width(d->kind),
						  b->total_bytes))
			return gdb_error_set(err, GDB_ERR_BAD_REQUEST,
								 "input column %u values (offset %llu) do not fit the batch",
								 c, (unsigned long long) d->values_off);
		if (d->has_nulls &&
			(d->nulls_off < sizeof(GdbBatch) ||
			 !gdb_range_ok(d->nulls_off, b->capacity, 1, b->total_bytes)))
			return gdb_error_set(err, GDB_ERR_BAD_REQUEST,
								 "input column %u null flags (offset %llu) do not fit the batch",
								 c, (unsigned long long) d->nulls_off);
	}
	return GDB_OK;
}

/*
 * gdb_cpu_validate_batch: check a batch header before anything reads the
 * arrays: magic, ncols <= GDB_MAX_COLUMNS, nrows <= capacity, total_bytes
 * covers the header, every column's kind and null flag valid and its
 * values (capacity * width bytes, 8-byte aligned) and null flags (capacity
 * bytes) within total_bytes.  Returns GDB_OK or GDB_ERR_BAD_REQUEST with
 * the first problem in err->message (err may be NULL).  Declared in
 * column_store.h.
 */
int
gdb_cpu_validate_batch(const GdbBatch *batch, GdbError *err)
{
	GdbError	dummy;

	return gdb_validate_batch(batch, err ? err : &dummy);
}

/*
 * Is col a valid value (INT64 or FLOAT64) column of b?  A computed or
 * join payload column only in the shape the validator builds (its NULL
 * flags set; every slot of such a column the request does not define is
 * zeroed there).
 */
static int
gdb_value_col_ok(const GdbBatch *b, int32_t col)
{
	if ((col >= GDB_MAX_COLUMNS && col < GDB_EXPR_COL(GDB_MAX_EXPRS)) ||
		(col >= GDB_JOIN_COL(0) && col < GDB_JOIN_COL(GDB_MAX_JOIN_COLS)))
		return b->cols[col].has_nulls == 1 &&
			b->cols[col].kind != GDB_KIND_STATE;
	return col >= 0 && (uint32_t) col < b->ncols &&
		b->cols[col].kind != GDB_KIND_STATE;
}

/*
 * Filter program checks: known opcodes, column and width operands, forward
 * jump targets within the program (so evaluation always ends), and a stack
 * depth at every instruction that is the same along every path, never
 * underflows, never exceeds GDB_MAX_STACK and is 1 at the end; no unbound
 * text constant (PUSH_TEXT, stack effect +1 like every push, must have been
 * replaced by gdb_request_bind_text); TEXT_IN_SET and TEXT_MAP name a
 * code table of req of their kind (bit or word table; the tables are
 * checked by gdb_validate_tables).  With these, gdb_vm_eval cannot read
 * or write outside its stack, the batch or the tables, and never meets
 * PUSH_TEXT.
 */
static int
gdb_validate_code(const GdbRequest *req, const GdbInstr *code, int n,
				  const GdbBatch *b, GdbError *err)
{
	int			depth[GDB_MAX_INSTR + 1];
	int			pc;

	if (n == 0)
		return GDB_OK;
	if (n > GDB_MAX_INSTR)
		return gdb_error_set(err, GDB_ERR_BAD_REQUEST,
							 "program has %d instructions (at most %d)",
							 n, GDB_MAX_INSTR);
	for (pc = 0; pc <= n; pc++)
		depth[pc] = -1;
	depth[0] = 0;
	for (pc = 0; pc < n; pc++)
	{
		const GdbInstr *in = &code[pc];
		int			d = depth[pc];
		int			eff,
					need,
					next;

		if (in->op >= GDB_OP__COUNT)
			return gdb_error_set(err, GDB_ERR_BAD_REQUEST,
								 "filter instruction %d has unknown opcode %u",
								 pc, (unsigned) in->op);
		eff = gdb_op_effect[in->op];
		need = eff > 0 ? 0 : (eff < 0 ? 2 : 1);
		if (d < need)
			return gdb_error_set(err, GDB_ERR_BAD_REQUEST,
								 "filter instruction %d underflows the stack", pc);
		next = d + eff;
		if (next > GDB_MAX_STACK)
			return gdb_error_set(err, GDB_ERR_BAD_REQUEST,
								 "filter instruction %d overflows the %d-entry stack",
								 pc, GDB_MAX_STACK);
		switch (in->op)
		{
			case GDB_OP_PUSH_TEXT:
				/* gdb_request_bind_text must have replaced it */
				return gdb_error_set(err, GDB_ERR_BAD_REQUEST,
									 "filter instruction %d is an unbound text constant (PUSH_TEXT %d)",
									 pc, (int) in->arg);
			case GDB_OP_PUSH_COL:
				if (!gdb_value_col_ok(b, in->arg))
					return gdb_error_set(err, GDB_ERR_BAD_REQUEST,
										 "filter instruction %d reads column %d, not a value column of the %u-column batch",
										 pc, (int) in->arg, (unsigned) b->ncols);
				break;
			case GDB_OP_INT_ADD:
			case GDB_OP_INT_SUB:
			case GDB_OP_INT_MUL:
			case GDB_OP_INT_DIV:
			case GDB_OP_INT_MOD:
			case GDB_OP_INT_NEG:
				if (in->width != 2 && in->width != 4 && in->width != 8)
					return gdb_error_set(err, GDB_ERR_BAD_REQUEST,
										 "filter instruction %d has integer width %u (2, 4 or 8)",
										 pc, (unsigned) in->width);
				break;
			case GDB_OP_FLT_ADD:
			case GDB_OP_FLT_SUB:
			case GDB_OP_FLT_MUL:
			case GDB_OP_FLT_DIV:
				if (in->width != 4 && in->width != 8)
					return gdb_error_set(err, GDB_ERR_BAD_REQUEST,
										 "filter instruction %d has float width %u (4 or 8)",
										 pc, (unsigned) in->width);
				break;
			case GDB_OP_INT_ABS:
			case GDB_OP_FLT_TO_INT:
			case GDB_OP_NUM_TO_INT:
				if (in->width != 2 && in->width != 4 && in->width != 8)
					return gdb_error_set(err, GDB_ERR_BAD_REQUEST,
										 "filter instruction %d has integer width %u (2, 4 or 8)",
										 pc, (unsigned) in->width);
				if (in->op == GDB_OP_NUM_TO_INT && (in->ival < 0 || in->ival > 18))
					return gdb_error_set(err, GDB_ERR_BAD_REQUEST,
										 "filter instruction %d has scale %lld (0 to 18)",
										 pc, (long long) in->ival);
				break;
			case GDB_OP_NUM_RESCALE:
			case GDB_OP_NUM_ROUND:
			case GDB_OP_NUM_TO_FLT:
				if (in->ival < 0 || in->ival > 18 || in->width > 8)
					return gdb_error_set(err, GDB_ERR_BAD_REQUEST,
										 "filter instruction %d has scale %lld (0 to 18)",
										 pc, (long long) in->ival);
				break;
			case GDB_OP_TEXT_IN_SET:
			case GDB_OP_TEXT_MAP:
				if (in->arg < 0 || (uint32_t) in->arg >= req->ntables ||
					GDB_TFN_IS_MAP(req->tables[in->arg].fn) !=
					(in->op == GDB_OP_TEXT_MAP))
					return gdb_error_set(err, GDB_ERR_BAD_REQUEST,
										 "filter instruction %d reads code table %d, not a %s table of the request's %u",
										 pc, (int) in->arg,
										 in->op == GDB_OP_TEXT_MAP ? "word" : "bit",
										 (unsigned) req->ntables);
				break;
			case GDB_OP_TS_TRUNC:
			case GDB_OP_DATE_PART:
				if (in->arg < 0 || in->arg > GDB_FIELD_EPOCH)
					return gdb_error_set(err, GDB_ERR_BAD_REQUEST,
										 "filter instruction %d has date field %d",
										 pc, (int) in->arg);
				break;
			case GDB_OP_JUMP_IF_FALSE:
			case GDB_OP_JUMP_IF_TRUE:
			case GDB_OP_JUMP:
			case GDB_OP_JUMP_IF_NOT_TRUE:
			case GDB_OP_JUMP_IF_NOT_NULL:
				if (in->arg <= pc || in->arg > n)
					return gdb_error_set(err, GDB_ERR_BAD_REQUEST,
										 "filter instruction %d jumps to %d (must be forward, at most %d)",
										 pc, (int) in->arg, n);
				/* the jump keeps the tested value on the stack */
				if (depth[in->arg] >= 0 && depth[in->arg] != d)
					return gdb_error_set(err, GDB_ERR_BAD_REQUEST,
										 "filter instruction %d reaches %d with a different stack depth",
										 pc, (int) in->arg);
				depth[in->arg] = d;
				break;
			default:
				break;
		}
		if (depth[pc + 1] >= 0 && depth[pc + 1] != next)
			return gdb_error_set(err, GDB_ERR_BAD_REQUEST,
								 "filter instruction %d is reached with different stack depths",
								 pc + 1);
		depth[pc + 1] = next;
	}
	if (depth[n] != 1)
		return gdb_error_set(err, GDB_ERR_BAD_REQUEST,
							 "program leaves %d values on the stack (must be 1)",
							 depth[n]);
	return GDB_OK;
}

/*
 * The code tables: at most GDB_MAX_CODE_TABLES, known functions, each
 * table's words (GDB_TABLE_WORDS from word_off) within the ntable_words
 * words at table_words, which must be set when there are any.
 */
static int
gdb_validate_tables(const GdbRequest *req, GdbError *err)
{
	uint32_t	j;

	if (req->ntables > GDB_MAX_CODE_TABLES)
		return gdb_error_set(err, GDB_ERR_BAD_REQUEST,
							 "request has %u code tables (at most %d)",
							 (unsigned) req->ntables, GDB_MAX_CODE_TABLES);
	if (req->ntable_words > 0 && req->table_words == NULL)
		return gdb_error_set(err, GDB_ERR_BAD_REQUEST,
							 "request has %llu code table words but no address for them",
							 (unsigned long long) req->ntable_words);
	for (j = 0; j < req->ntables; j++)
	{
		const GdbCodeTable *t = &req->tables[j];

		if (t->fn > GDB_TFN_LAST)
			return gdb_error_set(err, GDB_ERR_BAD_REQUEST,
								 "code table %u has unknown function %u",
								 j, (unsigned) t->fn);
		if (t->ncodes > ((uint64_t) 1 << 48) ||
			t->word_off > req->ntable_words ||
			GDB_TABLE_WORDS(t) > req->ntable_words - t->word_off)
			return gdb_error_set(err, GDB_ERR_BAD_REQUEST,
								 "code table %u (%llu codes from word %llu) is not within the %llu words",
								 j, (unsigned long long) t->ncodes,
								 (unsigned long long) t->word_off,
								 (unsigned long long) req->ntable_words);
	}
	return GDB_OK;
}

/* The filter program: over the stored columns only. */
static int
gdb_validate_program(const GdbRequest *req, const GdbBatch *b, GdbError *err)
{
	return gdb_validate_code(req, req->program, (int) req->ninstr, b, err);
}

/*
 * The computed columns: limits, kinds, program spans within eprogram, each
 * program valid over the stored and join payload columns of input (not
 * over computed ones).  Then *shape = input's header with the computed
 * columns' slots (kind, NULL flags; offsets 0) and every other computed
 * slot zeroed, for checking the columns the operator names.
 */
static int
gdb_validate_exprs(const GdbRequest *req, const GdbBatch *input,
				   GdbBatch *shape, GdbError *err)
{
	uint32_t	j;
	int			st;

	if (req->nexprs > GDB_MAX_EXPRS || req->neinstr > GDB_MAX_EXPR_INSTR)
		return gdb_error_set(err, GDB_ERR_BAD_REQUEST,
							 "request has %u computed columns of %u instructions (at most %d and %d)",
							 (unsigned) req->nexprs, (unsigned) req->neinstr,
							 GDB_MAX_EXPRS, GDB_MAX_EXPR_INSTR);
	*shape = *input;
	memset(&shape->cols[GDB_MAX_COLUMNS], 0,
		   sizeof(GdbColumnDesc) * GDB_MAX_EXPRS);
	for (j = 0; j < req->nexprs; j++)
	{
		const GdbExprSpec *e = &req->exprs[j];

		if (e->kind != GDB_KIND_INT64 && e->kind != GDB_KIND_FLOAT64)
			return gdb_error_set(err, GDB_ERR_BAD_REQUEST,
								 "computed column %u has kind %u", j, (unsigned) e->kind);
		if (e->len == 0 || e->start > req->neinstr || e->len > req->neinstr - e->start)
			return gdb_error_set(err, GDB_ERR_BAD_REQUEST,
								 "computed column %u's program [%u, +%u) is not within the %u instructions",
								 j, (unsigned) e->start, (unsigned) e->len,
								 (unsigned) req->neinstr);
		st = gdb_validate_code(req, &req->eprogram[e->start], (int) e->len, input, err);
		if (st != GDB_OK)
			return st;
		shape->cols[GDB_EXPR_COL(j)].kind = e->kind;
		shape->cols[GDB_EXPR_COL(j)].has_nulls = 1;
	}
	return GDB_OK;
}

/*
 * gdb_cpu_validate_request: check req against input before either path
 * touches the data: batch header (magic, column count, offsets and sizes
 * within total_bytes, nrows <= capacity), limits (keys, aggregates,
 * instructions), key columns (in range, INT64 or FLOAT64), aggregate input
 * columns (kind matching the aggregate kind; STATE columns when
 * input_is_states; -1 for count(*) on values), the code tables (within
 * the words at table_words: gdb_validate_tables), the filter program (see
 * gdb_validate_program; an unbound PUSH_TEXT is "unbound text constant")
 * and, for GROUPBY, the order: at most GDB_MAX_SORT_KEYS sort keys, each
 * naming a result column (a group key, or an aggregate of an orderable
 * kind: gdb_order_agg_kind_ok) with 0/1 flags, and no limit without sort
 * keys.  An order is accepted with input_is_states (the final combine of
 * a multi-batch run; only the caller knows it is the final one).  Returns
 * GDB_OK, or GDB_ERR_BAD_REQUEST with the first problem in err->message.
 */
int
gdb_cpu_validate_request(const GdbRequest *req, const GdbBatch *input,
						 GdbError *err)
{
	uint32_t	i;
	int			st;
	GdbBatch	shape;
	GdbBatch	joined;
	const GdbBatch *stored = input;

	if (req == NULL)
		return gdb_error_set(err, GDB_ERR_BAD_REQUEST, "request is NULL");
	st = gdb_validate_batch(input, err);
	if (st != GDB_OK)
		return st;
	st = gdb_validate_tables(req, err);
	if (st != GDB_OK)
		return st;
	/* the join probes add payload columns, which computed columns may read */
	joined = *input;
	st = gdb_cpu_validate_joins(req, &joined, err);
	if (st != GDB_OK)
		return st;
	/*
	 * the operator reads stored, payload and computed columns; the filter
	 * only stored ones
	 */
	st = gdb_validate_exprs(req, &joined, &shape, err);
	if (st != GDB_OK)
		return st;
	input = &shape;
	if (req->nexprs > 0 && req->input_is_states)
		return gdb_error_set(err, GDB_ERR_BAD_REQUEST,
							 "a request that combines states has no computed columns");
	if (req->oper > GDB_OPER_SORT)
		return gdb_error_set(err, GDB_ERR_BAD_REQUEST,
							 "request has unknown operator %u", (unsigned) req->oper);
	if (req->oper != GDB_OPER_GROUPBY)
	{
		if (req->nkeys != 0 || req->naggs != 0 || req->input_is_states != 0)
			return gdb_error_set(err, GDB_ERR_BAD_REQUEST,
								 "a SELECT or SORT request has no group keys, aggregates or states");
		if (req->nout == 0 || req->nout > GDB_MAX_COLUMNS)
			return gdb_error_set(err, GDB_ERR_BAD_REQUEST,
								 "request has %u output columns (1 to %d)",
								 (unsigned) req->nout, GDB_MAX_COLUMNS);
		for (i = 0; i < req->nout; i++)
			if (!gdb_value_col_ok(input, req->out_cols[i]))
				return gdb_error_set(err, GDB_ERR_BAD_REQUEST,
									 "output column %u names column %d, not a value column of the %u-column batch",
									 i, (int) req->out_cols[i], (unsigned) input->ncols);
		if (req->oper == GDB_OPER_SORT &&
			(req->nsort == 0 || req->nsort > GDB_MAX_SORT_KEYS))
			return gdb_error_set(err, GDB_ERR_BAD_REQUEST,
								 "sort request has %u sort keys (1 to %d)",
								 (unsigned) req->nsort, GDB_MAX_SORT_KEYS);
		if (req->oper == GDB_OPER_SORT)
			for (i = 0; i < req->nsort; i++)
				if (!gdb_value_col_ok(input, req->sort_keys[i].col) ||
					req->sort_keys[i].descending > 1 ||
					req->sort_keys[i].nulls_first > 1)
					return gdb_error_set(err, GDB_ERR_BAD_REQUEST,
										 "sort key %u (column %d) is not a value column of the %u-column batch with 0/1 flags",
										 i, (int) req->sort_keys[i].col, (unsigned) input->ncols);
		if (req->ninstr > GDB_MAX_INSTR)
			return gdb_error_set(err, GDB_ERR_BAD_REQUEST,
								 "filter program has %u instructions (at most %d)",
								 (unsigned) req->ninstr, GDB_MAX_INSTR);
		return gdb_validate_program(req, stored, err);
	}
	if (req->nkeys > GDB_MAX_GROUP_KEYS)
		return gdb_error_set(err, GDB_ERR_BAD_REQUEST,
							 "request has %u group keys (at most %d)",
							 (unsigned) req->nkeys, GDB_MAX_GROUP_KEYS);
	if (req->naggs > GDB_MAX_AGGREGATES)
		return gdb_error_set(err, GDB_ERR_BAD_REQUEST,
							 "request has %u aggregates (at most %d)",
							 (unsigned) req->naggs, GDB_MAX_AGGREGATES);
	if (req->ninstr > GDB_MAX_INSTR)
		return gdb_error_set(err, GDB_ERR_BAD_REQUEST,
							 "filter program has %u instructions (at most %d)",
							 (unsigned) req->ninstr, GDB_MAX_INSTR);
	if (req->input_is_states > 1)
		return gdb_error_set(err, GDB_ERR_BAD_REQUEST,
							 "input_is_states is %u (0 or 1)",
							 (unsigned) req->input_is_states);
	if (req->nkeys + req->naggs > GDB_MAX_COLUMNS)
		return gdb_error_set(err, GDB_ERR_BAD_REQUEST,
							 "result would have %u columns (at most %d)",
							 (unsigned) (req->nkeys + req->naggs), GDB_MAX_COLUMNS);
	/* an ordered group-by: sort keys name result columns (see GdbRequest) */
	if (req->nsort > GDB_MAX_SORT_KEYS)
		return gdb_error_set(err, GDB_ERR_BAD_REQUEST,
							 "group-by request has %u sort keys (at most %d)",
							 (unsigned) req->nsort, GDB_MAX_SORT_KEYS);
	if (req->nsort == 0 && req->limit != 0)
		return gdb_error_set(err, GDB_ERR_BAD_REQUEST,
							 "group-by request has a limit but no sort keys");
	for (i = 0; i < req->nsort; i++)
	{
		const GdbSortKey *sk = &req->sort_keys[i];

		if (sk->col < 0 || (uint32_t) sk->col >= req->nkeys + req->naggs ||
			sk->descending > 1 || sk->nulls_first > 1)
			return gdb_error_set(err, GDB_ERR_BAD_REQUEST,
								 "sort key %u names result column %d, not one of the %u group keys and aggregates, or has flags other than 0/1",
								 i, (int) sk->col, (unsigned) (req->nkeys + req->naggs));
		if (sk->exact != 0 &&
			((uint32_t) sk->col < req->nkeys ||
			 req->aggs[sk->col - req->nkeys].kind != GDB_AGG_SUM_INT ||
			 !(sk->exact & GDB_SORT_EXACT_SUM) ||
			 GDB_SORT_NAN_STATE(sk->exact) >= (int) req->naggs ||
			 (GDB_SORT_NAN_STATE(sk->exact) >= 0 &&
			  req->aggs[GDB_SORT_NAN_STATE(sk->exact)].kind != GDB_AGG_MAX_INT)))
			return gdb_error_set(err, GDB_ERR_BAD_REQUEST,
								 "sort key %u has exact flags 0x%x that do not fit its aggregate",
								 i, (unsigned) sk->exact);
		if ((uint32_t) sk->col >= req->nkeys &&
			!gdb_order_agg_kind_ok(req->aggs[sk->col - req->nkeys].kind))
			return gdb_error_set(err, GDB_ERR_BAD_REQUEST,
								 "sort key %u orders by aggregate %u of kind %u, which has no orderable value",
								 i, (unsigned) (sk->col - req->nkeys),
								 (unsigned) req->aggs[sk->col - req->nkeys].kind);
	}
	/* distinct counts of the last key: the shape GdbRequest describes */
	if (req->distinct_last_key > 1 ||
		(req->distinct_last_key &&
		 (req->nkeys == 0 || req->naggs != 1 ||
		  req->aggs[0].kind != GDB_AGG_COUNT_STAR || req->nsort != req->nkeys ||
		  req->limit != 0 || req->nhaving != 0)))
		return gdb_error_set(err, GDB_ERR_BAD_REQUEST,
							 "distinct_last_key %u needs keys, count(*) alone, the keys as sort keys, no limit and no group qualifier",
							 (unsigned) req->distinct_last_key);
	for (i = 0; i < req->nsort && req->distinct_last_key; i++)
		if (req->sort_keys[i].col != (int32_t) i)
			return gdb_error_set(err, GDB_ERR_BAD_REQUEST,
								 "distinct_last_key: sort key %u names column %d, not group key %u",
								 i, (int) req->sort_keys[i].col, i);
	/* a group qualifier: orderable aggregates of the request */
	if (req->nhaving > GDB_MAX_HAVING)
		return gdb_error_set(err, GDB_ERR_BAD_REQUEST,
							 "group-by request has %u group qualifier terms (at most %d)",
							 (unsigned) req->nhaving, GDB_MAX_HAVING);
	for (i = 0; i < req->nhaving; i++)
	{
		const GdbHavingTerm *t = &req->having[i];

		if (t->agg >= req->naggs || t->op > GDB_HAVING_NEVER ||
			!gdb_order_agg_kind_ok(req->aggs[t->agg].kind) ||
			req->aggs[t->agg].kind == GDB_AGG_SUM_FLOAT ||
			t->nan_state > req->naggs ||
			(t->nan_state > 0 &&
			 (req->aggs[t->agg].kind != GDB_AGG_SUM_INT ||
			  req->aggs[t->nan_state - 1].kind != GDB_AGG_MAX_INT)))
			return gdb_error_set(err, GDB_ERR_BAD_REQUEST,
								 "group qualifier term %u (aggregate %u, operator %u) does not fit the request",
								 i, (unsigned) t->agg, (unsigned) t->op);
	}
	for (i = 0; i < req->nkeys; i++)
		if (!gdb_value_col_ok(input, req->key_cols[i]))
			return gdb_error_set(err, GDB_ERR_BAD_REQUEST,
								 "group key %u names column %d, not a value column of the %u-column batch",
								 i, (int) req->key_cols[i], (unsigned) input->ncols);
	for (i = 0; i < req->naggs; i++)
	{
		uint32_t	kind = req->aggs[i].kind;
		int32_t		col = req->aggs[i].input_col;
		uint32_t	want;

		if (kind > GDB_AGG_LAST_KIND)
			return gdb_error_set(err, GDB_ERR_BAD_REQUEST,
								 "aggregate %u has unknown kind %u", i, (unsigned) kind);
		if (!req->input_is_states && kind == GDB_AGG_COUNT_STAR)
		{
			if (col != -1)
				return gdb_error_set(err, GDB_ERR_BAD_REQUEST,
									 "aggregate %u is count(*) but has input column %d (must be -1)",
									 i, (int) col);
			continue;
		}
		if (col < 0 || ((uint32_t) col >= input->ncols &&
						!(((col >= GDB_MAX_COLUMNS && col < GDB_EXPR_COL(GDB_MAX_EXPRS)) ||
						   (col >= GDB_JOIN_COL(0) && col < GDB_JOIN_COL(GDB_MAX_JOIN_COLS))) &&
						  input->cols[col].has_nulls == 1)))
			return gdb_error_set(err, GDB_ERR_BAD_REQUEST,
								 "aggregate %u names column %d of the %u-column batch",
								 i, (int) col, (unsigned) input->ncols);
		if (req->input_is_states)
			want = GDB_KIND_STATE;
		else if (kind == GDB_AGG_SUM_INT || kind == GDB_AGG_MIN_INT ||
				 kind == GDB_AGG_MAX_INT || kind == GDB_AGG_SUMSQ_INT)
			want = GDB_KIND_INT64;
		else if (kind == GDB_AGG_SUM_FLOAT || kind == GDB_AGG_MIN_FLOAT ||
				 kind == GDB_AGG_MAX_FLOAT || kind == GDB_AGG_VAR_FLOAT ||
				 kind == GDB_AGG_SUM_FLOAT4)
			want = GDB_KIND_FLOAT64;
		else
			want = input->cols[col].kind == GDB_KIND_STATE ?
				GDB_KIND_INT64 : input->cols[col].kind; /* count(x): any value */
		if (input->cols[col].kind != want)
			return gdb_error_set(err, GDB_ERR_BAD_REQUEST,
								 "aggregate %u (kind %u) reads column %d of kind %u, expected kind %u",
								 i, (unsigned) kind, (int) col,
								 (unsigned) input->cols[col].kind, (unsigned) want);
	}
	return gdb_validate_program(req, stored, err);
}

/*
 * gdb_cpu_select_rows: the start every CPU operator shares: validate req
 * against input (gdb_cpu_validate_request), then run the filter program
 * over every row in row order and, for each selected row, the join probe
 * step (req->njoins > 0: the hash tables of gdb_cpu_join_build probed by
 * gdb_hj_probe_row, which drops the rows a join does not keep and fills
 * the payload columns) and the program of each computed column
 * (gdb_batch_view), the programs reading req's code tables at
 * req->table_words (gdb_batch_attach_tables on a copy of the header they
 * run over); *sel receives a malloc'd array (room for input->nrows ids;
 * the caller frees it, and with it the computed and payload columns) of
 * the rows the filter and the joins keep, *nsel their count, *view the
 * batch the operator reads: input itself without computed or payload
 * columns, else a view of input with them (which live in *sel's
 * allocation).  Returns GDB_OK; GDB_ERR_BAD_REQUEST (validation); the SQL
 * status of the first row that raises, as a sequential scan would (its
 * filter first, then its computed columns in order); GDB_ERR_OUT_OF_MEMORY;
 * GDB_ERR_JOIN_DUPLICATE (gdb_cpu_join_build).  On error *sel is NULL.
 */
int
gdb_cpu_select_rows(const GdbRequest *req, const GdbBatch *input,
					uint64_t **sel, uint64_t *nsel, const GdbBatch **view,
					GdbError *err)
{
	uint64_t	row;
	uint64_t	n = input ? input->nrows : 0;
	size_t		bytes;
	size_t		colbytes;
	char	   *block;
	GdbBatch   *v = NULL;
	void	   *vals[GDB_MAX_EXPRS];
	void	   *nulls[GDB_MAX_EXPRS];
	uint32_t	kinds[GDB_MAX_EXPRS];
	int64_t    *pvals[GDB_MAX_JOIN_COLS];
	uint8_t    *pnulls[GDB_MAX_JOIN_COLS];
	GdbHashSide sides[GDB_MAX_JOINS];
	uint32_t	j;
	uint32_t	ncomp;
	int			st;
	GdbBatch	hdr;			/* input's header with the code tables */
	GdbBatch	vhdr;			/* the view's, with the code tables */
	const GdbBatch *prog_hdr = input;
	const GdbBatch *expr_hdr;
	const void *expr_base = input;

	*sel = NULL;
	*nsel = 0;
	*view = input;
	st = gdb_cpu_validate_request(req, input, err);
	if (st != GDB_OK)
		return st;
	if (req->ntables > 0)
	{
		/* the programs read the tables through slots of input's header */
		hdr = *input;
		gdb_batch_attach_tables(&hdr, input, req, req->table_words);
		prog_hdr = &hdr;
	}
	expr_hdr = prog_hdr;
	if (n > SIZE_MAX / 64)
		return gdb_error_set(err, GDB_ERR_OUT_OF_MEMORY,
							 "batch of %llu rows is too large for this host",
							 (unsigned long long) n);
	if (req->njoins > 0)
	{
		st = gdb_cpu_join_build(req, sides, err);
		if (st != GDB_OK)
			return st;
	}
	/* the selection, then the view's header, computed and payload columns */
	ncomp = req->nexprs + req->njoin_cols;
	bytes = (size_t) gdb_align_up((n ? n : 1) * sizeof(uint64_t));
	colbytes = (size_t) (gdb_align_up(n * 8) + gdb_align_up(n));
	if (ncomp > 0)
		bytes += gdb_align_up(sizeof(GdbBatch)) + ncomp * colbytes;
	block = (char *) malloc(bytes);
	if (block == NULL)
	{
		if (req->njoins > 0)
			gdb_cpu_join_free(sides);
		return gdb_error_set(err, GDB_ERR_OUT_OF_MEMORY,
							 "out of memory for the selection of %llu rows",
							 (unsigned long long) n);
	}
	*sel = (uint64_t *) block;
	if (ncomp > 0)
	{
		char	   *p = block + gdb_align_up((n ? n : 1) * sizeof(uint64_t));

		v = (GdbBatch *) p;
		p += gdb_align_up(sizeof(GdbBatch));
		for (j = 0; j < req->nexprs; j++)
		{
			kinds[j] = req->exprs[j].kind;
			vals[j] = p;
			nulls[j] = p + gdb_align_up(n * 8);
			/* rows not selected: NULL, never read */
			memset(nulls[j], 1, (size_t) n);
			p += colbytes;
		}
		gdb_batch_view(input, input, v, v, req->nexprs, kinds, vals, nulls);
		for (j = 0; j < req->njoins; j++)
		{
			const GdbJoinSpec *spec = &req->joins[j];
			uint32_t	q;

			for (q = 0; q < spec->npayload; q++)
			{
				uint32_t	i = spec->payload_first + q;

				pvals[i] = (int64_t *) p;
				pnulls[i] = (uint8_t *) (p + gdb_align_up(n * 8));
				memset(pnulls[i], 1, (size_t) n);
				gdb_batch_set_column(v, v, GDB_JOIN_COL(i),
									 sides[j].build->cols[spec->nkeys + q].kind,
									 pvals[i], pnulls[i]);
				p += colbytes;
			}
		}
		/* probes and computed columns read the view, tables attached */
		vhdr = *v;
		if (req->ntables > 0)
			gdb_batch_attach_tables(&vhdr, v, req, req->table_words);
		expr_hdr = &vhdr;
		expr_base = v;
	}
	for (row = 0; row < n; row++)
	{
		if (req->ninstr > 0)
		{
			int			rst = GDB_OK;
			int			r = gdb_vm_eval(req->program, (int) req->ninstr, prog_hdr,
										input, row, &rst);

			if (rst != GDB_OK)
			{
				st = gdb_error_set(err, rst, "%s", gdb_cpu_status_text(rst));
				goto fail;
			}
			if (r != GDB_TRUE)
				continue;
		}
		if (req->njoins > 0)
		{
			int			pst = GDB_OK;

			if (!gdb_hj_probe_row(req->joins, req->njoins, req->njoin_cols, sides,
								  req->eprogram, req->exprs, expr_hdr, expr_base,
								  row, pvals, pnulls, &pst))
			{
				/* a join's qual raised: as a filter error, this row's */
				if (pst != GDB_OK)
				{
					st = gdb_error_set(err, pst, "%s", gdb_cpu_status_text(pst));
					goto fail;
				}
				continue;
			}
		}
		for (j = 0; j < req->nexprs; j++)
		{
			const GdbExprSpec *e = &req->exprs[j];
			GdbValue	val;
			int			rst = gdb_vm_value(&req->eprogram[e->start], (int) e->len,
										   expr_hdr, expr_base, row, &val);

			if (rst != GDB_OK)
			{
				st = gdb_error_set(err, rst, "%s", gdb_cpu_status_text(rst));
				goto fail;
			}
			((uint8_t *) nulls[j])[row] = (uint8_t) (val.isnull != 0);
			((int64_t *) vals[j])[row] = val.isnull ? 0 : val.v.i;
			/* the joins' other quals: computed column 0 must be TRUE */
			if (j == 0 && req->join_filter && (val.isnull || val.v.i == 0))
				break;
		}
		if (req->join_filter && req->nexprs > 0 && j == 0)
		{
			((uint8_t *) nulls[0])[row] = 1;
			continue;
		}
		(*sel)[(*nsel)++] = row;
	}
	if (req->njoins > 0)
		gdb_cpu_join_free(sides);
	if (v)
		*view = v;
	return GDB_OK;

fail:
	if (req->njoins > 0)
		gdb_cpu_join_free(sides);
	free(*sel);
	*sel = NULL;
	*nsel = 0;
	return st;
}

/* ---- the group-by ---- */

/* Sort context: per selected position, nkeys encodings and null flags. */
typedef struct GdbCpuSortCtx
{
	const uint64_t *enc;		/* [nsel * nkeys] */
	const uint8_t *nul;			/* [nsel * nkeys] */
	uint32_t	nkeys;
} GdbCpuSortCtx;

/* Do positions a and b have equal group keys? */
static int
gdb_cpu_same_keys(const GdbCpuSortCtx *ctx, size_t a, size_t b)
{
	const uint64_t *ea = ctx->enc + a * ctx->nkeys;
	const uint64_t *eb = ctx->enc + b * ctx->nkeys;
	const uint8_t *na = ctx->nul + a * ctx->nkeys;
	const uint8_t *nb = ctx->nul + b * ctx->nkeys;
	uint32_t	k;

	for (k = 0; k < ctx->nkeys; k++)
		if (na[k] != nb[k] || ea[k] != eb[k])
			return 0;
	return 1;
}

/* qsort_r comparator: keys (NULL after values), then position (stable). */
static int
gdb_cpu_cmp_positions(const void *pa, const void *pb, void *arg)
{
	const GdbCpuSortCtx *ctx = (const GdbCpuSortCtx *) arg;
	size_t		a = *(const size_t *) pa;
	size_t		b = *(const size_t *) pb;
	const uint64_t *ea = ctx->enc + a * ctx->nkeys;
	const uint64_t *eb = ctx->enc + b * ctx->nkeys;
	const uint8_t *na = ctx->nul + a * ctx->nkeys;
	const uint8_t *nb = ctx->nul + b * ctx->nkeys;
	uint32_t	k;

	for (k = 0; k < ctx->nkeys; k++)
	{
		if (na[k] != nb[k])
			return na[k] ? 1 : -1;
		if (ea[k] != eb[k])		/* encodings of NULLs are all 0 */
			return ea[k] < eb[k] ? -1 : 1;
	}
	return (a > b) - (a < b);
}

/* The order-preserving encoding of a raw 64-bit key value of kind. */
static uint64_t
gdb_cpu_encode(uint32_t kind, int64_t raw)
{
	double		d;

	if (kind != GDB_KIND_FLOAT64)
		return gdb_key_encode_int(raw);
	memcpy(&d, &raw, sizeof(d));
	return gdb_key_encode_float(d);
}

/* The transition state that row of input contributes to aggregate spec. */
static GdbAggState
gdb_cpu_row_state(const GdbRequest *req, const GdbAggSpec *spec,
				  const GdbBatch *input, uint64_t row)
{
	const char *base = (const char *) input;
	const uint8_t *nulls;
	int64_t		raw;
	double		d;

	if (req->input_is_states)
	{
		nulls = GDB_NULL_PTR(base, input, spec->input_col);
		if (nulls && nulls[row])
			return gdb_state_identity((int) spec->kind);
		return GDB_COL_PTR(base, input, spec->input_col, const GdbAggState)[row];
	}
	if (spec->kind == GDB_AGG_COUNT_STAR)
		return gdb_state_from_value(GDB_AGG_COUNT_STAR, 0, 0.0, 0);
	nulls = GDB_NULL_PTR(base, input, spec->input_col);
	raw = GDB_COL_PTR(base, input, spec->input_col, const int64_t)[row];
	memcpy(&d, &raw, sizeof(d));
	return gdb_state_from_value((int) spec->kind, raw, d, nulls ? nulls[row] : 0);
}

/*
 * gdb_cpu_execute: see gpudb_device.h.  Scratch: 8 bytes per input row for
 * the selected row ids, plus (with keys) 9 * nkeys + 16 bytes per selected
 * row for the encodings, null flags, the sort order and group starts.
 * An ordered request builds the unordered result in malloc'd memory (the
 * same size) and hands it to gdb_cpu_order_groups, whose k-row batch is
 * the only one alloc() provides.
 * Errors: GDB_ERR_BAD_REQUEST (validation), a filter's SQL error status
 * (first failing row in row order), GDB_ERR_FLOAT_OVERFLOW (ordered
 * requests, see GdbRequest), GDB_ERR_OUT_OF_MEMORY (malloc or alloc
 * returned NULL).  On error *result is NULL and nothing is leaked.
 */
int
gdb_cpu_execute(const GdbRequest *req, const GdbBatch *input,
				GdbAllocFn alloc, void *alloc_arg,
				GdbBatch **result, GdbStats *stats, GdbError *err)
{
	GdbError	dummy;
	const char *base = (const char *) input;
	uint64_t   *sel = NULL;		/* selected row ids, ascending */
	uint64_t   *enc = NULL;
	uint8_t    *nul = NULL;
	size_t	   *order = NULL;	/* sorted positions into sel */
	size_t	   *starts = NULL;	/* group g = positions [starts[g], starts[g+1]) */
	uint64_t	nrows,
				nsel = 0,
				ngroups,
				g,
				row;
	uint32_t	kinds[GDB_MAX_COLUMNS];
	uint32_t	has_nulls[GDB_MAX_COLUMNS];
	uint32_t	nout,
				k,
				a;
	uint64_t	total;
	GdbBatch   *out;
	GdbCpuSortCtx ctx;
	int			st;
	int			status = GDB_OK;
	int			ordered;

	if (err == NULL)
		err = &dummy;
	gdb_set_ok(err);
	if (result)
		*result = NULL;
	if (result == NULL || alloc == NULL)
		return gdb_error_set(err, GDB_ERR_BAD_REQUEST,
							 "gdb_cpu_execute: result and alloc must not be NULL");
	if (req != NULL && req->oper != GDB_OPER_GROUPBY)
		return gdb_cpu_select_sort(req, input, alloc, alloc_arg, result, stats, err);
	/* 1. filter */
	st = gdb_cpu_select_rows(req, input, &sel, &nsel, &input, err);
	if (st != GDB_OK)
		return st;
	base = (const char *) input;
	nrows = input->nrows;
	ordered = gdb_request_ordered(req);

	/* 2-3. encode keys and sort; find group starts */
	ctx.nkeys = req->nkeys;
	if (req->nkeys > 0)
	{
		size_t		p;

		ngroups = 0;
		if (nsel > 0)
		{
			enc = (uint64_t *) malloc((size_t) nsel * req->nkeys * sizeof(uint64_t));
			nul = (uint8_t *) malloc((size_t) nsel * req->nkeys);
			order = (size_t *) malloc((size_t) nsel * sizeof(size_t));
			starts = (size_t *) malloc((size_t) (nsel + 1) * sizeof(size_t));
			if (!enc || !nul || !order || !starts)
				goto oom;
			for (p = 0; p < nsel; p++)
			{
				for (k = 0; k < req->nkeys; k++)
				{
					int32_t		c = req->key_cols[k];
					const uint8_t *nulls = GDB_NULL_PTR(base, input, c);
					uint8_t		isnull = nulls ? (nulls[sel[p]] != 0) : 0;

					nul[p * req->nkeys + k] = isnull;
					enc[p * req->nkeys + k] = isnull ? 0 :
						gdb_cpu_encode(input->cols[c].kind,
									   GDB_COL_PTR(base, input, c, const int64_t)[sel[p]]);
				}
				order[p] = p;
			}
			ctx.enc = enc;
			ctx.nul = nul;
			qsort_r(order, (size_t) nsel, sizeof(size_t), gdb_cpu_cmp_positions, &ctx);
			for (p = 0; p < nsel; p++)
				if (p == 0 || !gdb_cpu_same_keys(&ctx, order[p], order[p - 1]))
					starts[ngroups++] = p;
			starts[ngroups] = (size_t) nsel;
		}
	}
	else
	{
		/* one group over every selected row, even when there are none */
		ngroups = 1;
		starts = (size_t *) malloc(2 * sizeof(size_t));
		if (starts == NULL)
			goto oom;
		starts[0] = 0;
		starts[1] = (size_t) nsel;
	}

	/* result batch: keys, then one STATE column per aggregate */
	nout = req->nkeys + req->naggs;
	for (k = 0; k < req->nkeys; k++)
	{
		kinds[k] = input->cols[req->key_cols[k]].kind;
		has_nulls[k] = input->cols[req->key_cols[k]].has_nulls;
	}
	for (a = 0; a < req->naggs; a++)
	{
		kinds[req->nkeys + a] = GDB_KIND_STATE;
		has_nulls[req->nkeys + a] = 0;
	}
	total = gdb_batch_layout(NULL, nout, kinds, has_nulls, ngroups);
	/* ordered: every group in scratch; alloc() only for the groups returned */
	out = (GdbBatch *) (ordered ? malloc((size_t) total) : alloc(alloc_arg, (size_t) total));
	if (out == NULL)
	{
		status = gdb_error_set(err, GDB_ERR_OUT_OF_MEMORY,
							   "could not allocate a result batch of %llu bytes",
							   (unsigned long long) total);
		goto done;
	}
	memset(out, 0, (size_t) total);
	gdb_batch_layout(out, nout, kinds, has_nulls, ngroups);
	out->nrows = ngroups;

	/* 4. keys of each group's first row; one fold per group and aggregate */
	for (g = 0; g < ngroups; g++)
	{
		size_t		first = starts[g];

		row = sel[order ? order[first] : first];
		for (k = 0; k < req->nkeys; k++)
		{
			int32_t		c = req->key_cols[k];
			const uint8_t *nulls = GDB_NULL_PTR(base, input, c);
			uint8_t		isnull = nulls ? (nulls[row] != 0) : 0;
			uint8_t    *onulls = GDB_NULL_PTR(out, out, k);

			GDB_COL_PTR(out, out, k, int64_t)[g] = isnull ? 0 :
				GDB_COL_PTR(base, input, c, const int64_t)[row];
			if (onulls)
				onulls[g] = isnull;
		}
	}
	for (a = 0; a < req->naggs; a++)
	{
		const GdbAggSpec *spec = &req->aggs[a];
		GdbAggState *ostates = GDB_COL_PTR(out, out, req->nkeys + a, GdbAggState);

		for (g = 0; g < ngroups; g++)
		{
			GdbAggState s = gdb_state_identity((int) spec->kind);
			size_t		p;

			for (p = starts[g]; p < starts[g + 1]; p++)
				s = gdb_state_combine((int) spec->kind, s,
									  gdb_cpu_row_state(req, spec, input,
														sel[order ? order[p] : p]));
			ostates[g] = s;
		}
	}

	/* 5. an ordered request: order and cut the groups */
	if (ordered)
	{
		GdbBatch   *cut = NULL;

		status = gdb_cpu_order_groups(req, out, alloc, alloc_arg, &cut, err);
		free(out);
		if (status != GDB_OK)
			goto done;
		out = cut;
		ngroups = cut->nrows;
	}

	if (stats)
	{
		stats->rows_in += nrows;
		stats->rows_selected += nsel;
		stats->groups_out += ngroups;
	}
	*result = out;
	gdb_set_ok(err);
	goto done;

oom:
	status = gdb_error_set(err, GDB_ERR_OUT_OF_MEMORY,
						   "out of memory for the CPU group-by of %llu rows",
						   (unsigned long long) nrows);
done:
	free(sel);
	free(enc);
	free(nul);
	free(order);
	free(starts);
	return status;
}
