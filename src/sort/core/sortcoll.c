/*-------------------------------------------------------------------------
 *
 * sortcoll.c
 *	  Settling runs of equal keys by a collated string column on threads,
 *	  where PostgreSQL's comparator would settle them on the backend's
 *	  thread alone.
 *
 * A run of rows whose keys tie in a libc column's strxfrm prefix is sorted
 * from that column on by the comparators (sortties.c), or refined from the
 * transform first (sortrefine.c), whose cost bound hands a group back to
 * the comparators where strcoll costs less than more of the transform:
 * long strings that share most of their bytes.  Such comparisons are
 * strcoll_l calls, then strcmp where strcoll calls two strings equal
 * (varstr_cmp), and those are thread-safe with the collation's locale_t
 * (libcoll.c), as ICU's ucol_strcollUTF8 is with the collation's collator,
 * while a SortSupport is not (its buffers are the backend's).
 * Stock PostgreSQL's parallel sort spreads the same calls over its
 * workers; one thread here lost to it by 2x (random query 1406: 78,750
 * rows tied in the prefixes of 1-10 kB strings, ties 2.25 s).
 *
 * So the groups are collected (gs_coll_add) and settled together
 * (gs_coll_settle), in batches:
 *
 *	 1. the backend reads each row's value into an entry (its bytes, length
 *		and row number), detoasting what must be, in the batch's context;
 *	 2. threads sort each group's entries by strcoll_l, strcmp and last the
 *		row number, into NUL-terminated copies in buffers of their task's
 *		(no palloc on a thread).  A group of GS_COLL_SPLIT_MIN rows or more
 *		is sorted in pieces, two per thread, merged pairwise in rounds:
 *		long strings that share a long prefix often make one large group
 *		(4,920 of 76,211 rows in query 1406, most of its time);
 *	 3. the backend writes the order back; rows of one value (the same
 *		bytes under a deterministic collation, else those the collator
 *		calls equal) go on to the later sort columns (gs_later_add: their
 *		keys on threads, or the comparators).  Where ICU failed in a
 *		comparison, the batch's groups go to the comparators instead, which
 *		raise its error as stock would.
 *
 * Invariant: a group ends in varstr_cmp's order, equal values in the order
 * of their rows, as the comparators leave it (tie_compare ends on the row
 * number too), so the output does not depend on which path a group took.
 *
 * Bounds: a batch holds GS_COLL_BATCH_ROWS rows and detoasts about
 * GS_COLL_BATCH_BYTES at most (then it is settled and another begins), and a group holding a value longer than
 * GS_COLL_MAX_VALUE, or a NULL, goes to the comparators, so that the
 * tasks' buffers stay small.  Fewer than GS_COLL_MIN_ROWS rows in all
 * cost the threads' start more than they save: the comparators settle them.
 * A group is sorted by one task; a cancel makes every comparison answer
 * "equal" at once, and the pass throws after the join.
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include <math.h>

#include "miscadmin.h"
#include "port/atomics.h"
#include "utils/memutils.h"

#include "runtime/settings.h"
#include "threads/threads_backend.h"
#include "sortstate.h"

/* rows from which threads pay; a batch's rows and detoasted bytes; a value */
#define GS_COLL_MIN_ROWS		256
#define GS_COLL_BATCH_ROWS		((uint64) 1 << 20)
#define GS_COLL_BATCH_BYTES		((Size) 64 << 20)
#define GS_COLL_MAX_VALUE		((Size) 64 << 10)
/* a group this large is sorted in pieces of at least GS_COLL_PIECE_MIN rows */
#define GS_COLL_SPLIT_MIN		512
#define GS_COLL_PIECE_MIN		256
/* a strcoll call's own cost, in bytes compared */
#define GS_COLL_CALL_BYTES		16.0

/* one row of a group: its value's bytes, and its number in the store */
typedef struct CollEntry
{
	const char *data;
	uint32		len;
	uint32		row;
} CollEntry;

struct GsColl
{
	int			col;
	GsLater    *later;			/* where rows of one value go */
	GsRanges	ranges;			/* the groups, in the sort's order */
};

/* a sorted run of a split group's entries [lo, hi), and its group */
typedef struct CollRun
{
	uint64		lo;
	uint64		hi;
	uint64		group;
} CollRun;

/* a merge of a round: entries [lo, mid) and [mid, hi), both sorted */
typedef struct CollMerge
{
	uint64		lo;
	uint64		mid;
	uint64		hi;
} CollMerge;

/* one batch: its groups' entries, sorted by the tasks */
typedef struct CollBatch
{
	const GsKeySpec *keys;
	int			col;
	CollEntry  *ent;			/* [nrows] */
	uint64	   *gstart;			/* [ngroups + 1]: each group's entries */
	uint64		ngroups;
	uint64		nrows;
	uint64	   *pstart;			/* [npieces + 1]: the pieces qsort sorts */
	double	   *pcost;			/* [npieces]: each one's cost, roughly */
	uint64	   *byc;			/* [npieces]: the pieces, dearest first */
	pg_atomic_uint64 taken;		/* of byc, by the tasks */
	pg_atomic_uint32 failed;	/* a comparison failed (ICU) */
	uint64		npieces;
	CollRun    *runs;			/* [nruns]: a merge round's runs, in order */
	uint64		nruns;
	CollRun    *next;			/* the next round's */
	CollMerge  *merges;			/* [nmerges] */
	uint64		nmerges;
	CollEntry  *tmp;			/* [nrows]: where a merge writes */
	uint64		ntasks;
	Size		bufbytes;		/* a task's two buffers, each this long */
	char	   *bufs;			/* [ntasks][2][bufbytes] */
} CollBatch;

/* the sort's context of one task's qsort */
typedef struct CollCompareArg
{
	const CollBatch *b;
	char	   *abuf;
	char	   *bbuf;
	uint32		ncompares;
	bool		stopped;
	bool		failed;			/* ICU failed: see coll_settle_batch */
} CollCompareArg;

/*
 * Starts collecting the groups to settle from column c on, in cxt, when
 * column c is a collated string (gs_keys_collates_on_threads) and there are
 * threads: NULL otherwise,
 * and the caller settles each group as before.  Rows of one value go to
 * later (which may hold no later column).
 */
GsColl *
gs_coll_begin(GsSort *node, int c, GsLater *later, MemoryContext cxt)
{
	GsColl	   *coll;

	if (gpusort_threads() < 2 || !gs_keys_collates_on_threads(node->keys, c))
		return NULL;
	coll = MemoryContextAllocZero(cxt, sizeof(GsColl));
	coll->col = c;
	coll->later = later;
	coll->ranges.cxt = cxt;
	return coll;
}

/* rows order[lo, lo + len) tie before column c: settled by gs_coll_settle */
void
gs_coll_add(GsColl *coll, uint64 lo, uint64 len)
{
	gs_ranges_add(&coll->ranges, lo, len);
}

static int
coll_compare(const void *x, const void *y, void *p)
{
	const CollEntry *a = x;
	const CollEntry *b = y;
	CollCompareArg *arg = p;
	int			r;

	if (arg->stopped ||
		(++arg->ncompares % GS_INTERRUPT_EVERY == 0 && gs_slice_stopped()))
	{
		arg->stopped = true;
		return 0;
	}
	r = gs_keys_collate_in(arg->b->keys, arg->b->col, a->data, a->len,
						   b->data, b->len, arg->abuf, arg->bbuf, &arg->failed);
	if (arg->failed)
		pg_atomic_write_u32(&((CollBatch *) arg->b)->failed, 1);
	if (r != 0)
		return r;
	return (a->row > b->row) - (a->row < b->row);
}

static void
coll_arg_init(CollCompareArg *arg, const CollBatch *b, uint64 t)
{
	arg->b = b;
	arg->abuf = b->bufs + t * 2 * b->bufbytes;
	arg->bbuf = arg->abuf + b->bufbytes;
	arg->ncompares = 0;
	arg->stopped = false;
	arg->failed = false;
}

/*
 * Each task sorts the next piece not taken, the most expensive first
 * (b->byc): the long strings lie together in the sort's order, so any
 * fixed share of the pieces could hold most of the work.
 */
static void
coll_sort_tasks(void *p, uint64 tlo, uint64 thi)
{
	CollBatch  *b = (CollBatch *) p;
	uint64		t,
				k;

	for (t = tlo; t < thi; t++)
	{
		CollCompareArg arg;

		coll_arg_init(&arg, b, t);
		while ((k = pg_atomic_fetch_add_u64(&b->taken, 1)) < b->npieces)
		{
			uint64		piece = b->byc[k];

			qsort_arg(b->ent + b->pstart[piece],
					  b->pstart[piece + 1] - b->pstart[piece],
					  sizeof(CollEntry), coll_compare, &arg);
			if (arg.stopped)
				return;
		}
	}
}

/* merges each task's share of the round's merges, through tmp */
static void
coll_merge_tasks(void *p, uint64 tlo, uint64 thi)
{
	const CollBatch *b = (const CollBatch *) p;
	uint64		ntasks = Min(b->ntasks, b->nmerges);
	uint64		t,
				m;

	for (t = tlo; t < thi; t++)
	{
		CollCompareArg arg;
		uint64		mlo,
					mhi;

		coll_arg_init(&arg, b, t);
		gs_team_slice(b->nmerges, ntasks, t, &mlo, &mhi);
		for (m = mlo; m < mhi; m++)
		{
			const CollMerge *r = &b->merges[m];
			uint64		i = r->lo,
						j = r->mid,
						o = r->lo;

			while (i < r->mid && j < r->hi && !arg.stopped)
			{
				if (coll_compare(&b->ent[j], &b->ent[i], &arg) < 0)
					b->tmp[o++] = b->ent[j++];
				else
					b->tmp[o++] = b->ent[i++];
			}
			if (arg.stopped)
				return;
			while (i < r->mid)
				b->tmp[o++] = b->ent[i++];
			while (j < r->hi)
				b->tmp[o++] = b->ent[j++];
			memcpy(b->ent + r->lo, b->tmp + r->lo, sizeof(CollEntry) * (r->hi - r->lo));
		}
	}
}

/*
 * Merges the pieces of the split groups (b->runs, in order) pairwise, a
 * round at a time, each round's merges on threads, until each is one run.
 */
static void
coll_merge_runs(CollBatch *b, int nthreads)
{
	while (b->nruns > 0)
	{
		CollRun    *next = b->next;
		uint64		i = 0,
					n = 0;

		b->nmerges = 0;
		while (i < b->nruns)
		{
			const CollRun *r = &b->runs[i];

			if (i + 1 < b->nruns && r[1].group == r->group)
			{
				CollMerge  *m = &b->merges[b->nmerges++];

				m->lo = r->lo;
				m->mid = r->hi;
				m->hi = r[1].hi;
				next[n].lo = r->lo;
				next[n].hi = r[1].hi;
				next[n++].group = r->group;
				i += 2;
				continue;
			}
			/* the last of its group: kept where the group has others */
			if (n > 0 && next[n - 1].group == r->group)
				next[n++] = *r;
			i++;
		}
		if (b->nmerges == 0)
			break;
		gs_cpu_for_tasks(Min(b->ntasks, b->nmerges), nthreads,
						 coll_merge_tasks, b);
		b->next = b->runs;
		b->runs = next;
		b->nruns = n;
	}
}

/*
 * What sorting entries [lo, hi) costs, roughly: n log n comparisons of
 * their mean length (strcoll's cost grows with the bytes two strings
 * share, which their length bounds), plus each call's own.
 */
static double
coll_piece_cost(const CollBatch *b, uint64 lo, uint64 hi)
{
	double		bytes = 0;
	double		n = hi - lo;
	uint64		i;

	for (i = lo; i < hi; i++)
		bytes += b->ent[i].len;
	return n * log2(n + 1) * (GS_COLL_CALL_BYTES + bytes / n);
}

static int
coll_cost_desc(const void *x, const void *y, void *arg)
{
	const double *cost = arg;
	double		a = cost[*(const uint64 *) x];
	double		b = cost[*(const uint64 *) y];

	return (a < b) - (a > b);
}

/*
 * The pieces of the batch's groups: a group each, or GS_COLL_PIECE_MIN
 * rows or more each, up to two per thread, for a group of
 * GS_COLL_SPLIT_MIN rows or more, whose pieces become runs to merge.
 */
static void
coll_make_pieces(CollBatch *b, int nthreads)
{
	uint64		g,
				maxpieces = 0;

	for (g = 0; g < b->ngroups; g++)
	{
		uint64		n = b->gstart[g + 1] - b->gstart[g];

		maxpieces += (n >= GS_COLL_SPLIT_MIN) ?
			Min((uint64) 2 * nthreads, n / GS_COLL_PIECE_MIN) : 1;
	}
	b->pstart = palloc(sizeof(uint64) * (maxpieces + 1));
	b->pcost = palloc(sizeof(double) * maxpieces);
	b->byc = palloc(sizeof(uint64) * maxpieces);
	b->runs = palloc(sizeof(CollRun) * maxpieces);
	b->next = palloc(sizeof(CollRun) * maxpieces);
	b->merges = palloc(sizeof(CollMerge) * maxpieces);
	b->npieces = b->nruns = 0;
	for (g = 0; g < b->ngroups; g++)
	{
		uint64		lo = b->gstart[g];
		uint64		n = b->gstart[g + 1] - lo;
		uint64		parts = (n >= GS_COLL_SPLIT_MIN) ?
			Min((uint64) 2 * nthreads, n / GS_COLL_PIECE_MIN) : 1;
		uint64		k;

		for (k = 0; k < parts; k++)
		{
			uint64		plo,
						phi;

			gs_team_slice(n, parts, k, &plo, &phi);
			b->pcost[b->npieces] = coll_piece_cost(b, lo + plo, lo + phi);
			b->byc[b->npieces] = b->npieces;
			b->pstart[b->npieces++] = lo + plo;
			if (parts > 1)
			{
				b->runs[b->nruns].lo = lo + plo;
				b->runs[b->nruns].hi = lo + phi;
				b->runs[b->nruns++].group = g;
			}
		}
	}
	b->pstart[b->npieces] = b->nrows;
	qsort_arg(b->byc, b->npieces, sizeof(uint64), coll_cost_desc, b->pcost);
	pg_atomic_init_u64(&b->taken, 0);
	pg_atomic_init_u32(&b->failed, 0);
	if (b->nruns > 0)
		b->tmp = MemoryContextAllocHuge(CurrentMemoryContext,
										sizeof(CollEntry) * b->nrows);
}

/*
 * Reads the values of group order[lo, lo + len) into ent: false (nothing
 * kept) where one is NULL or longer than GS_COLL_MAX_VALUE.  *maxlen grows
 * to the longest, *detoasted by what detoasting took.
 */
static bool
coll_read_group(GsSort *node, int c, const uint32 *order, uint64 len,
				CollEntry *ent, Size *maxlen, Size *detoasted)
{
	TupleTableSlot *slot = node->row_slot;
	AttrNumber	attno = node->attnos[c];
	uint64		i;

	for (i = 0; i < len; i++)
	{
		bool		isnull;
		Datum		d;
		Size		n;

		ExecStoreMinimalTuple(node->tuples[order[i]], slot, false);
		d = slot_getattr(slot, attno, &isnull);
		if (isnull)
			return false;
		*detoasted += gs_keys_string_value(node->keys, c, d, &ent[i].data, &n);
		if (n > GS_COLL_MAX_VALUE)
			return false;
		ent[i].len = (uint32) n;
		ent[i].row = order[i];
		*maxlen = Max(*maxlen, n);
		gs_poll_interrupts(i + 1);
	}
	return true;
}

/*
 * Do two entries hold one value, as the collation sees it?  The same bytes
 * under a deterministic one; else the collator says (with bufs, the first
 * task's buffers, on the backend's thread once the tasks are done).
 */
static bool
coll_same(GsSort *node, const GsColl *coll, const CollEntry *a,
		  const CollEntry *b, char *bufs)
{
	bool		failed = false;

	if (a->len == b->len && memcmp(a->data, b->data, a->len) == 0)
		return true;
	if (gs_keys_collation_deterministic(node->keys, coll->col))
		return false;
	return gs_keys_collate_in(node->keys, coll->col, a->data, a->len,
							  b->data, b->len, bufs,
							  bufs + Max(a->len, b->len) + 1, &failed) == 0 &&
		!failed;
}

/*
 * Writes a sorted group's order back to order[lo, lo + len), and hands its
 * runs of one value to the later columns.
 */
static void
coll_write_group(GsSort *node, GsColl *coll, const CollEntry *ent,
				 uint32 *order, uint64 lo, uint64 len, char *bufs,
				 MemoryContext tiecxt)
{
	uint64		i,
				s = 0;

	for (i = 0; i < len; i++)
		order[lo + i] = ent[i].row;
	if (coll->col + 1 >= node->nkeys)
		return;
	for (i = 1; i <= len; i++)
	{
		if (i < len && coll_same(node, coll, &ent[s], &ent[i], bufs))
			continue;
		if (i - s > 1)
			gs_later_add(node, coll->later, order, lo + s, i - s, tiecxt);
		s = i;
	}
}

/*
 * Settles a batch of the groups collected, from group first on: read here,
 * sorted on threads, written back here.  A batch ends at GS_COLL_BATCH_ROWS
 * rows (one group at least) or once reading it has detoasted
 * GS_COLL_BATCH_BYTES.  Groups that cannot be read for the threads go to
 * the comparators.  Returns the first group of the next batch.
 */
static uint64
coll_settle_batch(GsSort *node, GsColl *coll, uint32 *order,
				  uint64 first, MemoryContext tiecxt, MemoryContext batchcxt)
{
	MemoryContext oldcxt = MemoryContextSwitchTo(batchcxt);
	CollBatch	b;
	uint64	   *glo;
	bool	   *ok;
	uint64		g,
				k,
				last = first,
				nrows = 0;
	Size		maxlen = 0,
				detoasted = 0;
	int			nthreads = gpusort_threads();

	while (last < coll->ranges.n &&
		   (last == first || nrows + coll->ranges.len[last] <= GS_COLL_BATCH_ROWS))
		nrows += coll->ranges.len[last++];
	memset(&b, 0, sizeof(b));
	b.keys = node->keys;
	b.col = coll->col;
	b.ent = MemoryContextAllocHuge(batchcxt, sizeof(CollEntry) * nrows);
	b.gstart = palloc(sizeof(uint64) * (last - first + 1));
	glo = palloc(sizeof(uint64) * (last - first));
	ok = palloc(sizeof(bool) * (last - first));
	for (g = first; g < last; g++)
	{
		uint64		len = coll->ranges.len[g];

		if (detoasted > GS_COLL_BATCH_BYTES)
		{
			last = g;
			break;
		}
		ok[g - first] = coll_read_group(node, coll->col, order + coll->ranges.lo[g],
										len, b.ent + b.nrows, &maxlen,
										&detoasted);
		if (!ok[g - first])
			continue;
		b.gstart[b.ngroups] = b.nrows;
		glo[b.ngroups++] = coll->ranges.lo[g];
		b.nrows += len;
	}
	b.gstart[b.ngroups] = b.nrows;
	ExecClearTuple(node->row_slot);

	if (b.ngroups > 0)
	{
		coll_make_pieces(&b, nthreads);
		b.ntasks = Min((uint64) nthreads, b.npieces);
		b.bufbytes = maxlen + 1;
		b.bufs = MemoryContextAllocHuge(batchcxt, b.ntasks * 2 * b.bufbytes);
		gs_cpu_for_tasks(b.ntasks, nthreads, coll_sort_tasks, &b);
		coll_merge_runs(&b, nthreads);
		for (k = 0; k < b.ngroups; k++)
		{
			uint64		n = b.gstart[k + 1] - b.gstart[k];

			/* ICU failed somewhere: the comparators, which raise its error */
			if (pg_atomic_read_u32(&b.failed) != 0)
			{
				gs_sort_settle_run(node, order + glo[k], n, coll->col, tiecxt);
				continue;
			}
			coll_write_group(node, coll, b.ent + b.gstart[k], order, glo[k],
							 n, b.bufs, tiecxt);
			node->info.coll_groups++;
			node->info.coll_rows += n;
		}
	}
	/* a NULL or a long value: the comparators */
	for (g = first; g < last; g++)
		if (!ok[g - first])
			gs_sort_settle_run(node, order + coll->ranges.lo[g], coll->ranges.len[g],
							   coll->col, tiecxt);
	MemoryContextSwitchTo(oldcxt);
	MemoryContextReset(batchcxt);
	return last;
}

/*
 * Settles the groups collected, on threads where they hold enough rows,
 * and frees the list.  order is the array the groups' bounds index.
 */
void
gs_coll_settle(GsSort *node, GsColl *coll, uint32 *order,
			   MemoryContext tiecxt)
{
	uint64		g;

	if (coll->ranges.rows < GS_COLL_MIN_ROWS)
	{
		for (g = 0; g < coll->ranges.n; g++)
			gs_sort_settle_run(node, order + coll->ranges.lo[g], coll->ranges.len[g],
							   coll->col, tiecxt);
	}
	else
	{
		MemoryContext batchcxt = AllocSetContextCreate(coll->ranges.cxt,
													   "GpuSort collate batch",
													   ALLOCSET_DEFAULT_SIZES);

		for (g = 0; g < coll->ranges.n;)
			g = coll_settle_batch(node, coll, order, g, tiecxt, batchcxt);
		MemoryContextDelete(batchcxt);
	}
	gs_ranges_free(&coll->ranges);
	pfree(coll);
}
