/*-------------------------------------------------------------------------
 *
 * sortplan.h
 *	  The plan format of the GpuSort and GpuSortStore CustomScans: what
 *	  planner.c writes into their custom_private and custom_exprs, and
 *	  their executors (sortnode.c, sortpar.c) read back.  See sortplan.c.
 *
 * custom_private is a List of
 *	   0: IntList of sort column numbers (in the input row)
 *	   1: OidList of sort operators (< or >)
 *	   2: OidList of collations
 *	   3: IntList of nulls-first flags (0/1)
 *	   4: GpuSort only: IntList of one GsSortMode: GS_SORT_PARALLEL when
 *		  the input is a Gather over a GpuSortStore (sortpar.c), whose
 *		  participants store the rows in shared memory for the GpuSort to
 *		  sort; GS_SORT_SHARED_RUNS for a GpuSort below a Gather, in each
 *		  participant, that writes its share as sorted runs to the
 *		  query's shared temp files for the GpuSort above the Gather to
 *		  merge (sortshared.c)
 * A GpuSort's custom_exprs is NIL, or the (offset, count) expressions of
 * the Limit that bounds it: the executor does not tell a CustomScan about a
 * LIMIT (ExecSetTupleBound knows only the core nodes), so the node
 * evaluates the Limit's expressions itself to sort only the first offset +
 * count rows.  A GpuSortStore's custom_exprs is NIL.
 *
 *-------------------------------------------------------------------------
 */
#ifndef GPUSORT_SORTPLAN_H
#define GPUSORT_SORTPLAN_H

#include "access/attnum.h"
#include "nodes/pg_list.h"

#define GSP_SORT_COLS		0
#define GSP_SORT_OPS		1
#define GSP_COLLATIONS		2
#define GSP_NULLS_FIRST		3
#define GSP_PARALLEL		4
#define GSP_NFIELDS			5

#define GSE_OFFSET			0
#define GSE_COUNT			1

/* the sort columns of custom_private (fields 0 to 3), as arrays */
typedef struct GsSortColumns
{
	int			n;
	AttrNumber *attnos;
	Oid		   *sortops;
	Oid		   *collations;
	bool	   *nulls_first;
} GsSortColumns;

/* how a GpuSort takes its input (custom_private field 4) */
typedef enum GsSortMode
{
	GS_SORT_SERIAL = 0,			/* reads its input and returns it sorted */
	GS_SORT_PARALLEL = 1,		/* takes the rows GpuSortStores stored */
	GS_SORT_SHARED_RUNS = 2		/* writes runs for the GpuSort above */
} GsSortMode;

/* encoding, for planner.c */
extern List *gs_plan_store_private(const GsSortColumns *cols);
extern List *gs_plan_sort_private(const GsSortColumns *cols, GsSortMode mode);
extern List *gs_plan_sort_exprs(Node *offset, Node *count);
extern void gs_plan_retarget_column(List *custom_private, AttrNumber from,
									AttrNumber to);

/*
 * A targetlist of varno references (OUTER_VAR: the input's columns, as
 * setrefs.c makes a Sort's, Consts kept; INDEX_VAR: the scan tuple's) that
 * returns tlist's columns unchanged
 */
extern List *gs_plan_column_refs(List *tlist, int varno);

/*
 * expr (a targetlist or qual of a WindowAgg or Agg) over the scan tuple of
 * the node that computes its calls (WindowFuncs or Aggrefs, in the list
 * calls) after its input's ninput columns: each input Var becomes the scan
 * tuple's, each call the column holding its value.
 */
extern Node *gs_plan_retarget(Node *expr, List *calls, int ninput);

/*
 * Does a sort of rows of width bytes (the planner's estimates) fit
 * gpusort.max_memory?  Where it does not, a GpuSort writes runs to temp
 * files (sortspill.c), and the nodes that want its rows as an array
 * (GpuAgg, GpuWindow) fall back.
 */
extern bool gs_plan_fits_memory(double rows, int width);

/* decoding, for the executors: cols' arrays are palloc'd */
extern void gs_sort_columns(List *custom_private, GsSortColumns *cols);
extern GsSortMode gs_plan_sort_mode(List *custom_private);

#endif							/* GPUSORT_SORTPLAN_H */
