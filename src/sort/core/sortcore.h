/*-------------------------------------------------------------------------
 *
 * sortcore.h
 *	  What the nodes above the sort's core call: a GpuSort's sorted rows as
 *	  an array (GpuWindow, GpuAgg), a parallel intake participant's run
 *	  writer and the shared runs' setup (GpuSortStore).
 *
 * The core (this folder) owns one sort's rows, keys, engines, ties, the
 * strcoll check and repair, runs and their merge; its state is
 * sortstate.h's GpuSortState, which the GpuSort node (node/sortnode.c)
 * embeds as its CustomScanState.  The node is executor glue: it starts a
 * sort (gs_sort_run), returns its rows, rescans and marks; everything
 * else reaches the core through this header.
 *
 *-------------------------------------------------------------------------
 */
#ifndef GPUSORT_SORTCORE_H
#define GPUSORT_SORTCORE_H

#include "nodes/extensible.h"

/* the GpuSort node's name, by which the core knows its state */
#define GPUSORT_NODE_NAME	"GpuSort"

/*
 * a GpuSort's sorted rows as one array (sortstore.c), for GpuWindow and
 * GpuAgg; copy: into output order, where the memory allows
 */
struct PlanState;
extern bool gs_sort_sorted_rows(struct PlanState *ps, MinimalTuple **rows,
								uint64 *n, bool copy);

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
struct GsSharedRuns;
struct ParallelContext;
extern Size gs_shared_runs_size(int nparticipants);
extern bool gs_shared_runs_init(struct GsSharedRuns *sh,
								struct ParallelContext *pcxt);
extern bool gs_shared_runs_reinit(struct GsSharedRuns *sh);
extern bool gs_shared_runs_attach(struct GsSharedRuns *sh);

/*
 * A run writer for a parallel intake participant (sortpar.c, sortstore.c):
 * create once, then per share start, put every row, finish; rows of its
 * tuplesort fallback come from next; end frees it all.
 */
struct GpuSortState;
struct CustomScanState;
struct TupleTableSlot;
extern struct GpuSortState *gs_writer_create(struct CustomScanState *owner,
											 struct GsSharedRuns *runs);
extern void gs_writer_start(struct GpuSortState *node);
extern void gs_writer_put(struct GpuSortState *node, struct TupleTableSlot *slot);
extern void gs_writer_finish(struct GpuSortState *node);
extern struct TupleTableSlot *gs_writer_next(struct GpuSortState *node);
extern void gs_writer_counts(struct GpuSortState *node, int *nruns,
							 uint64 *rows, uint64 *bytes);
extern void gs_writer_end(struct GpuSortState *node);

#endif							/* GPUSORT_SORTCORE_H */
