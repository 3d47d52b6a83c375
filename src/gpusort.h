/*-------------------------------------------------------------------------
 *
 * gpusort.h
 *	  Settings and entry points shared by gpusort's parts.
 *
 * gpusort has two halves: the GpuSort plan node (planner.c, sortnode.c,
 * sortkey.c, engine*.c) and the tree_reduce aggregate (tree_reduce.c and the
 * pure-C algorithm files it calls).  Both pick an engine through
 * gpusort.device; everything that touches CUDA sits behind
 * kernels/gpusort_kernels.h.
 *
 * The settings live in settings.c, apart from the module entry (gpusort.c)
 * that calls every part's initialization, so that the parts, which read
 * them, never call back into the file that calls them.
 *
 *-------------------------------------------------------------------------
 */
#ifndef GPUSORT_H
#define GPUSORT_H

#include "settings.h"

/* planner.c: installs the planner hook and registers the CustomScan methods */
extern void gpusort_planner_init(void);

#endif							/* GPUSORT_H */
