/*-------------------------------------------------------------------------
 *
 * threads_backend.c
 *	  The backend's binding of threads.c: which interrupts stop a team, and
 *	  serving them once its threads are joined.
 *
 * Only a cancel or a termination stops a team: those always throw once
 * served (outside a holdoff, which INTERRUPTS_CAN_BE_PROCESSED excludes),
 * so the work a stopped team left unfinished is never looked at.  The
 * interrupt is served only after the join, so the ERROR never frees memory
 * a helper thread is still writing into.
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "miscadmin.h"

#include "threads_backend.h"

/* passes over fewer items than this are not worth starting threads */
#define GS_SLICES_MIN_ITEMS		((uint64) 1 << 17)

static bool
cancel_pending(void *arg)
{
	return InterruptPending && (QueryCancelPending || ProcDiePending) &&
		INTERRUPTS_CAN_BE_PROCESSED();
}

/* a pass stopped by cancel_pending: serve the interrupt, which throws */
static void
serve_stop(bool stopped)
{
	if (stopped)
	{
		CHECK_FOR_INTERRUPTS();
		/* the flag is raised only for interrupts that throw */
		elog(ERROR, "GpuSort's CPU work was stopped by an interrupt that was not served");
	}
	CHECK_FOR_INTERRUPTS();
}

void
gs_backend_team_run(GsTeam *team, void (*fn) (void *arg, int t), void *arg)
{
	team->interrupted = cancel_pending;
	team->interrupted_arg = NULL;
	gs_team_run(team, fn, arg);
	serve_stop(team->cancel != 0);
}

void
gs_cpu_for_slices(uint64 n, int nthreads,
				  void (*fn) (void *arg, uint64 lo, uint64 hi), void *arg)
{
	serve_stop(gs_for_slices(n, GS_SLICES_MIN_ITEMS, nthreads, fn, arg,
							 cancel_pending, NULL));
}

void
gs_cpu_for_tasks(uint64 ntasks, int nthreads,
				 void (*fn) (void *arg, uint64 lo, uint64 hi), void *arg)
{
	serve_stop(gs_for_slices(ntasks, 2, nthreads, fn, arg,
							 cancel_pending, NULL));
}
