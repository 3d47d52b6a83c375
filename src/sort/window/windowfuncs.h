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

#include "wintypes.h"


/* Looks up how col's equality operator eqop compares values */
extern void gs_win_col_init(GsWinCol *col, AttrNumber attno, Oid eqop,
							Oid collation);

/* GSW_LAG or GSW_LEAD for a lag or lead function's OID, else GSW_ROW_NUMBER */
extern GsWinFn gs_win_lag_lead(Oid winfnoid);

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
 * Makes the results of the functions GSW_ENCODES_RESULTS says, for rows
 * [0, n), on threads, into arrays of GSW_NUM_ENCODED_MAX bytes a row
 * allocated here: what gs_win_datum then returns without a call of
 * numeric.c a row
 */
extern void gs_win_encode_results(GsWinFunc *funcs, int nfuncs, uint64 n,
								  int nthreads);

/*
 * Whether f takes another row's column as its value (lag, lead,
 * first_value, last_value, nth_value of a plain column)
 */
#define GSW_READS_VALUES(f) \
	(((f)->fn == GSW_LAG || (f)->fn == GSW_LEAD || (f)->fn == GSW_FIRST_VALUE || \
	  (f)->fn == GSW_LAST_VALUE || (f)->fn == GSW_NTH_VALUE) && \
	 (f)->argexpr == NULL && (f)->argattno > 0)

/*
 * Reads, for rows [0, n) of desc, on threads, the value each function
 * GSW_READS_VALUES says takes from the row it reads, of those want says
 * (into vald and valnull, allocated here): what gs_win_datum then returns
 * without deforming that row in the backend
 */
extern void gs_win_read_values(GsWinFunc *funcs, int nfuncs, const bool *want,
							   MinimalTuple *rows, uint64 n, TupleDesc desc,
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
