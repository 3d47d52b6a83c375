/*-------------------------------------------------------------------------
 *
 * planner.c
 *	  The planner hook that puts GpuSort in place of the executor's Sorts.
 *
 * The hook lets the planner finish, then walks the finished plan: the main
 * tree, every subplan (initPlans and CTEs included) and every child below
 * each node.  Each Sort it meets becomes a GpuSort CustomScan (sortnode.h)
 * that keeps the Sort's Plan header, so costs, initPlans and the param sets
 * that drive rescans stay as the planner made them.  That covers ORDER BY
 * and the Sorts under MergeJoin, GroupAggregate, WindowAgg, Unique, sorted
 * SetOp and MergeAppend.  A WindowAgg over a GpuSort may then become a
 * GpuWindow (windownode.c).
 *
 * Left alone: IncrementalSort (its input is already partly sorted) and the
 * Sorts in Agg.chain, which describe grouping-set phases that the Agg node
 * performs with its own tuplesorts.
 *
 * What the planner assumed of a Sort holds for GpuSort: backward scan,
 * mark/restore, cheap rewinds, and the Sort's allParam/extParam, so a
 * rescan with changed parameters sorts again.  A Limit above a Sort bounds
 * it at run time through ExecSetTupleBound, which does not know
 * CustomScans; so the walk passes each Limit's offset and count down the
 * path ExecSetTupleBound would take, and the GpuSort evaluates them itself
 * (volatile ones are not passed: evaluating them twice could disagree).
 *
 * Parallel input (gpusort.parallel): where stock runs a parallel plan
 * under the sort, the result is
 *
 *		GpuSort (parallel) -> Gather -> GpuSortStore -> the workers' plan
 *
 * Each participant stores its rows and their raw keys in shared memory
 * (sortpar.c), and the leader sorts them all at once: the workers scan,
 * join, deform and build keys in parallel, and no row moves through a
 * tuple queue.  That needs the Gather to return its input's columns
 * unchanged and the sort to be unbounded.  A large unbounded sort that
 * stock planned serially over a Seq Scan (its cost model prefers one
 * in-memory sort when work_mem is large) gets this shape too, when the
 * query may run in parallel mode and the scan's own expressions are
 * parallel safe; a parallel restricted part above, such as a window
 * function, stays in the leader.
 *
 * Otherwise a Gather Merge over per-worker Sorts becomes one GpuSort in the
 * leader: a GPU wants one large sort rather than one small one per worker
 * (each would start a CUDA context of its own).  Not so under a Limit of
 * fewer than GS_TOPN_GATHER_MIN_BOUND rows: there each worker's Sort is a
 * top-N heap over its share that sends the leader only its first rows,
 * which one GpuSort pulling every row through the leader cannot beat, so
 * the Gather Merge and its Sorts stay.
 *
 * Only Sorts whose input is estimated at gpusort.min_rows rows or more are
 * replaced, and whose first sort column has an encoding (sortkey.c).  A
 * Sort estimated past gpusort.max_memory becomes a GpuSort that writes
 * sorted runs to temp files and merges them (sortspill.c) where it is
 * serial and unbounded, as the Sort itself is; a bounded one stays a top-N
 * Sort.  A Gather Merge estimated past it keeps its workers, which one
 * process writing runs cannot beat:
 *
 *		GpuSort -> Gather -> GpuSort (each participant) -> the workers' plan
 *
 * each participant's GpuSort writes its share as sorted runs to shared
 * files, and the GpuSort above merges them all (sortshared.c).  Unless
 * gpusort.parallel = on, a Gather Merge estimated too small for a GPU
 * takes the same shape (the participants' scan is what stock's plan gains,
 * and an estimate that small is the one a misestimate hides behind): a
 * share within its part of the budget passes through the Gather to be
 * sorted above.  A top-N Sort on a collation's text whose constant bound
 * is under GS_TOPN_HEAP_MAX_BOUND stays too (unless gpusort.min_rows is 0):
 * there the heap is cheaper than keying every row.  gpusort.enabled = off
 * leaves plans alone.
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "catalog/pg_type.h"
#include "fmgr.h"
#include "miscadmin.h"
#include "nodes/makefuncs.h"
#include "nodes/nodeFuncs.h"
#include "nodes/plannodes.h"
#include "access/table.h"
#include "catalog/pg_class.h"
#include "catalog/pg_proc.h"
#include "optimizer/cost.h"
#include "storage/bufmgr.h"
#include "optimizer/clauses.h"
#include "optimizer/optimizer.h"
#include "optimizer/paths.h"
#include "optimizer/planner.h"
#include "parser/parsetree.h"
#include "utils/lsyscache.h"
#include "utils/rel.h"

#include "engine/engine.h"
#include "planner.h"
#include "runtime/settings.h"
#include "keys/sortkey.h"
#include "node/sortnode.h"
#include "node/sortpar.h"
#include "node/sortfeed.h"
#include "core/sortplan.h"
#include "runtime/stat.h"
#include "window/windownode.h"
#include "agg/aggnode.h"
#include "agg/aggplan.h"

/* the Limit that bounds the Sorts below, on the path being walked */
typedef struct GsLimit
{
	Node	   *offset;			/* never NULL */
	Node	   *count;
} GsLimit;

static planner_hook_type prev_planner_hook = NULL;

/* the walk of one statement's plan */
typedef struct GsPlanWalk
{
	/* the plan node id the next new store node gets */
	int			next_plan_node_id;
	/* of the statement: gpusort.parallel, and may its scans run in workers */
	bool		use_parallel;
	bool		parallel_query_ok;
	List	   *rtable;
	/* has the walk put in a Gather (the statement then needs parallel mode) */
	bool		added_gather;
	/* Gathers above the node being walked: none may be nested in another */
	int			gather_depth;
	/*
	 * The Sorts and Gather Merges the walk left to stock, and why: what the
	 * Agg or WindowAgg above says of its input (aggplan.c, windownode.c)
	 */
	List	   *stock_sorts;
	List	   *stock_whys;
} GsPlanWalk;

static Plan *walk_plan(GsPlanWalk *w, Plan *plan, const GsLimit *limit);

/*
 * Is a sort (or Gather Merge) on these columns for GpuSort?  Not where the
 * node would only hand its rows to a tuplesort at run time: no encoding for
 * the first sort column.  A sort estimated past its memory budget is one
 * for runs in temp files (sortspill.c): GS_FITS_NOT, which a serial,
 * unbounded Sort takes, and an unbounded Gather Merge as its participants'
 * runs (sortshared.c); a bounded sort keeps the stock plan.
 */
typedef enum GsEligible
{
	GS_NOT_ELIGIBLE,
	GS_FITS,
	GS_FITS_NOT
} GsEligible;

static GsEligible
eligible(Plan *sort, Oid sortop0, Oid collation0, const char **text)
{
	GsStatCounter why;

	if (gpusort_min_rows > 0 && sort->plan_rows < (double) gpusort_min_rows)
	{
		why = GS_STAT_STOCK_MIN_ROWS;
		*text = "fewer rows than gpusort.min_rows";
	}
	else if (!gs_keys_encodable(sortop0, collation0))
	{
		why = GS_STAT_STOCK_NO_ENCODING;
		*text = "no key encoding for the first sort column";
	}
	else if (!gs_plan_fits_memory(sort->plan_rows, sort->plan_width))
		return GS_FITS_NOT;
	else
		return GS_FITS;
	/* gpusort_stat's planned-stock counts, one per plan node */
	gs_stat_count(why);
	return GS_NOT_ELIGIBLE;
}

/* sort stays stock's, for why: for the node above to say */
static void
note_stock_sort(GsPlanWalk *w, Plan *sort, const char *why)
{
	w->stock_sorts = lappend(w->stock_sorts, sort);
	w->stock_whys = lappend(w->stock_whys, (void *) why);
}

/* why the walk left plan, a Sort or Gather Merge, to stock; or NULL */
static const char *
stock_sort_why(GsPlanWalk *w, const Plan *plan)
{
	ListCell   *s;
	ListCell   *why;

	forboth(s, w->stock_sorts, why, w->stock_whys)
		if (lfirst(s) == plan)
			return (const char *) lfirst(why);
	return NULL;
}

/*
 * A CustomScan of methods over child that returns its scan tuple (child's
 * row, scan_tlist's columns) unchanged; header supplies the Plan fields.
 */
static CustomScan *
make_passthrough_scan(Plan *header, Plan *child, List *scan_tlist,
					  const CustomScanMethods *methods, List *custom_private)
{
	CustomScan *cscan = makeNode(CustomScan);
	Plan	   *plan = &cscan->scan.plan;

	memcpy(plan, header, sizeof(Plan));
	plan->type = T_CustomScan;
	plan->qual = NIL;
	plan->lefttree = child;
	plan->righttree = NULL;
	plan->targetlist = gs_plan_column_refs(scan_tlist, INDEX_VAR);
	cscan->scan.scanrelid = 0;
	cscan->flags = 0;
	cscan->custom_plans = NIL;
	cscan->custom_scan_tlist = scan_tlist;
	cscan->custom_private = custom_private;
	cscan->custom_exprs = NIL;
	cscan->custom_relids = NULL;
	cscan->methods = methods;
	return cscan;
}

/*
 * Builds a GpuSort over child.  header supplies the Plan fields (the Sort's
 * or Gather Merge's); scan_tlist is the pass-through of child's columns.
 */
static Plan *
make_gpusort(Plan *header, Plan *child, List *scan_tlist, int numCols,
			 AttrNumber *sortColIdx, Oid *sortOperators, Oid *collations,
			 bool *nullsFirst, const GsLimit *limit, GsSortMode mode)
{
	GsSortColumns cols = {numCols, sortColIdx, sortOperators, collations,
						  nullsFirst};
	List	   *priv = gs_plan_sort_private(&cols, mode);
	CustomScan *cscan = make_passthrough_scan(header, child, scan_tlist,
											  &gpusort_plan_methods, priv);

	cscan->flags = CUSTOMPATH_SUPPORT_BACKWARD_SCAN | CUSTOMPATH_SUPPORT_MARK_RESTORE;
	if (limit)
		cscan->custom_exprs = gs_plan_sort_exprs(limit->offset, limit->count);
	return (Plan *) cscan;
}

/*
 * A GpuSortStore over input: in each participant of the Gather above, it
 * stores input's rows in shared memory and returns none (sortpar.c).  Its
 * rows, when it passes them on, are input's, unchanged.
 */
static Plan *
make_store(GsPlanWalk *w, Plan *input, int numCols, AttrNumber *sortColIdx,
		   Oid *sortOperators, Oid *collations, bool *nullsFirst)
{
	GsSortColumns cols = {numCols, sortColIdx, sortOperators, collations,
						  nullsFirst};
	List	   *scan_tlist = gs_plan_column_refs(input->targetlist, OUTER_VAR);
	List	   *priv = gs_plan_store_private(&cols);
	CustomScan *cscan = make_passthrough_scan(input, input, scan_tlist,
											  &gpusort_store_plan_methods, priv);
	Plan	   *plan = &cscan->scan.plan;

	plan->initPlan = NIL;
	plan->parallel_aware = true;
	plan->parallel_safe = true;
	plan->plan_node_id = w->next_plan_node_id++;
	/* it returns nothing until its input is done */
	plan->startup_cost = input->total_cost;
	return (Plan *) cscan;
}

/* does tlist return child_tlist's columns unchanged, by OUTER_VAR? */
static bool is_passthrough(List *tlist, List *child_tlist);

/*
 * Can the sort over gather take its rows from the participants' shared
 * memory?  The Gather must return its input's rows as they are (the store
 * node stores those), and run real workers over a parallel plan.
 */
static bool
parallel_ok(GsPlanWalk *w, Plan *gather_plan, const GsLimit *limit)
{
	Gather	   *gather = (Gather *) gather_plan;

	return w->use_parallel && limit == NULL && IsA(gather_plan, Gather) &&
		!gather->single_copy && gather->num_workers > 0 &&
		gather->plan.qual == NIL && gather->plan.lefttree != NULL &&
		is_passthrough(gather->plan.targetlist,
					   gather->plan.lefttree->targetlist);
}

static bool
func_not_parallel_safe(Oid func_id, void *context)
{
	return func_parallel(func_id) != PROPARALLEL_SAFE;
}

/*
 * Could an expression of a scan not run in a worker?  The query as a whole
 * may hold parallel restricted parts (a window function, say), which stay
 * in the leader above the Gather; what moves below it must be safe: no
 * function that is not parallel safe, no subplan, no parameter but the
 * query's own.
 */
static bool
not_parallel_safe(Node *node, void *context)
{
	if (node == NULL)
		return false;
	if (check_functions_in_node(node, func_not_parallel_safe, context))
		return true;
	if (IsA(node, SubPlan) || IsA(node, SubLink) || IsA(node, AlternativeSubPlan) ||
		IsA(node, NextValueExpr) || IsA(node, Aggref) || IsA(node, WindowFunc) ||
		(IsA(node, Param) && ((Param *) node)->paramkind != PARAM_EXTERN))
		return true;
	return expression_tree_walker(node, not_parallel_safe, context);
}

/*
 * A Gather over a store node over scan, now a Parallel Seq Scan, when stock
 * would have scanned scan's table in parallel (see the header comment);
 * else NULL and scan as it was.
 */
static Plan *
parallelize_scan(GsPlanWalk *w, Plan *scan, Sort *sort)
{
	RangeTblEntry *rte;
	Relation	rel;
	RelOptInfo *info;
	BlockNumber pages;
	int			workers;
	Gather	   *gather;

	if (!w->parallel_query_ok || w->gather_depth > 0 ||
		!IsA(scan, SeqScan) || scan->parallel_aware ||
		scan->initPlan != NIL || !bms_is_empty(scan->extParam) ||
		!bms_is_empty(scan->allParam) ||
		not_parallel_safe((Node *) scan->qual, NULL) ||
		not_parallel_safe((Node *) scan->targetlist, NULL))
		return NULL;
	rte = rt_fetch(((SeqScan *) scan)->scan.scanrelid, w->rtable);
	if (rte->rtekind != RTE_RELATION || rte->tablesample != NULL ||
		(rte->relkind != RELKIND_RELATION && rte->relkind != RELKIND_MATVIEW) ||
		get_rel_persistence(rte->relid) == RELPERSISTENCE_TEMP)
		return NULL;

	/* the planner holds a lock on every relation it planned for */
	rel = table_open(rte->relid, NoLock);
	pages = RelationGetNumberOfBlocks(rel);
	info = makeNode(RelOptInfo);
	info->reloptkind = RELOPT_BASEREL;
	info->rel_parallel_workers = RelationGetParallelWorkers(rel, -1);
	table_close(rel, NoLock);
	workers = compute_parallel_worker(info, (double) pages, -1,
									  max_parallel_workers_per_gather);
	pfree(info);
	if (workers <= 0)
		return NULL;

	gather = makeNode(Gather);
	memcpy(&gather->plan, scan, sizeof(Plan));
	gather->plan.type = T_Gather;
	gather->plan.qual = NIL;
	gather->plan.targetlist = gs_plan_column_refs(scan->targetlist, OUTER_VAR);
	gather->plan.parallel_aware = false;
	gather->plan.parallel_safe = false;
	gather->plan.plan_node_id = w->next_plan_node_id++;
	gather->num_workers = workers;
	gather->rescan_param = -1;
	gather->single_copy = false;
	gather->invisible = false;
	gather->initParam = NULL;
	gather->plan.lefttree = scan;
	if (!parallel_ok(w, (Plan *) gather, NULL))
		return NULL;

	scan->parallel_aware = true;
	scan->parallel_safe = true;
	gather->plan.lefttree = make_store(w, scan, sort->numCols, sort->sortColIdx,
									   sort->sortOperators, sort->collations,
									   sort->nullsFirst);
	w->added_gather = true;
	return (Plan *) gather;
}

/*
 * A top-N sort on a collation's text keeps stock's heap when its bound is
 * under GS_TOPN_HEAP_MAX_BOUND rows.  The heap compares each row with its
 * top, and pays log2(bound) comparisons for each row that gets in, about
 * bound * (1 + ln(input / bound)) rows; GpuSort keys every row (a strxfrm
 * prefix), keeps those its cutoff lets in and sorts them.  Where the bound
 * is small, the heap's comparison with its top is all it pays, and that
 * costs less than a key; as the bound grows, its inserts cost more than
 * GpuSort's whole sort.  Measured on 2 cores (serial, best of 3, names
 * under en_US.UTF-8, 2026-11-29), heap time / GpuSort time: 10^5 rows,
 * bound 100 1.16, 400 1.25, 1100 1.86, 10^4 2.2, 3*10^4 2.6; 10^6 rows,
 * bound 100 0.80, 400 1.30, 1000 1.19, 10^4 1.73, 10^5 3.8, 3*10^5 4.1.
 * Keys without a transform (numbers, text under "C", numeric) were faster
 * in GpuSort in every case measured.  A rule for sorts of too few rows, it
 * goes with gpusort.min_rows: 0 replaces every Sort, this one included.
 *
 * A Gather Merge under a Limit keeps its workers' top-N Sorts while the
 * bound is under GS_TOPN_GATHER_MIN_BOUND: each worker's heap then sends
 * the leader only its first rows, which one GpuSort of every row cannot
 * beat.  Past it, the workers' heaps cost more than the GpuSort that
 * replaces the Gather Merge (10^6 rows of names, 2 workers: bound 10^5,
 * heaps 2.6 s against 0.8 s for one serial GpuSort).
 */
#define GS_TOPN_HEAP_MAX_BOUND		256
#define GS_TOPN_GATHER_MIN_BOUND	10000

/* the bound of a Limit whose count and offset are constants, else -1 */
static double
const_bound(const GsLimit *limit)
{
	Const	   *count = (Const *) limit->count;
	Const	   *offset = (Const *) limit->offset;

	if (!IsA(count, Const) || !IsA(offset, Const) ||
		count->consttype != INT8OID || offset->consttype != INT8OID ||
		count->constisnull)
		return -1;
	return (double) DatumGetInt64(count->constvalue) +
		(offset->constisnull ? 0 : (double) DatumGetInt64(offset->constvalue));
}

/* should a bounded Sort stay stock's top-N heap (see GS_TOPN_HEAP_MAX_BOUND)? */
static bool
topn_heap_cheaper(Sort *sort, const GsLimit *limit)
{
	double		bound;

	if (limit == NULL || gpusort_min_rows == 0)
		return false;
	bound = const_bound(limit);
	return bound >= 0 && bound < GS_TOPN_HEAP_MAX_BOUND &&
		gs_keys_transformed(sort->sortOperators[0], sort->collations[0]);
}

/*
 * Should a Gather Merge under a Limit keep its workers' top-N Sorts (see
 * GS_TOPN_GATHER_MIN_BOUND)?  Yes where the bound is not a constant.
 */
static bool
topn_workers_cheaper(const GsLimit *limit)
{
	double		bound = const_bound(limit);

	return bound < 0 || bound < GS_TOPN_GATHER_MIN_BOUND;
}

static Plan *
replace_sort(GsPlanWalk *w, Sort *sort, const GsLimit *limit)
{
	Plan	   *child = walk_plan(w, sort->plan.lefttree, NULL);
	const char *why = NULL;
	GsEligible	e = eligible(&sort->plan, sort->sortOperators[0],
							 sort->collations[0], &why);
	bool		parallel;

	sort->plan.lefttree = child;
	if (e == GS_NOT_ELIGIBLE)
	{
		note_stock_sort(w, &sort->plan, why);
		return (Plan *) sort;
	}
	if (topn_heap_cheaper(sort, limit))
	{
		/* counted with the Sorts kept for too few rows */
		gs_stat_count(GS_STAT_STOCK_MIN_ROWS);
		return (Plan *) sort;
	}
	if (e == GS_FITS_NOT && limit != NULL)
	{
		/* a top-N sort past the budget stays stock's */
		gs_stat_count(GS_STAT_STOCK_MAX_MEMORY);
		return (Plan *) sort;
	}

	/*
	 * A Sort over a Gather: the participants store the rows; unless they
	 * would not fit, and the node is to write runs (serially, as the Sort).
	 */
	parallel = e == GS_FITS && parallel_ok(w, child, limit);
	if (parallel)
		child->lefttree = make_store(w, child->lefttree, sort->numCols,
									 sort->sortColIdx, sort->sortOperators,
									 sort->collations, sort->nullsFirst);
	else if (e == GS_FITS && limit == NULL && w->use_parallel)
	{
		/* a Sort over a serial scan that workers could share */
		Plan	   *gather = parallelize_scan(w, child, sort);

		if (gather)
		{
			child = gather;
			parallel = true;
		}
	}

	/* a Sort's targetlist is already the pass-through of its input */
	return make_gpusort(&sort->plan, child, sort->plan.targetlist,
						sort->numCols, sort->sortColIdx, sort->sortOperators,
						sort->collations, sort->nullsFirst, limit,
						parallel ? GS_SORT_PARALLEL : GS_SORT_SERIAL);
}

/* does a Gather Merge's targetlist return its Sort's columns unchanged? */
static bool
is_passthrough(List *tlist, List *child_tlist)
{
	ListCell   *lc;

	if (list_length(tlist) != list_length(child_tlist))
		return false;
	foreach(lc, tlist)
	{
		TargetEntry *tle = lfirst(lc);
		Var		   *var = (Var *) tle->expr;

		if (!IsA(var, Var) || var->varno != OUTER_VAR || var->varattno != tle->resno)
			return false;
	}
	return true;
}

/*
 * Gives a pass-through targetlist the labels of the targetlist it stands
 * for (the top node's entries name the result columns).
 */
static void
set_result_labels(List *tlist, List *labels)
{
	ListCell   *lc;
	ListCell   *lc2;

	forboth(lc, tlist, lc2, labels)
	{
		TargetEntry *tle = lfirst(lc);
		TargetEntry *label = lfirst(lc2);

		tle->resname = label->resname;
		tle->resjunk = label->resjunk;
		tle->ressortgroupref = label->ressortgroupref;
		tle->resorigtbl = label->resorigtbl;
		tle->resorigcol = label->resorigcol;
	}
}

/*
 * A Result over child that projects header's targetlist, whose OUTER_VAR
 * Vars number child's columns; header supplies the costs.
 */
static Plan *
make_projection(Plan *header, Plan *child)
{
	Result	   *result = makeNode(Result);

	memcpy(&result->plan, header, sizeof(Plan));
	result->plan.type = T_Result;
	result->plan.qual = NIL;
	result->plan.initPlan = NIL;
	result->plan.parallel_aware = false;
	result->plan.lefttree = child;
	result->plan.righttree = NULL;
	result->resconstantqual = NULL;
	return (Plan *) result;
}

/*
 * A Gather in place of gm, over its Sort's input (walked), returning the
 * Sort's columns: see replace_gather_merge
 */
static Gather *
gather_for(GsPlanWalk *w, GatherMerge *gm, Sort *sort)
{
	Gather	   *gather = makeNode(Gather);

	memcpy(&gather->plan, &gm->plan, sizeof(Plan));
	gather->plan.type = T_Gather;
	gather->plan.targetlist = copyObject(sort->plan.targetlist);
	gather->plan.lefttree = walk_plan(w, sort->plan.lefttree, NULL);
	gather->num_workers = gm->num_workers;
	gather->rescan_param = gm->rescan_param;
	gather->single_copy = false;
	gather->invisible = false;
	gather->initParam = gm->initParam;
	return gather;
}

/*
 * The GpuSort over gather that stands for gm, under a Result where gm's
 * targetlist is not the Sort's columns
 */
static Plan *
gpusort_over_gather(GatherMerge *gm, Sort *sort, Gather *gather, bool parallel)
{
	Plan	   *gpusort = make_gpusort(&gm->plan, (Plan *) gather,
									   gs_plan_column_refs(gather->plan.targetlist,
														   OUTER_VAR),
									   gm->numCols, gm->sortColIdx,
									   gm->sortOperators, gm->collations,
									   gm->nullsFirst, NULL,
									   parallel ? GS_SORT_PARALLEL : GS_SORT_SERIAL);

	gpusort->initPlan = NIL;
	gpusort->parallel_aware = false;
	if (is_passthrough(gm->plan.targetlist, sort->plan.targetlist))
	{
		set_result_labels(gpusort->targetlist, gm->plan.targetlist);
		return gpusort;
	}
	return make_projection(&gm->plan, gpusort);
}

/*
 * A Gather Merge past the budget: each participant's Sort becomes a GpuSort
 * that writes its share as sorted runs to shared temp files and returns no
 * row (GS_SORT_SHARED_RUNS, sortshared.c), and one GpuSort above the
 * Gather merges every participant's runs.  So the participants scan, sort
 * and write in parallel as stock's workers do, and no row moves through a
 * tuple queue: the leader reads each row once, from the runs.
 */
static Plan *
replace_spilling_gather_merge(GsPlanWalk *w, GatherMerge *gm, Sort *sort)
{
	Gather	   *gather = gather_for(w, gm, sort);
	Plan	   *runs = make_gpusort(&sort->plan, gather->plan.lefttree,
									sort->plan.targetlist, sort->numCols,
									sort->sortColIdx, sort->sortOperators,
									sort->collations, sort->nullsFirst, NULL,
									GS_SORT_SHARED_RUNS);

	/* the Sort's plan node id, unique in the plan, keys its shared state */
	runs->parallel_aware = true;
	runs->parallel_safe = true;
	runs->initPlan = NIL;
	gather->plan.lefttree = runs;
	return gpusort_over_gather(gm, sort, gather, false);
}

/* Gather Merge over Sort -> GpuSort over Gather or Seq Scan (see above) */
static Plan *
replace_gather_merge(GsPlanWalk *w, GatherMerge *gm, const GsLimit *limit)
{
	Sort	   *sort = (Sort *) gm->plan.lefttree;
	Plan	   *scan = sort->plan.lefttree;
	Gather	   *gather;
	bool		parallel;
	const char *why = NULL;
	GsEligible	e = eligible(&gm->plan, gm->sortOperators[0], gm->collations[0],
							 &why);
	bool		serial_scan = IsA(scan, SeqScan) && scan->parallel_aware &&
		!w->use_parallel && is_passthrough(gm->plan.targetlist, sort->plan.targetlist);
	/* parallel_ok of the Gather that gather_for would make */
	bool		store_ok = w->use_parallel && gm->num_workers > 0 &&
		gm->plan.qual == NIL && is_passthrough(sort->plan.targetlist, scan->targetlist);

	/*
	 * Under a Limit of a large bound (GS_TOPN_GATHER_MIN_BOUND), only the
	 * shapes that pass no row through a tuple queue beat the workers'
	 * heaps: one bounded GpuSort over the scan, or the participants'
	 * stores; else the workers' Sorts stay.
	 */
	if (limit != NULL &&
		!(e == GS_FITS &&
		  (serial_scan ||
		   (store_ok && (gpusort_parallel == GS_PARALLEL_ON ||
						 gm->plan.plan_rows >= (double) GS_GPU_AUTO_MIN_ROWS)))))
	{
		gm->plan.lefttree->lefttree = walk_plan(w, gm->plan.lefttree->lefttree, NULL);
		return (Plan *) gm;
	}

	/*
	 * Past the budget; or a sort the estimate keeps on the CPU (too small
	 * for a GPU, so one sort of all rows in the leader gains nothing),
	 * unless gpusort.parallel = on asks for the parallel intake: the
	 * participants' scan is what stock's parallel plan gains; a small share
	 * comes through the Gather to be sorted above, a share that outgrows
	 * its part of the budget (the estimate was wrong) is sorted in its
	 * participant, not passed to the leader
	 */
	if (limit == NULL &&
		(e == GS_FITS_NOT ||
		 (e == GS_FITS && gpusort_parallel != GS_PARALLEL_ON &&
		  gm->plan.plan_rows < (double) GS_GPU_AUTO_MIN_ROWS)) &&
		gm->num_workers > 0 && sort->plan.initPlan == NIL)
		return replace_spilling_gather_merge(w, gm, sort);
	if (e != GS_FITS)
	{
		/* past the budget: the workers keep sorting (their Sorts may write runs) */
		if (e == GS_FITS_NOT)
		{
			gs_stat_count(GS_STAT_STOCK_MAX_MEMORY);
			why = "past gpusort.max_memory: the workers sort";
		}
		note_stock_sort(w, &gm->plan, why);
		gm->plan.lefttree = walk_plan(w, gm->plan.lefttree, NULL);
		return (Plan *) gm;
	}

	if (serial_scan)
	{
		Plan	   *gpusort;

		scan->parallel_aware = false;
		gpusort = make_gpusort(&gm->plan, scan, sort->plan.targetlist,
							   gm->numCols, gm->sortColIdx, gm->sortOperators,
							   gm->collations, gm->nullsFirst, limit, GS_SORT_SERIAL);
		gpusort->parallel_aware = false;

		set_result_labels(gpusort->targetlist, gm->plan.targetlist);
		return gpusort;
	}

	/*
	 * The Gather Merge's sort columns number the Sort's targetlist, which
	 * can be longer than the Gather Merge's own (the workers sort on an
	 * expression, say md5(s), that the Gather Merge then reads as a column
	 * of its input).  So the Gather returns the Sort's columns (the Sort's
	 * targetlist is the pass-through of its input, so it reads the same on
	 * a Gather over that input), the GpuSort sorts them with the Gather
	 * Merge's column numbers, and a Result on top projects the Gather
	 * Merge's targetlist when that is not the same columns.  initPlans stay
	 * at the Gather, whose initParam names those it passes to the workers.
	 */
	gather = gather_for(w, gm, sort);

	/*
	 * The participants store the rows: then the Gather returns what the
	 * store node passes on, the Sort input's columns, which the Gather
	 * Merge's pass-through targetlist reads unchanged.
	 */
	parallel = parallel_ok(w, (Plan *) gather, NULL);
	if (parallel)
		gather->plan.lefttree = make_store(w, gather->plan.lefttree,
										   gm->numCols, gm->sortColIdx,
										   gm->sortOperators, gm->collations,
										   gm->nullsFirst);
	return gpusort_over_gather(gm, sort, gather, parallel);
}

static void
walk_list(GsPlanWalk *w, List *plans, const GsLimit *limit)
{
	ListCell   *lc;

	foreach(lc, plans)
		lfirst(lc) = walk_plan(w, (Plan *) lfirst(lc), limit);
}

static Plan *walk_node(GsPlanWalk *w, Plan *plan, const GsLimit *limit);

/* gs_agg_plan's walk of an Agg's input */
static Plan *
walk_agg_input(void *cxt, Plan *plan)
{
	return walk_plan((GsPlanWalk *) cxt, plan, NULL);
}

/* gs_agg_plan's question: why did the walk leave that sort to stock? */
static const char *
agg_input_why(void *cxt, const Plan *plan)
{
	return stock_sort_why((GsPlanWalk *) cxt, plan);
}

static Plan *
walk_agg(GsPlanWalk *w, Agg *agg)
{
	GsAggWalker walker = {walk_agg_input, agg_input_why, w,
	&w->next_plan_node_id};

	return gs_agg_plan(agg, &walker);
}

/*
 * Replaces the Sorts in the tree under plan; returns what should stand
 * where plan stood.  limit is the Limit whose bound reaches plan.
 */
static Plan *
walk_plan(GsPlanWalk *w, Plan *plan, const GsLimit *limit)
{
	bool		gather;
	Plan	   *result;

	if (plan == NULL)
		return NULL;
	check_stack_depth();
	gather = IsA(plan, Gather) || IsA(plan, GatherMerge);
	if (gather)
		w->gather_depth++;
	result = walk_node(w, plan, limit);
	if (gather)
		w->gather_depth--;
	return result;
}

static Plan *
walk_node(GsPlanWalk *w, Plan *plan, const GsLimit *limit)
{

	switch (nodeTag(plan))
	{
		case T_Sort:
			return replace_sort(w, (Sort *) plan, limit);

		case T_GatherMerge:
			if (plan->lefttree && IsA(plan->lefttree, Sort))
			{
				if (limit == NULL || !topn_workers_cheaper(limit))
					return replace_gather_merge(w, (GatherMerge *) plan, limit);
				/* bounded: the workers' Sorts stay (see the header comment) */
				plan->lefttree->lefttree = walk_plan(w, plan->lefttree->lefttree,
													 NULL);
				return plan;
			}
			plan->lefttree = walk_plan(w, plan->lefttree, NULL);
			return plan;

		case T_Limit:
			{
				Limit	   *l = (Limit *) plan;
				GsLimit		newlimit;
				const GsLimit *pass = NULL;

				if (l->limitCount && l->limitOption == LIMIT_OPTION_COUNT &&
					!contain_volatile_functions(l->limitCount) &&
					!contain_volatile_functions(l->limitOffset))
				{
					newlimit.count = l->limitCount;
					newlimit.offset = l->limitOffset ? l->limitOffset :
						(Node *) makeConst(INT8OID, -1, InvalidOid, sizeof(int64),
										   Int64GetDatum(0), false, FLOAT8PASSBYVAL);
					pass = &newlimit;
				}
				plan->lefttree = walk_plan(w, plan->lefttree, pass);
				return plan;
			}

		case T_Append:
			walk_list(w, ((Append *) plan)->appendplans, limit);
			return plan;

		case T_MergeAppend:
			walk_list(w, ((MergeAppend *) plan)->mergeplans, limit);
			return plan;

		case T_Result:
			plan->lefttree = walk_plan(w, plan->lefttree,
									   plan->qual == NIL ? limit : NULL);
			return plan;

		case T_SubqueryScan:
			{
				SubqueryScan *sq = (SubqueryScan *) plan;

				sq->subplan = walk_plan(w, sq->subplan,
										plan->qual == NIL ? limit : NULL);
				return plan;
			}

		case T_CustomScan:
			walk_list(w, ((CustomScan *) plan)->custom_plans, NULL);
			break;

		case T_WindowAgg:
			/* a WindowAgg over a GpuSort may become a GpuWindow (windownode.c) */
			plan->lefttree = walk_plan(w, plan->lefttree, NULL);
			return gs_window_plan((WindowAgg *) plan,
								  stock_sort_why(w, plan->lefttree));

		case T_Agg:
			/* an Agg whose aggregates sort may become a GpuAgg (aggplan.c) */
			return walk_agg(w, (Agg *) plan);

		case T_BitmapAnd:
			walk_list(w, ((BitmapAnd *) plan)->bitmapplans, NULL);
			break;

		case T_BitmapOr:
			walk_list(w, ((BitmapOr *) plan)->bitmapplans, NULL);
			break;

		default:
			/*
			 * An Agg's chain is not walked (see above); an IncrementalSort
			 * stays, but the plan below it is walked like any other.
			 */
			break;
	}
	plan->lefttree = walk_plan(w, plan->lefttree, NULL);
	plan->righttree = walk_plan(w, plan->righttree, NULL);
	return plan;
}

/* the largest plan node id in the tree under plan */
/*
 * ORDER BY col COLLATE "C" sorts on a resjunk copy of col with another
 * collation, computed by the node below the sort and carried up to the top
 * of the plan, which drops it: for text, a copy of the string in every row
 * the sort stores (5*10^7 md5 strings: 1.7 GB more to store, and a
 * projection in every scan that could otherwise return the table's tuples
 * as they are).  The sort needs only the collation, which its collations
 * array already has: so, where the plan is Limits over a GpuSort over
 * pass-through nodes (a Gather, a store node) over the scan or join that
 * computes the copy, the GpuSort and its store nodes sort on col itself,
 * and the copy leaves every targetlist on that path.  Nothing above the
 * GpuSort reads it, as the top targetlist marks it resjunk.  One trailing
 * copy at a time, while there is one.
 */
static bool
relabels_column(Expr *expr, List *tlist, int before, AttrNumber *col)
{
	RelabelType *r = (RelabelType *) expr;
	ListCell   *lc;

	if (!IsA(expr, RelabelType) || !IsA(r->arg, Var) ||
		r->resulttype != exprType((Node *) r->arg) ||
		r->resulttypmod != exprTypmod((Node *) r->arg))
		return false;
	foreach(lc, tlist)
	{
		TargetEntry *tle = lfirst(lc);

		if (tle->resno >= before)
			break;
		if (equal(tle->expr, r->arg))
		{
			*col = tle->resno;
			return true;
		}
	}
	return false;
}

static List *
without_last(List *tlist)
{
	return list_truncate(list_copy(tlist), list_length(tlist) - 1);
}

static void
drop_collate_copies(PlannedStmt *stmt)
{
	for (;;)
	{
		List	   *path = NIL;
		Plan	   *plan = stmt->planTree;
		Plan	   *bottom;
		TargetEntry *last;
		AttrNumber	n,
					col;
		ListCell   *lc;

		while (IsA(plan, Limit))
		{
			path = lappend(path, plan);
			plan = plan->lefttree;
		}
		if (!IsA(plan, CustomScan) ||
			((CustomScan *) plan)->methods != &gpusort_plan_methods)
			return;
		path = lappend(path, plan);
		for (bottom = plan->lefttree; bottom != NULL; bottom = bottom->lefttree)
		{
			if (!(IsA(bottom, Gather) ||
				  (IsA(bottom, CustomScan) &&
				   ((CustomScan *) bottom)->methods == &gpusort_store_plan_methods)))
				break;
			path = lappend(path, bottom);
		}
		if (bottom == NULL ||
			!(IsA(bottom, SeqScan) || IsA(bottom, IndexScan) ||
			  IsA(bottom, BitmapHeapScan) || IsA(bottom, NestLoop) ||
			  IsA(bottom, HashJoin) || IsA(bottom, MergeJoin)))
			return;

		n = list_length(bottom->targetlist);
		last = llast(((Plan *) linitial(path))->targetlist);
		if (n < 2 || !last->resjunk ||
			!relabels_column(((TargetEntry *) llast(bottom->targetlist))->expr,
							 bottom->targetlist, n, &col))
			return;
		/* every node on the path returns its input's columns */
		foreach(lc, path)
		{
			Plan	   *p = lfirst(lc);

			if (list_length(p->targetlist) != n || p->qual != NIL ||
				(IsA(p, CustomScan) &&
				 list_length(((CustomScan *) p)->custom_scan_tlist) != n))
				return;
			if (!IsA(p, CustomScan) &&
				!is_passthrough(p->targetlist, p->lefttree->targetlist))
				return;
		}

		foreach(lc, path)
		{
			Plan	   *p = lfirst(lc);

			p->targetlist = without_last(p->targetlist);
			if (IsA(p, CustomScan))
			{
				CustomScan *cscan = (CustomScan *) p;

				cscan->custom_scan_tlist = without_last(cscan->custom_scan_tlist);
				gs_plan_retarget_column(cscan->custom_private, n, col);
			}
		}
		bottom->targetlist = without_last(bottom->targetlist);
	}
}

static int	max_plan_node_id(Plan *plan);

/*
 * The larger of id and the largest id below child.  Not Max(id,
 * max_plan_node_id(child)): the macro evaluates its arguments twice, and
 * the walk below would then run each subtree twice at every level, time
 * doubling with the plan's depth.
 */
static inline int
max_with_subtree(int id, Plan *child)
{
	int			sub = max_plan_node_id(child);

	return Max(id, sub);
}

/* the largest plan_node_id in a plan tree: ours are numbered after it */
static int
max_plan_node_id(Plan *plan)
{
	int			id;
	ListCell   *lc;
	List	   *children = NIL;

	if (plan == NULL)
		return -1;
	check_stack_depth();
	id = plan->plan_node_id;
	id = max_with_subtree(id, plan->lefttree);
	id = max_with_subtree(id, plan->righttree);
	switch (nodeTag(plan))
	{
		case T_Append:
			children = ((Append *) plan)->appendplans;
			break;
		case T_MergeAppend:
			children = ((MergeAppend *) plan)->mergeplans;
			break;
		case T_SubqueryScan:
			id = max_with_subtree(id, ((SubqueryScan *) plan)->subplan);
			break;
		case T_CustomScan:
			children = ((CustomScan *) plan)->custom_plans;
			break;
		case T_BitmapAnd:
			children = ((BitmapAnd *) plan)->bitmapplans;
			break;
		case T_BitmapOr:
			children = ((BitmapOr *) plan)->bitmapplans;
			break;
		default:
			break;
	}
	foreach(lc, children)
		id = max_with_subtree(id, (Plan *) lfirst(lc));
	return id;
}

static PlannedStmt *
gpusort_planner(Query *parse, const char *query_string, int cursorOptions,
				ParamListInfo boundParams)
{
	PlannedStmt *stmt;
	GsPlanWalk	w;
	ListCell   *lc;

	/* standard_planner's tests for parallelModeOK, on the query as given */
	bool		query_ok = gpusort_enabled && gpusort_parallel_enabled() &&
		(cursorOptions & CURSOR_OPT_PARALLEL_OK) != 0 &&
		IsUnderPostmaster && parse->commandType == CMD_SELECT &&
		!parse->hasModifyingCTE && max_parallel_workers_per_gather > 0 &&
		!IsParallelWorker() && max_parallel_hazard(parse) != PROPARALLEL_UNSAFE;

	if (prev_planner_hook)
		stmt = prev_planner_hook(parse, query_string, cursorOptions, boundParams);
	else
		stmt = standard_planner(parse, query_string, cursorOptions, boundParams);

	if (!gpusort_enabled)
		return stmt;

	w.next_plan_node_id = max_plan_node_id(stmt->planTree) + 1;
	foreach(lc, stmt->subplans)
		w.next_plan_node_id = max_with_subtree(w.next_plan_node_id - 1,
											   (Plan *) lfirst(lc)) + 1;
	w.use_parallel = gpusort_parallel_enabled();
	w.parallel_query_ok = query_ok;
	w.rtable = stmt->rtable;
	w.added_gather = false;
	w.gather_depth = 0;
	w.stock_sorts = NIL;
	w.stock_whys = NIL;
	stmt->planTree = walk_plan(&w, stmt->planTree, NULL);
	drop_collate_copies(stmt);
	/* a subplan may run inside a worker's plan: no Gather of ours there */
	w.parallel_query_ok = false;
	foreach(lc, stmt->subplans)
		lfirst(lc) = walk_plan(&w, (Plan *) lfirst(lc), NULL);
	if (w.added_gather)
		stmt->parallelModeNeeded = true;
	return stmt;
}

/*
 * gpusort_load(): calling it loads the library, and with it the planner
 * hook, into the calling session.  CREATE EXTENSION calls it, so the
 * creating session sorts with GpuSort at once; any user may call it, while
 * LOAD of a library outside $libdir/plugins needs a superuser.  Returns
 * gpusort.enabled.
 */
PG_FUNCTION_INFO_V1(gpusort_load);

Datum
gpusort_load(PG_FUNCTION_ARGS)
{
	PG_RETURN_BOOL(gpusort_enabled);
}

void
gpusort_planner_init(void)
{
	RegisterCustomScanMethods(&gpusort_plan_methods);
	RegisterCustomScanMethods(&gpusort_store_plan_methods);
	gs_feed_register();
	gs_window_register();
	gs_agg_register();
	prev_planner_hook = planner_hook;
	planner_hook = gpusort_planner;
	gs_group_paths_init();
	gs_explain_why_init();
}
