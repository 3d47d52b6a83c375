/*-------------------------------------------------------------------------
 *
 * sortspill.c
 *	  The GpuSort node beyond its memory budget: sorted runs in temp files
 *	  and their merge (the node's side of src/sort/spill/).
 *
 * When the stored rows outgrow gpusort.max_memory (or the server-wide
 * account, or 32-bit row numbers), sortstore.c sorts them as usual -- keys,
 * engine, ties, strcoll check -- and, instead of gathering them into output
 * order, hands the order to gs_spill_write_run, which writes the rows in
 * that order with their keys as one run (spillrun.c); the node then frees
 * the rows and goes on reading.  At the end of the input the last rows
 * become the last run, kept in memory (gs_spill_keep_run), and the rows are
 * returned from a d-way merge of the runs (spillmerge.c), one at a time,
 * straight from the runs' read buffers: no second copy of the output is
 * made.  A rescan starts the merge over; where backward scans or marks are
 * asked for, the merge fills a tuplestore once (gs_spill_materialize).
 *
 * Every run's keys have one layout (gs_spill_fix_layout), fixed by
 * statistics that cover any row (NULLs, the widest range, the longest
 * string), so the keys of different runs compare with each other as the
 * engine compared them within a run.  The merge orders two rows by
 *
 *	 - their keys, where they differ -- except where they first differ in a
 *	   libc collation's strxfrm prefix, which PostgreSQL does not trust to
 *	   agree with strcoll: there the comparators decide from that column on;
 *	 - the comparators from the key's first inexact column on, where the
 *	   keys are equal and the key does not decide everything;
 *	 - run order, where the sort columns are equal (spillmerge.c).
 *
 * Invariant: each run is in an order stock's Sort could return (sortnode.c
 * checks a libc prefix's order within the run, re-sorting it with the
 * comparators if need be), and the comparison above agrees with the
 * operators wherever it does not leave the order to them, so the merged
 * output is too.  Dictionary ranks (sortdict.c) number one run's values,
 * so the runs' keys are without them; where that leaves the key inexact,
 * a run is sorted as a sort that fits (ranks, refined ties, the strcoll
 * check), each row then written with its own runs' key (sort_run in
 * sortnode.c), so one run's ties cost no more than the sort in memory.
 *
 * Where the keys decide every comparison and gpusort has 4 threads or
 * more, the merge is spillbatch.c's instead: batches of the runs' rows, cut
 * into key ranges that threads merge, handed out in the same order.
 *
 * A merge reads GS_SPILL_MAX_WAYS runs at once at most, each through a
 * buffer of its own: where more runs accumulated (a budget small for the
 * rows), runs are merged into one before the final merge (reduce_runs):
 * GS_SPILL_MAX_WAYS runs at a time, or as few as bring the count down to
 * GS_SPILL_MAX_WAYS (33 runs: the first two), each pass taking the runs
 * after those the passes before wrote, so that a row is written again once
 * per level (183 runs: 5 passes, 157 runs' rows written again), not at
 * every pass.  A merged run takes the place of those it replaces, so run
 * order, and with it stability, holds.
 *
 * Temp files are the runs' BufFiles, closed by gs_spill_close, or by the
 * resource owner at the end of the transaction (ERROR, cancel).  Under a
 * Gather, a participant's GpuSort writes every run, its last one too, to
 * the query's shared files, and the GpuSort above merges them all with
 * those of its own (sortshared.c): the same runs, the same merge.
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "miscadmin.h"
#include "portability/instr_time.h"
#include "utils/memutils.h"

#include "engine/engine.h"
#include "runtime/settings.h"
#include "keys/sortkey.h"
#include "sortstate.h"
#include "spill/spillmerge.h"
#include "spill/spillrun.h"
#include "base/timing.h"
#include "threads/threads_backend.h"

/* the runs' key, at most this wide: two words */
#define GS_SPILL_KEY_BYTES	16

/* runs one merge reads at once, at most (see above) */
#define GS_SPILL_MAX_WAYS	32

/*
 * A batched merge's batch: this many bytes a thread, shared out among the
 * runs' read buffers, each within these bounds and an eighth of the budget
 */
#define GS_MERGE_BATCH_PER_THREAD	((Size) 2 * 1024 * 1024)
#define GS_MERGE_BUFFER_MIN	((Size) 256 * 1024)
#define GS_MERGE_BUFFER_MAX	((Size) 4 * 1024 * 1024)

/*
 * Threads the batched merge needs: with fewer, the tree of losers merges.
 * The batched merge does more passes over the rows (read, scan, merge,
 * hand out) than the tree, which only pays where threads share them; and
 * every batch starts and joins a team, whose helper thread may wait
 * milliseconds for a core on a small busy machine (measured on 2 cores:
 * the batched merge 5-40% slower on one thread, 1.3-2.5x on two,
 * bench/results/sort/spill_2core_2026-11-26_merge.md).
 */
#define GS_MERGE_MIN_THREADS	4

static int	spill_compare(void *arg, const GsRun *a, const GsRun *b);
static GsMergeCmp merge_compare(GsSort *node);
static GsMerge *begin_merge(GsSort *node, MemoryContext cxt,
							GsRun **runs, int nruns);

/*
 * Lays out the key of every run of this sort: statistics that cover any
 * row make the layout independent of the rows seen, and the key is cut to
 * GS_SPILL_KEY_BYTES (its prefix: the comparators settle the rest), which
 * keeps the runs' files small.
 */
void
gs_spill_fix_layout(GsSort *node)
{
	int			ncols = gs_keys_ncols_observed(node->keys);
	GsKeyColStats *wide = palloc(sizeof(GsKeyColStats) * Max(ncols, 1));
	int			c;

	for (c = 0; c < gs_keys_nraw(node->keys); c++)
		gs_keys_set_ranks(node->keys, c, NULL, 0);
	gs_keys_stats_any(node->keys, wide);
	gs_keys_merge_stats(node->keys, wide);
	gs_keys_layout(node->keys, GS_KEY_MAX_BYTES);
	if (gs_keys_nwords(node->keys) * 8 > GS_SPILL_KEY_BYTES)
		gs_keys_layout(node->keys, GS_SPILL_KEY_BYTES);
	node->spill_vcol = gs_keys_verified_column(node->keys);
	pfree(wide);
}

/*
 * Does the runs' layout (node->keys after gs_spill_fix_layout) decide every
 * comparison: no libc prefix (whose order strcoll checks) and every sort
 * column exact?  The merge then compares keys alone (merge_compare), and a
 * run is sorted by those keys.
 */
bool
gs_spill_layout_exact(GsSort *node)
{
	return node->spill_vcol < 0 && gs_keys_first_inexact(node->keys) >= node->nkeys;
}

/* the first GS_SPILL_PREFETCH_LINES cache lines of a row, ahead of its copy */
static inline void
prefetch_row(MinimalTuple tup)
{
	int			l;

	for (l = 0; l < GS_SPILL_PREFETCH_LINES; l++)
		gs_prefetch((char *) tup + l * 64);
}

/* a new run in node->runs, after those there */
void
gs_spill_add_run(GsSort *node, GsRun *run)
{
	if (node->nruns == node->maxruns)
	{
		node->maxruns = Max(8, node->maxruns * 2);
		node->runs = node->runs ?
			repalloc(node->runs, sizeof(GsRun *) * node->maxruns) :
			MemoryContextAlloc(node->runcxt, sizeof(GsRun *) * node->maxruns);
	}
	node->runs[node->nruns++] = run;
}

/*
 * Merges runs[first .. first + k) into one run, written out, which takes
 * their place.
 */
static void
merge_range(GsSort *node, int first, int k)
{
	MemoryContext passcxt = AllocSetContextCreate(node->runcxt, "GpuSort merge pass",
												  ALLOCSET_DEFAULT_SIZES);
	GsMerge    *m = begin_merge(node, passcxt, node->runs + first, k);
	GsRun	   *out = gs_run_create(node->runcxt, gs_keys_nwords(node->keys),
										NULL, NULL);
	GsRun	   *run;
	uint64		i = 0;
	int			r;

	while ((run = gs_merge_next(m)) != NULL)
	{
		gs_run_write(out, run->key, run->tup);
		gs_poll_interrupts(++i);
	}
	ExecClearTuple(node->row_slot);
	ExecClearTuple(node->cmp_slot);
	gs_merge_end(m);
	for (r = first; r < first + k; r++)
		gs_run_close(node->runs[r]);
	node->runs[first] = out;
	memmove(node->runs + first + 1, node->runs + first + k,
			sizeof(GsRun *) * (node->nruns - first - k));
	node->nruns -= k - 1;
	node->info.spill_bytes += out->bytes;
	node->info.merge_passes++;
	MemoryContextDelete(passcxt);
}

/* merges runs until GS_SPILL_MAX_WAYS are left at most (above) */
static void
reduce_runs(GsSort *node)
{
	int			merged = 0;		/* runs[0 .. merged): this level's passes */

	while (node->nruns > GS_SPILL_MAX_WAYS)
	{
		int			k = Min(GS_SPILL_MAX_WAYS, node->nruns - GS_SPILL_MAX_WAYS + 1);

		/* no k runs after this level's: the next level merges those */
		if (merged + k > node->nruns)
			merged = 0;
		merge_range(node, merged, k);
		merged++;
	}
}

/* the key written with the i-th row of a run (GsRunKeys) */
static inline const uint64 *
run_key(const GsRunKeys *rk, const uint32 *order, uint64 i, int nwords)
{
	uint64		k = !rk->by_row ? i : rk->pos ? rk->pos[order[i]] : order[i];

	return rk->keys + k * nwords;
}

uint32 *
gs_spill_key_positions(GsSort *node, const uint32 *rows)
{
	uint32	   *pos = gs_huge_alloc(node->runcxt,
									sizeof(uint32) * Max(node->ntuples, 1));
	uint64		j;

	for (j = 0; j < node->ntuples; j++)
	{
		pos[rows[j]] = (uint32) j;
		gs_poll_interrupts(j + 1);
	}
	return pos;
}

/*
 * Writes the stored rows in the given order, with their keys, as run, a new
 * one of the caller's (see sortstate.h).
 */
void
gs_spill_write_run(GsSort *node, GsRun *run, const GsRunKeys *rk,
				   const uint32 *order)
{
	int			nwords = gs_keys_nwords(node->keys);
	uint64		n = node->ntuples;
	uint64		i;
	instr_time	start;

	INSTR_TIME_SET_CURRENT(start);
	gs_spill_add_run(node, run);

	for (i = 0; i < n; i++)
	{
		/*
		 * Two random reads a row, each prefetched ahead: the row's pointer
		 * (far ahead), then the row it points to (nearer, its pointer then
		 * in cache)
		 */
		if (i + 2 * GS_SPILL_PREFETCH < n)
			gs_prefetch(&node->tuples[order[i + 2 * GS_SPILL_PREFETCH]]);
		if (i + GS_SPILL_PREFETCH < n)
			prefetch_row(node->tuples[order[i + GS_SPILL_PREFETCH]]);
		gs_run_write(run, run_key(rk, order, i, nwords), node->tuples[order[i]]);
		gs_poll_interrupts(i + 1);
	}
	node->info.spill_runs++;
	node->info.spill_bytes += run->bytes;
	node->info.ms_spill += gs_elapsed_ms(start);
}

/*
 * The keys of the last run, kept in memory (gs_spill_keep_run), in output
 * order: their own array, since the sorter's keys go with the sorter.
 */
uint64 *
gs_spill_run_keys(GsSort *node, const GsRunKeys *rk, const uint32 *order)
{
	int			nwords = gs_keys_nwords(node->keys);
	uint64		n = node->ntuples;
	uint64	   *out = gs_huge_alloc(node->runcxt,
									sizeof(uint64) * nwords * Max(n, 1));
	uint64		i;

	if (!rk->by_row)
	{
		if (n > 0)
			memcpy(out, rk->keys, sizeof(uint64) * nwords * n);
		return out;
	}
	for (i = 0; i < n; i++)
	{
		memcpy(out + i * nwords, run_key(rk, order, i, nwords),
			   sizeof(uint64) * nwords);
		gs_poll_interrupts(i + 1);
	}
	return out;
}

/*
 * The stored rows, node->tuples[0 .. ntuples) in output order with their
 * keys (gs_spill_run_keys), become the last run, read from memory.
 */
void
gs_spill_keep_run(GsSort *node, const uint64 *keys)
{
	gs_spill_add_run(node, gs_run_in_memory(node->runcxt, gs_keys_nwords(node->keys),
								   keys, node->tuples, node->ntuples));
}

/* the merge's order of the current rows of runs a and b (see above) */
static int
spill_compare(void *arg, const GsRun *a, const GsRun *b)
{
	GsSort	   *node = (GsSort *) arg;
	int			c = gs_key_cmp(a->key, b->key, a->nwords);
	int			from;

	if (c != 0)
	{
		if (node->spill_vcol < 0 ||
			!gs_keys_differ_in(node->keys, node->spill_vcol, a->key, b->key))
			return c;
		from = node->spill_vcol;
	}
	else
	{
		from = gs_keys_first_inexact(node->keys);
		if (from >= node->nkeys)
			return 0;
	}
	ExecStoreMinimalTuple(a->tup, node->row_slot, false);
	ExecStoreMinimalTuple(b->tup, node->cmp_slot, false);
	return gs_sort_compare_slots(node, node->row_slot, node->cmp_slot, from);
}

/*
 * spill_compare, or NULL where the keys decide every comparison (no libc
 * prefix, every sort column exact in the key): the merge then compares the
 * keys inline
 */
static GsMergeCmp
merge_compare(GsSort *node)
{
	if (node->spill_vcol < 0 && gs_keys_first_inexact(node->keys) >= node->nkeys)
		return NULL;
	return spill_compare;
}

/*
 * A merge of nruns runs: where the keys decide and there are threads
 * enough, batched on threads (spillbatch.c); otherwise through the tree of
 * losers, which calls the comparators where they are needed.  A batch is
 * sized to the threads: large enough that each has rows to merge between
 * two joins, small enough that the rows are still in cache when they are
 * returned.  The batched merge holds two windows a run (one batch is
 * returned while the next is read), together an eighth of the budget at
 * most (the last run, in memory, may hold most of it).
 */
static GsMerge *
begin_merge(GsSort *node, MemoryContext cxt, GsRun **runs, int nruns)
{
	int			nthreads = gpusort_threads();
	Size		bufsize;
	Size		cap = gpusort_memory_budget() / 8 / 2 / Max(nruns, 1);

	/* (few cores: the tree of losers, GS_MERGE_MIN_THREADS) */
	if (nthreads < GS_MERGE_MIN_THREADS)
		nthreads = 0;
	bufsize = GS_MERGE_BATCH_PER_THREAD * Max(nthreads, 1) / Max(nruns, 1);
	cap = Min(Max(cap, GS_MERGE_BUFFER_MIN), GS_MERGE_BUFFER_MAX);
	bufsize = Min(Max(bufsize, GS_MERGE_BUFFER_MIN), cap);
	return gs_merge_begin(cxt, runs, nruns, merge_compare(node), node,
						  nthreads, bufsize);
}

/* all runs are written: the merge starts at their first rows */
void
gs_spill_start_merge(GsSort *node)
{
	instr_time	start;

	node->spill_vcol = gs_keys_verified_column(node->keys);
	INSTR_TIME_SET_CURRENT(start);
	reduce_runs(node);
	node->info.ms_spill += gs_elapsed_ms(start);
	node->merge = begin_merge(node, node->runcxt, node->runs, node->nruns);
	node->info.merge_ways = node->nruns;
}

/* the next merged row, or NULL; valid until the next call */
MinimalTuple
gs_spill_next(GsSort *node)
{
	GsRun	   *run;
	instr_time	start;

	if (node->time_emit)
		INSTR_TIME_SET_CURRENT(start);
	run = gs_merge_next(node->merge);
	/* the comparators may have left rows in these slots (not the keys) */
	if (!TTS_EMPTY(node->row_slot))
		ExecClearTuple(node->row_slot);
	if (!TTS_EMPTY(node->cmp_slot))
		ExecClearTuple(node->cmp_slot);
	if (node->time_emit)
		node->info.ms_merge += gs_elapsed_ms(start);
	if (run == NULL)
		gs_merge_stats(node->merge, &node->info.merge_threads,
					   &node->info.merge_batches, &node->info.merge_ranges,
					   &node->info.ms_merge_waited);
	return run ? run->tup : NULL;
}

/*
 * Where backward scans or mark/restore are asked for (a SCROLL cursor, the
 * inner side of a merge join), the merged rows go to a tuplestore, as a
 * Material node would keep them (in work_mem, then in a temp file of its
 * own), and the runs are closed: the node returns rows from there.  Read
 * pointer 1 is the mark.
 */
void
gs_spill_materialize(GsSort *node)
{
	MemoryContext oldcxt = MemoryContextSwitchTo(node->runcxt);
	int			eflags = EXEC_FLAG_REWIND | EXEC_FLAG_BACKWARD | EXEC_FLAG_MARK;
	MinimalTuple tup;
	uint64		i = 0;

	node->store = tuplestore_begin_heap(true, false, work_mem);
	tuplestore_set_eflags(node->store, eflags);
	(void) tuplestore_alloc_read_pointer(node->store, eflags);
	while ((tup = gs_spill_next(node)) != NULL)
	{
		ExecStoreMinimalTuple(tup, node->row_slot, false);
		tuplestore_puttupleslot(node->store, node->row_slot);
		gs_poll_interrupts(++i);
	}
	ExecClearTuple(node->row_slot);
	gs_spill_close(node);
	node->info.spill_stored = true;
	MemoryContextSwitchTo(oldcxt);
}

/* a rescan: the merge starts over */
void
gs_spill_rewind(GsSort *node)
{
	gs_merge_rewind(node->merge);
}

/* closes and deletes the runs' files */
void
gs_spill_close(GsSort *node)
{
	int			i;

	/* (a batched merge holds descriptors of the runs' files) */
	if (node->merge)
		gs_merge_end(node->merge);
	for (i = 0; i < node->nruns; i++)
		gs_run_close(node->runs[i]);
	node->nruns = 0;
	node->runs = NULL;
	node->maxruns = 0;
	node->merge = NULL;
}
