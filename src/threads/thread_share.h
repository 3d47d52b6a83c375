/*-------------------------------------------------------------------------
 *
 * thread_share.h
 *	  The server-wide share of the machine's cores among the sessions that
 *	  sort at once (src/threads/thread_share.c).
 *
 * A sort registers its session as sorting for as long as a memory context
 * of its own lives (gs_thread_share_enter); gpusort_threads() (settings.c)
 * then hands each pass of helper threads its share of the cores.  Without
 * gpusort in shared_preload_libraries there is nothing to share: every
 * session counts itself alone, and gets the threads it is configured for.
 *
 *-------------------------------------------------------------------------
 */
#ifndef GPUSORT_THREAD_SHARE_H
#define GPUSORT_THREAD_SHARE_H

/*
 * Counts this session as sorting until cxt is reset or deleted (the end
 * of the sort, a rescan, an ERROR or a cancel) or the process exits.  A
 * session counts once however many of its sorts are registered; parallel
 * workers count as their leader's session and register nothing.
 */
extern void gs_thread_share_enter(MemoryContext cxt);

/*
 * The threads one pass may use now: configured when this session is the
 * only one sorting (or nothing is shared), else its share of ncpus cores,
 * at least 1 and at most configured.  Never waits.
 */
extern int	gs_thread_share(int configured, int ncpus);

/* sessions counted as sorting now, all together; -1 when nothing is shared */
extern int	gs_thread_share_sessions(void);

/* _PG_init, when the library is in shared_preload_libraries */
extern void gs_thread_share_request_shmem(void);

#endif							/* GPUSORT_THREAD_SHARE_H */
