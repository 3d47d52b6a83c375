/*-------------------------------------------------------------------------
 *
 * aggnode.c
 *	  GpuAgg: an Agg whose aggregates sort, computed from the rows of one
 *	  GpuSort (the plan: aggplan.c; the aggregates: aggfuncs.c).
 *
 * Where stock PostgreSQL's Agg feeds each group's values, one call at a
 * time, into a tuplesort per aggregate and group, GpuAgg takes the rows
 * its GpuSort has sorted by (group columns, sorted column) as the array
 * they already are (gs_sort_sorted_rows), marks group and value boundaries
 * on threads (gs_win_boundaries, reading the aggregates' arguments on the
 * way), computes each aggregate over each group's run on threads, and then
 * returns one row per group: the group's first input row and its results,
 * filtered by the Agg's qual (HAVING) and projected through its
 * targetlist.  A plain Agg (no GROUP BY) returns its one row even over no
 * input, as the Agg does, its input columns NULL.
 *
 * Fallback: the Agg itself is kept in the plan node, over a GpuSortFeed
 * node that hands it the GpuSort's rows.  When the rows do not come as an
 * array (the sort outgrew its memory: its rows are in runs in temp files,
 * merged, or in tuplesort after a fallback, sortstore.c) or the arrays
 * cannot be given memory (gpusort.max_memory, or the server-wide account
 * of gpusort.max_total_memory), that Agg is started and runs exactly as
 * stock runs it (its input, sorted by more columns, is still sorted by its
 * group columns).  EXPLAIN ANALYZE says why.
 *
 * Like the Agg, the node supports neither backward scan nor mark and
 * restore; a rescan without changed parameters returns the same rows
 * again, and one with changed parameters evaluates the fractions again and
 * sorts and computes again.
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "executor/executor.h"
#include "parser/parsetree.h"
#include "miscadmin.h"
#include "portability/instr_time.h"
#include "utils/memutils.h"
#include "utils/ruleutils.h"

#include "base/compat.h"
#include "aggfuncs.h"
#include "aggnode.h"
#include "memory/memaccount.h"
#include "runtime/settings.h"
#include "threads/threads_backend.h"
#include "node/sortfeed.h"
#include "node/sortnode.h"
#include "base/timing.h"

typedef struct GpuAggState
{
	CustomScanState css;

	/* from the plan */
	Agg		   *agg;			/* the fallback, over a GpuSortFeed */
	bool		plain;			/* no group columns: one row, always */
	GsWinCol   *grp;			/* the group columns */
	int			ngrp;
	GsWinCol	sortcol;		/* the aggregates' sorted column */
	bool		peers;			/* an aggregate reads runs of equal values
								 * of sortcol (mode, DISTINCT): compare it */
	bool		backend_args;	/* an argument is an expression */
	GsAggFunc  *funcs;			/* specs; results while computed */
	int			nfuncs;
	ExprState **fractions;		/* [nfuncs]: a percentile's, or NULL */
	int			ninput;			/* input columns, before the aggregates' */
	TupleTableSlot *row_slot;	/* deforms a group's first row */
	TupleTableSlot *val_slot;	/* deforms the row a value comes from */

	/* the current run */
	bool		computed;
	MemoryContext runcxt;		/* the arrays and the reservation */
	GsReservation *reservation;
	MinimalTuple *rows;			/* the GpuSort's, in output order */
	uint64		nrows;
	uint64	   *starts;			/* [ngroups + 1]: each group's first row */
	uint64		ngroups;
	uint64		current;		/* the next group to return */
	PlanState  *fallback;		/* the Agg, once it runs */

	/* for EXPLAIN ANALYZE */
	bool		ran;
	char		why[160];		/* why the Agg ran, or "" */
	int			nthreads;
	Size		reserved;
	double		ms_bounds;
	double		ms_aggs;
} GpuAggState;

static Node *agg_create_state(CustomScan *cscan);
static void agg_begin(CustomScanState *node, EState *estate, int eflags);
static TupleTableSlot *agg_exec(CustomScanState *node);
static void agg_end(CustomScanState *node);
static void agg_rescan(CustomScanState *node);
static void agg_explain(CustomScanState *node, List *ancestors,
						ExplainState *es);


const CustomScanMethods gpuagg_plan_methods = {
	.CustomName = GPUAGG_NODE_NAME,
	.CreateCustomScanState = agg_create_state,
};

static const CustomExecMethods agg_exec_methods = {
	.CustomName = GPUAGG_NODE_NAME,
	.BeginCustomScan = agg_begin,
	.ExecCustomScan = agg_exec,
	.EndCustomScan = agg_end,
	.ReScanCustomScan = agg_rescan,
	.ExplainCustomScan = agg_explain,
};

void
gs_agg_register(void)
{
	RegisterCustomScanMethods(&gpuagg_plan_methods);
}

/* ---- executor ------------------------------------------------------------------------ */

static Node *
agg_create_state(CustomScan *cscan)
{
	GpuAggState *node;

	if (list_length(cscan->custom_private) > GSAP_VALUES)
		return gs_agg_values_create_state(cscan);
	node = palloc0(sizeof(GpuAggState));
	NodeSetTag(node, T_CustomScanState);
	node->css.flags = cscan->flags;
	node->css.methods = &agg_exec_methods;
	return (Node *) node;
}

/* the aggregates of the plan, and the column those that sort sort */
static void
init_funcs(GpuAggState *node, List *aggrefs)
{
	ListCell   *lc;
	int			k = 0;

	node->nfuncs = list_length(aggrefs);
	node->funcs = palloc0(sizeof(GsAggFunc) * Max(node->nfuncs, 1));
	node->fractions = palloc0(sizeof(ExprState *) * Max(node->nfuncs, 1));
	foreach(lc, aggrefs)
	{
		GsAggFunc  *f = &node->funcs[k];
		GsAggSortCol sort;
		bool		sorts;
		const char *why;

		if (!gs_agg_func_from_aggref(lfirst(lc), f, &sort, &sorts, &why))
			elog(ERROR, "GpuAgg cannot compute its aggregate: %s", why);
		if (sorts)
			gs_win_col_init(&node->sortcol, sort.attno, sort.eqop, sort.collation);
		node->peers |= sorts && gs_agg_reads_peers(f);
		if (f->fraction)
			node->fractions[k] = ExecInitExpr(f->fraction, &node->css.ss.ps);
		if (f->fn == GSA_WINDOW && f->w.argexpr != NULL)
		{
			f->w.argstate = ExecInitExpr(f->w.argexpr, &node->css.ss.ps);
			f->w.argcxt = node->css.ss.ps.ps_ExprContext;
			f->w.prog = gs_win_argument_program(&f->w);
			node->backend_args = true;
		}
		k++;
	}
}

static void
agg_begin(CustomScanState *cnode, EState *estate, int eflags)
{
	GpuAggState *node = (GpuAggState *) cnode;
	CustomScan *cscan = (CustomScan *) cnode->ss.ps.plan;
	Agg		   *agg = (Agg *) list_nth(cscan->custom_private, GSAP_FALLBACK);
	TupleDesc	indesc;
	int			i;

	node->agg = agg;
	node->plain = agg->aggstrategy == AGG_PLAIN;
	outerPlanState(node) = ExecInitNode(outerPlan(cscan), estate, eflags);
	indesc = ExecGetResultType(outerPlanState(node));
	node->ninput = indesc->natts;
	node->row_slot = ExecAllocTableSlot(&estate->es_tupleTable, indesc,
										&TTSOpsMinimalTuple);
	node->val_slot = ExecAllocTableSlot(&estate->es_tupleTable, indesc,
										&TTSOpsMinimalTuple);
	node->ngrp = agg->numCols;
	node->grp = palloc0(sizeof(GsWinCol) * Max(node->ngrp, 1));
	for (i = 0; i < node->ngrp; i++)
		gs_win_col_init(&node->grp[i], agg->grpColIdx[i], agg->grpOperators[i],
						agg->grpCollations[i]);
	init_funcs(node, list_nth(cscan->custom_private, GSAP_AGGREFS));
}

/* frees the current run; the rows go with the GpuSort's rescan */
static void
agg_reset(GpuAggState *node)
{
	int			k;

	ExecClearTuple(node->row_slot);
	ExecClearTuple(node->val_slot);
	for (k = 0; k < node->nfuncs; k++)
	{
		GsAggFunc  *f = &node->funcs[k];

		f->frac = NULL;
		f->frac_null = NULL;
		f->i64 = NULL;
		f->f8 = NULL;
		f->isnull = NULL;
		f->nvalues = NULL;
		f->w.argnull = NULL;
		f->w.argi = NULL;
		f->w.argf = NULL;
		f->w.argd = NULL;
	}
	if (node->runcxt)
		MemoryContextDelete(node->runcxt);	/* and the reservation */
	node->runcxt = NULL;
	node->reservation = NULL;
	node->rows = NULL;
	node->starts = NULL;
	node->nrows = 0;
	node->ngroups = 0;
	node->current = 0;
	node->reserved = 0;
	node->computed = false;
	if (node->fallback)
		ExecEndNode(node->fallback);
	node->fallback = NULL;
}

/* Starts the Agg over the GpuSort's rows, and says why */
static void
start_fallback(GpuAggState *node, const char *why)
{
	EState	   *estate = node->css.ss.ps.state;
	MemoryContext oldcxt;

	agg_reset(node);
	oldcxt = MemoryContextSwitchTo(estate->es_query_cxt);
	strlcpy(node->why, why, sizeof(node->why));
	node->fallback = ExecInitNode((Plan *) node->agg, estate, 0);
	gs_feed_attach(node->fallback, outerPlanState(node));
	MemoryContextSwitchTo(oldcxt);
}

/* reserves bytes more for the run; false (the Agg runs) if it cannot */
static bool
reserve(GpuAggState *node, Size bytes)
{
	if (node->reserved + bytes > gpusort_memory_budget())
	{
		start_fallback(node, "aggregate arrays need more than gpusort.max_memory");
		return false;
	}
	if (!gs_reserve(node->reservation, GS_ACCT_MEM, bytes,
					gpusort_total_memory_limit()))
	{
		start_fallback(node, "the server's sorts hold gpusort.max_total_memory");
		return false;
	}
	node->reserved += bytes;
	return true;
}

/*
 * Bytes of the arrays of n rows: the flags, each argument and its NULLs,
 * the per-row results of the aggregates computed as GpuWindow's
 */
static Size
row_bytes(GpuAggState *node, uint64 n)
{
	Size		bytes = (Size) n;
	int			k;

	for (k = 0; k < node->nfuncs; k++)
		bytes += gs_agg_row_bytes(&node->funcs[k], n);
	return bytes;
}

/* every percentile's fraction, once per run, in the backend */
static void
evaluate_fractions(GpuAggState *node)
{
	ExprContext *econtext = node->css.ss.ps.ps_ExprContext;
	int			k;

	for (k = 0; k < node->nfuncs; k++)
	{
		Datum		d;
		bool		isnull;

		if (node->fractions[k] == NULL)
			continue;
		ResetExprContext(econtext);
		d = ExecEvalExprSwitchContext(node->fractions[k], econtext, &isnull);
		gs_agg_set_fraction(&node->funcs[k], d, isnull);
	}
	ResetExprContext(econtext);
}

/*
 * Marks groups and values and reads the arguments (gs_win_boundaries,
 * whose argument arrays are a GsWinFunc's: each aggregate's is lent, and
 * taken back)
 */
static void
find_boundaries(GpuAggState *node, TupleDesc indesc, uint8 *flags)
{
	GsWinFunc  *w = palloc(sizeof(GsWinFunc) * Max(node->nfuncs, 1));
	int			k;

	for (k = 0; k < node->nfuncs; k++)
		w[k] = node->funcs[k].w;
	gs_win_boundaries(node->rows, node->nrows, indesc, node->grp, node->ngrp,
					  &node->sortcol, node->peers ? 1 : 0, w, node->nfuncs,
					  flags, node->nthreads);
	for (k = 0; k < node->nfuncs; k++)
		node->funcs[k].w = w[k];
	pfree(w);
}

/*
 * The aggregates' arguments that are expressions: gs_win_boundaries ran
 * their programs on threads; the rows a program left to the backend
 * (argback), or every row of an expression without one, are evaluated
 * here, row by row and within a row aggregate by aggregate, as the Agg
 * evaluates its transitions' inputs: the first error raised is the one it
 * raises.  The expressions are neither volatile nor able to raise errors
 * about values (gs_win_func_from_plan), so computing them before any group
 * is returned changes nothing.
 */
static void
evaluate_arguments(GpuAggState *node)
{
	ExprContext *econtext = node->css.ss.ps.ps_ExprContext;
	uint64		i;
	int			k;

	for (i = 0; i < node->nrows; i++)
	{
		bool		stored = false;

		gs_poll_interrupts(i + 1);
		for (k = 0; k < node->nfuncs; k++)
		{
			GsWinFunc  *w = &node->funcs[k].w;
			Datum		d;
			bool		isnull;

			if (node->funcs[k].fn != GSA_WINDOW || w->argstate == NULL ||
				(w->argback != NULL && !w->argback[i]))
				continue;
			if (!stored)
			{
				ResetExprContext(econtext);
				ExecStoreMinimalTuple(node->rows[i], node->row_slot, false);
				econtext->ecxt_outertuple = node->row_slot;
				stored = true;
			}
			d = ExecEvalExprSwitchContext(w->argstate, econtext, &isnull);
			gs_win_store_arg(w, i, d, isnull);
		}
	}
	ResetExprContext(econtext);
	ExecClearTuple(node->row_slot);
}

/*
 * Should the GpuSort copy the rows into output order?  Every row is read
 * once in order (find_boundaries, which prefetches ahead, on threads);
 * after that the aggregates read their arrays and a row per group, but
 * string_agg and array_agg read every value again, in the backend: there,
 * values that lie in output order are read in sequence, and the copy (on
 * threads) costs less than waiting on memory for each one.  Otherwise the
 * copy would cost the rows' memory a second time, and the time to fill it,
 * for nothing.
 */
static bool
reads_rows_twice(GpuAggState *node)
{
	int			k;

	for (k = 0; k < node->nfuncs; k++)
		if (node->funcs[k].fn == GSA_STRING_AGG || node->funcs[k].fn == GSA_ARRAY_AGG)
			return true;
	return false;
}

/* Sorts (the GpuSort below) and computes every group's aggregates */
static void
agg_run(GpuAggState *node)
{
	PlanState  *input = outerPlanState(node);
	MinimalTuple *rows;
	uint64		n;
	uint8	   *flags;
	Size		bytes;
	instr_time	start;
	MemoryContext oldcxt;
	const char *why;
	int			k;

	node->ran = true;
	node->why[0] = '\0';
	if (!gs_sort_sorted_rows(input, &rows, &n, reads_rows_twice(node)))
	{
		start_fallback(node, "the sort's rows are not in memory (a tuplesort, or runs in temp files)");
		return;
	}
	node->runcxt = AllocSetContextCreate(node->css.ss.ps.state->es_query_cxt,
										 "GpuAgg", ALLOCSET_DEFAULT_SIZES);
	node->reservation = gs_reservation_create(node->runcxt);
	if (!reserve(node, row_bytes(node, n)))
		return;
	oldcxt = MemoryContextSwitchTo(node->runcxt);
	node->nthreads = gpusort_threads();
	node->rows = rows;
	node->nrows = n;
	evaluate_fractions(node);
	flags = palloc_extended(Max(n, 1), MCXT_ALLOC_HUGE);
	INSTR_TIME_SET_CURRENT(start);
	find_boundaries(node, ExecGetResultType(input), flags);
	if (node->backend_args)
		evaluate_arguments(node);
	node->ngroups = gs_agg_groups(flags, n, node->plain, &node->starts,
								  node->nthreads);
	node->ms_bounds = gs_elapsed_ms(start);

	bytes = sizeof(uint64) * (node->ngroups + 1);
	for (k = 0; k < node->nfuncs; k++)
		bytes += gs_agg_result_bytes(&node->funcs[k], node->ngroups);
	MemoryContextSwitchTo(oldcxt);
	if (!reserve(node, bytes))
		return;
	oldcxt = MemoryContextSwitchTo(node->runcxt);
	INSTR_TIME_SET_CURRENT(start);
	gs_agg_compute(flags, node->starts, node->ngroups, node->funcs,
				   node->nfuncs, node->nthreads);
	why = gs_agg_compute_windows(node->starts, node->ngroups, node->funcs,
								 node->nfuncs, node->nthreads);
	node->ms_aggs = gs_elapsed_ms(start);
	MemoryContextSwitchTo(oldcxt);
	if (why)
	{
		start_fallback(node, why);
		return;
	}
	node->current = 0;
	node->computed = true;
}

/* the scan tuple of group g: its first row's columns, then its results */
static void
fill_scan_tuple(GpuAggState *node, uint64 g, TupleTableSlot *scan)
{
	ExprContext *econtext = node->css.ss.ps.ps_ExprContext;
	MemoryContext oldcxt;
	int			k;

	ExecClearTuple(scan);
	if (node->starts[g] < node->starts[g + 1])
	{
		ExecStoreMinimalTuple(node->rows[node->starts[g]], node->row_slot, false);
		slot_getallattrs(node->row_slot);
		memcpy(scan->tts_values, node->row_slot->tts_values,
			   sizeof(Datum) * node->ninput);
		memcpy(scan->tts_isnull, node->row_slot->tts_isnull,
			   sizeof(bool) * node->ninput);
	}
	else
	{
		/* a plain Agg over no rows: its input columns are NULL */
		memset(scan->tts_values, 0, sizeof(Datum) * node->ninput);
		memset(scan->tts_isnull, true, sizeof(bool) * node->ninput);
	}
	oldcxt = MemoryContextSwitchTo(econtext->ecxt_per_tuple_memory);
	for (k = 0; k < node->nfuncs; k++)
		scan->tts_values[node->ninput + k] =
			gs_agg_datum(&node->funcs[k], g, node->rows, node->val_slot,
						 &scan->tts_isnull[node->ninput + k]);
	MemoryContextSwitchTo(oldcxt);
	ExecStoreVirtualTuple(scan);
}

static TupleTableSlot *
agg_exec(CustomScanState *cnode)
{
	GpuAggState *node = (GpuAggState *) cnode;
	ExprContext *econtext = cnode->ss.ps.ps_ExprContext;
	TupleTableSlot *scan = cnode->ss.ss_ScanTupleSlot;

	if (!node->computed && node->fallback == NULL)
		agg_run(node);
	if (node->fallback)
		return ExecProcNode(node->fallback);

	for (;;)
	{
		CHECK_FOR_INTERRUPTS();
		if (node->current >= node->ngroups)
			return ExecClearTuple(cnode->ss.ps.ps_ResultTupleSlot);
		ResetExprContext(econtext);
		fill_scan_tuple(node, node->current++, scan);
		econtext->ecxt_scantuple = scan;
		if (cnode->ss.ps.qual && !ExecQual(cnode->ss.ps.qual, econtext))
		{
			InstrCountFiltered1(node, 1);
			continue;
		}
		return cnode->ss.ps.ps_ProjInfo ?
			ExecProject(cnode->ss.ps.ps_ProjInfo) : scan;
	}
}

static void
agg_end(CustomScanState *cnode)
{
	GpuAggState *node = (GpuAggState *) cnode;

	agg_reset(node);
	ExecEndNode(outerPlanState(node));
}

static void
agg_rescan(CustomScanState *cnode)
{
	GpuAggState *node = (GpuAggState *) cnode;
	PlanState  *input = outerPlanState(node);

	ExecClearTuple(cnode->ss.ps.ps_ResultTupleSlot);
	/* the same rows and fractions: the same results */
	if (node->computed && cnode->ss.ps.chgParam == NULL)
	{
		node->current = 0;
		return;
	}
	agg_reset(node);
	if (input->chgParam == NULL)
		ExecReScan(input);
}

/* the names of the aggregates, for EXPLAIN */
static List *
aggregate_names(GpuAggState *node)
{
	List	   *names = NIL;
	int			k;

	for (k = 0; k < node->nfuncs; k++)
		names = lappend(names, (char *) gs_agg_name(&node->funcs[k]));
	return names;
}

/*
 * The group columns, as EXPLAIN shows an Agg's "Group Key": the input's
 * targetlist entries, deparsed in the input's context with this node above
 * it
 */
static void
explain_group_key(GpuAggState *node, List *ancestors, ExplainState *es)
{
	Plan	   *plan = node->css.ss.ps.plan;
	Plan	   *input = outerPlan(plan);
	List	   *context;
	List	   *keys = NIL;
	bool		useprefix;
	int			i;

	if (node->ngrp == 0)
		return;
	ancestors = lcons(plan, ancestors);
	context = set_deparse_context_plan(es->deparse_cxt, input, ancestors);
	useprefix = (gs_explain_rtable_size(es) > 1 || es->verbose);
	for (i = 0; i < node->ngrp; i++)
	{
		TargetEntry *tle = get_tle_by_resno(input->targetlist, node->grp[i].attno);

		if (tle == NULL)
			elog(ERROR, "no tlist entry for group column %d", node->grp[i].attno);
		keys = lappend(keys, deparse_expression((Node *) tle->expr, context,
												useprefix, true));
	}
	ExplainPropertyList("Group Key", keys, es);
	ancestors = list_delete_first(ancestors);
}

static void
agg_explain(CustomScanState *cnode, List *ancestors, ExplainState *es)
{
	GpuAggState *node = (GpuAggState *) cnode;

	explain_group_key(node, ancestors, es);
	ExplainPropertyList("Aggregates", aggregate_names(node), es);
	if (!es->analyze || !node->ran)
		return;
	if (node->why[0])
	{
		ExplainPropertyText("GpuAgg Fallback", node->why, es);
		return;
	}
	ExplainPropertyUInteger("Groups", NULL, node->ngroups, es);
	ExplainPropertyInteger("Aggregate Threads", NULL, node->nthreads, es);
	ExplainPropertyInteger("Aggregate Memory", "kB", (node->reserved + 1023) / 1024, es);
	if (es->timing)
	{
		ExplainPropertyFloat("Time Finding Groups", "ms", node->ms_bounds, 3, es);
		ExplainPropertyFloat("Time Computing Aggregates", "ms", node->ms_aggs, 3, es);
	}
}
