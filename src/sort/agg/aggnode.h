/*-------------------------------------------------------------------------
 *
 * aggnode.h
 *	  The GpuAgg CustomScan: its plan format, which aggplan.c writes, and
 *	  its executor (aggnode.c), which reads it.
 *
 * A GpuAgg plan node stands where the Agg stood and keeps its Plan header;
 * its input (plan.lefttree) is a GpuSort sorting the Agg's input by the
 * group columns and then by the one column the aggregates sort on.  Its
 * scan tuple is the group's first input row followed by one column per
 * aggregate: custom_scan_tlist holds OUTER_VAR references to every input
 * column, then the Aggrefs (so EXPLAIN VERBOSE names them), and the
 * targetlist and qual (HAVING) are the Agg's with its input columns and
 * Aggrefs turned into INDEX_VAR references to those.  A GpuAgg over bare
 * values (aggvalues.c) has the same format over the Agg's own input, no
 * GpuSort, and its scan tuple's input columns are NULL (a plain Agg reads
 * none outside its aggregates).
 *
 * custom_private is a List of
 *	   0: the Agg itself, over a GpuSortFeed node that hands it the GpuSort's
 *		  rows: the fallback, run when the rows do not come as an array (runs
 *		  in temp files, a tuplesort) or the results cannot be given memory;
 *		  and the source of the group columns and their equality operators
 *	   1: List of the Aggrefs the node computes, in scan tuple order
 *		  (gs_agg_func_from_aggref reads them again at run time)
 *	   2: present (an Integer, GSAP_VALUES_MODE) only in a GpuAgg over bare
 *		  values (aggvalues.c): a plain Agg's DISTINCT aggregates of one
 *		  integer column, whose input is the Agg's own (no GpuSort), and
 *		  whose element 0 is NULL: it has no fallback, the values that do
 *		  not fit in memory going to a tuplesort of its own
 *
 *-------------------------------------------------------------------------
 */
#ifndef GPUSORT_AGGNODE_H
#define GPUSORT_AGGNODE_H

#include "nodes/extensible.h"

#define GPUAGG_NODE_NAME	"GpuAgg"

#define GSAP_FALLBACK	0
#define GSAP_AGGREFS	1
#define GSAP_VALUES		2

#define GSAP_VALUES_MODE	1

extern const CustomScanMethods gpuagg_plan_methods;

/*
 * aggvalues.c: may a GpuAgg over bare values take a column of this type
 * and DISTINCT equality?  Its executor state, for aggnode.c's
 * CreateCustomScanState.
 */
extern bool gs_agg_values_type_ok(Oid type, Oid eqop);
extern Node *gs_agg_values_create_state(CustomScan *cscan);

/* registers the plan methods (at load) */
extern void gs_agg_register(void);

#endif							/* GPUSORT_AGGNODE_H */
