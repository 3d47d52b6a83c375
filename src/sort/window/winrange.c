/*-------------------------------------------------------------------------
 *
 * winrange.c
 *	  RANGE frames with offsets, their bounds found on GpuWindow's threads
 *	  by arithmetic on the order column's keys.
 *
 * A frame such as RANGE BETWEEN '6 days' PRECEDING AND CURRENT ROW starts
 * at the first row of the partition whose key is in range of the current
 * row's: WindowAgg's update_frameheadpos and update_frametailpos move a
 * row pointer forward while the window's in_range function says so, and
 * winframe.c's gs_win_range_bounds does the same in the backend, a
 * function call per step.  For the order columns money is windowed over
 * (integers, dates, timestamps) and constant offsets, in_range is plain
 * arithmetic: in_range(val, base, offset, sub, less) is
 *
 *		less ? val <= base -/+ offset : val >= base -/+ offset
 *
 * with base -/+ offset computed exactly.  Here the keys are read as int64s
 * while the threads find the partitions (gs_win_range_key_read: dates as
 * date2timestamp makes them, microseconds), and the same sweep then runs on
 * threads, partitions shared out, each row's bound computed once.
 *
 * Why the arithmetic is the in_range function's, case by case:
 *	 - integers (in_range_int4_int4 and the rest): the sum in 128 bits is
 *	   exact; where in_range's own sum overflows it returns what the exact
 *	   comparison gives (its comment says so);
 *	 - timestamp and date keys with an interval of days and time (no
 *	   months): timestamp_pl_interval adds the days through the calendar,
 *	   which for a timestamp in range is adding days * USECS_PER_DAY, then
 *	   the time; it raises when either step leaves timestamp's range.
 *	   timestamptz adds days in the session's time zone (daylight saving
 *	   time changes a day's length), so timestamptz keys are covered only
 *	   for intervals of time alone;
 *	 - the NULL keys are placed as range_advance places them (NULLS FIRST
 *	   or LAST), and a descending order swaps sub and less, as WindowAgg.
 *
 * What the arithmetic does not cover, it leaves to the in_range functions
 * whole (the backend's sweep, which then raises, or falls back, exactly as
 * before): an offset with months, a negative offset (in_range raises), an
 * infinite key or one outside timestamp's range, and a bound that leaves
 * timestamp's range (timestamp_pl_interval raises).  Deciding that for
 * the whole window keeps the rule simple and errs only towards the
 * backend's sweep.
 *
 * The threads read int64s and bools only: nothing of PostgreSQL's.
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "catalog/pg_type.h"
#include "datatype/timestamp.h"
#include "utils/date.h"
#include "utils/fmgroids.h"
#include "utils/timestamp.h"

#include "threads/threads.h"
#include "threads/threads_backend.h"
#include "winrange.h"

#define GSW_RANGE_TASKS_PER_THREAD	4

/* the offset of one bound, if the arithmetic covers it */
static bool
side_init(GsWinKeySide *side, const GsWinRangeKeys *rk, WindowAgg *wa,
		  bool start)
{
	Oid			fn = start ? wa->startInRangeFunc : wa->endInRangeFunc;
	Const	   *c = (Const *) (start ? wa->startOffset : wa->endOffset);
	int			o = wa->frameOptions;

	if (c == NULL || !IsA(c, Const) || c->constisnull)
		return false;
	switch (fn)
	{
		case F_IN_RANGE_INT8_INT8_INT8_BOOL_BOOL:
		case F_IN_RANGE_INT4_INT4_INT8_BOOL_BOOL:
		case F_IN_RANGE_INT4_INT4_INT4_BOOL_BOOL:
		case F_IN_RANGE_INT4_INT4_INT2_BOOL_BOOL:
		case F_IN_RANGE_INT2_INT2_INT8_BOOL_BOOL:
		case F_IN_RANGE_INT2_INT2_INT4_BOOL_BOOL:
		case F_IN_RANGE_INT2_INT2_INT2_BOOL_BOOL:
			if (rk->kind != GSW_KEY_INT)
				return false;
			side->off = c->consttype == INT2OID ? DatumGetInt16(c->constvalue) :
				c->consttype == INT4OID ? DatumGetInt32(c->constvalue) :
				c->consttype == INT8OID ? DatumGetInt64(c->constvalue) : -1;
			if (side->off < 0)
				return false;	/* in_range raises */
			break;
		case F_IN_RANGE_DATE_DATE_INTERVAL_BOOL_BOOL:
		case F_IN_RANGE_TIMESTAMP_TIMESTAMP_INTERVAL_BOOL_BOOL:
		case F_IN_RANGE_TIMESTAMPTZ_TIMESTAMPTZ_INTERVAL_BOOL_BOOL:
			{
				Interval   *iv = DatumGetIntervalP(c->constvalue);

				if (c->consttype != INTERVALOID ||
					(fn == F_IN_RANGE_DATE_DATE_INTERVAL_BOOL_BOOL) !=
					(rk->kind == GSW_KEY_DATE) ||
					(fn == F_IN_RANGE_TIMESTAMPTZ_TIMESTAMPTZ_INTERVAL_BOOL_BOOL) !=
					(rk->keytype == TIMESTAMPTZOID) ||
					rk->kind == GSW_KEY_INT ||
					iv->month != 0 || iv->day < 0 || iv->time < 0 ||
					(iv->day != 0 && rk->keytype == TIMESTAMPTZOID))
					return false;
				side->days = iv->day;
				side->off = iv->time;
				break;
			}
		default:
			return false;
	}
	side->sub = start ? (o & FRAMEOPTION_START_OFFSET_PRECEDING) != 0 :
		(o & FRAMEOPTION_END_OFFSET_PRECEDING) != 0;
	side->less = !start;
	if (!wa->inRangeAsc)
	{
		side->sub = !side->sub;
		side->less = !side->less;
	}
	side->active = true;
	return true;
}

GsWinRangeKeys *
gs_win_range_keys_init(WindowAgg *wa, TupleDesc indesc, const GsWinFrame *frame)
{
	GsWinRangeKeys rk;

	if ((frame->start != GSW_BOUND_RANGE && frame->end != GSW_BOUND_RANGE) ||
		wa->ordNumCols != 1)
		return NULL;
	memset(&rk, 0, sizeof(rk));
	rk.keyatt = wa->ordColIdx[0];
	rk.keytype = TupleDescAttr(indesc, rk.keyatt - 1)->atttypid;
	rk.nulls_first = wa->inRangeNullsFirst;
	switch (rk.keytype)
	{
		case INT2OID:
		case INT4OID:
		case INT8OID:
			rk.kind = GSW_KEY_INT;
			break;
		case TIMESTAMPOID:
		case TIMESTAMPTZOID:
			rk.kind = GSW_KEY_TIMESTAMP;
			break;
		case DATEOID:
			rk.kind = GSW_KEY_DATE;
			break;
		default:
			return NULL;
	}
	if (frame->start == GSW_BOUND_RANGE && !side_init(&rk.start, &rk, wa, true))
		return NULL;
	if (frame->end == GSW_BOUND_RANGE && !side_init(&rk.end, &rk, wa, false))
		return NULL;
	return (GsWinRangeKeys *) memcpy(palloc(sizeof(rk)), &rk, sizeof(rk));
}

void
gs_win_range_key_read(GsWinRangeKeys *rk, uint64 i, Datum d, bool isnull)
{
	int64		k = 0;

	rk->keynull[i] = isnull;
	if (isnull)
		return;
	switch (rk->kind)
	{
		case GSW_KEY_INT:
			k = rk->keytype == INT2OID ? DatumGetInt16(d) :
				rk->keytype == INT4OID ? DatumGetInt32(d) : DatumGetInt64(d);
			break;
		case GSW_KEY_TIMESTAMP:
			k = DatumGetTimestamp(d);
			if (!IS_VALID_TIMESTAMP(k))
				__atomic_store_n(&rk->bad, true, __ATOMIC_RELAXED);
			break;
		case GSW_KEY_DATE:
			{
				/* date2timestamp: past timestamp's end it raises */
				DateADT		day = DatumGetDateADT(d);

				k = (int64) day * USECS_PER_DAY;
				if (day >= TIMESTAMP_END_JULIAN - POSTGRES_EPOCH_JDATE ||
					!IS_VALID_TIMESTAMP(k))
					__atomic_store_n(&rk->bad, true, __ATOMIC_RELAXED);
				break;
			}
	}
	rk->keys[i] = k;
}

#ifdef HAVE_INT128
/*
 * base -/+ the offset, as the in_range function computes it; false when it
 * raises there (a bound past timestamp's range)
 */
static inline bool
side_bound(const GsWinRangeKeys *rk, const GsWinKeySide *s, int64 base,
		   int128 *bound)
{
	int128		b = base;

	if (rk->kind == GSW_KEY_INT)
	{
		*bound = s->sub ? b - s->off : b + s->off;
		return true;
	}
	if (s->days != 0)
	{
		int128		days = (int128) s->days * USECS_PER_DAY;

		b = s->sub ? b - days : b + days;
		if (!IS_VALID_TIMESTAMP(b))
			return false;
	}
	b = s->sub ? b - s->off : b + s->off;
	*bound = b;
	return IS_VALID_TIMESTAMP(b);
}

/*
 * Whether row h is still before the frame of the current row (start), or
 * still in it (end): winframe.c's range_advance, the in_range call an
 * int128 comparison
 */
static inline bool
key_advance(const GsWinRangeKeys *rk, const GsWinKeySide *s, bool start,
			uint64 h, bool curnull, int128 bound)
{
	bool		hnull = rk->keynull[h];
	bool		in;

	if (hnull || curnull)
	{
		if (start)
			return rk->nulls_first ? (hnull && !curnull) : (!hnull && curnull);
		return rk->nulls_first ? hnull : curnull;
	}
	in = s->less ? (int128) rk->keys[h] <= bound : (int128) rk->keys[h] >= bound;
	return start ? !in : in;
}

/* one partition [ps, pe); false when a bound is the in_range function's */
static bool
range_partition(GsWinFrame *frame, const GsWinRangeKeys *rk, uint64 ps,
				uint64 pe)
{
	uint64		h = ps,
				t = ps,
				r;

	for (r = ps; r < pe; r++)
	{
		bool		curnull = rk->keynull[r];
		int128		sb = 0,
					eb = 0;

		if (((r - ps) & (GS_INTERRUPT_EVERY - 1)) == GS_INTERRUPT_EVERY - 1 &&
			gs_slice_stopped())
			return true;		/* the join throws */
		if (rk->start.active)
		{
			if (!curnull && !side_bound(rk, &rk->start, rk->keys[r], &sb))
				return false;
			while (h < pe && key_advance(rk, &rk->start, true, h, curnull, sb))
				h++;
			frame->range_start[r] = (uint32) h;
		}
		if (rk->end.active)
		{
			if (!curnull && !side_bound(rk, &rk->end, rk->keys[r], &eb))
				return false;
			while (t < pe && key_advance(rk, &rk->end, false, t, curnull, eb))
				t++;
			frame->range_end[r] = (uint32) t;
		}
	}
	return true;
}
#endif

typedef struct RangeTaskArg
{
	GsWinFrame *frame;
	GsWinRangeKeys *rk;
	const uint8 *flags;
	uint64		n;
	uint64		ntasks;
} RangeTaskArg;

/* the partitions that start in each task's slice of rows */
static void
range_tasks(void *p, uint64 tlo, uint64 thi)
{
#ifdef HAVE_INT128
	RangeTaskArg *a = (RangeTaskArg *) p;
	uint64		t;

	for (t = tlo; t < thi; t++)
	{
		uint64		lo,
					hi,
					ps,
					pe;

		gs_team_slice(a->n, a->ntasks, t, &lo, &hi);
		for (ps = lo; ps < hi && !(a->flags[ps] & GSW_NEW_PARTITION); ps++)
			;
		while (ps < hi)
		{
			for (pe = ps + 1; pe < a->n && !(a->flags[pe] & GSW_NEW_PARTITION); pe++)
				;
			if (__atomic_load_n(&a->rk->bad, __ATOMIC_RELAXED) || gs_slice_stopped())
				return;
			if (!range_partition(a->frame, a->rk, ps, pe))
			{
				__atomic_store_n(&a->rk->bad, true, __ATOMIC_RELAXED);
				return;
			}
			ps = pe;
		}
	}
#endif
}

bool
gs_win_range_keys_bounds(GsWinFrame *frame, GsWinRangeKeys *rk, uint64 n,
						 const uint8 *flags, int nthreads)
{
	RangeTaskArg a;

#ifndef HAVE_INT128
	return false;
#endif
	if (rk->bad)
		return false;
	if (n == 0)
		return true;
	a.frame = frame;
	a.rk = rk;
	a.flags = flags;
	a.n = n;
	a.ntasks = (uint64) Max(nthreads, 1) * GSW_RANGE_TASKS_PER_THREAD;
	gs_cpu_for_tasks(a.ntasks, nthreads, range_tasks, &a);
	return !rk->bad;
}
