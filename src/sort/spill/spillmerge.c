/*-------------------------------------------------------------------------
 *
 * spillmerge.c
 *	  The d-way merge of sorted runs through a tree of losers.
 *
 * A tournament over the runs' current rows, kept as a tree of losers
 * (losertree.h): ceil(log2 k) comparisons a row over k runs, which is what
 * costs where they call PostgreSQL's comparators.  As in seed 000's d-way
 * merge through a heap of buffers, each run is read through a buffer of its
 * own (BufFile's) and only the heads of the runs are compared.
 *
 * A run at its end loses every match (an infinite row).  Rows cmp calls
 * equal are ordered by run number, so the merge of runs written in input
 * order is stable.
 *
 * gs_merge_next returns the winner's run and leaves it in place; the next
 * call first reads the run's following row and replays its path.  So the
 * row returned stays valid in its run's buffer until the following call,
 * which is what the executor needs of a slot's row.
 *
 * Invariant: between calls, tree[0] is the run whose current row comes
 * first among the runs not at their end (or one at its end when all are),
 * and every inner node holds the loser of the match between the winners of
 * its two subtrees; when pending is set, tree[0]'s row was returned and is
 * still to be replaced.
 *
 * Where the keys alone decide (no cmp) and threads are allowed, the merge
 * is handed to spillbatch.c, which merges batches of the runs' rows in key
 * ranges on threads; GsMerge then only passes the calls on.
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "miscadmin.h"

#include "spillbatch.h"
#include "spillmerge.h"

struct GsMerge
{
	GsRun	  **runs;
	int			nruns;
	int		   *tree;			/* [Max(nruns, 1)]: losers, tree[0] the winner */
	bool	   *done;			/* [nruns]: the run is at its end */
	bool		pending;		/* tree[0]'s row was returned */
	GsMergeCmp	cmp;			/* or NULL: the keys decide */
	void	   *arg;
	int			nwords;
	uint64		ncompares;
	GsBatchMerge *batch;		/* or NULL: the tree of losers merges */
};

/*
 * does run a's current row come before run b's?  (a run at its end: never;
 * losertree.h's callback)
 */
static inline bool
beats(void *arg, int a, int b)
{
	GsMerge    *m = (GsMerge *) arg;
	int			c;

	if (m->done[a])
		return false;
	if (m->done[b])
		return true;
	m->ncompares++;
	c = m->cmp ? m->cmp(m->arg, m->runs[a], m->runs[b]) :
		gs_key_cmp(m->runs[a]->key, m->runs[b]->key, m->nwords);
	return c < 0 || (c == 0 && a < b);
}

/* every run at its first row, and the tournament played */
static void
load_heads(GsMerge *m)
{
	int			i;

	m->pending = false;
	for (i = 0; i < m->nruns; i++)
		m->done[i] = !(gs_run_rewind(m->runs[i]) && gs_run_next(m->runs[i]));
	m->tree[0] = gs_loser_play(m->tree, m->nruns, beats, m);
}

GsMerge *
gs_merge_begin(MemoryContext cxt, GsRun **runs, int nruns, GsMergeCmp cmp,
			   void *arg, int nthreads, Size bufsize)
{
	GsMerge    *m = MemoryContextAllocZero(cxt, sizeof(GsMerge));

	if (cmp == NULL && nthreads > 0 && nruns >= 2 && nruns <= GS_BATCH_MAX_RUNS)
	{
		m->nruns = nruns;
		m->batch = gs_batch_begin(cxt, runs, nruns, nthreads, bufsize);
		return m;
	}

	m->runs = runs;
	m->nruns = nruns;
	m->tree = MemoryContextAllocZero(cxt, sizeof(int) * Max(nruns, 1));
	m->done = MemoryContextAllocZero(cxt, sizeof(bool) * Max(nruns, 1));
	m->cmp = cmp;
	m->arg = arg;
	m->nwords = nruns > 0 ? runs[0]->nwords : 1;
	if (nruns > 0)
		load_heads(m);
	return m;
}

GsRun *
gs_merge_next(GsMerge *m)
{
	int			w;

	if (m->batch)
		return gs_batch_next(m->batch);
	if (m->nruns == 0)
		return NULL;
	w = m->tree[0];
	if (m->pending)
	{
		m->pending = false;
		if (!gs_run_next(m->runs[w]))
			m->done[w] = true;
		w = gs_loser_replay(m->tree, m->nruns, w, beats, m);
		m->tree[0] = w;
	}
	if (m->done[w])
		return NULL;
	m->pending = true;
	return m->runs[w];
}

void
gs_merge_rewind(GsMerge *m)
{
	if (m->batch)
		gs_batch_rewind(m->batch);
	else if (m->nruns > 0)
		load_heads(m);
}

/* before the runs are closed: a batched merge's descriptors go */
void
gs_merge_end(GsMerge *m)
{
	if (m->batch)
		gs_batch_end(m->batch);
}

void
gs_merge_stats(GsMerge *m, int *nthreads, uint64 *nbatches, uint64 *nranges,
			   double *ms_waited)
{
	*nthreads = 0;
	*nbatches = *nranges = 0;
	*ms_waited = 0;
	if (m->batch)
		gs_batch_stats(m->batch, nthreads, nbatches, nranges, ms_waited);
}
