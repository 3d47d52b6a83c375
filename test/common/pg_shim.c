/*
 * pg_shim.c
 *	  A stand-in for the backend symbols that src/sort/engine/engine*.c,
 *	  src/gpu/gpu_session.c and src/tree/tree_gpu.c use, so that the standalone
 *	  tests of test/sort/cpu/ and test/tree/cpu/ can link them outside the
 *	  server.
 *
 * Memory is malloc'ed and never runs out (an allocation that fails aborts
 * the test).  There is one memory context: its reset callbacks run when the
 * test calls pg_shim_reset_context(), as the executor's reset of a node's
 * context would, also after an ERROR.  Errors behave as elog.c's do: an
 * ERROR, or a cancel served by ProcessInterrupts, longjmps to the innermost
 * PG_exception_stack, which the test sets around the call it makes (an
 * ERROR with none set aborts the test); WARNINGs are counted.  The GUCs of
 * settings.h hold the values the tests start from: the GPU required, the
 * session cap at 8.
 *
 * Needs nothing but the C library: test/sort/cpu/engine_cpu.sh links it without
 * libpgport.
 */
#include "postgres.h"

#include <dirent.h>
#include <setjmp.h>
#include <unistd.h>

#include "access/htup_details.h"
#include "fmgr.h"
#include "funcapi.h"
#include "miscadmin.h"
#include "storage/ipc.h"
#include "utils/memutils.h"

#include "intake/blockpool.h"
#include "base/compat.h"
#include "pg_shim.h"
#include "runtime/settings.h"

/* the C library's, not port.h's replacements */
#undef fprintf
#undef printf
#undef snprintf
#undef vsnprintf

MemoryContext CurrentMemoryContext = (MemoryContext) 1;
volatile sig_atomic_t InterruptPending = false;
volatile sig_atomic_t QueryCancelPending = false;
volatile sig_atomic_t ProcDiePending = false;
volatile uint32 InterruptHoldoffCount = 0;
volatile uint32 QueryCancelHoldoffCount = 0;
volatile uint32 CritSectionCount = 0;
sigjmp_buf *PG_exception_stack = NULL;
ErrorContextCallback *error_context_stack = NULL;
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
char	   *gpusort_devices = "";
int			gpusort_gpu_max_run_rows = 0;
int			gpusort_cpu_threads = 1;
int			gpusort_parallel = 1;
bool		gpusort_copy_rows = true;

/* the tests' processes exit without proc_exit: nothing to run then */
void
on_proc_exit(pg_on_exit_callback function, Datum arg)
{
}

Size
gpusort_memory_budget(void)
{
	return (Size) gpusort_max_memory * 1024;
}

int
gpusort_threads(void)
{
	return gpusort_cpu_threads;
}

int			pg_shim_warnings = 0;
int			pg_shim_errors = 0;
int			pg_shim_cancels = 0;
int			pg_shim_benign = 0;
char		pg_shim_last_msg[512];

Datum		pg_shim_info_values[PG_SHIM_INFO_NATTS];
bool		pg_shim_info_nulls[PG_SHIM_INFO_NATTS];

static int	cur_elevel;
static MemoryContextCallback *callbacks[64];
static int	ncallbacks = 0;

/* ---- memory ------------------------------------------------------------- */

static void *
xmalloc(size_t size)
{
	void	   *p = malloc(size ? size : 1);

	if (p == NULL)
		abort();
	return p;
}

void *
palloc(Size size)
{
	return xmalloc(size);
}

void *
palloc0(Size size)
{
	return memset(xmalloc(size), 0, size);
}

void *
MemoryContextAllocHuge(MemoryContext context, Size size)
{
	return xmalloc(size);
}

void *
MemoryContextAllocZero(MemoryContext context, Size size)
{
	return palloc0(size);
}

char *
MemoryContextStrdup(MemoryContext context, const char *string)
{
	return strcpy(xmalloc(strlen(string) + 1), string);
}

void *
repalloc_huge(void *pointer, Size size)
{
	void	   *p = realloc(pointer, size ? size : 1);

	if (p == NULL)
		abort();
	return p;
}

void
pfree(void *pointer)
{
	free(pointer);
}

/* blockpool.c's scratch arrays: outside the server, no pool */
void *
gs_pool_alloc(MemoryContext context, Size size)
{
	return xmalloc(size);
}

void
gs_pool_free(void *pointer)
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

void
pg_shim_reset_context(void)
{
	while (ncallbacks > 0)
	{
		MemoryContextCallback *cb = callbacks[--ncallbacks];

		cb->func(cb->arg);
	}
}

/* ---- errors and interrupts ----------------------------------------------- */

/* back to the innermost PG_TRY, as elog.c does */
void
pg_re_throw(void)
{
	if (PG_exception_stack == NULL)
	{
		fprintf(stderr, "ERROR with no handler: %s\n", pg_shim_last_msg);
		abort();
	}
	siglongjmp(*PG_exception_stack, 1);
}

/*
 * As the backend's: a pending cancel throws; any other interrupt (a
 * parallel worker's message, a barrier) is served and returns.
 */
void
ProcessInterrupts(void)
{
	InterruptPending = false;
	if (!QueryCancelPending && !ProcDiePending)
	{
		pg_shim_benign++;
		return;
	}
	QueryCancelPending = false;
	pg_shim_cancels++;
	snprintf(pg_shim_last_msg, sizeof(pg_shim_last_msg),
			 "canceling statement due to user request");
	pg_re_throw();
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
	vsnprintf(pg_shim_last_msg, sizeof(pg_shim_last_msg), fmt, ap);
	va_end(ap);
	return 0;
}

/* nothing is translated here: the same function */
int			errmsg_internal(const char *fmt,...) __attribute__((alias("errmsg")));

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
	if (cur_elevel >= FATAL)
	{
		fprintf(stderr, "FATAL: %s\n", pg_shim_last_msg);
		abort();
	}
	if (cur_elevel >= ERROR)
	{
		pg_shim_errors++;
		pg_re_throw();
	}
	if (cur_elevel == WARNING)
		pg_shim_warnings++;
}

void
ExceptionalCondition(GS_EXCEPTIONAL_CONDITION_PARAMS)
{
	fprintf(stderr, "assertion %s failed at %s:%d\n", conditionName, fileName, lineNumber);
	abort();
}

/* ---- what gpusort_gpu_info() needs to form its row ------------------------ */

Datum
HeapTupleHeaderGetDatum(HeapTupleHeader tuple)
{
	return (Datum) 0;
}

text *
cstring_to_text(const char *s)
{
	return (text *) MemoryContextStrdup(CurrentMemoryContext, s);
}

TypeFuncClass
get_call_result_type(FunctionCallInfo fcinfo, Oid *resultTypeId, TupleDesc *resultTupleDesc)
{
	*resultTupleDesc = NULL;
	return TYPEFUNC_COMPOSITE;
}

HeapTuple
heap_form_tuple(GS_HEAP_FORM_TUPLE_PARAMS)
{
	static HeapTupleData tuple;

	memcpy(pg_shim_info_values, values, sizeof(pg_shim_info_values));
	memcpy(pg_shim_info_nulls, isnull, sizeof(pg_shim_info_nulls));
	return &tuple;
}

/* ---- DataDir ---------------------------------------------------------------- */

void
pg_shim_datadir_create(const char *name)
{
	static char dir[MAXPGPATH];

	snprintf(dir, sizeof(dir), "/tmp/%s.XXXXXX", name);
	DataDir = mkdtemp(dir);
	if (DataDir == NULL)
	{
		perror("mkdtemp");
		abort();
	}
}

void
pg_shim_datadir_remove(void)
{
	char		p[MAXPGPATH];
	DIR		   *d;
	struct dirent *e;

	snprintf(p, sizeof(p), "%s/pg_gpusort", DataDir);
	if ((d = opendir(p)) != NULL)
	{
		while ((e = readdir(d)) != NULL)
		{
			char		f[MAXPGPATH + 256];

			if (strcmp(e->d_name, ".") == 0 || strcmp(e->d_name, "..") == 0)
				continue;
			snprintf(f, sizeof(f), "%s/%s", p, e->d_name);
			unlink(f);
		}
		closedir(d);
		rmdir(p);
	}
	rmdir(DataDir);
}
