/*-------------------------------------------------------------------------
 *
 * sortstat.c
 *	  What one GpuSort adds to the gpusort_stat view (src/runtime/stat.c),
 *	  and the key's layout in words, for EXPLAIN ANALYZE.
 *
 * A sort is counted once, when its memory context (runcxt) goes: by a
 * reset callback registered when the sort begins.  That context goes at the
 * end of the query, on a rescan that sorts again, and with the query's
 * memory on an ERROR or a cancel, so every sort that began is counted, and
 * the executor's own paths carry no extra call.  At that moment the sort's
 * GsRunInfo -- what EXPLAIN ANALYZE shows -- holds everything: the engine,
 * why the GPU or the engines were not used, rows, ties, strcoll checks,
 * GPU transfers and the phases' times.  A sort that ended before its rows
 * were sorted (an ERROR or a cancel while reading or sorting) is counted as
 * cancelled, and nothing else of it.
 *
 * The callback may run while the transaction aborts: it reads the sort,
 * which lives in the query's context and goes after runcxt (a context's
 * children are deleted first), and counts with atomics (stat.c), with no
 * lock but a spinlock and no allocation.
 *
 * Why a sort did not run on the GPU, or went to tuplesort, is the reason
 * EXPLAIN ANALYZE prints, classified by the setting or cause it names
 * (test/sort/cpu/stat.sh provokes each, so a reworded reason fails there).
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "utils/memutils.h"

#include "sortstate.h"
#include "runtime/stat.h"

/* why the engine sorted on the CPU (engine.c, gpu_session.c, gpu_select.c) */
static const GsStatReason cpu_reasons[] = {
	{"gpusort.device", GS_STAT_CPU_BY_SETTING},
	{"fewer than", GS_STAT_CPU_FEW_ROWS},
	{"parallel worker", GS_STAT_CPU_PARALLEL_WORKER},
	{"gpusort.max_gpu_sessions", GS_STAT_CPU_SESSIONS_CAP},
};

/* why the rows went to tuplesort with a key (sortstore.c) */
static const GsStatReason tuplesort_reasons[] = {
	{"gpusort.max_total_memory", GS_STAT_TS_TOTAL_MEMORY},
	{"reserved for the parallel workers", GS_STAT_TS_TOTAL_MEMORY},
	{"gpusort.max_memory", GS_STAT_TS_MAX_MEMORY},
	{"32-bit", GS_STAT_TS_ROW_LIMIT},
};

static void
count_tuplesort(GsSort *node, GsStatDelta *d)
{
	GsRunInfo  *info = &node->info;

	d->c[GS_STAT_SORTS_TUPLESORT] = 1;
	if (node->keys == NULL)
		d->c[GS_STAT_TS_NO_ENCODING] = 1;
	else
		d->c[gs_stat_classify(info->fallback, tuplesort_reasons,
							  lengthof(tuplesort_reasons),
							  GS_STAT_TS_MAX_MEMORY)] += 1;
	d->c[GS_STAT_BYTES] = (uint64) info->tsstats.spaceUsed * 1024;
	if (info->tsstats.spaceType == SORT_SPACE_TYPE_DISK)
		d->c[GS_STAT_SPILLS] = 1;
}

static void
count_engine(GsSort *node, GsStatDelta *d)
{
	GsRunInfo  *info = &node->info;
	const GsSortStats *e = &info->engine;
	bool		gpu = info->have_engine && e->engine != NULL &&
		strncmp(e->engine, "gpu", 3) == 0;

	d->c[gpu ? GS_STAT_SORTS_GPU : GS_STAT_SORTS_CPU] = 1;
	if (!gpu && info->have_engine && e->fallback[0] != '\0')
		d->c[gs_stat_classify(e->fallback, cpu_reasons, lengthof(cpu_reasons),
							  GS_STAT_CPU_GPU_UNAVAILABLE)] += 1;
	d->c[GS_STAT_BYTES] = info->stored_bytes;
	/* runs written to temp files past gpusort.max_memory (sortspill.c) */
	if (info->spill_runs > 0)
		d->c[GS_STAT_SPILLS] = 1;
	d->c[GS_STAT_TIE_GROUPS] = info->tie_groups;
	d->c[GS_STAT_TIE_ROWS] = info->tie_rows;
	d->c[GS_STAT_STRCOLL_CHECKS] = info->verified ? 1 : 0;
	d->c[GS_STAT_STRCOLL_REPAIRS] = info->verify_resorted ? 1 : 0;
	if (info->have_engine)
		d->c[GS_STAT_GPU_BYTES] = e->bytes_h2d + e->bytes_d2h;
	gs_stat_add_ms(d, GS_STAT_US_KEYS, info->ms_keys);
	gs_stat_add_ms(d, GS_STAT_US_TIES, info->ms_ties);
	gs_stat_add_ms(d, GS_STAT_US_VERIFY, info->ms_verify);
	gs_stat_add_ms(d, GS_STAT_US_EMIT, info->ms_emit);
}

/* runcxt's reset callback */
static void
count_sort(void *arg)
{
	GsSort	   *node = (GsSort *) arg;
	GsRunInfo  *info = &node->info;
	GsStatDelta d;

	memset(&d, 0, sizeof(d));
	if (!node->sort_done)
		d.c[GS_STAT_SORTS_CANCELLED] = 1;
	else
	{
		if (info->used_tuplesort)
			count_tuplesort(node, &d);
		else
			count_engine(node, &d);
		d.c[GS_STAT_ROWS] = info->rows_in + info->par_rows;
		gs_stat_add_ms(&d, GS_STAT_US_INTAKE, info->ms_intake);
		gs_stat_add_ms(&d, GS_STAT_US_SORT, info->ms_sort);
	}
	gs_stat_add(&d);
}

void
gs_sort_stat_watch(GsSort *node)
{
	MemoryContextCallback *cb;

	if (!gs_stat_enabled())
		return;
	cb = MemoryContextAlloc(node->runcxt, sizeof(MemoryContextCallback));
	cb->func = count_sort;
	cb->arg = node;
	MemoryContextRegisterResetCallback(node->runcxt, cb);
}

/*
 * The key's layout in words, the sort columns named names[]; for a sort
 * whose runs were sorted by a layout of their own (sortstore.c's
 * sort_run), the first run's beside the runs' keys.  NULL where tuplesort
 * sorted or no sort column has an encoder.
 */
char *
gs_sort_describe_keys(GsSort *node, const char **names)
{
	if (node->info.used_tuplesort || node->keys == NULL)
		return NULL;
	if (node->run_sort_keys &&
		(node->info.spill_runs > 0 || node->info.runs_shared))
		return psprintf("%s; runs' key %s",
						gs_keys_describe(node->run_sort_keys, names),
						gs_keys_describe(node->keys, names));
	return gs_keys_describe(node->keys, names);
}
