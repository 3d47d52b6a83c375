/*-------------------------------------------------------------------------
 *
 * spillmerge.h
 *	  The d-way merge of a GpuSort's sorted runs through a tree of losers
 *	  (spillmerge.c).
 *
 *	   m = gs_merge_begin(cxt, runs, nruns, cmp, arg);
 *	   while ((run = gs_merge_next(m)) != NULL)
 *		   use run->key, run->tup (valid until the next gs_merge_next)
 *	   gs_merge_rewind(m);		to start over (a rescan)
 *
 * cmp orders the current rows of two runs as the sort does (keys, then
 * PostgreSQL's comparators where the keys do not decide), or is NULL where
 * the keys alone decide (compared inline, losertree.h's gs_key_cmp); rows
 * it calls equal come in run order, so the merge is stable over runs
 * written in input order.
 *
 * Where cmp is NULL and nthreads is above 0, the merge is spillbatch.c's
 * instead: the same rows in the same order, merged in batches by threads
 * (nthreads at most, through read buffers of bufsize bytes a run).
 * gs_merge_stats tells how it went.
 *
 *-------------------------------------------------------------------------
 */
#ifndef GPUSORT_SPILLMERGE_H
#define GPUSORT_SPILLMERGE_H

#include "losertree.h"
#include "spillrun.h"

typedef int (*GsMergeCmp) (void *arg, const GsRun *a, const GsRun *b);

typedef struct GsMerge GsMerge;

extern GsMerge *gs_merge_begin(MemoryContext cxt, GsRun **runs, int nruns,
							   GsMergeCmp cmp, void *arg, int nthreads,
							   Size bufsize);
extern GsRun *gs_merge_next(GsMerge *m);
extern void gs_merge_rewind(GsMerge *m);
extern void gs_merge_end(GsMerge *m);

/*
 * a batched merge's threads, batches, key ranges, and the time its backend
 * waited for a batch; all 0 for a serial one
 */
extern void gs_merge_stats(GsMerge *m, int *nthreads, uint64 *nbatches,
						   uint64 *nranges, double *ms_waited);

#endif							/* GPUSORT_SPILLMERGE_H */
