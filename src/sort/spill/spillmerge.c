/*-------------------------------------------------------------------------
 *
 * spillmerge.c
 *	  The d-way merge of sorted runs through a binary heap.
 *
 * The heap holds the runs that still have rows, ordered by their current
 * rows (cmp, then run number: so rows cmp calls equal come in run order,
 * and the merge of runs written in input order is stable).  heap[0] is the
 * run whose current row comes next.  As in seed 000's d-way merge through a
 * heap of buffers, each run is read through a buffer of its own (BufFile's)
 * and only the heads of the runs are compared.
 *
 * gs_merge_next returns that run and leaves it at the heap's top; the next
 * call first reads the run's following row and sifts it down (or drops the
 * run at its end).  So the row returned stays valid in its run's buffer
 * until the following call, which is what the executor needs of a slot's
 * row.  A merge of d runs costs at most 2 log2(d) comparisons a row.
 *
 * Invariant: between calls, every run in heap[0 .. nheap) has a current
 * row, and the heap property holds for all of them but heap[0] when
 * pending is set (its row was returned and is still to be replaced).
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "miscadmin.h"

#include "spillmerge.h"

struct GsMerge
{
	GsRun	  **runs;
	int			nruns;
	int		   *heap;			/* run numbers, [nruns] */
	int			nheap;
	bool		pending;		/* heap[0]'s row was returned */
	GsMergeCmp	cmp;
	void	   *arg;
	uint64		ncompares;
};

/* does run a's current row come before run b's? */
static inline bool
before(GsMerge *m, int a, int b)
{
	int			c;

	m->ncompares++;
	c = m->cmp(m->arg, m->runs[a], m->runs[b]);
	return c < 0 || (c == 0 && a < b);
}

static void
sift_down(GsMerge *m, int i)
{
	int			run = m->heap[i];

	for (;;)
	{
		int			child = 2 * i + 1;

		if (child >= m->nheap)
			break;
		if (child + 1 < m->nheap && before(m, m->heap[child + 1], m->heap[child]))
			child++;
		if (!before(m, m->heap[child], run))
			break;
		m->heap[i] = m->heap[child];
		i = child;
	}
	m->heap[i] = run;
}

/* every run at its first row, and the heap built over those that have one */
static void
load_heads(GsMerge *m)
{
	int			i;

	m->nheap = 0;
	m->pending = false;
	for (i = 0; i < m->nruns; i++)
	{
		if (gs_run_rewind(m->runs[i]) && gs_run_next(m->runs[i]))
			m->heap[m->nheap++] = i;
	}
	for (i = m->nheap / 2 - 1; i >= 0; i--)
		sift_down(m, i);
}

GsMerge *
gs_merge_begin(MemoryContext cxt, GsRun **runs, int nruns, GsMergeCmp cmp,
			   void *arg)
{
	GsMerge    *m = MemoryContextAllocZero(cxt, sizeof(GsMerge));

	m->runs = runs;
	m->nruns = nruns;
	m->heap = MemoryContextAlloc(cxt, sizeof(int) * Max(nruns, 1));
	m->cmp = cmp;
	m->arg = arg;
	load_heads(m);
	return m;
}

GsRun *
gs_merge_next(GsMerge *m)
{
	if (m->pending)
	{
		m->pending = false;
		if (!gs_run_next(m->runs[m->heap[0]]))
			m->heap[0] = m->heap[--m->nheap];
		if (m->nheap > 1)
			sift_down(m, 0);
	}
	if (m->nheap == 0)
		return NULL;
	m->pending = true;
	return m->runs[m->heap[0]];
}

void
gs_merge_rewind(GsMerge *m)
{
	load_heads(m);
}

uint64
gs_merge_compares(const GsMerge *m)
{
	return m->ncompares;
}
