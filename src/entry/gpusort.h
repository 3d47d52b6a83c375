/*-------------------------------------------------------------------------
 *
 * gpusort.h
 *	  The module's map: its two halves and where their settings live.
 *
 * gpusort has two halves: the GpuSort plan node (planner.c, sortnode.c,
 * sortkey.c, engine*.c) and the tree_reduce aggregate (tree_reduce.c and the
 * pure-C algorithm files it calls).  Both pick an engine through
 * gpusort.device; everything that touches CUDA sits behind
 * kernels/gpusort_kernels.h.
 *
 * The module entry (gpusort.c) calls each part's initialization, declared
 * in the part's own header (planner.h, treereduce.h, blockpool.h, ...).
 * The settings that both halves read live apart, in settings.c; the parts
 * include settings.h, so that none calls or includes back into the entry.
 *
 *-------------------------------------------------------------------------
 */
#ifndef GPUSORT_H
#define GPUSORT_H

#include "runtime/settings.h"

#endif							/* GPUSORT_H */
