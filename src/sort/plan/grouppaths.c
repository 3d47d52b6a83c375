/*-------------------------------------------------------------------------
 *
 * grouppaths.c
 *	  Grouping by sorting rather than hashing where the groups are many and
 *	  GpuSort does the sorting (gpusort.sorted_grouping).
 *
 * For GROUP BY the planner weighs a HashAggregate (split into Partial and
 * Finalize over a Gather where it runs in parallel) against a
 * GroupAggregate over a Sort (or a Finalize GroupAggregate over a Gather
 * Merge of the workers' sorted partial groups), and it prices that Sort as
 * tuplesort's comparison sort.  GpuSort sorts several times faster than
 * that price says, while a hash table of many groups costs more than the
 * planner says: past the processor's caches each row's lookup waits on
 * memory, and a split plan's Finalize HashAggregate combines every
 * worker's partial groups again in one process.  Measured on 2 cores
 * (2*10^6 rows, best of 3, the stock plan's time / the sorted plan's under
 * gpusort; the machine shared and noisy):
 *
 *	 groups		sum(numeric)	sum(float8)		count(*)
 *	 10^3		0.7				0.6
 *	 10^4		0.95			0.6				0.5
 *	 4*10^4		3.0				0.8				0.6
 *	 2*10^5		3.5				0.8-1.6			1.6
 *	 2*10^6		2.4				2.7
 *
 * and bench/sort/aggs.sh's top 10 of 131072 groups over 10^7 rows, against
 * stock tuned: 1.80x for sum(float8), 2.65x for sum(numeric).
 *
 * So, once the planner has built the grouping paths (the
 * create_upper_paths_hook of UPPERREL_GROUP_AGG, before it picks the
 * cheapest), the hashed ones are dropped where
 *	 - gpusort is on and so is gpusort.sorted_grouping;
 *	 - the query has aggregates and no grouping sets (a GROUP BY without
 *	   aggregates, a DISTINCT, keeps the planner's choice);
 *	 - the estimated groups number at least GS_SORTED_GROUPS_MIN, and at
 *	   least GS_SORTED_GROUPS_MIN_SHARE of the input's rows: a sort's cost
 *	   grows with the rows, a hash table's with the groups, and a few
 *	   groups over very many rows stay hashed;
 *	 - the input is estimated at gpusort.min_rows or more and every group
 *	   column's sort operator has a key encoding (gs_keys_encodable):
 *	   planner.c's rules for making the Sort a GpuSort, so that the sorted
 *	   plan sorts in GpuSort and not in tuplesort; and none is a
 *	   collation's transform (text under a libc or ICU collation other
 *	   than C), which costs more per row than hashing the bytes;
 *	 - a path that does not hash remains, and one that sorts in a Sort
 *	   (which becomes a GpuSort) where a hashed path was the cheapest: the
 *	   planner then picks the cheapest of those (serial or parallel, as it
 *	   prices them).
 * Where the groups are about as many as the rows (GS_PARTIAL_MAX_SHARE),
 * the sorted paths that aggregate in two steps (a Finalize GroupAggregate
 * over a Gather Merge of the workers' partial groups) are dropped too,
 * where a path that aggregates once remains: the partial groups are then
 * about the rows themselves, so each row's transition state is made,
 * serialized, sent, deserialized and combined, and the Finalize does the
 * aggregation over again in one process.  TPC-H q11 at scale factor 10
 * (316,000 rows in 307,000 groups, sum(numeric)) took 1.20 s that way on
 * the H200 against stock's 1.06 s; on 2 cores the same shape took 0.78-0.93
 * s in two steps and 0.48-0.72 s in one.
 * The GroupAggregate is stock's own: every aggregate is computed by its
 * own functions, in sorted order, as stock's sorted plan computes it
 * (float sums, whose rounding depends on the order of their inputs, vary
 * between sorted and hashed plans and between parallel runs, in stock as
 * here).
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "nodes/nodeFuncs.h"
#include "nodes/pathnodes.h"
#include "optimizer/optimizer.h"
#include "optimizer/pathnode.h"
#include "optimizer/paths.h"
#include "optimizer/planner.h"

#include "planner.h"
#include "runtime/settings.h"
#include "keys/sortkey.h"

/*
 * The least estimated groups whose hashed paths are dropped: at 4*10^4
 * (above) cheap transitions still hash faster, at 2*10^5 they no longer
 * do; numeric sums sort faster from 4*10^4 on, but one rule for every
 * aggregate keeps the choice predictable
 */
#define GS_SORTED_GROUPS_MIN	100000

/*
 * ... and the least share of the input's rows they must be: issue 28's
 * top-N over GROUP BY has 1.3% (131072 users in 10^7 events), and a few
 * groups over far more rows keep the hash, which reads each row once
 */
#define GS_SORTED_GROUPS_MIN_SHARE	0.01

/*
 * Groups of at least this share of the input's rows are aggregated once,
 * not in partial and final steps (above)
 */
#define GS_PARTIAL_MAX_SHARE		0.5

static create_upper_paths_hook_type prev_upper_paths_hook = NULL;

/*
 * The path below path in its grouping's chain (the aggregation steps, the
 * Sort, Gather or Gather Merge and the projections between them), or NULL
 * where the chain ends
 */
static Path *
grouping_subpath(Path *path)
{
	switch (nodeTag(path))
	{
		case T_AggPath:
			return ((AggPath *) path)->subpath;
		case T_SortPath:
			return ((SortPath *) path)->subpath;
		case T_IncrementalSortPath:
			return ((IncrementalSortPath *) path)->spath.subpath;
		case T_GatherPath:
			return ((GatherPath *) path)->subpath;
		case T_GatherMergePath:
			return ((GatherMergePath *) path)->subpath;
		case T_ProjectionPath:
			return ((ProjectionPath *) path)->subpath;
		default:
			return NULL;
	}
}

/*
 * Does path hash anywhere in its grouping: itself, or the partial
 * aggregation below a Finalize?  Returns that hashed AggPath, or NULL.
 */
static AggPath *
hashed_agg(Path *path)
{
	for (; path != NULL; path = grouping_subpath(path))
	{
		if (IsA(path, AggPath) && ((AggPath *) path)->aggstrategy == AGG_HASHED)
			return (AggPath *) path;
	}
	return NULL;
}

/*
 * Would a Sort by these group columns, over input_rows rows, be a
 * GpuSort (planner.c's eligible(): rows, the keys' encoding), one whose
 * keys need no collation's transform?  Text under en_US.UTF-8 pays
 * strxfrm for each row and strcoll for each pair of neighbours, where the
 * hash table hashes its bytes: 2*10^6 md5 strings in 2*10^5 groups,
 * sum(float8), took 1.5 s hashed and 2.3 s sorted (2 cores), and 1.2 s
 * and 0.66 s under C.UTF-8.
 */
static bool
sorts_in_gpusort(PlannerInfo *root, List *group_clause, double input_rows)
{
	ListCell   *lc;

	if (group_clause == NIL ||
		(gpusort_min_rows > 0 && input_rows < (double) gpusort_min_rows))
		return false;
	foreach(lc, group_clause)
	{
		SortGroupClause *sgc = lfirst(lc);
		Node	   *expr = get_sortgroupclause_expr(sgc, root->parse->targetList);

		if (!OidIsValid(sgc->sortop) ||
			!gs_keys_encodable(sgc->sortop, exprCollation(expr)) ||
			gs_keys_transformed(sgc->sortop, exprCollation(expr)))
			return false;
	}
	return true;
}

/* are the groups of final, a hashed final grouping, many enough to sort? */
static bool
groups_to_sort(PlannerInfo *root, AggPath *final, double input_rows)
{
	return final->numGroups >= GS_SORTED_GROUPS_MIN &&
		final->numGroups >= GS_SORTED_GROUPS_MIN_SHARE * input_rows &&
		sorts_in_gpusort(root, final->groupClause, input_rows);
}

/* the partially grouped rel of grouped_rel, if the planner made one */
static RelOptInfo *
partial_grouping_rel(PlannerInfo *root, RelOptInfo *grouped_rel)
{
	ListCell   *lc;

	foreach(lc, root->upper_rels[UPPERREL_PARTIAL_GROUP_AGG])
	{
		RelOptInfo *rel = lfirst(lc);

		if (bms_equal(rel->relids, grouped_rel->relids))
			return rel;
	}
	return NULL;
}

/* the Finalize GroupAggregate over path, as add_paths_to_grouping_rel makes it */
static Path *
final_path(PlannerInfo *root, RelOptInfo *grouped_rel, Path *path,
		   GroupPathExtraData *extra, AggPath *hashed)
{
	return (Path *) create_agg_path(root, grouped_rel, path,
									grouped_rel->reltarget, AGG_SORTED,
									AGGSPLIT_FINAL_DESERIAL,
									hashed->groupClause,
									(List *) extra->havingQual,
									&extra->agg_final_costs,
									hashed->numGroups);
}

/*
 * The Finalize GroupAggregates over a Gather Merge of the workers' sorted
 * partial groups, as gather_grouping_paths and add_paths_to_grouping_rel
 * build them: add_path kept only the cheapest paths sorted by the group
 * columns, which the planner finds in a Sort over the hashed partial
 * groups, so they are built again here from the partially grouped rel's
 * partial paths that do not hash
 */
static List *
sorted_final_paths(PlannerInfo *root, RelOptInfo *grouped_rel,
				   GroupPathExtraData *extra, AggPath *hashed)
{
	RelOptInfo *partial = partial_grouping_rel(root, grouped_rel);
	List	   *paths = NIL;
	ListCell   *lc;

	if (partial == NULL || !extra->partial_costs_set ||
		extra->patype != PARTITIONWISE_AGGREGATE_NONE)
		return NIL;
	foreach(lc, partial->partial_pathlist)
	{
		Path	   *path = lfirst(lc);
		double		rows = path->rows * path->parallel_workers;
		Path	   *gm;

		if (hashed_agg(path) != NULL || path->parallel_workers <= 0 ||
			!pathkeys_contained_in(root->group_pathkeys, path->pathkeys))
			continue;
		gm = (Path *) create_gather_merge_path(root, partial, path,
											   partial->reltarget,
											   path->pathkeys, NULL, &rows);
		paths = lappend(paths, final_path(root, grouped_rel, gm, extra, hashed));
	}
	return paths;
}

/*
 * Does path sort for its grouping, in a Sort that GpuSort can take?  A
 * path whose input comes in order (an index scan, a merge join) sorts
 * nothing, and GpuSort's speed says nothing of it.
 */
static bool
sorts_for_grouping(Path *path)
{
	for (; path != NULL; path = grouping_subpath(path))
	{
		if (IsA(path, SortPath))
			return true;
	}
	return false;
}

/* the cheapest of paths, by total cost */
static Path *
cheapest_total(List *paths)
{
	Path	   *best = NULL;
	ListCell   *lc;

	foreach(lc, paths)
	{
		Path	   *path = lfirst(lc);

		if (best == NULL || path->total_cost < best->total_cost)
			best = path;
	}
	return best;
}

/* does path aggregate in two steps (a Finalize over partial groups)? */
static bool
two_step_agg(Path *path)
{
	while (IsA(path, ProjectionPath))
		path = ((ProjectionPath *) path)->subpath;
	return IsA(path, AggPath) &&
		DO_AGGSPLIT_COMBINE(((AggPath *) path)->aggsplit);
}

/* those of paths for which pred is want; frees paths */
static List *
paths_where(List *paths, bool (*pred) (Path *path), bool want)
{
	List	   *kept = NIL;
	ListCell   *lc;

	foreach(lc, paths)
	{
		if (pred((Path *) lfirst(lc)) == want)
			kept = lappend(kept, lfirst(lc));
	}
	list_free(paths);
	return kept;
}

/*
 * Drops rel's grouping paths that hash where the groups are many, and
 * puts back the parallel sorted ones add_path dropped for them, or drops
 * the two-step ones too where the groups are about the rows
 */
static void
drop_hashed_paths(PlannerInfo *root, RelOptInfo *input_rel, RelOptInfo *rel,
				  GroupPathExtraData *extra)
{
	List	   *kept = NIL;
	AggPath    *final = NULL;
	ListCell   *lc;

	foreach(lc, rel->pathlist)
	{
		Path	   *path = lfirst(lc);
		AggPath    *hashed = hashed_agg(path);

		if (hashed == NULL)
			kept = lappend(kept, path);
		else if (IsA(path, AggPath) && hashed == (AggPath *) path)
			final = hashed;
	}
	if (final == NULL || !groups_to_sort(root, final, input_rel->rows))
		return;
	if (final->numGroups >= GS_PARTIAL_MAX_SHARE * input_rel->rows)
	{
		/* kept less its two-step paths, unless nothing else would remain */
		List	   *once = paths_where(list_copy(kept), two_step_agg, false);

		if (once != NIL)
		{
			list_free(kept);
			kept = once;
		}
	}
	else
		kept = list_concat(kept, sorted_final_paths(root, rel, extra, final));
	/*
	 * Where hashing was the planner's choice, only the paths that sort (in
	 * a Sort, which becomes a GpuSort) replace it: the others, whose input
	 * comes in key order, lost to the hash at their own price, which
	 * GpuSort does not lower.  TPC-H q13 at SF 10 lost its parallel hash
	 * join and hash aggregate to a nested loop over the customer index,
	 * with no sort at all (H200: 5.1 s against stock's 3.9 s).
	 */
	if (kept != NIL && hashed_agg(cheapest_total(rel->pathlist)) != NULL)
		kept = paths_where(kept, sorts_for_grouping, true);
	/* only where another way to group remains */
	if (kept == NIL)
		return;
	rel->pathlist = NIL;
	foreach(lc, kept)
		add_path(rel, (Path *) lfirst(lc));
}

static void
gs_upper_paths(PlannerInfo *root, UpperRelationKind stage,
			   RelOptInfo *input_rel, RelOptInfo *output_rel, void *extra)
{
	if (prev_upper_paths_hook)
		prev_upper_paths_hook(root, stage, input_rel, output_rel, extra);
	if (stage != UPPERREL_GROUP_AGG || !gpusort_enabled ||
		!gpusort_sorted_grouping || !root->parse->hasAggs ||
		root->parse->groupingSets != NIL)
		return;
	drop_hashed_paths(root, input_rel, output_rel, (GroupPathExtraData *) extra);
}

void
gs_group_paths_init(void)
{
	prev_upper_paths_hook = create_upper_paths_hook;
	create_upper_paths_hook = gs_upper_paths;
}
