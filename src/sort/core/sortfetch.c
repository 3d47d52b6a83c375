/*-------------------------------------------------------------------------
 *
 * sortfetch.c
 *	  Step 5 of a GpuSort's sort (see sortstore.c's header): its rows
 *	  returned (gs_sort_gettuple) from the output array, forwards or
 *	  backwards, from the row stream that copies them into output order
 *	  meanwhile, from the merge of its runs or its tuplesort fallback; the
 *	  position marked and restored, and the rows read again.
 *
 * The array is read with tuplesort's semantics for an in-memory sort:
 * after running off the end forwards, a backward fetch returns the last
 * row; markpos and mark_eof save current and eof_reached.
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "base/timing.h"
#include "sortstate.h"

/* how far ahead of the row being returned to prefetch */
#define GS_PREFETCH_AHEAD	16

/*
 * The row stream's figures so far into node->info: noted when the last
 * row is out (stream_done), and by EXPLAIN while rows may still be
 * streaming (gs_sort_info).
 */
static void
stream_note(GsSort *node)
{
	const GsRowStreamStats *st = gs_rowstream_stats(node->stream);

	node->info.streamed = true;
	node->info.copied_bytes = st->bytes;
	node->info.stream_threads = st->threads;
	node->info.ms_stream_wait = st->ms_waited;
}

/* the last row is out: the helpers stop (a rescan restarts them) */
static void
stream_done(GsSort *node)
{
	gs_rowstream_finish(node->stream);
	stream_note(node);
}

/*
 * The next row in the given direction, with tuplesort's semantics for an
 * in-memory sort: after running off the end forwards, a backward fetch
 * returns the last row.
 */
static MinimalTuple
next_row(GsSort *node, bool forward)
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

/*
 * The next row in the given direction into slot, from wherever the sort
 * left its rows: the tuplesort it fell back to, the tuplestore its merge
 * filled, the merge of its runs (forwards only), or the output array.
 * false, with slot cleared, past the end.
 */
bool
gs_sort_gettuple(GsSort *node, bool forward, TupleTableSlot *slot)
{
	MinimalTuple tup;
	instr_time	start;

	Assert(node->sort_done);
	if (node->tuplesort)
		return tuplesort_gettupleslot(node->tuplesort, forward, false, slot,
									  NULL);
	if (node->store)
	{
		if (tuplestore_gettupleslot(node->store, forward, false, slot))
			return true;
		ExecClearTuple(slot);
		return false;
	}
	if (node->merge)
	{
		if (!forward)
			ereport(ERROR,
					(errcode(ERRCODE_FEATURE_NOT_SUPPORTED),
					 errmsg("GpuSort cannot scan its merged runs backward")));
		tup = gs_spill_next(node);
		if (tup)
		{
			ExecStoreMinimalTuple(tup, slot, false);
			return true;
		}
		ExecClearTuple(slot);
		return false;
	}

	if (node->time_emit)
		INSTR_TIME_SET_CURRENT(start);
	tup = next_row(node, forward);
	if (tup)
		ExecStoreMinimalTuple(tup, slot, false);
	else
		ExecClearTuple(slot);
	if (node->time_emit)
		node->info.ms_emit += gs_elapsed_ms(start);
	return tup != NULL;
}

/* the current position, for gs_sort_restorepos (a merge join's mark) */
void
gs_sort_markpos(GsSort *node)
{
	if (!node->sort_done)
		return;
	if (node->tuplesort)
		tuplesort_markpos(node->tuplesort);
	else if (node->store)
		tuplestore_copy_read_pointer(node->store, 0, 1);
	else
	{
		node->markpos = node->current;
		node->mark_eof = node->eof_reached;
	}
}

void
gs_sort_restorepos(GsSort *node)
{
	if (!node->sort_done)
		return;
	if (node->tuplesort)
		tuplesort_restorepos(node->tuplesort);
	else if (node->store)
		tuplestore_copy_read_pointer(node->store, 1, 0);
	else
	{
		node->current = node->markpos;
		node->eof_reached = node->mark_eof;
	}
}

/*
 * Back to the first row, where the rows can be read again.  They cannot
 * where a participant's runs went to the Gather, whose rescan deletes
 * them; where they are merged from participants' runs, which may be gone
 * once the Gather has shut down (a Limit shuts its input down when done);
 * nor from a tuplesort begun without random access.  Then the caller sorts
 * again.
 */
bool
gs_sort_rewind(GsSort *node)
{
	Assert(node->sort_done);
	if (node->mode == GS_SORT_SHARED_RUNS ||
		(node->merge && node->info.shared_runs > 0) ||
		(node->tuplesort && !node->random_access))
		return false;
	if (node->tuplesort)
		tuplesort_rescan(node->tuplesort);
	else if (node->store)
		tuplestore_rescan(node->store);
	else if (node->merge)
		gs_spill_rewind(node);
	else
	{
		node->current = 0;
		node->eof_reached = false;
		node->markpos = 0;
		node->mark_eof = false;
	}
	return true;
}

/* the last sort's figures for EXPLAIN, the row stream's as they are now */
const GsRunInfo *
gs_sort_info(GsSort *node)
{
	if (node->stream)
		stream_note(node);
	return &node->info;
}
