/*-------------------------------------------------------------------------
 *
 * sortshared.c
 *	  A parallel GpuSort past its budget: each participant of a Gather
 *	  writes its share as sorted runs to shared temp files, and the GpuSort
 *	  above the Gather merges all of them.
 *
 * planner.c turns a Gather Merge over a Sort estimated past
 * gpusort.max_memory into
 *
 *		GpuSort				the merger: merges every participant's runs
 *		  -> Gather			launches the workers, runs a share itself
 *			   -> GpuSort	GS_SORT_SHARED_RUNS, the writer, in each
 *				   -> input	participant: sorts its share run by run as a
 *							serial GpuSort does (sortnode.c, sortspill.c),
 *							writes every run, its last one too, to the
 *							shared files, and returns no row
 *
 * So the participants read, sort and write in parallel, as stock's workers
 * sort, and no row moves through a tuple queue: the merger reads each row
 * once, from its run, and returns it from the run's read buffer.
 *
 * The writer's shared state (GsSharedRuns, in the Gather's DSM segment
 * under the writer's plan node id) holds a SharedFileSet and one slot per
 * participant: the leader's is slot 0, worker i's slot i + 1.  Participant
 * p names its run r "gs<plan node id>.<p>.<r>"; once all its runs are
 * written and closed, it fills its slot, run count last, after a write
 * barrier.  The merger reads the slots once the Gather has returned its
 * last row, when every participant that started has finished (a worker's
 * ERROR is raised in the leader by then), and merges the runs of slots 0,
 * 1, ... in that order, after any runs of its own: equal rows come in run
 * order, as in one sort's runs (stock's Gather Merge orders equal rows of
 * different workers arbitrarily).
 *
 * Keys compare across participants as across one sort's runs: their layout
 * comes from statistics that cover any row (gs_spill_fix_layout), so every
 * participant and the merger lay them out alike; the merger checks the
 * width each slot reports.
 *
 * Files: the set is deleted when the last backend detaches from the
 * segment: when the query ends, or with the segment on ERROR or cancel; a
 * rescan of the Gather deletes the last scan's files first.  temp_file_limit
 * holds in each participant (fd.c raises stock's ERROR, which the leader
 * rethrows).
 *
 * The parallel intake's participants (sortpar.c) write runs the same way,
 * through a run writer (a GsSort outside the plan, writer set, which
 * writes every row to runs), to a GsSharedRuns of their own node's DSM
 * state, named after that node (gs_shared_runs_init etc.); the GpuSort
 * above their Gather finds them through gs_par_runs and merges them alike.
 *
 * Without shared files -- the Gather runs in the leader alone, outside
 * parallel mode, or parallel.c made no DSM segment -- the writer sorts and
 * returns its rows as a serial GpuSort, and the merger sorts them as its
 * input; the same holds for a participant whose GpuSort fell back to
 * tuplesort (sortstore.c): its rows come through the Gather, the others'
 * runs from the files.
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "access/parallel.h"
#include "commands/tablespace.h"
#include "miscadmin.h"
#include "port/atomics.h"
#include "storage/dsm.h"
#include "storage/sharedfileset.h"
#include "storage/shm_toc.h"
#include "utils/tuplesort.h"

#include "keys/sortkey.h"
#include "sortcore.h"
#include "sortstate.h"
#include "spill/spillrun.h"
#include "threads/threads_backend.h"

/* one participant's runs, filled when they are all written */
typedef struct GsSharedSlot
{
	int			nruns;			/* -1 until the participant is done */
	int			nwords;			/* key words per row */
	uint64		rows;
	uint64		bytes;
	double		ms_write;		/* sorting and writing its runs */
} GsSharedSlot;

typedef struct GsSharedRuns
{
	SharedFileSet fileset;
	dsm_handle	handle;			/* the segment: workers attach the set to it */
	int			nslots;			/* 0: no shared files (no segment) */
	GsSharedSlot slots[FLEXIBLE_ARRAY_MEMBER];
} GsSharedRuns;

static void
reset_slots(GsSharedRuns *sh)
{
	int			i;

	for (i = 0; i < sh->nslots; i++)
	{
		memset(&sh->slots[i], 0, sizeof(GsSharedSlot));
		sh->slots[i].nruns = -1;
	}
}

/*
 * The leader, setting up the Gather's segment: the shared files and the
 * slots at sh; false (no shared files) where parallel.c fell back to
 * private memory, which means no workers and no file set to attach to
 */
bool
gs_shared_runs_init(GsSharedRuns *sh, ParallelContext *pcxt)
{
	sh->nslots = 0;
	if (pcxt->seg == NULL)
		return false;
	PrepareTempTablespaces();
	SharedFileSetInit(&sh->fileset, pcxt->seg);
	sh->handle = dsm_segment_handle(pcxt->seg);
	sh->nslots = pcxt->nworkers + 1;
	reset_slots(sh);
	return true;
}

/* a rescan of the Gather: the last scan's runs go; false: no shared files */
bool
gs_shared_runs_reinit(GsSharedRuns *sh)
{
	if (sh->nslots == 0)
		return false;
	SharedFileSetDeleteAll(&sh->fileset);
	reset_slots(sh);
	return true;
}

/* a worker attaches to the shared files; false where there are none */
bool
gs_shared_runs_attach(GsSharedRuns *sh)
{
	dsm_segment *seg;

	if (sh->nslots == 0)
		return false;
	/* the worker's mapping of the segment parallel.c attached it to */
	seg = dsm_find_mapping(sh->handle);
	if (seg == NULL)
		elog(ERROR, "GpuSort worker found no mapping of its parallel segment");
	SharedFileSetAttach(&sh->fileset, seg);
	return true;
}

Size
gs_shared_runs_size(int nparticipants)
{
	return add_size(offsetof(GsSharedRuns, slots),
					mul_size(sizeof(GsSharedSlot), nparticipants));
}

/* the participants that may write runs: the leader and the planned workers */
int
gs_shared_participants(GsSort *node)
{
	return node->shared->nslots;
}

/* this participant's slot */
static int
my_slot(const GsSharedRuns *sh)
{
	int			slot = ParallelWorkerNumber + 1;

	if (slot < 0 || slot >= sh->nslots)
		elog(ERROR, "GpuSort participant %d has no slot among %d",
			 ParallelWorkerNumber, sh->nslots);
	return slot;
}

static void
run_name(char *name, size_t len, int plan_node_id, int slot, int run)
{
	snprintf(name, len, "gs%d.%d.%d", plan_node_id, slot, run);
}

GsRun *
gs_shared_run_create(GsSort *node)
{
	char		name[MAXPGPATH];

	run_name(name, sizeof(name), node->plan_node_id,
			 my_slot(node->shared), node->nruns);
	return gs_run_create(node->runcxt, gs_keys_nwords(node->keys),
						 &node->shared->fileset.fs, name);
}

void
gs_shared_publish(GsSort *node, int nruns, uint64 rows)
{
	GsSharedSlot *slot = &node->shared->slots[my_slot(node->shared)];

	slot->nwords = gs_keys_nwords(node->keys);
	slot->rows = rows;
	slot->bytes = node->info.spill_bytes;
	slot->ms_write = node->info.ms_spill + node->info.ms_keys +
		node->info.ms_sort + node->info.ms_ties;
	pg_write_barrier();
	slot->nruns = nruns;
}

/*
 * The merger fell back to tuplesort (its own input outgrew what it could
 * hold, sortstore.c): the participants' rows go there too, run by run.
 */
static void
feed_tuplesort(GsSort *node)
{
	uint64		i = 0;
	int			r;

	for (r = 0; r < node->nruns; r++)
	{
		GsRun	   *run = node->runs[r];

		if (!gs_run_rewind(run))
			continue;
		while (gs_run_next(run))
		{
			ExecStoreMinimalTuple(run->tup, node->row_slot, false);
			tuplesort_puttupleslot(node->tuplesort, node->row_slot);
			gs_poll_interrupts(++i);
		}
	}
	ExecClearTuple(node->row_slot);
	gs_spill_close(node);
}

/* opens slot p's runs, named after plan node plan_node_id, as node's next ones */
static void
adopt_slot(GsSort *node, GsSharedRuns *sh, int plan_node_id, int p,
		   int nwords)
{
	GsSharedSlot *slot = &sh->slots[p];
	char		name[MAXPGPATH];
	int			r;

	if (slot->nwords != nwords)
		elog(ERROR, "GpuSort participant %d wrote keys of %d words, not %d",
			 p, slot->nwords, nwords);
	for (r = 0; r < slot->nruns; r++)
	{
		run_name(name, sizeof(name), plan_node_id, p, r);
		gs_spill_add_run(node, gs_run_open(node->runcxt, nwords,
										   &sh->fileset.fs, name));
	}
	node->info.shared_runs += slot->nruns;
	node->info.shared_parts++;
	node->info.shared_bytes += slot->bytes;
	node->info.ms_shared = Max(node->info.ms_shared, slot->ms_write);
}

/*
 * The shared runs this node merges: those of the participants' GpuSort
 * below the Gather, or those the parallel intake's participants wrote when
 * their shares outgrew their room (sortpar.c); NULL if none
 */
static GsSharedRuns *
runs_source(GsSort *node, int *plan_node_id)
{
	if (node->below)
	{
		*plan_node_id = node->below->plan_node_id;
		return node->below->shared;
	}
	if (node->par)
		return gs_par_runs(node->par, plan_node_id);
	return NULL;
}

bool
gs_shared_adopt(GsSort *node)
{
	int			plan_node_id = 0;
	GsSharedRuns *sh = runs_source(node, &plan_node_id);
	int			total = 0;
	int			p;

	if (sh == NULL)
		return false;
	pg_read_barrier();
	for (p = 0; p < sh->nslots; p++)
		total += Max(sh->slots[p].nruns, 0);
	if (total == 0)
		return false;

	/* the runs' layout; rows stored here are sorted into it too */
	node->spilling = true;
	gs_spill_fix_layout(node);
	for (p = 0; p < sh->nslots; p++)
	{
		if (sh->slots[p].nruns > 0)
			adopt_slot(node, sh, plan_node_id, p, gs_keys_nwords(node->keys));
	}
	if (node->tuplesort)
		feed_tuplesort(node);
	return true;
}
