/*-------------------------------------------------------------------------
 *
 * spillbatch.c
 *	  The merge of sorted runs whose keys decide the order, in batches that
 *	  threads merge at once, cut into key ranges.
 *
 * Where the keys alone order the rows (no comparator: spillmerge.h), the
 * merge needs nothing of PostgreSQL's but the rows' bytes, so threads can
 * do it.  A window of every run is read into memory, the threads merge
 * those windows into an array of row pointers, and the backend hands the
 * rows out of that array one at a time, as the tree of losers did: no
 * second copy of the rows is made, and a row stays valid until the next
 * call, the next batch being read only when the array is used up.  The
 * backend's share is the bound, the pivots and the handing out; the rest,
 * reading included, is the threads'.
 *
 * A batch:
 *
 *	 1. Windows.  A run in a file has one buffer of bufsize bytes: the rows
 *		the last batch did not take stay, and one large read fills the rest.
 *		With more than one thread, the threads read (pread on a descriptor
 *		of the run's own, open_fds: fd.c is the backend's alone) and scan
 *		the buffers, a run each, for the start of every whole row (offs[]);
 *		alone, the backend reads through fd.c (gs_run_load).  A run in
 *		memory (the sort's last one) shows its next GS_BATCH_MEM_ROWS rows.
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
 *		one range (or one run to scan) at a time, so that a thread the
 *		scheduler holds back on a busy machine leaves its share to the
 *		others rather than holding up the batch.
 *
 * Invariant: between calls, out[out_i .. out_n) are the rows still to be
 * returned of the batch, in merge order, every one of them before every
 * row of the runs not in out[0 .. out_n); take of each run's window are
 * in the batch, and go from it when the next batch is read.
 *
 * Threads follow threads.h's rules: they read files and buffers and write
 * the buffers and arrays the backend allocated, nothing else; a failed read
 * or an impossible row length is left in the run's read_errno or badlen for
 * the backend to report after the join.  A cancel stops
 * them (gs_slice_stopped) and is thrown once they are joined.
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include <unistd.h>

#include "storage/fd.h"
#include "utils/memutils.h"

#include "spillbatch.h"
#include "spillmerge.h"
#include "threads_backend.h"

/* rows of a run in memory in one window */
#define GS_BATCH_MEM_ROWS		((uint64) 1 << 18)

/* ranges a batch is cut into a thread, and rows a range has at least */
#define GS_BATCH_RANGES_PER_THREAD	4
#define GS_BATCH_RANGE_ROWS		1024
#define GS_BATCH_MAX_RANGES		(GS_BATCH_RANGES_PER_THREAD * GS_MAX_THREADS)

/* rows ahead of the one returned whose first bytes are fetched into cache */
#define GS_BATCH_PREFETCH		8

/* a run's window: the rows it has read and not yet returned */
typedef struct BatchRun
{
	GsRun	   *run;
	bool		more;			/* rows beyond the window */
	const char *base;			/* a file's window: where its first row is */
	Size	   *offs;			/* [cap]: rows' offsets from base; offs[n]: past
								 * the last whole row */
	uint64		cap;
	Size		consumed;		/* bytes of the batch taken, to drop */
	uint64		first;			/* a run in memory: its window's first row */
	uint64		n;				/* rows in the window */
	uint64		take;			/* the window's first take rows: this batch */
	uint64		returned;		/* rows taken since the start */
	uint32		badlen;			/* the scan found this impossible length */
	int			fd;				/* a file's own descriptor, or -1 */
	bool		read;			/* a thread is to read the window (pread) */
	int			read_errno;		/* what its read failed with, or 0 */
} BatchRun;

/* a sampled row: a pivot candidate, standing for weight rows */
typedef struct Sample
{
	const uint64 *key;
	int			run;
	uint64		pos;
	double		weight;
} Sample;

struct GsBatchMerge
{
	MemoryContext cxt;
	int			nruns;
	int			nwords;
	int			nthreads;
	Size		bufsize;		/* a file run's buffer */
	BatchRun   *br;				/* [nruns] */
	bool		started;		/* a batch was read */

	/* the batch: K ranges; split[p * nruns + r]: run r's first row of p */
	int			nranges;
	uint64	   *split;			/* [(GS_BATCH_MAX_RANGES + 1) * nruns] */
	Sample	   *samples;		/* [GS_BATCH_MAX_RANGES * nruns] */
	const uint64 **out_key;		/* [out_cap]: the batch's rows, in order */
	MinimalTuple *out_tup;
	uint64		out_cap;
	uint64		out_n;
	uint64		out_i;			/* the next to return */
	GsRun		cur;			/* what gs_batch_next returns */

	/* the file runs to scan: runs scan[0 .. nscan) */
	int		   *scan;
	int			nscan;
	int			next_task;		/* atomic: the members' next task */

	int			threads_used;
	uint64		nbatches;
	uint64		nranges_total;
};

static inline const uint64 *
row_key(const BatchRun *br, uint64 i, int nwords)
{
	if (br->run->mem_keys)
		return br->run->mem_keys + (br->first + i) * nwords;
	return (const uint64 *) (br->base + br->offs[i]);
}

static inline MinimalTuple
row_tup(const BatchRun *br, uint64 i, int nwords)
{
	if (br->run->mem_keys)
		return br->run->mem_tuples[br->first + i];
	return (MinimalTuple) (br->base + br->offs[i] + sizeof(uint64) * nwords);
}

/*
 * Rows of br's first n before key k of run kr: those with (key, run) below
 * (k, kr), the rows' run being br's (not kr)
 */
static uint64
count_before(const BatchRun *br, uint64 n, int nwords, const uint64 *k,
			 bool ties_before)
{
	uint64		lo = 0,
				hi = n;

	while (lo < hi)
	{
		uint64		mid = lo + (hi - lo) / 2;
		int			c = gs_key_cmp(row_key(br, mid, nwords), k, nwords);

		if (c < 0 || (c == 0 && ties_before))
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

/* the whole rows from br's base on, into offs (a thread: no ereport) */
static void
scan_window(BatchRun *br, int nwords)
{
	const char *p = br->base;
	Size		avail = br->run->buflen - br->run->pos;
	Size		kb = sizeof(uint64) * nwords;
	Size		off = 0;
	uint64		n = 0;
	uint32		len;
	Size		rec;

	br->badlen = 0;
	while (avail - off >= kb + sizeof(len))
	{
		memcpy(&len, p + off + kb, sizeof(len));
		if (len < SizeofMinimalTupleHeader ||
			len > MaxAllocHugeSize - kb - MAXIMUM_ALIGNOF)
		{
			br->badlen = Max(len, 1);
			break;
		}
		rec = kb + MAXALIGN(len);
		if (avail - off < rec)
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
 * Fills the window's buffer from the run's own descriptor, as gs_run_load
 * does through fd.c (a thread: pread, no ereport); the end of the file
 * leaves no more rows beyond the window
 */
static void
read_window(BatchRun *br)
{
	GsRun	   *run = br->run;
	ssize_t		got;

	br->read_errno = 0;
	while (run->buflen < run->bufsize)
	{
		got = pread(br->fd, run->buf + run->buflen, run->bufsize - run->buflen,
					run->fileoff);
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
		run->buflen += got;
		run->fileoff += got;
	}
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
scan_member(void *arg, uint64 lo, uint64 hi)
{
	GsBatchMerge *b = (GsBatchMerge *) arg;
	int			t;

	while ((t = next_task(b, b->nscan)) >= 0)
	{
		BatchRun   *br = &b->br[b->scan[t]];

		if (br->read)
			read_window(br);
		if (br->read_errno == 0)
			scan_window(br, b->nwords);
	}
}

/* runs fn on as many members as there are threads and tasks */
static void
run_members(GsBatchMerge *b, int ntasks,
			void (*fn) (void *arg, uint64 lo, uint64 hi))
{
	b->next_task = 0;
	gs_cpu_for_tasks(Min(ntasks, b->nthreads), b->nthreads, fn, b);
}

/* offs room for a buffer of the run's size (rows are kb + 16 bytes at least) */
static void
size_offs(GsBatchMerge *b, BatchRun *br)
{
	Size		minrow = sizeof(uint64) * b->nwords + MAXALIGN(SizeofMinimalTupleHeader);
	uint64		cap = br->run->bufsize / minrow + 2;

	if (cap <= br->cap)
		return;
	if (br->offs)
		pfree(br->offs);
	br->offs = MemoryContextAllocHuge(b->cxt, sizeof(Size) * cap);
	br->cap = cap;
}

/*
 * A file run's window after the scan: reports what the scan found wrong,
 * and reads on where a row is longer than the buffer
 */
static void
check_window(GsBatchMerge *b, BatchRun *br)
{
	if (br->read_errno != 0)
	{
		errno = br->read_errno;
		ereport(ERROR,
				(errcode_for_file_access(),
				 errmsg("could not read GpuSort temporary file: %m")));
	}
	for (;;)
	{
		if (br->badlen != 0)
			ereport(ERROR,
					(errcode(ERRCODE_DATA_CORRUPTED),
					 errmsg("invalid row length %u in GpuSort temporary file",
							br->badlen)));
		if (br->n > 0 || !br->more)
			break;
		br->more = !gs_run_load(br->run, 0, br->run->bufsize * 2);
		br->base = br->run->buf + br->run->pos;
		size_offs(b, br);
		scan_window(br, b->nwords);
	}
	if (!br->more && br->offs[br->n] != br->run->buflen - br->run->pos)
		ereport(ERROR,
				(errcode(ERRCODE_DATA_CORRUPTED),
				 errmsg("could not read GpuSort temporary file: it ends within a row")));
}

/* drops the last batch's rows from the windows and reads the next ones */
static void
load_windows(GsBatchMerge *b)
{
	int			r;

	b->nscan = 0;
	for (r = 0; r < b->nruns; r++)
	{
		BatchRun   *br = &b->br[r];
		GsRun	   *run = br->run;

		if (run->mem_keys)
		{
			uint64		left;

			br->first += br->take;
			left = run->nrows - br->first;
			br->n = Min(left, GS_BATCH_MEM_ROWS);
			br->more = left > br->n;
			continue;
		}
		/* the threads read where the run has a descriptor of its own */
		br->read = br->more && br->fd >= 0;
		if (br->read)
			gs_run_make_room(run, br->consumed, b->bufsize);
		else if (br->more)
			br->more = !gs_run_load(run, br->consumed, b->bufsize);
		else
			run->pos += br->consumed;
		br->consumed = 0;
		br->base = run->buf + run->pos;
		size_offs(b, br);
		b->scan[b->nscan++] = r;
	}
	run_members(b, b->nscan, scan_member);
	for (r = 0; r < b->nscan; r++)
		check_window(b, &b->br[b->scan[r]]);
}

/* each run's take (step 2); returns the batch's rows */
static uint64
choose_takes(GsBatchMerge *b)
{
	int			bound = -1;
	const uint64 *bk = NULL;
	uint64		total = 0;
	int			r;

	for (r = 0; r < b->nruns; r++)
	{
		BatchRun   *br = &b->br[r];
		const uint64 *k;

		if (!br->more || br->n == 0)
			continue;
		k = row_key(br, br->n - 1, b->nwords);
		/* on equal keys the lower run's row comes first: keep it */
		if (bound < 0 || gs_key_cmp(k, bk, b->nwords) < 0)
		{
			bound = r;
			bk = k;
		}
	}
	for (r = 0; r < b->nruns; r++)
	{
		BatchRun   *br = &b->br[r];

		if (bound < 0 || r == bound)
			br->take = br->n;
		else
			br->take = count_before(br, br->n, b->nwords, bk, r < bound);
		total += br->take;
	}
	return total;
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
	int			r;

	for (r = 0; r < b->nruns; r++)
	{
		BatchRun   *br = &b->br[r];

		b->split[p * b->nruns + r] = r == s->run ? s->pos :
			count_before(br, br->take, b->nwords, s->key, r < s->run);
	}
}

/* the pivots of ranges 1 .. k - 1 (step 3) */
static void
choose_pivots(GsBatchMerge *b, int k, uint64 total)
{
	int			ns = 0;
	int			p = 1;
	double		cum = 0;
	int			r,
				j;

	for (r = 0; r < b->nruns; r++)
	{
		BatchRun   *br = &b->br[r];

		for (j = 0; br->take > 0 && j < k; j++)
		{
			Sample	   *s = &b->samples[ns++];

			s->pos = (uint64) ((j + 0.5) * br->take / k);
			s->key = row_key(br, s->pos, b->nwords);
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
			b->split[p * b->nruns + r] = b->br[r].take;
}

/* the batch's ranges (step 3) */
static void
choose_ranges(GsBatchMerge *b, uint64 total)
{
	int			k = 1;
	int			r;

	if (b->nthreads > 1)
		k = (int) Min((uint64) GS_BATCH_RANGES_PER_THREAD * b->nthreads,
					  total / GS_BATCH_RANGE_ROWS);
	k = Max(k, 1);
	for (r = 0; r < b->nruns; r++)
	{
		b->split[r] = 0;
		b->split[k * b->nruns + r] = b->br[r].take;
	}
	if (k > 1)
		choose_pivots(b, k, total);
	b->nranges = k;
}

/*
 * A thread's merge of one range: the tree of losers over the runs' parts
 * of the range, and each run's current row (its key NULL past its part)
 */
typedef struct RangeMerge
{
	const GsBatchMerge *b;
	uint64		cur[GS_BATCH_MAX_RUNS];
	uint64		end[GS_BATCH_MAX_RUNS];
	const uint64 *key[GS_BATCH_MAX_RUNS];
	int			tree[GS_BATCH_MAX_RUNS];
} RangeMerge;

/* run r's current row's key, or NULL past its part */
static inline void
set_key(RangeMerge *rm, int r)
{
	rm->key[r] = rm->cur[r] < rm->end[r] ?
		row_key(&rm->b->br[r], rm->cur[r], rm->b->nwords) : NULL;
}

/* does run x's current row come before run y's?  (past its part: never) */
static inline bool
beats(const RangeMerge *rm, int x, int y)
{
	int			c;

	if (rm->key[x] == NULL)
		return false;
	if (rm->key[y] == NULL)
		return true;
	c = gs_key_cmp(rm->key[x], rm->key[y], rm->b->nwords);
	return c < 0 || (c == 0 && x < y);
}

/* the tournament below node (as spillmerge.c's play) */
static int
play(RangeMerge *rm, int node)
{
	int			l,
				r;

	if (node >= rm->b->nruns)
		return node - rm->b->nruns;
	l = play(rm, 2 * node);
	r = play(rm, 2 * node + 1);
	if (beats(rm, l, r))
	{
		rm->tree[node] = r;
		return l;
	}
	rm->tree[node] = l;
	return r;
}

/* merges range p into the output (a thread; step 4) */
static void
merge_range(GsBatchMerge *b, int p)
{
	RangeMerge	rm;
	uint64		o = 0;
	int			nr = b->nruns;
	int			r,
				w,
				q;

	rm.b = b;
	for (r = 0; r < nr; r++)
	{
		rm.cur[r] = b->split[p * nr + r];
		rm.end[r] = b->split[(p + 1) * nr + r];
		o += rm.cur[r];
		set_key(&rm, r);
	}
	w = play(&rm, 1);
	while (rm.key[w] != NULL)
	{
		b->out_key[o] = rm.key[w];
		b->out_tup[o] = row_tup(&b->br[w], rm.cur[w], b->nwords);
		rm.cur[w]++;
		set_key(&rm, w);
		if ((++o & (GS_INTERRUPT_EVERY - 1)) == 0 && gs_slice_stopped())
			return;
		/* the winner's path to the root */
		for (q = (nr + w) / 2; q > 0; q /= 2)
		{
			if (beats(&rm, rm.tree[q], w))
			{
				int			t = rm.tree[q];

				rm.tree[q] = w;
				w = t;
			}
		}
	}
}

/* a member's part of step 4 */
static void
merge_member(void *arg, uint64 lo, uint64 hi)
{
	GsBatchMerge *b = (GsBatchMerge *) arg;
	int			p;

	while ((p = next_task(b, b->nranges)) >= 0)
		merge_range(b, p);
}

/* the batch's rows leave the windows; a file run's end is checked */
static void
consume(GsBatchMerge *b)
{
	int			r;

	for (r = 0; r < b->nruns; r++)
	{
		BatchRun   *br = &b->br[r];

		br->returned += br->take;
		if (!br->run->mem_keys)
			br->consumed = br->offs[br->take];
		if (!br->run->mem_keys && !br->more && br->take == br->n &&
			!br->run->to_eof && br->returned != br->run->nrows)
			ereport(ERROR,
					(errcode(ERRCODE_DATA_CORRUPTED),
					 errmsg("could not read GpuSort temporary file: " UINT64_FORMAT " rows missing",
							br->run->nrows - br->returned)));
	}
}

/* the output arrays, for n rows */
static void
size_output(GsBatchMerge *b, uint64 n)
{
	if (n <= b->out_cap)
		return;
	n = Max(n, b->out_cap * 2);
	if (b->out_key)
	{
		pfree(b->out_key);
		pfree(b->out_tup);
	}
	b->out_key = MemoryContextAllocHuge(b->cxt, sizeof(uint64 *) * n);
	b->out_tup = MemoryContextAllocHuge(b->cxt, sizeof(MinimalTuple) * n);
	b->out_cap = n;
}

/* the next batch into the output arrays; false when the runs are done */
static bool
next_batch(GsBatchMerge *b)
{
	uint64		total;

	if (b->started)
		consume(b);
	b->started = true;
	load_windows(b);
	total = choose_takes(b);
	b->out_n = b->out_i = 0;
	if (total == 0)
		return false;
	size_output(b, total);
	choose_ranges(b, total);
	run_members(b, b->nranges, merge_member);
	b->threads_used = Max(b->threads_used, Min(b->nthreads, b->nranges));
	b->nbatches++;
	b->nranges_total += b->nranges;
	b->out_n = total;
	return true;
}

/*
 * Closes the runs' own descriptors: at the end of the merge, or when its
 * memory goes (a reset callback: an ERROR's cleanup too)
 */
static void
close_fds(void *arg)
{
	GsBatchMerge *b = (GsBatchMerge *) arg;
	int			r;

	for (r = 0; r < b->nruns; r++)
	{
		if (b->br[r].fd >= 0)
		{
			close(b->br[r].fd);
			ReleaseExternalFD();
			b->br[r].fd = -1;
		}
	}
}

/*
 * A descriptor of its own for each run in a file, for the threads' reads:
 * a duplicate of fd.c's, which fd.c may close and reopen under another
 * number whenever it runs short of descriptors, and which the threads must
 * not reach through fd.c.  Counted as an external descriptor; a run that
 * gets none is read by the backend through fd.c instead.
 */
static void
open_fds(GsBatchMerge *b)
{
	MemoryContextCallback *cb = MemoryContextAlloc(b->cxt, sizeof(*cb));
	int			r;

	cb->func = close_fds;
	cb->arg = b;
	MemoryContextRegisterResetCallback(b->cxt, cb);
	for (r = 0; r < b->nruns; r++)
	{
		GsRun	   *run = b->br[r].run;

		b->br[r].fd = -1;
		if (run->file < 0 || !AcquireExternalFD())
			continue;
		b->br[r].fd = dup(FileGetRawDesc(run->file));
		if (b->br[r].fd < 0)
			ReleaseExternalFD();
	}
}

GsBatchMerge *
gs_batch_begin(MemoryContext cxt, GsRun **runs, int nruns, int nthreads,
			   Size bufsize)
{
	GsBatchMerge *b = MemoryContextAllocZero(cxt, sizeof(GsBatchMerge));
	int			r;

	if (nruns < 1 || nruns > GS_BATCH_MAX_RUNS)
		elog(ERROR, "GpuSort batched merge of %d runs", nruns);
	b->cxt = cxt;
	b->nruns = nruns;
	b->nwords = runs[0]->nwords;
	b->nthreads = Max(1, Min(nthreads, GS_MAX_THREADS));
	b->bufsize = bufsize;
	b->br = MemoryContextAllocZero(cxt, sizeof(BatchRun) * nruns);
	for (r = 0; r < nruns; r++)
		b->br[r].run = runs[r];
	b->split = MemoryContextAlloc(cxt, sizeof(uint64) * nruns *
								  (GS_BATCH_MAX_RANGES + 1));
	b->samples = MemoryContextAlloc(cxt, sizeof(Sample) * nruns *
									GS_BATCH_MAX_RANGES);
	b->scan = MemoryContextAlloc(cxt, sizeof(int) * nruns);
	b->cur.nwords = b->nwords;
	gs_batch_rewind(b);
	/* (after the rewind: a run being written is flushed to its file) */
	if (b->nthreads > 1)
		open_fds(b);
	else
		for (r = 0; r < nruns; r++)
			b->br[r].fd = -1;
	return b;
}

/* the runs' own descriptors are closed (before the runs' files are) */
void
gs_batch_end(GsBatchMerge *b)
{
	close_fds(b);
}

GsRun *
gs_batch_next(GsBatchMerge *b)
{
	if (b->out_i == b->out_n && !next_batch(b))
		return NULL;
	/* the batch was merged a while ago: its rows are out of cache */
	if (b->out_i + GS_BATCH_PREFETCH < b->out_n)
		__builtin_prefetch(b->out_tup[b->out_i + GS_BATCH_PREFETCH]);
	b->cur.key = b->out_key[b->out_i];
	b->cur.tup = b->out_tup[b->out_i];
	b->out_i++;
	return &b->cur;
}

void
gs_batch_rewind(GsBatchMerge *b)
{
	int			r;

	for (r = 0; r < b->nruns; r++)
	{
		BatchRun   *br = &b->br[r];

		/* a file run with no rows (known) needs no read */
		br->more = gs_run_rewind(br->run) && !br->run->mem_keys;
		br->first = br->n = br->take = br->returned = 0;
		br->consumed = 0;
		br->base = NULL;
	}
	b->started = false;
	b->out_n = b->out_i = 0;
}

void
gs_batch_stats(GsBatchMerge *b, int *nthreads, uint64 *nbatches,
			   uint64 *nranges)
{
	*nthreads = b->threads_used;
	*nbatches = b->nbatches;
	*nranges = b->nranges_total;
}
