/*-------------------------------------------------------------------------
 *
 * sortexplain.c
 *	  EXPLAIN of the GpuSort node: the Sort Key line as a Sort's, and under
 *	  ANALYZE what the last sort did (engine, key layout, rows, ties,
 *	  memory, parallel intake, times, GPU transfers, or why tuplesort ran).
 *
 * The Sort Key is deparsed from the plan's target list with the sort
 * columns' COLLATE, DESC, USING and NULLS options exactly as explain.c
 * prints a Sort's, so that plans read the same with GpuSort on; the text
 * format prints one line per topic, the other formats one property per
 * value.  Everything shown comes from the sort's public part: its
 * GsRunInfo (core/sortinfo.h), which the core fills while it sorts (the
 * row stream's figures, which grow while rows are returned, are taken when
 * EXPLAIN asks for them: gs_sort_info), and the key layout in words
 * (gs_sort_describe_keys); the sort columns come from the plan.
 *
 * Split from sortnode.c: it changes when EXPLAIN's output changes, not
 * when the sort does.
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "nodes/nodeFuncs.h"
#include "parser/parsetree.h"
#include "utils/builtins.h"
#include "utils/lsyscache.h"
#include "utils/ruleutils.h"
#include "utils/typcache.h"

#include "base/compat.h"
#include "sortnode.h"
#include "core/sortcore.h"
#include "core/sortplan.h"

/* COLLATE, DESC, USING, NULLS FIRST/LAST as explain.c prints them */
static void
show_sortorder_options(StringInfo buf, Node *sortexpr, Oid sortop,
					   Oid collation, bool nulls_first)
{
	Oid			sortcoltype = exprType(sortexpr);
	bool		reverse = false;
	TypeCacheEntry *typentry;

	typentry = lookup_type_cache(sortcoltype, TYPECACHE_LT_OPR | TYPECACHE_GT_OPR);

	if (OidIsValid(collation) && collation != get_typcollation(sortcoltype))
	{
		char	   *collname = get_collation_name(collation);

		if (collname == NULL)
			elog(ERROR, "cache lookup failed for collation %u", collation);
		appendStringInfo(buf, " COLLATE %s", quote_identifier(collname));
	}
	if (sortop == typentry->gt_opr)
	{
		appendStringInfoString(buf, " DESC");
		reverse = true;
	}
	else if (sortop != typentry->lt_opr)
	{
		char	   *opname = get_opname(sortop);

		if (opname == NULL)
			elog(ERROR, "cache lookup failed for operator %u", sortop);
		appendStringInfo(buf, " USING %s", opname);
		(void) get_equality_op_for_ordering_op(sortop, &reverse);
	}
	if (nulls_first && !reverse)
		appendStringInfoString(buf, " NULLS FIRST");
	else if (!nulls_first && reverse)
		appendStringInfoString(buf, " NULLS LAST");
}

/* the sort key expressions, deparsed as EXPLAIN does for a Sort */
static List *
sort_key_names(const GsSortColumns *cols, Plan *plan, List *ancestors,
			   ExplainState *es, bool with_options)
{
	List	   *context;
	bool		useprefix;
	List	   *result = NIL;
	int			k;

	context = set_deparse_context_plan(es->deparse_cxt, plan, ancestors);
	useprefix = (gs_explain_rtable_size(es) > 1 || es->verbose);
	for (k = 0; k < cols->n; k++)
	{
		TargetEntry *tle = get_tle_by_resno(plan->targetlist, cols->attnos[k]);
		StringInfoData buf;

		if (tle == NULL)
			elog(ERROR, "no tlist entry for key %d", cols->attnos[k]);
		initStringInfo(&buf);
		appendStringInfoString(&buf,
							   deparse_expression((Node *) tle->expr, context,
												  useprefix, true));
		if (with_options)
			show_sortorder_options(&buf, (Node *) tle->expr, cols->sortops[k],
								   cols->collations[k], cols->nulls_first[k]);
		result = lappend(result, buf.data);
	}
	return result;
}

static void
explain_line(ExplainState *es, const char *fmt,...) pg_attribute_printf(2, 3);

static void
explain_line(ExplainState *es, const char *fmt,...)
{
	va_list		args;

	appendStringInfoSpaces(es->str, es->indent * 2);
	for (;;)
	{
		int			needed;

		va_start(args, fmt);
		needed = appendStringInfoVA(es->str, fmt, args);
		va_end(args);
		if (needed == 0)
			break;
		enlargeStringInfo(es->str, needed);
	}
	appendStringInfoChar(es->str, '\n');
}

/* the text format's line of rows, ties and memory */
static void
explain_text_rows(const GsRunInfo *info, ExplainState *es)
{
	StringInfoData buf;

	initStringInfo(&buf);
	appendStringInfo(&buf, "Rows: " UINT64_FORMAT " sorted", info->rows_sorted);
	if (info->bound > 0)
		appendStringInfo(&buf, " (top " INT64_FORMAT ", " UINT64_FORMAT
						 " dropped early)", info->bound,
						 info->rows_dropped);
	appendStringInfo(&buf, "  Ties: " UINT64_FORMAT " groups, " UINT64_FORMAT
					 " rows  Memory: %zukB", info->tie_groups,
					 info->tie_rows, (info->peak_bytes + 1023) / 1024);
	if (info->prefaulted > 0)
		appendStringInfo(&buf, " (%zukB faulted in ahead)",
						 (info->prefaulted + 1023) / 1024);
	if (info->reused > 0)
		appendStringInfo(&buf, " (%zukB kept from earlier sorts)",
						 (info->reused + 1023) / 1024);
	if (info->reserved_bytes > 0)
		appendStringInfo(&buf, "  Reserved: %zukB",
						 (info->reserved_bytes + 1023) / 1024);
	explain_line(es, "%s", buf.data);
}

/* the text format's lines of the ties' refinement and the strcoll check */
static void
explain_text_keys(const GsRunInfo *info, ExplainState *es)
{
	if (info->refine_capped_groups > 0 && info->refine_groups == 0)
		explain_line(es, "Refined: 0 groups; " UINT64_FORMAT " groups, " UINT64_FORMAT " rows left to the comparators, which cost less",
					 info->refine_capped_groups, info->refine_capped_rows);
	else if (info->refine_capped_groups > 0)
		explain_line(es, "Refined: " UINT64_FORMAT " groups, " UINT64_FORMAT " rows ordered by the next bytes of their transform (" UINT64_FORMAT " rounds); " UINT64_FORMAT " groups, " UINT64_FORMAT " rows left to the comparators, which cost less",
					 info->refine_groups, info->refine_rows,
					 info->refine_rounds, info->refine_capped_groups,
					 info->refine_capped_rows);
	else if (info->refine_groups > 0)
		explain_line(es, "Refined: " UINT64_FORMAT " groups, " UINT64_FORMAT " rows ordered by the next bytes of their transform (" UINT64_FORMAT " rounds)",
					 info->refine_groups, info->refine_rows,
					 info->refine_rounds);
	if (info->later_groups > 0 && info->later_left_rows > 0)
		explain_line(es, "Later columns: " UINT64_FORMAT " groups, " UINT64_FORMAT " rows ordered by their keys on threads; " UINT64_FORMAT " rows of equal keys left to the comparators",
					 info->later_groups, info->later_rows,
					 info->later_left_rows);
	else if (info->later_groups > 0)
		explain_line(es, "Later columns: " UINT64_FORMAT " groups, " UINT64_FORMAT " rows ordered by their keys on threads",
					 info->later_groups, info->later_rows);
	if (info->coll_groups > 0)
		explain_line(es, "Collated: " UINT64_FORMAT " groups, " UINT64_FORMAT " rows ordered by their collation on threads",
					 info->coll_groups, info->coll_rows);
	if (info->verified && info->verify_resorted)
		explain_line(es, "Verified: " UINT64_FORMAT " pairs ordered by the strxfrm prefix compared with strcoll, " UINT64_FORMAT " out of order: every row sorted again by the comparators",
					 info->verify_pairs, info->verify_bad);
	else if (info->verified && info->verify_bad > 0)
		explain_line(es, "Verified: " UINT64_FORMAT " pairs ordered by the strxfrm prefix compared with strcoll, " UINT64_FORMAT " out of order: repaired locally, " UINT64_FORMAT " runs merged with " UINT64_FORMAT " comparisons",
					 info->verify_pairs, info->verify_bad,
					 info->repair_runs, info->repair_compares);
	else if (info->verified)
		explain_line(es, "Verified: " UINT64_FORMAT " pairs ordered by the strxfrm prefix compared with strcoll, 0 out of order",
					 info->verify_pairs);
}

/* the text format's line of the parallel intake */
static void
explain_text_intake(const GsRunInfo *info, ExplainState *es)
{
	if (es->timing && info->streamed)
		explain_line(es, "Parallel Intake: " UINT64_FORMAT " rows stored by %d participants in shared memory (%zukB), taken in %.3f ms, %zukB copied in output order while returned (threads: %d, waited %.3f ms)",
					 info->par_rows, info->par_parts,
					 (info->par_bytes + 1023) / 1024, info->ms_absorb,
					 (info->copied_bytes + 1023) / 1024,
					 info->stream_threads, info->ms_stream_wait);
	else if (es->timing)
		explain_line(es, "Parallel Intake: " UINT64_FORMAT " rows stored by %d participants in shared memory (%zukB), taken in %.3f ms, %zukB copied in output order in %.3f ms",
					 info->par_rows, info->par_parts,
					 (info->par_bytes + 1023) / 1024, info->ms_absorb,
					 (info->copied_bytes + 1023) / 1024, info->ms_copy);
	else
		explain_line(es, "Parallel Intake: " UINT64_FORMAT " rows stored by %d participants in shared memory",
					 info->par_rows, info->par_parts);
}

/* the text format's line of the runs in temp files (sortspill.c) */
static void
explain_text_spill(const GsRunInfo *info, ExplainState *es)
{
	const char *into = info->spill_stored ?
		" into a tuplestore for backward scans and marks" : "";
	char		passes[64] = "";
	char		par[128] = "";

	if (info->merge_passes > 0)
		snprintf(passes, sizeof(passes), " (%d intermediate merge%s)",
				 info->merge_passes, info->merge_passes > 1 ? "s" : "");
	/*
	 * the batched merge on threads (spillbatch.c): whether it runs depends
	 * on the machine's cores, so it is told with the timing only
	 */
	if (es->timing && info->merge_batches > 0)
		snprintf(par, sizeof(par), " (batched merge: threads %d, batches " UINT64_FORMAT ", key ranges " UINT64_FORMAT ", waited for batches %.3f ms)",
				 info->merge_threads, info->merge_batches, info->merge_ranges,
				 info->ms_merge_waited);
	if (info->runs_shared)
	{
		/* a participant's GpuSort: its runs are merged above the Gather */
		if (es->timing)
			explain_line(es, "Spill: %d runs, " UINT64_FORMAT "kB written in %.3f ms to shared files",
						 info->spill_runs, (info->spill_bytes + 1023) / 1024,
						 info->ms_spill);
		else
			explain_line(es, "Spill: %d runs, " UINT64_FORMAT "kB written to shared files",
						 info->spill_runs, (info->spill_bytes + 1023) / 1024);
		return;
	}
	if (info->shared_runs > 0)
	{
		/* the merger of the participants' runs (and of any of its own) */
		if (es->timing)
			explain_line(es, "Spill: %d runs of %d participants, " UINT64_FORMAT "kB (each sorted and written in %.3f ms at most), %d runs of its own, merged %d ways%s in %.3f ms%s%s",
						 info->shared_runs, info->shared_parts,
						 (info->shared_bytes + 1023) / 1024, info->ms_shared,
						 info->spill_runs, info->merge_ways, passes,
						 info->ms_merge, par, into);
		else
			explain_line(es, "Spill: %d runs of %d participants, %d runs of its own, merged %d ways%s%s%s",
						 info->shared_runs, info->shared_parts, info->spill_runs,
						 info->merge_ways, passes, par, into);
		return;
	}
	if (es->timing)
		explain_line(es, "Spill: %d runs, " UINT64_FORMAT "kB written in %.3f ms, merged %d ways%s in %.3f ms%s%s",
					 info->spill_runs, (info->spill_bytes + 1023) / 1024,
					 info->ms_spill, info->merge_ways, passes, info->ms_merge,
					 par, into);
	else
		explain_line(es, "Spill: %d runs, " UINT64_FORMAT "kB written, merged %d ways%s%s%s",
					 info->spill_runs, (info->spill_bytes + 1023) / 1024,
					 info->merge_ways, passes, par, into);
}

/* the text format's lines of times and of the GPU's work */
static void
explain_text_times(const GsRunInfo *info, ExplainState *es)
{
	if (es->timing && info->used_tuplesort)
		explain_line(es, "Sort Times: sort %.3f ms", info->ms_sort);
	else if (es->timing && info->verified)
		explain_line(es, "Sort Times: keys %.3f ms, sort %.3f ms, ties %.3f ms, verify %.3f ms, emit %.3f ms",
					 info->ms_keys, info->ms_sort, info->ms_ties,
					 info->ms_verify, info->ms_emit);
	else if (es->timing)
		explain_line(es, "Sort Times: keys %.3f ms, sort %.3f ms, ties %.3f ms, emit %.3f ms",
					 info->ms_keys, info->ms_sort, info->ms_ties, info->ms_emit);
	if (!info->used_tuplesort && info->engine.bytes_h2d > 0)
	{
		explain_line(es, "GPU: %d buckets, " UINT64_FORMAT " bytes to device, "
					 UINT64_FORMAT " bytes from device",
					 info->engine.nbuckets, info->engine.bytes_h2d,
					 info->engine.bytes_d2h);
		if (es->timing)
			explain_line(es, "GPU Times: to device %.3f ms, sort %.3f ms, from device %.3f ms",
						 info->engine.ms_h2d, info->engine.ms_sort,
						 info->engine.ms_d2h);
	}
}

static void
explain_text(const GsRunInfo *info, ExplainState *es, const char *engine,
			 const char *keydesc)
{
	if (info->used_tuplesort)
	{
		explain_line(es, "GpuSort: tuplesort (%s)", info->fallback);
		explain_line(es, "Sort Method: %s  %s: " INT64_FORMAT "kB",
					 tuplesort_method_name(info->tsstats.sortMethod),
					 tuplesort_space_type_name(info->tsstats.spaceType),
					 info->tsstats.spaceUsed);
	}
	else
	{
		explain_line(es, "GpuSort: %s, key %s", engine, keydesc);
		if (info->engine.fallback[0])
			explain_line(es, "GPU Not Used: %s", info->engine.fallback);
		explain_text_rows(info, es);
		explain_text_keys(info, es);
		if (info->par_rows > 0)
			explain_text_intake(info, es);
		if (info->spill_runs > 0 || info->shared_runs > 0 || info->runs_shared)
			explain_text_spill(info, es);
	}
	explain_text_times(info, es);
}

/* the other formats' properties of the ties' refinement and the strcoll check */
static void
explain_structured_refine(const GsRunInfo *info, ExplainState *es)
{
	if (info->refine_groups > 0 || info->refine_capped_groups > 0)
	{
		ExplainPropertyUInteger("Refined Groups", NULL, info->refine_groups, es);
		ExplainPropertyUInteger("Refined Rows", NULL, info->refine_rows, es);
		ExplainPropertyUInteger("Refine Rounds", NULL, info->refine_rounds, es);
		ExplainPropertyUInteger("Groups Left To Comparators", NULL,
								info->refine_capped_groups, es);
		ExplainPropertyUInteger("Rows Left To Comparators", NULL,
								info->refine_capped_rows, es);
	}
	if (info->later_groups > 0)
	{
		ExplainPropertyUInteger("Later Column Groups", NULL,
								info->later_groups, es);
		ExplainPropertyUInteger("Later Column Rows", NULL, info->later_rows, es);
		ExplainPropertyUInteger("Later Column Rows Left To Comparators", NULL,
								info->later_left_rows, es);
	}
	if (info->coll_groups > 0)
	{
		ExplainPropertyUInteger("Collated Groups", NULL, info->coll_groups, es);
		ExplainPropertyUInteger("Collated Rows", NULL, info->coll_rows, es);
	}
	if (info->verified)
	{
		ExplainPropertyUInteger("Verified Pairs", NULL, info->verify_pairs, es);
		ExplainPropertyUInteger("Verified Pairs Out Of Order", NULL,
								info->verify_bad, es);
		ExplainPropertyUInteger("Repair Runs Merged", NULL,
								info->repair_runs, es);
		ExplainPropertyUInteger("Repair Comparisons", NULL,
								info->repair_compares, es);
		ExplainPropertyBool("Resorted By Comparators",
							info->verify_resorted, es);
	}
}

/* the other formats' properties of memory */
static void
explain_structured_memory(const GsRunInfo *info, ExplainState *es)
{
	ExplainPropertyUInteger("Memory Used", "kB",
							(info->peak_bytes + 1023) / 1024, es);
	ExplainPropertyUInteger("Memory Faulted In Ahead", "kB",
							(info->prefaulted + 1023) / 1024, es);
	if (info->reused > 0)
		ExplainPropertyUInteger("Memory Kept From Earlier Sorts", "kB",
								(info->reused + 1023) / 1024, es);
	if (info->reserved_bytes > 0)
		ExplainPropertyUInteger("Memory Reserved", "kB",
								(info->reserved_bytes + 1023) / 1024, es);
}

/* the other formats' properties of the parallel intake */
static void
explain_structured_intake(const GsRunInfo *info, ExplainState *es)
{
	ExplainPropertyUInteger("Parallel Rows", NULL, info->par_rows, es);
	ExplainPropertyInteger("Parallel Participants", NULL, info->par_parts, es);
	ExplainPropertyUInteger("Parallel Memory", "kB",
							(info->par_bytes + 1023) / 1024, es);
	if (es->timing)
		ExplainPropertyFloat("Time Taking Parallel Rows", "ms",
							 info->ms_absorb, 3, es);
}

/* the other formats' properties of the runs in temp files (sortspill.c) */
static void
explain_structured_spill(const GsRunInfo *info, ExplainState *es)
{
	ExplainPropertyInteger("Spill Runs", NULL, info->spill_runs, es);
	ExplainPropertyBool("Runs To Shared Files", info->runs_shared, es);
	ExplainPropertyInteger("Participants' Runs", NULL, info->shared_runs, es);
	ExplainPropertyUInteger("Participants' Runs Size", "kB",
							(info->shared_bytes + 1023) / 1024, es);
	ExplainPropertyUInteger("Spill Written", "kB",
							(info->spill_bytes + 1023) / 1024, es);
	ExplainPropertyInteger("Merge Ways", NULL, info->merge_ways, es);
	ExplainPropertyInteger("Merge Passes", NULL, info->merge_passes, es);
	/* the batched merge's (spillbatch.c); 0 for the tree of losers */
	ExplainPropertyInteger("Merge Threads", NULL, info->merge_threads, es);
	ExplainPropertyUInteger("Merge Batches", NULL, info->merge_batches, es);
	ExplainPropertyUInteger("Merge Key Ranges", NULL, info->merge_ranges, es);
	ExplainPropertyBool("Merged Into Tuplestore", info->spill_stored, es);
	if (es->timing)
	{
		ExplainPropertyFloat("Time Writing Runs", "ms", info->ms_spill, 3, es);
		ExplainPropertyFloat("Time Merging", "ms", info->ms_merge, 3, es);
		ExplainPropertyFloat("Time Waiting For Batches", "ms",
							 info->ms_merge_waited, 3, es);
	}
}

/* the other formats' properties of a sort by keys */
static void
explain_structured_keys(const GsRunInfo *info, ExplainState *es,
						const char *keydesc)
{
	if (info->engine.fallback[0])
		ExplainPropertyText("GPU Not Used", info->engine.fallback, es);
	ExplainPropertyText("GpuSort Key", keydesc, es);
	ExplainPropertyUInteger("Sorted Rows", NULL, info->rows_sorted, es);
	if (info->bound > 0)
	{
		ExplainPropertyInteger("Bound", NULL, info->bound, es);
		ExplainPropertyUInteger("Dropped Rows", NULL, info->rows_dropped, es);
		ExplainPropertyInteger("Bound Prunes", NULL, info->nprunes, es);
	}
	ExplainPropertyUInteger("Tie Groups", NULL, info->tie_groups, es);
	ExplainPropertyUInteger("Tie Rows", NULL, info->tie_rows, es);
	explain_structured_refine(info, es);
	explain_structured_memory(info, es);
	if (info->par_rows > 0)
		explain_structured_intake(info, es);
	if (info->spill_runs > 0 || info->shared_runs > 0 || info->runs_shared)
		explain_structured_spill(info, es);
	if (info->engine.bytes_h2d > 0)
	{
		ExplainPropertyInteger("GPU Buckets", NULL, info->engine.nbuckets, es);
		ExplainPropertyUInteger("GPU Bytes To Device", NULL, info->engine.bytes_h2d, es);
		ExplainPropertyUInteger("GPU Bytes From Device", NULL, info->engine.bytes_d2h, es);
	}
}

/* the other formats' times */
static void
explain_structured_times(const GsRunInfo *info, ExplainState *es)
{
	ExplainPropertyFloat("Time Building Keys", "ms", info->ms_keys, 3, es);
	ExplainPropertyFloat("Time Sorting", "ms", info->ms_sort, 3, es);
	ExplainPropertyFloat("Time Settling Ties", "ms", info->ms_ties, 3, es);
	if (info->verified)
		ExplainPropertyFloat("Time Verifying", "ms", info->ms_verify, 3, es);
	ExplainPropertyFloat("Time Emitting", "ms", info->ms_emit, 3, es);
	if (!info->used_tuplesort && info->engine.bytes_h2d > 0)
	{
		ExplainPropertyFloat("GPU Time To Device", "ms", info->engine.ms_h2d, 3, es);
		ExplainPropertyFloat("GPU Time Sorting", "ms", info->engine.ms_sort, 3, es);
		ExplainPropertyFloat("GPU Time From Device", "ms", info->engine.ms_d2h, 3, es);
	}
}

static void
explain_structured(const GsRunInfo *info, ExplainState *es,
				   const char *engine, const char *keydesc)
{
	ExplainPropertyText("GpuSort Engine", engine, es);
	if (info->used_tuplesort)
	{
		ExplainPropertyText("GpuSort Fallback", info->fallback, es);
		ExplainPropertyText("Sort Method",
							tuplesort_method_name(info->tsstats.sortMethod), es);
		ExplainPropertyInteger("Sort Space Used", "kB", info->tsstats.spaceUsed, es);
		ExplainPropertyText("Sort Space Type",
							tuplesort_space_type_name(info->tsstats.spaceType), es);
	}
	else
		explain_structured_keys(info, es, keydesc);
	if (es->timing)
		explain_structured_times(info, es);
}

/* the key layout in words, with the sort columns' names, or NULL */
static char *
describe_keys(GsSort *sort, const GsSortColumns *cols, Plan *plan,
			  List *ancestors, ExplainState *es)
{
	List	   *names = sort_key_names(cols, plan, ancestors, es, false);
	const char **arr = palloc(sizeof(char *) * cols->n);
	int			k = 0;
	ListCell   *lc;

	foreach(lc, names)
		arr[k++] = lfirst(lc);
	return gs_sort_describe_keys(sort, arr);
}

void
gs_sort_explain(CustomScanState *cnode, List *ancestors, ExplainState *es)
{
	GsSort	   *sort = ((GpuSortState *) cnode)->sort;
	Plan	   *plan = cnode->ss.ps.plan;
	const GsRunInfo *info;
	GsSortColumns cols;
	const char *engine;
	char	   *keydesc = NULL;

	gs_sort_columns(((CustomScan *) plan)->custom_private, &cols);
	ExplainPropertyList("Sort Key",
						sort_key_names(&cols, plan, ancestors, es, true), es);

	/* the row stream's figures grow while rows are returned: taken now */
	info = gs_sort_info(sort);
	if (!es->analyze || !info->valid)
		return;

	engine = info->used_tuplesort ? "tuplesort" :
		(info->have_engine && info->engine.engine) ? info->engine.engine :
		info->shared_runs > 0 ? "merge of the participants' runs" :
		info->rows_passed > 0 ? "none, the rows passed on unsorted to the GpuSort above" : "?";
	if (!info->used_tuplesort)
		keydesc = describe_keys(sort, &cols, plan, ancestors, es);
	if (es->format == EXPLAIN_FORMAT_TEXT)
		explain_text(info, es, engine, keydesc);
	else
		explain_structured(info, es, engine, keydesc);
}
