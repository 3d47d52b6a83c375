/*-------------------------------------------------------------------------
 *
 * windownode.h
 *	  The GpuWindow CustomScan: a WindowAgg over a GpuSort, computed from
 *	  the sorted rows as arrays (windownode.c, windowfuncs.c).
 *
 * A GpuWindow plan node stands where the WindowAgg stood and keeps its
 * Plan header; its input (plan.lefttree) is the GpuSort that sorted the
 * WindowAgg's input.  Its scan tuple is the input row followed by one
 * column per window function: custom_scan_tlist holds OUTER_VAR references
 * to every input column, then one entry per window function (so EXPLAIN
 * VERBOSE names them), and the targetlist is the WindowAgg's with its
 * input columns and WindowFuncs turned into INDEX_VAR references to those.
 *
 * custom_private is a List of
 *	   0: the WindowAgg itself, whose input is a GpuSortFeed node: the
 *		  fallback, run when the rows cannot be had as an array (the sort
 *		  went to tuplesort) or their values cannot be given memory, and the
 *		  source of the window's columns, operators and frame
 *		  (gs_win_frame_from_plan reads it at plan and at run time)
 *	   1: the WindowAgg's runConditionOrig, for EXPLAIN
 *	   2: List of the WindowFuncs the node computes, in the order of the
 *		  scan tuple's columns after the input's (which show them in EXPLAIN:
 *		  under PostgreSQL 18, as plain calls, see display_wfuncs)
 * custom_exprs is the top window's run condition (the WindowAgg's
 * runCondition: Vars of the projected row), or NIL; plan.qual is the
 * WindowAgg's qual over the scan tuple.
 *
 *-------------------------------------------------------------------------
 */
#ifndef GPUSORT_WINDOWNODE_H
#define GPUSORT_WINDOWNODE_H

#include "nodes/extensible.h"
#include "nodes/plannodes.h"

#define GPUWINDOW_NODE_NAME		"GpuWindow"

/*
 * The GpuWindow that stands for wa, whose input planner.c has already
 * walked, or wa itself where WindowAgg must stay: its input is not a
 * GpuSort, or a function, frame or run condition (one of a window below
 * another) is not computed here.  The WindowAgg that stays gets its
 * reason recorded (runtime/notused.h); input_why is planner.c's reason
 * for leaving the Sort below to stock, or NULL.
 */
extern Plan *gs_window_plan(WindowAgg *wa, const char *input_why);

/* registers the plan methods (at load) */
extern void gs_window_register(void);

#endif							/* GPUSORT_WINDOWNODE_H */
