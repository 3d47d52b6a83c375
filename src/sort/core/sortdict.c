/*-------------------------------------------------------------------------
 *
 * sortdict.c
 *	  Dictionary ranks: a sort column of few distinct values keyed by its
 *	  exact rank among them.
 *
 * A text column of a few hundred categories sharing long prefixes
 * ("Électronique grand public > Téléviseurs 042") fills a 32-byte strxfrm
 * prefix without telling its values apart, so every row lands in a tie
 * group and the next sort columns go to the comparators.  Its values'
 * ranks among the distinct values of the sort take 1 or 2 bytes, decide the
 * column exactly, and leave the rest of the key to the next columns.  That
 * works for any type PostgreSQL can compare (text in any collation,
 * numeric, bytea, uuid, interval), since the distinct values are ordered
 * once by the column's own comparator (its SortSupport: collation, opclass
 * and direction), which is exact: no strcoll check follows.
 *
 * For each leading sort column in turn (gs_keys_rank_pays says whether a
 * rank could beat the column's own encoding), while the columns before it
 * are exact:
 *
 *	 1. sample: the values of GS_DICT_SAMPLE rows spread over the sort are
 *		hashed; from how many distinct ones the sample holds, the number of
 *		distinct values of all rows is estimated (as for equiprobable
 *		values), and the column is left alone unless that is at most
 *		GS_KEYS_MAX_RANKS and a small share of the rows;
 *	 2. count: each task (a thread's slice of the rows) hashes its rows'
 *		values into a table of its own, by their bytes, and writes each
 *		row's entry number; a task gives up when it sees more values than
 *		a rank may have (GS_KEYS_MAX_RANKS, and a 1/GS_DICT_MAX_SHARE of
 *		the rows: the sample's estimate assumes equally likely values, and
 *		a few frequent ones hide many rare ones from it), or a value stored
 *		compressed or out of line (which needs detoasting).  Giving up
 *		here spares the merge's sort, whose comparator calls compare whole
 *		values: 11,000 distinct strings of 1-10 kB sharing long prefixes,
 *		in 30,000 rows, took the merge 0.9 s where stock sorts every row
 *		in 70 ms;
 *	 3. merge: the backend puts the tasks' entries in one table, and sorts
 *		it with the comparator; values the comparator calls equal (bytes
 *		that differ: trailing blanks of bpchar, numeric scales, a
 *		nondeterministic collation) get the same rank;
 *	 4. remap: each task turns its rows' entry numbers into ranks.
 *
 * Invariant: equal bytes are equal values under any btree comparator, and
 * ranks follow the comparator, so rows of different ranks are in the order
 * the comparator gives, and rows of equal rank are equal in this column.
 *
 * Threads deform stored rows in slots of their own (the descriptor's cached
 * offsets set first, by the backend) and call nothing of PostgreSQL's but
 * hash_bytes; the backend prepares every array, merges, and compares.
 * The rank arrays live in runcxt until gs_sort_release_ranks.
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include <math.h>

#include "common/hashfn.h"
#include "miscadmin.h"

#include "runtime/settings.h"
#include "threads/threads_backend.h"
#include "sortstate.h"
#include "threads/thread_slots.h"

/* rows below which no column is ranked: the comparators are cheap enough */
#define GS_DICT_MIN_ROWS	2048

/* rows sampled to estimate the distinct values */
#define GS_DICT_SAMPLE		2048

/* a column is ranked if its distinct values are at most this share of rows */
#define GS_DICT_MAX_SHARE	8

/* open-addressing slots per table: twice the entries it may hold */
#define GS_DICT_SLOTS		(2 * GS_KEYS_MAX_RANKS)

#define GS_DICT_NONE		PG_UINT32_MAX

/* one distinct value: its first row's datum and bytes */
typedef struct DictEntry
{
	uint32		hash;
	uint32		len;
	const char *data;			/* into the stored row, or to d itself */
	Datum		d;
} DictEntry;

typedef struct DictTable
{
	uint32		n;
	bool		failed;
	uint32		slots[GS_DICT_SLOTS];	/* entry + 1, or 0 */
	DictEntry	entries[GS_KEYS_MAX_RANKS];
} DictTable;

typedef struct DictArg
{
	MinimalTuple *tuples;
	uint64		n;
	uint64		ntasks;
	AttrNumber	attno;
	int16		attlen;
	bool		attbyval;
	uint32		cap;			/* the most values a table may hold */
	TupleTableSlot **slots;		/* [ntasks] */
	DictTable **tables;			/* [ntasks] */
	uint32	   *ids;			/* [n]: entry, then rank */
	uint32	  **maps;			/* [ntasks]: entry -> rank */
} DictArg;

/*
 * The bytes of a non-NULL value, in e (d set), without allocating: false
 * for a varlena stored compressed or out of line.
 */
static inline bool
dict_value(const DictArg *a, DictEntry *e)
{
	if (a->attbyval)
	{
		e->data = (const char *) &e->d;
		e->len = sizeof(Datum);
	}
	else if (a->attlen > 0)
	{
		e->data = DatumGetPointer(e->d);
		e->len = a->attlen;
	}
	else if (a->attlen == -1)
	{
		struct varlena *v = (struct varlena *) DatumGetPointer(e->d);

		if (VARATT_IS_COMPRESSED(v) || VARATT_IS_EXTERNAL(v))
			return false;
		e->data = VARDATA_ANY(v);
		e->len = VARSIZE_ANY_EXHDR(v);
	}
	else
	{
		e->data = DatumGetCString(e->d);
		e->len = strlen(e->data);
	}
	e->hash = hash_bytes((const unsigned char *) e->data, (int) e->len);
	return true;
}

/*
 * The entry of t equal in bytes to e, added if new (its data then pointing
 * at its own d for a by-value type); GS_DICT_NONE when t is full.
 */
static uint32
dict_insert(DictTable *t, const DictEntry *e, bool byval, uint32 cap)
{
	uint32		s = e->hash & (GS_DICT_SLOTS - 1);

	for (;; s = (s + 1) & (GS_DICT_SLOTS - 1))
	{
		uint32		k = t->slots[s];
		DictEntry  *x;

		if (k == 0)
			break;
		x = &t->entries[k - 1];
		if (x->hash == e->hash && x->len == e->len &&
			memcmp(x->data, e->data, e->len) == 0)
			return k - 1;
	}
	if (t->n >= cap)
		return GS_DICT_NONE;
	t->entries[t->n] = *e;
	if (byval)
		t->entries[t->n].data = (const char *) &t->entries[t->n].d;
	t->slots[s] = ++t->n;
	return t->n - 1;
}

/* step 2 for tasks [tlo, thi): each row's entry in its task's table */
static void
dict_count_tasks(void *p, uint64 tlo, uint64 thi)
{
	DictArg    *a = (DictArg *) p;
	uint64		t;

	for (t = tlo; t < thi; t++)
	{
		TupleTableSlot *slot = a->slots[t];
		DictTable  *tab = a->tables[t];
		uint64		lo,
					hi,
					i;

		gs_team_slice(a->n, a->ntasks, t, &lo, &hi);
		for (i = lo; i < hi && !tab->failed; i++)
		{
			DictEntry	e;
			bool		isnull;

			ExecStoreMinimalTuple(a->tuples[i], slot, false);
			e.d = slot_getattr(slot, a->attno, &isnull);
			if (isnull)
			{
				a->ids[i] = GS_DICT_NONE;
				continue;
			}
			if (!dict_value(a, &e) ||
				(a->ids[i] = dict_insert(tab, &e, a->attbyval, a->cap)) == GS_DICT_NONE)
				tab->failed = true;
		}
		ExecClearTuple(slot);
	}
}

/* step 4 for tasks [tlo, thi) */
static void
dict_remap_tasks(void *p, uint64 tlo, uint64 thi)
{
	DictArg    *a = (DictArg *) p;
	uint64		t;

	for (t = tlo; t < thi; t++)
	{
		const uint32 *map = a->maps[t];
		uint64		lo,
					hi,
					i;

		gs_team_slice(a->n, a->ntasks, t, &lo, &hi);
		for (i = lo; i < hi; i++)
			if (a->ids[i] != GS_DICT_NONE)
				a->ids[i] = map[a->ids[i]];
	}
}

/* the comparator's order of two entries of the merged table */
typedef struct DictSortArg
{
	SortSupport ssup;
	const DictEntry *entries;
	uint32		ncompares;
} DictSortArg;

static int
dict_entry_compare(const void *x, const void *y, void *arg)
{
	DictSortArg *sa = (DictSortArg *) arg;
	const DictEntry *ex = &sa->entries[*(const uint32 *) x];
	const DictEntry *ey = &sa->entries[*(const uint32 *) y];

	gs_poll_interrupts(++sa->ncompares);
	return ApplySortComparator(ex->d, false, ey->d, false, sa->ssup);
}

/*
 * Step 3: merges the tasks' tables into one, sorts it with the comparator,
 * and fills a->maps (task entry -> rank).  Returns the number of ranks, or
 * 0 when the tasks failed or saw too many values together.
 */
static uint32
dict_merge(DictArg *a, SortSupport ssup)
{
	DictTable  *all = palloc0(sizeof(DictTable));
	uint32	  **to_all = palloc(sizeof(uint32 *) * a->ntasks);
	uint32	   *order;
	uint32	   *rank_of;
	uint32		nranks = 0;
	uint64		t;
	uint32		i;
	DictSortArg sa;

	for (t = 0; t < a->ntasks; t++)
	{
		DictTable  *tab = a->tables[t];

		if (tab->failed)
			return 0;
		to_all[t] = palloc(sizeof(uint32) * Max(tab->n, 1));
		for (i = 0; i < tab->n; i++)
			if ((to_all[t][i] = dict_insert(all, &tab->entries[i], a->attbyval, a->cap)) == GS_DICT_NONE)
				return 0;
	}
	order = palloc(sizeof(uint32) * Max(all->n, 1));
	rank_of = palloc(sizeof(uint32) * Max(all->n, 1));
	for (i = 0; i < all->n; i++)
		order[i] = i;
	sa.ssup = ssup;
	sa.entries = all->entries;
	sa.ncompares = 0;
	qsort_arg(order, all->n, sizeof(uint32), dict_entry_compare, &sa);
	for (i = 0; i < all->n; i++)
	{
		if (i == 0 || dict_entry_compare(&order[i - 1], &order[i], &sa) != 0)
			nranks++;
		rank_of[order[i]] = nranks - 1;
	}
	for (t = 0; t < a->ntasks; t++)
	{
		a->maps[t] = to_all[t];
		for (i = 0; i < a->tables[t]->n; i++)
			a->maps[t][i] = rank_of[to_all[t][i]];
	}
	pfree(all);
	pfree(order);
	pfree(rank_of);
	return nranks;
}

/*
 * Step 1: whether the sample's distinct values suggest at most
 * GS_KEYS_MAX_RANKS, and few relative to the rows.  m values drawn from D
 * equally likely ones show about D (1 - e^(-m/D)) distinct; that grows
 * with D, so the D it gives for the distinct values seen is found by
 * bisection.
 */
static bool
dict_sample_promising(DictArg *a, TupleTableSlot *slot)
{
	DictTable  *tab = palloc0(sizeof(DictTable));
	uint64		m = Min(a->n, GS_DICT_SAMPLE);
	double		lo = 1,
				hi = 1e12,
				seen;
	uint64		i;
	bool		promising;

	for (i = 0; i < m; i++)
	{
		DictEntry	e;
		bool		isnull;

		ExecStoreMinimalTuple(a->tuples[i * a->n / m], slot, false);
		e.d = slot_getattr(slot, a->attno, &isnull);
		if (!isnull && (!dict_value(a, &e) ||
						dict_insert(tab, &e, a->attbyval, GS_KEYS_MAX_RANKS) == GS_DICT_NONE))
			break;
	}
	ExecClearTuple(slot);
	seen = tab->n;
	if (i < m || seen >= m)
		promising = false;		/* a value to detoast, or all distinct */
	else
	{
		while (hi - lo > 1)
		{
			double		mid = (lo + hi) / 2;

			if (mid * (1 - exp(-(double) m / mid)) < seen)
				lo = mid;
			else
				hi = mid;
		}
		promising = hi <= GS_KEYS_MAX_RANKS &&
			hi * GS_DICT_MAX_SHARE <= (double) a->n;
	}
	pfree(tab);
	return promising;
}

/* the tasks' slots and tables, and the rows' array (runcxt) */
static void
dict_alloc(GsSort *node, DictArg *a)
{
	TupleDesc	desc = node->row_slot->tts_tupleDescriptor;
	uint64		t;

	a->slots = palloc(sizeof(TupleTableSlot *) * a->ntasks);
	a->tables = palloc(sizeof(DictTable *) * a->ntasks);
	a->maps = palloc0(sizeof(uint32 *) * a->ntasks);
	for (t = 0; t < a->ntasks; t++)
	{
		a->slots[t] = MakeSingleTupleTableSlot(desc, &TTSOpsMinimalTuple);
		a->tables[t] = palloc0(sizeof(DictTable));
	}
	a->ids = MemoryContextAllocHuge(node->runcxt, sizeof(uint32) * a->n);
}

static void
dict_free(DictArg *a)
{
	uint64		t;

	for (t = 0; t < a->ntasks; t++)
	{
		ExecDropSingleTupleTableSlot(a->slots[t]);
		pfree(a->tables[t]);
		if (a->maps[t])
			pfree(a->maps[t]);
	}
	pfree(a->slots);
	pfree(a->tables);
	pfree(a->maps);
}

/* a's rows and sort column c, for the sample and the count */
static void
dict_arg_init(GsSort *node, int c, DictArg *a)
{
	Form_pg_attribute att;

	memset(a, 0, sizeof(*a));
	a->tuples = node->tuples;
	a->n = node->ntuples;
	a->attno = gs_keys_attno(node->keys, c);
	att = TupleDescAttr(node->row_slot->tts_tupleDescriptor, a->attno - 1);
	a->attlen = att->attlen;
	a->attbyval = att->attbyval;
	a->cap = (uint32) Min((uint64) GS_KEYS_MAX_RANKS, a->n / GS_DICT_MAX_SHARE);
}

/*
 * The ranks of sort column c's values, row by row (NULL rows: undefined),
 * and in *nranks how many there are; NULL when the column is not worth
 * ranking or cannot be (see the header comment).
 */
static uint32 *
dict_rank_column(GsSort *node, int c, uint32 *nranks)
{
	DictArg		a;
	int			nthreads = (node->ntuples >= GS_THREADED_MIN_ROWS) ?
		gpusort_threads() : 1;

	dict_arg_init(node, c, &a);
	if (!dict_sample_promising(&a, node->row_slot))
		return NULL;

	a.ntasks = nthreads;
	dict_alloc(node, &a);
	gs_thread_rows_prepare(node->row_slot, node->tuples[0]);
	gs_cpu_for_tasks(a.ntasks, nthreads, dict_count_tasks, &a);
	*nranks = dict_merge(&a, &node->ssup[c]);
	if (*nranks > 0 && (uint64) *nranks * GS_DICT_MAX_SHARE <= a.n)
		gs_cpu_for_tasks(a.ntasks, nthreads, dict_remap_tasks, &a);
	else
	{
		pfree(a.ids);
		a.ids = NULL;
	}
	dict_free(&a);
	return a.ids;
}

/*
 * Ranks the leading sort columns that pay for it (see the header comment),
 * before the key's layout is chosen: each ranked column is exact, so the
 * next one may be ranked too; the first that is neither exact nor ranked
 * ends the key's exact part, and the search.
 */
void
gs_sort_rank_columns(GsSort *node)
{
	GsKeySpec  *keys = node->keys;
	int			c;

	for (c = 0; c < gs_keys_nraw(keys); c++)
		gs_keys_set_ranks(keys, c, NULL, 0);
	if (!gpusort_dict_ranks || node->ntuples < GS_DICT_MIN_ROWS ||
		node->ntuples > PG_UINT32_MAX)
		return;
	for (c = 0; c < gs_keys_nraw(keys); c++)
	{
		uint32	   *ranks;
		uint32		nranks = 0;

		if (!gs_keys_rank_pays(keys, c))
			continue;			/* exact as it is */
		ranks = dict_rank_column(node, c, &nranks);
		if (ranks == NULL)
			break;
		gs_keys_set_ranks(keys, c, ranks, nranks);
		CHECK_FOR_INTERRUPTS();
	}
}

/*
 * Would gs_sort_rank_columns rank a column?  Its first step alone (the
 * sample) on the first column that is not exact as it is: a run keyed
 * without ranks asks, to sort by ranks only where there are any (sort_run).
 */
bool
gs_sort_ranks_promising(GsSort *node)
{
	GsKeySpec  *keys = node->keys;
	DictArg		a;
	int			c;

	if (!gpusort_dict_ranks || node->ntuples < GS_DICT_MIN_ROWS ||
		node->ntuples > PG_UINT32_MAX)
		return false;
	for (c = 0; c < gs_keys_nraw(keys); c++)
		if (gs_keys_rank_pays(keys, c))
			break;
	if (c == gs_keys_nraw(keys))
		return false;
	dict_arg_init(node, c, &a);
	return dict_sample_promising(&a, node->row_slot);
}

/*
 * Frees the rank arrays once the keys are built; the spec keeps the counts
 * for EXPLAIN.
 */
void
gs_sort_release_ranks(GsSort *node)
{
	GsKeySpec  *keys = node->keys;
	int			c;

	for (c = 0; c < gs_keys_nraw(keys); c++)
	{
		uint32		nranks;
		uint32	   *ranks = gs_keys_get_ranks(keys, c, &nranks);

		if (ranks)
		{
			gs_keys_set_ranks(keys, c, NULL, nranks);
			pfree(ranks);
		}
	}
}
