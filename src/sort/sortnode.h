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
 * input rows unchanged, as a Sort does.
 *
 * custom_private is a List of
 *	   0: IntList of sort column numbers (in the input row)
 *	   1: OidList of sort operators (< or >)
 *	   2: OidList of collations
 *	   3: IntList of nulls-first flags (0/1)
 *	   4: IntList of one flag: 1 when the input is a Gather over a
 *		  GpuSortStore (sortpar.c), whose participants store the rows in
 *		  shared memory for this node to sort
 * custom_exprs is NIL, or the (offset, count) expressions of the Limit that
 * bounds this sort: the executor does not tell a CustomScan about a LIMIT
 * (ExecSetTupleBound knows only the core nodes), so the node evaluates the
 * Limit's expressions itself to sort only the first offset + count rows.
 *
 *-------------------------------------------------------------------------
 */
#ifndef GPUSORT_SORTNODE_H
#define GPUSORT_SORTNODE_H

#include "nodes/extensible.h"

#define GPUSORT_NODE_NAME	"GpuSort"

#define GSP_SORT_COLS		0
#define GSP_SORT_OPS		1
#define GSP_COLLATIONS		2
#define GSP_NULLS_FIRST		3
#define GSP_PARALLEL		4
#define GSP_NFIELDS			5

#define GSE_OFFSET			0
#define GSE_COUNT			1

extern const CustomScanMethods gpusort_plan_methods;

/* the sort columns of custom_private (fields 0 to 3), as palloc'd arrays */
typedef struct GsSortColumns
{
	int			n;
	AttrNumber *attnos;
	Oid		   *sortops;
	Oid		   *collations;
	bool	   *nulls_first;
} GsSortColumns;

extern void gs_sort_columns(List *custom_private, GsSortColumns *cols);

/* a GpuSort's sorted rows as one array (sortnode.c), for GpuWindow */
struct PlanState;
extern bool gs_sort_sorted_rows(struct PlanState *ps, MinimalTuple **rows,
								uint64 *n);

#endif							/* GPUSORT_SORTNODE_H */
