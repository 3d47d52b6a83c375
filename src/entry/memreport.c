/*-------------------------------------------------------------------------
 *
 * memreport.c
 *	  gpusort_memory(): the memory budgets, where they come from, and what
 *	  the server's GpuSorts hold now.
 *
 * The report gathers figures from every level: the budgets that settings.c
 * resolves, the server-wide account (memaccount.c), the blocks the session
 * keeps between its sorts (blockpool.c) and the threads a sort would use
 * now (thread_share.c).  It lives here, at the top, so that it may read
 * all of them while none of those parts reads up into another: settings.c
 * in particular lies below the pool it describes.
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "fmgr.h"
#include "funcapi.h"
#include "utils/builtins.h"

#include "intake/blockpool.h"
#include "memory/memaccount.h"
#include "runtime/settings.h"
#include "threads/thread_share.h"

/* one row of gpusort_memory(); bytes SIZE_MAX: NULL */
static void
memory_row(ReturnSetInfo *rsinfo, const char *name, Size bytes, const char *detail)
{
	Datum		values[3];
	bool		nulls[3] = {false, bytes == SIZE_MAX, false};

	values[0] = CStringGetTextDatum(name);
	values[1] = Int64GetDatum((int64) Min(bytes, (Size) PG_INT64_MAX));
	values[2] = CStringGetTextDatum(detail);
	tuplestore_putvalues(rsinfo->setResult, rsinfo->setDesc, values, nulls);
}

/*
 * gpusort_memory()'s row "cpu_threads": the threads a sort starting now in
 * this session would use, and the share they come from (not bytes: NULL)
 */
static void
threads_row(ReturnSetInfo *rsinfo)
{
	int			sessions = gs_thread_share_sessions();
	char		buf[200];

	if (sessions < 0)
		snprintf(buf, sizeof(buf),
				 "%d threads per sort, not shared: gpusort is not in shared_preload_libraries",
				 gpusort_threads());
	else
		snprintf(buf, sizeof(buf),
				 "%d threads per sort now; %d sessions sorting, %d cores, at most %d per sort",
				 gpusort_threads(), sessions, gpusort_online_cpus(),
				 gpusort_configured_threads());
	memory_row(rsinfo, "cpu_threads", SIZE_MAX, buf);
}

PG_FUNCTION_INFO_V1(gpusort_memory);

/*
 * gpusort_memory(): the budgets, where they come from, and what the
 * server's GpuSorts hold now (all sessions, and this one).
 */
Datum
gpusort_memory(PG_FUNCTION_ARGS)
{
	ReturnSetInfo *rsinfo = (ReturnSetInfo *) fcinfo->resultinfo;
	const char *source;
	const char *detail;
	Size		avail = gpusort_available_memory(&source, &detail);
	Size		shm_size;
	bool		advised;
	char		buf[700];

	InitMaterializedSRF(fcinfo, 0);
	snprintf(buf, sizeof(buf), "%s: %s", source, detail);
	memory_row(rsinfo, "available", avail, buf);
	memory_row(rsinfo, "max_memory", gpusort_memory_budget(),
			   gpusort_max_memory > 0 ? "gpusort.max_memory: one sort" :
			   "gpusort.max_memory = -1: one sort, a quarter of available");
	memory_row(rsinfo, "max_total_memory", gpusort_total_memory_limit(),
			   gpusort_max_total_memory > 0 ? "gpusort.max_total_memory: all sorts" :
			   "gpusort.max_total_memory = -1: all sorts, half of available");
	memory_row(rsinfo, "reserved", gs_account_total(GS_ACCT_MEM),
			   "all sessions, now");
	memory_row(rsinfo, "reserved_session", gs_account_session(GS_ACCT_MEM),
			   "this session, now");
	memory_row(rsinfo, "kept_session", gs_pool_bytes(),
			   "this session, large blocks kept for its next sorts (gpusort.keep_memory)");
	(void) gs_shm_free(&shm_size);
	memory_row(rsinfo, "shm_size", shm_size, "/dev/shm, for POSIX dynamic shared memory");
	memory_row(rsinfo, "shm_max_total", gs_shm_limit(),
			   "of /dev/shm, what all parallel sorts may reserve");
	memory_row(rsinfo, "shm_reserved", gs_account_total(GS_ACCT_SHM),
			   "of /dev/shm, all sessions, now");
	memory_row(rsinfo, "gpu_reserved", gs_account_total(GS_ACCT_DEV),
			   "GPU memory, all sessions, now");
	memory_row(rsinfo, "account", SIZE_MAX, gs_account_where());
	threads_row(rsinfo);
	advised = gpusort_huge_pages_advised(&detail);
	snprintf(buf, sizeof(buf), "%s: %s", advised ? "advised" : "not advised", detail);
	memory_row(rsinfo, "huge_pages", SIZE_MAX, buf);
	return (Datum) 0;
}
