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
 * and Limit are in custom_private and custom_exprs (core/sortplan.h).  The
 * sort itself is the core's (core/sortcore.h); this node is its executor
 * glue.
 *
 *-------------------------------------------------------------------------
 */
#ifndef GPUSORT_SORTNODE_H
#define GPUSORT_SORTNODE_H

#include "nodes/extensible.h"

#include "core/sortcore.h"
#include "core/sortplan.h"

extern const CustomScanMethods gpusort_plan_methods;

#endif							/* GPUSORT_SORTNODE_H */
