/*-------------------------------------------------------------------------
 *
 * winpass.h
 *	  What the passes over a window's rows share: when they run on
 *	  threads, into how many tasks they are cut, and their result arrays
 *	  (winboundary.c's boundaries, windowfuncs.c's functions, wingroups.c's
 *	  groups).
 *
 *-------------------------------------------------------------------------
 */
#ifndef GPUSORT_WINPASS_H
#define GPUSORT_WINPASS_H

/* rows from which the passes run on threads */
#define GSW_THREADED_MIN_ROWS	((uint64) 1 << 15)
#define GSW_TASKS_PER_THREAD	4

/*
 * Tasks of whole runs (partitions, groups) of about the same number of
 * rows each, runs [0, nruns) starting at starts[] (starts[nruns] = the
 * rows): each task's first run, ntasks + 1 of them, palloc'd
 * (windowfuncs.c)
 */
extern uint64 *gs_win_task_firsts(const uint64 *starts, uint64 nruns,
								  int nthreads, uint64 *ntasks);

/* f's result arrays for n rows, or n groups (windowfuncs.c) */
struct GsWinFunc;
extern void gs_win_alloc_results(struct GsWinFunc *f, uint64 n);

#endif							/* GPUSORT_WINPASS_H */
