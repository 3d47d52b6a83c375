/*-------------------------------------------------------------------------
 *
 * engine_stats.h
 *	  What the sort engines share below engine.h's interface: the widest
 *	  key, and the figures of one sort that EXPLAIN ANALYZE shows.
 *
 * engine.c chooses and calls the engines; the engines include this, not
 * engine.h, so that no engine depends back on the file that calls it.
 *
 *-------------------------------------------------------------------------
 */
#ifndef GPUSORT_ENGINE_STATS_H
#define GPUSORT_ENGINE_STATS_H

#include "keys/keywidth.h"		/* GS_MAX_KEY_WORDS */

/* What EXPLAIN ANALYZE shows about one sort */
typedef struct GsSortStats
{
	const char *engine;			/* "cpu radix", "gpu partition-merge" */
	char		fallback[128];	/* why the GPU was not used, or "" */
	uint64		npairs;
	int			key_bytes;
	int			nbuckets;		/* GPU: buckets of the partition step */
	uint64		bytes_h2d;
	uint64		bytes_d2h;
	double		ms_h2d;			/* copies not hidden behind key building */
	double		ms_sort;
	double		ms_d2h;
	Size		host_bytes;		/* host memory for keys and rows */
} GsSortStats;

#endif							/* GPUSORT_ENGINE_STATS_H */
