/*
 * fake_cuda.c
 *	  The CUDA runtime of kernels/gpusort_kernels.h, faked in host memory
 *	  for the host tests (test/sort/cpu/engine_host_test.c,
 *	  test/tree/cpu/tree_gpu_host_test.c), which run the GPU code's host side in CI.
 *
 * The "device" is host memory with a set capacity.  Asynchronous calls do
 * their work at once but mark the stream busy; gsk_stream_query then
 * answers "not ready" fake_not_ready_polls times before "done" (the very
 * first wait of the process excepted), so that every wait polls for
 * interrupts, and a cancel can be injected at any of those polls.  Every
 * call that can fail on a real device is counted and can be made to fail
 * (fake_fail_at): a test counts the calls of a run, then fails each in
 * turn.  What would leak on a real device is kept count of: device bytes,
 * pinned buffers, work never waited for (fake_stream_busy after the
 * caller is done), a pinned buffer given back to the pool while work in
 * flight still reads or writes it (fake_unsafe_puts: the build wraps
 * gs_pinned_put, see __wrap_gs_pinned_put below).
 *
 * Frees, destroys and the event timings do not fail, as in the CUDA
 * runtime (short of a broken context), and are not counted.
 *
 * The visible devices are a list of free memory sizes: fake_ndevices and
 * fake_dev_free[], which a test sets, or else the environment variable
 * GS_FAKE_GPUS, free MiB per device ("80000,80000,40000"; "" for no
 * device), or else one device with fake_dev_capacity free.  Listing and
 * describing devices is not counted either (the session calls them once,
 * before gsk_init, and the tests count from gsk_init); no device at all is
 * how a test makes the listing fail.  Whichever device gsk_init starts,
 * the sorts' memory is fake_dev_capacity.
 */
#include "postgres.h"

#include "miscadmin.h"

#include "fake_cuda.h"
#include "gpu/gpu_session.h"

#undef snprintf
#undef vsnprintf

size_t		fake_dev_capacity = (size_t) 1 << 30;
size_t		fake_dev_in_use = 0;
long		fake_host_live = 0;
size_t		fake_host_live_bytes = 0;
long		fake_ncalls = 0;
long		fake_fail_at = -1;
long		fake_fail_len = 1;
long		fake_ninits = 0;
int			fake_init_delay_ms = 0;
int			fake_not_ready_polls = 3;
long		fake_npolls = 0;
long		fake_cancel_at_poll = -1;
bool		fake_stream_busy = false;
long		fake_unsafe_puts = 0;

int			fake_ndevices = -1;
size_t		fake_dev_free[FAKE_MAX_DEVICES];
int			fake_init_device = -1;
unsigned	fake_unusable = 0;

static int	polls_left = 0;
static char last_error[128] = "";

/*
 * Device and pinned blocks know their size, for the bookkeeping; pinned
 * ones are listed, and know whether work in flight uses them.
 */
typedef struct Block
{
	size_t		size;
	bool		in_flight;
	struct Block *next;			/* pinned: the next live one */
	uint64_t	data[];
} Block;

static Block *pinned = NULL;

static Block *
block_of(void *p)
{
	return (Block *) ((char *) p - offsetof(Block, data));
}

static void *
block_alloc(size_t bytes)
{
	Block	   *b = malloc(sizeof(Block) + bytes);

	if (b == NULL)
		abort();
	b->size = bytes;
	b->in_flight = false;
	b->next = NULL;
	return b->data;
}

/* the live pinned block that holds p, or NULL */
static Block *
pinned_holding(const void *p)
{
	Block	   *b;

	for (b = pinned; b != NULL; b = b->next)
		if ((const char *) p >= (const char *) b->data &&
			(const char *) p < (const char *) b->data + b->size)
			return b;
	return NULL;
}

void
fake_host_in_flight(const void *host)
{
	Block	   *b = pinned_holding(host);

	if (b != NULL)
		b->in_flight = true;
}

/* everything enqueued has run */
static void
stream_idle(void)
{
	Block	   *b;

	fake_stream_busy = false;
	for (b = pinned; b != NULL; b = b->next)
		b->in_flight = false;
}

int
fake_error(int code, const char *fmt,...)
{
	va_list		ap;

	va_start(ap, fmt);
	vsnprintf(last_error, sizeof(last_error), fmt, ap);
	va_end(ap);
	return code;
}

int
fake_call(const char *what)
{
	++fake_ncalls;
	if (fake_fail_at > 0 && fake_ncalls >= fake_fail_at &&
		fake_ncalls < fake_fail_at + fake_fail_len)
		return fake_error(FAKE_INJECTED, "%s: injected failure", what);
	return 0;
}

int
fake_enqueue(const char *what)
{
	if (fake_call(what))
		return FAKE_INJECTED;
	fake_stream_busy = true;
	return 0;
}

/* the device list, from GS_FAKE_GPUS unless the test set one */
static void
load_devices(void)
{
	const char *env = getenv("GS_FAKE_GPUS");
	char	   *end;

	if (fake_ndevices >= 0)
		return;
	fake_ndevices = 0;
	if (env == NULL)
	{
		fake_dev_free[fake_ndevices++] = fake_dev_capacity;
		return;
	}
	while (*env && fake_ndevices < FAKE_MAX_DEVICES)
	{
		fake_dev_free[fake_ndevices++] = (size_t) strtoull(env, &end, 10) << 20;
		if (end == env || (*end != ',' && *end != '\0'))
		{
			fprintf(stderr, "GS_FAKE_GPUS: bad list at \"%s\"\n", env);
			abort();
		}
		env = *end ? end + 1 : end;
	}
}

int
gsk_device_count(int *ndev)
{
	load_devices();
	*ndev = fake_ndevices;
	if (fake_ndevices == 0)
		return fake_error(FAKE_NO_DEVICE, "cudaGetDeviceCount: no CUDA-capable device is detected");
	return 0;
}

int
gsk_device_describe(int device, GskDeviceInfo *info)
{
	load_devices();
	if (device < 0 || device >= fake_ndevices || (fake_unusable & (1u << device)))
		return fake_error(FAKE_NO_DEVICE, "gsk_device_describe: no device %d", device);
	memset(info, 0, sizeof(*info));
	info->device = device;
	strcpy(info->name, "fake device");
	info->total_mem = Max(fake_dev_capacity, fake_dev_free[device]);
	info->free_mem = fake_dev_free[device];
	info->free_mem_known = 1;
	return 0;
}

int
gsk_init(int device, GskDeviceInfo *info)
{
	fake_ninits++;
	if (fake_init_delay_ms > 0)
		pg_usleep((long) fake_init_delay_ms * 1000L);
	if (fake_call("gsk_init"))
		return FAKE_INJECTED;
	memset(info, 0, sizeof(*info));
	info->device = device;
	strcpy(info->name, "fake device");
	info->total_mem = fake_dev_capacity;
	fake_init_device = device;
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
	if (fake_call("gsk_mem_info"))
		return FAKE_INJECTED;
	*free_mem = fake_dev_capacity - fake_dev_in_use;
	*total_mem = fake_dev_capacity;
	return 0;
}

/* pinned buffers are never touched by the pool: large ones cost nothing */
int
gsk_host_alloc(void **p, size_t bytes)
{
	if (fake_call("gsk_host_alloc"))
		return FAKE_INJECTED;
	*p = block_alloc(bytes);
	block_of(*p)->next = pinned;
	pinned = block_of(*p);
	fake_host_live++;
	fake_host_live_bytes += bytes;
	return 0;
}

/* cudaFreeHost waits for the device: a buffer in flight is no error here */
int
gsk_host_free(void *p)
{
	Block	   *b = block_of(p);
	Block	  **link;

	for (link = &pinned; *link != b; link = &(*link)->next)
		if (*link == NULL)
			abort();			/* not a pinned buffer */
	*link = b->next;
	fake_host_live--;
	fake_host_live_bytes -= b->size;
	free(b);
	return 0;
}

int
gsk_device_alloc(void **p, size_t bytes)
{
	if (fake_call("gsk_device_alloc"))
		return FAKE_INJECTED;
	if (fake_dev_in_use + bytes > fake_dev_capacity)
		return fake_error(FAKE_INJECTED, "out of memory");
	*p = block_alloc(bytes);
	fake_dev_in_use += bytes;
	return 0;
}

int
gsk_device_free(void *p)
{
	Block	   *b = block_of(p);

	fake_dev_in_use -= b->size;
	free(b);
	return 0;
}

int
gsk_stream_create(void **stream)
{
	if (fake_call("gsk_stream_create"))
		return FAKE_INJECTED;
	*stream = block_alloc(0);
	return 0;
}

int
gsk_stream_destroy(void *stream)
{
	free(block_of(stream));
	return 0;
}

int
gsk_stream_query(void *stream)
{
	if (fake_call("gsk_stream_query"))
		return FAKE_INJECTED;
	if (fake_stream_busy && polls_left > 0)
	{
		/* the caller checks for interrupts after "not ready" */
		if (++fake_npolls == fake_cancel_at_poll)
			QueryCancelPending = InterruptPending = true;
		polls_left--;
		return GSK_NOT_READY;
	}
	polls_left = fake_not_ready_polls;
	stream_idle();
	return 0;
}

/* a sync that fails still waits: the stream is idle after it either way */
int
gsk_stream_sync(void *stream)
{
	stream_idle();
	return fake_call("gsk_stream_sync");
}

int
gsk_copy_h2d_async(void *dst, const void *src, size_t bytes, void *stream)
{
	if (fake_enqueue("gsk_copy_h2d_async"))
		return FAKE_INJECTED;
	fake_host_in_flight(src);
	memcpy(dst, src, bytes);
	return 0;
}

int
gsk_copy_d2h_async(void *dst, const void *src, size_t bytes, void *stream)
{
	if (fake_enqueue("gsk_copy_d2h_async"))
		return FAKE_INJECTED;
	fake_host_in_flight(dst);
	memcpy(dst, src, bytes);
	return 0;
}

/*
 * An event records the call count: "elapsed" is calls, not milliseconds.
 * Recording is done at once and leaves the stream as it was: an event is no
 * work to wait for.
 */
int
gsk_event_create(void **event)
{
	if (fake_call("gsk_event_create"))
		return FAKE_INJECTED;
	*event = calloc(1, sizeof(double));
	if (*event == NULL)
		abort();
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
	if (fake_call("gsk_event_record"))
		return FAKE_INJECTED;
	*(double *) event = (double) fake_ncalls;
	return 0;
}

int
gsk_event_elapsed_ms(void *start, void *end, float *ms)
{
	*ms = (float) (*(double *) end - *(double *) start);
	return 0;
}

/*
 * The pool of src/gpu/gpu_session.c as its callers see it: the test scripts
 * link with -Wl,--wrap=gs_pinned_put, so that the engines' calls come here
 * first.  A buffer must not go back while work in flight uses it (the next
 * borrower would share it with the device): the callers wait for the
 * stream first, and this counts the times they did not.
 */
extern void __real_gs_pinned_put(void *p);
extern void __wrap_gs_pinned_put(void *p);

void
__wrap_gs_pinned_put(void *p)
{
	Block	   *b = p ? pinned_holding(p) : NULL;

	if (b != NULL && b->in_flight)
		fake_unsafe_puts++;
	__real_gs_pinned_put(p);
}
