/*-------------------------------------------------------------------------
 *
 * aggfuncs.h
 *	  The aggregates GpuAgg computes itself, over rows already sorted by
 *	  the group columns and then by the aggregates' one sorted column
 *	  (src/sort/agg/aggfuncs.c).
 *
 * Each aggregate that sorts in stock PostgreSQL (DISTINCT, an ordered-set
 * aggregate's WITHIN GROUP, an ORDER BY in its arguments) sorts its
 * group's values in a tuplesort of its own.  Under a GpuAgg every row is sorted once, by
 * (group columns, sorted column): a group is then a run of rows, and its
 * values of the sorted column a sorted sub-run.  gs_agg_compute fills each
 * aggregate's per-group results from those runs, groups shared out among
 * threads; gs_agg_datum turns group g's result into the Datum the Agg
 * would have returned.  The aggregates that do not sort (sum, avg, min,
 * max, variance and stddev of a column) are GpuWindow's over the group as
 * one partition (gs_agg_compute_windows), so a GpuAgg also takes a sorted
 * GROUP BY whose aggregates do not sort at all: grouping on threads.
 *
 *-------------------------------------------------------------------------
 */
#ifndef GPUSORT_AGGFUNCS_H
#define GPUSORT_AGGFUNCS_H

#include "executor/tuptable.h"
#include "nodes/primnodes.h"
#include "utils/array.h"

#include "window/windowfuncs.h"

/* what an aggregate computes */
typedef enum GsAggFn
{
	GSA_COUNT_STAR,				/* count(*) */
	GSA_COUNT,					/* count(x) */
	GSA_COUNT_DISTINCT,			/* count(DISTINCT x) */
	GSA_SUM_DISTINCT,			/* sum(DISTINCT x), x int2, int4, int8 */
	GSA_AVG_DISTINCT,			/* avg(DISTINCT x), the same */
	GSA_PERCENTILE_DISC,		/* percentile_disc(f) WITHIN GROUP (ORDER BY x) */
	GSA_PERCENTILE_CONT,		/* percentile_cont(f) ... (ORDER BY float8) */
	GSA_MODE,					/* mode() WITHIN GROUP (ORDER BY x) */
	GSA_STRING_AGG,				/* string_agg(x, 'constant' ORDER BY y) */
	GSA_ARRAY_AGG,				/* array_agg(x ORDER BY y) */
	GSA_WINDOW					/* sum, avg, min, max, variance or stddev of
								 * a column: GpuWindow's aggregate (w.fn) over
								 * the group as one partition */
} GsAggFn;

/*
 * The one column the aggregates of a GpuAgg sort by (after the group
 * columns): every aggregate that sorts must name the same one.
 */
typedef struct GsAggSortCol
{
	AttrNumber	attno;			/* the input column */
	Oid			sortop;			/* its < or > operator */
	Oid			eqop;			/* its equality, for DISTINCT and mode */
	Oid			collation;
	bool		nulls_first;
} GsAggSortCol;

typedef struct GsAggFunc
{
	/* from the plan (gs_agg_func_from_aggref) */
	GsAggFn		fn;
	bool		multi;			/* the percentile argument is an array */
	AttrNumber	argattno;		/* the input column read, or 0 */
	Oid			argtype;		/* that column's type */
	Oid			restype;		/* the aggregate's result type */
	Expr	   *fraction;		/* a percentile's direct argument */
	Datum		delim;			/* string_agg's delimiter (a Const) */
	bool		delim_null;
	const char *name;			/* GSA_WINDOW: the aggregate's, for EXPLAIN */

	/* the fractions, evaluated once per run by the caller */
	int			nfrac;			/* 1 for the scalar form */
	double	   *frac;			/* [nfrac] */
	bool	   *frac_null;		/* [nfrac] */
	bool		all_null;		/* the argument itself is NULL */
	int			frac_ndim;		/* the array's shape, for the result */
	int			frac_dims[MAXDIM];
	int			frac_lbs[MAXDIM];

	/* the argument's values (read by gs_win_boundaries) */
	GsWinFunc	w;

	/* results of groups [0, ngroups) (x nfrac), in the caller's memory */
	int64	   *i64;			/* counts; a row number for disc and mode */
#ifdef HAVE_INT128
	int128	   *sum;			/* sum and avg DISTINCT */
#endif
	double	   *f8;				/* percentile_cont */
	bool	   *isnull;
	uint64	   *nvalues;		/* [ngroups]: the group's non-NULL values */
	const uint64 *starts;		/* [ngroups + 1]: each group's first row */
	uint64		nrows;			/* starts[ngroups]: the rows of all groups */
} GsAggFunc;

/*
 * Whether an Aggref of an Agg (its arguments OUTER_VAR Vars of the Agg's
 * input) is computed here; if so fills f and, for an aggregate that sorts,
 * *sort (with *sorts = true).  why says why not.
 */
extern bool gs_agg_func_from_aggref(Aggref *aggref, GsAggFunc *f,
									GsAggSortCol *sort, bool *sorts,
									const char **why);

/*
 * Whether f reads the runs of equal values of the sorted column (mode,
 * the DISTINCT forms): only then must gs_win_boundaries compare that
 * column (GSW_NEW_PEERS); the percentiles and the ordered string_agg and
 * array_agg take rows by position.
 */
extern bool gs_agg_reads_peers(const GsAggFunc *f);

/*
 * Evaluates f's fraction argument value (a float8 or float8[] Datum) into
 * f->frac, in the current memory context.
 */
extern void gs_agg_set_fraction(GsAggFunc *f, Datum value, bool isnull);

/*
 * The group starts of the sorted rows' flags (gs_win_boundaries'
 * GSW_NEW_PARTITION): fills *starts with ngroups + 1 entries, the last n
 * (palloc'd in the current memory context); returns ngroups.  A plain
 * aggregate (no group columns) is one group even over no rows.
 */
extern uint64 gs_agg_groups(const uint8 *flags, uint64 n, bool plain,
							uint64 **starts, int nthreads);

/* Bytes of the per-group results of f for ngroups groups */
extern Size gs_agg_result_bytes(const GsAggFunc *f, uint64 ngroups);

/* Bytes of f's argument over nrows rows, as gs_win_boundaries reads it */
extern Size gs_agg_row_bytes(const GsAggFunc *f, uint64 nrows);

/*
 * Fills every aggregate's per-group results (allocated here, in the
 * current memory context), groups shared out among nthreads threads.
 */
extern void gs_agg_compute(const uint8 *flags, const uint64 *starts,
						   uint64 ngroups, GsAggFunc *funcs, int nfuncs,
						   int nthreads);

/*
 * Fills the results of the GSA_WINDOW aggregates, one a group, on threads
 * (gs_win_compute_groups).  Returns NULL, or why the Agg must compute them
 * instead: a numeric past 128 bits, or an overflow the Agg raises.
 */
extern const char *gs_agg_compute_windows(const uint64 *starts,
										  uint64 ngroups, GsAggFunc *funcs,
										  int nfuncs, int nthreads);

/*
 * Group g's result of f, as the Agg returns it (in the current memory
 * context): raises the Agg's errors for the group (a fraction outside
 * [0, 1]); row_slot deforms the rows values are taken from.  string_agg
 * and array_agg are built here, from the group's rows in order.
 */
extern Datum gs_agg_datum(GsAggFunc *f, uint64 g, MinimalTuple *rows,
						  TupleTableSlot *row_slot, bool *isnull);

/* the aggregate's name, for EXPLAIN */
extern const char *gs_agg_name(const GsAggFunc *f);

#endif							/* GPUSORT_AGGFUNCS_H */
