/*-------------------------------------------------------------------------
 *
 * spillbatch.c
 *	  The merge of sorted runs whose keys decide the order, in batches that
 *	  threads merge at once, cut into key ranges, the next batch merged in
 *	  the background while the backend returns the rows of the one before.
 *
 * Where the keys alone order the rows (no comparator: spillmerge.h), the
 * merge needs nothing of PostgreSQL's but the rows' bytes, so threads can
 * do it.  A window of every run is read into memory, the threads merge
 * those windows into an array of row pointers, and the backend hands the
 * rows out of that array one at a time, as the tree of losers did: no
 * second copy of the rows is made, and a row stays valid until the next
 * call.  The backend's share is the handing out; the rest, reading
 * included, is the threads'.
 *
 * Preparing a batch:
 *
 *	 1. Windows.  Each run in a file has a window buffer: the rows the batch
 *		before did not take are copied to its start, and one large read
 *		fills the rest (pread on a descriptor of the run's own, open_fds:
 *		fd.c is the backend's alone; the backend reads through fd.c a run
 *		that got none).  The window is then scanned for the start of every
 *		whole row (offs[]), a run a task.  A run in memory (the sort's last
 *		one) shows its next GS_BATCH_MEM_ROWS rows.
 *	 2. The bound.  The merge orders rows by (key, run, place in run), a
 *		total order.  A run's rows beyond its window all come after its
 *		window's last row, so of the windows' rows, those up to the least of
 *		the windows' last rows (over the runs with rows beyond their window)
 *		come before any row not read yet: they make the batch, found by a
 *		binary search of each window.  The run that sets the bound gives all
 *		of its window, so every batch makes progress.
 *	 3. Ranges.  The batch's rows are cut into K ranges of about equal size
 *		(a few per thread) by K - 1 pivot rows, chosen from K rows sampled
 *		evenly from each run's share, each standing for as many rows as its
 *		sample step.  A pivot splits every run's share by a binary search on
 *		(key, run, place), so range p holds, of each run, the rows between
 *		pivot p and pivot p + 1, and its output starts where the ranges
 *		before it end: the sums of their splits.
 *	 4. Merge.  The threads merge the ranges, each through a tree of losers
 *		of its own (on its stack), into the pointer arrays.  A thread takes
 *		one range (or one run's window) at a time, so that a thread the
 *		scheduler holds back on a busy machine leaves its share to the
 *		others rather than holding up the batch.
 *
 * Overlap.  There are two sides, each with its own windows and pointer
 * arrays; batches alternate between them.  Once the backend starts
 * returning the rows of side s, a driver thread (with a team of helpers)
 * prepares the next batch in side 1 - s, from side s's windows (the rows
 * they keep) and the files; the backend, at the end of side s, waits for
 * it (looking at interrupts), and starts the driver on the batch after.
 * So the reads and the merge of a batch overlap the handing out of the
 * one before, instead of alternating with it.
 *
 * Invariants:
 *	 - between calls, side cur's out[out_i .. out_n) are the rows still to
 *	   be returned of its batch, in merge order, every one of them before
 *	   every row not in out[0 .. out_n); the take first rows of each of its
 *	   windows are the batch, the rest is the next batch's to keep;
 *	 - a side is prepared from the other side alone (its windows, takes,
 *	   file offsets and counts), which nobody writes while it is being
 *	   prepared: a preparation stopped half-way is done again from the
 *	   start, on the backend, as if never begun;
 *	 - the side being prepared is the one whose rows were all returned:
 *	   the driver is started only when the backend asks for the first row
 *	   of side cur, and the executor keeps a returned row only until its
 *	   next call, so no row still in use lies in a buffer being written;
 *	 - the driver only reads side cur, the files, and the runs in memory,
 *	   and writes side 1 - cur and the scratch arrays (split, samples,
 *	   tasks), which only a preparation uses; while it runs, the backend
 *	   only reads side cur's pointer arrays and the rows.
 *
 * Threads follow threads.h's rules: nothing of PostgreSQL's, no palloc,
 * no ereport.  What the driver cannot do (grow a buffer for a row longer
 * than the window, or the pointer arrays for a larger batch) or finds
 * wrong (a failed read, an impossible row length, a file ending within a
 * row or short of its rows) is left in the side for the backend, which
 * reports it, or grows what is needed and finishes the preparation itself.
 * A cancel during the backend's wait is served there; an abort stops and
 * joins every driver of the backend (threads_backend.c's abort callbacks,
 * which stop rowstream.c's helpers too), before the resource owners close
 * the files and the memory goes, and so does the reset of the merge's
 * memory context.
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include <pthread.h>
#include <time.h>
#include <unistd.h>

#include "miscadmin.h"
#include "portability/instr_time.h"
#include "storage/fd.h"
#include "utils/memutils.h"

#include "losertree.h"
#include "spillbatch.h"
#include "threads/threads_backend.h"

/* rows of a run in memory in one window */
#define GS_BATCH_MEM_ROWS		((uint64) 1 << 18)

/* ranges a batch is cut into a thread, and rows a range has at least */
#define GS_BATCH_RANGES_PER_THREAD	4
#define GS_BATCH_RANGE_ROWS		1024
#define GS_BATCH_MAX_RANGES		(GS_BATCH_RANGES_PER_THREAD * GS_MAX_THREADS)

/* rows ahead of the one returned whose first bytes are fetched into cache */
#define GS_BATCH_PREFETCH		16

/* the backend's wait for the driver between looks at interrupts */
#define GS_BATCH_WAIT_NS		(10 * 1000 * 1000)

/* how far the preparation of a side got */
typedef enum PrepStep
{
	PREP_NONE,					/* nothing valid */
	PREP_WINDOWS,				/* windows read and scanned (maybe with issues) */
	PREP_TAKEN,					/* the batch's takes chosen */
	PREP_DONE					/* merged into the pointer arrays */
} PrepStep;

/* a run's window in one side */
typedef struct BatchRun
{
	bool		more;			/* rows beyond the window */
	char	   *buf;			/* a file's window: cap bytes, MAXALIGNed */
	Size		cap;
	Size		len;			/* bytes in buf */
	off_t		fileend;		/* where the file's bytes after buf's start */
	Size	   *offs;			/* [ocap]: rows' offsets in buf; offs[n]: past
								 * the last whole row */
	uint64		ocap;
	uint64		first;			/* a run in memory: its window's first row */
	uint64		n;				/* rows in the window */
	uint64		take;			/* the window's first take rows: the batch */
	uint64		returned;		/* rows of the run in this batch and before */
	/* left for the backend by a thread */
	Size		need;			/* the window must grow to this many bytes */
	uint32		badlen;			/* the scan found this impossible length */
	int			read_errno;		/* what the read failed with, or 0 */
	bool		partial;		/* the file ends within a row */
} BatchRun;

/* a sampled row: a pivot candidate, standing for weight rows */
typedef struct Sample
{
	const uint64 *key;
	int			run;
	uint64		pos;
	double		weight;
} Sample;

/* one batch: the runs' windows and the merged rows */
typedef struct BatchSide
{
	BatchRun   *br;				/* [nruns] */
	PrepStep	step;
	uint64		total;			/* rows in the batch (from PREP_TAKEN) */
	int			nranges;
	const uint64 **out_key;		/* [out_cap]: the batch's rows, in order */
	MinimalTuple *out_tup;
	uint64		out_cap;
	uint64		out_n;			/* rows in out (PREP_DONE) */
} BatchSide;

struct GsBatchMerge
{
	MemoryContext cxt;
	GsRun	  **runs;
	int			nruns;
	int			nwords;
	int			nthreads;
	Size		window;			/* a file run's window buffer, a side */
	int		   *fds;			/* [nruns]: a file's own descriptor, or -1 */
	bool		overlap;		/* a driver prepares the next batch */
	BatchSide	side[2];
	int			cur;			/* the side whose rows are returned */
	uint64		out_i;			/* its next row to return */
	bool		finished;		/* the runs are done: NULL until a rewind */
	GsRun		row;			/* what gs_batch_next returns */

	/* a preparation's scratch: split[p * nruns + r], run r's first of p */
	uint64	   *split;			/* [(GS_BATCH_MAX_RANGES + 1) * nruns] */
	Sample	   *samples;		/* [GS_BATCH_MAX_RANGES * nruns] */
	int		   *tasks;			/* runs whose windows to read: [ntasks] */
	int			ntasks;
	int			next_task;		/* atomic: the members' next task */
	BatchSide  *prep;			/* the side being prepared, and from which */
	const BatchSide *prev;
	bool		prep_failed;	/* a team was stopped */

	/* the driver */
	MemoryContextCallback cb;
	GsLiveThreads live;			/* on the backend's list while it runs */
	pthread_t	driver;
	bool		running;		/* started, not joined */
	int			stop;			/* atomic: the driver must give up */
	pthread_mutex_t mutex;
	pthread_cond_t cond;
	bool		done;			/* under mutex: the driver finished */

	int			threads_used;
	uint64		nbatches;
	uint64		nranges_total;
	double		ms_waited;
};


static inline const uint64 *
row_key(const GsRun *run, const BatchRun *br, uint64 i, int nwords)
{
	if (run->mem_keys)
		return run->mem_keys + (br->first + i) * nwords;
	return (const uint64 *) (br->buf + br->offs[i]);
}

static inline MinimalTuple
row_tup(const GsRun *run, const BatchRun *br, uint64 i, int nwords)
{
	if (run->mem_keys)
		return run->mem_tuples[br->first + i];
	return (MinimalTuple) (br->buf + br->offs[i] + sizeof(uint64) * nwords);
}

/*
 * Rows of br's first n before key k of run kr: those with (key, run) below
 * (k, kr), the rows' run being br's (not kr)
 */
static uint64
count_before(const GsRun *run, const BatchRun *br, uint64 n, int nwords,
			 const uint64 *k, bool ties_before)
{
	uint64		lo = 0,
				hi = n;

	while (lo < hi)
	{
		uint64		mid = lo + (hi - lo) / 2;
		int			c = gs_key_cmp(row_key(run, br, mid, nwords), k, nwords);

		if (c < 0 || (c == 0 && ties_before))
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

/*
 * The whole rows of the window, into offs (a thread: no ereport); a row
 * longer than what is left of the window ends the scan there
 */
static void
scan_window(BatchRun *br, int nwords)
{
	const char *p = br->buf;
	Size		kb = sizeof(uint64) * nwords;
	Size		off = 0;
	uint64		n = 0;
	uint32		len;
	Size		rec;

	while (br->len - off >= kb + sizeof(len) && n + 1 < br->ocap)
	{
		memcpy(&len, p + off + kb, sizeof(len));
		if (len < SizeofMinimalTupleHeader ||
			len > MaxAllocHugeSize - kb - MAXIMUM_ALIGNOF)
		{
			br->badlen = Max(len, 1);
			break;
		}
		rec = kb + MAXALIGN(len);
		if (br->len - off < rec)
			break;
		br->offs[n++] = off;
		off += rec;
		if ((n & (GS_INTERRUPT_EVERY - 1)) == 0 && gs_slice_stopped())
			break;
	}
	br->offs[n] = off;
	br->n = n;
}

/*
 * Fills the window from the run's own descriptor (a thread: pread, no
 * ereport), or through fd.c where it has none (the backend); the end of
 * the file leaves no more rows beyond the window
 */
static void
read_window(GsBatchMerge *b, int r, BatchRun *br)
{
	ssize_t		got;

	while (br->len < br->cap)
	{
		if (b->fds[r] < 0)
			got = gs_run_read_at(b->runs[r], br->buf + br->len,
								 br->cap - br->len, br->fileend);
		else
			got = pread(b->fds[r], br->buf + br->len, br->cap - br->len,
						br->fileend);
		if (got < 0 && errno == EINTR)
			continue;
		if (got < 0)
		{
			br->read_errno = errno;
			return;
		}
		if (got == 0)
		{
			br->more = false;
			return;
		}
		br->len += got;
		br->fileend += got;
	}
}

/*
 * Run r's window of side s, from where side p's batch ends (a task: a
 * thread, or the backend): the rows p did not take, then what the file has
 * next.  What it cannot do or finds wrong is left in the window.
 */
static void
window_task(GsBatchMerge *b, BatchSide *s, const BatchSide *p, int r)
{
	GsRun	   *run = b->runs[r];
	BatchRun   *br = &s->br[r];
	const BatchRun *pr = &p->br[r];
	Size		from,
				keep;

	br->take = 0;
	br->need = 0;
	br->badlen = 0;
	br->read_errno = 0;
	br->partial = false;
	if (run->mem_keys)
	{
		uint64		left;

		br->first = pr->first + pr->take;
		left = run->nrows - br->first;
		br->n = Min(left, GS_BATCH_MEM_ROWS);
		br->more = left > br->n;
		return;
	}
	from = pr->n > 0 ? pr->offs[pr->take] : 0;
	keep = pr->len - from;
	br->n = 0;
	br->more = pr->more;
	br->fileend = pr->fileend;
	/* what the other side read ahead must fit (it may have grown) */
	if (keep > br->cap)
	{
		br->need = keep;
		return;
	}
	memcpy(br->buf, pr->buf + from, keep);
	br->len = keep;
	if (br->more)
		read_window(b, r, br);
	if (br->read_errno != 0)
		return;
	scan_window(br, b->nwords);
	if (br->badlen != 0)
		return;
	if (br->n == 0 && br->more)
		br->need = br->cap * 2;
	else if (!br->more && br->offs[br->n] != br->len)
		br->partial = true;
}

/*
 * The next of ntasks tasks for a member to do, or -1: members take tasks
 * one at a time, so that one the scheduler holds back (a busy machine)
 * leaves its share to the others instead of holding up the join
 */
static int
next_task(GsBatchMerge *b, int ntasks)
{
	int			t;

	if (gs_slice_stopped())
		return -1;
	t = __atomic_fetch_add(&b->next_task, 1, __ATOMIC_RELAXED);
	return t < ntasks ? t : -1;
}

/* a member's part of step 1 (the member number, lo, is not needed) */
static void
window_member(void *arg, uint64 lo, uint64 hi)
{
	GsBatchMerge *b = (GsBatchMerge *) arg;
	int			t;

	while ((t = next_task(b, b->ntasks)) >= 0)
		window_task(b, b->prep, b->prev, b->tasks[t]);
}

/* whether the driver must give up (member 0 of its teams polls it) */
static bool
driver_stopped(void *arg)
{
	GsBatchMerge *b = (GsBatchMerge *) arg;

	return __atomic_load_n(&b->stop, __ATOMIC_ACQUIRE) != 0;
}

/*
 * Runs fn on as many members as there are threads and tasks: from the
 * driver, a team that its stop flag stops (prep_failed is then set), one
 * thread short of the merge's, which the backend's handing out has; from
 * the backend, one that a cancel stops and throws after the join
 */
static void
run_members(GsBatchMerge *b, int ntasks, bool on_driver,
			void (*fn) (void *arg, uint64 lo, uint64 hi))
{
	b->next_task = 0;
	if (!on_driver)
		gs_cpu_for_tasks(Min(ntasks, b->nthreads), b->nthreads, fn, b);
	else if (gs_for_slices(Min(ntasks, b->nthreads - 1), 2, b->nthreads - 1,
						   fn, b, driver_stopped, b))
		b->prep_failed = true;
}

/*
 * Each run's take (step 2), the batch's rows, and each run's count of rows
 * returned with the batch
 */
static void
choose_takes(GsBatchMerge *b, BatchSide *s, const BatchSide *p)
{
	int			bound = -1;
	const uint64 *bk = NULL;
	uint64		total = 0;
	int			r;

	for (r = 0; r < b->nruns; r++)
	{
		BatchRun   *br = &s->br[r];
		const uint64 *k;

		if (!br->more || br->n == 0)
			continue;
		k = row_key(b->runs[r], br, br->n - 1, b->nwords);
		/* on equal keys the lower run's row comes first: keep it */
		if (bound < 0 || gs_key_cmp(k, bk, b->nwords) < 0)
		{
			bound = r;
			bk = k;
		}
	}
	for (r = 0; r < b->nruns; r++)
	{
		BatchRun   *br = &s->br[r];

		if (bound < 0 || r == bound)
			br->take = br->n;
		else
			br->take = count_before(b->runs[r], br, br->n, b->nwords, bk,
									r < bound);
		br->returned = p->br[r].returned + br->take;
		total += br->take;
	}
	s->total = total;
}

/* the run of side s that ended short of its rows, or -1 */
static int
run_missing_rows(GsBatchMerge *b, const BatchSide *s)
{
	int			r;

	for (r = 0; r < b->nruns; r++)
	{
		const BatchRun *br = &s->br[r];
		const GsRun *run = b->runs[r];

		if (!run->mem_keys && !br->more && br->take == br->n &&
			!run->to_eof && br->returned != run->nrows)
			return r;
	}
	return -1;
}

static int
sample_cmp(const void *a, const void *b, void *arg)
{
	const Sample *x = (const Sample *) a;
	const Sample *y = (const Sample *) b;
	int			c = gs_key_cmp(x->key, y->key, *(int *) arg);

	if (c != 0)
		return c;
	if (x->run != y->run)
		return x->run < y->run ? -1 : 1;
	return x->pos < y->pos ? -1 : x->pos > y->pos;
}

/* splits every run's share at sample s: the rows before it go before */
static void
split_at(GsBatchMerge *b, int p, const Sample *s)
{
	const BatchSide *side = b->prep;
	int			r;

	for (r = 0; r < b->nruns; r++)
	{
		const BatchRun *br = &side->br[r];

		b->split[p * b->nruns + r] = r == s->run ? s->pos :
			count_before(b->runs[r], br, br->take, b->nwords, s->key,
						 r < s->run);
	}
}

/* the pivots of ranges 1 .. k - 1 (step 3) */
static void
choose_pivots(GsBatchMerge *b, int k, uint64 total)
{
	const BatchSide *side = b->prep;
	int			ns = 0;
	int			p = 1;
	double		cum = 0;
	int			r,
				j;

	for (r = 0; r < b->nruns; r++)
	{
		const BatchRun *br = &side->br[r];

		for (j = 0; br->take > 0 && j < k; j++)
		{
			Sample	   *s = &b->samples[ns++];

			s->pos = (uint64) ((j + 0.5) * br->take / k);
			s->key = row_key(b->runs[r], br, s->pos, b->nwords);
			s->run = r;
			s->weight = (double) br->take / k;
		}
	}
	qsort_arg(b->samples, ns, sizeof(Sample), sample_cmp, &b->nwords);
	for (j = 0; j < ns && p < k; j++)
	{
		cum += b->samples[j].weight;
		while (p < k && cum >= (double) total * p / k)
			split_at(b, p++, &b->samples[j]);
	}
	/* what rounding left: empty ranges at the end */
	for (; p < k; p++)
		for (r = 0; r < b->nruns; r++)
			b->split[p * b->nruns + r] = side->br[r].take;
}

/* the batch's ranges (step 3) */
static void
choose_ranges(GsBatchMerge *b)
{
	BatchSide  *s = b->prep;
	int			k = 1;
	int			r;

	if (b->nthreads > 1)
		k = (int) Min((uint64) GS_BATCH_RANGES_PER_THREAD * b->nthreads,
					  s->total / GS_BATCH_RANGE_ROWS);
	k = Max(k, 1);
	for (r = 0; r < b->nruns; r++)
	{
		b->split[r] = 0;
		b->split[k * b->nruns + r] = s->br[r].take;
	}
	if (k > 1)
		choose_pivots(b, k, s->total);
	s->nranges = k;
}

/*
 * A thread's merge of one range: each run's current row in its part of the
 * range (its key NULL past its part), what the tree of losers compares.
 * (The tree is an array of merge_range's own: as a member, the compiler
 * would take its stores for possible stores to b and reload it a level.)
 */
typedef struct RangeMerge
{
	const GsBatchMerge *b;
	const BatchSide *s;
	uint64		cur[GS_BATCH_MAX_RUNS];
	uint64		end[GS_BATCH_MAX_RUNS];
	const uint64 *key[GS_BATCH_MAX_RUNS];
} RangeMerge;

/* run r's current row's key, or NULL past its part */
static inline void
set_key(RangeMerge *rm, int r)
{
	rm->key[r] = rm->cur[r] < rm->end[r] ?
		row_key(rm->b->runs[r], &rm->s->br[r], rm->cur[r], rm->b->nwords) :
		NULL;
}

/*
 * does run x's current row come before run y's?  (past its part: never;
 * losertree.h's callback)
 */
static inline bool
beats(void *arg, int x, int y)
{
	const RangeMerge *rm = (const RangeMerge *) arg;
	int			c;

	if (rm->key[x] == NULL)
		return false;
	if (rm->key[y] == NULL)
		return true;
	c = gs_key_cmp(rm->key[x], rm->key[y], rm->b->nwords);
	return c < 0 || (c == 0 && x < y);
}

/* merges range p into the output (a thread; step 4) */
static void
merge_range(GsBatchMerge *b, int p)
{
	BatchSide  *s = b->prep;
	RangeMerge	rm;
	int			tree[GS_BATCH_MAX_RUNS];
	uint64		o = 0;
	int			nr = b->nruns;
	int			r,
				w;

	rm.b = b;
	rm.s = s;
	for (r = 0; r < nr; r++)
	{
		rm.cur[r] = b->split[p * nr + r];
		rm.end[r] = b->split[(p + 1) * nr + r];
		o += rm.cur[r];
		set_key(&rm, r);
	}
	w = gs_loser_play(tree, nr, beats, &rm);
	while (rm.key[w] != NULL)
	{
		s->out_key[o] = rm.key[w];
		s->out_tup[o] = row_tup(b->runs[w], &s->br[w], rm.cur[w], b->nwords);
		rm.cur[w]++;
		set_key(&rm, w);
		if ((++o & (GS_INTERRUPT_EVERY - 1)) == 0 && gs_slice_stopped())
			return;
		w = gs_loser_replay(tree, nr, w, beats, &rm);
	}
}

/* a member's part of step 4 */
static void
merge_member(void *arg, uint64 lo, uint64 hi)
{
	GsBatchMerge *b = (GsBatchMerge *) arg;
	int			p;

	while ((p = next_task(b, b->prep->nranges)) >= 0)
		merge_range(b, p);
}

/* whether a window's task left something for the backend */
static inline bool
window_issue(const BatchRun *br)
{
	return br->need != 0 || br->badlen != 0 || br->read_errno != 0 ||
		br->partial;
}

/*
 * Side s's preparation from side p, as far as a thread can take it (the
 * driver; no ereport, no palloc): its step says where it stopped
 */
static void
prepare_on_driver(GsBatchMerge *b, BatchSide *s, const BatchSide *p)
{
	int			r;

	b->prep_failed = false;
	s->step = PREP_NONE;
	b->ntasks = 0;
	for (r = 0; r < b->nruns; r++)
		b->tasks[b->ntasks++] = r;
	run_members(b, b->ntasks, true, window_member);
	if (b->prep_failed)
		return;
	s->step = PREP_WINDOWS;
	for (r = 0; r < b->nruns; r++)
		if (window_issue(&s->br[r]))
			return;
	choose_takes(b, s, p);
	s->step = PREP_TAKEN;
	if (s->total == 0 || s->total > s->out_cap || run_missing_rows(b, s) >= 0)
		return;
	choose_ranges(b);
	run_members(b, s->nranges, true, merge_member);
	if (b->prep_failed)
		return;
	s->out_n = s->total;
	s->step = PREP_DONE;
}

/* a side's window of a file run: cap bytes, and offsets for its rows */
static void
size_window(GsBatchMerge *b, BatchRun *br, Size cap)
{
	Size		minrow = sizeof(uint64) * b->nwords +
		MAXALIGN(SizeofMinimalTupleHeader);

	cap = MAXALIGN(cap);
	if (br->buf)
		pfree(br->buf);
	if (br->offs)
		pfree(br->offs);
	br->buf = MemoryContextAllocHuge(b->cxt, cap);
	br->cap = cap;
	/* (rows are minrow bytes at least) */
	br->ocap = cap / minrow + 2;
	br->offs = MemoryContextAllocHuge(b->cxt, sizeof(Size) * br->ocap);
}

/* side s's pointer arrays, for n rows */
static void
size_output(GsBatchMerge *b, BatchSide *s, uint64 n)
{
	if (n <= s->out_cap)
		return;
	n = Max(n, s->out_cap * 2);
	if (s->out_key)
	{
		pfree(s->out_key);
		pfree(s->out_tup);
	}
	s->out_key = MemoryContextAllocHuge(b->cxt, sizeof(uint64 *) * n);
	s->out_tup = MemoryContextAllocHuge(b->cxt, sizeof(MinimalTuple) * n);
	s->out_cap = n;
}

/*
 * Reports what run r's window task found wrong; grows its window where a
 * row did not fit, and does the task again, until its window has a row
 */
static void
fix_window(GsBatchMerge *b, BatchSide *s, const BatchSide *p, int r)
{
	BatchRun   *br = &s->br[r];

	for (;;)
	{
		if (br->read_errno != 0)
		{
			errno = br->read_errno;
			ereport(ERROR,
					(errcode_for_file_access(),
					 errmsg("could not read GpuSort temporary file: %m")));
		}
		if (br->badlen != 0)
			ereport(ERROR,
					(errcode(ERRCODE_DATA_CORRUPTED),
					 errmsg("invalid row length %u in GpuSort temporary file",
							br->badlen)));
		if (br->partial)
			ereport(ERROR,
					(errcode(ERRCODE_DATA_CORRUPTED),
					 errmsg("could not read GpuSort temporary file: it ends within a row")));
		if (br->need == 0)
			return;
		size_window(b, br, Max(br->need, br->cap * 2));
		window_task(b, s, p, r);
		CHECK_FOR_INTERRUPTS();
	}
}

/*
 * Side s's preparation from side p, finished on the backend from where it
 * stands (not begun, or where the driver left it): what a thread could
 * not do is done here, what it found wrong is reported
 */
static void
prepare_on_backend(GsBatchMerge *b, BatchSide *s, const BatchSide *p)
{
	int			r,
				bad;

	b->prep = s;
	b->prev = p;
	if (s->step == PREP_NONE)
	{
		/* a run with no descriptor of its own is read through fd.c, here */
		b->ntasks = 0;
		for (r = 0; r < b->nruns; r++)
		{
			if (b->runs[r]->mem_keys || b->fds[r] >= 0)
				b->tasks[b->ntasks++] = r;
			else
				window_task(b, s, p, r);
		}
		run_members(b, b->ntasks, false, window_member);
		s->step = PREP_WINDOWS;
	}
	if (s->step == PREP_WINDOWS)
	{
		for (r = 0; r < b->nruns; r++)
			fix_window(b, s, p, r);
		choose_takes(b, s, p);
		s->step = PREP_TAKEN;
	}
	if (s->step == PREP_TAKEN)
	{
		if ((bad = run_missing_rows(b, s)) >= 0)
			ereport(ERROR,
					(errcode(ERRCODE_DATA_CORRUPTED),
					 errmsg("could not read GpuSort temporary file: " UINT64_FORMAT " rows missing",
							b->runs[bad]->nrows - s->br[bad].returned)));
		if (s->total > 0)
		{
			size_output(b, s, s->total);
			choose_ranges(b);
			run_members(b, s->nranges, false, merge_member);
		}
		s->out_n = s->total;
		s->step = PREP_DONE;
	}
}

static void *
driver_main(void *arg)
{
	GsBatchMerge *b = (GsBatchMerge *) arg;

	prepare_on_driver(b, b->prep, b->prev);
	pthread_mutex_lock(&b->mutex);
	b->done = true;
	pthread_cond_signal(&b->cond);
	pthread_mutex_unlock(&b->mutex);
	return NULL;
}

static void stop_driver_live(GsLiveThreads *live);

/*
 * The driver prepares the side after cur; where it cannot start, the
 * backend prepares it when it is needed
 */
static void
start_driver(GsBatchMerge *b)
{
	Assert(!b->running);
	b->prep = &b->side[1 - b->cur];
	b->prev = &b->side[b->cur];
	b->prep->step = PREP_NONE;
	b->done = false;
	b->stop = 0;
	if (gs_start_threads(&b->driver, 1, driver_main, b, 0) != 1)
		return;
	b->running = true;
	gs_live_threads_add(&b->live, stop_driver_live);
}

/* joins the driver: the side keeps the step it got to */
static void
join_driver(GsBatchMerge *b)
{
	pthread_join(b->driver, NULL);
	b->running = false;
	gs_live_threads_remove(&b->live);
}

/* stops the driver now (an abort, a rewind, the end) */
static void
stop_driver(GsBatchMerge *b)
{
	if (!b->running)
		return;
	__atomic_store_n(&b->stop, 1, __ATOMIC_RELEASE);
	join_driver(b);
}

/*
 * An abort's: the driver goes; a merge of an enclosing subtransaction
 * prepares on the backend when read again
 */
static void
stop_driver_live(GsLiveThreads *live)
{
	stop_driver((GsBatchMerge *) ((char *) live - offsetof(GsBatchMerge, live)));
}

/* waits for the driver to finish, looking at interrupts, and joins it */
static void
wait_driver(GsBatchMerge *b)
{
	instr_time	start,
				now;

	INSTR_TIME_SET_CURRENT(start);
	pthread_mutex_lock(&b->mutex);
	while (!b->done)
	{
		struct timespec until;

		clock_gettime(CLOCK_REALTIME, &until);
		until.tv_nsec += GS_BATCH_WAIT_NS;
		if (until.tv_nsec >= 1000000000L)
		{
			until.tv_sec++;
			until.tv_nsec -= 1000000000L;
		}
		(void) pthread_cond_timedwait(&b->cond, &b->mutex, &until);
		if (b->done)
			break;
		pthread_mutex_unlock(&b->mutex);
		/* a cancel throws here: the abort callback stops the driver */
		CHECK_FOR_INTERRUPTS();
		pthread_mutex_lock(&b->mutex);
	}
	pthread_mutex_unlock(&b->mutex);
	join_driver(b);
	INSTR_TIME_SET_CURRENT(now);
	INSTR_TIME_SUBTRACT(now, start);
	b->ms_waited += INSTR_TIME_GET_MILLISEC(now);
}

/*
 * Switches to the next batch, prepared by the driver or here; false when
 * the runs are done.  The side left is where the driver prepares the
 * batch after: its rows were all returned.  (Not inlined: gs_batch_next,
 * called once a row, then needs no stack frame of its own.)
 */
static pg_noinline bool
next_batch(GsBatchMerge *b)
{
	int			nx = 1 - b->cur;
	BatchSide  *s = &b->side[nx];

	if (b->running)
		wait_driver(b);
	prepare_on_backend(b, s, &b->side[b->cur]);
	b->cur = nx;
	b->out_i = 0;
	b->side[1 - nx].step = PREP_NONE;
	if (s->out_n == 0)
	{
		b->finished = true;
		return false;
	}
	b->threads_used = Max(b->threads_used, Min(b->nthreads, s->nranges));
	b->nbatches++;
	b->nranges_total += s->nranges;
	if (b->overlap)
		start_driver(b);
	return true;
}

/*
 * Closes the runs' own descriptors: at the end of the merge, or when its
 * memory goes (a reset callback: an ERROR's cleanup too), the driver
 * stopped first
 */
static void
close_fds(GsBatchMerge *b)
{
	int			r;

	stop_driver(b);
	/* (a run without its own descriptor is read by the backend) */
	b->overlap = false;
	for (r = 0; r < b->nruns; r++)
	{
		if (b->fds[r] >= 0)
		{
			close(b->fds[r]);
			ReleaseExternalFD();
			b->fds[r] = -1;
		}
	}
}

static void
batch_release(void *arg)
{
	close_fds((GsBatchMerge *) arg);
}

/*
 * A descriptor of its own for each run in a file, for the threads' reads:
 * a duplicate of fd.c's, which fd.c may close and reopen under another
 * number whenever it runs short of descriptors, and which the threads must
 * not reach through fd.c.  Counted as an external descriptor; a run that
 * gets none is read by the backend through fd.c instead, and then no
 * driver runs (it could not read that run).
 */
static void
open_fds(GsBatchMerge *b)
{
	int			r;

	b->overlap = b->nthreads > 1;
	for (r = 0; r < b->nruns; r++)
	{
		GsRun	   *run = b->runs[r];

		b->fds[r] = -1;
		if (run->mem_keys)
			continue;
		if (run->file >= 0 && b->nthreads > 1 && AcquireExternalFD())
		{
			b->fds[r] = dup(FileGetRawDesc(run->file));
			if (b->fds[r] < 0)
				ReleaseExternalFD();
		}
		if (b->fds[r] < 0)
			b->overlap = false;
	}
}

/*
 * Each side's windows, and pointer arrays for about as many rows as the
 * windows hold (the runs' mean row sizes; a larger batch grows them)
 */
static void
size_sides(GsBatchMerge *b)
{
	uint64		rows = 0;
	int			r,
				i;

	for (r = 0; r < b->nruns; r++)
	{
		GsRun	   *run = b->runs[r];

		if (run->mem_keys)
			rows += Min(run->nrows, GS_BATCH_MEM_ROWS);
		else if (run->bytes > 0 && run->nrows > 0)
			rows += b->window / Max(run->bytes / run->nrows, 1) + 1;
	}
	for (i = 0; i < 2; i++)
	{
		BatchSide  *s = &b->side[i];

		s->br = MemoryContextAllocZero(b->cxt, sizeof(BatchRun) * b->nruns);
		for (r = 0; r < b->nruns; r++)
			if (!b->runs[r]->mem_keys)
				size_window(b, &s->br[r], b->window);
		size_output(b, s, rows + rows / 4);
	}
}

GsBatchMerge *
gs_batch_begin(MemoryContext cxt, GsRun **runs, int nruns, int nthreads,
			   Size bufsize)
{
	GsBatchMerge *b;

	if (nruns < 1 || nruns > GS_BATCH_MAX_RUNS)
		elog(ERROR, "GpuSort batched merge of %d runs", nruns);
	b = MemoryContextAllocZero(cxt, sizeof(GsBatchMerge));
	b->cxt = cxt;
	b->runs = runs;
	b->nruns = nruns;
	b->nwords = runs[0]->nwords;
	b->nthreads = Max(1, Min(nthreads, GS_MAX_THREADS));
	b->window = MAXALIGN(Max(bufsize, (Size) BLCKSZ));
	b->split = MemoryContextAlloc(cxt, sizeof(uint64) * nruns *
								  (GS_BATCH_MAX_RANGES + 1));
	b->samples = MemoryContextAlloc(cxt, sizeof(Sample) * nruns *
									GS_BATCH_MAX_RANGES);
	b->tasks = MemoryContextAlloc(cxt, sizeof(int) * nruns);
	b->fds = MemoryContextAlloc(cxt, sizeof(int) * nruns);
	memset(b->fds, -1, sizeof(int) * nruns);
	b->row.nwords = b->nwords;
	size_sides(b);
	pthread_mutex_init(&b->mutex, NULL);
	pthread_cond_init(&b->cond, NULL);
	b->cb.func = batch_release;
	b->cb.arg = b;
	MemoryContextRegisterResetCallback(cxt, &b->cb);
	gs_batch_rewind(b);
	/* (after the rewind: a run being written is flushed to its file) */
	open_fds(b);
	return b;
}

/* the driver stops, the runs' own descriptors are closed (before the runs' files are) */
void
gs_batch_end(GsBatchMerge *b)
{
	close_fds(b);
}

GsRun *
gs_batch_next(GsBatchMerge *b)
{
	BatchSide  *s = &b->side[b->cur];

	if (b->out_i == s->out_n)
	{
		if (b->finished || !next_batch(b))
			return NULL;
		s = &b->side[b->cur];
	}
	/* the batch was merged a while ago: its rows are out of cache */
	if (b->out_i + GS_BATCH_PREFETCH < s->out_n)
		__builtin_prefetch(s->out_tup[b->out_i + GS_BATCH_PREFETCH]);
	b->row.key = s->out_key[b->out_i];
	b->row.tup = s->out_tup[b->out_i];
	b->out_i++;
	return &b->row;
}

/*
 * To the first row: side 1 - cur, whose batch the first one follows, is
 * made empty, with nothing read and nothing taken
 */
void
gs_batch_rewind(GsBatchMerge *b)
{
	BatchSide  *empty;
	int			r;

	stop_driver(b);
	b->cur = 1;
	empty = &b->side[b->cur];
	for (r = 0; r < b->nruns; r++)
	{
		BatchRun   *br = &empty->br[r];

		/* a file run with no rows (known) needs no read */
		br->more = gs_run_rewind(b->runs[r]) && !b->runs[r]->mem_keys;
		br->len = 0;
		br->fileend = 0;
		br->first = br->n = br->take = br->returned = 0;
	}
	empty->step = PREP_DONE;
	empty->out_n = 0;
	b->side[0].step = PREP_NONE;
	b->out_i = 0;
	b->finished = false;
}

void
gs_batch_stats(GsBatchMerge *b, int *nthreads, uint64 *nbatches,
			   uint64 *nranges, double *ms_waited)
{
	*nthreads = b->threads_used;
	*nbatches = b->nbatches;
	*nranges = b->nranges_total;
	*ms_waited = b->ms_waited;
}
