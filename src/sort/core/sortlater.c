/*-------------------------------------------------------------------------
 *
 * sortlater.c
 *	  Settling the later sort columns of rows whose refined column holds
 *	  one value, by keys of those columns made and sorted on threads.
 *
 * Refinement (sortrefine.c) ends, in many sorts, in groups of rows whose
 * value of the refined column c is one and the same: ORDER BY city, name
 * where cities repeat, ORDER BY status, ts, a category then an amount.
 * Those rows' order is the later columns' (c + 1 on).  The comparators
 * (gs_sort_settle_run) sort such a group by deforming each row and calling
 * the SortSupport comparators, on the backend's thread, one small group at
 * a time: about a microsecond a row, serially, where a stock sort runs in
 * parallel workers.  When most of a sort's rows are such duplicates that is
 * most of its time.
 *
 * So the groups are collected as refinement finds them (gs_later_add: they
 * are disjoint ranges of the sort's order, which refinement never touches
 * again) and settled together at its end (gs_later_settle), in batches of
 * about GS_LATER_BATCH_ROWS rows (a larger group is a batch of its own):
 *
 *	 1. each row of the batch is keyed by the leading later columns that
 *		have a fixed-width, order-preserving encoding (gs_keys_later_width:
 *		integers, dates, times, timestamps, money, oid, bool, floats, uuid,
 *		interval, numeric), each a null byte and its value's bytes, DESC
 *		inverted (gs_keys_later_encode), as far as GS_LATER_KEY_BYTES hold
 *		them.  A value not encoded whole (a numeric longer than its slice)
 *		ends its row's key: the bytes of the columns after it stay zero,
 *		since they must not order rows whose values it cannot tell apart.
 *		An entry is the key's words, then a word of the row's number and
 *		the column whose value was cut short, if any.  Entries are made on
 *		threads, each task deforming rows in a slot of its own under
 *		nothrow; where that gives up (a numeric stored compressed or out of
 *		line, to be detoasted), the backend makes the rest of the task's
 *		entries.  The groups' rows lie at random places of the store, and
 *		waiting on memory for each is most of an entry's cost, so where the
 *		batch holds 1/GS_LATER_SCAN_SHARE of the sort's rows or more the
 *		entries are made in the store's order instead (a map from row to
 *		its place in the batch, 4 bytes a stored row): the rows are read
 *		one after the other, as the hardware prefetches them;
 *	 2. each group's entries are sorted by all their words, on threads (a
 *		group per task, by insertion where it is small, as most are, else by
 *		qsort; a group of GS_LATER_ENGINE_MIN rows or more by the engine on
 *		the backend's thread, its equal keys then put in row order);
 *	 3. the backend writes the rows back in that order, and scans each
 *		group for runs of equal keys.  Where every later column is in the
 *		key and every value of the run was encoded whole, the run's rows are
 *		equal in every sort column, and stay in row order.  Otherwise the
 *		comparators settle the run from the first column its key does not
 *		decide: the one whose values were cut short (a value cut short and
 *		one encoded whole never have equal slices: gs_keys_later_encode),
 *		or the first column past the key.
 *
 * Why this is PostgreSQL's order.  The encodings are the main key's
 * (keys/keyencode.c): a < b gives enc(a) < enc(b) under memcmp, and a = b gives
 * enc(a) = enc(b) (-0 and +0, every NaN, a numeric's scale), so rows whose
 * keys differ are in the operators' order, NULLs where NULLS FIRST/LAST
 * puts them; and equal keys of values encoded whole are equal values.
 * A numeric cut short is ordered by its slice among the values of other
 * slices, and after (or, negative, before) the value encoded whole in the
 * same slice; those cut short to the same slice tie, whatever their later
 * columns, and go to the comparators.
 * Invariant, as in sortties.c: rows equal in every sort column keep input
 * order (the row's number is the entry's last word, which tie_compare's
 * last step compares too), so the output is one a stock Sort could have
 * produced.
 *
 * The cost bound.  Keying and sorting a row on threads costs far less than
 * the comparators' deforming and log2(n) calls on the backend's thread,
 * but starting the threads and a batch's arrays cost something: the groups
 * are keyed only when they hold GS_LATER_MIN_ROWS rows or more in all and
 * there is more than one thread, else each is settled by the comparators as
 * refinement finds it, as before.  A run of equal keys costs the
 * comparators no more than it did.
 *
 * Memory: the list of groups (16 bytes a group, at most 8 a row) in the
 * refining context, and one batch's rows and entries (at most 44 bytes a
 * row) in a context of its own below it, reset after each batch; the map
 * of a batch made in the store's order (4 bytes a stored row) is reserved
 * from the server-wide account (gpusort.max_total_memory), and the batch
 * goes in its own order where that has no room.
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "miscadmin.h"
#include "port/pg_bswap.h"
#include "utils/memutils.h"

#include "engine/engine.h"
#include "runtime/settings.h"
#include "threads/threads_backend.h"
#include "sortstate.h"
#include "threads/thread_slots.h"

/* the key of the later columns: at most the engine's width */
#define GS_LATER_KEY_BYTES		(GS_MAX_KEY_WORDS * 8)
/* rows from which the groups are keyed on threads */
#define GS_LATER_MIN_ROWS		8192
/* groups that the engine sorts, rows of a batch, tasks of a thread */
#define GS_LATER_ENGINE_MIN		65536
#define GS_LATER_BATCH_ROWS		((uint64) 1 << 20)
#define GS_LATER_TASKS_PER_THREAD	4
/* rows ahead whose tuples an entry task prefetches */
#define GS_LATER_AHEAD			16
/* entries made in the store's order where the batch is 1/this of it or more */
#define GS_LATER_SCAN_SHARE		8
/* an entry's last word: the row's number, then the first inexact column */
#define GS_LATER_ROW_SHIFT		8
#define GS_LATER_ALL_EXACT		0xFF

struct GsLater
{
	int			first;			/* c + 1: the first later column */
	int			ncols;			/* later columns in the key, 0: none */
	int			nwords;			/* the key's words */
	int			offset[GS_LATER_KEY_BYTES];	/* [ncols]: each one's bytes */
	GsRanges	ranges;			/* the groups, in the sort's order */
};

/* one batch: groups' rows gathered, and their entries */
typedef struct LaterBatch
{
	GsSort	   *node;
	const GsLater *later;
	uint32	   *rows;			/* [n] */
	uint64		n;
	const uint64 *gstart;		/* [ngroups + 1] */
	uint64		ngroups;
	int			stride;			/* words an entry: nwords + 1 */
	uint64	   *ent;			/* [n][stride] */
	uint32	   *inv;			/* [ntuples]: a row's place + 1, or 0; or NULL */
	uint64		nscan;			/* steps of the entries' pass: n or ntuples */
	uint64		ntasks;
	TupleTableSlot **slots;		/* [ntasks] */
	uint64	   *stopped;		/* [ntasks]: the first entry not made */
} LaterBatch;

/*
 * Starts collecting the groups of one value of column c whose later
 * columns decide (c + 1 < node->nkeys), in cxt.  ncols stays 0 (each group
 * is settled at once) where column c + 1 has no fixed-width encoding or
 * there is one thread.
 */
GsLater *
gs_later_begin(GsSort *node, int c, MemoryContext cxt)
{
	GsLater    *later = MemoryContextAllocZero(cxt, sizeof(GsLater));
	int			bytes = 0;
	int			k;

	later->first = c + 1;
	later->ranges.cxt = cxt;
	if (gpusort_threads() < 2)
		return later;
	for (k = c + 1; k < node->nkeys; k++)
	{
		int			w = gs_keys_later_width(node->keys, k);

		if (w == 0 || bytes + 1 + w > GS_LATER_KEY_BYTES)
			break;
		later->offset[later->ncols++] = bytes;
		bytes += 1 + w;
	}
	later->nwords = (bytes + 7) / 8;
	return later;
}

/*
 * Rows order[lo, lo + len) hold one value of column c: their later
 * columns decide.  Settled at once by the comparators, or kept for
 * gs_later_settle.
 */
void
gs_later_add(GsSort *node, GsLater *later, uint32 *order, uint64 lo,
			 uint64 len, MemoryContext tiecxt)
{
	if (later->ncols == 0)
	{
		gs_sort_settle_run(node, order + lo, len, later->first, tiecxt);
		return;
	}
	gs_ranges_add(&later->ranges, lo, len);
}

/*
 * The entry of row i of the batch: the later columns' key, then the row's
 * number and the first column not encoded whole.  False where nothrow
 * gave up.
 */
static bool
make_entry(const LaterBatch *b, TupleTableSlot *slot, uint64 i, bool nothrow)
{
	const GsLater *later = b->later;
	uint32		row = b->rows[i];
	uint64	   *e = b->ent + i * b->stride;
	uint8		buf[GS_LATER_KEY_BYTES];
	uint64		inexact = GS_LATER_ALL_EXACT;
	int			k;

	memset(buf, 0, sizeof(buf));
	ExecStoreMinimalTuple(b->node->tuples[row], slot, false);
	for (k = 0; k < later->ncols; k++)
	{
		int			col = later->first + k;
		bool		isnull;
		bool		exact;
		Datum		d = slot_getattr(slot, b->node->attnos[col], &isnull);

		if (!gs_keys_later_encode(b->node->keys, col, d, isnull,
								  buf + later->offset[k], &exact, nothrow))
			return false;
		if (!exact)
		{
			/* equal slices cut short: the comparators order them, from k */
			inexact = k;
			break;
		}
	}
	for (k = 0; k < later->nwords; k++)
	{
		uint64		be;

		memcpy(&be, buf + 8 * k, sizeof(be));
		e[k] = pg_ntoh64(be);
	}
	e[later->nwords] = ((uint64) row << GS_LATER_ROW_SHIFT) | inexact;
	return true;
}

/*
 * Asks for what the entry of row i + GS_LATER_AHEAD will read, in three
 * steps, each needing what the one before asked for, as sortrefine.c's
 * chunk_prefetch: the row's pointer, its header, its first lines (the
 * later columns are mostly short ones).
 */
static inline void
entry_prefetch(const LaterBatch *b, uint64 i, uint64 hi)
{
	MinimalTuple *tuples = b->node->tuples;
	uint64		k = i + GS_LATER_AHEAD;

	if (k + 2 * GS_LATER_AHEAD < hi)
		gs_prefetch(&tuples[b->rows[k + 2 * GS_LATER_AHEAD]]);
	if (k + GS_LATER_AHEAD < hi)
		gs_prefetch(tuples[b->rows[k + GS_LATER_AHEAD]]);
	if (k < hi)
		gs_prefetch_row(tuples[b->rows[k]]);
}

/*
 * Step i of the entries' pass: the entry of place *pos of the batch, or
 * none (false).  In the store's order (inv) the rows are read one after
 * the other, as they lie, rather than each at a random place.
 */
static inline bool
scan_step(const LaterBatch *b, uint64 i, uint64 *pos)
{
	if (b->inv == NULL)
		*pos = i;
	else if (b->inv[i] == 0)
		return false;
	else
		*pos = b->inv[i] - 1;
	return true;
}

static void
entry_tasks(void *p, uint64 tlo, uint64 thi)
{
	LaterBatch *b = (LaterBatch *) p;
	uint64		t;

	for (t = tlo; t < thi; t++)
	{
		uint64		lo,
					hi,
					i,
					pos;

		gs_team_slice(b->nscan, b->ntasks, t, &lo, &hi);
		for (i = lo; i < hi; i++)
		{
			/* the rows lie at random places: ask for those ahead */
			if (b->inv == NULL)
				entry_prefetch(b, i, hi);
			else if (i + GS_LATER_AHEAD < hi)
				gs_prefetch(b->node->tuples[i + GS_LATER_AHEAD]);
			if (scan_step(b, i, &pos) &&
				!make_entry(b, b->slots[t], pos, true))
				break;
		}
		b->stopped[t] = i;
		ExecClearTuple(b->slots[t]);
	}
}

/*
 * The batch's places by row (LaterBatch.inv), where the batch holds
 * 1/GS_LATER_SCAN_SHARE of the sort's rows or more and the server-wide
 * account (gpusort.max_total_memory) has room for 4 bytes a stored row;
 * else NULL, and the entries are made in the batch's order.
 */
static uint32 *
batch_inverse(const LaterBatch *b, Size *reserved)
{
	GsSort	   *node = b->node;
	Size		bytes = sizeof(uint32) * node->ntuples;
	uint32	   *inv;
	uint64		i;

	*reserved = 0;
	if (b->n < node->ntuples / GS_LATER_SCAN_SHARE || b->n >= PG_UINT32_MAX ||
		!gs_reserve(node->reservation, GS_ACCT_MEM, bytes,
					gpusort_total_memory_limit()))
		return NULL;
	*reserved = bytes;
	inv = MemoryContextAllocExtended(CurrentMemoryContext, bytes,
									 MCXT_ALLOC_HUGE | MCXT_ALLOC_ZERO);
	for (i = 0; i < b->n; i++)
		inv[b->rows[i]] = (uint32) (i + 1);
	return inv;
}

/*
 * The batch's entries: on threads, then on the backend's thread the rows
 * where the threads gave up (which may detoast).
 */
static void
make_entries(LaterBatch *b)
{
	GsSort	   *node = b->node;
	GsThreadSlots *ts;
	Size		reserved;
	uint64		t,
				i,
				pos;

	b->inv = batch_inverse(b, &reserved);
	b->nscan = b->inv ? node->ntuples : b->n;
	b->ntasks = (uint64) gpusort_threads() * GS_LATER_TASKS_PER_THREAD;
	b->stopped = palloc0(sizeof(uint64) * b->ntasks);
	ts = gs_thread_slots_create(node->row_slot->tts_tupleDescriptor,
								(int) b->ntasks, node->tuples[b->rows[0]]);
	b->slots = ts->slots;
	gs_cpu_for_tasks(b->ntasks, gpusort_threads(), entry_tasks, b);
	for (t = 0; t < b->ntasks; t++)
	{
		uint64		lo,
					hi;

		gs_team_slice(b->nscan, b->ntasks, t, &lo, &hi);
		for (i = b->stopped[t]; i < hi; i++)
		{
			if (scan_step(b, i, &pos))
				(void) make_entry(b, node->row_slot, pos, false);
			gs_poll_interrupts(i + 1);
		}
	}
	ExecClearTuple(node->row_slot);
	gs_thread_slots_free(ts);
	pfree(b->stopped);
	if (b->inv)
	{
		pfree(b->inv);
		gs_release(node->reservation, GS_ACCT_MEM, reserved);
	}
}

/* qsort of entries: every word, the last the row's number */
static int
entry_compare(const void *x, const void *y, void *arg)
{
	const uint64 *a = x;
	const uint64 *b = y;
	int			stride = *(const int *) arg;
	int			k;

	for (k = 0; k < stride; k++)
		if (a[k] != b[k])
			return a[k] < b[k] ? -1 : 1;
	return 0;
}

/* entries less than this many are sorted by insertion */
#define GS_LATER_INSERTION_MAX	16

static inline bool
entry_less(const uint64 *a, const uint64 *b, int stride)
{
	int			k;

	for (k = 0; k < stride - 1 && a[k] == b[k]; k++)
		;
	return a[k] < b[k];
}

/*
 * Sorts the n entries of one group: most groups are a few rows, which an
 * insertion sort on the words orders faster than qsort's calls.
 */
static void
sort_entries(uint64 *ent, uint64 n, int stride)
{
	uint64		tmp[GS_MAX_KEY_WORDS + 1];
	uint64		i,
				j;

	if (n >= GS_LATER_INSERTION_MAX)
	{
		qsort_arg(ent, n, sizeof(uint64) * stride, entry_compare, &stride);
		return;
	}
	for (i = 1; i < n; i++)
	{
		if (!entry_less(ent + i * stride, ent + (i - 1) * stride, stride))
			continue;
		memcpy(tmp, ent + i * stride, sizeof(uint64) * stride);
		for (j = i; j > 0 && entry_less(tmp, ent + (j - 1) * stride, stride); j--)
			memcpy(ent + j * stride, ent + (j - 1) * stride, sizeof(uint64) * stride);
		memcpy(ent + j * stride, tmp, sizeof(uint64) * stride);
	}
}

/* the first group of the batch whose first row is row i or after */
static uint64
group_from(const LaterBatch *b, uint64 i)
{
	uint64		lo = 0,
				hi = b->ngroups;

	while (lo < hi)
	{
		uint64		mid = (lo + hi) / 2;

		if (b->gstart[mid] < i)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

/*
 * Sorts the groups of each task, those whose first row falls in its slice
 * of the batch's rows; the large ones are the engine's (sort_by_engine).
 */
static void
sort_tasks(void *p, uint64 tlo, uint64 thi)
{
	LaterBatch *b = (LaterBatch *) p;
	uint64		t,
				g;

	for (t = tlo; t < thi; t++)
	{
		uint64		lo,
					hi;

		gs_team_slice(b->n, b->ntasks, t, &lo, &hi);
		for (g = group_from(b, lo); g < b->ngroups && b->gstart[g] < hi; g++)
		{
			uint64		n = b->gstart[g + 1] - b->gstart[g];

			if (n < GS_LATER_ENGINE_MIN)
				sort_entries(b->ent + b->gstart[g] * b->stride, n, b->stride);
		}
	}
}

/*
 * A large group's entries ent[0, n) sorted by the engine on their keys
 * (stable), then each run of equal keys by row, as qsort would have it.
 */
static void
sort_by_engine(const LaterBatch *b, uint64 *ent, uint64 n)
{
	int			nw = b->later->nwords;
	uint64	   *tmp = MemoryContextAllocHuge(CurrentMemoryContext,
											 sizeof(uint64) * b->stride * n);
	GsSorter   *s = gs_sorter_begin(nw, n, 0);
	uint64	   *keys = gs_sorter_push_n(s, n);
	const uint32 *perm;
	uint64		i,
				r,
				e,
				runs = 0;

	for (i = 0; i < n; i++)
		memcpy(keys + i * nw, ent + i * b->stride, sizeof(uint64) * nw);
	gs_sorter_sort(s);
	perm = gs_sorter_rows(s);
	for (i = 0; i < n; i++)
		memcpy(tmp + i * b->stride, ent + (uint64) perm[i] * b->stride,
			   sizeof(uint64) * b->stride);
	gs_sorter_end(s);
	memcpy(ent, tmp, sizeof(uint64) * b->stride * n);
	pfree(tmp);
	for (r = 0; r < n; r = e)
	{
		for (e = r + 1; e < n; e++)
			if (memcmp(ent + e * b->stride, ent + r * b->stride,
					   sizeof(uint64) * nw) != 0)
				break;
		if (e - r > 1)
			sort_entries(ent + r * b->stride, e - r, b->stride);
		gs_poll_interrupts(++runs);
	}
}

/*
 * Group g of the batch, its entries sorted: its rows into the sort's
 * order at lo, and each run of equal keys that the key does not settle to
 * the comparators.
 */
static void
settle_group(LaterBatch *b, uint64 g, uint32 *order, uint64 lo,
			 MemoryContext tiecxt)
{
	GsSort	   *node = b->node;
	const GsLater *later = b->later;
	const uint64 *ent = b->ent + b->gstart[g] * b->stride;
	uint64		n = b->gstart[g + 1] - b->gstart[g];
	int			nw = later->nwords;
	uint64		r,
				e,
				i;

	for (i = 0; i < n; i++)
		order[lo + i] = (uint32) (ent[i * b->stride + nw] >> GS_LATER_ROW_SHIFT);
	for (r = 0; r < n; r = e)
	{
		uint64		inexact = ent[r * b->stride + nw] & GS_LATER_ALL_EXACT;
		int			from;

		for (e = r + 1; e < n; e++)
		{
			const uint64 *x = ent + e * b->stride;

			if (memcmp(x, ent + r * b->stride, sizeof(uint64) * nw) != 0)
				break;
			inexact = Min(inexact, x[nw] & GS_LATER_ALL_EXACT);
		}
		from = inexact != GS_LATER_ALL_EXACT ? later->first + (int) inexact :
			later->first + later->ncols;
		if (e - r < 2 || from >= node->nkeys)
			continue;
		gs_sort_settle_run(node, order + lo + r, e - r, from, tiecxt);
		node->info.later_left_rows += e - r;
	}
	node->info.later_groups++;
	node->info.later_rows += n;
}

/* one batch: groups [first, last) of the list */
static void
settle_batch(GsSort *node, const GsLater *later, uint32 *order,
			 uint64 first, uint64 last, MemoryContext tiecxt)
{
	LaterBatch	b;
	uint64	   *gstart = palloc(sizeof(uint64) * (last - first + 1));
	uint64		g;

	memset(&b, 0, sizeof(b));
	b.node = node;
	b.later = later;
	b.ngroups = last - first;
	b.gstart = gstart;
	b.stride = later->nwords + 1;
	gstart[0] = 0;
	for (g = 0; g < b.ngroups; g++)
		gstart[g + 1] = gstart[g] + later->ranges.len[first + g];
	b.n = gstart[b.ngroups];
	b.rows = MemoryContextAllocHuge(CurrentMemoryContext, sizeof(uint32) * b.n);
	b.ent = MemoryContextAllocHuge(CurrentMemoryContext,
								   sizeof(uint64) * b.stride * b.n);
	for (g = 0; g < b.ngroups; g++)
		memcpy(b.rows + gstart[g], order + later->ranges.lo[first + g],
			   sizeof(uint32) * later->ranges.len[first + g]);
	make_entries(&b);
	gs_cpu_for_tasks(b.ntasks, gpusort_threads(), sort_tasks, &b);
	for (g = 0; g < b.ngroups; g++)
	{
		if (gstart[g + 1] - gstart[g] >= GS_LATER_ENGINE_MIN)
			sort_by_engine(&b, b.ent + gstart[g] * b.stride,
						   gstart[g + 1] - gstart[g]);
		settle_group(&b, g, order, later->ranges.lo[first + g], tiecxt);
		gs_poll_interrupts(g + 1);
	}
}

/*
 * Settles the groups gs_later_add kept: by their later columns' keys on
 * threads where they hold GS_LATER_MIN_ROWS rows or more (the cost bound),
 * else each by the comparators.  Frees the list.
 */
void
gs_later_settle(GsSort *node, GsLater *later, uint32 *order,
				MemoryContext tiecxt)
{
	MemoryContext batchcxt = AllocSetContextCreate(later->ranges.cxt,
												   "GpuSort later columns",
												   ALLOCSET_DEFAULT_SIZES);
	uint64		first = 0;

	while (first < later->ranges.n)
	{
		uint64		last = first,
					rows = 0;
		MemoryContext oldcxt;

		if (later->ranges.rows < GS_LATER_MIN_ROWS)
		{
			gs_sort_settle_run(node, order + later->ranges.lo[first],
							   later->ranges.len[first], later->first, tiecxt);
			first++;
			continue;
		}
		while (last < later->ranges.n &&
			   (rows == 0 || rows + later->ranges.len[last] <= GS_LATER_BATCH_ROWS))
			rows += later->ranges.len[last++];
		oldcxt = MemoryContextSwitchTo(batchcxt);
		settle_batch(node, later, order, first, last, tiecxt);
		MemoryContextSwitchTo(oldcxt);
		MemoryContextReset(batchcxt);
		first = last;
		CHECK_FOR_INTERRUPTS();
	}
	MemoryContextDelete(batchcxt);
	gs_ranges_free(&later->ranges);
	pfree(later);
}
