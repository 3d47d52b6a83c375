/*-------------------------------------------------------------------------
 *
 * winagg.h
 *	  An aggregate's running state and its steps, as the window functions'
 *	  passes take rows into it and put its value out (windowfuncs.c), and as
 *	  GpuAgg's grouping on threads does over a group's rows (wingroups.c).
 *
 * The steps are float.c's, int8.c's and numeric.c's transitions over the
 * arrays gs_win_boundaries reads (windowfuncs.c's header says how their
 * values match WindowAgg's).  Static inline: every pass inlines them into
 * its loop over rows.
 *
 *-------------------------------------------------------------------------
 */
#ifndef GPUSORT_WINAGG_H
#define GPUSORT_WINAGG_H

#include <math.h>

#include "wintypes.h"
#include "winexpr.h"
#include "winnumeric.h"

/* PostgreSQL's float comparisons: NaN is greater than every other value */
static inline bool
float_lt(double a, double b)
{
	return !isnan(a) && (isnan(b) || a < b);
}

static inline bool
float_gt(double a, double b)
{
	return !isnan(b) && (isnan(a) || a > b);
}

/* an aggregate's running state */
typedef struct WinAggState
{
	int64		rows;			/* rows taken, NULLs included */
	int64		count;			/* non-NULL inputs taken */
	int64		isum;
#ifdef HAVE_INT128
	int128		wide;			/* int8 sums; numeric sums at nscale */
	int128		wide2;			/* integer statistics: the sum of squares */
#endif
	double		fval;			/* float sum (Sx), min or max */
	double		sxx;			/* float8_accum's Sxx */
	int64		ival;			/* integer min or max; numeric's row */
	int16		nscale;			/* numeric sum: the largest scale taken, the
								 * scale of wide */
	int32	   *nscales;		/* frames that slide: finite numerics in the
								 * frame by display scale [0, 38], or NULL */
	int64		nan,			/* numeric NaN, +Infinity, -Infinity taken */
				pinf,
				ninf;
	bool		wide_fail;		/* the failure is a numeric too wide here */
} WinAggState;

#ifdef HAVE_INT128

/* a numeric's order among kinds: -Infinity, finite, +Infinity, NaN */
static inline int
numeric_kind_order(int16 scale)
{
	return scale >= 0 ? 0 : scale == GSW_NUM_NINF ? -1 :
		scale == GSW_NUM_PINF ? 1 : 2;
}

/*
 * cmp_numerics of rows a and b's numerics (NaN above everything and equal
 * to itself, the infinities equal to themselves): -1, 0 or 1; 2 when the
 * values do not fit a common scale
 */
static inline int
numeric_cmp_rows(const GsWinFunc *f, uint64 a, uint64 b)
{
	int16		sa = f->argscale[a],
				sb = f->argscale[b];
	int128		va = f->argw[a],
				vb = f->argw[b];
	int			ka = numeric_kind_order(sa),
				kb = numeric_kind_order(sb);

	if (ka != kb)
		return ka < kb ? -1 : 1;
	if (ka != 0)
		return 0;
	if (sa < sb && __builtin_mul_overflow(va, pow10_128(sb - sa), &va))
		return 2;
	if (sb < sa && __builtin_mul_overflow(vb, pow10_128(sa - sb), &vb))
		return 2;
	return va < vb ? -1 : va > vb ? 1 : 0;
}

/*
 * Takes row r's numeric into the state: a sum, as numeric.c's accumulator
 * (NaN and the infinities counted apart, finite values added exactly at the
 * largest display scale taken, which is the result's), or the row whose
 * value numeric_smaller or numeric_larger keeps (the new one on ties).
 * False when the threads cannot (s->wide_fail).
 */
static inline bool
agg_take_numeric(GsWinFunc *f, WinAggState *s, uint64 r)
{
	int16		sc = f->argscale[r];
	int128		v = f->argw[r];

	s->wide_fail = true;
	if (sc == GSW_NUM_WIDE || sc == GSW_NUM_UNREAD)
		return false;
	if (f->fn == GSW_MIN || f->fn == GSW_MAX)
	{
		int			c = s->count == 0 ? 0 : numeric_cmp_rows(f, (uint64) s->ival, r);

		if (c == 2)
			return false;
		if (s->count == 0 || (f->fn == GSW_MIN ? c >= 0 : c <= 0))
			s->ival = (int64) r;
	}
	else if (sc == GSW_NUM_NAN)
		s->nan++;
	else if (sc == GSW_NUM_PINF)
		s->pinf++;
	else if (sc == GSW_NUM_NINF)
		s->ninf++;
	else
	{
		if (sc > s->nscale)
		{
			if (__builtin_mul_overflow(s->wide, pow10_128(sc - s->nscale), &s->wide))
				return false;
			s->nscale = sc;
		}
		else if (sc < s->nscale &&
				 __builtin_mul_overflow(v, pow10_128(s->nscale - sc), &v))
			return false;
		if (__builtin_add_overflow(s->wide, v, &s->wide))
			return false;
		if (s->nscales)
			s->nscales[sc]++;
	}
	s->wide_fail = false;
	return true;
}
#endif

/*
 * float8_accum's step (float4_accum's, the float4 widened first): the
 * Youngs-Cramer update of N (count), Sx (fval) and Sxx, with its overflow
 * check; false on an overflow.  Compiled without contracting a multiply
 * and an add into one (the Makefile's -ffp-contract=off), as float.c.
 */
static inline bool
youngs_cramer(WinAggState *s, double newval)
{
	double		n0 = (double) s->count;
	double		n = n0 + 1.0;
	double		sx = s->fval + newval;
	double		sxx = s->sxx;

	if (n0 > 0.0)
	{
		double		tmp = newval * n - sx;

		sxx += tmp * tmp / (n * n0);
		if (isinf(sx) || isinf(sxx))
		{
			if (!isinf(s->fval) && !isinf(newval))
				return false;
			sxx = NAN;
		}
	}
	else if (isnan(newval) || isinf(newval))
		sxx = NAN;
	s->fval = sx;
	s->sxx = sxx;
	return true;
}

/* float8_avg, float8_var_pop and the rest: the result of the state */
static inline void
float_statistic_put(GsWinFunc *f, const WinAggState *s, uint64 r)
{
	double		n = (double) s->count;

	f->isnull[r] = (f->fn == GSW_VAR_SAMP || f->fn == GSW_STDDEV_SAMP) ?
		n <= 1.0 : n == 0.0;
	if (f->isnull[r])
		return;
	switch (f->fn)
	{
		case GSW_AVG:
			f->f8[r] = s->fval / n;
			break;
		case GSW_VAR_POP:
			f->f8[r] = s->sxx / n;
			break;
		case GSW_VAR_SAMP:
			f->f8[r] = s->sxx / (n - 1.0);
			break;
		case GSW_STDDEV_POP:
			f->f8[r] = sqrt(s->sxx / n);
			break;
		default:
			f->f8[r] = sqrt(s->sxx / (n - 1.0));
			break;
	}
}

/*
 * takes row r into the state; false when evaluating it fails: an argument
 * that raised an error, an overflowing transition, or (wide_fail) a numeric
 * the threads cannot compute with
 */
static inline bool
agg_take(GsWinFunc *f, WinAggState *s, uint64 r)
{
	if (f->skip && f->skip[r])
		return true;
	if (f->argerr && f->argerr[r])
		return false;
	s->rows++;
	if (f->fn == GSW_COUNT_STAR || f->argnull[r])
		return true;
	switch (f->arg)
	{
#ifdef HAVE_INT128
		case GSW_ARG_NUMERIC:
			if (!agg_take_numeric(f, s, r))
				return false;
			break;
#endif
		case GSW_ARG_INT:
			{
				int64		v = f->argi[r];

				if (f->fn == GSW_MIN)
					s->ival = (s->count == 0 || v < s->ival) ? v : s->ival;
				else if (f->fn == GSW_MAX)
					s->ival = (s->count == 0 || v > s->ival) ? v : s->ival;
#ifdef HAVE_INT128
				else if (GSW_INT_STATISTIC(f))
				{
					/* int8's squares reach 2^126: their sum may not fit */
					s->wide_fail = true;
					if (__builtin_add_overflow(s->wide2, (int128) v * v, &s->wide2))
						return false;
					s->wide_fail = false;
					s->wide += v;
				}
				else if (f->argtype == INT8OID)
					s->wide += v;
#endif
				else
					s->isum += v;
				break;
			}
		case GSW_ARG_FLOAT4:
		case GSW_ARG_FLOAT8:
			{
				double		v = f->argf[r];

				if (f->fn != GSW_SUM && f->fn != GSW_MIN && f->fn != GSW_MAX)
				{
					if (!youngs_cramer(s, v))
						return false;
				}
				else if (s->count == 0)
					s->fval = v;
				else if (f->fn == GSW_MIN)
					s->fval = float_lt(s->fval, v) ? s->fval : v;
				else if (f->fn == GSW_MAX)
					s->fval = float_gt(s->fval, v) ? s->fval : v;
				else if (f->arg == GSW_ARG_FLOAT4)
				{
					/* float4pl, in single precision */
					float4		x = (float4) s->fval,
								y = (float4) v,
								sum = x + y;

					if (isinf(sum) && !isinf(x) && !isinf(y))
						return false;
					s->fval = sum;
				}
				else
				{
					double		sum = s->fval + v;

					if (isinf(sum) && !isinf(s->fval) && !isinf(v))
						return false;
					s->fval = sum;
				}
				break;
			}
		default:
			break;
	}
	s->count++;
	return true;
}

#ifdef HAVE_INT128
/*
 * numeric_stddev_internal over an integer state (numeric_poly_var_pop and
 * the others): N * sumX2 - sumX * sumX exactly (0, scale 0, if not
 * positive), divided by N * N or N * (N - 1) at select_div_scale's scale
 * (gs_win_numeric_div); stddev is its square root, rounded at that scale
 * (sqrt_var, of the rounded variance).  A value past 128 bits sends the
 * window to WindowAgg (too_wide).
 */
static inline void
int_statistic_put(GsWinFunc *f, const WinAggState *s, uint64 r)
{
	bool		samp = f->fn == GSW_VAR_SAMP || f->fn == GSW_STDDEV_SAMP;
	int128		n = s->count,
				num,
				sq,
				v;
	int16		scale;

	f->isnull[r] = samp ? n <= 1 : n == 0;
	if (f->isnull[r])
		return;
	if (__builtin_mul_overflow(n, s->wide2, &num) ||
		__builtin_mul_overflow(s->wide, s->wide, &sq) ||
		__builtin_sub_overflow(num, sq, &num))
		goto too_wide;
	if (num <= 0)
	{
		f->wide[r] = 0;
		f->rscale[r] = 0;
		return;
	}
	if (!gs_win_numeric_div(num, 0, n * (samp ? n - 1 : n), 0, &v, &scale))
		goto too_wide;
	if ((f->fn == GSW_STDDEV_POP || f->fn == GSW_STDDEV_SAMP) &&
		!gs_win_numeric_sqrt(v, scale, &v))
		goto too_wide;
	f->wide[r] = v;
	f->rscale[r] = scale;
	return;
too_wide:
	__atomic_store_n(&f->too_wide, true, __ATOMIC_RELAXED);
	f->isnull[r] = true;
}
#endif

static inline void
agg_put(GsWinFunc *f, const WinAggState *s, uint64 r)
{
	switch (f->fn)
	{
		case GSW_COUNT_STAR:
			f->i64[r] = s->rows;
			return;
		case GSW_COUNT:
			f->i64[r] = s->count;
			return;
		default:
			break;
	}
	if ((f->arg == GSW_ARG_FLOAT4 || f->arg == GSW_ARG_FLOAT8) &&
		f->fn != GSW_SUM && f->fn != GSW_MIN && f->fn != GSW_MAX)
	{
		float_statistic_put(f, s, r);
		return;
	}
#ifdef HAVE_INT128
	if (GSW_INT_STATISTIC(f))
	{
		int_statistic_put(f, s, r);
		return;
	}
#endif
	f->isnull[r] = s->count == 0;
#ifdef HAVE_INT128
	if (f->arg == GSW_ARG_NUMERIC && (f->fn == GSW_MIN || f->fn == GSW_MAX))
		f->i64[r] = s->ival;
	else if (f->arg == GSW_ARG_NUMERIC)
	{
		int16		d = s->nscale;

		/*
		 * the frame's largest display scale (numeric.c's accumulator gives
		 * the sum that one, see numeric_drop): below wide's when the values
		 * of larger scales have left, which then divides exactly
		 */
		if (s->nscales)
			while (d > 0 && s->nscales[d] == 0)
				d--;
		f->wide[r] = d == s->nscale ? s->wide : s->wide / pow10_128(s->nscale - d);
		f->rscale[r] = s->nan > 0 || (s->pinf > 0 && s->ninf > 0) ? GSW_NUM_NAN :
			s->pinf > 0 ? GSW_NUM_PINF : s->ninf > 0 ? GSW_NUM_NINF : d;
		if (f->cnt)
			f->cnt[r] = s->count - s->nan - s->pinf - s->ninf;
		return;
	}
	else
#endif
	if (f->arg != GSW_ARG_INT)
		f->f8[r] = s->fval;
#ifdef HAVE_INT128
	else if (f->wide)
		f->wide[r] = s->wide;
#endif
	else
		f->i64[r] = (f->fn == GSW_MIN || f->fn == GSW_MAX) ? s->ival : s->isum;
	if (f->cnt)
		f->cnt[r] = s->count;
}

#endif							/* GPUSORT_WINAGG_H */
