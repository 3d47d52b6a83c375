/*-------------------------------------------------------------------------
 *
 * windowfuncs.h
 *	  The window functions GpuWindow computes itself, over rows already
 *	  sorted by their partition and order columns (src/sort/window/: winplan.c,
 *	  winboundary.c, windowfuncs.c, winframe.c, winresult.c).
 *
 * The rows are the GpuSort's output, an array of MinimalTuples in order.
 * gs_win_boundaries marks where each partition and each peer group starts;
 * gs_win_compute then fills each function's result arrays, partitions
 * shared out among threads; gs_win_datum turns row i's result into the
 * Datum WindowAgg would have returned.  Everything the threads run is
 * plain C over arrays: values that only PostgreSQL's functions can compare
 * (a compressed string, a type without a byte-wise equality) are compared
 * in the backend, before or after the threads.
 *
 *-------------------------------------------------------------------------
 */
#ifndef GPUSORT_WINDOWFUNCS_H
#define GPUSORT_WINDOWFUNCS_H

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

/* Looks up how col's equality operator eqop compares values */
extern void gs_win_col_init(GsWinCol *col, AttrNumber attno, Oid eqop,
							Oid collation);

/*
 * Whether a WindowFunc of a plan can be computed here, and if so fills f
 * (no result arrays yet); why says why not.
 */
extern bool gs_win_func_from_plan(WindowFunc *wfunc, GsWinFunc *f,
								  const char **why);

/* The same for the WindowAgg's frame */
extern bool gs_win_frame_from_plan(WindowAgg *wa, GsWinFrame *frame,
								   const char **why);

/*
 * Fills frame->range_start and range_end (GSW_BOUND_RANGE) for rows [0, n)
 * of partitions flags marks, the order column's values read from rows by
 * slot: WindowAgg's update_frameheadpos and update_frametailpos, which call
 * the in_range functions.  Returns false, the arrays unfinished, when one
 * raised an error (caught: built-in in_range functions hold no resource):
 * the caller lets WindowAgg compute the window, and raise it where it does.
 */
extern bool gs_win_range_bounds(GsWinFrame *frame, WindowAgg *wa,
								MinimalTuple *rows, uint64 n,
								const uint8 *flags, TupleTableSlot *slot);

/* The same for GSW_BOUND_GROUPS, from the peer groups flags marks */
extern void gs_win_group_bounds(GsWinFrame *frame, uint64 n, const uint8 *flags);

/* whether frame's bounds are arrays the node fills (RANGE, GROUPS) */
#define GSW_BOUND_IS_ARRAY(b)	((b) == GSW_BOUND_RANGE || (b) == GSW_BOUND_GROUPS)

/*
 * Whether f is computed over frame's EXCLUDE (or there is none): every
 * function but an aggregate whose argument may raise an error
 */
extern bool gs_win_excludes(const GsWinFunc *f, const GsWinFrame *frame);

/*
 * Whether f's value over frame, which has an EXCLUDE clause, is computed
 * from the frame's rows for every row, as WindowAgg computes it
 * (aggregate_excluding): min, max and the float sums and statistics, whose
 * states cannot take rows out
 */
extern bool gs_win_excludes_afresh(const GsWinFunc *f, const GsWinFrame *frame);

/*
 * Whether f over frame recomputes every row's frame from its moved start
 * (see above), which the plan allows only under GSW_MAX_RESTART_ROWS rows;
 * not those gs_win_excludes_afresh computes
 */
extern bool gs_win_restarts(const GsWinFunc *f, const GsWinFrame *frame);

/* The frame in words, for EXPLAIN (palloc'd) */
extern char *gs_win_frame_describe(const GsWinFrame *frame);

/* Marks partitions and peers in flags[0 .. n) and reads the arguments */
extern void gs_win_boundaries(MinimalTuple *rows, uint64 n, TupleDesc desc,
							  GsWinCol *part, int npart, GsWinCol *ord,
							  int nord, GsWinFunc *funcs, int nfuncs,
							  uint8 *flags, int nthreads);

/* The same, and the RANGE keys into rk (winrange.h) */
extern void gs_win_boundaries_keys(MinimalTuple *rows, uint64 n, TupleDesc desc,
								   GsWinCol *part, int npart, GsWinCol *ord,
								   int nord, GsWinFunc *funcs, int nfuncs,
								   struct GsWinRangeKeys *rk,
								   uint8 *flags, int nthreads);

/*
 * Fills every function's result arrays (allocated here, in the current
 * memory context); returns the number of partitions.  Raises the errors
 * WindowAgg raises before its first row (ntile's and nth_value's bad
 * arguments); an overflow is marked GSW_ERROR in the flags of the row that
 * meets it, for the caller to raise when it returns that row.
 */
extern uint64 gs_win_compute(uint8 *flags, uint64 n, const GsWinFrame *frame,
							 GsWinFunc *funcs, int nfuncs, int nthreads);

/*
 * Fills the result arrays of the aggregates funcs (GSW_SUM .. GSW_STDDEV_SAMP,
 * their arguments read by gs_win_boundaries) with one value a group, at
 * index g for the group of rows [starts[g], starts[g + 1]), groups shared
 * out among threads (wingroups.c).  False when one met a numeric the
 * threads cannot add (too_wide) or an overflow: the Agg must compute them.
 */
extern bool gs_win_compute_groups(const uint64 *starts, uint64 ngroups,
								  GsWinFunc *funcs, int nfuncs, int nthreads);

/*
 * Frees the arguments' arrays gs_win_compute read (not argerr, which
 * gs_win_first_error reads): the derived expressions (winproject.h) may
 * read them after it
 */
extern void gs_win_free_arguments(GsWinFunc *funcs, int nfuncs);

/*
 * Row i's result of f, as WindowAgg returns it (in the current memory
 * context); nav_slot deforms the row lag, lead and the value functions
 * read from.
 */
extern Datum gs_win_datum(GsWinFunc *f, uint64 i, MinimalTuple *rows,
						  TupleTableSlot *nav_slot, bool *isnull);

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

/*
 * Makes the results of the functions GSW_ENCODES_RESULTS says, for rows
 * [0, n), on threads, into arrays of GSW_NUM_ENCODED_MAX bytes a row
 * allocated here: what gs_win_datum then returns without a call of
 * numeric.c a row
 */
extern void gs_win_encode_results(GsWinFunc *funcs, int nfuncs, uint64 n,
								  int nthreads);

/*
 * f's argument expression as a program the threads run (winexpr.h), where
 * the aggregate reads its value as an integer or a numeric (or only as NULL
 * or not, count's) and the program's type is the argument's; else NULL,
 * and the backend evaluates it (GpuWindow, GpuAgg)
 */
struct GsWinExpr;
extern struct GsWinExpr *gs_win_argument_program(GsWinFunc *f);

/* the ereport of a float overflow, as float.c raises it */
extern void gs_win_overflow_error(void);

/*
 * Stores row i's argument value d of f (in the backend, or on a thread for
 * the types a thread can read: a numeric that is toasted is left
 * GSW_NUM_UNREAD for the backend)
 */
extern void gs_win_store_arg(GsWinFunc *f, uint64 i, Datum d, bool isnull);


/*
 * The function whose failure at row r WindowAgg meets first, and the row
 * it fails at: the lowest failing row, then the first function (WindowAgg
 * advances every aggregate over one row before the next).  -1 if none.
 */
extern int	gs_win_first_error(GsWinFunc *funcs, int nfuncs, uint64 r,
							   uint64 *row);

#endif							/* GPUSORT_WINDOWFUNCS_H */
