/*-------------------------------------------------------------------------
 *
 * sortfeed.h
 *	  GpuSortFeed: the input of a node kept as a fallback over a GpuSort
 *	  (src/sort/node/sortfeed.c).
 *
 * GpuWindow and GpuAgg keep the WindowAgg or Agg they replace in their
 * plan, over a GpuSortFeed instead of the GpuSort, and start it only when
 * the sorted rows do not come as an array.  The feed then returns the
 * GpuSort's rows one at a time, as the GpuSort itself would have.
 *
 *-------------------------------------------------------------------------
 */
#ifndef GPUSORT_SORTFEED_H
#define GPUSORT_SORTFEED_H

#include "nodes/execnodes.h"
#include "nodes/plannodes.h"

#define GPUSORT_FEED_NAME	"GpuSortFeed"

/* registers the feed's plan methods; once, at _PG_init */
extern void gs_feed_register(void);

/* a feed returning the rows of the plan gpusort, with its targetlist */
extern Plan *gs_feed_plan(Plan *gpusort);

/*
 * Points the feed under the started fallback at source, the GpuSort's
 * state (which the caller owns: it ends and rescans it)
 */
extern void gs_feed_attach(PlanState *fallback, PlanState *source);

#endif							/* GPUSORT_SORTFEED_H */
