/*-------------------------------------------------------------------------
 *
 * notused.c
 *	  The reasons a stock Agg or WindowAgg stayed, from plan time to
 *	  EXPLAIN time.
 *
 * The planner rewrite (aggplan.c, windownode.c) decides at plan time why
 * a node stays stock: the settings, the aggregates, the frame and the
 * Sort below as they were then.  EXPLAIN shows it later, often on another
 * copy of the plan: a prepared statement's plan is copied into its
 * CachedPlan's memory (plancache.c copies what the planner returns), and
 * EXPLAIN EXECUTE or auto_explain show that copy.  Nothing of the Agg or
 * WindowAgg node may carry it (the executor reads every field), so the
 * reason is kept here, in the backend, keyed by the node's content: a
 * 64-bit hash of nodeToString() of the node and the plan under it, which
 * any copy of the plan shares.  Nodes of equal content planned under the
 * same settings get the same reason; where the settings changed between
 * two plans of equal content, the later plan's reason is the one kept.
 *
 * The table holds at most GS_NOT_USED_MAX reasons and is emptied when
 * full: EXPLAIN then shows no reason for older plans, and nothing else
 * changes.  Each reason is counted in gpusort_stat when recorded, as the
 * Sorts left to stock are (planner.c): a prepared statement counts once.
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "common/hashfn.h"
#include "mb/pg_wchar.h"
#include "utils/hsearch.h"
#include "utils/memutils.h"

#include "notused.h"

/* reasons kept in one backend before the table is emptied */
#define GS_NOT_USED_MAX		1024

typedef struct NotUsedEntry
{
	uint64		key;			/* the hash of the node's content */
	char		reason[GS_NOT_USED_REASON_LEN];
} NotUsedEntry;

static HTAB *reasons = NULL;

/* the hash of plan's content: its node and every node under it */
static uint64
content_key(const Plan *plan)
{
	char	   *s = nodeToString(plan);
	uint64		key = hash_bytes_extended((const unsigned char *) s,
										  (int) strlen(s), 0);

	pfree(s);
	return key;
}

static void
table_create(void)
{
	HASHCTL		ctl;

	ctl.keysize = sizeof(uint64);
	ctl.entrysize = sizeof(NotUsedEntry);
	ctl.hcxt = TopMemoryContext;
	reasons = hash_create("gpusort not used reasons", 64, &ctl,
						  HASH_ELEM | HASH_BLOBS | HASH_CONTEXT);
}

void
gs_not_used_record(const Plan *plan, GsStatCounter counter, const char *reason)
{
	uint64		key = content_key(plan);
	NotUsedEntry *e;
	int			len;

	gs_stat_count(counter);
	if (reasons != NULL && hash_get_num_entries(reasons) >= GS_NOT_USED_MAX)
	{
		hash_destroy(reasons);
		reasons = NULL;
	}
	if (reasons == NULL)
		table_create();
	e = hash_search(reasons, &key, HASH_ENTER, NULL);
	/* cut at a character's start: the text goes out in EXPLAIN */
	len = pg_mbcliplen(reason, (int) strlen(reason), sizeof(e->reason) - 1);
	memcpy(e->reason, reason, len);
	e->reason[len] = '\0';
}

const char *
gs_not_used_reason(const Plan *plan)
{
	uint64		key;
	NotUsedEntry *e;

	if (reasons == NULL || gs_not_used_label(plan) == NULL)
		return NULL;
	key = content_key(plan);
	e = hash_search(reasons, &key, HASH_FIND, NULL);
	return e ? e->reason : NULL;
}

const char *
gs_not_used_label(const Plan *plan)
{
	if (IsA(plan, Agg))
		return "GpuAgg Not Used";
	if (IsA(plan, WindowAgg))
		return "GpuWindow Not Used";
	return NULL;
}
