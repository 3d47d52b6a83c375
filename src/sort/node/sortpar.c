/*-------------------------------------------------------------------------
 *
 * sortpar.c
 *	  Parallel intake for GpuSort: every participant of a Gather stores its
 *	  share of the rows, with their raw keys, in shared memory.
 *
 * Where stock PostgreSQL runs a parallel plan under a Sort (Gather Merge
 * over per-worker Sorts, or a Sort over a Gather), planner.c builds
 *
 *		GpuSort					the leader: sorts all rows once, emits them
 *		  -> Gather				launches the workers, runs a share itself
 *			   -> GpuSortStore	this file: in each participant, stores
 *				   -> input		its share of the rows, returns none
 *
 * The store node pulls every row of its participant's share, copies it as
 * a MinimalTuple into chunks of a DSA area of its own (one area per
 * participant, so that participants never wait on each other's allocator
 * lock, and the zeroing of fresh segments is spread over all of them; the
 * chunk after the current one is allocated early and faulted in by a
 * helper thread, prefault.c, since a page fault on fresh shared memory costs
 * more than the row that touches it), and
 * next to it the row's raw key (sortkey.h), built while the row is deformed
 * and in cache.  It observes the key columns as it goes and publishes its
 * statistics, row count and chunk list in the query's DSM segment when its
 * share is done.  It then returns no row, so the Gather moves no tuple
 * through its queues, and ends when every participant is done.
 *
 * The leader's GpuSort then finds all rows in shared memory: it merges the
 * statistics (so the key layout is the one a serial sort of all rows would
 * choose), copies the row addresses and raw keys into its arrays on
 * threads, and sorts as it does serial input (sortstore.c); what it reads
 * here is sortparread.c's, and the state both files share sortparstate.h's.
 * The rows stay where the participants wrote them until the GpuSort is
 * done with them.
 *
 * A chunk holds tuples from its start upwards and, from its end downwards,
 * one entry per row: the tuple's offset in the chunk and the raw key.  So
 * a chunk is complete in itself, and the leader can take the rows of any
 * slice of the row numbers without reading the chunks before it.
 *
 * Invariants: a participant writes only its own chunks and its own slot of
 * the shared state; the leader reads them only after the Gather has seen
 * every worker finish (or never start).  Chunk sizes double from
 * GS_PAR_FIRST_CHUNK to GS_PAR_MAX_CHUNK (and DSA makes its segments larger
 * still as the area grows, so few segments are made).
 *
 * Reservation: before any participant stores a row, the leader reserves
 * the chunks' bytes (the planner's estimate with room to spare, within
 * gpusort.max_memory; see shared_limit) from the server-wide account
 * (memaccount.c), as memory and, for POSIX shared memory, as /dev/shm
 * space, of which all GpuSorts together may hold a share (gs_shm_limit).  The participants then
 * allocate chunks only within that reservation (GsParShared.limit), and
 * check /dev/shm's free space before each, for what others put there.  So
 * concurrent sorts never overfill /dev/shm, where the kernel would refuse
 * a DSM segment with an ERROR; the reservation goes when the node ends or
 * rescans, or with the query's memory on an ERROR.
 *
 * Beyond the reservation: a participant that cannot have a chunk for its
 * next row (the participants together outgrew the reservation, or /dev/shm
 * is full) gives the rows it stored, in the order they came, and every
 * later row of its share to a run writer (gs_writer_create, sortstore.c): a
 * GpuSort outside the plan tree that sorts them run by run within
 * gpusort.max_memory, as a participant's GpuSort under a Gather Merge
 * does, and writes every run to the query's shared files (sortshared.c:
 * the state after the slots, part_runs); its chunks go back to its area.
 * The GpuSort above then merges those runs with the rows the other
 * participants kept in shared memory (gs_par_runs, gs_shared_adopt).  So
 * the participants sort and write in parallel, and no row moves through
 * the Gather's queues nor is copied in by the leader alone.  Each
 * participant may use the budget for its runs besides its share of the
 * reservation, as each of stock's workers uses work_mem.
 *
 * Fallbacks, never an ERROR: without a DSM segment (the Gather runs without
 * parallel mode) or without an encoder for the first sort column, or when
 * the reservation cannot be had, the store node passes its rows on through
 * the Gather, and the GpuSort above stores them as a serial GpuSort over a
 * Gather would.  A participant that outgrows its room where no runs may be
 * written -- the GpuSort above is bounded (gs_par_allow_runs: a top-N keeps
 * its first rows, and hands them to tuplesort), or there are no shared
 * files -- sets the overflow flag, and every participant passes its
 * remaining rows on from then on; so does a run writer that fell back to
 * tuplesort (the server-wide account full).
 *
 * Memory: the areas are created by the leader when the Gather sets up its
 * DSM (and again before a rescan), attached by each worker for its share
 * until it exits, and detached by the leader when the node ends; an ERROR
 * detaches them with the query's resource owner, which frees them.
 *
 * Unmapping is not free: the kernel visits every page a process mapped,
 * and frees it when the last process lets go.  Shared memory is rarely
 * backed by huge pages, so that is a visit per 4kB, a fifth of a second
 * per gigabyte or more.  A worker therefore keeps its area mapped past its
 * ExecutorEnd (dsa_pin_mapping): the Gather waits for that, since a worker
 * reports that it finished afterwards, while its exit runs beside the
 * leader's sort.  And the leader, the last process attached, frees every
 * page of every chunk when it detaches, on the executor's thread once the
 * last row is out; so before that it has threads punch the chunks' pages
 * out (release_chunks), each over its own pieces, and the detach then
 * frees little.  It notes where the chunks lie (note_chunks) while the
 * Gather's DSM segment, which holds the lists, is still there.
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include <sys/mman.h>
#include <unistd.h>

#include "access/htup_details.h"
#include "access/parallel.h"
#include "executor/executor.h"
#include "miscadmin.h"
#include "port/atomics.h"
#include "portability/instr_time.h"
#include "storage/dsm_impl.h"
#include "storage/lwlock.h"
#include "utils/dsa.h"
#include "utils/memutils.h"

#include "base/compat.h"
#include "memory/memaccount.h"
#include "intake/blockpool.h"
#include "intake/prefault.h"
#include "intake/rowstore.h"
#include "runtime/settings.h"
#include "keys/sortkey.h"
#include "core/sortcore.h"
#include "core/sortparstate.h"
#include "threads/threads_backend.h"
#include "core/sortplan.h"
#include "sortpar.h"

/*
 * The node's state: the executor's part around the store, which the core
 * reads (GsStoreState, core/sortparstate.h) and which knows no executor
 * state
 */
typedef struct GpuSortStoreState
{
	CustomScanState css;
	GsStoreState st;
} GpuSortStoreState;

static inline GsStoreState *
store_of(CustomScanState *node)
{
	return &((GpuSortStoreState *) node)->st;
}

#define GS_PAR_FIRST_CHUNK	((Size) 4 * 1024 * 1024)
/*
 * Chunks grow to 32MB and no further: each participant leaves at most one
 * chunk partly empty and prepares at most one ahead, and faulting those in
 * for nothing is the cost of a larger chunk.
 */
#define GS_PAR_MAX_CHUNK	((Size) 32 * 1024 * 1024)
/* nor shrink below this where the reservation runs short */
#define GS_PAR_MIN_CHUNK	((Size) 1024 * 1024)

/*
 * Shared memory is set up only when the budget and the server-wide account
 * leave room for the planner's estimate of the rows times this much; the
 * leader reserves up to GS_PAR_ESTIMATE_ROOM times the estimate, so that an
 * estimate somewhat too low does not send the rows to tuplesort.
 */
#define GS_PAR_ESTIMATE_SLACK	1.25
#define GS_PAR_ESTIMATE_ROOM	2.0

/*
 * What the participants' chunks take in /dev/shm beyond their bytes: each
 * area's first DSA segment, made when the area is, and DSA's segment
 * headers and page maps, and segments sized past the chunk they were made
 * for (a fraction of the chunks).
 */
#define GS_PAR_AREA_BYTES	((Size) 1024 * 1024 + 65536)
#define GS_PAR_SEGMENT_SLACK_DIV	8

/*
 * The chunks' memory is given back on threads in pieces of this size (a
 * few ms of the kernel's work each), and only from this much on: below
 * it, starting threads costs more than the freeing they would share.
 */
#define GS_PAR_RELEASE_PIECE	((Size) 8 * 1024 * 1024)
#define GS_PAR_RELEASE_MIN		((Size) 64 * 1024 * 1024)

static Node *store_create_state(CustomScan *cscan);
static void store_begin(CustomScanState *node, EState *estate, int eflags);
static TupleTableSlot *store_exec(CustomScanState *node);
static void store_end(CustomScanState *node);
static void store_rescan(CustomScanState *node);
static Size store_estimate(CustomScanState *node, ParallelContext *pcxt);
static void store_init_dsm(CustomScanState *node, ParallelContext *pcxt,
						   void *coordinate);
static void store_reinit_dsm(CustomScanState *node, ParallelContext *pcxt,
							 void *coordinate);
static void store_init_worker(CustomScanState *node, shm_toc *toc,
							  void *coordinate);
static void store_shutdown(CustomScanState *node);
static void store_explain(CustomScanState *node, List *ancestors,
						  ExplainState *es);

const CustomScanMethods gpusort_store_plan_methods = {
	.CustomName = GPUSORT_STORE_NODE_NAME,
	.CreateCustomScanState = store_create_state,
};

static const CustomExecMethods store_exec_methods = {
	.CustomName = GPUSORT_STORE_NODE_NAME,
	.BeginCustomScan = store_begin,
	.ExecCustomScan = store_exec,
	.EndCustomScan = store_end,
	.ReScanCustomScan = store_rescan,
	.EstimateDSMCustomScan = store_estimate,
	.InitializeDSMCustomScan = store_init_dsm,
	.ReInitializeDSMCustomScan = store_reinit_dsm,
	.InitializeWorkerCustomScan = store_init_worker,
	.ShutdownCustomScan = store_shutdown,
	.ExplainCustomScan = store_explain,
};

static Size
shared_size(int nparts, int ncols)
{
	return shared_head_size(nparts, ncols) + gs_shared_runs_size(nparts);
}

/* ---- setup ------------------------------------------------------------------- */

static Node *
store_create_state(CustomScan *cscan)
{
	GpuSortStoreState *node = palloc0(sizeof(GpuSortStoreState));

	NodeSetTag(node, T_CustomScanState);
	node->css.flags = cscan->flags;
	node->css.methods = &store_exec_methods;
	return (Node *) node;
}

static void
store_begin(CustomScanState *node, EState *estate, int eflags)
{
	GsStoreState *st = store_of(node);
	CustomScan *cscan = (CustomScan *) node->ss.ps.plan;
	GsSortColumns cols;
	char	   *reason;

	outerPlanState(node) = ExecInitNode(outerPlan(cscan), estate, eflags);
	/* rows are returned as the input made them, when they are passed on */
	node->ss.ps.ps_ProjInfo = NULL;
	st->plan = &cscan->scan.plan;
	st->indesc = ExecGetResultType(outerPlanState(node));
	st->querycxt = estate->es_query_cxt;
	st->tuple_table = &estate->es_tupleTable;

	gs_sort_columns(cscan->custom_private, &cols);
	/* the same columns as the GpuSort above: the same spec, decided alike */
	st->keys = gs_keys_create(cols.n, cols.attnos, cols.sortops, cols.collations,
							  cols.nulls_first, &reason);
	if (st->keys)
	{
		st->ncols = gs_keys_ncols_observed(st->keys);
		st->raw_bytes = gs_keys_raw_bytes(st->keys);
		st->entry_bytes = TYPEALIGN(sizeof(uint32), sizeof(uint32) + st->raw_bytes);
		gs_keys_reset(st->keys);
		st->feed_slot = ExecAllocTableSlot(&estate->es_tupleTable, st->indesc,
										   &TTSOpsMinimalTuple);
		st->key_slot = ExecAllocTableSlot(&estate->es_tupleTable, st->indesc,
										  &TTSOpsMinimalTuple);
	}
	st->next_size = GS_PAR_FIRST_CHUNK;
}

/*
 * The store under gather for the GpuSort above it (sortnode.c), or NULL;
 * the store's state is all the GpuSort's sort reads (sortparread.c)
 */
GsParInput *
gs_par_input(PlanState *gather)
{
	PlanState  *child;

	if (gather == NULL || !IsA(gather, GatherState))
		return NULL;
	child = outerPlanState(gather);
	if (child == NULL || !IsA(child, CustomScanState) ||
		((CustomScanState *) child)->methods != &store_exec_methods)
		return NULL;
	return store_of((CustomScanState *) child);
}

/* ---- storing ------------------------------------------------------------------- */

/*
 * Would the rows in used bytes of chunks fit the budget of the GpuSort
 * above where they lie?  It counts its arrays over them (row_bytes a row)
 * too; past that it would copy them in alone, row by row, to write them as
 * runs (sortstore.c), which the participants do faster themselves, in
 * parallel.  Rows per byte are those of the chunks filled so far, which
 * the rows' real widths decide, not the planner's estimate of them.  Only
 * where runs may be written: a bounded sort above keeps its first rows
 * only, and copies in no more than that.
 */
static bool
leader_takes(GsParShared *sh, uint64 used)
{
	uint64		bytes = pg_atomic_read_u64(&sh->filled_bytes);
	uint64		rows = pg_atomic_read_u64(&sh->filled_rows);

	if (bytes == 0)
		return true;
	return (double) used * (1.0 + (double) rows / bytes * sh->row_bytes) <=
		(double) sh->budget;
}

/*
 * size bytes of the participant's area, within the reservation, or Invalid.
 * DSA reports a DSM segment that /dev/shm has no room for by an ERROR, not
 * by DSA_ALLOC_NO_OOM, so the free space is checked first: what other
 * servers or programs put in /dev/shm is in no account.
 */
static dsa_pointer
alloc_chunk(GsStoreState *st, Size size)
{
	GsParShared *sh = st->shared;
	dsa_pointer dp = InvalidDsaPointer;
	uint64		used;

	if (pg_atomic_read_u32(&sh->overflow) != 0)
		return InvalidDsaPointer;
	used = pg_atomic_add_fetch_u64(&sh->used, size);
	if (used <= sh->limit && (!sh->runs_allowed || leader_takes(sh, used)) &&
		gs_shm_free(NULL) >= size + size / GS_PAR_SEGMENT_SLACK_DIV)
		dp = dsa_allocate_extended(st->area, size, DSA_ALLOC_HUGE | DSA_ALLOC_NO_OOM);
	/* a chunk not had (a chunk ahead, say) leaves its room to the others */
	if (!DsaPointerIsValid(dp))
		pg_atomic_sub_fetch_u64(&sh->used, size);
	return dp;
}

/* bytes of the reservation that no participant has taken yet */
static Size
room_left(GsParShared *sh)
{
	uint64		used = pg_atomic_read_u64(&sh->used);

	return used < sh->limit ? sh->limit - used : 0;
}

/*
 * A new chunk for at least need bytes of tuple and entry; false when the
 * reservation or the shared memory is exhausted.  The chunk prepared ahead
 * is taken when it is large enough, and the next one is prepared.  Where
 * the reservation runs short, chunks shrink to a fair share of what is
 * left and none is prepared ahead, so that one participant's chunks do not
 * crowd out the others' and send every row to tuplesort.
 */
static bool
new_chunk(GsStoreState *st, Size need)
{
	GsParShared *sh = st->shared;
	Size		left = room_left(sh);	/* once: it moves under us */
	Size		fair = Max(left / sh->nparts, GS_PAR_MIN_CHUNK);
	Size		size = Max(Min(st->next_size, fair), GS_PAR_CHUNK_HEADER + need);
	dsa_pointer dp;
	GsParChunk *c;

	/* the chunk filled: what its rows tell of the rows per byte */
	if (st->chunk)
	{
		pg_atomic_add_fetch_u64(&sh->filled_rows, st->chunk->nrows);
		pg_atomic_add_fetch_u64(&sh->filled_bytes, st->chunk->size);
	}
	if (DsaPointerIsValid(st->ahead) && st->ahead_size >= size)
	{
		dp = st->ahead;
		size = st->ahead_size;
		st->ahead = InvalidDsaPointer;
	}
	else
	{
		dp = alloc_chunk(st, size);
		if (!DsaPointerIsValid(dp))
			return false;
	}
	c = dsa_get_address(st->area, dp);
	c->next = InvalidDsaPointer;
	c->size = size;
	c->front = GS_PAR_CHUNK_HEADER;
	c->nrows = 0;
	if (st->chunk)
		st->chunk->next = dp;
	else
		st->first = dp;
	st->chunk = c;
	st->bytes += size;
	st->next_size = Min(st->next_size * 2, GS_PAR_MAX_CHUNK);

	if (!DsaPointerIsValid(st->ahead) && st->prefault &&
		room_left(sh) >= (Size) 2 * sh->nparts * st->next_size)
	{
		st->ahead = alloc_chunk(st, st->next_size);
		if (DsaPointerIsValid(st->ahead))
		{
			void	   *p = dsa_get_address(st->area, st->ahead);

			st->ahead_size = st->next_size;
			/* where shared memory may have huge pages, far fewer faults */
			gs_advise_huge_pages(p, st->ahead_size);
			gs_prefault(st->prefault, p, st->ahead_size);
		}
	}
	return true;
}

/* the chunk prepared ahead is not needed: back to the area */
static void
drop_ahead(GsStoreState *st)
{
	if (DsaPointerIsValid(st->ahead) && st->area)
		dsa_free(st->area, st->ahead);
	st->ahead = InvalidDsaPointer;
	if (st->prefault)
		(void) gs_prefault_finish(st->prefault);
}

/*
 * The layout of the MinimalTuple that heap_form_minimal_tuple would make of
 * a virtual slot's values: its length, and where its data begins.
 */
static uint32
virtual_tuple_size(TupleTableSlot *slot, Size *hoff, Size *data_len, bool *hasnull)
{
	TupleDesc	desc = slot->tts_tupleDescriptor;
	int			natts = desc->natts;
	int			i;

	slot_getallattrs(slot);
	*hasnull = false;
	for (i = 0; i < natts; i++)
		if (slot->tts_isnull[i])
		{
			*hasnull = true;
			break;
		}
	*hoff = MAXALIGN(SizeofMinimalTupleHeader + (*hasnull ? BITMAPLEN(natts) : 0));
	*data_len = heap_compute_data_size(desc, slot->tts_values, slot->tts_isnull);
	return (uint32) (*hoff + *data_len);
}

/*
 * Stores the row in slot with its raw key; false when out of room.  A
 * projected row (a virtual slot) is formed in place, as
 * heap_form_minimal_tuple would form it, instead of being formed in local
 * memory and copied: that palloc, copy and pfree cost as much as the rest.
 */
static bool
store_row(GsStoreState *st, TupleTableSlot *slot)
{
	bool		virtual = TTS_IS_VIRTUAL(slot);
	bool		should_free = false;
	HeapTuple	htup = NULL;
	Size		hoff = 0,
				data_len = 0;
	bool		hasnull = false;
	uint32		len;
	Size		need;
	GsParChunk *c = st->chunk;
	char	   *entry;
	MinimalTuple mtup;
	uint32		off;

	if (virtual)
		len = virtual_tuple_size(slot, &hoff, &data_len, &hasnull);
	else
	{
		htup = ExecFetchSlotHeapTuple(slot, false, &should_free);
		len = htup->t_len - MINIMAL_TUPLE_OFFSET;
	}
	need = MAXALIGN(len) + st->entry_bytes;

	if (c == NULL ||
		c->front + need > c->size - (Size) c->nrows * st->entry_bytes)
	{
		if (!new_chunk(st, need))
		{
			if (should_free)
				heap_freetuple(htup);
			return false;
		}
		c = st->chunk;
	}

	entry = (char *) c + c->size - (Size) (c->nrows + 1) * st->entry_bytes;
	/* a projected row is deformed already; a table's is taken from the copy */
	if (virtual)
		gs_keys_observe(st->keys, slot, (uint8 *) entry + sizeof(uint32));

	off = (uint32) c->front;
	mtup = (MinimalTuple) ((char *) c + off);
	if (virtual)
	{
		TupleDesc	desc = slot->tts_tupleDescriptor;

		memset(mtup, 0, len);
		mtup->t_len = len;
		HeapTupleHeaderSetNatts(mtup, desc->natts);
		mtup->t_hoff = hoff + MINIMAL_TUPLE_OFFSET;
		heap_fill_tuple(desc, slot->tts_values, slot->tts_isnull,
						(char *) mtup + hoff, data_len, &mtup->t_infomask,
						hasnull ? mtup->t_bits : NULL);
	}
	else
	{
		/* as minimal_tuple_from_heap_tuple does, without its palloc */
		memcpy(mtup, (char *) htup->t_data + MINIMAL_TUPLE_OFFSET, len);
		mtup->t_len = len;

		/*
		 * Deforming a table's row up to its last key column walks every
		 * column before, a cache miss each where the row lies in its
		 * buffer; the copy just made is in cache (sortorder.c's
		 * observe_and_store says more).
		 */
		ExecStoreMinimalTuple(mtup, st->key_slot, false);
		gs_keys_observe(st->keys, st->key_slot, (uint8 *) entry + sizeof(uint32));
	}
	memcpy(entry, &off, sizeof(uint32));
	c->front += MAXALIGN(len);
	c->nrows++;
	st->nrows++;
	if (should_free)
		heap_freetuple(htup);
	return true;
}

/* makes this participant's share visible to the leader */
static void
publish(GsStoreState *st)
{
	GsParPart  *p = &st->shared->parts[st->part];

	drop_ahead(st);
	gs_keys_get_stats(st->keys, part_stats(st->shared, st->part));
	p->first = st->first;
	p->nrows = st->nrows;
	p->bytes = st->bytes;
	p->ms = st->ms;
	p->wrote_runs = st->writing;
	if (st->writing)
		gs_writer_counts(st->writer, &p->nruns, &p->run_rows, &p->run_bytes);
	pg_write_barrier();
	p->ran = true;
}

/*
 * The next row of a writer that fell back to tuplesort, passed on through
 * the Gather as the rows of a share out of room are where no runs can be
 * written (the leader then takes them as read there); NULL at the end
 */
static TupleTableSlot *
next_written(GsStoreState *st)
{
	TupleTableSlot *slot = gs_writer_next(st->writer);

	if (slot != NULL)
		pg_atomic_write_u32(&st->shared->overflow, 1);
	return slot;
}

/*
 * The run writer, in the query's memory: a sort set up as a GpuSort's from
 * this node's plan (its custom_private holds the sort columns as a
 * GpuSort's does, its plan node id names the runs) over its input's rows;
 * the writer never pulls a row from that input, nor ends or rescans it
 */
static GsSort *
create_writer(GsStoreState *st)
{
	CustomScan *cscan = (CustomScan *) st->plan;
	GsSortSpec	spec = {0};
	MemoryContext oldcxt = MemoryContextSwitchTo(st->querycxt);
	GsSort	   *writer;

	spec.columns = cscan->custom_private;
	spec.tupdesc = st->indesc;
	spec.est_rows = cscan->scan.plan.plan_rows;
	spec.plan_node_id = cscan->scan.plan.plan_node_id;
	spec.mode = GS_SORT_SHARED_RUNS;
	spec.forward_only = true;
	spec.tuple_table = st->tuple_table;
	writer = gs_writer_create(&spec, part_runs(st->shared));
	MemoryContextSwitchTo(oldcxt);
	return writer;
}

/*
 * The share outgrew its room: the rows stored so far, and the rest as they
 * come, go to the writer, which sorts them run by run and writes the runs
 * to the shared files (sortstore.c); the chunks go back to the area.  The
 * stored rows are given in the order they came, so the runs hold the share
 * as read.  False where there are no shared files or a bound above (the
 * rows are then passed on).
 */
static bool
start_writing(GsStoreState *st)
{
	dsa_pointer dp = st->first;
	uint64		i = 0;

	if (!st->runs_ok)
		return false;
	if (st->writer == NULL)
		st->writer = create_writer(st);
	gs_writer_start(st->writer);
	st->writing = true;
	drop_ahead(st);
	while (DsaPointerIsValid(dp))
	{
		GsParChunk *c = dsa_get_address(st->area, dp);
		dsa_pointer next = c->next;
		uint32		k;

		for (k = 0; k < c->nrows; k++)
		{
			const char *e = (const char *) c + c->size - (Size) (k + 1) * st->entry_bytes;
			uint32		off;

			memcpy(&off, e, sizeof(uint32));
			ExecStoreMinimalTuple((MinimalTuple) ((char *) c + off), st->feed_slot, false);
			gs_writer_put(st->writer, st->feed_slot);
			gs_poll_interrupts(++i);
		}
		ExecClearTuple(st->feed_slot);
		/*
		 * Its room stays counted as used: the area keeps the segment for
		 * its own later chunks, and the others allocate from areas of their
		 * own, so /dev/shm would not have it for them
		 */
		dsa_free(st->area, dp);
		dp = next;
	}
	st->first = InvalidDsaPointer;
	st->chunk = NULL;
	st->nrows = 0;
	st->bytes = 0;
	return true;
}

/* the share is read: the writer writes its last run; its rows to pass on */
static TupleTableSlot *
finish_share(GsStoreState *st, instr_time start)
{
	instr_time	now;

	if (st->writing)
		gs_writer_finish(st->writer);
	INSTR_TIME_SET_CURRENT(now);
	INSTR_TIME_SUBTRACT(now, start);
	st->ms = INSTR_TIME_GET_MILLISEC(now);
	st->done = true;
	publish(st);
	return st->writing ? next_written(st) : NULL;
}

static TupleTableSlot *
store_exec(CustomScanState *node)
{
	GsStoreState *st = store_of(node);
	PlanState  *outer = outerPlanState(node);
	instr_time	start;

	if (st->passing || st->shared == NULL || !st->shared->enabled ||
		st->keys == NULL || st->area == NULL)
		return ExecProcNode(outer);
	if (st->done)
		return st->writing ? next_written(st) : NULL;

	INSTR_TIME_SET_CURRENT(start);
	if (st->prefault == NULL)
		st->prefault = gs_prefaulter_create(st->querycxt);
	for (;;)
	{
		TupleTableSlot *slot = ExecProcNode(outer);

		if (TupIsNull(slot))
			break;
		if (st->writing)
			gs_writer_put(st->writer, slot);
		else if (pg_atomic_read_u32(&st->shared->overflow) != 0 ||
				 !store_row(st, slot))
		{
			if (pg_atomic_read_u32(&st->shared->overflow) == 0 &&
				start_writing(st))
			{
				gs_writer_put(st->writer, slot);
				continue;
			}
			/* out of room: this row and the rest go through the Gather */
			pg_atomic_write_u32(&st->shared->overflow, 1);
			st->passing = true;
			publish(st);
			return slot;
		}
	}
	return finish_share(st, start);
}

/* forgets this participant's share; the chunks go with their area */
static void
reset_share(GsStoreState *st)
{
	st->done = false;
	st->passing = false;
	st->writing = false;
	if (st->writer)
		gs_writer_end(st->writer);
	st->first = InvalidDsaPointer;
	st->chunk = NULL;
	st->ahead = InvalidDsaPointer;
	/* a finished prefaulter does not restart: the next share makes its own */
	st->prefault = NULL;
	st->next_size = GS_PAR_FIRST_CHUNK;
	st->nrows = 0;
	st->bytes = 0;
	st->ms = 0;
	if (st->keys)
		gs_keys_reset(st->keys);
}

static void
forget_chunks(GsStoreState *st)
{
	if (st->spans)
		pfree(st->spans);
	st->spans = NULL;
	st->nspans = 0;
	st->span_bytes = 0;
}

/*
 * The leader's: notes where the participants' chunks lie, while the DSM
 * segment that holds their lists is there (it goes when the Gather shuts
 * down, before the node ends)
 */
static void
note_chunks(GsStoreState *st)
{
	GsParShared *sh = st->shared;
	int			cap = 64;
	int			i;

	if (sh == NULL || st->areas == NULL || IsParallelWorker())
		return;
	/* only the latest areas' chunks: a rescan made new ones */
	forget_chunks(st);
	if (!sh->enabled)
		return;
	st->spans = MemoryContextAlloc(st->querycxt,
								   sizeof(GsChunkSpan) * cap);
	st->nspans = 0;
	st->span_bytes = 0;
	for (i = 0; i < st->nareas && i < sh->nparts; i++)
	{
		dsa_pointer dp;

		if (!sh->parts[i].ran || st->areas[i] == NULL)
			continue;
		for (dp = sh->parts[i].first; DsaPointerIsValid(dp);)
		{
			GsParChunk *c = dsa_get_address(st->areas[i], dp);

			if (st->nspans == cap)
			{
				cap *= 2;
				st->spans = repalloc(st->spans, sizeof(GsChunkSpan) * cap);
			}
			st->spans[st->nspans].p = (char *) c;
			st->spans[st->nspans].size = c->size;
			st->nspans++;
			st->span_bytes += c->size;
			dp = c->next;
		}
	}
}

typedef struct ReleaseArg
{
	const GsChunkSpan *spans;
	int			nspans;
	uint64	   *first_piece;	/* [nspans + 1]: the pieces before span i */
	Size		page;
} ReleaseArg;

/*
 * Pieces [lo, hi) of the chunks: their whole pages punched out of the
 * shared memory that backs them.  On a thread: a system call only.  A
 * kernel that cannot (no MADV_REMOVE for this kind of shared memory)
 * leaves the pages to the detach, which frees them as it always did.
 */
static void
release_slice(void *p, uint64 lo, uint64 hi)
{
	ReleaseArg *a = (ReleaseArg *) p;
	int			s = 0;
	uint64		k;

	while (a->first_piece[s + 1] <= lo)
		s++;
	for (k = lo; k < hi; k++)
	{
		const GsChunkSpan *span;
		uintptr_t	start,
					end;

		while (a->first_piece[s + 1] <= k)
			s++;
		span = &a->spans[s];
		start = (uintptr_t) span->p + (k - a->first_piece[s]) * GS_PAR_RELEASE_PIECE;
		end = Min(start + GS_PAR_RELEASE_PIECE, (uintptr_t) span->p + span->size);
		start = TYPEALIGN(a->page, start);
		end = TYPEALIGN_DOWN(a->page, end);
#ifdef MADV_REMOVE
		if (end > start)
			(void) madvise((void *) start, end - start, MADV_REMOVE);
#endif
	}
}

/*
 * The leader's, just before it detaches the areas, when no one reads the
 * rows any more: gives the chunks' pages back on threads (see the header
 * comment).  Only an optimisation: whatever is not punched out here, the
 * detach frees.
 */
static void
release_chunks(GsStoreState *st)
{
	ReleaseArg	a;
	int			i;

	if (st->spans == NULL || st->span_bytes < GS_PAR_RELEASE_MIN ||
		gpusort_threads() < 2)
		return;
	a.spans = st->spans;
	a.nspans = st->nspans;
	a.page = (Size) sysconf(_SC_PAGESIZE);
	a.first_piece = palloc(sizeof(uint64) * (st->nspans + 1));
	a.first_piece[0] = 0;
	for (i = 0; i < st->nspans; i++)
		a.first_piece[i + 1] = a.first_piece[i] +
			(st->spans[i].size + GS_PAR_RELEASE_PIECE - 1) / GS_PAR_RELEASE_PIECE;
	/* no interrupt poll: the detach would free the same pages, unpolled */
	(void) gs_for_slices(a.first_piece[st->nspans], 2, gpusort_threads(),
						 release_slice, &a, NULL, NULL);
	pfree(a.first_piece);
}

static void
detach_areas(GsStoreState *st)
{
	int			i;

	/* rescans reach here with the DSM still there: the latest chunks */
	note_chunks(st);
	release_chunks(st);
	forget_chunks(st);
	for (i = 0; i < st->nareas; i++)
		if (st->areas[i])
			dsa_detach(st->areas[i]);
	st->nareas = 0;

	/*
	 * A worker's area stays mapped until the worker exits (see the header
	 * comment): the leader holds every area until it is done with the
	 * rows, so unmapping it here would free no memory sooner, and the
	 * Gather would wait for it
	 */
	st->area = NULL;
	/* the chunks are gone: their room goes back to the account */
	if (st->reservation)
		gs_release_all(st->reservation);
}

static void
store_end(CustomScanState *node)
{
	GsStoreState *st = store_of(node);

	if (st->writer)
		gs_writer_end(st->writer);
	detach_areas(st);
	ExecEndNode(outerPlanState(node));
}

static void
store_rescan(CustomScanState *node)
{
	GsStoreState *st = store_of(node);
	PlanState  *outer = outerPlanState(node);

	reset_share(st);
	if (outer->chgParam == NULL)
		ExecReScan(outer);
}

/* ---- shared memory -------------------------------------------------------------- */

static Size
store_estimate(CustomScanState *node, ParallelContext *pcxt)
{
	GsStoreState *st = store_of(node);

	return shared_size(pcxt->nworkers + 1, st->ncols);
}

/*
 * Reserves bytes of chunks, and the areas' overhead, as memory and as
 * /dev/shm space; false when the account or /dev/shm has no room.
 */
static bool
reserve_chunks(GsStoreState *st, Size bytes, int nparts)
{
	Size		free = gs_shm_free(NULL);
	Size		shm_limit = gs_shm_limit();
	Size		total = bytes + bytes / GS_PAR_SEGMENT_SLACK_DIV +
		(Size) nparts * GS_PAR_AREA_BYTES;

	if (total > free)
		return false;
	if (!gs_reserve(st->reservation, GS_ACCT_MEM, total, gpusort_total_memory_limit()))
		return false;
	if (shm_limit != SIZE_MAX &&
		!gs_reserve(st->reservation, GS_ACCT_SHM, total, shm_limit))
	{
		gs_release_all(st->reservation);
		return false;
	}
	return true;
}

/*
 * What the account and /dev/shm have left for this intake: the least of
 * the room under gpusort.max_total_memory, under the share of /dev/shm that
 * GpuSorts may hold, and /dev/shm's free space, less the areas' overhead.
 */
static double
headroom(int nparts)
{
	Size		total_limit = gpusort_total_memory_limit();
	Size		shm_limit = gs_shm_limit();
	Size		free = gs_shm_free(NULL);
	uint64		held = gs_account_total(GS_ACCT_MEM);
	double		room = held < total_limit ? (double) (total_limit - held) : 0;

	if (shm_limit != SIZE_MAX)
	{
		uint64		shm_held = gs_account_total(GS_ACCT_SHM);

		room = Min(room, shm_held < shm_limit ? (double) (shm_limit - shm_held) : 0);
	}
	if (free != SIZE_MAX)
		room = Min(room, (double) free);
	room -= (double) nparts * GS_PAR_AREA_BYTES;
	return Max(room, 0) * GS_PAR_SEGMENT_SLACK_DIV / (GS_PAR_SEGMENT_SLACK_DIV + 1);
}

/*
 * How many bytes of chunks the participants may fill together, reserved;
 * 0 when even the planner's estimate of the rows would not fit in the
 * budget or the reservation cannot be had.
 *
 * The participants cannot grow the reservation (they are other processes,
 * and the rows outlive them), so the leader reserves generously: twice the
 * estimate, or half of what the account has left if that is more (an
 * estimate can be far too low, under a join say), within the budget; at
 * least the estimate with some slack, else nothing.  Every participant
 * needs a chunk however few its rows.
 */
static Size
shared_limit(GsStoreState *st, int nparts)
{
	Plan	   *plan = st->plan;
	Size		budget = gpusort_memory_budget();
	double		row = MAXALIGN(plan->plan_width + MAXALIGN(SizeofMinimalTupleHeader)) +
		st->entry_bytes;
	double		need,
				least,
				room,
				head;

	need = plan->plan_rows * row;
	if (need * GS_PAR_ESTIMATE_SLACK > (double) budget)
		return 0;
	if (st->reservation == NULL)
		st->reservation = gs_reservation_create(st->querycxt);
	least = Max(need * GS_PAR_ESTIMATE_SLACK, (double) nparts * GS_PAR_MIN_CHUNK);
	room = Max(need * GS_PAR_ESTIMATE_ROOM, (double) nparts * GS_PAR_FIRST_CHUNK);
	head = headroom(nparts) / 2;	/* not in Max(): it reads the accounts */
	room = Max(room, head);
	least = Min(least, (double) budget);
	room = Min(room, (double) budget);
	if (reserve_chunks(st, (Size) room, nparts))
		return (Size) room;
	if (reserve_chunks(st, (Size) least, nparts))
		return (Size) least;
	return 0;
}

/*
 * New areas, one per participant, and an empty shared state; runs: the
 * shared files for runs are set up
 */
static void
setup_shared(GsStoreState *st, GsParShared *sh, int nparts, bool runs)
{
	MemoryContext oldcxt = MemoryContextSwitchTo(st->querycxt);
	int			i;

	memset(sh, 0, offsetof(GsParShared, parts));
	sh->nparts = nparts;
	sh->ncols = st->ncols;
	sh->limit = st->keys ? shared_limit(st, nparts) : 0;
	st->limit = sh->limit;
	sh->enabled = (sh->limit > 0);
	/* no runs under a bound: the leader's top-N keeps only its first rows */
	sh->runs_allowed = runs && st->runs_allowed;
	pg_atomic_init_u64(&sh->used, 0);
	sh->budget = gpusort_memory_budget();
	sh->row_bytes = gs_sort_row_bytes(st->raw_bytes);
	pg_atomic_init_u64(&sh->filled_rows, 0);
	pg_atomic_init_u64(&sh->filled_bytes, 0);
	pg_atomic_init_u32(&sh->overflow, 0);
	gs_keys_stats_reset(part_stats(sh, 0), nparts * sh->ncols);

	if (st->areas == NULL)
		st->areas = palloc0(sizeof(dsa_area *) * nparts);
	for (i = 0; i < nparts; i++)
	{
		GsParPart  *p = &sh->parts[i];

		memset(p, 0, sizeof(GsParPart));
		p->first = InvalidDsaPointer;
		if (sh->enabled)
		{
			st->areas[i] = dsa_create(LWTRANCHE_PARALLEL_QUERY_DSA);
			p->area = dsa_get_handle(st->areas[i]);
		}
	}
	st->nareas = sh->enabled ? nparts : 0;
	st->shared = sh;
	st->part = 0;
	st->area = sh->enabled ? st->areas[0] : NULL;
	st->runs_ok = sh->runs_allowed;
	st->seen = NULL;
	st->nseen = 0;
	reset_share(st);
	MemoryContextSwitchTo(oldcxt);
}

static void
store_init_dsm(CustomScanState *node, ParallelContext *pcxt, void *coordinate)
{
	GsParShared *sh = coordinate;
	int			nparts = pcxt->nworkers + 1;
	bool		runs;

	/* part_runs needs these before setup_shared sets them again */
	sh->nparts = nparts;
	sh->ncols = store_of(node)->ncols;
	runs = gs_shared_runs_init(part_runs(sh), pcxt);
	setup_shared(store_of(node), sh, nparts, runs);
}

static void
store_reinit_dsm(CustomScanState *node, ParallelContext *pcxt, void *coordinate)
{
	GsStoreState *st = store_of(node);
	GsParShared *sh = coordinate;
	bool		runs;

	/* the GpuSort above has let go of the last run's rows and runs */
	detach_areas(st);
	runs = gs_shared_runs_reinit(part_runs(sh));
	setup_shared(st, sh, pcxt->nworkers + 1, runs);
}

static void
store_init_worker(CustomScanState *node, shm_toc *toc, void *coordinate)
{
	GsStoreState *st = store_of(node);
	GsParShared *sh = coordinate;
	MemoryContext oldcxt = MemoryContextSwitchTo(st->querycxt);

	st->shared = sh;
	st->part = ParallelWorkerNumber + 1;
	if (sh->enabled && st->part < sh->nparts && st->keys)
	{
		st->area = dsa_attach(sh->parts[st->part].area);
		/* kept until the worker exits: see detach_areas */
		dsa_pin_mapping(st->area);
		st->runs_ok = sh->runs_allowed && gs_shared_runs_attach(part_runs(sh));
	}
	MemoryContextSwitchTo(oldcxt);
}

static void
store_shutdown(CustomScanState *node)
{
	GsStoreState *st = store_of(node);

	keep_seen(st);
	note_chunks(st);
	st->shared = NULL;
}

/* ---- EXPLAIN ------------------------------------------------------------------ */

/* one figure of a participant's share, "LABEL WHAT", in structured formats */
static void
part_property(const char *label, const char *what, const char *unit,
			  uint64 value, ExplainState *es)
{
	char		name[96];

	snprintf(name, sizeof(name), "%s %s", label, what);
	ExplainPropertyUInteger(name, unit, value, es);
}

/*
 * A participant's share: the rows it kept in shared memory, or, where its
 * share outgrew its room, the runs it wrote instead
 */
static void
explain_part(const char *label, const GsParPart *p, ExplainState *es)
{
	char		name[96];

	if (es->format == EXPLAIN_FORMAT_TEXT)
	{
		appendStringInfoSpaces(es->str, es->indent * 2);
		if (p->wrote_runs)
			appendStringInfo(es->str, "%s: " UINT64_FORMAT " rows written in %d runs, "
							 UINT64_FORMAT "kB, to shared files",
							 label, p->run_rows, p->nruns, (p->run_bytes + 1023) / 1024);
		else
			appendStringInfo(es->str, "%s: " UINT64_FORMAT " rows stored, %zukB",
							 label, p->nrows, (p->bytes + 1023) / 1024);
		if (es->timing)
			appendStringInfo(es->str, ", %.3f ms", p->ms);
		appendStringInfoChar(es->str, '\n');
		return;
	}
	if (p->wrote_runs)
	{
		part_property(label, "Rows Written", NULL, p->run_rows, es);
		part_property(label, "Runs Written", NULL, p->nruns, es);
		part_property(label, "Run Bytes", "kB", (p->run_bytes + 1023) / 1024, es);
	}
	else
	{
		part_property(label, "Rows Stored", NULL, p->nrows, es);
		part_property(label, "Memory", "kB", (p->bytes + 1023) / 1024, es);
	}
	if (es->timing)
	{
		snprintf(name, sizeof(name), "%s Time Storing", label);
		ExplainPropertyFloat(name, "ms", p->ms, 3, es);
	}
}

static void
store_explain(CustomScanState *node, List *ancestors, ExplainState *es)
{
	GsStoreState *st = store_of(node);
	int			nran = 0;
	int			i;

	if (!es->analyze)
		return;
	keep_seen(st);
	for (i = 0; i < st->nseen; i++)
		if (st->seen[i].ran)
			nran++;
	if (nran == 0)
	{
		ExplainPropertyText("Rows Stored", "none, rows passed on", es);
		return;
	}
	for (i = 0; i < st->nseen; i++)
	{
		GsParPart  *p = &st->seen[i];
		char		label[64];

		if (!p->ran)
			continue;
		if (i == 0)
			strlcpy(label, "Leader", sizeof(label));
		else
			snprintf(label, sizeof(label), "Worker %d", i - 1);
		explain_part(label, p, es);
	}
}
