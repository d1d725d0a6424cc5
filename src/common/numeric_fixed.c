/*-------------------------------------------------------------------------
 *
 * numeric_fixed.c
 *	  numeric(p,s) columns as exact 64-bit fixed point.
 *
 * A column declared numeric(p,s) with 0 <= s and p <= 18
 * (GDB_NUMERIC_MAX_PRECISION) holds only values v with |v| < 10^(p-s) and
 * at most s digits after the point, stored with display scale s (the
 * typmod is applied on every write).  Such a value is carried in a batch as
 * the int64 v * 10^s, |v * 10^s| < 10^18, so the device compares, groups,
 * sorts, takes min/max and sums (in the exact 128-bit SUM_INT state) these
 * integers exactly as PostgreSQL orders and adds the numerics.  NaN, which
 * numeric(p,s) accepts, is carried as GDB_NUMERIC_NAN (INT64_MAX), above
 * every number, so that NaN equals NaN and sorts last, as in PostgreSQL.
 * Infinity is refused by every numeric typmod, so no column holds it.
 *
 * Conversions go through the text forms of numeric_out and numeric_in
 * (PostgreSQL's own), so nothing here depends on numeric's storage format.
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "catalog/pg_type.h"
#include "fmgr.h"
#include "utils/builtins.h"
#include "utils/numeric.h"

#include "gpudb.h"

/* see gpudb.h */
bool
gdb_numeric_typmod_scale(int32 typmod, int *scale)
{
	int32		tm;
	int			precision;
	int			s;

	/* unconstrained numeric: any scale, any size */
	if (typmod < (int32) VARHDRSZ)
		return false;
	tm = typmod - VARHDRSZ;
	precision = (tm >> 16) & 0xFFFF;
	/* the scale is an 11-bit two's-complement field */
	s = ((tm & 0x7FF) ^ 0x400) - 0x400;
	if (precision < 1 || precision > GDB_NUMERIC_MAX_PRECISION || s < 0)
		return false;
	*scale = s;
	return true;
}

/* see gpudb.h */
bool
gdb_type_supported(Oid typid, int32 typmod)
{
	GdbTypeClass cls = gdb_type_class(typid);
	int			scale;

	if (cls == GDB_TYPE_NUMERIC)
		return gdb_numeric_typmod_scale(typmod, &scale);
	/*
	 * char(n) only: its values are stored blank-padded to n characters, so
	 * equal values (bpchareq ignores trailing blanks) have equal bytes;
	 * unconstrained bpchar values are not padded.
	 */
	if (typid == BPCHAROID)
		return typmod >= (int32) VARHDRSZ;
	return cls != GDB_TYPE_UNSUPPORTED;
}

/* see gpudb.h */
GdbNumericFit
gdb_numeric_to_scaled(Datum value, int scale, int64 *out)
{
	Numeric		num = DatumGetNumeric(value);
	char	   *text;
	const char *p;
	bool		neg = false;
	bool		inexact = false;
	bool		huge = false;
	int			frac = -1;		/* digits seen after the point, -1 before it */
	uint64		mag = 0;
	GdbNumericFit fit;

	*out = 0;
	if (numeric_is_nan(num))
		fit = GDB_NUMFIT_NAN;
	else if (numeric_is_inf(num))
		fit = DatumGetInt32(DirectFunctionCall2(numeric_cmp, NumericGetDatum(num),
												NumericGetDatum(int64_to_numeric(0)))) < 0 ?
			GDB_NUMFIT_BELOW : GDB_NUMFIT_ABOVE;
	else
	{
		/*
		 * numeric_out writes [-]digits[.digits], never an exponent.  The
		 * magnitude is accumulated to scale digits after the point; digits
		 * past them only make the value inexact (truncated toward zero).
		 */
		text = DatumGetCString(DirectFunctionCall1(numeric_out, NumericGetDatum(num)));
		p = text;
		if (*p == '-')
		{
			neg = true;
			p++;
		}
		for (; *p; p++)
		{
			if (*p == '.')
			{
				frac = 0;
				continue;
			}
			if (*p < '0' || *p > '9')
				elog(ERROR, "gpudb: unexpected numeric text \"%s\"", text);
			if (frac >= 0 && frac >= scale)
			{
				if (*p != '0')
					inexact = true;
				continue;
			}
			if (frac >= 0)
				frac++;
			if (!huge)
			{
				if (mag > (PG_UINT64_MAX - 9) / 10)
					huge = true;
				else
					mag = mag * 10 + (uint64) (*p - '0');
			}
		}
		if (frac < 0)
			frac = 0;
		for (; frac < scale && !huge; frac++)
		{
			if (mag > PG_UINT64_MAX / 10)
				huge = true;
			else
				mag *= 10;
		}
		pfree(text);

		/* only magnitudes below 10^18 can be column values */
		if (huge || mag >= UINT64CONST(1000000000000000000))
			fit = neg ? GDB_NUMFIT_BELOW : GDB_NUMFIT_ABOVE;
		else
		{
			/* floor: a negative inexact value rounds away from zero */
			*out = neg ? -(int64) mag - (inexact ? 1 : 0) : (int64) mag;
			fit = inexact ? GDB_NUMFIT_INEXACT : GDB_NUMFIT_EXACT;
		}
	}
	if ((Pointer) num != DatumGetPointer(value))
		pfree(num);
	return fit;
}

/*
 * The decimal text of the signed 128-bit integer hi:lo divided by 10^scale
 * (scale digits after the point) into buf, which must hold 80 bytes;
 * returns the start of the text inside buf.
 */
static char *
scaled_int128_text(int64 hi, int64 lo, int scale, char *buf)
{
	int128		v = (int128) (((uint128) (uint64) hi << 64) | (uint64) lo);
	bool		neg = v < 0;
	uint128		u = neg ? (uint128) 0 - (uint128) v : (uint128) v;
	char	   *p = buf + 79;
	int			n = 0;

	*p = '\0';
	/* at least scale + 1 digits, so that 5 at scale 2 reads 0.05 */
	while (u != 0 || n <= scale)
	{
		if (n == scale && scale > 0)
			*--p = '.';
		*--p = '0' + (int) (u % 10);
		u /= 10;
		n++;
	}
	if (neg)
		*--p = '-';
	return p;
}

/* see gpudb.h */
Datum
gdb_scaled_int128_to_numeric(int64 hi, int64 lo, int scale)
{
	char		buf[80];

	Assert(scale >= 0 && scale <= GDB_NUMERIC_MAX_PRECISION);
	/* an int64: numeric.c's own v / 10^scale, display scale scale */
	if (hi == (lo < 0 ? -1 : 0))
		return NumericGetDatum(int64_div_fast_to_numeric(lo, scale));
	/* numeric_in keeps the written digits after the point as display scale */
	return DirectFunctionCall3(numeric_in,
							   CStringGetDatum(scaled_int128_text(hi, lo, scale, buf)),
							   ObjectIdGetDatum(InvalidOid),
							   Int32GetDatum(-1));
}

/* see gpudb.h */
Datum
gdb_scaled_to_numeric(int64 v, int scale)
{
	if (v == GDB_NUMERIC_NAN)
		return DirectFunctionCall3(numeric_in, CStringGetDatum("NaN"),
								   ObjectIdGetDatum(InvalidOid),
								   Int32GetDatum(-1));
	return gdb_scaled_int128_to_numeric(v < 0 ? -1 : 0, v, scale);
}
