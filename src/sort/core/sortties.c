/*-------------------------------------------------------------------------
 *
 * sortties.c
 *	  The GpuSort node's use of PostgreSQL's own comparators: settling the
 *	  runs of equal keys after the engine's sort (step 4 of sortstore.c's header).
 *
 * A key decides the order of two rows only when it differs; where it can
 * be equal for rows that PostgreSQL orders differently (a truncated string
 * prefix, an ICU sort key, a sort column past the key's width: from
 * gs_keys_first_inexact on), every run of equal keys in the engine's
 * output is sorted again with the sort columns' SortSupport comparators,
 * as tuplesort settles equal abbreviated keys.  Only runs that start
 * within the output (the first nout rows, less than all under a bound)
 * matter.
 *
 * Where that column is a prefix of a string's transform (gs_keys_refinable),
 * a run is first ordered by the next bytes of the same transform
 * (sortrefine.c), and only rows whose values are equal go on to their later
 * columns: gpusort.refine_ties.  Those are ordered by keys of the later
 * columns on threads where they can be (sortlater.c), and the comparators
 * see only the rows those keys cannot tell apart.
 *
 * Invariant: the rows of a run are ordered by the operators, and rows the
 * operators call equal keep input order (the engines are stable and the
 * comparison here ends on the row number), so the output is one a stock
 * Sort could have produced.
 *
 * Finding the runs reads every sorted key once; on large sorts that scan
 * runs on threads (find_runs_threaded), while settling, which calls the
 * comparators and so the backend, stays on the backend's thread.  A run can
 * hold every row: the loops check for interrupts every GS_INTERRUPT_EVERY
 * rows, also inside qsort.  Each run's copies of its values live in a
 * context reset after the run.
 *
 * Split from sortnode.c, which decides when ties need settling and times
 * it.  Sorting one run with the comparators is sortcompare.c's, below this
 * file and below the refinement, the later columns' keys and the collated
 * ties, which all end there; the comparison of two whole rows that the
 * bounded sort's cutoff test uses is inline in sortstate.h.
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "miscadmin.h"
#include "utils/memutils.h"

#include "runtime/settings.h"
#include "sortstate.h"
#include "threads/threads_backend.h"

/*
 * The end of the run of keys equal to key r, in n sorted keys of nwords
 * words: the scan for ties reads every key, and most runs are one key.
 */
static inline uint64
next_run(const uint64 *keys, int nwords, uint64 r, uint64 n)
{
	const uint64 *k0 = keys + r * nwords;
	uint64		e = r + 1;

	if (nwords == 1)
	{
		while (e < n && keys[e] == k0[0])
			e++;
		return e;
	}
	if (nwords == 2)
	{
		while (e < n && keys[2 * e] == k0[0] && keys[2 * e + 1] == k0[1])
			e++;
		return e;
	}
	while (e < n && memcmp(keys + e * nwords, k0, sizeof(uint64) * nwords) == 0)
		e++;
	return e;
}

/*
 * How the runs of one sort are settled: by the comparators, or first from
 * the transform (sortrefine.c) where the key's first inexact column is a
 * prefix of one; refinecxt is then set.
 */
typedef struct SettleCtx
{
	int			first_inexact;
	MemoryContext tiecxt;
	MemoryContext refinecxt;	/* NULL: comparators only */
	uint64	   *starts;			/* the runs to refine, together at the end */
	uint64	   *lens;
	uint64		nruns;
	uint64		maxruns;
	GsColl	   *coll;			/* NULL: each run settled at once */
	GsLater    *later;			/* the runs' rows of one value, for coll */
	MemoryContext collcxt;		/* of coll and later */
} SettleCtx;

/*
 * Settles the run order[r .. r + len) of the sort's output order.  A run
 * that straddles a bound's end is left to the comparators: see
 * sortrefine.c.
 */
static void
settle_one(GsSort *node, SettleCtx *sc, uint32 *order, uint64 r,
		   uint64 len)
{
	if (sc->refinecxt && (r + len <= node->nout || node->nout == node->ntuples))
	{
		if (sc->nruns == sc->maxruns)
		{
			sc->maxruns *= 2;
			sc->starts = repalloc_huge(sc->starts, sizeof(uint64) * sc->maxruns);
			sc->lens = repalloc_huge(sc->lens, sizeof(uint64) * sc->maxruns);
		}
		sc->starts[sc->nruns] = r;
		sc->lens[sc->nruns++] = len;
		return;
	}
	if (sc->coll)
		gs_coll_add(sc->coll, r, len);
	else
		gs_sort_settle_run(node, order + r, len, sc->first_inexact, sc->tiecxt);
	node->info.tie_groups++;
	node->info.tie_rows += len;
}

/*
 * Finding the runs of equal keys on threads: each thread scans its slice of
 * the sorted keys (starting at the first run that begins in it) and notes
 * the runs of two keys or more in an array of its own, which the backend's
 * thread then settles in order.  Most sorts have few such runs; a slice
 * with more than GS_RUNS_PER_SLICE gives up, and the caller scans serially.
 */
#define GS_RUNS_PER_SLICE		4096
#define GS_RUN_SLICES			64

typedef struct RunSlice
{
	uint64		nruns;
	bool		overflow;
	uint64		start[GS_RUNS_PER_SLICE];
	uint64		end[GS_RUNS_PER_SLICE];
} RunSlice;

typedef struct RunArg
{
	const uint64 *keys;
	int			nwords;
	uint64		n;				/* keys */
	uint64		nout;			/* runs starting here or later do not matter */
	RunSlice   *slices;			/* [GS_RUN_SLICES] */
} RunArg;

static inline bool
key_equal(const uint64 *keys, int nwords, uint64 a, uint64 b)
{
	return memcmp(keys + a * nwords, keys + b * nwords, sizeof(uint64) * nwords) == 0;
}

static void
find_runs_slices(void *p, uint64 slo, uint64 shi)
{
	RunArg	   *a = (RunArg *) p;
	uint64		s;

	for (s = slo; s < shi; s++)
	{
		RunSlice   *rs = &a->slices[s];
		uint64		lo = a->nout * s / GS_RUN_SLICES;
		uint64		hi = a->nout * (s + 1) / GS_RUN_SLICES;
		uint64		r = lo;

		rs->nruns = 0;
		rs->overflow = false;
		/* a run that began in the slice before is that slice's */
		while (r > 0 && r < hi && key_equal(a->keys, a->nwords, r, r - 1))
			r++;
		while (r < hi)
		{
			uint64		e = next_run(a->keys, a->nwords, r, a->n);

			if (e - r > 1)
			{
				if (rs->nruns == GS_RUNS_PER_SLICE)
				{
					rs->overflow = true;
					break;
				}
				rs->start[rs->nruns] = r;
				rs->end[rs->nruns] = e;
				rs->nruns++;
			}
			r = e;
		}
	}
}

typedef struct CopyOrderArg
{
	const uint32 *from;
	uint32	   *to;
} CopyOrderArg;

static void
copy_order_slice(void *p, uint64 lo, uint64 hi)
{
	CopyOrderArg *a = (CopyOrderArg *) p;

	memcpy(a->to + lo, a->from + lo, sizeof(uint32) * (hi - lo));
}

/*
 * Settles every run of equal keys that starts within the output, found on
 * threads, in *settled: a copy of the engine's order made only when there
 * is a run to settle (it stays NULL otherwise: a fresh array of 4 bytes a
 * row costs more to fault in than the scan).  False (nothing done) when the
 * sort is small or has too many runs for the slices' arrays.
 */
static bool
find_runs_threaded(GsSort *node, const uint64 *keys, int nwords,
				   uint64 n, const uint32 *order, uint32 **settled,
				   SettleCtx *sc)
{
	RunArg		a;
	uint64		s,
				i,
				nruns = 0;

	if (node->nout < GS_THREADED_MIN_ROWS || gpusort_threads() < 2)
		return false;
	a.keys = keys;
	a.nwords = nwords;
	a.n = n;
	a.nout = node->nout;
	/* not in tiecxt, which every settle_run resets */
	a.slices = MemoryContextAllocHuge(node->runcxt, sizeof(RunSlice) * GS_RUN_SLICES);
	gs_cpu_for_tasks(GS_RUN_SLICES, gpusort_threads(), find_runs_slices, &a);
	for (s = 0; s < GS_RUN_SLICES; s++)
	{
		if (a.slices[s].overflow)
		{
			pfree(a.slices);
			return false;
		}
		nruns += a.slices[s].nruns;
	}
	*settled = NULL;
	if (nruns > 0)
	{
		CopyOrderArg c;

		c.from = order;
		c.to = *settled = MemoryContextAllocHuge(node->runcxt, sizeof(uint32) * n);
		gs_cpu_for_slices(n, gpusort_threads(), copy_order_slice, &c);
	}
	for (s = 0; s < GS_RUN_SLICES; s++)
	{
		for (i = 0; i < a.slices[s].nruns; i++)
		{
			uint64		r = a.slices[s].start[i];

			settle_one(node, sc, *settled, r, a.slices[s].end[i] - r);
		}
		CHECK_FOR_INTERRUPTS();
	}
	pfree(a.slices);
	return true;
}

/*
 * The contexts of the settling, and node->refined where the transform's
 * order is strxfrm's, which the check verifies (sortverify.c)
 */
static void
settle_begin(GsSort *node, SettleCtx *sc, uint64 n, int first_inexact)
{
	sc->first_inexact = first_inexact;
	sc->tiecxt = AllocSetContextCreate(node->runcxt, "GpuSort ties",
									   ALLOCSET_DEFAULT_SIZES);
	sc->refinecxt = NULL;
	node->refined = NULL;		/* an earlier sort's went with its runcxt */
	/* on threads by strcoll, where the column is a libc string */
	sc->collcxt = AllocSetContextCreate(node->runcxt, "GpuSort collate",
										ALLOCSET_DEFAULT_SIZES);
	sc->later = gs_later_begin(node, first_inexact, sc->collcxt);
	sc->coll = gs_coll_begin(node, first_inexact, sc->later, sc->collcxt);
	if (gpusort_refine_ties && gs_keys_refinable(node->keys, first_inexact))
	{
		sc->refinecxt = AllocSetContextCreate(node->runcxt, "GpuSort refine",
											  ALLOCSET_DEFAULT_SIZES);
		sc->maxruns = 1024;
		sc->nruns = 0;
		sc->starts = MemoryContextAlloc(node->runcxt, sizeof(uint64) * sc->maxruns);
		sc->lens = MemoryContextAlloc(node->runcxt, sizeof(uint64) * sc->maxruns);
		if (gs_keys_verified_column(node->keys) == first_inexact)
			node->refined = MemoryContextAllocExtended(node->runcxt, n,
													   MCXT_ALLOC_HUGE | MCXT_ALLOC_ZERO);
	}
}

/*
 * Settles the runs of equal keys that start within the output: on threads
 * when the sort is large (find_runs_threaded), else in one pass here.
 */
uint32 *
gs_sort_settle_ties(GsSort *node, const uint32 *order,
					const uint64 *sorted_keys, int nwords, uint64 n,
					int first_inexact)
{
	SettleCtx	sc;
	uint32	   *settled = NULL;
	uint64		r = 0;
	uint64		nruns = 0;

	settle_begin(node, &sc, n, first_inexact);
	/* the engine's array is read-only: runs are settled in a copy */
	if (!find_runs_threaded(node, sorted_keys, nwords, n, order, &settled, &sc))
	{
		settled = MemoryContextAllocHuge(node->runcxt, sizeof(uint32) * n);
		memcpy(settled, order, sizeof(uint32) * n);
		while (r < node->nout)
		{
			uint64		e = next_run(sorted_keys, nwords, r, n);

			if (e - r > 1)
				settle_one(node, &sc, settled, r, e - r);
			r = e;
			gs_poll_interrupts(++nruns);
		}
	}
	if (sc.refinecxt)
	{
		gs_sort_refine_runs(node, settled, sc.starts, sc.lens, sc.nruns,
							first_inexact, sc.refinecxt, sc.tiecxt);
		MemoryContextDelete(sc.refinecxt);
		pfree(sc.starts);
		pfree(sc.lens);
	}
	if (sc.coll)
	{
		gs_coll_settle(node, sc.coll, settled, sc.tiecxt);
		gs_later_settle(node, sc.later, settled, sc.tiecxt);
	}
	MemoryContextDelete(sc.collcxt);
	MemoryContextDelete(sc.tiecxt);
	return settled;
}
