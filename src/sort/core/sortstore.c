/*-------------------------------------------------------------------------
 *
 * sortstore.c
 *	  One GpuSort's sort: its steps, and the first of them here: the sort's
 *	  state set up (gs_sort_begin), every row put stored with its raw key,
 *	  the bounded sort's pruning, runs written as the memory fills, the
 *	  fallback to tuplesort, and a parallel intake's run writer.
 *
 * One sort goes through these steps:
 *
 *	 1. read: pull every input row, copy it as a MinimalTuple into large
 *		blocks of a memory context of its own (rowstore.c: packed, no
 *		per-row palloc), and let sortkey.c observe the sort columns (NULLs,
 *		ranges, lengths);
 *		when the key columns are a few numbers, it also writes each row's
 *		raw key (sortkey.h) into an array in row order, while the row is
 *		still deformed and in cache;
 *	 2. keys: rank the leading columns of few distinct values (sortdict.c),
 *		choose the key layout from what was seen (and the width from
 *		a sample, sortkey.c), and build each row's key from its raw key
 *		straight into the engine's buffer, in row order: a sequential pass
 *		over the raw keys, or over the stored rows for wider raw keys
 *		(strings), whose array would cost more to fault in than a second
 *		deform does;
 *	 3. sort: the engine (engine.h) sorts the (key, row number) pairs; it is
 *		stable, so equal keys keep row order;
 *	 4. ties: where the key does not decide the order by itself (a truncated
 *		prefix, an ICU key, a column past the key), each run of equal keys is
 *		ordered by the next bytes of the same transform where the key holds
 *		a prefix of one (sortrefine.c), and with PostgreSQL's own
 *		comparators (SortSupport) where values are equal or have no
 *		transform, as tuplesort settles equal abbreviated keys (sortties.c);
 *		where the key is a libc collation's strxfrm prefix, which PostgreSQL
 *		does not trust to follow strcoll, every adjacent pair that the
 *		transform ordered is then compared with strcoll, and the pairs out
 *		of order are repaired by merging the runs between them
 *		(sortverify.c, sortrepair.c);
 *	 5. emit: gather the row pointers into output order once (a pass that
 *		the CPU overlaps well), then return rows from that array, forwards
 *		or backwards, with mark/restore and rewind for free; each fetch
 *		prefetches a row a few places ahead, as the rows lie in input
 *		order and are touched in sorted order.
 *
 * Invariant: the rows are returned in an order stock PostgreSQL's Sort could
 * have returned: rows with different keys are ordered by their keys, whose
 * order is the operators' order (keys/keyencode.c), and rows with equal keys are
 * ordered by the operators themselves.
 *
 * Under a Limit the sort is bounded (top-N), as a Sort's would be: once the
 * stored rows reach a threshold they are sorted and cut to the first N, and
 * the N-th row becomes a cutoff that later input rows must beat to be kept
 * at all, so memory stays O(N) and most rows cost one comparison.
 *
 * Memory: the rows' bytes (gs_sort_stored_bytes) are reserved from the server-wide
 * account (memaccount.c) ahead of the rows, in steps that double from
 * GS_RESERVE_MIN_STEP to GS_RESERVE_MAX_STEP, so that a small sort reserves
 * little and a large one seldom; the reservation goes with runcxt.
 *
 * Beyond the memory: when the rows outgrow gpusort.max_memory, or the
 * account cannot give them room (the server's sorts together hold
 * gpusort.max_total_memory), or there are more than 2^32 - 1 of them, the
 * stored rows go through steps 2 to 4 as usual and are then written, in
 * order and with their keys, as a sorted run to a temp file (spill_stored,
 * sortspill.c); the sort frees them and reads on.  The last rows stay in
 * memory as the last run (keep_last_run), and step 5 returns rows from a
 * merge of the runs, or from a tuplestore filled by it where backward
 * scans or marks are asked for.  Parallel participants' rows that cannot
 * stay in shared memory are copied in as if read here (absorb_shared); a
 * participant whose share outgrows its room writes it as runs through a
 * run writer (gs_writer_create: these steps outside any GpuSort node, for
 * sortpar.c), and the sort above merges them as it merges a Gather Merge's
 * participants' runs.
 * A participant's GpuSort under a Gather (GS_SORT_SHARED_RUNS) writes
 * every run, its last one too, to the query's shared files and returns no
 * row, or passes a small share on unsorted (finish_shared_runs); the
 * GpuSort above the Gather merges those runs with its own (sortshared.c).
 *
 * Fallback: a bounded sort that outgrows the memory, and a sort that finds
 * no room in the account for even GS_SPILL_MIN_ROWS rows, hand everything
 * to PostgreSQL's tuplesort with work_mem, exactly as a Sort node would run
 * (spilling to disk if it must), and EXPLAIN ANALYZE says why.  A first
 * sort column without an encoder is known at plan time: the planner keeps
 * the stock plan (planner.c), as for a bounded sort estimated past the
 * budget.
 *
 * The core's callers never know which engine ran: that is
 * gs_sorter_begin's choice.  All memory of one sort lives in runcxt, a
 * child of the query context, so an ERROR or a cancel frees it with the
 * query.
 *
 * This file, the state's setup (gs_sort_begin), step 1 and the sort's end:
 * the feeder (the GpuSort node, node/sortnode.c, which pulls its child's
 * rows) starts a sort (gs_sort_start), puts every row (gs_sort_put) and
 * asks for the sort (gs_sort_perform).  A row is stored (store_row) into
 * the run's row store with its raw key while it is still deformed; under
 * a bound, rows that cannot beat the cutoff are dropped first
 * (row_after_cutoff) and the store is cut to the first N when it reaches
 * bound_prune_at.  When the rows outgrow gpusort.max_memory or the
 * server-wide account (gs_sort_stored_rows_fit, sortmem.c), they are
 * sorted (sortorder.c) and written as a run (spill_stored, sortspill.c),
 * unless too few to be worth it or bounded, when everything goes to
 * tuplesort (switch_to_tuplesort).  At the end the last rows become the
 * last run or the whole sort (finish_run); a participant's GpuSort
 * publishes its runs instead (finish_shared_runs).  The rows are returned
 * by sortfetch.c (gs_sort_gettuple), or taken as one array by a GpuWindow
 * or GpuAgg (gs_sort_rows_array).
 *
 * The run writer (gs_writer_create) is this file's steps for a
 * GpuSortStore participant (sortpar.c) whose share outgrew its room: a
 * GsSort of no GpuSort node, fed row by row, writing runs to the shared
 * files.
 *
 * All of one sort's memory lives in runcxt (gs_sort_reset frees it).
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#ifdef __GLIBC__
#include <malloc.h>
#endif

#include "access/htup_details.h"
#include "common/int.h"
#include "executor/executor.h"
#include "miscadmin.h"
#include "nodes/makefuncs.h"
#include "optimizer/optimizer.h"
#include "portability/instr_time.h"
#include "utils/memutils.h"
#include "utils/sortsupport.h"
#include "utils/tuplesort.h"

#include "base/timing.h"
#include "runtime/settings.h"
#include "sortcore.h"
#include "sortstate.h"
#include "threads/thread_share.h"
#include "threads/threads_backend.h"

/*
 * The row arrays are faulted in (prefault.c) GS_PREFAULT_WINDOW rows ahead
 * of the row being stored, which bounds the memory touched in vain to one
 * window; the blocks of rows are faulted in by rowstore.c.
 */
#define GS_PREFAULT_WINDOW	((uint64) 256 * 1024)

/*
 * Row arrays start with room for GS_CAPACITY_SLACK times the planner's
 * estimate, within these bounds (rows).
 */
#define GS_MIN_CAPACITY			1024
#define GS_MAX_INITIAL_CAPACITY	((uint64) 16 * 1024 * 1024)
#define GS_CAPACITY_SLACK		1.1

/*
 * When the server-wide account has no room, the stored rows go to a run
 * only if there are this many, else to tuplesort (see spill_allowed)
 */
#define GS_SPILL_MIN_ROWS	1024

/*
 * A bounded sort prunes when it holds max(bound, slack) rows beyond its
 * bound, the slack doubling from GS_BOUND_FIRST_SLACK at each prune up to
 * GS_BOUND_SLACK.  The first prune comes early because until then there is
 * no cutoff and every row is stored with its key, where stock's top-N heap
 * compares it with the heap's top: a first batch of 8192 rows cost 4 ms of
 * strxfrm over text in a 10^4-row sort that the heap finishes in 1 ms.
 * Later prunes are rarer because each one sorts what it holds: the doubling
 * keeps that cost per input row bounded even when every row beats the
 * cutoff (input in reverse order).
 */
#define GS_BOUND_FIRST_SLACK	256
#define GS_BOUND_SLACK		8192

static void store_row(GsSort *node, TupleTableSlot *slot, Size budget);
static void put_shared_row(void *arg, MinimalTuple tup);

/* the sort columns of custom_private, their comparators and key spec */
void
gs_sort_init_columns(GsSort *node, List *custom_private)
{
	GsSortColumns cols;
	int			i;

	gs_sort_columns(custom_private, &cols);
	node->nkeys = cols.n;
	node->attnos = cols.attnos;
	node->sortops = cols.sortops;
	node->collations = cols.collations;
	node->nulls_first = cols.nulls_first;
	node->ssup = palloc0(sizeof(SortSupportData) * node->nkeys);
	for (i = 0; i < node->nkeys; i++)
	{
		SortSupport ssup = &node->ssup[i];

		ssup->ssup_cxt = CurrentMemoryContext;
		ssup->ssup_collation = node->collations[i];
		ssup->ssup_nulls_first = node->nulls_first[i];
		ssup->ssup_attno = node->attnos[i];
		ssup->abbreviate = false;
	}

	node->keys = gs_keys_create(node->nkeys, node->attnos, node->sortops,
								node->collations, node->nulls_first,
								&node->nokey_reason);
}

/*
 * A sort's state for a node's life (or a run writer's), in
 * CurrentMemoryContext, the query's: its sorts' memory is a child of it.
 * Its slots (deforming stored rows, holding a bounded sort's cutoff) join
 * the executor's tuple table, which drops them at the query's end.
 */
GsSort *
gs_sort_begin(const GsSortSpec *spec)
{
	GsSort	   *node = palloc0(sizeof(GsSort));

	node->tupdesc = spec->tupdesc;
	node->est_rows = spec->est_rows;
	node->plan_node_id = spec->plan_node_id;
	node->mode = spec->mode;
	node->random_access = spec->random_access;
	node->forward_only = spec->forward_only;
	node->par = spec->par;
	node->below = spec->below;
	node->querycxt = CurrentMemoryContext;
	node->row_slot = ExecAllocTableSlot(spec->tuple_table, spec->tupdesc,
										&TTSOpsMinimalTuple);
	node->cmp_slot = ExecAllocTableSlot(spec->tuple_table, spec->tupdesc,
										&TTSOpsMinimalTuple);
	gs_sort_init_columns(node, spec->columns);
	return node;
}

/* a participant's shared runs, once the Gather's segment is set up */
void
gs_sort_set_shared(GsSort *node, struct GsSharedRuns *runs)
{
	node->shared = runs;
}

/* sorted since the last reset? */
bool
gs_sort_is_sorted(GsSort *node)
{
	return node->sort_done;
}

/* the current sort's bound (a Limit's), false when unbounded */
bool
gs_sort_bounded(GsSort *node, int64 *bound)
{
	*bound = node->bound;
	return node->bounded;
}

/*
 * An empty row store, whose blocks stay a small part of the budget: the
 * block faulted in ahead is memory the budget counts (gs_sort_stored_rows_fit)
 */
#define GS_ROWS_BLOCKS_PER_BUDGET	16

static void
init_rows(GsSort *node)
{
	gs_rows_init(&node->rows, node->runcxt, node->prefault);
	gs_rows_limit_blocks(&node->rows,
						 gpusort_memory_budget() / GS_ROWS_BLOCKS_PER_BUDGET);
}

/* the number of stored rows at which a bounded sort prunes next */
static uint64
bound_prune_at(GsSort *node)
{
	uint64		slack = GS_BOUND_SLACK;

	if (node->info.nprunes < 6)
		slack = Min(slack, (uint64) GS_BOUND_FIRST_SLACK << node->info.nprunes);
	return (uint64) node->bound + Max((uint64) node->bound, slack);
}

/*
 * Bounded sort: keeps only the first bound stored rows, in order, and makes
 * the last of them the cutoff.
 */
static void
prune_to_bound(GsSort *node)
{
	GsRowStore	oldrows;
	MinimalTuple *kept;
	uint64		capacity = node->maxtuples;
	uint64		nstored = node->ntuples;
	uint64		i;

	gs_sort_stored(node, true);
	oldrows = node->rows;
	init_rows(node);
	kept = gs_huge_alloc(node->runcxt, sizeof(MinimalTuple) * capacity);
	for (i = 0; i < node->nout; i++)
		kept[i] = gs_rows_store_copy(&node->rows, node->tuples[i]);
	ExecClearTuple(node->cmp_slot);

	node->info.rows_dropped += nstored - node->nout;
	node->info.nprunes++;
	node->prune_at = bound_prune_at(node);
	gs_rows_release(&oldrows);
	pfree(node->tuples);
	node->maxtuples = capacity;
	node->tuples = kept;
	node->ntuples = node->nout;
	node->prefaulted_rows = node->nout;	/* fresh arrays past the kept rows */
	node->cutoff = (node->nout == (uint64) node->bound) ?
		node->tuples[node->nout - 1] : NULL;
	if (node->cutoff)
		ExecStoreMinimalTuple(node->cutoff, node->cmp_slot, false);
}

/*
 * The keys a run of the stored rows is written with, and their order.
 *
 * The runs' keys take the runs' layout (gs_spill_fix_layout): 16 bytes
 * that compare across runs, so without dictionary ranks, which number one
 * run's values.  Where a column would be ranked, sorting by that layout
 * would leave most of the run to the comparators -- ORDER BY country,
 * city, name puts every row in a tie group of country's strxfrm prefix --
 * so the run is sorted as a sort that fits would be (ranks, the key it
 * would choose, refined ties, the strcoll check and its repairs), and each
 * row carries the key the runs' layout gives it, built first into a sorter
 * that is never sorted: keys by row.  Otherwise the rows are sorted by the
 * runs' keys, written as sorted (by rank), unless a strcoll repair moved
 * rows away from their keys' ranks: then each row's key is found through
 * where the sorter had put it (*pos).
 *
 * Either way the rows are in an order stock's Sort could return, and each
 * row's key is its own under the runs' layout, which node->keys has again
 * on return.  The caller ends *sorter and *run (NULL where none) and frees
 * *pos; *settled as for gs_sort_order_rows.
 */
static const uint32 *
sort_run(GsSort *node, GsSorter **sorter, GsSorter **run,
		 uint32 **settled, GsRunKeys *rk)
{
	const uint32 *order;
	uint64		bad_before = node->info.verify_bad;
	bool		resorted_before = node->info.verify_resorted;

	memset(rk, 0, sizeof(*rk));
	gs_spill_fix_layout(node);
	if (gs_spill_layout_exact(node) || !gs_sort_ranks_promising(node))
	{
		*run = NULL;
		*sorter = gs_sort_build_keys(node, true, GS_SORTER_NEED_KEYS);
		node->info.verify_resorted = false;
		order = gs_sort_order_rows(node, *sorter, settled);
		rk->keys = node->ntuples > 0 ? gs_sorter_key(*sorter, 0) : NULL;
		/* a repair or a re-sort moved rows away from their keys' ranks */
		if (node->info.verify_resorted || node->info.verify_bad != bad_before)
		{
			rk->by_row = true;
			rk->pos = gs_spill_key_positions(node, gs_sorter_rows(*sorter));
		}
		node->info.verify_resorted |= resorted_before;
		return order;
	}
	*run = gs_sort_build_keys(node, true, GS_SORTER_KEYS_ONLY);
	*sorter = gs_sort_build_keys(node, false, 0);
	order = gs_sort_order_rows(node, *sorter, settled);
	/* EXPLAIN shows the first run's layout beside the runs' */
	if (node->run_sort_keys == NULL)
	{
		MemoryContext oldcxt =
			MemoryContextSwitchTo(node->querycxt);

		node->run_sort_keys = gs_keys_snapshot(node->keys);
		MemoryContextSwitchTo(oldcxt);
	}
	gs_spill_fix_layout(node);
	rk->keys = gs_sorter_row_keys(*run);
	rk->by_row = true;
	return order;
}

/* what sort_run left to end and free */
static void
end_run_sort(GsSorter *sorter, GsSorter *run, uint32 *settled, GsRunKeys *rk)
{
	gs_sorter_end(sorter);
	if (run)
		gs_sorter_end(run);
	if (settled)
		pfree(settled);
	if (rk->pos)
		pfree(rk->pos);
}

/*
 * Sorts the stored rows as gs_sort_stored does, but writes them in that order
 * as a run to a temp file (sortspill.c) instead of gathering them, then
 * empties the row store for the rows still to come.  The arrays and the
 * reservation stay for the next run, which fills them again.
 */
static void
spill_stored(GsSort *node)
{
	MemoryContext oldcxt = MemoryContextSwitchTo(node->runcxt);
	GsSorter   *sorter;
	GsSorter   *run;
	const uint32 *order;
	uint32	   *settled;
	GsRunKeys	rk;

	node->spilling = true;
	gs_rows_finish(&node->rows);
	order = sort_run(node, &sorter, &run, &settled, &rk);
	node->info.engine = *gs_sorter_stats(sorter);
	node->info.have_engine = true;
	node->info.rows_sorted += node->ntuples;
	gs_sort_note_peak_memory(node);
	/* a participant's run goes to the shared files (sortshared.c) */
	gs_spill_write_run(node, node->shared ? gs_shared_run_create(node) :
					   gs_run_create(node->runcxt, gs_keys_nwords(node->keys),
									 NULL, NULL),
					   &rk, order);
	end_run_sort(sorter, run, settled, &rk);

	node->info.reused += node->rows.reused;
	gs_rows_release(&node->rows);
	init_rows(node);
	node->ntuples = 0;
	MemoryContextSwitchTo(oldcxt);
}

/*
 * May the rows that outgrow the memory go to runs?  Not under a bound (a
 * top-N sort keeps only its first rows), not once parallel participants'
 * rows in shared memory are among the stored ones (absorb_shared copies
 * them in instead, where they would not fit), and not for a handful of
 * rows, when the server-wide account is what is full: those go to
 * tuplesort.
 */
static bool
spill_allowed(GsSort *node, Size budget)
{
	return !node->bounded && node->shared_bytes == 0 &&
		(node->ntuples >= GS_SPILL_MIN_ROWS ||
		 (node->ntuples > 0 && gs_sort_stored_bytes(node) > budget));
}

/* the row pointers and raw keys, once their rows went elsewhere */
static void
free_row_arrays(GsSort *node)
{
	if (node->tuples)
		pfree(node->tuples);
	node->tuples = NULL;
	if (node->raw)
		pfree(node->raw);
	node->raw = NULL;
}

/*
 * Gives up on the engine: the stored rows, and every row still to come, go
 * to a tuplesort that runs as a Sort node's would.
 */
static void
switch_to_tuplesort(GsSort *node, const char *why)
{
	MemoryContext oldcxt = MemoryContextSwitchTo(node->runcxt);
	uint64		i;

	strlcpy(node->info.fallback, why, sizeof(node->info.fallback));
	node->info.used_tuplesort = true;
	/* a bound may only be set on a tuplesort begun to allow one */
	node->tuplesort = tuplesort_begin_heap(node->tupdesc,
										   node->nkeys, node->attnos,
										   node->sortops, node->collations,
										   node->nulls_first, work_mem, NULL,
										   (node->random_access ?
											TUPLESORT_RANDOMACCESS : TUPLESORT_NONE) |
										   (node->bounded ?
											TUPLESORT_ALLOWBOUNDED : TUPLESORT_NONE));
	if (node->bounded)
		tuplesort_set_bound(node->tuplesort, node->bound);
	for (i = 0; i < node->ntuples; i++)
	{
		ExecStoreMinimalTuple(node->tuples[i], node->row_slot, false);
		tuplesort_puttupleslot(node->tuplesort, node->row_slot);
		node->tuples[i] = NULL;
		gs_poll_interrupts(i + 1);
	}
	ExecClearTuple(node->row_slot);
	ExecClearTuple(node->cmp_slot);
	gs_rows_release(&node->rows);
	free_row_arrays(node);
	node->ntuples = 0;
	node->cutoff = NULL;
	/*
	 * tuplesort keeps within work_mem, as stock does: nothing to reserve.
	 * The rows' memory goes back to the kernel, not only to malloc, before
	 * the account says it is free: under a cgroup's limit, memory that
	 * malloc keeps for later is memory the others cannot have.
	 */
	if (node->reservation)
		gs_release_all(node->reservation);
	node->reserved_to = 0;
#ifdef __GLIBC__
	malloc_trim(0);
#endif
	MemoryContextSwitchTo(oldcxt);
}

/*
 * Room for the rows the planner expects, and some: growing the row
 * arrays by doubling copies them each time (tens of milliseconds for
 * millions of rows), while room that is never used costs only address
 * space.  A wild estimate is capped; beyond the cap the arrays double.
 */
static uint64
initial_capacity(GsSort *node)
{
	double		rows = node->est_rows * GS_CAPACITY_SLACK;
	uint64		capacity = GS_MIN_CAPACITY;

	/* parallel participants store the rows, or write runs; few arrive here */
	if (node->par || node->below)
		return capacity;
	if (rows > (double) GS_MIN_CAPACITY)
		capacity = rows < (double) GS_MAX_INITIAL_CAPACITY ?
			(uint64) rows : GS_MAX_INITIAL_CAPACITY;
	if (node->bounded)
		capacity = Min(capacity, Max(node->prune_at, GS_MIN_CAPACITY));
	return capacity;
}

/*
 * Called at every GS_PREFAULT_WINDOW-th row: the row arrays' window after
 * the one being filled is faulted in while this one fills.
 */
static void
prefault_arrays(GsSort *node)
{
	uint64		from = node->ntuples + GS_PREFAULT_WINDOW;
	uint64		to = Min(from + GS_PREFAULT_WINDOW, node->maxtuples);

	/* the runs after the first fill arrays already faulted in */
	from = Max(from, node->prefaulted_rows);
	if (from >= to)
		return;
	node->prefaulted_rows = to;
	gs_prefault(node->prefault, node->tuples + from,
				sizeof(MinimalTuple) * (to - from));
	if (node->raw)
		gs_prefault(node->prefault, node->raw + from * node->raw_bytes,
					(Size) node->raw_bytes * (to - from));
}

/*
 * Why the rows of parallel participants that ran out of room go to
 * tuplesort: the sort's budget, or the reservation the server-wide
 * account could give them (sortpar.c)
 */
static void
overflow_reason(GsSort *node, char *why, size_t len, Size budget)
{
	Size		limit = gs_par_limit(node->par);

	if (limit >= budget)
		gs_sort_budget_reason(why, len, budget);
	else
		snprintf(why, len, "rows need more than the %zu kB of shared memory reserved for the parallel workers",
				 limit / 1024);
}

/*
 * May the rows that parallel participants stored join the stored ones where
 * they are?  Not when they ran out of room and passed rows on, nor when
 * the rows already went to runs or would outgrow the budget, 32-bit row
 * numbers or the server-wide account: then absorb_shared copies them in
 * through store_row, which writes runs as the memory fills.
 *
 * The budget counts what gs_sort_stored_bytes will count once they joined: the
 * participants' rows too.  Leaving those out let rows past the budget join
 * and then go to a serial tuplesort (a comparator sort of every row, many
 * times slower than the runs).  The server-wide account holds the
 * participants' rows already (their intake reserved them), so only the
 * rest is reserved here.
 */
static bool
shared_rows_fit(GsSort *node, uint64 n, uint64 total, Size budget)
{
	Size		need = gs_sort_stored_bytes(node) + n * gs_sort_row_bytes(node->raw_bytes);
	char		why[128];

	if (gs_par_overflowed(node->par) || node->spilling ||
		total > PG_UINT32_MAX || need + node->info.par_bytes > budget)
		return false;
	return gs_sort_reserve_stored(node, need, why, sizeof(why));
}

typedef struct StoreSharedArg
{
	GsSort	   *node;
	Size		budget;
} StoreSharedArg;

/* a participant's row, stored as if read here (gs_par_foreach) */
static void
store_shared_row(void *arg, MinimalTuple tup)
{
	StoreSharedArg *a = (StoreSharedArg *) arg;
	GsSort	   *node = a->node;

	if (node->tuplesort)
		put_shared_row(node, tup);
	else
	{
		ExecStoreMinimalTuple(tup, node->cmp_slot, false);
		store_row(node, node->cmp_slot, a->budget);
	}
}

static void
put_shared_row(void *arg, MinimalTuple tup)
{
	GsSort	   *node = (GsSort *) arg;

	ExecStoreMinimalTuple(tup, node->row_slot, false);
	tuplesort_puttupleslot(node->tuplesort, node->row_slot);
}

/*
 * Takes the rows that parallel participants stored in shared memory (see
 * sortpar.c) after those that came through the Gather: their raw keys and
 * addresses join the sort's arrays, their key statistics its spec, as if
 * the sort had read them itself.  The rows stay where they are.
 */
static void
absorb_shared(GsSort *node, Size budget)
{
	GsParInput *par = node->par;
	uint64		n = gs_par_nrows(par);
	uint64		total = node->ntuples + n;
	instr_time	start;
	char		why[128];

	if (n == 0)
		return;
	INSTR_TIME_SET_CURRENT(start);
	node->info.par_rows = n;
	node->info.par_parts = gs_par_nparts(par, &node->info.par_bytes);

	if (!node->tuplesort && node->bounded && gs_par_overflowed(par))
	{
		overflow_reason(node, why, sizeof(why), budget);
		switch_to_tuplesort(node, why);
	}
	if (!node->tuplesort && node->bounded && total > PG_UINT32_MAX)
		switch_to_tuplesort(node, "more rows than 32-bit row numbers can count");

	if (node->tuplesort)
	{
		gs_par_foreach(par, put_shared_row, node);
		ExecClearTuple(node->row_slot);
	}
	else if (!shared_rows_fit(node, n, total, budget))
	{
		/* copied in as if read here, and written in runs as they fill */
		StoreSharedArg a = {node, budget};

		gs_par_foreach(par, store_shared_row, &a);
		ExecClearTuple(node->cmp_slot);
		if (node->tuplesort)
			ExecClearTuple(node->row_slot);
	}
	else
	{
		gs_par_merge_stats(par, node->keys);
		node->tuples = gs_huge_realloc(node->tuples, sizeof(MinimalTuple) * total);
		node->raw = gs_huge_realloc(node->raw, (Size) node->raw_bytes * total);
		gs_par_fill(par, node->tuples + node->ntuples,
					node->raw + node->ntuples * node->raw_bytes,
					node->raw_bytes, gpusort_threads());
		node->ntuples = node->maxtuples = total;
		node->shared_bytes = node->info.par_bytes;
		if (gs_sort_stored_bytes(node) > budget)
		{
			gs_sort_budget_reason(why, sizeof(why), budget);
			switch_to_tuplesort(node, why);
		}
	}
	node->info.ms_absorb = gs_elapsed_ms(start);
}

/* the run's memory, keys and arrays, before the first row */
static void
start_run(GsSort *node, int64 bound, bool timed)
{
	gs_sort_prepare_support(node);
	memset(&node->info, 0, sizeof(GsRunInfo));
	node->info.valid = true;
	node->time_emit = timed;
	node->bounded = bound > 0;
	node->bound = bound;
	node->info.bound = bound;
	/* a bounded sort keeps its first rows: the participants pass theirs on */
	if (node->par)
		gs_par_allow_runs(node->par, !node->bounded);
	node->runcxt = AllocSetContextCreate(node->querycxt, "GpuSort",
										 ALLOCSET_DEFAULT_SIZES);
	node->prefault = gs_prefaulter_create(node->runcxt);
	node->reservation = gs_reservation_create(node->runcxt);
	/* the session sorts until runcxt goes: its share of the cores */
	gs_thread_share_enter(node->runcxt);
	node->reserved_to = 0;
	node->prefaulted_rows = 0;
	gs_sort_stat_watch(node);

	if (node->keys == NULL)
	{
		switch_to_tuplesort(node, node->nokey_reason);
		return;
	}
	init_rows(node);
	node->prune_at = node->bounded ? bound_prune_at(node) : 0;
	node->maxtuples = initial_capacity(node);
	node->tuples = gs_huge_alloc(node->runcxt,
								 sizeof(MinimalTuple) * node->maxtuples);
	node->raw_bytes = gs_keys_raw_bytes(node->keys);
	/* a parallel intake brings every row's raw key: keep all */
	node->raw = (gs_keys_raw_is_small(node->keys) || node->par) ?
		gs_huge_alloc(node->runcxt, (Size) node->raw_bytes * node->maxtuples) :
		NULL;
	gs_keys_reset(node->keys);
}

/* room for one more row; false when the rows outgrow 32-bit row numbers */
static bool
grow_arrays(GsSort *node)
{
	uint64		newmax;

	if (node->ntuples < node->maxtuples)
		return true;
	newmax = Min(node->maxtuples * 2, (uint64) PG_UINT32_MAX);
	if (node->ntuples >= newmax)
		return false;
	/* the copies of the filled rows are touched, the rest is fresh */
	node->prefaulted_rows = Min(node->prefaulted_rows, node->ntuples);
	node->tuples = gs_huge_realloc(node->tuples, sizeof(MinimalTuple) * newmax);
	if (node->raw)
		node->raw = gs_huge_realloc(node->raw, (Size) node->raw_bytes * newmax);
	node->maxtuples = newmax;
	return true;
}

/*
 * Takes the sort keys of a row and stores it.  A row of a table comes in a
 * buffer slot, and deforming it up to the last key column walks every
 * column before, each read a cache miss the first time: for wide rows
 * with keys late in them, most of the intake.  So the row is copied first,
 * a sequential read the hardware prefetches, and its keys are taken from
 * the copy, in cache by then (row_slot holds it until the next row).  A
 * virtual row is deformed already, and a minimal one costs the same where
 * it lies.
 */
static inline void
observe_and_store(GsSort *node, TupleTableSlot *slot)
{
	uint8	   *raw = node->raw ? node->raw + node->ntuples * node->raw_bytes : NULL;
	MinimalTuple mt;

	if (TTS_IS_VIRTUAL(slot) || TTS_IS_MINIMALTUPLE(slot))
	{
		gs_keys_observe(node->keys, slot, raw);
		node->tuples[node->ntuples++] = gs_rows_store_slot(&node->rows, slot);
		return;
	}
	mt = gs_rows_store_slot(&node->rows, slot);
	node->tuples[node->ntuples++] = mt;
	ExecStoreMinimalTuple(mt, node->row_slot, false);
	gs_keys_observe(node->keys, node->row_slot, raw);
}

/*
 * Stores one row with its raw key; when the rows outgrow the memory, what
 * is stored goes to a run (or everything to the tuplesort).
 */
static void
store_row(GsSort *node, TupleTableSlot *slot, Size budget)
{
	char		why[128];

	if (!grow_arrays(node) && spill_allowed(node, budget))
		spill_stored(node);
	else if (node->ntuples == node->maxtuples)
	{
		switch_to_tuplesort(node, "more rows than 32-bit row numbers can count");
		tuplesort_puttupleslot(node->tuplesort, slot);
		return;
	}
	if (node->ntuples % GS_PREFAULT_WINDOW == 0)
		prefault_arrays(node);
	observe_and_store(node, slot);

	if (!gs_sort_stored_rows_fit(node, budget, why, sizeof(why)))
	{
		if (spill_allowed(node, budget))
			spill_stored(node);
		else
			switch_to_tuplesort(node, why);
	}
	else if (node->bounded && node->ntuples >= node->prune_at)
		prune_to_bound(node);
}

/*
 * Does an input row sort at or after the cutoff (and so cannot be among the
 * first bound rows)?  This runs once per input row of a bounded sort, most
 * of which it drops, so it reads as little of the row as it can: a row
 * still in its heap tuple (a scan's) is read column by column with
 * heap_getattr, which goes straight to a column at its cached offset, as
 * tuplesort's top-N heap reads its first key; slot_getattr would first
 * deform every column up to the sort column.  The cutoff row in cmp_slot
 * is deformed once and stays so.  The comparisons are the Sort's own
 * (ApplySortComparator), so the answer is the Sort's.
 */
static bool
row_after_cutoff(GsSort *node, TupleTableSlot *slot)
{
	HeapTuple	tuple;
	int			k;

	if (slot->tts_nvalid > 0 ||
		!(TTS_IS_BUFFERTUPLE(slot) || TTS_IS_HEAPTUPLE(slot)))
		return gs_sort_compare_slots(node, slot, node->cmp_slot, 0) >= 0;
	tuple = ((HeapTupleTableSlot *) slot)->tuple;
	for (k = 0; k < node->nkeys; k++)
	{
		bool		anull,
					bnull;
		Datum		ad = heap_getattr(tuple, node->attnos[k],
									  slot->tts_tupleDescriptor, &anull);
		Datum		bd = slot_getattr(node->cmp_slot, node->attnos[k], &bnull);
		int			c = ApplySortComparator(ad, anull, bd, bnull, &node->ssup[k]);

		if (c != 0)
			return c > 0;
	}
	return true;
}

/* one input row: stored with its key, or handed to the tuplesort */
static void
take_row(GsSort *node, TupleTableSlot *slot, Size budget)
{
	char		why[128];

	node->info.rows_in++;

	/*
	 * The participants ran out of room and pass their rows on: stored here,
	 * in runs as they fill the memory; a bounded sort has no runs.
	 */
	if (node->par && !node->tuplesort && node->bounded &&
		gs_par_overflowed(node->par))
	{
		overflow_reason(node, why, sizeof(why), budget);
		switch_to_tuplesort(node, why);
	}
	if (node->tuplesort)
	{
		tuplesort_puttupleslot(node->tuplesort, slot);
		return;
	}
	if (node->cutoff && row_after_cutoff(node, slot))
	{
		node->info.rows_dropped++;
		return;
	}
	store_row(node, slot, budget);
}

/*
 * The last rows of a sort that wrote runs: sorted as the others, but kept
 * in memory, in output order, as the last run (sortspill.c), which spares
 * writing and reading them.  Their memory is held until the sort ends.
 */
static void
keep_last_run(GsSort *node)
{
	MemoryContext oldcxt = MemoryContextSwitchTo(node->runcxt);
	GsSorter   *sorter;
	GsSorter   *run;
	const uint32 *order;
	uint32	   *settled;
	GsRunKeys	rk;
	uint64	   *keys;

	gs_rows_finish(&node->rows);
	order = sort_run(node, &sorter, &run, &settled, &rk);
	node->info.engine = *gs_sorter_stats(sorter);
	node->info.rows_sorted += node->ntuples;
	keys = gs_spill_run_keys(node, &rk, order);
	gs_sort_note_peak_memory(node);
	gs_sort_gather_output(node, order, false);
	end_run_sort(sorter, run, settled, &rk);
	gs_spill_keep_run(node, keys);
	MemoryContextSwitchTo(oldcxt);
}

/*
 * The input is read and runs were written: the last rows become the last
 * run, and the merge starts.
 */
static void
finish_runs(GsSort *node)
{
	if (node->ntuples > 0)
		keep_last_run(node);
	gs_spill_start_merge(node);
	/* the merge goes forwards only */
	if (!node->forward_only)
		gs_spill_materialize(node);
}

/*
 * A participant's share is read (sortshared.c): the rows still stored
 * become its last run, and its runs, all closed, are published for the
 * GpuSort above the Gather; it returns no row.  Rows that went to a
 * tuplesort (the fallback) are returned as usual, to be sorted above.
 */
static void
finish_shared_runs(GsSort *node, Size budget)
{
	int			nruns;

	/*
	 * A share that never outgrew its part of the budget (the participants'
	 * together fit the merger's) goes through the Gather as it was read,
	 * to be sorted above with the others: no file for a few rows
	 */
	if (!node->writer && !node->spilling && !node->tuplesort &&
		gs_sort_stored_bytes(node) <= budget / gs_shared_participants(node))
	{
		gs_rows_finish(&node->rows);
		gs_shared_publish(node, 0, 0);
		node->nout = node->ntuples;
		node->info.rows_passed = node->ntuples;
		return;
	}
	if (node->ntuples > 0 && !node->tuplesort)
		spill_stored(node);
	nruns = node->nruns;
	node->info.runs_shared = true;
	/* the runs' buffers are written out as their files close */
	gs_spill_close(node);
	gs_shared_publish(node, nruns, node->info.rows_sorted);
	node->spilling = false;
	node->nout = 0;
	free_row_arrays(node);
	node->maxtuples = 0;
	if (node->reservation)
		gs_release_all(node->reservation);
	node->reserved_to = 0;
}

/*
 * The input is read (since node->intake_start): sort what was stored, or
 * let the tuplesort sort
 */
static void
finish_run(GsSort *node, Size budget)
{
	node->info.prefaulted = gs_prefault_finish(node->prefault);
	node->info.reused += node->rows.reused;
	if (node->par)
		absorb_shared(node, budget);
	node->info.ms_intake = gs_elapsed_ms(node->intake_start);
	if (node->shared)
		finish_shared_runs(node, budget);
	else if (node->below || node->par)
		(void) gs_shared_adopt(node);
	if (node->tuplesort)
	{
		instr_time	start;

		INSTR_TIME_SET_CURRENT(start);
		tuplesort_performsort(node->tuplesort);
		node->info.ms_sort += gs_elapsed_ms(start);
		tuplesort_get_stats(node->tuplesort, &node->info.tsstats);
	}
	else if (node->spilling)
		finish_runs(node);
	else if (!node->shared)
	{
		gs_rows_finish(&node->rows);
		node->info.rows_sorted = node->ntuples;
		node->info.stored_bytes = gs_sort_stored_bytes(node);
		gs_sort_stored(node, false);
	}
	node->current = 0;
	node->eof_reached = false;
	node->markpos = 0;
	node->mark_eof = false;
	node->sort_done = true;
}

/*
 * A new sort (the last one reset): bound > 0 keeps only the first bound
 * rows; timed counts the time spent returning rows.  The intake's time
 * runs from here to gs_sort_perform, the input's own time included, as
 * EXPLAIN ANALYZE has always shown it.
 */
void
gs_sort_start(GsSort *node, int64 bound, bool timed)
{
	Assert(node->runcxt == NULL && !node->sort_done);
	node->budget = gpusort_memory_budget();
	start_run(node, bound, timed);
	INSTR_TIME_SET_CURRENT(node->intake_start);
}

/* one input row: stored with its key, or handed to the tuplesort */
void
gs_sort_put(GsSort *node, TupleTableSlot *slot)
{
	take_row(node, slot, node->budget);
}

/* the input is read: sort it */
void
gs_sort_perform(GsSort *node)
{
	finish_run(node, node->budget);
}

/* frees the current sort */
void
gs_sort_reset(GsSort *node)
{
	ExecClearTuple(node->row_slot);
	ExecClearTuple(node->cmp_slot);
	if (node->tuplesort)
		tuplesort_end(node->tuplesort);
	node->tuplesort = NULL;
	gs_spill_close(node);
	node->spilling = false;
	if (node->store)
		tuplestore_end(node->store);
	node->store = NULL;
	if (node->runcxt)
		MemoryContextDelete(node->runcxt);
	node->runcxt = NULL;
	memset(&node->rows, 0, sizeof(GsRowStore));	/* went with runcxt */
	node->prefault = NULL;
	node->tuples = NULL;
	node->stream = NULL;		/* stopped by runcxt's deletion */
	node->ntuples = node->maxtuples = 0;
	node->shared_bytes = 0;
	node->reservation = NULL;	/* released with runcxt */
	node->reserved_to = 0;
	node->raw = NULL;
	node->nout = 0;
	node->cutoff = NULL;
	node->sort_done = false;
}

/* the sort state ends with the node: its current sort's memory goes */
void
gs_sort_end(GsSort *node)
{
	gs_sort_reset(node);
	pfree(node);
}

/*
 * A GpuWindow or GpuAgg above reads the rows all at once instead of one
 * ExecProcNode at a time (gs_sort_rows_array).  copy: the caller reads
 * every row more than once, column by column, and the rows are to be
 * copied into output order where the memory allows
 * (gs_sort_copy_rows_for_array); otherwise the pointers lead to the rows
 * where they were stored, and the caller prefetches ahead as it reads them.
 */
void
gs_sort_as_array(GsSort *node, bool copy)
{
	node->as_array = true;
	node->array_copy = copy;
}

/*
 * The sorted rows as an array in output order; false when they are not
 * held in memory (a tuplesort, or runs in temp files), whose rows only
 * come one at a time (gs_sort_gettuple still returns them all).
 */
bool
gs_sort_rows_array(GsSort *node, MinimalTuple **rows, uint64 *n)
{
	bool		ok;

	Assert(node->sort_done);
	ok = node->tuplesort == NULL && node->stream == NULL &&
		node->merge == NULL && node->store == NULL;
	*rows = ok ? node->tuples : NULL;
	*n = ok ? node->nout : 0;
	return ok;
}

/* ---- a parallel intake's run writer (sortpar.c) ------------------------------- */

/*
 * A GpuSort that is no node of the plan: a GpuSortStore participant whose
 * share outgrew its room gives it the rest of its share, row by row, and
 * it sorts them run by run and writes every run to the shared files runs,
 * as a participant's GS_SORT_SHARED_RUNS GpuSort does (sortshared.c).
 * spec is that GpuSortStore's: its custom_private holds the sort columns
 * as a GpuSort's does, its plan node id names the runs, and its input's
 * descriptor is the rows'.  In the query's memory.
 */
GsSort *
gs_writer_create(const GsSortSpec *spec, struct GsSharedRuns *runs)
{
	GsSort	   *node = gs_sort_begin(spec);

	node->forward_only = true;
	node->mode = GS_SORT_SHARED_RUNS;
	node->shared = runs;
	node->writer = true;
	return node;
}

/* a new share: the last one's memory goes */
void
gs_writer_start(GsSort *node)
{
	MemoryContext oldcxt = MemoryContextSwitchTo(node->querycxt);

	gs_sort_reset(node);
	start_run(node, 0, false);
	INSTR_TIME_SET_CURRENT(node->intake_start);
	MemoryContextSwitchTo(oldcxt);
}

/* one row of the share: stored, and written in a run when the memory fills */
void
gs_writer_put(GsSort *node, TupleTableSlot *slot)
{
	take_row(node, slot, gpusort_memory_budget());
}

/*
 * The share is read: the stored rows become its last run, and its runs are
 * published in its slot of the shared files for the merger.  Its memory
 * goes, but for the rows a fallback to tuplesort holds (gs_writer_next).
 */
void
gs_writer_finish(GsSort *node)
{
	MemoryContext oldcxt = MemoryContextSwitchTo(node->querycxt);

	finish_run(node, gpusort_memory_budget());
	if (node->tuplesort == NULL)
		gs_sort_reset(node);
	MemoryContextSwitchTo(oldcxt);
}

/*
 * The next row of a writer that fell back to tuplesort (too little room in
 * the server-wide account for a run), to be passed on through
 * the Gather; NULL at the end, and always for a writer that wrote runs
 */
TupleTableSlot *
gs_writer_next(GsSort *node)
{
	if (node->tuplesort &&
		tuplesort_gettupleslot(node->tuplesort, true, false, node->row_slot, NULL))
		return node->row_slot;
	return NULL;
}

/* what the writer wrote, for EXPLAIN (valid after gs_writer_finish) */
void
gs_writer_counts(GsSort *node, int *nruns, uint64 *rows, uint64 *bytes)
{
	*nruns = node->info.spill_runs;
	*rows = node->info.rows_sorted;
	*bytes = node->info.spill_bytes;
}

/* frees everything the writer holds (the node ends or rescans) */
void
gs_writer_end(GsSort *node)
{
	gs_sort_reset(node);
}
