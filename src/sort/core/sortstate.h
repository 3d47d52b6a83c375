/*-------------------------------------------------------------------------
 *
 * sortstate.h
 *	  The state of the sort's core (GsSort, opaque to the nodes: they see
 *	  sortcore.h), shared by the core's files (this folder: sortstore.c
 *	  the state's setup, the input, bounds, runs, the fallback and the run
 *	  writer; sortorder.c keys, the engine's sort and the output; sortmem.c
 *	  the rows' memory; the ties, sortties.c down to sortcompare.c; the
 *	  strcoll check and repair; spilled and shared runs; sortfetch.c the
 *	  rows returned; statistics) and read by EXPLAIN (node/sortexplain.c).
 *	  A GpuSort node (node/sortnode.h's GpuSortState) holds a pointer to
 *	  one; a GpuSortStore participant's run writer is one outside any node.
 *	  Nothing here knows the executor's node states: the feeder pulls the
 *	  rows, and what the core needs of the plan comes in GsSortSpec.
 *
 * The state's invariants are sortstore.c's (see its header comment): all
 * memory of one sort lives in runcxt; tuples[0 .. ntuples) holds the stored
 * rows, in input order until the sort and in output order after it; info
 * describes the last sort for EXPLAIN ANALYZE.  Once spilling, the rows
 * stored so far went to runs[0 .. nruns) in temp files (sortspill.c) and
 * tuples[] holds only those read since; after the input, the rows come
 * from merge, or from store when the merge filled a tuplestore.
 *
 *-------------------------------------------------------------------------
 */
#ifndef GPUSORT_SORTSTATE_H
#define GPUSORT_SORTSTATE_H

#include "access/parallel.h"
#include "executor/tuptable.h"
#include "portability/instr_time.h"
#include "utils/sortsupport.h"
#include "utils/tuplesort.h"
#include "utils/tuplestore.h"

#include "base/compat.h"
#include "engine/engine.h"
#include "memory/memaccount.h"
#include "intake/prefault.h"
#include "intake/rowstore.h"
#include "rowstream.h"
#include "sortcore.h"
#include "sortinfo.h"
#include "keys/sortkey.h"
#include "sortparread.h"
#include "sortplan.h"
#include "spill/spillmerge.h"
#include "spill/spillrun.h"
#include "threads/threads.h"

/* rows from which key building and gathering run on threads */
#define GS_THREADED_MIN_ROWS	((uint64) 1 << 17)

struct GsSort
{
	/* from the plan */
	int			nkeys;
	AttrNumber *attnos;
	Oid		   *sortops;
	Oid		   *collations;
	bool	   *nulls_first;
	TupleDesc	tupdesc;		/* of the rows put */
	double		est_rows;		/* the planner's estimate of them */
	int			plan_node_id;	/* names a participant's shared runs */
	MemoryContext querycxt;		/* where gs_sort_begin ran: runcxt's parent */
	bool		random_access;	/* rewind, backward scan or mark needed */
	bool		forward_only;	/* no backward scan, no mark */
	bool		as_array;		/* a GpuWindow or GpuAgg reads the rows as an
								 * array */
	bool		array_copy;		/* ... and wants them copied into output
								 * order (copy_rows_for_array) */
	GsParInput *par;			/* parallel intake below the Gather, or NULL */
	GsSortMode	mode;			/* how it takes its input (sortplan.h) */
	struct GsSharedRuns *shared;	/* GS_SORT_SHARED_RUNS under a Gather in
									 * parallel mode: the runs' shared state
									 * (DSM), or NULL */
	bool		writer;			/* a parallel intake's run writer (sortpar.c):
								 * writes every row to the shared runs */
	struct GsSort *below;		/* the sort of the participants' GpuSort
								 * under the Gather below, whose runs this
								 * one merges, or NULL */

	GsKeySpec  *keys;			/* NULL: no sort column has an encoder */
	GsKeySpec  *run_sort_keys;	/* the layout the first run was sorted by,
								 * where not the runs' (sort_run), or NULL */
	char	   *nokey_reason;
	SortSupport ssup;			/* comparators, [nkeys] */
	bool		ssup_ready;		/* ssup prepared (on the first sort) */
	TupleTableSlot *row_slot;	/* deforms stored rows */
	TupleTableSlot *cmp_slot;	/* holds the cutoff row */
	bool		time_emit;

	/* the current sort */
	bool		sort_done;
	bool		bounded;
	int64		bound;
	MemoryContext runcxt;		/* all memory of the current sort */
	GsRowStore	rows;			/* the stored rows (context: child of runcxt) */
	GsPrefaulter *prefault;		/* of runcxt */
	MinimalTuple *tuples;		/* input order; output order once sorted */
	uint8	   *raw;			/* raw keys, raw_bytes each, [maxtuples], or
								 * NULL: taken from the stored rows */
	int			raw_bytes;
	uint64		ntuples;
	uint64		maxtuples;
	uint64		prefaulted_rows;	/* the arrays are faulted in this far */
	Size		shared_bytes;	/* rows that stay in participants' memory */
	GsReservation *reservation;	/* of the server-wide account (runcxt) */
	Size		reserved_to;	/* stored_bytes may grow this far */
	uint64		prune_at;
	MinimalTuple cutoff;		/* bounded: rows not below it are dropped */
	uint64		nout;			/* rows to return */
	uint8	   *refined;		/* [ntuples] or NULL: pair (j - 1, j) ordered
								 * by transform bytes, for sortverify.c */
	uint64		current;		/* next row forwards: tuples[current] */
	GsRowStream *stream;		/* or copies of the rows from here (runcxt) */
	bool		eof_reached;
	uint64		markpos;
	bool		mark_eof;
	Tuplesortstate *tuplesort;	/* the fallback, when it runs */

	/* sorted runs in temp files, once the rows outgrew the budget */
	bool		spilling;		/* runs written or to be written */
	GsRun	  **runs;			/* [nruns] (runcxt) */
	int			nruns;
	int			maxruns;
	GsMerge    *merge;			/* the rows come from here, or NULL */
	int			spill_vcol;		/* a libc prefix's column in the key, or -1 */
	Tuplestorestate *store;		/* the merged rows, for backward scans and
								 * marks, or NULL */

	instr_time	intake_start;	/* when the sort's first row was awaited */
	Size		budget;			/* gpusort_memory_budget() for this sort */

	GsRunInfo	info;
};

/* ---- sortstore.c: the input, bounds, runs and the fallback --------------------- */

/* The sort columns of custom_private, their comparators and key spec */
extern void gs_sort_init_columns(GsSort *node, List *custom_private);

/* ---- sortorder.c: keys, the engine's sort, ties, the output ------------------- */

/*
 * Step 2: lays out the key and builds every stored row's key into a new
 * sorter (run_layout: the runs' layout, fixed by the caller)
 */
extern GsSorter *gs_sort_build_keys(GsSort *node, bool run_layout,
									int flags);

/*
 * Steps 3 and 4: the row numbers in output order; *settled_out is the
 * array of runcxt that holds them, or NULL when that is the sorter's own
 */
extern const uint32 *gs_sort_order_rows(GsSort *node, GsSorter *sorter,
										uint32 **settled_out);

/* The rows in output order (step 5's array) */
extern void gs_sort_gather_output(GsSort *node, const uint32 *order,
								  bool keep_raw);

/* Steps 2 to 5 over the rows stored since the run began */
extern void gs_sort_stored(GsSort *node, bool keep_raw);

/* May the rows be copied into output order (room for them twice)? */
extern bool gs_sort_copy_rows_for_array(GsSort *node);

/* ---- sortmem.c: the stored rows' memory ----------------------------------------- */

extern Size gs_sort_stored_bytes(GsSort *node);
extern void gs_sort_budget_reason(char *why, size_t len, Size budget);
extern bool gs_sort_reserve_stored(GsSort *node, Size need, char *why,
								   size_t len);
extern bool gs_sort_stored_rows_fit(GsSort *node, Size budget, char *why,
									Size whylen);
extern void gs_sort_note_peak_memory(GsSort *node);

/* ---- sortcompare.c: PostgreSQL's comparators ---------------------------------- */

/* Looks up the comparators (ssup) on the first sort; a no-op afterwards */
extern void gs_sort_prepare_support(GsSort *node);

/*
 * Sorts order[0 .. len), rows of equal keys, by the sort columns from
 * firstkey on, in tiecxt (reset afterwards)
 */
extern void gs_sort_settle_run(GsSort *node, uint32 *order, uint64 len,
							   int firstkey, MemoryContext tiecxt);

/* Sorts order[0 .. len) by the sort columns from firstkey on */
extern void gs_sort_settle_range(GsSort *node, uint32 *order,
								 uint64 len, int firstkey);

/* ---- sortties.c: the runs of equal keys ---------------------------------------- */

/*
 * The sorted order[0 .. n) of n rows whose keys (nwords words each, the
 * engine's sorted_keys) do not decide the order from sort column
 * first_inexact on, with every run of equal keys that starts within the
 * output (node->nout) sorted by PostgreSQL's comparators; a new array in
 * runcxt (order is the engine's, read-only), or NULL when the runs were
 * found on threads and there was none to settle (a fresh array of 4 bytes a
 * row costs more to fault in than the scan).  Counts the runs in
 * node->info.
 */
extern uint32 *gs_sort_settle_ties(GsSort *node, const uint32 *order,
								   const uint64 *sorted_keys, int nwords,
								   uint64 n, int first_inexact);

/* ---- sortverify.c: checking libc strxfrm prefixes ------------------------------- */

/*
 * Checks the order[0 .. n) that the engine and the tie settling gave, where
 * sort column col's key is a libc strxfrm prefix, with the collation's
 * comparator (see sortverify.c), and repairs the pairs out of order with
 * the comparators (sortrepair.c).  writable is a copy of order
 * that may be changed, or NULL; returns the array that holds the final
 * order, or NULL when that is order itself.  Counts in node->info.
 */
extern uint32 *gs_sort_verify(GsSort *node, const uint32 *order,
							  uint32 *writable, const uint64 *sorted_keys,
							  int nwords, uint64 n, int col);

/* ---- sortrefine.c: ties settled from the transform ---------------------------- */

/*
 * Settles the runs of equal keys order[starts[i] .. starts[i] + lens[i])
 * from the next bytes of sort column c's transform (gs_keys_refinable), the
 * comparators only where whole values are equal (for the later columns);
 * marks in node->refined, when set, the pairs the transform ordered.
 */
extern void gs_sort_refine_runs(GsSort *node, uint32 *order,
								const uint64 *starts, const uint64 *lens,
								uint64 nruns, int c,
								MemoryContext refinecxt, MemoryContext tiecxt);

/*
 * A growing list of ranges order[lo, lo + len) of a sort's rows, in cxt:
 * the groups that sortlater.c and sortcoll.c collect to settle together
 */
typedef struct GsRanges
{
	uint64	   *lo;
	uint64	   *len;
	uint64		n;
	uint64		cap;
	uint64		rows;			/* the sum of len */
	MemoryContext cxt;
} GsRanges;

static inline void
gs_ranges_add(GsRanges *r, uint64 lo, uint64 len)
{
	if (r->n == r->cap)
	{
		r->cap = Max(r->cap * 2, 1024);
		if (r->lo == NULL)
		{
			r->lo = MemoryContextAllocHuge(r->cxt, sizeof(uint64) * r->cap);
			r->len = MemoryContextAllocHuge(r->cxt, sizeof(uint64) * r->cap);
		}
		else
		{
			r->lo = repalloc_huge(r->lo, sizeof(uint64) * r->cap);
			r->len = repalloc_huge(r->len, sizeof(uint64) * r->cap);
		}
	}
	r->lo[r->n] = lo;
	r->len[r->n++] = len;
	r->rows += len;
}

static inline void
gs_ranges_free(GsRanges *r)
{
	if (r->lo)
	{
		pfree(r->lo);
		pfree(r->len);
	}
	r->lo = r->len = NULL;
	r->n = r->cap = r->rows = 0;
}

/* ---- sortlater.c: later columns keyed on threads ------------------------------ */

/*
 * Groups of rows that hold one value of the refined column c, whose later
 * columns decide: gs_later_begin (in cxt), gs_later_add for each group
 * (order[lo, lo + len)), which settles it at once or keeps it, then
 * gs_later_settle for those kept, which frees the list.
 */
typedef struct GsLater GsLater;

extern GsLater *gs_later_begin(GsSort *node, int c, MemoryContext cxt);
extern void gs_later_add(GsSort *node, GsLater *later, uint32 *order,
						 uint64 lo, uint64 len, MemoryContext tiecxt);
extern void gs_later_settle(GsSort *node, GsLater *later, uint32 *order,
							MemoryContext tiecxt);

/* ---- sortcoll.c: ties settled by strcoll on threads ------------------------ */

/*
 * Groups of rows order[lo, lo + len) that tie before column c, a collated
 * string, to be sorted from column c on: gs_coll_begin (in cxt; NULL where
 * column c cannot be compared on threads or there is one thread: then
 * settle each group as before), gs_coll_add for each, then gs_coll_settle,
 * which sorts them by the collation on threads, hands rows of one value to
 * later, and frees the list.
 */
typedef struct GsColl GsColl;

extern GsColl *gs_coll_begin(GsSort *node, int c, GsLater *later,
							 MemoryContext cxt);
extern void gs_coll_add(GsColl *coll, uint64 lo, uint64 len);
extern void gs_coll_settle(GsSort *node, GsColl *coll, uint32 *order,
						   MemoryContext tiecxt);

/* ---- sortdict.c: dictionary ranks ------------------------------------------------ */

/*
 * Before the key's layout: keys the leading sort columns of few distinct
 * values by their ranks (gs_keys_set_ranks); after the keys are built:
 * frees the ranks.
 */
extern void gs_sort_rank_columns(GsSort *node);
extern bool gs_sort_ranks_promising(GsSort *node);
extern void gs_sort_release_ranks(GsSort *node);

/* ---- sortrepair.c: merging the runs the check found ------------------------------ */

/*
 * Makes order[0 .. n) (or its first node->nout rows) exact, where only the
 * adjacent pairs at positions bad[0 .. nbad) (ascending; the array has room
 * for nbad + 2 and is overwritten) are out of order.
 */
extern void gs_sort_repair(GsSort *node, uint32 *order, uint64 n,
						   uint64 *bad, uint64 nbad);

/*
 * Compares two rows by the sort columns from firstkey on, as a Sort would
 * (the bounded sort's cutoff test, once per input row: so inline here).
 */
static inline int
gs_sort_compare_slots(GsSort *node, TupleTableSlot *a,
					  TupleTableSlot *b, int firstkey)
{
	int			k;

	for (k = firstkey; k < node->nkeys; k++)
	{
		bool		anull,
					bnull;
		Datum		ad = slot_getattr(a, node->attnos[k], &anull);
		Datum		bd = slot_getattr(b, node->attnos[k], &bnull);
		int			c = ApplySortComparator(ad, anull, bd, bnull, &node->ssup[k]);

		if (c != 0)
			return c;
	}
	return 0;
}

/* ---- sortspill.c: runs in temp files and their merge ------------------------- */

/* prefetch distance (rows) and depth (cache lines) of the rows written to a run */
#define GS_SPILL_PREFETCH	32
#define GS_SPILL_PREFETCH_LINES	3

/* the one key layout of every run of the sort */
extern void gs_spill_fix_layout(GsSort *node);
/* does that layout decide every comparison (no comparator, no strcoll)? */
extern bool gs_spill_layout_exact(GsSort *node);

/*
 * The keys a run's rows are written with (sort_run in sortstore.c): the
 * i-th row written, stored row order[i], gets keys[i] (keys in sorted
 * order) unless by_row, then keys[order[i]] (keys in row order), or, with
 * pos, keys[pos[order[i]]] (keys in sorted order, pos[row] the row's place
 * among them).
 */
typedef struct GsRunKeys
{
	const uint64 *keys;
	bool		by_row;
	uint32	   *pos;
} GsRunKeys;

/* pos for GsRunKeys: each row's place in rows[0 .. ntuples), in runcxt */
extern uint32 *gs_spill_key_positions(GsSort *node, const uint32 *rows);
/*
 * writes the stored rows in output order, order[0 .. ntuples), as run (new:
 * a temp file's, or the shared files' for a participant, the caller's choice)
 */
extern void gs_spill_write_run(GsSort *node, GsRun *run,
							   const GsRunKeys *rk, const uint32 *order);
/* the keys of those rows, in output order, in a new array of runcxt */
extern uint64 *gs_spill_run_keys(GsSort *node, const GsRunKeys *rk,
								 const uint32 *order);
extern void gs_spill_keep_run(GsSort *node, const uint64 *keys);
extern void gs_spill_add_run(GsSort *node, GsRun *run);
extern void gs_spill_start_merge(GsSort *node);
extern void gs_spill_materialize(GsSort *node);
extern MinimalTuple gs_spill_next(GsSort *node);
extern void gs_spill_rewind(GsSort *node);
extern void gs_spill_close(GsSort *node);

/* ---- sortshared.c: the participants' runs in shared files ---------------------- */

/* the participants: the leader's slot and the planned workers' */
extern int	gs_shared_participants(GsSort *node);

/* a participant's next run, in the shared files */
extern GsRun *gs_shared_run_create(GsSort *node);

/* a participant's runs are all written and closed: the merger may read them */
extern void gs_shared_publish(GsSort *node, int nruns, uint64 rows);

/* the merger: adds the participants' runs to its own; false if none */
extern bool gs_shared_adopt(GsSort *node);

/* ---- sortstat.c: the gpusort_stat view's counts ------------------------------- */

/*
 * Counts the sort that node->runcxt (just made) holds in gpusort_stat, once,
 * when runcxt goes; a no-op unless gpusort is preloaded.
 */
extern void gs_sort_stat_watch(GsSort *node);

#endif							/* GPUSORT_SORTSTATE_H */
