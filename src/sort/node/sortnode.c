/*-------------------------------------------------------------------------
 *
 * sortnode.c
 *	  Executor of the GpuSort CustomScan: a Sort that sorts fixed-width keys.
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
 * order is the operators' order (sortkey.c), and rows with equal keys are
 * ordered by the operators themselves.
 *
 * Under a Limit the sort is bounded (top-N), as a Sort's would be: once the
 * stored rows reach a threshold they are sorted and cut to the first N, and
 * the N-th row becomes a cutoff that later input rows must beat to be kept
 * at all, so memory stays O(N) and most rows cost one comparison.
 *
 * Memory: the rows' bytes (stored_bytes) are reserved from the server-wide
 * account (memaccount.c) ahead of the rows, in steps that double from
 * GS_RESERVE_MIN_STEP to GS_RESERVE_MAX_STEP, so that a small sort reserves
 * little and a large one seldom; the reservation goes with runcxt.
 *
 * Beyond the memory: when the rows outgrow gpusort.max_memory, or the
 * account cannot give them room (the server's sorts together hold
 * gpusort.max_total_memory), or there are more than 2^32 - 1 of them, the
 * stored rows go through steps 2 to 4 as usual and are then written, in
 * order and with their keys, as a sorted run to a temp file (spill_stored,
 * sortspill.c); the node frees them and reads on.  The last rows stay in
 * memory as the last run (keep_last_run), and step 5 returns rows from a
 * merge of the runs, or from a tuplestore filled by it where backward
 * scans or marks are asked for.  Parallel participants' rows that cannot
 * stay in shared memory are copied in as if read here (absorb_shared); a
 * participant whose share outgrows its room writes it as runs through a
 * run writer (gs_writer_create: this node's steps outside the plan tree,
 * for sortpar.c), and this node merges them as it merges a Gather Merge's
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
 * The node never knows which engine ran: that is gs_sorter_begin's choice.
 * All memory of one sort lives in runcxt, a child of the query context, so
 * an ERROR or a cancel frees it with the query.
 *
 * Files: the node's state is in sortstate.h, shared with sortties.c (step
 * 4), sortspill.c (runs and their merge), sortexplain.c (EXPLAIN, from the
 * GsRunInfo filled here) and sortstat.c (the gpusort_stat view, from the
 * same, once per sort); this file holds the executor callbacks, steps 1 to
 * 3 and 5, the bounded sort, when to write runs, and the fallback.
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

#include "engine/engine.h"
#include "intake/prefault.h"
#include "intake/rowstore.h"
#include "rowstream.h"
#include "runtime/settings.h"
#include "keys/sortkey.h"
#include "sortnode.h"
#include "sortpar.h"
#include "threads/threads_backend.h"
#include "sortplan.h"
#include "sortstate.h"
#include "threads/thread_share.h"
#include "threads/thread_slots.h"
#include "base/timing.h"

/*
 * Bytes per stored row that the sort will need besides the tuple and its
 * pointer, for the memory budget: key + row number twice (the engines sort
 * out of place) at a typical 16-byte key, and the row's place in the
 * output array.
 */
#define GS_ROW_OVERHEAD		(2 * (16 + sizeof(uint32)) + sizeof(MinimalTuple))

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

/* steps of the reservation from the server-wide account (bytes) */
#define GS_RESERVE_MIN_STEP	((Size) 1024 * 1024)
#define GS_RESERVE_MAX_STEP	((Size) 64 * 1024 * 1024)

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

/* how far ahead of the row being returned to prefetch */
#define GS_PREFETCH_AHEAD	16

/* how far ahead of the pointer being gathered into output order */
#define GS_GATHER_AHEAD		32


static Node *gpusort_create_state(CustomScan *cscan);
static void gpusort_begin(CustomScanState *node, EState *estate, int eflags);
static TupleTableSlot *gpusort_exec(CustomScanState *node);
static void gpusort_end(CustomScanState *node);
static void gpusort_rescan(CustomScanState *node);
static void gpusort_markpos(CustomScanState *node);
static void gpusort_restrpos(CustomScanState *node);

const CustomScanMethods gpusort_plan_methods = {
	.CustomName = GPUSORT_NODE_NAME,
	.CreateCustomScanState = gpusort_create_state,
};

static const CustomExecMethods gpusort_exec_methods = {
	.CustomName = GPUSORT_NODE_NAME,
	.BeginCustomScan = gpusort_begin,
	.ExecCustomScan = gpusort_exec,
	.EndCustomScan = gpusort_end,
	.ReScanCustomScan = gpusort_rescan,
	.MarkPosCustomScan = gpusort_markpos,
	.RestrPosCustomScan = gpusort_restrpos,
	/* only for a participant's GpuSort, the one parallel aware (sortshared.c) */
	.EstimateDSMCustomScan = gs_shared_estimate,
	.InitializeDSMCustomScan = gs_shared_init_dsm,
	.ReInitializeDSMCustomScan = gs_shared_reinit_dsm,
	.InitializeWorkerCustomScan = gs_shared_init_worker,
	.ExplainCustomScan = gs_sort_explain,
};

/* ---- setup ------------------------------------------------------------------- */

static Node *
gpusort_create_state(CustomScan *cscan)
{
	GpuSortState *node = palloc0(sizeof(GpuSortState));

	NodeSetTag(node, T_CustomScanState);
	node->css.flags = cscan->flags;
	node->css.methods = &gpusort_exec_methods;
	return (Node *) node;
}

/*
 * The participants' GpuSort under the Gather outer, whose runs the GpuSort
 * over outer merges (sortshared.c), or NULL
 */
static GpuSortState *
shared_runs_below(PlanState *outer)
{
	PlanState  *below;

	if (!IsA(outer, GatherState))
		return NULL;
	below = outerPlanState(outer);
	if (below == NULL || !IsA(below, CustomScanState) ||
		((CustomScanState *) below)->methods != &gpusort_exec_methods ||
		((GpuSortState *) below)->mode != GS_SORT_SHARED_RUNS)
		return NULL;
	return (GpuSortState *) below;
}

/* the sort columns of custom_private, their comparators and key spec */
static void
init_columns(GpuSortState *node, List *custom_private)
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

static void
gpusort_begin(CustomScanState *cnode, EState *estate, int eflags)
{
	GpuSortState *node = (GpuSortState *) cnode;
	CustomScan *cscan = (CustomScan *) cnode->ss.ps.plan;
	TupleDesc	indesc;

	/* like a Sort, we store the input, so the input never rewinds */
	node->random_access = (eflags & (EXEC_FLAG_REWIND |
									 EXEC_FLAG_BACKWARD |
									 EXEC_FLAG_MARK)) != 0;
	node->forward_only = (eflags & (EXEC_FLAG_BACKWARD | EXEC_FLAG_MARK)) == 0;
	outerPlanState(node) = ExecInitNode(outerPlan(cscan), estate,
										eflags & ~(EXEC_FLAG_REWIND |
												   EXEC_FLAG_BACKWARD |
												   EXEC_FLAG_MARK));
	indesc = ExecGetResultType(outerPlanState(node));
	node->mode = gs_plan_sort_mode(cscan->custom_private);
	if (node->mode == GS_SORT_PARALLEL)
		node->par = gs_par_input(outerPlanState(node));
	node->below = shared_runs_below(outerPlanState(node));

	/*
	 * Return the stored rows themselves, in a MinimalTuple slot as a Sort
	 * does, without projection: the targetlist is the input row.
	 */
	ExecInitResultTupleSlotTL(&cnode->ss.ps, &TTSOpsMinimalTuple);
	cnode->ss.ps.ps_ProjInfo = NULL;
	node->row_slot = ExecAllocTableSlot(&estate->es_tupleTable, indesc,
										&TTSOpsMinimalTuple);
	node->cmp_slot = ExecAllocTableSlot(&estate->es_tupleTable, indesc,
										&TTSOpsMinimalTuple);

	init_columns(node, cscan->custom_private);

	if (cscan->custom_exprs != NIL)
	{
		node->offset_expr = ExecInitExpr(list_nth(cscan->custom_exprs, GSE_OFFSET),
										 &cnode->ss.ps);
		node->count_expr = ExecInitExpr(list_nth(cscan->custom_exprs, GSE_COUNT),
										&cnode->ss.ps);
	}

	/*
	 * CUDA takes hundreds of milliseconds to start in a session: where this
	 * sort will want the GPU, that happens beside the intake.  A top-N
	 * keeps too few rows to want it.
	 */
	if (!(eflags & EXEC_FLAG_EXPLAIN_ONLY) && node->count_expr == NULL)
		gs_sorter_expect((uint64) Max(cscan->scan.plan.plan_rows, 0.0));
}

/*
 * The number of rows the Limit above will take (offset + count), or false
 * when it may take them all.  Limit computes the same from the same
 * expressions (recompute_limits); it complains about bad values itself.
 */
static bool
gpusort_eval_bound(GpuSortState *node, int64 *bound)
{
	ExprContext *econtext = node->css.ss.ps.ps_ExprContext;
	Datum		d;
	bool		isnull;
	int64		count;
	int64		offset = 0;

	if (node->count_expr == NULL)
		return false;
	d = ExecEvalExprSwitchContext(node->count_expr, econtext, &isnull);
	if (isnull)
		return false;
	count = DatumGetInt64(d);
	d = ExecEvalExprSwitchContext(node->offset_expr, econtext, &isnull);
	if (!isnull)
		offset = DatumGetInt64(d);
	if (count <= 0 || offset < 0 || pg_add_s64_overflow(count, offset, bound))
		return false;
	return true;
}

/* ---- sorting the stored rows -------------------------------------------------- */

/*
 * The raw key of stored row i: kept since the row was stored, or taken
 * from the row now into buf (raw_bytes).
 */
static const uint8 *
row_raw(void *arg, uint64 i, uint8 *buf)
{
	GpuSortState *node = (GpuSortState *) arg;

	if (node->raw)
		return node->raw + i * node->raw_bytes;
	ExecStoreMinimalTuple(node->tuples[i], node->row_slot, false);
	gs_keys_capture(node->keys, node->row_slot, buf);
	return buf;
}

/* the same after the layout: the key's columns only (gs_keys_capture_key) */
static const uint8 *
row_key_raw(GpuSortState *node, uint64 i, uint8 *buf)
{
	if (node->raw)
		return node->raw + i * node->raw_bytes;
	ExecStoreMinimalTuple(node->tuples[i], node->row_slot, false);
	gs_keys_capture_key(node->keys, node->row_slot, buf);
	return buf;
}

/* building keys from raw keys, on threads */
typedef struct EncodeArg
{
	const GsKeySpec *keys;
	const uint8 *raw;
	int			raw_bytes;
	int			nwords;
	uint64	   *out;
} EncodeArg;

static void
encode_slice(void *p, uint64 lo, uint64 hi)
{
	const EncodeArg *a = (const EncodeArg *) p;
	uint64		i;

	for (i = lo; i < hi; i++)
		gs_keys_encode(a->keys, a->raw + i * a->raw_bytes, i, a->out + i * a->nwords);
}

/*
 * Building the keys of stored rows whose raw keys were not kept (strings,
 * ICU sort keys: the costliest keys to make), on threads: each task deforms
 * its rows in a slot of its own and captures them with
 * gs_keys_capture_key_nothrow; where that gives up (a value to detoast, an ICU
 * failure) the task stops, and the backend's thread does the rest of the
 * task's rows with gs_keys_capture, which may allocate and raise.
 */
#define GS_CAPTURE_TASKS_PER_THREAD	4
#define GS_CAPTURE_RAW_MAX			160

typedef struct CaptureArg
{
	const GsKeySpec *keys;
	MinimalTuple *tuples;
	uint64		n;
	uint64		ntasks;
	TupleTableSlot **slots;		/* [ntasks] */
	uint64	   *stopped;		/* [ntasks]: the first row not done */
	int			raw_bytes;
	int			nwords;
	uint64	   *out;
} CaptureArg;

static void
capture_tasks(void *p, uint64 tlo, uint64 thi)
{
	CaptureArg *a = (CaptureArg *) p;
	uint8		raw[GS_CAPTURE_RAW_MAX];
	uint64		t;

	for (t = tlo; t < thi; t++)
	{
		TupleTableSlot *slot = a->slots[t];
		uint64		lo,
					hi,
					i;

		gs_team_slice(a->n, a->ntasks, t, &lo, &hi);
		for (i = lo; i < hi; i++)
		{
			gs_thread_slot_store(slot, a->tuples[i], 0);
			if (!gs_keys_capture_key_nothrow(a->keys, slot, raw))
				break;
			gs_keys_encode(a->keys, raw, i, a->out + i * a->nwords);
		}
		a->stopped[t] = i;
	}
}

static void
capture_threaded(GpuSortState *node, GsSorter *sorter, int nwords)
{
	CaptureArg	a;
	int			nthreads = gpusort_threads();
	TupleDesc	desc = node->row_slot->tts_tupleDescriptor;
	GsThreadSlots *slots;
	uint8	   *rawbuf = palloc(node->raw_bytes);
	uint64		t,
				i;

	a.keys = node->keys;
	a.tuples = node->tuples;
	a.n = node->ntuples;
	a.ntasks = (uint64) nthreads * GS_CAPTURE_TASKS_PER_THREAD;
	slots = gs_thread_slots_create(desc, (int) a.ntasks, node->tuples[0]);
	a.slots = slots->slots;
	a.stopped = palloc(sizeof(uint64) * a.ntasks);
	a.raw_bytes = node->raw_bytes;
	a.nwords = nwords;
	a.out = gs_sorter_push_n(sorter, a.n);
	gs_cpu_for_tasks(a.ntasks, nthreads, capture_tasks, &a);

	for (t = 0; t < a.ntasks; t++)
	{
		uint64		lo,
					hi;

		gs_team_slice(a.n, a.ntasks, t, &lo, &hi);
		for (i = a.stopped[t]; i < hi; i++)
		{
			ExecStoreMinimalTuple(node->tuples[i], node->row_slot, false);
			gs_keys_capture_key(node->keys, node->row_slot, rawbuf);
			gs_keys_encode(node->keys, rawbuf, i, a.out + i * nwords);
			if ((i + 1) % GS_INTERRUPT_EVERY == 0)
				CHECK_FOR_INTERRUPTS();
		}
	}
	ExecClearTuple(node->row_slot);
	gs_thread_slots_free(slots);
	pfree(a.stopped);
	pfree(rawbuf);
}

/* gathering row pointers into output order, on threads */
typedef struct GatherArg
{
	MinimalTuple *from;
	const uint32 *order;
	MinimalTuple *to;
	uint64		n;
} GatherArg;

static void
gather_slice(void *p, uint64 lo, uint64 hi)
{
	const GatherArg *a = (const GatherArg *) p;
	uint64		i;

	/* random reads: prefetching keeps more of them in flight */
	for (i = lo; i < hi; i++)
	{
		if (i + GS_GATHER_AHEAD < a->n)
			gs_prefetch(&a->from[a->order[i + GS_GATHER_AHEAD]]);
		a->to[i] = a->from[a->order[i]];
	}
}

/*
 * Copying rows into output order, on threads: rows that parallel
 * participants stored lie in shared memory of 4kB pages, in input order,
 * so returning them in sorted order costs a cache and a TLB miss each.
 * Instead the leader's threads copy them, many random reads in flight at
 * once, into one buffer in output order (gs_huge_alloc), which the node then
 * returns at the speed of sequential reads.  Two passes over slices of the
 * output: the bytes each slice needs, then the copies.
 */
#define GS_COPY_SLICES_PER_THREAD	4

typedef struct CopyArg
{
	MinimalTuple *from;
	const uint32 *order;
	MinimalTuple *to;
	uint64		n;
	uint64		nslices;
	Size	   *offsets;		/* [nslices + 1]: bytes before each slice */
	char	   *buf;
} CopyArg;

static void
copy_size_slices(void *p, uint64 slo, uint64 shi)
{
	CopyArg    *a = (CopyArg *) p;
	uint64		s;

	for (s = slo; s < shi; s++)
	{
		uint64		lo,
					hi,
					i;
		Size		bytes = 0;

		gs_team_slice(a->n, a->nslices, s, &lo, &hi);
		for (i = lo; i < hi; i++)
		{
			if (i + GS_GATHER_AHEAD < hi)
				gs_prefetch(a->from[a->order[i + GS_GATHER_AHEAD]]);
			bytes += MAXALIGN(a->from[a->order[i]]->t_len);
		}
		a->offsets[s + 1] = bytes;
	}
}

static void
copy_row_slices(void *p, uint64 slo, uint64 shi)
{
	CopyArg    *a = (CopyArg *) p;
	uint64		s;

	for (s = slo; s < shi; s++)
	{
		uint64		lo,
					hi,
					i;
		char	   *dst = a->buf + a->offsets[s];

		gs_team_slice(a->n, a->nslices, s, &lo, &hi);
		for (i = lo; i < hi; i++)
		{
			MinimalTuple tup = a->from[a->order[i]];

			if (i + GS_GATHER_AHEAD < hi)
				gs_prefetch(a->from[a->order[i + GS_GATHER_AHEAD]]);
			memcpy(dst, tup, tup->t_len);
			a->to[i] = (MinimalTuple) dst;
			dst += MAXALIGN(tup->t_len);
		}
	}
}

/* to[i] = a copy of from[order[i]], for i < n, in one buffer of runcxt */
static void
copy_in_order(GpuSortState *node, MinimalTuple *from, const uint32 *order,
			  MinimalTuple *to, uint64 n)
{
	CopyArg		a;
	int			nthreads = n >= GS_THREADED_MIN_ROWS ? gpusort_threads() : 1;
	uint64		s;
	instr_time	start;

	INSTR_TIME_SET_CURRENT(start);
	a.from = from;
	a.order = order;
	a.to = to;
	a.n = n;
	a.nslices = (uint64) nthreads * GS_COPY_SLICES_PER_THREAD;
	a.offsets = palloc0(sizeof(Size) * (a.nslices + 1));
	gs_cpu_for_tasks(a.nslices, nthreads, copy_size_slices, &a);
	for (s = 0; s < a.nslices; s++)
		a.offsets[s + 1] += a.offsets[s];
	a.buf = gs_huge_alloc(node->runcxt, Max(a.offsets[a.nslices], 1));
	gs_cpu_for_tasks(a.nslices, nthreads, copy_row_slices, &a);
	node->info.copied_bytes = a.offsets[a.nslices];
	node->info.ms_copy = gs_elapsed_ms(start);
	pfree(a.offsets);
}

static bool reserve_stored(GpuSortState *node, Size need, char *why, size_t len);

/*
 * An empty row store, whose blocks stay a small part of the budget: the
 * block faulted in ahead is memory the budget counts (stored_rows_fit)
 */
#define GS_ROWS_BLOCKS_PER_BUDGET	16

static void
init_rows(GpuSortState *node)
{
	gs_rows_init(&node->rows, node->runcxt, node->prefault);
	gs_rows_limit_blocks(&node->rows,
						 gpusort_memory_budget() / GS_ROWS_BLOCKS_PER_BUDGET);
}
static void store_row(GpuSortState *node, TupleTableSlot *slot, Size budget);
static void note_peak_memory(GpuSortState *node);
static void put_shared_row(void *arg, MinimalTuple tup);
static Size stored_bytes(GpuSortState *node);

/*
 * May the rows be copied into output order for a GpuWindow?  The copy
 * needs room for the rows a second time, until the stored ones go: only
 * when the budget and the server-wide account give it.
 */
static bool
copy_rows_for_array(GpuSortState *node)
{
	Size		need = stored_bytes(node) + gs_rows_bytes(&node->rows);
	char		why[128];

	if (!gpusort_copy_rows || node->nout < GS_THREADED_MIN_ROWS ||
		need > gpusort_memory_budget())
		return false;
	return reserve_stored(node, need, why, sizeof(why));
}

/* step 2 with every raw key at hand: the keys are built on threads */
static void
encode_threaded(GpuSortState *node, GsSorter *sorter, int nwords)
{
	EncodeArg	a;

	a.keys = node->keys;
	a.raw = node->raw;
	a.raw_bytes = node->raw_bytes;
	a.nwords = nwords;
	a.out = gs_sorter_push_n(sorter, node->ntuples);
	gs_cpu_for_slices(node->ntuples, gpusort_threads(), encode_slice, &a);
}

/* step 2 on the backend's thread alone: few rows, or one thread */
static void
encode_serial(GpuSortState *node, GsSorter *sorter)
{
	uint8	   *rawbuf = palloc(node->raw_bytes);
	uint64		i;

	for (i = 0; i < node->ntuples; i++)
	{
		gs_keys_encode(node->keys, row_key_raw(node, i, rawbuf), i, gs_sorter_push(sorter));
		if ((i + 1) % GS_INTERRUPT_EVERY == 0)
			CHECK_FOR_INTERRUPTS();
	}
	pfree(rawbuf);
}

/*
 * Step 2: lays out the key and builds every stored row's key, in row
 * order, into a new sorter: from the kept raw keys, or from the stored rows
 * (on threads where the raw key is small enough to capture there).
 *
 * run_layout keeps the runs' layout, which the caller fixed
 * (gs_spill_fix_layout): keys that compare across runs, so no ranks, which
 * number one run's values; with flags GS_SORTER_KEYS_ONLY the sorter only
 * holds them for the run's writer.  Otherwise the layout is the one a sort
 * that fits would choose.
 */
static GsSorter *
build_keys(GpuSortState *node, bool run_layout, int flags)
{
	GsKeySpec  *keys = node->keys;
	uint64		n = node->ntuples;
	int			nwords;
	GsSorter   *sorter;
	instr_time	start;

	INSTR_TIME_SET_CURRENT(start);
	if (!run_layout)
	{
		gs_sort_rank_columns(node);
		gs_keys_choose_layout(keys, n, row_raw, node);
	}
	nwords = gs_keys_nwords(keys);
	if (gs_keys_first_inexact(keys) < node->nkeys && !(flags & GS_SORTER_KEYS_ONLY))
		flags |= GS_SORTER_NEED_KEYS;
	sorter = gs_sorter_begin(nwords, n, flags);
	if (node->raw && n >= GS_THREADED_MIN_ROWS)
		encode_threaded(node, sorter, nwords);
	else if (!node->raw && n >= GS_THREADED_MIN_ROWS && gpusort_threads() > 1 &&
			 node->raw_bytes <= GS_CAPTURE_RAW_MAX)
		capture_threaded(node, sorter, nwords);
	else
		encode_serial(node, sorter);
	/* row_raw may have left a stored row in the slot */
	ExecClearTuple(node->row_slot);
	gs_sort_release_ranks(node);
	node->info.ms_keys += gs_elapsed_ms(start);
	return sorter;
}

/*
 * Steps 3 and 4: sorts the keys and settles the order where they do not
 * decide it, and sets nout.  Returns the row numbers in output order;
 * *settled_out is the array of runcxt that holds them (to be freed after
 * the output is gathered), or NULL when that is the sorter's own.
 */
static const uint32 *
order_rows(GpuSortState *node, GsSorter *sorter, uint32 **settled_out)
{
	GsKeySpec  *keys = node->keys;
	uint64		n = node->ntuples;
	int			nwords = gs_keys_nwords(keys);
	int			first_inexact = gs_keys_first_inexact(keys);
	int			verify_col;
	const uint32 *order;
	uint32	   *settled = NULL;
	instr_time	start;

	INSTR_TIME_SET_CURRENT(start);
	gs_sorter_sort(sorter);
	node->info.ms_sort += gs_elapsed_ms(start);

	order = gs_sorter_rows(sorter);
	node->nout = (node->bounded && (uint64) node->bound < n) ? (uint64) node->bound : n;

	/* ties: runs of equal keys that start within the output (sortties.c) */
	if (first_inexact < node->nkeys && n > 1)
	{
		INSTR_TIME_SET_CURRENT(start);
		settled = gs_sort_settle_ties(node, order, gs_sorter_key(sorter, 0),
									  nwords, n, first_inexact);
		node->info.ms_ties += gs_elapsed_ms(start);
		if (settled)
			order = settled;
	}

	/* a libc collation's strxfrm prefix: its order checked (sortverify.c) */
	verify_col = gs_keys_verified_column(keys);
	if (verify_col >= 0)
	{
		INSTR_TIME_SET_CURRENT(start);
		settled = gs_sort_verify(node, order, settled, gs_sorter_key(sorter, 0),
								 nwords, n, verify_col);
		if (settled)
			order = settled;
		node->info.ms_verify += gs_elapsed_ms(start);
	}
	*settled_out = settled;
	return order;
}

/*
 * The array that is to hold the output's row pointers (room for nout), and
 * what becomes of the raw keys, whose last use this is.  A prune (keep_raw)
 * goes on storing rows after the kept ones, so their raw keys move into
 * output order, in a new array of the same capacity.  Otherwise the raw
 * keys are dead once the keys are built, and their array, when it is large
 * enough, becomes the pointer array: fresh memory is costly to fault in,
 * and this spares 8 bytes a row.  node->raw is NULL afterwards then.
 */
static MinimalTuple *
output_array(GpuSortState *node, const uint32 *order, bool keep_raw)
{
	Size		rb = node->raw_bytes;
	Size		bytes = sizeof(MinimalTuple) * Max(node->nout, 1);
	MinimalTuple *sorted;
	uint64		i;

	if (keep_raw)
	{
		if (node->raw)
		{
			uint8	   *raw = gs_huge_alloc(node->runcxt, rb * node->maxtuples);

			for (i = 0; i < node->nout; i++)
				memcpy(raw + i * rb, node->raw + (Size) order[i] * rb, rb);
			pfree(node->raw);
			node->raw = raw;
		}
		return gs_huge_alloc(node->runcxt, bytes);
	}
	if (node->raw && rb * node->maxtuples >= sizeof(MinimalTuple) * node->nout)
		sorted = (MinimalTuple *) node->raw;
	else
	{
		if (node->raw)
			pfree(node->raw);
		sorted = gs_huge_alloc(node->runcxt, bytes);
	}
	node->raw = NULL;
	return sorted;
}

/*
 * Step 5's pass: node->tuples becomes the first nout rows in output order.
 * Rows beyond nout stay in the row store, unreferenced, until it goes.
 */
static void
gather_output(GpuSortState *node, const uint32 *order, bool keep_raw)
{
	MinimalTuple *sorted;
	instr_time	start;

	INSTR_TIME_SET_CURRENT(start);
	sorted = output_array(node, order, keep_raw);
	if (node->shared_bytes > 0 && gpusort_copy_rows &&
		(!node->forward_only || node->as_array))
		copy_in_order(node, node->tuples, order, sorted, node->nout);
	else if (node->as_array && node->array_copy && !keep_raw &&
			 copy_rows_for_array(node))
	{
		/*
		 * A GpuWindow, or a GpuAgg with string_agg or array_agg, reads
		 * every row twice, in output order (array_copy): once the rows lie
		 * in that order, both passes read memory in sequence instead of
		 * missing the cache at every row.  The rows as stored are freed
		 * once copied.
		 */
		copy_in_order(node, node->tuples, order, sorted, node->nout);
		gs_rows_release(&node->rows);
		gs_rows_init(&node->rows, node->runcxt, node->prefault);
	}
	else
	{
		GatherArg	a;

		a.from = node->tuples;
		a.order = order;
		a.to = sorted;
		a.n = node->nout;
		gs_cpu_for_slices(node->nout, gpusort_threads(), gather_slice, &a);
		/* the executor's thread returns rows, the others copy them */
		if (node->shared_bytes > 0 && gpusort_copy_rows)
			node->stream = gs_rowstream_create(node->runcxt, sorted, node->nout,
											   Max(gpusort_threads() - 1, 1));
	}
	pfree(node->tuples);
	node->tuples = sorted;
	if (!keep_raw)
		node->maxtuples = Max(node->nout, 1);
	node->ntuples = node->nout;
	node->info.ms_emit += gs_elapsed_ms(start);
}

/*
 * Sorts the stored rows: afterwards node->tuples holds the first nout rows
 * (all rows, or the first bound of them) in output order, and so does
 * node->raw when keep_raw (a prune goes on storing rows after them);
 * otherwise the raw keys are freed.
 */
static void
sort_stored(GpuSortState *node, bool keep_raw)
{
	MemoryContext oldcxt = MemoryContextSwitchTo(node->runcxt);
	GsSorter   *sorter;
	const uint32 *order;
	uint32	   *settled;

	sorter = build_keys(node, false, 0);
	order = order_rows(node, sorter, &settled);
	node->info.engine = *gs_sorter_stats(sorter);
	node->info.have_engine = true;
	note_peak_memory(node);
	gather_output(node, order, keep_raw);
	gs_sorter_end(sorter);
	if (settled)
		pfree(settled);
	MemoryContextSwitchTo(oldcxt);
}

/* the number of stored rows at which a bounded sort prunes next */
static uint64
bound_prune_at(GpuSortState *node)
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
prune_to_bound(GpuSortState *node)
{
	GsRowStore	oldrows;
	MinimalTuple *kept;
	uint64		capacity = node->maxtuples;
	uint64		nstored = node->ntuples;
	uint64		i;

	sort_stored(node, true);
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
 * *pos; *settled as for order_rows.
 */
static const uint32 *
sort_run(GpuSortState *node, GsSorter **sorter, GsSorter **run,
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
		*sorter = build_keys(node, true, GS_SORTER_NEED_KEYS);
		node->info.verify_resorted = false;
		order = order_rows(node, *sorter, settled);
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
	*run = build_keys(node, true, GS_SORTER_KEYS_ONLY);
	*sorter = build_keys(node, false, 0);
	order = order_rows(node, *sorter, settled);
	/* EXPLAIN shows the first run's layout beside the runs' */
	if (node->run_sort_keys == NULL)
	{
		MemoryContext oldcxt =
			MemoryContextSwitchTo(node->css.ss.ps.state->es_query_cxt);

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
 * Sorts the stored rows as sort_stored does, but writes them in that order
 * as a run to a temp file (sortspill.c) instead of gathering them, then
 * empties the row store for the rows still to come.  The arrays and the
 * reservation stay for the next run, which fills them again.
 */
static void
spill_stored(GpuSortState *node)
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
	note_peak_memory(node);
	gs_spill_write_run(node, &rk, order);
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
spill_allowed(GpuSortState *node, Size budget)
{
	return !node->bounded && node->shared_bytes == 0 &&
		(node->ntuples >= GS_SPILL_MIN_ROWS ||
		 (node->ntuples > 0 && stored_bytes(node) > budget));
}

/* the row pointers and raw keys, once their rows went elsewhere */
static void
free_row_arrays(GpuSortState *node)
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
switch_to_tuplesort(GpuSortState *node, const char *why)
{
	PlanState  *outer = outerPlanState(node);
	MemoryContext oldcxt = MemoryContextSwitchTo(node->runcxt);
	uint64		i;

	strlcpy(node->info.fallback, why, sizeof(node->info.fallback));
	node->info.used_tuplesort = true;
	/* a bound may only be set on a tuplesort begun to allow one */
	node->tuplesort = tuplesort_begin_heap(ExecGetResultType(outer),
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
		if ((i + 1) % GS_INTERRUPT_EVERY == 0)
			CHECK_FOR_INTERRUPTS();
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
 * Stored bytes as the budget counts them: the arrays only as far as they
 * are filled, since the kernel backs the rest of them only once touched.
 */
static Size
stored_bytes(GpuSortState *node)
{
	return gs_rows_bytes(&node->rows) + node->shared_bytes +
		node->ntuples * (sizeof(MinimalTuple) +
						 (node->raw ? node->raw_bytes : 0) +
						 GS_ROW_OVERHEAD);
}

/*
 * Bytes the budget counts per stored row besides the row itself, where
 * every raw key of raw_bytes is kept (as for a parallel intake's rows)
 */
Size
gs_sort_row_bytes(int raw_bytes)
{
	return sizeof(MinimalTuple) + raw_bytes + GS_ROW_OVERHEAD;
}

/*
 * Room for the rows the planner expects, and some: growing the row
 * arrays by doubling copies them each time (tens of milliseconds for
 * millions of rows), while room that is never used costs only address
 * space.  A wild estimate is capped; beyond the cap the arrays double.
 */
static uint64
initial_capacity(GpuSortState *node)
{
	double		rows = node->css.ss.ps.plan->plan_rows * GS_CAPACITY_SLACK;
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
prefault_arrays(GpuSortState *node)
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

static void
budget_reason(char *why, size_t len, Size budget)
{
	snprintf(why, len, "rows need more than gpusort.max_memory (%zu kB)",
			 budget / 1024);
}

/*
 * Reserves room for stored_bytes to grow to need from the server-wide
 * account, a step ahead; false, with the reason in why, when the account
 * has no room.  The rows stored by parallel participants are reserved by
 * their intake (sortpar.c), so need leaves them out.
 */
static bool
reserve_stored(GpuSortState *node, Size need, char *why, size_t len)
{
	Size		have = gs_reserved(node->reservation, GS_ACCT_MEM);
	Size		limit = gpusort_total_memory_limit();
	Size		budget;
	Size		step;

	if (need <= have)
		return true;
	step = Max(need - have, Min(Max(have, GS_RESERVE_MIN_STEP), GS_RESERVE_MAX_STEP));
	/* a step ahead, but not past the budget (or the need, if beyond it) */
	budget = gpusort_memory_budget();
	if (have + step > Max(need, budget))
		step = Max(need, budget) - have;
	if (!gs_reserve(node->reservation, GS_ACCT_MEM, step, limit) &&
		!gs_reserve(node->reservation, GS_ACCT_MEM, need - have, limit))
	{
		snprintf(why, len, "the server's sorts hold gpusort.max_total_memory (%zu kB)",
				 limit / 1024);
		return false;
	}
	node->reserved_to = gs_reserved(node->reservation, GS_ACCT_MEM);
	node->info.reserved_bytes = Max(node->info.reserved_bytes, node->reserved_to);
	return true;
}

/*
 * Why the rows of parallel participants that ran out of room go to
 * tuplesort: the sort's budget, or the reservation the server-wide
 * account could give them (sortpar.c)
 */
static void
overflow_reason(GpuSortState *node, char *why, size_t len, Size budget)
{
	Size		limit = gs_par_limit(node->par);

	if (limit >= budget)
		budget_reason(why, len, budget);
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
 * The budget counts what stored_bytes will count once they joined: the
 * participants' rows too.  Leaving those out let rows past the budget join
 * and then go to a serial tuplesort (a comparator sort of every row, many
 * times slower than the runs).  The server-wide account holds the
 * participants' rows already (their intake reserved them), so only the
 * rest is reserved here.
 */
static bool
shared_rows_fit(GpuSortState *node, uint64 n, uint64 total, Size budget)
{
	Size		need = stored_bytes(node) + n * gs_sort_row_bytes(node->raw_bytes);
	char		why[128];

	if (gs_par_overflowed(node->par) || node->spilling ||
		total > PG_UINT32_MAX || need + node->info.par_bytes > budget)
		return false;
	return reserve_stored(node, need, why, sizeof(why));
}

typedef struct StoreSharedArg
{
	GpuSortState *node;
	Size		budget;
} StoreSharedArg;

/* a participant's row, stored as if read here (gs_par_foreach) */
static void
store_shared_row(void *arg, MinimalTuple tup)
{
	StoreSharedArg *a = (StoreSharedArg *) arg;
	GpuSortState *node = a->node;

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
	GpuSortState *node = (GpuSortState *) arg;

	ExecStoreMinimalTuple(tup, node->row_slot, false);
	tuplesort_puttupleslot(node->tuplesort, node->row_slot);
}

/*
 * Takes the rows that parallel participants stored in shared memory (see
 * sortpar.c) after those that came through the Gather: their raw keys and
 * addresses join the node's arrays, their key statistics its spec, as if
 * the node had read them itself.  The rows stay where they are.
 */
static void
absorb_shared(GpuSortState *node, Size budget)
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
		if (stored_bytes(node) > budget)
		{
			budget_reason(why, sizeof(why), budget);
			switch_to_tuplesort(node, why);
		}
	}
	node->info.ms_absorb = gs_elapsed_ms(start);
}

/* the run's memory, keys and arrays, before the first row */
static void
start_run(GpuSortState *node)
{
	gs_sort_prepare_support(node);
	memset(&node->info, 0, sizeof(GsRunInfo));
	node->info.valid = true;
	/* instrumentation is set up after BeginCustomScan */
	node->time_emit = (node->css.ss.ps.instrument != NULL &&
					   node->css.ss.ps.instrument->need_timer);
	node->bounded = gpusort_eval_bound(node, &node->bound);
	/* a bounded sort keeps its first rows: the participants pass theirs on */
	if (node->par)
		gs_par_allow_runs(node->par, !node->bounded);
	node->runcxt = AllocSetContextCreate(CurrentMemoryContext, "GpuSort",
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
grow_arrays(GpuSortState *node)
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
 * Whether the stored rows still fit the budget and the server-wide
 * account; if not, why[] says why
 */
static bool
stored_rows_fit(GpuSortState *node, Size budget, char *why, Size whylen)
{
	if (stored_bytes(node) + node->rows.ahead_size <= node->reserved_to)
		return true;
	if (stored_bytes(node) > budget)
	{
		budget_reason(why, whylen, budget);
		return false;
	}
	/* the block faulted in ahead is memory too */
	return reserve_stored(node, stored_bytes(node) + node->rows.ahead_size,
						  why, whylen);
}

/*
 * The run's memory at its largest, as EXPLAIN shows it: the run context and
 * the row store's mapped blocks, which no context counts (rowstore.c)
 */
static void
note_peak_memory(GpuSortState *node)
{
	node->info.peak_bytes = Max(node->info.peak_bytes,
								MemoryContextMemAllocated(node->runcxt, true) +
								gs_rows_mapped(&node->rows));
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
observe_and_store(GpuSortState *node, TupleTableSlot *slot)
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
store_row(GpuSortState *node, TupleTableSlot *slot, Size budget)
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

	if (!stored_rows_fit(node, budget, why, sizeof(why)))
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
row_after_cutoff(GpuSortState *node, TupleTableSlot *slot)
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
take_row(GpuSortState *node, TupleTableSlot *slot, Size budget)
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
keep_last_run(GpuSortState *node)
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
	note_peak_memory(node);
	gather_output(node, order, false);
	end_run_sort(sorter, run, settled, &rk);
	gs_spill_keep_run(node, keys);
	MemoryContextSwitchTo(oldcxt);
}

/*
 * The input is read and runs were written: the last rows become the last
 * run, and the merge starts.
 */
static void
finish_runs(GpuSortState *node)
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
 * GpuSort above the Gather; the node returns no row.  Rows that went to a
 * tuplesort (the fallback) are returned as usual, to be sorted above.
 */
static void
finish_shared_runs(GpuSortState *node, Size budget)
{
	int			nruns;

	/*
	 * A share that never outgrew its part of the budget (the participants'
	 * together fit the merger's) goes through the Gather as it was read,
	 * to be sorted above with the others: no file for a few rows
	 */
	if (!node->writer && !node->spilling && !node->tuplesort &&
		stored_bytes(node) <= budget / gs_shared_participants(node))
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
 * The input is read (since intake_start): sort what was stored, or let the
 * tuplesort sort
 */
static void
finish_run(GpuSortState *node, Size budget, instr_time intake_start)
{
	node->info.prefaulted = gs_prefault_finish(node->prefault);
	node->info.reused += node->rows.reused;
	if (node->par)
		absorb_shared(node, budget);
	node->info.ms_intake = gs_elapsed_ms(intake_start);
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
		node->info.stored_bytes = stored_bytes(node);
		sort_stored(node, false);
	}
	node->current = 0;
	node->eof_reached = false;
	node->markpos = 0;
	node->mark_eof = false;
	node->sort_done = true;
}

/* reads the input and sorts it */
static void
gpusort_run(GpuSortState *node)
{
	PlanState  *outer = outerPlanState(node);
	Size		budget = gpusort_memory_budget();
	instr_time	intake_start;

	start_run(node);
	INSTR_TIME_SET_CURRENT(intake_start);
	for (;;)
	{
		TupleTableSlot *slot = ExecProcNode(outer);

		if (TupIsNull(slot))
			break;
		take_row(node, slot, budget);
	}
	finish_run(node, budget, intake_start);
}

/* ---- executor callbacks ------------------------------------------------------- */

/* the last row is out: the helpers stop (a rescan restarts them) */
static void
stream_done(GpuSortState *node)
{
	gs_rowstream_finish(node->stream);
	gs_sort_stream_note(node);
}

/*
 * The next row in the given direction, with tuplesort's semantics for an
 * in-memory sort: after running off the end forwards, a backward fetch
 * returns the last row.
 */
static MinimalTuple
next_row(GpuSortState *node, bool forward)
{
	if (forward)
	{
		if (node->stream)
		{
			MinimalTuple tup = gs_rowstream_get(node->stream, node->current);

			if (tup)
			{
				node->current++;
				return tup;
			}
			stream_done(node);
			node->eof_reached = true;
			return NULL;
		}
		if (node->current < node->nout)
		{
			if (node->current + GS_PREFETCH_AHEAD < node->nout)
				gs_prefetch(node->tuples[node->current + GS_PREFETCH_AHEAD]);
			return node->tuples[node->current++];
		}
		node->eof_reached = true;
		return NULL;
	}
	if (node->current == 0)
		return NULL;
	if (node->eof_reached)
		node->eof_reached = false;
	else
	{
		node->current--;		/* the row returned last */
		if (node->current == 0)
			return NULL;
	}
	if (node->current > GS_PREFETCH_AHEAD)
		gs_prefetch(node->tuples[node->current - 1 - GS_PREFETCH_AHEAD]);
	return node->tuples[node->current - 1];
}

static TupleTableSlot *
gpusort_exec(CustomScanState *cnode)
{
	GpuSortState *node = (GpuSortState *) cnode;
	TupleTableSlot *slot = cnode->ss.ps.ps_ResultTupleSlot;
	bool		forward = ScanDirectionIsForward(cnode->ss.ps.state->es_direction);
	MinimalTuple tup;
	instr_time	start;

	CHECK_FOR_INTERRUPTS();
	if (!node->sort_done)
	{
		MemoryContext oldcxt = MemoryContextSwitchTo(cnode->ss.ps.state->es_query_cxt);

		gpusort_run(node);
		MemoryContextSwitchTo(oldcxt);
	}

	if (node->tuplesort)
	{
		(void) tuplesort_gettupleslot(node->tuplesort, forward, false, slot, NULL);
		return slot;
	}

	if (node->store)
	{
		if (!tuplestore_gettupleslot(node->store, forward, false, slot))
			ExecClearTuple(slot);
		return slot;
	}
	if (node->merge)
	{
		if (!forward)
			ereport(ERROR,
					(errcode(ERRCODE_FEATURE_NOT_SUPPORTED),
					 errmsg("GpuSort cannot scan its merged runs backward")));
		tup = gs_spill_next(node);
		if (tup)
			return ExecStoreMinimalTuple(tup, slot, false);
		return ExecClearTuple(slot);
	}

	if (node->time_emit)
		INSTR_TIME_SET_CURRENT(start);
	tup = next_row(node, forward);
	if (tup)
		ExecStoreMinimalTuple(tup, slot, false);
	else
		ExecClearTuple(slot);
	if (node->time_emit)
		node->info.ms_emit += gs_elapsed_ms(start);
	return slot;
}

/* frees the current sort */
static void
gpusort_reset(GpuSortState *node)
{
	/* a run writer (below) has no result slot */
	if (node->css.ss.ps.ps_ResultTupleSlot)
		ExecClearTuple(node->css.ss.ps.ps_ResultTupleSlot);
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

static void
gpusort_end(CustomScanState *cnode)
{
	GpuSortState *node = (GpuSortState *) cnode;

	gpusort_reset(node);
	ExecEndNode(outerPlanState(node));
}

static void
gpusort_rescan(CustomScanState *cnode)
{
	GpuSortState *node = (GpuSortState *) cnode;
	PlanState  *outer = outerPlanState(node);
	int64		bound = 0;
	bool		bounded;

	/* not sorted yet: the input rescans itself if its parameters changed */
	if (!node->sort_done)
		return;

	ExecClearTuple(cnode->ss.ps.ps_ResultTupleSlot);
	bounded = gpusort_eval_bound(node, &bound);
	/*
	 * A participant's runs: the Gather's rescan deletes them, so sort
	 * again; and the merger of participants' runs reads them again, which
	 * may be gone once the Gather has shut down (a Limit shuts its input
	 * down when done): it runs the Gather again
	 */
	if (node->mode == GS_SORT_SHARED_RUNS ||
		(node->merge && node->info.shared_runs > 0) ||
		outer->chgParam != NULL ||
		bounded != node->bounded || (bounded && bound != node->bound) ||
		(node->tuplesort && !node->random_access))
	{
		gpusort_reset(node);
		if (outer->chgParam == NULL)
			ExecReScan(outer);
	}
	else if (node->tuplesort)
		tuplesort_rescan(node->tuplesort);
	else if (node->store)
		tuplestore_rescan(node->store);
	else if (node->merge)
		gs_spill_rewind(node);
	else
	{
		node->current = 0;
		node->eof_reached = false;
		node->markpos = 0;
		node->mark_eof = false;
	}
}

static void
gpusort_markpos(CustomScanState *cnode)
{
	GpuSortState *node = (GpuSortState *) cnode;

	if (!node->sort_done)
		return;
	if (node->tuplesort)
		tuplesort_markpos(node->tuplesort);
	else if (node->store)
		tuplestore_copy_read_pointer(node->store, 0, 1);
	else
	{
		node->markpos = node->current;
		node->mark_eof = node->eof_reached;
	}
}

static void
gpusort_restrpos(CustomScanState *cnode)
{
	GpuSortState *node = (GpuSortState *) cnode;

	if (!node->sort_done)
		return;
	if (node->tuplesort)
		tuplesort_restorepos(node->tuplesort);
	else if (node->store)
		tuplestore_copy_read_pointer(node->store, 1, 0);
	else
	{
		node->current = node->markpos;
		node->eof_reached = node->mark_eof;
	}
}

/*
 * The sorted rows of the GpuSort ps, as an array in output order, for a
 * GpuWindow or GpuAgg above it that reads them all at once instead of one
 * ExecProcNode at a time; false when the rows are not held in memory (a
 * tuplesort, or runs in temp files), whose rows only come one at a time
 * (ExecProcNode still returns them all).  The
 * rows stay the node's until it is rescanned or ended.
 *
 * copy: the caller reads every row more than once, column by column, and
 * the rows are to be copied into output order where the memory allows
 * (copy_rows_for_array); otherwise the pointers lead to the rows where
 * they were stored, and the caller prefetches ahead as it reads them.
 */
bool
gs_sort_sorted_rows(PlanState *ps, MinimalTuple **rows, uint64 *n, bool copy)
{
	GpuSortState *node = (GpuSortState *) ps;
	bool		ok;

	Assert(IsA(ps, CustomScanState) &&
		   ((CustomScanState *) ps)->methods == &gpusort_exec_methods);
	/* what ExecProcNode would do first */
	if (ps->chgParam != NULL)
		ExecReScan(ps);
	if (ps->instrument)
		InstrStartNode(ps->instrument);
	if (!node->sort_done)
	{
		MemoryContext oldcxt = MemoryContextSwitchTo(ps->state->es_query_cxt);

		node->as_array = true;
		node->array_copy = copy;
		gpusort_run(node);
		MemoryContextSwitchTo(oldcxt);
	}
	ok = node->tuplesort == NULL && node->stream == NULL &&
		node->merge == NULL && node->store == NULL;
	*rows = ok ? node->tuples : NULL;
	*n = ok ? node->nout : 0;
	if (ps->instrument)
		InstrStopNode(ps->instrument, (double) *n);
	return ok;
}

/* ---- a parallel intake's run writer (sortpar.c) ------------------------------- */

/*
 * A GpuSort that is no node of the plan: a GpuSortStore participant whose
 * share outgrew its room gives it the rest of its share, row by row, and
 * it sorts them run by run and writes every run to the shared files runs,
 * as a participant's GS_SORT_SHARED_RUNS GpuSort does (sortshared.c).
 * owner is that GpuSortStore: its custom_private holds the sort columns as
 * a GpuSort's does, its plan node id names the runs, and its input is the
 * writer's outer plan, for the rows' descriptor only (the writer never
 * pulls a row from it, nor ends or rescans it).  In the query's memory.
 */
GpuSortState *
gs_writer_create(CustomScanState *owner, struct GsSharedRuns *runs)
{
	EState	   *estate = owner->ss.ps.state;
	CustomScan *cscan = (CustomScan *) owner->ss.ps.plan;
	PlanState  *outer = outerPlanState(owner);
	TupleDesc	indesc = ExecGetResultType(outer);
	MemoryContext oldcxt = MemoryContextSwitchTo(estate->es_query_cxt);
	GpuSortState *node = (GpuSortState *) gpusort_create_state(cscan);

	node->css.ss.ps.plan = &cscan->scan.plan;
	node->css.ss.ps.state = estate;
	outerPlanState(node) = outer;
	node->forward_only = true;
	node->mode = GS_SORT_SHARED_RUNS;
	node->shared = runs;
	node->writer = true;
	node->row_slot = ExecAllocTableSlot(&estate->es_tupleTable, indesc,
										&TTSOpsMinimalTuple);
	node->cmp_slot = ExecAllocTableSlot(&estate->es_tupleTable, indesc,
										&TTSOpsMinimalTuple);
	init_columns(node, cscan->custom_private);
	MemoryContextSwitchTo(oldcxt);
	return node;
}

/* a new share: the last one's memory goes */
void
gs_writer_start(GpuSortState *node)
{
	MemoryContext oldcxt = MemoryContextSwitchTo(node->css.ss.ps.state->es_query_cxt);

	gpusort_reset(node);
	start_run(node);
	INSTR_TIME_SET_CURRENT(node->writer_start);
	MemoryContextSwitchTo(oldcxt);
}

/* one row of the share: stored, and written in a run when the memory fills */
void
gs_writer_put(GpuSortState *node, TupleTableSlot *slot)
{
	take_row(node, slot, gpusort_memory_budget());
}

/*
 * The share is read: the stored rows become its last run, and its runs are
 * published in its slot of the shared files for the merger.  Its memory
 * goes, but for the rows a fallback to tuplesort holds (gs_writer_next).
 */
void
gs_writer_finish(GpuSortState *node)
{
	MemoryContext oldcxt = MemoryContextSwitchTo(node->css.ss.ps.state->es_query_cxt);

	finish_run(node, gpusort_memory_budget(), node->writer_start);
	if (node->tuplesort == NULL)
		gpusort_reset(node);
	MemoryContextSwitchTo(oldcxt);
}

/*
 * The next row of a writer that fell back to tuplesort (too little room in
 * the server-wide account for a run, sortnode.c), to be passed on through
 * the Gather; NULL at the end, and always for a writer that wrote runs
 */
TupleTableSlot *
gs_writer_next(GpuSortState *node)
{
	if (node->tuplesort &&
		tuplesort_gettupleslot(node->tuplesort, true, false, node->row_slot, NULL))
		return node->row_slot;
	return NULL;
}

/* what the writer wrote, for EXPLAIN (valid after gs_writer_finish) */
void
gs_writer_counts(GpuSortState *node, int *nruns, uint64 *rows, uint64 *bytes)
{
	*nruns = node->info.spill_runs;
	*rows = node->info.rows_sorted;
	*bytes = node->info.spill_bytes;
}

/* frees everything the writer holds (the node ends or rescans) */
void
gs_writer_end(GpuSortState *node)
{
	gpusort_reset(node);
}
