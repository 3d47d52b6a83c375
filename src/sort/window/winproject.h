/*-------------------------------------------------------------------------
 *
 * winproject.h
 *	  Output expressions of a numeric window result and the row, such as
 *	  amount / sum(amount) OVER w, computed on GpuWindow's threads
 *	  (src/sort/window/winproject.c).
 *
 *-------------------------------------------------------------------------
 */
#ifndef GPUSORT_WINPROJECT_H
#define GPUSORT_WINPROJECT_H

#include "nodes/execnodes.h"
#include "nodes/plannodes.h"

#include "windowfuncs.h"
#include "winexpr.h"

/*
 * The targetlist's expressions the threads compute, in WindowAgg's terms
 * (OUTER_VAR columns, the WindowFuncs of wfuncs): each one a top-level
 * entry; NIL when there is none, or when evaluating them before the rest
 * of the row's projection could change which error a row raises.
 */
extern List *gs_win_derived_find(WindowAgg *wa, List *wfuncs);

/* expr with each of derived replaced by its scan column (INDEX_VAR) */
extern Node *gs_win_derived_retarget(Node *expr, List *derived, int first_resno);

/* one derived expression, at run time */
typedef struct GsWinDerived
{
	struct GsWinExpr *prog;		/* the operand that is not the function */
	int			fidx;			/* the window function's index */
	int			argfidx;		/* a function whose argument arrays hold that
								 * operand, a column (or -1) */
	bool		func_left;		/* the function is the left operand */
	bool		nullif_zero;	/* it is nullif(function, 0) */
	int16		round_scale;	/* round(e, s) or numeric(p, s) around the
								 * operation: s; else -1 */
	int16		round_precision;	/* numeric(p, s): p; else 0 */
	bool		has_fill;		/* coalesce(e, fill) around it */
	Datum		fill;
	Oid			opfunc;			/* numeric_div, _mul, _add or _sub */
	ExprState  *backend;		/* the expression over the scan tuple */

	/* [n]: 0 the backend evaluates the row, 1 NULL (fill, under coalesce), 2 bytes */
	uint8	   *state;
	char	   *bytes;			/* [n * GSW_NUM_ENCODED_MAX] */
} GsWinDerived;

#define GSW_DERIVED_BACKEND	0
#define GSW_DERIVED_NULL	1
#define GSW_DERIVED_BYTES	2

/*
 * Sets up d from the plan's expression expr (WindowAgg's terms), whose
 * backend state is made from scan_expr (retargeted to the scan tuple);
 * funcs: the node's functions, wfuncs'
 */
extern void gs_win_derived_init(GsWinDerived *d, Expr *expr, Expr *scan_expr,
								List *wfuncs, const GsWinFunc *funcs,
								PlanState *parent);

/* bytes of memory per row of a derived expression */
#define GSW_DERIVED_ROW_BYTES	(GSW_NUM_ENCODED_MAX + 1)

/*
 * Computes every derived expression over rows [0, n), on threads, from the
 * functions' results (funcs) and the rows (desc), or the functions'
 * arguments that are still there (argfidx): allocates state and bytes
 */
extern void gs_win_derived_compute(GsWinDerived *ds, int nds, GsWinFunc *funcs,
								   MinimalTuple *rows, uint64 n, TupleDesc desc,
								   int nthreads);

#endif							/* GPUSORT_WINPROJECT_H */
