/*-------------------------------------------------------------------------
 *
 * aggplan.c
 *	  The plan rewrite of GpuAgg: an Agg whose aggregates sort, over one
 *	  GpuSort by (group columns, the aggregates' sorted column).
 *
 * Stock PostgreSQL computes count, sum and avg (DISTINCT x),
 * percentile_cont, percentile_disc, mode() and string_agg/array_agg
 * (ORDER BY y) in the Agg node by sorting each group's values in a
 * tuplesort of the aggregate's own, in one process; GpuSort never sees
 * those sorts.  Here the sort moves below the Agg: the Sort
 * that feeds a GroupAggregate (by the group columns) gets the aggregates'
 * column as its last key, and a plain Aggregate, which reads its input
 * unsorted, gets a Sort by that column put in below it.  planner.c's walk
 * then makes that Sort a GpuSort as any other (parallel intake and all),
 * and the Agg becomes a GpuAgg that computes its aggregates over the
 * sorted rows as arrays (aggnode.c, aggfuncs.c).  PostgreSQL 16 and later
 * plan such Sorts themselves ("presorted aggregates"): the Sort then
 * already ends with the aggregates' column, and the same rewrite applies.
 *
 * An Agg is rewritten only when
 *	 - it is a plain or a sorted Agg, with no grouping sets, not split into
 *	   partial and final aggregation (aggregates that sort are never split);
 *	 - every aggregate of its targetlist and qual is one aggfuncs.c
 *	   computes, and those that sort all sort the same column with the
 *	   same operators: several DISTINCT columns would need several sorts,
 *	   which the Agg does better itself.  Where none sorts, the Agg must be
 *	   a sorted one (GROUP BY over a Sort, as sorted grouping plans it,
 *	   grouppaths.c): its sum, avg, min, max, variance and stddev are
 *	   computed on threads over the sorted rows (grouping on threads), the
 *	   Sort's keys unchanged; float sums only there (agg_supported);
 *	 - a sorted Agg's input is a Sort (or a Gather Merge over one) whose
 *	   first keys are its group columns, in any order and direction;
 *	 - the Sort becomes a GpuSort (planner.c's rules: its rows, memory,
 *	   first key's encoding).  Otherwise the Sort gets its keys back, an
 *	   inserted Sort goes, and the Agg stays as the planner made it;
 *	 - a Sort is put in below a plain Agg only where its rows are
 *	   estimated to fit gpusort.max_memory (else GpuAgg would fall back
 *	   over runs in temp files: insert_sort), and where the GpuSort will
 *	   not read its rows in one process on the CPU alone: with the parallel
 *	   node (gpusort.parallel) or gpusort.device = gpu.  The plain Agg
 *	   sorts each aggregate's values as bare Datums, which costs less than
 *	   storing whole rows for a GpuSort in one process (2 cores, 2*10^6
 *	   rows, count(DISTINCT) of an int8: 0.4x to 1.25x of stock, the
 *	   machine's load deciding).  PostgreSQL 16's presorted aggregates
 *	   plan that Sort themselves, and it becomes a GpuSort as any other.
 *
 * Where that Sort is not put in (or from 16 on, is the planner's), a plain
 * Agg whose aggregates are count, sum or avg DISTINCT of one integer column,
 * count(*) and count of that column, becomes a GpuAgg over bare values
 * instead (values_eligible; aggvalues.c): its input as the planner made
 * it, without any Sort; the node sorts the column's values as one-word
 * keys and stores no row.
 *
 * An Agg with an aggregate that sorts (DISTINCT, ORDER BY, WITHIN GROUP)
 * that stays gets its reason recorded (record_why_not): EXPLAIN shows it
 * as "GpuAgg Not Used" and gpusort_stat counts it.  An Agg without one is
 * none of GpuAgg's business and says nothing.
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "catalog/pg_collation.h"
#include "nodes/makefuncs.h"
#include "nodes/nodeFuncs.h"
#include "utils/fmgroids.h"
#include "utils/lsyscache.h"
#include "utils/regproc.h"

#include "aggfuncs.h"
#include "aggnode.h"
#include "aggplan.h"
#include "runtime/settings.h"
#include "node/sortfeed.h"
#include "node/sortnode.h"
#include "core/sortplan.h"
#include "runtime/notused.h"

/* the keys of a Sort or Gather Merge, to change and to restore */
typedef struct SortKeys
{
	int			numCols;
	AttrNumber *sortColIdx;
	Oid		   *sortOperators;
	Oid		   *collations;
	bool	   *nullsFirst;
} SortKeys;

/* the Aggrefs of an Agg, and whether GpuAgg computes them all */
typedef struct CollectContext
{
	List	   *aggrefs;		/* distinct Aggrefs, in order */
	bool		ok;
	bool		sorts;			/* at least one sorts */
	bool		order_read;		/* one reads its values in sorted order */
	bool		float_sum;		/* a GSA_WINDOW aggregate of floats */
	GsAggSortCol sort;			/* the column they sort */
	/* why not: the first aggregate not computed, or two sorts that differ */
	Aggref	   *bad;
	const char *bad_why;
	bool		differs;
} CollectContext;

static bool
same_sort(const GsAggSortCol *a, const GsAggSortCol *b)
{
	return a->attno == b->attno && a->sortop == b->sortop &&
		a->eqop == b->eqop && a->collation == b->collation &&
		a->nulls_first == b->nulls_first;
}

static bool
collect_aggrefs(Node *node, CollectContext *cxt)
{
	if (node == NULL)
		return false;
	if (IsA(node, Aggref))
	{
		GsAggFunc	f;
		GsAggSortCol sort;
		bool		sorts;
		const char *why;

		if (!gs_agg_func_from_aggref((Aggref *) node, &f, &sort, &sorts, &why))
		{
			if (cxt->ok && !cxt->differs)
			{
				cxt->bad = (Aggref *) node;
				cxt->bad_why = why;
			}
			cxt->ok = false;
		}
		else if (sorts && cxt->sorts && !same_sort(&sort, &cxt->sort))
		{
			cxt->differs |= cxt->ok;
			cxt->ok = false;
		}
		else
		{
			if (sorts)
				cxt->sort = sort;
			cxt->sorts |= sorts;
			cxt->float_sum |= f.fn == GSA_WINDOW &&
				(f.w.arg == GSW_ARG_FLOAT4 || f.w.arg == GSW_ARG_FLOAT8);
			/* DISTINCT only needs equal values next to each other */
			cxt->order_read |= sorts && f.fn != GSA_COUNT_DISTINCT &&
				f.fn != GSA_SUM_DISTINCT && f.fn != GSA_AVG_DISTINCT;
			if (!list_member(cxt->aggrefs, node))
				cxt->aggrefs = lappend(cxt->aggrefs, node);
		}
		return false;
	}
	return expression_tree_walker(node, collect_aggrefs, (void *) cxt);
}

static void
get_keys(Plan *plan, SortKeys *k)
{
	if (IsA(plan, Sort))
	{
		Sort	   *s = (Sort *) plan;

		*k = (SortKeys) {s->numCols, s->sortColIdx, s->sortOperators,
		s->collations, s->nullsFirst};
	}
	else
	{
		GatherMerge *gm = (GatherMerge *) plan;

		*k = (SortKeys) {gm->numCols, gm->sortColIdx, gm->sortOperators,
		gm->collations, gm->nullsFirst};
	}
}

static void
set_keys(Plan *plan, const SortKeys *k)
{
	if (IsA(plan, Sort))
	{
		Sort	   *s = (Sort *) plan;

		s->numCols = k->numCols;
		s->sortColIdx = k->sortColIdx;
		s->sortOperators = k->sortOperators;
		s->collations = k->collations;
		s->nullsFirst = k->nullsFirst;
	}
	else
	{
		GatherMerge *gm = (GatherMerge *) plan;

		gm->numCols = k->numCols;
		gm->sortColIdx = k->sortColIdx;
		gm->sortOperators = k->sortOperators;
		gm->collations = k->collations;
		gm->nullsFirst = k->nullsFirst;
	}
}

/* are the first agg->numCols keys the group columns (in any order)? */
static bool
groups_first(Agg *agg, const SortKeys *k)
{
	int			i,
				j;

	if (k->numCols < agg->numCols)
		return false;
	for (i = 0; i < agg->numCols; i++)
	{
		for (j = 0; j < agg->numCols; j++)
			if (k->sortColIdx[i] == agg->grpColIdx[j])
				break;
		if (j == agg->numCols)
			return false;
	}
	return true;
}

/* the group columns' keys of old, then the aggregates' column */
static SortKeys
extended_keys(int ngroup, const SortKeys *old, const GsAggSortCol *sort)
{
	SortKeys	k;
	int			n = ngroup + 1;

	k.numCols = n;
	k.sortColIdx = palloc(sizeof(AttrNumber) * n);
	k.sortOperators = palloc(sizeof(Oid) * n);
	k.collations = palloc(sizeof(Oid) * n);
	k.nullsFirst = palloc(sizeof(bool) * n);
	if (ngroup > 0)
	{
		memcpy(k.sortColIdx, old->sortColIdx, sizeof(AttrNumber) * ngroup);
		memcpy(k.sortOperators, old->sortOperators, sizeof(Oid) * ngroup);
		memcpy(k.collations, old->collations, sizeof(Oid) * ngroup);
		memcpy(k.nullsFirst, old->nullsFirst, sizeof(bool) * ngroup);
	}
	k.sortColIdx[ngroup] = sort->attno;
	k.sortOperators[ngroup] = sort->sortop;
	k.collations[ngroup] = sort->collation;
	k.nullsFirst[ngroup] = sort->nulls_first;
	return k;
}

/* a Sort by the aggregates' column over input, for a plain Agg */
static Sort *
make_sort(Plan *input, const GsAggSortCol *col, const GsAggWalker *walker)
{
	Sort	   *sort = makeNode(Sort);
	SortKeys	k = extended_keys(0, NULL, col);

	memcpy(&sort->plan, input, sizeof(Plan));
	sort->plan.type = T_Sort;
	sort->plan.startup_cost = input->total_cost;
	sort->plan.targetlist = gs_plan_column_refs(input->targetlist, OUTER_VAR);
	sort->plan.qual = NIL;
	sort->plan.initPlan = NIL;
	sort->plan.lefttree = input;
	sort->plan.righttree = NULL;
	sort->plan.parallel_aware = false;
	sort->plan.plan_node_id = (*walker->next_plan_node_id)++;
	set_keys((Plan *) sort, &k);
	return sort;
}

/* does a Gather Merge return its Sort's columns unchanged? */
static bool
passthrough(Plan *gm)
{
	ListCell   *lc;

	if (list_length(gm->targetlist) != list_length(gm->lefttree->targetlist))
		return false;
	foreach(lc, gm->targetlist)
	{
		TargetEntry *tle = lfirst(lc);
		Var		   *var = (Var *) tle->expr;

		if (!IsA(var, Var) || var->varno != OUTER_VAR || var->varattno != tle->resno)
			return false;
	}
	return true;
}

static bool
is_gpusort(Plan *plan)
{
	return plan != NULL && IsA(plan, CustomScan) &&
		((CustomScan *) plan)->methods == &gpusort_plan_methods;
}

/*
 * The GpuAgg in agg's place over input: its scan tuple is input's columns,
 * then one column per aggregate of aggrefs, which agg's targetlist and qual
 * read instead of the Aggrefs; custom_private as the caller makes it
 */
static Plan *
agg_scan(Agg *agg, Plan *input, List *aggrefs, List *private)
{
	CustomScan *cscan = makeNode(CustomScan);
	List	   *scan_tlist;
	ListCell   *lc;
	int			resno;

	memcpy(&cscan->scan.plan, &agg->plan, sizeof(Plan));
	cscan->scan.plan.type = T_CustomScan;
	cscan->scan.plan.lefttree = input;
	cscan->scan.plan.righttree = NULL;
	cscan->scan.scanrelid = 0;
	cscan->flags = 0;			/* as Agg: no backward scan, no mark */

	scan_tlist = gs_plan_column_refs(input->targetlist, OUTER_VAR);
	resno = list_length(scan_tlist);
	foreach(lc, aggrefs)
		scan_tlist = lappend(scan_tlist,
							 makeTargetEntry((Expr *) copyObject(lfirst(lc)),
											 ++resno, NULL, false));
	cscan->custom_scan_tlist = scan_tlist;
	cscan->scan.plan.targetlist = (List *)
		gs_plan_retarget((Node *) agg->plan.targetlist, aggrefs,
						 list_length(input->targetlist));
	cscan->scan.plan.qual = (List *)
		gs_plan_retarget((Node *) agg->plan.qual, aggrefs,
						 list_length(input->targetlist));
	cscan->custom_private = private;
	cscan->custom_exprs = NIL;
	cscan->methods = &gpuagg_plan_methods;
	return (Plan *) cscan;
}

/* the GpuAgg over gpusort that computes agg's aggregates */
static Plan *
make_gpuagg(Agg *agg, Plan *gpusort, List *aggrefs)
{
	Agg		   *fallback;

	agg->plan.lefttree = NULL;
	fallback = copyObject(agg);
	agg->plan.lefttree = gpusort;
	fallback->plan.initPlan = NIL;
	fallback->plan.lefttree = gs_feed_plan(gpusort);

	return agg_scan(agg, gpusort, aggrefs,
					list_make2(fallback, copyObject(aggrefs)));
}

/* the input columns an Agg's expressions read */
static bool
outer_columns(Node *node, Bitmapset **cols)
{
	if (node == NULL)
		return false;
	if (IsA(node, Var) && ((Var *) node)->varno == OUTER_VAR)
	{
		*cols = bms_add_member(*cols, ((Var *) node)->varattno);
		return false;
	}
	return expression_tree_walker(node, outer_columns, (void *) cols);
}

/* renumbers OUTER_VAR Vars by map (old column number -> new) */
static Node *
renumber(Node *node, AttrNumber *map)
{
	if (node == NULL)
		return NULL;
	if (IsA(node, Var) && ((Var *) node)->varno == OUTER_VAR)
	{
		Var		   *var = (Var *) copyObject(node);

		var->varattno = map[var->varattno];
		return (Node *) var;
	}
	return expression_tree_mutator(node, renumber, (void *) map);
}

/*
 * A plain Agg reads its input as the planner made it, often the scan's
 * whole row (a physical targetlist: no projection to pay for).  Sorted, the
 * whole row would be stored and moved: so the scan below a plain Agg
 * returns only the columns the Agg reads, and the Agg's Vars are numbered
 * anew.  Only for a scan (or a Gather over one that passes its columns
 * on), whose targetlist may be any subset of its own.
 *
 * narrowing() works out the narrower targetlist and the width of its rows
 * (false where the input stays as it is), without changing the plan, so
 * that the Sort's memory can be judged first; narrow_input() applies it.
 */
typedef struct Narrowing
{
	Plan	   *top;			/* the Agg's input: the scan or its Gather */
	Plan	   *scan;
	List	   *tlist;			/* the scan's new targetlist */
	AttrNumber *map;			/* old column number -> new */
	int			width;			/* the new rows' estimated width */
} Narrowing;

static bool
narrowing(Agg *agg, Narrowing *nw)
{
	Plan	   *top = agg->plan.lefttree;
	Plan	   *scan = IsA(top, Gather) ? top->lefttree : top;
	Bitmapset  *cols = NULL;
	ListCell   *lc;

	if (scan == NULL || agg->numCols != 0 || agg->plan.initPlan != NIL ||
		!(IsA(scan, SeqScan) || IsA(scan, IndexScan) || IsA(scan, BitmapHeapScan)) ||
		(top != scan && !passthrough(top)))
		return false;
	(void) outer_columns((Node *) agg->plan.targetlist, &cols);
	(void) outer_columns((Node *) agg->plan.qual, &cols);
	if (bms_is_empty(cols) || bms_num_members(cols) >= list_length(scan->targetlist))
		return false;
	nw->top = top;
	nw->scan = scan;
	nw->tlist = NIL;
	nw->map = palloc0(sizeof(AttrNumber) * (list_length(scan->targetlist) + 1));
	nw->width = 0;
	foreach(lc, scan->targetlist)
	{
		TargetEntry *tle = lfirst(lc);

		if (!bms_is_member(tle->resno, cols))
			continue;
		tle = flatCopyTargetEntry(tle);
		nw->map[tle->resno] = list_length(nw->tlist) + 1;
		tle->resno = nw->map[tle->resno];
		nw->width += get_typavgwidth(exprType((Node *) tle->expr),
									 exprTypmod((Node *) tle->expr));
		nw->tlist = lappend(nw->tlist, tle);
	}
	return true;
}

static void
narrow_input(Agg *agg, const Narrowing *nw)
{
	nw->scan->targetlist = nw->tlist;
	nw->scan->plan_width = nw->width;
	if (nw->top != nw->scan)
	{
		nw->top->targetlist = gs_plan_column_refs(nw->tlist, OUTER_VAR);
		nw->top->plan_width = nw->width;
	}
	agg->plan.targetlist = (List *) renumber((Node *) agg->plan.targetlist, nw->map);
	agg->plan.qual = (List *) renumber((Node *) agg->plan.qual, nw->map);
}

/*
 * Is a Sort to be put in below a plain Agg?  Only where its GpuSort will
 * not read its rows in one process on the CPU alone (aggplan.c's header),
 * and only where the rows it would store fit gpusort.max_memory: past it the
 * GpuSort writes runs to temp files, and GpuAgg, which needs the rows in
 * memory, falls back to stock's aggregation over them, so the Agg would
 * have paid for sorting whole rows on top of its own Datum sorts (a
 * random query's mode() of a numeric over 10^6 rows under a 1MB budget:
 * 1.54x of stock's time on 2 cores, 1.66x on the H200).
 */
static bool
insert_sort(Agg *agg, const Narrowing *nw, bool narrow)
{
	Plan	   *input = agg->plan.lefttree;

	if (!gpusort_parallel_enabled() && gpusort_device != GS_DEVICE_GPU)
		return false;
	return gs_plan_fits_memory(input->plan_rows,
							   narrow ? nw->width : input->plan_width);
}

/*
 * May agg become a GpuAgg, given its aggregates?  Collects them.  Those
 * that sort make the Sort below sort by their column too; without one, a
 * sorted Agg over a Sort by its group columns is computed on threads over
 * the Sort's rows as they come (grouping on threads).  Float sums, whose
 * rounding follows the order of their inputs, only there: a sorted column
 * added to the keys (or a Sort put in below a plain Agg) would reorder each
 * group's rows against the Agg's.
 */
static bool
agg_supported(Agg *agg, CollectContext *collect)
{
	collect->aggrefs = NIL;
	collect->ok = true;
	collect->sorts = false;
	collect->order_read = false;
	collect->float_sum = false;
	collect->bad = NULL;
	collect->bad_why = NULL;
	collect->differs = false;
	if (!gpusort_aggregates || agg->groupingSets != NIL || agg->chain != NIL ||
		agg->aggsplit != AGGSPLIT_SIMPLE ||
		(agg->aggstrategy != AGG_PLAIN && agg->aggstrategy != AGG_SORTED) ||
		agg->plan.lefttree == NULL)
		return false;
	(void) collect_aggrefs((Node *) agg->plan.targetlist, collect);
	(void) collect_aggrefs((Node *) agg->plan.qual, collect);
	if (!collect->ok || collect->aggrefs == NIL)
		return false;
	if (collect->sorts)
		return !collect->float_sum;
	return agg->aggstrategy == AGG_SORTED && agg->numCols > 0;
}

/*
 * count(DISTINCT x) and the like only need each group's equal values next
 * to each other, not in the collation's order: where no aggregate reads
 * the values in order, text under a deterministic collation (whose equal
 * values are equal bytes, as texteq compares them) is sorted in byte order
 * (COLLATE "C").  That spares the collation's transform of every row and
 * the strcoll check of every pair (2 cores, 2*10^6 unique md5 strings under
 * en_US.UTF-8: 1.5 s and 1.3 s), and the result cannot differ: the groups
 * are the leading keys, and their runs of equal values are the same runs.
 * The Agg that GpuAgg falls back to counts them the same way, by its own
 * sort (PostgreSQL 15) or by comparing neighbours (16's presorted input).
 */
static void
distinct_in_byte_order(CollectContext *collect)
{
	GsAggSortCol *col = &collect->sort;

	if (!collect->order_read && OidIsValid(col->collation) &&
		col->collation != C_COLLATION_OID &&
		get_opcode(col->eqop) == F_TEXTEQ &&
		get_collation_isdeterministic(col->collation))
		col->collation = C_COLLATION_OID;
}

/* a Var of the Agg's input outside its aggregates? */
static bool
var_outside_aggrefs(Node *node, void *unused)
{
	if (node == NULL || IsA(node, Aggref))
		return false;
	if (IsA(node, Var))
		return true;
	return expression_tree_walker(node, var_outside_aggrefs, unused);
}

/*
 * May agg be computed from its sorted column's values alone (aggvalues.c)?
 * A plain Agg whose aggregates are count, sum or avg DISTINCT of one
 * integer column, count(*) and count of that column, reading no other
 * column; where its GpuSort would read its rows in one process on the CPU
 * (neither the parallel node nor gpusort.device = gpu), whose storing of
 * every row whole costs about what the Agg's own sort of bare Datums costs.
 */
static bool
values_eligible(Agg *agg, const CollectContext *collect)
{
	ListCell   *lc;

	if (agg->aggstrategy != AGG_PLAIN || agg->numCols != 0 ||
		gpusort_parallel_enabled() || gpusort_device == GS_DEVICE_GPU ||
		var_outside_aggrefs((Node *) agg->plan.targetlist, NULL) ||
		var_outside_aggrefs((Node *) agg->plan.qual, NULL))
		return false;
	foreach(lc, collect->aggrefs)
	{
		GsAggFunc	f;
		GsAggSortCol sort;
		bool		sorts;
		const char *why;

		if (!gs_agg_func_from_aggref(lfirst(lc), &f, &sort, &sorts, &why))
			return false;
		if (f.fn == GSA_COUNT_STAR)
			continue;
		if (f.fn == GSA_COUNT)
		{
			if (f.argattno != collect->sort.attno)
				return false;
			continue;
		}
		if ((f.fn != GSA_COUNT_DISTINCT && f.fn != GSA_SUM_DISTINCT &&
			 f.fn != GSA_AVG_DISTINCT) ||
			!gs_agg_values_type_ok(f.argtype, collect->sort.eqop))
			return false;
	}
	return true;
}

/*
 * The input of a GpuAgg over values: the Agg's, less the Sort by the
 * column that PostgreSQL 16 and later plan below it (presorted
 * aggregates); or NULL where the input is another sort
 */
static Plan *
values_input(Agg *agg, const CollectContext *collect)
{
	Plan	   *input = agg->plan.lefttree;
	Sort	   *sort = (Sort *) input;

	if (IsA(input, GatherMerge) || IsA(input, IncrementalSort))
		return NULL;
	if (!IsA(input, Sort))
		return input;
	if (sort->numCols != 1 || sort->sortColIdx[0] != collect->sort.attno)
		return NULL;
	return input->lefttree;
}

/*
 * agg as a GpuAgg over its column's values, its input walked here; or
 * NULL, agg unchanged and its input for the caller to walk, where it may
 * not be one (values_eligible, values_input, gpusort.min_rows)
 */
static Plan *
gs_agg_values_plan(Agg *agg, CollectContext *collect, const GsAggWalker *walker)
{
	Plan	   *input;

	if (!values_eligible(agg, collect) ||
		(input = values_input(agg, collect)) == NULL ||
		(gpusort_min_rows > 0 && input->plan_rows < (double) gpusort_min_rows))
		return NULL;
	/*
	 * The input stays as the planner made it, often the scan's whole row:
	 * no row is stored, and a narrower targetlist would be a projection of
	 * every row to pay for
	 */
	input = walker->walk(walker->cxt, input);
	agg->plan.lefttree = input;

	return agg_scan(agg, input, collect->aggrefs,
					list_make3(NULL, copyObject(collect->aggrefs),
							   makeInteger(GSAP_VALUES_MODE)));
}

/*
 * The Sort (or Gather Merge over a Sort) under agg whose keys become the
 * group columns' and then col, with *old its keys as they were; or NULL
 */
static Plan *
sort_to_extend(Agg *agg, SortKeys *old)
{
	Plan	   *input = agg->plan.lefttree;

	if (IsA(input, GatherMerge) &&
		!(input->lefttree && IsA(input->lefttree, Sort) && passthrough(input)))
		return NULL;
	if (!IsA(input, Sort) && !IsA(input, GatherMerge))
		return NULL;
	get_keys(input, old);
	return groups_first(agg, old) ? input : NULL;
}

/* an aggregate that sorts: DISTINCT, ORDER BY or WITHIN GROUP */
static bool
sorting_aggregate(Node *node, void *unused)
{
	if (node == NULL)
		return false;
	if (IsA(node, Aggref))
		return ((Aggref *) node)->aggdistinct != NIL ||
			((Aggref *) node)->aggorder != NIL;
	return expression_tree_walker(node, sorting_aggregate, unused);
}

/*
 * Why a plain Agg got no Sort below it: too few rows for its values alone
 * (values_eligible), or its GpuSort would read the rows in one process on
 * the CPU (see the header comment)
 */
static const char *
plain_why_not(Agg *agg, const CollectContext *collect)
{
	if (values_eligible(agg, collect) && gpusort_min_rows > 0 &&
		agg->plan.lefttree->plan_rows < (double) gpusort_min_rows)
		return "fewer rows than gpusort.min_rows";
	if (gpusort_parallel_enabled() || gpusort_device == GS_DEVICE_GPU)
		return "its rows are estimated past gpusort.max_memory";
	return "the Agg's own sort is cheaper in one process on the CPU "
		"(see gpusort.parallel, gpusort.device)";
}

/*
 * Records why agg stays an Agg (runtime/notused.h), where one of its
 * aggregates sorts or it groups a GpuSort's rows.  supported: agg_supported's answer; sort: the Sort (or
 * Gather Merge) whose keys were extended or put in, or NULL; input: what
 * the walk made of agg's input.
 */
static void
record_why_not(Agg *agg, const CollectContext *collect, bool supported,
			   Plan *sort, Plan *input, const GsAggWalker *walker)
{
	GsStatCounter kind = GS_STAT_AGG_NU_INPUT;
	const char *why;
	const char *sort_why;

	/*
	 * Aggs with an aggregate that sorts, and sorted groupings over a GpuSort
	 * (whose aggregates GpuAgg would compute on threads): the Aggs a user
	 * expects a GpuAgg in
	 */
	if (!sorting_aggregate((Node *) agg->plan.targetlist, NULL) &&
		!sorting_aggregate((Node *) agg->plan.qual, NULL) &&
		!(agg->aggstrategy == AGG_SORTED && is_gpusort(input)))
		return;
	if (!gpusort_aggregates)
	{
		kind = GS_STAT_AGG_NU_SETTING;
		why = "gpusort.aggregates is off";
	}
	else if (agg->groupingSets != NIL || agg->chain != NIL)
	{
		kind = GS_STAT_AGG_NU_GROUPING_SETS;
		why = "grouping sets";
	}
	else if (collect->bad != NULL)
	{
		kind = GS_STAT_AGG_NU_FUNCTION;
		why = psprintf("%s: %s", collect->bad_why,
					   format_procedure(collect->bad->aggfnoid));
	}
	else if (collect->differs)
	{
		kind = GS_STAT_AGG_NU_COLUMNS;
		why = "aggregates sort different columns";
	}
	else if (collect->sorts && collect->float_sum)
	{
		kind = GS_STAT_AGG_NU_FUNCTION;
		why = "a float sum beside an aggregate that sorts (its sort would add it in another order)";
	}
	else if (!supported)
		return;					/* split or hashed: never with these */
	else if (sort == NULL && agg->aggstrategy == AGG_PLAIN)
		why = plain_why_not(agg, collect);
	else if (sort == NULL)
		why = "input is not a Sort by the group columns";
	else if (input == sort && (sort_why = walker->sort_why(walker->cxt, sort)) != NULL)
		why = psprintf("input is not sorted by a GpuSort: %s", sort_why);
	else
		why = "input is not a GpuSort";
	gs_not_used_record(&agg->plan, kind, why);
}

Plan *
gs_agg_plan(Agg *agg, const GsAggWalker *walker)
{
	CollectContext collect;
	Plan	   *sort = NULL;
	Plan	   *input;
	SortKeys	old;
	SortKeys	keys;
	bool		inserted = false;
	Narrowing	nw;
	bool		plain;
	bool		narrow = false;
	bool		supported;

	/* set by sort_to_extend and narrowing; zeroed for compilers that cannot see that */
	memset(&old, 0, sizeof(old));
	memset(&nw, 0, sizeof(nw));
	supported = agg_supported(agg, &collect);
	if (supported)
	{
		Plan	   *values = gs_agg_values_plan(agg, &collect, walker);

		if (values)
			return values;
		distinct_in_byte_order(&collect);
		sort = sort_to_extend(agg, &old);
		plain = sort == NULL && agg->aggstrategy == AGG_PLAIN &&
			!IsA(agg->plan.lefttree, Sort) && !IsA(agg->plan.lefttree, GatherMerge);
		if (plain)
			narrow = narrowing(agg, &nw);
		if (plain && insert_sort(agg, &nw, narrow))
		{
			/* the sorted column's number changes with the input's */
			if (narrow)
				narrow_input(agg, &nw);
			(void) agg_supported(agg, &collect);
			distinct_in_byte_order(&collect);
			sort = (Plan *) make_sort(agg->plan.lefttree, &collect.sort, walker);
			agg->plan.lefttree = sort;
			inserted = true;
		}
		else if (sort && collect.sorts)
		{
			keys = extended_keys(agg->numCols, &old, &collect.sort);
			set_keys(sort, &keys);
			if (IsA(sort, GatherMerge))
				set_keys(sort->lefttree, &keys);
		}
	}

	input = walker->walk(walker->cxt, agg->plan.lefttree);
	agg->plan.lefttree = input;
	if (sort != NULL && is_gpusort(input))
		return make_gpuagg(agg, input, collect.aggrefs);

	/* the sort stays the planner's: so do its keys, and the Agg */
	if (sort != NULL && inserted)
		agg->plan.lefttree = input->lefttree;
	else if (sort != NULL && input == sort)
	{
		set_keys(sort, &old);
		if (IsA(sort, GatherMerge))
			set_keys(sort->lefttree, &old);
	}
	record_why_not(agg, &collect, supported, sort, input, walker);
	return (Plan *) agg;
}
