/*-------------------------------------------------------------------------
 *
 * keywidth.h
 *	  The widest key GpuSort builds, which the key encoders and the engines
 *	  that sort their keys agree on.
 *
 * A key is 1, 2 or GS_MAX_KEY_WORDS 64-bit words (sortkey.c's layout).
 * This header stands apart from sortkey.h so that the engines can include
 * it (engine_stats.h) without the executor's headers that sortkey.h needs.
 *
 *-------------------------------------------------------------------------
 */
#ifndef GPUSORT_KEYWIDTH_H
#define GPUSORT_KEYWIDTH_H

#define GS_MAX_KEY_WORDS	4
#define GS_KEY_MAX_BYTES	(GS_MAX_KEY_WORDS * 8)

#endif							/* GPUSORT_KEYWIDTH_H */
