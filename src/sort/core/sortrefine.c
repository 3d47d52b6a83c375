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
 *	 - the bytes ended too: the values are equal, and the later sort
 *	   columns settle the group, if there are any: by their keys on
 *	   threads (sortlater.c, which collects such groups and settles them
 *	   together once refinement ends), or by their comparators; only those
 *	   rows count as "Ties".
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
 * The runs of one sort are refined together, round by round, in batches of
 * about GS_REFINE_BATCH_ROWS rows (a larger group is a batch of its own):
 * a batch's chunks are made in one pass on threads (each task deforms rows
 * in a slot of its own and transforms under nothrow; where that gives up,
 * the backend does the rest of the task's rows), which is where the time
 * goes (strxfrm), so that many small tie groups cost no more than one
 * large one; each group is then sorted by its chunks, and its groups still
 * tied go to the next round.  Memory: one batch's rows and chunks (36
 * bytes a row), in the refining context, reset after each batch.
 *
 * glibc's strxfrm makes a string's whole transform each time (some 5 bytes
 * a character for en_US), and a row's value lies at a random place of the
 * store, behind the row's earlier columns, so a later round would deform
 * and transform every row again for its next 32 bytes.  Under libc the
 * first round keeps the rest of each row's transform (RefineKeep, where
 * a sixteenth of the rows or more are refined: 8 bytes a stored row for
 * the pointers, and an arena of GS_REFINE_KEEP_PER_ROW bytes a row of the
 * first round, GS_REFINE_KEEP_MAX in all, reserved from the server-wide
 * account of gpusort.max_total_memory, or none kept; a task keeps no more
 * once its part of the arena is full), and the later rounds copy their
 * chunks from it: the same bytes, so the same order.
 *
 * The cost bound.  strcoll stops at the first character two strings differ
 * in, while strxfrm makes the whole transform of a string, every level of
 * it, each time: about what strcoll spends on two strings that differ only
 * at their end.  So a round that transforms a row costs its whole length,
 * where the comparators would spend about log2(n) calls of the length the
 * group's rows share, plus each call's fixed cost.  Rows of a kilobyte that
 * share most of it, or differ soon after a long prefix, are cheaper to
 * compare than to transform round after round.  Each group therefore
 * carries what its rows have cost so far (per row, in units of one
 * character transformed: refine_cost), and goes to its next round only
 * while that, with the round's own cost, stays within what the comparators
 * would spend on it from here (compare_cost, a lower bound: the rows share
 * at least the characters behind the bytes that tied).  A group past the
 * bound is sorted by the comparators from column c on, as without
 * refinement, and counted in EXPLAIN ("left to the comparators"), so that
 * refinement costs at most about as much again as the comparators it
 * replaces, wherever it does not pay.
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include <math.h>

#include "common/hashfn.h"
#include "miscadmin.h"
#include "port/pg_bswap.h"

#include "engine/engine.h"
#include "runtime/settings.h"
#include "threads/threads_backend.h"
#include "sortstate.h"
#include "threads/thread_slots.h"

/* bytes of the transform per round: a key of GS_MAX_KEY_WORDS words */
#define GS_REFINE_CHUNK		(GS_MAX_KEY_WORDS * 8)
#define GS_REFINE_WORDS		GS_MAX_KEY_WORDS

/* groups from which the engine sorts, and batches that threads make */
#define GS_REFINE_ENGINE_MIN	4096
#define GS_REFINE_THREADS_MIN	8192
#define GS_REFINE_TASKS_PER_THREAD	4
#define GS_REFINE_BATCH_ROWS	((uint64) 1 << 20)
/* rows ahead whose tuples a chunk task prefetches */
#define GS_REFINE_AHEAD			16
/* groups ahead whose rows the duplicates' pass asks for */
#define GS_DUP_AHEAD			2
/* room for kept transforms: bytes a row of the first round, and in all */
#define GS_REFINE_KEEP_PER_ROW	96
#define GS_REFINE_KEEP_MAX		((size_t) 1 << 30)
/* kept only where the rows to refine are at least 1/this of the sort's */
#define GS_REFINE_KEEP_SHARE	16

/*
 * The cost bound's units: one character of a string strxfrm transforms
 * (about what strcoll spends on a character that two strings share, some
 * 18 ns on a current x86 core with glibc's en_US.UTF-8).  A comparator call
 * costs GS_REFINE_CMP_FIXED beyond its characters (varstr_cmp's copies,
 * strcoll's set-up: ~150-200 ns), a memcmp GS_REFINE_MEMCMP_FIXED beyond
 * its bytes, of which it compares GS_REFINE_MEMCMP_BYTES a unit (glibc's
 * memcmp, and ICU's skip over the prefix two strings share, compare some
 * 16 bytes a nanosecond); a round whose chunk is copied (kept, or the
 * value's bytes) costs a row GS_REFINE_ROUND_COST (deforming, copying,
 * sorting 32 bytes: measured at 105 ns).  With 32 bytes a unit, 10 kB
 * strings under C sharing all but their ends were refined 315 rounds,
 * 326 ms for 9,816 rows, where stock's whole sort of 100,000 rows took
 * 147 ms.
 */
#define GS_REFINE_CMP_FIXED		10.0
#define GS_REFINE_MEMCMP_FIXED	2.0
#define GS_REFINE_MEMCMP_BYTES	256.0
#define GS_REFINE_ROUND_COST	6.0

/* a group of rows still tied: order[lo, hi), transform from off */
typedef struct RefineGroup
{
	uint64		lo;
	uint64		hi;
	size_t		off;
	bool		raw;			/* the value's bytes, past equal transforms */
	uint32		len;			/* the values' bytes, as far as seen */
	float4		spent;			/* cost a row so far, in the bound's units */
} RefineGroup;

/*
 * The transforms' bytes past the first round's chunk, and the values' own
 * bytes, kept by row where the first round made them (libc:
 * gs_keys_transform_keeps), so that later rounds copy them rather than
 * deform the row and transform it again.  A kept tail is the two lengths
 * (2 bytes each) and the two, in an arena of the first round's batch; each task of that batch fills a region of its own,
 * GS_REFINE_KEEP_PER_ROW bytes for each of its rows, and keeps no more
 * where that is full.
 */
typedef struct RefineKeep
{
	uint8	  **kept;			/* [ntuples]: a row's tail, or NULL */
	size_t		from;			/* the transform offset of a tail's first byte */
	bool		filling;		/* the first round: tails are kept */
	size_t		used;			/* bytes of the arenas */
	size_t		reserved;		/* bytes of kept and the arenas, reserved */
	GsReservation *res;			/* the sort's, of the server-wide account */
	MemoryContext cxt;			/* of kept and the arenas */
} RefineKeep;

/* where a chunk task puts the tails it keeps */
typedef struct KeepCursor
{
	uint8	   *next;
	uint8	   *end;
} KeepCursor;

/* a list of groups, in the refining context */
typedef struct GroupList
{
	RefineGroup *g;
	uint64		n;
	uint64		cap;
	uint64		rows;
	MemoryContext cxt;			/* of g */
} GroupList;

/* the chunks of a batch of groups: rows gathered, group by group */
typedef struct ChunkArg
{
	const GsKeySpec *keys;
	int			col;
	bool		desc;
	AttrNumber	attno;
	MinimalTuple *tuples;
	const uint32 *rows;			/* [n]: the batch's rows */
	uint64		n;
	const RefineGroup *groups;	/* [ngroups] */
	const uint64 *gstart;		/* [ngroups + 1]: each group's first row */
	uint64		ngroups;
	uint64	   *out;			/* [n][GS_REFINE_WORDS] */
	uint8	  **kept;			/* RefineKeep's, or NULL */
	size_t		keep_from;
	uint8	   *arena;			/* [n * GS_REFINE_KEEP_PER_ROW], or NULL */
	uint64		ntasks;
	TupleTableSlot **slots;		/* [ntasks], when on threads */
	uint64	   *stopped;		/* [ntasks] */
} ChunkArg;

/*
 * Bytes off .. off + GS_REFINE_CHUNK - 1 of a kept tail's transform, or of
 * its value with raw, zero padded.
 */
static void
chunk_from_kept(const ChunkArg *a, const uint8 *tail, size_t off, bool raw,
				uint8 *buf)
{
	uint16		len[2];
	const uint8 *bytes = tail + sizeof(len);
	size_t		rel = off;
	size_t		n;

	memcpy(len, tail, sizeof(len));
	if (raw)
		bytes += len[0];
	else
	{
		Assert(off >= a->keep_from);
		rel = off - a->keep_from;
	}
	n = rel < len[raw] ? Min(len[raw] - rel, (size_t) GS_REFINE_CHUNK) : 0;
	memcpy(buf, bytes + rel, n);
	memset(buf + n, 0, GS_REFINE_CHUNK - n);
}

/*
 * The chunk of value d for group g into buf, keeping the transform's rest
 * for row where kc has room (kc: a task of the first round).
 */
static bool
chunk_transform(const ChunkArg *a, Datum d, const RefineGroup *g,
				uint32 row, KeepCursor *kc, uint8 *buf, bool nothrow)
{
	uint16		len[2];
	size_t		taillen;
	size_t		rawlen = 0;
	size_t		room;

	if (kc == NULL || g->raw || kc->end - kc->next <= (ptrdiff_t) sizeof(len))
		return gs_keys_transform_range(a->keys, a->col, d, g->raw, g->off,
									   buf, GS_REFINE_CHUNK, nothrow);
	room = Min((size_t) (kc->end - kc->next) - sizeof(len), (size_t) PG_UINT16_MAX);
	if (!gs_keys_transform_keep(a->keys, a->col, d, false, g->off, buf,
								GS_REFINE_CHUNK, kc->next + sizeof(len), room,
								&taillen, &rawlen, nothrow))
		return false;
	if (taillen != SIZE_MAX)
	{
		len[0] = (uint16) taillen;
		len[1] = (uint16) rawlen;
		memcpy(kc->next, len, sizeof(len));
		a->kept[row] = kc->next;
		kc->next += sizeof(len) + taillen + rawlen;
	}
	return true;
}

/*
 * The chunk of row i (of group g) as key words; false where nothrow gave
 * up.  kc: where to keep the transform's rest, or NULL.
 */
static bool
chunk_of(const ChunkArg *a, TupleTableSlot *slot, uint64 i, uint64 g,
		 KeepCursor *kc, bool nothrow)
{
	uint8		buf[GS_REFINE_CHUNK];
	uint64	   *w = a->out + i * GS_REFINE_WORDS;
	uint32		row = a->rows[i];
	const RefineGroup *gr = &a->groups[g];
	bool		isnull;
	Datum		d;
	int			k;

	if (a->kept && a->kept[row])
		chunk_from_kept(a, a->kept[row], gr->off, gr->raw, buf);
	else
	{
		ExecStoreMinimalTuple(a->tuples[row], slot, false);
		d = slot_getattr(slot, a->attno, &isnull);
		if (isnull)
			memset(buf, 0, sizeof(buf));	/* a run of NULLs: ended, equal */
		else if (!chunk_transform(a, d, gr, row, kc, buf, nothrow))
			return false;
	}
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

/* the group that row i of the batch belongs to */
static uint64
group_of(const ChunkArg *a, uint64 i)
{
	uint64		lo = 0,
				hi = a->ngroups;

	while (hi - lo > 1)
	{
		uint64		mid = (lo + hi) / 2;

		if (a->gstart[mid] <= i)
			lo = mid;
		else
			hi = mid;
	}
	return lo;
}

/*
 * Asks for what row i of the batch's chunk will read, in three steps, as
 * each needs what the one before asked for: the row's pointers
 * (3 * GS_REFINE_AHEAD rows ahead), its tail or its tuple's header (twice
 * as far), and every line of the tuple, whose column to deform may lie
 * past the first few (GS_REFINE_AHEAD rows ahead).
 */
static inline void
chunk_prefetch(const ChunkArg *a, uint64 i, uint64 hi)
{
	uint64		k = i + GS_REFINE_AHEAD;

	if (k + 2 * GS_REFINE_AHEAD < hi)
	{
		gs_prefetch(&a->tuples[a->rows[k + 2 * GS_REFINE_AHEAD]]);
		if (a->kept)
			gs_prefetch(&a->kept[a->rows[k + 2 * GS_REFINE_AHEAD]]);
	}
	if (k + GS_REFINE_AHEAD < hi)
	{
		uint32		r = a->rows[k + GS_REFINE_AHEAD];

		if (a->kept && a->kept[r])
			gs_prefetch(a->kept[r]);
		else
			gs_prefetch(a->tuples[r]);
	}
	if (k < hi && !(a->kept && a->kept[a->rows[k]]))
		gs_prefetch_row_rest(a->tuples[a->rows[k]]);
}

static void
chunk_tasks(void *p, uint64 tlo, uint64 thi)
{
	ChunkArg   *a = (ChunkArg *) p;
	uint64		t;

	for (t = tlo; t < thi; t++)
	{
		KeepCursor	kc;
		uint64		lo,
					hi,
					i,
					g;

		gs_team_slice(a->n, a->ntasks, t, &lo, &hi);
		kc.next = a->arena ? a->arena + lo * GS_REFINE_KEEP_PER_ROW : NULL;
		kc.end = a->arena ? a->arena + hi * GS_REFINE_KEEP_PER_ROW : NULL;
		g = group_of(a, lo);
		for (i = lo; i < hi; i++)
		{
			/* the rows lie at random places: ask for those ahead */
			chunk_prefetch(a, i, hi);
			while (i >= a->gstart[g + 1])
				g++;
			if (!chunk_of(a, a->slots[t], i, g, a->arena ? &kc : NULL, true))
				break;
		}
		a->stopped[t] = i;
		ExecClearTuple(a->slots[t]);
	}
}

/* the rest of task t's rows, on the backend */
static void
chunk_rest(GsSort *node, ChunkArg *a, uint64 t)
{
	uint64		lo,
				hi,
				i,
				g;

	KeepCursor	kc;

	gs_team_slice(a->n, a->ntasks, t, &lo, &hi);
	if (a->stopped[t] >= hi)
		return;
	/* a task that did not start (none on threads) keeps in its region */
	kc.next = a->arena ? a->arena + lo * GS_REFINE_KEEP_PER_ROW : NULL;
	kc.end = a->arena ? a->arena + hi * GS_REFINE_KEEP_PER_ROW : NULL;
	g = group_of(a, a->stopped[t]);
	for (i = a->stopped[t]; i < hi; i++)
	{
		while (i >= a->gstart[g + 1])
			g++;
		(void) chunk_of(a, node->row_slot, i, g,
						a->arena && a->stopped[t] == lo ? &kc : NULL, false);
		gs_poll_interrupts(i + 1);
	}
	ExecClearTuple(node->row_slot);
}

/* the chunks of the batch's rows: on threads when it is large */
static void
make_chunks(GsSort *node, ChunkArg *a)
{
	int			nthreads = gpusort_threads();
	TupleDesc	desc = node->row_slot->tts_tupleDescriptor;
	uint64		t;

	a->ntasks = (a->n >= GS_REFINE_THREADS_MIN && nthreads > 1) ?
		(uint64) nthreads * GS_REFINE_TASKS_PER_THREAD : 1;
	a->stopped = palloc0(sizeof(uint64) * a->ntasks);
	if (a->ntasks > 1)
	{
		a->slots = palloc(sizeof(TupleTableSlot *) * a->ntasks);
		for (t = 0; t < a->ntasks; t++)
			a->slots[t] = MakeSingleTupleTableSlot(desc, &TTSOpsMinimalTuple);
		gs_thread_rows_prepare(node->row_slot, node->tuples[0]);
		gs_cpu_for_tasks(a->ntasks, nthreads, chunk_tasks, a);
	}
	for (t = 0; t < a->ntasks; t++)
	{
		chunk_rest(node, a, t);
		if (a->ntasks > 1)
			ExecDropSingleTupleTableSlot(a->slots[t]);
	}
	if (a->ntasks > 1)
		pfree(a->slots);
	pfree(a->stopped);
}

/* qsort of chunks by pointer: chunk words, then the place (stable) */
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
 * Sorts a group's rows by their chunks (rows[] and keys[] together): by the
 * engine for a large group, by qsort for a small one.
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

static void
list_add(GroupList *l, uint64 lo, uint64 hi, size_t off, bool raw,
		 uint32 len, float4 spent)
{
	if (l->n == l->cap)
	{
		l->cap = Max(l->cap * 2, 64);
		l->g = l->g ? repalloc_huge(l->g, sizeof(RefineGroup) * l->cap) :
			MemoryContextAllocHuge(l->cxt, sizeof(RefineGroup) * l->cap);
	}
	l->g[l->n].lo = lo;
	l->g[l->n].hi = hi;
	l->g[l->n].off = off;
	l->g[l->n].raw = raw;
	l->g[l->n].len = len;
	l->g[l->n].spent = spent;
	l->n++;
	l->rows += hi - lo;
}

/*
 * What the comparators would spend, a row, on settling n rows of column c
 * that tie on the first off bytes of their transform (raw: on all of it),
 * of values of about len bytes: log2(n) calls, each over the characters
 * the rows share at least.  A libc or ICU transform's first level holds
 * about 2 bytes a character; rows tied past that are equal at the first
 * level over their whole length, which strcoll then reads whole.  ICU's
 * comparison skips the bytes two strings share before it collates, as
 * memcmp would; glibc's strcoll collates them.
 */
static double
compare_cost(const GsSort *node, int c, uint64 n, size_t off, bool raw,
			 uint32 len)
{
	double		calls = Max(log2((double) n), 1.0);
	double		shared = (raw || off >= 2 * (size_t) len) ? len : off / 2;

	switch (gs_keys_transform_kind(node->keys, c))
	{
		case GS_TRANSFORM_BYTES:
			return calls * (GS_REFINE_MEMCMP_FIXED +
							(raw ? len : off) / GS_REFINE_MEMCMP_BYTES);
		case GS_TRANSFORM_ICU:
			return calls * (GS_REFINE_CMP_FIXED + shared / GS_REFINE_MEMCMP_BYTES);
		case GS_TRANSFORM_LIBC:
			break;
	}
	return calls * (GS_REFINE_CMP_FIXED + shared);
}

/*
 * What the round from transform byte off costs a row that must be
 * transformed (not raw, nor kept): a libc transform is made whole, an ICU
 * sort key from its start up to the bytes asked for (measured at about 2
 * units a byte of the key, as many as its characters at the first level).
 */
static double
transform_cost(const GsSort *node, int c, size_t off, bool raw,
			   uint32 len)
{
	switch (raw ? GS_TRANSFORM_BYTES : gs_keys_transform_kind(node->keys, c))
	{
		case GS_TRANSFORM_LIBC:
			return GS_REFINE_ROUND_COST + len;
		case GS_TRANSFORM_ICU:
			return GS_REFINE_ROUND_COST +
				Min(2.0 * len, (double) (off + GS_REFINE_CHUNK));
		case GS_TRANSFORM_BYTES:
			break;
	}
	return GS_REFINE_ROUND_COST;
}

/*
 * The next round's cost a row for group g: the rows whose transforms' rest
 * is kept copy their chunk; the others are transformed.  The work, not the
 * time: threads share it, but stock's parallel workers share the
 * comparators' too.
 */
static double
round_cost(const GsSort *node, const uint32 *order, const RefineGroup *g,
		   int c, const RefineKeep *keep)
{
	double		cost = transform_cost(node, c, g->off, g->raw, g->len);
	uint64		kept = 0,
				i;

	if (cost == GS_REFINE_ROUND_COST)
		return cost;
	if (keep == NULL || keep->kept == NULL)
		return cost;
	for (i = g->lo; i < g->hi; i++)
		kept += keep->kept[order[i]] != NULL;
	return (kept * GS_REFINE_ROUND_COST + (g->hi - g->lo - kept) * cost) /
		(g->hi - g->lo);
}

/*
 * After group g (its rows and chunks sorted) of the sort's order: marks
 * the pairs its chunks ordered, and settles or lists for the next round
 * each group of equal chunks.
 */
static void
split_group(GsSort *node, uint32 *order, const RefineGroup *g,
			const uint64 *keys, int c, GroupList *next, GsLater *later,
			MemoryContext tiecxt)
{
	uint64		n = g->hi - g->lo;
	bool		desc = gs_keys_desc(node->keys, c);
	uint64		s,
				e;

	for (s = 0; s < n; s = e)
	{
		const uint64 *ks = keys + s * GS_REFINE_WORDS;

		for (e = s + 1; e < n; e++)
			if (memcmp(keys + e * GS_REFINE_WORDS, ks,
					   sizeof(uint64) * GS_REFINE_WORDS) != 0)
				break;
		/* the transform ordered this pair: strcoll checks it (sortverify.c) */
		if (s > 0 && node->refined)
			node->refined[g->lo + s] = 1;
		if (e - s < 2)
			continue;
		if (!chunk_ended(ks, desc))
			list_add(next, g->lo + s, g->lo + e, g->off + GS_REFINE_CHUNK,
					 g->raw, g->len, g->spent);
		else if (!g->raw && gs_keys_ties_by_bytes(node->keys, c))
			list_add(next, g->lo + s, g->lo + e, 0, true, g->len, g->spent);
		else if (c + 1 < node->nkeys)
		{
			/* equal values: the later sort columns decide */
			gs_later_add(node, later, order, g->lo + s, e - s, tiecxt);
			node->info.tie_groups++;
			node->info.tie_rows += e - s;
		}
	}
}

/*
 * One batch: groups[0 .. ngroups) of the sort's order, their chunks made
 * together, each then sorted and split into next.
 */
/*
 * The keeping of the batch's tails: the kept ones read, and in the first
 * round an arena to keep more, while the arenas stay under
 * GS_REFINE_KEEP_MAX and the server-wide account
 * (gpusort.max_total_memory) has room for them.
 */
static void
batch_keep(ChunkArg *a, RefineKeep *keep)
{
	size_t		bytes = (size_t) a->n * GS_REFINE_KEEP_PER_ROW;

	if (keep->kept == NULL)
		return;
	a->kept = keep->kept;
	a->keep_from = keep->from;
	if (keep->filling && keep->used + bytes <= GS_REFINE_KEEP_MAX &&
		gs_reserve(keep->res, GS_ACCT_MEM, bytes, gpusort_total_memory_limit()))
	{
		a->arena = MemoryContextAllocHuge(keep->cxt, Max(bytes, 1));
		keep->used += bytes;
		keep->reserved += bytes;
	}
}

static void
refine_batch(GsSort *node, uint32 *order, const RefineGroup *groups,
			 uint64 ngroups, int c, RefineKeep *keep, GroupList *next,
			 GsLater *later, MemoryContext tiecxt)
{
	ChunkArg	a;
	uint64	   *gstart = palloc(sizeof(uint64) * (ngroups + 1));
	uint32	   *rows;
	uint64		i;

	gstart[0] = 0;
	for (i = 0; i < ngroups; i++)
		gstart[i + 1] = gstart[i] + (groups[i].hi - groups[i].lo);
	rows = MemoryContextAllocHuge(CurrentMemoryContext, sizeof(uint32) * Max(gstart[ngroups], 1));
	for (i = 0; i < ngroups; i++)
		memcpy(rows + gstart[i], order + groups[i].lo,
			   sizeof(uint32) * (groups[i].hi - groups[i].lo));
	memset(&a, 0, sizeof(a));
	a.keys = node->keys;
	a.col = c;
	a.desc = gs_keys_desc(node->keys, c);
	a.attno = node->attnos[c];
	a.tuples = node->tuples;
	a.rows = rows;
	a.n = gstart[ngroups];
	a.groups = groups;
	a.gstart = gstart;
	a.ngroups = ngroups;
	a.out = MemoryContextAllocHuge(CurrentMemoryContext,
								   sizeof(uint64) * GS_REFINE_WORDS * Max(a.n, 1));
	batch_keep(&a, keep);
	make_chunks(node, &a);
	for (i = 0; i < ngroups; i++)
	{
		uint64		n = groups[i].hi - groups[i].lo;

		sort_by_chunks(rows + gstart[i], a.out + gstart[i] * GS_REFINE_WORDS, n);
		memcpy(order + groups[i].lo, rows + gstart[i], sizeof(uint32) * n);
		split_group(node, order, &groups[i], a.out + gstart[i] * GS_REFINE_WORDS,
					c, next, later, tiecxt);
		gs_poll_interrupts(i + 1);
	}
	node->info.refine_rounds++;
	pfree(a.out);
	pfree(rows);
	pfree(gstart);
}

/*
 * One round over every group of cur, in batches of about
 * GS_REFINE_BATCH_ROWS rows; the groups still tied go to next.  Each
 * batch's memory is in batchcxt, reset after it.
 */
static void
refine_round(GsSort *node, uint32 *order, const GroupList *cur, int c,
			 RefineKeep *keep, GroupList *next, GsLater *later,
			 MemoryContext batchcxt, MemoryContext tiecxt)
{
	uint64		first = 0;

	while (first < cur->n)
	{
		uint64		last = first,
					rows = 0;
		MemoryContext oldcxt;

		while (last < cur->n && (rows == 0 || rows + (cur->g[last].hi - cur->g[last].lo) <= GS_REFINE_BATCH_ROWS))
		{
			rows += cur->g[last].hi - cur->g[last].lo;
			last++;
		}
		oldcxt = MemoryContextSwitchTo(batchcxt);
		refine_batch(node, order, cur->g + first, last - first, c, keep, next,
					 later, tiecxt);
		MemoryContextSwitchTo(oldcxt);
		MemoryContextReset(batchcxt);
		first = last;
		CHECK_FOR_INTERRUPTS();
	}
}

/*
 * Duplicates: groups whose rows all hold the same value (the same bytes)
 * are found before each round, in one pass on threads that compares each
 * row with its group's first and stops at the first difference, and go
 * straight to the later columns: making their transforms to the end, round
 * after round, would cost far more than finding them equal.  A group of
 * distinct values costs the pass two rows; a group of one value, each of
 * its rows once, in the round that would have been its next.
 */
typedef struct DupArg
{
	const GsKeySpec *keys;
	int			col;
	AttrNumber	attno;
	MinimalTuple *tuples;
	const uint32 *order;
	const RefineGroup *groups;
	uint64		ngroups;
	uint8	   *same;			/* [ngroups]: every row the same value */
	uint32	   *len;			/* [ngroups]: the longest value seen */
	uint64		ntasks;
	TupleTableSlot **slots;		/* [2 * ntasks] */
} DupArg;

/* the longer of *len and value d's bytes */
static inline void
note_len(const DupArg *a, Datum d, bool isnull, uint32 *len)
{
	Size		n = isnull ? 0 : gs_keys_value_bytes(a->keys, a->col, d);

	*len = Max(*len, (uint32) Min(n, (Size) PG_UINT32_MAX));
}

/*
 * Does group g hold one value?  (false where a value needs detoasting)
 * *len: the longest of the values it read, those of the first row and of
 * the first that differs.
 */
static bool
group_one_value(const DupArg *a, const RefineGroup *g, TupleTableSlot *first,
				TupleTableSlot *other, uint32 *len)
{
	bool		fnull,
				onull,
				same;
	Datum		fd,
				od;
	uint64		i;

	ExecStoreMinimalTuple(a->tuples[a->order[g->lo]], first, false);
	fd = slot_getattr(first, a->attno, &fnull);
	*len = 0;
	note_len(a, fd, fnull, len);
	for (i = g->lo + 1; i < g->hi; i++)
	{
		ExecStoreMinimalTuple(a->tuples[a->order[i]], other, false);
		od = slot_getattr(other, a->attno, &onull);
		if (fnull || onull)
		{
			if (fnull != onull)
			{
				note_len(a, od, onull, len);
				return false;
			}
			continue;
		}
		if (!gs_keys_same_bytes(a->keys, a->col, fd, od, &same) || !same)
		{
			note_len(a, od, onull, len);
			return false;
		}
	}
	return true;
}

/*
 * Asks for the rows of the groups after g, as chunk_prefetch does: the
 * pointers of group g + 3 * GS_DUP_AHEAD's rows, the headers of those of
 * g + 2 * GS_DUP_AHEAD, every line of those of g + GS_DUP_AHEAD.
 */
static void
dup_prefetch(const DupArg *a, uint64 g, uint64 gend)
{
	uint64		i;

	if (g + 3 * GS_DUP_AHEAD < gend)
		for (i = a->groups[g + 3 * GS_DUP_AHEAD].lo; i < a->groups[g + 3 * GS_DUP_AHEAD].hi; i++)
			gs_prefetch(&a->tuples[a->order[i]]);
	if (g + 2 * GS_DUP_AHEAD < gend)
		for (i = a->groups[g + 2 * GS_DUP_AHEAD].lo; i < a->groups[g + 2 * GS_DUP_AHEAD].hi; i++)
			gs_prefetch(a->tuples[a->order[i]]);
	if (g + GS_DUP_AHEAD < gend)
		for (i = a->groups[g + GS_DUP_AHEAD].lo; i < a->groups[g + GS_DUP_AHEAD].hi; i++)
			gs_prefetch_row_rest(a->tuples[a->order[i]]);
}

static void
dup_tasks(void *p, uint64 tlo, uint64 thi)
{
	DupArg	   *a = (DupArg *) p;
	uint64		t,
				g;

	for (t = tlo; t < thi; t++)
	{
		uint64		gend = a->ngroups * (t + 1) / a->ntasks;

		for (g = a->ngroups * t / a->ntasks; g < gend; g++)
		{
			dup_prefetch(a, g, gend);
			a->same[g] = group_one_value(a, &a->groups[g], a->slots[2 * t],
										 a->slots[2 * t + 1], &a->len[g]);
		}
		ExecClearTuple(a->slots[2 * t]);
		ExecClearTuple(a->slots[2 * t + 1]);
	}
}

/* a->same for every group of the list (on threads when it is large) */
static void
find_duplicates(GsSort *node, DupArg *a, uint64 rows)
{
	int			nthreads = gpusort_threads();
	TupleDesc	desc = node->row_slot->tts_tupleDescriptor;
	uint64		t;

	a->ntasks = (rows >= GS_REFINE_THREADS_MIN && nthreads > 1 && a->ngroups > 1) ?
		Min((uint64) nthreads * GS_REFINE_TASKS_PER_THREAD, a->ngroups) : 1;
	a->slots = palloc(sizeof(TupleTableSlot *) * 2 * a->ntasks);
	for (t = 0; t < 2 * a->ntasks; t++)
		a->slots[t] = MakeSingleTupleTableSlot(desc, &TTSOpsMinimalTuple);
	gs_thread_rows_prepare(node->row_slot, node->tuples[0]);
	if (a->ntasks > 1)
		gs_cpu_for_tasks(a->ntasks, nthreads, dup_tasks, a);
	else
		dup_tasks(a, 0, 1);
	for (t = 0; t < 2 * a->ntasks; t++)
		ExecDropSingleTupleTableSlot(a->slots[t]);
	pfree(a->slots);
}

/*
 * A group the cost bound gives to the comparators often holds few distinct
 * values (a category, a status, a template of a long text): then only
 * those are compared, once each, and the rows follow their value.  The
 * values are found by hashing their bytes (where different bytes always
 * compare unequal, gs_keys_bytes_decide), at most GS_CAPPED_DICT_MAX of
 * them and one per GS_CAPPED_DICT_SHARE rows; else, or where a value is
 * NULL or toasted, the comparators sort the group as it is.
 */
#define GS_CAPPED_DICT_MAX		1024
#define GS_CAPPED_DICT_SHARE	8

typedef struct DictEntry
{
	uint32		hash;
	uint32		rep;			/* the value's first row, in the sort */
	const char *data;
	Size		len;
} DictEntry;

/* rank[i] for each row of order[0, n): the index of its value; false if too many */
static bool
capped_values(GsSort *node, const uint32 *order, uint64 n, int c,
			  uint32 *rank, uint32 *reps, uint32 *nreps)
{
	uint32		cap = Min((uint64) GS_CAPPED_DICT_MAX, n / GS_CAPPED_DICT_SHARE);
	uint32		size = 4 * GS_CAPPED_DICT_MAX;
	DictEntry  *tab = palloc0(sizeof(DictEntry) * size);
	TupleTableSlot *slot = node->row_slot;
	AttrNumber	attno = node->attnos[c];
	bool		ok = true;
	uint64		i;

	*nreps = 0;
	for (i = 0; i < n && ok; i++)
	{
		const char *data;
		Size		len;
		bool		isnull;
		Datum		d;
		uint32		h,
					p;

		ExecStoreMinimalTuple(node->tuples[order[i]], slot, false);
		d = slot_getattr(slot, attno, &isnull);
		if (isnull || !gs_keys_value_peek(node->keys, c, d, &data, &len))
		{
			ok = false;
			break;
		}
		h = hash_bytes((const unsigned char *) data, (int) len);
		for (p = h & (size - 1);; p = (p + 1) & (size - 1))
		{
			DictEntry  *e = &tab[p];

			if (e->data == NULL)
			{
				if (*nreps >= cap)
				{
					ok = false;
					break;
				}
				e->hash = h;
				e->data = data;
				e->len = len;
				e->rep = *nreps;
				reps[(*nreps)++] = order[i];
			}
			if (e->hash == h && e->len == len && memcmp(e->data, data, len) == 0)
			{
				rank[i] = e->rep;
				break;
			}
		}
		gs_poll_interrupts(i + 1);
	}
	ExecClearTuple(slot);
	pfree(tab);
	return ok;
}

/*
 * Sorts order[lo, hi), whose refinement would cost more than the
 * comparators, by the comparators from column c on: by its few values
 * where it has few (capped_values), else row by row.
 */
static void
settle_capped(GsSort *node, uint32 *order, uint64 lo, uint64 hi, int c,
			  GsLater *later, GsColl *coll, MemoryContext tiecxt)
{
	uint64		n = hi - lo;
	uint32	   *rank = NULL;
	uint32	   *reps = NULL;
	uint32		nreps = 0;

	node->info.tie_groups++;
	node->info.tie_rows += n;
	node->info.refine_capped_groups++;
	node->info.refine_capped_rows += n;
	if (gs_keys_bytes_decide(node->keys, c) && n >= 2 * GS_CAPPED_DICT_SHARE)
	{
		rank = MemoryContextAllocHuge(CurrentMemoryContext, sizeof(uint32) * n);
		reps = palloc(sizeof(uint32) * GS_CAPPED_DICT_MAX);
	}
	if (rank && capped_values(node, order + lo, n, c, rank, reps, &nreps))
	{
		uint32	   *sorted = MemoryContextAllocHuge(CurrentMemoryContext, sizeof(uint32) * n);
		uint32	   *pos = palloc(sizeof(uint32) * nreps);
		uint64	   *start = palloc0(sizeof(uint64) * (nreps + 1));
		uint32	   *reprank = palloc(sizeof(uint32) * nreps);
		uint32		r;
		uint64		i;

		/* the values, each once, in the comparators' order */
		memcpy(pos, reps, sizeof(uint32) * nreps);
		gs_sort_settle_run(node, pos, nreps, c, tiecxt);
		for (r = 0; r < nreps; r++)
		{
			uint32		k;

			/* pos[r] is the row of some value: find its index (few values) */
			for (k = 0; k < nreps && reps[k] != pos[r]; k++)
				;
			reprank[k] = r;
		}
		/* the rows by their value's place, in their order within it */
		for (i = 0; i < n; i++)
			start[reprank[rank[i]] + 1]++;
		for (r = 0; r < nreps; r++)
			start[r + 1] += start[r];
		for (i = 0; i < n; i++)
			sorted[start[reprank[rank[i]]]++] = order[lo + i];
		memcpy(order + lo, sorted, sizeof(uint32) * n);
		/* rows of one value: the later columns decide */
		if (c + 1 < node->nkeys)
		{
			uint64		s = 0;

			for (r = 0; r < nreps; r++)
			{
				uint64		e = start[r];

				if (e - s > 1)
					gs_later_add(node, later, order, lo + s, e - s, tiecxt);
				s = e;
			}
		}
		pfree(sorted);
		pfree(pos);
		pfree(start);
		pfree(reprank);
	}
	else if (coll)
		gs_coll_add(coll, lo, n);
	else
		gs_sort_settle_run(node, order + lo, n, c, tiecxt);
	if (rank)
	{
		pfree(rank);
		pfree(reps);
	}
}

/*
 * Before each round, the groups of cur that go on to it: those of one
 * value go to the later columns' comparators, and those whose round would
 * take their cost past the comparators' (the cost bound) to the
 * comparators from column c on.  Keeps the others in cur, with their
 * values' length as seen and the round's cost added.
 */
static void
prune_groups(GsSort *node, uint32 *order, GroupList *cur, int c,
			 const RefineKeep *keep, GsLater *later, GsColl *coll,
			 MemoryContext tiecxt)
{
	DupArg		a;
	uint64		i,
				n = 0,
				rows = 0;

	memset(&a, 0, sizeof(a));
	a.keys = node->keys;
	a.col = c;
	a.attno = node->attnos[c];
	a.tuples = node->tuples;
	a.order = order;
	a.groups = cur->g;
	a.ngroups = cur->n;
	a.same = MemoryContextAllocHuge(CurrentMemoryContext, Max(cur->n, 1));
	a.len = MemoryContextAllocHuge(CurrentMemoryContext,
								   sizeof(uint32) * Max(cur->n, 1));
	find_duplicates(node, &a, cur->rows);
	for (i = 0; i < cur->n; i++)
	{
		RefineGroup g = cur->g[i];
		double		cost;

		g.len = Max(g.len, a.len[i]);
		cost = g.spent + round_cost(node, order, &g, c, keep);
		if (a.same[i])
		{
			/* equal values: the later sort columns decide */
			if (c + 1 < node->nkeys)
			{
				gs_later_add(node, later, order, g.lo, g.hi - g.lo, tiecxt);
				node->info.tie_groups++;
				node->info.tie_rows += g.hi - g.lo;
			}
		}
		else if (cost > compare_cost(node, c, g.hi - g.lo, g.off, g.raw, g.len))
			settle_capped(node, order, g.lo, g.hi, c, later, coll, tiecxt);
		else
		{
			g.spent = (float4) cost;
			cur->g[n++] = g;
			rows += g.hi - g.lo;
		}
		gs_poll_interrupts(i + 1);
	}
	cur->n = n;
	cur->rows = rows;
	pfree(a.same);
	pfree(a.len);
}

/*
 * Starts keeping the first round's tails (RefineKeep), under libc, where
 * the rows to refine are at least 1/GS_REFINE_KEEP_SHARE of the sort's
 * (the row map's 8 bytes a stored row, zeroed, must stay small beside
 * what the later rounds save) and the server-wide account has room for
 * the map: else keep->kept stays NULL and every round transforms.
 */
static void
keep_begin(GsSort *node, const GroupList *cur, int c,
		   MemoryContext refinecxt, RefineKeep *keep)
{
	size_t		bytes = sizeof(uint8 *) * node->ntuples;

	if (cur->n == 0 || !gs_keys_transform_keeps(node->keys, c) ||
		cur->rows < node->ntuples / GS_REFINE_KEEP_SHARE)
		return;
	keep->res = node->reservation;
	if (!gs_reserve(keep->res, GS_ACCT_MEM, bytes, gpusort_total_memory_limit()))
		return;
	keep->reserved = bytes;
	keep->kept = MemoryContextAllocExtended(refinecxt, bytes,
											MCXT_ALLOC_HUGE | MCXT_ALLOC_ZERO);
	keep->from = gs_keys_prefix_width(node->keys, c) + GS_REFINE_CHUNK;
	keep->filling = true;
	keep->cxt = refinecxt;
}

/*
 * Settles the runs of equal keys order[starts[i] .. starts[i] + lens[i])
 * from the transform of sort column c (gs_keys_refinable), from the bytes
 * after the key's prefix on, and the comparators where whole values are
 * equal, for the later columns.  refinecxt holds the lists of groups
 * (reset here); tiecxt is the comparators'.
 */
void
gs_sort_refine_runs(GsSort *node, uint32 *order, const uint64 *starts,
					const uint64 *lens, uint64 nruns, int c,
					MemoryContext refinecxt, MemoryContext tiecxt)
{
	MemoryContext oldcxt = MemoryContextSwitchTo(refinecxt);
	MemoryContext batchcxt = AllocSetContextCreate(refinecxt, "GpuSort refine batch",
												   ALLOCSET_DEFAULT_SIZES);
	GroupList	cur = {0},
				next = {0};
	RefineKeep	keep = {0};
	GsLater    *later = gs_later_begin(node, c, refinecxt);
	GsColl	   *coll = gs_coll_begin(node, c, later, refinecxt);
	uint64		i;

	cur.cxt = next.cxt = refinecxt;
	for (i = 0; i < nruns; i++)
		list_add(&cur, starts[i], starts[i] + lens[i],
				 gs_keys_prefix_width(node->keys, c), false, 0, 0);
	prune_groups(node, order, &cur, c, NULL, later, coll, tiecxt);
	node->info.refine_groups += cur.n;
	node->info.refine_rows += cur.rows;
	keep_begin(node, &cur, c, refinecxt, &keep);
	while (cur.n > 0)
	{
		refine_round(node, order, &cur, c, &keep, &next, later, batchcxt,
					 tiecxt);
		keep.filling = false;
		pfree(cur.g);
		cur = next;
		memset(&next, 0, sizeof(next));
		next.cxt = refinecxt;
		prune_groups(node, order, &cur, c, &keep, later, coll, tiecxt);
	}
	if (cur.g)
		pfree(cur.g);
	if (keep.reserved > 0)
		gs_release(keep.res, GS_ACCT_MEM, keep.reserved);
	if (coll)
		gs_coll_settle(node, coll, order, tiecxt);
	gs_later_settle(node, later, order, tiecxt);
	MemoryContextSwitchTo(oldcxt);
	MemoryContextReset(refinecxt);
}
