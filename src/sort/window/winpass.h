/*-------------------------------------------------------------------------
 *
 * winpass.h
 *	  What the passes over a window's rows share: when they run on
 *	  threads, and into how many tasks they are cut (winboundary.c's
 *	  boundaries, windowfuncs.c's functions).
 *
 *-------------------------------------------------------------------------
 */
#ifndef GPUSORT_WINPASS_H
#define GPUSORT_WINPASS_H

/* rows from which the passes run on threads */
#define GSW_THREADED_MIN_ROWS	((uint64) 1 << 15)
#define GSW_TASKS_PER_THREAD	4

#endif							/* GPUSORT_WINPASS_H */
