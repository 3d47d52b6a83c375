/*-------------------------------------------------------------------------
 *
 * winframe.c
 *	  The bounds of RANGE frames with offsets and of GROUPS frames, found
 *	  in the backend before the functions are computed.
 *
 * A RANGE offset frame's bounds are found first: by arithmetic on the
 * keys on threads for integer, date and timestamp keys (winrange.c), else
 * here in the backend with the window's in_range functions, as WindowAgg's
 * update_frameheadpos and update_frametailpos do (gs_win_range_bounds).
 * A GROUPS frame's bounds are the peer groups an offset away
 * (gs_win_group_bounds).  Either fills the frame's range_start and
 * range_end, which windowfuncs.c's frames read.
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include <math.h>

#include "access/htup_details.h"
#include "access/transam.h"
#include "catalog/pg_collation.h"
#include "catalog/pg_language.h"
#include "catalog/pg_proc.h"
#include "catalog/pg_type.h"
#include "executor/executor.h"
#include "miscadmin.h"
#include "nodes/nodeFuncs.h"
#include "optimizer/clauses.h"
#include "optimizer/optimizer.h"
#include "lib/stringinfo.h"
#include "utils/builtins.h"
#include "utils/date.h"
#include "utils/fmgroids.h"
#include "utils/lsyscache.h"
#include "utils/memutils.h"
#include "utils/syscache.h"
#include "utils/numeric.h"
#include "utils/timestamp.h"

#include "intake/rowstore.h"
#include "threads/thread_slots.h"
#include "threads/threads_backend.h"
#include "windowfuncs.h"

/* ---- RANGE frames with offsets --------------------------------------------------- */

typedef struct RangeSweep
{
	FmgrInfo	flinfo;			/* the bound's in_range function */
	Oid			collation;
	Datum		offset;
	bool		sub;			/* subtract the offset from the current value */
	bool		less;
	bool		nulls_first;
	AttrNumber	attno;
	TupleTableSlot *slot;
	MinimalTuple *rows;
} RangeSweep;

/* in_range(row's value, the current row's, offset, sub, less) */
static inline bool
range_test(RangeSweep *rs, Datum val, Datum cur)
{
	return DatumGetBool(FunctionCall5Coll(&rs->flinfo, rs->collation, val, cur,
										  rs->offset, BoolGetDatum(rs->sub),
										  BoolGetDatum(rs->less)));
}

/* the order column's value of row i (in the sweep's slot) */
static inline Datum
range_value(RangeSweep *rs, uint64 i, bool *isnull)
{
	ExecStoreMinimalTuple(rs->rows[i], rs->slot, false);
	return slot_getattr(rs->slot, rs->attno, isnull);
}

/*
 * Whether row h is still before the frame of a row whose value is cur
 * (start: nodeWindowAgg.c's update_frameheadpos), or still inside it (end:
 * update_frametailpos)
 */
static bool
range_advance(RangeSweep *rs, bool start, uint64 h, Datum cur, bool curnull)
{
	bool		hnull;
	Datum		hval = range_value(rs, h, &hnull);

	if (hnull || curnull)
	{
		if (start)
			return rs->nulls_first ? (hnull && !curnull) : (!hnull && curnull);
		return rs->nulls_first ? hnull : curnull;
	}
	return start ? !range_test(rs, hval, cur) : range_test(rs, hval, cur);
}

static void
range_sweep_init(RangeSweep *rs, WindowAgg *wa, bool start, MinimalTuple *rows,
				 TupleTableSlot *slot)
{
	int			o = wa->frameOptions;
	bool		preceding = start ? (o & FRAMEOPTION_START_OFFSET_PRECEDING) != 0 :
		(o & FRAMEOPTION_END_OFFSET_PRECEDING) != 0;

	rs->attno = wa->ordNumCols > 0 ? wa->ordColIdx[0] : 0;
	rs->slot = slot;
	rs->rows = rows;
	if ((start ? wa->startInRangeFunc : wa->endInRangeFunc) == InvalidOid ||
		(start ? wa->startOffset : wa->endOffset) == NULL ||
		!IsA(start ? wa->startOffset : wa->endOffset, Const))
		return;					/* not a RANGE offset bound */
	fmgr_info(start ? wa->startInRangeFunc : wa->endInRangeFunc, &rs->flinfo);
	rs->collation = wa->inRangeColl;
	rs->offset = ((Const *) (start ? wa->startOffset : wa->endOffset))->constvalue;
	rs->sub = preceding;
	rs->less = !start;
	if (!wa->inRangeAsc)
	{
		rs->sub = !rs->sub;
		rs->less = !rs->less;
	}
	rs->nulls_first = wa->inRangeNullsFirst;
}

/* the sweep over rows [0, n) (see gs_win_range_bounds) */
static void
range_sweep(GsWinFrame *frame, RangeSweep *head, RangeSweep *tail,
			AttrNumber attno, uint64 n, const uint8 *flags, TupleTableSlot *slot)
{
	uint64		h = 0,
				t = 0,
				pe = 0,
				r;

	for (r = 0; r < n; r++)
	{
		bool		curnull;
		Datum		cur;

		gs_poll_interrupts(r + 1);
		if (flags[r] & GSW_NEW_PARTITION)
		{
			for (pe = r + 1; pe < n && !(flags[pe] & GSW_NEW_PARTITION); pe++)
				;
			h = t = r;
		}
		/* a pointer into row r itself, which the slot does not own */
		ExecStoreMinimalTuple(head->rows[r], slot, false);
		cur = slot_getattr(slot, attno, &curnull);
		if (frame->start == GSW_BOUND_RANGE)
		{
			while (h < pe && range_advance(head, true, h, cur, curnull))
				h++;
			frame->range_start[r] = (uint32) h;
		}
		if (frame->end == GSW_BOUND_RANGE)
		{
			while (t < pe && range_advance(tail, false, t, cur, curnull))
				t++;
			frame->range_end[r] = (uint32) t;
		}
	}
}

/*
 * The sweep runs under one PG_TRY: an error (of a built-in in_range
 * function, which holds no resource; a cancel is let through) is caught
 * and reported as false
 */
bool
gs_win_range_bounds(GsWinFrame *frame, WindowAgg *wa, MinimalTuple *rows,
					uint64 n, const uint8 *flags, TupleTableSlot *slot)
{
	RangeSweep	head,
				tail;
	MemoryContext oldcxt = CurrentMemoryContext;
	volatile bool failed = false;

	memset(&head, 0, sizeof(head));
	memset(&tail, 0, sizeof(tail));
	range_sweep_init(&head, wa, true, rows, slot);
	range_sweep_init(&tail, wa, false, rows, slot);
	PG_TRY();
	{
		range_sweep(frame, &head, &tail, wa->ordColIdx[0], n, flags, slot);
	}
	PG_CATCH();
	{
		ErrorData  *edata;

		MemoryContextSwitchTo(oldcxt);
		edata = CopyErrorData();
		if (edata->sqlerrcode == ERRCODE_QUERY_CANCELED ||
			edata->sqlerrcode == ERRCODE_ADMIN_SHUTDOWN)
			PG_RE_THROW();
		FlushErrorState();
		FreeErrorData(edata);
		failed = true;
	}
	PG_END_TRY();
	ExecClearTuple(slot);
	return !failed;
}

/* g + off clamped to [-1, ngroups] (off any int8) */
static inline int64
group_offset(uint64 g, int64 off, uint64 ngroups)
{
	if (off >= (int64) ngroups)
		return (int64) ngroups;
	if (off <= -(int64) ngroups - 1)
		return -1;
	off += (int64) g;
	return off < -1 ? -1 : off > (int64) ngroups ? (int64) ngroups : off;
}

/*
 * GROUPS offsets: row r of peer group g starts its frame at the first row
 * of group g + start_offset and ends it after the last row of group g +
 * end_offset, within its partition (nodeWindowAgg.c's update_frameheadpos
 * and update_frametailpos in GROUPS mode); RANGE CURRENT ROW starts at
 * the first peer, offset 0.  gstart lists a partition's group starts.
 */
void
gs_win_group_bounds(GsWinFrame *frame, uint64 n, const uint8 *flags)
{
	uint32	   *gstart = palloc_extended(sizeof(uint32) * (Max(n, 1) + 1),
										 MCXT_ALLOC_HUGE);
	uint64		ps = 0;

	while (ps < n)
	{
		uint64		pe = ps + 1,
					ngroups = 1,
					g = 0,
					r;

		CHECK_FOR_INTERRUPTS();
		gstart[0] = (uint32) ps;
		for (; pe < n && !(flags[pe] & GSW_NEW_PARTITION); pe++)
			if (flags[pe] & GSW_NEW_PEERS)
				gstart[ngroups++] = (uint32) pe;
		gstart[ngroups] = (uint32) pe;
		for (r = ps; r < pe; r++)
		{
			int64		t;

			if (r > ps && (flags[r] & GSW_NEW_PEERS))
				g++;
			if (frame->start == GSW_BOUND_GROUPS)
			{
				t = group_offset(g, frame->start_offset, ngroups);
				frame->range_start[r] = t < 0 ? (uint32) ps : gstart[t];
			}
			if (frame->end == GSW_BOUND_GROUPS)
			{
				t = group_offset(g, frame->end_offset, ngroups);
				frame->range_end[r] = t < 0 ? (uint32) ps :
					t >= (int64) ngroups ? (uint32) pe : gstart[t + 1];
			}
		}
		ps = pe;
	}
	pfree(gstart);
}
