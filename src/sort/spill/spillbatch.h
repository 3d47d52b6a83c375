/*-------------------------------------------------------------------------
 *
 * spillbatch.h
 *	  The merge of sorted runs whose keys decide the order, in batches cut
 *	  into key ranges that threads merge at once (spillbatch.c).
 *
 *	   b = gs_batch_begin(cxt, runs, nruns, nthreads, bufsize);
 *	   while ((row = gs_batch_next(b)) != NULL)
 *		   use row->key, row->tup (valid until the next gs_batch_next)
 *	   gs_batch_rewind(b);		to start over (a rescan)
 *	   gs_batch_end(b);			before the runs are closed
 *
 * The same rows in the same order as spillmerge.c's tree of losers with no
 * comparator: by key, then by run, then by place in the run.
 *
 *-------------------------------------------------------------------------
 */
#ifndef GPUSORT_SPILLBATCH_H
#define GPUSORT_SPILLBATCH_H

#include "spillrun.h"

/* runs a batched merge takes at most (sortspill.c merges 32 at most) */
#define GS_BATCH_MAX_RUNS	64

typedef struct GsBatchMerge GsBatchMerge;

extern GsBatchMerge *gs_batch_begin(MemoryContext cxt, GsRun **runs, int nruns,
									int nthreads, Size bufsize);
extern GsRun *gs_batch_next(GsBatchMerge *b);
extern void gs_batch_rewind(GsBatchMerge *b);
extern void gs_batch_end(GsBatchMerge *b);

/*
 * threads used at most, batches and key ranges merged since the start, and
 * the time the backend waited for a batch being prepared (at its end)
 */
extern void gs_batch_stats(GsBatchMerge *b, int *nthreads, uint64 *nbatches,
						   uint64 *nranges, double *ms_waited);

#endif							/* GPUSORT_SPILLBATCH_H */
