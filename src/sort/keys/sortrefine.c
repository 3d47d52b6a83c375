/*-------------------------------------------------------------------------
 *
 * sortrefine.c
 *	  Settling a run of equal keys from the next bytes of the same
 *	  transform, rather than with the comparator.
 *
 * Where the key's first inexact column is a prefix of a string's transform
 * (a libc collation's strxfrm, an ICU sort key, or the bytes themselves
 * under C: gs_keys_refinable), rows whose prefixes tie mostly differ a few
 * bytes further on: URLs, e-mail addresses, addresses and names share
 * their first 6 to 16 characters, which is all a 32-byte strxfrm prefix
 * holds.  Sorting such a run with the comparator costs n log n strcoll
 * calls on one thread.  Instead each row of the run is keyed by the next
 * GS_REFINE_CHUNK bytes of its transform, the run is sorted by those (by
 * the engine, radix or GPU, for large runs; by qsort for small ones), and
 * each group of rows whose chunks are still equal is refined again from
 * the bytes after, until:
 *
 *	 - a group is one row: settled;
 *	 - the group's chunk holds a zero byte, so its rows' transforms ended
 *	   there and are equal as wholes (a transform holds no zero byte): the
 *	   group is refined the same way from the values' own bytes, which is
 *	   the tie-break PostgreSQL applies to strings a deterministic
 *	   collation calls equal (strcmp; not under C, where the transform is
 *	   the bytes, nor a nondeterministic ICU collation);
 *	 - the bytes ended too: the values are equal, and the comparators of
 *	   the later sort columns settle the group, if there are any; only
 *	   those rows count as "Ties".
 *
 * Invariant: rows end up ordered by their whole transforms, then by the
 * comparators; the engines and qsort here are stable (ties on the row's
 * place in the run), so equal rows keep the order they had.  Under ICU and
 * C that is PostgreSQL's order.  Under libc it is strxfrm's, which glibc
 * does not always make agree with strcoll: each adjacent pair ordered here
 * by differing transform bytes is marked in node->refined, and the check of
 * sortverify.c compares it with strcoll as it does pairs ordered by the
 * key, repairing what is out of order.  So the run straddling the output's
 * end under a bound (whose later rows the check compares with the last
 * output row, not their neighbours) is left to the comparator.
 *
 * The chunks are made on threads for large groups (each task deforms rows
 * in a slot of its own and transforms under nothrow; where that gives up,
 * the backend does the rest of the task's rows), the rest on the backend.
 * Memory: one group's keys at a time, in the ties context of the caller.
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "miscadmin.h"
#include "port/pg_bswap.h"

#include "engine.h"
#include "settings.h"
#include "threads_backend.h"
#include "sortstate.h"

/* bytes of the transform per round: a key of GS_MAX_KEY_WORDS words */
#define GS_REFINE_CHUNK		(GS_MAX_KEY_WORDS * 8)
#define GS_REFINE_WORDS		GS_MAX_KEY_WORDS

/* groups from which the engine sorts, and threads make the chunks */
#define GS_REFINE_ENGINE_MIN	4096
#define GS_REFINE_THREADS_MIN	16384
#define GS_REFINE_TASKS_PER_THREAD	4

/* a group of rows still tied: run positions [lo, hi), transform from off */
typedef struct RefineGroup
{
	uint64		lo;
	uint64		hi;
	size_t		off;
	bool		raw;			/* the value's bytes, past equal transforms */
} RefineGroup;

typedef struct ChunkArg
{
	const GsKeySpec *keys;
	int			col;
	bool		desc;
	AttrNumber	attno;
	MinimalTuple *tuples;
	const uint32 *rows;			/* the group's rows */
	uint64		n;
	size_t		off;
	bool		raw;
	uint64	   *out;			/* [n][GS_REFINE_WORDS] */
	uint64		ntasks;
	TupleTableSlot **slots;		/* [ntasks], or NULL on the backend */
	uint64	   *stopped;		/* [ntasks] */
} ChunkArg;

/* the chunk of one row as key words; false where nothrow gave up */
static bool
chunk_of(const ChunkArg *a, TupleTableSlot *slot, uint64 i, bool nothrow)
{
	uint8		buf[GS_REFINE_CHUNK];
	uint64	   *w = a->out + i * GS_REFINE_WORDS;
	bool		isnull;
	Datum		d;
	int			k;

	ExecStoreMinimalTuple(a->tuples[a->rows[i]], slot, false);
	d = slot_getattr(slot, a->attno, &isnull);
	if (isnull)
		memset(buf, 0, sizeof(buf));	/* a run of NULLs: ended, equal */
	else if (!gs_keys_transform_range(a->keys, a->col, d, a->raw, a->off, buf,
									  GS_REFINE_CHUNK, nothrow))
		return false;
	if (a->desc)
		for (k = 0; k < GS_REFINE_CHUNK; k++)
			buf[k] = ~buf[k];
	for (k = 0; k < GS_REFINE_WORDS; k++)
	{
		uint64		be;

		memcpy(&be, buf + 8 * k, sizeof(be));
		w[k] = pg_ntoh64(be);
	}
	return true;
}

static inline void
chunk_bounds(const ChunkArg *a, uint64 t, uint64 *lo, uint64 *hi)
{
	*lo = a->n * t / a->ntasks;
	*hi = a->n * (t + 1) / a->ntasks;
}

static void
chunk_tasks(void *p, uint64 tlo, uint64 thi)
{
	ChunkArg   *a = (ChunkArg *) p;
	uint64		t;

	for (t = tlo; t < thi; t++)
	{
		uint64		lo,
					hi,
					i;

		chunk_bounds(a, t, &lo, &hi);
		for (i = lo; i < hi; i++)
			if (!chunk_of(a, a->slots[t], i, true))
				break;
		a->stopped[t] = i;
		ExecClearTuple(a->slots[t]);
	}
}

/* the chunks of the group's rows: on threads when it is large */
static void
make_chunks(GpuSortState *node, ChunkArg *a)
{
	int			nthreads = gpusort_threads();
	TupleDesc	desc = node->row_slot->tts_tupleDescriptor;
	uint64		t,
				i,
				lo,
				hi;

	a->ntasks = (a->n >= GS_REFINE_THREADS_MIN && nthreads > 1) ?
		(uint64) nthreads * GS_REFINE_TASKS_PER_THREAD : 1;
	a->stopped = palloc0(sizeof(uint64) * a->ntasks);
	if (a->ntasks > 1)
	{
		a->slots = palloc(sizeof(TupleTableSlot *) * a->ntasks);
		for (t = 0; t < a->ntasks; t++)
			a->slots[t] = MakeSingleTupleTableSlot(desc, &TTSOpsMinimalTuple);
		/* the descriptor's cached offsets are set here, not raced for on threads */
		ExecStoreMinimalTuple(node->tuples[0], node->row_slot, false);
		slot_getallattrs(node->row_slot);
		ExecClearTuple(node->row_slot);
		gs_cpu_for_tasks(a->ntasks, nthreads, chunk_tasks, a);
	}
	for (t = 0; t < a->ntasks; t++)
	{
		chunk_bounds(a, t, &lo, &hi);
		for (i = a->stopped[t]; i < hi; i++)
		{
			(void) chunk_of(a, node->row_slot, i, false);
			if ((i + 1) % GS_INTERRUPT_EVERY == 0)
				CHECK_FOR_INTERRUPTS();
		}
		if (a->ntasks > 1)
			ExecDropSingleTupleTableSlot(a->slots[t]);
	}
	ExecClearTuple(node->row_slot);
	if (a->ntasks > 1)
		pfree(a->slots);
	pfree(a->stopped);
}

/* qsort of (chunk, place) pairs: chunk words, then the place (stable) */
static int
chunk_compare(const void *x, const void *y, void *arg)
{
	const uint64 *kx = *(const uint64 *const *) x;
	const uint64 *ky = *(const uint64 *const *) y;
	int			k;

	for (k = 0; k < GS_REFINE_WORDS; k++)
		if (kx[k] != ky[k])
			return kx[k] < ky[k] ? -1 : 1;
	return (kx > ky) - (kx < ky);
}

/*
 * Sorts the group's rows by their chunks (rows[] and keys[] together):
 * by the engine for a large group, by qsort for a small one.
 */
static void
sort_by_chunks(uint32 *rows, uint64 *keys, uint64 n)
{
	uint32	   *tmp = palloc(sizeof(uint32) * n);
	uint64	   *ktmp = palloc(sizeof(uint64) * GS_REFINE_WORDS * n);
	uint64		i;

	if (n >= GS_REFINE_ENGINE_MIN)
	{
		GsSorter   *s = gs_sorter_begin(GS_REFINE_WORDS, n, GS_SORTER_NEED_KEYS);
		const uint32 *perm;

		memcpy(gs_sorter_push_n(s, n), keys, sizeof(uint64) * GS_REFINE_WORDS * n);
		gs_sorter_sort(s);
		perm = gs_sorter_rows(s);
		for (i = 0; i < n; i++)
			tmp[i] = rows[perm[i]];
		memcpy(ktmp, gs_sorter_key(s, 0), sizeof(uint64) * GS_REFINE_WORDS * n);
		gs_sorter_end(s);
	}
	else
	{
		const uint64 **p = palloc(sizeof(uint64 *) * n);

		for (i = 0; i < n; i++)
			p[i] = keys + i * GS_REFINE_WORDS;
		qsort_arg(p, n, sizeof(uint64 *), chunk_compare, NULL);
		for (i = 0; i < n; i++)
		{
			tmp[i] = rows[(p[i] - keys) / GS_REFINE_WORDS];
			memcpy(ktmp + i * GS_REFINE_WORDS, p[i], sizeof(uint64) * GS_REFINE_WORDS);
		}
		pfree(p);
	}
	memcpy(rows, tmp, sizeof(uint32) * n);
	memcpy(keys, ktmp, sizeof(uint64) * GS_REFINE_WORDS * n);
	pfree(tmp);
	pfree(ktmp);
}

/* does a sorted chunk show the transform's end (a zero byte, inverted for DESC)? */
static bool
chunk_ended(const uint64 *w, bool desc)
{
	int			k,
				b;

	for (k = 0; k < GS_REFINE_WORDS; k++)
		for (b = 0; b < 8; b++)
		{
			uint8		byte = (uint8) (w[k] >> (8 * (7 - b)));

			if (byte == (desc ? 0xFF : 0x00))
				return true;
		}
	return false;
}

/* the groups still to refine: a stack in the refining context */
typedef struct RefineStack
{
	RefineGroup *g;
	int			n;
	int			cap;
} RefineStack;

static void
push_group(RefineStack *st, uint64 lo, uint64 hi, size_t off, bool raw)
{
	if (st->n == st->cap)
	{
		st->cap *= 2;
		st->g = repalloc(st->g, sizeof(RefineGroup) * st->cap);
	}
	st->g[st->n].lo = lo;
	st->g[st->n].hi = hi;
	st->g[st->n].off = off;
	st->g[st->n].raw = raw;
	st->n++;
}

/*
 * One round for group g of the run at order[0 ..) (position start of the
 * output): sorts it by the next chunk of the transform, and settles or
 * pushes each group of equal chunks.
 */
static void
refine_group(GpuSortState *node, uint32 *order, uint64 start,
			 const RefineGroup *g, int c, RefineStack *st,
			 MemoryContext tiecxt)
{
	uint64		n = g->hi - g->lo;
	uint32	   *rows = order + g->lo;
	bool		desc = gs_keys_desc(node->keys, c);
	bool		mark = node->refined != NULL;
	ChunkArg	a;
	uint64		s,
				e;

	memset(&a, 0, sizeof(a));
	a.keys = node->keys;
	a.col = c;
	a.desc = desc;
	a.attno = node->attnos[c];
	a.tuples = node->tuples;
	a.rows = rows;
	a.n = n;
	a.off = g->off;
	a.raw = g->raw;
	a.out = MemoryContextAllocHuge(CurrentMemoryContext,
								   sizeof(uint64) * GS_REFINE_WORDS * n);
	make_chunks(node, &a);
	sort_by_chunks(rows, a.out, n);
	node->info.refine_rounds++;

	for (s = 0; s < n; s = e)
	{
		const uint64 *ks = a.out + s * GS_REFINE_WORDS;

		for (e = s + 1; e < n; e++)
			if (memcmp(a.out + e * GS_REFINE_WORDS, ks,
					   sizeof(uint64) * GS_REFINE_WORDS) != 0)
				break;
		/* the transform ordered this pair: strcoll checks it (sortverify.c) */
		if (s > 0 && mark)
			node->refined[start + g->lo + s] = 1;
		if (e - s < 2)
			continue;
		if (!chunk_ended(ks, desc))
			push_group(st, g->lo + s, g->lo + e, g->off + GS_REFINE_CHUNK, g->raw);
		else if (!g->raw && gs_keys_ties_by_bytes(node->keys, c))
			push_group(st, g->lo + s, g->lo + e, 0, true);
		else if (c + 1 < node->nkeys)
		{
			/* equal values: the later sort columns decide */
			gs_sort_settle_run(node, rows + s, e - s, c + 1, tiecxt);
			node->info.tie_groups++;
			node->info.tie_rows += e - s;
		}
	}
	pfree(a.out);
}

/*
 * Settles order[0 .. len), a run of equal keys at output position start,
 * by the transform of sort column c (gs_keys_refinable) from the bytes
 * after the key's prefix on, and the comparators where whole transforms
 * are equal.  refinecxt holds the round's arrays (reset here); tiecxt is
 * the comparators'.
 */
void
gs_sort_refine_run(GpuSortState *node, uint32 *order, uint64 start,
				   uint64 len, int c, MemoryContext refinecxt,
				   MemoryContext tiecxt)
{
	MemoryContext oldcxt = MemoryContextSwitchTo(refinecxt);
	RefineStack st;

	st.cap = 16;
	st.n = 0;
	st.g = palloc(sizeof(RefineGroup) * st.cap);
	push_group(&st, 0, len, gs_keys_prefix_width(node->keys, c), false);
	node->info.refine_groups++;
	node->info.refine_rows += len;
	while (st.n > 0)
	{
		RefineGroup g = st.g[--st.n];

		refine_group(node, order, start, &g, c, &st, tiecxt);
		CHECK_FOR_INTERRUPTS();
	}
	MemoryContextSwitchTo(oldcxt);
	MemoryContextReset(refinecxt);
}
