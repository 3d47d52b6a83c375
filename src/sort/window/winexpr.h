/*-------------------------------------------------------------------------
 *
 * winexpr.h
 *	  An aggregate's argument expression as exact fixed-point arithmetic that
 *	  GpuWindow's threads evaluate (src/sort/window/winexpr.c).
 *
 * gs_win_expr_compile turns an expression of +, -, * and unary minus over
 * integer and numeric columns and constants, with the casts between them,
 * into a program; gs_win_expr_eval runs it on one row's deformed columns,
 * and gives the value PostgreSQL's functions give, or says that the row
 * must be evaluated by PostgreSQL itself (a value that would raise an
 * error there, a NaN or an infinity, a value past 128 bits).
 *
 *-------------------------------------------------------------------------
 */
#ifndef GPUSORT_WINEXPR_H
#define GPUSORT_WINEXPR_H

#include "nodes/primnodes.h"

typedef struct GsWinExpr GsWinExpr;

/* a numeric's bytes as gs_win_numeric_encode makes them: room, and scales */
#define GSW_NUM_ENCODED_MAX		40
#define GSW_NUM_ENCODED_SCALE	32

/* what gs_win_expr_eval found */
typedef enum GsWxResult
{
	GSWX_VALUE,					/* *v, at *scale (integers: scale 0) */
	GSWX_NULL,
	GSWX_BACKEND				/* PostgreSQL must evaluate the row */
} GsWxResult;

/*
 * The program of expr, whose value must be of type restype (int2, int4,
 * int8 or numeric), or NULL when expr is not one (in the backend, at the
 * node's start: it reads the constants)
 */
extern GsWinExpr *gs_win_expr_compile(Expr *expr);

/* the highest input column the program reads */
extern AttrNumber gs_win_expr_maxatt(const GsWinExpr *x);

/* whether the program's value is numeric (else an integer) */
extern bool gs_win_expr_is_numeric(const GsWinExpr *x);

#ifdef HAVE_INT128
/*
 * Evaluates x over a row's deformed columns (values and isnull, indexed by
 * attno - 1).  Reads bytes only, allocates nothing and raises nothing:
 * threads call it.
 */
extern GsWxResult gs_win_expr_eval(const GsWinExpr *x, const Datum *values,
								   const bool *isnull, int128 *v, int16 *scale);

/*
 * The bytes of the numeric v / 10^scale as numeric.c's make_result lays
 * them out (a 4-byte varlena header), into out, which has room for
 * GSW_NUM_ENCODED_MAX; returns their length, or 0 when scale is past
 * GSW_NUM_ENCODED_SCALE.  Threads call it.
 */
extern Size gs_win_numeric_encode(int128 v, int scale, char *out);

/*
 * numeric_div of a / 10^ascale by b / 10^bscale: the quotient rounded half
 * away from zero at select_div_scale's scale (*scale), as div_var gives it;
 * false when b is 0 (numeric_div raises) or the quotient does not fit
 * (scale past GSW_NUM_ENCODED_SCALE, past 128 bits).  Threads call it.
 */
extern bool gs_win_numeric_div(int128 a, int ascale, int128 b, int bscale,
							   int128 *q, int16 *scale);

/*
 * A divisor's leading base-10000 digit and weight (select_div_scale's
 * firstdigit2 and weight2), kept for the next division by the same value
 * (a share's sum, the same for a whole partition); valid false at first
 */
typedef struct GsWinDivisor
{
	bool		valid;
	int			scale;
	int128		v;
	int			weight;
	int			first;
} GsWinDivisor;

/* gs_win_numeric_div, with b's leading digit from div when it is b's */
extern bool gs_win_numeric_div_by(int128 a, int ascale, int128 b, int bscale,
								  GsWinDivisor *div, int128 *q, int16 *scale);

/*
 * numeric_add (numeric_sub when sub) of a / 10^ascale and b / 10^bscale:
 * exact, at the larger scale; false past 128 bits or GSW_NUM_ENCODED_SCALE
 */
extern bool gs_win_numeric_addsub(int128 a, int ascale, int128 b, int bscale,
								  bool sub, int128 *r, int16 *scale);

/*
 * *v / 10^scale rounded half away from zero (round_var), or widened, to
 * to_scale places (0 <= scale, to_scale <= 38), in place: numeric_round's
 * value, and with precision (1 .. 38; 0: none) apply_typmod's; false past
 * 128 bits or past the precision (apply_typmod raises).  Threads call it.
 */
extern bool gs_win_numeric_round(int128 *v, int scale, int to_scale, int precision);

/*
 * sqrt_var of v / 10^scale (v >= 0) at the same scale, rounded half up:
 * *root / 10^scale; false past 128 bits.  Threads call it.
 */
extern bool gs_win_numeric_sqrt(int128 v, int scale, int128 *root);
#endif

/* makes the tables the functions above read (in the backend, first) */
extern void gs_win_expr_prepare(void);

#endif							/* GPUSORT_WINEXPR_H */
