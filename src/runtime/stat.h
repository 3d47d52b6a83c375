/*-------------------------------------------------------------------------
 *
 * stat.h
 *	  Cumulative statistics of what gpusort did, per database: the
 *	  gpusort_stat view (stat.c).
 *
 * The counters are listed once, here, in the order of the view's columns;
 * the SQL definition (gpusort--1.2.sql, and the update scripts) must list them in the same order.
 * Counters come first, then times (kept in microseconds, shown in
 * milliseconds), each name as the view's column.
 *
 * The *_not_used_* counters count the stock Aggs and WindowAggs the
 * planner rewrite left, by the kind of reason EXPLAIN shows for them
 * (notused.c): counted when planned.
 *
 * Callers gather one sort's (or window's, or plan's) figures in a local
 * GsStatDelta and hand it over once: gs_stat_add.  Without gpusort in
 * shared_preload_libraries there is nowhere to keep them, and every call
 * here does nothing.
 *
 *-------------------------------------------------------------------------
 */
#ifndef GPUSORT_STAT_H
#define GPUSORT_STAT_H

#define GS_STAT_COUNTERS(X) \
	X(SORTS_GPU,			"sorts_gpu") \
	X(SORTS_CPU,			"sorts_cpu") \
	X(SORTS_TUPLESORT,		"sorts_tuplesort") \
	X(SORTS_CANCELLED,		"sorts_cancelled") \
	X(CPU_BY_SETTING,		"cpu_by_setting") \
	X(CPU_FEW_ROWS,			"cpu_few_rows") \
	X(CPU_PARALLEL_WORKER,	"cpu_parallel_worker") \
	X(CPU_SESSIONS_CAP,		"cpu_sessions_cap") \
	X(CPU_GPU_UNAVAILABLE,	"cpu_gpu_unavailable") \
	X(TS_NO_ENCODING,		"tuplesort_no_encoding") \
	X(TS_MAX_MEMORY,		"tuplesort_max_memory") \
	X(TS_TOTAL_MEMORY,		"tuplesort_total_memory") \
	X(TS_ROW_LIMIT,			"tuplesort_row_limit") \
	X(STOCK_MIN_ROWS,		"stock_min_rows") \
	X(STOCK_NO_ENCODING,	"stock_no_encoding") \
	X(STOCK_MAX_MEMORY,		"stock_max_memory") \
	X(ROWS,					"rows_sorted") \
	X(BYTES,				"bytes_sorted") \
	X(TIE_GROUPS,			"tie_groups") \
	X(TIE_ROWS,				"tie_rows") \
	X(STRCOLL_CHECKS,		"strcoll_checks") \
	X(STRCOLL_REPAIRS,		"strcoll_repairs") \
	X(SPILLS,				"spills") \
	X(GPU_BYTES,			"gpu_bytes") \
	X(WINDOWS_COMPUTED,		"windows_computed") \
	X(WINDOWS_TUPLESORT,	"windows_tuplesort") \
	X(WINDOWS_MAX_MEMORY,	"windows_max_memory") \
	X(WINDOWS_TOTAL_MEMORY, "windows_total_memory") \
	X(AGG_NU_SETTING,		"agg_not_used_setting") \
	X(AGG_NU_GROUPING_SETS, "agg_not_used_grouping_sets") \
	X(AGG_NU_FUNCTION,		"agg_not_used_function") \
	X(AGG_NU_COLUMNS,		"agg_not_used_columns") \
	X(AGG_NU_INPUT,			"agg_not_used_input") \
	X(WINDOW_NU_SETTING,	"window_not_used_setting") \
	X(WINDOW_NU_FUNCTION,	"window_not_used_function") \
	X(WINDOW_NU_FRAME,		"window_not_used_frame") \
	X(WINDOW_NU_INPUT,		"window_not_used_input") \
	X(US_INTAKE,			"intake_ms") \
	X(US_KEYS,				"keys_ms") \
	X(US_SORT,				"sort_ms") \
	X(US_TIES,				"ties_ms") \
	X(US_VERIFY,			"verify_ms") \
	X(US_EMIT,				"emit_ms") \
	X(US_WINDOW,			"window_ms")

#define GS_STAT_ENUM(id, name) GS_STAT_##id,
typedef enum GsStatCounter
{
	GS_STAT_COUNTERS(GS_STAT_ENUM)
	GS_STAT_NCOUNTERS
} GsStatCounter;
#undef GS_STAT_ENUM

/* the first of the times */
#define GS_STAT_FIRST_TIME	GS_STAT_US_INTAKE

/* the figures of one event, added to the database's counters at once */
typedef struct GsStatDelta
{
	uint64		c[GS_STAT_NCOUNTERS];
} GsStatDelta;

/* a time in milliseconds (as EXPLAIN keeps them) into a delta */
static inline void
gs_stat_add_ms(GsStatDelta *d, GsStatCounter c, double ms)
{
	if (ms > 0)
		d->c[c] += (uint64) (ms * 1000.0 + 0.5);
}

/*
 * The counter of the first pattern in patterns[0 .. n) that reason
 * contains, or otherwise; for reasons that EXPLAIN ANALYZE shows as text,
 * each of which names the setting or the cause it comes from.
 */
typedef struct GsStatReason
{
	const char *pattern;
	GsStatCounter counter;
} GsStatReason;

extern GsStatCounter gs_stat_classify(const char *reason,
									  const GsStatReason *patterns, int n,
									  GsStatCounter otherwise);

/* Adds d to this database's counters (no-op unless preloaded) */
extern void gs_stat_add(const GsStatDelta *d);

/* Adds one to one counter of this database's (no-op unless preloaded) */
extern void gs_stat_count(GsStatCounter c);

/* Whether the counters are kept (gpusort was preloaded) */
extern bool gs_stat_enabled(void);

/* Called by _PG_init while the library is being preloaded */
extern void gs_stat_request_shmem(void);

/*
 * Counts a GpuWindow's run: computed when why is "", else the reason its
 * WindowAgg ran instead (windownode.c's texts).
 */
extern void gs_stat_count_window(const char *why, double ms);

#endif							/* GPUSORT_STAT_H */
