/*-------------------------------------------------------------------------
 *
 * aggnode.h
 *	  The GpuAgg CustomScan's executor (aggnode.c); its plan is aggplan.h's.
 *
 *-------------------------------------------------------------------------
 */
#ifndef GPUSORT_AGGNODE_H
#define GPUSORT_AGGNODE_H

#include "nodes/extensible.h"

#define GPUAGG_NODE_NAME	"GpuAgg"

extern const CustomScanMethods gpuagg_plan_methods;

/* registers the plan methods (at load) */
extern void gs_agg_register(void);

#endif							/* GPUSORT_AGGNODE_H */
