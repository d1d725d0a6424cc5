/*-------------------------------------------------------------------------
 *
 * expr_semantics.h
 *	  The value opcodes of computed columns (CASE arms, numeric fixed
 *	  point, dates and timestamps, abs, GREATEST/LEAST, NULLIF, casts),
 *	  with PostgreSQL's results and errors, for the CPU path and the
 *	  device alike.  Included by gpudb_semantics.h only; plain C99 that
 *	  nvcc compiles too.  No PostgreSQL header: the constants of
 *	  PostgreSQL's datetime.h and timestamp.h that the code needs are
 *	  restated below (they are part of the on-disk format).
 *
 * Numeric values are carried as fixed point (numeric_fixed.c): the int64
 * v * 10^s of a value with s digits after the point, |v * 10^s| < 10^18,
 * NaN as INT64_MAX.  Every numeric opcode keeps that invariant: a result
 * at or past 10^18 raises GDB_ERR_FIXED_POINT instead of being rounded.
 *
 * Dates are days from 2000-01-01 (int32 range, +-infinity at its ends),
 * timestamps microseconds from 2000-01-01 00:00 (+-infinity at int64's
 * ends).  The calendar is the proleptic Gregorian one PostgreSQL uses;
 * civil dates are computed with the days-from-civil algorithm of Howard
 * Hinnant ("chrono-Compatible Low-Level Date Algorithms"), written anew
 * here from its description.
 *
 *-------------------------------------------------------------------------
 */
#ifndef GPUDB_EXPR_SEMANTICS_H
#define GPUDB_EXPR_SEMANTICS_H

/* PostgreSQL's date and timestamp limits (datatype/timestamp.h) */
#define GDB_USECS_PER_DAY		INT64_C(86400000000)
#define GDB_DATE_NOBEGIN		((int64_t) INT32_MIN)
#define GDB_DATE_NOEND			((int64_t) INT32_MAX)
#define GDB_TS_NOBEGIN			INT64_MIN
#define GDB_TS_NOEND			INT64_MAX
/* valid finite dates: [DATETIME_MIN_JULIAN, DATE_END_JULIAN) - epoch */
#define GDB_DATE_MIN			INT64_C(-2451545)
#define GDB_DATE_END			(INT64_C(2147483494) - INT64_C(2451545))
/* dates from which date2timestamp overflows: TIMESTAMP_END_JULIAN - epoch */
#define GDB_DATE_TS_END			(INT64_C(109203528) - INT64_C(2451545))
#define GDB_TS_MIN				INT64_C(-211813488000000000)
#define GDB_TS_END				INT64_C(9223371331200000000)
/* 1970-01-01 in days from 2000-01-01 */
#define GDB_UNIX_EPOCH_DAYS		INT64_C(-10957)

/* Fixed-point numeric limits (see the file header). */
#define GDB_NUM_LIMIT			INT64_C(1000000000000000000)
#define GDB_NUM_NAN				INT64_MAX

/* date_trunc and date_part fields (GdbInstr.arg of TS_TRUNC, DATE_PART) */
typedef enum GdbDateField
{
	GDB_FIELD_YEAR = 0,
	GDB_FIELD_QUARTER,
	GDB_FIELD_MONTH,
	GDB_FIELD_WEEK,
	GDB_FIELD_DAY,
	GDB_FIELD_HOUR,
	GDB_FIELD_MINUTE,
	GDB_FIELD_SECOND,			/* date_trunc only */
	GDB_FIELD_DOW,				/* date_part only, from here on */
	GDB_FIELD_ISODOW,
	GDB_FIELD_DOY,
	GDB_FIELD_EPOCH
} GdbDateField;

/* 10^k for 0 <= k <= 18. */
GDB_HOSTDEV int64_t
gdb_pow10(int k)
{
	int64_t		p = 1;

	while (k-- > 0)
		p *= 10;
	return p;
}

/* Floor division and modulo for b > 0. */
GDB_HOSTDEV int64_t
gdb_floor_div(int64_t a, int64_t b)
{
	int64_t		q = a / b;

	return (a % b != 0 && a < 0) ? q - 1 : q;
}

GDB_HOSTDEV int64_t
gdb_floor_mod(int64_t a, int64_t b)
{
	return a - gdb_floor_div(a, b) * b;
}

/* Days from 2000-01-01 of the proleptic Gregorian y-m-d (y astronomical). */
GDB_HOSTDEV int64_t
gdb_days_from_civil(int64_t y, int64_t m, int64_t d)
{
	int64_t		era,
				yoe,
				doy,
				doe;

	y -= m <= 2;
	era = gdb_floor_div(y, 400);
	yoe = y - era * 400;
	doy = (153 * (m + (m > 2 ? -3 : 9)) + 2) / 5 + d - 1;
	doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
	return era * 146097 + doe - 719468 + GDB_UNIX_EPOCH_DAYS;
}

/* The civil date of days from 2000-01-01. */
GDB_HOSTDEV void
gdb_civil_from_days(int64_t days, int64_t *y, int64_t *m, int64_t *d)
{
	int64_t		z = days - GDB_UNIX_EPOCH_DAYS + 719468;
	int64_t		era = gdb_floor_div(z, 146097);
	int64_t		doe = z - era * 146097;
	int64_t		yoe = (doe - doe / 1460 + doe / 36524 - doe / 146096) / 365;
	int64_t		doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
	int64_t		mp = (5 * doy + 2) / 153;

	*d = doy - (153 * mp + 2) / 5 + 1;
	*m = mp < 10 ? mp + 3 : mp - 9;
	*y = yoe + era * 400 + (*m <= 2);
}

GDB_HOSTDEV int
gdb_days_in_month(int64_t y, int64_t m)
{
	static const int mdays[12] = {31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31};
	int			leap = (gdb_floor_mod(y, 4) == 0 && gdb_floor_mod(y, 100) != 0) ||
		gdb_floor_mod(y, 400) == 0;

	return m == 2 ? 28 + leap : mdays[m - 1];
}

GDB_HOSTDEV int
gdb_ts_valid(int64_t ts)
{
	return ts >= GDB_TS_MIN && ts < GDB_TS_END;
}

/*
 * timestamp + interval (PostgreSQL's timestamp_pl_interval): months first,
 * on the calendar (the day clamped to the month's length), then usecs
 * (the interval's days times a day, plus its time).  Infinite timestamps
 * are returned unchanged.
 */
GDB_HOSTDEV int
gdb_ts_add_interval(int64_t ts, int64_t months, int64_t usecs, int64_t *out)
{
	int64_t		r = ts;

	if (ts == GDB_TS_NOBEGIN || ts == GDB_TS_NOEND)
	{
		*out = ts;
		return GDB_OK;
	}
	if (months != 0)
	{
		int64_t		days = gdb_floor_div(ts, GDB_USECS_PER_DAY);
		int64_t		time = ts - days * GDB_USECS_PER_DAY;
		int64_t		y,
					m,
					d,
					mon;
		int			dim;

		gdb_civil_from_days(days, &y, &m, &d);
		mon = y * 12 + (m - 1) + months;
		y = gdb_floor_div(mon, 12);
		m = mon - y * 12 + 1;
		dim = gdb_days_in_month(y, m);
		if (d > dim)
			d = dim;
		days = gdb_days_from_civil(y, m, d);
		if (days >= GDB_DATE_TS_END || days < GDB_DATE_MIN)
			return GDB_ERR_TIMESTAMP_RANGE;
		r = days * GDB_USECS_PER_DAY + time;
		if (!gdb_ts_valid(r))
			return GDB_ERR_TIMESTAMP_RANGE;
	}
	if (gdb_add_overflow(r, usecs, &r) || !gdb_ts_valid(r))
		return GDB_ERR_TIMESTAMP_RANGE;
	*out = r;
	return GDB_OK;
}

/* date_trunc(field, ts) of a timestamp (infinite ones unchanged). */
GDB_HOSTDEV int64_t
gdb_ts_trunc(int field, int64_t ts)
{
	int64_t		days,
				y,
				m,
				d;

	if (ts == GDB_TS_NOBEGIN || ts == GDB_TS_NOEND)
		return ts;
	days = gdb_floor_div(ts, GDB_USECS_PER_DAY);
	switch (field)
	{
		case GDB_FIELD_SECOND:
			return gdb_floor_div(ts, INT64_C(1000000)) * INT64_C(1000000);
		case GDB_FIELD_MINUTE:
			return gdb_floor_div(ts, INT64_C(60000000)) * INT64_C(60000000);
		case GDB_FIELD_HOUR:
			return gdb_floor_div(ts, INT64_C(3600000000)) * INT64_C(3600000000);
		case GDB_FIELD_DAY:
			return days * GDB_USECS_PER_DAY;
		case GDB_FIELD_WEEK:
			/* ISO weeks start on Monday; 2000-01-03 was one */
			return (days - gdb_floor_mod(days - 2, 7)) * GDB_USECS_PER_DAY;
		default:
			break;
	}
	gdb_civil_from_days(days, &y, &m, &d);
	if (field == GDB_FIELD_QUARTER)
		m = 3 * ((m - 1) / 3) + 1;
	else if (field == GDB_FIELD_YEAR)
		m = 1;
	return gdb_days_from_civil(y, m, 1) * GDB_USECS_PER_DAY;
}

/*
 * date_part(field, ts) of a finite timestamp as an integer (EPOCH: the
 * microseconds since 1970-01-01; the caller scales them).
 */
GDB_HOSTDEV int64_t
gdb_ts_part(int field, int64_t ts)
{
	int64_t		days = gdb_floor_div(ts, GDB_USECS_PER_DAY);
	int64_t		time = ts - days * GDB_USECS_PER_DAY;
	int64_t		y,
				m,
				d;

	gdb_civil_from_days(days, &y, &m, &d);
	switch (field)
	{
		case GDB_FIELD_YEAR:
			return y > 0 ? y : y - 1;	/* there is no year 0 */
		case GDB_FIELD_QUARTER:
			return (m - 1) / 3 + 1;
		case GDB_FIELD_MONTH:
			return m;
		case GDB_FIELD_DAY:
			return d;
		case GDB_FIELD_HOUR:
			return time / INT64_C(3600000000);
		case GDB_FIELD_MINUTE:
			return (time / INT64_C(60000000)) % 60;
		case GDB_FIELD_DOW:
			return gdb_floor_mod(days + 6, 7);	/* 2000-01-01: Saturday, 6 */
		case GDB_FIELD_ISODOW:
			return gdb_floor_mod(days + 5, 7) + 1;
		case GDB_FIELD_DOY:
			return days - gdb_days_from_civil(y, 1, 1) + 1;
		case GDB_FIELD_EPOCH:
			return ts - GDB_UNIX_EPOCH_DAYS * GDB_USECS_PER_DAY;
		default:
			return 0;
	}
}

/* Fixed-point result check: |v| < 10^18, else the numeric range error. */
GDB_HOSTDEV int
gdb_num_fits(__int128 v, int64_t *out)
{
	if (v >= GDB_NUM_LIMIT || v <= -GDB_NUM_LIMIT)
		return GDB_ERR_FIXED_POINT;
	*out = (int64_t) v;
	return GDB_OK;
}

/*
 * v / 10^k of a fixed-point v with mode 0 round (half away from zero, as
 * numeric's round), 1 trunc, 2 floor, 3 ceil.
 */
GDB_HOSTDEV int64_t
gdb_num_round(int64_t v, int k, int mode)
{
	int64_t		p = gdb_pow10(k);
	int64_t		q = v / p;
	int64_t		r = v % p;

	if (r == 0)
		return q;
	switch (mode)
	{
		case 0:
			if ((r < 0 ? -r : r) * 2 >= p)
				q += v < 0 ? -1 : 1;
			break;
		case 2:
			if (v < 0)
				q -= 1;
			break;
		case 3:
			if (v > 0)
				q += 1;
			break;
		default:
			break;
	}
	return q;
}

/*
 * gdb_vm_step_value: the value opcodes of computed columns (see
 * gdb_vm_step for the arguments).  Returns GDB_ERR_BAD_REQUEST for an
 * opcode that is none of them.
 */
GDB_HOSTDEV int
gdb_vm_step_value(int op, const GdbInstr *in, GdbValue *x, GdbValue *y)
{
	int			st = GDB_OK;

	switch (op)
	{
		case GDB_OP_REPLACE:
			*y = *x;
			break;
		case GDB_OP_INT_ABS:
			if (!x->isnull && x->v.i < 0)
				st = gdb_int_arith(GDB_OP_INT_SUB, 0, x->v.i, in->width, &x->v.i);
			break;
		case GDB_OP_FLT_ABS:
			x->v.f = fabs(x->v.f);
			break;
		case GDB_OP_INT_GREATEST:
		case GDB_OP_INT_LEAST:
		case GDB_OP_FLT_GREATEST:
		case GDB_OP_FLT_LEAST:
			if (x->isnull)
				break;
			if (y->isnull)
				*y = *x;
			else
			{
				int			c = (op == GDB_OP_INT_GREATEST || op == GDB_OP_INT_LEAST) ?
					gdb_int_cmp(x->v.i, y->v.i) : gdb_float_cmp(x->v.f, y->v.f);

				if ((op == GDB_OP_INT_GREATEST || op == GDB_OP_FLT_GREATEST) ? c > 0 : c < 0)
					*y = *x;
			}
			break;
		case GDB_OP_INT_NULLIF:
		case GDB_OP_FLT_NULLIF:
			if (!y->isnull && !x->isnull &&
				(op == GDB_OP_INT_NULLIF ? y->v.i == x->v.i :
				 gdb_float_cmp(y->v.f, x->v.f) == 0))
			{
				y->isnull = 1;
				y->v.i = 0;
			}
			break;
		case GDB_OP_FLT_TO_INT:
			if (!x->isnull)
			{
				double		r = rint(x->v.f);

				if (isnan(r) || !(r >= -9223372036854775808.0 && r < 9223372036854775808.0) ||
					!gdb_int_fits((int64_t) r, in->width))
					st = gdb_int_range_status(in->width);
				else
					x->v.i = (int64_t) r;
			}
			break;
		case GDB_OP_FLT_ROUND:
			x->v.f = in->width == 0 ? rint(x->v.f) : in->width == 1 ? trunc(x->v.f) :
				in->width == 2 ? floor(x->v.f) : ceil(x->v.f);
			break;
		case GDB_OP_NUM_ADD:
		case GDB_OP_NUM_SUB:
		case GDB_OP_NUM_MUL:
			if (!(y->isnull || x->isnull))
			{
				if (y->v.i == GDB_NUM_NAN || x->v.i == GDB_NUM_NAN)
					y->v.i = GDB_NUM_NAN;
				else
					st = gdb_num_fits(op == GDB_OP_NUM_ADD ? (__int128) y->v.i + x->v.i :
									  op == GDB_OP_NUM_SUB ? (__int128) y->v.i - x->v.i :
									  (__int128) y->v.i * x->v.i, &y->v.i);
			}
			y->isnull |= x->isnull;
			break;
		case GDB_OP_NUM_NEG:
			if (x->v.i != GDB_NUM_NAN)
				x->v.i = -x->v.i;
			break;
		case GDB_OP_NUM_ABS:
			if (x->v.i != GDB_NUM_NAN && x->v.i < 0)
				x->v.i = -x->v.i;
			break;
		case GDB_OP_NUM_RESCALE:
			if (!x->isnull && x->v.i != GDB_NUM_NAN)
			{
				__int128	r = (__int128) x->v.i * gdb_pow10((int) in->ival);

				/* width 1 (a comparison's operand): saturate, keeping the order */
				if (in->width == 1)
					x->v.i = r > GDB_NUM_NAN - 1 ? GDB_NUM_NAN - 1 :
						r < -(GDB_NUM_NAN - 1) ? -(GDB_NUM_NAN - 1) : (int64_t) r;
				else
					st = gdb_num_fits(r, &x->v.i);
			}
			break;
		case GDB_OP_NUM_ROUND:
			if (!x->isnull && x->v.i != GDB_NUM_NAN)
				x->v.i = gdb_num_round(x->v.i, (int) in->ival, in->width);
			break;
		case GDB_OP_NUM_CHECK:
			if (!x->isnull && x->v.i != GDB_NUM_NAN &&
				(x->v.i >= in->ival || x->v.i <= -in->ival))
				st = GDB_ERR_NUMERIC_FIELD;
			break;
		case GDB_OP_NUM_TO_FLT:
			if (x->v.i == GDB_NUM_NAN)
				x->v.f = NAN;
			else if (in->width == 4)
				x->v.f = (double) (float) ((double) x->v.i / (double) gdb_pow10((int) in->ival));
			else
				x->v.f = (double) x->v.i / (double) gdb_pow10((int) in->ival);
			break;
		case GDB_OP_NUM_TO_INT:
			if (x->isnull)
				break;
			if (x->v.i == GDB_NUM_NAN)
				st = in->width == 2 ? GDB_ERR_NAN_TO_SMALLINT :
					in->width == 4 ? GDB_ERR_NAN_TO_INT : GDB_ERR_NAN_TO_BIGINT;
			else
			{
				int64_t		r = gdb_num_round(x->v.i, (int) in->ival, 0);

				if (!gdb_int_fits(r, in->width))
					st = gdb_int_range_status(in->width);
				else
					x->v.i = r;
			}
			break;
		case GDB_OP_DATE_TO_TS:
			if (x->isnull)
				break;
			if (x->v.i == GDB_DATE_NOBEGIN)
				x->v.i = GDB_TS_NOBEGIN;
			else if (x->v.i == GDB_DATE_NOEND)
				x->v.i = GDB_TS_NOEND;
			else if (x->v.i >= GDB_DATE_TS_END)
			{
				/* past every finite timestamp, below infinity */
				if (in->width == 1)
					st = GDB_ERR_DATE_TS_RANGE;
				else
					x->v.i = GDB_TS_NOEND - 1;
			}
			else
				x->v.i *= GDB_USECS_PER_DAY;
			break;
		case GDB_OP_TS_TO_DATE:
			if (x->isnull)
				break;
			if (x->v.i == GDB_TS_NOBEGIN)
				x->v.i = GDB_DATE_NOBEGIN;
			else if (x->v.i == GDB_TS_NOEND)
				x->v.i = GDB_DATE_NOEND;
			else
				x->v.i = gdb_floor_div(x->v.i, GDB_USECS_PER_DAY);
			break;
		case GDB_OP_TS_ADD_INTERVAL:
			if (!x->isnull)
				st = gdb_ts_add_interval(x->v.i, in->arg, in->ival, &x->v.i);
			break;
		case GDB_OP_DATE_ADD_DAYS:
			if (!(y->isnull || x->isnull) &&
				y->v.i != GDB_DATE_NOBEGIN && y->v.i != GDB_DATE_NOEND)
			{
				int64_t		r = in->width == 1 ? y->v.i - x->v.i : y->v.i + x->v.i;

				if (r < GDB_DATE_MIN || r >= GDB_DATE_END)
					st = GDB_ERR_DATE_RANGE;
				else
					y->v.i = r;
			}
			y->isnull |= x->isnull;
			break;
		case GDB_OP_DATE_DIFF:
			if (!(y->isnull || x->isnull))
			{
				if (y->v.i == GDB_DATE_NOBEGIN || y->v.i == GDB_DATE_NOEND ||
					x->v.i == GDB_DATE_NOBEGIN || x->v.i == GDB_DATE_NOEND)
					st = GDB_ERR_INFINITE_DATES;
				else
					y->v.i = y->v.i - x->v.i;
			}
			y->isnull |= x->isnull;
			break;
		case GDB_OP_TS_TRUNC:
			if (!x->isnull)
				x->v.i = gdb_ts_trunc(in->arg, x->v.i);
			break;
		case GDB_OP_DATE_PART:
			if (x->isnull)
				break;
			{
				int64_t		ts = x->v.i;
				int			from_date = in->width & 1;
				int			infinite = from_date ?
					(ts == GDB_DATE_NOBEGIN || ts == GDB_DATE_NOEND) :
					(ts == GDB_TS_NOBEGIN || ts == GDB_TS_NOEND);

				if (infinite)
				{
					/* year and epoch are +-Infinity, other fields NULL */
					if (in->arg == GDB_FIELD_YEAR || in->arg == GDB_FIELD_EPOCH)
					{
						if (in->width & 2)
							x->v.f = (ts == GDB_TS_NOEND || ts == GDB_DATE_NOEND) ?
								INFINITY : -INFINITY;
						else
							st = GDB_ERR_FIXED_POINT;
					}
					else
					{
						x->isnull = 1;
						x->v.i = 0;
					}
					break;
				}
				if (from_date)
					ts *= GDB_USECS_PER_DAY;
				x->v.i = gdb_ts_part(in->arg, ts);
				if (from_date && in->arg == GDB_FIELD_EPOCH)
					x->v.i /= INT64_C(1000000);
				if (in->width & 2)
					x->v.f = (in->arg == GDB_FIELD_EPOCH && !from_date) ?
						(double) x->v.i / 1000000.0 : (double) x->v.i;
			}
			break;
		default:
			st = GDB_ERR_BAD_REQUEST;
			break;
	}
	return st;
}

#endif							/* GPUDB_EXPR_SEMANTICS_H */
