/*-------------------------------------------------------------------------
 *
 * wintypes.h
 *	  The types the window functions' code shares: a function and its
 *	  argument's and results' arrays (GsWinFunc), a frame, a partition or
 *	  order column, the boundary flags.  Apart from the functions
 *	  (windowfuncs.h) so that the aggregate steps (winagg.h), which
 *	  windowfuncs.c includes, need not include the header of windowfuncs.c.
 *
 *-------------------------------------------------------------------------
 */
#ifndef GPUSORT_WINTYPES_H
#define GPUSORT_WINTYPES_H

#include "executor/tuptable.h"
#include "nodes/execnodes.h"
#include "fmgr.h"
#include "nodes/plannodes.h"
#include "nodes/primnodes.h"

#include "winnumeric.h"

struct GsWinRangeKeys;

/* what a function computes */
typedef enum GsWinFn
{
	GSW_ROW_NUMBER,
	GSW_RANK,
	GSW_DENSE_RANK,
	GSW_PERCENT_RANK,
	GSW_CUME_DIST,
	GSW_NTILE,
	GSW_LAG,
	GSW_LEAD,
	GSW_FIRST_VALUE,
	GSW_LAST_VALUE,
	GSW_NTH_VALUE,
	GSW_COUNT_STAR,
	GSW_COUNT,
	GSW_SUM,
	GSW_AVG,
	GSW_MIN,
	GSW_MAX,
	GSW_VAR_POP,				/* of floats (float8), of integers (numeric) */
	GSW_VAR_SAMP,
	GSW_STDDEV_POP,
	GSW_STDDEV_SAMP
} GsWinFn;

/* where each row's frame starts and ends, within its partition */
typedef enum GsWinBound
{
	GSW_BOUND_PARTITION,		/* start: the partition's first row; end: its last */
	GSW_BOUND_PEERS,			/* end only: the current row's last peer */
	GSW_BOUND_ROW,				/* the current row, moved by an offset */
	GSW_BOUND_RANGE,			/* RANGE offset: range_start, range_end */
	GSW_BOUND_GROUPS			/* the peer group an offset (in groups) from
								 * the current row's: range_start, range_end */
} GsWinBound;

/* the rows an EXCLUDE clause leaves out of the current row's frame */
typedef enum GsWinExclude
{
	GSW_EXCLUDE_NONE,
	GSW_EXCLUDE_CURRENT_ROW,
	GSW_EXCLUDE_GROUP,			/* the current row and its peers */
	GSW_EXCLUDE_TIES			/* its peers, not itself */
} GsWinExclude;

typedef struct GsWinFrame
{
	GsWinBound	start;			/* GSW_BOUND_PARTITION, _ROW or _RANGE */
	GsWinBound	end;
	GsWinExclude exclude;
	int64		start_offset;	/* GSW_BOUND_ROW: rows after the current row, */
	int64		end_offset;		/* GSW_BOUND_GROUPS: peer groups (negative:
								 * before it) */

	/*
	 * GSW_BOUND_RANGE: each row's frame start and end (exclusive), found
	 * by the node with the in_range functions, as WindowAgg finds them
	 * (gs_win_range_bounds); [n]
	 */
	uint32	   *range_start;
	uint32	   *range_end;
} GsWinFrame;

/*
 * Frames whose start moves with the row recompute the aggregates that have
 * no inverse and whose value depends on the order of their inputs (float
 * sums and statistics, numeric sums) over every row's frame, as WindowAgg
 * does: only up to this many rows a frame.  min and max slide (a monotone
 * queue) over frames of any width.
 */
#define GSW_MAX_RESTART_ROWS	1024

/* how an aggregate's argument is read */
typedef enum GsWinArg
{
	GSW_ARG_NONE,
	GSW_ARG_NULLS,				/* count(x): only whether it is NULL */
	GSW_ARG_INT,				/* int2, int4, int8, date, timestamp(tz) */
	GSW_ARG_FLOAT4,
	GSW_ARG_FLOAT8,
	GSW_ARG_NUMERIC,			/* fixed point: argw scaled by 10^argscale */
	GSW_ARG_DATUM				/* the Datum as the row holds it (argd), for
								 * GpuAgg's string_agg and array_agg */
} GsWinArg;

typedef struct GsWinFunc
{
	/* from the plan (gs_win_func_from_plan) */
	GsWinFn		fn;
	GsWinArg	arg;
	AttrNumber	argattno;		/* input column of the first argument, or 0 */
	Oid			argtype;
	Oid			restype;
	int32		param;			/* ntile's buckets, lag/lead's offset, nth */
	bool		param_null;
	bool		has_default;	/* lag/lead's third argument */
	Datum		defval;
	bool		defnull;
	bool		has_filter;		/* an aggregate's FILTER, see skip */
	Expr	   *argexpr;		/* the first argument when not a plain column */
	bool		arg_may_raise;	/* argexpr may raise an error (see argerr) */

	/* an expression argument, evaluated in the backend (set by the node) */
	ExprState  *argstate;
	ExprContext *argcxt;

	/*
	 * the same expression as fixed-point arithmetic the threads evaluate
	 * (winexpr.h), or NULL; set by the node.  argback[i]: row i's value is
	 * left to the backend (GSWX_BACKEND)
	 */
	struct GsWinExpr *prog;
	bool	   *argback;
	uint64		nargback;		/* rows left to the backend, for EXPLAIN */

	/*
	 * numeric sum and avg: the last result made, kept in cachecxt (set by
	 * the node) while the rows that follow have the same (rows of one
	 * frame, peers, a whole partition); valid until the next row's, as
	 * any value a node returns
	 */
	MemoryContext cachecxt;
	bool		has_cached;
	uint64		cached_row;
	Datum		cached;

	/*
	 * numeric sum and avg: each row's result as the numeric's bytes, made on
	 * threads (gs_win_encode_results), GSW_NUM_ENCODED_MAX bytes a row; a
	 * row whose length is 0 is made in the backend.  Or NULL.
	 */
	char	   *resbytes;

	/*
	 * lag, lead and the value functions of a column: the value of the row
	 * each row reads (i64[i] >= 0), read on threads (gs_win_read_values)
	 * as the backend's slot_getattr reads it (a by-reference Datum points
	 * into that row, which outlives the results); or NULL
	 */
	Datum	   *vald;
	bool	   *valnull;

	/* results for rows [0, n), in the caller's memory */
	int64	   *i64;			/* ranks, counts, integer sums, row numbers */
	double	   *f8;				/* fractions, float aggregates */
#ifdef HAVE_INT128
	int128	   *wide;			/* sum and avg of int8 */
#endif
	int64	   *cnt;			/* avg's divisor */
	int16	   *rscale;			/* numeric sum and avg: wide's scale, or GSW_NUM_* */
	bool	   *isnull;
	uint32	   *errrow;			/* [n] or NULL: 1 + the row whose evaluation
								 * failed while computing row r (GSW_ERROR) */

	/* rows whose FILTER is not true, [n], set by the caller; or NULL */
	bool	   *skip;

	/* the argument's values, while computing */
	int64	   *argi;
	double	   *argf;
	Datum	   *argd;			/* GSW_ARG_DATUM: by value, or a pointer into
								 * the row, valid while the rows are */
	bool	   *argnull;
#ifdef HAVE_INT128
	int128	   *argw;			/* numeric, scaled by 10^argscale */
#endif
	int16	   *argscale;		/* numeric: its display scale, or GSW_NUM_* */
	uint32	   *deque;			/* min and max over frames that slide: a
								 * monotone queue of rows, each partition's
								 * within its own rows' range */
	bool	   *argerr;			/* evaluating argexpr raised an error (or NULL) */

	/*
	 * Set (by any thread) when an aggregate took a numeric that the threads
	 * cannot add or compare exactly (GSW_NUM_WIDE, or a rescaling past 128
	 * bits): the WindowAgg must then compute the window
	 */
	bool		too_wide;
} GsWinFunc;

/* how two values of a partition or order column are compared */
typedef enum GsWinEq
{
	GSW_EQ_BYVAL,				/* the Datums themselves */
	GSW_EQ_FLOAT4,				/* float4eq: NaN = NaN, -0 = 0 */
	GSW_EQ_FLOAT8,
	GSW_EQ_BYTES,				/* texteq under a deterministic collation */
	GSW_EQ_BPCHAR,				/* bpchareq: trailing blanks ignored */
	GSW_EQ_FMGR					/* only the operator's function can tell */
} GsWinEq;

typedef struct GsWinCol
{
	AttrNumber	attno;
	GsWinEq		eq;
	Oid			collation;
	FmgrInfo	flinfo;			/* the equality function */
} GsWinCol;

/* flags[i] */
#define GSW_NEW_PARTITION	0x01
#define GSW_NEW_PEERS		0x02
#define GSW_UNSURE			0x04	/* a pair the threads could not compare */
#define GSW_ERROR			0x08	/* evaluating the row overflows */

/*
 * Whether f's results are numerics of wide and rscale, which
 * gs_win_encode_results makes: numeric sum and avg, variance and stddev of
 * integers
 */
#define GSW_INT_STATISTIC(f) \
	((f)->arg == GSW_ARG_INT && (f)->fn >= GSW_VAR_POP)
#define GSW_ENCODES_RESULTS(f) \
	(((f)->arg == GSW_ARG_NUMERIC && ((f)->fn == GSW_SUM || (f)->fn == GSW_AVG)) || \
	 GSW_INT_STATISTIC(f))

#endif							/* GPUSORT_WINTYPES_H */
