/*-------------------------------------------------------------------------
 *
 * sortverify.c
 *	  Checking, with the collation's own comparator, the order that a libc
 *	  collation's strxfrm prefixes gave (libcoll.c explains the prefixes).
 *
 * After the engine's sort and the settling of equal keys (sortties.c), two
 * adjacent rows are in the right order for sure where their keys first
 * differ in an exact column, or tie and were compared by PostgreSQL's
 * comparators; only where the keys first differ in the strxfrm prefix, or
 * tied and were ordered by the next bytes of the transform (sortrefine.c
 * marks those in node->refined), does the order rest on glibc's transform
 * agreeing with strcoll.  Those pairs are compared again with strcoll.  If every adjacent pair of the output is
 * in order, the whole output is (the comparator is a total order), so n
 * comparisons check what a comparison sort needs n log n for.
 *
 * Under a bound only the first nout rows are returned, and they must be the
 * smallest: each row past them is compared with the last returned row
 * instead of its neighbour.
 *
 * The comparisons run on threads, each task deforming rows in slots of its
 * own and comparing with strcoll_l (gs_keys_compare_column_nothrow); where
 * that cannot go on (a value to detoast, a long string) the task stops, and
 * the backend's thread does the rest of the task's pairs with PostgreSQL's
 * comparators.  A pair out of order means that the transform disagreed
 * with strcoll there: a task marks such a position j in a byte array of
 * one entry per position (isbad[j]; a task writes only the positions of
 * its own slice, so threads never share an entry, and need no room that
 * could run out: a data set where the transform disagrees often is
 * checked on every thread, not handed to the backend after a few), the
 * backend collects the marks in position order, and sortrepair.c then
 * merges the ascending runs between them with the
 * comparators, moving only the rows that are out of place.  The result is
 * exact whatever glibc's strxfrm does; the check costs one comparison per
 * row, and a disagreement little more than the rows it misplaces.
 *
 * Where the checked column is the sort's first and every row is returned
 * (no bound), a thread repairs most descents itself, as it finds them
 * ("fused" below): strcoll then decides the whole order wherever it does
 * not return 0, so a row j found below row j - 1 is inserted backwards
 * into the task's checked stretch, which is ascending, by a search from
 * its end (rows are misplaced by a few places) and a memmove of order's
 * entries.  That spends one to three comparisons a disagreement, on rows
 * the thread has just read, where marking it and merging runs after costs a
 * second pass over the rows (their values taken again, the runs copied)
 * and more comparisons.  The invariants that keep this exact:
 *
 *	 - a task moves rows only within its current run, positions [base, j)
 *	   of its own slice, base being its first position or its last mark:
 *	   the marks sortrepair.c merges at stay descents, and the row before
 *	   the slice (the previous task's) is never written while read;
 *	 - a row that would go before base, a descent at the slice's last
 *	   position (the next task reads that row), and a comparison strcoll
 *	   cannot decide (equal strings with later sort columns, or one that
 *	   cannot be made on a thread) are marked in isbad[] instead, as
 *	   without fusion;
 *	 - once rows have moved, the row at j - 1 is the run's largest, whose
 *	   key is that of the output position topkey, not j - 1's: the pair
 *	   is then compared unless their keys first differ before the checked
 *	   column (refined marks adjacent pairs only), and the backend, taking
 *	   over a task where its thread stopped, compares its first pair
 *	   whatever the keys say.
 *
 * A value's duplicates follow their first copy: the transform puts them
 * after the same row, and each is known not below the copy before it (the
 * pair's keys tie and the comparators settled it), so it goes just after
 * where that copy went: straight after it where it is the same string (a
 * memcmp, no strcoll), else mostly in one comparison (insert_after).  Equal
 * strings are equal rows where no sort column follows; else strcoll cannot
 * order them and the pair is marked.
 *
 * EXPLAIN's "out of order" counts the rows found below the largest row
 * before them (a row moved in place, or a descent marked): one where the
 * transform put a row too late, one for each row it passed where it put
 * one too early.  The rows moved count as runs of one merged, the
 * searches' comparisons as the repair's.
 *
 * gpusort.debug_scramble_keys swaps two rows whose prefixes differ before
 * the check, so that tests can see the repair work.
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "miscadmin.h"

#include "engine/engine.h"
#include "keys/libcoll.h"
#include "runtime/settings.h"
#include "sortstate.h"
#include "threads/threads_backend.h"
#include "threads/thread_slots.h"

#define GS_VERIFY_TASKS_PER_THREAD	4
/* rows ahead whose tuples are prefetched (twice as far: their pointers) */
#define GS_VERIFY_AHEAD				16

typedef struct VerifyArg
{
	const GsKeySpec *keys;
	int			col;			/* the column holding the prefix */
	const uint64 *sorted_keys;	/* at output positions */
	int			nwords;
	const uint32 *order;
	const uint8 *refined;		/* node->refined: pairs the transform ordered */
	MinimalTuple *tuples;		/* input order */
	uint64		n;
	uint64		nout;
	uint64		ntasks;
	TupleTableSlot **slots;		/* [2 * ntasks] */
	uint64	   *stopped;		/* [ntasks]: the first position not done */
	uint64	   *checked;		/* [ntasks] */
	uint64	   *bad;			/* [ntasks] */
	uint64	   *inserted;		/* [ntasks]: descents repaired in place */
	uint64	   *inscompares;	/* [ntasks]: their searches' comparisons */
	uint32	   *worder;			/* order, writable, where fused; else NULL */
	bool		later_cols;		/* sort columns after the checked one */
	const uint32 *src;			/* where fused: order before the copy */
	uint8	   *isbad;			/* [n]: the tasks' positions out of order */
	uint64	   *rest;			/* the backend's positions, ascending */
	uint64		nrest;
	uint64		maxrest;
} VerifyArg;

/* positions [*lo, *hi) of 1 .. n-1 for task t */
static inline void
verify_bounds(const VerifyArg *a, uint64 t, uint64 *lo, uint64 *hi)
{
	gs_team_slice(a->n - 1, a->ntasks, t, lo, hi);
	(*lo)++;
	(*hi)++;
}

/* the position that position j must not sort before */
static inline uint64
partner(const VerifyArg *a, uint64 j)
{
	return j < a->nout ? j - 1 : a->nout - 1;
}

static inline bool
needs_check(const VerifyArg *a, uint64 p, uint64 j)
{
	if (a->refined && j < a->nout && a->refined[j])
		return true;
	return gs_keys_differ_in(a->keys, a->col,
							 a->sorted_keys + p * a->nwords,
							 a->sorted_keys + j * a->nwords);
}

/*
 * The rows of sorted positions lie at random places, and the checked
 * column may lie past a row's first lines: asks for the pointer of the row
 * 3 * GS_VERIFY_AHEAD positions past j, for the headers of the rows of the
 * pair 2 * GS_VERIFY_AHEAD past j where it is to be checked, and for the
 * rest of the rows of the pair GS_VERIFY_AHEAD past j, each step needing
 * what the one before asked for.
 */
static inline void
verify_prefetch(const VerifyArg *a, uint64 j, uint64 hi)
{
	uint64		k = j + GS_VERIFY_AHEAD;

	if (k + 2 * GS_VERIFY_AHEAD < hi)
		gs_prefetch(&a->tuples[a->order[k + 2 * GS_VERIFY_AHEAD]]);
	if (k + GS_VERIFY_AHEAD < hi &&
		needs_check(a, partner(a, k + GS_VERIFY_AHEAD), k + GS_VERIFY_AHEAD))
	{
		gs_prefetch(a->tuples[a->order[k + GS_VERIFY_AHEAD]]);
		gs_prefetch(a->tuples[a->order[partner(a, k + GS_VERIFY_AHEAD)]]);
	}
	if (k < hi && needs_check(a, partner(a, k), k))
	{
		gs_prefetch_row_rest(a->tuples[a->order[k]]);
		gs_prefetch_row_rest(a->tuples[a->order[partner(a, k)]]);
	}
}

/*
 * Whether the row at j - 1, which is the row of output position topkey
 * (not j - 1 where a fused task moved rows), is to be compared with row j:
 * as needs_check where it is j - 1's own; else unless their keys first
 * differ before the checked column, an exact order (see the header).
 */
static inline bool
pair_needs_check(const VerifyArg *a, uint64 q, uint64 topkey, uint64 j)
{
	const uint64 *ka;
	const uint64 *kb;

	if (topkey == j - 1)
		return needs_check(a, q, j);
	ka = a->sorted_keys + topkey * a->nwords;
	kb = a->sorted_keys + j * a->nwords;
	return gs_keys_differ_in(a->keys, a->col, ka, kb) ||
		memcmp(ka, kb, sizeof(uint64) * a->nwords) == 0;
}

/*
 * Compares the row at position p of order with the row in rowslot, as
 * gs_keys_compare_column_nothrow; false also where they are equal strings
 * and later sort columns would decide.  Equal strings are equal rows else.
 */
static bool
probe_compare(VerifyArg *a, uint64 t, uint64 p, TupleTableSlot *rowslot,
			  int *r)
{
	TupleTableSlot *probe = a->slots[2 * a->ntasks + t];

	ExecStoreMinimalTuple(a->tuples[a->worder[p]], probe, false);
	a->inscompares[t]++;
	return gs_keys_compare_column_nothrow(a->keys, a->col, probe, rowslot, r) &&
		!(*r == 0 && a->later_cols);
}

/*
 * Whether the row at position p of order holds, in the checked column,
 * the same bytes as the row in rowslot (false where either cannot be read
 * on a thread): equal under any collation, found without strcoll.
 */
static bool
same_string(VerifyArg *a, uint64 t, uint64 p, TupleTableSlot *rowslot)
{
	TupleTableSlot *probe = a->slots[2 * a->ntasks + t];
	Datum		x,
				y;

	ExecStoreMinimalTuple(a->tuples[a->worder[p]], probe, false);
	if (!gs_keys_column_value_nothrow(a->keys, a->col, probe, &x) ||
		!gs_keys_column_value_nothrow(a->keys, a->col, rowslot, &y))
		return false;
	return gs_keys_values_same_nothrow(a->keys, a->col, x, y);
}

/* moves the row at position j to position p < j, the rows between up one */
static void
move_row(VerifyArg *a, uint64 t, uint64 p, uint64 j)
{
	uint32		row = a->worder[j];

	memmove(a->worder + p + 1, a->worder + p, sizeof(uint32) * (j - p));
	a->worder[p] = row;
	a->inserted[t]++;
}

/*
 * Fused repair: row j (stored in rowslot) was found below row j - 1, the
 * largest of the ascending run order[base .. j).  Finds the first row of
 * the run above row j, searching from the run's end (j - 2, j - 3, j - 4,
 * then j - 6, j - 10, ..., then by halves), and moves row j there.  False,
 * moving nothing, where the row goes before base or a comparison is not
 * decided by strcoll alone (see the header): the caller marks j instead.
 */
static bool
insert_backwards(VerifyArg *a, uint64 t, uint64 base, uint64 j,
				 TupleTableSlot *rowslot, uint64 *at)
{
	uint64		lo = base,
				hi = j - 1,		/* order[hi ..] are above row j */
				step = 1;
	int			tries = 0;
	bool		linear = true;

	/* the run's largest is its only row, or j is the run's first */
	if (j <= base + 1)
		return false;
	while (lo < hi)
	{
		uint64		p;
		int			r;

		if (linear)
			p = (hi - lo >= step) ? hi - step : lo;
		else
			p = lo + (hi - lo) / 2;
		if (!probe_compare(a, t, p, rowslot, &r))
			return false;
		if (r > 0)
			hi = p;
		else
		{
			lo = p + 1;
			linear = false;		/* the bound lies in [lo, hi): halve it */
		}
		if (linear && ++tries >= 3)
			step *= 2;
	}
	if (hi == base)
		return false;
	move_row(a, t, hi, j);
	*at = hi;
	return true;
}

/*
 * Fused repair of a row that follows one just moved (to position from) and
 * is known not below it: a value's duplicates, which the transform put
 * after the same row as their first.  Row j (stored in rowslot) goes before
 * the first row after from above it, mostly from + 1: found going up from
 * there, a comparison a row, the run's largest (at j - 1) last.  1 where
 * it moved there (*at), 0 where it is not below the run's largest (it
 * stays), -1 where that was not found in GS_VERIFY_FOLLOW_PROBES or not
 * decided by strcoll alone (the caller checks the pair as any other).
 */
#define GS_VERIFY_FOLLOW_PROBES	3

static int
insert_after(VerifyArg *a, uint64 t, uint64 from, uint64 j,
			 TupleTableSlot *rowslot, uint64 *at)
{
	uint64		p;
	int			r;

	/*
	 * The same string as the row at from: then the row after that, which
	 * strcoll put above it, is above row j too, and no strcoll is needed
	 */
	if (same_string(a, t, from, rowslot))
	{
		move_row(a, t, from + 1, j);
		*at = from + 1;
		return 1;
	}
	for (p = from + 1; p < j && p <= from + GS_VERIFY_FOLLOW_PROBES; p++)
	{
		if (!probe_compare(a, t, p, rowslot, &r))
			return -1;
		if (r > 0)
		{
			move_row(a, t, p, j);
			*at = p;
			return 1;
		}
		if (p == j - 1)
			return 0;
	}
	return -1;
}

/*
 * Fused: a row that follows the row just moved (to *moved, PG_UINT64_MAX
 * where none was), in order after it for sure, placed after it with no
 * comparison, one or a few (insert_after).  True where that placed it (moved or
 * left in place); *moved tells where it moved to.
 */
static bool
place_follower(VerifyArg *a, uint64 t, uint64 j, uint64 hi,
			   TupleTableSlot *rowslot, uint64 *moved)
{
	uint64		from = *moved;
	uint64		at;
	int			res;

	*moved = PG_UINT64_MAX;
	if (from == PG_UINT64_MAX || j + 1 >= hi || needs_check(a, j - 1, j))
		return false;
	ExecStoreMinimalTuple(a->tuples[a->order[j]], rowslot, false);
	res = insert_after(a, t, from, j, rowslot, &at);
	if (res == 1)
	{
		a->bad[t]++;
		*moved = at;
	}
	return res >= 0;
}

/*
 * Task t's pairs on a thread, until one it cannot decide (the backend
 * then goes on from a->stopped[t]).  Where fused, descents are repaired
 * in place as the header says; else, and where that cannot be, marked.
 */
static void
verify_task(VerifyArg *a, uint64 t)
{
	TupleTableSlot **slots = &a->slots[2 * t];
	int			cur = 0;		/* the slot holding row held */
	bool		holding = false;
	uint32		held = 0;
	uint64		lo,
				hi,
				j,
				base,
				topkey,
				moved = PG_UINT64_MAX;	/* where row j - 1 moved to */

	verify_bounds(a, t, &lo, &hi);
	base = lo;
	topkey = lo - 1;
	for (j = lo; j < hi; j++)
	{
		uint64		q = partner(a, j);
		TupleTableSlot *sa;
		TupleTableSlot *sb;
		int			r;

		verify_prefetch(a, j, hi);
		if (place_follower(a, t, j, hi, slots[1 - cur], &moved))
		{
			/* the run's largest, in slots[cur], is at j now, or row j is */
			if (moved == PG_UINT64_MAX)
			{
				topkey = j;
				cur = 1 - cur;
			}
			held = a->order[j];
			continue;
		}
		if (!pair_needs_check(a, q, topkey, j))
		{
			topkey = j;
			continue;
		}
		/* a row checked against its successor was just deformed as one */
		if (!holding || held != a->order[q])
			ExecStoreMinimalTuple(a->tuples[a->order[q]], slots[cur], false);
		sa = slots[cur];
		sb = slots[1 - cur];
		ExecStoreMinimalTuple(a->tuples[a->order[j]], sb, false);
		/* equal under strcoll with different prefixes: the backend decides */
		if (!gs_keys_compare_column_nothrow(a->keys, a->col, sa, sb, &r) || r == 0)
			break;
		a->checked[t]++;
		holding = true;
		if (r > 0)
			a->bad[t]++;
		if (r > 0 && a->worder && j + 1 < hi &&
			insert_backwards(a, t, base, j, sb, &moved))
		{
			/* row j - 1 (in sa, the run's largest) is now at j */
			held = a->order[j];
			continue;
		}
		if (r > 0)
		{
			a->isbad[j] = 1;
			base = j;
		}
		topkey = j;
		held = a->order[j];
		cur = 1 - cur;
	}
	a->stopped[t] = j;
}

static void
verify_tasks(void *p, uint64 tlo, uint64 thi)
{
	VerifyArg  *a = (VerifyArg *) p;
	uint64		t;

	for (t = tlo; t < thi; t++)
		verify_task(a, t);
}

/* where fused: each task's share of order copied into the writable one */
static void
copy_tasks(void *p, uint64 tlo, uint64 thi)
{
	VerifyArg  *a = (VerifyArg *) p;
	uint64		t;

	for (t = tlo; t < thi; t++)
	{
		uint64		lo,
					hi;

		gs_team_slice(a->n, a->ntasks, t, &lo, &hi);
		memcpy(a->worder + lo, a->src + lo, sizeof(uint32) * (hi - lo));
	}
}

/* notes position j as out of order, keeping room for 2 more entries */
static void
note_bad(VerifyArg *a, uint64 j)
{
	if (a->nrest + 2 >= a->maxrest)
	{
		a->maxrest *= 2;
		a->rest = repalloc_huge(a->rest, sizeof(uint64) * a->maxrest);
	}
	a->rest[a->nrest++] = j;
}

/*
 * Task t's pairs that its thread left, with PostgreSQL's comparators, after
 * noting the positions out of order that the thread found (all before).
 */
static void
verify_rest(GsSort *node, VerifyArg *a, uint64 t)
{
	TupleTableSlot *sa = a->slots[2 * t];
	TupleTableSlot *sb = a->slots[2 * t + 1];
	uint64		lo,
				hi,
				j;

	verify_bounds(a, t, &lo, &hi);
	if (a->bad[t] > a->inserted[t])
		for (j = lo; j < a->stopped[t]; j++)
			if (a->isbad[j])
				note_bad(a, j);
	for (j = a->stopped[t]; j < hi; j++)
	{
		uint64		q = partner(a, j);

		gs_poll_interrupts(j + 1);
		/* the first: its thread may have moved rows, whose keys are elsewhere */
		if (!needs_check(a, q, j) && !(a->worder && j == a->stopped[t]))
			continue;
		ExecStoreMinimalTuple(a->tuples[a->order[q]], sa, false);
		ExecStoreMinimalTuple(a->tuples[a->order[j]], sb, false);
		a->checked[t]++;
		if (gs_sort_compare_slots(node, sa, sb, 0) > 0)
		{
			note_bad(a, j);
			a->bad[t]++;
		}
	}
	ExecClearTuple(sa);
	ExecClearTuple(sb);
}

/* rows at positions p and q of order are in order under the comparators */
static bool
rows_in_order(GsSort *node, VerifyArg *a, TupleTableSlot **slots,
			  const uint32 *order, uint64 p, uint64 q)
{
	TupleTableSlot *sa = slots[0];
	TupleTableSlot *sb = slots[1];
	bool		ok;

	ExecStoreMinimalTuple(a->tuples[order[p]], sa, false);
	ExecStoreMinimalTuple(a->tuples[order[q]], sb, false);
	ok = gs_sort_compare_slots(node, sa, sb, 0) <= 0;
	ExecClearTuple(sa);
	ExecClearTuple(sb);
	return ok;
}

/*
 * debug_scramble_keys: swaps the first pair of the output that the
 * prefixes order, among those whose rows and both neighbours are truly in
 * order.  The check reads the keys at output positions, which the swap
 * leaves where they were; around a pair in order the swap makes exactly
 * one descent, at that pair, which the check compares.  Swapping a pair
 * the transform had already put out of order would instead move the
 * descents to pairs whose keys tie, which the check rightly skips in a
 * real sort (the comparators ordered them) -- a scramble no sort can give.
 */
static void
scramble(GsSort *node, VerifyArg *a, uint32 *order)
{
	TupleDesc	desc = node->row_slot->tts_tupleDescriptor;
	TupleTableSlot *slots[2];
	uint64		j;

	slots[0] = MakeSingleTupleTableSlot(desc, &TTSOpsMinimalTuple);
	slots[1] = MakeSingleTupleTableSlot(desc, &TTSOpsMinimalTuple);
	for (j = 1; j < a->nout; j++)
	{
		gs_poll_interrupts(j);
		if (needs_check(a, j - 1, j) &&
			rows_in_order(node, a, slots, order, j - 1, j) &&
			(j < 2 || rows_in_order(node, a, slots, order, j - 2, j - 1)) &&
			(j + 1 >= a->n || rows_in_order(node, a, slots, order, j, j + 1)))
		{
			uint32		tmp = order[j - 1];

			order[j - 1] = order[j];
			order[j] = tmp;
			break;
		}
	}
	ExecDropSingleTupleTableSlot(slots[0]);
	ExecDropSingleTupleTableSlot(slots[1]);
}

static uint32 *
writable_copy(GsSort *node, const uint32 *order, uint64 n)
{
	uint32	   *copy = MemoryContextAllocHuge(node->runcxt, sizeof(uint32) * n);

	memcpy(copy, order, sizeof(uint32) * n);
	return copy;
}

/* the tasks' arrays and slots */
static void
verify_alloc(VerifyArg *a, TupleDesc desc)
{
	uint64		t;

	a->slots = palloc(sizeof(TupleTableSlot *) * 3 * a->ntasks);
	a->stopped = palloc(sizeof(uint64) * a->ntasks);
	a->checked = palloc0(sizeof(uint64) * a->ntasks);
	a->bad = palloc0(sizeof(uint64) * a->ntasks);
	a->inserted = palloc0(sizeof(uint64) * a->ntasks);
	a->inscompares = palloc0(sizeof(uint64) * a->ntasks);
	a->isbad = palloc_extended(a->n, MCXT_ALLOC_HUGE | MCXT_ALLOC_ZERO);
	a->maxrest = 64;
	a->rest = palloc(sizeof(uint64) * a->maxrest);
	a->nrest = 0;
	for (t = 0; t < 3 * a->ntasks; t++)
		a->slots[t] = MakeSingleTupleTableSlot(desc, &TTSOpsMinimalTuple);
}

static void
verify_free(VerifyArg *a)
{
	uint64		t;

	for (t = 0; t < 3 * a->ntasks; t++)
		ExecDropSingleTupleTableSlot(a->slots[t]);
	pfree(a->slots);
	pfree(a->stopped);
	pfree(a->checked);
	pfree(a->bad);
	pfree(a->inserted);
	pfree(a->inscompares);
	pfree(a->isbad);
	pfree(a->rest);
}

/* runs the tasks on threads, or marks them all left to the backend */
static void
verify_run_tasks(GsSort *node, VerifyArg *a, int nthreads)
{
	uint64		t,
				hi;

	if (nthreads > 1)
	{
		if (a->src)
			gs_cpu_for_tasks(a->ntasks, nthreads, copy_tasks, a);
		gs_thread_rows_prepare(node->row_slot, node->tuples[0]);
		gs_cpu_for_tasks(a->ntasks, nthreads, verify_tasks, a);
	}
	else
		for (t = 0; t < a->ntasks; t++)
			verify_bounds(a, t, &a->stopped[t], &hi);
}

uint32 *
gs_sort_verify(GsSort *node, const uint32 *order, uint32 *writable,
			   const uint64 *sorted_keys, int nwords, uint64 n, int col)
{
	VerifyArg	a;
	int			nthreads = (n >= GS_THREADED_MIN_ROWS) ? gpusort_threads() : 1;
	uint64		t,
				inserted = 0;

	if (n < 2 || node->nout == 0)
		return writable;
	memset(&a, 0, sizeof(a));
	a.keys = node->keys;
	a.col = col;
	a.sorted_keys = sorted_keys;
	a.nwords = nwords;
	a.tuples = node->tuples;
	a.refined = node->refined;
	a.n = n;
	a.nout = node->nout;

	if (gpusort_debug_scramble_keys)
	{
		if (writable == NULL)
			writable = writable_copy(node, order, n);
		scramble(node, &a, writable);
	}
	a.order = writable ? writable : order;

	/* fused repair (see the header): the tasks copy order where they move */
	if (nthreads > 1 && a.nout == n && col == 0)
	{
		if (writable == NULL)
		{
			writable = MemoryContextAllocHuge(node->runcxt, sizeof(uint32) * n);
			a.src = order;
		}
		a.worder = writable;
		a.order = writable;
		a.later_cols = node->nkeys > 1;
	}

	a.ntasks = (nthreads > 1) ? (uint64) nthreads * GS_VERIFY_TASKS_PER_THREAD : 1;
	a.ntasks = Min(a.ntasks, n - 1);
	verify_alloc(&a, node->row_slot->tts_tupleDescriptor);
	verify_run_tasks(node, &a, nthreads);
	for (t = 0; t < a.ntasks; t++)
	{
		verify_rest(node, &a, t);
		node->info.verify_pairs += a.checked[t];
		node->info.verify_bad += a.bad[t];
		/* each row moved in place is a run of one merged */
		inserted += a.inserted[t];
		node->info.repair_compares += a.inscompares[t];
	}
	node->info.verified = true;
	/* the runs: the descents and one (gs_sort_repair counts its own) */
	node->info.repair_runs += inserted;
	if (a.nrest == 0 && inserted > 0)
		node->info.repair_runs++;

	if (a.nrest > 0)
	{
		/* the transform disagreed with strcoll: repaired where it did */
		if (writable == NULL)
			writable = writable_copy(node, order, n);
		gs_sort_repair(node, writable, n, a.rest, a.nrest);
	}
	verify_free(&a);
	if (node->refined)
		pfree(node->refined);
	node->refined = NULL;
	return writable;
}
