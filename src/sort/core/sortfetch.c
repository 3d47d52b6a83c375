/*-------------------------------------------------------------------------
 *
 * sortfetch.c
 *	  Step 5 of a GpuSort's sort (see sortstore.c's header): its rows
 *	  returned from the output array, forwards or backwards, or from the
 *	  row stream that copies them into output order meanwhile.
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "sortstate.h"

/* how far ahead of the row being returned to prefetch */
#define GS_PREFETCH_AHEAD	16

/*
 * The row stream's figures so far into node->info: noted when the last
 * row is out (stream_done), and by EXPLAIN while rows may still be
 * streaming.
 */
void
gs_sort_stream_note(GpuSortState *node)
{
	const GsRowStreamStats *st = gs_rowstream_stats(node->stream);

	node->info.streamed = true;
	node->info.copied_bytes = st->bytes;
	node->info.stream_threads = st->threads;
	node->info.ms_stream_wait = st->ms_waited;
}

/* the last row is out: the helpers stop (a rescan restarts them) */
static void
stream_done(GpuSortState *node)
{
	gs_rowstream_finish(node->stream);
	gs_sort_stream_note(node);
}

/*
 * The next row in the given direction, with tuplesort's semantics for an
 * in-memory sort: after running off the end forwards, a backward fetch
 * returns the last row.
 */
MinimalTuple
gs_sort_next_row(GpuSortState *node, bool forward)
{
	if (forward)
	{
		if (node->stream)
		{
			MinimalTuple tup = gs_rowstream_get(node->stream, node->current);

			if (tup)
			{
				node->current++;
				return tup;
			}
			stream_done(node);
			node->eof_reached = true;
			return NULL;
		}
		if (node->current < node->nout)
		{
			if (node->current + GS_PREFETCH_AHEAD < node->nout)
				gs_prefetch(node->tuples[node->current + GS_PREFETCH_AHEAD]);
			return node->tuples[node->current++];
		}
		node->eof_reached = true;
		return NULL;
	}
	if (node->current == 0)
		return NULL;
	if (node->eof_reached)
		node->eof_reached = false;
	else
	{
		node->current--;		/* the row returned last */
		if (node->current == 0)
			return NULL;
	}
	if (node->current > GS_PREFETCH_AHEAD)
		gs_prefetch(node->tuples[node->current - 1 - GS_PREFETCH_AHEAD]);
	return node->tuples[node->current - 1];
}
