/*-------------------------------------------------------------------------
 *
 * sortnode.c
 *	  Executor of the GpuSort CustomScan: a Sort that sorts fixed-width keys.
 *
 * The node is executor glue over the sort's core (src/sort/core/,
 * sortcore.h, whose steps, invariants, memory and fallbacks sortstore.c's
 * header gives), as nodeSort.c is over tuplesort.c: it sets a sort state
 * (GsSort) up from its plan (the columns, the input's descriptor and
 * estimate, a parallel intake below its Gather, the participants' sort
 * below one), and on the first fetch evaluates the Limit's bound, pulls
 * every row of its child into the sort and has it sorted; it returns the
 * sort's rows forwards or backwards, and rescans, marks and restores as a
 * Sort does.  A rescan reads the rows again unless the input's parameters
 * or the bound changed or the sort cannot read them again
 * (gs_sort_rewind); then the sort goes and the next fetch sorts anew.
 *
 * GpuWindow and GpuAgg take a GpuSort child's rows as one array
 * (gs_sort_sorted_rows, here: the node sorts as its first fetch would).  A
 * participant's GpuSort under a Gather (GS_SORT_SHARED_RUNS) sets up the
 * shared runs in the Gather's segment (the DSM callbacks below).  EXPLAIN
 * is sortexplain.c's, beside this file.
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "access/parallel.h"
#include "common/int.h"
#include "executor/executor.h"
#include "executor/instrument.h"
#include "miscadmin.h"

#include "sortnode.h"
#include "sortpar.h"
#include "core/sortcore.h"
#include "engine/engine.h"


static Node *gpusort_create_state(CustomScan *cscan);
static void gpusort_begin(CustomScanState *node, EState *estate, int eflags);
static TupleTableSlot *gpusort_exec(CustomScanState *node);
static void gpusort_end(CustomScanState *node);
static void gpusort_rescan(CustomScanState *node);
static void gpusort_markpos(CustomScanState *node);
static void gpusort_restrpos(CustomScanState *node);
static Size gpusort_estimate_dsm(CustomScanState *node, ParallelContext *pcxt);
static void gpusort_init_dsm(CustomScanState *node, ParallelContext *pcxt,
							 void *coordinate);
static void gpusort_reinit_dsm(CustomScanState *node, ParallelContext *pcxt,
							   void *coordinate);
static void gpusort_init_worker(CustomScanState *node, shm_toc *toc,
								void *coordinate);

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
	.EstimateDSMCustomScan = gpusort_estimate_dsm,
	.InitializeDSMCustomScan = gpusort_init_dsm,
	.ReInitializeDSMCustomScan = gpusort_reinit_dsm,
	.InitializeWorkerCustomScan = gpusort_init_worker,
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
	GpuSortState *below;
	GsSortSpec	spec = {0};

	/* like a Sort, we store the input, so the input never rewinds */
	spec.random_access = (eflags & (EXEC_FLAG_REWIND |
									EXEC_FLAG_BACKWARD |
									EXEC_FLAG_MARK)) != 0;
	spec.forward_only = (eflags & (EXEC_FLAG_BACKWARD | EXEC_FLAG_MARK)) == 0;
	outerPlanState(node) = ExecInitNode(outerPlan(cscan), estate,
										eflags & ~(EXEC_FLAG_REWIND |
												   EXEC_FLAG_BACKWARD |
												   EXEC_FLAG_MARK));
	node->mode = gs_plan_sort_mode(cscan->custom_private);
	spec.columns = cscan->custom_private;
	spec.tupdesc = ExecGetResultType(outerPlanState(node));
	spec.est_rows = cscan->scan.plan.plan_rows;
	spec.plan_node_id = cscan->scan.plan.plan_node_id;
	spec.mode = node->mode;
	if (node->mode == GS_SORT_PARALLEL)
		spec.par = gs_par_input(outerPlanState(node));
	below = shared_runs_below(outerPlanState(node));
	spec.below = below ? below->sort : NULL;
	spec.tuple_table = &estate->es_tupleTable;

	/*
	 * Return the stored rows themselves, in a MinimalTuple slot as a Sort
	 * does, without projection: the targetlist is the input row.
	 */
	ExecInitResultTupleSlotTL(&cnode->ss.ps, &TTSOpsMinimalTuple);
	cnode->ss.ps.ps_ProjInfo = NULL;
	node->sort = gs_sort_begin(&spec);

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

/* ---- the sort --------------------------------------------------------------- */

/*
 * The number of rows the Limit above will take (offset + count), or 0
 * when it may take them all.  Limit computes the same from the same
 * expressions (recompute_limits); it complains about bad values itself.
 */
static int64
eval_bound(GpuSortState *node)
{
	ExprContext *econtext = node->css.ss.ps.ps_ExprContext;
	Datum		d;
	bool		isnull;
	int64		count;
	int64		offset = 0;
	int64		bound;

	if (node->count_expr == NULL)
		return 0;
	d = ExecEvalExprSwitchContext(node->count_expr, econtext, &isnull);
	if (isnull)
		return 0;
	count = DatumGetInt64(d);
	d = ExecEvalExprSwitchContext(node->offset_expr, econtext, &isnull);
	if (!isnull)
		offset = DatumGetInt64(d);
	if (count <= 0 || offset < 0 || pg_add_s64_overflow(count, offset, &bound))
		return 0;
	return bound;
}

/*
 * Reads the input into the core's sort and sorts it, in the query's memory
 * (the sort's own is a child of it)
 */
static void
sort_input(GpuSortState *node)
{
	PlanState  *outer = outerPlanState(node);
	Instrumentation *instr = node->css.ss.ps.instrument;
	MemoryContext oldcxt =
		MemoryContextSwitchTo(node->css.ss.ps.state->es_query_cxt);

	/* instrumentation is set up after BeginCustomScan */
	gs_sort_start(node->sort, eval_bound(node),
				  instr != NULL && instr->need_timer);
	for (;;)
	{
		TupleTableSlot *slot = ExecProcNode(outer);

		if (TupIsNull(slot))
			break;
		gs_sort_put(node->sort, slot);
	}
	gs_sort_perform(node->sort);
	MemoryContextSwitchTo(oldcxt);
}

static TupleTableSlot *
gpusort_exec(CustomScanState *cnode)
{
	GpuSortState *node = (GpuSortState *) cnode;
	TupleTableSlot *slot = cnode->ss.ps.ps_ResultTupleSlot;

	CHECK_FOR_INTERRUPTS();
	if (!gs_sort_is_sorted(node->sort))
		sort_input(node);
	(void) gs_sort_gettuple(node->sort,
							ScanDirectionIsForward(cnode->ss.ps.state->es_direction),
							slot);
	return slot;
}

/*
 * The sorted rows of the GpuSort ps, as an array in output order, for a
 * GpuWindow or GpuAgg above it that reads them all at once instead of one
 * ExecProcNode at a time; false when the rows are not held in memory
 * (gs_sort_rows_array), whose rows only come one at a time (ExecProcNode
 * still returns them all).  The rows stay the node's until it is
 * rescanned or ended.
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
	if (!gs_sort_is_sorted(node->sort))
	{
		gs_sort_as_array(node->sort, copy);
		sort_input(node);
	}
	ok = gs_sort_rows_array(node->sort, rows, n);
	if (ps->instrument)
		InstrStopNode(ps->instrument, (double) *n);
	return ok;
}

/* ---- end, rescan, mark ---------------------------------------------------------- */
static void
gpusort_end(CustomScanState *cnode)
{
	GpuSortState *node = (GpuSortState *) cnode;

	ExecClearTuple(cnode->ss.ps.ps_ResultTupleSlot);
	gs_sort_end(node->sort);
	node->sort = NULL;
	ExecEndNode(outerPlanState(node));
}

/*
 * The rows are read again where nothing changed: the input's parameters,
 * the Limit's bound, and the rows can be read again (gs_sort_rewind);
 * otherwise the sort goes and the next fetch sorts again
 */
static void
gpusort_rescan(CustomScanState *cnode)
{
	GpuSortState *node = (GpuSortState *) cnode;
	PlanState  *outer = outerPlanState(node);
	int64		bound = 0;
	int64		old_bound;
	bool		bounded;

	/* not sorted yet: the input rescans itself if its parameters changed */
	if (!gs_sort_is_sorted(node->sort))
		return;

	ExecClearTuple(cnode->ss.ps.ps_ResultTupleSlot);
	bound = eval_bound(node);
	bounded = gs_sort_bounded(node->sort, &old_bound);
	if (outer->chgParam != NULL ||
		(bound > 0) != bounded || (bounded && bound != old_bound) ||
		!gs_sort_rewind(node->sort))
	{
		gs_sort_reset(node->sort);
		if (outer->chgParam == NULL)
			ExecReScan(outer);
	}
}

static void
gpusort_markpos(CustomScanState *cnode)
{
	gs_sort_markpos(((GpuSortState *) cnode)->sort);
}

static void
gpusort_restrpos(CustomScanState *cnode)
{
	gs_sort_restorepos(((GpuSortState *) cnode)->sort);
}

/* ---- a participant's GpuSort under a Gather (GS_SORT_SHARED_RUNS) ------------ */

/* participants are the leader and the workers parallel.c planned */
static Size
gpusort_estimate_dsm(CustomScanState *cnode, ParallelContext *pcxt)
{
	return gs_shared_runs_size(pcxt->nworkers + 1);
}

static void
gpusort_init_dsm(CustomScanState *cnode, ParallelContext *pcxt, void *coordinate)
{
	struct GsSharedRuns *sh = (struct GsSharedRuns *) coordinate;

	gs_sort_set_shared(((GpuSortState *) cnode)->sort,
					   gs_shared_runs_init(sh, pcxt) ? sh : NULL);
}

static void
gpusort_reinit_dsm(CustomScanState *cnode, ParallelContext *pcxt,
				   void *coordinate)
{
	(void) gs_shared_runs_reinit((struct GsSharedRuns *) coordinate);
}

static void
gpusort_init_worker(CustomScanState *cnode, shm_toc *toc, void *coordinate)
{
	struct GsSharedRuns *sh = (struct GsSharedRuns *) coordinate;

	gs_sort_set_shared(((GpuSortState *) cnode)->sort,
					   gs_shared_runs_attach(sh) ? sh : NULL);
}
