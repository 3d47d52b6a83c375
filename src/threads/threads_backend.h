/*-------------------------------------------------------------------------
 *
 * threads_backend.h
 *	  Teams and slices in a backend: interrupts served, a cancel thrown
 *	  once every thread is joined (src/threads/threads_backend.c).
 *
 * threads.c is pure C (the tree's standalone tests build it alone); this is
 * the backend's binding of it, as xmltok_backend.c is the tokenizer's.
 * The functions here run fn on helper threads, so fn follows threads.h's
 * rules: nothing of PostgreSQL's, no palloc, no elog.
 *
 *-------------------------------------------------------------------------
 */
#ifndef GPUSORT_THREADS_BACKEND_H
#define GPUSORT_THREADS_BACKEND_H

#include "lib/ilist.h"
#include "miscadmin.h"

#include "threads.h"

/*
 * The backend's own loops over rows poll for interrupts with this, done
 * being how many rows (or comparisons) are done: every GS_INTERRUPT_EVERY
 * of them, one CHECK_FOR_INTERRUPTS(), which is cheap but not free in a
 * loop of a few nanoseconds a row.  A thread's loop asks gs_slice_stopped
 * (below) instead, which never throws.
 */
static inline void
gs_poll_interrupts(uint64 done)
{
	if (done % GS_INTERRUPT_EVERY == 0)
		CHECK_FOR_INTERRUPTS();
}

/*
 * Threads that run beside the backend from one call to the next (a row
 * stream's helpers, a merge's driver) read memory that an abort frees, so
 * they must be stopped and joined first.  Their owner keeps an entry on
 * the backend's list while they run, and one set of callbacks (a
 * transaction's or subtransaction's abort, the backend's exit) calls each
 * entry's stop, which joins the threads and takes the entry off the list.
 * An owner of an enclosing subtransaction finds its threads stopped and
 * carries on without them (each owner says how).  In threads_live.c.
 */
typedef struct GsLiveThreads GsLiveThreads;
struct GsLiveThreads
{
	dlist_node	node;
	void		(*stop) (GsLiveThreads *live);
};

extern void gs_live_threads_add(GsLiveThreads *live,
								void (*stop) (GsLiveThreads *live));
extern void gs_live_threads_remove(GsLiveThreads *live);

/*
 * gs_team_run with the backend's interrupt poll: a pending cancel or
 * termination stops the team, and is served (it throws) after the join.
 * Other interrupts, such as a parallel worker's message to this leader,
 * do not stop the team and are served as usual afterwards, since a pass
 * abandoned half-way cannot go on.
 */
extern void gs_backend_team_run(GsTeam *team, void (*fn) (void *arg, int t),
								void *arg);

/*
 * Runs fn(arg, lo, hi) over slices of [0, n) on up to nthreads threads
 * (one, for small n).  A cancel or termination stops the slices that ask
 * gs_slice_stopped (a pass that can run long must ask, every
 * GS_INTERRUPT_EVERY items); interrupts are served after the threads are
 * joined, and a stopped pass throws there.
 */
extern void gs_cpu_for_slices(uint64 n, int nthreads,
							  void (*fn) (void *arg, uint64 lo, uint64 hi),
							  void *arg);

/* the same over ntasks tasks of the caller's making, however few */
extern void gs_cpu_for_tasks(uint64 ntasks, int nthreads,
							 void (*fn) (void *arg, uint64 lo, uint64 hi),
							 void *arg);

#endif							/* GPUSORT_THREADS_BACKEND_H */
