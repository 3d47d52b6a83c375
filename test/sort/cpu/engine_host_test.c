/*
 * engine_host_test.c
 *	  The sort engines' host side (src/sort/engine/engine.c, src/sort/engine/engine_gpu.c) and the
 *	  backend's GPU session (src/gpu/gpu_session.c) on a machine without a GPU,
 *	  against a fake of kernels/gpusort_kernels.h.
 *
 * The fake "device" is host memory with a set capacity; its streams run
 * every call at once but answer "not ready" to the first polls of a wait
 * for enqueued work, its sort is the CPU engine's.  That is enough to run
 * every path of the GPU engine's host code in CI:
 *	 - chunked copies while keys are pushed, with right and wrong row
 *	   estimates (the buffers grow), with and without sorted keys back;
 *	 - inputs larger than the device, sorted in runs and merged, with the
 *	   run length set by device memory or by gpusort.gpu_max_run_rows;
 *	 - a failure of every single CUDA call in turn: the sort must still be
 *	   right (on the CPU), with exactly one WARNING under gpusort.device =
 *	   gpu and none under auto, and nothing left allocated;
 *	 - a cancel while waiting for the device: the memory context callback
 *	   must free everything, and the next sort must work;
 *	 - no work in flight when a sort returns, on the GPU or after a
 *	   fallback (the caller reads the host buffers then); after every
 *	   sort, however it ended, no device memory allocated and no pinned
 *	   buffer given back to the pool while the device still used it;
 *	 - the session: the cap at 0, slot files held by others, the slot
 *	   kept for the backend's life; the device choice over a fake list of
 *	   devices (fewest sessions, then free memory, gpusort.devices, full
 *	   devices, a slot taken meanwhile, a device that cannot start, no
 *	   device); a failed CUDA start remembered (in a
 *	   child process: it is for the process's life) and its slot given
 *	   back; gpusort_gpu_info() before and after the start;
 *	 - the pinned pool: reuse of the smallest fitting free buffer, the
 *	   rounding that lets a slightly larger request reuse one, the cap on
 *	   free bytes, the cap on entries, and a retry after dropping free
 *	   buffers when pinning fails.
 * Every result is compared with a reference sort by (key, row).
 *
 * The fake runtime is test/common/fake_cuda.c, the backend shim
 * test/common/pg_shim.c; this file adds the sort's kernels.  Built by
 * test/sort/cpu/engine_host.sh.  Exit status 1 on a failure.
 */
#include "postgres.h"

#include <setjmp.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <fcntl.h>

#include "fmgr.h"
#include "miscadmin.h"

#include "engine/engine.h"
#include "engine/engine_cpu.h"
#include "gpu/gpu_session.h"
#include "gpusort_kernels.h"
#include "fake_account.h"
#include "fake_cuda.h"
#include "pg_shim.h"
#include "runtime/settings.h"

#undef qsort
#undef printf
#undef fprintf
#undef snprintf
#undef vsnprintf

#include "check.h"

/*
 * ---- the sort's kernels on the fake device ---------------------------------
 * Here rather than in fake_cuda.c: the CPU engine, which stands in for the
 * partition-merge sort, is linked into this test only.
 */

size_t
gsk_sort_temp_bytes(size_t n, int nwords)
{
	return n * (8 * nwords + 4) + 1024;
}

int
gsk_iota_rows(uint32_t *d_rows, size_t n, uint32_t first_row, void *stream)
{
	size_t		i;

	if (fake_enqueue("gsk_iota_rows"))
		return FAKE_INJECTED;
	for (i = 0; i < n; i++)
		d_rows[i] = first_row + (uint32_t) i;
	return 0;
}

/* the CPU engine's sort, which the reference checks as well */
int
gsk_sort_pairs(uint64_t *d_keys, uint32_t *d_rows, size_t n, int nwords,
			   void *d_temp, size_t temp_bytes, void *stream, GskSortInfo *info)
{
	if (fake_enqueue("gsk_sort_pairs"))
		return FAKE_INJECTED;
	if (temp_bytes < gsk_sort_temp_bytes(n, nwords))
		return fake_error(FAKE_INJECTED, "temp too small");
	gs_cpu_sort_pairs((uint64 *) d_keys, d_rows, n, nwords, 1);
	if (info)
	{
		info->nbuckets = 7;
		info->merge_passes = 1;
		info->temp_bytes = temp_bytes;
	}
	return 0;
}

/* ---- the tests ----------------------------------------------------------- */

typedef struct Ref
{
	uint64		key[GS_MAX_KEY_WORDS];
	uint32		row;
} Ref;

static int	ref_nwords;

static int
ref_cmp(const void *a, const void *b)
{
	const Ref  *x = a,
			   *y = b;
	int			i;

	for (i = 0; i < ref_nwords; i++)
		if (x->key[i] != y->key[i])
			return x->key[i] < y->key[i] ? -1 : 1;
	return (x->row > y->row) - (x->row < y->row);
}

typedef struct Outcome
{
	bool		cancelled;
	bool		on_gpu;
	char		fallback[128];
	int			warnings;
	int			nbuckets;
} Outcome;

/*
 * After a sort, however it ended: nothing left on the device, and the
 * pinned buffers given back only when the device was done with them.
 */
static void
check_device_idle(const char *what)
{
	if (fake_dev_in_use != 0)
		fail(what, "device memory left allocated");
	if (fake_stream_busy)
		fail(what, "work left on the stream");
	if (fake_unsafe_puts > 0)
		fail(what, "a pinned buffer went back to the pool while the device used it");
	if (fake_account_mine[GS_ACCT_DEV] != 0)
		fail(what, "device memory left reserved in the server-wide account");
}

/*
 * Sorts n random keys of nwords words through GsSorter and checks the
 * result against the reference.  Returns what happened.
 */
static Outcome
sort_case(const char *what, uint64 n, int nwords, uint64 expected, bool need_keys,
		  int distinct)
{
	Outcome		out;
	Ref		   *ref = malloc(sizeof(Ref) * (n + 1));
	GsSorter   *volatile s = NULL;
	sigjmp_buf	jb;
	uint64		i;
	int			w;

	memset(&out, 0, sizeof(out));
	for (i = 0; i < n; i++)
	{
		for (w = 0; w < nwords; w++)
			ref[i].key[w] = distinct ? rnd() % distinct : rnd();
		ref[i].row = (uint32) i;
	}
	pg_shim_warnings = 0;
	pg_shim_errors = 0;
	fake_unsafe_puts = 0;
	checks++;

	if (sigsetjmp(jb, 0) != 0)
	{
		/* an ERROR: the executor resets the node's memory context */
		PG_exception_stack = NULL;
		pg_shim_reset_context();
		if (pg_shim_errors > 0)
		{
			char		d[600];

			snprintf(d, sizeof(d), "an ERROR other than a cancel: %s", pg_shim_last_msg);
			fail(what, d);
		}
		out.cancelled = true;
		out.warnings = pg_shim_warnings;
		check_device_idle(what);
		free(ref);
		return out;
	}
	PG_exception_stack = &jb;
	s = gs_sorter_begin(nwords, expected, need_keys ? GS_SORTER_NEED_KEYS : 0);
	for (i = 0; i < n; i++)
		memcpy(gs_sorter_push(s), ref[i].key, sizeof(uint64) * nwords);
	gs_sorter_sort(s);
	PG_exception_stack = NULL;
	/* on the GPU or not, the caller reads the results now */
	if (fake_stream_busy)
		fail(what, "work in flight when the sort returned");

	ref_nwords = nwords;
	qsort(ref, n, sizeof(Ref), ref_cmp);
	if (gs_sorter_count(s) != n)
		fail(what, "count");
	else
	{
		const uint32 *rows = gs_sorter_rows(s);

		for (i = 0; i < n; i++)
		{
			if (rows[i] != ref[i].row ||
				(need_keys && memcmp(gs_sorter_key(s, i), ref[i].key,
									 sizeof(uint64) * nwords) != 0))
			{
				char		d[64];

				snprintf(d, sizeof(d), "wrong pair at rank %llu", (unsigned long long) i);
				fail(what, d);
				break;
			}
		}
	}
	{
		const GsSortStats *st = gs_sorter_stats(s);

		out.on_gpu = strcmp(st->engine, "gpu partition-merge") == 0;
		strlcpy(out.fallback, st->fallback, sizeof(out.fallback));
		out.nbuckets = st->nbuckets;
		if (st->npairs != n)
			fail(what, "stats.npairs");
	}
	gs_sorter_end(s);
	pg_shim_reset_context();
	out.warnings = pg_shim_warnings;
	check_device_idle(what);
	free(ref);
	return out;
}

static void
expect_gpu(const char *what, Outcome o)
{
	if (!o.on_gpu || o.fallback[0] != '\0' || o.warnings != 0)
	{
		char		d[256];

		snprintf(d, sizeof(d), "expected the GPU engine; got %s, fallback \"%s\", %d warnings",
				 o.on_gpu ? "gpu" : "cpu", o.fallback, o.warnings);
		fail(what, d);
	}
}

/* ---- the session and the pool -------------------------------------------- */

extern Datum gpusort_gpu_info(PG_FUNCTION_ARGS);

#define MB	((Size) 1024 * 1024)

/* gpusort_gpu_info(start): its columns land in pg_shim_info_values / pg_shim_info_nulls */
static void
gpu_info(bool start)
{
	LOCAL_FCINFO(fcinfo, 1);

	memset(fcinfo, 0, SizeForFunctionCallInfo(1));
	fcinfo->nargs = 1;
	fcinfo->args[0].value = BoolGetDatum(start);
	fcinfo->args[0].isnull = false;
	(void) gpusort_gpu_info(fcinfo);
}

/* a text column of the last gpusort_gpu_info() row, "" when NULL */
static const char *
info_text(int att)
{
	return pg_shim_info_nulls[att] ? "" : (const char *) DatumGetPointer(pg_shim_info_values[att]);
}

static bool
info_context_held(void)
{
	return !pg_shim_info_nulls[1] && DatumGetBool(pg_shim_info_values[1]);
}

/* opens slot i of device as another backend would, -1 on failure */
static int
open_slot(int device, int i)
{
	char		p[MAXPGPATH];

	snprintf(p, sizeof(p), "%s/pg_gpusort", DataDir);
	mkdir(p, 0700);
	snprintf(p, sizeof(p), "%s/pg_gpusort/dev.%d.slot.%d", DataDir, device, i);
	return open(p, O_RDWR | O_CREAT, 0600);
}

/* whether another open file description finds slot i of device locked */
static bool
slot_locked(int device, int i)
{
	int			fd;
	bool		locked;

	fd = open_slot(device, i);
	if (fd < 0)
		return false;
	locked = flock(fd, LOCK_EX | LOCK_NB) != 0;
	close(fd);
	return locked;
}

/*
 * A start that fails in gsk_init: the sort falls back with the reason, the
 * slot is given back, and the failure is remembered: no second gsk_init.
 */
static int
failed_start_case(void)
{
	Outcome		o;

	gpusort_device = GS_DEVICE_GPU;
	fake_ncalls = 0;
	fake_fail_at = 1;				/* gsk_init is the first call */
	o = sort_case("failed start", 1000, 1, 1000, false, 0);
	fake_fail_at = -1;
	if (o.on_gpu || o.warnings != 1 ||
		strcmp(o.fallback, "no usable GPU: gsk_init: injected failure") != 0)
		fail("failed start", o.fallback);
	if (gs_gpu_session_slot() != -1 || slot_locked(0, 0))
		fail("failed start", "the session slot was kept");
	if (gs_gpu_session_device() != NULL)
		fail("failed start", "a device after a failed start");

	o = sort_case("after a failed start", 1000, 1, 1000, false, 0);
	if (o.on_gpu || strstr(o.fallback, "no usable GPU") == NULL || fake_ninits != 1)
		fail("after a failed start", "the start was tried again");
	gpu_info(true);
	if (info_context_held() || fake_ninits != 1 ||
		strstr(info_text(9), "no usable GPU") == NULL)
		fail("gpusort_gpu_info(true) after a failed start", info_text(9));
	return failures;
}

/*
 * The device choice, through the fake's device list: each case is one
 * backend's first start (in a child: the choice is for the process's
 * life), with slots of the devices held by other backends.
 */
typedef struct DeviceCase
{
	const char *what;
	const char *env;			/* GS_FAKE_GPUS, or NULL: free_mb[0..ndev) */
	int			ndev;
	int			free_mb[4];
	int			max_sessions;
	const char *devices;		/* gpusort.devices */
	int			held[4];		/* slots 0.. of each device held by others */
	bool		probing;		/* device 0's first free slot is being
								 * probed (shared lock) by another backend */
	int			failing;		/* the first failing gsk_init calls */
	int			expect;			/* the device chosen, -1: the CPU */
	const char *reason;			/* part of the fallback's reason */
	unsigned	unusable;		/* bit d: the driver cannot describe device d */
} DeviceCase;

static const DeviceCase device_cases[] = {
	{"fewest sessions win", NULL, 3, {80000, 80000, 40000}, 2, "", {1, 0, 0}, false, 0, 1, NULL},
	{"free memory breaks a tie", NULL, 3, {40000, 80000, 60000}, 2, "", {1, 1, 1}, false, 0, 1, NULL},
	{"fewer sessions beat more memory", NULL, 2, {80000, 1000}, 4, "", {1, 0}, false, 0, 1, NULL},
	{"a full device is passed over", NULL, 3, {80000, 80000, 40000}, 1, "", {1, 1, 0}, false, 0, 2, NULL},
	{"devices not listed are skipped", NULL, 3, {10000, 80000, 20000}, 2, " 2 , 0", {0, 0, 0}, false, 0, 2, NULL},
	{"the lowest ordinal on a full tie", NULL, 2, {5000, 5000}, 2, "", {0, 0}, false, 0, 0, NULL},
	{"a slot taken meanwhile: the next best device", NULL, 2, {80000, 40000}, 1, "", {0, 0}, true, 0, 1, NULL},
	{"a device that cannot start: the next best", NULL, 3, {80000, 60000, 40000}, 2, "", {0, 0, 0}, false, 1, 1, NULL},
	{"GS_FAKE_GPUS", "1000,3000,2000", 0, {0}, 2, "", {0, 0, 0}, false, 0, 1, NULL},
	{"every device full", NULL, 2, {80000, 80000}, 1, "", {1, 1}, false, 0, -1, "GPU sessions"},
	{"no visible device listed", NULL, 2, {80000, 80000}, 2, "3", {0, 0}, false, 0, -1, "gpusort.devices"},
	{"one device fails, the other is full", NULL, 2, {80000, 40000}, 1, "", {0, 1}, false, 1, -1, "GPU sessions"},
	{"no device starts", NULL, 2, {80000, 40000}, 2, "", {0, 0}, false, 2, -1, "no usable GPU: gsk_init"},
	{"no device", "", 0, {0}, 2, "", {0}, false, 0, -1, "no usable GPU"},
	{"a device the driver cannot describe is passed over", NULL, 2, {80000, 40000}, 2, "", {0, 0}, false, 0, 1, NULL, 1},
	{"no device can be described", NULL, 2, {80000, 40000}, 2, "", {0, 0}, false, 0, -1, "gpusort.devices", 3},
};

/*
 * A new session's first sort whose keys are ready while CUDA is still
 * starting (gsk_init slow): under gpusort.device = auto it sorts on the
 * CPU where the CPU finishes first, and the start goes on; a sort too large
 * for that, or one under gpusort.device = gpu, waits for the start.  2
 * threads: 2*10^6 keys of 4 words take the CPU some 440 ms, 2*10^5 of one
 * some 11 ms.
 */
static Outcome
sort_while_cuda_starts(const char *what, int device, uint64 n, int nwords)
{
	fake_ndevices = 1;
	fake_dev_free[0] = fake_dev_capacity;
	fake_init_delay_ms = 400;
	gpusort_device = device;
	gpusort_cpu_threads = 2;
	gs_gpu_session_prestart();
	return sort_case(what, n, nwords, n, false, 0);
}

static int
cpu_before_cuda_case(void)
{
	int			failures_before = failures;
	Outcome		o = sort_while_cuda_starts("keys ready while CUDA starts",
										   GS_DEVICE_AUTO, 200000, 1);

	if (o.on_gpu || strstr(o.fallback, "CUDA still starting") == NULL || o.warnings != 0)
		fail("keys ready while CUDA starts", o.fallback);
	pg_usleep(500 * 1000L);
	o = sort_case("the sort after the start", 200000, 1, 200000, false, 0);
	if (!o.on_gpu || fake_ninits != 1)
		fail("the sort after the start", o.fallback);
	return failures - failures_before;
}

static int
waits_for_cuda_case(void)
{
	Outcome		o = sort_while_cuda_starts("many keys while CUDA starts",
										   GS_DEVICE_AUTO, 2000000, 4);

	if (!o.on_gpu)
		fail("many keys while CUDA starts", o.fallback);
	return o.on_gpu ? 0 : 1;
}

static int
forced_gpu_waits_case(void)
{
	Outcome		o = sort_while_cuda_starts("gpusort.device = gpu while CUDA starts",
										   GS_DEVICE_GPU, 200000, 1);

	if (!o.on_gpu)
		fail("gpusort.device = gpu while CUDA starts", o.fallback);
	return o.on_gpu ? 0 : 1;
}

static const DeviceCase *device_case_now;
static bool device_case_early;	/* the start begins early, on a thread */

static int
device_case(void)
{
	const DeviceCase *c = device_case_now;
	int			failures_before = failures;
	int			fds[4][4];
	int			probe;
	Outcome		o;
	int			d,
				i;

	if (c->env)
	{
		setenv("GS_FAKE_GPUS", c->env, 1);
		fake_ndevices = -1;
	}
	else
	{
		fake_ndevices = c->ndev;
		for (d = 0; d < c->ndev; d++)
			fake_dev_free[d] = (size_t) c->free_mb[d] * MB;
	}
	fake_unusable = c->unusable;
	gpusort_max_gpu_sessions = c->max_sessions;
	gpusort_devices = (char *) c->devices;
	for (d = 0; d < 4; d++)
		for (i = 0; i < c->held[d]; i++)
		{
			fds[d][i] = open_slot(d, i);
			if (flock(fds[d][i], LOCK_EX | LOCK_NB) != 0)
				fail(c->what, "cannot lock a slot file");
		}
	if (c->probing)
	{
		probe = open_slot(0, c->held[0]);
		if (flock(probe, LOCK_SH | LOCK_NB) != 0)
			fail(c->what, "cannot lock a slot file");
	}

	fake_ncalls = 0;
	fake_fail_at = c->failing > 0 ? 1 : -1;	/* gsk_init is the first call */
	fake_fail_len = c->failing;
	/* what the executor's start of a sort does (gs_sorter_expect) */
	if (device_case_early)
		gs_gpu_session_prestart();
	o = sort_case(c->what, 1000, 1, 1000, false, 0);
	fake_fail_at = -1;

	/*
	 * An early start that found no free slot is not remembered, so the
	 * sort tries again itself, after the injected failures
	 */
	if (device_case_early && c->expect < 0 && c->failing > 0 &&
		strstr(c->reason, "no usable GPU") == NULL)
	{
		if (!o.on_gpu || fake_ninits != c->failing + 1)
			fail(c->what, "the sort did not start again after an early start");
		return failures - failures_before;
	}
	if (fake_ninits != c->failing + (c->expect >= 0))
		fail(c->what, "not one start per failing device");
	if (c->expect < 0)
	{
		long		ninits = fake_ninits;

		if (o.on_gpu || strstr(o.fallback, c->reason) == NULL)
			fail(c->what, o.fallback);

		/* a cause that may pass is not remembered; no device is */
		for (d = 0; d < 4; d++)
			for (i = 0; i < c->held[d]; i++)
				close(fds[d][i]);
		gpusort_devices = "";
		fake_unusable = 0;
		o = sort_case(c->what, 1000, 1, 1000, false, 0);
		if (strstr(c->reason, "no usable GPU") != NULL)
		{
			if (o.on_gpu || fake_ninits != ninits)
				fail(c->what, "no usable device, and yet a start was tried again");
		}
		else if (!o.on_gpu || fake_init_device < 0)
			fail(c->what, "the fallback was remembered");
		return failures - failures_before;
	}

	expect_gpu(c->what, o);
	if (fake_init_device != c->expect || gs_gpu_session_device() == NULL ||
		gs_gpu_session_device()->device != c->expect ||
		gs_gpu_session_slot() != c->held[c->expect] ||
		!slot_locked(c->expect, c->held[c->expect]))
	{
		char		d2[128];

		snprintf(d2, sizeof(d2), "started device %d slot %d, expected device %d slot %d",
				 fake_init_device, gs_gpu_session_slot(), c->expect, c->held[c->expect]);
		fail(c->what, d2);
	}
	/* this backend now counts among its device's sessions */
	if (gs_gpu_device_sessions(c->expect) != c->held[c->expect] + 1)
		fail(c->what, "the session count of its device");
	gpu_info(false);
	if (pg_shim_info_nulls[10] || DatumGetInt32(pg_shim_info_values[10]) != c->expect)
		fail(c->what, "gpusort_gpu_info().device_ordinal");
	return failures - failures_before;
}

/* the pinned pool's rules, from an empty pool */
static int
pool_case(void)
{
	char		reason[128];
	void	   *a,
			   *b,
			   *c,
			   *big[3],
			   *lent[16];
	int			i;

	if (!gs_gpu_session_start(reason, sizeof(reason)))
	{
		fail("pool: start", reason);
		return failures;
	}

	/* 1/8 more than asked, rounded up to 2 MB: 3 MB -> 4 MB */
	a = gs_pinned_get(3 * MB, reason, sizeof(reason));
	if (a == NULL || fake_host_live != 1 || fake_host_live_bytes != 4 * MB)
		fail("pool: a new buffer", "not 4 MB");
	gs_pinned_put(a);
	/* so a slightly larger request reuses it */
	b = gs_pinned_get(3 * MB + MB / 2, reason, sizeof(reason));
	if (b != a || fake_host_live != 1)
		fail("pool: a slightly larger request", "the buffer was not reused");
	/* a lent buffer is not lent again */
	c = gs_pinned_get(MB, reason, sizeof(reason));
	if (c == NULL || c == a || fake_host_live != 2 || fake_host_live_bytes != 6 * MB)
		fail("pool: while lent", "not a new 2 MB buffer");
	gs_pinned_put(b);
	gs_pinned_put(c);
	/* the smallest free buffer that fits */
	if (gs_pinned_get(MB, reason, sizeof(reason)) != c ||
		gs_pinned_get(MB, reason, sizeof(reason)) != a || fake_host_live != 2)
		fail("pool: best fit", "not the smallest fitting buffer first");
	gs_pinned_put(a);
	gs_pinned_put(c);

	/* free buffers beyond 2 GB are dropped, the largest first */
	for (i = 0; i < 3; i++)
		big[i] = gs_pinned_get(800 * MB, reason, sizeof(reason));
	if (fake_host_live != 5 || fake_host_live_bytes != 6 * MB + 3 * 900 * MB)
		fail("pool: large buffers", "not three new 900 MB buffers");
	for (i = 0; i < 3; i++)
		gs_pinned_put(big[i]);
	if (fake_host_live != 4 || fake_host_live_bytes != 6 * MB + 2 * 900 * MB)
		fail("pool: free bytes", "not trimmed to 2 GB");

	/* pinning fails: every free buffer is dropped and pinning tried again */
	fake_fail_at = fake_ncalls + 1;
	a = gs_pinned_get(1000 * MB, reason, sizeof(reason));
	fake_fail_at = -1;
	if (a == NULL || fake_host_live != 1 || fake_host_live_bytes != 1126 * MB)
		fail("pool: pinning fails once", a ? "free buffers kept" : reason);
	gs_pinned_put(a);
	fake_fail_at = fake_ncalls + 1;
	fake_fail_len = 2;
	a = gs_pinned_get(1200 * MB, reason, sizeof(reason));
	fake_fail_at = -1;
	fake_fail_len = 1;
	if (a != NULL || fake_host_live != 0 ||
		strcmp(reason, "cannot allocate pinned host memory: gsk_host_alloc: injected failure") != 0)
		fail("pool: pinning fails twice", reason);

	/* 16 entries: a 17th request fails while all are lent */
	for (i = 0; i < 16; i++)
		lent[i] = gs_pinned_get(MB, reason, sizeof(reason));
	if (gs_pinned_get(MB, reason, sizeof(reason)) != NULL ||
		strcmp(reason, "too many pinned buffers in use") != 0)
		fail("pool: 17 buffers lent", reason);
	for (i = 0; i < 16; i++)
		gs_pinned_put(lent[i]);
	if (fake_host_live != 16)
		fail("pool: 16 buffers given back", "not all kept");
	/* every entry holds a free buffer, none fits: they make room */
	a = gs_pinned_get(3 * MB, reason, sizeof(reason));
	if (a == NULL || fake_host_live != 1)
		fail("pool: no entry free", a ? "free buffers kept" : reason);
	gs_pinned_put(a);
	return failures;
}

int
main(int argc, char **argv)
{
	static const uint64 sizes[] = {0, 1, 2, 1000, 300001, 1300001};
	int			nw,
				si;
	Outcome		o;
	long		total_calls;
	char		what[128];
	int			held[2];

	rnd_seed(0x9e3779b97f4a7c15ULL);
	pg_shim_datadir_create("gs_engine_host");

	/* states a process keeps for its life, each in a fresh child */
	in_child("a failed start is remembered", failed_start_case);
	in_child("the pinned pool", pool_case);
	in_child("keys ready while CUDA starts", cpu_before_cuda_case);
	in_child("many keys while CUDA starts", waits_for_cuda_case);
	in_child("gpusort.device = gpu while CUDA starts", forced_gpu_waits_case);
	for (si = 0; si < (int) lengthof(device_cases); si++)
	{
		char		what[160];

		device_case_now = &device_cases[si];
		device_case_early = false;
		in_child(device_cases[si].what, device_case);
		/* the same, started early: the same device, slot and fallbacks */
		snprintf(what, sizeof(what), "%s, started early", device_cases[si].what);
		device_case_early = true;
		in_child(what, device_case);
	}
	/* the rest: one device, whatever GS_FAKE_GPUS says */
	fake_ndevices = 1;
	fake_dev_free[0] = fake_dev_capacity;

	gpu_info(false);
	if (info_context_held() || !pg_shim_info_nulls[2] ||
		strcmp(info_text(9), "not started in this backend") != 0)
		fail("gpusort_gpu_info() before a start", info_text(9));

	/* the cap at 0, then every slot held by someone else */
	gpusort_max_gpu_sessions = 0;
	o = sort_case("cap 0", 1000, 1, 1000, false, 0);
	if (o.on_gpu || strstr(o.fallback, "max_gpu_sessions = 0") == NULL || o.warnings != 1)
		fail("max_gpu_sessions = 0", o.fallback);
	gpusort_max_gpu_sessions = 2;
	{
		int			i;

		for (i = 0; i < 2; i++)
		{
			held[i] = open_slot(0, i);
			if (flock(held[i], LOCK_EX | LOCK_NB) != 0)
				fail("slots", "cannot lock a slot file");
		}
	}
	o = sort_case("all slots taken", 1000, 1, 1000, false, 0);
	if (o.on_gpu || strstr(o.fallback, "GPU sessions") == NULL)
		fail("all slots taken", o.fallback);
	close(held[1]);
	o = sort_case("a slot freed", 1000, 1, 1000, false, 0);
	expect_gpu("a slot freed", o);
	close(held[0]);
	/* the backend keeps its slot after the sort */
	if (gs_gpu_session_slot() != 1 || !slot_locked(0, 1) || slot_locked(0, 0))
		fail("a slot freed", "not holding slot 1 after the sort");
	gpu_info(false);
	if (!info_context_held() || pg_shim_info_nulls[2] || DatumGetInt32(pg_shim_info_values[2]) != 1 ||
		strcmp(info_text(3), "fake device") != 0 || pg_shim_info_nulls[8] ||
		strcmp(info_text(9), "ready") != 0 || pg_shim_info_nulls[10] ||
		DatumGetInt32(pg_shim_info_values[10]) != 0)
		fail("gpusort_gpu_info() after a start", info_text(9));

	/* every width and size, right, low and high estimates, keys back or not */
	for (nw = 1; nw <= 4; nw *= 2)
		for (si = 0; si < (int) lengthof(sizes); si++)
		{
			uint64		n = sizes[si];
			uint64		ests[] = {n, 1, 3 * n + 10};
			int			e;

			for (e = 0; e < 3; e++)
			{
				snprintf(what, sizeof(what), "n=%llu words=%d estimate=%llu",
						 (unsigned long long) n, nw, (unsigned long long) ests[e]);
				o = sort_case(what, n, nw, ests[e], e == 0, e == 1 ? 50 : 0);
				expect_gpu(what, o);
			}
		}

	/* runs: the device holds only part of the input */
	fake_dev_capacity = ((size_t) 256 << 20) + ((size_t) 24 << 20);
	for (nw = 1; nw <= 4; nw *= 2)
	{
		snprintf(what, sizeof(what), "runs by device memory, words=%d", nw);
		o = sort_case(what, 2000003, nw, 2000003, true, nw == 2 ? 1000 : 0);
		expect_gpu(what, o);
		if (o.nbuckets < 2 * 7)
			fail(what, "not sorted in several runs");
	}
	fake_dev_capacity = (size_t) 1 << 30;
	gpusort_gpu_max_run_rows = 100000;
	o = sort_case("runs by gpusort.gpu_max_run_rows", 1000003, 2, 1000003, false, 300);
	expect_gpu("runs by gpusort.gpu_max_run_rows", o);
	if (o.nbuckets != 11 * 7)
		fail("runs by gpusort.gpu_max_run_rows", "not 11 runs");
	gpusort_gpu_max_run_rows = 0;

	/*
	 * other sessions' sorts hold the device memory in the server-wide
	 * account: the CPU sorts, though cudaMalloc would succeed; with only
	 * part of it held, the GPU sorts in runs that fit
	 */
	fake_account_others[GS_ACCT_DEV] = fake_dev_capacity - ((size_t) 256 << 20) - 4096;
	o = sort_case("device memory reserved by others", 300001, 1, 300001, false, 0);
	if (o.on_gpu || strstr(o.fallback, "reserved by other sorts") == NULL)
		fail("device memory reserved by others", o.fallback);
	fake_account_others[GS_ACCT_DEV] = fake_dev_capacity - ((size_t) 256 << 20) - ((size_t) 24 << 20);
	o = sort_case("device memory partly reserved by others", 2000003, 1, 2000003, false, 0);
	expect_gpu("device memory partly reserved by others", o);
	if (o.nbuckets < 2 * 7)
		fail("device memory partly reserved by others", "not sorted in several runs");
	fake_account_others[GS_ACCT_DEV] = 0;

	/* every CUDA call failing in turn, under gpu and under auto */
	fake_ncalls = 0;
	(void) sort_case("count calls", 600001, 1, 1000, true, 0);
	total_calls = fake_ncalls;
	{
		long		k;
		int			nfallbacks = 0;

		for (k = 1; k <= total_calls + 1; k++)
		{
			int			dev;

			for (dev = 0; dev < 2; dev++)
			{
				gpusort_device = dev == 0 ? GS_DEVICE_GPU : GS_DEVICE_AUTO;
				fake_ncalls = 0;
				fake_fail_at = k;
				snprintf(what, sizeof(what), "call %ld of %ld fails (%s)", k, total_calls,
						 dev == 0 ? "gpu" : "auto");
				o = sort_case(what, 600001, 1, 1000, true, 0);
				if (!o.on_gpu)
				{
					nfallbacks++;
					if (o.fallback[0] == '\0')
						fail(what, "no fallback reason");
					if (o.warnings != (dev == 0 ? 1 : 0))
						fail(what, "wrong number of warnings");
				}
				else if (o.warnings != 0)
					fail(what, "warning without a fallback");
			}
		}
		fake_fail_at = -1;
		gpusort_device = GS_DEVICE_GPU;
		printf("%ld CUDA calls per sort, %d of %ld injected failures fell back to the CPU\n",
			   total_calls, nfallbacks, 2 * (total_calls + 1));
		if (nfallbacks == 0)
			fail("failure injection", "no failure reached the engine");
	}

	/* a cancel at each of the first polls of a wait */
	{
		long		k;

		/* two waits of three "not ready" polls each */
		for (k = 1; k <= 6; k++)
		{
			fake_npolls = 0;
			fake_cancel_at_poll = k;
			snprintf(what, sizeof(what), "cancel at poll %ld", k);
			o = sort_case(what, 1300001, 2, 1300001, true, 0);
			fake_cancel_at_poll = -1;
			if (!o.cancelled)
				fail(what, "the cancel was not served");
			if (fake_dev_in_use != 0)
				fail(what, "device memory left allocated");
			o = sort_case("sort after a cancel", 300001, 2, 300001, true, 0);
			expect_gpu("sort after a cancel", o);
		}
	}

	printf("pinned buffers kept for reuse: %ld\n", fake_host_live);
	pg_shim_datadir_remove();
	return check_report();
}
