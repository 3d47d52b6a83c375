/*-------------------------------------------------------------------------
 *
 * sortnode.c
 *	  Executor of the GpuSort CustomScan: a Sort that sorts fixed-width keys.
 *
 * The node is executor glue over the sort's core (src/sort/core/, whose
 * steps, invariants, memory and fallbacks sortstore.c's header gives): it
 * sets the sort up from its plan (the columns, a Limit's bound, a parallel
 * intake below its Gather), runs it on the first fetch, returns its rows
 * forwards or backwards, and rescans, marks and restores as a Sort does.
 *
 * Files: the sort is the core's (src/sort/core/, state in sortstate.h,
 * the steps numbered as in sortstore.c's header): sortstore.c
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
#include "sortnode.h"
#include "core/sortstate.h"


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
	tup = gs_sort_next_row(node, forward);
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
