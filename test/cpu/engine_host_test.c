/*
 * engine_host_test.c
 *	  The sort engines' host side (src/engine.c, src/engine_gpu.c) and the
 *	  backend's GPU session (src/gpu_session.c) on a machine without a GPU,
 *	  against a fake of kernels/gpusort_kernels.h.
 *
 * The fake "device" is host memory with a set capacity; its streams run
 * every call at once but answer "not ready" to the first polls, its sort
 * is the CPU engine's.  That is enough to run every path of the GPU
 * engine's host code in CI:
 *	 - chunked copies while keys are pushed, with right and wrong row
 *	   estimates (the buffers grow), with and without sorted keys back;
 *	 - inputs larger than the device, sorted in runs and merged, with the
 *	   run length set by device memory or by gpusort.gpu_max_run_rows;
 *	 - a failure of every single CUDA call in turn: the sort must still be
 *	   right (on the CPU), with exactly one WARNING under gpusort.device =
 *	   gpu and none under auto, and nothing left allocated;
 *	 - a cancel while waiting for the device: the memory context callback
 *	   must free everything, and the next sort must work;
 *	 - the session: the cap at 0, slot files held by others, the slot
 *	   kept for the backend's life; a failed CUDA start remembered (in a
 *	   child process: it is for the process's life) and its slot given
 *	   back; gpusort_gpu_info() before and after the start;
 *	 - the pinned pool: reuse of the smallest fitting free buffer, the
 *	   rounding that lets a slightly larger request reuse one, the cap on
 *	   free bytes, the cap on entries, and a retry after dropping free
 *	   buffers when pinning fails.
 * Every result is compared with a reference sort by (key, row).
 *
 * Built with a shim for the backend symbols these files use; see
 * test/cpu/engine_host.sh.  Exit status 1 on a failure.
 */
#include "postgres.h"

#include <setjmp.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <fcntl.h>
#include <unistd.h>

#include "access/htup_details.h"
#include "fmgr.h"
#include "funcapi.h"
#include "miscadmin.h"
#include "access/parallel.h"
#include "utils/memutils.h"

#include "gpusort.h"
#include "engine.h"
#include "gpu_session.h"
#include "gpusort_kernels.h"

#undef qsort
#undef printf
#undef fprintf
#undef snprintf
#undef vsnprintf

/* ---- backend shim ------------------------------------------------------- */

MemoryContext CurrentMemoryContext = (MemoryContext) 1;
volatile sig_atomic_t InterruptPending = false;
char	   *DataDir;
bool		IsPostmasterEnvironment = true;
bool		IsUnderPostmaster = true;
int			ParallelWorkerNumber = -1;
int			pg_dir_create_mode = 0700;
int			pg_file_create_mode = 0600;

bool		gpusort_enabled = true;
int			gpusort_device = GS_DEVICE_GPU;
int			gpusort_min_rows = 0;
int			gpusort_max_memory = 4 * 1024 * 1024;
int			gpusort_max_gpu_sessions = 8;

int			gpusort_gpu_max_run_rows = 0;
static sigjmp_buf cancel_jmp;
static int	nwarnings = 0;
static int	cur_elevel;
static char last_msg[512];

static MemoryContextCallback *callbacks[64];
static int	ncallbacks = 0;

void *
MemoryContextAllocHuge(MemoryContext context, Size size)
{
	void	   *p = malloc(size ? size : 1);

	if (!p)
		abort();
	return p;
}

void *
palloc0(Size size)
{
	void	   *p = calloc(1, size ? size : 1);

	if (!p)
		abort();
	return p;
}

void *
repalloc_huge(void *pointer, Size size)
{
	void	   *p = realloc(pointer, size);

	if (!p)
		abort();
	return p;
}

void
pfree(void *pointer)
{
	free(pointer);
}

void
MemoryContextRegisterResetCallback(MemoryContext context, MemoryContextCallback *cb)
{
	if (ncallbacks == lengthof(callbacks))
		abort();
	callbacks[ncallbacks++] = cb;
}

/* what resetting the sort's memory context does (also after an ERROR) */
static void
reset_context(void)
{
	while (ncallbacks > 0)
	{
		MemoryContextCallback *cb = callbacks[--ncallbacks];

		cb->func(cb->arg);
	}
}

void
ProcessInterrupts(void)
{
	InterruptPending = false;
	siglongjmp(cancel_jmp, 1);
}

bool
errstart(int elevel, const char *domain)
{
	cur_elevel = elevel;
	return true;
}

bool
errstart_cold(int elevel, const char *domain)
{
	return errstart(elevel, domain);
}

int
errmsg(const char *fmt,...)
{
	va_list		ap;

	va_start(ap, fmt);
	vsnprintf(last_msg, sizeof(last_msg), fmt, ap);
	va_end(ap);
	return 0;
}

int
errmsg_internal(const char *fmt,...)
{
	va_list		ap;

	va_start(ap, fmt);
	vsnprintf(last_msg, sizeof(last_msg), fmt, ap);
	va_end(ap);
	return 0;
}

int
errdetail(const char *fmt,...)
{
	return 0;
}

int
errcode(int sqlerrcode)
{
	return 0;
}

void
errfinish(const char *filename, int lineno, const char *funcname)
{
	if (cur_elevel >= ERROR)
	{
		fprintf(stderr, "unexpected ERROR: %s\n", last_msg);
		abort();
	}
	if (cur_elevel == WARNING)
		nwarnings++;
}

/*
 * gpusort_gpu_info's: the "tuple" is kept in info_values / info_nulls, and
 * its text columns are plain C strings.
 */
#define INFO_NATTS	10
static Datum info_values[INFO_NATTS];
static bool info_nulls[INFO_NATTS];

Datum
HeapTupleHeaderGetDatum(HeapTupleHeader tuple)
{
	return (Datum) 0;
}

text *
cstring_to_text(const char *s)
{
	return (text *) strdup(s);
}

TypeFuncClass
get_call_result_type(FunctionCallInfo fcinfo, Oid *resultTypeId, TupleDesc *resultTupleDesc)
{
	*resultTupleDesc = NULL;
	return TYPEFUNC_COMPOSITE;
}

HeapTuple
heap_form_tuple(TupleDesc tupleDescriptor, Datum *values, bool *isnull)
{
	static HeapTupleData tuple;

	memcpy(info_values, values, sizeof(info_values));
	memcpy(info_nulls, isnull, sizeof(info_nulls));
	return &tuple;
}

/* ---- the fake device ----------------------------------------------------- */

static size_t dev_capacity = (size_t) 1 << 30;
static size_t dev_in_use = 0;
static long host_live = 0;		/* pinned buffers not freed */
static size_t host_live_bytes = 0;
static long ncalls = 0;			/* gsk calls that can fail */
static long fail_at = -1;		/* that call fails ... */
static long fail_len = 1;		/* ... and the fail_len - 1 after it */
static long ninits = 0;			/* gsk_init calls */
static int	not_ready_polls = 3;	/* per wait */
static int	polls_left = 0;
static long cancel_at_poll = -1;	/* that poll sees a cancel */
static long npolls = 0;
static char last_error[128] = "";

typedef struct DevBlock
{
	size_t		size;
	uint64_t	data[];
} DevBlock;

static int
call(const char *what)
{
	++ncalls;
	if (fail_at > 0 && ncalls >= fail_at && ncalls < fail_at + fail_len)
	{
		snprintf(last_error, sizeof(last_error), "%s: injected failure", what);
		return 2;
	}
	return 0;
}

int
gsk_init(int device, GskDeviceInfo *info)
{
	ninits++;
	if (call("gsk_init"))
		return 2;
	memset(info, 0, sizeof(*info));
	strcpy(info->name, "fake device");
	info->total_mem = dev_capacity;
	return 0;
}

const char *
gsk_last_error(void)
{
	return last_error;
}

int
gsk_mem_info(size_t *free_mem, size_t *total_mem)
{
	if (call("gsk_mem_info"))
		return 2;
	*free_mem = dev_capacity - dev_in_use;
	*total_mem = dev_capacity;
	return 0;
}

/* pinned buffers are never touched by the pool: large ones cost nothing */
int
gsk_host_alloc(void **p, size_t bytes)
{
	DevBlock   *b;

	if (call("gsk_host_alloc"))
		return 2;
	b = malloc(sizeof(DevBlock) + bytes);
	if (b == NULL)
		abort();
	b->size = bytes;
	*p = b->data;
	host_live++;
	host_live_bytes += bytes;
	return 0;
}

int
gsk_host_free(void *p)
{
	DevBlock   *b = (DevBlock *) ((char *) p - offsetof(DevBlock, data));

	host_live--;
	host_live_bytes -= b->size;
	free(b);
	return 0;
}

int
gsk_device_alloc(void **p, size_t bytes)
{
	DevBlock   *b;

	if (call("gsk_device_alloc"))
		return 2;
	if (dev_in_use + bytes > dev_capacity)
	{
		snprintf(last_error, sizeof(last_error), "out of memory");
		return 2;
	}
	b = malloc(sizeof(DevBlock) + bytes);
	b->size = bytes;
	dev_in_use += bytes;
	*p = b->data;
	return 0;
}

int
gsk_device_free(void *p)
{
	DevBlock   *b = (DevBlock *) ((char *) p - offsetof(DevBlock, data));

	dev_in_use -= b->size;
	free(b);
	return 0;
}

int
gsk_stream_create(void **stream)
{
	if (call("gsk_stream_create"))
		return 2;
	*stream = malloc(1);
	return 0;
}

int
gsk_stream_destroy(void *stream)
{
	free(stream);
	return 0;
}

int
gsk_stream_query(void *stream)
{
	if (call("gsk_stream_query"))
		return 2;
	if (polls_left > 0)
	{
		/* the caller checks for interrupts after "not ready" */
		if (++npolls == cancel_at_poll)
			InterruptPending = true;
		polls_left--;
		return GSK_NOT_READY;
	}
	polls_left = not_ready_polls;
	return 0;
}

int
gsk_stream_sync(void *stream)
{
	return call("gsk_stream_sync") ? 2 : 0;
}

int
gsk_copy_h2d_async(void *dst, const void *src, size_t bytes, void *stream)
{
	if (call("gsk_copy_h2d_async"))
		return 2;
	memcpy(dst, src, bytes);
	return 0;
}

int
gsk_copy_d2h_async(void *dst, const void *src, size_t bytes, void *stream)
{
	if (call("gsk_copy_d2h_async"))
		return 2;
	memcpy(dst, src, bytes);
	return 0;
}

int
gsk_event_create(void **event)
{
	if (call("gsk_event_create"))
		return 2;
	*event = calloc(1, sizeof(double));
	return 0;
}

int
gsk_event_destroy(void *event)
{
	free(event);
	return 0;
}

int
gsk_event_record(void *event, void *stream)
{
	if (call("gsk_event_record"))
		return 2;
	*(double *) event = (double) ncalls;
	return 0;
}

int
gsk_event_elapsed_ms(void *start, void *end, float *ms)
{
	*ms = (float) (*(double *) end - *(double *) start);
	return 0;
}

size_t
gsk_sort_temp_bytes(size_t n, int nwords)
{
	return n * (8 * nwords + 4) + 1024;
}

int
gsk_iota_rows(uint32_t *d_rows, size_t n, uint32_t first_row, void *stream)
{
	size_t		i;

	if (call("gsk_iota_rows"))
		return 2;
	for (i = 0; i < n; i++)
		d_rows[i] = first_row + (uint32_t) i;
	return 0;
}

int
gsk_sort_pairs(uint64_t *d_keys, uint32_t *d_rows, size_t n, int nwords,
			   void *d_temp, size_t temp_bytes, void *stream, GskSortInfo *info)
{
	if (call("gsk_sort_pairs"))
		return 2;
	if (temp_bytes < gsk_sort_temp_bytes(n, nwords))
	{
		snprintf(last_error, sizeof(last_error), "temp too small");
		return 2;
	}
	gs_cpu_sort_pairs((uint64 *) d_keys, d_rows, n, nwords);
	if (info)
	{
		info->nbuckets = 7;
		info->merge_passes = 1;
		info->temp_bytes = temp_bytes;
	}
	return 0;
}

/* ---- the tests ----------------------------------------------------------- */

static int	failures = 0;
static int	checks = 0;

static uint64_t rng = 0x9e3779b97f4a7c15ULL;

static uint64
rnd(void)
{
	rng ^= rng << 13;
	rng ^= rng >> 7;
	rng ^= rng << 17;
	return rng;
}

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

static void
fail(const char *what, const char *detail)
{
	printf("FAILED: %s: %s\n", what, detail);
	failures++;
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
	uint64		i;
	int			w;

	memset(&out, 0, sizeof(out));
	for (i = 0; i < n; i++)
	{
		for (w = 0; w < nwords; w++)
			ref[i].key[w] = distinct ? rnd() % distinct : rnd();
		ref[i].row = (uint32) i;
	}
	nwarnings = 0;
	checks++;

	if (sigsetjmp(cancel_jmp, 1) != 0)
	{
		/* an ERROR: the executor resets the node's memory context */
		reset_context();
		out.cancelled = true;
		out.warnings = nwarnings;
		free(ref);
		return out;
	}

	s = gs_sorter_begin(nwords, expected, need_keys ? GS_SORTER_NEED_KEYS : 0);
	for (i = 0; i < n; i++)
		memcpy(gs_sorter_push(s), ref[i].key, sizeof(uint64) * nwords);
	gs_sorter_sort(s);

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
	reset_context();
	out.warnings = nwarnings;
	if (dev_in_use != 0)
		fail(what, "device memory left allocated");
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

/* gpusort_gpu_info(start): its columns land in info_values / info_nulls */
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
	return info_nulls[att] ? "" : (const char *) DatumGetPointer(info_values[att]);
}

static bool
info_context_held(void)
{
	return !info_nulls[1] && DatumGetBool(info_values[1]);
}

/* whether another open file description finds slot i locked */
static bool
slot_locked(int i)
{
	char		p[MAXPGPATH];
	int			fd;
	bool		locked;

	snprintf(p, sizeof(p), "%s/pg_gpusort/slot.%d", DataDir, i);
	fd = open(p, O_RDWR | O_CREAT, 0600);
	if (fd < 0)
		return false;
	locked = flock(fd, LOCK_EX | LOCK_NB) != 0;
	close(fd);
	return locked;
}

/*
 * Runs fn in a child process, where what it does to the backend's state
 * (a failed start is remembered for the process's life) stays.
 */
static void
in_child(const char *what, int (*fn) (void))
{
	pid_t		pid;
	int			status;

	checks++;
	fflush(stdout);
	pid = fork();
	if (pid == 0)
		exit(fn() == 0 ? 0 : 1);
	if (pid < 0 || waitpid(pid, &status, 0) != pid ||
		!WIFEXITED(status) || WEXITSTATUS(status) != 0)
		fail(what, "failed in the child process");
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
	ncalls = 0;
	fail_at = 1;				/* gsk_init is the first call */
	o = sort_case("failed start", 1000, 1, 1000, false, 0);
	fail_at = -1;
	if (o.on_gpu || o.warnings != 1 ||
		strcmp(o.fallback, "no usable GPU: gsk_init: injected failure") != 0)
		fail("failed start", o.fallback);
	if (gs_gpu_session_slot() != -1 || slot_locked(0))
		fail("failed start", "the session slot was kept");
	if (gs_gpu_session_device() != NULL)
		fail("failed start", "a device after a failed start");

	o = sort_case("after a failed start", 1000, 1, 1000, false, 0);
	if (o.on_gpu || strstr(o.fallback, "no usable GPU") == NULL || ninits != 1)
		fail("after a failed start", "the start was tried again");
	gpu_info(true);
	if (info_context_held() || ninits != 1 ||
		strstr(info_text(9), "no usable GPU") == NULL)
		fail("gpusort_gpu_info(true) after a failed start", info_text(9));
	return failures;
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
	if (a == NULL || host_live != 1 || host_live_bytes != 4 * MB)
		fail("pool: a new buffer", "not 4 MB");
	gs_pinned_put(a);
	/* so a slightly larger request reuses it */
	b = gs_pinned_get(3 * MB + MB / 2, reason, sizeof(reason));
	if (b != a || host_live != 1)
		fail("pool: a slightly larger request", "the buffer was not reused");
	/* a lent buffer is not lent again */
	c = gs_pinned_get(MB, reason, sizeof(reason));
	if (c == NULL || c == a || host_live != 2 || host_live_bytes != 6 * MB)
		fail("pool: while lent", "not a new 2 MB buffer");
	gs_pinned_put(b);
	gs_pinned_put(c);
	/* the smallest free buffer that fits */
	if (gs_pinned_get(MB, reason, sizeof(reason)) != c ||
		gs_pinned_get(MB, reason, sizeof(reason)) != a || host_live != 2)
		fail("pool: best fit", "not the smallest fitting buffer first");
	gs_pinned_put(a);
	gs_pinned_put(c);

	/* free buffers beyond 2 GB are dropped, the largest first */
	for (i = 0; i < 3; i++)
		big[i] = gs_pinned_get(800 * MB, reason, sizeof(reason));
	if (host_live != 5 || host_live_bytes != 6 * MB + 3 * 900 * MB)
		fail("pool: large buffers", "not three new 900 MB buffers");
	for (i = 0; i < 3; i++)
		gs_pinned_put(big[i]);
	if (host_live != 4 || host_live_bytes != 6 * MB + 2 * 900 * MB)
		fail("pool: free bytes", "not trimmed to 2 GB");

	/* pinning fails: every free buffer is dropped and pinning tried again */
	fail_at = ncalls + 1;
	a = gs_pinned_get(1000 * MB, reason, sizeof(reason));
	fail_at = -1;
	if (a == NULL || host_live != 1 || host_live_bytes != 1126 * MB)
		fail("pool: pinning fails once", a ? "free buffers kept" : reason);
	gs_pinned_put(a);
	fail_at = ncalls + 1;
	fail_len = 2;
	a = gs_pinned_get(1200 * MB, reason, sizeof(reason));
	fail_at = -1;
	fail_len = 1;
	if (a != NULL || host_live != 0 ||
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
	if (host_live != 16)
		fail("pool: 16 buffers given back", "not all kept");
	/* every entry holds a free buffer, none fits: they make room */
	a = gs_pinned_get(3 * MB, reason, sizeof(reason));
	if (a == NULL || host_live != 1)
		fail("pool: no entry free", a ? "free buffers kept" : reason);
	gs_pinned_put(a);
	return failures;
}

int
main(int argc, char **argv)
{
	char		dir[] = "/tmp/gs_engine_host.XXXXXX";
	static const uint64 sizes[] = {0, 1, 2, 1000, 300001, 1300001};
	int			nw,
				si;
	Outcome		o;
	long		total_calls;
	char		what[128];
	int			held[2];

	DataDir = mkdtemp(dir);

	/* states a process keeps for its life, each in a fresh child */
	in_child("a failed start is remembered", failed_start_case);
	in_child("the pinned pool", pool_case);

	gpu_info(false);
	if (info_context_held() || !info_nulls[2] ||
		strcmp(info_text(9), "not started in this backend") != 0)
		fail("gpusort_gpu_info() before a start", info_text(9));

	/* the cap at 0, then every slot held by someone else */
	gpusort_max_gpu_sessions = 0;
	o = sort_case("cap 0", 1000, 1, 1000, false, 0);
	if (o.on_gpu || strstr(o.fallback, "max_gpu_sessions = 0") == NULL || o.warnings != 1)
		fail("max_gpu_sessions = 0", o.fallback);
	gpusort_max_gpu_sessions = 2;
	{
		char		p[MAXPGPATH];
		int			i;

		snprintf(p, sizeof(p), "%s/pg_gpusort", DataDir);
		mkdir(p, 0700);
		for (i = 0; i < 2; i++)
		{
			snprintf(p, sizeof(p), "%s/pg_gpusort/slot.%d", DataDir, i);
			held[i] = open(p, O_RDWR | O_CREAT, 0600);
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
	if (gs_gpu_session_slot() != 1 || !slot_locked(1) || slot_locked(0))
		fail("a slot freed", "not holding slot 1 after the sort");
	gpu_info(false);
	if (!info_context_held() || info_nulls[2] || DatumGetInt32(info_values[2]) != 1 ||
		strcmp(info_text(3), "fake device") != 0 || info_nulls[8] ||
		strcmp(info_text(9), "ready") != 0)
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
	dev_capacity = ((size_t) 256 << 20) + ((size_t) 24 << 20);
	for (nw = 1; nw <= 4; nw *= 2)
	{
		snprintf(what, sizeof(what), "runs by device memory, words=%d", nw);
		o = sort_case(what, 2000003, nw, 2000003, true, nw == 2 ? 1000 : 0);
		expect_gpu(what, o);
		if (o.nbuckets < 2 * 7)
			fail(what, "not sorted in several runs");
	}
	dev_capacity = (size_t) 1 << 30;
	gpusort_gpu_max_run_rows = 100000;
	o = sort_case("runs by gpusort.gpu_max_run_rows", 1000003, 2, 1000003, false, 300);
	expect_gpu("runs by gpusort.gpu_max_run_rows", o);
	if (o.nbuckets != 11 * 7)
		fail("runs by gpusort.gpu_max_run_rows", "not 11 runs");
	gpusort_gpu_max_run_rows = 0;

	/* every CUDA call failing in turn, under gpu and under auto */
	ncalls = 0;
	(void) sort_case("count calls", 600001, 1, 1000, true, 0);
	total_calls = ncalls;
	{
		long		k;
		int			nfallbacks = 0;

		for (k = 1; k <= total_calls + 1; k++)
		{
			int			dev;

			for (dev = 0; dev < 2; dev++)
			{
				gpusort_device = dev == 0 ? GS_DEVICE_GPU : GS_DEVICE_AUTO;
				ncalls = 0;
				fail_at = k;
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
		fail_at = -1;
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
			npolls = 0;
			cancel_at_poll = k;
			snprintf(what, sizeof(what), "cancel at poll %ld", k);
			o = sort_case(what, 1300001, 2, 1300001, true, 0);
			cancel_at_poll = -1;
			if (!o.cancelled)
				fail(what, "the cancel was not served");
			if (dev_in_use != 0)
				fail(what, "device memory left allocated");
			o = sort_case("sort after a cancel", 300001, 2, 300001, true, 0);
			expect_gpu("sort after a cancel", o);
		}
	}

	printf("pinned buffers kept for reuse: %ld\n", host_live);
	printf("%d passed, %d failed\n", Max(checks - failures, 0), failures);
	{
		char		p[MAXPGPATH];
		int			i;

		for (i = 0; i < 2; i++)
		{
			snprintf(p, sizeof(p), "%s/pg_gpusort/slot.%d", DataDir, i);
			unlink(p);
		}
		snprintf(p, sizeof(p), "%s/pg_gpusort", DataDir);
		rmdir(p);
		rmdir(DataDir);
	}
	return failures ? 1 : 0;
}
