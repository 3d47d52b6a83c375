/*-------------------------------------------------------------------------
 *
 * sortparread.c
 *	  What the leader's GpuSort reads of a GpuSortStore's shared memory:
 *	  the participants' rows, their raw keys and statistics, and the runs
 *	  that participants whose share outgrew its room wrote instead.
 *
 * sortpar.c stores the rows; the GpuSort above the Gather (sortstore.c)
 * takes them through these functions, which is why they are a file of
 * their own: the GpuSort calls them, and GpuSortStore calls the GpuSort's
 * run writer, so neither node's file calls the other.  The store they read
 * (GsStoreState, sortparstate.h) is GpuSortStore's state without the
 * executor's part, which node/sortpar.c keeps; the GpuSort node finds it
 * under its Gather (gs_par_input, sortpar.c) and gives it to its sort.
 * Rows are read in place: the leader maps every participant's area
 * (store_begin) and copies only addresses and raw keys, on threads.
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "miscadmin.h"

#include "sortparstate.h"
#include "threads/threads_backend.h"

static inline bool
have_rows(GsParInput *in)
{
	return in->shared != NULL && in->shared->enabled && in->keys != NULL;
}

void
gs_par_allow_runs(GsParInput *in, bool allow)
{
	in->runs_allowed = allow;
}

struct GsSharedRuns *
gs_par_runs(GsParInput *in, int *plan_node_id)
{
	if (!have_rows(in) || !in->shared->runs_allowed)
		return NULL;
	*plan_node_id = in->plan->plan_node_id;
	return part_runs(in->shared);
}

Size
gs_par_limit(GsParInput *in)
{
	return in->limit;
}

bool
gs_par_overflowed(GsParInput *in)
{
	return have_rows(in) && pg_atomic_read_u32(&in->shared->overflow) != 0;
}

uint64
gs_par_nrows(GsParInput *in)
{
	uint64		n = 0;
	int			i;

	if (!have_rows(in))
		return 0;
	pg_read_barrier();
	for (i = 0; i < in->shared->nparts; i++)
		if (in->shared->parts[i].ran)
			n += in->shared->parts[i].nrows;
	keep_seen(in);
	return n;
}

int
gs_par_nparts(GsParInput *in, Size *bytes)
{
	int			n = 0;
	int			i;

	*bytes = 0;
	if (!have_rows(in))
		return 0;
	for (i = 0; i < in->shared->nparts; i++)
		if (in->shared->parts[i].ran)
		{
			*bytes += in->shared->parts[i].bytes;
			n++;
		}
	return n;
}

void
gs_par_merge_stats(GsParInput *in, GsKeySpec *keys)
{
	int			i;

	if (!have_rows(in))
		return;
	for (i = 0; i < in->shared->nparts; i++)
		if (in->shared->parts[i].ran)
			gs_keys_merge_stats(keys, part_stats(in->shared, i));
}

/* a chunk as the leader sees it */
typedef struct ChunkRef
{
	const char *base;
	Size		size;
	uint64		first;			/* row number of its first row */
	uint32		nrows;
} ChunkRef;

typedef struct FillArg
{
	ChunkRef   *chunks;
	int			nchunks;
	int			entry_bytes;
	int			raw_bytes;
	MinimalTuple *tuples;
	uint8	   *raw;
} FillArg;

/* every chunk of every participant that ran, in row order, mapped */
static ChunkRef *
map_chunks(GsParInput *in, int *nchunks)
{
	GsParShared *sh = in->shared;
	int			cap = 64;
	int			n = 0;
	ChunkRef   *refs = palloc(sizeof(ChunkRef) * cap);
	uint64		row = 0;
	int			i;

	for (i = 0; i < sh->nparts; i++)
	{
		dsa_pointer dp;

		if (!sh->parts[i].ran)
			continue;
		for (dp = sh->parts[i].first; DsaPointerIsValid(dp);)
		{
			const GsParChunk *c = dsa_get_address(in->areas[i], dp);

			if (n == cap)
			{
				cap *= 2;
				refs = repalloc(refs, sizeof(ChunkRef) * cap);
			}
			refs[n].base = (const char *) c;
			refs[n].size = c->size;
			refs[n].first = row;
			refs[n].nrows = c->nrows;
			row += c->nrows;
			n++;
			dp = c->next;
		}
	}
	*nchunks = n;
	return refs;
}

/* the chunk that holds row, by binary search over the chunks' first rows */
static int
find_chunk(const ChunkRef *refs, int n, uint64 row)
{
	int			lo = 0,
				hi = n - 1;

	while (lo < hi)
	{
		int			mid = (lo + hi + 1) / 2;

		if (refs[mid].first <= row)
			lo = mid;
		else
			hi = mid - 1;
	}
	return lo;
}

/* rows [lo, hi): on a thread, so no PostgreSQL call */
static void
fill_slice(void *p, uint64 lo, uint64 hi)
{
	FillArg    *a = (FillArg *) p;
	int			c = find_chunk(a->chunks, a->nchunks, lo);
	uint64		i = lo;

	while (i < hi)
	{
		const ChunkRef *ch = &a->chunks[c++];
		uint64		end = Min(hi, ch->first + ch->nrows);

		for (; i < end; i++)
		{
			uint64		k = i - ch->first;
			const char *e = ch->base + ch->size - (Size) (k + 1) * a->entry_bytes;
			uint32		off;

			memcpy(&off, e, sizeof(uint32));
			a->tuples[i] = (MinimalTuple) (ch->base + off);
			memcpy(a->raw + i * a->raw_bytes, e + sizeof(uint32), a->raw_bytes);
		}
	}
}

void
gs_par_fill(GsParInput *in, MinimalTuple *tuples, uint8 *raw, int raw_bytes,
			int nthreads)
{
	FillArg		a;
	uint64		n = gs_par_nrows(in);

	if (n == 0)
		return;
	if (raw_bytes != in->raw_bytes)
		elog(ERROR, "gpusort: raw keys of %d bytes in shared memory, %d expected",
			 in->raw_bytes, raw_bytes);
	a.chunks = map_chunks(in, &a.nchunks);
	a.entry_bytes = in->entry_bytes;
	a.raw_bytes = raw_bytes;
	a.tuples = tuples;
	a.raw = raw;
	gs_cpu_for_slices(n, nthreads, fill_slice, &a);
	pfree(a.chunks);
}

void
gs_par_foreach(GsParInput *in, void (*fn) (void *arg, MinimalTuple tup), void *arg)
{
	int			nchunks;
	ChunkRef   *refs;
	int			c;

	if (gs_par_nrows(in) == 0)
		return;
	refs = map_chunks(in, &nchunks);
	for (c = 0; c < nchunks; c++)
	{
		uint32		k;

		for (k = 0; k < refs[c].nrows; k++)
		{
			const char *e = refs[c].base + refs[c].size -
				(Size) (k + 1) * in->entry_bytes;
			uint32		off;

			memcpy(&off, e, sizeof(uint32));
			fn(arg, (MinimalTuple) (refs[c].base + off));
		}
		CHECK_FOR_INTERRUPTS();
	}
	pfree(refs);
}

