/*-------------------------------------------------------------------------
 *
 * settings.c
 *	  gpusort's settings (the gpusort.* GUCs that both halves read) and how
 *	  their automatic values resolve.
 *
 * Every part reads its settings here and none calls back into the module
 * entry (gpusort.c), which defines them first in _PG_init; a part's own
 * tree_reduce.c defines its own (gpusort.tree_*).  A
 * value of -1 or 0 that means "let gpusort choose" is resolved by a getter
 * (gpusort_memory_budget, gpusort_threads, ...), so that every part
 * resolves it alike; gpusort_memory() shows the resolved memory budgets.
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include <limits.h>
#include <unistd.h>

#include "fmgr.h"
#include "funcapi.h"
#include "miscadmin.h"
#include "storage/bufmgr.h"
#include "utils/builtins.h"
#include "utils/guc.h"

#include "gpu_select.h"
#include "memaccount.h"
#include "membudget.h"
#include "settings.h"

bool		gpusort_enabled = true;
int			gpusort_device = GS_DEVICE_AUTO;
int			gpusort_min_rows = 10000;
int			gpusort_max_memory = -1;	/* kB; -1: a share of what is available */
int			gpusort_max_total_memory = -1;	/* kB; -1: a share of what is available */
int			gpusort_parallel = GS_PARALLEL_AUTO;
bool		gpusort_copy_rows = true;
bool		gpusort_window_functions = true;
bool		gpusort_aggregates = true;
bool		gpusort_sorted_grouping = true;
int			gpusort_max_gpu_sessions = 8;
char	   *gpusort_devices = NULL;	/* '': every visible device */
int			gpusort_gpu_max_run_rows = 0;
int			gpusort_cpu_threads = 0;	/* 0: the machine's cores */
bool		gpusort_debug_scramble_keys = false;
bool		gpusort_dict_ranks = true;
bool		gpusort_refine_ties = true;

static const struct config_enum_entry parallel_options[] = {
	{"auto", GS_PARALLEL_AUTO, false},
	{"on", GS_PARALLEL_ON, false},
	{"off", GS_PARALLEL_OFF, false},
	{"true", GS_PARALLEL_ON, true},
	{"false", GS_PARALLEL_OFF, true},
	{"yes", GS_PARALLEL_ON, true},
	{"no", GS_PARALLEL_OFF, true},
	{"1", GS_PARALLEL_ON, true},
	{"0", GS_PARALLEL_OFF, true},
	{NULL, 0, false}
};

static const struct config_enum_entry device_options[] = {
	{"auto", GS_DEVICE_AUTO, false},
	{"gpu", GS_DEVICE_GPU, false},
	{"cpu", GS_DEVICE_CPU, false},
	{NULL, 0, false}
};

/*
 * The memory the server may use: its cgroup's limit where it has one (a
 * container, a systemd unit with MemoryMax), else the machine's memory;
 * minus shared_buffers, which the server holds anyway.  Under
 * gpusort.max_memory = -1 one sort may use GS_MEMORY_SHARE of it: large
 * enough for the sorts a server's analysts run, small enough to leave other
 * sessions their room; under gpusort.max_total_memory = -1 all GpuSorts
 * together may hold GS_TOTAL_SHARE of it, which leaves the rest to
 * PostgreSQL's own memory (work_mem of the other nodes, the page cache)
 * when several sorts run at once.  Read once per process: the limits of a
 * running server's cgroup rarely change, and the planner asks often.
 */
#define GS_MEMORY_SHARE		4
#define GS_TOTAL_SHARE		2
#define GS_MEMORY_FALLBACK	((Size) 4 * 1024 * 1024 * 1024)

/* under gpusort.cpu_threads = 0, at most this many threads */
#define GS_MAX_AUTO_THREADS	16

static Size
physical_memory(void)
{
	long		pages = sysconf(_SC_PHYS_PAGES);
	long		pagesize = sysconf(_SC_PAGESIZE);

	if (pages <= 0 || pagesize <= 0)
		return GS_MEMORY_FALLBACK;
	return (Size) pages * (Size) pagesize;
}

/*
 * The memory available to the server (cgroup limit or physical memory,
 * less shared_buffers); source and detail, if not NULL, say where it came
 * from
 */
static Size
gpusort_available_memory(const char **source, const char **detail)
{
	static bool done = false;
	static Size avail;
	static GsMemLimit cg;
	static char what[600];

	if (!done)
	{
		Size		ram = physical_memory();
		Size		limit = ram;
		Size		sb = (Size) NBuffers * BLCKSZ;

		gs_mem_cgroup_limit("", &cg);
		if (cg.source != GS_MEM_NONE && cg.bytes < ram)
		{
			limit = (Size) cg.bytes;
			snprintf(what, sizeof(what), "%s (%s) less shared_buffers", cg.path,
					 gs_mem_source_name(cg.source));
		}
		else
		{
			cg.source = GS_MEM_NONE;
			strlcpy(what, "the machine's memory less shared_buffers", sizeof(what));
		}
		/* shared_buffers larger than half the limit: count half the limit */
		avail = (limit > 2 * sb) ? limit - sb : limit / 2;
		done = true;
	}
	if (source)
		*source = cg.source == GS_MEM_NONE ? "physical memory" : gs_mem_source_name(cg.source);
	if (detail)
		*detail = what;
	return avail;
}

Size
gpusort_memory_budget(void)
{
	if (gpusort_max_memory > 0)
		return (Size) gpusort_max_memory * 1024;
	return gpusort_available_memory(NULL, NULL) / GS_MEMORY_SHARE;
}

Size
gpusort_total_memory_limit(void)
{
	if (gpusort_max_total_memory > 0)
		return (Size) gpusort_max_total_memory * 1024;
	return gpusort_available_memory(NULL, NULL) / GS_TOTAL_SHARE;
}

/*
 * Under gpusort.parallel = auto, the parallel node needs this many cores:
 * its participants and their helper threads each want one, and on a small
 * machine storing rows in shared memory costs more than the workers save
 * (2 cores, bench/demo: 0.97-1.5x of stock with it, 1.02-2.2x without;
 * 16 cores: 4-7x of tuned stock with it).
 */
#define GS_PARALLEL_MIN_CPUS	8

/*
 * The machine's online cores, read once per backend: glibc's sysconf reads
 * a file in /sys for it, and the planner asks for every statement.
 */
static int
online_cpus(void)
{
	static int	ncpu = 0;

	if (ncpu == 0)
	{
		long		n = sysconf(_SC_NPROCESSORS_ONLN);

		ncpu = (n < 1) ? 1 : (int) Min(n, INT_MAX);
	}
	return ncpu;
}

bool
gpusort_parallel_enabled(void)
{
	if (gpusort_parallel == GS_PARALLEL_AUTO)
		return online_cpus() >= GS_PARALLEL_MIN_CPUS;
	return gpusort_parallel == GS_PARALLEL_ON;
}

int
gpusort_threads(void)
{
	if (gpusort_cpu_threads > 0)
		return gpusort_cpu_threads;
	return Min(online_cpus(), GS_MAX_AUTO_THREADS);
}

/* one row of gpusort_memory(); bytes SIZE_MAX: NULL */
static void
memory_row(ReturnSetInfo *rsinfo, const char *name, Size bytes, const char *detail)
{
	Datum		values[3];
	bool		nulls[3] = {false, bytes == SIZE_MAX, false};

	values[0] = CStringGetTextDatum(name);
	values[1] = Int64GetDatum((int64) Min(bytes, (Size) PG_INT64_MAX));
	values[2] = CStringGetTextDatum(detail);
	tuplestore_putvalues(rsinfo->setResult, rsinfo->setDesc, values, nulls);
}

PG_FUNCTION_INFO_V1(gpusort_memory);

/*
 * gpusort_memory(): the budgets, where they come from, and what the
 * server's GpuSorts hold now (all sessions, and this one).
 */
Datum
gpusort_memory(PG_FUNCTION_ARGS)
{
	ReturnSetInfo *rsinfo = (ReturnSetInfo *) fcinfo->resultinfo;
	const char *source;
	const char *detail;
	Size		avail = gpusort_available_memory(&source, &detail);
	Size		shm_size;
	char		buf[700];

	InitMaterializedSRF(fcinfo, 0);
	snprintf(buf, sizeof(buf), "%s: %s", source, detail);
	memory_row(rsinfo, "available", avail, buf);
	memory_row(rsinfo, "max_memory", gpusort_memory_budget(),
			   gpusort_max_memory > 0 ? "gpusort.max_memory: one sort" :
			   "gpusort.max_memory = -1: one sort, a quarter of available");
	memory_row(rsinfo, "max_total_memory", gpusort_total_memory_limit(),
			   gpusort_max_total_memory > 0 ? "gpusort.max_total_memory: all sorts" :
			   "gpusort.max_total_memory = -1: all sorts, half of available");
	memory_row(rsinfo, "reserved", gs_account_total(GS_ACCT_MEM),
			   "all sessions, now");
	memory_row(rsinfo, "reserved_session", gs_account_session(GS_ACCT_MEM),
			   "this session, now");
	(void) gs_shm_free(&shm_size);
	memory_row(rsinfo, "shm_size", shm_size, "/dev/shm, for POSIX dynamic shared memory");
	memory_row(rsinfo, "shm_max_total", gs_shm_limit(),
			   "of /dev/shm, what all parallel sorts may reserve");
	memory_row(rsinfo, "shm_reserved", gs_account_total(GS_ACCT_SHM),
			   "of /dev/shm, all sessions, now");
	memory_row(rsinfo, "gpu_reserved", gs_account_total(GS_ACCT_DEV),
			   "GPU memory, all sessions, now");
	memory_row(rsinfo, "account", SIZE_MAX, gs_account_where());
	return (Datum) 0;
}

/* gpusort.max_memory, gpusort.max_total_memory: -1, or at least 1MB */
static bool
check_max_memory(int *newval, void **extra, GucSource source)
{
	if (*newval == -1 || *newval >= 1024)
		return true;
	GUC_check_errdetail("The value must be -1 (a share of the memory available to the server) or at least 1MB.");
	return false;
}

/* gpusort.devices: '' or a list of distinct ordinals (gpu_select.c) */
static bool
check_devices(char **newval, void **extra, GucSource source)
{
	char		err[128];

	if (gs_parse_device_list(*newval, NULL, err, sizeof(err)) >= 0)
		return true;
	GUC_check_errdetail("%s", err);
	GUC_check_errhint("gpusort.devices is empty (every visible device) or a comma-separated list of CUDA device ordinals, such as '0,2'.");
	return false;
}
/* the settings of the keys: ranks, refinement, the check's test hook */
static void
define_key_settings(void)
{
	DefineCustomBoolVariable("gpusort.dict_ranks",
							 "Keys sort columns of few distinct values by their rank among them.",
							 "The distinct values are ordered once by the column's comparator: the column is exact, and the next ones fit in the key.",
							 &gpusort_dict_ranks,
							 true,
							 PGC_USERSET,
							 0,
							 NULL, NULL, NULL);

	DefineCustomBoolVariable("gpusort.refine_ties",
							 "Settles rows whose string key prefixes tie from the next bytes of the same transform.",
							 "Off: PostgreSQL's comparators settle every such row.",
							 &gpusort_refine_ties,
							 true,
							 PGC_USERSET,
							 0,
							 NULL, NULL, NULL);

	DefineCustomBoolVariable("gpusort.debug_scramble_keys",
							 "Developer setting: after the engine's sort, swaps two rows whose strxfrm prefixes differ, so that the check of a libc collation's order must find and repair them.",
							 NULL,
							 &gpusort_debug_scramble_keys,
							 false,
							 PGC_USERSET,
							 GUC_NOT_IN_SAMPLE,
							 NULL, NULL, NULL);
}

/* what is sorted where: the planner's and the executor's choices */
static void
define_plan_settings(void)
{
	DefineCustomBoolVariable("gpusort.enabled",
							 "Replaces Sort plan nodes by GpuSort.",
							 NULL,
							 &gpusort_enabled,
							 true,
							 PGC_USERSET, 0,
							 NULL, NULL, NULL);

	DefineCustomEnumVariable("gpusort.device",
							 "Selects where gpusort sorts and reduces trees.",
							 "auto uses the GPU when one is usable and the CPU otherwise; "
							 "gpu asks for the GPU (falling back to the CPU with a warning); "
							 "cpu never uses the GPU.",
							 &gpusort_device,
							 GS_DEVICE_AUTO,
							 device_options,
							 PGC_USERSET, 0,
							 NULL, NULL, NULL);

	DefineCustomIntVariable("gpusort.min_rows",
							"Sorts estimated to have fewer rows keep the stock Sort node.",
							"0 puts GpuSort in place of every Sort.",
							&gpusort_min_rows,
							10000, 0, INT_MAX,
							PGC_USERSET, 0,
							NULL, NULL, NULL);

}

/* how much memory, which GPUs and how many threads */
static void
define_resource_settings(void)
{
	DefineCustomIntVariable("gpusort.max_memory",
							"Largest memory one GpuSort may use for its rows and keys.",
							"-1 means a quarter of the memory available to the server (its "
							"cgroup's limit, else the machine's memory, less shared_buffers).  "
							"A sort that needs more writes sorted runs to temp files and "
							"merges them.",
							&gpusort_max_memory,
							-1, -1, INT_MAX,
							PGC_USERSET, GUC_UNIT_KB,
							check_max_memory, NULL, NULL);

	DefineCustomIntVariable("gpusort.max_total_memory",
							"Largest memory all GpuSorts of the server may hold at once.",
							"-1 means half the memory available to the server (its cgroup's "
							"limit, else the machine's memory, less shared_buffers).  A sort "
							"that cannot reserve its memory from this falls back to "
							"PostgreSQL's tuplesort within work_mem.",
							&gpusort_max_total_memory,
							-1, -1, INT_MAX,
							PGC_SUSET, GUC_UNIT_KB,
							check_max_memory, NULL, NULL);

	DefineCustomEnumVariable("gpusort.parallel",
							 "Lets parallel workers store the rows of a GpuSort in shared memory.",
							 "Where the plan below a sort is parallel, the workers and the "
							 "leader store their rows and keys in shared memory and the "
							 "leader sorts them all at once.  auto does so on machines of "
							 "8 cores or more.",
							 &gpusort_parallel,
							 GS_PARALLEL_AUTO,
							 parallel_options,
							 PGC_USERSET, 0,
							 NULL, NULL, NULL);

	DefineCustomIntVariable("gpusort.max_gpu_sessions",
							"Largest number of backends that hold a CUDA context on one GPU at once.",
							"The cap is per device.  A backend whose devices are all at "
							"the cap uses the CPU engines.",
							&gpusort_max_gpu_sessions,
							8, 0, 1024,
							PGC_SUSET, 0,
							NULL, NULL, NULL);

	DefineCustomStringVariable("gpusort.devices",
							   "CUDA devices gpusort may use, as a comma-separated list of ordinals.",
							   "Empty means every device visible to the server (after "
							   "CUDA_VISIBLE_DEVICES).  A backend picks its device when it "
							   "first starts CUDA, the allowed device with the fewest gpusort "
							   "sessions and then the most free memory, and keeps it for its "
							   "life.",
							   &gpusort_devices,
							   "",
							   PGC_SUSET, 0,
							   check_devices, NULL, NULL);

	DefineCustomIntVariable("gpusort.cpu_threads",
							"CPU threads one GpuSort may use to sort on the CPU.",
							"0 means the machine's cores (at most 16).  A large sort "
							"shares its buckets, key building and gathering out among "
							"this many threads.",
							&gpusort_cpu_threads,
							0, 0, 64,
							PGC_USERSET, 0,
							NULL, NULL, NULL);

}

/* the nodes computed over a GpuSort's rows: windows and aggregates */
static void
define_window_settings(void)
{
	DefineCustomBoolVariable("gpusort.window_functions",
							 "Computes window functions over a GpuSort in a GpuWindow node.",
							 "A WindowAgg directly over a GpuSort whose functions and frame "
							 "GpuWindow supports is replaced by it; off keeps every WindowAgg.",
							 &gpusort_window_functions,
							 true,
							 PGC_USERSET, 0,
							 NULL, NULL, NULL);

	DefineCustomBoolVariable("gpusort.aggregates",
							 "Computes aggregates that sort in a GpuAgg node over one GpuSort.",
							 "An Agg whose aggregates all are count, sum or avg (DISTINCT x), "
							 "percentile_cont, percentile_disc, mode, string_agg or array_agg "
							 "(ORDER BY y), or counts, sorting one column, is replaced by it; "
							 "off keeps every Agg.",
							 &gpusort_aggregates,
							 true,
							 PGC_USERSET, 0,
							 NULL, NULL, NULL);

	DefineCustomBoolVariable("gpusort.sorted_grouping",
							 "Groups many groups by a GpuSort rather than a hash table.",
							 "Where GROUP BY is estimated to make at least 100000 groups, "
							 "and at least 1% of its input's rows, and the Sort would be a "
							 "GpuSort whose keys need no collation's transform, the "
							 "planner's HashAggregate paths give way to its GroupAggregate "
							 "paths; off keeps the planner's choice.",
							 &gpusort_sorted_grouping,
							 true,
							 PGC_USERSET, 0,
							 NULL, NULL, NULL);

}

/* developer settings, to compare two ways and to force rare paths */
static void
define_developer_settings(void)
{
	DefineCustomBoolVariable("gpusort.copy_rows",
							 "Copies rows from parallel workers into output order before returning them.",
							 "A developer setting: off returns them from shared memory "
							 "where the workers stored them, to compare the two ways.",
							 &gpusort_copy_rows,
							 true,
							 PGC_USERSET, GUC_NOT_IN_SAMPLE,
							 NULL, NULL, NULL);

	DefineCustomIntVariable("gpusort.gpu_max_run_rows",
							"Caps the rows of one GPU sort run (0: no cap).",
							"A developer setting: it forces the path that sorts inputs larger "
							"than GPU memory in runs and merges them, on any GPU.",
							&gpusort_gpu_max_run_rows,
							0, 0, INT_MAX,
							PGC_USERSET, GUC_NOT_IN_SAMPLE,
							NULL, NULL, NULL);

}

/*
 * Defines the settings above; _PG_init calls it before the parts define
 * their own.
 */
void
gpusort_define_settings(void)
{
	define_plan_settings();
	define_resource_settings();
	define_key_settings();
	define_window_settings();
	define_developer_settings();
}
