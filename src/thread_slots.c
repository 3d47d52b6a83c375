/*-------------------------------------------------------------------------
 *
 * thread_slots.c
 *	  Slots for reading the backend's rows on helper threads (see
 *	  thread_slots.h for why this is safe, and what stays in the backend).
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "executor/tuptable.h"

#include "thread_slots.h"

GsThreadSlots *
gs_thread_slots_create(TupleDesc desc, int nslots, MinimalTuple sample)
{
	GsThreadSlots *ts = palloc(sizeof(GsThreadSlots));
	int			i;

	ts->nslots = nslots;
	ts->slots = palloc(sizeof(TupleTableSlot *) * Max(nslots, 1));
	for (i = 0; i < nslots; i++)
		ts->slots[i] = MakeSingleTupleTableSlot(desc, &TTSOpsMinimalTuple);
	/* the offsets are cached here, in the backend, before any thread reads */
	if (sample != NULL && nslots > 0)
	{
		ExecStoreMinimalTuple(sample, ts->slots[0], false);
		slot_getallattrs(ts->slots[0]);
		ExecClearTuple(ts->slots[0]);
	}
	return ts;
}

void
gs_thread_slots_free(GsThreadSlots *ts)
{
	int			i;

	for (i = 0; i < ts->nslots; i++)
		ExecDropSingleTupleTableSlot(ts->slots[i]);
	pfree(ts->slots);
	pfree(ts);
}
