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
 * Files: this file is the GpuSort node, executor glue: setup, the
 * callbacks, returning rows (step 5), rescan, mark and restore.  The sort
 * itself is the core's (src/sort/core/, state in sortstate.h): sortstore.c
 * reads and stores the input (step 1), bounds it, writes runs and falls
 * back to tuplesort, and runs a parallel intake's run writer; sortorder.c
 * builds the keys, sorts them and gathers the output (steps 2, 3 and 5's
 * array); sortmem.c reserves the rows' memory; sortties.c and the files
 * below it settle ties (step 4); sortspill.c and sortshared.c hold runs and
 * their merge; sortstat.c counts for gpusort_stat; EXPLAIN is
 * sortexplain.c's, beside this file.
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "miscadmin.h"

#include "base/timing.h"
#include "sortnode.h"
#include "core/sortstate.h"

/* how far ahead of the row being returned to prefetch */
#define GS_PREFETCH_AHEAD	16


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

	gs_sort_init_columns(node, cscan->custom_private);

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

		gs_sort_run(node);
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

static void
gpusort_end(CustomScanState *cnode)
{
	GpuSortState *node = (GpuSortState *) cnode;

	gs_sort_reset(node);
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
	bounded = gs_sort_eval_bound(node, &bound);
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
		gs_sort_reset(node);
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
