/*-------------------------------------------------------------------------
 *
 * threads.h
 *	  Helper threads for both products: starting them with signals blocked,
 *	  and teams that share out one pass over many items (src/threads.c).
 *
 * Pure C with no PostgreSQL headers: the tree contraction (contract.c),
 * which its standalone tests build without PostgreSQL, starts its threads
 * here too.  The backend's binding (interrupts served, errors thrown) is
 * threads_backend.h.
 *
 * The rules every helper thread follows: it calls nothing of PostgreSQL's
 * (no palloc, no elog), it runs with every signal blocked, so that the
 * backend's signal handlers only ever run on the backend's own thread, and
 * the thread that started it joins it before anything it works on can be
 * freed.
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

/* the slice [*lo, *hi) of n items that member t of nthreads works on */
extern void gs_team_slice(uint64_t n, int nthreads, int t,
						  uint64_t *lo, uint64_t *hi);

/*
 * fn(arg, lo, hi) over slices of [0, n), one per member of a team of up to
 * nthreads (no more than there are items, at most GS_MAX_THREADS), or over
 * all of it on the calling thread when n < min_n.  fn must not call
 * PostgreSQL.  The slices are not interrupted: they are short passes (a
 * few milliseconds), and the caller serves interrupts once they are done.
 */
extern void gs_for_slices(uint64_t n, uint64_t min_n, int nthreads,
						  void (*fn) (void *arg, uint64_t lo, uint64_t hi),
						  void *arg);

#endif							/* GPUSORT_THREADS_H */
