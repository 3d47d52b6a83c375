/*-------------------------------------------------------------------------
 *
 * sortrepair.c
 *	  Repairing, with PostgreSQL's comparators, the few places where a libc
 *	  collation's strxfrm prefixes ordered two rows against strcoll.
 *
 * The check of sortverify.c compares every adjacent pair of the output
 * whose order rests on the strxfrm prefix, and hands over the positions j
 * where row j sorts before row j - 1 under the real comparator: the
 * descents.  Every other adjacent pair is in order for sure (its keys
 * differ in an exact column, or its rows were settled by the comparators),
 * so the output is a sequence of ascending runs that start at position 0
 * and at each descent.  A natural merge sort of those runs, depth first,
 * with the comparators, gives the exact order:
 *
 *	 - k descents make k + 1 runs and ceil(log2(k + 1)) passes;
 *	 - each merge of runs A and B first finds where B's first row goes in A
 *	   (searching from A's end, a row at a time, then galloping, then by
 *	   binary search, as the rows are misplaced by little): the rows before
 *	   are already in place; it then merges A's rows from there with B's,
 *	   one comparison each (a long stretch of B's before one of A's by a
 *	   search), until A's last row is left, which a search from there
 *	   places: the rows after it are in place too, so only the
 *	   rows between (those the transform misplaced, and the rows they must
 *	   pass) are merged;
 *	 - every such merge meets at a descent, A's last row above B's first
 *	   (merge_run_range says why), so neither is compared with the other
 *	   again: what strcoll disagreements cost is these comparisons, each a
 *	   strcoll of rows at random places, and a disagreement within a group
 *	   of rows equal in their primary weights (the usual one) needs 5 to 7
 *	   (merge_runs).
 *
 * So a disagreement that misplaces a few rows costs a few binary searches
 * and a merge as long as the distance they move, not a sort of every row.
 * Merges are stable (a tie takes A's row first), so rows the comparators
 * call equal keep the order the engine and the tie settling gave them.
 *
 * Under a bound only the first nout rows are returned.  The check then
 * compares each row past them with row nout - 1 (R); the rows found
 * smaller (the "extras") are sorted with the comparators and merged with
 * the repaired first nout rows, whose first nout become the output.  That
 * is exact when the output's new last row L is not above R: every row past
 * the output that the check passed is not below R, so not below L.  When
 * L is above R (a descent moved a row above R into the first nout), rows
 * between R and L might be missed, and every row is sorted again by the
 * comparators instead, as before this file existed; that needs a
 * disagreement at the very end of the output.
 *
 * The comparators may allocate and raise, so they run on the backend's
 * thread, checking for interrupts as it goes.  Where the checked column is
 * the sort's first and many runs are to be merged, segments of runs are
 * merged on helper threads first with strcoll (gs_keys_compare_values_
 * nothrow), each in a copy that the backend takes only where its thread
 * decided every comparison (see repair_threaded).  A merge compares a row
 * a few times, at random places of the store: each thread first takes its
 * rows' values (deformed once, copied in position order where they fit in
 * GS_REPAIR_VALUE_ROOM bytes a row, else pointers into the rows; in
 * values[] by row number), and its comparisons read only those.  Memory:
 * runcxt.
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "miscadmin.h"

#include "runtime/settings.h"
#include "threads/threads_backend.h"
#include "sortstate.h"
#include "threads/thread_slots.h"

typedef struct RepairCtx
{
	GsSort	   *node;			/* NULL on a helper thread */
	MinimalTuple *tuples;
	TupleTableSlot *sa;
	TupleTableSlot *sb;
	uint32	   *tmp;			/* room for the longest run's rows */
	uint64		ncompares;
	/* on a helper thread: the column compared with strcoll, nothrow */
	const Datum *values;		/* by row number: the column's values */
	const GsKeySpec *keys;
	int			col;
	bool		later_cols;		/* sort columns after col */
	bool		failed;			/* a comparison the thread could not make */
} RepairCtx;

/*
 * Compares stored rows a and b by every sort column: with PostgreSQL's
 * comparators on the backend; on a helper thread, where the sort's first
 * column is the checked one, with strcoll on the values taken before
 * (gs_keys_compare_values_nothrow), noting in rc->failed what only the
 * backend can decide (a long string, equal strings with later sort
 * columns).
 */
static int
repair_compare(RepairCtx *rc, uint32 a, uint32 b)
{
	int			r;

	rc->ncompares++;
	if (rc->node == NULL)
	{
		if (rc->failed ||
			!gs_keys_compare_values_nothrow(rc->keys, rc->col, rc->values[a],
											rc->values[b], &r) ||
			(r == 0 && rc->later_cols))
		{
			rc->failed = true;
			return 0;
		}
		return r;
	}
	gs_poll_interrupts(rc->ncompares);
	ExecStoreMinimalTuple(rc->tuples[a], rc->sa, false);
	ExecStoreMinimalTuple(rc->tuples[b], rc->sb, false);
	return gs_sort_compare_slots(rc->node, rc->sa, rc->sb, 0);
}

/* the first i in v[0 .. len) with v[i] > row (v ascending) */
static uint64
upper_bound(RepairCtx *rc, const uint32 *v, uint64 len, uint32 row)
{
	uint64		lo = 0,
				hi = len;

	while (lo < hi)
	{
		uint64		mid = lo + (hi - lo) / 2;

		if (repair_compare(rc, v[mid], row) > 0)
			hi = mid;
		else
			lo = mid + 1;
	}
	return lo;
}

/* the first i in v[0 .. len) with v[i] >= row (v ascending) */
static uint64
lower_bound(RepairCtx *rc, const uint32 *v, uint64 len, uint32 row)
{
	uint64		lo = 0,
				hi = len;

	while (lo < hi)
	{
		uint64		mid = lo + (hi - lo) / 2;

		if (repair_compare(rc, v[mid], row) >= 0)
			hi = mid;
		else
			lo = mid + 1;
	}
	return lo;
}

/*
 * Rows a search from a run's end or start tries one by one before it
 * gallops: a disagreement within a group of rows equal in their primary
 * weights misplaces a row by one to three places, where trying each costs
 * one comparison a place and galloping two or three
 */
#define GS_REPAIR_LINEAR_PROBES	3

/*
 * upper_bound, searching from v's end: the rows a disagreement misplaces
 * belong a few places before the end of the run they follow, so positions
 * len - 1, len - 2, len - 3, then len - 5, len - 9, ... are tried until
 * one is not above row, and the binary search is left the last gap: about
 * 2 log2(d) comparisons for a row d places from the end rather than
 * log2(len), which the upper levels' long runs made 20.  The same index as
 * upper_bound.
 */
static uint64
upper_bound_from_end(RepairCtx *rc, const uint32 *v, uint64 len, uint32 row)
{
	uint64		lo = 0,
				hi = len,
				step = 1;
	int			tries = 0;

	while (lo < hi)
	{
		uint64		p = (hi - lo >= step) ? hi - step : lo;

		if (repair_compare(rc, v[p], row) <= 0)
		{
			lo = p + 1;
			break;
		}
		hi = p;					/* v[hi ..] are above row */
		if (++tries >= GS_REPAIR_LINEAR_PROBES)
			step *= 2;
	}
	return lo + upper_bound(rc, v + lo, hi - lo, row);
}

/* lower_bound, searching from v's start the same way: 0, 1, 2, 4, 8, ... */
static uint64
lower_bound_from_start(RepairCtx *rc, const uint32 *v, uint64 len, uint32 row)
{
	uint64		lo = 0,
				hi = len,
				step = 1;
	int			tries = 0;

	while (lo < hi)
	{
		uint64		p = Min(lo + step - 1, hi - 1);

		if (repair_compare(rc, v[p], row) >= 0)
		{
			hi = p;				/* v[p ..] are not below row */
			break;
		}
		lo = p + 1;
		if (++tries >= GS_REPAIR_LINEAR_PROBES)
			step *= 2;
	}
	return lo + lower_bound(rc, v + lo, hi - lo, row);
}

/*
 * Merges the ascending runs v[lo .. mid) and v[mid .. hi) in place, stably:
 * only the rows from where v[mid] goes in the first run to where v[mid - 1]
 * goes in the second move, through rc->tmp.  descent says that v[mid - 1]
 * is known to sort after v[mid] (see merge_run_range): the pair is then not
 * compared, nor is either row of it with the other again.
 *
 * The second run's rows are merged one comparison each until the first
 * run's rows are all placed but the last, which a search from there
 * places: the comparisons are the rows that move and a few, where a
 * search from each end (the first run's rows above v[mid], the second
 * run's below v[mid - 1]) before the merge compared most of them twice.
 * Where GS_REPAIR_LINEAR_PROBES rows of the second run in a row go before
 * the same row of the first, the rest of that stretch is found by a
 * search too.  A disagreement within a group of rows equal in their
 * primary weights (the usual one) costs 5 to 7 comparisons this way rather
 * than 10 to 12, each a strcoll of two rows at random places.
 */
static void
merge_runs(RepairCtx *rc, uint32 *v, uint64 lo, uint64 mid, uint64 hi,
		   bool descent)
{
	uint64		a,
				na,
				pa = 0,
				pb,
				out,
				end;
	bool		tried_last = false;
	bool		known_not_below = false;	/* v[pb] vs tmp[pa] */
	int			streak = 0;		/* second-run rows written in a row */

	if (lo == mid || mid == hi)
		return;
	if (!descent && repair_compare(rc, v[mid - 1], v[mid]) <= 0)
		return;

	/*
	 * v[mid - 1] > v[mid]: v[mid] goes before v[mid - 1], at the first row
	 * of v[lo .. mid - 1) above it, or at mid - 1
	 */
	a = lo + upper_bound_from_end(rc, v + lo, mid - 1 - lo, v[mid]);

	/*
	 * v[a .. mid) to tmp, merged with v[mid .. hi) from position a: v[mid]
	 * is below tmp[0] (its upper bound) and comes first.  out stays below
	 * pb: the rows of tmp not yet written keep room for it.
	 */
	na = mid - a;
	memcpy(rc->tmp, v + a, sizeof(uint32) * na);
	out = a;
	v[out++] = v[mid];
	pb = mid + 1;
	while (pa < na - 1 && pb < hi)
	{
		if (!known_not_below && repair_compare(rc, v[pb], rc->tmp[pa]) < 0)
		{
			v[out++] = v[pb++];
			if (++streak >= GS_REPAIR_LINEAR_PROBES)
			{
				/*
				 * A stretch of the second run goes before tmp[pa] (a
				 * value's duplicates that a disagreement moved past it, or
				 * past which it moves): found by a search rather than one
				 * comparison a row; the row after it is not below tmp[pa]
				 */
				uint64		k = lower_bound_from_start(rc, v + pb, hi - pb,
													   rc->tmp[pa]);

				while (k-- > 0)
					v[out++] = v[pb++];
				streak = 0;
				known_not_below = true;
			}
			continue;
		}
		known_not_below = false;
		streak = 0;
		v[out++] = rc->tmp[pa++];

		/*
		 * Once: a row of the second run not below tmp[pa - 1] is mostly the
		 * first of the next group, above all of tmp, whose rows then go
		 * here without one comparison each (they are often equal, a
		 * value's duplicates that the transform put after a row that
		 * strcoll puts first)
		 */
		if (!tried_last && pa < na - 1)
		{
			tried_last = true;
			if (repair_compare(rc, v[pb], rc->tmp[na - 1]) >= 0)
				break;
		}
	}
	/* tmp's last row goes before the first row of v[pb .. hi) not below it */
	end = pb;
	if (pa == na - 1)
		end += lower_bound_from_start(rc, v + pb, hi - pb, rc->tmp[pa]);
	while (pb < end)
		v[out++] = v[pb++];
	/* what is left of v[end .. hi) is in place already */
	memcpy(v + out, rc->tmp + pa, sizeof(uint32) * (na - pa));
}

/*
 * Merges runs r0 .. r1 - 1 of v (run r is v[starts[r] .. starts[r + 1]))
 * into one: each half first, depth first, so that a merge reads rows that
 * the merges just before read, while they are in the cache (merging level
 * by level, bottom up, went over every row of the segment again at each of
 * its log2(runs) levels).  Stable merges of adjacent runs give the one
 * stable order whatever the order of the merges.
 *
 * Every run but the first starts at a descent (a row found below the one
 * before it), so every merge here has one at its middle: the merged left
 * half's last row is its largest, not below the row that preceded the
 * right half's first run, which is above that run's first row, which is
 * not below the merged right half's first row (the comparator is a total
 * order, and the check found the descent with it).
 */
static void
merge_run_range(RepairCtx *rc, uint32 *v, const uint64 *starts, uint64 r0,
				uint64 r1)
{
	uint64		rm;

	if (r1 - r0 < 2)
		return;
	rm = r0 + (r1 - r0) / 2;
	merge_run_range(rc, v, starts, r0, rm);
	merge_run_range(rc, v, starts, rm, r1);
	merge_runs(rc, v, starts[r0], starts[rm], starts[r1], true);
}

/*
 * Sorts v[0 .. len), whose ascending runs start at 0 and at the positions
 * starts[0 .. nstarts) (ascending, each in 1 .. len-1), by merging the runs
 * pairwise.  starts is overwritten (it has room for nstarts + 2).
 */
static void
merge_all_runs(RepairCtx *rc, uint32 *v, uint64 len, uint64 *starts,
			   uint64 nstarts)
{
	uint64		nruns = nstarts + 1;

	/* starts[r] becomes the start of run r, with starts[nruns] = len */
	memmove(starts + 1, starts, sizeof(uint64) * nstarts);
	starts[0] = 0;
	starts[nruns] = len;
	merge_run_range(rc, v, starts, 0, nruns);
}

/*
 * A bounded sort's output: the first nout rows of order, repaired, merged
 * with the extras (rows past them that the check found below row nout - 1).
 * False when the result cannot be trusted (see the header comment).
 */
static bool
repair_bounded(RepairCtx *rc, uint32 *order, uint64 nout, uint64 *starts,
			   uint64 nstarts, const uint64 *extras, uint64 nextras)
{
	uint32		r_row = order[nout - 1];
	uint32	   *s = MemoryContextAllocHuge(rc->node->runcxt,
										   sizeof(uint32) * (nout + nextras));
	uint64		i;

	/* the extras first: merge_all_runs writes past starts[nstarts - 1] */
	for (i = 0; i < nextras; i++)
		s[nout + i] = order[extras[i]];
	memcpy(s, order, sizeof(uint32) * nout);
	merge_all_runs(rc, s, nout, starts, nstarts);
	if (nextras > 0)
	{
		gs_sort_settle_range(rc->node, s + nout, nextras, 0);
		merge_runs(rc, s, 0, nout, nout + nextras, false);
	}
	if (repair_compare(rc, s[nout - 1], r_row) > 0)
	{
		pfree(s);
		return false;
	}
	memcpy(order, s, sizeof(uint32) * nout);
	pfree(s);
	return true;
}

/*
 * Many runs (a transform that disagrees with strcoll often) are merged on
 * threads first where the sort's first column is the checked one: the
 * runs are cut into segments of consecutive runs, each thread merges its
 * segments' runs in a copy with strcoll, and the backend takes a copy where
 * its thread succeeded, merges the segment itself where not, and then
 * merges the segments.
 */
#define GS_REPAIR_THREADED_MIN_RUNS	64
#define GS_REPAIR_SEGMENTS_PER_THREAD	2
/* rows ahead whose tuples are prefetched while the values are taken */
#define GS_REPAIR_AHEAD					16
/* bytes a row of a segment for copies of the values, in position order */
#define GS_REPAIR_VALUE_ROOM			32

typedef struct RepairSeg
{
	uint64		lo;				/* order[lo .. hi) */
	uint64		hi;
	uint64		ilo;			/* its runs start at bad[ilo .. ihi) */
	uint64		ihi;
	uint32	   *copy;
	uint64	   *starts;
	char	   *vals;			/* room for copies of its rows' values */
	char	   *vals_end;
	bool		ok;
} RepairSeg;

typedef struct RepairThreadArg
{
	RepairCtx  *ctx;			/* [nsegs], one per segment */
	RepairSeg  *segs;
	Datum	   *values;			/* by row number */
	const uint32 *order;
	const uint64 *bad;
} RepairThreadArg;

/* the segment's run starts relative to its first row, in seg->starts */
static uint64
seg_starts(const RepairSeg *seg, const uint64 *bad)
{
	uint64		i;

	for (i = seg->ilo; i < seg->ihi; i++)
		seg->starts[i - seg->ilo] = bad[i] - seg->lo;
	return seg->ihi - seg->ilo;
}

/*
 * d (a value string_peek read: in line, not compressed) copied at *next,
 * where it fits before end, else d itself.  A merge compares rows near
 * each other in position, whose values then lie near each other too,
 * rather than at random places of the store.
 */
static Datum
value_copy(char **next, char *end, Datum d)
{
	const char *p = DatumGetPointer(d);
	Size		size = VARSIZE_ANY(p);
	char	   *dst = VARATT_IS_SHORT(p) ? *next : (char *) INTALIGN(*next);

	if (dst > end || (Size) (end - dst) < size)
		return d;
	memcpy(dst, p, size);
	*next = dst + size;
	return PointerGetDatum(dst);
}

/*
 * The checked column's values of the segment's rows, in a->values (copied
 * in position order where they fit); false where one cannot be compared
 * on a thread (a NULL, a value to detoast).
 */
static bool
seg_values(RepairThreadArg *a, RepairSeg *seg, TupleTableSlot *slot)
{
	const uint32 *order = a->order;
	MinimalTuple *tuples = a->ctx[0].tuples;
	const GsKeySpec *keys = a->ctx[0].keys;
	int			col = a->ctx[0].col;
	char	   *next = seg->vals;
	Datum		d;
	uint64		p;

	for (p = seg->lo; p < seg->hi; p++)
	{
		/*
		 * The rows lie at random places: ask for those ahead, their
		 * pointers, headers, then every line (the column may lie past the
		 * first few)
		 */
		if (p + 3 * GS_REPAIR_AHEAD < seg->hi)
			gs_prefetch(&tuples[order[p + 3 * GS_REPAIR_AHEAD]]);
		if (p + 2 * GS_REPAIR_AHEAD < seg->hi)
			gs_prefetch(tuples[order[p + 2 * GS_REPAIR_AHEAD]]);
		if (p + GS_REPAIR_AHEAD < seg->hi)
			gs_prefetch_row_rest(tuples[order[p + GS_REPAIR_AHEAD]]);
		ExecStoreMinimalTuple(tuples[order[p]], slot, false);
		if (!gs_keys_column_value_nothrow(keys, col, slot, &d))
			return false;
		a->values[order[p]] = value_copy(&next, seg->vals_end, d);
	}
	return true;
}

static void
repair_seg_tasks(void *p, uint64 tlo, uint64 thi)
{
	RepairThreadArg *a = (RepairThreadArg *) p;
	uint64		t;

	for (t = tlo; t < thi; t++)
	{
		RepairSeg  *seg = &a->segs[t];
		uint64		len = seg->hi - seg->lo;

		seg->ok = seg_values(a, seg, a->ctx[t].sa);
		if (seg->ok)
		{
			memcpy(seg->copy, a->order + seg->lo, sizeof(uint32) * len);
			merge_all_runs(&a->ctx[t], seg->copy, len, seg->starts,
						   seg_starts(seg, a->bad));
			seg->ok = !a->ctx[t].failed;
		}
		ExecClearTuple(a->ctx[t].sa);
		ExecClearTuple(a->ctx[t].sb);
	}
}

/* cuts the runs into nsegs segments of consecutive runs */
static RepairSeg *
make_segments(GsSort *node, uint64 n, const uint64 *bad, uint64 nbad,
			  uint64 nsegs, RepairThreadArg *a)
{
	TupleDesc	desc = node->row_slot->tts_tupleDescriptor;
	RepairSeg  *segs = palloc0(sizeof(RepairSeg) * nsegs);
	uint64		t;

	a->ctx = palloc0(sizeof(RepairCtx) * nsegs);
	for (t = 0; t < nsegs; t++)
	{
		RepairSeg  *seg = &segs[t];
		RepairCtx  *c = &a->ctx[t];

		seg->lo = (t == 0) ? 0 : bad[nbad * t / nsegs];
		seg->hi = (t == nsegs - 1) ? n : bad[nbad * (t + 1) / nsegs];
		seg->ilo = (t == 0) ? 0 : nbad * t / nsegs + 1;
		seg->ihi = (t == nsegs - 1) ? nbad : nbad * (t + 1) / nsegs;
		seg->copy = MemoryContextAllocHuge(node->runcxt, sizeof(uint32) * (seg->hi - seg->lo));
		seg->vals = MemoryContextAllocHuge(node->runcxt,
										   GS_REPAIR_VALUE_ROOM * Max(seg->hi - seg->lo, 1));
		seg->vals_end = seg->vals + GS_REPAIR_VALUE_ROOM * Max(seg->hi - seg->lo, 1);
		seg->starts = palloc(sizeof(uint64) * (seg->ihi - seg->ilo + 2));
		c->tuples = node->tuples;
		c->sa = MakeSingleTupleTableSlot(desc, &TTSOpsMinimalTuple);
		c->sb = MakeSingleTupleTableSlot(desc, &TTSOpsMinimalTuple);
		c->tmp = MemoryContextAllocHuge(node->runcxt, sizeof(uint32) * Max(seg->hi - seg->lo, 1));
		c->values = a->values;
		c->keys = node->keys;
		c->col = 0;
		c->later_cols = node->nkeys > 1;
	}
	return segs;
}

/*
 * Repairs order[0 .. n) as merge_all_runs would, merging segments of its
 * runs on threads first (see above); false (nothing done) where that does
 * not apply.
 */
static bool
repair_threaded(RepairCtx *rc, uint32 *order, uint64 n, uint64 *bad,
				uint64 nbad)
{
	GsSort	   *node = rc->node;
	int			nthreads = gpusort_threads();
	uint64		nsegs = Min((uint64) nthreads * GS_REPAIR_SEGMENTS_PER_THREAD,
							nbad / 8);
	RepairThreadArg a;
	uint64	   *segstarts;
	uint64		t;
	Size		scratch;

	if (nthreads < 2 || nbad < GS_REPAIR_THREADED_MIN_RUNS ||
		gs_keys_verified_column(node->keys) != 0)
		return false;

	/*
	 * The threads' scratch (each row's Datum, its place in two orders and
	 * its value's copy) is the sort's memory too: without room in the
	 * account the serial merge repairs instead, needing none of it
	 */
	scratch = (Size) n * (sizeof(Datum) + 2 * sizeof(uint32) + GS_REPAIR_VALUE_ROOM);
	if (!gs_reserve(node->reservation, GS_ACCT_MEM, scratch,
					gpusort_total_memory_limit()))
		return false;
	a.order = order;
	a.bad = bad;
	a.values = MemoryContextAllocHuge(node->runcxt, sizeof(Datum) * n);
	a.segs = make_segments(node, n, bad, nbad, nsegs, &a);
	gs_thread_rows_prepare(node->row_slot, node->tuples[0]);
	gs_cpu_for_tasks(nsegs, nthreads, repair_seg_tasks, &a);
	for (t = 0; t < nsegs; t++)
	{
		RepairSeg  *seg = &a.segs[t];

		rc->ncompares += a.ctx[t].ncompares;
		if (seg->ok)
			memcpy(order + seg->lo, seg->copy, sizeof(uint32) * (seg->hi - seg->lo));
		else
			merge_all_runs(rc, order + seg->lo, seg->hi - seg->lo, seg->starts,
						   seg_starts(seg, bad));
		ExecDropSingleTupleTableSlot(a.ctx[t].sa);
		ExecDropSingleTupleTableSlot(a.ctx[t].sb);
		pfree(a.ctx[t].tmp);
		pfree(seg->copy);
		pfree(seg->vals);
		pfree(seg->starts);
	}
	/* the segments are the runs of the last merge */
	segstarts = palloc(sizeof(uint64) * (nsegs + 2));
	for (t = 1; t < nsegs; t++)
		segstarts[t - 1] = a.segs[t].lo;
	merge_all_runs(rc, order, n, segstarts, nsegs - 1);
	pfree(segstarts);
	pfree(a.ctx);
	pfree(a.segs);
	pfree(a.values);
	gs_release(node->reservation, GS_ACCT_MEM, scratch);
	return true;
}

/*
 * Repairs order[0 .. n) (writable), whose adjacent pairs are in order but
 * at the positions bad[0 .. nbad) (ascending, with room for two more
 * entries, which this overwrites), as the header comment says.
 * Under a bound (nout < n) only the first nout positions are made right.
 * Counts in node->info; sorts every row again when it must.
 */
void
gs_sort_repair(GsSort *node, uint32 *order, uint64 n, uint64 *bad,
			   uint64 nbad)
{
	TupleDesc	desc = node->row_slot->tts_tupleDescriptor;
	uint64		nout = node->nout;
	uint64		ninside = 0;
	RepairCtx	rc;

	while (ninside < nbad && bad[ninside] < nout)
		ninside++;
	memset(&rc, 0, sizeof(rc));
	rc.node = node;
	rc.tuples = node->tuples;
	rc.sa = MakeSingleTupleTableSlot(desc, &TTSOpsMinimalTuple);
	rc.sb = MakeSingleTupleTableSlot(desc, &TTSOpsMinimalTuple);
	rc.tmp = MemoryContextAllocHuge(node->runcxt, sizeof(uint32) * Max(nout, 1));
	rc.ncompares = 0;

	/*
	 * bad has room for nbad + 2 entries: merge_all_runs's run bounds.  The
	 * bounded repair is for a bound only: after the threads' repair it would
	 * merge again at positions that are no longer descents
	 */
	if (nout == n)
	{
		if (!repair_threaded(&rc, order, n, bad, nbad))
			merge_all_runs(&rc, order, n, bad, nbad);
	}
	else if (!repair_bounded(&rc, order, nout, bad, ninside,
							 bad + ninside, nbad - ninside))
	{
		gs_sort_settle_range(node, order, n, 0);
		node->info.verify_resorted = true;
	}
	node->info.repair_runs += ninside + 1;
	node->info.repair_compares += rc.ncompares;
	ExecDropSingleTupleTableSlot(rc.sa);
	ExecDropSingleTupleTableSlot(rc.sb);
	pfree(rc.tmp);
}
