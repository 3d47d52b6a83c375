/*-------------------------------------------------------------------------
 *
 * windownode.c
 *	  GpuWindow: a WindowAgg over a GpuSort, computed from the sorted rows.
 *
 * Where stock PostgreSQL sorts for a window and then walks the rows one at
 * a time through a WindowAgg (a tuplestore per partition, a function call
 * per row for every window function and aggregate transition), GpuWindow
 * takes the GpuSort's output as the array it already is
 * (gs_sort_sorted_rows), finds every partition and peer group and computes
 * every window function over whole arrays on threads (windowfuncs.c), and
 * then returns each row with its values, projected through the WindowAgg's
 * targetlist.  The per-row work stock does in the backend runs on the
 * threads wherever the result can be proven PostgreSQL's: aggregate
 * arguments of fixed-point arithmetic (winexpr.c), RANGE bounds over
 * integer, date and timestamp keys (winrange.c), numeric results as bytes,
 * and output expressions such as amount / sum(amount) OVER w
 * (winproject.c); the rest, and every row those leave, is PostgreSQL's own
 * evaluation in the backend.
 *
 * Plan (gs_window_plan): a WindowAgg directly over a GpuSort, whose frame
 * and window functions GpuWindow computes (winplan.c's
 * gs_win_frame_from_plan, gs_win_func_from_plan), and whose run condition,
 * if any, is the top window's, becomes a GpuWindow.  Anything else keeps
 * the WindowAgg, over the GpuSort as before.  The WindowAgg's qual becomes
 * the node's, on the scan tuple; the run condition (custom_exprs) reads
 * the projected row, as in WindowAgg, and ends the partition's rows at the
 * first row that fails it: WindowAgg's strict pass-through of the top
 * window.
 *
 * A WindowAgg that stays gets its reason recorded (window_why_not):
 * EXPLAIN shows it as "GpuWindow Not Used" on the WindowAgg, and
 * gpusort_stat counts it.
 *
 * Fallback: the WindowAgg itself is kept in the plan node, over a
 * GpuSortFeed node (sortfeed.h) that hands it the GpuSort's rows.  When
 * the rows do not come as an array (the sort went to runs in temp files or
 * to a tuplesort) or their window values cannot be given memory
 * (gpusort.max_memory, or the server-wide account of
 * gpusort.max_total_memory), that WindowAgg is started and runs exactly as
 * stock runs it.  EXPLAIN ANALYZE says why.
 *
 * Like WindowAgg, the node supports neither backward scan nor mark and
 * restore.  A rescan without changed parameters returns the same values
 * again; one whose changed parameters only the window's expressions read
 * (a FILTER over an outer column, in a correlated subquery) computes again
 * over the same sorted rows; one whose input changed sorts again too.
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "common/int.h"
#include "executor/executor.h"
#include "miscadmin.h"
#include "nodes/makefuncs.h"
#include "nodes/nodeFuncs.h"
#include "executor/nodeSubplan.h"
#include "portability/instr_time.h"
#include "utils/lsyscache.h"
#include "utils/memutils.h"
#include "utils/regproc.h"
#include "utils/ruleutils.h"

#include "base/compat.h"
#include "runtime/settings.h"
#include "memory/memaccount.h"
#include "node/sortfeed.h"
#include "core/sortcore.h"
#include "node/sortnode.h"
#include "core/sortplan.h"
#include "runtime/notused.h"
#include "runtime/stat.h"
#include "threads/threads.h"
#include "base/timing.h"
#include "threads/threads_backend.h"
#include "windowfuncs.h"
#include "windownode.h"
#include "winexpr.h"
#include "winrange.h"
#include "winproject.h"

#define GSWP_FALLBACK	0
#define GSWP_RUNCOND	1		/* the run condition as written, for EXPLAIN */
#define GSWP_WFUNCS		2		/* the WindowFuncs, in scan tuple order */
#define GSWP_DERIVED	3		/* output expressions the threads compute
								 * (winproject.c), in scan tuple order */

typedef struct GpuWindowState
{
	CustomScanState css;

	/* from the plan */
	WindowAgg  *wa;				/* the fallback, over a GpuSortFeed */
	GsWinFrame	frame;
	GsWinRangeKeys *rangekeys;	/* RANGE bounds by arithmetic, or NULL */
	GsWinCol   *part;
	int			npart;
	GsWinCol   *ord;
	int			nord;
	GsWinFunc  *funcs;			/* specs; result arrays while computed */
	int			nfuncs;
	int			ninput;			/* input columns, before the functions' */
	int			readatts;		/* the input columns the projection and the
								 * qual read: 1 .. readatts */
	TupleTableSlot *row_slot;	/* deforms the input rows */
	TupleTableSlot **nav_slots; /* [nfuncs] */
	ExprState **filters;		/* [nfuncs]: an aggregate's FILTER, or NULL */
	GsWinDerived *derived;		/* [nderived], winproject.h */
	int			nderived;
	uint64		derived_backend;	/* rows of them the backend evaluated */
	bool	   *func_read;		/* [nfuncs]: the projection or the qual reads
								 * the function's column (else only a derived
								 * expression's backend evaluation may) */
	bool		funcs_unread;	/* a function's column is not read */

	/* the current run */
	bool		computed;
	MemoryContext runcxt;		/* the result arrays and the reservation */
	GsReservation *reservation;
	MinimalTuple *rows;			/* the GpuSort's, in output order */
	uint64		nrows;
	uint64		current;		/* the next row to return */
	uint8	   *flags;			/* [nrows]: windowfuncs.h's GSW_* */
	ExprState  *runcond;		/* the top window's run condition, or NULL */
	PlanState  *fallback;		/* the WindowAgg, once it runs */

	/* for EXPLAIN ANALYZE */
	bool		ran;
	char		why[160];		/* why the WindowAgg ran, or "" */
	uint64		nparts;
	int			nthreads;
	Size		reserved;
	double		ms_bounds;
	double		ms_funcs;
	const char *range_how;		/* how RANGE offsets' bounds were found */
} GpuWindowState;

static Node *window_create_state(CustomScan *cscan);
static void window_begin(CustomScanState *node, EState *estate, int eflags);
static TupleTableSlot *window_exec(CustomScanState *node);
static void window_end(CustomScanState *node);
static void window_rescan(CustomScanState *node);
static void window_explain(CustomScanState *node, List *ancestors,
						   ExplainState *es);
static void window_reset(GpuWindowState *node);


static const CustomScanMethods window_plan_methods = {
	.CustomName = GPUWINDOW_NODE_NAME,
	.CreateCustomScanState = window_create_state,
};

static const CustomExecMethods window_exec_methods = {
	.CustomName = GPUWINDOW_NODE_NAME,
	.BeginCustomScan = window_begin,
	.ExecCustomScan = window_exec,
	.EndCustomScan = window_end,
	.ReScanCustomScan = window_rescan,
	.ExplainCustomScan = window_explain,
};

void
gs_window_register(void)
{
	RegisterCustomScanMethods(&window_plan_methods);
}

/* ---- plan ------------------------------------------------------------------------ */

typedef struct CollectContext
{
	Index		winref;
	const GsWinFrame *frame;
	List	   *wfuncs;			/* distinct WindowFuncs, in order */
	bool		ok;
	bool		restarts;		/* one recomputes every row's frame */
	bool		afresh;			/* one evaluates every row's frame anew */
	/* why not: the first function not computed here */
	WindowFunc *bad;
	const char *bad_why;
} CollectContext;

static bool
collect_wfuncs(Node *node, CollectContext *cxt)
{
	if (node == NULL)
		return false;
	if (IsA(node, WindowFunc))
	{
		WindowFunc *wfunc = (WindowFunc *) node;
		GsWinFunc	f;
		const char *why;

		if (wfunc->winref != cxt->winref)
			cxt->ok = false;
		else if (!gs_win_func_from_plan(wfunc, &f, &why) ||
				 !gs_win_excludes(&f, cxt->frame))
		{
			if (cxt->bad == NULL)
			{
				cxt->bad = wfunc;
				cxt->bad_why = gs_win_excludes(&f, cxt->frame) ? why :
					"an argument that may raise an error, under EXCLUDE";
			}
			cxt->ok = false;
		}
		else if (!list_member(cxt->wfuncs, wfunc))
		{
			cxt->wfuncs = lappend(cxt->wfuncs, wfunc);
			cxt->restarts |= gs_win_restarts(&f, cxt->frame);
			cxt->afresh |= gs_win_excludes_afresh(&f, cxt->frame);
		}
		return false;
	}
	return expression_tree_walker(node, collect_wfuncs, (void *) cxt);
}

/*
 * What EXPLAIN shows for a window function of the node: the WindowFunc
 * itself, "sum(x) OVER (?)" as for a WindowAgg; in PostgreSQL 18, which
 * deparses a WindowFunc only under a WindowAgg of its window, a call of
 * the same function on the same arguments, "sum(x)".
 */
static Node *
display_wfuncs(Node *node, void *context)
{
	if (node == NULL)
		return NULL;
	if (IsA(node, WindowFunc) && GS_DEPARSE_WINDOWFUNC_NEEDS_WINDOWAGG)
	{
		WindowFunc *wfunc = (WindowFunc *) node;

		return (Node *) makeFuncExpr(wfunc->winfnoid, wfunc->wintype,
									 (List *) copyObject(wfunc->args),
									 wfunc->wincollid, wfunc->inputcollid,
									 COERCE_EXPLICIT_CALL);
	}
	return expression_tree_mutator(node, display_wfuncs, context);
}

/*
 * Whether a frame that starts at an offset spans GSW_MAX_RESTART_ROWS rows
 * or more.  The offsets are any int8 the query gave (the start's negated),
 * so their difference can overflow: an overflow is a wide frame.
 */
static bool
frame_is_wide(const GsWinFrame *frame)
{
	int64		width;

	if (GSW_BOUND_IS_ARRAY(frame->start))
		return true;			/* as wide as the values make it */
	if (frame->start != GSW_BOUND_ROW)
		return false;
	if (frame->end != GSW_BOUND_ROW)
		return true;
	return pg_sub_s64_overflow(frame->end_offset, frame->start_offset, &width) ||
		width >= GSW_MAX_RESTART_ROWS;
}

/*
 * Why wa must stay a WindowAgg, with *kind the reason's gpusort_stat
 * counter; "" where there is nothing to say; or NULL, frame and collect
 * filled in, where it may be a GpuWindow.  input_why: why planner.c left
 * the Sort below to stock.
 */
static const char *
window_why_not(WindowAgg *wa, const char *input_why, GsWinFrame *frame,
			   CollectContext *collect, GsStatCounter *kind)
{
	Plan	   *input = wa->plan.lefttree;
	const char *why;

	*kind = GS_STAT_WINDOW_NU_INPUT;
	if (!gpusort_window_functions)
	{
		*kind = GS_STAT_WINDOW_NU_SETTING;
		return "gpusort.window_functions is off";
	}
	if (input_why)
		return psprintf("input is not sorted by a GpuSort: %s", input_why);
	if (IsA(input, Sort))
		return "input is not sorted by a GpuSort";
	if (!IsA(input, CustomScan) ||
		((CustomScan *) input)->methods != &gpusort_plan_methods)
		return "input is not a GpuSort (its rows come in order from below)";
	*kind = GS_STAT_WINDOW_NU_FRAME;
	if (wa->runCondition != NIL && !wa->topWindow)
		return "a run condition on a window below another";
	if (!gs_win_frame_from_plan(wa, frame, &why))
		return why;
	collect->winref = wa->winref;
	collect->frame = frame;
	collect->wfuncs = NIL;
	collect->ok = true;
	collect->restarts = false;
	collect->afresh = false;
	collect->bad = NULL;
	(void) collect_wfuncs((Node *) wa->plan.targetlist, collect);
	(void) collect_wfuncs((Node *) wa->plan.qual, collect);
	*kind = GS_STAT_WINDOW_NU_FUNCTION;
	if (collect->bad)
		return psprintf("%s: %s", collect->bad_why,
						format_procedure(collect->bad->winfnoid));
	if (!collect->ok || collect->wfuncs == NIL)
		return "";

	/* a wide sliding frame over an aggregate with no inverse: WindowAgg's */
	*kind = GS_STAT_WINDOW_NU_FRAME;
	if (collect->restarts && frame_is_wide(frame))
		return psprintf("a sliding frame of %d rows or more, recomputed at each row",
						GSW_MAX_RESTART_ROWS);

	/*
	 * ... and so is one that excludes rows from wide frames under a run
	 * condition: WindowAgg evaluates each row's frame anew as the threads
	 * would, but stops where the condition first fails (row_number() <= 3
	 * evaluates three frames), while the threads evaluate every row's
	 * (random query 198: 3,125 rows, 63 ms against stock's whole 43 ms)
	 */
	if (wa->runCondition != NIL && collect->afresh && frame_is_wide(frame))
		return "a run condition over wide frames that exclude rows";
	return NULL;
}

Plan *
gs_window_plan(WindowAgg *wa, const char *input_why)
{
	Plan	   *input = wa->plan.lefttree;
	CollectContext collect;
	CustomScan *cscan;
	WindowAgg  *fallback;
	GsWinFrame	frame;
	const char *why;
	GsStatCounter kind;
	List	   *scan_tlist;
	List	   *derived;
	List	   *tlist;
	ListCell   *lc;
	int			resno;

	if (input == NULL)
		return (Plan *) wa;
	why = window_why_not(wa, input_why, &frame, &collect, &kind);
	if (why != NULL)
	{
		if (why[0] != '\0')
			gs_not_used_record(&wa->plan, kind, why);
		return (Plan *) wa;
	}

	/* the fallback: the WindowAgg as it is, over a feed of the sorted rows */
	wa->plan.lefttree = NULL;
	fallback = copyObject(wa);
	wa->plan.lefttree = input;
	fallback->plan.initPlan = NIL;
	fallback->plan.lefttree = gs_feed_plan(input);

	cscan = makeNode(CustomScan);
	memcpy(&cscan->scan.plan, &wa->plan, sizeof(Plan));
	cscan->scan.plan.type = T_CustomScan;
	cscan->scan.plan.lefttree = input;
	cscan->scan.plan.righttree = NULL;
	cscan->scan.scanrelid = 0;
	cscan->flags = 0;			/* as WindowAgg: no backward scan, no mark */

	scan_tlist = gs_plan_column_refs(input->targetlist, OUTER_VAR);
	resno = list_length(scan_tlist);
	foreach(lc, collect.wfuncs)
		scan_tlist = lappend(scan_tlist,
							 makeTargetEntry((Expr *) display_wfuncs(lfirst(lc), NULL),
											 ++resno, NULL, false));
	/* output expressions the threads compute: columns after the functions' */
	derived = gs_win_derived_find(wa, collect.wfuncs);
	tlist = (List *) gs_win_derived_retarget((Node *) wa->plan.targetlist,
											 derived, resno + 1);
	foreach(lc, derived)
		scan_tlist = lappend(scan_tlist,
							 makeTargetEntry((Expr *) display_wfuncs(lfirst(lc), NULL),
											 ++resno, NULL, false));
	cscan->custom_scan_tlist = scan_tlist;
	cscan->scan.plan.targetlist = (List *)
		gs_plan_retarget((Node *) tlist, collect.wfuncs,
						 list_length(input->targetlist));
	cscan->scan.plan.qual = (List *)
		gs_plan_retarget((Node *) wa->plan.qual, collect.wfuncs,
						 list_length(input->targetlist));
	cscan->custom_private = list_make4(fallback,
									   display_wfuncs((Node *) wa->runConditionOrig, NULL),
									   copyObject(collect.wfuncs),
									   copyObject(derived));
	/* its Vars are already the targetlist's columns, as the scan tuple */
	cscan->custom_exprs = copyObject(wa->runCondition);
	cscan->methods = &window_plan_methods;
	return (Plan *) cscan;
}

/* ---- executor ------------------------------------------------------------------------ */

static Node *
window_create_state(CustomScan *cscan)
{
	GpuWindowState *node = palloc0(sizeof(GpuWindowState));

	NodeSetTag(node, T_CustomScanState);
	node->css.flags = cscan->flags;
	node->css.methods = &window_exec_methods;
	return (Node *) node;
}

static GsWinCol *
window_columns(int n, AttrNumber *attnos, Oid *eqops, Oid *collations)
{
	GsWinCol   *cols = palloc0(sizeof(GsWinCol) * Max(n, 1));
	int			i;

	for (i = 0; i < n; i++)
		gs_win_col_init(&cols[i], attnos[i], eqops[i], collations[i]);
	return cols;
}

/* the output expressions the threads compute (winproject.h) */
static void
derived_begin(GpuWindowState *node, CustomScan *cscan, List *wfuncs)
{
	List	   *derived = list_nth(cscan->custom_private, GSWP_DERIVED);
	ListCell   *lc;
	int			k = 0;

	node->nderived = list_length(derived);
	node->derived = palloc0(sizeof(GsWinDerived) * Max(node->nderived, 1));
	foreach(lc, derived)
	{
		Expr	   *scan_expr = (Expr *) gs_plan_retarget(copyObject(lfirst(lc)),
														  wfuncs, node->ninput);

		gs_win_derived_init(&node->derived[k++], lfirst(lc), scan_expr, wfuncs,
							node->funcs, &node->css.ss.ps);
	}
}

/* the largest input column (1 .. *ninput) a Var of the scan tuple reads */
static bool
input_columns_walker(Node *node, int *context)
{
	if (node == NULL)
		return false;
	if (IsA(node, Var) && ((Var *) node)->varno == INDEX_VAR)
	{
		int			attno = ((Var *) node)->varattno;

		/* context[0]: the largest so far; context[1]: the input's columns */
		if (attno <= 0)
			context[0] = context[1];	/* the whole row */
		else if (attno <= context[1])
			context[0] = Max(context[0], attno);
		return false;
	}
	return expression_tree_walker(node, input_columns_walker, (void *) context);
}

typedef struct FuncColumns
{
	int			ninput;
	int			nfuncs;
	bool	   *read;
} FuncColumns;

/* marks the window functions' columns of the scan tuple a Var reads */
static bool
function_columns_walker(Node *node, FuncColumns *cxt)
{
	if (node == NULL)
		return false;
	if (IsA(node, Var) && ((Var *) node)->varno == INDEX_VAR)
	{
		int			attno = ((Var *) node)->varattno;

		if (attno <= 0)
			memset(cxt->read, true, sizeof(bool) * cxt->nfuncs);
		else if (attno > cxt->ninput && attno <= cxt->ninput + cxt->nfuncs)
			cxt->read[attno - cxt->ninput - 1] = true;
		return false;
	}
	return expression_tree_walker(node, function_columns_walker, (void *) cxt);
}

/*
 * Which functions' values the projection and the qual read.  A function
 * that only an expression the threads computed reads (lag in amount -
 * lag(amount) OVER w) is not made for each row returned: lag's value is a
 * deform of another row in the backend, the cost the threads saved.
 */
static void
read_function_columns(GpuWindowState *node, CustomScan *cscan)
{
	FuncColumns cxt;
	int			k;

	node->func_read = palloc(sizeof(bool) * Max(node->nfuncs, 1));
	memset(node->func_read, node->nderived == 0 ||
		   node->css.ss.ps.ps_ProjInfo == NULL, sizeof(bool) * Max(node->nfuncs, 1));
	cxt.ninput = node->ninput;
	cxt.nfuncs = node->nfuncs;
	cxt.read = node->func_read;
	(void) function_columns_walker((Node *) cscan->scan.plan.targetlist, &cxt);
	(void) function_columns_walker((Node *) cscan->scan.plan.qual, &cxt);
	node->funcs_unread = false;
	for (k = 0; k < node->nfuncs; k++)
		node->funcs_unread |= !node->func_read[k];
}

/*
 * How many of the input columns a row returned must deform: those the
 * projection and the qual read (the window values come after them), all of
 * them when the scan tuple itself is returned.  Often none: then the rows
 * go out without deforming the sorted tuples in the backend.
 */
static int
read_input_columns(GpuWindowState *node, CustomScan *cscan)
{
	int			context[2];

	if (node->css.ss.ps.ps_ProjInfo == NULL)
		return node->ninput;
	context[0] = 0;
	context[1] = node->ninput;
	(void) input_columns_walker((Node *) cscan->scan.plan.targetlist, context);
	(void) input_columns_walker((Node *) cscan->scan.plan.qual, context);
	return context[0];
}

static void
window_begin(CustomScanState *cnode, EState *estate, int eflags)
{
	GpuWindowState *node = (GpuWindowState *) cnode;
	CustomScan *cscan = (CustomScan *) cnode->ss.ps.plan;
	WindowAgg  *wa = (WindowAgg *) list_nth(cscan->custom_private, GSWP_FALLBACK);
	TupleDesc	indesc;
	List	   *wfuncs;
	const char *why;
	ListCell   *lc;
	int			k;

	node->wa = wa;
	if (!gs_win_frame_from_plan(wa, &node->frame, &why))
		elog(ERROR, "GpuWindow cannot compute its frame: %s", why);
	/* as WindowAgg initializes its input */
	outerPlanState(node) = ExecInitNode(outerPlan(cscan), estate, eflags);
	indesc = ExecGetResultType(outerPlanState(node));
	node->ninput = indesc->natts;
	node->row_slot = ExecAllocTableSlot(&estate->es_tupleTable, indesc,
										&TTSOpsMinimalTuple);
	node->part = window_columns(wa->partNumCols, wa->partColIdx,
								wa->partOperators, wa->partCollations);
	node->npart = wa->partNumCols;
	node->ord = window_columns(wa->ordNumCols, wa->ordColIdx,
							   wa->ordOperators, wa->ordCollations);
	node->nord = wa->ordNumCols;
	node->rangekeys = gs_win_range_keys_init(wa, indesc, &node->frame);

	node->runcond = ExecInitQual(cscan->custom_exprs, &cnode->ss.ps);
	wfuncs = list_nth(cscan->custom_private, GSWP_WFUNCS);
	node->nfuncs = list_length(wfuncs);
	node->funcs = palloc0(sizeof(GsWinFunc) * Max(node->nfuncs, 1));
	node->nav_slots = palloc0(sizeof(TupleTableSlot *) * Max(node->nfuncs, 1));
	node->filters = palloc0(sizeof(ExprState *) * Max(node->nfuncs, 1));
	k = 0;
	foreach(lc, wfuncs)
	{
		WindowFunc *wfunc = lfirst(lc);

		if (!gs_win_func_from_plan(wfunc, &node->funcs[k], &why))
			elog(ERROR, "GpuWindow cannot compute its function: %s", why);
		node->nav_slots[k] = ExecAllocTableSlot(&estate->es_tupleTable, indesc,
												&TTSOpsMinimalTuple);
		if (node->funcs[k].has_filter)
			node->filters[k] = ExecInitExpr(wfunc->aggfilter, &cnode->ss.ps);
		if (node->funcs[k].argexpr != NULL)
		{
			node->funcs[k].argstate = ExecInitExpr(node->funcs[k].argexpr,
												   &cnode->ss.ps);
			node->funcs[k].argcxt = cnode->ss.ps.ps_ExprContext;
			node->funcs[k].prog = gs_win_argument_program(&node->funcs[k]);
		}
		k++;
	}
	derived_begin(node, cscan, wfuncs);
	node->readatts = read_input_columns(node, cscan);
	read_function_columns(node, cscan);
}

/* Starts the WindowAgg over the GpuSort's rows, and says why */
static void
start_fallback(GpuWindowState *node, const char *why)
{
	EState	   *estate = node->css.ss.ps.state;
	MemoryContext oldcxt = MemoryContextSwitchTo(estate->es_query_cxt);

	strlcpy(node->why, why, sizeof(node->why));
	node->fallback = ExecInitNode((Plan *) node->wa, estate, 0);
	gs_feed_attach(node->fallback, outerPlanState(node));
	MemoryContextSwitchTo(oldcxt);
}

/*
 * Bytes of the arrays for n rows, at most: the flags, and per function a
 * result of up to 16 bytes, avg's divisor, a numeric result's scale, its
 * NULL and FILTER flags, the row its computation failed at, an argument of
 * up to 16 bytes with a numeric's scale, its NULL flag, its error flag and
 * whether the backend evaluates it, and a sliding min's or max's queue
 */
static Size
window_bytes(GpuWindowState *node, uint64 n)
{
	Size		per_func = 16 + sizeof(int64) + sizeof(int16) + 2 * sizeof(bool) +
		sizeof(uint32) + 16 + sizeof(int16) + 3 * sizeof(bool) + sizeof(uint32);

	/* the flags, and a RANGE frame's bounds and keys */
	return (Size) n * (1 + 2 * sizeof(uint32) + sizeof(int64) + sizeof(bool) +
					   per_func * node->nfuncs);
}

/*
 * The rows each FILTER leaves out, in the backend (the filters are
 * leakproof and stable, see gs_win_func_from_plan: evaluating them all
 * first gives what WindowAgg's evaluation row by row gives)
 */
static void
evaluate_filters(GpuWindowState *node, MinimalTuple *rows, uint64 n)
{
	ExprContext *econtext = node->css.ss.ps.ps_ExprContext;
	int			k;

	for (k = 0; k < node->nfuncs; k++)
	{
		bool	   *skip;
		uint64		i;

		if (node->filters[k] == NULL)
			continue;
		skip = palloc_extended(sizeof(bool) * Max(n, 1), MCXT_ALLOC_HUGE);
		for (i = 0; i < n; i++)
		{
			Datum		d;
			bool		isnull;

			ResetExprContext(econtext);
			ExecStoreMinimalTuple(rows[i], node->row_slot, false);
			econtext->ecxt_outertuple = node->row_slot;
			d = ExecEvalExprSwitchContext(node->filters[k], econtext, &isnull);
			skip[i] = isnull || !DatumGetBool(d);
			gs_poll_interrupts(i + 1);
		}
		node->funcs[k].skip = skip;
	}
	ExecClearTuple(node->row_slot);
}

/*
 * Evaluates an argument expression that may raise an error, catching the
 * error: true if it raised one.  Catching without a subtransaction is safe
 * only because the expression is one arg_expr_walker (winplan.c)
 * accepted: built-in functions of plain scalars, which hold no lock, pin or
 * other resource when they raise, and allocate only in the per-tuple
 * memory that is reset.  Only errors about a value (class 22, data
 * exception: overflow, division by zero) are caught; anything else (out of
 * memory, a cancel) goes on up.
 */
static bool
evaluate_catching(ExprState *state, ExprContext *econtext, Datum *value,
				  bool *isnull)
{
	MemoryContext oldcxt = CurrentMemoryContext;
	volatile bool failed = false;

	PG_TRY();
	{
		*value = ExecEvalExprSwitchContext(state, econtext, isnull);
	}
	PG_CATCH();
	{
		ErrorData  *edata;

		MemoryContextSwitchTo(oldcxt);
		edata = CopyErrorData();
		if (ERRCODE_TO_CATEGORY(edata->sqlerrcode) != ERRCODE_DATA_EXCEPTION)
			PG_RE_THROW();
		FlushErrorState();
		FreeErrorData(edata);
		failed = true;
	}
	PG_END_TRY();
	return failed;
}

/* the PARAM_EXEC ids an expression reads, into *params */
static bool
exec_params_walker(Node *node, Bitmapset **params)
{
	if (node == NULL)
		return false;
	if (IsA(node, Param) && ((Param *) node)->paramkind == PARAM_EXEC)
		*params = bms_add_member(*params, ((Param *) node)->paramid);
	return expression_tree_walker(node, exec_params_walker, (void *) params);
}

/*
 * The aggregates' arguments that are expressions, evaluated over every row
 * in the backend, in row order, into the arrays the threads compute from
 * (the columns' were read by gs_win_boundaries).  A row a FILTER leaves out
 * is not evaluated, as WindowAgg does not evaluate it.
 *
 * WindowAgg evaluates an aggregate's argument as the row enters a frame,
 * and raises its error then: while computing the first row whose frame
 * takes it, before that row is returned.  So an error here is not raised
 * but recorded (argerr); the aggregate's pass stops at the row whose frame
 * takes the failing row (GSW_ERROR, errrow), and window_exec raises the
 * error when it comes to return that row, by evaluating the expression on
 * the failing row again, uncaught: the expression is not volatile, so it
 * raises the same error.  Rows a LIMIT or a run condition never reach see
 * no error, and a row no frame takes (past the last frame of ROWS
 * 2 PRECEDING) none either, as with WindowAgg.
 */
static void
evaluate_arguments(GpuWindowState *node, MinimalTuple *rows, uint64 n)
{
	ExprContext *econtext = node->css.ss.ps.ps_ExprContext;
	int			k;

	for (k = 0; k < node->nfuncs; k++)
	{
		GsWinFunc  *f = &node->funcs[k];
		Bitmapset  *params;
		int			p = -1;
		uint64		i;

		if (f->argstate == NULL || f->argnull == NULL)
			continue;
		f->nargback = 0;

		/*
		 * The initplans whose values the expression reads run now, where an
		 * error is not caught (an initplan may hold any resource)
		 */
		params = NULL;
		(void) exec_params_walker((Node *) f->argexpr, &params);
		while ((p = bms_next_member(params, p)) >= 0)
		{
			ParamExecData *prm = &econtext->ecxt_param_exec_vals[p];

			if (prm->execPlan != NULL)
				ExecSetParamPlan(prm->execPlan, econtext);
		}
		for (i = 0; i < n; i++)
		{
			Datum		d = (Datum) 0;
			bool		isnull = true;

			gs_poll_interrupts(i + 1);
			/* the threads' program gave the row's value (winexpr.h) */
			if (f->argback != NULL && !f->argback[i])
				continue;
			if (f->skip && f->skip[i])
			{
				f->argnull[i] = true;
				continue;
			}
			f->nargback++;
			ResetExprContext(econtext);
			ExecStoreMinimalTuple(rows[i], node->row_slot, false);
			econtext->ecxt_outertuple = node->row_slot;
			if (f->argerr == NULL)
				d = ExecEvalExprSwitchContext(f->argstate, econtext, &isnull);
			else if (evaluate_catching(f->argstate, econtext, &d, &isnull))
			{
				f->argerr[i] = true;
				f->argnull[i] = true;
				continue;
			}
			gs_win_store_arg(f, i, d, isnull);
		}
	}
	ResetExprContext(econtext);
	ExecClearTuple(node->row_slot);
}

/*
 * Raises the error WindowAgg raises while computing row r (flagged
 * GSW_ERROR): an aggregate's argument's, by evaluating it again on the row
 * that failed (see evaluate_arguments), or an overflow's
 */
static void
raise_row_error(GpuWindowState *node, uint64 r)
{
	ExprContext *econtext = node->css.ss.ps.ps_ExprContext;
	uint64		row = 0;
	int			k = gs_win_first_error(node->funcs, node->nfuncs, r, &row);
	GsWinFunc  *f = k >= 0 ? &node->funcs[k] : NULL;
	bool		isnull;

	if (f != NULL && f->argerr != NULL && f->argerr[row])
	{
		ResetExprContext(econtext);
		ExecStoreMinimalTuple(node->rows[row], node->row_slot, false);
		econtext->ecxt_outertuple = node->row_slot;
		(void) ExecEvalExprSwitchContext(f->argstate, econtext, &isnull);
		elog(ERROR, "GpuWindow: an argument's error did not recur");
	}
	gs_win_overflow_error();
}

/*
 * A RANGE frame's bounds, found in the backend with the in_range functions
 * (gs_win_range_bounds); false if one raised an error
 */
static bool
range_bounds(GpuWindowState *node, MinimalTuple *rows, uint64 n,
			 const uint8 *flags)
{
	GsWinFrame *frame = &node->frame;

	frame->range_start = frame->range_end = NULL;
	if (!GSW_BOUND_IS_ARRAY(frame->start) && !GSW_BOUND_IS_ARRAY(frame->end))
		return true;
	if (GSW_BOUND_IS_ARRAY(frame->start))
		frame->range_start = palloc_extended(sizeof(uint32) * Max(n, 1),
											 MCXT_ALLOC_HUGE);
	if (GSW_BOUND_IS_ARRAY(frame->end))
		frame->range_end = palloc_extended(sizeof(uint32) * Max(n, 1),
										   MCXT_ALLOC_HUGE);
	if (frame->start == GSW_BOUND_GROUPS || frame->end == GSW_BOUND_GROUPS)
		gs_win_group_bounds(frame, n, flags);
	if (frame->start != GSW_BOUND_RANGE && frame->end != GSW_BOUND_RANGE)
		return true;
	node->range_how = "key arithmetic on threads";
	if (node->rangekeys &&
		gs_win_range_keys_bounds(frame, node->rangekeys, n, flags, node->nthreads))
		return true;
	node->range_how = "in_range functions";
	return gs_win_range_bounds(frame, node->wa, rows, n, flags, node->row_slot);
}

/* whether an aggregate met a numeric the threads could not compute with */
static bool
any_too_wide(GpuWindowState *node)
{
	int			k;

	for (k = 0; k < node->nfuncs; k++)
		if (node->funcs[k].too_wide)
			return true;
	return false;
}

/*
 * The numeric sums' and averages' results as bytes, made on threads
 * (gs_win_encode_results), when the memory they take is to be had: else
 * gs_win_datum makes them in the backend, row by row
 */
static void
encode_results(GpuWindowState *node, const uint8 *flags, uint64 n)
{
	Size		bytes = 0;
	MemoryContext oldcxt;
	int			k;

	/*
	 * Frames from the partition's start to the current row's last peer or
	 * to the partition's end have one value a peer group or a partition,
	 * which gs_win_datum's cache makes once: when those are few (shares of
	 * whole partitions), bytes a row would only cost memory
	 */
	if (node->frame.start == GSW_BOUND_PARTITION &&
		(node->frame.end == GSW_BOUND_PEERS || node->frame.end == GSW_BOUND_PARTITION) &&
		node->frame.exclude == GSW_EXCLUDE_NONE)
	{
		uint8		mask = node->frame.end == GSW_BOUND_PEERS ?
			GSW_NEW_PEERS : GSW_NEW_PARTITION;
		uint64		values = 0,
					i;

		for (i = 0; i < n; i++)
			values += (flags[i] & mask) != 0;
		if (values * 4 < n)
			return;
	}
	for (k = 0; k < node->nfuncs; k++)
		if (GSW_ENCODES_RESULTS(&node->funcs[k]))
			bytes += (Size) GSW_NUM_ENCODED_MAX * n;
	if (bytes == 0 || node->reserved + bytes > gpusort_memory_budget() ||
		!gs_reserve(node->reservation, GS_ACCT_MEM, bytes,
					gpusort_total_memory_limit()))
		return;
	node->reserved += bytes;
	oldcxt = MemoryContextSwitchTo(node->runcxt);
	gs_win_encode_results(node->funcs, node->nfuncs, n, node->nthreads);
	MemoryContextSwitchTo(oldcxt);
}

/*
 * The output expressions the threads compute (winproject.h), when their
 * memory is to be had: else fill_scan_tuple evaluates them in the backend
 */
static void
derived_compute(GpuWindowState *node, TupleDesc indesc)
{
	Size		bytes = (Size) GSW_DERIVED_ROW_BYTES * node->nrows * node->nderived;
	MemoryContext oldcxt;

	node->derived_backend = 0;
	if (node->nderived == 0 || node->reserved + bytes > gpusort_memory_budget() ||
		!gs_reserve(node->reservation, GS_ACCT_MEM, bytes,
					gpusort_total_memory_limit()))
		return;
	node->reserved += bytes;
	oldcxt = MemoryContextSwitchTo(node->runcxt);
	gs_win_derived_compute(node->derived, node->nderived, node->funcs,
						   node->rows, node->nrows, indesc, node->nthreads);
	MemoryContextSwitchTo(oldcxt);
}

/*
 * The values lag, lead and the value functions take from other rows, read
 * on threads when their memory is to be had (else gs_win_datum deforms
 * the row it reads for each row returned, in the backend); only for the
 * functions whose values the projection or the qual reads
 */
static void
values_read(GpuWindowState *node, TupleDesc indesc)
{
	Size		bytes = 0;
	MemoryContext oldcxt;
	bool		any = false;
	int			k;

	for (k = 0; k < node->nfuncs; k++)
		if (GSW_READS_VALUES(&node->funcs[k]) && node->func_read[k])
		{
			bytes += (sizeof(Datum) + sizeof(bool)) * node->nrows;
			any = true;
		}
	if (!any || node->reserved + bytes > gpusort_memory_budget() ||
		!gs_reserve(node->reservation, GS_ACCT_MEM, bytes,
					gpusort_total_memory_limit()))
		return;
	node->reserved += bytes;
	oldcxt = MemoryContextSwitchTo(node->runcxt);
	gs_win_read_values(node->funcs, node->nfuncs, node->func_read, node->rows,
					   node->nrows, indesc, node->nthreads);
	MemoryContextSwitchTo(oldcxt);
}

/* Sorts (the GpuSort below) and computes every row's window values */
static void
window_run(GpuWindowState *node)
{
	PlanState  *input = outerPlanState(node);
	TupleDesc	indesc = ExecGetResultType(input);
	MinimalTuple *rows;
	uint64		n;
	Size		bytes;
	uint8	   *flags;
	instr_time	start;
	MemoryContext oldcxt;
	int			k;

	node->ran = true;
	node->why[0] = '\0';
	if (!gs_sort_sorted_rows(input, &rows, &n, true))
	{
		start_fallback(node, "the sort's rows are not in memory (a tuplesort, or runs in temp files)");
		return;
	}
	bytes = window_bytes(node, n);
	if (bytes > gpusort_memory_budget())
	{
		start_fallback(node, "window values need more than gpusort.max_memory");
		return;
	}
	node->runcxt = AllocSetContextCreate(node->css.ss.ps.state->es_query_cxt,
										 "GpuWindow", ALLOCSET_DEFAULT_SIZES);
	node->reservation = gs_reservation_create(node->runcxt);
	if (!gs_reserve(node->reservation, GS_ACCT_MEM, bytes,
					gpusort_total_memory_limit()))
	{
		MemoryContextDelete(node->runcxt);
		node->runcxt = NULL;
		node->reservation = NULL;
		start_fallback(node, "the server's sorts hold gpusort.max_total_memory");
		return;
	}
	node->reserved = bytes;

	oldcxt = MemoryContextSwitchTo(node->runcxt);
	node->nthreads = gpusort_threads();
	node->rows = rows;
	node->nrows = n;
	flags = palloc_extended(Max(n, 1), MCXT_ALLOC_HUGE);
	for (k = 0; k < node->nfuncs; k++)
		if (GSW_ENCODES_RESULTS(&node->funcs[k]))
			node->funcs[k].cachecxt = AllocSetContextCreate(node->runcxt,
															"GpuWindow numeric result",
															ALLOCSET_SMALL_SIZES);
	if (node->rangekeys)
	{
		node->rangekeys->keys = palloc_extended(sizeof(int64) * Max(n, 1),
												MCXT_ALLOC_HUGE);
		node->rangekeys->keynull = palloc_extended(sizeof(bool) * Max(n, 1),
												   MCXT_ALLOC_HUGE);
		node->rangekeys->bad = false;
	}
	INSTR_TIME_SET_CURRENT(start);
	evaluate_filters(node, rows, n);
	gs_win_boundaries_keys(rows, n, indesc, node->part, node->npart,
						   node->ord, node->nord, node->funcs, node->nfuncs,
						   node->rangekeys, flags, node->nthreads);
	evaluate_arguments(node, rows, n);
	if (!range_bounds(node, rows, n, flags))
	{
		MemoryContextSwitchTo(oldcxt);
		window_reset(node);
		node->ran = true;
		start_fallback(node, "an in_range function raised an error");
		return;
	}
	node->ms_bounds = gs_elapsed_ms(start);
	INSTR_TIME_SET_CURRENT(start);
	node->nparts = gs_win_compute(flags, n, &node->frame, node->funcs,
								  node->nfuncs, node->nthreads);
	MemoryContextSwitchTo(oldcxt);

	/* numerics past 128 bits: PostgreSQL's own arithmetic, in WindowAgg */
	if (any_too_wide(node))
	{
		window_reset(node);
		node->ran = true;
		start_fallback(node, "numeric values past 128 bits");
		return;
	}
	encode_results(node, flags, n);
	derived_compute(node, indesc);
	values_read(node, indesc);
	gs_win_free_arguments(node->funcs, node->nfuncs);
	node->ms_funcs = gs_elapsed_ms(start);

	node->flags = flags;
	node->current = 0;
	node->computed = true;
}

/*
 * Row i's first natts input columns in the scan tuple, the rest NULL (no
 * expression reads them, see read_input_columns)
 */
static void
fill_input_columns(GpuWindowState *node, uint64 i, TupleTableSlot *scan,
				   int natts)
{
	if (natts > 0)
	{
		ExecStoreMinimalTuple(node->rows[i], node->row_slot, false);
		slot_getsomeattrs(node->row_slot, natts);
		memcpy(scan->tts_values, node->row_slot->tts_values, sizeof(Datum) * natts);
		memcpy(scan->tts_isnull, node->row_slot->tts_isnull, sizeof(bool) * natts);
	}
	memset(scan->tts_isnull + natts, true, node->ninput - natts);
}

/*
 * Row i's window values in the scan tuple: those the projection or the
 * qual reads (read; the others NULL), or the others, once a derived
 * expression's backend evaluation needs them
 */
static void
fill_functions(GpuWindowState *node, uint64 i, TupleTableSlot *scan, bool read)
{
	ExprContext *econtext = node->css.ss.ps.ps_ExprContext;
	MemoryContext oldcxt = MemoryContextSwitchTo(econtext->ecxt_per_tuple_memory);
	int			k;

	for (k = 0; k < node->nfuncs; k++)
	{
		Datum	   *value = &scan->tts_values[node->ninput + k];
		bool	   *isnull = &scan->tts_isnull[node->ninput + k];

		if (node->func_read[k] == read)
			*value = gs_win_datum(&node->funcs[k], i, node->rows,
								  node->nav_slots[k], isnull);
		else if (read)
		{
			*value = (Datum) 0;
			*isnull = true;
		}
	}
	MemoryContextSwitchTo(oldcxt);
}

/*
 * Row i's output expressions that the threads computed, or, for the rows
 * they left, PostgreSQL's evaluation of the expression over the scan tuple
 * (its columns and window values, already there)
 */
static void
fill_derived(GpuWindowState *node, uint64 i, TupleTableSlot *scan)
{
	ExprContext *econtext = node->css.ss.ps.ps_ExprContext;
	int			col = node->ninput + node->nfuncs;
	int			k;

	for (k = 0; k < node->nderived; k++, col++)
	{
		GsWinDerived *d = &node->derived[k];
		uint8		state = d->state ? d->state[i] : GSW_DERIVED_BACKEND;

		scan->tts_isnull[col] = state == GSW_DERIVED_NULL && !d->has_fill;
		if (state == GSW_DERIVED_NULL && d->has_fill)
			scan->tts_values[col] = d->fill;
		else if (state == GSW_DERIVED_BYTES)
			scan->tts_values[col] = PointerGetDatum(d->bytes + i * GSW_NUM_ENCODED_MAX);
		else if (state == GSW_DERIVED_BACKEND)
		{
			/* the expression reads columns the projection may not */
			if (node->readatts < node->ninput)
				fill_input_columns(node, i, scan, node->ninput);
			if (node->funcs_unread)
				fill_functions(node, i, scan, false);
			econtext->ecxt_scantuple = scan;
			scan->tts_values[col] = ExecEvalExprSwitchContext(d->backend, econtext,
															  &scan->tts_isnull[col]);
			node->derived_backend++;
		}
	}
}

/* the scan tuple of row i: its columns, then its window values */
static void
fill_scan_tuple(GpuWindowState *node, uint64 i, TupleTableSlot *scan)
{
	ExecClearTuple(scan);
	fill_input_columns(node, i, scan, node->readatts);
	fill_functions(node, i, scan, true);
	ExecStoreVirtualTuple(scan);
	fill_derived(node, i, scan);
}

static TupleTableSlot *
window_exec(CustomScanState *cnode)
{
	GpuWindowState *node = (GpuWindowState *) cnode;
	ExprContext *econtext = cnode->ss.ps.ps_ExprContext;
	TupleTableSlot *scan = cnode->ss.ss_ScanTupleSlot;

	if (!node->computed && node->fallback == NULL)
	{
		window_run(node);
		gs_stat_count_window(node->why, node->computed ?
							 node->ms_bounds + node->ms_funcs : 0);
	}
	if (node->fallback)
		return ExecProcNode(node->fallback);

	for (;;)
	{
		TupleTableSlot *slot;
		uint64		i;

		CHECK_FOR_INTERRUPTS();
		if (node->current >= node->nrows)
			return ExecClearTuple(cnode->ss.ps.ps_ResultTupleSlot);
		i = node->current++;
		if (node->flags[i] & GSW_ERROR)
			raise_row_error(node, i);

		ResetExprContext(econtext);
		fill_scan_tuple(node, i, scan);
		econtext->ecxt_scantuple = scan;
		slot = cnode->ss.ps.ps_ProjInfo ? ExecProject(cnode->ss.ps.ps_ProjInfo) : scan;

		/*
		 * The top window's run condition, on the projected row as WindowAgg
		 * evaluates it: once it fails, no later row of the partition can
		 * pass, and WindowAgg returns none of them (nor of any partition,
		 * with no PARTITION BY).
		 */
		if (node->runcond)
		{
			econtext->ecxt_scantuple = slot;
			if (!ExecQual(node->runcond, econtext))
			{
				if (node->npart == 0)
					node->current = node->nrows;
				while (node->current < node->nrows &&
					   !(node->flags[node->current] & GSW_NEW_PARTITION))
					node->current++;
				continue;
			}
			econtext->ecxt_scantuple = scan;
		}
		if (cnode->ss.ps.qual && !ExecQual(cnode->ss.ps.qual, econtext))
		{
			InstrCountFiltered1(node, 1);
			continue;
		}
		return slot;
	}
}

/* frees the current run; the rows go with the GpuSort's rescan */
static void
window_reset(GpuWindowState *node)
{
	int			k;

	ExecClearTuple(node->row_slot);
	for (k = 0; k < node->nfuncs; k++)
	{
		ExecClearTuple(node->nav_slots[k]);
		node->funcs[k].i64 = NULL;
		node->funcs[k].f8 = NULL;
#ifdef HAVE_INT128
		node->funcs[k].wide = NULL;
#endif
		node->funcs[k].cnt = NULL;
		node->funcs[k].rscale = NULL;
		node->funcs[k].isnull = NULL;
		node->funcs[k].errrow = NULL;
		node->funcs[k].skip = NULL;
		node->funcs[k].argerr = NULL;
		node->funcs[k].argback = NULL;
		/* the arguments' arrays, when a run stopped before freeing them */
		node->funcs[k].argnull = NULL;
		node->funcs[k].argi = NULL;
		node->funcs[k].argf = NULL;
#ifdef HAVE_INT128
		node->funcs[k].argw = NULL;
#endif
		node->funcs[k].argscale = NULL;
		node->funcs[k].deque = NULL;
		node->funcs[k].too_wide = false;
		node->funcs[k].cachecxt = NULL;	/* in runcxt */
		node->funcs[k].resbytes = NULL;
		node->funcs[k].vald = NULL;
		node->funcs[k].valnull = NULL;
		node->funcs[k].has_cached = false;
	}
	for (k = 0; k < node->nderived; k++)
	{
		node->derived[k].state = NULL;	/* in runcxt */
		node->derived[k].bytes = NULL;
	}
	if (node->runcxt)
		MemoryContextDelete(node->runcxt);	/* and the reservation */
	node->runcxt = NULL;
	node->reservation = NULL;
	node->rows = NULL;
	node->flags = NULL;
	node->frame.range_start = NULL;	/* in runcxt */
	node->frame.range_end = NULL;
	if (node->rangekeys)
	{
		node->rangekeys->keys = NULL;	/* in runcxt */
		node->rangekeys->keynull = NULL;
	}
	node->nrows = 0;
	node->current = 0;
	node->computed = false;
	if (node->fallback)
		ExecEndNode(node->fallback);
	node->fallback = NULL;
}

static void
window_end(CustomScanState *cnode)
{
	GpuWindowState *node = (GpuWindowState *) cnode;

	window_reset(node);
	ExecEndNode(outerPlanState(node));
}

static void
window_rescan(CustomScanState *cnode)
{
	GpuWindowState *node = (GpuWindowState *) cnode;
	PlanState  *input = outerPlanState(node);

	ExecClearTuple(cnode->ss.ps.ps_ResultTupleSlot);

	/*
	 * The values are reused only when no parameter the node depends on has
	 * changed.  The input's parameters are not enough: a FILTER, an
	 * argument or the qual may read an outer row's column that the sort
	 * below never sees, and the node's chgParam (its plan's allParam, which
	 * is the WindowAgg's, covers the functions, the frame and the input)
	 * says so.
	 */
	if (node->computed && cnode->ss.ps.chgParam == NULL)
	{
		node->current = 0;
		return;
	}
	window_reset(node);

	/*
	 * An input whose own parameters did not change keeps its sorted rows:
	 * a rescan only rewinds it.  One whose did is rescanned by the next
	 * ExecProcNode (gs_sort_sorted_rows).
	 */
	if (input->chgParam == NULL)
		ExecReScan(input);
}

/* the names of the window functions, for EXPLAIN */
static List *
function_names(CustomScan *cscan)
{
	List	   *names = NIL;
	ListCell   *lc;

	foreach(lc, (List *) list_nth(cscan->custom_private, GSWP_WFUNCS))
	{
		WindowFunc *wfunc = lfirst(lc);

		names = lappend(names, get_func_name(wfunc->winfnoid));
	}
	return names;
}

/*
 * How many rows of the aggregates' argument expressions the backend
 * evaluated: all of them, unless the threads ran the expression's program
 * (winexpr.h), which leaves only the rows it cannot give
 */
static void
explain_arguments(GpuWindowState *node, ExplainState *es)
{
	uint64		rows = 0;
	bool		any = false;
	int			k;

	for (k = 0; k < node->nfuncs; k++)
	{
		GsWinFunc  *f = &node->funcs[k];

		if (f->argexpr == NULL || f->arg == GSW_ARG_NONE)
			continue;
		any = true;
		rows += f->nargback;
	}
	if (any)
		ExplainPropertyUInteger("Arguments Evaluated in Backend", "rows", rows, es);
}

static void
window_explain(CustomScanState *cnode, List *ancestors, ExplainState *es)
{
	GpuWindowState *node = (GpuWindowState *) cnode;
	CustomScan *cscan = (CustomScan *) cnode->ss.ps.plan;

	List	   *runcond = list_nth(cscan->custom_private, GSWP_RUNCOND);

	ExplainPropertyList("Window Functions", function_names(cscan), es);
	ExplainPropertyText("Window Frame", gs_win_frame_describe(&node->frame), es);
	if (runcond != NIL)
	{
		List	   *context = set_deparse_context_plan(es->deparse_cxt,
													   (Plan *) cscan, ancestors);

		ExplainPropertyText("Run Condition",
							deparse_expression((Node *) make_ands_explicit(runcond),
											   context, false, false), es);
	}
	if (!es->analyze || !node->ran)
		return;
	if (node->why[0])
	{
		ExplainPropertyText("GpuWindow Fallback", node->why, es);
		return;
	}
	ExplainPropertyUInteger("Window Partitions", NULL, node->nparts, es);
	ExplainPropertyInteger("Window Threads", NULL, node->nthreads, es);
	ExplainPropertyInteger("Window Memory", "kB", (node->reserved + 1023) / 1024, es);
	explain_arguments(node, es);
	if (node->nderived > 0)
		ExplainPropertyUInteger("Output Expressions Evaluated in Backend", "rows",
								node->derived_backend, es);
	if (node->range_how)
		ExplainPropertyText("Range Bounds", node->range_how, es);
	if (es->timing)
	{
		ExplainPropertyFloat("Time Finding Partitions", "ms", node->ms_bounds, 3, es);
		ExplainPropertyFloat("Time Computing Functions", "ms", node->ms_funcs, 3, es);
	}
}
