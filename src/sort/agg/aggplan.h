/*-------------------------------------------------------------------------
 *
 * aggplan.h
 *	  The GpuAgg CustomScan's plan: an Agg whose aggregates sort, computed
 *	  from the rows of one GpuSort (aggplan.c builds it, aggnode.c runs it).
 *
 * A GpuAgg plan node stands where the Agg stood and keeps its Plan header;
 * its input (plan.lefttree) is a GpuSort sorting the Agg's input by the
 * group columns and then by the one column the aggregates sort on.  Its
 * scan tuple is the group's first input row followed by one column per
 * aggregate: custom_scan_tlist holds OUTER_VAR references to every input
 * column, then the Aggrefs (so EXPLAIN VERBOSE names them), and the
 * targetlist and qual (HAVING) are the Agg's with its input columns and
 * Aggrefs turned into INDEX_VAR references to those.
 *
 * custom_private is a List of
 *	   0: the Agg itself, over a GpuSortFeed node that hands it the GpuSort's
 *		  rows: the fallback, run when the rows do not come as an array (the
 *		  sort went to tuplesort) or the results cannot be given memory;
 *		  and the source of the group columns and their equality operators
 *	   1: List of the Aggrefs the node computes, in scan tuple order
 *		  (gs_agg_func_from_aggref reads them again at run time)
 *
 *-------------------------------------------------------------------------
 */
#ifndef GPUSORT_AGGPLAN_H
#define GPUSORT_AGGPLAN_H

#include "nodes/plannodes.h"

#define GSAP_FALLBACK	0
#define GSAP_AGGREFS	1

/* how gs_agg_plan walks the Agg's input, and numbers nodes it adds */
typedef struct GsAggWalker
{
	/* replaces the Sorts in the tree under plan (planner.c's walk) */
	Plan	   *(*walk) (void *cxt, Plan *plan);
	void	   *cxt;
	int		   *next_plan_node_id;
} GsAggWalker;

/*
 * The GpuAgg that stands for agg, or agg itself where the Agg must stay;
 * either way agg's input has been walked by walker.
 */
extern Plan *gs_agg_plan(Agg *agg, const GsAggWalker *walker);

#endif							/* GPUSORT_AGGPLAN_H */
