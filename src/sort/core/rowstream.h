/*-------------------------------------------------------------------------
 *
 * rowstream.h
 *	  Rows copied into output order a batch at a time, on helper threads,
 *	  while the node returns the batch before.
 *
 *-------------------------------------------------------------------------
 */
#ifndef GPUSORT_ROWSTREAM_H
#define GPUSORT_ROWSTREAM_H

#include "access/htup_details.h"

typedef struct GsRowStream GsRowStream;

typedef struct GsRowStreamStats
{
	Size		bytes;			/* copied */
	int			threads;		/* helpers that ran (0: the reader copied) */
	double		ms_waited;		/* the reader waiting for a batch */
} GsRowStreamStats;

/*
 * A stream of from[0 .. n), which must stay valid, with nthreads helpers;
 * its memory and threads go with cxt (reset, delete, error or not).
 * Nothing starts until the first row is asked for.
 */
extern GsRowStream *gs_rowstream_create(MemoryContext cxt, MinimalTuple *from,
										uint64 n, int nthreads);

/*
 * A copy of from[i], or NULL past the end; valid until the next call.
 * Reading forwards is what the stream is for; any other i restarts it there.
 */
extern MinimalTuple gs_rowstream_get(GsRowStream *rs, uint64 i);

/* Stops the helpers now (they restart if read again) */
extern void gs_rowstream_finish(GsRowStream *rs);

extern const GsRowStreamStats *gs_rowstream_stats(const GsRowStream *rs);

#endif							/* GPUSORT_ROWSTREAM_H */
