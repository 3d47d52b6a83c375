/*-------------------------------------------------------------------------
 *
 * notused.h
 *	  Why a stock Agg or WindowAgg was not made a GpuAgg or a GpuWindow:
 *	  the reason the planner rewrite found, kept from plan time to EXPLAIN
 *	  time and counted in gpusort_stat (notused.c).
 *
 *-------------------------------------------------------------------------
 */
#ifndef GPUSORT_NOTUSED_H
#define GPUSORT_NOTUSED_H

#include "nodes/plannodes.h"

#include "stat.h"

/* the longest reason kept; longer ones are cut (they name a function) */
#define GS_NOT_USED_REASON_LEN	160

/*
 * Records why plan, an Agg or a WindowAgg the planner rewrite leaves as
 * it is, was not replaced, and counts counter once.  plan must be final:
 * the record is found again by the node's content (and the subtree's).
 */
extern void gs_not_used_record(const Plan *plan, GsStatCounter counter,
							   const char *reason);

/* The reason recorded for a plan of plan's content, or NULL */
extern const char *gs_not_used_reason(const Plan *plan);

/* What EXPLAIN calls the reason of plan's kind of node, or NULL */
extern const char *gs_not_used_label(const Plan *plan);

#endif							/* GPUSORT_NOTUSED_H */
