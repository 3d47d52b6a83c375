/*-------------------------------------------------------------------------
 *
 * sortnode.h
 *	  The GpuSort CustomScan: what planner.c builds and sortnode.c runs.
 *
 * A GpuSort plan node stands where a Sort stood (or a Gather Merge over a
 * Sort, see planner.c) and keeps that Sort's Plan header: costs, rows,
 * initPlans and the allParam/extParam sets that make rescans work.  Its
 * input is plan.lefttree (so EXPLAIN and the deparser treat it as the
 * node's outer plan, as they do a Sort's).  Its scan tuple is the input
 * row: custom_scan_tlist holds OUTER_VAR references to every input column
 * and the targetlist INDEX_VAR references to those, so the node returns the
 * input rows unchanged, as a Sort does.  Its sort columns, parallel input
 * and Limit are in custom_private and custom_exprs (core/sortplan.h).  The
 * sort itself is the core's (core/sortcore.h, a GsSort); this node is its
 * executor glue (sortnode.c), and GpuWindow and GpuAgg read its rows as
 * one array (gs_sort_sorted_rows).
 *
 *-------------------------------------------------------------------------
 */
#ifndef GPUSORT_SORTNODE_H
#define GPUSORT_SORTNODE_H

#include "nodes/execnodes.h"
#include "nodes/extensible.h"

#include "base/compat.h"
#include "core/sortcore.h"
#include "core/sortplan.h"

/* A GpuSort's executor state: the node's part; the sort is the core's */
typedef struct GpuSortState
{
	CustomScanState css;
	GsSort	   *sort;			/* the core's state, for the node's life */
	GsSortMode	mode;			/* how it takes its input (sortplan.h) */
	ExprState  *offset_expr;	/* of the Limit above, or NULL */
	ExprState  *count_expr;
} GpuSortState;

extern const CustomScanMethods gpusort_plan_methods;

/*
 * The sorted rows of the GpuSort ps as one array in output order, for a
 * GpuWindow or GpuAgg above it (gs_sort_rows_array); copy as for
 * gs_sort_as_array
 */
extern bool gs_sort_sorted_rows(PlanState *ps, MinimalTuple **rows,
								uint64 *n, bool copy);

/* the node's ExplainCustomScan (sortexplain.c) */
extern void gs_sort_explain(CustomScanState *node, List *ancestors,
							ExplainState *es);

#endif							/* GPUSORT_SORTNODE_H */
