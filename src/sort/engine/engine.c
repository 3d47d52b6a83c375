/*-------------------------------------------------------------------------
 *
 * engine.c
 *	  GsSorter: picks the sort engine, owns the key buffer, falls back.
 *
 * The caller pushes keys one row at a time into a buffer this file owns.
 * When the GPU engine is in use that buffer is pinned host memory lent by
 * engine_gpu.c, and every GS chunk of finished keys is handed to the GPU
 * engine, which starts copying it to the device while the caller builds
 * the next keys.  Otherwise it is an ordinary huge palloc.
 *
 * Engine choice (gpusort.device):
 *	 cpu	the CPU radix sort (engine_cpu.c), always;
 *	 gpu	the GPU; if it cannot be used or fails, the CPU with one WARNING
 *			per sort, giving the reason;
 *	 auto	the GPU for sorts of at least GS_GPU_AUTO_MIN_ROWS rows when it
 *			can be used, except in parallel workers (each would start CUDA
 *			for one query), else the CPU, silently: the reason is kept in
 *			stats.fallback, which EXPLAIN ANALYZE shows.
 *
 * A GPU failure never loses keys: they are written to the host buffer
 * first, so the CPU engine sorts the same buffer and the result is the
 * same permutation, (key, row) order being total.
 *
 * Cleanup: all host memory is in the memory context current at
 * gs_sorter_begin, and a callback on that context gives GPU resources
 * back, so an ERROR or a cancel between begin and end frees everything.
 * The GsSorter struct itself is left to its context (the callback reads it).
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "access/parallel.h"
#include "miscadmin.h"
#include "portability/instr_time.h"
#include "utils/memutils.h"

#include "engine.h"
#include "engine_cpu.h"
#include "engine_gpu.h"
#include "gpu/gpu_session.h"
#include "runtime/settings.h"


/* the CPU key buffer starts with room for this many pairs at least */
#define GS_MIN_CAPACITY			1024

/* row numbers are uint32 */
#define GS_MAX_PAIRS			((uint64) PG_UINT32_MAX + 1)

struct GsSorter
{
	MemoryContext cxt;
	MemoryContextCallback cleanup;
	int			nwords;
	int			flags;
	uint64		n;				/* keys pushed */
	uint64		capacity;		/* pairs the key buffer holds */
	uint64	   *keys;			/* host key buffer */
	const uint64 *sorted_keys;	/* keys in sorted order, after the sort */
	uint32	   *rows;			/* sorted row numbers, after the sort */
	bool		rows_from_gpu;	/* rows is the GPU engine's (pinned) */
	GsGpuSort  *gpu;			/* NULL: CPU engine */
	uint64		next_flush;		/* n at which to pass full chunks to gpu */
	bool		sorted;
	GsSortStats stats;
};

static void
sorter_cleanup(void *arg)
{
	GsSorter   *s = (GsSorter *) arg;

	if (s->gpu)
	{
		gs_gpu_end(s->gpu);
		s->gpu = NULL;
	}
}

/* the WARNING of an explicit gpusort.device = gpu that cannot be honoured */
static void
warn_fallback(const char *reason)
{
	if (gpusort_device == GS_DEVICE_GPU)
		ereport(WARNING,
				(errmsg("gpusort: sorting on the CPU, the GPU could not be used"),
				 errdetail("%s", reason)));
}

/*
 * Leaves the GPU engine for the CPU one, moving the keys pushed so far
 * into an ordinary buffer.
 */
static void
switch_to_cpu(GsSorter *s, const char *reason)
{
	uint64		cap = Max(s->capacity, GS_MIN_CAPACITY);
	uint64	   *keys;

	keys = MemoryContextAllocHuge(s->cxt, sizeof(uint64) * s->nwords * cap);
	if (s->n > 0)
		memcpy(keys, s->keys, sizeof(uint64) * s->nwords * s->n);
	gs_gpu_end(s->gpu);
	s->gpu = NULL;
	s->keys = keys;
	s->capacity = cap;
	s->next_flush = PG_UINT64_MAX;
	strlcpy(s->stats.fallback, reason, sizeof(s->stats.fallback));
	warn_fallback(reason);
}

/*
 * Does gpusort.device send a sort of expected_rows to the GPU?  If not,
 * why, in why[0..len).
 */
static bool
gpu_wanted(uint64 expected_rows, char *why, size_t len)
{
	if (gpusort_device == GS_DEVICE_CPU)
		strlcpy(why, "gpusort.device = cpu", len);
	else if (gpusort_device == GS_DEVICE_AUTO && expected_rows < GS_GPU_AUTO_MIN_ROWS)
		snprintf(why, len, "fewer than %d rows expected", GS_GPU_AUTO_MIN_ROWS);
	else if (gpusort_device == GS_DEVICE_AUTO && IsParallelWorker())
	{
		/* a worker lives for one query: starting CUDA would cost more */
		strlcpy(why, "parallel worker", len);
	}
	else
		return true;
	return false;
}

/*
 * A session's first GPU sort finds CUDA still starting on the early start's
 * thread (gs_gpu_session_starting) when its keys are about to be made: it
 * sorts on the CPU where that finishes before the start would, about
 * GS_CUDA_START_MS after it began (first_use_ms of the device harness:
 * 300-320 ms on an H100 and an H200), so that a new connection's sort just
 * past gpusort.min_rows does not wait for CUDA.  The CPU's radix sort does
 * about GS_CPU_PAIRS_PER_MS pairs of one key word a millisecond on each
 * thread (9,000 on 2 cores of an AMD EPYC, keys and rows together), and
 * wider keys cost in proportion.  The start goes on: the session's next
 * sorts use the GPU.  Only under gpusort.device = auto.
 */
#define GS_CUDA_START_MS		300.0
#define GS_CPU_PAIRS_PER_MS		9000.0

static bool
cpu_before_cuda(int nwords, uint64 rows, char *why, size_t len)
{
	double		elapsed;
	double		cpu_ms;

	if (gpusort_device != GS_DEVICE_AUTO || !gs_gpu_session_starting(&elapsed))
		return false;
	cpu_ms = (double) rows * nwords / (GS_CPU_PAIRS_PER_MS * Max(gpusort_threads(), 1));
	if (cpu_ms >= GS_CUDA_START_MS - elapsed)
		return false;
	snprintf(why, len, "CUDA still starting (%.0f ms in): sooner on the CPU", elapsed);
	return true;
}

/*
 * A sort of about expected_rows is coming (its executor starts): where it
 * will want the GPU, CUDA starts now on a helper thread, while the rows
 * are read, rather than after (gs_gpu_session_prestart).
 */
void
gs_sorter_expect(uint64 expected_rows)
{
	char		why[128];

	if (gpu_wanted(expected_rows, why, sizeof(why)))
		gs_gpu_session_prestart();
}

GsSorter *
gs_sorter_begin(int nwords, uint64 expected_rows, int flags)
{
	GsSorter   *s;
	uint64		max_pairs;

	if (nwords != 1 && nwords != 2 && nwords != 4)
		elog(ERROR, "gpusort: unsupported key width of %d words", nwords);

	s = palloc0(sizeof(GsSorter));
	s->cxt = CurrentMemoryContext;
	s->nwords = nwords;
	s->flags = flags;
	s->stats.key_bytes = nwords * 8;
	s->stats.engine = "cpu radix";
	s->next_flush = PG_UINT64_MAX;

	/*
	 * Trust the estimate for the first allocation, but not beyond what
	 * gpusort.max_memory would allow: an overestimate must not allocate
	 * gigabytes for a handful of rows.
	 */
	max_pairs = (uint64) gpusort_memory_budget() / (nwords * 8 + 4);
	expected_rows = Min(expected_rows, max_pairs);
	expected_rows = Min(expected_rows, GS_MAX_PAIRS);

	if (flags & GS_SORTER_KEYS_ONLY)
		strlcpy(s->stats.fallback, "keys only", sizeof(s->stats.fallback));
	else if (gpu_wanted(expected_rows, s->stats.fallback, sizeof(s->stats.fallback)) &&
			 !cpu_before_cuda(nwords, expected_rows, s->stats.fallback,
							  sizeof(s->stats.fallback)))
	{
		s->gpu = gs_gpu_begin(nwords, expected_rows,
							  s->stats.fallback, sizeof(s->stats.fallback));
		if (s->gpu == NULL)
			warn_fallback(s->stats.fallback);
	}

	if (s->gpu)
	{
		s->keys = gs_gpu_keys(s->gpu, &s->capacity);
		s->next_flush = gs_gpu_chunk_pairs(s->gpu);
		s->stats.engine = "gpu partition-merge";
	}
	else
	{
		s->capacity = Max(expected_rows, GS_MIN_CAPACITY);
		s->keys = MemoryContextAllocHuge(s->cxt, sizeof(uint64) * nwords * s->capacity);
	}

	s->cleanup.func = sorter_cleanup;
	s->cleanup.arg = s;
	MemoryContextRegisterResetCallback(s->cxt, &s->cleanup);
	return s;
}

/* makes the key buffer hold at least cap pairs */
static void
sorter_grow(GsSorter *s, uint64 cap)
{
	if (cap > GS_MAX_PAIRS)
		ereport(ERROR,
				(errcode(ERRCODE_PROGRAM_LIMIT_EXCEEDED),
				 errmsg("gpusort: cannot sort more than %llu rows",
						(unsigned long long) GS_MAX_PAIRS)));

	if (s->gpu)
	{
		char		reason[128];
		uint64	   *keys;

		keys = gs_gpu_grow(s->gpu, cap, &s->capacity, reason, sizeof(reason));
		if (keys)
		{
			s->keys = keys;
			return;
		}
		switch_to_cpu(s, reason);
	}
	if (cap > s->capacity)
	{
		s->keys = repalloc_huge(s->keys, sizeof(uint64) * s->nwords * cap);
		s->capacity = cap;
	}
}

/* gs_sorter_push's slow path: the buffer is full or a chunk is done */
static void
sorter_make_room(GsSorter *s)
{
	if (s->gpu && s->n >= s->next_flush)
	{
		gs_gpu_pushed(s->gpu, s->n);
		s->next_flush = s->n + gs_gpu_chunk_pairs(s->gpu);
	}
	if (s->n < s->capacity)
		return;
	sorter_grow(s, Max(Min(s->capacity * 2, GS_MAX_PAIRS), s->n + 1));
}

uint64 *
gs_sorter_push(GsSorter *s)
{
	Assert(!s->sorted);
	if (unlikely(s->n >= s->capacity || s->n >= s->next_flush))
		sorter_make_room(s);
	return &s->keys[s->n++ * s->nwords];
}

uint64 *
gs_sorter_push_n(GsSorter *s, uint64 n)
{
	uint64		first = s->n;

	Assert(!s->sorted);
	if (s->n + n > s->capacity)
		sorter_grow(s, s->n + n);
	s->n += n;
	/* the GPU engine copies what was not announced when it sorts */
	return &s->keys[first * s->nwords];
}

static void
sort_on_cpu(GsSorter *s)
{
	instr_time	start,
				end;
	uint64		i;

	s->rows = MemoryContextAllocHuge(s->cxt, sizeof(uint32) * Max(s->n, 1));
	for (i = 0; i < s->n; i++)
		s->rows[i] = (uint32) i;

	INSTR_TIME_SET_CURRENT(start);
	gs_cpu_sort_pairs(s->keys, s->rows, s->n, s->nwords, gpusort_threads());
	s->sorted_keys = s->keys;
	INSTR_TIME_SET_CURRENT(end);
	INSTR_TIME_SUBTRACT(end, start);
	s->stats.ms_sort = INSTR_TIME_GET_MILLISEC(end);
	s->stats.engine = "cpu radix";
}

void
gs_sorter_sort(GsSorter *s)
{
	Assert(!s->sorted && !(s->flags & GS_SORTER_KEYS_ONLY));
	s->stats.npairs = s->n;

	if (s->gpu && gpusort_device == GS_DEVICE_AUTO && s->n < GS_GPU_AUTO_MIN_ROWS)
	{
		/* the estimate was too high: not worth a trip to the GPU */
		snprintf(s->stats.fallback, sizeof(s->stats.fallback),
				 "fewer than %d rows", GS_GPU_AUTO_MIN_ROWS);
		sort_on_cpu(s);
	}
	else if (s->gpu)
	{
		char		reason[128];

		if (gs_gpu_sort(s->gpu, s->n, (s->flags & GS_SORTER_NEED_KEYS) != 0,
						&s->rows, &s->sorted_keys, &s->stats,
						reason, sizeof(reason)))
			s->rows_from_gpu = true;
		else
		{
			/* the host buffer still holds the keys as pushed */
			strlcpy(s->stats.fallback, reason, sizeof(s->stats.fallback));
			warn_fallback(reason);
			sort_on_cpu(s);
		}
	}
	else
		sort_on_cpu(s);

	s->stats.host_bytes = (Size) s->capacity * s->nwords * 8 +
		(Size) s->n * sizeof(uint32);
	s->sorted = true;
}

const uint64 *
gs_sorter_pushed(const GsSorter *s)
{
	Assert(!s->sorted);
	return s->keys;
}

uint64
gs_sorter_count(const GsSorter *s)
{
	return s->n;
}

const uint32 *
gs_sorter_rows(const GsSorter *s)
{
	Assert(s->sorted);
	return s->rows;
}

const uint64 *
gs_sorter_key(const GsSorter *s, uint64 rank)
{
	Assert(s->sorted && (s->flags & GS_SORTER_NEED_KEYS));
	Assert(rank < s->n);
	return &s->sorted_keys[rank * s->nwords];
}

const uint64 *
gs_sorter_row_keys(const GsSorter *s)
{
	Assert(!s->sorted && (s->flags & GS_SORTER_KEYS_ONLY));
	return s->keys;
}

const GsSortStats *
gs_sorter_stats(const GsSorter *s)
{
	return &s->stats;
}

void
gs_sorter_end(GsSorter *s)
{
	bool		keys_pinned = (s->gpu != NULL);

	if (s->gpu)
	{
		gs_gpu_end(s->gpu);
		s->gpu = NULL;
	}
	if (!keys_pinned && s->keys)
		pfree(s->keys);
	if (!s->rows_from_gpu && s->rows)
		pfree(s->rows);
	s->keys = NULL;
	s->rows = NULL;
	s->sorted_keys = NULL;
}
