/*-------------------------------------------------------------------------
 *
 * sortpar.h
 *	  The GpuSortStore CustomScan (sortpar.c): the parallel intake's node,
 *	  which each participant of a Gather runs to store its share of a
 *	  GpuSort's rows in shared memory.  What the leader reads of them is
 *	  core/sortparread.h's.
 *
 *-------------------------------------------------------------------------
 */
#ifndef GPUSORT_SORTPAR_H
#define GPUSORT_SORTPAR_H

#include "nodes/extensible.h"

#include "core/sortparread.h"

extern const CustomScanMethods gpusort_store_plan_methods;

#endif							/* GPUSORT_SORTPAR_H */
