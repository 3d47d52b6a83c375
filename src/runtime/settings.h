/*-------------------------------------------------------------------------
 *
 * settings.h
 *	  gpusort's settings, and the getters that resolve their automatic
 *	  values (settings.c).
 *
 *-------------------------------------------------------------------------
 */
#ifndef GPUSORT_SETTINGS_H
#define GPUSORT_SETTINGS_H

/* gpusort.device */
typedef enum GsDevice
{
	GS_DEVICE_AUTO,				/* the GPU when one can be used, else the CPU */
	GS_DEVICE_GPU,				/* the GPU; if it fails, the CPU with a WARNING */
	GS_DEVICE_CPU				/* the CPU engines only */
} GsDevice;

/* gpusort.parallel */
typedef enum GsParallel
{
	GS_PARALLEL_OFF,
	GS_PARALLEL_ON,
	GS_PARALLEL_AUTO			/* on machines of GS_PARALLEL_MIN_CPUS cores or more */
} GsParallel;

/* gpusort.huge_pages */
typedef enum GsHugePages
{
	GS_HUGE_PAGES_OFF,
	GS_HUGE_PAGES_ON,
	GS_HUGE_PAGES_AUTO			/* where the kernel's policy makes it cheap */
} GsHugePages;

/* GUC variables */
extern bool gpusort_enabled;
extern int	gpusort_device;
extern int	gpusort_min_rows;
extern int	gpusort_max_memory;	/* kB */
extern int	gpusort_max_total_memory;	/* kB */
extern int	gpusort_max_gpu_sessions;
extern char *gpusort_devices;
extern int	gpusort_gpu_max_run_rows;
extern int	gpusort_cpu_threads;
extern int	gpusort_parallel;	/* GsParallel */
extern int	gpusort_huge_pages;	/* GsHugePages */
extern int	gpusort_keep_memory;	/* kB */
extern bool gpusort_copy_rows;
extern bool gpusort_window_functions;
extern bool gpusort_aggregates;
extern bool gpusort_sorted_grouping;
/* sortverify.c: swaps two rows after the engine's sort, to test the repair */
extern bool gpusort_debug_scramble_keys;
/* sortdict.c: dictionary ranks; sortrefine.c: ties from the transform */
extern bool gpusort_dict_ranks;
extern bool gpusort_refine_ties;

/*
 * The memory available to the server (its cgroup's limit, else the
 * machine's memory, less shared_buffers); source and detail, if not NULL,
 * say where it came from
 */
extern Size gpusort_available_memory(const char **source, const char **detail);
/* gpusort.max_memory in bytes, -1 resolved */
extern Size gpusort_memory_budget(void);
/* gpusort.max_total_memory in bytes, -1 resolved */
extern Size gpusort_total_memory_limit(void);

/* what a session may keep of its row blocks between sorts (blockpool.c) */
extern Size gpusort_keep_memory_limit(void);

/*
 * Called with the new bound in bytes (0: keep nothing) whenever
 * gpusort.keep_memory is set.  The pool of row blocks sets it at _PG_init
 * (gs_pool_init), so that a smaller bound trims the pool at once: the
 * settings lie below the pool and do not call it.
 */
typedef void (*GsKeepMemoryHook) (Size limit);
extern GsKeepMemoryHook gpusort_keep_memory_hook;

/* gpusort.parallel, auto resolved: may the planner use the parallel node */
extern bool gpusort_parallel_enabled(void);
/*
 * gpusort.huge_pages, auto resolved: may a sort's large blocks be advised
 * as huge pages; why, if not NULL, says what decided it
 */
extern bool gpusort_huge_pages_advised(const char **why);
/* The machine's online cores */
extern int	gpusort_online_cpus(void);
/* gpusort.cpu_threads, 0 resolved: the threads of a sort alone on the server */
extern int	gpusort_configured_threads(void);
/*
 * The threads a pass of CPU work uses now: gpusort.cpu_threads, 0
 * resolved, or less while other sessions sort (thread_share.h)
 */
extern int	gpusort_threads(void);

/* _PG_init: defines the settings above */
extern void gpusort_define_settings(void);

#endif							/* GPUSORT_SETTINGS_H */
