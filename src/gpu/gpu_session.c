/*-------------------------------------------------------------------------
 *
 * gpu_session.c
 *	  The backend's CUDA session: lazy start, the session cap, the pinned
 *	  buffer pool, and gpusort_gpu_info().
 *
 * Both GPU engines (the sort, engine_gpu.c, and tree_reduce, tree_gpu.c)
 * go through this file for everything that belongs to the backend rather
 * than to one sort or one reduction.
 *
 * Lazy start.  A CUDA context does not survive fork(), so the postmaster
 * must never create one, and _PG_init (which runs in the postmaster when the
 * library is preloaded) makes no CUDA call.  CUDA is started by the first
 * piece of work in a backend that wants the GPU, and the context is kept for
 * the backend's life: starting it costs hundreds of milliseconds (about 300
 * on an H100 or an H200, test/gpu/results; gpusort_gpu_info() shows it as
 * first_use_ms), which later queries should not pay again.  The driver
 * starts threads of its own while it initializes; all signals are blocked
 * around that call, so that those threads inherit a full mask and never run
 * the backend's signal handlers.  A failed start (no driver, no device) is
 * remembered, and later work in the backend goes to the CPU without trying
 * again.
 *
 * Early start.  The first query of a session would wait for those hundreds
 * of milliseconds after reading its rows, where the sort needs the GPU; so
 * a sort that expects to use it calls gs_gpu_session_prestart() when the
 * executor starts, which runs the same start (device choice, slot, context)
 * on a helper thread, with every signal blocked, while the backend reads the
 * rows.  The helper touches nothing but this file's statics of the start
 * (the slot, the device) and the settings the backend read for it (a SET
 * meanwhile changes nothing under it); the backend reads what
 * it found only after joining it, which every entry point here does first
 * (await_early_start), and so does the backend's exit.  An early start that
 * found every slot taken is not remembered: the sort tries again.
 *
 * Device choice and session cap.  A backend uses one device, chosen when
 * it starts CUDA among those gpusort.devices allows (gpu_select.c: the
 * fewest gpusort sessions, then the most free memory), and keeps it.
 * gpusort.max_gpu_sessions bounds the backends holding a context on each
 * device, each of which costs device memory.  It must work without
 * shared_preload_libraries, so it uses no shared memory: slot i of device
 * d is the file $PGDATA/pg_gpusort/dev.d.slot.i, and a backend holds a
 * slot by holding flock(LOCK_EX) on it from its start of CUDA to its exit.
 * The kernel drops the lock when the process exits, however it exits, so a
 * crashed backend never leaks a slot; and the same files tell how many
 * sessions each device has (a held file refuses a shared lock).  A backend
 * that finds every slot of every allowed device taken works on the CPU,
 * and tries again next time (that is not remembered: a slot may have been
 * freed meanwhile).  Device ordinals are CUDA's, after
 * CUDA_VISIBLE_DEVICES, which the postmaster's environment sets for all.
 *
 * Pinned pool.  Host buffers that the device copies from or to are pinned
 * (page-locked), so that copies are asynchronous and run at full speed;
 * pinning is slow (the driver locks and maps every page), so a buffer given
 * back goes to a per-backend pool and the next request reuses it.  The reuse
 * rule: a request takes the smallest free buffer that is large enough; when
 * there is none, a new buffer is allocated with 1/8 more than asked for,
 * rounded up to 2 MB, so that a slightly larger request next time (the same
 * query with a few more rows) still finds it.  Free buffers are kept up to
 * GS_POOL_MAX_BYTES in all, the largest dropped first beyond that; when
 * pinning fails, every free buffer is dropped and the allocation tried once
 * more.  The pool has GS_POOL_SLOTS entries, free or lent.
 *
 * Nothing here throws: failures come back as a reason, and the caller
 * falls back to the CPU.  Built without CUDA (GPUSORT_NO_CUDA), only
 * gpusort_gpu_info() is here, and says so, with an empty early start: the
 * engines never start a session in that build.
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include <dirent.h>
#include <fcntl.h>
#include <signal.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include "access/htup_details.h"
#include "common/file_perm.h"
#include "fmgr.h"
#include "funcapi.h"
#include "miscadmin.h"
#include "port/atomics.h"
#include "portability/instr_time.h"
#include "storage/ipc.h"
#include "utils/builtins.h"

#include "runtime/gpu_select.h"
#include "gpu_session.h"
#include "runtime/settings.h"
#include "threads/threads.h"

#ifndef GPUSORT_NO_CUDA
#include "gpusort_kernels.h"
#endif

PG_FUNCTION_INFO_V1(gpusort_gpu_info);

#ifndef GPUSORT_NO_CUDA

/* free pinned buffers kept for reuse, at most this many bytes in all */
#define GS_POOL_MAX_BYTES	((Size) 2 * 1024 * 1024 * 1024)
#define GS_POOL_SLOTS		16
/* new pinned buffers are a multiple of this */
#define GS_POOL_ROUND		((Size) 2 * 1024 * 1024)

typedef enum GpuState
{
	GPU_UNTRIED,
	GPU_STARTING,				/* the early start's thread is at it */
	GPU_READY,
	GPU_FAILED
} GpuState;

/* what an attempt to start CUDA came to */
typedef enum StartOutcome
{
	START_READY,
	START_FAILED,				/* remembered: never tried again */
	START_LATER					/* may succeed later (every slot taken) */
} StartOutcome;

/* the settings a start reads, taken on the backend */
typedef struct StartSettings
{
	bool		allowed[GS_MAX_DEVICES];	/* gpusort.devices */
	int			max_sessions;	/* gpusort.max_gpu_sessions */
} StartSettings;

/* an early start (gs_gpu_session_prestart), while GPU_STARTING */
typedef struct EarlyStart
{
	pthread_t	thread;
	StartSettings settings;
	StartOutcome outcome;
	char		reason[128];
	double		ms;
	instr_time	began;			/* on the backend, as it made the thread */
	volatile sig_atomic_t done; /* the thread's last store */
} EarlyStart;

static GpuState gpu_state = GPU_UNTRIED;
static char gpu_failure[128];	/* why, when GPU_FAILED */
static GskDeviceInfo gpu_device;
static double gpu_start_ms;
static int	slot_fd = -1;
static int	slot_no = -1;		/* of the device in gpu_device */
static EarlyStart early;
static bool exit_hook_set = false;

typedef struct PinnedBuf
{
	void	   *p;				/* NULL: entry unused */
	Size		size;
	bool		lent;
} PinnedBuf;

static PinnedBuf pool[GS_POOL_SLOTS];

/* ---- session slots ---------------------------------------------------- */

static void
slot_path(char *path, int device, int i)
{
	snprintf(path, MAXPGPATH, "%s/pg_gpusort/dev.%d.slot.%d", DataDir, device, i);
}

/* $PGDATA/pg_gpusort, created on demand */
static bool
make_slot_dir(char *reason, size_t len)
{
	char		dir[MAXPGPATH];

	snprintf(dir, sizeof(dir), "%s/pg_gpusort", DataDir);
	if (mkdir(dir, pg_dir_create_mode) != 0 && errno != EEXIST)
	{
		snprintf(reason, len, "cannot create \"%s\": %m", dir);
		return false;
	}
	return true;
}

/*
 * Backends holding a slot of device, this one included: a slot file whose
 * shared lock cannot be had is held.  Every slot file counts, not only
 * those below the cap, as a backend keeps its slot when the cap is
 * lowered.  The probe holds a free slot for an instant, so a backend
 * taking a slot at that moment may pass over it: it takes the next one.
 */
int
gs_gpu_device_sessions(int device)
{
	char		dir[MAXPGPATH];
	DIR		   *d;
	struct dirent *e;
	int			held = 0;

	snprintf(dir, sizeof(dir), "%s/pg_gpusort", DataDir);
	if ((d = opendir(dir)) == NULL)
		return 0;
	while ((e = readdir(d)) != NULL)
	{
		char		path[MAXPGPATH];
		int			dev,
					i,
					end = 0,
					fd;

		if (sscanf(e->d_name, "dev.%d.slot.%d%n", &dev, &i, &end) != 2 ||
			e->d_name[end] != '\0' || dev != device)
			continue;
		slot_path(path, device, i);
		if ((fd = open(path, O_RDONLY | O_CLOEXEC | PG_BINARY)) < 0)
			continue;
		if (flock(fd, LOCK_SH | LOCK_NB) != 0)
			held++;
		close(fd);
	}
	closedir(d);
	return held;
}

/*
 * Takes a free slot of device, if it has one.  Slot files are created on
 * demand, so raising gpusort.max_gpu_sessions needs nothing else.
 */
static bool
take_slot(int device, int max_sessions, char *reason, size_t len)
{
	int			i;

	for (i = 0; i < max_sessions; i++)
	{
		char		path[MAXPGPATH];
		int			fd;

		slot_path(path, device, i);
		fd = open(path, O_RDWR | O_CREAT | O_CLOEXEC | PG_BINARY, pg_file_create_mode);
		if (fd < 0)
		{
			snprintf(reason, len, "cannot open \"%s\": %m", path);
			return false;
		}
		if (flock(fd, LOCK_EX | LOCK_NB) == 0)
		{
			slot_fd = fd;
			slot_no = i;
			return true;
		}
		close(fd);
	}
	return false;
}

static void
release_slot(void)
{
	if (slot_fd >= 0)
		close(slot_fd);
	slot_fd = -1;
	slot_no = -1;
}

/* ---- device choice ---------------------------------------------------- */

static void await_early_start(void);

/*
 * The visible devices' loads (at most GS_MAX_DEVICES of them) in
 * loads[], and their descriptions in infos[] when not NULL; the count, or
 * -1 with a reason when CUDA cannot tell (no driver, a broken one).  The
 * driver starts here, so signals are blocked as for gsk_init.  On the
 * early start's thread too: no palloc, no ereport.
 */
static int
devices_load(const StartSettings *set, GsDeviceLoad *loads, GskDeviceInfo *infos,
			 char *reason, size_t len)
{
	sigset_t	old;
	int			ndev = 0;
	int			rc;
	int			i;

	gs_block_signals(&old);
	rc = gsk_device_count(&ndev);
	ndev = rc == 0 ? Min(ndev, GS_MAX_DEVICES) : 0;
	for (i = 0; i < ndev; i++)
	{
		GskDeviceInfo info;

		loads[i].ordinal = i;
		loads[i].allowed = set->allowed[i];
		if (gsk_device_describe(i, &info) != 0)
		{
			/* a device the driver cannot describe is no candidate */
			memset(&info, 0, sizeof(info));
			info.device = i;
			snprintf(info.name, sizeof(info.name), "unusable: %s", gsk_last_error());
			loads[i].allowed = false;
		}
		loads[i].sessions = gs_gpu_device_sessions(i);
		loads[i].full = loads[i].sessions >= set->max_sessions;
		loads[i].free_bytes = info.free_mem;
		if (infos)
			infos[i] = info;
	}
	gs_restore_signals(&old);
	if (rc != 0)
	{
		gs_gpu_reason(reason, len, "no usable GPU", rc);
		return -1;
	}
	return ndev;
}

/* the settings now; false, with a reason, for a list that cannot be read */
static bool
current_settings(StartSettings *set, char *reason, size_t len)
{
	char		err[128];

	/* the check hook let only valid lists through */
	if (gs_parse_device_list(gpusort_devices ? gpusort_devices : "", set->allowed,
							 err, sizeof(err)) < 0)
	{
		snprintf(reason, len, "gpusort.devices: %s", err);
		return false;
	}
	set->max_sessions = gpusort_max_gpu_sessions;
	return true;
}

int
gs_gpu_devices_load(GsDeviceLoad *loads, GskDeviceInfo *infos,
					char *reason, size_t len)
{
	StartSettings set;

	/* the early start's thread may be in the driver */
	await_early_start();
	if (!current_settings(&set, reason, len))
		return -1;
	return devices_load(&set, loads, infos, reason, len);
}

/*
 * Chooses a device among loads[0..ndev) (gpu_select.c) and takes one of
 * its slots; when another backend took the last slot meanwhile, the next
 * best device.  The device's index in loads, or -1 with a reason.
 */
static int
take_device(GsDeviceLoad *loads, int ndev, int max_sessions, char *reason, size_t len)
{
	int			pass;

	for (pass = 0; pass <= ndev; pass++)
	{
		const char *why = NULL;
		int			i = gs_select_device(loads, ndev, &why);

		if (i < 0)
		{
			strlcpy(reason, why, len);
			return -1;
		}
		reason[0] = '\0';
		if (take_slot(loads[i].ordinal, max_sessions, reason, len))
			return i;
		if (reason[0] != '\0')
			return -1;			/* a slot file could not be opened */
		loads[i].full = true;
	}
	Assert(false);				/* every pass marks one more device full */
	return -1;
}

/* ---- CUDA start ------------------------------------------------------- */

/* gsk_init with every signal blocked */
static int
init_with_signals_blocked(int device)
{
	sigset_t	old;
	int			rc;

	gs_block_signals(&old);
	rc = gsk_init(device, &gpu_device);
	gs_restore_signals(&old);
	return rc;
}

static bool
any_allowed(const GsDeviceLoad *loads, int ndev)
{
	int			i;

	for (i = 0; i < ndev; i++)
		if (loads[i].allowed)
			return true;
	return false;
}

/*
 * One attempt to start CUDA: the device choice, a slot and the context,
 * with set's settings, on the backend or on the early start's thread (so
 * nothing here may palloc or ereport, nor touch the state but the slot and
 * gpu_device).  *ms: what it took, the device choice included, since the
 * first use pays that too.
 */
static StartOutcome
try_start(const StartSettings *set, char *reason, size_t len, double *ms)
{
	GsDeviceLoad loads[GS_MAX_DEVICES];
	char		init_failure[128] = "";
	instr_time	t0,
				t1;
	int			ndev;

	if (!make_slot_dir(reason, len))
		return START_LATER;
	INSTR_TIME_SET_CURRENT(t0);
	ndev = devices_load(set, loads, NULL, reason, len);
	if (ndev < 0)
		return START_FAILED;

	/*
	 * A device that cannot start a context (taken in exclusive mode by
	 * another process, broken) is passed over for the next best one; when
	 * every allowed device has failed so, the failure is remembered.
	 */
	for (;;)
	{
		int			i = take_device(loads, ndev, set->max_sessions, reason, len);

		if (i < 0 && ndev == 0)
			return START_FAILED;
		if (i < 0 && init_failure[0] != '\0' && !any_allowed(loads, ndev))
		{
			strlcpy(reason, init_failure, len);
			return START_FAILED;
		}
		if (i < 0)
			return START_LATER;
		if (init_with_signals_blocked(loads[i].ordinal) == 0)
			break;
		gs_gpu_reason(init_failure, sizeof(init_failure), "no usable GPU", -1);
		release_slot();
		loads[i].allowed = false;
	}
	INSTR_TIME_SET_CURRENT(t1);
	INSTR_TIME_SUBTRACT(t1, t0);
	*ms = INSTR_TIME_GET_MILLISEC(t1);
	return START_READY;
}

/*
 * What an attempt came to becomes the backend's state: a failure is
 * remembered, and later work in this backend goes to the CPU at once.
 * Returns whether the GPU is ready.
 */
static bool
settle_start(StartOutcome outcome, const char *reason, double ms)
{
	switch (outcome)
	{
		case START_READY:
			gpu_start_ms = ms;
			gpu_state = GPU_READY;
			return true;
		case START_FAILED:
			strlcpy(gpu_failure, reason, sizeof(gpu_failure));
			gpu_state = GPU_FAILED;
			release_slot();
			return false;
		case START_LATER:
			gpu_state = GPU_UNTRIED;
			return false;
	}
	return false;
}

/* may this backend start CUDA at all, now?  If not, why */
static bool
start_allowed(char *reason, size_t len)
{
	if (IsPostmasterEnvironment && !IsUnderPostmaster)
	{
		/* the postmaster: its children could not use an inherited context */
		strlcpy(reason, "CUDA is never started in the postmaster", len);
		return false;
	}
	if (gpusort_max_gpu_sessions <= 0)
	{
		strlcpy(reason, "gpusort.max_gpu_sessions = 0", len);
		return false;
	}
	return true;
}

static void *
early_start_main(void *arg)
{
	EarlyStart *e = (EarlyStart *) arg;

	e->outcome = try_start(&e->settings, e->reason, sizeof(e->reason), &e->ms);
	pg_memory_barrier();
	e->done = true;
	return NULL;
}

/* the early start, if one is under way, is over and settled */
static void
await_early_start(void)
{
	if (gpu_state != GPU_STARTING)
		return;
	if (pthread_join(early.thread, NULL) != 0)
	{
		/* cannot happen for a joinable thread; the start is not trusted */
		early.outcome = START_FAILED;
		strlcpy(early.reason, "the CUDA start's thread could not be joined",
				sizeof(early.reason));
	}
	(void) settle_start(early.outcome, early.reason, early.ms);
}

/* the backend does not exit while the early start is in the driver */
static void
await_at_exit(int code, Datum arg)
{
	await_early_start();
}

void
gs_gpu_session_prestart(void)
{
	char		reason[128];

	if (gpu_state != GPU_UNTRIED || !start_allowed(reason, sizeof(reason)) ||
		!current_settings(&early.settings, reason, sizeof(reason)))
		return;
	if (!exit_hook_set)
	{
		on_proc_exit(await_at_exit, (Datum) 0);
		exit_hook_set = true;
	}
	/* no thread: the start happens where the GPU is first needed */
	early.done = false;
	INSTR_TIME_SET_CURRENT(early.began);
	if (gs_start_threads(&early.thread, 1, early_start_main, &early, 0) == 1)
		gpu_state = GPU_STARTING;
}

bool
gs_gpu_session_starting(double *elapsed_ms)
{
	instr_time	now;

	if (gpu_state != GPU_STARTING || early.done)
		return false;
	INSTR_TIME_SET_CURRENT(now);
	INSTR_TIME_SUBTRACT(now, early.began);
	*elapsed_ms = INSTR_TIME_GET_MILLISEC(now);
	return true;
}

bool
gs_gpu_session_start(char *reason, size_t len)
{
	StartSettings set;
	StartOutcome outcome;
	double		ms = 0;

	await_early_start();
	if (gpu_state == GPU_READY)
		return true;
	if (gpu_state == GPU_FAILED)
	{
		strlcpy(reason, gpu_failure, len);
		return false;
	}
	if (!start_allowed(reason, len))
		return false;
	outcome = current_settings(&set, reason, len) ?
		try_start(&set, reason, len, &ms) : START_FAILED;
	return settle_start(outcome, reason, ms);
}

const struct GskDeviceInfo *
gs_gpu_session_device(void)
{
	await_early_start();
	return gpu_state == GPU_READY ? &gpu_device : NULL;
}

int
gs_gpu_session_slot(void)
{
	await_early_start();
	return slot_no;
}

/* ---- pinned buffer pool ----------------------------------------------- */

/* drops free buffers, the largest first, until at most limit bytes are free */
static void
pool_trim(Size limit)
{
	for (;;)
	{
		Size		cached = 0;
		int			largest = -1;
		int			i;

		for (i = 0; i < GS_POOL_SLOTS; i++)
		{
			if (pool[i].p && !pool[i].lent)
			{
				cached += pool[i].size;
				if (largest < 0 || pool[i].size > pool[largest].size)
					largest = i;
			}
		}
		if (cached <= limit || largest < 0)
			return;
		gsk_host_free(pool[largest].p);
		pool[largest].p = NULL;
		pool[largest].size = 0;
	}
}

/* the smallest free buffer of at least bytes, or -1 */
static int
pool_best_fit(Size bytes)
{
	int			best = -1;
	int			i;

	for (i = 0; i < GS_POOL_SLOTS; i++)
	{
		if (pool[i].p && !pool[i].lent && pool[i].size >= bytes &&
			(best < 0 || pool[i].size < pool[best].size))
			best = i;
	}
	return best;
}

/* an unused pool entry, dropping every free buffer if need be, or -1 */
static int
pool_unused_entry(void)
{
	int			pass;
	int			i;

	for (pass = 0; pass < 2; pass++)
	{
		for (i = 0; i < GS_POOL_SLOTS; i++)
			if (pool[i].p == NULL)
				return i;
		/* none fits the request anyway: make room */
		pool_trim(0);
	}
	return -1;
}

void *
gs_pinned_get(Size bytes, char *reason, size_t len)
{
	int			i;
	int			rc;
	void	   *p;

	Assert(gpu_state == GPU_READY);
	i = pool_best_fit(bytes);
	if (i >= 0)
	{
		pool[i].lent = true;
		return pool[i].p;
	}

	i = pool_unused_entry();
	if (i < 0)
	{
		strlcpy(reason, "too many pinned buffers in use", len);
		return NULL;
	}
	bytes = TYPEALIGN(GS_POOL_ROUND, bytes + bytes / 8);
	rc = gsk_host_alloc(&p, bytes);
	if (rc != 0)
	{
		/* free cached buffers and try once more */
		pool_trim(0);
		rc = gsk_host_alloc(&p, bytes);
	}
	if (rc != 0)
	{
		gs_gpu_reason(reason, len, "cannot allocate pinned host memory", rc);
		return NULL;
	}
	pool[i].p = p;
	pool[i].size = bytes;
	pool[i].lent = true;
	return p;
}

void
gs_pinned_put(void *p)
{
	int			i;

	if (p == NULL)
		return;
	for (i = 0; i < GS_POOL_SLOTS; i++)
	{
		if (pool[i].p == p)
		{
			pool[i].lent = false;
			break;
		}
	}
	Assert(i < GS_POOL_SLOTS);
	pool_trim(GS_POOL_MAX_BYTES);
}

void
gs_gpu_reason(char *reason, size_t len, const char *what, int rc)
{
	if (rc != 0)
		snprintf(reason, len, "%s: %s", what, gsk_last_error());
	else
		strlcpy(reason, what, len);
}

#else							/* GPUSORT_NO_CUDA */

void
gs_gpu_session_prestart(void)
{
}

bool
gs_gpu_session_starting(double *elapsed_ms)
{
	return false;
}

#endif							/* GPUSORT_NO_CUDA */

/*
 * gpusort_gpu_info(start boolean DEFAULT false) -> record
 *
 * What this backend knows about the GPU it uses.  With start = true, CUDA
 * is started first (if it was not), so first_use_ms measures what the first
 * GPU work of a session pays.  Every device, and the sessions on each, is
 * gpusort_gpu_devices() (gpu_devices.c).
 */
Datum
gpusort_gpu_info(PG_FUNCTION_ARGS)
{
	bool		start = PG_ARGISNULL(0) ? false : PG_GETARG_BOOL(0);
	TupleDesc	tupdesc;
	Datum		values[11];
	bool		nulls[11];
	const char *status;

	if (get_call_result_type(fcinfo, NULL, &tupdesc) != TYPEFUNC_COMPOSITE)
		ereport(ERROR,
				(errcode(ERRCODE_FEATURE_NOT_SUPPORTED),
				 errmsg("function returning record called in context that cannot accept type record")));
	memset(nulls, true, sizeof(nulls));

#ifdef GPUSORT_NO_CUDA
	(void) start;
	values[0] = BoolGetDatum(false);
	values[1] = BoolGetDatum(false);
	nulls[0] = nulls[1] = false;
	status = "built without CUDA";
#else
	await_early_start();
	if (start && gpu_state == GPU_UNTRIED)
	{
		char		reason[128];

		if (!gs_gpu_session_start(reason, sizeof(reason)))
			ereport(NOTICE,
					(errmsg("gpusort: the GPU cannot be used"),
					 errdetail("%s", reason)));
	}
	values[0] = BoolGetDatum(true);
	values[1] = BoolGetDatum(gpu_state == GPU_READY);
	nulls[0] = nulls[1] = false;
	if (slot_no >= 0)
	{
		values[2] = Int32GetDatum(slot_no);
		nulls[2] = false;
	}
	if (gpu_state == GPU_READY)
	{
		size_t		free_mem = 0,
					total_mem = 0;
		char		cc[32];

		(void) gsk_mem_info(&free_mem, &total_mem);
		snprintf(cc, sizeof(cc), "%d.%d", gpu_device.cc_major, gpu_device.cc_minor);
		values[3] = CStringGetTextDatum(gpu_device.name);
		values[4] = CStringGetTextDatum(cc);
		values[5] = Int32GetDatum(gpu_device.sm_count);
		values[6] = Int64GetDatum((int64) (total_mem / (1024 * 1024)));
		values[7] = Int64GetDatum((int64) (free_mem / (1024 * 1024)));
		values[8] = Float8GetDatum(gpu_start_ms);
		values[10] = Int32GetDatum(gpu_device.device);
		nulls[3] = nulls[4] = nulls[5] = nulls[6] = nulls[7] = nulls[8] = false;
		nulls[10] = false;
		status = "ready";
	}
	else if (gpu_state == GPU_FAILED)
		status = gpu_failure;
	else
		status = "not started in this backend";
#endif
	values[9] = CStringGetTextDatum(status);
	nulls[9] = false;

	PG_RETURN_DATUM(HeapTupleGetDatum(heap_form_tuple(tupdesc, values, nulls)));
}
