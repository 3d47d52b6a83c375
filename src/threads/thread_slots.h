/*-------------------------------------------------------------------------
 *
 * thread_slots.h
 *	  Reading the backend's rows on helper threads (src/threads/thread_slots.c).
 *
 * Helper threads may read rows the backend holds (threads.h's rules), and
 * the executor's own slot code is what reads them right for every type and
 * layout.  Storing a MinimalTuple into a slot and deforming it allocates
 * nothing and raises nothing, with two conditions that this file meets:
 *
 *	 - each thread uses slots of its own, made in the backend;
 *	 - the tuple descriptor's cached column offsets (attcacheoff) are filled
 *	   in the backend first, by deforming one row: deforming writes them
 *	   when they are unset, and a thread must not be the first to.  Later
 *	   deforms of any row store the same values again.
 *
 * Anything else a thread would need to read a value (detoasting, a
 * collation's lookup, an fmgr call) stays in the backend.
 *
 *-------------------------------------------------------------------------
 */
#ifndef GPUSORT_THREAD_SLOTS_H
#define GPUSORT_THREAD_SLOTS_H

#include "executor/tuptable.h"

typedef struct GsThreadSlots
{
	int			nslots;
	TupleTableSlot **slots;		/* [nslots], minimal tuple slots */
} GsThreadSlots;

/*
 * Fills desc's cached column offsets in the backend by deforming sample
 * (any row of desc) in slot, a slot of desc the backend owns: what must
 * happen before threads deform rows of desc in slots of their own.
 */
extern void gs_thread_rows_prepare(TupleTableSlot *slot, MinimalTuple sample);

/*
 * nslots slots of desc for threads, in the current memory context, the
 * descriptor's offsets made ready by deforming sample (any row of desc).
 */
extern GsThreadSlots *gs_thread_slots_create(TupleDesc desc, int nslots,
											 MinimalTuple sample);
extern void gs_thread_slots_free(GsThreadSlots *ts);

/* on a thread: row into slot, its columns up to natts deformed */
static inline TupleTableSlot *
gs_thread_slot_store(TupleTableSlot *slot, MinimalTuple row, int natts)
{
	ExecStoreMinimalTuple(row, slot, false);
	if (natts > 0)
		slot_getsomeattrs(slot, natts);
	return slot;
}

#endif							/* GPUSORT_THREAD_SLOTS_H */
