/*-------------------------------------------------------------------------
 *
 * engine_gpu.c
 *	  The GPU sort engine's host side: overlapped copies, cancellable
 *	  waits, runs, timings.
 *
 * The backend's CUDA session (the lazy start, the gpusort.max_gpu_sessions
 * slot, the pinned buffer pool) is gpu_session.c's; a sort starts it, or
 * finds it started, in gs_gpu_begin, and everything below is per sort.
 *
 * Buffers.  Host keys and rows live in pinned memory from the session's
 * pool (fast, asynchronous copies, and the next sort reuses them).  Device
 * memory is allocated per sort, sized from the planner's estimate, so that
 * chunks of keys can be copied while the caller is still producing later
 * ones: every chunk (GS_CHUNK_BYTES) is enqueued on the sort's stream as
 * soon as it is complete, and by the time the last key is pushed most keys
 * are already on the device.
 *
 * Waiting.  The wait for the GPU polls the stream and runs
 * CHECK_FOR_INTERRUPTS() in between, so a cancel is served within
 * microseconds of the signal.  The ERROR it throws resets the sort's memory
 * context, whose callback (engine.c) calls gs_gpu_end: that waits for the
 * work already enqueued (the device may still be writing into pinned host
 * memory) and then frees everything.
 *
 * Runs.  When the pairs, their rows and the sort's scratch do not fit in
 * the device's free memory, the input is cut into runs that do; each run is
 * sorted on the GPU with its own row numbers, copied back, and the runs are
 * merged on the host (gs_cpu_merge_runs).  The developer setting
 * gpusort.gpu_max_run_rows caps the run length, to test this
 * path on a large GPU.
 *
 * Every failure (start, allocation, copy, kernel) is returned with its
 * reason; the caller then sorts the host buffer on the CPU.  Built without
 * CUDA (GPUSORT_NO_CUDA), the engine reports "built without CUDA" and
 * nothing else.
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "miscadmin.h"
#include "portability/instr_time.h"

#include "engine_stats.h"
#include "engine_cpu.h"
#include "engine_gpu.h"
#include "gpu/gpu_session.h"
#include "memory/memaccount.h"
#include "runtime/settings.h"

#ifndef GPUSORT_NO_CUDA

#include "gpusort_kernels.h"

/* keys are handed to the copy engine in chunks of this size */
#define GS_CHUNK_BYTES		((Size) 4 * 1024 * 1024)

/* device memory left to others (the driver, other sessions) */
#define GS_DEVICE_RESERVE	((Size) 256 * 1024 * 1024)

/* runs shorter than this are not worth the GPU */
#define GS_MIN_RUN_PAIRS	((uint64) 1 << 16)

struct GsGpuSort
{
	int			nwords;
	Size		pair_key_bytes;	/* 8 * nwords */

	/* host, pinned */
	uint64	   *h_keys;
	uint64		h_cap;			/* pairs */
	uint32	   *h_rows;			/* sorted rows */
	uint64		h_rows_cap;		/* bytes */
	uint64	   *h_sorted;		/* sorted keys, when they come back */
	uint64		h_sorted_cap;	/* bytes */

	/* device: keys, rows and scratch for d_cap pairs (0: none yet) */
	void	   *stream;
	uint64	   *d_keys;
	uint32	   *d_rows;
	void	   *d_temp;
	Size		d_temp_bytes;
	uint64		d_cap;
	GsReservation *dev;			/* d_cap's bytes in the server-wide account */

	bool		early_copy;		/* copying chunks while keys are pushed */
	uint64		copied;			/* keys [0, copied) are enqueued */
	uint64		chunk_pairs;
	uint64		bytes_h2d;		/* all copies, re-copies included */

	void	   *ev[4];

	bool		failed;
	char		failure[128];
};

/* ---- device buffers ----------------------------------------------------- */

static void
device_free(GsGpuSort *g)
{
	if (g->d_keys)
		gsk_device_free(g->d_keys);
	if (g->d_rows)
		gsk_device_free(g->d_rows);
	if (g->d_temp)
		gsk_device_free(g->d_temp);
	g->d_keys = NULL;
	g->d_rows = NULL;
	g->d_temp = NULL;
	g->d_temp_bytes = 0;
	g->d_cap = 0;
	if (g->dev)
		gs_release_all(g->dev);
}

/* device bytes a sort of n pairs needs */
static Size
device_need(const GsGpuSort *g, uint64 n)
{
	return (Size) n * (g->pair_key_bytes + sizeof(uint32)) +
		gsk_sort_temp_bytes(n, g->nwords);
}

/* the developer cap gpusort.gpu_max_run_rows (0: none) */
static uint64
run_cap_setting(void)
{
	return gpusort_gpu_max_run_rows > 0 ? (uint64) gpusort_gpu_max_run_rows : PG_UINT64_MAX;
}

/* the device memory that the sorts of all sessions may reserve together */
static Size
device_limit(size_t total_mem)
{
	return total_mem > GS_DEVICE_RESERVE ? total_mem - GS_DEVICE_RESERVE : 0;
}

/*
 * The longest run whose device buffers fit in free memory (counting the
 * buffers this sort holds already), in what the other sessions' sorts have
 * not reserved, and the run cap.
 */
static uint64
max_run_pairs(GsGpuSort *g, uint64 n)
{
	size_t		free_mem,
				total_mem;
	Size		budget;
	uint64		lo,
				hi;

	if (gsk_mem_info(&free_mem, &total_mem) != 0)
		return 0;
	budget = free_mem + (g->d_cap > 0 ? device_need(g, g->d_cap) : 0);
	if (budget <= GS_DEVICE_RESERVE)
		return 0;
	budget -= GS_DEVICE_RESERVE;
	{
		uint64		others = gs_account_total(GS_ACCT_DEV) - gs_reserved(g->dev, GS_ACCT_DEV);
		Size		limit = device_limit(total_mem);

		budget = Min(budget, others < limit ? limit - others : 0);
	}

	n = Min(n, run_cap_setting());
	if (device_need(g, n) <= budget)
		return n;
	/* the largest fitting length, by bisection */
	lo = 0;
	hi = n;
	while (lo < hi)
	{
		uint64		mid = lo + (hi - lo + 1) / 2;

		if (device_need(g, mid) <= budget)
			lo = mid;
		else
			hi = mid - 1;
	}
	return lo;
}

/*
 * Device buffers for pairs pairs, reserved first in the server-wide account
 * (memaccount.c), so that sorts of other sessions starting at the same
 * time do not all count on the same free memory: the one that cannot
 * reserve sorts on the CPU instead of failing in cudaMalloc.
 */
static bool
device_alloc(GsGpuSort *g, uint64 pairs, char *reason, size_t len)
{
	int			rc;
	size_t		free_mem,
				total_mem;

	device_free(g);
	if ((rc = gsk_mem_info(&free_mem, &total_mem)) != 0)
	{
		gs_gpu_reason(reason, len, "cannot query GPU memory", rc);
		return false;
	}
	if (!gs_reserve(g->dev, GS_ACCT_DEV, device_need(g, pairs), device_limit(total_mem)))
	{
		snprintf(reason, len, "GPU memory reserved by other sorts (%zu MB of %zu MB)",
				 (Size) (gs_account_total(GS_ACCT_DEV) / (1024 * 1024)),
				 device_limit(total_mem) / (1024 * 1024));
		return false;
	}
	g->d_temp_bytes = gsk_sort_temp_bytes(pairs, g->nwords);
	if ((rc = gsk_device_alloc((void **) &g->d_keys, (Size) pairs * g->pair_key_bytes)) != 0 ||
		(rc = gsk_device_alloc((void **) &g->d_rows, (Size) pairs * sizeof(uint32))) != 0 ||
		(rc = gsk_device_alloc(&g->d_temp, Max(g->d_temp_bytes, 1))) != 0)
	{
		gs_gpu_reason(reason, len, "cannot allocate GPU memory", rc);
		device_free(g);
		return false;
	}
	g->d_cap = pairs;
	return true;
}

/* ---- waiting ------------------------------------------------------------- */

/*
 * Waits until everything enqueued on the sort's stream has run, serving
 * interrupts meanwhile (a cancel throws from here).
 */
static bool
wait_stream(GsGpuSort *g, char *reason, size_t len)
{
	int			spins = 0;

	for (;;)
	{
		int			rc = gsk_stream_query(g->stream);

		if (rc == 0)
			return true;
		if (rc != GSK_NOT_READY)
		{
			gs_gpu_reason(reason, len, "GPU sort failed", rc);
			return false;
		}
		CHECK_FOR_INTERRUPTS();
		/* spin briefly (short sorts), then sleep between polls */
		if (++spins > 200)
			pg_usleep(20);
	}
}

static void
fail(GsGpuSort *g, const char *what, int rc)
{
	if (!g->failed)
		gs_gpu_reason(g->failure, sizeof(g->failure), what, rc);
	g->failed = true;
	g->early_copy = false;
}

/* enqueues the copy of keys [copied, upto) */
static void
copy_keys(GsGpuSort *g, uint64 upto)
{
	int			rc;

	if (upto <= g->copied)
		return;
	rc = gsk_copy_h2d_async(g->d_keys + g->copied * g->nwords,
							g->h_keys + g->copied * g->nwords,
							(Size) (upto - g->copied) * g->pair_key_bytes,
							g->stream);
	if (rc != 0)
	{
		fail(g, "cannot copy keys to the GPU", rc);
		return;
	}
	g->bytes_h2d += (upto - g->copied) * g->pair_key_bytes;
	g->copied = upto;
}

static double
elapsed_ms(void *a, void *b)
{
	float		ms = 0;

	if (gsk_event_elapsed_ms(a, b, &ms) != 0)
		return 0;
	return ms;
}

/* ---- the engine ---------------------------------------------------------- */

GsGpuSort *
gs_gpu_begin(int nwords, uint64 expected_rows, char *reason, size_t len)
{
	GsGpuSort  *g;
	uint64		cap;
	int			rc;
	int			i;

	if (!gs_gpu_session_start(reason, len))
		return NULL;

	g = palloc0(sizeof(GsGpuSort));
	g->dev = gs_reservation_create(CurrentMemoryContext);
	g->nwords = nwords;
	g->pair_key_bytes = (Size) nwords * sizeof(uint64);
	g->chunk_pairs = Max(GS_CHUNK_BYTES / g->pair_key_bytes, 1);

	if ((rc = gsk_stream_create(&g->stream)) != 0)
	{
		gs_gpu_reason(reason, len, "cannot create a CUDA stream", rc);
		g->stream = NULL;
		gs_gpu_end(g);
		return NULL;
	}
	for (i = 0; i < 4; i++)
	{
		if ((rc = gsk_event_create(&g->ev[i])) != 0)
		{
			gs_gpu_reason(reason, len, "cannot create a CUDA event", rc);
			gs_gpu_end(g);
			return NULL;
		}
	}

	cap = Max(expected_rows, g->chunk_pairs);
	g->h_keys = gs_pinned_get((Size) cap * g->pair_key_bytes, reason, len);
	if (g->h_keys == NULL)
	{
		gs_gpu_end(g);
		return NULL;
	}
	g->h_cap = cap;

	/*
	 * Device buffers for the expected size now, so that copies can start
	 * with the first chunk; if they do not fit, everything waits for the
	 * sort (and it may run in several runs).
	 */
	if (max_run_pairs(g, cap) >= cap)
	{
		char		ignore[128];

		g->early_copy = device_alloc(g, cap, ignore, sizeof(ignore));
	}
	return g;
}

uint64 *
gs_gpu_keys(GsGpuSort *g, uint64 *capacity)
{
	*capacity = g->h_cap;
	return g->h_keys;
}

uint64
gs_gpu_chunk_pairs(const GsGpuSort *g)
{
	return g->chunk_pairs;
}

uint64 *
gs_gpu_grow(GsGpuSort *g, uint64 min_pairs, uint64 *capacity,
			char *reason, size_t len)
{
	uint64	   *keys;

	/* pending copies read the old buffer */
	if (!wait_stream(g, reason, len))
		return NULL;
	keys = gs_pinned_get((Size) min_pairs * g->pair_key_bytes, reason, len);
	if (keys == NULL)
		return NULL;
	memcpy(keys, g->h_keys, (Size) g->h_cap * g->pair_key_bytes);
	gs_pinned_put(g->h_keys);
	g->h_keys = keys;
	g->h_cap = min_pairs;

	/* the estimate was low: bigger device buffers, and copy again */
	if (g->early_copy)
	{
		char		ignore[128];

		device_free(g);
		g->copied = 0;
		g->early_copy = max_run_pairs(g, min_pairs) >= min_pairs &&
			device_alloc(g, min_pairs, ignore, sizeof(ignore));
	}
	*capacity = g->h_cap;
	return keys;
}

void
gs_gpu_pushed(GsGpuSort *g, uint64 n)
{
	if (g->early_copy && !g->failed)
		copy_keys(g, Min(n, g->d_cap));
}

/* sorts n pairs that fit the device in one run */
static bool
sort_one_run(GsGpuSort *g, uint64 n, bool need_keys, GsSortStats *stats,
			 char *reason, size_t len)
{
	instr_time	t0,
				t1;
	double		wait_ms;
	GskSortInfo info;
	int			rc;

	if (g->d_cap < n || !g->early_copy)
	{
		if (!device_alloc(g, n, reason, len))
			return false;
		g->copied = 0;
	}

	/* copies still running when the keys were done count as unhidden */
	INSTR_TIME_SET_CURRENT(t0);
	if (!wait_stream(g, reason, len))
		return false;
	INSTR_TIME_SET_CURRENT(t1);
	INSTR_TIME_SUBTRACT(t1, t0);
	wait_ms = INSTR_TIME_GET_MILLISEC(t1);

	memset(&info, 0, sizeof(info));
	if ((rc = gsk_event_record(g->ev[0], g->stream)) != 0)
		goto gpu_error;
	copy_keys(g, n);
	if (g->failed)
	{
		strlcpy(reason, g->failure, len);
		return false;
	}
	if ((rc = gsk_event_record(g->ev[1], g->stream)) != 0 ||
		(rc = gsk_iota_rows(g->d_rows, n, 0, g->stream)) != 0 ||
		(rc = gsk_sort_pairs(g->d_keys, g->d_rows, n, g->nwords,
							 g->d_temp, g->d_temp_bytes, g->stream, &info)) != 0 ||
		(rc = gsk_event_record(g->ev[2], g->stream)) != 0 ||
		(rc = gsk_copy_d2h_async(g->h_rows, g->d_rows, (Size) n * sizeof(uint32),
								 g->stream)) != 0)
		goto gpu_error;
	stats->bytes_d2h = (uint64) n * sizeof(uint32);
	if (need_keys)
	{
		if ((rc = gsk_copy_d2h_async(g->h_sorted, g->d_keys, (Size) n * g->pair_key_bytes,
									 g->stream)) != 0)
			goto gpu_error;
		stats->bytes_d2h += (uint64) n * g->pair_key_bytes;
	}
	if ((rc = gsk_event_record(g->ev[3], g->stream)) != 0)
		goto gpu_error;
	if (!wait_stream(g, reason, len))
		return false;

	stats->ms_h2d = wait_ms + elapsed_ms(g->ev[0], g->ev[1]);
	stats->ms_sort = elapsed_ms(g->ev[1], g->ev[2]);
	stats->ms_d2h = elapsed_ms(g->ev[2], g->ev[3]);
	stats->nbuckets = info.nbuckets;
	return true;

gpu_error:
	gs_gpu_reason(reason, len, "GPU sort failed", rc);
	return false;
}

/*
 * Sorts n pairs in runs of run pairs, each sorted on the GPU and copied
 * back (keys too) to the same place of h_rows and h_sorted, then merged
 * on the host.
 */
static bool
sort_in_runs(GsGpuSort *g, uint64 n, uint64 run, GsSortStats *stats,
			 char *reason, size_t len)
{
	uint64		start;
	instr_time	t0,
				t1;
	int			rc;

	/* early copies may still be writing the buffers device_alloc frees */
	if (!wait_stream(g, reason, len))
		return false;
	g->early_copy = false;
	if (!device_alloc(g, run, reason, len))
		return false;

	for (start = 0; start < n; start += run)
	{
		uint64		m = Min(run, n - start);
		GskSortInfo info;

		memset(&info, 0, sizeof(info));
		if ((rc = gsk_event_record(g->ev[0], g->stream)) != 0 ||
			(rc = gsk_copy_h2d_async(g->d_keys, g->h_keys + start * g->nwords,
									 (Size) m * g->pair_key_bytes, g->stream)) != 0 ||
			(rc = gsk_event_record(g->ev[1], g->stream)) != 0 ||
			(rc = gsk_iota_rows(g->d_rows, m, (uint32) start, g->stream)) != 0 ||
			(rc = gsk_sort_pairs(g->d_keys, g->d_rows, m, g->nwords,
								 g->d_temp, g->d_temp_bytes, g->stream, &info)) != 0 ||
			(rc = gsk_event_record(g->ev[2], g->stream)) != 0 ||
			(rc = gsk_copy_d2h_async(g->h_sorted + start * g->nwords, g->d_keys,
									 (Size) m * g->pair_key_bytes, g->stream)) != 0 ||
			(rc = gsk_copy_d2h_async(g->h_rows + start, g->d_rows,
									 (Size) m * sizeof(uint32), g->stream)) != 0 ||
			(rc = gsk_event_record(g->ev[3], g->stream)) != 0)
		{
			gs_gpu_reason(reason, len, "GPU sort failed", rc);
			return false;
		}
		if (!wait_stream(g, reason, len))
			return false;
		g->bytes_h2d += (uint64) m * g->pair_key_bytes;
		stats->bytes_d2h += (uint64) m * (g->pair_key_bytes + sizeof(uint32));
		stats->ms_h2d += elapsed_ms(g->ev[0], g->ev[1]);
		stats->ms_sort += elapsed_ms(g->ev[1], g->ev[2]);
		stats->ms_d2h += elapsed_ms(g->ev[2], g->ev[3]);
		stats->nbuckets += info.nbuckets;
	}
	device_free(g);

	/* the merge is host work: count it with the sort */
	INSTR_TIME_SET_CURRENT(t0);
	gs_cpu_merge_runs(g->h_sorted, g->h_rows, n, g->nwords, run);
	INSTR_TIME_SET_CURRENT(t1);
	INSTR_TIME_SUBTRACT(t1, t0);
	stats->ms_sort += INSTR_TIME_GET_MILLISEC(t1);
	return true;
}

/* makes *buf a pooled pinned buffer of at least bytes */
static bool
ensure_pinned(void **buf, uint64 *cap_bytes, Size bytes, char *reason, size_t len)
{
	if (*buf != NULL && *cap_bytes >= bytes)
		return true;
	gs_pinned_put(*buf);
	*buf = gs_pinned_get(bytes, reason, len);
	*cap_bytes = *buf ? bytes : 0;
	return *buf != NULL;
}

bool
gs_gpu_sort(GsGpuSort *g, uint64 n, bool need_keys, uint32 **rows,
			const uint64 **sorted_keys, GsSortStats *stats,
			char *reason, size_t len)
{
	uint64		run = n;
	bool		ok;

	if (g->failed)
	{
		strlcpy(reason, g->failure, len);
		return false;
	}
	stats->ms_h2d = stats->ms_sort = stats->ms_d2h = 0;
	stats->bytes_d2h = 0;
	stats->nbuckets = 0;

	if (n >= 2)
	{
		run = max_run_pairs(g, n);
		if (run < GS_MIN_RUN_PAIRS && run < n)
		{
			strlcpy(reason, "not enough free GPU memory (free, and not reserved by other sorts)", len);
			return false;
		}
	}

	/*
	 * Results go to buffers of their own: the pushed keys stay as they were
	 * until the sort has succeeded, so that the CPU can take over at any
	 * point.
	 */
	if (!ensure_pinned((void **) &g->h_rows, &g->h_rows_cap,
					   (Size) Max(n, 1) * sizeof(uint32), reason, len))
		return false;
	if ((need_keys || run < n) &&
		!ensure_pinned((void **) &g->h_sorted, &g->h_sorted_cap,
					   (Size) Max(n, 1) * g->pair_key_bytes, reason, len))
		return false;

	if (n < 2)
	{
		g->h_rows[0] = 0;
		if (g->h_sorted)
			memcpy(g->h_sorted, g->h_keys, (Size) n * g->pair_key_bytes);
		ok = true;
	}
	else if (run >= n)
		ok = sort_one_run(g, n, need_keys, stats, reason, len);
	else
		ok = sort_in_runs(g, n, run, stats, reason, len);

	if (!ok)
	{
		/* nothing may still write into host buffers once we return */
		(void) gsk_stream_sync(g->stream);
		g->failed = true;
		return false;
	}
	stats->bytes_h2d = g->bytes_h2d;
	*rows = g->h_rows;
	*sorted_keys = g->h_sorted ? g->h_sorted : g->h_keys;
	return true;
}

void
gs_gpu_end(GsGpuSort *g)
{
	int			i;

	if (g->stream)
		(void) gsk_stream_sync(g->stream);
	device_free(g);
	gs_pinned_put(g->h_keys);
	gs_pinned_put(g->h_rows);
	gs_pinned_put(g->h_sorted);
	g->h_keys = NULL;
	g->h_rows = NULL;
	g->h_sorted = NULL;
	for (i = 0; i < 4; i++)
	{
		if (g->ev[i])
			gsk_event_destroy(g->ev[i]);
		g->ev[i] = NULL;
	}
	if (g->stream)
		gsk_stream_destroy(g->stream);
	g->stream = NULL;
}

#else							/* GPUSORT_NO_CUDA */

/*
 * Built without nvcc: the GPU engine exists only to say why it is not
 * there.  engine.c never gets a GsGpuSort, so the rest is unreachable.
 */
GsGpuSort *
gs_gpu_begin(int nwords, uint64 expected_rows, char *reason, size_t len)
{
	strlcpy(reason, "built without CUDA", len);
	return NULL;
}

uint64 *
gs_gpu_keys(GsGpuSort *g, uint64 *capacity)
{
	elog(ERROR, "gpusort: built without CUDA");
	return NULL;
}

uint64 *
gs_gpu_grow(GsGpuSort *g, uint64 min_pairs, uint64 *capacity,
			char *reason, size_t len)
{
	strlcpy(reason, "built without CUDA", len);
	return NULL;
}

void
gs_gpu_pushed(GsGpuSort *g, uint64 n)
{
}

uint64
gs_gpu_chunk_pairs(const GsGpuSort *g)
{
	return PG_UINT64_MAX;
}

bool
gs_gpu_sort(GsGpuSort *g, uint64 n, bool need_keys, uint32 **rows,
			const uint64 **sorted_keys, GsSortStats *stats,
			char *reason, size_t len)
{
	strlcpy(reason, "built without CUDA", len);
	return false;
}

void
gs_gpu_end(GsGpuSort *g)
{
}

#endif							/* GPUSORT_NO_CUDA */
