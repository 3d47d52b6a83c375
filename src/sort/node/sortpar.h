/*-------------------------------------------------------------------------
 *
 * sortpar.h
 *	  The GpuSortStore CustomScan (sortpar.c): the parallel intake's node,
 *	  which each participant of a Gather runs to store its share of a
 *	  GpuSort's rows in shared memory.  What the leader reads of them is
 *	  core/sortparread.h's; the node's state is the executor's part (a
 *	  CustomScanState) around the store that the core reads
 *	  (core/sortparstate.h's GsStoreState).
 *
 *-------------------------------------------------------------------------
 */
#ifndef GPUSORT_SORTPAR_H
#define GPUSORT_SORTPAR_H

#include "nodes/execnodes.h"
#include "nodes/extensible.h"

#include "core/sortparread.h"

#define GPUSORT_STORE_NODE_NAME	"GpuSortStore"

extern const CustomScanMethods gpusort_store_plan_methods;

/*
 * The store under gather (a GatherState) for the GpuSort above it, or
 * NULL when gather is not a Gather over a GpuSortStore
 */
extern GsParInput *gs_par_input(PlanState *gather);

#endif							/* GPUSORT_SORTPAR_H */
