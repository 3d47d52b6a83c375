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
 * gpusort.debug_scramble_keys swaps two rows whose prefixes differ before
 * the check, so that tests can see the repair work.
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "miscadmin.h"

#include "engine.h"
#include "libcoll.h"
#include "settings.h"
#include "sortstate.h"
#include "threads_backend.h"
#include "thread_slots.h"

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

static void
verify_tasks(void *p, uint64 tlo, uint64 thi)
{
	VerifyArg  *a = (VerifyArg *) p;
	uint64		t;

	for (t = tlo; t < thi; t++)
	{
		TupleTableSlot **slots = &a->slots[2 * t];
		int			cur = 0;	/* the slot holding position held */
		uint64		held = PG_UINT64_MAX;
		uint64		lo,
					hi,
					j;

		verify_bounds(a, t, &lo, &hi);
		for (j = lo; j < hi; j++)
		{
			uint64		q = partner(a, j);
			TupleTableSlot *sa;
			TupleTableSlot *sb;
			int			r;

			verify_prefetch(a, j, hi);
			if (!needs_check(a, q, j))
				continue;
			/* a row checked against its successor was just deformed as one */
			if (held != q)
				ExecStoreMinimalTuple(a->tuples[a->order[q]], slots[cur], false);
			sa = slots[cur];
			sb = slots[1 - cur];
			ExecStoreMinimalTuple(a->tuples[a->order[j]], sb, false);
			held = j;
			cur = 1 - cur;
			/* equal under strcoll with different prefixes: the backend decides */
			if (!gs_keys_compare_column_nothrow(a->keys, a->col, sa, sb, &r) || r == 0)
				break;
			a->checked[t]++;
			if (r > 0)
			{
				a->isbad[j] = 1;
				a->bad[t]++;
			}
		}
		a->stopped[t] = j;
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
verify_rest(GpuSortState *node, VerifyArg *a, uint64 t)
{
	TupleTableSlot *sa = a->slots[2 * t];
	TupleTableSlot *sb = a->slots[2 * t + 1];
	uint64		lo,
				hi,
				j;

	verify_bounds(a, t, &lo, &hi);
	if (a->bad[t] > 0)
		for (j = lo; j < a->stopped[t]; j++)
			if (a->isbad[j])
				note_bad(a, j);
	for (j = a->stopped[t]; j < hi; j++)
	{
		uint64		q = partner(a, j);

		if ((j + 1) % GS_INTERRUPT_EVERY == 0)
			CHECK_FOR_INTERRUPTS();
		if (!needs_check(a, q, j))
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
rows_in_order(GpuSortState *node, VerifyArg *a, TupleTableSlot **slots,
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
scramble(GpuSortState *node, VerifyArg *a, uint32 *order)
{
	TupleDesc	desc = node->row_slot->tts_tupleDescriptor;
	TupleTableSlot *slots[2];
	uint64		j;

	slots[0] = MakeSingleTupleTableSlot(desc, &TTSOpsMinimalTuple);
	slots[1] = MakeSingleTupleTableSlot(desc, &TTSOpsMinimalTuple);
	for (j = 1; j < a->nout; j++)
	{
		if ((j % GS_INTERRUPT_EVERY) == 0)
			CHECK_FOR_INTERRUPTS();
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
writable_copy(GpuSortState *node, const uint32 *order, uint64 n)
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

	a->slots = palloc(sizeof(TupleTableSlot *) * 2 * a->ntasks);
	a->stopped = palloc(sizeof(uint64) * a->ntasks);
	a->checked = palloc0(sizeof(uint64) * a->ntasks);
	a->bad = palloc0(sizeof(uint64) * a->ntasks);
	a->isbad = palloc_extended(a->n, MCXT_ALLOC_HUGE | MCXT_ALLOC_ZERO);
	a->maxrest = 64;
	a->rest = palloc(sizeof(uint64) * a->maxrest);
	a->nrest = 0;
	for (t = 0; t < 2 * a->ntasks; t++)
		a->slots[t] = MakeSingleTupleTableSlot(desc, &TTSOpsMinimalTuple);
}

static void
verify_free(VerifyArg *a)
{
	uint64		t;

	for (t = 0; t < 2 * a->ntasks; t++)
		ExecDropSingleTupleTableSlot(a->slots[t]);
	pfree(a->slots);
	pfree(a->stopped);
	pfree(a->checked);
	pfree(a->bad);
	pfree(a->isbad);
	pfree(a->rest);
}

/* runs the tasks on threads, or marks them all left to the backend */
static void
verify_run_tasks(GpuSortState *node, VerifyArg *a, int nthreads)
{
	uint64		t,
				hi;

	if (nthreads > 1)
	{
		gs_thread_rows_prepare(node->row_slot, node->tuples[0]);
		gs_cpu_for_tasks(a->ntasks, nthreads, verify_tasks, a);
	}
	else
		for (t = 0; t < a->ntasks; t++)
			verify_bounds(a, t, &a->stopped[t], &hi);
}

uint32 *
gs_sort_verify(GpuSortState *node, const uint32 *order, uint32 *writable,
			   const uint64 *sorted_keys, int nwords, uint64 n, int col)
{
	VerifyArg	a;
	int			nthreads = (n >= GS_THREADED_MIN_ROWS) ? gpusort_threads() : 1;
	uint64		t;

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

	a.ntasks = (nthreads > 1) ? (uint64) nthreads * GS_VERIFY_TASKS_PER_THREAD : 1;
	a.ntasks = Min(a.ntasks, n - 1);
	verify_alloc(&a, node->row_slot->tts_tupleDescriptor);
	verify_run_tasks(node, &a, nthreads);
	for (t = 0; t < a.ntasks; t++)
	{
		verify_rest(node, &a, t);
		node->info.verify_pairs += a.checked[t];
		node->info.verify_bad += a.bad[t];
	}
	node->info.verified = true;

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
