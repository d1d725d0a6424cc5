/*-------------------------------------------------------------------------
 *
 * device_selftest.c
 *	  Standalone check of the two implementations (CPU and CUDA) of the
 *	  operators behind gpudb_device.h (no PostgreSQL):
 *	   - gdb_cpu_execute against a naive O(rows * groups) reference written
 *		 here (linear search for the group, SQL equality on keys, groups
 *		 sorted by gdb_float_cmp / integer order with NULLs last): exact;
 *	   - gdb_cuda_execute against gdb_cpu_execute on the same input, when
 *		 this build has CUDA and a device is found: exact, except SUM_FLOAT
 *		 sums (1e-12 relative);
 *	   - combine mode: the partial results of two halves of a batch,
 *		 concatenated and fed back with input_is_states, against the result
 *		 over the whole batch (on each available path);
 *	   - filter errors (same status, from the first failing row), malformed
 *		 requests and programs (GDB_ERR_BAD_REQUEST), allocator failure
 *		 (GDB_ERR_OUT_OF_MEMORY), and a few semantics identities;
 *	   - text constants: an unbound PUSH_TEXT is GDB_ERR_BAD_REQUEST on both
 *		 paths; gdb_request_bind_text maps codes, rejects bad args;
 *	   - code tables (TEXT_IN_SET, TEXT_MAP) in filters and computed keys
 *		 against the same programs with the tables' rules written out, on
 *		 both paths, batches and stores; malformed tables refused;
 *	   - column stores (CPU, and CUDA with a device): a random input
 *		 appended in 3-5 unequal batches from a small capacity (so the store
 *		 grows), group-bys over the store against gdb_cpu_execute over the
 *		 rows appended so far, rejected appends (layout mismatch), creation
 *		 errors, empty stores;
 *	   - store scatter (CPU, and CUDA with a device): INT64 columns with
 *		 and without NULL flags, group-bys against the input changed the
 *		 same way, rejected scatters (nothing written), n == 0;
 *	   - SELECT and SORT requests (GdbRequest.oper): gdb_cpu_select_sort,
 *		 directly and through gdb_cpu_execute, against a naive reference
 *		 written here (a plain filter loop, an insertion sort straight on
 *		 the values with PostgreSQL's float order and NULL placement, the
 *		 first min(limit, rows)): exact; the GPU (gdb_cuda_execute) against
 *		 the CPU: every word and NULL flag identical, same statistics, no
 *		 group-by path run.  Random output columns, 1-4 sort keys of random
 *		 direction and NULL placement, limits 0, 1, small, past the rows;
 *		 every filter program; empty input; stores of both paths;
 *		 malformed requests (bad out_cols, nsort 0, ...) refused with
 *		 GDB_ERR_BAD_REQUEST;
 *	   - ordered group-bys (GROUPBY with sort keys and a limit): the CPU
 *		 path against a reference that orders its unordered result by the
 *		 documented finished values (qsort of group indexes, values
 *		 compared directly), alloc() asked once for the returned groups
 *		 only; the GPU (fast paths on and off) against the CPU, with the
 *		 same statistics and the same single small allocation; the
 *		 ordered final combine of unordered partial results; random sort
 *		 keys over group keys and orderable aggregates, NULL placement,
 *		 limits; 200000 rows with ~40000 groups; float sum and variance
 *		 overflow in a group the limit cuts (GDB_ERR_FLOAT_OVERFLOW);
 *		 malformed orders; stores of both paths;
 *	   - top-k SORTs (the radix-select path of cuda/topk_select.cu): every
 *		 GPU SORT with a limit also runs with that path forced to refine
 *		 every bit, and the top-k cases (k = 1 .. nsel / 8 and past nsel,
 *		 NULLs first / last with fewer and more NULLs than k, float
 *		 specials, few or one first-key value, several keys, filters; 3M
 *		 rows with a device) with the full sort forced too, all against
 *		 the CPU; with a device, a timing over 100M cached rows (top-k
 *		 against the full sort, printed, never asserted);
 *	   - the fused no-keys filter + aggregation pass (cuda/fused_filter_agg.cu):
 *		 predicates on the aggregated column and on others, every fast
 *		 aggregate kind, float specials and NULLs, sizes around its tile
 *		 and up to 5M rows, plain batches and stores; with a device, the
 *		 GPU with fusion on against the CPU, the sort path and the two
 *		 passes, and where it must (not) run; and a timing over 100M
 *		 cached rows (B2 and id % 7 = 3 forms, fused against two passes,
 *		 printed, never asserted);
 *	   - with a device, last: gdb_cuda_recover on a healthy device, then
 *		 after a planted illegal address (device reset, lost exec and store
 *		 fail cleanly, a new exec works).
 *	  Batches are random: int and float columns with NULLs, NaN of both
 *	  signs, -0.0, +-Inf, duplicates, int64 extremes.  The last line is
 *	  "selftest: N passed, M failed"; the exit status is non-zero on any
 *	  failure.
 *
 *	  Usage: device_selftest [seed]
 *
 *-------------------------------------------------------------------------
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE				/* qsort_r */
#endif

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <time.h>

#include "gpudb_semantics.h"
#include "column_store.h"
#include "splitmix64.h"

/* ---- bookkeeping ---- */

static int	n_passed;
static int	n_failed;
static int	status_seen[GDB_ERR_DEVICE + 1];	/*
 * The program bytes a request over nrows rows copies to the device: the
 * filter's, or with computed columns the filter's and theirs in one copy
 * (gdb_compute_columns runs the filter too); none for an empty batch.
 */
static uint64_t
program_bytes(const GdbRequest *req, uint64_t nrows)
{
	if (nrows == 0)
		return 0;
	return (uint64_t) (req->nexprs ? req->ninstr + req->neinstr : req->ninstr) *
		sizeof(GdbInstr);
}

/* cases per CPU status */

static void check(int ok, const char *fmt,...) __attribute__((format(printf, 2, 3)));

static void
check(int ok, const char *fmt,...)
{
	va_list		ap;

	if (ok)
	{
		n_passed++;
		return;
	}
	n_failed++;
	printf("FAIL: ");
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	printf("\n");
	fflush(stdout);
}

static double
now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1e3 + ts.tv_nsec / 1e6;
}

static void *
xmalloc(size_t n)
{
	void	   *p = malloc(n ? n : 1);

	if (p == NULL)
	{
		fprintf(stderr, "out of memory\n");
		exit(2);
	}
	return p;
}

static void *
test_alloc(void *arg, size_t bytes)
{
	(void) arg;
	return malloc(bytes ? bytes : 1);
}

static void *
failing_alloc(void *arg, size_t bytes)
{
	(void) arg;
	(void) bytes;
	return NULL;
}

/* splitmix64's stream: the state steps by its increment, mix64 adds it */
static uint64_t rng_state;

static uint64_t
rng(void)
{
	uint64_t	x = rng_state;

	rng_state += 0x9e3779b97f4a7c15ULL;
	return mix64(x);
}

static uint64_t
rng_below(uint64_t n)
{
	return n ? rng() % n : 0;
}

static double
bits_to_double(uint64_t u)
{
	double		d;

	memcpy(&d, &u, 8);
	return d;
}

static uint64_t
double_bits(double d)
{
	uint64_t	u;

	memcpy(&u, &d, 8);
	return u;
}

/* ---- batches ---- */

enum
{
	C_KI,						/* INT64 key, nullable, small cardinality */
	C_KF,						/* FLOAT64 key, nullable: NaNs, zeros, infs */
	C_VI,						/* INT64 value, nullable, extremes */
	C_VF,						/* FLOAT64 value, nullable, dyadic + specials */
	C_CI,						/* INT64, no nulls, [0, 10000) */
	C_KB,						/* INT64 key, no nulls, large cardinality */
	C_KF2,						/* FLOAT64 key, no nulls, few values incl. -0 */
	NCOLS
};

static GdbBatch *
batch_new(uint32_t ncols, const uint32_t *kinds, const uint32_t *has_nulls,
		  uint64_t capacity)
{
	uint64_t	total = gdb_batch_layout(NULL, ncols, kinds, has_nulls, capacity);
	GdbBatch   *b = (GdbBatch *) xmalloc((size_t) total);

	memset(b, 0xA5, (size_t) total);	/* garbage where nothing is set */
	gdb_batch_layout(b, ncols, kinds, has_nulls, capacity);
	return b;
}

static int64_t *
col_i(GdbBatch *b, int c)
{
	return GDB_COL_PTR(b, b, c, int64_t);
}

static double *
col_f(GdbBatch *b, int c)
{
	return GDB_COL_PTR(b, b, c, double);
}

static uint8_t *
col_n(GdbBatch *b, int c)
{
	return GDB_NULL_PTR(b, b, c);
}

typedef struct GenParams
{
	uint64_t	key_card;		/* C_KI values in [0, key_card) */
	int			fkey_card;		/* C_KF values: first fkey_card specials */
	uint64_t	big_card;		/* C_KB values in [0, big_card) */
	int			null_pct;		/* NULL rate of nullable columns */
	uint64_t	slack;			/* capacity - nrows */
} GenParams;

/* C_KF values (bit patterns): 1.5, NaN, -0, 0, -2.25, +-Inf, -NaN, 1e300,
 * the smallest subnormal, -1e-300, a signalling NaN. */
static const uint64_t fkey_bits[12] = {
	0x3ff8000000000000ULL, 0x7ff8000000000000ULL, 0x8000000000000000ULL, 0,
	0xc002000000000000ULL, 0x7ff0000000000000ULL, 0xfff0000000000000ULL,
	0xfff8000000000000ULL, 0x7e37e43c8800759cULL, 1, 0x81a56e1fc2f8f359ULL,
	0x7ff0000000000123ULL
};

static GdbBatch *
gen_batch(uint64_t nrows, const GenParams *gp)
{
	uint32_t	kinds[NCOLS] = {GDB_KIND_INT64, GDB_KIND_FLOAT64, GDB_KIND_INT64,
	GDB_KIND_FLOAT64, GDB_KIND_INT64, GDB_KIND_INT64, GDB_KIND_FLOAT64};
	uint32_t	hn[NCOLS] = {1, 1, 1, 1, 0, 0, 0};
	GdbBatch   *b = batch_new(NCOLS, kinds, hn, nrows + gp->slack);
	static const double f2set[5] = {-1.0, 0.5, 3.0, -0.0, 0.0};
	uint64_t	r;

	b->nrows = nrows;
	for (r = 0; r < nrows; r++)
	{
		uint64_t	u;
		int			c;

		for (c = 0; c < NCOLS; c++)
			if (hn[c])
				col_n(b, c)[r] = rng_below(100) < (uint64_t) gp->null_pct;

		u = rng_below(1000);
		col_i(b, C_KI)[r] = u == 0 ? INT64_MIN : u == 1 ? INT64_MAX :
			u == 2 ? -1 : (int64_t) rng_below(gp->key_card);
		col_f(b, C_KF)[r] = bits_to_double(fkey_bits[rng_below((uint64_t) gp->fkey_card)]);

		u = rng_below(100);
		col_i(b, C_VI)[r] = u < 3 ? INT64_MAX - (int64_t) rng_below(4) :
			u < 6 ? INT64_MIN + (int64_t) rng_below(4) :
			u < 20 ? (int64_t) (rng() >> 2) - (INT64_C(1) << 61) :
			(int64_t) rng_below(2001) - 1000;

		u = rng_below(1000);
		if (u < 2)
			col_f(b, C_VF)[r] = bits_to_double(u == 0 ? 0x7ff8000000000000ULL
											   : 0xfff8000000000000ULL);
		else if (u < 4)
			col_f(b, C_VF)[r] = u == 2 ? INFINITY : -INFINITY;
		else if (u < 40)
			col_f(b, C_VF)[r] = u & 1 ? -0.0 : 0.0;
		else
			col_f(b, C_VF)[r] = ((double) rng_below(1 << 21) - (1 << 20)) / 16.0;

		col_i(b, C_CI)[r] = (int64_t) rng_below(10000);
		col_i(b, C_KB)[r] = (int64_t) rng_below(gp->big_card);
		col_f(b, C_KF2)[r] = f2set[rng_below(5)];
	}
	return b;
}

/* An empty batch with b's columns and room for capacity rows. */
static GdbBatch *
batch_like(const GdbBatch *b, uint64_t capacity)
{
	uint32_t	kinds[GDB_MAX_COLUMNS],
				hn[GDB_MAX_COLUMNS];
	uint32_t	c;

	for (c = 0; c < b->ncols; c++)
	{
		kinds[c] = b->cols[c].kind;
		hn[c] = b->cols[c].has_nulls;
	}
	return batch_new(b->ncols, kinds, hn, capacity);
}

/* Append rows [from, from + n) of src (same columns) to dst. */
static void
batch_append(GdbBatch *dst, const GdbBatch *src, uint64_t from, uint64_t n)
{
	uint32_t	c;

	for (c = 0; c < src->ncols; c++)
	{
		uint64_t	w = gdb_kind_width(src->cols[c].kind);

		memcpy((char *) dst + dst->cols[c].values_off + dst->nrows * w,
			   (const char *) src + src->cols[c].values_off + from * w, n * w);
		if (src->cols[c].has_nulls)
			memcpy((char *) dst + dst->cols[c].nulls_off + dst->nrows,
				   (const char *) src + src->cols[c].nulls_off + from, n);
	}
	dst->nrows += n;
}

/* ---- requests and programs ---- */

static const char *const col_names[NCOLS] = {"ki", "kf", "vi", "vf", "ci", "kb", "kf2"};

static const char *const op_names[GDB_OP__COUNT] = {
#define GDB_OP_NAME(name, effect, raises, doc) #name,
	GDB_OPCODE_LIST(GDB_OP_NAME)
#undef GDB_OP_NAME
};

/*
 * assemble: req's filter program from text, one instruction per token:
 *	 $name, $N		PUSH_COL of a column by name (col_names) or index
 *	 iV, fV, null	PUSH_INT V, PUSH_FLOAT V (strtod: also nan, inf), PUSH_NULL
 *	 op[/W][@T]		any opcode by (case-insensitive) name, width W, target T
 *	 #N				raw opcode number N (for validation tests)
 */
static void
assemble(GdbRequest *r, const char *text)
{
	char		buf[4096];
	char	   *save = NULL,
			   *tok;

	r->ninstr = 0;
	snprintf(buf, sizeof(buf), "%s", text);
	for (tok = strtok_r(buf, " ", &save); tok; tok = strtok_r(NULL, " ", &save))
	{
		GdbInstr   *in = &r->program[r->ninstr++];
		char	   *opt;
		int			op;

		memset(in, 0, sizeof(*in));
		if (tok[0] == '$')
		{
			in->op = GDB_OP_PUSH_COL;
			in->arg = (tok[1] >= '0' && tok[1] <= '9') ? atoi(tok + 1) : -1;
			for (op = 0; op < NCOLS; op++)
				if (strcmp(tok + 1, col_names[op]) == 0)
					in->arg = op;
			continue;
		}
		if (strcmp(tok, "null") == 0)
		{
			in->op = GDB_OP_PUSH_NULL;
			continue;
		}
		if (tok[0] == '#')
		{
			in->op = (uint16_t) atoi(tok + 1);
			continue;
		}
		if (tok[0] == 'i' && strchr("-0123456789", tok[1]))
		{
			in->op = GDB_OP_PUSH_INT;
			in->ival = strtoll(tok + 1, NULL, 10);
			continue;
		}
		if (tok[0] == 'f' && strchr("-.0123456789ni", tok[1]))
		{
			in->op = GDB_OP_PUSH_FLOAT;
			in->fval = strtod(tok + 1, NULL);
			continue;
		}
		if ((opt = strchr(tok, '@')) != NULL)
		{
			*opt = '\0';
			in->arg = atoi(opt + 1);
		}
		if ((opt = strchr(tok, '/')) != NULL)
		{
			*opt = '\0';
			in->width = (uint16_t) atoi(opt + 1);
		}
		for (op = 0; op < GDB_OP__COUNT && strcasecmp(tok, op_names[op]) != 0; op++)
			;
		if (op == GDB_OP__COUNT)
		{
			fprintf(stderr, "test bug: unknown opcode \"%s\"\n", tok);
			exit(2);
		}
		in->op = (uint16_t) op;
	}
}

/* Filter programs over the gen_batch columns (jump targets count tokens). */
static const struct
{
	const char *name;
	const char *code;
}			programs[] = {
	{"no filter", ""},
	{"ci < 5000", "$ci i5000 int_lt"},
	{"ki IS NULL OR vf > 0.5", "$ki is_null jump_if_true@7 $vf f0.5 flt_gt or"},
	{"vi IS NOT NULL AND ci % 3 = 1",
	"$vi is_not_null jump_if_false@9 $ci i3 int_mod/8 i1 int_eq and"},
	{"NOT (vf >= 0)", "$vf f0 flt_ge not"},
	{"100 / (ci - 7) > 3 (division by zero)", "i100 $ci i7 int_sub/4 int_div/4 i3 int_gt"},
	{"ci <> 7 AND 100 / (ci - 7) > 3 (short-circuit)",
	"$ci i7 int_ne jump_if_false@12 i100 $ci i7 int_sub/4 int_div/4 i3 int_gt and"},
	{"100 / (ci - 7) * 1e9 > 0 (int4 range or division by zero)",
	"i100 $ci i7 int_sub/4 int_div/4 i1000000000 int_mul/4 i0 int_gt"},
	{"vf * 2 + 1 > 3", "$vf f2 flt_mul/8 f1 flt_add/8 f3 flt_gt"},
	{"float8(ci) / 4 < vf", "$ci int_to_flt/8 f4 flt_div/8 $vf flt_lt"},
	{"vf / (vf - vf) > 0 (float division by zero)", "$vf $vf $vf flt_sub/8 flt_div/8 f0 flt_gt"},
	{"vf * 1e305 < 0 (float overflow)", "$vf f1e305 flt_mul/8 f0 flt_lt"},
	{"float4 vf * 1e-30 * 1e-30 <> 0 (float underflow)",
	"$vf f1e-30 flt_mul/4 f1e-30 flt_mul/4 f0 flt_ne"},
	{"(ki > 3) IS NOT FALSE", "$ki i3 int_gt is_not_false"},
	{"(kf = 0 OR vi IS NULL) IS TRUE", "$kf f0 flt_eq $vi is_null or is_true"},
	{"int2 ci - 40000 < 0 (smallint range)", "$ci i40000 int_sub/2 i0 int_lt"},
	{"(-kf < NaN OR NULL IS NOT NULL) IS NOT TRUE",
	"$kf flt_neg fnan flt_lt null is_not_null or is_not_true"},
	{"-vi > 0 AND kf2 IS NOT NULL (bigint range)", "$vi int_neg/8 i0 int_gt $kf2 is_not_null and"},
	{"ki % -1 = 0 AND ki / -1 < 0 (bigint range)",
	"$ki i-1 int_mod/8 i0 int_eq $ki i-1 int_div/8 i0 int_lt and"},
	{"vf * 1e-200 * 1e-200 <> 0 (float underflow)",
	"$vf f1e-200 flt_mul/8 f1e-200 flt_mul/8 f0 flt_ne"},
	{"float4(ci) * 0.5 >= kf2 OR ki IS FALSE",
	"$ci int_to_flt/4 f0.5 flt_mul/4 $kf2 flt_ge $ki is_false or"},
	/* conjunctions of comparisons: the device's predicate fast path */
	{"vf BETWEEN -0.0 AND 0.5 (one range)",
	"$vf f-0 flt_ge jump_if_false@8 $vf f0.5 flt_le and"},
	{"ki >= -5 AND kf <> NaN AND ci % -7 = -2 (WHERE form)",
	"$ki i-5 int_ge is_true jump_if_false@17 $kf fnan flt_ne is_true and "
	"jump_if_false@17 $ci i-7 int_mod/8 i-2 int_eq and"},
	{"kf = NaN", "$kf fnan flt_eq"},
	{"vf > Infinity (NaN only)", "$vf finf flt_gt"},
	{"ki < -2^63 (empty)", "$ki i-9223372036854775808 int_lt"},
	{"ki > 2^63 - 1 (empty)", "$ki i9223372036854775807 int_gt"},
	{"ci % -1 = 0 AND vf <= -0", "$ci i-1 int_mod/8 i0 int_eq jump_if_false@10 $vf f-0 flt_le and"},
	{"ci <> 3 AND ci < 9000 AND ci >= 10", "$ci i3 int_ne jump_if_false@13 $ci i9000 int_lt and "
	"jump_if_false@13 $ci i10 int_ge and"},
};

#define NPROGS ((int) (sizeof(programs) / sizeof(programs[0])))

static const char *
build_program(GdbRequest *r, int p)
{
	assemble(r, programs[p].code);
	return programs[p].name;
}

/* Group key sets. */
static const struct
{
	const char *name;
	uint32_t	nkeys;
	int32_t		cols[GDB_MAX_GROUP_KEYS];
}			keysets[] = {
	{"()", 0, {0}},
	{"(ki)", 1, {C_KI}},
	{"(kf)", 1, {C_KF}},
	{"(ki, kf)", 2, {C_KI, C_KF}},
	{"(kf, kf2, ki)", 3, {C_KF, C_KF2, C_KI}},
	{"(kb)", 1, {C_KB}},
	{"(kf2, kf2)", 2, {C_KF2, C_KF2}},
	{"(8 keys)", 8, {C_KI, C_KF, C_KF2, C_KI, C_KF, C_KF2, C_KI, C_KF}},
};

#define NKEYSETS ((int) (sizeof(keysets) / sizeof(keysets[0])))

static const char *
build_keys(GdbRequest *r, int k)
{
	r->nkeys = keysets[k].nkeys;
	memcpy(r->key_cols, keysets[k].cols, sizeof(r->key_cols));
	return keysets[k].name;
}

/* The aggregates of every case: each kind over int and float columns. */
static const GdbAggSpec agg_list[] = {
	{GDB_AGG_COUNT_STAR, -1}, {GDB_AGG_COUNT, C_VI}, {GDB_AGG_COUNT, C_VF},
	{GDB_AGG_SUM_INT, C_VI}, {GDB_AGG_MIN_INT, C_VI}, {GDB_AGG_MAX_INT, C_VI},
	{GDB_AGG_SUM_FLOAT, C_VF}, {GDB_AGG_MIN_FLOAT, C_VF}, {GDB_AGG_MAX_FLOAT, C_VF},
	{GDB_AGG_SUM_INT, C_CI}, {GDB_AGG_COUNT, C_KF}, {GDB_AGG_MIN_FLOAT, C_KF},
	{GDB_AGG_MAX_FLOAT, C_KF}, {GDB_AGG_MIN_FLOAT, C_KF2}, {GDB_AGG_MAX_FLOAT, C_KF2},
	{GDB_AGG_MIN_INT, C_KI}, {GDB_AGG_SUM_FLOAT, C_KF2},
	{GDB_AGG_SUMSQ_INT, C_CI}, {GDB_AGG_VAR_FLOAT, C_VF}, {GDB_AGG_VAR_FLOAT, C_KF2},
};

static void
build_aggs(GdbRequest *r)
{
	r->naggs = sizeof(agg_list) / sizeof(agg_list[0]);
	memcpy(r->aggs, agg_list, sizeof(agg_list));
}

static GdbRequest *
request_new(void)
{
	GdbRequest *r = (GdbRequest *) xmalloc(sizeof(GdbRequest));

	memset(r, 0, sizeof(*r));
	return r;
}

/* The combine request over a result batch of req. */
static GdbRequest *
combine_request(const GdbRequest *req)
{
	GdbRequest *c = request_new();
	uint32_t	i;

	c->nkeys = req->nkeys;
	c->naggs = req->naggs;
	c->input_is_states = 1;
	for (i = 0; i < req->nkeys; i++)
		c->key_cols[i] = (int32_t) i;
	for (i = 0; i < req->naggs; i++)
	{
		c->aggs[i].kind = req->aggs[i].kind;
		c->aggs[i].input_col = (int32_t) (req->nkeys + i);
	}
	return c;
}

/* ---- the naive reference ---- */

typedef struct RefCtx
{
	const GdbRequest *req;
	const GdbBatch *in;
} RefCtx;

typedef struct RefGroup
{
	int64_t		raw[GDB_MAX_GROUP_KEYS];
	uint8_t		isnull[GDB_MAX_GROUP_KEYS];
	GdbAggState *st;
} RefGroup;

/* SQL equality of two non-NULL key values of kind. */
static int
ref_key_equal(uint32_t kind, int64_t a, int64_t b)
{
	double		x,
				y;

	if (kind != GDB_KIND_FLOAT64)
		return a == b;
	x = bits_to_double((uint64_t) a);
	y = bits_to_double((uint64_t) b);
	return (isnan(x) && isnan(y)) || x == y;
}

static int
ref_group_cmp(const void *pa, const void *pb, void *arg)
{
	const RefCtx *ctx = (const RefCtx *) arg;
	const RefGroup *a = (const RefGroup *) pa;
	const RefGroup *b = (const RefGroup *) pb;
	uint32_t	k;

	for (k = 0; k < ctx->req->nkeys; k++)
	{
		uint32_t	kind = ctx->in->cols[ctx->req->key_cols[k]].kind;
		int			c;

		if (a->isnull[k] != b->isnull[k])
			return a->isnull[k] ? 1 : -1;
		if (a->isnull[k])
			continue;
		if (kind == GDB_KIND_FLOAT64)
			c = gdb_float_cmp(bits_to_double((uint64_t) a->raw[k]),
							  bits_to_double((uint64_t) b->raw[k]));
		else
			c = (a->raw[k] > b->raw[k]) - (a->raw[k] < b->raw[k]);
		if (c)
			return c;
	}
	return 0;
}

/*
 * Reference group-by: returns the status; on GDB_OK a result batch in the
 * boundary layout built from the reference groups.
 */
static int
ref_groupby(const GdbRequest *req, const GdbBatch *in, GdbBatch **out,
			uint64_t *nsel_out)
{
	const char *base = (const char *) in;
	RefGroup   *groups = NULL;
	uint64_t	ngroups = 0,
				cap = 0,
				nsel = 0,
				row,
				g;
	uint32_t	kinds[GDB_MAX_COLUMNS] = {0},
				hn[GDB_MAX_COLUMNS] = {0},
				k,
				a;
	RefCtx		ctx;
	GdbBatch   *res;

	for (row = 0; row < in->nrows; row++)
	{
		int64_t		raw[GDB_MAX_GROUP_KEYS];
		uint8_t		isnull[GDB_MAX_GROUP_KEYS];

		if (req->ninstr)
		{
			int			st = GDB_OK;
			int			r = gdb_vm_eval(req->program, (int) req->ninstr, in, in, row, &st);

			if (st != GDB_OK)
			{
				for (g = 0; g < ngroups; g++)
					free(groups[g].st);
				free(groups);
				return st;
			}
			if (r != GDB_TRUE)
				continue;
		}
		nsel++;
		for (k = 0; k < req->nkeys; k++)
		{
			int			c = req->key_cols[k];
			const uint8_t *n = GDB_NULL_PTR(base, in, c);

			isnull[k] = n ? n[row] != 0 : 0;
			raw[k] = isnull[k] ? 0 : GDB_COL_PTR(base, in, c, const int64_t)[row];
		}
		for (g = 0; g < ngroups; g++)
		{
			for (k = 0; k < req->nkeys; k++)
			{
				uint32_t	kind = in->cols[req->key_cols[k]].kind;

				if (groups[g].isnull[k] != isnull[k])
					break;
				if (!isnull[k] && !ref_key_equal(kind, groups[g].raw[k], raw[k]))
					break;
			}
			if (k == req->nkeys)
				break;
		}
		if (g == ngroups)
		{
			if (ngroups == cap)
			{
				cap = cap ? cap * 2 : 16;
				groups = (RefGroup *) realloc(groups, cap * sizeof(RefGroup));
			}
			memcpy(groups[g].raw, raw, sizeof(raw));
			memcpy(groups[g].isnull, isnull, sizeof(isnull));
			groups[g].st = (GdbAggState *) xmalloc((req->naggs + 1) * sizeof(GdbAggState));
			for (a = 0; a < req->naggs; a++)
				groups[g].st[a] = gdb_state_identity((int) req->aggs[a].kind);
			ngroups++;
		}
		for (a = 0; a < req->naggs; a++)
		{
			const GdbAggSpec *sp = &req->aggs[a];
			GdbAggState s;

			if (req->input_is_states)
				s = GDB_COL_PTR(base, in, sp->input_col, const GdbAggState)[row];
			else if (sp->kind == GDB_AGG_COUNT_STAR)
				s = gdb_state_from_value(GDB_AGG_COUNT_STAR, 0, 0, 0);
			else
			{
				const uint8_t *n = GDB_NULL_PTR(base, in, sp->input_col);
				int64_t		v = GDB_COL_PTR(base, in, sp->input_col, const int64_t)[row];

				s = gdb_state_from_value((int) sp->kind, v, bits_to_double((uint64_t) v),
										 n ? n[row] : 0);
			}
			groups[g].st[a] = gdb_state_combine((int) sp->kind, groups[g].st[a], s);
		}
	}
	if (req->nkeys == 0 && ngroups == 0)
	{
		groups = (RefGroup *) xmalloc(sizeof(RefGroup));
		groups[0].st = (GdbAggState *) xmalloc((req->naggs + 1) * sizeof(GdbAggState));
		for (a = 0; a < req->naggs; a++)
			groups[0].st[a] = gdb_state_identity((int) req->aggs[a].kind);
		ngroups = 1;
	}
	ctx.req = req;
	ctx.in = in;
	if (ngroups > 1)
		qsort_r(groups, ngroups, sizeof(RefGroup), ref_group_cmp, &ctx);

	for (k = 0; k < req->nkeys; k++)
	{
		kinds[k] = in->cols[req->key_cols[k]].kind;
		hn[k] = in->cols[req->key_cols[k]].has_nulls;
	}
	for (a = 0; a < req->naggs; a++)
	{
		kinds[req->nkeys + a] = GDB_KIND_STATE;
		hn[req->nkeys + a] = 0;
	}
	res = batch_new(req->nkeys + req->naggs, kinds, hn, ngroups);
	res->nrows = ngroups;
	for (g = 0; g < ngroups; g++)
	{
		for (k = 0; k < req->nkeys; k++)
		{
			col_i(res, (int) k)[g] = groups[g].raw[k];
			if (hn[k])
				col_n(res, (int) k)[g] = groups[g].isnull[k];
		}
		for (a = 0; a < req->naggs; a++)
			GDB_COL_PTR(res, res, req->nkeys + a, GdbAggState)[g] = groups[g].st[a];
		free(groups[g].st);
	}
	free(groups);
	*out = res;
	*nsel_out = nsel;
	return GDB_OK;
}

/* ---- comparing result batches ---- */

static int
float_close(double a, double b)
{
	if (isnan(a) || isnan(b))
		return isnan(a) && isnan(b);
	if (a == b)
		return 1;
	if (isinf(a) || isinf(b))
		return 0;
	return fabs(a - b) <= 1e-12 * fmax(fabs(a), fabs(b));
}

/*
 * Do batches x and y both have nrows equal, ncols columns and the same
 * column kinds and NULL flags?  Says what differs.
 */
static int
same_shape(const char *what, const GdbBatch *x, const GdbBatch *y, uint32_t ncols)
{
	if (x->nrows != y->nrows || x->ncols != y->ncols || x->ncols != ncols)
	{
		printf("  %s: shape differs: %llu x %u vs %llu x %u\n", what,
			   (unsigned long long) x->nrows, (unsigned) x->ncols,
			   (unsigned long long) y->nrows, (unsigned) y->ncols);
		return 0;
	}
	for (uint32_t c = 0; c < x->ncols; c++)
		if (x->cols[c].kind != y->cols[c].kind ||
			x->cols[c].has_nulls != y->cols[c].has_nulls)
		{
			printf("  %s: column %u kind/nulls differ\n", what, c);
			return 0;
		}
	return 1;
}

/*
 * Is value column c of row r the same 64-bit word and NULL flag in x and
 * y?  Says which (row_word r, col_word c) differs.
 */
static int
value_equal(const char *what, const char *row_word, const char *col_word,
			const GdbBatch *x, const GdbBatch *y, uint32_t c, uint64_t r)
{
	const uint8_t *nx = GDB_NULL_PTR(x, x, c);
	const uint8_t *ny = GDB_NULL_PTR(y, y, c);
	int64_t		vx = GDB_COL_PTR(x, x, c, const int64_t)[r];
	int64_t		vy = GDB_COL_PTR(y, y, c, const int64_t)[r];

	if ((nx && nx[r] != ny[r]) || vx != vy)
	{
		printf("  %s: %s %llu %s %u: %s%016llx vs %s%016llx\n", what, row_word,
			   (unsigned long long) r, col_word, c,
			   nx && nx[r] ? "NULL " : "", (unsigned long long) vx,
			   ny && ny[r] ? "NULL " : "", (unsigned long long) vy);
		return 0;
	}
	return 1;
}

/*
 * Compare result batches x and y of req: same shape, keys bit-exact, states
 * exact except SUM_FLOAT's f when sum_tolerance (then 1e-12 relative).
 * Reports at most a few mismatches.  Returns 1 when equal.
 */
static int
results_equal(const char *what, const GdbRequest *req, const GdbBatch *x,
			  const GdbBatch *y, int sum_tolerance)
{
	uint32_t	c;
	uint64_t	g;
	int			bad = 0;

	if (!same_shape(what, x, y, req->nkeys + req->naggs))
		return 0;
	for (g = 0; g < x->nrows && bad < 5; g++)
	{
		for (c = 0; c < req->nkeys; c++)
			bad += !value_equal(what, "group", "key", x, y, c, g);
		for (c = 0; c < req->naggs; c++)
		{
			const GdbAggState *sx = &GDB_COL_PTR(x, x, req->nkeys + c, const GdbAggState)[g];
			const GdbAggState *sy = &GDB_COL_PTR(y, y, req->nkeys + c, const GdbAggState)[g];
			int			fok;
			int64_t		i0x = sx->i0,
						i0y = sy->i0;

			/* a NaN sum's sign and payload depend on operand order: any NaN */
			if (req->aggs[c].kind == GDB_AGG_VAR_FLOAT)
			{
				/*
				 * (N, Sx, Sxx, non-finite count): after an Infinity or NaN
				 * the result is NaN whatever Sx and Sxx hold; else Sx and
				 * Sxx within 1e-12 (exact without sum_tolerance)
				 */
				double		qx = bits_to_double((uint64_t) i0x);
				double		qy = bits_to_double((uint64_t) i0y);

				fok = sx->i1 > 0 ||
					(sum_tolerance ? float_close(sx->f, sy->f) && float_close(qx, qy) :
					 double_bits(sx->f) == double_bits(sy->f) && i0x == i0y);
				i0x = i0y = 0;
			}
			else if (req->aggs[c].kind == GDB_AGG_SUM_FLOAT && isnan(sx->f))
				fok = isnan(sy->f);
			else if (sum_tolerance && req->aggs[c].kind == GDB_AGG_SUM_FLOAT)
				fok = float_close(sx->f, sy->f);
			else
				fok = double_bits(sx->f) == double_bits(sy->f);
			if (sx->count != sy->count || i0x != i0y || sx->i1 != sy->i1 || !fok)
			{
				printf("  %s: group %llu agg %u (kind %u): {%lld, %lld, %lld, %.17g/%016llx} vs "
					   "{%lld, %lld, %lld, %.17g/%016llx}\n", what,
					   (unsigned long long) g, c, (unsigned) req->aggs[c].kind,
					   (long long) sx->count, (long long) sx->i0, (long long) sx->i1,
					   sx->f, (unsigned long long) double_bits(sx->f),
					   (long long) sy->count, (long long) sy->i0, (long long) sy->i1,
					   sy->f, (unsigned long long) double_bits(sy->f));
				bad++;
			}
		}
	}
	return bad == 0;
}

/* ---- the device, if any ---- */

static GdbCudaExec *gpu;

/*
 * Test hooks of the CUDA build (cuda/groupby_kernels.cu), bound weakly:
 * absent (NULL) in a build without CUDA.  gdb_cuda_set_fast_paths(1 / 0)
 * forces the fast paths on / off (-1: GPUDB_FAST_PATHS decides);
 * gdb_cuda_last_path says which pipeline ran the last group-by (0 sort,
 * 1 no keys, 2 small key domain).
 */
extern void gdb_cuda_set_fast_paths(int mode) __attribute__((weak));
extern int	gdb_cuda_last_path(void) __attribute__((weak));

#define HAVE_FAST_HOOKS (gdb_cuda_set_fast_paths != NULL && gdb_cuda_last_path != NULL)

/*
 * Fused no-keys pass (cuda/fused_filter_agg.cu), bound weakly likewise:
 * gdb_cuda_set_fused(1 / 0) forces it on / off while the fast paths are on
 * (-1: GPUDB_FUSED decides); gdb_cuda_last_fused: 1 when the last group-by
 * ran it.
 */
extern void gdb_cuda_set_fused(int mode) __attribute__((weak));
extern int	gdb_cuda_last_fused(void) __attribute__((weak));

#define HAVE_FUSED_HOOKS (gdb_cuda_set_fused != NULL && gdb_cuda_last_fused != NULL)

/*
 * Top-k hooks (cuda/topk_select.cu), bound weakly likewise:
 * gdb_cuda_set_topk(-1) default eligibility, 0 never (full sort), 1 top-k
 * whenever 0 < limit < selected rows, 2 likewise refining every bit of the
 * first key; gdb_cuda_last_topk: -1 when the last SORT sorted every
 * selected row, else the candidates it sorted.
 */
extern void gdb_cuda_set_topk(int mode) __attribute__((weak));
extern long long gdb_cuda_last_topk(void) __attribute__((weak));

#define HAVE_TOPK_HOOKS (gdb_cuda_set_topk != NULL && gdb_cuda_last_topk != NULL)

/*
 * What run_select_case expects of the GPU's default top-k choice for a
 * SORT with a limit: 1 the top-k path, 0 the full sort, -1 either.
 */
static int	topk_expect = -1;

/* The path run_case expects of the GPU with fast paths on (-1: any). */
static int	fast_expect = -1;

/*
 * Whether run_case expects the fused pass with fast paths on (-1: either).
 * When 1, run_case also runs the GPU with the fast paths on and fusion off
 * (the two-pass predicate + aggregation) and compares the three.
 */
static int	fused_expect = -1;

typedef int (*GroupbyFn) (const GdbRequest *req, const GdbBatch *input,
						  GdbAllocFn alloc, void *alloc_arg,
						  GdbBatch **result, GdbStats *stats, GdbError *err);

static int
gpu_groupby(const GdbRequest *req, const GdbBatch *input, GdbAllocFn alloc,
			void *alloc_arg, GdbBatch **result, GdbStats *stats, GdbError *err)
{
	return gdb_cuda_execute(gpu, req, input, alloc, alloc_arg, result, stats, err);
}

/* Run fn, checking the error contract (NUL-terminated message, *result). */
static int
run_path(const char *what, GroupbyFn fn, const GdbRequest *req,
		 const GdbBatch *in, GdbBatch **res, GdbStats *stats)
{
	GdbError	err;
	int			st;

	memset(&err, 0x5a, sizeof(err));
	*res = (GdbBatch *) (uintptr_t) 1;
	st = fn(req, in, test_alloc, NULL, res, stats, &err);
	check(err.status == st && memchr(err.message, '\0', sizeof(err.message)) != NULL &&
		  (st == GDB_OK) == (*res != NULL) && (st == GDB_OK || err.message[0] != '\0'),
		  "%s: error contract (status %d, err.status %d)", what, st, err.status);
	if (st != GDB_OK)
		*res = NULL;
	return st;
}

/* ---- one case: reference, CPU, GPU, combine ---- */

static void
run_case(const char *name, const GdbRequest *req, const GdbBatch *in,
		 int with_reference)
{
	GdbBatch   *ref = NULL,
			   *cpu = NULL,
			   *dev = NULL;
	GdbStats	cst,
				gst;
	uint64_t	ref_nsel = 0;
	int			rst = GDB_OK,
				cst_status,
				gst_status;
	char		what[512];
	double		t0,
				t_cpu,
				t_gpu = 0,
				t_gpu_sort = -1,
				ms_sort = 0,
				t_gpu_nf = -1;
	GdbStats	nfst;

	memset(&cst, 0, sizeof(cst));
	memset(&gst, 0, sizeof(gst));
	memset(&nfst, 0, sizeof(nfst));
	t0 = now_ms();
	snprintf(what, sizeof(what), "%s [cpu]", name);
	cst_status = run_path(what, gdb_cpu_execute, req, in, &cpu, &cst);
	t_cpu = now_ms() - t0;
	if (cst_status >= 0 && cst_status <= GDB_ERR_DEVICE)
		status_seen[cst_status]++;

	if (with_reference)
	{
		rst = ref_groupby(req, in, &ref, &ref_nsel);
		check(rst == cst_status, "%s: cpu status %d, reference %d", name, cst_status, rst);
		if (rst == GDB_OK && cst_status == GDB_OK)
		{
			check(results_equal(what, req, cpu, ref, 0), "%s: cpu vs reference", name);
			check(cst.rows_in == in->nrows && cst.rows_selected == ref_nsel &&
				  cst.groups_out == ref->nrows && cst.bytes_to_device == 0 &&
				  cst.device_ms == 0,
				  "%s: cpu stats %llu/%llu/%llu", name,
				  (unsigned long long) cst.rows_in,
				  (unsigned long long) cst.rows_selected,
				  (unsigned long long) cst.groups_out);
		}
	}

	/*
	 * GPU: with the fast paths on and off when the hooks are there (each
	 * against the CPU, and the two against each other), else as configured.
	 */
	if (gpu)
	{
		int			nmodes = HAVE_FAST_HOOKS ?
			(fused_expect == 1 && HAVE_FUSED_HOOKS ? 3 : 2) : 1;
		int			mode;

		for (mode = 0; mode < nmodes; mode++)
		{
			GdbBatch   *out = NULL;
			GdbStats	mst;
			double		tm;

			memset(&mst, 0, sizeof(mst));
			if (HAVE_FAST_HOOKS)
				gdb_cuda_set_fast_paths(mode == 1 ? 0 : 1);
			if (HAVE_FUSED_HOOKS)
				gdb_cuda_set_fused(mode == 2 ? 0 : -1);
			snprintf(what, sizeof(what), "%s [gpu%s]", name,
					 nmodes == 1 ? "" : mode == 0 ? " fast" : mode == 1 ? " sort" :
					 " fast, not fused");
			t0 = now_ms();
			gst_status = run_path(what, gpu_groupby, req, in, &out, &mst);
			tm = now_ms() - t0;
			check(gst_status == cst_status, "%s: gpu status %d, cpu %d", what,
				  gst_status, cst_status);
			if (gst_status == GDB_OK && cst_status == GDB_OK)
			{
				check(results_equal(what, req, out, cpu, 1), "%s: gpu vs cpu", what);
				check(mst.rows_in == cst.rows_in && mst.rows_selected == cst.rows_selected &&
					  mst.groups_out == cst.groups_out &&
					  (in->nrows == 0 ||
					   (mst.bytes_to_device >= in->total_bytes && mst.bytes_from_device > 0)),
					  "%s: gpu stats %llu/%llu/%llu", what,
					  (unsigned long long) mst.rows_in,
					  (unsigned long long) mst.rows_selected,
					  (unsigned long long) mst.groups_out);
				if (HAVE_FAST_HOOKS)
				{
					int			want = mode == 1 ? 0 : fast_expect;
					int			got = gdb_cuda_last_path();

					check(want < 0 || got == want, "%s: ran path %d, expected %d",
						  what, got, want);
				}
				if (HAVE_FUSED_HOOKS)
				{
					int			want = mode == 0 ? fused_expect : 0;
					int			got = gdb_cuda_last_fused();

					/* an empty batch runs no pass: the flag is the last call's */
					if (in->nrows == 0)
						want = -1;
					check(want < 0 || got == want, "%s: fused pass %d, expected %d",
						  what, got, want);
				}
			}
			if (mode == 0)
			{
				dev = out;
				gst = mst;
				t_gpu = tm;
			}
			else if (mode == 2)
			{
				if (dev && out)
				{
					snprintf(what, sizeof(what), "%s [gpu fused vs not fused]", name);
					check(results_equal(what, req, dev, out, 1), "%s", what);
					check(mst.rows_selected == gst.rows_selected &&
						  mst.bytes_to_device == gst.bytes_to_device,
						  "%s: stats %llu/%llu", what,
						  (unsigned long long) mst.rows_selected,
						  (unsigned long long) mst.bytes_to_device);
				}
				t_gpu_nf = tm;
				nfst = mst;
				free(out);
			}
			else
			{
				if (dev && out)
				{
					snprintf(what, sizeof(what), "%s [gpu fast vs sort]", name);
					check(results_equal(what, req, dev, out, 1), "%s", what);
				}
				t_gpu_sort = tm;
				ms_sort = mst.device_ms;
				free(out);
			}
		}
		if (HAVE_FAST_HOOKS)
			gdb_cuda_set_fast_paths(-1);
		if (HAVE_FUSED_HOOKS)
			gdb_cuda_set_fused(-1);
	}

	/* combine: halves' partial results, concatenated, fed back as states */
	if (cst_status == GDB_OK && in->nrows >= 2)
	{
		uint64_t	h = in->nrows / 3 + 1;
		GdbBatch   *lo = batch_like(in, h);
		GdbBatch   *hi = batch_like(in, in->nrows - h);
		GdbRequest *creq = combine_request(req);
		int			pass;

		batch_append(lo, in, 0, h);
		batch_append(hi, in, h, in->nrows - h);
		for (pass = 0; pass < (gpu ? 2 : 1); pass++)
		{
			GroupbyFn	fn = pass ? gpu_groupby : gdb_cpu_execute;
			const char *pname = pass ? "gpu" : "cpu";
			GdbBatch   *p1 = NULL,
					   *p2 = NULL,
					   *cat,
					   *comb = NULL;
			int			s1,
						s2,
						s3;

			snprintf(what, sizeof(what), "%s [%s partial]", name, pname);
			s1 = run_path(what, fn, req, lo, &p1, NULL);
			s2 = run_path(what, fn, req, hi, &p2, NULL);
			check(s1 == GDB_OK && s2 == GDB_OK, "%s: %s partials failed (%d, %d)",
				  name, pname, s1, s2);
			if (s1 == GDB_OK && s2 == GDB_OK)
			{
				cat = batch_like(p1, p1->nrows + p2->nrows);
				batch_append(cat, p1, 0, p1->nrows);
				batch_append(cat, p2, 0, p2->nrows);
				snprintf(what, sizeof(what), "%s [%s combine]", name, pname);
				s3 = run_path(what, fn, creq, cat, &comb, NULL);
				check(s3 == GDB_OK, "%s: %s combine status %d", name, pname, s3);
				if (s3 == GDB_OK)
					check(results_equal(what, req, comb, cpu, 1),
						  "%s: %s combine vs cpu whole", name, pname);
				free(cat);
			}
			free(p1);
			free(p2);
			free(comb);
		}
		free(lo);
		free(hi);
		free(creq);
	}
	if (in->nrows >= 1000000)
	{
		printf("  %s: %llu rows, %llu groups, cpu %.0f ms", name,
			   (unsigned long long) in->nrows,
			   (unsigned long long) (cpu ? cpu->nrows : 0), t_cpu);
		if (gpu)
			printf(", gpu %.1f ms (device %.1f ms)", t_gpu, gst.device_ms);
		if (gpu && t_gpu_sort >= 0)
			printf(", sort path %.1f ms (device %.1f ms)", t_gpu_sort, ms_sort);
		if (gpu && t_gpu_nf >= 0)
			printf("; filter + aggregate device ms: fused %.3f + %.3f, not fused %.3f + %.3f",
				   gst.phase_ms[GDB_PHASE_FILTER], gst.phase_ms[GDB_PHASE_AGGREGATE],
				   nfst.phase_ms[GDB_PHASE_FILTER], nfst.phase_ms[GDB_PHASE_AGGREGATE]);
		printf("\n");
	}
	free(ref);
	free(cpu);
	free(dev);
}

/* ---- the fast paths of the CUDA group-by ---- */

/*
 * Columns of the fast-path batches: small-domain INT64 keys (nullable,
 * negative, bool), values near the int64 limits, float specials, and keys
 * whose domain is exactly at the slot limit (65536 slots, the CUDA path's
 * GDB_FAST_MAX_SLOTS) or one past it.
 */
enum
{
	F_K1,						/* INT64 nullable, [k1lo, k1lo + k1span) */
	F_KB,						/* INT64 nullable bool 0/1 */
	F_K3,						/* INT64, [-3, 2] */
	F_VI,						/* INT64 nullable, mostly near INT64_MIN / MAX */
	F_VF,						/* FLOAT64 nullable, dyadic + NaN, +-0, +-Inf */
	F_VI2,						/* INT64, [-1000, 1000] */
	F_KW,						/* INT64, 65536 values: 65536 slots */
	F_KWO,						/* INT64, 65537 values: one slot too many */
	F_KWN,						/* INT64 nullable, 65535 values + NULL: 65536 */
	F_KWNO,						/* INT64 nullable, 65536 values + NULL */
	F_NCOLS
};

#define F_WLO (-30000)

static GdbBatch *
gen_fast_batch(uint64_t nrows, int64_t k1lo, uint64_t k1span, int null_pct)
{
	uint32_t	kinds[F_NCOLS];
	uint32_t	hn[F_NCOLS] = {1, 1, 0, 1, 1, 0, 0, 0, 1, 1};
	static const uint64_t vf_special[7] = {
		0x7ff8000000000000ULL, 0xfff8000000000001ULL, 0x7ff0000000000000ULL,
		0xfff0000000000000ULL, 0x8000000000000000ULL, 0, 0x7ff0000000000123ULL
	};
	GdbBatch   *b;
	uint64_t	r;
	int			c;

	for (c = 0; c < F_NCOLS; c++)
		kinds[c] = c == F_VF ? GDB_KIND_FLOAT64 : GDB_KIND_INT64;
	b = batch_new(F_NCOLS, kinds, hn, nrows);
	b->nrows = nrows;
	for (r = 0; r < nrows; r++)
	{
		uint64_t	u;

		for (c = 0; c < F_NCOLS; c++)
			if (hn[c])
				col_n(b, c)[r] = rng_below(100) < (uint64_t) (c == F_VI || c == F_VF ? 5 : null_pct);
		col_i(b, F_K1)[r] = k1lo + (int64_t) rng_below(k1span);
		col_i(b, F_KB)[r] = (int64_t) rng_below(2);
		col_i(b, F_K3)[r] = (int64_t) rng_below(6) - 3;
		u = rng_below(100);
		col_i(b, F_VI)[r] = u < 30 ? INT64_MAX - (int64_t) rng_below(1000) :
			u < 60 ? INT64_MIN + (int64_t) rng_below(1000) :
			(int64_t) rng_below(2001) - 1000;
		u = rng_below(1000);
		col_f(b, F_VF)[r] = u < 35 ? bits_to_double(vf_special[u / 5]) :
			((double) rng_below(1 << 21) - (1 << 20)) / 16.0;
		col_i(b, F_VI2)[r] = (int64_t) rng_below(2001) - 1000;
		col_i(b, F_KW)[r] = F_WLO + (int64_t) rng_below(65536);
		col_i(b, F_KWO)[r] = F_WLO + (int64_t) rng_below(65537);
		col_i(b, F_KWN)[r] = F_WLO + (int64_t) rng_below(65535);
		col_i(b, F_KWNO)[r] = F_WLO + (int64_t) rng_below(65536);
	}
	/* the wide keys' extremes, non-NULL, in rows 0 and 1 */
	if (nrows >= 2)
	{
		col_i(b, F_KW)[0] = F_WLO;
		col_i(b, F_KW)[1] = F_WLO + 65535;
		col_i(b, F_KWO)[0] = F_WLO;
		col_i(b, F_KWO)[1] = F_WLO + 65536;
		col_i(b, F_KWN)[0] = F_WLO;
		col_i(b, F_KWN)[1] = F_WLO + 65534;
		col_i(b, F_KWNO)[0] = F_WLO;
		col_i(b, F_KWNO)[1] = F_WLO + 65535;
		col_n(b, F_KWN)[0] = col_n(b, F_KWN)[1] = 0;
		col_n(b, F_KWNO)[0] = col_n(b, F_KWNO)[1] = 0;
	}
	return b;
}

static const GdbAggSpec fast_aggs[] = {
	{GDB_AGG_COUNT_STAR, -1}, {GDB_AGG_COUNT, F_VI}, {GDB_AGG_COUNT, F_VF},
	{GDB_AGG_SUM_INT, F_VI}, {GDB_AGG_SUM_INT, F_VI2}, {GDB_AGG_MIN_INT, F_VI},
	{GDB_AGG_MAX_INT, F_VI}, {GDB_AGG_SUM_FLOAT, F_VF}, {GDB_AGG_MIN_FLOAT, F_VF},
	{GDB_AGG_MAX_FLOAT, F_VF}, {GDB_AGG_MIN_INT, F_K1}, {GDB_AGG_MAX_INT, F_KB},
	{GDB_AGG_COUNT, F_K1}, {GDB_AGG_COUNT_STAR, -1},
	/* repeats (as sum(v) and avg(v) make): the slot path shares their state */
	{GDB_AGG_SUM_FLOAT, F_VF}, {GDB_AGG_MIN_INT, F_VI}, {GDB_AGG_COUNT, F_VF},
};

/* Key sets, with the path expected with fast paths on and no filter. */
static const struct
{
	const char *name;
	uint32_t	nkeys;
	int32_t		cols[GDB_MAX_GROUP_KEYS];
	int			path;			/* 0 sort, 1 no keys, 2 small domain */
	int			wide;			/* many groups: no naive reference */
}			fast_keysets[] = {
	{"()", 0, {0}, 1, 0},
	{"(k1)", 1, {F_K1}, 2, 0},
	{"(kb)", 1, {F_KB}, 2, 0},
	{"(k1, kb)", 2, {F_K1, F_KB}, 2, 0},
	{"(k3, k1, kb)", 3, {F_K3, F_K1, F_KB}, 2, 0},
	{"(kb, kb)", 2, {F_KB, F_KB}, 2, 0},
	{"(vi) int64-wide domain", 1, {F_VI}, 0, 0},
	{"(kw) 65536 slots", 1, {F_KW}, 2, 1},
	{"(kwn) 65535 values + NULL", 1, {F_KWN}, 2, 1},
	{"(kwo) 65537 slots", 1, {F_KWO}, 0, 1},
	{"(kwno) 65536 values + NULL", 1, {F_KWNO}, 0, 1},
	{"(kb, kw) 3 * 65536 slots", 2, {F_KB, F_KW}, 0, 1},
	{"(k3, kb, vi2) 6 * 3 * 2001 slots", 3, {F_K3, F_KB, F_VI2}, 2, 1},
};

#define NFASTKEYSETS ((int) (sizeof(fast_keysets) / sizeof(fast_keysets[0])))

/* Filters over the fast batch ($5 is vi2). */
static const struct
{
	const char *name;
	const char *code;
}			fast_programs[] = {
	{"no filter", ""},
	{"vi2 < 0", "$5 i0 int_lt"},
	{"vi2 % 10 = 0", "$5 i10 int_mod/8 i0 int_eq"},
	{"vi2 > 5000 (nothing)", "$5 i5000 int_gt"},
	{"100 / vi2 > 0 (division by zero)", "i100 $5 int_div/8 i0 int_gt"},
};

#define NFASTPROGS ((int) (sizeof(fast_programs) / sizeof(fast_programs[0])))

static void
fast_case(GdbRequest *req, const GdbBatch *in, int ks, int prog, int with_reference)
{
	char		name[256];

	req->nkeys = fast_keysets[ks].nkeys;
	memcpy(req->key_cols, fast_keysets[ks].cols, sizeof(req->key_cols));
	req->naggs = sizeof(fast_aggs) / sizeof(fast_aggs[0]);
	memcpy(req->aggs, fast_aggs, sizeof(fast_aggs));
	assemble(req, fast_programs[prog].code);
	/* the path is certain without a filter; an empty selection stays fast */
	fast_expect = prog == 0 || (fast_keysets[ks].path != 0 && prog != 4) ?
		fast_keysets[ks].path : -1;
	/*
	 * with keys and at most one row any domain is small (or there is none);
	 * two rows of the int64-wide column may fall in one cluster of it
	 */
	if ((in->nrows <= 1 && fast_keysets[ks].nkeys > 0) ||
		(in->nrows <= 2 && fast_keysets[ks].path == 0 && !fast_keysets[ks].wide))
		fast_expect = -1;
	snprintf(name, sizeof(name), "fast: %llu rows, keys %s, %s",
			 (unsigned long long) in->nrows, fast_keysets[ks].name,
			 fast_programs[prog].name);
	run_case(name, req, in, with_reference && !fast_keysets[ks].wide);

	/*
	 * One key: aggregate lists of at most two distinct columns, the shapes
	 * the lean one-key slot pass (cuda/slot_agg_onekey.cu) takes -- no
	 * column at all, B1's and B5's, two columns -- which fast_aggs (more
	 * columns) never reaches.
	 */
	if (fast_keysets[ks].nkeys == 1)
	{
		static const struct
		{
			const char *name;
			int			naggs;
			GdbAggSpec	aggs[4];
		}			lean_sets[] = {
			{"count(*)", 1, {{GDB_AGG_COUNT_STAR, -1}}},
			{"count(*), sum(vf), avg(vf)", 4,
			{{GDB_AGG_COUNT_STAR, -1}, {GDB_AGG_SUM_FLOAT, F_VF},
			{GDB_AGG_SUM_FLOAT, F_VF}, {GDB_AGG_COUNT, F_VF}}},
			{"min(vf), max(vf), count(*)", 3,
			{{GDB_AGG_MIN_FLOAT, F_VF}, {GDB_AGG_MAX_FLOAT, F_VF}, {GDB_AGG_COUNT_STAR, -1}}},
			{"sum(vi), count(vf), sum(vf), max(vi)", 4,
			{{GDB_AGG_SUM_INT, F_VI}, {GDB_AGG_COUNT, F_VF}, {GDB_AGG_SUM_FLOAT, F_VF},
			{GDB_AGG_MAX_INT, F_VI}}},
		};
		int			i;

		for (i = 0; i < (int) (sizeof(lean_sets) / sizeof(lean_sets[0])); i++)
		{
			req->naggs = (uint32_t) lean_sets[i].naggs;
			memcpy(req->aggs, lean_sets[i].aggs, sizeof(GdbAggSpec) * lean_sets[i].naggs);
			snprintf(name, sizeof(name), "fast: %llu rows, keys %s, %s, aggregates %s",
					 (unsigned long long) in->nrows, fast_keysets[ks].name,
					 fast_programs[prog].name, lean_sets[i].name);
			run_case(name, req, in, with_reference && !fast_keysets[ks].wide);
		}
	}
	fast_expect = -1;
}

/*
 * test_fast_paths: requests that hit the CUDA fast paths (no keys; small
 * INT64 key domains) and their fallbacks (domain one past the slot limit,
 * int64-wide), every aggregate kind; run_case compares the GPU with fast
 * paths on and off with each other and with the CPU and checks the path
 * taken.  Without a device only the CPU and reference checks run.
 */
static void
test_fast_paths(void)
{
	GdbRequest *req = request_new();
	static const uint64_t sizes[] = {0, 1, 2, 1000, 50000};
	size_t		si;
	int			ks,
				p;
	uint64_t	saved_rng = rng_state;

	/* a stream of its own: the later tests see the numbers they always did */
	rng_state ^= 0x5eed5eed5eed5eedULL;

	for (si = 0; si < sizeof(sizes) / sizeof(sizes[0]); si++)
	{
		GdbBatch   *in = gen_fast_batch(sizes[si], -7, 12, 15);

		for (ks = 0; ks < NFASTKEYSETS; ks++)
			for (p = 0; p < NFASTPROGS; p++)
				fast_case(req, in, ks, p, 1);
		free(in);
	}
	/* many rows, few groups: contention on the per-slot atomics */
	{
		GdbBatch   *in = gen_fast_batch(2500000, -2, 5, 10);
		static const int ks_big[] = {0, 1, 3, 4, 7, 9};

		for (si = 0; si < sizeof(ks_big) / sizeof(ks_big[0]); si++)
		{
			fast_case(req, in, ks_big[si], 0, ks_big[si] <= 1);
			fast_case(req, in, ks_big[si], 2, 0);
		}
		fast_case(req, in, 0, 1, 0);
		free(in);
	}
	free(req);
	rng_state = saved_rng;
}

/* ---- the fused no-keys pass (cuda/fused_filter_agg.cu) ---- */

/*
 * Aggregate lists for the fused pass: 1-4 aggregates, every fast kind, on
 * the predicate's column and on others, repeats sharing an accumulator;
 * fused 0: too many distinct accumulators (5), or columns with the
 * predicate's (4), so the two passes run.
 */
static const struct
{
	const char *name;
	uint32_t	naggs;
	GdbAggSpec	aggs[5];
	int			fused;
}			fused_aggsets[] = {
	{"count(*)", 1, {{GDB_AGG_COUNT_STAR, -1}}, 1},
	{"count(*), sum(vf)", 2, {{GDB_AGG_COUNT_STAR, -1}, {GDB_AGG_SUM_FLOAT, F_VF}}, 1},
	{"min(vf), max(vf), count(vf)", 3,
	{{GDB_AGG_MIN_FLOAT, F_VF}, {GDB_AGG_MAX_FLOAT, F_VF}, {GDB_AGG_COUNT, F_VF}}, 1},
	{"sum(vi), min(vi), max(vi), count(vi)", 4,
	{{GDB_AGG_SUM_INT, F_VI}, {GDB_AGG_MIN_INT, F_VI}, {GDB_AGG_MAX_INT, F_VI},
	{GDB_AGG_COUNT, F_VI}}, 1},
	{"sum(vi2), min(k1), max(vf), count(*)", 4,
	{{GDB_AGG_SUM_INT, F_VI2}, {GDB_AGG_MIN_INT, F_K1}, {GDB_AGG_MAX_FLOAT, F_VF},
	{GDB_AGG_COUNT_STAR, -1}}, 1},
	{"sum(vf), sum(vf), count(vf), count(*) (shared)", 4,
	{{GDB_AGG_SUM_FLOAT, F_VF}, {GDB_AGG_SUM_FLOAT, F_VF}, {GDB_AGG_COUNT, F_VF},
	{GDB_AGG_COUNT_STAR, -1}}, 1},
	{"max(k3), min(kb), sum(vi2) (no NULLs in k3, vi2)", 3,
	{{GDB_AGG_MAX_INT, F_K3}, {GDB_AGG_MIN_INT, F_KB}, {GDB_AGG_SUM_INT, F_VI2}}, 1},
	{"5 distinct accumulators (not fused)", 5,
	{{GDB_AGG_SUM_INT, F_VI}, {GDB_AGG_MIN_INT, F_VI}, {GDB_AGG_MAX_INT, F_VI},
	{GDB_AGG_COUNT, F_VI}, {GDB_AGG_SUM_INT, F_VI2}}, 0},
};

#define NFUSEDAGGS ((int) (sizeof(fused_aggsets) / sizeof(fused_aggsets[0])))

/*
 * Filters for the fused pass ($0 k1, $3 vi, $4 vf, $5 vi2; vi2 is uniform
 * in [-1000, 1000], vf is 5 % NULL with NaN, +-Infinity, +-0 among its
 * values, k1 and vi are nullable); fused 0: not a predicate (the
 * interpreter's flags, then the two passes).  fused_ncols counts the
 * columns they read with an aggregate set's (more than 3: not fused).
 */
static const struct
{
	const char *name;
	const char *code;
	int			fused;
}			fused_programs[] = {
	{"vf BETWEEN -1000 AND 1000", "$4 f-1000 flt_ge $4 f1000 flt_le and", 1},
	{"vf BETWEEN -0 AND 0", "$4 f-0 flt_ge jump_if_false@8 $4 f0 flt_le and", 1},
	{"vf = NaN", "$4 fnan flt_eq", 1},
	{"vf >= -Infinity (all but NULLs)", "$4 f-inf flt_ge", 1},
	{"vf < Infinity", "$4 finf flt_lt", 1},
	{"vi2 < 0 (50 %)", "$5 i0 int_lt", 1},
	{"vi2 BETWEEN 0 AND 1 (0.1 %)", "$5 i0 int_ge $5 i1 int_le and", 1},
	{"vi2 > 5000 (0 %)", "$5 i5000 int_gt", 1},
	{"vi2 >= -1000 (100 %)", "$5 i-1000 int_ge", 1},
	{"vi2 % 7 = 3", "$5 i7 int_mod/8 i3 int_eq", 1},
	{"k1 >= 0 AND vi2 <> 3 (nullable k1)", "$0 i0 int_ge is_true $5 i3 int_ne and", 1},
	{"100 / vi2 > 0 (division by zero: not fused)", "i100 $5 int_div/8 i0 int_gt", 0},
	{"vf * 2 > 1 (not a predicate)", "$4 f2 flt_mul/8 f1 flt_gt", 0},
	{"vi > 0", "$3 i0 int_gt", 1},
};

#define NFUSEDPROGS ((int) (sizeof(fused_programs) / sizeof(fused_programs[0])))

/* Column-store helpers (below, with the store tests). */
static int	st_create(int on_gpu, const GdbBatch *like, uint64_t capacity, GdbStore **s,
					  GdbError *err);
static int	st_append(int on_gpu, GdbStore *s, const GdbBatch *b, GdbStats *stats,
					  GdbError *err);
static void store_compare(int on_gpu, GdbStore *s, const GdbRequest *req,
						  const GdbBatch *whole, const char *name);

/* Distinct columns of aggregate set a and program p together. */
static int
fused_ncols(int a, int p)
{
	int			seen[F_NCOLS] = {0};
	int			n = 0;
	uint32_t	i;
	const char *c;

	for (i = 0; i < fused_aggsets[a].naggs; i++)
		if (fused_aggsets[a].aggs[i].input_col >= 0 && !seen[fused_aggsets[a].aggs[i].input_col]++)
			n++;
	for (c = fused_programs[p].code; (c = strchr(c, '$')) != NULL; c++)
		if (!seen[atoi(c + 1)]++)
			n++;
	return n;
}

/* One no-keys request: aggregate set a, program p, over in (or a store). */
static void
fused_request(GdbRequest *req, int a, int p)
{
	req->nkeys = 0;
	req->naggs = fused_aggsets[a].naggs;
	memcpy(req->aggs, fused_aggsets[a].aggs, req->naggs * sizeof(GdbAggSpec));
	assemble(req, fused_programs[p].code);
}

/* The fused pass run_case should see for set a and program p. */
static int
fused_want(int a, int p)
{
	return fused_aggsets[a].fused && fused_programs[p].fused && fused_ncols(a, p) <= 3;
}

static void
fused_case(GdbRequest *req, const GdbBatch *in, int a, int p, int with_reference)
{
	char		name[256];

	fused_request(req, a, p);
	fast_expect = 1;			/* no keys: the no-keys path, fused or not */
	fused_expect = fused_want(a, p);
	if (strstr(fused_programs[p].name, "division by zero"))
		fast_expect = -1;		/* the filter may raise: no path recorded */
	snprintf(name, sizeof(name), "fused: %llu rows, %s, %s",
			 (unsigned long long) in->nrows, fused_aggsets[a].name,
			 fused_programs[p].name);
	run_case(name, req, in, with_reference);
	fast_expect = -1;
	fused_expect = -1;
}

/*
 * test_fused_paths: requests without keys whose filter is a predicate, so
 * that the CUDA path runs the fused filter + aggregation pass, and near
 * misses that must not; sizes around the pass's tile (2,048 rows) and pair
 * width, up to 5M rows (many blocks, several tiles each).  run_case
 * compares the fused pass with the CPU, the sort path and the two-pass
 * fast path and checks which ran.  Then the same over column stores (the
 * cached input the benchmarks use).  Without a device only the CPU and
 * reference checks run.
 */
static void
test_fused_paths(void)
{
	GdbRequest *req = request_new();
	static const uint64_t sizes[] = {0, 1, 2, 3, 7, 2047, 2048, 2049, 6151};
	size_t		si;
	int			a,
				p;
	uint64_t	saved_rng = rng_state;

	rng_state ^= 0xf05edf05edf05edULL;

	/* the grid checks every program with every aggregate set */
	for (si = 0; si < sizeof(sizes) / sizeof(sizes[0]); si++)
	{
		GdbBatch   *in = gen_fast_batch(sizes[si], -7, 12, 15);

		for (a = 0; a < NFUSEDAGGS; a++)
			for (p = 0; p < NFUSEDPROGS; p++)
				fused_case(req, in, a, p, 1);
		free(in);
	}
	/* many blocks: B2's shape at each selectivity, and every kind */
	{
		GdbBatch   *in = gen_fast_batch(300001, -7, 12, 15);

		for (a = 0; a < NFUSEDAGGS; a++)
			for (p = 0; p < NFUSEDPROGS; p += 3)
				fused_case(req, in, a, p, 0);
		free(in);
		in = gen_fast_batch(5000000 + 1023, -2, 5, 10);
		for (p = 5; p <= 8; p++)
			fused_case(req, in, 1, p, 0);
		fused_case(req, in, 0, 0, 0);
		fused_case(req, in, 3, 10, 0);
		fused_case(req, in, 4, 9, 0);
		free(in);
	}

	/* column stores: the input already on the device (the cached case) */
	{
		static const uint64_t store_sizes[] = {0, 5, 2049, 70001};
		int			on_gpu;

		for (si = 0; si < sizeof(store_sizes) / sizeof(store_sizes[0]); si++)
			for (on_gpu = 0; on_gpu < (gpu ? 2 : 1); on_gpu++)
			{
				GdbBatch   *in = gen_fast_batch(store_sizes[si], -7, 12, 15);
				GdbStore   *st = NULL;
				GdbError	err;
				char		name[256];
				int			ok;

				ok = st_create(on_gpu, in, 1, &st, &err) == GDB_OK &&
					st_append(on_gpu, st, in, NULL, &err) == GDB_OK;
				check(ok, "fused: store of %llu rows [%s]: %s",
					  (unsigned long long) in->nrows, on_gpu ? "gpu" : "cpu",
					  ok ? "" : err.message);
				for (a = 0; ok && a < NFUSEDAGGS; a++)
					for (p = 0; p < NFUSEDPROGS; p++)
					{
						fused_request(req, a, p);
						snprintf(name, sizeof(name), "fused store [%s]: %llu rows, %s, %s",
								 on_gpu ? "gpu" : "cpu", (unsigned long long) in->nrows,
								 fused_aggsets[a].name, fused_programs[p].name);
						store_compare(on_gpu, st, req, in, name);
						if (on_gpu && HAVE_FUSED_HOOKS)
							check(gdb_cuda_last_fused() == fused_want(a, p),
								  "%s: fused pass %d, expected %d", name,
								  gdb_cuda_last_fused(), fused_want(a, p));
					}
				if (st)
				{
					if (on_gpu)
						gdb_cuda_store_free(st);
					else
						gdb_cpu_store_free(st);
				}
				free(in);
			}
	}
	free(req);
	rng_state = saved_rng;
}

/* ---- malformed requests, allocation failure ---- */

static void
expect_status(const char *name, const GdbRequest *req, const GdbBatch *in,
			  int want, GdbAllocFn alloc)
{
	int			pass;

	for (pass = 0; pass < (gpu ? 2 : 1); pass++)
	{
		GdbError	err;
		GdbBatch   *res = (GdbBatch *) (uintptr_t) 1;
		int			st;

		memset(&err, 0x5a, sizeof(err));
		st = pass ? gdb_cuda_execute(gpu, req, in, alloc, NULL, &res, NULL, &err)
			: gdb_cpu_execute(req, in, alloc, NULL, &res, NULL, &err);
		check(st == want && err.status == want &&
			  memchr(err.message, '\0', sizeof(err.message)) &&
			  (want == GDB_OK ? res != NULL : (res == NULL && err.message[0])),
			  "%s [%s]: status %d (want %d): %.200s", name, pass ? "gpu" : "cpu",
			  st, want, memchr(err.message, '\0', sizeof(err.message)) ? err.message : "?");
		if (st == GDB_OK && res != (GdbBatch *) (uintptr_t) 1)
			free(res);
	}
}

static void
test_bad_requests(void)
{
	GenParams	gp = {5, 8, 10, 10, 0};
	GdbBatch   *in = gen_batch(50, &gp);
	GdbRequest *r = request_new();

	build_keys(r, 1);
	build_aggs(r);
	expect_status("valid request", r, in, GDB_OK, test_alloc);

	r->key_cols[0] = 17;
	expect_status("key column out of range", r, in, GDB_ERR_BAD_REQUEST, test_alloc);
	r->key_cols[0] = C_KI;
	r->nkeys = GDB_MAX_GROUP_KEYS + 1;
	expect_status("too many keys", r, in, GDB_ERR_BAD_REQUEST, test_alloc);
	build_keys(r, 1);
	r->aggs[3].input_col = C_VF;	/* SUM_INT of a float column */
	expect_status("sum_int of float column", r, in, GDB_ERR_BAD_REQUEST, test_alloc);
	build_aggs(r);
	r->aggs[0].input_col = C_VI;	/* count(*) with a column */
	expect_status("count(*) with a column", r, in, GDB_ERR_BAD_REQUEST, test_alloc);
	build_aggs(r);
	r->aggs[2].kind = 99;
	expect_status("unknown aggregate kind", r, in, GDB_ERR_BAD_REQUEST, test_alloc);
	build_aggs(r);
	r->input_is_states = 1;
	expect_status("states mode over value columns", r, in, GDB_ERR_BAD_REQUEST, test_alloc);
	r->input_is_states = 0;

	/* malformed programs, and the deepest valid one */
	{
		static const struct
		{
			const char *name;
			const char *code;
		}			bad[] = {
			{"backward jump", "i1 jump_if_true@0"},
			{"jump past the end", "i1 jump_if_true@5"},
			{"stack underflow", "i1 int_add/8"},
			{"two values left", "i1 i2"},
			{"inconsistent depth at a jump target", "i1 jump_if_true@3 i2"},
			{"column out of range", "$99"},
			{"unknown opcode", "#200"},
			{"integer width 3", "i1 i1 int_add/3"},
			{"float width 2", "f1 f1 flt_add/2"},
		};
		char		code[1024] = "";
		size_t		i;

		for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++)
		{
			assemble(r, bad[i].code);
			expect_status(bad[i].name, r, in, GDB_ERR_BAD_REQUEST, test_alloc);
		}
		for (i = 0; i < GDB_MAX_STACK; i++)
			strcat(code, "i1 ");
		for (i = 0; i + 1 < GDB_MAX_STACK; i++)
			strcat(code, "and ");
		assemble(r, code);
		expect_status("full stack (valid)", r, in, GDB_OK, test_alloc);
		strcat(code, "and");	/* now one more push than the stack holds */
		memmove(code + 3, code, strlen(code) + 1);
		memcpy(code, "i1 ", 3);
		assemble(r, code);
		expect_status("stack overflow", r, in, GDB_ERR_BAD_REQUEST, test_alloc);
		r->ninstr = GDB_MAX_INSTR + 1;
		expect_status("too many instructions", r, in, GDB_ERR_BAD_REQUEST, test_alloc);
	}
	r->ninstr = 0;

	/* malformed batches */
	in->magic ^= 1;
	expect_status("bad magic", r, in, GDB_ERR_BAD_REQUEST, test_alloc);
	in->magic ^= 1;
	in->nrows = in->capacity + 1;
	expect_status("nrows > capacity", r, in, GDB_ERR_BAD_REQUEST, test_alloc);
	in->nrows = 50;
	in->cols[C_VI].values_off = in->total_bytes - 8;
	expect_status("column past total_bytes", r, in, GDB_ERR_BAD_REQUEST, test_alloc);
	free(in);

	/* allocation failure */
	in = gen_batch(50, &gp);
	expect_status("alloc returns NULL", r, in, GDB_ERR_OUT_OF_MEMORY, failing_alloc);
	build_keys(r, 0);
	expect_status("alloc returns NULL, no keys", r, in, GDB_ERR_OUT_OF_MEMORY, failing_alloc);
	free(in);
	free(r);
}

/* ---- semantics identities the paths rely on ---- */

static void
test_semantics(void)
{
	double		nan_p = bits_to_double(0x7ff8000000000000ULL);
	double		nan_n = bits_to_double(0xfff8000000000000ULL);
	const double vals[] = {-INFINITY, -1e300, -1.0, -4.9e-324, -0.0, 0.0, 4.9e-324, 1.0,
	1e300, INFINITY, nan_p};
	const double ties[][2] = {{-0.0, 0.0}, {nan_p, nan_n}, {0.0, -0.0}, {nan_n, nan_p}};
	GdbAggState a,
				b,
				ab,
				ba;
	size_t		i;
	int			kind;

	for (i = 0; i + 1 < sizeof(vals) / sizeof(vals[0]); i++)
	{
		int			same = vals[i] == vals[i + 1];

		check(same ? gdb_key_encode_float(vals[i]) == gdb_key_encode_float(vals[i + 1])
			  : gdb_key_encode_float(vals[i]) < gdb_key_encode_float(vals[i + 1]),
			  "float key encoding order at %g", vals[i]);
	}
	check(gdb_key_encode_float(nan_n) == gdb_key_encode_float(nan_p), "NaN encodings");

	/*
	 * gdb_float_range: the IEEE form of an encoded range passes exactly
	 * the values the encoded test passes, for bounds at every special
	 * value's encoding and its neighbours (so every < and > form, and -0's
	 * unused encoding), over the special values and their neighbours.
	 */
	{
		uint64_t	enc[3 * (sizeof(vals) / sizeof(vals[0])) + 4];
		double		xs[3 * (sizeof(vals) / sizeof(vals[0])) + 1];
		size_t		ne = 0,
					nx = 0,
					l,
					h,
					x;
		int			bad = 0;

		for (i = 0; i < sizeof(vals) / sizeof(vals[0]); i++)
		{
			uint64_t	e = gdb_key_encode_float(vals[i]);

			enc[ne++] = e - 1;
			enc[ne++] = e;
			enc[ne++] = e + 1;
			xs[nx++] = vals[i];
			xs[nx++] = nextafter(vals[i], -INFINITY);
			xs[nx++] = nextafter(vals[i], INFINITY);
		}
		enc[ne++] = 0;
		enc[ne++] = UINT64_MAX;
		enc[ne++] = 0x7fffffffffffffffULL;	/* -0's own, unused */
		enc[ne++] = 0xfff0000000000001ULL;	/* between +Inf and NaN */
		xs[nx++] = nan_n;
		for (l = 0; l < ne; l++)
			for (h = 0; h < ne; h++)
			{
				GdbFloatRange fr = gdb_float_range(enc[l], enc[h]);

				for (x = 0; x < nx; x++)
				{
					uint64_t	e = gdb_key_encode_float(xs[x]);
					int			want = enc[l] <= e && e <= enc[h];

					if (gdb_float_range_pass(xs[x], fr) != want && bad++ < 5)
						check(0, "float range [%016llx, %016llx] at %a: %d, encoded test %d",
							  (unsigned long long) enc[l], (unsigned long long) enc[h],
							  xs[x], !want, want);
				}
			}
		check(bad == 0, "float range tests agree with encoded ones (%d differ)", bad);
	}
	check(gdb_key_encode_int(INT64_MIN) < gdb_key_encode_int(-1) &&
		  gdb_key_encode_int(-1) < gdb_key_encode_int(0) &&
		  gdb_key_encode_int(0) < gdb_key_encode_int(INT64_MAX), "int key encoding order");

	for (i = 0; i < sizeof(ties) / sizeof(ties[0]); i++)
		for (kind = GDB_AGG_MIN_FLOAT; kind <= GDB_AGG_MAX_FLOAT; kind++)
		{
			a = gdb_state_from_value(kind, 0, ties[i][0], 0);
			b = gdb_state_from_value(kind, 0, ties[i][1], 0);
			ab = gdb_state_combine(kind, a, b);
			ba = gdb_state_combine(kind, b, a);
			check(memcmp(&ab, &ba, sizeof(ab)) == 0 && ab.count == 2,
				  "min/max float combine is commutative on ties (case %zu, kind %d)", i, kind);
		}
	a = gdb_state_from_value(GDB_AGG_MIN_FLOAT, 0, -0.0, 0);
	b = gdb_state_from_value(GDB_AGG_MIN_FLOAT, 0, 0.0, 0);
	check(signbit(gdb_state_combine(GDB_AGG_MIN_FLOAT, b, a).f) != 0, "min(-0, 0) is -0");
	check(signbit(gdb_state_combine(GDB_AGG_MAX_FLOAT, a, b).f) == 0, "max(-0, 0) is +0");
	a = gdb_state_from_value(GDB_AGG_MAX_FLOAT, 0, nan_p, 0);
	b = gdb_state_from_value(GDB_AGG_MAX_FLOAT, 0, INFINITY, 0);
	check(isnan(gdb_state_combine(GDB_AGG_MAX_FLOAT, b, a).f), "max(inf, NaN) is NaN");

	/* 128-bit sums: INT64_MAX * 2 and INT64_MIN * 2 */
	a = gdb_state_from_value(GDB_AGG_SUM_INT, INT64_MAX, 0, 0);
	ab = gdb_state_combine(GDB_AGG_SUM_INT, a, a);
	check(ab.i0 == -2 && ab.i1 == 0 && ab.count == 2, "int128 sum of 2 * INT64_MAX");
	a = gdb_state_from_value(GDB_AGG_SUM_INT, INT64_MIN, 0, 0);
	ab = gdb_state_combine(GDB_AGG_SUM_INT, a, a);
	check(ab.i0 == 0 && ab.i1 == -1, "int128 sum of 2 * INT64_MIN");
	a = gdb_state_from_value(GDB_AGG_SUM_INT, -1, 0, 0);
	b = gdb_state_from_value(GDB_AGG_SUM_INT, 1, 0, 0);
	ab = gdb_state_combine(GDB_AGG_SUM_INT, a, b);
	check(ab.i0 == 0 && ab.i1 == 0, "int128 sum of -1 + 1");
}

/* Filter error cases with a planted first failing row. */
static void
test_first_error(void)
{
	GenParams	gp = {5, 8, 10, 10, 0};
	GdbRequest *r = request_new();
	int			v;

	build_keys(r, 3);
	build_aggs(r);
	build_program(r, 7);
	for (v = 0; v < 2; v++)
	{
		GdbBatch   *in = gen_batch(20000, &gp);
		uint64_t	i;

		/* no failing rows except the planted ones */
		for (i = 0; i < in->nrows; i++)
			col_i(in, C_CI)[i] = 100 + (int64_t) rng_below(9000);
		col_i(in, C_CI)[11111] = v ? 7 : 20;	/* the first failure */
		col_i(in, C_CI)[15000] = v ? 20 : 7;
		col_i(in, C_CI)[19999] = 7;
		run_case(v ? "first error is division by zero" : "first error is int4 range",
				 r, in, 1);
		free(in);
	}
	free(r);
}

/* ---- column stores, text constants, device recovery ---- */

/* The store operations of one path: 0 the CPU store, 1 the CUDA store. */
static int
st_create(int on_gpu, const GdbBatch *like, uint64_t capacity, GdbStore **s,
		  GdbError *err)
{
	uint32_t	kinds[GDB_MAX_COLUMNS],
				hn[GDB_MAX_COLUMNS];
	uint32_t	c;

	for (c = 0; c < like->ncols; c++)
	{
		kinds[c] = like->cols[c].kind;
		hn[c] = like->cols[c].has_nulls;
	}
	return on_gpu ? gdb_cuda_store_create(gpu, like->ncols, kinds, hn, capacity, s, err)
		: gdb_cpu_store_create(like->ncols, kinds, hn, capacity, s, err);
}

static int
st_append(int on_gpu, GdbStore *s, const GdbBatch *b, GdbStats *stats, GdbError *err)
{
	return on_gpu ? gdb_cuda_store_append(gpu, s, b, stats, err)
		: gdb_cpu_store_append(s, b, err);
}

static int
st_groupby(int on_gpu, GdbStore *s, const GdbRequest *req, GdbBatch **res,
		   GdbStats *stats, GdbError *err)
{
	return on_gpu ? gdb_cuda_store_execute(gpu, s, req, test_alloc, NULL, res, stats, err)
		: gdb_cpu_store_execute(s, req, test_alloc, NULL, res, stats, err);
}

/*
 * Group-by over the store against gdb_cpu_execute over whole (the rows
 * appended so far): same status; same result (SUM_FLOAT within 1e-12 on
 * the GPU); same rows/selection/group statistics; on the GPU nothing but
 * the filter program (and the code tables, with their view's header) is
 * copied to the device.
 */
static void
store_compare(int on_gpu, GdbStore *s, const GdbRequest *req, const GdbBatch *whole,
			  const char *name)
{
	GdbBatch   *a = NULL,
			   *b = NULL;
	GdbStats	sa,
				sb;
	GdbError	err;
	int			x,
				y;

	memset(&sa, 0, sizeof(sa));
	memset(&sb, 0, sizeof(sb));
	memset(&err, 0x5a, sizeof(err));
	x = st_groupby(on_gpu, s, req, &a, &sa, &err);
	check(err.status == x && memchr(err.message, '\0', sizeof(err.message)) &&
		  (x == GDB_OK) == (a != NULL), "%s: store error contract (%d)", name, x);
	y = gdb_cpu_execute(req, whole, test_alloc, NULL, &b, &sb, NULL);
	check(x == y, "%s: store status %d, whole batch %d (%s)", name, x, y,
		  x ? err.message : "");
	if (x == GDB_OK && y == GDB_OK)
	{
		check(results_equal(name, req, a, b, on_gpu), "%s: store vs whole batch", name);
		check(sa.rows_in == whole->nrows && sa.rows_selected == sb.rows_selected &&
			  sa.groups_out == sb.groups_out, "%s: store stats", name);
		if (on_gpu)
			check(sa.bytes_to_device ==
				  program_bytes(req, whole->nrows) +
				  (req->ntables ? req->ntable_words * sizeof(uint64_t) + sizeof(GdbBatch) : 0) &&
				  (whole->nrows == 0 || sa.bytes_from_device > 0),
				  "%s: store group-by copied %llu bytes to the device", name,
				  (unsigned long long) sa.bytes_to_device);
		else
			check(sa.bytes_to_device == 0 && sa.device_ms == 0, "%s: cpu store stats", name);
	}
	free(a);
	free(b);
}

/* Host bytes of n rows of b's columns (values and NULL flags). */
static uint64_t
row_bytes(const GdbBatch *b, uint64_t n)
{
	uint64_t	t = 0;
	uint32_t	c;

	for (c = 0; c < b->ncols; c++)
		t += n * (gdb_kind_width(b->cols[c].kind) + b->cols[c].has_nulls);
	return t;
}

/* One store per path: random input in 3-5 unequal appends, then requests. */
static void
test_store_path(int on_gpu, uint64_t nrows)
{
	const char *pn = on_gpu ? "gpu" : "cpu";
	GenParams	gp = {1 + rng_below(20), 1 + (int) rng_below(12), 1 + rng_below(nrows + 1),
	(int) rng_below(30), rng_below(50)};
	GdbBatch   *in = gen_batch(nrows, &gp);
	GdbBatch   *whole = batch_like(in, nrows);
	GdbRequest *req = request_new();
	GdbStore   *s = NULL;
	GdbStats	ast;
	GdbError	err;
	uint64_t	cuts[6],
				init_bytes,
				want_bytes = 0;
	int			nparts = 3 + (int) rng_below(3),
				i,
				st;
	char		name[256];
	static const int progs[] = {0, 1, 2, 3, 8, 13, 16, 5};
	static const int keys[] = {0, 1, 3, 4, 5, 7};

	memset(&ast, 0, sizeof(ast));
	st = st_create(on_gpu, in, 1 + rng_below(64), &s, &err);
	check(st == GDB_OK && s != NULL, "%s store create: %s", pn, err.message);
	if (st != GDB_OK)
	{
		free(in);
		free(whole);
		free(req);
		return;
	}
	init_bytes = gdb_store_bytes(s);
	check(gdb_store_rows(s) == 0 && init_bytes > sizeof(GdbBatch), "%s new store size", pn);

	/* unequal cut points: sorted random, first part always non-empty */
	cuts[0] = 0;
	cuts[nparts] = nrows;
	for (i = 1; i < nparts; i++)
		cuts[i] = 1 + rng_below(nrows - 1);
	for (i = 1; i < nparts; i++)
	{
		int			j;

		for (j = i; j > 1 && cuts[j - 1] > cuts[j]; j--)
		{
			uint64_t	t = cuts[j];

			cuts[j] = cuts[j - 1];
			cuts[j - 1] = t;
		}
	}
	build_aggs(req);
	for (i = 0; i < nparts; i++)
	{
		uint64_t	n = cuts[i + 1] - cuts[i];
		GdbBatch   *part = batch_like(in, n + rng_below(20));	/* own offsets */

		part->nrows = 0;
		batch_append(part, in, cuts[i], n);
		st = st_append(on_gpu, s, part, &ast, &err);
		check(st == GDB_OK, "%s store append %d of %llu rows: %s", pn, i,
			  (unsigned long long) n, err.message);
		if (n > 0)
			want_bytes += row_bytes(in, n) + sizeof(GdbBatch);
		batch_append(whole, in, cuts[i], n);
		check(gdb_store_rows(s) == whole->nrows, "%s store rows after append %d", pn, i);
		free(part);
		/* the store after each append equals the prefix appended so far */
		build_keys(req, 3);
		build_program(req, 2);
		snprintf(name, sizeof(name), "%s store, %llu rows after append %d", pn,
				 (unsigned long long) whole->nrows, i);
		store_compare(on_gpu, s, req, whole, name);
	}
	check(gdb_store_bytes(s) > init_bytes &&
		  gdb_store_bytes(s) >= gdb_align_up(sizeof(GdbBatch)) + row_bytes(in, nrows),
		  "%s store grew: %llu -> %llu bytes", pn, (unsigned long long) init_bytes,
		  (unsigned long long) gdb_store_bytes(s));
	if (on_gpu)
		check(ast.bytes_to_device == want_bytes, "%s store append copied %llu bytes, want %llu",
			  pn, (unsigned long long) ast.bytes_to_device, (unsigned long long) want_bytes);

	for (i = 0; i < (int) (sizeof(keys) / sizeof(keys[0])); i++)
	{
		int			p = progs[i % (int) (sizeof(progs) / sizeof(progs[0]))];
		const char *ks = build_keys(req, keys[i]);
		const char *ps = build_program(req, p);

		snprintf(name, sizeof(name), "%s store, %llu rows, keys %s, %s", pn,
				 (unsigned long long) nrows, ks, ps);
		store_compare(on_gpu, s, req, whole, name);
		build_program(req, progs[(i + 3) % (int) (sizeof(progs) / sizeof(progs[0]))]);
		store_compare(on_gpu, s, req, whole, name);
	}

	/* appends that do not match the store leave it as it was */
	{
		uint32_t	kinds[NCOLS],
					hn[NCOLS];
		GdbBatch   *bad;
		int			c;

		for (c = 0; c < NCOLS; c++)
		{
			kinds[c] = in->cols[c].kind;
			hn[c] = in->cols[c].has_nulls;
		}
		for (i = 0; i < 4; i++)
		{
			static const char *const what[4] = {"one column less", "int column as float",
			"nullable column without NULLs", "bad magic"};

			kinds[C_VI] = i == 1 ? GDB_KIND_FLOAT64 : GDB_KIND_INT64;
			hn[C_VF] = i == 2 ? 0 : 1;
			bad = batch_new(i == 0 ? NCOLS - 1 : NCOLS, kinds, hn, 10);
			bad->nrows = 5;
			if (i == 3)
				bad->magic ^= 1;
			memset(&err, 0x5a, sizeof(err));
			st = st_append(on_gpu, s, bad, NULL, &err);
			check(st == GDB_ERR_BAD_REQUEST && err.status == st &&
				  gdb_store_rows(s) == nrows, "%s store append, %s: %d (%s)", pn, what[i],
				  st, err.message);
			check(st_append(on_gpu, s, bad, NULL, NULL) == GDB_ERR_BAD_REQUEST,
				  "%s store append, %s, no GdbError", pn, what[i]);
			free(bad);
		}
		check(st_append(on_gpu, s, NULL, NULL, NULL) == GDB_ERR_BAD_REQUEST &&
			  gdb_store_rows(s) == nrows, "%s store append of NULL", pn);
		st = on_gpu ? gdb_cpu_store_append(s, in, &err)
			: gdb_cuda_store_append(gpu, s, in, NULL, &err);
		check(st != GDB_OK && gdb_store_rows(s) == nrows,
			  "%s store appended through the other path: %d", pn, st);
	}
	/* the store is still intact */
	build_keys(req, 1);
	build_program(req, 3);
	store_compare(on_gpu, s, req, whole, "store after rejected appends");
	/* unbound text constant */
	assemble(req, "$ki push_text@0 int_eq");
	memset(&err, 0, sizeof(err));
	{
		GdbBatch   *res = NULL;

		st = st_groupby(on_gpu, s, req, &res, NULL, &err);
		check(st == GDB_ERR_BAD_REQUEST && res == NULL &&
			  strstr(err.message, "unbound text constant") != NULL,
			  "%s store, unbound PUSH_TEXT: %d (%s)", pn, st, err.message);
	}
	gdb_cpu_store_free(s);		/* either kind: handed to the right path */
	free(in);
	free(whole);

	/* an empty store (default capacity): like an empty batch */
	in = gen_batch(0, &gp);
	st = st_create(on_gpu, in, 0, &s, &err);
	check(st == GDB_OK, "%s empty store: %s", pn, err.message);
	if (st == GDB_OK)
	{
		GdbBatch   *empty = in;

		check(gdb_store_rows(s) == 0 && gdb_store_bytes(s) >=
			  (uint64_t) NCOLS * 8 * GDB_STORE_DEFAULT_CAPACITY,
			  "%s empty store sizes", pn);
		build_program(req, 0);
		for (i = 0; i < 2; i++)
		{
			build_keys(req, i);
			store_compare(on_gpu, s, req, empty, "empty store");
		}
		st = st_append(on_gpu, s, empty, NULL, &err);
		check(st == GDB_OK && gdb_store_rows(s) == 0, "%s append of 0 rows", pn);
		if (on_gpu)
			gdb_cuda_store_free(s);
		else
			gdb_cpu_store_free(s);
	}
	free(in);
	free(req);
}

/* The scatter of one path. */
static int
st_scatter(int on_gpu, GdbStore *s, uint32_t col, const uint32_t *rows,
		   const int64_t *vals, uint64_t n, GdbStats *stats, GdbError *err)
{
	return on_gpu ? gdb_cuda_store_scatter(gpu, s, col, rows, vals, n, stats, err)
		: gdb_cpu_store_scatter(s, col, rows, vals, n, err);
}

/* Scatter into whole (a host batch) as the store should: the reference. */
static void
ref_scatter(GdbBatch *b, uint32_t col, const uint32_t *rows, const int64_t *vals,
			uint64_t n)
{
	uint64_t	i;

	for (i = 0; i < n; i++)
	{
		col_i(b, (int) col)[rows[i]] = vals[i];
		if (b->cols[col].has_nulls)
			col_n(b, (int) col)[rows[i]] = 0;
	}
}

/* Group-bys over store s against whole, over several keys and programs. */
static void
scatter_compare(int on_gpu, GdbStore *s, GdbRequest *req, const GdbBatch *whole,
				const char *what)
{
	static const int keys[] = {0, 1, 3, 5};
	static const int progs[] = {0, 1, 3};
	char		name[256];
	int			k;

	for (k = 0; k < (int) (sizeof(keys) / sizeof(keys[0])); k++)
	{
		const char *ks = build_keys(req, keys[k]);
		const char *ps = build_program(req, progs[k % 3]);

		snprintf(name, sizeof(name), "%s store scatter, %s, keys %s, %s",
				 on_gpu ? "gpu" : "cpu", what, ks, ps);
		store_compare(on_gpu, s, req, whole, name);
	}
}

/*
 * test_store_range_hints (GPU): the small-key fast path over a column store
 * takes its key ranges from the exec's hints after an unfiltered call
 * measured them.  The same group-by by (ki) and by (kb) six times, with
 * and without a filter, then after scatters that put ki values outside the
 * hinted range and inside it (each scatter gives the store a new
 * generation, so the old hint is not taken: the ranges are measured
 * again); every answer against gdb_cpu_execute over the input changed the
 * same way, and on the small-key path.
 */
static void
test_store_range_hints(uint64_t nrows)
{
	static const GdbAggSpec hint_aggs[] = {
		{GDB_AGG_COUNT_STAR, -1}, {GDB_AGG_COUNT, C_VI}, {GDB_AGG_SUM_INT, C_VI},
		{GDB_AGG_MIN_INT, C_VI}, {GDB_AGG_MAX_FLOAT, C_VF}, {GDB_AGG_SUM_FLOAT, C_VF},
	};
	static const int keys[2] = {1, 5};
	GenParams	gp = {20, 3, 7, 20, 0};
	GdbBatch   *in = gen_batch(nrows, &gp);
	GdbBatch   *whole = batch_like(in, nrows);
	GdbRequest *req = request_new();
	GdbStore   *s = NULL;
	GdbError	err;
	int			st,
				step,
				k;
	char		name[160];

	if (!HAVE_FAST_HOOKS)
		goto done;
	/* ki within [0, key_card): gen_batch's int64 extremes would need a sort */
	for (step = 0; step < (int) nrows; step++)
		if (col_i(in, C_KI)[step] < 0 || col_i(in, C_KI)[step] >= (int64_t) gp.key_card)
			col_i(in, C_KI)[step] = step % (int64_t) gp.key_card;
	gdb_cuda_set_fast_paths(1);
	req->naggs = sizeof(hint_aggs) / sizeof(hint_aggs[0]);
	memcpy(req->aggs, hint_aggs, sizeof(hint_aggs));
	st = st_create(1, in, 0, &s, &err);
	if (st == GDB_OK)
		st = st_append(1, s, in, NULL, &err);
	check(st == GDB_OK, "range hints: store: %s", err.message);
	if (st != GDB_OK)
		goto done;
	batch_append(whole, in, 0, nrows);
	for (step = 0; step < 6; step++)
	{
		uint32_t	rows[2] = {0, (uint32_t) (nrows - 1)};
		int64_t		vals[2];

		if (step == 2 || step == 4)
		{
			/* outside the hinted range (step 2), then back inside it */
			vals[0] = step == 2 ? 1000 : 3;
			vals[1] = step == 2 ? -5 : 4;
			st = st_scatter(1, s, C_KI, rows, vals, 2, NULL, &err);
			check(st == GDB_OK, "range hints: scatter: %s", err.message);
			ref_scatter(whole, C_KI, rows, vals, 2);
		}
		for (k = 0; k < 2; k++)
		{
			const char *ks = build_keys(req, keys[k]);
			const char *ps = build_program(req, step % 2);

			snprintf(name, sizeof(name), "gpu store range hints, step %d, keys %s, %s",
					 step, ks, ps);
			store_compare(1, s, req, whole, name);
			check(gdb_cuda_last_path() == 2,
				  "%s: ran path %d, not the small-key path", name, gdb_cuda_last_path());
		}
	}
done:
	if (HAVE_FAST_HOOKS)
		gdb_cuda_set_fast_paths(-1);
	if (s)
		gdb_cuda_store_free(s);
	free(in);
	free(whole);
	free(req);
}

/*
 * *_store_scatter on one path: a random input appended in two parts;
 * scatters into the nullable INT64 key ki (NULL rows among the targets
 * become non-NULL), the NOT NULL INT64 columns ci and kb; group-bys over
 * the store against gdb_cpu_execute over the input changed the same way.
 * Rejected scatters (row, column out of range, FLOAT64 column, NULL
 * arrays, the other path's store) change nothing; n == 0 is a no-op.
 */
static void
test_store_scatter(int on_gpu, uint64_t nrows)
{
	const char *pn = on_gpu ? "gpu" : "cpu";
	GenParams	gp = {1 + rng_below(10), 1 + (int) rng_below(12), 1 + rng_below(nrows),
	25 + (int) rng_below(20), 0};
	GdbBatch   *in = gen_batch(nrows, &gp);
	GdbBatch   *whole = batch_like(in, nrows);
	GdbRequest *req = request_new();
	GdbStore   *s = NULL;
	uint32_t   *perm = (uint32_t *) xmalloc(nrows * sizeof(uint32_t));
	int64_t    *vals = (int64_t *) xmalloc(nrows * sizeof(int64_t));
	uint32_t	bad_rows[3];
	GdbStats	stats;
	GdbError	err;
	uint64_t	i,
				n,
				nnull_hit = 0;
	int			st,
				c;
	char		what[128];
	static const int cols[3] = {C_KI, C_CI, C_KB};

	build_aggs(req);
	st = st_create(on_gpu, in, 16, &s, &err);
	if (st == GDB_OK)
		st = st_append(on_gpu, s, in, NULL, &err);
	check(st == GDB_OK, "%s scatter store: %s", pn, err.message);
	if (st != GDB_OK)
		goto done;
	batch_append(whole, in, 0, nrows);

	/* distinct random rows (a partial Fisher-Yates shuffle) */
	for (i = 0; i < nrows; i++)
		perm[i] = (uint32_t) i;
	for (c = 0; c < 3; c++)
	{
		n = 1 + rng_below(nrows / 2);
		for (i = 0; i < n; i++)
		{
			uint64_t	j = i + rng_below(nrows - i);
			uint32_t	t = perm[i];

			perm[i] = perm[j];
			perm[j] = t;
			vals[i] = c == 0 ? (int64_t) rng_below(gp.key_card + 3) :
				rng_below(10) == 0 ? INT64_MIN + (int64_t) rng_below(3) :
				(int64_t) rng_below(10000);
			if (whole->cols[cols[c]].has_nulls && col_n(whole, cols[c])[perm[i]])
				nnull_hit++;
		}
		memset(&stats, 0, sizeof(stats));
		memset(&err, 0x5a, sizeof(err));
		st = st_scatter(on_gpu, s, (uint32_t) cols[c], perm, vals, n, &stats, &err);
		check(st == GDB_OK && err.status == GDB_OK && gdb_store_rows(s) == nrows,
			  "%s scatter of %llu rows into %s: %d (%s)", pn, (unsigned long long) n,
			  col_names[cols[c]], st, err.message);
		if (on_gpu)
			check(stats.bytes_to_device == n * 12, "%s scatter copied %llu bytes, want %llu",
				  pn, (unsigned long long) stats.bytes_to_device,
				  (unsigned long long) (n * 12));
		ref_scatter(whole, (uint32_t) cols[c], perm, vals, n);
		if (!on_gpu)
			check(memcmp((char *) s->buf + s->header.cols[cols[c]].values_off,
						 (char *) whole + whole->cols[cols[c]].values_off, nrows * 8) == 0 &&
				  (!whole->cols[cols[c]].has_nulls ||
				   memcmp((char *) s->buf + s->header.cols[cols[c]].nulls_off,
						  (char *) whole + whole->cols[cols[c]].nulls_off, nrows) == 0),
				  "cpu scatter into %s: stored column", col_names[cols[c]]);
		snprintf(what, sizeof(what), "%llu rows of %s", (unsigned long long) n,
				 col_names[cols[c]]);
		scatter_compare(on_gpu, s, req, whole, what);
	}
	check(nnull_hit > 0, "%s scatter: no NULL row of ki was a target", pn);

	/* a NULL row of ki, explicitly: becomes non-NULL */
	for (i = 0; i < nrows && !col_n(whole, C_KI)[i]; i++)
		;
	if (i < nrows)
	{
		uint32_t	r = (uint32_t) i;
		int64_t		v = -7;

		st = st_scatter(on_gpu, s, C_KI, &r, &v, 1, NULL, NULL);
		check(st == GDB_OK, "%s scatter into a NULL row: %d", pn, st);
		ref_scatter(whole, C_KI, &r, &v, 1);
		check(col_n(whole, C_KI)[i] == 0, "reference scatter clears the NULL flag");
		scatter_compare(on_gpu, s, req, whole, "a NULL row of ki");
	}

	/* rejected scatters write nothing; n == 0 is a no-op */
	for (i = 0; i < 3; i++)
	{
		bad_rows[i] = perm[i];
		vals[i] = 123456789;
	}
	for (c = 0; c < 8; c++)
	{
		static const char *const bad_what[8] = {
			"row == nrows (last)", "row UINT32_MAX (first)", "column == ncols",
			"column UINT32_MAX", "FLOAT64 column", "rows NULL", "vals NULL",
		"store NULL"};
		uint32_t	col = C_KI;
		const uint32_t *rp = bad_rows;
		const int64_t *vp = vals;
		GdbStore   *sp = s;

		bad_rows[0] = perm[0];
		bad_rows[2] = perm[2];
		if (c == 0)
			bad_rows[2] = (uint32_t) nrows;
		else if (c == 1)
			bad_rows[0] = UINT32_MAX;
		else if (c == 2)
			col = NCOLS;
		else if (c == 3)
			col = UINT32_MAX;
		else if (c == 4)
			col = C_VF;
		else if (c == 5)
			rp = NULL;
		else if (c == 6)
			vp = NULL;
		else
			sp = NULL;
		memset(&stats, 0, sizeof(stats));
		memset(&err, 0x5a, sizeof(err));
		st = st_scatter(on_gpu, sp, col, rp, vp, 3, &stats, &err);
		check(st == GDB_ERR_BAD_REQUEST && err.status == st &&
			  memchr(err.message, '\0', sizeof(err.message)) && err.message[0] &&
			  stats.bytes_to_device == 0,
			  "%s scatter, %s: %d (%s)", pn, bad_what[c], st, err.message);
		check(st_scatter(on_gpu, sp, col, rp, vp, 3, NULL, NULL) == GDB_ERR_BAD_REQUEST,
			  "%s scatter, %s, no GdbError", pn, bad_what[c]);
	}
	memset(&stats, 0, sizeof(stats));
	st = st_scatter(on_gpu, s, C_KI, NULL, NULL, 0, &stats, &err);
	check(st == GDB_OK && err.status == GDB_OK && stats.bytes_to_device == 0,
		  "%s scatter of 0 rows: %d (%s)", pn, st, err.message);
	st = st_scatter(on_gpu, s, C_VF, perm, vals, 0, NULL, &err);
	check(st == GDB_ERR_BAD_REQUEST, "%s scatter of 0 rows into a FLOAT64 column: %d", pn, st);
	st = on_gpu ? gdb_cpu_store_scatter(s, C_KI, perm, vals, 1, &err)
		: gdb_cuda_store_scatter(gpu, s, C_KI, perm, vals, 1, NULL, &err);
	check(st != GDB_OK, "%s store scattered through the other path: %d", pn, st);
	scatter_compare(on_gpu, s, req, whole, "after rejected scatters");

	/* a store of only NOT NULL columns that is still empty: any row is out */
	{
		GdbStore   *e = NULL;
		uint32_t	k1 = GDB_KIND_INT64,
					h0 = 0,
					r0 = 0;
		int64_t		v0 = 1;

		st = on_gpu ? gdb_cuda_store_create(gpu, 1, &k1, &h0, 0, &e, &err)
			: gdb_cpu_store_create(1, &k1, &h0, 0, &e, &err);
		check(st == GDB_OK, "%s one-column store: %s", pn, err.message);
		if (st == GDB_OK)
		{
			check(st_scatter(on_gpu, e, 0, &r0, &v0, 1, NULL, &err) == GDB_ERR_BAD_REQUEST,
				  "%s scatter into an empty store", pn);
			check(st_scatter(on_gpu, e, 0, &r0, &v0, 0, NULL, &err) == GDB_OK,
				  "%s scatter of 0 rows into an empty store", pn);
			gdb_cpu_store_free(e);
		}
	}
done:
	gdb_cpu_store_free(s);
	free(perm);
	free(vals);
	free(in);
	free(whole);
	free(req);
}

/* Store creation errors, and stores without a device. */
static void
test_store_errors(void)
{
	uint32_t	kinds[3] = {GDB_KIND_INT64, GDB_KIND_STATE, GDB_KIND_FLOAT64};
	uint32_t	hn[3] = {0, 0, 2};
	GdbStore   *s = (GdbStore *) (uintptr_t) 1;
	GdbError	err;
	int			pass,
				st;

	for (pass = 0; pass < (gpu ? 2 : 1); pass++)
	{
		const char *pn = pass ? "gpu" : "cpu";

		s = (GdbStore *) (uintptr_t) 1;
		st = pass ? gdb_cuda_store_create(gpu, 3, kinds, hn, 0, &s, &err)
			: gdb_cpu_store_create(3, kinds, hn, 0, &s, &err);
		check(st == GDB_ERR_BAD_REQUEST && s == NULL, "%s store of STATE kind: %d", pn, st);
		kinds[1] = GDB_KIND_INT64;
		st = pass ? gdb_cuda_store_create(gpu, 3, kinds, hn, 0, &s, &err)
			: gdb_cpu_store_create(3, kinds, hn, 0, &s, &err);
		check(st == GDB_ERR_BAD_REQUEST && s == NULL, "%s store with null flag 2: %d", pn, st);
		kinds[1] = GDB_KIND_STATE;
		st = pass ? gdb_cuda_store_create(gpu, GDB_MAX_COLUMNS + 1, kinds, hn, 0, &s, &err)
			: gdb_cpu_store_create(GDB_MAX_COLUMNS + 1, kinds, hn, 0, &s, &err);
		check(st == GDB_ERR_BAD_REQUEST && s == NULL, "%s store of too many columns: %d", pn, st);
	}
	check(gdb_store_rows(NULL) == 0 && gdb_store_bytes(NULL) == 0, "store sizes of NULL");
	gdb_cpu_store_free(NULL);
	gdb_cuda_store_free(NULL);
	if (gpu)
	{
		/* a store that cannot fit the device: out of memory, nothing made */
		uint32_t	k8[GDB_MAX_COLUMNS] = {0},
					h8[GDB_MAX_COLUMNS] = {0};

		st = gdb_cuda_store_create(gpu, GDB_MAX_COLUMNS, k8, h8, UINT32_MAX, &s, &err);
		check(st == GDB_ERR_OUT_OF_MEMORY && s == NULL,
			  "gpu store of 4 TiB: %d (%s)", st, err.message);
		check(gdb_cuda_recover(gpu, &err) == GDB_OK, "recover after out of memory: %s",
			  err.message);
	}
	else
	{
		GdbBatch   *res = (GdbBatch *) (uintptr_t) 1;

		kinds[1] = GDB_KIND_INT64;
		hn[2] = 0;
		st = gdb_cuda_store_create(NULL, 3, kinds, hn, 0, &s, &err);
		check(st != GDB_OK && s == NULL && err.message[0], "gpu store without a device: %d", st);
		st = gdb_cuda_store_execute(NULL, NULL, NULL, test_alloc, NULL, &res, NULL, &err);
		check(st != GDB_OK && res == NULL, "gpu store group-by without a device: %d", st);
		st = gdb_cuda_store_append(NULL, NULL, NULL, NULL, &err);
		check(st != GDB_OK, "gpu store append without a device: %d", st);
		st = gdb_cuda_store_scatter(NULL, NULL, 0, NULL, NULL, 0, NULL, &err);
		check(st != GDB_OK && (gdb_cuda_built() || st == GDB_ERR_NO_DEVICE),
			  "gpu store scatter without a device: %d", st);
		st = gdb_cuda_recover(NULL, &err);
		check(st != GDB_OK, "recover without a device: %d", st);
	}
}

/* PUSH_TEXT: rejected unbound on every path; bound, like PUSH_INT. */
static void
test_text_constants(void)
{
	GenParams	gp = {8, 8, 10, 10, 0};
	GdbBatch   *in = gen_batch(500, &gp);
	GdbRequest *r = request_new();
	GdbRequest *lit = request_new();
	static const int64_t codes[3] = {3, -1, 5};

	build_keys(r, 1);
	build_aggs(r);
	assemble(r, "push_text@0 $ki int_eq");
	expect_status("unbound PUSH_TEXT", r, in, GDB_ERR_BAD_REQUEST, test_alloc);
	assemble(r, "$ki is_null jump_if_true@7 $ki push_text@1 int_eq or");
	expect_status("unbound PUSH_TEXT behind a jump", r, in, GDB_ERR_BAD_REQUEST, test_alloc);
	{
		GdbBatch   *res = NULL;
		GdbError	err;
		int			st = gdb_cpu_execute(r, in, test_alloc, NULL, &res, NULL, &err);

		check(st == GDB_ERR_BAD_REQUEST && strstr(err.message, "unbound text constant"),
			  "unbound PUSH_TEXT message: %s", err.message);
	}

	/* bound: the same as the literal codes */
	assemble(r, "$ki push_text@0 int_eq $ki push_text@2 int_ne push_text@1 $ki int_ne and or");
	*lit = *r;
	assemble(lit, "$ki i3 int_eq $ki i5 int_ne i-1 $ki int_ne and or");
	check(gdb_request_bind_text(r, codes, 3) == GDB_OK, "bind_text of 3 constants");
	{
		uint32_t	i;
		int			same = r->ninstr == lit->ninstr;

		for (i = 0; same && i < lit->ninstr; i++)
			same = r->program[i].op == lit->program[i].op &&
				(lit->program[i].op != GDB_OP_PUSH_INT ||
				 r->program[i].ival == lit->program[i].ival);
		check(same, "bound PUSH_TEXT are PUSH_INT of the codes");
		/* the literal program, for run_case's names: same meaning */
		for (i = 0; i < lit->ninstr; i++)
			r->program[i].arg = lit->program[i].arg;
	}
	expect_status("bound PUSH_TEXT", r, in, GDB_OK, test_alloc);
	run_case("bound text constants", r, in, 1);
	check(gdb_request_bind_text(r, NULL, 0) == GDB_OK, "bind_text without PUSH_TEXT");

	assemble(r, "$ki push_text@3 int_eq");
	check(gdb_request_bind_text(r, codes, 3) == GDB_ERR_BAD_REQUEST &&
		  r->program[1].op == GDB_OP_PUSH_TEXT, "bind_text arg past ncodes");
	assemble(r, "$ki push_text@0 int_eq");
	r->program[1].arg = -1;
	check(gdb_request_bind_text(r, codes, 3) == GDB_ERR_BAD_REQUEST, "bind_text arg -1");
	check(gdb_request_bind_text(r, codes, 0) == GDB_ERR_BAD_REQUEST, "bind_text, no codes");
	free(in);
	free(r);
	free(lit);
}

/*
 * Code tables (TEXT_IN_SET, TEXT_MAP): programs that look codes up in a
 * bit table (bit c set iff c % 3 == 1) and a word table (word c = 5 c)
 * give the results of the same programs with those rules written out, in
 * the filter and in a computed group key, on the CPU and the GPU, over a
 * batch and over stores; requests with malformed tables, and a code past
 * its table, are refused with GDB_ERR_BAD_REQUEST.
 */
#define TT_CODES 1000
#define TT_BITW ((TT_CODES + 63) / 64)

static void
tt_attach(GdbRequest *r, const uint64_t *words)
{
	memset(r->tables, 0, sizeof(r->tables));
	r->ntables = 2;
	r->tables[0].fn = GDB_TFN_LIKE;
	r->tables[0].ncodes = TT_CODES;
	r->tables[0].word_off = 0;
	r->tables[1].fn = GDB_TFN_CHAR_LENGTH;
	r->tables[1].ncodes = TT_CODES;
	r->tables[1].word_off = TT_BITW;
	r->ntable_words = TT_BITW + TT_CODES;
	r->table_words = words;
}

/* r's computed column 0 (kind INT64): the program text. */
static void
tt_expr(GdbRequest *r, const char *code)
{
	GdbRequest *tmp = request_new();

	assemble(tmp, code);
	memcpy(r->eprogram, tmp->program, sizeof(GdbInstr) * tmp->ninstr);
	r->neinstr = tmp->ninstr;
	r->nexprs = 1;
	r->exprs[0].kind = GDB_KIND_INT64;
	r->exprs[0].start = 0;
	r->exprs[0].len = tmp->ninstr;
	free(tmp);
}

static void
test_code_tables(void)
{
	GenParams	gp = {TT_CODES, 8, 10, 10, 3};
	GdbBatch   *in = gen_batch(20000, &gp);
	GdbRequest *t = request_new();
	GdbRequest *lit = request_new();
	uint64_t   *words = (uint64_t *) xmalloc(sizeof(uint64_t) * (TT_BITW + TT_CODES));
	static const struct
	{
		const char *name;
		const char *tables;		/* filter with the tables */
		const char *literal;	/* the same written out */
		const char *etables;	/* computed key 0, or NULL */
		const char *eliteral;
	}			cases[] = {
		{"code in set", "$ki text_in_set@0", "$ki i3 int_mod/8 i1 int_eq", NULL, NULL},
		{"code not in set OR vf > 0",
		"$ki text_in_set@0 not $vf f0 flt_gt or",
		"$ki i3 int_mod/8 i1 int_eq not $vf f0 flt_gt or", NULL, NULL},
		{"ci < 9000 AND code in set (short-circuit)",
		"$ci i9000 int_lt jump_if_false@7 $ki text_in_set@0 and",
		"$ci i9000 int_lt jump_if_false@10 $ki i3 int_mod/8 i1 int_eq and", NULL, NULL},
		{"word < 2000", "$ki text_map@1 i2000 int_lt", "$ki i5 int_mul/8 i2000 int_lt",
		NULL, NULL},
		{"key word, filter not in set", "$ki text_in_set@0 is_false",
		"$ki i3 int_mod/8 i1 int_eq is_false", "$ki text_map@1", "$ki i5 int_mul/8"},
		{"key in set, no filter", "", "", "$ki text_in_set@0", "$ki i3 int_mod/8 i1 int_eq"},
	};
	uint64_t	r;
	uint32_t	k;

	/* every code within the tables (NULLs stay NULL) */
	for (r = 0; r < in->nrows; r++)
		if (col_i(in, C_KI)[r] < 0 || col_i(in, C_KI)[r] >= TT_CODES)
			col_i(in, C_KI)[r] = 7;
	memset(words, 0, sizeof(uint64_t) * TT_BITW);
	for (r = 0; r < TT_CODES; r++)
	{
		if (r % 3 == 1)
			words[r / 64] |= UINT64_C(1) << (r % 64);
		words[TT_BITW + r] = 5 * r;
	}
	for (k = 0; k < sizeof(cases) / sizeof(cases[0]); k++)
	{
		GdbBatch   *a = NULL,
				   *b = NULL;
		int			x,
					y,
					p;
		char		what[256];

		memset(t, 0, sizeof(GdbRequest));
		build_keys(t, 1);
		build_aggs(t);
		assemble(t, cases[k].tables);
		*lit = *t;
		assemble(lit, cases[k].literal);
		if (cases[k].etables)
		{
			tt_expr(t, cases[k].etables);
			tt_expr(lit, cases[k].eliteral);
			t->key_cols[0] = lit->key_cols[0] = GDB_EXPR_COL(0);
		}
		tt_attach(t, words);
		snprintf(what, sizeof(what), "code tables: %s [cpu]", cases[k].name);
		x = run_path(what, gdb_cpu_execute, t, in, &a, NULL);
		y = run_path(what, gdb_cpu_execute, lit, in, &b, NULL);
		check(x == GDB_OK && y == GDB_OK && results_equal(what, t, a, b, 0),
			  "%s: tables %d, written out %d", what, x, y);
		free(a);
		free(b);
		snprintf(what, sizeof(what), "code tables: %s", cases[k].name);
		run_case(what, t, in, 0);
		/* stores: the tables attach to the resident columns too */
		for (p = 0; p < (gpu ? 2 : 1); p++)
		{
			GdbStore   *s = NULL;
			GdbError	err;

			if (st_create(p, in, 0, &s, &err) == GDB_OK &&
				st_append(p, s, in, NULL, &err) == GDB_OK)
				store_compare(p, s, t, in, what);
			else
				check(0, "%s: store: %s", what, err.message);
			if (s)
				(p ? gdb_cuda_store_free : gdb_cpu_store_free) (s);
		}
	}

	/* malformed tables and codes past a table */
	memset(t, 0, sizeof(GdbRequest));
	build_keys(t, 1);
	build_aggs(t);
	assemble(t, "$ki text_in_set@0");
	tt_attach(t, words);
	expect_status("valid code table", t, in, GDB_OK, test_alloc);
	assemble(t, "$ki text_in_set@2");
	expect_status("code table past ntables", t, in, GDB_ERR_BAD_REQUEST, test_alloc);
	assemble(t, "$ki text_map@0");
	expect_status("TEXT_MAP of a bit table", t, in, GDB_ERR_BAD_REQUEST, test_alloc);
	assemble(t, "$ki text_in_set@1");
	expect_status("TEXT_IN_SET of a word table", t, in, GDB_ERR_BAD_REQUEST, test_alloc);
	assemble(t, "$ki text_in_set@0");
	t->tables[1].word_off = TT_BITW + 1;
	expect_status("word table past the words", t, in, GDB_ERR_BAD_REQUEST, test_alloc);
	tt_attach(t, words);
	t->table_words = NULL;
	expect_status("code table words missing", t, in, GDB_ERR_BAD_REQUEST, test_alloc);
	tt_attach(t, words);
	t->tables[0].fn = GDB_TFN_LAST + 1;
	expect_status("code table of an unknown function", t, in, GDB_ERR_BAD_REQUEST, test_alloc);
	tt_attach(t, words);
	t->ntables = GDB_MAX_CODE_TABLES + 1;
	expect_status("too many code tables", t, in, GDB_ERR_BAD_REQUEST, test_alloc);
	tt_attach(t, words);
	t->tables[0].ncodes = TT_CODES / 2;
	expect_status("a code past its table", t, in, GDB_ERR_BAD_REQUEST, test_alloc);
	free(words);
	free(in);
	free(t);
	free(lit);
}

/*
 * Device recovery (GPU only; last, since it resets the device): a healthy
 * exec recovers to GDB_OK; after a planted illegal address, recover resets
 * the device, the old exec and store fail cleanly and free safely, and a
 * new exec and store work.
 */
static void
test_recover(void)
{
	GenParams	gp = {5, 8, 10, 10, 0};
	GdbBatch   *in = gen_batch(1000, &gp);
	GdbRequest *r = request_new();
	GdbCudaExec *ex = NULL;
	GdbStore   *s = NULL;
	GdbBatch   *res = NULL;
	GdbError	err;
	int			st;

	build_keys(r, 1);
	build_aggs(r);
	if (gdb_cuda_open(0, &ex, &err) != GDB_OK)
	{
		check(0, "recover: open: %s", err.message);
		free(in);
		free(r);
		return;
	}
	gpu = ex;
	check(gdb_cuda_recover(ex, &err) == GDB_OK, "recover of a healthy device: %s", err.message);
	check(st_create(1, in, 0, &s, &err) == GDB_OK && st_append(1, s, in, NULL, &err) == GDB_OK,
		  "recover: store: %s", err.message);
	st = gdb_cuda_debug_fault(ex, &err);
	check(st == GDB_ERR_DEVICE, "planted illegal address: %d (%s)", st, err.message);
	st = gdb_cuda_recover(ex, &err);
	check(st == GDB_ERR_DEVICE && strstr(err.message, "reset") != NULL,
		  "recover after a sticky error: %d (%s)", st, err.message);
	printf("  recover: %s\n", err.message);
	st = gdb_cuda_store_execute(ex, s, r, test_alloc, NULL, &res, NULL, &err);
	check(st == GDB_ERR_DEVICE && res == NULL, "group-by on a lost store: %d", st);
	{
		uint32_t	r0 = 0;
		int64_t		v0 = 1;

		st = gdb_cuda_store_scatter(ex, s, C_KI, &r0, &v0, 1, NULL, &err);
		check(st == GDB_ERR_DEVICE, "scatter into a lost store: %d (%s)", st, err.message);
	}
	st = gdb_cuda_execute(ex, r, in, test_alloc, NULL, &res, NULL, &err);
	check(st == GDB_ERR_DEVICE && res == NULL, "group-by on a lost exec: %d", st);
	check(gdb_cuda_host_alloc(ex, 64) == NULL, "pinned memory of a lost exec");
	gdb_cuda_store_free(s);
	gdb_cuda_close(ex);
	gpu = NULL;

	st = gdb_cuda_open(0, &ex, &err);
	/*
	 * Some drivers hand a reset device to a new process only (seen on an
	 * H200 host: "busy or unavailable"); the GPU server then restarts its
	 * process.  Only that refusal is tolerated here.
	 */
	if (st != GDB_OK && strstr(err.message, "busy or unavailable"))
	{
		printf("note: this device is not reusable in-process after a reset (%s)\n",
			   err.message);
		return;
	}
	check(st == GDB_OK, "open after the reset: %s", err.message);
	if (st == GDB_OK)
	{
		gpu = ex;
		s = NULL;
		check(st_create(1, in, 16, &s, &err) == GDB_OK &&
			  st_append(1, s, in, NULL, &err) == GDB_OK, "store after the reset: %s",
			  err.message);
		if (s)
			store_compare(1, s, r, in, "store after the reset");
		gdb_cuda_store_free(s);
		gdb_cuda_close(ex);
		gpu = NULL;
	}
	free(in);
	free(r);
}

/* ---- SELECT and SORT ---- */

/* PostgreSQL's float order, written out: NaN above every number, -0 = +0. */
static int
ref_float_order(double a, double b)
{
	int			na = isnan(a) != 0,
				nb = isnan(b) != 0;

	if (na || nb)
		return na - nb;
	return (a > b) - (a < b);
}

/*
 * Naive row comparison by req's sort keys, straight from the values (no
 * encodings): NULL before or after every value per nulls_first, values
 * ascending or descending, 0 when every key ties.
 */
static int
ref_row_cmp(const GdbRequest *req, const GdbBatch *in, uint64_t ra, uint64_t rb)
{
	const char *base = (const char *) in;
	uint32_t	k;

	for (k = 0; k < req->nsort; k++)
	{
		const GdbSortKey *sk = &req->sort_keys[k];
		const uint8_t *nl = GDB_NULL_PTR(base, in, sk->col);
		const int64_t *v = GDB_COL_PTR(base, in, sk->col, const int64_t);
		int			na = nl ? nl[ra] != 0 : 0,
					nb = nl ? nl[rb] != 0 : 0;
		int			c;

		if (na != nb)
			return (na ? -1 : 1) * (sk->nulls_first ? 1 : -1);
		if (na)
			continue;
		if (in->cols[sk->col].kind == GDB_KIND_FLOAT64)
			c = ref_float_order(bits_to_double((uint64_t) v[ra]),
								bits_to_double((uint64_t) v[rb]));
		else
			c = (v[ra] > v[rb]) - (v[ra] < v[rb]);
		if (c)
			return sk->descending ? -c : c;
	}
	return 0;
}

/*
 * Reference SELECT / SORT: a plain filter loop, an insertion sort of the
 * selected row ids (stable: a row moves only past strictly greater rows),
 * the first min(limit, selected) rows, a copy of the output columns.
 * Returns the status; on GDB_OK *out is a result batch.
 */
static int
ref_select_sort(const GdbRequest *req, const GdbBatch *in, GdbBatch **out,
				uint64_t *nsel_out)
{
	const char *base = (const char *) in;
	uint64_t   *ids = (uint64_t *) xmalloc((size_t) (in->nrows + 1) * sizeof(uint64_t));
	uint64_t	nsel = 0,
				nret,
				row,
				i;
	uint32_t	kinds[GDB_MAX_COLUMNS],
				hn[GDB_MAX_COLUMNS],
				c;
	GdbBatch   *res;

	for (row = 0; row < in->nrows; row++)
	{
		if (req->ninstr)
		{
			int			st = GDB_OK;
			int			r = gdb_vm_eval(req->program, (int) req->ninstr, in, in, row, &st);

			if (st != GDB_OK)
			{
				free(ids);
				return st;
			}
			if (r != GDB_TRUE)
				continue;
		}
		ids[nsel++] = row;
	}
	if (req->oper == GDB_OPER_SORT)
		for (i = 1; i < nsel; i++)
		{
			uint64_t	x = ids[i],
						j = i;

			for (; j > 0 && ref_row_cmp(req, in, ids[j - 1], x) > 0; j--)
				ids[j] = ids[j - 1];
			ids[j] = x;
		}
	nret = nsel;
	if (req->oper == GDB_OPER_SORT && req->limit > 0 && req->limit < nsel)
		nret = req->limit;
	for (c = 0; c < req->nout; c++)
	{
		kinds[c] = in->cols[req->out_cols[c]].kind;
		hn[c] = in->cols[req->out_cols[c]].has_nulls;
	}
	res = batch_new(req->nout, kinds, hn, nret);
	res->nrows = nret;
	for (c = 0; c < req->nout; c++)
		for (i = 0; i < nret; i++)
		{
			int32_t		ic = req->out_cols[c];

			col_i(res, (int) c)[i] = GDB_COL_PTR(base, in, ic, const int64_t)[ids[i]];
			if (hn[c])
				col_n(res, (int) c)[i] = GDB_NULL_PTR(base, in, ic)[ids[i]];
		}
	free(ids);
	*out = res;
	*nsel_out = nsel;
	return GDB_OK;
}

/*
 * Compare SELECT / SORT results x and y of req: req->nout columns of the
 * output columns' kinds and NULL flags, the same rows, every 64-bit word
 * and NULL flag identical.  Reports a few mismatches; 1 when equal.
 */
static int
rows_equal(const char *what, const GdbRequest *req, const GdbBatch *x,
		   const GdbBatch *y)
{
	uint32_t	c;
	uint64_t	i;
	int			bad = 0;

	if (!same_shape(what, x, y, req->nout))
		return 0;
	for (i = 0; i < x->nrows && bad < 5; i++)
		for (c = 0; c < x->ncols; c++)
			bad += !value_equal(what, "row", "column", x, y, c, i);
	return bad == 0;
}

/*
 * A random SELECT (oper GDB_OPER_SELECT) or SORT request over the gen_batch
 * columns for a batch of nrows rows, with filter program p: 1..10 output
 * columns (repeats allowed), for SORT 1..4 keys with random direction and
 * NULL placement and a limit of 0, 1, 2..10, past the rows or within them.
 * Its description goes to desc.
 */
static GdbRequest *
random_select_sort(int oper, int p, uint64_t nrows, char *desc, size_t len)
{
	GdbRequest *r = request_new();
	size_t		o;
	uint32_t	i;

	r->oper = (uint32_t) oper;
	build_program(r, p);
	r->nout = 1 + (uint32_t) rng_below(10);
	for (i = 0; i < r->nout; i++)
		r->out_cols[i] = (int32_t) rng_below(NCOLS);
	o = (size_t) snprintf(desc, len, "%s", oper == GDB_OPER_SORT ? "SORT" : "SELECT");
	for (i = 0; i < r->nout && o < len; i++)
		o += (size_t) snprintf(desc + o, len - o, "%s%s", i ? ", " : " ", col_names[r->out_cols[i]]);
	if (oper == GDB_OPER_SORT)
	{
		static const char *const lim[] = {"none", "1", "small", "past the rows", "within"};
		int			l = (int) rng_below(5);

		r->nsort = 1 + (uint32_t) rng_below(4);
		for (i = 0; i < r->nsort; i++)
		{
			r->sort_keys[i].col = (int32_t) rng_below(NCOLS);
			r->sort_keys[i].descending = (uint8_t) rng_below(2);
			r->sort_keys[i].nulls_first = (uint8_t) rng_below(2);
			if (o < len)
				o += (size_t) snprintf(desc + o, len - o, "%s%s%s%s",
									   i ? ", " : " ORDER BY ",
									   col_names[r->sort_keys[i].col],
									   r->sort_keys[i].descending ? " DESC" : "",
									   r->sort_keys[i].nulls_first ? " NULLS FIRST" : " NULLS LAST");
		}
		r->limit = l == 0 ? 0 : l == 1 ? 1 : l == 2 ? 2 + rng_below(9) :
			l == 3 ? nrows + 1 + rng_below(5) : 1 + rng_below(nrows + 1);
		if (o < len)
			o += (size_t) snprintf(desc + o, len - o, " LIMIT %llu (%s)",
								   (unsigned long long) r->limit, lim[l]);
	}
	if (o < len)
		snprintf(desc + o, len - o, " WHERE %s", programs[p].name);
	return r;
}

/*
 * One SELECT / SORT case: the CPU path (through gdb_cpu_execute's dispatch
 * and gdb_cpu_select_sort itself) against the reference, the GPU against
 * the CPU (status, rows, statistics); no group-by path of the GPU may run.
 */
static void
run_select_case(const char *name, const GdbRequest *req, const GdbBatch *in,
				int with_reference)
{
	GdbBatch   *ref = NULL,
			   *cpu = NULL,
			   *direct = NULL,
			   *dev = NULL;
	GdbStats	cst,
				gst;
	uint64_t	ref_nsel = 0;
	int			cst_status,
				st;
	char		what[768];
	double		t0,
				t_cpu,
				t_gpu = 0;

	memset(&cst, 0, sizeof(cst));
	memset(&gst, 0, sizeof(gst));
	snprintf(what, sizeof(what), "%s [cpu]", name);
	t0 = now_ms();
	cst_status = run_path(what, gdb_cpu_execute, req, in, &cpu, &cst);
	t_cpu = now_ms() - t0;
	if (cst_status >= 0 && cst_status <= GDB_ERR_DEVICE)
		status_seen[cst_status]++;
	if (with_reference)
	{
		snprintf(what, sizeof(what), "%s [cpu direct]", name);
		st = run_path(what, gdb_cpu_select_sort, req, in, &direct, NULL);
		check(st == cst_status && (st != GDB_OK || rows_equal(what, req, direct, cpu)),
			  "%s: gdb_cpu_select_sort vs gdb_cpu_execute (%d, %d)", name, st, cst_status);
		st = ref_select_sort(req, in, &ref, &ref_nsel);
		check(st == cst_status, "%s: cpu status %d, reference %d", name, cst_status, st);
		if (st == GDB_OK && cst_status == GDB_OK)
		{
			snprintf(what, sizeof(what), "%s [cpu]", name);
			check(rows_equal(what, req, cpu, ref), "%s: cpu vs reference", name);
			check(cst.rows_in == in->nrows && cst.rows_selected == ref_nsel &&
				  cst.groups_out == ref->nrows && cst.bytes_to_device == 0 &&
				  cst.device_ms == 0,
				  "%s: cpu stats %llu/%llu/%llu", name,
				  (unsigned long long) cst.rows_in,
				  (unsigned long long) cst.rows_selected,
				  (unsigned long long) cst.groups_out);
		}
	}
	if (gpu)
	{
		int			path_before = HAVE_FAST_HOOKS ? gdb_cuda_last_path() : 0;

		/*
		 * A SORT with a limit runs under the default top-k choice, then
		 * with the top-k path forced and refining every bit (hook mode 2),
		 * then (top-k cases) with the full sort forced (mode 0).
		 */
		static const int topk_modes[] = {-1, 2, 0};
		int			nmodes = 1;
		int			mi;

		if (req->oper == GDB_OPER_SORT && req->limit > 0 && HAVE_TOPK_HOOKS)
			nmodes = topk_expect >= 0 ? 3 : 2;
		if (HAVE_FAST_HOOKS)
			gdb_cuda_set_fast_paths(1);
		for (mi = 0; mi < nmodes; mi++)
		{
			GdbBatch   *out = NULL;
			GdbStats	mst;
			double		tm;

			memset(&mst, 0, sizeof(mst));
			if (HAVE_TOPK_HOOKS)
				gdb_cuda_set_topk(topk_modes[mi]);
			snprintf(what, sizeof(what), "%s [gpu%s]", name,
					 mi == 0 ? "" : mi == 1 ? " top-k deep" : " full sort");
			t0 = now_ms();
			st = run_path(what, gpu_groupby, req, in, &out, &mst);
			tm = now_ms() - t0;
			check(st == cst_status, "%s: gpu status %d, cpu %d", what, st, cst_status);
			if (st == GDB_OK && cst_status == GDB_OK)
			{
				long long	last = HAVE_TOPK_HOOKS ? gdb_cuda_last_topk() : -1;
				int			cut = req->limit > 0 && req->limit < cst.rows_selected;

				check(rows_equal(what, req, out, cpu), "%s: gpu vs cpu", what);
				check(mst.rows_in == cst.rows_in && mst.rows_selected == cst.rows_selected &&
					  mst.groups_out == cst.groups_out && mst.device_ms >= 0 &&
					  (in->nrows == 0 ||
					   (mst.bytes_to_device >= in->total_bytes && mst.bytes_from_device > 0)),
					  "%s: gpu stats %llu/%llu/%llu, %llu/%llu bytes", what,
					  (unsigned long long) mst.rows_in,
					  (unsigned long long) mst.rows_selected,
					  (unsigned long long) mst.groups_out,
					  (unsigned long long) mst.bytes_to_device,
					  (unsigned long long) mst.bytes_from_device);
				if (nmodes > 1)
				{
					/* forced: top-k whenever it can cut; candidates >= limit */
					int			want = mi == 1 ? cut : mi == 2 ? 0 :
						(topk_expect >= 0 ? topk_expect && cut : -1);

					check(want < 0 || (want ? last >= (long long) req->limit &&
										last <= (long long) cst.rows_selected : last == -1),
						  "%s: top-k path %s expected, last candidates %lld", what,
						  want ? "" : "not", last);
					if (in->nrows >= 100000)
						printf("  %s: %s, device %.2f ms\n", what,
							   last < 0 ? "full sort" : "top-k", mst.device_ms);
				}
			}
			if (mi == 0)
			{
				dev = out;
				gst = mst;
				t_gpu = tm;
			}
			else
				free(out);
		}
		if (HAVE_TOPK_HOOKS)
			gdb_cuda_set_topk(-1);
		if (HAVE_FAST_HOOKS)
		{
			check(gdb_cuda_last_path() == path_before,
				  "%s: a group-by path ran (%d)", what, gdb_cuda_last_path());
			gdb_cuda_set_fast_paths(-1);
		}
	}
	if (in->nrows >= 100000)
	{
		printf("  %s: %llu rows, %llu returned, cpu %.0f ms", name,
			   (unsigned long long) in->nrows,
			   (unsigned long long) (cpu ? cpu->nrows : 0), t_cpu);
		if (gpu)
			printf(", gpu %.1f ms (device %.1f ms)", t_gpu, gst.device_ms);
		printf("\n");
	}
	free(ref);
	free(cpu);
	free(direct);
	free(dev);
}

/* Random SELECT and SORT cases: every program, several sizes, limits. */
static void
test_select_sort(void)
{
	static const uint64_t sizes[] = {0, 1, 2, 7, 100, 1000, 3000};
	size_t		si;
	int			p,
				oper;

	for (si = 0; si < sizeof(sizes) / sizeof(sizes[0]); si++)
	{
		GenParams	gp;

		gp.key_card = 1 + rng_below(12);
		gp.fkey_card = 1 + (int) rng_below(12);
		gp.big_card = 1 + rng_below(sizes[si] + 1);
		gp.null_pct = (int) rng_below(40);
		gp.slack = rng_below(3) * 17;
		for (p = 0; p < NPROGS; p++)
			for (oper = GDB_OPER_SELECT; oper <= GDB_OPER_SORT; oper++)
			{
				int			rep;

				for (rep = 0; rep < (oper == GDB_OPER_SORT ? 3 : 1); rep++)
				{
					GdbBatch   *in = gen_batch(sizes[si], &gp);
					char		desc[512],
								name[640];
					GdbRequest *r = random_select_sort(oper, p, sizes[si], desc, sizeof(desc));

					snprintf(name, sizeof(name), "%llu rows, %s",
							 (unsigned long long) sizes[si], desc);
					run_select_case(name, r, in, 1);
					free(r);
					free(in);
				}
			}
	}

	/* one ordering under every limit, many ties (few distinct keys) */
	{
		GenParams	gp = {3, 4, 5, 30, 7};
		GdbBatch   *in = gen_batch(1000, &gp);
		static const uint64_t limits[] = {0, 1, 2, 5, 999, 1000, 1001, 5000};
		GdbRequest *r = request_new();
		size_t		li;

		r->oper = GDB_OPER_SORT;
		r->nout = 3;
		r->out_cols[0] = C_KF;
		r->out_cols[1] = C_KI;
		r->out_cols[2] = C_CI;
		r->nsort = 2;
		r->sort_keys[0].col = C_KF;
		r->sort_keys[0].descending = 1;
		r->sort_keys[0].nulls_first = 1;
		r->sort_keys[1].col = C_KI;
		for (li = 0; li < sizeof(limits) / sizeof(limits[0]); li++)
		{
			char		name[128];

			r->limit = limits[li];
			snprintf(name, sizeof(name), "1000 rows, SORT kf DESC, ki LIMIT %llu",
					 (unsigned long long) limits[li]);
			run_select_case(name, r, in, 1);
		}
		/* every key equal: input order (stability) */
		r->nsort = 1;
		r->sort_keys[0].col = C_KF;
		for (li = 0; li < in->nrows; li++)
		{
			col_n(in, C_KF)[li] = li % 3 == 0;
			col_f(in, C_KF)[li] = li % 2 ? -0.0 : 0.0;
		}
		r->limit = 0;
		run_select_case("1000 rows, SORT by a column of +-0 and NULL (stability)", r, in, 1);
		free(r);
		free(in);
	}

	/* a planted first failing row: the lowest failing row's status */
	{
		GenParams	gp = {5, 8, 10, 10, 0};
		GdbBatch   *in = gen_batch(20000, &gp);
		char		desc[512];
		GdbRequest *r = random_select_sort(GDB_OPER_SORT, 7, in->nrows, desc, sizeof(desc));
		uint64_t	i;

		for (i = 0; i < in->nrows; i++)
			col_i(in, C_CI)[i] = 100 + (int64_t) rng_below(9000);
		col_i(in, C_CI)[12345] = 20;	/* int4 range, before a division by zero */
		col_i(in, C_CI)[16000] = 7;
		run_select_case("SORT, first error is int4 range", r, in, 1);
		r->oper = GDB_OPER_SELECT;
		r->nsort = 0;
		r->limit = 0;
		col_i(in, C_CI)[12345] = 7;
		run_select_case("SELECT, first error is division by zero", r, in, 1);
		free(r);
		free(in);
	}

	/* larger batches: GPU against CPU */
	{
		GenParams	gp = {1000, 12, 40000, 5, 100};
		GdbBatch   *in = gen_batch(200000, &gp);
		char		desc[512],
					name[640];
		int			rep;

		for (rep = 0; rep < 4; rep++)
		{
			GdbRequest *r = random_select_sort(rep ? GDB_OPER_SORT : GDB_OPER_SELECT,
											   rep == 3 ? 0 : (int) rng_below(4) + 1,
											   in->nrows, desc, sizeof(desc));

			snprintf(name, sizeof(name), "200000 rows, %s", desc);
			run_select_case(name, r, in, 0);
			free(r);
		}
		free(in);
	}
	{
		GenParams	gp = {6, 12, 2000000, 8, 1000};
		GdbBatch   *in = gen_batch(2000000, &gp);
		GdbRequest *r = request_new();

		r->oper = GDB_OPER_SORT;
		r->nout = 4;
		r->out_cols[0] = C_KB;
		r->out_cols[1] = C_VF;
		r->out_cols[2] = C_KI;
		r->out_cols[3] = C_VI;
		r->nsort = 3;
		r->sort_keys[0].col = C_KI;
		r->sort_keys[1].col = C_VF;
		r->sort_keys[1].descending = 1;
		r->sort_keys[1].nulls_first = 1;
		r->sort_keys[2].col = C_KB;
		run_select_case("2M rows, SORT ki, vf DESC, kb", r, in, 0);
		r->limit = 100;
		run_select_case("2M rows, SORT ki, vf DESC, kb LIMIT 100", r, in, 0);
		r->oper = GDB_OPER_SELECT;
		r->nsort = 0;
		r->limit = 0;
		build_program(r, 8);
		run_select_case("2M rows, SELECT WHERE vf * 2 + 1 > 3", r, in, 0);
		free(r);
		free(in);
	}
}

/* Malformed SELECT / SORT requests (negative controls) and alloc failure. */
static void
test_select_sort_bad(void)
{
	GenParams	gp = {5, 8, 10, 10, 0};
	GdbBatch   *in = gen_batch(50, &gp);
	char		desc[512];
	GdbRequest *r = random_select_sort(GDB_OPER_SORT, 0, in->nrows, desc, sizeof(desc));
	GdbRequest *ok;
	int			pass;

	r->nout = 2;
	r->out_cols[0] = C_VF;
	r->out_cols[1] = C_KI;
	r->limit = 0;
	ok = request_new();
	*ok = *r;
	expect_status("valid SORT", r, in, GDB_OK, test_alloc);
	r->oper = GDB_OPER_SELECT;
	expect_status("valid SELECT", r, in, GDB_OK, test_alloc);
	r->out_cols[1] = NCOLS;
	expect_status("SELECT output column out of range", r, in, GDB_ERR_BAD_REQUEST, test_alloc);
	r->out_cols[1] = -1;
	expect_status("SELECT output column -1", r, in, GDB_ERR_BAD_REQUEST, test_alloc);
	*r = *ok;
	r->out_cols[0] = 1000;
	expect_status("SORT output column out of range", r, in, GDB_ERR_BAD_REQUEST, test_alloc);
	*r = *ok;
	r->nout = 0;
	expect_status("no output columns", r, in, GDB_ERR_BAD_REQUEST, test_alloc);
	r->nout = GDB_MAX_COLUMNS + 1;
	expect_status("too many output columns", r, in, GDB_ERR_BAD_REQUEST, test_alloc);
	*r = *ok;
	r->nsort = 0;
	expect_status("SORT without sort keys", r, in, GDB_ERR_BAD_REQUEST, test_alloc);
	r->nsort = GDB_MAX_SORT_KEYS + 1;
	expect_status("too many sort keys", r, in, GDB_ERR_BAD_REQUEST, test_alloc);
	*r = *ok;
	r->sort_keys[0].col = NCOLS + 3;
	expect_status("sort key column out of range", r, in, GDB_ERR_BAD_REQUEST, test_alloc);
	*r = *ok;
	r->sort_keys[0].descending = 2;
	expect_status("sort key descending 2", r, in, GDB_ERR_BAD_REQUEST, test_alloc);
	*r = *ok;
	r->sort_keys[0].nulls_first = 7;
	expect_status("sort key nulls_first 7", r, in, GDB_ERR_BAD_REQUEST, test_alloc);
	*r = *ok;
	r->nkeys = 1;
	expect_status("SORT with group keys", r, in, GDB_ERR_BAD_REQUEST, test_alloc);
	*r = *ok;
	build_aggs(r);
	expect_status("SORT with aggregates", r, in, GDB_ERR_BAD_REQUEST, test_alloc);
	*r = *ok;
	r->oper = GDB_OPER_SELECT;
	r->input_is_states = 1;
	expect_status("SELECT in states mode", r, in, GDB_ERR_BAD_REQUEST, test_alloc);
	*r = *ok;
	r->oper = GDB_OPER_SORT + 1;
	expect_status("unknown operator", r, in, GDB_ERR_BAD_REQUEST, test_alloc);
	*r = *ok;
	assemble(r, "push_text@0 $ki int_eq");
	expect_status("SORT with unbound PUSH_TEXT", r, in, GDB_ERR_BAD_REQUEST, test_alloc);
	assemble(r, "$ki i1 int_add/3");
	expect_status("SORT with a bad program", r, in, GDB_ERR_BAD_REQUEST, test_alloc);
	*r = *ok;
	expect_status("SORT, alloc returns NULL", r, in, GDB_ERR_OUT_OF_MEMORY, failing_alloc);
	r->oper = GDB_OPER_SELECT;
	assemble(r, "$ci i-1 int_lt");	/* no row: an empty result still needs alloc */
	expect_status("SELECT of no row, alloc returns NULL", r, in, GDB_ERR_OUT_OF_MEMORY,
				  failing_alloc);
	{
		GdbBatch   *res = (GdbBatch *) (uintptr_t) 1;
		GdbError	err;
		int			st;

		*r = *ok;
		r->oper = GDB_OPER_GROUPBY;
		r->nout = 0;
		r->nsort = 0;
		st = gdb_cpu_select_sort(r, in, test_alloc, NULL, &res, NULL, &err);
		check(st == GDB_ERR_BAD_REQUEST && res == NULL,
			  "gdb_cpu_select_sort of a GROUPBY request: %d", st);
	}

	/* the corrupted request through the stores too */
	*r = *ok;
	r->out_cols[1] = NCOLS + 1;
	for (pass = 0; pass < (gpu ? 2 : 1); pass++)
	{
		GdbStore   *s = NULL;
		GdbBatch   *res = (GdbBatch *) (uintptr_t) 1;
		GdbError	err;
		int			st;

		if (st_create(pass, in, 0, &s, &err) != GDB_OK ||
			st_append(pass, s, in, NULL, &err) != GDB_OK)
		{
			check(0, "%s store for bad SORT requests: %s", pass ? "gpu" : "cpu", err.message);
			if (pass)
				gdb_cuda_store_free(s);
			else
				gdb_cpu_store_free(s);
			continue;
		}
		st = st_groupby(pass, s, r, &res, NULL, &err);
		check(st == GDB_ERR_BAD_REQUEST && err.status == st && res == NULL,
			  "%s store: SORT with a bad output column: %d", pass ? "gpu" : "cpu", st);
		r->out_cols[1] = C_KI;
		r->nsort = 0;
		res = (GdbBatch *) (uintptr_t) 1;
		st = st_groupby(pass, s, r, &res, NULL, &err);
		check(st == GDB_ERR_BAD_REQUEST && err.status == st && res == NULL,
			  "%s store: SORT without sort keys: %d", pass ? "gpu" : "cpu", st);
		r->out_cols[1] = NCOLS + 1;
		r->nsort = ok->nsort;
		if (pass)
			gdb_cuda_store_free(s);
		else
			gdb_cpu_store_free(s);
	}
	free(ok);
	free(r);
	free(in);
}

/*
 * SELECT / SORT over a column store of one path (appended in 3 unequal
 * batches from a small capacity) against gdb_cpu_select_sort over the
 * whole batch: same status, rows and statistics; on the GPU only the
 * filter program is copied to the device.  nrows 0: an empty store.
 */
static void
test_select_store(int on_gpu, uint64_t nrows)
{
	const char *pn = on_gpu ? "gpu" : "cpu";
	GenParams	gp = {1 + rng_below(20), 1 + (int) rng_below(12), 1 + rng_below(nrows + 1),
	(int) rng_below(30), 0};
	GdbBatch   *in = gen_batch(nrows, &gp);
	GdbStore   *s = NULL;
	GdbError	err;
	uint64_t	cut1 = nrows / 5,
				cut2 = nrows / 2;
	int			i;

	if (st_create(on_gpu, in, 8, &s, &err) != GDB_OK)
	{
		check(0, "%s select store: create: %s", pn, err.message);
		free(in);
		return;
	}
	if (nrows > 0)
	{
		GdbBatch   *part[3];
		uint64_t	from[4] = {0, cut1, cut2, nrows};
		int			j;

		for (j = 0; j < 3; j++)
		{
			part[j] = batch_like(in, from[j + 1] - from[j]);
			batch_append(part[j], in, from[j], from[j + 1] - from[j]);
			check(st_append(on_gpu, s, part[j], NULL, &err) == GDB_OK,
				  "%s select store: append %d: %s", pn, j, err.message);
			free(part[j]);
		}
	}
	for (i = 0; i < 12; i++)
	{
		int			oper = i % 3 ? GDB_OPER_SORT : GDB_OPER_SELECT;
		int			p = i < 6 ? (int) rng_below(5) : (int) rng_below(NPROGS);
		char		desc[512],
					name[700];
		GdbRequest *r = random_select_sort(oper, p, nrows, desc, sizeof(desc));
		GdbBatch   *a = NULL,
				   *b = NULL;
		GdbStats	sa,
					sb;
		int			x,
					y;

		snprintf(name, sizeof(name), "%s store, %llu rows, %s", pn,
				 (unsigned long long) nrows, desc);
		memset(&sa, 0, sizeof(sa));
		memset(&sb, 0, sizeof(sb));
		memset(&err, 0x5a, sizeof(err));
		x = st_groupby(on_gpu, s, r, &a, &sa, &err);
		check(err.status == x && memchr(err.message, '\0', sizeof(err.message)) &&
			  (x == GDB_OK) == (a != NULL), "%s: store error contract (%d)", name, x);
		y = gdb_cpu_select_sort(r, in, test_alloc, NULL, &b, &sb, NULL);
		check(x == y, "%s: store status %d, whole batch %d", name, x, y);
		if (x == GDB_OK && y == GDB_OK)
		{
			check(rows_equal(name, r, a, b), "%s: store vs whole batch", name);
			check(sa.rows_in == nrows && sa.rows_selected == sb.rows_selected &&
				  sa.groups_out == sb.groups_out, "%s: store stats", name);
			if (on_gpu)
				check(sa.bytes_to_device ==
					  program_bytes(r, nrows) &&
					  (nrows == 0 || sa.bytes_from_device > 0),
					  "%s: store copied %llu bytes to the device", name,
					  (unsigned long long) sa.bytes_to_device);
		}
		free(a);
		free(b);
		free(r);
	}
	if (on_gpu)
		gdb_cuda_store_free(s);
	else
		gdb_cpu_store_free(s);
	free(in);
}

/* ---- top-k SORT (cuda/topk_select.cu) ---- */

/* One sort key of a top-k case: column, DESC, NULLS FIRST. */
typedef struct TopkKey
{
	int			col;
	int			desc;
	int			nulls_first;
} TopkKey;

/*
 * One top-k case over in: SORT of (first key column, kb, vf, vi) by the nk
 * keys, filter program prog, limit; run_select_case checks the CPU path
 * and the GPU under the default choice (expect: 1 top-k, 0 full sort, -1
 * either), the forced deep top-k and the forced full sort.
 */
static void
topk_case(const GdbBatch *in, const char *label, int prog, uint64_t limit, int expect,
		  int nk, const TopkKey *keys)
{
	GdbRequest *r = request_new();
	char		name[512];
	size_t		o;
	int			i;

	r->oper = GDB_OPER_SORT;
	build_program(r, prog);
	r->nout = 4;
	r->out_cols[0] = keys[0].col;
	r->out_cols[1] = C_KB;
	r->out_cols[2] = C_VF;
	r->out_cols[3] = C_VI;
	r->nsort = (uint32_t) nk;
	o = (size_t) snprintf(name, sizeof(name), "%llu rows, top-k %s: ORDER BY",
						  (unsigned long long) in->nrows, label);
	for (i = 0; i < nk; i++)
	{
		r->sort_keys[i].col = keys[i].col;
		r->sort_keys[i].descending = (uint8_t) keys[i].desc;
		r->sort_keys[i].nulls_first = (uint8_t) keys[i].nulls_first;
		if (o < sizeof(name))
			o += (size_t) snprintf(name + o, sizeof(name) - o, "%s %s%s%s", i ? "," : "",
								   col_names[keys[i].col], keys[i].desc ? " DESC" : "",
								   keys[i].nulls_first ? " NULLS FIRST" : " NULLS LAST");
	}
	r->limit = limit;
	if (o < sizeof(name))
		snprintf(name + o, sizeof(name) - o, " LIMIT %llu WHERE %s",
				 (unsigned long long) limit, programs[prog].name);
	/* below 2^16 selected rows the default is the full sort */
	topk_expect = expect == 1 && in->nrows < 65536 ? 0 : expect;
	run_select_case(name, r, in, in->nrows <= 3000);
	topk_expect = -1;
	free(r);
}

/*
 * Top-k SORTs: k = 1, 10, 1000, nsel / 8, >= nsel; NULLs first and last
 * with fewer and more NULLs than k; DESC; float keys with NaN, -0, +-Inf;
 * first keys with few values (huge candidate sets), all equal (+0 and -0),
 * unique integers (constant high bits); several keys; filters.  kb is the
 * row number, so every output row names its input row.  nrows: 3M with a
 * device (several digit passes), fewer without (CPU checks only).
 */
static void
test_topk(uint64_t nrows)
{
	GenParams	gp = {3, 12, 1, 5, 0};
	GdbBatch   *in = gen_batch(nrows, &gp);
	uint64_t	n8 = nrows / 8;
	uint64_t	i;

	for (i = 0; i < nrows; i++)
		col_i(in, C_KB)[i] = (int64_t) i;
	{
		TopkKey		k1[] = {{C_VI, 1, 1}, {C_KB, 0, 0}};
		TopkKey		k2[] = {{C_VI, 1, 0}, {C_KB, 0, 0}};
		TopkKey		k3[] = {{C_VI, 0, 0}};

		topk_case(in, "NULLs first, nnull >= k", 0, 1, 1, 2, k1);
		topk_case(in, "NULLs first, nnull >= k", 0, 10, 1, 2, k1);
		topk_case(in, "NULLs first, nnull >= k", 0, 1000, 1, 2, k1);
		topk_case(in, "NULLs first, nnull < k = nsel/8", 0, n8, 1, 2, k1);
		topk_case(in, "DESC NULLs last", 0, 10, 1, 2, k2);
		topk_case(in, "DESC NULLs last", 0, 1000, 1, 2, k2);
		topk_case(in, "int64 extremes", 0, 10, 1, 1, k3);
		topk_case(in, "k = nsel/8 - 1", 0, n8 - 1, 1, 1, k3);
		topk_case(in, "k = nsel (full sort)", 0, nrows, 0, 2, k2);
		topk_case(in, "k > nsel (full sort)", 0, nrows + 5, 0, 2, k2);
		topk_case(in, "k = nsel - 1 (full sort by default)", 0, nrows - 1, 0, 2, k1);
	}
	{
		TopkKey		f1[] = {{C_VF, 0, 0}, {C_KB, 0, 0}};
		TopkKey		f2[] = {{C_VF, 1, 0}, {C_KB, 1, 0}};
		TopkKey		f3[] = {{C_VF, 1, 1}, {C_VI, 0, 1}, {C_KB, 0, 0}};
		TopkKey		f4[] = {{C_KF, 0, 0}, {C_VI, 0, 0}, {C_KB, 0, 0}};
		TopkKey		f5[] = {{C_KF, 1, 1}, {C_KB, 1, 0}};

		topk_case(in, "float, -Inf first", 0, 10, 1, 2, f1);
		topk_case(in, "float DESC, NaN first", 0, 10, 1, 2, f2);
		topk_case(in, "float DESC, NaN first", 0, 1000, 1, 2, f2);
		topk_case(in, "float DESC NULLS FIRST, 3 keys", 0, 1000, 1, 3, f3);
		topk_case(in, "float DESC NULLS FIRST, 3 keys", 0, n8, 1, 3, f3);
		topk_case(in, "12 float specials (ties)", 0, 10, 1, 3, f4);
		topk_case(in, "12 float specials DESC (ties)", 0, 100, 1, 2, f5);
	}
	{
		TopkKey		t1[] = {{C_KF2, 0, 0}, {C_VI, 1, 0}, {C_KB, 0, 0}};
		TopkKey		t2[] = {{C_KI, 0, 1}, {C_KB, 1, 0}};
		TopkKey		t3[] = {{C_KI, 1, 0}, {C_VF, 0, 0}, {C_KB, 0, 0}};
		TopkKey		t4[] = {{C_CI, 0, 0}, {C_KB, 1, 0}};
		TopkKey		u1[] = {{C_KB, 1, 0}};
		TopkKey		u2[] = {{C_KB, 0, 0}};

		topk_case(in, "4 distinct floats (ties)", 0, 10, 1, 3, t1);
		topk_case(in, "3 ints + extremes, NULLs first", 0, 10, 1, 2, t2);
		topk_case(in, "3 ints + extremes DESC", 0, 1000, 1, 3, t3);
		topk_case(in, "10000 values (ties)", 0, 1000, 1, 2, t4);
		topk_case(in, "unique ints DESC", 0, 10, 1, 1, u1);
		topk_case(in, "unique ints", 0, n8, 1, 1, u2);
	}
	{
		TopkKey		w1[] = {{C_VF, 1, 1}, {C_KB, 0, 0}};
		TopkKey		w2[] = {{C_KB, 1, 0}};
		TopkKey		w3[] = {{C_VI, 0, 0}, {C_KF, 1, 1}, {C_KB, 0, 0}};
		TopkKey		w4[] = {{C_KF2, 1, 0}, {C_VF, 0, 1}};

		topk_case(in, "filtered", 1, 10, -1, 2, w1);
		topk_case(in, "filtered", 3, 1000, -1, 1, w2);
		topk_case(in, "filtered", 2, 100, -1, 3, w3);
		topk_case(in, "filtered", 4, 1000, -1, 2, w4);
	}
	{
		/* every first key equal: +0 and -0 */
		TopkKey		e1[] = {{C_KF2, 0, 0}, {C_KB, 1, 0}};
		TopkKey		e2[] = {{C_KF2, 1, 1}};

		for (i = 0; i < nrows; i++)
			col_f(in, C_KF2)[i] = i % 3 ? 0.0 : -0.0;
		topk_case(in, "first key all equal (+-0)", 0, 10, 1, 2, e1);
		topk_case(in, "first key all equal (+-0), one key", 0, 1000, 1, 1, e2);
		topk_case(in, "first key all equal (+-0), filtered", 3, 10, -1, 2, e1);
	}
	{
		/* all but 5 first keys NULL, then all but 5 non-NULL */
		TopkKey		n1[] = {{C_KI, 0, 0}, {C_KB, 0, 0}};
		TopkKey		n2[] = {{C_KI, 1, 1}, {C_KB, 1, 0}};

		for (i = 0; i < nrows; i++)
			col_n(in, C_KI)[i] = i % (nrows / 5) != 7;
		topk_case(in, "5 values, NULLs last (every row a candidate)", 0, 10, 1, 2, n1);
		topk_case(in, "5 values, NULLs first", 0, 10, 1, 2, n2);
		for (i = 0; i < nrows; i++)
			col_n(in, C_KI)[i] = i % (nrows / 5) == 7;
		topk_case(in, "5 NULLs first, nnull < k", 0, 10, 1, 2, n2);
		topk_case(in, "5 NULLs first, nnull >= k", 0, 3, 1, 2, n2);
		topk_case(in, "5 NULLs last", 0, 10, 1, 2, n1);
	}
	free(in);
}

/*
 * The timings' cached table, the benchmark's t: nrows rows of (id int8,
 * v float8) in b (two columns, v nullable), v = 20 random bits / 2^20 and
 * NULL for every 97th id, copied into a CUDA store.  NULL when the store
 * cannot be built (then b is freed and the timing, named what, is skipped).
 */
static GdbStore *
timing_store(GdbBatch *b, uint64_t nrows, const char *what)
{
	GdbStore   *s = NULL;
	GdbError	err;
	uint64_t	i;

	b->nrows = nrows;
	for (i = 0; i < nrows; i++)
	{
		uint64_t	id = i + 1;

		col_i(b, 0)[i] = (int64_t) id;
		col_n(b, 1)[i] = id % 97 == 0;
		col_f(b, 1)[i] = id % 97 == 0 ? 0.0 : (double) (mix64(id * 31) & 1048575) / 1048576.0;
	}
	if (st_create(1, b, nrows, &s, &err) != GDB_OK || st_append(1, s, b, NULL, &err) != GDB_OK)
	{
		printf("  %s timing: store of %llu rows not built (%s); skipped\n",
			   what, (unsigned long long) nrows, err.message);
		if (s)
			gdb_cuda_store_free(s);
		free(b);
		return NULL;
	}
	return s;
}

/*
 * Top-k timing on the device (printed, never asserted): nrows rows of
 * (id int8, v float8) cached in a CUDA store, v = 20 random bits / 2^20
 * and NULL for every 97th id (the benchmark's table t), each query under
 * the default choice (top-k; best of 3) and with the full sort forced;
 * the two results must be identical.
 */
static void
test_topk_timing(uint64_t nrows)
{
	uint32_t	kinds[2] = {GDB_KIND_INT64, GDB_KIND_FLOAT64};
	uint32_t	hn[2] = {0, 1};
	GdbBatch   *b = batch_new(2, kinds, hn, nrows);
	GdbStore   *s = NULL;
	GdbError	err;
	static const struct
	{
		const char *name;
		const char *prog;
		int			c0,
					desc0,
					nf0;
	}			q[] = {
		{"ORDER BY v DESC, id LIMIT 10 (NULLs first)", "", 1, 1, 1},
		{"ORDER BY v DESC NULLS LAST, id LIMIT 10", "", 1, 1, 0},
		{"ORDER BY v, id LIMIT 10 WHERE id % 7 = 3", "$0 i7 int_mod/8 i3 int_eq", 1, 0, 0},
		{"ORDER BY id DESC LIMIT 10", "", 0, 1, 0},
	};

	s = timing_store(b, nrows, "top-k");
	if (s == NULL)
		return;
	for (size_t qi = 0; qi < sizeof(q) / sizeof(q[0]); qi++)
	{
		GdbRequest *r = request_new();
		GdbBatch   *top = NULL,
				   *full = NULL;
		double		best = -1,
					tfull = -1;
		GdbStats	bst,
					fst;
		long long	ncand = -1;
		int			rep,
					st;

		memset(&bst, 0, sizeof(bst));
		memset(&fst, 0, sizeof(fst));

		r->oper = GDB_OPER_SORT;
		assemble(r, q[qi].prog);
		r->nout = 2;
		r->out_cols[0] = 0;
		r->out_cols[1] = 1;
		r->nsort = q[qi].c0 == 0 ? 1 : 2;
		r->sort_keys[0].col = q[qi].c0;
		r->sort_keys[0].descending = (uint8_t) q[qi].desc0;
		r->sort_keys[0].nulls_first = (uint8_t) q[qi].nf0;
		r->sort_keys[1].col = 0;
		r->limit = 10;
		for (rep = 0; rep < 4; rep++)
		{
			GdbStats	stt;
			GdbBatch   *res = NULL;

			memset(&stt, 0, sizeof(stt));
			gdb_cuda_set_topk(rep < 3 ? -1 : 0);
			st = st_groupby(1, s, r, &res, &stt, &err);
			check(st == GDB_OK, "top-k timing %s: status %d (%s)", q[qi].name, st, err.message);
			if (st != GDB_OK)
				break;
			if (rep < 3)
			{
				ncand = gdb_cuda_last_topk();
				if (best < 0 || stt.device_ms < best)
				{
					best = stt.device_ms;
					bst = stt;
				}
				free(top);
				top = res;
			}
			else
			{
				tfull = stt.device_ms;
				fst = stt;
				full = res;
			}
		}
		gdb_cuda_set_topk(-1);
		if (top && full)
		{
			check(rows_equal(q[qi].name, r, top, full), "top-k timing %s: top-k vs full sort",
				  q[qi].name);
			check(ncand >= 10, "top-k timing %s: the top-k path ran (%lld)", q[qi].name, ncand);
			printf("  top-k timing, %llu cached rows, %s: top-k %.3f ms device (%lld candidates; "
				   "filter %.3f, sort %.3f, project %.3f, out %.3f), full sort %.3f ms "
				   "(filter %.3f, sort %.3f)\n", (unsigned long long) nrows, q[qi].name, best,
				   ncand, bst.phase_ms[GDB_PHASE_FILTER], bst.phase_ms[GDB_PHASE_SORT],
				   bst.phase_ms[GDB_PHASE_AGGREGATE], bst.phase_ms[GDB_PHASE_TRANSFER_OUT],
				   tfull, fst.phase_ms[GDB_PHASE_FILTER], fst.phase_ms[GDB_PHASE_SORT]);
		}
		free(top);
		free(full);
		free(r);
	}
	gdb_cuda_store_free(s);
	free(b);
}

/*
 * Fused no-keys timing on the device (printed, never asserted): the
 * top-k timing's table (id int8, v float8 NULL for every 97th id) in a
 * CUDA store of nrows rows; B2 (count(*), sum(v) WHERE v BETWEEN a AND b)
 * at four selectivities and two id % 7 = 3 forms, each with the fused
 * pass (best of 3) and with it off (the two passes; best of 3); the
 * results must agree.  The bandwidth printed is the bytes the fused pass
 * reads (values and NULL flags of its columns) over the Aggregate phase
 * (the fused kernel and the small final combine).
 */
static void
test_fused_timing(uint64_t nrows)
{
	uint32_t	kinds[2] = {GDB_KIND_INT64, GDB_KIND_FLOAT64};
	uint32_t	hn[2] = {0, 1};
	GdbBatch   *b = batch_new(2, kinds, hn, nrows);
	GdbStore   *s = NULL;
	GdbError	err;
	static const struct
	{
		const char *name;
		const char *prog;
		uint32_t	naggs;
		GdbAggSpec	aggs[3];
		double		bytes_per_row;	/* read by the fused pass */
	}			q[] = {
		{"B2 count(*), sum(v) WHERE v BETWEEN 0.25 AND 0.2501 (0.01 %)",
			"$1 f0.25 flt_ge $1 f0.2501 flt_le and", 2,
		{{GDB_AGG_COUNT_STAR, -1}, {GDB_AGG_SUM_FLOAT, 1}}, 9},
		{"B2 count(*), sum(v) WHERE v BETWEEN 0.25 AND 0.35 (10 %)",
			"$1 f0.25 flt_ge $1 f0.35 flt_le and", 2,
		{{GDB_AGG_COUNT_STAR, -1}, {GDB_AGG_SUM_FLOAT, 1}}, 9},
		{"B2 count(*), sum(v) WHERE v BETWEEN 0.25 AND 0.75 (50 %)",
			"$1 f0.25 flt_ge $1 f0.75 flt_le and", 2,
		{{GDB_AGG_COUNT_STAR, -1}, {GDB_AGG_SUM_FLOAT, 1}}, 9},
		{"B2 count(*), sum(v) WHERE v BETWEEN 0 AND 1 (99 %)",
			"$1 f0 flt_ge $1 f1 flt_le and", 2,
		{{GDB_AGG_COUNT_STAR, -1}, {GDB_AGG_SUM_FLOAT, 1}}, 9},
		{"count(*) WHERE id % 7 = 3", "$0 i7 int_mod/8 i3 int_eq", 1,
		{{GDB_AGG_COUNT_STAR, -1}}, 8},
		{"min(v), max(v), count(*) WHERE id % 7 = 3", "$0 i7 int_mod/8 i3 int_eq", 3,
		{{GDB_AGG_MIN_FLOAT, 1}, {GDB_AGG_MAX_FLOAT, 1}, {GDB_AGG_COUNT_STAR, -1}}, 17},
	};

	s = timing_store(b, nrows, "fused");
	if (s == NULL)
		return;
	for (size_t qi = 0; qi < sizeof(q) / sizeof(q[0]); qi++)
	{
		GdbRequest *r = request_new();
		GdbBatch   *res[2] = {NULL, NULL};
		GdbStats	best[2];
		int			ran[2] = {-1, -1};
		int			mode,
					rep,
					st;

		memset(best, 0, sizeof(best));
		r->nkeys = 0;
		r->naggs = q[qi].naggs;
		memcpy(r->aggs, q[qi].aggs, sizeof(q[qi].aggs));
		assemble(r, q[qi].prog);
		for (mode = 0; mode < 2; mode++)
		{
			gdb_cuda_set_fused(mode == 0 ? 1 : 0);
			for (rep = 0; rep < 3; rep++)
			{
				GdbStats	stt;
				GdbBatch   *out = NULL;

				memset(&stt, 0, sizeof(stt));
				st = st_groupby(1, s, r, &out, &stt, &err);
				check(st == GDB_OK, "fused timing %s: status %d (%s)", q[qi].name, st,
					  err.message);
				if (st != GDB_OK)
					break;
				ran[mode] = gdb_cuda_last_fused();
				if (res[mode] == NULL || stt.device_ms < best[mode].device_ms)
					best[mode] = stt;
				free(res[mode]);
				res[mode] = out;
			}
		}
		gdb_cuda_set_fused(-1);
		if (res[0] && res[1])
		{
			double		agg_ms = best[0].phase_ms[GDB_PHASE_AGGREGATE];

			check(results_equal(q[qi].name, r, res[0], res[1], 1),
				  "fused timing %s: fused vs two passes", q[qi].name);
			check(ran[0] == 1 && ran[1] == 0, "fused timing %s: fused pass ran %d / %d",
				  q[qi].name, ran[0], ran[1]);
			printf("  fused timing, %llu cached rows, %s: fused %.3f ms device (filter %.3f, "
				   "aggregate %.3f: %.0f GB/s), two passes %.3f ms (filter %.3f, "
				   "aggregate %.3f)\n", (unsigned long long) nrows, q[qi].name,
				   best[0].device_ms, best[0].phase_ms[GDB_PHASE_FILTER], agg_ms,
				   agg_ms > 0 ? q[qi].bytes_per_row * (double) nrows / (agg_ms * 1e6) : 0.0,
				   best[1].device_ms, best[1].phase_ms[GDB_PHASE_FILTER],
				   best[1].phase_ms[GDB_PHASE_AGGREGATE]);
		}
		free(res[0]);
		free(res[1]);
		free(r);
	}
	gdb_cuda_store_free(s);
	free(b);
}

/* ---- ordered group-bys (GROUPBY with sort keys and a limit) ---- */

/*
 * The finished value of sort key k of group g of an unordered group-by
 * result res of req, straight from the documented rules (GdbRequest): a
 * group key's value; a count; an integer sum's low 64 bits; a float sum
 * or extreme; NULL when an aggregate other than a count saw no input.
 * Sets *isnull and *isfloat; returns the value's bits.
 */
static int64_t
ref_order_value(const GdbRequest *req, const GdbBatch *res, uint32_t k, uint64_t g,
				int *isnull, int *isfloat)
{
	uint32_t	col = (uint32_t) req->sort_keys[k].col;
	const GdbAggState *st;
	uint32_t	kind;

	if (col < req->nkeys)
	{
		const uint8_t *nl = GDB_NULL_PTR(res, res, col);

		*isnull = nl ? nl[g] != 0 : 0;
		*isfloat = res->cols[col].kind == GDB_KIND_FLOAT64;
		return GDB_COL_PTR(res, res, col, const int64_t)[g];
	}
	kind = req->aggs[col - req->nkeys].kind;
	st = &GDB_COL_PTR(res, res, col, const GdbAggState)[g];
	*isfloat = kind == GDB_AGG_SUM_FLOAT || kind == GDB_AGG_MIN_FLOAT ||
		kind == GDB_AGG_MAX_FLOAT;
	*isnull = 0;
	if (kind == GDB_AGG_COUNT_STAR || kind == GDB_AGG_COUNT)
		return st->count;
	*isnull = st->count == 0;
	return *isfloat ? (int64_t) double_bits(st->f) : st->i0;
}

/* qsort_r comparator of group indexes: req's sort keys, then the index. */
static int
ref_group_cmp_order(const void *pa, const void *pb, void *arg)
{
	const RefCtx *ctx = (const RefCtx *) arg;
	uint64_t	a = *(const uint64_t *) pa;
	uint64_t	b = *(const uint64_t *) pb;
	uint32_t	k;

	for (k = 0; k < ctx->req->nsort; k++)
	{
		const GdbSortKey *sk = &ctx->req->sort_keys[k];
		int			na,
					nb,
					fa,
					fb,
					c;
		int64_t		va = ref_order_value(ctx->req, ctx->in, k, a, &na, &fa);
		int64_t		vb = ref_order_value(ctx->req, ctx->in, k, b, &nb, &fb);

		if (na != nb)
			return (na ? -1 : 1) * (sk->nulls_first ? 1 : -1);
		if (na)
			continue;
		c = fa ? ref_float_order(bits_to_double((uint64_t) va), bits_to_double((uint64_t) vb))
			: (va > vb) - (va < vb);
		if (c)
			return sk->descending ? -c : c;
	}
	return (a > b) - (a < b);
}

/*
 * Reference ordered group-by from the unordered result res of req: the
 * float overflow status when some group's float sum is infinite without an
 * infinite input, or its variance sums are not finite without a
 * non-finite input; else the first min(limit, groups) groups by
 * ref_group_cmp_order, every column copied.
 */
static int
ref_order_groups(const GdbRequest *req, const GdbBatch *res, GdbBatch **out)
{
	uint64_t	n = res->nrows;
	uint64_t	k = req->limit > 0 && req->limit < n ? req->limit : n;
	uint64_t   *ids = (uint64_t *) xmalloc((size_t) (n + 1) * sizeof(uint64_t));
	uint32_t	kinds[GDB_MAX_COLUMNS],
				hn[GDB_MAX_COLUMNS],
				c,
				a;
	uint64_t	g;
	RefCtx		ctx;
	GdbBatch   *o;

	for (g = 0; g < n; g++)
		for (a = 0; a < req->naggs; a++)
		{
			const GdbAggState *st = &GDB_COL_PTR(res, res, req->nkeys + a, const GdbAggState)[g];
			double		sxx = bits_to_double((uint64_t) st->i0);

			if (st->count > 0 &&
				((req->aggs[a].kind == GDB_AGG_SUM_FLOAT && isinf(st->f) && st->i0 == 0) ||
				 (req->aggs[a].kind == GDB_AGG_VAR_FLOAT && st->i1 == 0 &&
				  (!isfinite(st->f) || !isfinite(sxx)))))
			{
				free(ids);
				return GDB_ERR_FLOAT_OVERFLOW;
			}
		}
	for (g = 0; g < n; g++)
		ids[g] = g;
	ctx.req = req;
	ctx.in = res;
	qsort_r(ids, (size_t) n, sizeof(uint64_t), ref_group_cmp_order, &ctx);
	for (c = 0; c < res->ncols; c++)
	{
		kinds[c] = res->cols[c].kind;
		hn[c] = res->cols[c].has_nulls;
	}
	o = batch_new(res->ncols, kinds, hn, k);
	o->nrows = k;
	for (c = 0; c < res->ncols; c++)
	{
		uint64_t	w = gdb_kind_width(kinds[c]);

		for (g = 0; g < k; g++)
		{
			memcpy((char *) o + o->cols[c].values_off + g * w,
				   (const char *) res + res->cols[c].values_off + ids[g] * w, w);
			if (hn[c])
				col_n(o, (int) c)[g] = GDB_NULL_PTR(res, res, c)[ids[g]];
		}
	}
	free(ids);
	*out = o;
	return GDB_OK;
}

/* A copy of req (order and limit included). */
static GdbRequest *
request_copy(const GdbRequest *req)
{
	GdbRequest *r = request_new();

	memcpy(r, req, sizeof(GdbRequest));
	return r;
}

/* alloc() that counts its calls and records the last size asked for. */
static int	count_alloc_calls;
static size_t count_alloc_bytes;

static void *
counting_alloc(void *arg, size_t bytes)
{
	(void) arg;
	count_alloc_calls++;
	count_alloc_bytes = bytes;
	return malloc(bytes ? bytes : 1);
}

/*
 * Reference of distinct_last_key over the ordered reference *res of req:
 * one row per run of rows with equal NULL flags and equal values of every
 * key but the last (floats compared as numbers, so -0 and +0 are one run;
 * NaN equal to NaN), the run's first row's keys, a count(*) state whose
 * count is the run's rows with a non-NULL last key.  Replaces *res.
 */
static void
ref_collapse_runs(const GdbRequest *req, GdbBatch **res)
{
	GdbBatch   *in = *res;
	uint32_t	kinds[GDB_MAX_COLUMNS],
				hn[GDB_MAX_COLUMNS],
				c;
	uint32_t	x = req->nkeys - 1;
	uint64_t	m = 0,
				i;
	GdbBatch   *o;

	for (c = 0; c < in->ncols; c++)
	{
		kinds[c] = in->cols[c].kind;
		hn[c] = in->cols[c].has_nulls;
	}
	o = batch_new(in->ncols, kinds, hn, in->nrows);
	/* (batch_new fills with a pattern) */
	memset(GDB_COL_PTR(o, o, req->nkeys, GdbAggState), 0,
		   (size_t) in->nrows * sizeof(GdbAggState));
	for (i = 0; i < in->nrows; i++)
	{
		int			head = i == 0;

		for (c = 0; c < x && !head; c++)
		{
			const uint8_t *nl = GDB_NULL_PTR(in, in, c);
			int			an = nl ? nl[i - 1] : 0,
						bn = nl ? nl[i] : 0;

			if (an != bn)
				head = 1;
			else if (!an && kinds[c] == GDB_KIND_FLOAT64)
			{
				double		a = col_f(in, (int) c)[i - 1],
							b = col_f(in, (int) c)[i];

				head = !(a == b || (isnan(a) && isnan(b)));
			}
			else if (!an)
				head = col_i(in, (int) c)[i - 1] != col_i(in, (int) c)[i];
		}
		if (head)
		{
			for (c = 0; c <= x; c++)
			{
				col_i(o, (int) c)[m] = col_i(in, (int) c)[i];
				if (hn[c])
					col_n(o, (int) c)[m] = GDB_NULL_PTR(in, in, c)[i];
			}
			m++;
		}
		if (!(hn[x] && GDB_NULL_PTR(in, in, x)[i]))
			GDB_COL_PTR(o, o, req->nkeys, GdbAggState)[m - 1].count++;
	}
	o->nrows = m;
	{
		/* exactly m rows, as the paths allocate */
		GdbBatch   *t = batch_new(in->ncols, kinds, hn, m);

		t->nrows = m;
		for (c = 0; c < in->ncols; c++)
		{
			uint64_t	w = gdb_kind_width(kinds[c]);

			memcpy((char *) t + t->cols[c].values_off, (char *) o + o->cols[c].values_off, m * w);
			if (hn[c])
				memcpy(col_n(t, (int) c), col_n(o, (int) c), m);
		}
		free(o);
		o = t;
	}
	free(in);
	*res = o;
}

/*
 * One ordered group-by: req (keys, aggregates, program, sort keys, limit)
 * over in.  The CPU path against ref_order_groups over its own unordered
 * result (exact, same status); the CPU path's alloc() asked once, for the
 * returned groups only; the GPU (fast paths on and off) against the CPU
 * (SUM_FLOAT within 1e-12; the orders here never depend on float
 * rounding), the same statistics, groups_out the groups returned, and
 * fewer bytes back than the unordered result when the limit cuts a large
 * one; then the combine: unordered partial results of two parts,
 * concatenated, under the ordered combine request, against the CPU's
 * ordered whole.
 */
static void
ordered_case(const char *name, const GdbRequest *req, const GdbBatch *in)
{
	GdbRequest *u = request_copy(req);
	GdbBatch   *unord = NULL,
			   *cpu = NULL,
			   *ref = NULL;
	GdbStats	cst;
	char		what[600];
	int			su,
				sc,
				sr = GDB_OK;

	u->nsort = 0;
	u->limit = 0;
	u->distinct_last_key = 0;
	memset(&cst, 0, sizeof(cst));
	snprintf(what, sizeof(what), "%s [cpu unordered]", name);
	su = run_path(what, gdb_cpu_execute, u, in, &unord, NULL);
	snprintf(what, sizeof(what), "%s [cpu]", name);
	count_alloc_calls = 0;
	{
		GdbError	err;

		memset(&err, 0, sizeof(err));
		cpu = (GdbBatch *) (uintptr_t) 1;
		sc = gdb_cpu_execute(req, in, counting_alloc, NULL, &cpu, &cst, &err);
		check(err.status == sc && (sc == GDB_OK) == (cpu != NULL) &&
			  (sc == GDB_OK || err.message[0]), "%s: error contract (%d)", what, sc);
		if (sc != GDB_OK)
			cpu = NULL;
	}
	if (su == GDB_OK)
		sr = ref_order_groups(req, unord, &ref);
	else
		sr = su;
	if (sr == GDB_OK && req->distinct_last_key)
		ref_collapse_runs(req, &ref);
	check(sc == sr, "%s: cpu status %d, reference %d", what, sc, sr);
	if (sc == GDB_OK && sr == GDB_OK)
	{
		uint32_t	kinds[GDB_MAX_COLUMNS],
					hn[GDB_MAX_COLUMNS];

		for (uint32_t c = 0; c < ref->ncols; c++)
		{
			kinds[c] = ref->cols[c].kind;
			hn[c] = ref->cols[c].has_nulls;
		}
		check(results_equal(what, req, cpu, ref, 0), "%s: cpu vs reference", what);
		check(cst.groups_out == ref->nrows && cst.rows_in == in->nrows,
			  "%s: cpu stats groups %llu, want %llu", what,
			  (unsigned long long) cst.groups_out, (unsigned long long) ref->nrows);
		check(count_alloc_calls == 1 &&
			  count_alloc_bytes == gdb_batch_layout(NULL, ref->ncols, kinds, hn, ref->nrows),
			  "%s: cpu alloc() called %d times, last for %zu bytes", what,
			  count_alloc_calls, count_alloc_bytes);
	}

	if (gpu)
	{
		int			nmodes = HAVE_FAST_HOOKS ? 2 : 1;

		for (int mode = 0; mode < nmodes; mode++)
		{
			GdbBatch   *out = NULL;
			GdbStats	gst;
			GdbError	err;
			int			sg;

			memset(&gst, 0, sizeof(gst));
			memset(&err, 0, sizeof(err));
			if (HAVE_FAST_HOOKS)
				gdb_cuda_set_fast_paths(mode == 0 ? 1 : 0);
			snprintf(what, sizeof(what), "%s [gpu%s]", name,
					 nmodes == 1 ? "" : mode == 0 ? " fast" : " sort");
			count_alloc_calls = 0;
			sg = gdb_cuda_execute(gpu, req, in, counting_alloc, NULL, &out, &gst, &err);
			check(sg == sc, "%s: gpu status %d, cpu %d (%s)", what, sg, sc, err.message);
			if (sg == GDB_OK && sc == GDB_OK)
			{
				check(results_equal(what, req, out, cpu, 1), "%s: gpu vs cpu", what);
				check(gst.groups_out == cst.groups_out && gst.rows_in == cst.rows_in &&
					  gst.rows_selected == cst.rows_selected,
					  "%s: gpu stats %llu/%llu/%llu", what,
					  (unsigned long long) gst.rows_in,
					  (unsigned long long) gst.rows_selected,
					  (unsigned long long) gst.groups_out);
				check(count_alloc_calls == 1 && count_alloc_bytes == cpu->total_bytes,
					  "%s: gpu alloc() called %d times, last for %zu bytes (want %llu)",
					  what, count_alloc_calls, count_alloc_bytes,
					  (unsigned long long) cpu->total_bytes);
				check(gst.bytes_from_device <= cpu->total_bytes + 4096 ||
					  gst.bytes_from_device < unord->total_bytes,
					  "%s: %llu bytes back for %llu groups", what,
					  (unsigned long long) gst.bytes_from_device,
					  (unsigned long long) cpu->nrows);
			}
			if (sg == GDB_OK)
				free(out);
		}
		if (HAVE_FAST_HOOKS)
			gdb_cuda_set_fast_paths(-1);
		if (HAVE_FUSED_HOOKS)
			gdb_cuda_set_fused(-1);
	}

	/* combine: unordered partials, then the ordered final combine */
	if (sc == GDB_OK && in->nrows >= 2)
	{
		uint64_t	h = in->nrows / 2 + 1;
		GdbBatch   *lo = batch_like(in, h);
		GdbBatch   *hi = batch_like(in, in->nrows - h);
		GdbRequest *creq = combine_request(req);

		creq->nsort = req->nsort;
		memcpy(creq->sort_keys, req->sort_keys, sizeof(creq->sort_keys));
		creq->limit = req->limit;
		creq->distinct_last_key = req->distinct_last_key;
		batch_append(lo, in, 0, h);
		batch_append(hi, in, h, in->nrows - h);
		for (int pass = 0; pass < (gpu ? 2 : 1); pass++)
		{
			GroupbyFn	fn = pass ? gpu_groupby : gdb_cpu_execute;
			GdbBatch   *p1 = NULL,
					   *p2 = NULL,
					   *comb = NULL;
			int			s1,
						s2;

			snprintf(what, sizeof(what), "%s [%s ordered combine]", name, pass ? "gpu" : "cpu");
			s1 = run_path(what, fn, u, lo, &p1, NULL);
			s2 = run_path(what, fn, u, hi, &p2, NULL);
			if (s1 == GDB_OK && s2 == GDB_OK)
			{
				GdbBatch   *cat = batch_like(p1, p1->nrows + p2->nrows);
				int			s3;

				batch_append(cat, p1, 0, p1->nrows);
				batch_append(cat, p2, 0, p2->nrows);
				s3 = run_path(what, fn, creq, cat, &comb, NULL);
				check(s3 == GDB_OK, "%s: status %d", what, s3);
				if (s3 == GDB_OK)
					check(results_equal(what, req, comb, cpu, 1), "%s: vs cpu whole", what);
				free(cat);
			}
			else
				check(0, "%s: partials failed (%d, %d)", what, s1, s2);
			free(p1);
			free(p2);
			free(comb);
		}
		free(lo);
		free(hi);
		free(creq);
	}
	free(unord);
	free(cpu);
	free(ref);
	free(u);
}

/* Random sort keys over req's result columns (keys and orderable aggregates). */
static void
random_order(GdbRequest *r, char *desc, size_t len)
{
	uint32_t	cand[GDB_MAX_GROUP_KEYS + GDB_MAX_AGGREGATES];
	uint32_t	ncand = 0,
				i;
	size_t		used = 0;

	for (i = 0; i < r->nkeys; i++)
		cand[ncand++] = i;
	for (i = 0; i < r->naggs; i++)
		if (gdb_order_agg_kind_ok(r->aggs[i].kind))
			cand[ncand++] = r->nkeys + i;
	r->nsort = 1 + (uint32_t) rng_below(3);
	desc[0] = '\0';
	for (i = 0; i < r->nsort; i++)
	{
		GdbSortKey *sk = &r->sort_keys[i];

		sk->col = (int32_t) cand[rng_below(ncand)];
		sk->descending = (uint8_t) rng_below(2);
		sk->nulls_first = (uint8_t) rng_below(2);
		used += (size_t) snprintf(desc + used, used < len ? len - used : 0, "%s%s%d%s%s",
								  i ? ", " : "", (uint32_t) sk->col < r->nkeys ? "key" : "agg",
								  (uint32_t) sk->col < r->nkeys ? sk->col : sk->col - (int) r->nkeys,
								  sk->descending ? " desc" : "", sk->nulls_first ? " nf" : "");
		if (used >= len)
			used = len - 1;
	}
	{
		uint64_t	l = rng_below(5);

		r->limit = l == 0 ? 0 : l == 1 ? 1 : l == 2 ? 2 + rng_below(9) :
			l == 3 ? 100 : 1000000;
	}
}

/*
 * A batch of two columns (INT64 key, FLOAT64 value) from (key, value)
 * pairs: the float overflow cases.
 */
static GdbBatch *
pairs_batch(const int64_t *keys, const double *vals, uint64_t n)
{
	uint32_t	kinds[2] = {GDB_KIND_INT64, GDB_KIND_FLOAT64};
	uint32_t	hn[2] = {0, 0};
	GdbBatch   *b = batch_new(2, kinds, hn, n);

	b->nrows = n;
	for (uint64_t i = 0; i < n; i++)
	{
		col_i(b, 0)[i] = keys[i];
		col_f(b, 1)[i] = vals[i];
	}
	return b;
}

static void
test_ordered_groupby(void)
{
	GdbRequest *r = request_new();
	static const uint64_t sizes[] = {0, 1, 50, 3000};
	char		name[700];
	char		desc[256];
	size_t		si;
	int			k,
				p,
				i;

	/* random orders over every key set, several programs and sizes */
	for (si = 0; si < sizeof(sizes) / sizeof(sizes[0]); si++)
	{
		GenParams	gp = {1 + rng_below(12), 1 + (int) rng_below(12),
		1 + rng_below(sizes[si] + 1), (int) rng_below(40), 0};
		GdbBatch   *in = gen_batch(sizes[si], &gp);

		for (k = 0; k < NKEYSETS; k++)
			for (p = 0; p < 4; p++)
			{
				int			prog = p == 0 ? 0 : (int) rng_below(NPROGS);

				memset(r, 0, sizeof(*r));
				build_keys(r, k);
				build_aggs(r);
				build_program(r, prog);
				random_order(r, desc, sizeof(desc));
				snprintf(name, sizeof(name), "ordered %llu rows, keys %s, %s, order (%s) limit %llu",
						 (unsigned long long) sizes[si], keysets[k].name, programs[prog].name,
						 desc, (unsigned long long) r->limit);
				ordered_case(name, r, in);
			}
		free(in);
	}

	/*
	 * distinct_last_key (count(DISTINCT x) per group): every key set with
	 * keys, x its last key, ordered by the keys in order, each direction
	 */
	for (si = 0; si < sizeof(sizes) / sizeof(sizes[0]); si++)
	{
		GenParams	gp = {1 + rng_below(12), 1 + (int) rng_below(12),
		1 + rng_below(sizes[si] + 1), (int) rng_below(40), 0};
		GdbBatch   *in = gen_batch(sizes[si], &gp);

		for (k = 1; k < NKEYSETS; k++)
			for (p = 0; p < 2; p++)
			{
				int			prog = p == 0 ? 0 : (int) rng_below(NPROGS);

				memset(r, 0, sizeof(*r));
				build_keys(r, k);
				r->naggs = 1;
				r->aggs[0].kind = GDB_AGG_COUNT_STAR;
				r->aggs[0].input_col = -1;
				build_program(r, prog);
				r->nsort = r->nkeys;
				for (i = 0; i < (int) r->nkeys; i++)
				{
					r->sort_keys[i].col = i;
					r->sort_keys[i].descending = (uint8_t) rng_below(2);
					r->sort_keys[i].nulls_first = (uint8_t) rng_below(2);
				}
				r->distinct_last_key = 1;
				snprintf(name, sizeof(name), "distinct last key, %llu rows, keys %s, %s",
						 (unsigned long long) sizes[si], keysets[k].name, programs[prog].name);
				ordered_case(name, r, in);
			}
		free(in);
	}

	/* many groups, a small limit: the sort path and the small-key path */
	{
		GenParams	gp = {1000, 12, 40000, 5, 0};
		GdbBatch   *in = gen_batch(200000, &gp);
		static const int sets[] = {5, 1, 3};

		for (i = 0; i < 3; i++)
		{
			memset(r, 0, sizeof(*r));
			build_keys(r, sets[i]);
			build_aggs(r);
			r->nsort = 2;
			r->sort_keys[0].col = (int32_t) r->nkeys + 6;	/* sum(vf) */
			r->sort_keys[0].descending = 1;
			r->sort_keys[1].col = 0;
			r->limit = 10;
			snprintf(name, sizeof(name), "ordered 200000 rows, keys %s, sum(vf) desc, key0, limit 10",
					 keysets[sets[i]].name);
			ordered_case(name, r, in);
			r->sort_keys[0].col = (int32_t) r->nkeys;	/* count(*) */
			r->sort_keys[0].nulls_first = 1;
			r->limit = 0;
			snprintf(name, sizeof(name), "ordered 200000 rows, keys %s, count(*) desc, key0, no limit",
					 keysets[sets[i]].name);
			ordered_case(name, r, in);
		}
		free(in);
	}

	/* float overflow of a group that the limit cuts: still an error */
	{
		static const int64_t keys[] = {0, 0, 1, 1, 1, 2, 2, 2, 2, 3, 3};
		static const double vals[] = {1e308, 1e308, 1e308, 1e308, INFINITY,
		1, 2, 3, 4, 1e300, -1e300};
		GdbBatch   *in = pairs_batch(keys, vals, 11);

		memset(r, 0, sizeof(*r));
		r->nkeys = 1;
		r->key_cols[0] = 0;
		r->naggs = 2;
		r->aggs[0].kind = GDB_AGG_COUNT_STAR;
		r->aggs[0].input_col = -1;
		r->aggs[1].kind = GDB_AGG_SUM_FLOAT;
		r->aggs[1].input_col = 1;
		r->nsort = 1;
		r->sort_keys[0].col = 1;
		r->sort_keys[0].descending = 1;
		r->limit = 1;
		expect_status("ordered: float sum overflow in a cut group", r, in,
					  GDB_ERR_FLOAT_OVERFLOW, test_alloc);
		ordered_case("ordered: float sum overflow in a cut group", r, in);
		/* without group 0 (the filter): an infinite input is no overflow */
		assemble(r, "$0 i0 int_ne");
		expect_status("ordered: an infinite input is no overflow", r, in, GDB_OK, test_alloc);
		ordered_case("ordered: an infinite input is no overflow", r, in);
		/* a variance whose squares overflow, in a cut group */
		r->aggs[1].kind = GDB_AGG_VAR_FLOAT;
		r->sort_keys[0].col = 0;
		expect_status("ordered: float variance overflow in a cut group", r, in,
					  GDB_ERR_FLOAT_OVERFLOW, test_alloc);
		ordered_case("ordered: float variance overflow in a cut group", r, in);
		/* the same group-by without an order raises nothing itself */
		r->nsort = 0;
		r->limit = 0;
		expect_status("unordered: the host finishes (no device check)", r, in, GDB_OK,
					  test_alloc);
		free(in);
	}

	/* malformed orders, and allocation failure */
	{
		GenParams	gp = {5, 8, 10, 10, 0};
		GdbBatch   *in = gen_batch(50, &gp);

		memset(r, 0, sizeof(*r));
		build_keys(r, 1);
		build_aggs(r);
		r->nsort = 1;
		r->sort_keys[0].col = (int32_t) (r->nkeys + r->naggs);
		expect_status("ordered: sort key past the result columns", r, in,
					  GDB_ERR_BAD_REQUEST, test_alloc);
		r->sort_keys[0].col = -1;
		expect_status("ordered: negative sort key", r, in, GDB_ERR_BAD_REQUEST, test_alloc);
		for (i = 0; i < (int) r->naggs; i++)
			if (!gdb_order_agg_kind_ok(r->aggs[i].kind))
			{
				r->sort_keys[0].col = (int32_t) r->nkeys + i;
				snprintf(name, sizeof(name), "ordered: aggregate kind %u has no order",
						 (unsigned) r->aggs[i].kind);
				expect_status(name, r, in, GDB_ERR_BAD_REQUEST, test_alloc);
			}
		r->sort_keys[0].col = 0;
		r->sort_keys[0].descending = 2;
		expect_status("ordered: descending flag 2", r, in, GDB_ERR_BAD_REQUEST, test_alloc);
		r->sort_keys[0].descending = 0;
		r->nsort = GDB_MAX_SORT_KEYS + 1;
		expect_status("ordered: too many sort keys", r, in, GDB_ERR_BAD_REQUEST, test_alloc);
		r->nsort = 0;
		r->limit = 5;
		expect_status("group-by: a limit without sort keys", r, in, GDB_ERR_BAD_REQUEST,
					  test_alloc);
		r->nsort = 1;
		expect_status("ordered: alloc() fails", r, in, GDB_ERR_OUT_OF_MEMORY, failing_alloc);
		expect_status("ordered: well formed", r, in, GDB_OK, test_alloc);
		/* distinct_last_key: only count(*) alone, ordered by the keys */
		r->limit = 0;
		r->distinct_last_key = 1;
		expect_status("distinct last key: other aggregates", r, in, GDB_ERR_BAD_REQUEST,
					  test_alloc);
		r->naggs = 1;
		r->aggs[0].kind = GDB_AGG_COUNT_STAR;
		r->aggs[0].input_col = -1;
		r->nsort = r->nkeys;
		for (i = 0; i < (int) r->nkeys; i++)
			r->sort_keys[i].col = i;
		if (r->nkeys > 1)
		{
			r->sort_keys[0].col = 1;
			expect_status("distinct last key: sort keys out of key order", r, in,
						  GDB_ERR_BAD_REQUEST, test_alloc);
			r->sort_keys[0].col = 0;
		}
		r->limit = 3;
		expect_status("distinct last key: a limit", r, in, GDB_ERR_BAD_REQUEST, test_alloc);
		r->limit = 0;
		r->distinct_last_key = 2;
		expect_status("distinct last key: flag 2", r, in, GDB_ERR_BAD_REQUEST, test_alloc);
		r->distinct_last_key = 1;
		expect_status("distinct last key: well formed", r, in, GDB_OK, test_alloc);
		free(in);
	}

	/* column stores of both paths run the ordered request too */
	for (p = 0; p < (gpu ? 2 : 1); p++)
	{
		GenParams	gp = {50, 12, 5000, 10, 0};
		GdbBatch   *in = gen_batch(20000, &gp);
		GdbStore   *s = NULL;
		GdbError	err;
		GdbBatch   *a = NULL,
				   *b = NULL;
		GdbStats	sa;

		memset(&sa, 0, sizeof(sa));
		memset(r, 0, sizeof(*r));
		build_keys(r, 5);
		build_aggs(r);
		build_program(r, 1);
		r->nsort = 2;
		r->sort_keys[0].col = (int32_t) r->nkeys + 3;	/* sum(vi) */
		r->sort_keys[0].nulls_first = 1;
		r->sort_keys[1].col = 0;
		r->sort_keys[1].descending = 1;
		r->limit = 7;
		if (st_create(p, in, 0, &s, &err) == GDB_OK && st_append(p, s, in, NULL, &err) == GDB_OK)
		{
			int			x = st_groupby(p, s, r, &a, &sa, &err);
			int			y = gdb_cpu_execute(r, in, test_alloc, NULL, &b, NULL, NULL);

			check(x == GDB_OK && y == GDB_OK && results_equal("ordered store", r, a, b, p) &&
				  sa.groups_out == 7 && a->nrows == 7,
				  "ordered group-by over a %s store (%d, %d: %s)", p ? "gpu" : "cpu", x, y,
				  err.message);
		}
		else
			check(0, "ordered store setup: %s", err.message);
		free(a);
		free(b);
		if (s)
			(p ? gdb_cuda_store_free : gdb_cpu_store_free) (s);
		free(in);
	}
	free(r);
}

/* ---- the join probe step (GdbJoinSpec; join_semantics.h) ---- */

/*
 * Build sides of the join tests: key column 0 (INT64, NULL flags), then
 * payload columns.  J_DIM: keys 0..29 once each and one NULL key (probe
 * keys 30.. dangle), payload grp = key % 7 (NULL for key % 11 == 3) and
 * w = key / 2.0; J_GRP: keys 0..5 (grp 6 dangles), payload g2 = 10 * key;
 * J_DUP: keys drawn from 0..59 with repeats (a semi or anti join's; an
 * inner join over it must fail with GDB_ERR_JOIN_DUPLICATE); J_DUPP: the
 * same with payload d = the row's number (for a semi or anti join's qual).
 */
enum
{
	J_DIM,
	J_GRP,
	J_DUP,
	J_DUPP						/* J_DUP's keys, payload d = its row number */
};

static GdbBatch *
join_build_side(int which)
{
	uint32_t	kinds[3] = {GDB_KIND_INT64, GDB_KIND_INT64, GDB_KIND_FLOAT64};
	uint32_t	hn[3] = {1, 1, 0};
	uint32_t	ncols = which == J_DIM ? 3 : which == J_GRP || which == J_DUPP ? 2 : 1;
	uint64_t	n = which == J_DIM ? 31 : which == J_GRP ? 6 : 40;
	GdbBatch   *b = batch_new(ncols, kinds, hn, n);
	uint64_t	r;

	b->nrows = n;
	for (r = 0; r < n; r++)
	{
		/* rows in a scrambled order, so the insertion order is not the keys' */
		int64_t		k = which == J_DIM ? (int64_t) ((r * 17) % 31) :
			which == J_GRP ? (int64_t) (5 - r) : (int64_t) rng_below(60);

		col_n(b, 0)[r] = which == J_DIM && k == 30;
		col_i(b, 0)[r] = which == J_DIM && k == 30 ? 0 : k;
		if (which == J_DIM)
		{
			col_n(b, 1)[r] = k % 11 == 3;
			col_i(b, 1)[r] = k % 11 == 3 ? 0 : k % 7;
			col_f(b, 2)[r] = (double) k / 2.0;
		}
		else if (which == J_GRP)
		{
			col_n(b, 1)[r] = 0;
			col_i(b, 1)[r] = 10 * k;
		}
		else if (which == J_DUPP)
		{
			col_n(b, 1)[r] = 0;
			col_i(b, 1)[r] = (int64_t) r;
		}
	}
	return b;
}

/*
 * The naive reference of a join request: for every probe row the filter
 * (none here) keeps, each join's first build row with equal non-NULL keys
 * by a linear scan (with a qual, the first for which vi > qual_k * its
 * payload 0 holds), its type's rule, and the join filter (vi > 100 * grp,
 * when join_filter is set) evaluated in C; the kept rows with their
 * payload become a flat batch (the probe's columns, then payload column i
 * as column NCOLS + i), over which the same group-by without joins runs
 * on the CPU path.  *flat_req: req with its join columns renumbered.
 */
static GdbBatch *
join_reference_input(const GdbRequest *req, const GdbBatch *in, int64_t qual_k,
					 GdbRequest *flat_req)
{
	uint32_t	kinds[NCOLS + GDB_MAX_JOIN_COLS],
				hn[NCOLS + GDB_MAX_JOIN_COLS];
	uint32_t	c,
				j,
				i;
	GdbBatch   *out;
	uint64_t	r;

	for (c = 0; c < NCOLS; c++)
	{
		kinds[c] = in->cols[c].kind;
		hn[c] = 1;
	}
	for (j = 0; j < req->njoins; j++)
	{
		const GdbJoinSpec *sp = &req->joins[j];
		const GdbBatch *b = (const GdbBatch *) ((const char *) req->join_data + sp->build_off);

		for (i = 0; i < sp->npayload; i++)
		{
			kinds[NCOLS + sp->payload_first + i] = b->cols[sp->nkeys + i].kind;
			hn[NCOLS + sp->payload_first + i] = 1;
		}
	}
	out = batch_new(NCOLS + req->njoin_cols, kinds, hn, in->nrows ? in->nrows : 1);
	out->nrows = 0;
	for (r = 0; r < in->nrows; r++)
	{
		int64_t		pv[GDB_MAX_JOIN_COLS];
		uint8_t		pn[GDB_MAX_JOIN_COLS];
		int			keep = 1;

		for (i = 0; i < req->njoin_cols; i++)
		{
			pv[i] = 0;
			pn[i] = 1;
		}
		for (j = 0; j < req->njoins && keep; j++)
		{
			const GdbJoinSpec *sp = &req->joins[j];
			const GdbBatch *b = (const GdbBatch *) ((const char *) req->join_data + sp->build_off);
			int32_t		pc = sp->probe_cols[0];
			int			knull;
			int64_t		key;
			int64_t		m = -1;
			uint64_t	br;

			if (pc >= GDB_JOIN_COL(0))
			{
				knull = pn[pc - GDB_JOIN_COL(0)];
				key = pv[pc - GDB_JOIN_COL(0)];
			}
			else
			{
				knull = in->cols[pc].has_nulls && GDB_NULL_PTR(in, in, pc)[r];
				key = GDB_COL_PTR(in, in, pc, const int64_t)[r];
			}
			for (br = 0; !knull && br < b->nrows && m < 0; br++)
				if (!GDB_NULL_PTR(b, b, 0)[br] && GDB_COL_PTR(b, b, 0, const int64_t)[br] == key)
				{
					/* the join's qual of these tests: vi > qk * its payload 0 */
					if (sp->qual)
					{
						const uint8_t *bn = GDB_NULL_PTR(b, b, 1);

						if (GDB_NULL_PTR(in, in, C_VI)[r] || (bn && bn[br]) ||
							!(GDB_COL_PTR(in, in, C_VI, const int64_t)[r] >
							  qual_k * GDB_COL_PTR(b, b, 1, const int64_t)[br]))
							continue;
					}
					m = (int64_t) br;
				}
			if ((sp->type == GDB_JOIN_INNER || sp->type == GDB_JOIN_SEMI) && m < 0)
				keep = 0;
			if (sp->type == GDB_JOIN_ANTI && m >= 0)
				keep = 0;
			for (i = 0; i < sp->npayload && m >= 0 &&
				 (sp->type == GDB_JOIN_INNER || sp->type == GDB_JOIN_LEFT); i++)
			{
				const uint8_t *bn = GDB_NULL_PTR(b, b, sp->nkeys + i);

				pn[sp->payload_first + i] = bn ? bn[m] : 0;
				pv[sp->payload_first + i] = GDB_COL_PTR(b, b, sp->nkeys + i, const int64_t)[m];
			}
		}
		/* the join filter of these tests: vi > 100 * grp (payload 0) */
		if (keep && req->join_filter)
			keep = !(GDB_NULL_PTR(in, in, C_VI)[r] || pn[0]) &&
				GDB_COL_PTR(in, in, C_VI, const int64_t)[r] > 100 * pv[0];
		if (!keep)
			continue;
		for (c = 0; c < NCOLS; c++)
		{
			col_i(out, c)[out->nrows] = GDB_COL_PTR(in, in, c, const int64_t)[r];
			col_n(out, c)[out->nrows] = in->cols[c].has_nulls ? GDB_NULL_PTR(in, in, c)[r] : 0;
		}
		for (i = 0; i < req->njoin_cols; i++)
		{
			col_i(out, NCOLS + i)[out->nrows] = pn[i] ? 0 : pv[i];
			col_n(out, NCOLS + i)[out->nrows] = pn[i];
		}
		out->nrows++;
	}
	memcpy(flat_req, req, sizeof(GdbRequest));
	flat_req->njoins = 0;
	flat_req->njoin_cols = 0;
	flat_req->join_filter = 0;
	flat_req->nexprs = 0;
	flat_req->neinstr = 0;
	flat_req->njoin_bytes = 0;
	flat_req->join_data = NULL;
	for (i = 0; i < flat_req->nkeys; i++)
		if (flat_req->key_cols[i] >= GDB_JOIN_COL(0))
			flat_req->key_cols[i] = NCOLS + (flat_req->key_cols[i] - GDB_JOIN_COL(0));
	for (i = 0; i < flat_req->naggs; i++)
		if (flat_req->aggs[i].input_col >= GDB_JOIN_COL(0))
			flat_req->aggs[i].input_col = NCOLS + (flat_req->aggs[i].input_col - GDB_JOIN_COL(0));
	return out;
}

/* req's build sides: the batches of sides[0 .. n), laid out in one buffer */
static void *
join_data_of(GdbRequest *req, GdbBatch *const *sides, uint32_t n)
{
	uint64_t	total = 0;
	char	   *data;
	uint32_t	j;

	for (j = 0; j < n; j++)
	{
		req->joins[j].build_off = total;
		req->joins[j].build_bytes = sides[j]->total_bytes;
		total += gdb_align_up(sides[j]->total_bytes);
	}
	data = (char *) xmalloc((size_t) (total ? total : 1));
	for (j = 0; j < n; j++)
		memcpy(data + req->joins[j].build_off, sides[j], sides[j]->total_bytes);
	req->join_data = data;
	req->njoin_bytes = total;
	return data;
}

/*
 * The join probe step: shapes of joins (inner, left, semi, anti, a chain
 * keyed by an earlier join's payload, a join filter) over probe batches
 * with NULL, duplicate and dangling keys; the CPU path against the naive
 * reference, the GPU against the CPU path (run_case, with the partial
 * results and their combine), and a duplicate key of an inner build side
 * failing both with GDB_ERR_JOIN_DUPLICATE.
 */
static void
test_joins(void)
{
	static const struct
	{
		const char *name;
		int			nj;
		int			side[4];	/* J_* */
		uint32_t	type[4];
		int			filter;		/* 1: a join filter; 2: join 0's qual */
	}			shapes[] = {
		{"inner", 1, {J_DIM}, {GDB_JOIN_INNER}, 0},
		{"left", 1, {J_DIM}, {GDB_JOIN_LEFT}, 0},
		{"semi", 1, {J_DUP}, {GDB_JOIN_SEMI}, 0},
		{"anti", 1, {J_DUP}, {GDB_JOIN_ANTI}, 0},
		{"inner, chain left", 2, {J_DIM, J_GRP}, {GDB_JOIN_INNER, GDB_JOIN_LEFT}, 0},
		{"left, chain inner", 2, {J_DIM, J_GRP}, {GDB_JOIN_LEFT, GDB_JOIN_INNER}, 0},
		{"inner, semi, anti", 3, {J_DIM, J_DUP, J_DUP}, {GDB_JOIN_INNER, GDB_JOIN_SEMI, GDB_JOIN_ANTI}, 0},
		{"inner with join filter", 1, {J_DIM}, {GDB_JOIN_INNER}, 1},
		{"inner over duplicates", 1, {J_DUP}, {GDB_JOIN_INNER}, 0},
		{"left with a qual", 1, {J_DIM}, {GDB_JOIN_LEFT}, 2},
		{"semi with a qual over duplicates", 1, {J_DUPP}, {GDB_JOIN_SEMI}, 2},
		{"anti with a qual over duplicates", 1, {J_DUPP}, {GDB_JOIN_ANTI}, 2},
		{"anti with a qual, chain inner", 2, {J_DUPP, J_DIM}, {GDB_JOIN_ANTI, GDB_JOIN_INNER}, 2},
	};
	static const uint64_t sizes[] = {0, 1, 100, 3000, 70000};
	size_t		si,
				sh;

	for (si = 0; si < sizeof(sizes) / sizeof(sizes[0]); si++)
		for (sh = 0; sh < sizeof(shapes) / sizeof(shapes[0]); sh++)
		{
			GenParams	gp = {40, 4, 60, 10, 5};
			GdbBatch   *in = gen_batch(sizes[si], &gp);
			GdbBatch   *sides[4];
			GdbRequest *req = request_new();
			GdbRequest *flat_req = request_new();
			GdbBatch   *flat,
					   *res = NULL,
					   *ref = NULL;
			void	   *data;
			char		name[256];
			uint32_t	next = 0;
			int			j,
						st,
						rst;

			for (j = 0; j < shapes[sh].nj; j++)
			{
				GdbJoinSpec *sp = &req->joins[j];

				sides[j] = join_build_side(shapes[sh].side[j]);
				sp->type = shapes[sh].type[j];
				sp->nkeys = 1;
				/* J_GRP is keyed by J_DIM's grp (payload 0); J_DUP by kb */
				sp->probe_cols[0] = shapes[sh].side[j] == J_GRP ? GDB_JOIN_COL(0) :
					shapes[sh].side[j] == J_DUP || shapes[sh].side[j] == J_DUPP ? C_KB : C_KI;
				/* a semi or anti join's payload only serves its qual */
				sp->npayload = (sp->type == GDB_JOIN_SEMI || sp->type == GDB_JOIN_ANTI) &&
					!(shapes[sh].filter == 2 && j == 0) ? 0 : sides[j]->ncols - 1;
				sp->payload_first = next;
				next += sp->npayload;
			}
			req->njoins = (uint32_t) shapes[sh].nj;
			req->njoin_cols = next;
			data = join_data_of(req, sides, req->njoins);
			/* the CPU path keeps its tables for the partial results' runs */
			req->join_id = 1000 * si + sh + 1;

			/* group by the first payload column (or ki), aggregates of both sides */
			req->oper = GDB_OPER_GROUPBY;
			req->nkeys = 1;
			req->key_cols[0] = next > 0 && shapes[sh].type[0] != GDB_JOIN_ANTI ?
				GDB_JOIN_COL(0) : C_KI;
			req->aggs[req->naggs++] = (GdbAggSpec) {GDB_AGG_COUNT_STAR, -1};
			req->aggs[req->naggs++] = (GdbAggSpec) {GDB_AGG_SUM_INT, C_VI};
			req->aggs[req->naggs++] = (GdbAggSpec) {GDB_AGG_MIN_FLOAT, C_VF};
			req->aggs[req->naggs++] = (GdbAggSpec) {GDB_AGG_COUNT, C_KI};
			/* each payload column: count, and max (integers) or sum (floats) */
			for (j = 0; j < shapes[sh].nj; j++)
			{
				const GdbJoinSpec *sp = &req->joins[j];
				uint32_t	q;

				for (q = 0; q < sp->npayload; q++)
				{
					int32_t		col = GDB_JOIN_COL(sp->payload_first + q);

					req->aggs[req->naggs++] = (GdbAggSpec) {GDB_AGG_COUNT, col};
					req->aggs[req->naggs++] = (GdbAggSpec) {
						sides[j]->cols[1 + q].kind == GDB_KIND_FLOAT64 ?
						GDB_AGG_SUM_FLOAT : GDB_AGG_MAX_INT, col};
				}
			}
			if (shapes[sh].filter)
			{
				/*
				 * computed column 0: vi > 100 * grp (the join filter, or a
				 * left join's qual), vi > 10 * d (a semi or anti join's)
				 */
				GdbInstr   *e = req->eprogram;

				memset(e, 0, sizeof(GdbInstr) * 5);
				e[0].op = GDB_OP_PUSH_COL;
				e[0].arg = C_VI;
				e[1].op = GDB_OP_PUSH_INT;
				e[1].ival = shapes[sh].side[0] == J_DUPP ? 10 : 100;
				e[1].width = 8;
				e[2].op = GDB_OP_PUSH_COL;
				e[2].arg = GDB_JOIN_COL(0);
				e[3].op = GDB_OP_INT_MUL;
				e[3].width = 8;
				e[4].op = GDB_OP_INT_GT;
				req->neinstr = 5;
				req->nexprs = 1;
				req->exprs[0].kind = GDB_KIND_INT64;
				req->exprs[0].start = 0;
				req->exprs[0].len = 5;
				if (shapes[sh].filter == 1)
					req->join_filter = 1;
				else
				{
					req->joins[0].qual = 1;
					req->joins[0].qual_expr = 0;
				}
			}

			snprintf(name, sizeof(name), "join %s, %llu probe rows", shapes[sh].name,
					 (unsigned long long) sizes[si]);
			st = run_path(name, gdb_cpu_execute, req, in, &res, NULL);
			flat = join_reference_input(req, in, shapes[sh].side[0] == J_DUPP ? 10 : 100,
										flat_req);
			if (shapes[sh].side[0] == J_DUP && shapes[sh].type[0] == GDB_JOIN_INNER)
				check(st == GDB_ERR_JOIN_DUPLICATE, "%s: cpu status %d, expected a duplicate key",
					  name, st);
			else
			{
				rst = run_path(name, gdb_cpu_execute, flat_req, flat, &ref, NULL);
				check(st == GDB_OK && rst == GDB_OK, "%s: cpu status %d, reference %d",
					  name, st, rst);
				if (st == GDB_OK && rst == GDB_OK)
					check(results_equal(name, req, res, ref, 0), "%s: cpu vs reference", name);
			}
			run_case(name, req, in, 0);
			free(res);
			free(ref);
			free(flat);
			free(data);
			for (j = 0; j < shapes[sh].nj; j++)
				free(sides[j]);
			free(req);
			free(flat_req);
			free(in);
		}
}

/*
 * Scratch returned (issue 21, item 1): gdb_cuda_release_scratch frees down
 * to what it is told, and a column store that fits only once the scratch
 * of an earlier large query is returned is created anyway (column_store.cu
 * frees the scratch and tries again).  in: a batch whose GROUP BY needs
 * scratch of a few hundred MB.
 */
static void
test_scratch_release(GdbRequest *req, GdbBatch *in)
{
	GdbDeviceInfo devs[8];
	int			ndev = 0;
	GdbError	err;
	GdbBatch   *res = NULL;
	GdbStore   *store = NULL;
	uint64_t	held,
				freed,
				target,
				cap;
	uint32_t	kinds[4] = {GDB_KIND_INT64, GDB_KIND_INT64, GDB_KIND_INT64, GDB_KIND_INT64};
	uint32_t	nulls[4] = {0, 0, 0, 0};
	int			st;

	st = gdb_cuda_execute(gpu, req, in, test_alloc, NULL, &res, NULL, &err);
	check(st == GDB_OK, "scratch: the large query: %s", err.message);
	free(res);
	res = NULL;
	held = gdb_cuda_scratch_bytes(gpu);
	check(held > ((uint64_t) 16 << 20), "scratch: %llu bytes held after the large query",
		  (unsigned long long) held);
	freed = gdb_cuda_release_scratch(gpu, held / 2);
	check(gdb_cuda_scratch_bytes(gpu) <= held / 2 && freed == held - gdb_cuda_scratch_bytes(gpu),
		  "scratch: release to %llu bytes left %llu (freed %llu of %llu)",
		  (unsigned long long) (held / 2), (unsigned long long) gdb_cuda_scratch_bytes(gpu),
		  (unsigned long long) freed, (unsigned long long) held);
	/* the query again (its scratch allocated anew) */
	st = gdb_cuda_execute(gpu, req, in, test_alloc, NULL, &res, NULL, &err);
	check(st == GDB_OK && res != NULL, "scratch: the query after a release: %s", err.message);
	free(res);
	held = gdb_cuda_scratch_bytes(gpu);
	/* a store of what is free now plus half the scratch held */
	if (gdb_cuda_probe(devs, 8, &ndev, &err) != GDB_OK || ndev == 0)
	{
		check(0, "scratch: probe: %s", err.message);
		return;
	}
	target = devs[0].memory_free + held / 2;
	cap = target / (4 * sizeof(int64_t));
	if (cap > (uint64_t) UINT32_MAX)
	{
		printf("scratch: %.1f GiB free is more than one store can take; store case skipped\n",
			   devs[0].memory_free / 1073741824.0);
		return;
	}
	st = gdb_cuda_store_create(gpu, 4, kinds, nulls, cap, &store, &err);
	check(st == GDB_OK && store != NULL,
		  "scratch: a store of %llu MB with %llu MB free and %llu MB of scratch held: %s",
		  (unsigned long long) (target >> 20), (unsigned long long) (devs[0].memory_free >> 20),
		  (unsigned long long) (held >> 20), st == GDB_OK ? "" : err.message);
	check(gdb_cuda_scratch_bytes(gpu) == 0, "scratch: %llu bytes still held after the store",
		  (unsigned long long) gdb_cuda_scratch_bytes(gpu));
	gdb_cuda_store_free(store);
	/* and the query once more */
	st = gdb_cuda_execute(gpu, req, in, test_alloc, NULL, &res, NULL, &err);
	check(st == GDB_OK && res != NULL, "scratch: the query after the store: %s", err.message);
	free(res);
}

int
main(int argc, char **argv)
{
	uint64_t	seed = argc > 1 ? strtoull(argv[1], NULL, 0) : 20240601;
	GdbDeviceInfo devs[8];
	int			ndev = 0;
	GdbError	err;
	GdbRequest *req = request_new();
	static const uint64_t sizes[] = {0, 1, 7, 100, 1000, 3000};
	size_t		si;
	int			p,
				k;
	double		t0 = now_ms();
	int			had_gpu;

	rng_state = seed;
	printf("device_selftest: seed %llu\n", (unsigned long long) seed);
	if (!gdb_cuda_built())
		printf("device: this build has no CUDA path; CPU checks only\n");
	else if (gdb_cuda_probe(devs, 8, &ndev, &err) != GDB_OK || ndev == 0)
		printf("device: none (%s); CPU checks only\n", err.message);
	else if (gdb_cuda_open(0, &gpu, &err) != GDB_OK)
	{
		printf("device: %s cannot be opened (%s); CPU checks only\n", devs[0].name,
			   err.message);
		gpu = NULL;
	}
	else
		printf("device: %s, cc %d.%d, %d SMs, %.1f GiB, driver %d, runtime %d\n",
			   devs[0].name, devs[0].cc_major, devs[0].cc_minor,
			   devs[0].multiprocessors, devs[0].memory_total / 1073741824.0,
			   devs[0].driver_version, devs[0].runtime_version);

	if (gpu)
		printf("fast paths: %s\n", HAVE_FAST_HOOKS ?
			   "each GPU case runs with them on and off" :
			   "no test hooks in this build; GPU cases run as configured");

	if (gpu == NULL)
	{
		/* without a usable device every entry point must say so cleanly */
		GdbCudaExec *ex = (GdbCudaExec *) (uintptr_t) 1;
		GdbBatch   *res = (GdbBatch *) (uintptr_t) 1;
		int			st = gdb_cuda_open(0, &ex, &err);

		check(st == GDB_ERR_NO_DEVICE && ex == NULL && err.message[0] != '\0',
			  "gdb_cuda_open without a device: status %d (%s)", st, err.message);
		check(gdb_cuda_host_alloc(NULL, 64) == NULL, "gdb_cuda_host_alloc(NULL)");
		gdb_cuda_host_free(NULL, NULL);
		build_keys(req, 0);
		build_aggs(req);
		st = gdb_cuda_execute(NULL, req, NULL, test_alloc, NULL, &res, NULL, &err);
		check(st != GDB_OK && res == NULL, "gdb_cuda_execute without an exec: %d", st);
		if (!gdb_cuda_built())
		{
			st = gdb_cuda_probe(devs, 8, &ndev, &err);
			check(st == GDB_ERR_NO_DEVICE && ndev == 0 &&
				  strcmp(err.message, "this gpudb build has no CUDA support (built without nvcc)") == 0,
				  "probe of a build without CUDA: %s", err.message);
		}
	}
	test_semantics();
	test_bad_requests();
	test_first_error();
	test_text_constants();
	test_code_tables();
	test_joins();
	test_fast_paths();
	test_fused_paths();
	test_store_errors();
	{
		static const uint64_t store_rows[] = {100, 3000, 50000};

		for (si = 0; si < sizeof(store_rows) / sizeof(store_rows[0]); si++)
			for (p = 0; p < (gpu ? 2 : 1); p++)
				test_store_path(p, store_rows[si]);
		for (p = 0; p < (gpu ? 2 : 1); p++)
		{
			test_store_scatter(p, 50);
			test_store_scatter(p, 5000);
		}
		if (gpu)
			test_store_range_hints(20000);
	}
	had_gpu = gpu != NULL;

	/* small cases: every program over several key sets and sizes */
	for (si = 0; si < sizeof(sizes) / sizeof(sizes[0]); si++)
	{
		GenParams	gp;

		gp.key_card = 1 + rng_below(12);
		gp.fkey_card = 1 + (int) rng_below(12);
		gp.big_card = 1 + rng_below(sizes[si] + 1);
		gp.null_pct = (int) rng_below(40);
		gp.slack = rng_below(3) * 17;
		for (k = 0; k < NKEYSETS; k++)
			for (p = 0; p < NPROGS; p++)
			{
				GdbBatch   *in = gen_batch(sizes[si], &gp);
				char		name[256];
				const char *ks = build_keys(req, k);
				const char *ps = build_program(req, p);

				build_aggs(req);
				snprintf(name, sizeof(name), "%llu rows, keys %s, %s",
						 (unsigned long long) sizes[si], ks, ps);
				run_case(name, req, in, 1);
				free(in);
			}
	}

	/* one larger batch with many groups, then ~2M rows */
	{
		GenParams	gp = {1000, 12, 40000, 5, 100};
		GdbBatch   *in = gen_batch(200000, &gp);

		build_keys(req, 5);
		build_program(req, 3);
		run_case("200000 rows, keys (kb), ~40000 groups", req, in, 0);
		build_keys(req, 4);
		build_program(req, 2);
		run_case("200000 rows, keys (kf, kf2, ki)", req, in, 0);
		free(in);
	}
	{
		GenParams	gp = {6, 12, 2000000, 8, 1000};
		GdbBatch   *in = gen_batch(2000000, &gp);

		build_keys(req, 3);
		build_aggs(req);
		build_program(req, 0);
		run_case("2M rows, keys (ki, kf), no filter", req, in, 1);
		build_program(req, 8);
		run_case("2M rows, keys (ki, kf), vf * 2 + 1 > 3", req, in, 1);
		build_keys(req, 0);
		build_program(req, 3);
		run_case("2M rows, no keys, vi IS NOT NULL AND ci % 3 = 1", req, in, 1);
		build_keys(req, 5);
		build_program(req, 1);
		run_case("2M rows, keys (kb), ~1M groups", req, in, 0);
		if (gpu)
			test_scratch_release(req, in);
		free(in);
	}

	/* SELECT and SORT: reference, CPU, GPU; malformed requests; stores */
	test_select_sort_bad();
	test_select_sort();
	test_topk(3000);
	test_topk(gpu ? 3000000 : 100000);
	test_ordered_groupby();
	if (gpu && HAVE_TOPK_HOOKS)
		test_topk_timing(100000000);
	if (gpu && HAVE_FUSED_HOOKS)
		test_fused_timing(100000000);
	{
		static const uint64_t store_rows[] = {0, 100, 5000};

		for (si = 0; si < sizeof(store_rows) / sizeof(store_rows[0]); si++)
			for (p = 0; p < (gpu ? 2 : 1); p++)
				test_select_store(p, store_rows[si]);
	}

	if (gpu)
	{
		/* pinned input through gdb_cuda_host_alloc, and an exec reopened */
		GenParams	gp = {50, 12, 100, 10, 0};
		GdbBatch   *in = gen_batch(100000, &gp);
		void	   *pinned = gdb_cuda_host_alloc(gpu, (size_t) in->total_bytes);

		check(pinned != NULL, "gdb_cuda_host_alloc");
		if (pinned)
		{
			memcpy(pinned, in, (size_t) in->total_bytes);
			build_keys(req, 3);
			build_program(req, 2);
			run_case("100000 rows from pinned memory", req, (GdbBatch *) pinned, 1);
			gdb_cuda_host_free(gpu, pinned);
		}
		(void) gdb_cuda_host_alloc(gpu, 4096);	/* left for gdb_cuda_close */
		gdb_cuda_close(gpu);
		check(gdb_cuda_open(0, &gpu, &err) == GDB_OK, "reopen: %s", err.message);
		if (gpu)
		{
			run_case("100000 rows after reopen", req, in, 0);
			gdb_cuda_close(gpu);
		}
		free(in);
		gpu = NULL;
	}
	gdb_cuda_close(NULL);
	if (had_gpu)
		test_recover();

	free(req);
	/* every filter error kind must have been exercised */
	for (k = GDB_OK; k <= GDB_ERR_FLOAT_UNDERFLOW; k++)
		check(status_seen[k] > 0, "no case ended with status %d", k);
	printf("cases by status: ok %d, int2 %d, int4 %d, int8 %d, div0 %d, overflow %d, underflow %d\n",
		   status_seen[GDB_OK], status_seen[GDB_ERR_INT2_RANGE],
		   status_seen[GDB_ERR_INT4_RANGE], status_seen[GDB_ERR_INT8_RANGE],
		   status_seen[GDB_ERR_DIV_ZERO], status_seen[GDB_ERR_FLOAT_OVERFLOW],
		   status_seen[GDB_ERR_FLOAT_UNDERFLOW]);
	printf("device_selftest: %.1f s\n", (now_ms() - t0) / 1000.0);
	printf("selftest: %d passed, %d failed\n", n_passed, n_failed);
	return n_failed ? 1 : 0;
}
