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

void
gs_thread_rows_prepare(TupleTableSlot *slot, MinimalTuple sample)
{
	ExecStoreMinimalTuple(sample, slot, false);
	slot_getallattrs(slot);
	ExecClearTuple(slot);
}

GsThreadSlots *
gs_thread_slots_create(TupleDesc desc, int nslots, MinimalTuple sample)
{
	GsThreadSlots *ts = palloc(sizeof(GsThreadSlots));
	int			i;

	ts->nslots = nslots;
	ts->slots = palloc(sizeof(TupleTableSlot *) * Max(nslots, 1));
	for (i = 0; i < nslots; i++)
		ts->slots[i] = MakeSingleTupleTableSlot(desc, &TTSOpsMinimalTuple);
	if (sample != NULL && nslots > 0)
		gs_thread_rows_prepare(ts->slots[0], sample);
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
