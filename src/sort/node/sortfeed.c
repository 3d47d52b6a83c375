/*-------------------------------------------------------------------------
 *
 * sortfeed.c
 *	  GpuSortFeed: a CustomScan that returns a GpuSort's rows to the node
 *	  GpuWindow or GpuAgg keeps as its fallback (see sortfeed.h).
 *
 * The feed owns nothing: its source is the GpuWindow's or GpuAgg's input,
 * which that node ends and rescans, starting a new fallback after a
 * rescan.  It returns the GpuSort's slots as they are, so it must not say
 * its result is of one fixed slot type.
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "executor/executor.h"
#include "nodes/extensible.h"

#include "sortfeed.h"
#include "core/sortplan.h"

typedef struct GpuSortFeedState
{
	CustomScanState css;
	PlanState  *source;			/* the GpuSort, set by gs_feed_attach */
} GpuSortFeedState;

static Node *feed_create_state(CustomScan *cscan);
static void feed_begin(CustomScanState *node, EState *estate, int eflags);
static TupleTableSlot *feed_exec(CustomScanState *node);
static void feed_end(CustomScanState *node);
static void feed_rescan(CustomScanState *node);

static const CustomScanMethods feed_plan_methods = {
	.CustomName = GPUSORT_FEED_NAME,
	.CreateCustomScanState = feed_create_state,
};

static const CustomExecMethods feed_exec_methods = {
	.CustomName = GPUSORT_FEED_NAME,
	.BeginCustomScan = feed_begin,
	.ExecCustomScan = feed_exec,
	.EndCustomScan = feed_end,
	.ReScanCustomScan = feed_rescan,
};

void
gs_feed_register(void)
{
	RegisterCustomScanMethods(&feed_plan_methods);
}

Plan *
gs_feed_plan(Plan *gpusort)
{
	CustomScan *feed = makeNode(CustomScan);
	List	   *scan_tlist = gs_plan_column_refs(gpusort->targetlist, OUTER_VAR);

	memcpy(&feed->scan.plan, gpusort, sizeof(Plan));
	feed->scan.plan.type = T_CustomScan;
	feed->scan.plan.qual = NIL;
	feed->scan.plan.initPlan = NIL;
	feed->scan.plan.lefttree = NULL;
	feed->scan.plan.righttree = NULL;
	feed->scan.plan.targetlist = gs_plan_column_refs(scan_tlist, INDEX_VAR);
	feed->scan.scanrelid = 0;
	feed->custom_scan_tlist = scan_tlist;
	feed->methods = &feed_plan_methods;
	return (Plan *) feed;
}

void
gs_feed_attach(PlanState *fallback, PlanState *source)
{
	GpuSortFeedState *feed = (GpuSortFeedState *) outerPlanState(fallback);

	Assert(IsA(feed, CustomScanState) &&
		   feed->css.methods == &feed_exec_methods);
	feed->source = source;
}

static Node *
feed_create_state(CustomScan *cscan)
{
	GpuSortFeedState *node = palloc0(sizeof(GpuSortFeedState));

	NodeSetTag(node, T_CustomScanState);
	node->css.flags = cscan->flags;
	node->css.methods = &feed_exec_methods;
	return (Node *) node;
}

static void
feed_begin(CustomScanState *node, EState *estate, int eflags)
{
	/*
	 * The GpuSort's slots are returned as they are, not the virtual slots a
	 * CustomScan's result is said to be: the fallback must not compile its
	 * expressions for those (an Agg's argument fetches read zeros then).
	 */
	node->ss.ps.resultopsfixed = false;
}

static TupleTableSlot *
feed_exec(CustomScanState *cnode)
{
	GpuSortFeedState *node = (GpuSortFeedState *) cnode;

	return ExecProcNode(node->source);
}

static void
feed_end(CustomScanState *node)
{
	/* the source is the GpuWindow's or GpuAgg's input, which it ends */
}

static void
feed_rescan(CustomScanState *node)
{
	/* the GpuWindow or GpuAgg rescans the source, and starts a new fallback */
}
