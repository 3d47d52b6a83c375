/*-------------------------------------------------------------------------
 *
 * gpusort.c
 *	  Module entry point: settings and hook installation.
 *
 * _PG_init runs in the postmaster when the library is preloaded, and in a
 * backend on LOAD or first use.  It only defines settings and installs the
 * planner hook: no CUDA call happens here.  CUDA is started lazily by the
 * backend that first needs the GPU (gpu_session.c), because a CUDA context
 * does not survive fork() and the postmaster must never hold one.
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include <limits.h>

#include "fmgr.h"
#include "utils/guc.h"

#include "gpusort.h"
#include "treereduce.h"

PG_MODULE_MAGIC;

bool		gpusort_enabled = true;
int			gpusort_device = GS_DEVICE_AUTO;
int			gpusort_min_rows = 10000;
int			gpusort_max_memory = 4 * 1024 * 1024;	/* 4 GB, in kB */
int			gpusort_max_gpu_sessions = 8;
int			gpusort_gpu_max_run_rows = 0;
int			gpusort_cpu_threads = 4;

static const struct config_enum_entry device_options[] = {
	{"auto", GS_DEVICE_AUTO, false},
	{"gpu", GS_DEVICE_GPU, false},
	{"cpu", GS_DEVICE_CPU, false},
	{NULL, 0, false}
};

void		_PG_init(void);

void
_PG_init(void)
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

	DefineCustomIntVariable("gpusort.max_memory",
							"Largest memory one GpuSort may use for its rows and keys.",
							"A sort that needs more falls back to PostgreSQL's tuplesort, "
							"which spills to disk as a Sort node would.",
							&gpusort_max_memory,
							4 * 1024 * 1024, 1024, INT_MAX,
							PGC_USERSET, GUC_UNIT_KB,
							NULL, NULL, NULL);

	DefineCustomIntVariable("gpusort.max_gpu_sessions",
							"Largest number of backends that hold a CUDA context at once.",
							"Backends past this number use the CPU engines.",
							&gpusort_max_gpu_sessions,
							8, 0, 1024,
							PGC_SUSET, 0,
							NULL, NULL, NULL);

	DefineCustomIntVariable("gpusort.cpu_threads",
							"CPU threads one GpuSort may use to sort on the CPU.",
							"A large sort on the CPU engine shares its buckets out "
							"among this many threads.",
							&gpusort_cpu_threads,
							4, 1, 64,
							PGC_USERSET, 0,
							NULL, NULL, NULL);

	DefineCustomIntVariable("gpusort.gpu_max_run_rows",
							"Caps the rows of one GPU sort run (0: no cap).",
							"A developer setting: it forces the path that sorts inputs larger "
							"than GPU memory in runs and merges them, on any GPU.",
							&gpusort_gpu_max_run_rows,
							0, 0, INT_MAX,
							PGC_USERSET, GUC_NOT_IN_SAMPLE,
							NULL, NULL, NULL);

	gpusort_tree_init();
	gpusort_planner_init();

	MarkGUCPrefixReserved("gpusort");
}
