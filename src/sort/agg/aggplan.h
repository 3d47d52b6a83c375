/*-------------------------------------------------------------------------
 *
 * aggplan.h
 *	  The GpuAgg CustomScan's plan: an Agg whose aggregates sort, computed
 *	  from the rows of one GpuSort (aggplan.c builds it, aggnode.c runs it).
 *
 * The plan format is aggnode.h's, whose executor reads it.
 *
 *-------------------------------------------------------------------------
 */
#ifndef GPUSORT_AGGPLAN_H
#define GPUSORT_AGGPLAN_H

#include "nodes/plannodes.h"

/* how gs_agg_plan walks the Agg's input, and numbers nodes it adds */
typedef struct GsAggWalker
{
	/* replaces the Sorts in the tree under plan (planner.c's walk) */
	Plan	   *(*walk) (void *cxt, Plan *plan);
	/* why the walk left a Sort or Gather Merge to stock, or NULL */
	const char *(*sort_why) (void *cxt, const Plan *plan);
	void	   *cxt;
	int		   *next_plan_node_id;
} GsAggWalker;

/*
 * The GpuAgg that stands for agg, or agg itself where the Agg must stay;
 * either way agg's input has been walked by walker.  An Agg whose
 * aggregates sort that stays gets its reason recorded (runtime/notused.h)
 * for EXPLAIN and gpusort_stat.
 */
extern Plan *gs_agg_plan(Agg *agg, const GsAggWalker *walker);

#endif							/* GPUSORT_AGGPLAN_H */
