/*-------------------------------------------------------------------------
 *
 * wingroups.c
 *	  Grouping on threads: the aggregates of each group of sorted rows,
 *	  with the window functions' aggregate steps (winagg.h), for GpuAgg.
 *
 * GpuAgg's rows come sorted by the group columns, so a group is a run of
 * rows [starts[g], starts[g + 1]).  An aggregate that does not sort (sum,
 * avg, min, max, and the float variances and deviations) is over a group
 * what WindowAgg's is over a frame of its whole partition: here it is
 * taken once per group, not once per row.  A state takes the group's rows
 * in their sorted order, which is the order the Agg over the same sort
 * advances its transition in (float sums round as there), and puts its
 * value at index g of the function's result arrays, where gs_win_datum
 * reads it as it reads a row's.
 *
 * What the Agg must do itself: a numeric the threads cannot add exactly
 * (past 128 bits: too_wide) and a transition that overflows (float.c's
 * "value out of range"), which the Agg raises.  A pass that meets either
 * stops, and gs_win_compute_groups returns false.
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "threads/threads_backend.h"
#include "windowfuncs.h"
#include "winagg.h"
#include "winpass.h"

typedef struct GroupsArg
{
	const uint64 *starts;
	uint64	   *task_first;		/* [ntasks + 1]: each task's first group */
	GsWinFunc  *funcs;
	int			nfuncs;
	bool		failed;			/* an overflow (any thread may set it) */
} GroupsArg;

/* f over group g, rows [s, e); false where the Agg must compute it */
static bool
aggregate_group(GsWinFunc *f, uint64 g, uint64 s, uint64 e)
{
	WinAggState st;
	uint64		r;

	memset(&st, 0, sizeof(st));
	for (r = s; r < e; r++)
	{
		if (agg_take(f, &st, r))
			continue;
		if (st.wide_fail)
			__atomic_store_n(&f->too_wide, true, __ATOMIC_RELAXED);
		return false;
	}
	agg_put(f, &st, g);
	return true;
}

/* tasks [tlo, thi), each a slice of the groups */
static void
groups_tasks(void *p, uint64 tlo, uint64 thi)
{
	GroupsArg  *a = (GroupsArg *) p;
	uint64		t,
				g;
	int			k;

	for (t = tlo; t < thi; t++)
		for (g = a->task_first[t]; g < a->task_first[t + 1]; g++)
		{
			if ((g & 255) == 255 && gs_slice_stopped())
				return;
			for (k = 0; k < a->nfuncs; k++)
				if (!aggregate_group(&a->funcs[k], g, a->starts[g],
									 a->starts[g + 1]))
				{
					__atomic_store_n(&a->failed, true, __ATOMIC_RELAXED);
					return;
				}
		}
}

bool
gs_win_compute_groups(const uint64 *starts, uint64 ngroups, GsWinFunc *funcs,
					  int nfuncs, int nthreads)
{
	GroupsArg	a;
	uint64		ntasks;
	int			k;

	for (k = 0; k < nfuncs; k++)
		gs_win_alloc_results(&funcs[k], ngroups);
	if (ngroups == 0)
		return true;

	/* tasks of whole groups, about the same number of rows each */
	if (starts[ngroups] < GSW_THREADED_MIN_ROWS)
		nthreads = 1;
	a.task_first = gs_win_task_firsts(starts, ngroups, nthreads, &ntasks);
	a.starts = starts;
	a.funcs = funcs;
	a.nfuncs = nfuncs;
	a.failed = false;
	gs_cpu_for_tasks(ntasks, nthreads, groups_tasks, &a);
	pfree(a.task_first);
	for (k = 0; k < nfuncs; k++)
		if (funcs[k].too_wide)
			a.failed = true;
	return !a.failed;
}
