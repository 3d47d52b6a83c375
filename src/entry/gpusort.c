/*-------------------------------------------------------------------------
 *
 * gpusort.c
 *	  Module entry point: defines the settings and starts each part.
 *
 * _PG_init runs in the postmaster when the library is preloaded, and in a
 * backend on LOAD or first use.  It only defines settings and installs the
 * planner hook: no CUDA call happens here.  CUDA is started lazily by the
 * backend that first needs the GPU (gpu_session.c), because a CUDA context
 * does not survive fork() and the postmaster must never hold one.
 *
 * The calls go one way: this file calls each part's initialization, and
 * the parts read their settings from settings.c, never from here.  The
 * SQL-callable report of the memory budgets, which reads from many parts,
 * sits beside this file (memreport.c).
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "fmgr.h"
#include "miscadmin.h"
#include "utils/guc.h"

#include "gpusort.h"
#include "intake/blockpool.h"
#include "memory/memaccount.h"
#include "plan/planner.h"
#include "runtime/stat.h"
#include "threads/thread_share.h"
#include "tree/treereduce.h"

PG_MODULE_MAGIC;

void		_PG_init(void);

void
_PG_init(void)
{
	/* the pool's hook first: defining gpusort.keep_memory calls it */
	gs_pool_init();
	gpusort_define_settings();
	gpusort_tree_init();
	gpusort_planner_init();
	if (process_shared_preload_libraries_in_progress)
	{
		gs_account_request_shmem();
		gs_stat_request_shmem();
		gs_thread_share_request_shmem();
	}

	MarkGUCPrefixReserved("gpusort");
}

