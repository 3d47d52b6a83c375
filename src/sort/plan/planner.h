/*-------------------------------------------------------------------------
 *
 * planner.h
 *	  GpuSort's planner: what it gives the module entry (gpusort.c).
 *
 *-------------------------------------------------------------------------
 */
#ifndef GPUSORT_PLANNER_H
#define GPUSORT_PLANNER_H

/* Installs the planner hook and registers the CustomScan methods */
extern void gpusort_planner_init(void);

/*
 * explainwhy.c: installs the EXPLAIN hooks that show why an Agg or a
 * WindowAgg stayed stock ("GpuAgg Not Used", "GpuWindow Not Used")
 */
extern void gs_explain_why_init(void);

/* grouppaths.c: installs the hook that prefers sorted grouping */
extern void gs_group_paths_init(void);

#endif							/* GPUSORT_PLANNER_H */
