/*-------------------------------------------------------------------------
 *
 * threads.c
 *	  Helper threads started with signals blocked, and teams of them (see
 *	  threads.h for the rules they follow).
 *
 * A team has no pool: its threads are started for one pass and joined at
 * its end.  Passes are long (a sort's radix pass, a tree's pieces) next to
 * a thread's start, and a thread that outlives its pass would have to be
 * stopped at every ERROR; starting afresh keeps every exit path simple.
 *
 * Pure C, no PostgreSQL headers.
 *
 *-------------------------------------------------------------------------
 */
#include "threads.h"

void
gs_block_signals(sigset_t *old)
{
	sigset_t	all;

	sigfillset(&all);
	pthread_sigmask(SIG_SETMASK, &all, old);
}

void
gs_restore_signals(const sigset_t *old)
{
	pthread_sigmask(SIG_SETMASK, old, NULL);
}

int
gs_start_threads(pthread_t *th, int n, void *(*fn) (void *), void *arg, size_t stride)
{
	sigset_t	old;
	int			i;

	gs_block_signals(&old);
	for (i = 0; i < n; i++)
		if (pthread_create(&th[i], NULL, fn, (char *) arg + i * stride) != 0)
			break;
	gs_restore_signals(&old);
	return i;
}

/* ---- teams --------------------------------------------------------------- */

typedef struct TeamCall
{
	void		(*fn) (void *arg, int t);
	void	   *arg;
	int			t;
} TeamCall;

static void *
team_thread(void *p)
{
	TeamCall   *c = (TeamCall *) p;

	c->fn(c->arg, c->t);
	return NULL;
}

bool
gs_team_stopped(GsTeam *team, int t)
{
	if (t == 0 && team->interrupted && team->interrupted(team->interrupted_arg))
		__atomic_store_n(&team->cancel, 1, __ATOMIC_RELAXED);
	return __atomic_load_n(&team->cancel, __ATOMIC_RELAXED) != 0;
}

void
gs_team_run(GsTeam *team, void (*fn) (void *arg, int t), void *arg)
{
	pthread_t	th[GS_MAX_THREADS];
	TeamCall	calls[GS_MAX_THREADS];
	int			started;
	int			t;

	team->cancel = 0;
	for (t = 1; t < team->nthreads; t++)
	{
		calls[t].fn = fn;
		calls[t].arg = arg;
		calls[t].t = t;
	}
	started = 1 + gs_start_threads(&th[1], team->nthreads - 1, team_thread,
								   &calls[1], sizeof(TeamCall));

	fn(arg, 0);
	for (t = started; t < team->nthreads; t++)
		fn(arg, t);
	for (t = 1; t < started; t++)
		pthread_join(th[t], NULL);
}

void
gs_team_slice(uint64_t n, uint64_t nparts, uint64_t t, uint64_t *lo, uint64_t *hi)
{
	uint64_t	share = n / nparts,
				extra = n % nparts;

	*lo = share * t + (t < extra ? t : extra);
	*hi = *lo + share + (t < extra ? 1 : 0);
}

/* ---- slices -------------------------------------------------------------- */

typedef struct SliceCall
{
	GsTeam		team;
	uint64_t	n;
	void		(*fn) (void *arg, uint64_t lo, uint64_t hi);
	void	   *arg;
} SliceCall;

/*
 * The team and member whose slice the calling thread runs, for
 * gs_slice_stopped: a slice's function has only its items to go on, and
 * threading a team through every one of them would leak the team into
 * code that is otherwise plain loops over arrays.
 */
static __thread GsTeam *slice_team;
static __thread int slice_member;

bool
gs_slice_stopped(void)
{
	return slice_team != NULL && gs_team_stopped(slice_team, slice_member);
}

static void
run_slice(SliceCall *c, int t, uint64_t lo, uint64_t hi)
{
	GsTeam	   *outer_team = slice_team;
	int			outer_member = slice_member;

	slice_team = &c->team;
	slice_member = t;
	c->fn(c->arg, lo, hi);
	slice_team = outer_team;
	slice_member = outer_member;
}

static void
slice_thread(void *p, int t)
{
	SliceCall  *c = (SliceCall *) p;
	uint64_t	lo,
				hi;

	gs_team_slice(c->n, c->team.nthreads, t, &lo, &hi);
	if (lo < hi && !gs_team_stopped(&c->team, t))
		run_slice(c, t, lo, hi);
}

bool
gs_for_slices(uint64_t n, uint64_t min_n, int nthreads,
			  void (*fn) (void *arg, uint64_t lo, uint64_t hi), void *arg,
			  bool (*interrupted) (void *arg), void *interrupted_arg)
{
	SliceCall	c;

	if (nthreads > GS_MAX_THREADS)
		nthreads = GS_MAX_THREADS;
	if ((uint64_t) nthreads > n)
		nthreads = (int) n;
	if (nthreads < 1 || n < min_n)
		nthreads = 1;
	c.team.nthreads = nthreads;
	c.team.cancel = 0;
	c.team.interrupted = interrupted;
	c.team.interrupted_arg = interrupted_arg;
	c.n = n;
	c.fn = fn;
	c.arg = arg;
	if (n == 0)
		return false;
	if (nthreads == 1)
		run_slice(&c, 0, 0, n);
	else
		gs_team_run(&c.team, slice_thread, &c);
	return c.team.cancel != 0;
}
