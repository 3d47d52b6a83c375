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
 * resolves it alike; gpusort_memory() (entry/memreport.c) shows the
 * resolved values.
 *
 * The settings lie below every part that reads them, so they call none:
 * where setting one must act at once (gpusort.keep_memory trims the pool
 * of row blocks), the part that acts sets a hook here at _PG_init.
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include <dirent.h>
#include <fcntl.h>
#include <limits.h>
#include <unistd.h>

#include "miscadmin.h"
#include "storage/bufmgr.h"
#include "utils/guc.h"

#include "gpu_select.h"
#include "memory/membudget.h"
#include "settings.h"
#include "threads/thread_share.h"

bool		gpusort_enabled = true;
int			gpusort_device = GS_DEVICE_AUTO;
int			gpusort_min_rows = 10000;
int			gpusort_max_memory = -1;	/* kB; -1: a share of what is available */
int			gpusort_max_total_memory = -1;	/* kB; -1: a share of what is available */
int			gpusort_parallel = GS_PARALLEL_AUTO;
int			gpusort_huge_pages = GS_HUGE_PAGES_AUTO;
int			gpusort_keep_memory = 1024 * 1024;	/* kB; 0: nothing kept */
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

GsKeepMemoryHook gpusort_keep_memory_hook = NULL;

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

static const struct config_enum_entry huge_pages_options[] = {
	{"auto", GS_HUGE_PAGES_AUTO, false},
	{"on", GS_HUGE_PAGES_ON, false},
	{"off", GS_HUGE_PAGES_OFF, false},
	{"true", GS_HUGE_PAGES_ON, true},
	{"false", GS_HUGE_PAGES_OFF, true},
	{"yes", GS_HUGE_PAGES_ON, true},
	{"no", GS_HUGE_PAGES_OFF, true},
	{"1", GS_HUGE_PAGES_ON, true},
	{"0", GS_HUGE_PAGES_OFF, true},
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

/* the budgets' base (above), with where it came from for gpusort_memory() */
Size
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

/*
 * What the pool of row-store blocks (blockpool.c) may keep between a
 * session's sorts: gpusort.keep_memory, at most one sort's budget
 */
Size
gpusort_keep_memory_limit(void)
{
	Size		budget;

	if (gpusort_keep_memory <= 0)
		return 0;
	/* not inside Min(): it may read the cgroup's files, once is enough */
	budget = gpusort_memory_budget();
	return Min((Size) gpusort_keep_memory * 1024, budget);
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
int
gpusort_online_cpus(void)
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
		return gpusort_online_cpus() >= GS_PARALLEL_MIN_CPUS;
	return gpusort_parallel == GS_PARALLEL_ON;
}

/* gpusort.cpu_threads, 0 resolved: what a sort alone on the server uses */
int
gpusort_configured_threads(void)
{
	if (gpusort_cpu_threads > 0)
		return gpusort_cpu_threads;
	return Min(gpusort_online_cpus(), GS_MAX_AUTO_THREADS);
}

/*
 * The threads a pass of CPU work starts now: the configured count when
 * this session sorts alone, else its share of the cores among the
 * sessions sorting at once (thread_share.c).  Read once per pass.
 */
int
gpusort_threads(void)
{
	return gs_thread_share(gpusort_configured_threads(), gpusort_online_cpus());
}

/*
 * gpusort.huge_pages = auto: whether a sort asks the kernel for
 * transparent huge pages (madvise MADV_HUGEPAGE) on its large blocks.
 * Huge pages spare most of the page faults of first touching the rows'
 * memory and most of the TLB misses of gathering them in sorted order, but
 * a huge page is cheap only where the kernel has one ready.  Two cases
 * make the fault that takes one slow, and auto does not advise in either:
 *
 * - The kernel's defrag policy (/sys/kernel/mm/transparent_hugepage/,
 *   Documentation/admin-guide/mm/transhuge.rst): under defrag = always,
 *   madvise or defer+madvise, a fault in an advised range that finds no
 *   free huge page reclaims and compacts memory before it returns.  Under
 *   defer or never it takes small pages instead and compaction runs in the
 *   background.  enabled = never makes the advice void.
 *
 * - A virtual machine whose free memory is handed back to the hypervisor
 *   (a virtio balloon with free page reporting, which reports free blocks
 *   of 2MB and more): a huge page is then most likely such a block, which
 *   the host backs again page by page on the first write.  Measured on 2
 *   cores (Firecracker, bench/sort/fault_in.sh): 330 MB faulted in as huge
 *   pages took from 15 ms (blocks freed a moment before) to 1.4 s, as
 *   small pages (the guest's smaller free blocks, never reported) 100 ms
 *   of system time every time; a session's first sort of 2*10^6 rows took
 *   up to 430 ms more CPU with the advice, 200-250 ms on a quiet machine,
 *   and its later, back-to-back ones 50-70 ms less.
 *
 * The parallel node's chunks in shared memory are advised alike: their
 * huge pages (under shmem_enabled) come from the same free blocks.  Files
 * missing (another kernel, no transparent huge pages) mean no advice.
 * Read once per backend: the policy is the machine's.
 */
#define GS_THP_DIR		"/sys/kernel/mm/transparent_hugepage/"
#define GS_VIRTIO_DIR	"/sys/bus/virtio/devices/"
#define GS_VIRTIO_ID_BALLOON		"0x0005"
#define GS_VIRTIO_BALLOON_F_REPORTING	5

/* the first line of a small file of /sys into buf; false if unreadable */
static bool
read_sys_line(const char *path, char *buf, Size len)
{
	int			fd;
	ssize_t		n;

	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return false;
	n = read(fd, buf, len - 1);
	close(fd);
	if (n <= 0)
		return false;
	buf[n] = '\0';
	buf[strcspn(buf, "\n")] = '\0';
	return true;
}

/*
 * The selected value of a transparent_hugepage file, the word in brackets
 * ("always defer [madvise] never"), into buf; false if unreadable
 */
static bool
thp_mode(const char *name, char *buf, Size len)
{
	char		path[128];
	char		text[256];
	char	   *open_br;
	char	   *close_br;

	snprintf(path, sizeof(path), "%s%s", GS_THP_DIR, name);
	if (!read_sys_line(path, text, sizeof(text)))
		return false;
	open_br = strchr(text, '[');
	close_br = open_br ? strchr(open_br, ']') : NULL;
	if (close_br == NULL || (Size) (close_br - open_br) > len)
		return false;
	memcpy(buf, open_br + 1, close_br - open_br - 1);
	buf[close_br - open_br - 1] = '\0';
	return true;
}

/*
 * Is there a virtio balloon that reports free pages to the host: a virtio
 * device of the balloon's id whose negotiated features (a string of 0s
 * and 1s by bit number) include VIRTIO_BALLOON_F_REPORTING
 */
static bool
free_pages_reported(void)
{
	DIR		   *dir = opendir(GS_VIRTIO_DIR);
	struct dirent *de;
	bool		reported = false;

	if (dir == NULL)
		return false;
	while (!reported && (de = readdir(dir)) != NULL)
	{
		char		path[MAXPGPATH];
		char		text[256];

		if (de->d_name[0] == '.')
			continue;
		snprintf(path, sizeof(path), "%s%s/device", GS_VIRTIO_DIR, de->d_name);
		if (!read_sys_line(path, text, sizeof(text)) ||
			strcmp(text, GS_VIRTIO_ID_BALLOON) != 0)
			continue;
		snprintf(path, sizeof(path), "%s%s/features", GS_VIRTIO_DIR, de->d_name);
		reported = read_sys_line(path, text, sizeof(text)) &&
			strlen(text) > GS_VIRTIO_BALLOON_F_REPORTING &&
			text[GS_VIRTIO_BALLOON_F_REPORTING] == '1';
	}
	closedir(dir);
	return reported;
}

/* gpusort.huge_pages = auto, resolved once per backend (above) */
static bool
huge_pages_auto(const char **why)
{
	static bool done = false;
	static bool advise = false;
	static char what[256];

	if (!done)
	{
		char		enabled[32];
		char		defrag[32];

		if (!thp_mode("enabled", enabled, sizeof(enabled)) ||
			!thp_mode("defrag", defrag, sizeof(defrag)))
			strlcpy(what, "auto: no transparent huge pages in " GS_THP_DIR,
					sizeof(what));
		else
		{
			bool		eligible = strcmp(enabled, "always") == 0 ||
				strcmp(enabled, "madvise") == 0;
			bool		stalls = strcmp(defrag, "defer") != 0 &&
				strcmp(defrag, "never") != 0;
			bool		reported = eligible && !stalls && free_pages_reported();

			advise = eligible && !stalls && !reported;
			snprintf(what, sizeof(what),
					 "auto: transparent_hugepage enabled = %s, defrag = %s%s",
					 enabled, defrag,
					 !eligible ? "" :
					 stalls ? " (a fault in an advised range would compact memory)" :
					 reported ? " (free pages are reported to the hypervisor)" : "");
		}
		done = true;
	}
	if (why)
		*why = what;
	return advise;
}

bool
gpusort_huge_pages_advised(const char **why)
{
	if (gpusort_huge_pages == GS_HUGE_PAGES_AUTO)
		return huge_pages_auto(why);
	if (why)
		*why = gpusort_huge_pages == GS_HUGE_PAGES_ON ?
			"gpusort.huge_pages = on" : "gpusort.huge_pages = off";
	return gpusort_huge_pages == GS_HUGE_PAGES_ON;
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

/* gpusort.keep_memory: a smaller pool at once, by the pool's hook */
static void
assign_keep_memory(int newval, void *extra)
{
	if (gpusort_keep_memory_hook)
		gpusort_keep_memory_hook(newval > 0 ? (Size) newval * 1024 : 0);
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
							"Largest memory all GpuSorts of the server may reserve at once.",
							"-1 means half the memory available to the server (its cgroup's "
							"limit, else the machine's memory, less shared_buffers).  A sort "
							"reserves its rows' memory from this as it stores them; one that "
							"finds no room writes sorted runs to temp files and merges them, "
							"as past gpusort.max_memory (a top-N sort, or one that has stored "
							"few rows, uses PostgreSQL's tuplesort within work_mem instead), "
							"and parallel workers pass their rows through the Gather to the "
							"GpuSort above.  A GpuWindow or GpuAgg whose arrays find no room "
							"leaves the work to the stock node.",
							&gpusort_max_total_memory,
							-1, -1, INT_MAX,
							PGC_SUSET, GUC_UNIT_KB,
							check_max_memory, NULL, NULL);

	DefineCustomIntVariable("gpusort.keep_memory",
							"Largest memory a session keeps mapped for its next GpuSorts' rows.",
							"The large blocks of a sort's rows and scratch arrays stay "
							"mapped when it ends, up to this much and to gpusort.max_memory, "
							"so that the session's next sort writes them without page faults; the "
							"kernel may take their pages back under memory pressure.  "
							"0 gives every block back to the kernel.",
							&gpusort_keep_memory,
							1024 * 1024, 0, INT_MAX,
							PGC_USERSET, GUC_UNIT_KB,
							NULL, assign_keep_memory, NULL);

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

	DefineCustomEnumVariable("gpusort.huge_pages",
							 "Asks the kernel for transparent huge pages on a GpuSort's large blocks.",
							 "Huge pages spare page faults and TLB misses, but a session's "
							 "first sorts wait where the kernel compacts memory to fault one "
							 "in (transparent_hugepage defrag = always, madvise or "
							 "defer+madvise) or where a VM's balloon has handed free memory "
							 "back to the host.  auto asks only where neither is the case.",
							 &gpusort_huge_pages,
							 GS_HUGE_PAGES_AUTO,
							 huge_pages_options,
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
							"this many threads.  With gpusort in shared_preload_libraries, "
							"sessions sorting at once share the machine's cores: each "
							"uses at most cores / sessions threads (at least 1).",
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
							 "Computes aggregates that sort, and sorted grouping, in a GpuAgg node over one GpuSort.",
							 "An Agg whose aggregates all are count, sum or avg (DISTINCT x), "
							 "percentile_cont, percentile_disc, mode, string_agg or array_agg "
							 "(ORDER BY y), sorting one column, or count, sum, avg, min, max "
							 "of a column, is replaced by it (the last only where the Agg "
							 "groups sorted rows); off keeps every Agg.",
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
							 "Copies sorted rows into output order where they are read from scattered memory.",
							 "A developer setting.  On, the rows that parallel workers stored "
							 "in shared memory are copied into output order (by helper threads "
							 "while they are returned, or first where a GpuWindow or GpuAgg "
							 "reads them or the scan may go backwards or back to a mark), and "
							 "so are the rows of a GpuWindow, or of a GpuAgg with string_agg "
							 "or array_agg, where the memory allows; off reads every row where "
							 "it was stored, to compare the two ways.",
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
