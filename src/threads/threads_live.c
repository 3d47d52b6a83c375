/*-------------------------------------------------------------------------
 *
 * threads_live.c
 *	  The backend's list of threads that outlive a call, stopped on an
 *	  abort or at exit (see GsLiveThreads in threads_backend.h).
 *
 * Apart from threads_backend.c, which the standalone engine tests link
 * with stubs of the executor's few functions, since this file registers
 * transaction callbacks that only a server has.
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "access/xact.h"
#include "storage/ipc.h"

#include "threads_backend.h"

static dlist_head live_threads = DLIST_STATIC_INIT(live_threads);
static bool live_callbacks_registered = false;

static void
stop_live_threads(void)
{
	dlist_mutable_iter iter;

	dlist_foreach_modify(iter, &live_threads)
	{
		GsLiveThreads *live = dlist_container(GsLiveThreads, node, iter.cur);

		live->stop(live);
	}
}

static void
live_xact_callback(XactEvent event, void *arg)
{
	if (event == XACT_EVENT_ABORT || event == XACT_EVENT_PARALLEL_ABORT)
		stop_live_threads();
}

static void
live_subxact_callback(SubXactEvent event, SubTransactionId mySubid,
					  SubTransactionId parentSubid, void *arg)
{
	if (event == SUBXACT_EVENT_ABORT_SUB)
		stop_live_threads();
}

static void
live_exit_callback(int code, Datum arg)
{
	stop_live_threads();
}

void
gs_live_threads_add(GsLiveThreads *live, void (*stop) (GsLiveThreads *live))
{
	if (!live_callbacks_registered)
	{
		RegisterXactCallback(live_xact_callback, NULL);
		RegisterSubXactCallback(live_subxact_callback, NULL);
		before_shmem_exit(live_exit_callback, (Datum) 0);
		live_callbacks_registered = true;
	}
	live->stop = stop;
	dlist_push_tail(&live_threads, &live->node);
}

void
gs_live_threads_remove(GsLiveThreads *live)
{
	dlist_delete(&live->node);
}
