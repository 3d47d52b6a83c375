/*-------------------------------------------------------------------------
 *
 * sortcompare.c
 *	  Sorting a run of equal keys with PostgreSQL's own comparators: the
 *	  last step of every way a run of ties is settled.
 *
 * sortties.c finds the runs of equal keys after the engine's sort and hands
 * each to the transform's next bytes (sortrefine.c), the later columns'
 * keys (sortlater.c), the collation on threads (sortcoll.c) or straight
 * here; each of those ends here with the rows it could not tell apart.  So
 * this file sits below all four and calls none of them.
 *
 * A run's rows are read from the stored tuples into one array of values,
 * from the first column the key could not decide on, and sorted with the
 * sort columns' SortSupport comparators; the comparison ends on the row
 * number, so rows the operators call equal keep input order, as the
 * engines do (the invariant of sortties.c).  A run can hold every row: the
 * loops, qsort's included, check for interrupts every GS_INTERRUPT_EVERY
 * rows.  The values live in a context reset after the run.
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "miscadmin.h"
#include "utils/memutils.h"

#include "sortstate.h"
#include "threads/threads_backend.h"

/*
 * Looks up the comparators, once, when the first sort runs: as tuplesort
 * does, and not at executor start, so that a plan whose sort never runs
 * (EXPLAIN, LIMIT 0) works even where an ordering operator's btree family
 * has no comparison support function, as it does with stock PostgreSQL.
 * gs_keys_create only finds no encoder for such an operator.
 */
void
gs_sort_prepare_support(GsSort *node)
{
	int			i;

	if (node->ssup_ready)
		return;
	for (i = 0; i < node->nkeys; i++)
		PrepareSortSupportFromOrderingOp(node->sortops[i], &node->ssup[i]);
	node->ssup_ready = true;
}

/* one row of a run of equal keys, with its remaining sort columns */
typedef struct TieRow
{
	uint32		row;
	Datum	   *values;
	bool	   *isnull;
} TieRow;

typedef struct TieCompareArg
{
	GsSort	   *node;
	int			firstkey;
	uint32		ncompares;		/* for interrupt checks */
} TieCompareArg;

static int
tie_compare(const void *a, const void *b, void *arg)
{
	const TieRow *ra = a;
	const TieRow *rb = b;
	TieCompareArg *ta = arg;
	int			k;

	/* a run can hold every row: stay cancellable inside qsort */
	gs_poll_interrupts(++ta->ncompares);
	for (k = 0; k < ta->node->nkeys - ta->firstkey; k++)
	{
		int			c = ApplySortComparator(ra->values[k], ra->isnull[k],
											rb->values[k], rb->isnull[k],
											&ta->node->ssup[ta->firstkey + k]);

		if (c != 0)
			return c;
	}
	/* equal rows keep input order, as the engines do */
	return (ra->row > rb->row) - (ra->row < rb->row);
}

/*
 * Sorts order[0 .. len-1], rows whose keys are equal, by the sort columns
 * from firstkey on.  The values point into the stored tuples.
 */
void
gs_sort_settle_run(GsSort *node, uint32 *order, uint64 len, int firstkey,
				   MemoryContext tiecxt)
{
	MemoryContext oldcxt = MemoryContextSwitchTo(tiecxt);
	int			ncmp = node->nkeys - firstkey;
	TieRow	   *rows = MemoryContextAllocHuge(tiecxt, sizeof(TieRow) * len);
	Datum	   *values = MemoryContextAllocHuge(tiecxt, sizeof(Datum) * ncmp * len);
	bool	   *isnull = MemoryContextAllocHuge(tiecxt, sizeof(bool) * ncmp * len);
	TieCompareArg arg = {node, firstkey, 0};
	uint64		i;
	int			k;

	for (i = 0; i < len; i++)
	{
		TupleTableSlot *slot = node->row_slot;

		ExecStoreMinimalTuple(node->tuples[order[i]], slot, false);
		rows[i].row = order[i];
		rows[i].values = values + i * ncmp;
		rows[i].isnull = isnull + i * ncmp;
		for (k = 0; k < ncmp; k++)
			rows[i].values[k] = slot_getattr(slot, node->attnos[firstkey + k],
											 &rows[i].isnull[k]);
		gs_poll_interrupts(i + 1);
	}
	ExecClearTuple(node->row_slot);

	qsort_arg(rows, len, sizeof(TieRow), tie_compare, &arg);
	for (i = 0; i < len; i++)
		order[i] = rows[i].row;

	MemoryContextSwitchTo(oldcxt);
	MemoryContextReset(tiecxt);
}

void
gs_sort_settle_range(GsSort *node, uint32 *order, uint64 len,
					 int firstkey)
{
	MemoryContext tiecxt = AllocSetContextCreate(node->runcxt, "GpuSort ties",
												 ALLOCSET_DEFAULT_SIZES);

	gs_sort_settle_run(node, order, len, firstkey, tiecxt);
	MemoryContextDelete(tiecxt);
}
