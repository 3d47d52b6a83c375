/*-------------------------------------------------------------------------
 *
 * sortcore.h
 *	  The sort's core as the nodes above it see it: an opaque sort state
 *	  (GsSort) that takes rows, sorts them and returns them, in the manner
 *	  of PostgreSQL's Tuplesortstate; a parallel intake participant's run
 *	  writer and the shared runs' setup (GpuSortStore).
 *
 * The core (this folder) owns one sort's rows, keys, engines, ties, the
 * strcoll check and repair, runs and their merge; its state is GsSort
 * (sortstate.h, which only the core's files read).  EXPLAIN and
 * statistics read its public part: GsRunInfo (sortinfo.h) through
 * gs_sort_info, and the key's layout in words.  It never
 * sees the plan tree: whoever feeds it pulls the rows.  A GsSort lives as
 * long as its node (gs_sort_begin in the query's memory) and runs one sort
 * at a time:
 *
 *		gs_sort_start		a new sort, bounded or not
 *		gs_sort_put			each input row
 *		gs_sort_perform		the input is done: sort
 *		gs_sort_gettuple	the rows, forwards or backwards
 *		gs_sort_markpos, gs_sort_restorepos, gs_sort_rewind
 *		gs_sort_reset		frees the sort; the next gs_sort_start begins anew
 *		gs_sort_end			frees the sort and the state
 *
 * The GpuSort node (node/sortnode.c) is the executor glue over it: it
 * evaluates a Limit's bound, pulls its child's rows, rescans, marks and
 * explains.  GpuWindow and GpuAgg read a GpuSort's rows as one array
 * (gs_sort_rows_array, through node/sortnode.h's gs_sort_sorted_rows).
 *
 *-------------------------------------------------------------------------
 */
#ifndef GPUSORT_SORTCORE_H
#define GPUSORT_SORTCORE_H

#include "executor/tuptable.h"
#include "nodes/pg_list.h"

#include "sortinfo.h"
#include "sortplan.h"

/* the GpuSort node's name, by which the core knows its plans */
#define GPUSORT_NODE_NAME	"GpuSort"

typedef struct GsSort GsSort;
struct GsSharedRuns;
struct GsStoreState;

/* What a sort is set up from (gs_sort_begin) */
typedef struct GsSortSpec
{
	List	   *columns;		/* the plan's custom_private (sortplan.h) */
	TupleDesc	tupdesc;		/* of the rows put */
	double		est_rows;		/* the planner's estimate of them */
	int			plan_node_id;	/* names a participant's shared runs */
	GsSortMode	mode;			/* how the node takes its input */
	bool		random_access;	/* rewind, backward scan or mark needed */
	bool		forward_only;	/* no backward scan, no mark */
	struct GsStoreState *par;	/* parallel intake below the Gather (a
								 * GsParInput, sortparread.h), or NULL */
	GsSort	   *below;			/* the participants' sort under the Gather
								 * below, whose runs this one merges, or
								 * NULL */
	List	  **tuple_table;	/* the sort's slots join it (the EState's
								 * es_tupleTable, which the executor drops) */
} GsSortSpec;

/*
 * A sort's state, in CurrentMemoryContext, which is the parent of each
 * sort's own memory
 */
extern GsSort *gs_sort_begin(const GsSortSpec *spec);

/*
 * A GS_SORT_SHARED_RUNS sort's shared runs, once the Gather's segment
 * holds them (NULL: none, the runs stay private)
 */
extern void gs_sort_set_shared(GsSort *sort, struct GsSharedRuns *runs);

/*
 * The rows go to a GpuWindow or GpuAgg as one array (gs_sort_rows_array);
 * copy: into output order, where the memory allows.  Before the sort.
 */
extern void gs_sort_as_array(GsSort *sort, bool copy);

/*
 * A new sort: bound > 0 keeps only the first bound rows (a Limit's), timed
 * counts the time spent returning rows, for EXPLAIN ANALYZE
 */
extern void gs_sort_start(GsSort *sort, int64 bound, bool timed);
extern void gs_sort_put(GsSort *sort, TupleTableSlot *slot);
extern void gs_sort_perform(GsSort *sort);

/* sorted (gs_sort_perform ran since the last reset)? */
extern bool gs_sort_is_sorted(GsSort *sort);
/* the current sort's bound, false when unbounded */
extern bool gs_sort_bounded(GsSort *sort, int64 *bound);

/* the next row into slot (cleared at the end); false at the end */
extern bool gs_sort_gettuple(GsSort *sort, bool forward, TupleTableSlot *slot);
extern void gs_sort_markpos(GsSort *sort);
extern void gs_sort_restorepos(GsSort *sort);

/*
 * Back to the first row; false, with nothing done, where the rows cannot
 * be read again (the caller resets and sorts again)
 */
extern bool gs_sort_rewind(GsSort *sort);

extern void gs_sort_reset(GsSort *sort);
extern void gs_sort_end(GsSort *sort);

/*
 * The sorted rows as one array in output order (after gs_sort_perform);
 * false when they are not held in memory (a tuplesort, runs in temp files,
 * a row stream), whose rows only come one at a time.  The rows stay the
 * sort's until it is reset.
 */
extern bool gs_sort_rows_array(GsSort *sort, MinimalTuple **rows, uint64 *n);

/*
 * For EXPLAIN: the last sort's figures (sortinfo.h; valid: a sort
 * started), the row stream's taken now; the key's layout in words, the
 * sort columns named names[], or NULL where the sort has no key (tuplesort
 * sorted)
 */
extern const GsRunInfo *gs_sort_info(GsSort *sort);
extern char *gs_sort_describe_keys(GsSort *sort, const char **names);

/*
 * Bytes a GpuSort's budget counts per stored row besides the row itself,
 * when every raw key (of raw_bytes) is kept
 */
extern Size gs_sort_row_bytes(int raw_bytes);

/*
 * The participants' sorted runs in the query's shared files (sortshared.c),
 * in a Gather's DSM segment: its size for n participants (the leader and
 * the planned workers), and the setup of the leader (false: no shared
 * files, parallel.c made no segment), of a rescan (the runs go) and of a
 * worker (false: no shared files)
 */
struct ParallelContext;
extern Size gs_shared_runs_size(int nparticipants);
extern bool gs_shared_runs_init(struct GsSharedRuns *sh,
								struct ParallelContext *pcxt);
extern bool gs_shared_runs_reinit(struct GsSharedRuns *sh);
extern bool gs_shared_runs_attach(struct GsSharedRuns *sh);

/*
 * A run writer for a parallel intake participant (sortpar.c, sortstore.c):
 * a sort set up from spec whose runs, all of them, go to the shared files
 * runs; create once, then per share start, put every row, finish; rows of
 * its tuplesort fallback come from next; end frees it all.
 */
extern GsSort *gs_writer_create(const GsSortSpec *spec,
								struct GsSharedRuns *runs);
extern void gs_writer_start(GsSort *sort);
extern void gs_writer_put(GsSort *sort, TupleTableSlot *slot);
extern void gs_writer_finish(GsSort *sort);
extern TupleTableSlot *gs_writer_next(GsSort *sort);
extern void gs_writer_counts(GsSort *sort, int *nruns,
							 uint64 *rows, uint64 *bytes);
extern void gs_writer_end(GsSort *sort);

#endif							/* GPUSORT_SORTCORE_H */
