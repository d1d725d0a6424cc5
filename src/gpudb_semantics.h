/*-------------------------------------------------------------------------
 *
 * gpudb_semantics.h
 *	  The meaning of every opcode and aggregate transition, written once and
 *	  compiled twice: by gcc for the CPU path (src/cpu/cpu_path.c) and by nvcc
 *	  for the device kernels (cuda/).  Plain C99, no PostgreSQL or CUDA
 *	  header; GDB_HOSTDEV marks each function __host__ __device__ under
 *	  nvcc.
 *
 * The rules copied here are PostgreSQL's own (utils/float.h, int.c, int8.c):
 * integer arithmetic raises "out of range" past the SQL result width, integer
 * division by zero and float division by zero raise "division by zero",
 * float results that overflow (or underflow to zero) from finite inputs
 * raise, NaN equals NaN and sorts above every other float.
 *
 *-------------------------------------------------------------------------
 */
#ifndef GPUDB_SEMANTICS_H
#define GPUDB_SEMANTICS_H

#include <math.h>
#include "gpudb_device.h"

#ifdef __CUDACC__
#define GDB_HOSTDEV __host__ __device__ __forceinline__
#else
#define GDB_HOSTDEV static inline
#endif

/* A VM value: the payload is int64 or float64 by the producing opcode. */
typedef struct GdbValue
{
	union
	{
		int64_t		i;
		double		f;
	}			v;
	int			isnull;
} GdbValue;

/* The tri-state result of a filter: row qualifies only on GDB_TRUE. */
#define GDB_FALSE	0
#define GDB_TRUE	1
#define GDB_NULL	2

GDB_HOSTDEV int
gdb_int_range_status(int width)
{
	return width == 2 ? GDB_ERR_INT2_RANGE :
		width == 4 ? GDB_ERR_INT4_RANGE : GDB_ERR_INT8_RANGE;
}

/* Does v fit an integer of width bytes? */
GDB_HOSTDEV int
gdb_int_fits(int64_t v, int width)
{
	if (width == 2)
		return v >= -32768 && v <= 32767;
	if (width == 4)
		return v >= -2147483647LL - 1 && v <= 2147483647LL;
	return 1;
}

/* 64-bit add/sub/mul returning 1 on overflow (portable to device code). */
GDB_HOSTDEV int
gdb_add_overflow(int64_t a, int64_t b, int64_t *r)
{
	*r = (int64_t) ((uint64_t) a + (uint64_t) b);
	return ((a ^ *r) & (b ^ *r)) < 0;
}

GDB_HOSTDEV int
gdb_sub_overflow(int64_t a, int64_t b, int64_t *r)
{
	*r = (int64_t) ((uint64_t) a - (uint64_t) b);
	return ((a ^ b) & (a ^ *r)) < 0;
}

GDB_HOSTDEV int
gdb_mul_overflow(int64_t a, int64_t b, int64_t *r)
{
	__int128	p = (__int128) a * (__int128) b;

	*r = (int64_t) p;
	return p != (__int128) * r;
}

/* Checked 64-bit add/sub/mul, then range-checked at width. */
GDB_HOSTDEV int
gdb_int_arith(int op, int64_t a, int64_t b, int width, int64_t *out)
{
	int64_t		r;

	switch (op)
	{
		case GDB_OP_INT_ADD:
			if (gdb_add_overflow(a, b, &r))
				return gdb_int_range_status(width);
			break;
		case GDB_OP_INT_SUB:
			if (gdb_sub_overflow(a, b, &r))
				return gdb_int_range_status(width);
			break;
		case GDB_OP_INT_MUL:
			if (gdb_mul_overflow(a, b, &r))
				return gdb_int_range_status(width);
			break;
		case GDB_OP_INT_DIV:
			if (b == 0)
				return GDB_ERR_DIV_ZERO;
			if (b == -1)
			{
				/* PostgreSQL negates: the minimum value overflows */
				if (gdb_sub_overflow((int64_t) 0, a, &r))
					return gdb_int_range_status(width);
			}
			else
				r = a / b;
			break;
		case GDB_OP_INT_MOD:
			if (b == 0)
				return GDB_ERR_DIV_ZERO;
			r = (b == -1) ? 0 : a % b;
			break;
		default:
			return GDB_ERR_BAD_REQUEST;
	}
	if (!gdb_int_fits(r, width))
		return gdb_int_range_status(width);
	*out = r;
	return GDB_OK;
}

/* PostgreSQL's float arithmetic checks (utils/float.h), width 4 or 8. */
GDB_HOSTDEV int
gdb_float_arith(int op, double a, double b, int width, double *out)
{
	double		r;

	if (width == 4)
	{
		float		fa = (float) a,
					fb = (float) b,
					fr;

		switch (op)
		{
			case GDB_OP_FLT_ADD:
				fr = fa + fb;
				if (isinf(fr) && !isinf(fa) && !isinf(fb))
					return GDB_ERR_FLOAT_OVERFLOW;
				break;
			case GDB_OP_FLT_SUB:
				fr = fa - fb;
				if (isinf(fr) && !isinf(fa) && !isinf(fb))
					return GDB_ERR_FLOAT_OVERFLOW;
				break;
			case GDB_OP_FLT_MUL:
				fr = fa * fb;
				if (isinf(fr) && !isinf(fa) && !isinf(fb))
					return GDB_ERR_FLOAT_OVERFLOW;
				if (fr == 0.0f && fa != 0.0f && fb != 0.0f)
					return GDB_ERR_FLOAT_UNDERFLOW;
				break;
			case GDB_OP_FLT_DIV:
				if (fb == 0.0f && !isnan(fa))
					return GDB_ERR_DIV_ZERO;
				fr = fa / fb;
				if (isinf(fr) && !isinf(fa))
					return GDB_ERR_FLOAT_OVERFLOW;
				if (fr == 0.0f && fa != 0.0f && !isinf(fb))
					return GDB_ERR_FLOAT_UNDERFLOW;
				break;
			default:
				return GDB_ERR_BAD_REQUEST;
		}
		*out = (double) fr;
		return GDB_OK;
	}

	switch (op)
	{
		case GDB_OP_FLT_ADD:
			r = a + b;
			if (isinf(r) && !isinf(a) && !isinf(b))
				return GDB_ERR_FLOAT_OVERFLOW;
			break;
		case GDB_OP_FLT_SUB:
			r = a - b;
			if (isinf(r) && !isinf(a) && !isinf(b))
				return GDB_ERR_FLOAT_OVERFLOW;
			break;
		case GDB_OP_FLT_MUL:
			r = a * b;
			if (isinf(r) && !isinf(a) && !isinf(b))
				return GDB_ERR_FLOAT_OVERFLOW;
			if (r == 0.0 && a != 0.0 && b != 0.0)
				return GDB_ERR_FLOAT_UNDERFLOW;
			break;
		case GDB_OP_FLT_DIV:
			if (b == 0.0 && !isnan(a))
				return GDB_ERR_DIV_ZERO;
			r = a / b;
			if (isinf(r) && !isinf(a))
				return GDB_ERR_FLOAT_OVERFLOW;
			if (r == 0.0 && a != 0.0 && !isinf(b))
				return GDB_ERR_FLOAT_UNDERFLOW;
			break;
		default:
			return GDB_ERR_BAD_REQUEST;
	}
	*out = r;
	return GDB_OK;
}

/* PostgreSQL's float order: all NaNs equal, above every other value. */
GDB_HOSTDEV int
gdb_float_cmp(double a, double b)
{
	if (isnan(a))
		return isnan(b) ? 0 : 1;
	if (isnan(b))
		return -1;
	return (a > b) - (a < b);
}

/*
 * IEEE 754 totalOrder of the raw bits: -NaN < -Inf < ... < -0 < +0 < ... <
 * +Inf < +NaN, payloads ordered.  Used only to break ties that
 * gdb_float_cmp calls equal (-0 vs +0, NaNs of different bits), so that
 * min/max combine is commutative (CUB reductions require it).
 */
GDB_HOSTDEV int
gdb_float_total_cmp(double a, double b)
{
	union
	{
		double		d;
		uint64_t	u;
	}			x, y;
	uint64_t	ka, kb;

	x.d = a;
	y.d = b;
	ka = (x.u & 0x8000000000000000ULL) ? ~x.u : (x.u | 0x8000000000000000ULL);
	kb = (y.u & 0x8000000000000000ULL) ? ~y.u : (y.u | 0x8000000000000000ULL);
	return (ka > kb) - (ka < kb);
}

GDB_HOSTDEV int
gdb_int_cmp(int64_t a, int64_t b)
{
	return (a > b) - (a < b);
}

/*
 * gdb_vm_effect: the stack effect of opcode op (+1 a push, -1 a binary
 * opcode, 0 otherwise), from the opcode table; 0 for an unknown opcode.
 */
GDB_HOSTDEV int
gdb_vm_effect(int op)
{
	switch (op)
	{
#define GDB_OPCODE_EFFECT(name, effect, raises, doc) case GDB_OP_##name: return effect;
			GDB_OPCODE_LIST(GDB_OPCODE_EFFECT)
#undef GDB_OPCODE_EFFECT
	}
	return 0;
}

#include "expr_semantics.h"

/*
 * gdb_vm_step: the value effect of one instruction that is not a jump, for
 * row row of the batch b whose buffer starts at base: a push writes *push;
 * a unary opcode rewrites *x, the top of the stack; a binary opcode sets
 * *y, the entry below the top, to y op x (the caller then pops x).  op is
 * in->op, passed apart so that a caller with a constant op (the device's
 * tile interpreter, cuda/filter_vm.cu) compiles only that case.  Returns
 * GDB_OK, or the GdbStatus of the SQL error the row raises
 * (GDB_ERR_BAD_REQUEST for a jump or an unknown opcode).
 */
GDB_HOSTDEV int
gdb_vm_step(int op, const GdbInstr *in, GdbValue *push, GdbValue *x, GdbValue *y,
			const GdbBatch *b, const void *base, uint64_t row)
{
	int			st = GDB_OK;

	switch (op)
	{
		case GDB_OP_PUSH_COL:
			{
				const uint8_t *nulls = GDB_NULL_PTR(base, b, in->arg);

				push->isnull = nulls ? nulls[row] : 0;
				push->v.i = GDB_COL_PTR(base, b, in->arg, const int64_t)[row];
			}
			break;
		case GDB_OP_PUSH_INT:
			push->isnull = 0;
			push->v.i = in->ival;
			break;
		case GDB_OP_PUSH_FLOAT:
			push->isnull = 0;
			push->v.f = in->fval;
			break;
		case GDB_OP_PUSH_NULL:
			push->isnull = 1;
			push->v.i = 0;
			break;
		case GDB_OP_INT_ADD:
		case GDB_OP_INT_SUB:
		case GDB_OP_INT_MUL:
		case GDB_OP_INT_DIV:
		case GDB_OP_INT_MOD:
			if (!(y->isnull || x->isnull))
				st = gdb_int_arith(op, y->v.i, x->v.i, in->width, &y->v.i);
			y->isnull |= x->isnull;
			break;
		case GDB_OP_INT_NEG:
			if (!x->isnull)
				st = gdb_int_arith(GDB_OP_INT_SUB, 0, x->v.i, in->width, &x->v.i);
			break;
		case GDB_OP_FLT_ADD:
		case GDB_OP_FLT_SUB:
		case GDB_OP_FLT_MUL:
		case GDB_OP_FLT_DIV:
			if (!(y->isnull || x->isnull))
				st = gdb_float_arith(op, y->v.f, x->v.f, in->width, &y->v.f);
			y->isnull |= x->isnull;
			break;
		case GDB_OP_FLT_NEG:
			x->v.f = -x->v.f;
			break;
		case GDB_OP_INT_TO_FLT:
			if (in->width == 4)
				x->v.f = (double) (float) x->v.i;
			else
				x->v.f = (double) x->v.i;
			break;
		case GDB_OP_INT_EQ:
		case GDB_OP_INT_NE:
		case GDB_OP_INT_LT:
		case GDB_OP_INT_LE:
		case GDB_OP_INT_GT:
		case GDB_OP_INT_GE:
		case GDB_OP_FLT_EQ:
		case GDB_OP_FLT_NE:
		case GDB_OP_FLT_LT:
		case GDB_OP_FLT_LE:
		case GDB_OP_FLT_GT:
		case GDB_OP_FLT_GE:
			{
				int			c;
				int			rel = op <= GDB_OP_INT_GE ?
					op - GDB_OP_INT_EQ : op - GDB_OP_FLT_EQ;

				c = op <= GDB_OP_INT_GE ?
					gdb_int_cmp(y->v.i, x->v.i) : gdb_float_cmp(y->v.f, x->v.f);
				/* rel: 0 EQ, 1 NE, 2 LT, 3 LE, 4 GT, 5 GE */
				y->v.i = rel == 0 ? c == 0 : rel == 1 ? c != 0 :
					rel == 2 ? c < 0 : rel == 3 ? c <= 0 :
					rel == 4 ? c > 0 : c >= 0;
				y->isnull |= x->isnull;
			}
			break;
		case GDB_OP_AND:
			/* FALSE wins over NULL; NULL over TRUE */
			if ((!y->isnull && y->v.i == 0) || (!x->isnull && x->v.i == 0))
			{
				y->isnull = 0;
				y->v.i = 0;
			}
			else if (y->isnull || x->isnull)
			{
				y->isnull = 1;
				y->v.i = 0;
			}
			else
				y->v.i = 1;
			break;
		case GDB_OP_OR:
			if ((!y->isnull && y->v.i != 0) || (!x->isnull && x->v.i != 0))
			{
				y->isnull = 0;
				y->v.i = 1;
			}
			else if (y->isnull || x->isnull)
			{
				y->isnull = 1;
				y->v.i = 0;
			}
			else
				y->v.i = 0;
			break;
		case GDB_OP_NOT:
			if (!x->isnull)
				x->v.i = !x->v.i;
			break;
		case GDB_OP_IS_NULL:
			x->v.i = x->isnull;
			x->isnull = 0;
			break;
		case GDB_OP_IS_NOT_NULL:
			x->v.i = !x->isnull;
			x->isnull = 0;
			break;
		case GDB_OP_IS_TRUE:
			x->v.i = !x->isnull && x->v.i != 0;
			x->isnull = 0;
			break;
		case GDB_OP_IS_NOT_TRUE:
			x->v.i = x->isnull || x->v.i == 0;
			x->isnull = 0;
			break;
		case GDB_OP_IS_FALSE:
			x->v.i = !x->isnull && x->v.i == 0;
			x->isnull = 0;
			break;
		case GDB_OP_IS_NOT_FALSE:
			x->v.i = x->isnull || x->v.i != 0;
			x->isnull = 0;
			break;
		case GDB_OP_TEXT_IN_SET:
		case GDB_OP_TEXT_MAP:
			if (!x->isnull)
			{
				/* the table's slot: its words and the codes it covers */
				const GdbColumnDesc *d = &b->cols[GDB_TABLE_COL(in->arg)];
				const uint64_t *w = GDB_COL_PTR(base, b, GDB_TABLE_COL(in->arg),
												const uint64_t);
				uint64_t	c = (uint64_t) x->v.i;

				if (d->kind != GDB_KIND_CODES || c >= d->nulls_off)
					st = GDB_ERR_BAD_REQUEST;
				else if (op == GDB_OP_TEXT_IN_SET)
					x->v.i = (int64_t) ((w[c >> 6] >> (c & 63)) & 1);
				else
					x->v.i = (int64_t) w[c];
			}
			break;
		default:
			st = gdb_vm_step_value(op, in, x, y);
			break;
	}
	return st;
}

/* gdb_vm_jumps: does jump opcode op jump on top x? */
GDB_HOSTDEV int
gdb_vm_jumps(int op, const GdbValue *x)
{
	if (op == GDB_OP_JUMP)
		return 1;
	if (op == GDB_OP_JUMP_IF_NOT_NULL)
		return !x->isnull;
	if (op == GDB_OP_JUMP_IF_NOT_TRUE)
		return x->isnull || x->v.i == 0;
	if (x->isnull)
		return 0;
	return op == GDB_OP_JUMP_IF_FALSE ? x->v.i == 0 : x->v.i != 0;
}

/* gdb_vm_result: the filter result of the final stack entry x. */
GDB_HOSTDEV int
gdb_vm_result(const GdbValue *x)
{
	return x->isnull ? GDB_NULL : (x->v.i != 0 ? GDB_TRUE : GDB_FALSE);
}

/*
 * gdb_vm_value: evaluate the program (ninstr instructions at prog, jump
 * targets relative to prog) for one row of a batch whose buffer starts
 * at base, leaving its value in *out.  Returns GDB_OK or the GdbStatus of
 * the SQL error the row raises.  AND and OR short-circuit as PostgreSQL's
 * executor does, so a row that PostgreSQL would not evaluate past a FALSE
 * (TRUE) never raises; CASE arms and COALESCE arguments not taken are not
 * evaluated either.  The program must have passed the request validation
 * (gdb_cpu_validate_request): the stack then never over- or underflows
 * and ends with one entry.
 */
GDB_HOSTDEV int
gdb_vm_value(const GdbInstr *prog, int ninstr, const GdbBatch *b,
			 const void *base, uint64_t row, GdbValue *out)
{
	GdbValue	stack[GDB_MAX_STACK];
	int			sp = 0;			/* next free slot */
	int			pc = 0;

	while (pc < ninstr)
	{
		const GdbInstr *in = &prog[pc];
		GdbValue   *x = sp >= 1 ? &stack[sp - 1] : stack;	/* top */
		GdbValue   *y = sp >= 2 ? &stack[sp - 2] : stack;	/* below top */
		int			st;

		if (gdb_op_is_jump(in->op))
		{
			pc = gdb_vm_jumps(in->op, x) ? in->arg : pc + 1;
			continue;
		}
		if (sp >= GDB_MAX_STACK && gdb_vm_effect(in->op) > 0)
			st = GDB_ERR_BAD_REQUEST;
		else
			st = gdb_vm_step(in->op, in, &stack[sp < GDB_MAX_STACK ? sp : 0], x, y,
							 b, base, row);
		if (st != GDB_OK)
			return st;
		sp += gdb_vm_effect(in->op);
		pc++;
	}
	if (sp != 1)
		return GDB_ERR_BAD_REQUEST;
	*out = stack[0];
	return GDB_OK;
}

/*
 * gdb_vm_eval: evaluate the filter program for one row (gdb_vm_value).
 * Returns GDB_TRUE, GDB_FALSE or GDB_NULL; on a SQL error sets *status (a
 * GdbStatus) and returns GDB_FALSE.
 */
GDB_HOSTDEV int
gdb_vm_eval(const GdbInstr *prog, int ninstr, const GdbBatch *b,
			const void *base, uint64_t row, int *status)
{
	GdbValue	v;
	int			st = gdb_vm_value(prog, ninstr, b, base, row, &v);

	if (st != GDB_OK)
	{
		*status = st;
		return GDB_FALSE;
	}
	return gdb_vm_result(&v);
}

/*
 * Order-preserving 64-bit encodings of key values, for radix sorting and
 * equality.  Integers: flip the sign bit.  Floats: PostgreSQL's equality
 * first (-0 becomes +0, every NaN the canonical NaN), then the IEEE total
 * order trick (negative values invert all bits, others set the sign bit).
 */
GDB_HOSTDEV uint64_t
gdb_key_encode_int(int64_t v)
{
	return (uint64_t) v ^ 0x8000000000000000ULL;
}

GDB_HOSTDEV uint64_t
gdb_key_encode_float(double v)
{
	union
	{
		double		d;
		uint64_t	u;
	}			x;

	if (v == 0.0)
		v = 0.0;				/* -0 groups with +0 */
	x.d = v;
	if (isnan(v))
		x.u = 0x7ff8000000000000ULL;
	return (x.u & 0x8000000000000000ULL) ? ~x.u : (x.u | 0x8000000000000000ULL);
}


/*
 * A range of float key encodings as IEEE comparisons (the predicate fast
 * path's float terms, cuda/fused_filter_agg.cu): the non-NULL x with
 * lo <= gdb_key_encode_float(x) <= hi are exactly those with
 * gdb_float_range_pass(x, r) -- one or two double comparisons instead of
 * the encoding and two 64-bit ones.
 *	 flo, fhi	the non-NaN x that pass are those with flo <= x <= fhi in
 *				IEEE order (-0 == +0); flo > fhi when none does
 *	 fnan		whether NaN passes (lo <= the NaN encoding <= hi)
 * The bounds are lo and hi clamped to the encodings of -Inf and +Inf and
 * decoded.  One bit pattern needs care: no value encodes as -0's own
 * (0x7fff...ff, just under +0's: -0 encodes as +0), so hi there means
 * "below zero" and is lowered to -0's neighbour, the negative denormal
 * closest to zero (a bound of -0.0 would let +-0 pass in IEEE order); lo
 * there decodes to -0.0, which +-0 pass, as they should.
 */
typedef struct GdbFloatRange
{
	double		flo;
	double		fhi;
	int			fnan;
} GdbFloatRange;

GDB_HOSTDEV double
gdb_float_key_decode(uint64_t e)
{
	union
	{
		double		d;
		uint64_t	u;
	}			x;

	x.u = (e & 0x8000000000000000ULL) ? (e & ~0x8000000000000000ULL) : ~e;
	return x.d;
}

GDB_HOSTDEV GdbFloatRange
gdb_float_range(uint64_t lo, uint64_t hi)
{
	const uint64_t neg_inf = 0x000fffffffffffffULL;	/* encodes -Inf */
	const uint64_t pos_inf = 0xfff0000000000000ULL;	/* +Inf */
	const uint64_t nan = 0xfff8000000000000ULL;	/* every NaN */
	const uint64_t neg_zero = 0x7fffffffffffffffULL;	/* no value */
	uint64_t	l = lo > neg_inf ? lo : neg_inf;
	uint64_t	h = hi < pos_inf ? hi : pos_inf;
	GdbFloatRange r;

	r.fnan = lo <= nan && nan <= hi;
	if (h == neg_zero)
		h--;
	if (l > h)
	{
		r.flo = 1.0;
		r.fhi = 0.0;
	}
	else
	{
		r.flo = gdb_float_key_decode(l);
		r.fhi = gdb_float_key_decode(h);
	}
	return r;
}

/* Does non-NULL x lie in r (see gdb_float_range)? */
GDB_HOSTDEV int
gdb_float_range_pass(double x, GdbFloatRange r)
{
	return (x >= r.flo && x <= r.fhi) || (r.fnan && isnan(x));
}
/*
 * Sort encodings (SORT requests): the key encoding of a non-NULL value of
 * kind (raw is the 64-bit column word), bitwise inverted for a descending
 * key, so that ascending unsigned order of the result is the requested
 * order; and the rank of a row's NULL flag (0 sorts first): NULLs rank 0
 * with nulls_first, else 1.  Rows compare by (null rank, encoding) key by
 * key, encodings of NULLs being 0.
 */
GDB_HOSTDEV uint64_t
gdb_sort_encode(uint32_t kind, int64_t raw, int descending)
{
	uint64_t	e;

	if (kind == GDB_KIND_FLOAT64)
	{
		union
		{
			int64_t		i;
			double		d;
		}			x;

		x.i = raw;
		e = gdb_key_encode_float(x.d);
	}
	else
		e = gdb_key_encode_int(raw);
	return descending ? ~e : e;
}

/*
 * Do rows a and b agree on the nprefix key columns whose kinds, value
 * arrays and NULL flags (NULL: none) are kinds[], vals[] and nulls[]: the
 * same NULL flags and, where not NULL, the same gdb_sort_encode (so a
 * float key's -0 and +0 agree, as they group together)?  The runs of a
 * request with distinct_last_key.
 */
GDB_HOSTDEV int
gdb_same_key_prefix(uint32_t nprefix, const uint32_t *kinds,
					const int64_t *const *vals, const uint8_t *const *nulls,
					uint64_t a, uint64_t b)
{
	for (uint32_t c = 0; c < nprefix; c++)
	{
		int			anull = nulls[c] ? nulls[c][a] != 0 : 0;

		if (anull != (nulls[c] ? nulls[c][b] != 0 : 0))
			return 0;
		if (!anull && gdb_sort_encode(kinds[c], vals[c][a], 0) !=
			gdb_sort_encode(kinds[c], vals[c][b], 0))
			return 0;
	}
	return 1;
}

GDB_HOSTDEV uint32_t
gdb_sort_null_rank(int isnull, int nulls_first)
{
	return isnull ? (nulls_first ? 0u : 1u) : (nulls_first ? 1u : 0u);
}

/*
 * The sort context of gdb_order_cmp: for each position (a row or group
 * index), nkeys (NULL rank, encoding) pairs as gdb_sort_null_rank and
 * gdb_sort_encode make them, at [position * nkeys + key].
 */
typedef struct GdbOrderCtx
{
	const uint64_t *enc;
	const uint8_t *rank;
	uint32_t	nkeys;
} GdbOrderCtx;

/*
 * A qsort_r/qsort_arg comparator of two size_t positions by their keys
 * (rank, then encoding, key by key), then by position: a stable order.
 * The CPU path's sorts and the host's order of a node's groups.
 */
GDB_HOSTDEV int
gdb_order_cmp(const void *pa, const void *pb, void *arg)
{
	const GdbOrderCtx *ctx = (const GdbOrderCtx *) arg;
	size_t		a = *(const size_t *) pa;
	size_t		b = *(const size_t *) pb;

	for (uint32_t k = 0; k < ctx->nkeys; k++)
	{
		uint8_t		ra = ctx->rank[a * ctx->nkeys + k];
		uint8_t		rb = ctx->rank[b * ctx->nkeys + k];
		uint64_t	ea = ctx->enc[a * ctx->nkeys + k];
		uint64_t	eb = ctx->enc[b * ctx->nkeys + k];

		if (ra != rb)
			return ra < rb ? -1 : 1;
		if (ea != eb)
			return ea < eb ? -1 : 1;
	}
	return (a > b) - (a < b);
}

/* ---- aggregate transition states ---- */

/* The bits of a double as an int64 and back (VAR_FLOAT keeps Sxx in i0). */
GDB_HOSTDEV int64_t
gdb_double_bits(double d)
{
	union
	{
		double		d;
		int64_t		i;
	}			x;

	x.d = d;
	return x.i;
}

GDB_HOSTDEV double
gdb_bits_double(int64_t i)
{
	union
	{
		double		d;
		int64_t		i;
	}			x;

	x.i = i;
	return x.d;
}

GDB_HOSTDEV GdbAggState
gdb_state_identity(int kind)
{
	GdbAggState s;

	s.count = 0;
	s.i0 = 0;
	s.i1 = 0;
	s.f = 0.0;
	(void) kind;
	return s;
}

/*
 * gdb_state_from_value: the state of one input row.  is_null rows count
 * only for count(*).  For SUM_INT the value is sign-extended into i1:i0.
 */
GDB_HOSTDEV GdbAggState
gdb_state_from_value(int kind, int64_t iv, double fv, int is_null)
{
	GdbAggState s = gdb_state_identity(kind);

	if (kind == GDB_AGG_COUNT_STAR)
	{
		s.count = 1;
		return s;
	}
	if (is_null)
		return s;
	s.count = 1;
	switch (kind)
	{
		case GDB_AGG_SUM_INT:
			s.i0 = iv;
			s.i1 = iv < 0 ? -1 : 0;
			break;
		case GDB_AGG_SUMSQ_INT:
			/* |iv| < 2^31 (int2/int4 inputs), so the square fits in 63 bits */
			s.i0 = iv * iv;
			s.i1 = 0;
			break;
		case GDB_AGG_VAR_FLOAT:
			s.f = fv;
			s.i0 = gdb_double_bits(0.0);
			s.i1 = isfinite(fv) ? 0 : 1;
			break;
		case GDB_AGG_MIN_INT:
		case GDB_AGG_MAX_INT:
			s.i0 = iv;
			break;
		case GDB_AGG_SUM_FLOAT:
			s.f = fv;
			s.i0 = isinf(fv) ? 1 : 0;
			break;
		case GDB_AGG_SUM_FLOAT4:
			s.f = (double) (float) fv;
			s.i0 = isinf(fv) ? 1 : 0;
			s.i1 = 0;
			break;
		case GDB_AGG_MIN_FLOAT:
		case GDB_AGG_MAX_FLOAT:
			s.f = fv;
			break;
		default:
			break;
	}
	return s;
}

/*
 * gdb_state_combine: merge two states of the same aggregate; associative
 * and commutative (bit for bit, except the rounding and NaN bits of
 * SUM_FLOAT sums and VAR_FLOAT's Sx and Sxx, equal up to rounding in any
 * order), so any reduction order is valid: CUB's reductions
 * reorder operands.  Float min/max ties (-0 vs +0, NaNs of different
 * bits) are broken by IEEE totalOrder (min takes -0, max +0), never by
 * operand position.
 */
GDB_HOSTDEV GdbAggState
gdb_state_combine(int kind, GdbAggState a, GdbAggState b)
{
	GdbAggState r = a;

	if (b.count == 0)
		return a;
	if (a.count == 0)
		return b;
	r.count = a.count + b.count;
	switch (kind)
	{
		case GDB_AGG_SUM_INT:
		case GDB_AGG_SUMSQ_INT:
			{
				uint64_t	lo = (uint64_t) a.i0 + (uint64_t) b.i0;
				uint64_t	carry = lo < (uint64_t) a.i0;

				r.i0 = (int64_t) lo;
				r.i1 = (int64_t) ((uint64_t) a.i1 + (uint64_t) b.i1 + carry);
			}
			break;
		case GDB_AGG_MIN_INT:
			r.i0 = b.i0 < a.i0 ? b.i0 : a.i0;
			break;
		case GDB_AGG_MAX_INT:
			r.i0 = b.i0 > a.i0 ? b.i0 : a.i0;
			break;
		case GDB_AGG_SUM_FLOAT:
			r.f = a.f + b.f;
			r.i0 = a.i0 + b.i0;
			break;
		case GDB_AGG_SUM_FLOAT4:
			{
				/*
				 * PostgreSQL's float4pl: a float4 addition, and an overflow
				 * error when the sum of two finite operands is infinite
				 * (recorded here, raised when the state is finished).  The
				 * double sum of two floats rounded to float is the float sum:
				 * double's 53 bits are more than 2 * 24 + 2, so the double
				 * rounding is innocuous (Figueroa, "When is double rounding
				 * innocuous?", 1995).  Folded row by row in input order (the
				 * CPU path) this is PostgreSQL's serial sum bit for bit; in
				 * another order, as its parallel combine (float4pl) would be.
				 */
				float		sum = (float) (a.f + b.f);

				r.f = (double) sum;
				r.i0 = a.i0 + b.i0;
				r.i1 = a.i1 | b.i1 | (isinf(sum) && !isinf(a.f) && !isinf(b.f));
			}
			break;
		case GDB_AGG_VAR_FLOAT:
			{
				/*
				 * Two partial states: the pairwise update of Chan, Golub
				 * and LeVeque (1979), the formula PostgreSQL's
				 * float8_combine uses for partial states of parallel
				 * workers:
				 *	 Sxx = Sxx_a + Sxx_b + Na * Nb * (Sx_a/Na - Sx_b/Nb)^2 / N
				 */
				double		na = (double) a.count;
				double		nb = (double) b.count;
				double		tmp;

				r.f = a.f + b.f;
				r.i1 = a.i1 + b.i1;
				if (a.count == 1 && b.count > 1)
				{
					GdbAggState t = a;

					a = b;
					b = t;
					na = (double) a.count;
					nb = 1.0;
				}
				if (b.count == 1)
				{
					/*
					 * One more value x = b.f: PostgreSQL's own float8_accum
					 * step (Youngs and Cramer), so that folding rows one by
					 * one in input order (the CPU path) gives PostgreSQL's
					 * serial result bit for bit.
					 */
					double		n = na + 1.0;

					tmp = b.f * n - r.f;
					r.i0 = gdb_double_bits(gdb_bits_double(a.i0) + tmp * tmp / (n * na));
					break;
				}
				tmp = a.f / na - b.f / nb;
				r.i0 = gdb_double_bits(gdb_bits_double(a.i0) + gdb_bits_double(b.i0) +
									   na * nb * tmp * tmp / (na + nb));
			}
			break;
		case GDB_AGG_MIN_FLOAT:
		case GDB_AGG_MAX_FLOAT:
			{
				int			c = gdb_float_cmp(b.f, a.f);

				if (c == 0)
					c = gdb_float_total_cmp(b.f, a.f);
				if (kind == GDB_AGG_MIN_FLOAT)
					r.f = c < 0 ? b.f : a.f;
				else
					r.f = c > 0 ? b.f : a.f;
			}
			break;
		default:
			break;
	}
	return r;
}

/* ---- finished values of an ordered GROUPBY (see GdbRequest) ---- */

/*
 * gdb_order_agg_kind_ok: 1 when an ordered GROUPBY may order its groups by
 * the finished value of an aggregate of kind (GdbAggKind): COUNT_STAR,
 * COUNT, SUM_INT, SUM_FLOAT, MIN/MAX_INT, MIN/MAX_FLOAT; 0 for the rest
 * (SUMSQ_INT, VAR_FLOAT and unknown kinds).
 */
GDB_HOSTDEV int
gdb_order_agg_kind_ok(uint32_t kind)
{
	return kind <= GDB_AGG_MAX_FLOAT;
}

/*
 * gdb_order_agg_value_kind: the column kind (GDB_KIND_INT64 or
 * GDB_KIND_FLOAT64) of the finished value of an orderable aggregate kind,
 * for gdb_sort_encode.
 */
GDB_HOSTDEV uint32_t
gdb_order_agg_value_kind(uint32_t kind)
{
	return (kind == GDB_AGG_SUM_FLOAT || kind == GDB_AGG_MIN_FLOAT ||
			kind == GDB_AGG_MAX_FLOAT) ? GDB_KIND_FLOAT64 : GDB_KIND_INT64;
}

/*
 * gdb_order_agg_value: the finished value of state s of an orderable kind
 * as the 64-bit column word of its value kind (an int64, or a double's
 * bits) in *raw; returns 1 when the value is NULL (then *raw is 0), else
 * 0.  COUNT_STAR and COUNT: the count, never NULL.  The others are NULL
 * when s.count == 0; SUM_INT: the low 64 bits of the 128-bit sum (the
 * int8 that the host returns for sum(int2/int4)); MIN/MAX_INT: i0;
 * SUM_FLOAT, MIN/MAX_FLOAT: f.
 */
GDB_HOSTDEV int
gdb_order_agg_value(uint32_t kind, GdbAggState s, int64_t *raw)
{
	*raw = 0;
	if (kind == GDB_AGG_COUNT_STAR || kind == GDB_AGG_COUNT)
	{
		*raw = s.count;
		return 0;
	}
	if (s.count == 0)
		return 1;
	if (gdb_order_agg_value_kind(kind) == GDB_KIND_FLOAT64)
		*raw = gdb_double_bits(s.f);
	else
		*raw = s.i0;
	return 0;
}

/*
 * gdb_order_state_status: the error the host raises when it finishes state
 * s of an aggregate of kind, as PostgreSQL's float8 accumulators raise it:
 * GDB_ERR_FLOAT_OVERFLOW for a SUM_FLOAT state whose sum is infinite
 * although it counted no infinite input (float8 sum and avg), and for a
 * VAR_FLOAT state whose Sx or Sxx is not finite although it counted no
 * infinite or NaN input; else GDB_OK.  (One finite input leaves both sums
 * finite, so the count below which var_samp is NULL never matters.)
 */
GDB_HOSTDEV int
gdb_order_state_status(uint32_t kind, GdbAggState s)
{
	if (s.count == 0)
		return GDB_OK;
	if (kind == GDB_AGG_SUM_FLOAT && isinf(s.f) && s.i0 == 0)
		return GDB_ERR_FLOAT_OVERFLOW;
	if (kind == GDB_AGG_SUM_FLOAT4 && s.i1 != 0)
		return GDB_ERR_FLOAT_OVERFLOW;
	if (kind == GDB_AGG_VAR_FLOAT && s.i1 == 0 &&
		(!isfinite(s.f) || !isfinite(gdb_bits_double(s.i0))))
		return GDB_ERR_FLOAT_OVERFLOW;
	return GDB_OK;
}

/*
 * gdb_order_key_status: for sort key flags exact (GdbSortKey.exact) and a
 * group's sum state, and the state of its NaN finder (NULL: none),
 * GDB_ERR_FIXED_POINT when the sum cannot be ordered by its low 64 bits:
 * its 128-bit value is outside int64, or a NaN was summed (the finder's
 * maximum is the NaN word, INT64_MAX); else GDB_OK.
 */
GDB_HOSTDEV int
gdb_order_key_status(uint32_t exact, GdbAggState sum, const GdbAggState *nan)
{
	if (!(exact & GDB_SORT_EXACT_SUM) || sum.count == 0)
		return GDB_OK;
	if (sum.i1 != (sum.i0 < 0 ? -1 : 0))
		return GDB_ERR_FIXED_POINT;
	if (nan != NULL && nan->count > 0 && nan->i0 == INT64_MAX)
		return GDB_ERR_FIXED_POINT;
	return GDB_OK;
}

/*
 * gdb_having_keep: 1 when a group whose aggregate of kind has state s
 * passes term t of a group qualifier (GdbHavingTerm), nan being the state
 * of t's NaN finder (NULL without one); else 0.  Integer kinds compare
 * their exact value (a SUM_INT's full 128 bits: a sum outside int64 is
 * above or below every int64 value), MIN/MAX_FLOAT their value in
 * PostgreSQL's float order (NaN above +Infinity, -0 = +0).  NULL values
 * fail; a NaN sum and a wrapping sum(int2/int4) outside int64 pass (the
 * host's HAVING decides them).
 */
GDB_HOSTDEV int
gdb_having_keep(const GdbHavingTerm *t, uint32_t kind, GdbAggState s,
				const GdbAggState *nan)
{
	int64_t		raw;
	int			cmp;

	if (t->op == GDB_HAVING_NEVER)
		return 0;
	if (gdb_order_agg_value(kind, s, &raw))
		return 0;				/* NULL */
	if (t->op == GDB_HAVING_NOT_NULL)
		return 1;
	if (kind == GDB_AGG_SUM_INT)
	{
		if (nan != NULL && nan->count > 0 && nan->i0 == INT64_MAX)
			return 1;			/* a NaN was summed */
		if (s.i1 != (s.i0 < 0 ? -1 : 0))
		{
			if (t->wraps)
				return 1;
			cmp = s.i1 < 0 ? -1 : 1;	/* beyond every int64 */
		}
		else
			cmp = s.i0 < t->value ? -1 : s.i0 > t->value;
	}
	else
	{
		uint32_t	vkind = gdb_order_agg_value_kind(kind);
		uint64_t	a = gdb_sort_encode(vkind, raw, 0);
		uint64_t	b = gdb_sort_encode(vkind, t->value, 0);

		cmp = a < b ? -1 : a > b;
	}
	switch (t->op)
	{
		case GDB_HAVING_LT:
			return cmp < 0;
		case GDB_HAVING_LE:
			return cmp <= 0;
		case GDB_HAVING_EQ:
			return cmp == 0;
		case GDB_HAVING_NE:
			return cmp != 0;
		case GDB_HAVING_GE:
			return cmp >= 0;
		case GDB_HAVING_GT:
			return cmp > 0;
		default:
			return 1;
	}
}

#endif							/* GPUDB_SEMANTICS_H */
