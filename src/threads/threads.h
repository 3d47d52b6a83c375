/*-------------------------------------------------------------------------
 *
 * threads.h
 *	  Helper threads for both products: starting them with signals blocked,
 *	  and teams that share out one pass over many items (src/threads/threads.c).
 *
 * Pure C with no PostgreSQL headers: the tree contraction (contract.c),
 * which its standalone tests build without PostgreSQL, starts its threads
 * here too.  The backend's binding (interrupts served, errors thrown) is
 * threads_backend.h.
 *
 * The rules every helper thread follows:
 *	 - it calls nothing of PostgreSQL's that allocates (palloc), raises
 *	   (elog, ereport) or touches shared state (buffers, locks, catalogs,
 *	   caches that fill on a miss).  Reading a row that the backend owns is
 *	   allowed, through slot_deform_safe-style code that only reads: the
 *	   backend prepares everything a thread could otherwise have to
 *	   allocate or look up (see threads_backend.h's gs_deform_rows);
 *	 - it runs with every signal blocked, so that the backend's signal
 *	   handlers only ever run on the backend's own thread;
 *	 - the thread that started it joins it before anything it works on can
 *	   be freed.
 *
 * A team runs fn(arg, t) for t = 0 .. nthreads - 1 and returns when all are
 * done: t = 0 on the calling thread, the others on helper threads (a thread
 * that cannot be started has its share run by the calling thread
 * afterwards, so the work never depends on how many started).  fn's long
 * loops ask gs_team_stopped() and give up when told.  Only t = 0 polls
 * team->interrupted; when it fires, the cancel flag stops every member, and
 * the caller learns it from team->cancel once all are joined, so that it
 * can throw without leaving a thread writing into memory being freed.
 *
 *-------------------------------------------------------------------------
 */
#ifndef GPUSORT_THREADS_H
#define GPUSORT_THREADS_H

#include <pthread.h>
#include <signal.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/*
 * Items between two interrupt checks: CHECK_FOR_INTERRUPTS in the
 * backend's loops over rows, gs_slice_stopped in a thread's (a power of 2)
 */
#define GS_INTERRUPT_EVERY	4096

/* the most threads a team or a tree contraction uses */
#define GS_MAX_THREADS		64

/*
 * Starts up to n threads running fn, thread i on (char *) arg + i * stride,
 * with every signal blocked (the threads inherit the mask); returns how
 * many started.  The caller joins them.
 */
extern int	gs_start_threads(pthread_t *th, int n, void *(*fn) (void *),
							 void *arg, size_t stride);

/*
 * Blocks every signal in the calling thread, *old receiving the previous
 * mask, for code that starts threads it does not create itself (a driver's
 * initialisation); gs_restore_signals puts the mask back.
 */
extern void gs_block_signals(sigset_t *old);
extern void gs_restore_signals(const sigset_t *old);

typedef struct GsTeam
{
	int			nthreads;		/* 1 .. GS_MAX_THREADS */
	int			cancel;			/* atomic; set once a member must stop */
	/* polled by member 0 only; true stops the team.  May be NULL */
	bool		(*interrupted) (void *arg);
	void	   *interrupted_arg;
} GsTeam;

/*
 * Runs fn(arg, t) on every member and joins them.  Clears team->cancel
 * first; it is set on return if the team was stopped.
 */
extern void gs_team_run(GsTeam *team, void (*fn) (void *arg, int t), void *arg);

/* whether member t must give up (member 0 also polls team->interrupted) */
extern bool gs_team_stopped(GsTeam *team, int t);

/*
 * Part t of n items cut into nparts: [*lo, *hi), the parts' sizes differing
 * by at most one.  The one way work is cut into slices or tasks.
 */
extern void gs_team_slice(uint64_t n, uint64_t nparts, uint64_t t,
						  uint64_t *lo, uint64_t *hi);

/*
 * fn(arg, lo, hi) over slices of [0, n), one per member of a team of up to
 * nthreads (no more than there are items, at most GS_MAX_THREADS), or over
 * all of it on the calling thread when n < min_n.  The calling thread is
 * member 0 and polls interrupted (may be NULL) whenever its slice asks
 * gs_slice_stopped; returns true when that stopped the pass, and then the
 * slices' results are incomplete.
 */
extern bool gs_for_slices(uint64_t n, uint64_t min_n, int nthreads,
						  void (*fn) (void *arg, uint64_t lo, uint64_t hi),
						  void *arg, bool (*interrupted) (void *arg),
						  void *interrupted_arg);

/*
 * Asked by a slice's long loops every few thousand items (it costs an
 * atomic load, and on member 0 the interrupt poll): true when the pass
 * must stop, and the slice then returns at once, its work unfinished.
 * False outside gs_for_slices.
 */
extern bool gs_slice_stopped(void);

#endif							/* GPUSORT_THREADS_H */
