/*-------------------------------------------------------------------------
 *
 * sortnode.h
 *	  The GpuSort CustomScan: what planner.c builds and sortnode.c runs.
 *
 * A GpuSort plan node stands where a Sort stood (or a Gather Merge over a
 * Sort, see planner.c) and keeps that Sort's Plan header: costs, rows,
 * initPlans and the allParam/extParam sets that make rescans work.  Its
 * input is plan.lefttree (so EXPLAIN and the deparser treat it as the
 * node's outer plan, as they do a Sort's).  Its scan tuple is the input
 * row: custom_scan_tlist holds OUTER_VAR references to every input column
 * and the targetlist INDEX_VAR references to those, so the node returns the
 * input rows unchanged, as a Sort does.  Its sort columns, parallel input
 * and Limit are in custom_private and custom_exprs (sortplan.h).
 *
 *-------------------------------------------------------------------------
 */
#ifndef GPUSORT_SORTNODE_H
#define GPUSORT_SORTNODE_H

#include "nodes/extensible.h"

#include "sortplan.h"

#define GPUSORT_NODE_NAME	"GpuSort"

extern const CustomScanMethods gpusort_plan_methods;

/*
 * a GpuSort's sorted rows as one array (sortnode.c), for GpuWindow and
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

#endif							/* GPUSORT_SORTNODE_H */
