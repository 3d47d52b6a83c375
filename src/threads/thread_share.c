/*-------------------------------------------------------------------------
 *
 * thread_share.c
 *	  The server-wide share of the machine's cores among the sessions that
 *	  sort at once.
 *
 * Every pass of a sort's CPU work (a radix pass, key building, finding
 * ties, gathering rows) starts gpusort_threads() helper threads and joins
 * them at its end (threads.c).  Alone on the server a sort should use all
 * the cores it is configured for; but N sessions sorting at once, each
 * with as many threads as there are cores, put N times the cores' work on
 * the run queue: every fork-join pass then waits for its slowest thread,
 * which the scheduler has preempted, and the threads evict each other's
 * caches.  Measured on 16 cores with 64 clients: 0.91x of stock's
 * throughput, where a single client runs several times faster than stock.
 *
 * The algorithm: shared memory holds one counter, the sessions sorting
 * now.  A sort counts its session from when it starts storing rows until
 * its memory goes (gs_thread_share_enter).  Each pass asks for its threads
 * (gs_thread_share) and gets
 *
 *		configured							when it is the only sorting session
 *		max(1, min(configured, cores / sessions))	otherwise
 *
 * where a session that asks without being counted (a sort about to start)
 * counts itself in.  So a single sort gets exactly the threads it got
 * before there was any sharing, and concurrent sorts together use about
 * the cores there are: never more than the cores (the division rounds
 * down) unless there are more sorting sessions than cores, and then one
 * thread each, the session's own.  gpusort.cpu_threads, when set, stays
 * the most any one sort uses.
 *
 * Why a count of sessions rather than tokens taken around each pass: a
 * pass never waits for threads (asking must not block a sort behind
 * another), so tokens would go to whoever asked first, all of them to the
 * first sort and one each to the rest, until the first one's pass ends;
 * an equal share keeps the sessions' passes equally long.  And a session
 * that sorts uses a core even between its passes (reading its input,
 * returning rows), which a token count would not see.  The share is read
 * afresh by every pass, so a sort's later passes widen again as other
 * sorts end; one pass keeps its count, as each call site reads it once.
 * A session whose sort is done but whose rows are still being fetched (a
 * slow client, a cursor left open) stays counted until the sort's memory
 * goes: the share then errs towards fewer threads, never more.
 *
 * Invariants:
 *	 - a process adds 1 to the counter when its first registration begins
 *	   and takes it back when its last one ends, so the counter is the
 *	   number of processes holding a registration (my_counted says whether
 *	   this one does);
 *	 - a registration ends on every path: a reset callback of the sort's
 *	   memory context ends it at the end of the sort, a rescan, an ERROR or
 *	   a cancel (as memaccount.c's reservations end); a before_shmem_exit
 *	   callback gives back the process's count when it exits (FATAL,
 *	   termination), before the transaction's abort would delete the
 *	   contexts; a process that dies makes the postmaster reinitialize
 *	   shared memory, and the counter with it.
 *
 * Parallel workers register nothing and count as their leader's session:
 * their query's GpuSort counted the leader before the Gather started
 * them, and a worker's pass gets the leader's share.  Counting each worker
 * as a session of its own would leave the leader, which sorts all the
 * rows once the workers are done, a fraction of the cores its own workers
 * no longer use.
 *
 * Without gpusort in shared_preload_libraries there is no shared memory:
 * nothing is counted, and every sort gets its configured threads.
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "access/parallel.h"
#include "miscadmin.h"
#include "port/atomics.h"
#include "storage/ipc.h"
#include "storage/lwlock.h"
#include "storage/shmem.h"
#include "utils/memutils.h"

#include "thread_share.h"

typedef struct GsShareShared
{
	pg_atomic_uint32 sorting;	/* processes holding a registration */
} GsShareShared;

/* one registration: lives in the sort's memory context */
typedef struct GsShareEntry
{
	MemoryContextCallback cb;
} GsShareEntry;

static GsShareShared *gs_share = NULL;	/* NULL: not preloaded */
static int	my_entries = 0;		/* registrations alive in this process */
static bool my_counted = false; /* this process holds 1 of the counter */
static bool my_exiting = false; /* past the exit callback: count nothing */
static bool exit_callback_registered = false;

static shmem_request_hook_type prev_shmem_request_hook = NULL;
static shmem_startup_hook_type prev_shmem_startup_hook = NULL;

/* ---- shared memory (preloaded) ------------------------------------------------ */

static void
share_shmem_request(void)
{
	if (prev_shmem_request_hook)
		prev_shmem_request_hook();
	RequestAddinShmemSpace(MAXALIGN(sizeof(GsShareShared)));
}

static void
share_shmem_startup(void)
{
	bool		found;

	if (prev_shmem_startup_hook)
		prev_shmem_startup_hook();
	LWLockAcquire(AddinShmemInitLock, LW_EXCLUSIVE);
	gs_share = ShmemInitStruct("gpusort thread share", sizeof(GsShareShared), &found);
	if (!found)
		pg_atomic_init_u32(&gs_share->sorting, 0);
	LWLockRelease(AddinShmemInitLock);
}

void
gs_thread_share_request_shmem(void)
{
	prev_shmem_request_hook = shmem_request_hook;
	shmem_request_hook = share_shmem_request;
	prev_shmem_startup_hook = shmem_startup_hook;
	shmem_startup_hook = share_shmem_startup;
}

/* ---- this process's count ----------------------------------------------------- */

static void
count_me(void)
{
	Assert(!my_counted);
	pg_atomic_fetch_add_u32(&gs_share->sorting, 1);
	my_counted = true;
}

static void
uncount_me(void)
{
	if (!my_counted)
		return;
	Assert(pg_atomic_read_u32(&gs_share->sorting) > 0);
	pg_atomic_fetch_sub_u32(&gs_share->sorting, 1);
	my_counted = false;
}

/*
 * At exit (FATAL, termination, the end of the session): gives the count
 * back whether or not anything deletes the sorts' contexts afterwards.
 * This runs before ShutdownPostgres (registered earlier, so run later)
 * aborts the transaction; the context callbacks that abort may run then
 * find nothing left to give back.
 */
static void
share_exit(int code, Datum arg)
{
	uncount_me();
	my_exiting = true;
}

/* the reset callback of a registration's context */
static void
share_leave(void *arg)
{
	Assert(my_entries > 0);
	if (--my_entries == 0)
		uncount_me();
}

void
gs_thread_share_enter(MemoryContext cxt)
{
	GsShareEntry *entry;

	if (gs_share == NULL || IsParallelWorker())
		return;
	if (!exit_callback_registered)
	{
		before_shmem_exit(share_exit, (Datum) 0);
		exit_callback_registered = true;
	}
	/* the callback first: once it is there, nothing below can fail */
	entry = MemoryContextAlloc(cxt, sizeof(GsShareEntry));
	entry->cb.func = share_leave;
	entry->cb.arg = NULL;
	MemoryContextRegisterResetCallback(cxt, &entry->cb);
	if (my_entries++ == 0 && !my_exiting)
		count_me();
}

/* ---- the share ---------------------------------------------------------------- */

int
gs_thread_share(int configured, int ncpus)
{
	uint32		sessions;

	if (gs_share == NULL)
		return configured;
	sessions = pg_atomic_read_u32(&gs_share->sorting);
	/* a sort about to start here counts itself; a worker is its leader's */
	if (!my_counted && !IsParallelWorker())
		sessions++;
	if (sessions <= 1)
		return configured;
	return Max(1, Min(configured, ncpus / (int) Min(sessions, (uint32) INT_MAX)));
}

int
gs_thread_share_sessions(void)
{
	if (gs_share == NULL)
		return -1;
	return (int) pg_atomic_read_u32(&gs_share->sorting);
}
