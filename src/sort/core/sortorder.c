/*-------------------------------------------------------------------------
 *
 * sortorder.c
 *	  Sorting the stored rows: their keys built, sorted by the engine, ties
 *	  settled, and the output gathered (steps 2, 3 and 5's array of
 *	  sortstore.c's header).
 *
 * gs_sort_stored runs the steps over the rows stored since the run began.
 * Keys are built from the raw keys captured while storing, or from the
 * stored rows for wide raw keys (strings), on threads above
 * GS_THREADED_MIN_ROWS, in row order straight into the engine's buffer;
 * gs_sort_order_rows sorts them and settles the runs of equal keys
 * (sortties.c); gs_sort_gather_output turns the order into an array of row
 * pointers, or, for a GpuWindow that asks for it, copies the rows into
 * output order so that they are read sequentially.
 *
 * Invariant: the order returned is one a stock Sort could have produced
 * (sortstore.c's header); the engine is stable and ties end on the row
 * number.
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "access/htup_details.h"
#include "common/int.h"
#include "executor/executor.h"
#include "miscadmin.h"
#include "nodes/makefuncs.h"
#include "optimizer/optimizer.h"
#include "portability/instr_time.h"
#include "utils/memutils.h"
#include "utils/sortsupport.h"
#include "utils/tuplesort.h"

#include "base/timing.h"
#include "runtime/settings.h"
#include "sortstate.h"
#include "threads/thread_slots.h"
#include "threads/threads_backend.h"

/* how far ahead of the pointer being gathered into output order */
#define GS_GATHER_AHEAD		32

/*
 * The raw key of stored row i: kept since the row was stored, or taken
 * from the row now into buf (raw_bytes).
 */
static const uint8 *
row_raw(void *arg, uint64 i, uint8 *buf)
{
	GsSort	   *node = (GsSort *) arg;

	if (node->raw)
		return node->raw + i * node->raw_bytes;
	ExecStoreMinimalTuple(node->tuples[i], node->row_slot, false);
	gs_keys_capture(node->keys, node->row_slot, buf);
	return buf;
}

/* the same after the layout: the key's columns only (gs_keys_capture_key) */
static const uint8 *
row_key_raw(GsSort *node, uint64 i, uint8 *buf)
{
	if (node->raw)
		return node->raw + i * node->raw_bytes;
	ExecStoreMinimalTuple(node->tuples[i], node->row_slot, false);
	gs_keys_capture_key(node->keys, node->row_slot, buf);
	return buf;
}

/* building keys from raw keys, on threads */
typedef struct EncodeArg
{
	const GsKeySpec *keys;
	const uint8 *raw;
	int			raw_bytes;
	int			nwords;
	uint64	   *out;
} EncodeArg;

static void
encode_slice(void *p, uint64 lo, uint64 hi)
{
	const EncodeArg *a = (const EncodeArg *) p;
	uint64		i;

	for (i = lo; i < hi; i++)
		gs_keys_encode(a->keys, a->raw + i * a->raw_bytes, i, a->out + i * a->nwords);
}

/*
 * Building the keys of stored rows whose raw keys were not kept (strings,
 * ICU sort keys: the costliest keys to make), on threads: each task deforms
 * its rows in a slot of its own and captures them with
 * gs_keys_capture_key_nothrow; where that gives up (a value to detoast, an ICU
 * failure) the task stops, and the backend's thread does the rest of the
 * task's rows with gs_keys_capture, which may allocate and raise.
 */
#define GS_CAPTURE_TASKS_PER_THREAD	4
#define GS_CAPTURE_RAW_MAX			160

typedef struct CaptureArg
{
	const GsKeySpec *keys;
	MinimalTuple *tuples;
	uint64		n;
	uint64		ntasks;
	TupleTableSlot **slots;		/* [ntasks] */
	uint64	   *stopped;		/* [ntasks]: the first row not done */
	int			raw_bytes;
	int			nwords;
	uint64	   *out;
} CaptureArg;

static void
capture_tasks(void *p, uint64 tlo, uint64 thi)
{
	CaptureArg *a = (CaptureArg *) p;
	uint8		raw[GS_CAPTURE_RAW_MAX];
	uint64		t;

	for (t = tlo; t < thi; t++)
	{
		TupleTableSlot *slot = a->slots[t];
		uint64		lo,
					hi,
					i;

		gs_team_slice(a->n, a->ntasks, t, &lo, &hi);
		for (i = lo; i < hi; i++)
		{
			gs_thread_slot_store(slot, a->tuples[i], 0);
			if (!gs_keys_capture_key_nothrow(a->keys, slot, raw))
				break;
			gs_keys_encode(a->keys, raw, i, a->out + i * a->nwords);
		}
		a->stopped[t] = i;
	}
}

static void
capture_threaded(GsSort *node, GsSorter *sorter, int nwords)
{
	CaptureArg	a;
	int			nthreads = gpusort_threads();
	TupleDesc	desc = node->row_slot->tts_tupleDescriptor;
	GsThreadSlots *slots;
	uint8	   *rawbuf = palloc(node->raw_bytes);
	uint64		t,
				i;

	a.keys = node->keys;
	a.tuples = node->tuples;
	a.n = node->ntuples;
	a.ntasks = (uint64) nthreads * GS_CAPTURE_TASKS_PER_THREAD;
	slots = gs_thread_slots_create(desc, (int) a.ntasks, node->tuples[0]);
	a.slots = slots->slots;
	a.stopped = palloc(sizeof(uint64) * a.ntasks);
	a.raw_bytes = node->raw_bytes;
	a.nwords = nwords;
	a.out = gs_sorter_push_n(sorter, a.n);
	gs_cpu_for_tasks(a.ntasks, nthreads, capture_tasks, &a);

	for (t = 0; t < a.ntasks; t++)
	{
		uint64		lo,
					hi;

		gs_team_slice(a.n, a.ntasks, t, &lo, &hi);
		for (i = a.stopped[t]; i < hi; i++)
		{
			ExecStoreMinimalTuple(node->tuples[i], node->row_slot, false);
			gs_keys_capture_key(node->keys, node->row_slot, rawbuf);
			gs_keys_encode(node->keys, rawbuf, i, a.out + i * nwords);
			gs_poll_interrupts(i + 1);
		}
	}
	ExecClearTuple(node->row_slot);
	gs_thread_slots_free(slots);
	pfree(a.stopped);
	pfree(rawbuf);
}

/* gathering row pointers into output order, on threads */
typedef struct GatherArg
{
	MinimalTuple *from;
	const uint32 *order;
	MinimalTuple *to;
	uint64		n;
} GatherArg;

static void
gather_slice(void *p, uint64 lo, uint64 hi)
{
	const GatherArg *a = (const GatherArg *) p;
	uint64		i;

	/* random reads: prefetching keeps more of them in flight */
	for (i = lo; i < hi; i++)
	{
		if (i + GS_GATHER_AHEAD < a->n)
			gs_prefetch(&a->from[a->order[i + GS_GATHER_AHEAD]]);
		a->to[i] = a->from[a->order[i]];
	}
}

/*
 * Copying rows into output order, on threads: rows that parallel
 * participants stored lie in shared memory of 4kB pages, in input order,
 * so returning them in sorted order costs a cache and a TLB miss each.
 * Instead the leader's threads copy them, many random reads in flight at
 * once, into one buffer in output order (gs_huge_alloc), which the node then
 * returns at the speed of sequential reads.  Two passes over slices of the
 * output: the bytes each slice needs, then the copies.
 */
#define GS_COPY_SLICES_PER_THREAD	4

typedef struct CopyArg
{
	MinimalTuple *from;
	const uint32 *order;
	MinimalTuple *to;
	uint64		n;
	uint64		nslices;
	Size	   *offsets;		/* [nslices + 1]: bytes before each slice */
	char	   *buf;
} CopyArg;

static void
copy_size_slices(void *p, uint64 slo, uint64 shi)
{
	CopyArg    *a = (CopyArg *) p;
	uint64		s;

	for (s = slo; s < shi; s++)
	{
		uint64		lo,
					hi,
					i;
		Size		bytes = 0;

		gs_team_slice(a->n, a->nslices, s, &lo, &hi);
		for (i = lo; i < hi; i++)
		{
			if (i + GS_GATHER_AHEAD < hi)
				gs_prefetch(a->from[a->order[i + GS_GATHER_AHEAD]]);
			bytes += MAXALIGN(a->from[a->order[i]]->t_len);
		}
		a->offsets[s + 1] = bytes;
	}
}

static void
copy_row_slices(void *p, uint64 slo, uint64 shi)
{
	CopyArg    *a = (CopyArg *) p;
	uint64		s;

	for (s = slo; s < shi; s++)
	{
		uint64		lo,
					hi,
					i;
		char	   *dst = a->buf + a->offsets[s];

		gs_team_slice(a->n, a->nslices, s, &lo, &hi);
		for (i = lo; i < hi; i++)
		{
			MinimalTuple tup = a->from[a->order[i]];

			if (i + GS_GATHER_AHEAD < hi)
				gs_prefetch(a->from[a->order[i + GS_GATHER_AHEAD]]);
			memcpy(dst, tup, tup->t_len);
			a->to[i] = (MinimalTuple) dst;
			dst += MAXALIGN(tup->t_len);
		}
	}
}

/* to[i] = a copy of from[order[i]], for i < n, in one buffer of runcxt */
static void
copy_in_order(GsSort *node, MinimalTuple *from, const uint32 *order,
			  MinimalTuple *to, uint64 n)
{
	CopyArg		a;
	int			nthreads = n >= GS_THREADED_MIN_ROWS ? gpusort_threads() : 1;
	uint64		s;
	instr_time	start;

	INSTR_TIME_SET_CURRENT(start);
	a.from = from;
	a.order = order;
	a.to = to;
	a.n = n;
	a.nslices = (uint64) nthreads * GS_COPY_SLICES_PER_THREAD;
	a.offsets = palloc0(sizeof(Size) * (a.nslices + 1));
	gs_cpu_for_tasks(a.nslices, nthreads, copy_size_slices, &a);
	for (s = 0; s < a.nslices; s++)
		a.offsets[s + 1] += a.offsets[s];
	a.buf = gs_huge_alloc(node->runcxt, Max(a.offsets[a.nslices], 1));
	gs_cpu_for_tasks(a.nslices, nthreads, copy_row_slices, &a);
	node->info.copied_bytes = a.offsets[a.nslices];
	node->info.ms_copy = gs_elapsed_ms(start);
	pfree(a.offsets);
}


/*
 * May the rows be copied into output order for a GpuWindow?  The copy
 * needs room for the rows a second time, until the stored ones go: only
 * when the budget and the server-wide account give it.
 */
bool
gs_sort_copy_rows_for_array(GsSort *node)
{
	Size		need = gs_sort_stored_bytes(node) + gs_rows_bytes(&node->rows);
	char		why[128];

	if (!gpusort_copy_rows || node->nout < GS_THREADED_MIN_ROWS ||
		need > gpusort_memory_budget())
		return false;
	return gs_sort_reserve_stored(node, need, why, sizeof(why));
}

/* step 2 with every raw key at hand: the keys are built on threads */
static void
encode_threaded(GsSort *node, GsSorter *sorter, int nwords)
{
	EncodeArg	a;

	a.keys = node->keys;
	a.raw = node->raw;
	a.raw_bytes = node->raw_bytes;
	a.nwords = nwords;
	a.out = gs_sorter_push_n(sorter, node->ntuples);
	gs_cpu_for_slices(node->ntuples, gpusort_threads(), encode_slice, &a);
}

/* step 2 on the backend's thread alone: few rows, or one thread */
static void
encode_serial(GsSort *node, GsSorter *sorter)
{
	uint8	   *rawbuf = palloc(node->raw_bytes);
	uint64		i;

	for (i = 0; i < node->ntuples; i++)
	{
		gs_keys_encode(node->keys, row_key_raw(node, i, rawbuf), i, gs_sorter_push(sorter));
		gs_poll_interrupts(i + 1);
	}
	pfree(rawbuf);
}

/*
 * Step 2: lays out the key and builds every stored row's key, in row
 * order, into a new sorter: from the kept raw keys, or from the stored rows
 * (on threads where the raw key is small enough to capture there).
 *
 * run_layout keeps the runs' layout, which the caller fixed
 * (gs_spill_fix_layout): keys that compare across runs, so no ranks, which
 * number one run's values; with flags GS_SORTER_KEYS_ONLY the sorter only
 * holds them for the run's writer.  Otherwise the layout is the one a sort
 * that fits would choose.
 */
GsSorter *
gs_sort_build_keys(GsSort *node, bool run_layout, int flags)
{
	GsKeySpec  *keys = node->keys;
	uint64		n = node->ntuples;
	int			nwords;
	GsSorter   *sorter;
	instr_time	start;

	INSTR_TIME_SET_CURRENT(start);
	if (!run_layout)
	{
		gs_sort_rank_columns(node);
		gs_keys_choose_layout(keys, n, row_raw, node);
	}
	nwords = gs_keys_nwords(keys);
	if (gs_keys_first_inexact(keys) < node->nkeys && !(flags & GS_SORTER_KEYS_ONLY))
		flags |= GS_SORTER_NEED_KEYS;
	sorter = gs_sorter_begin(nwords, n, flags);
	if (node->raw && n >= GS_THREADED_MIN_ROWS)
		encode_threaded(node, sorter, nwords);
	else if (!node->raw && n >= GS_THREADED_MIN_ROWS && gpusort_threads() > 1 &&
			 node->raw_bytes <= GS_CAPTURE_RAW_MAX)
		capture_threaded(node, sorter, nwords);
	else
		encode_serial(node, sorter);
	/* row_raw may have left a stored row in the slot */
	ExecClearTuple(node->row_slot);
	gs_sort_release_ranks(node);
	node->info.ms_keys += gs_elapsed_ms(start);
	return sorter;
}

/*
 * Steps 3 and 4: sorts the keys and settles the order where they do not
 * decide it, and sets nout.  Returns the row numbers in output order;
 * *settled_out is the array of runcxt that holds them (to be freed after
 * the output is gathered), or NULL when that is the sorter's own.
 */
const uint32 *
gs_sort_order_rows(GsSort *node, GsSorter *sorter, uint32 **settled_out)
{
	GsKeySpec  *keys = node->keys;
	uint64		n = node->ntuples;
	int			nwords = gs_keys_nwords(keys);
	int			first_inexact = gs_keys_first_inexact(keys);
	int			verify_col;
	const uint32 *order;
	uint32	   *settled = NULL;
	instr_time	start;

	INSTR_TIME_SET_CURRENT(start);
	gs_sorter_sort(sorter);
	node->info.ms_sort += gs_elapsed_ms(start);

	order = gs_sorter_rows(sorter);
	node->nout = (node->bounded && (uint64) node->bound < n) ? (uint64) node->bound : n;

	/* ties: runs of equal keys that start within the output (sortties.c) */
	if (first_inexact < node->nkeys && n > 1)
	{
		INSTR_TIME_SET_CURRENT(start);
		settled = gs_sort_settle_ties(node, order, gs_sorter_key(sorter, 0),
									  nwords, n, first_inexact);
		node->info.ms_ties += gs_elapsed_ms(start);
		if (settled)
			order = settled;
	}

	/* a libc collation's strxfrm prefix: its order checked (sortverify.c) */
	verify_col = gs_keys_verified_column(keys);
	if (verify_col >= 0)
	{
		INSTR_TIME_SET_CURRENT(start);
		settled = gs_sort_verify(node, order, settled, gs_sorter_key(sorter, 0),
								 nwords, n, verify_col);
		if (settled)
			order = settled;
		node->info.ms_verify += gs_elapsed_ms(start);
	}
	*settled_out = settled;
	return order;
}

/*
 * The array that is to hold the output's row pointers (room for nout), and
 * what becomes of the raw keys, whose last use this is.  A prune (keep_raw)
 * goes on storing rows after the kept ones, so their raw keys move into
 * output order, in a new array of the same capacity.  Otherwise the raw
 * keys are dead once the keys are built, and their array, when it is large
 * enough, becomes the pointer array: fresh memory is costly to fault in,
 * and this spares 8 bytes a row.  node->raw is NULL afterwards then.
 */
static MinimalTuple *
output_array(GsSort *node, const uint32 *order, bool keep_raw)
{
	Size		rb = node->raw_bytes;
	Size		bytes = sizeof(MinimalTuple) * Max(node->nout, 1);
	MinimalTuple *sorted;
	uint64		i;

	if (keep_raw)
	{
		if (node->raw)
		{
			uint8	   *raw = gs_huge_alloc(node->runcxt, rb * node->maxtuples);

			for (i = 0; i < node->nout; i++)
				memcpy(raw + i * rb, node->raw + (Size) order[i] * rb, rb);
			pfree(node->raw);
			node->raw = raw;
		}
		return gs_huge_alloc(node->runcxt, bytes);
	}
	if (node->raw && rb * node->maxtuples >= sizeof(MinimalTuple) * node->nout)
		sorted = (MinimalTuple *) node->raw;
	else
	{
		if (node->raw)
			pfree(node->raw);
		sorted = gs_huge_alloc(node->runcxt, bytes);
	}
	node->raw = NULL;
	return sorted;
}

/*
 * Step 5's pass: node->tuples becomes the first nout rows in output order.
 * Rows beyond nout stay in the row store, unreferenced, until it goes.
 */
void
gs_sort_gather_output(GsSort *node, const uint32 *order, bool keep_raw)
{
	MinimalTuple *sorted;
	instr_time	start;

	INSTR_TIME_SET_CURRENT(start);
	sorted = output_array(node, order, keep_raw);
	if (node->shared_bytes > 0 && gpusort_copy_rows &&
		(!node->forward_only || node->as_array))
		copy_in_order(node, node->tuples, order, sorted, node->nout);
	else if (node->as_array && node->array_copy && !keep_raw &&
			 gs_sort_copy_rows_for_array(node))
	{
		/*
		 * A GpuWindow, or a GpuAgg with string_agg or array_agg, reads
		 * every row twice, in output order (array_copy): once the rows lie
		 * in that order, both passes read memory in sequence instead of
		 * missing the cache at every row.  The rows as stored are freed
		 * once copied.
		 */
		copy_in_order(node, node->tuples, order, sorted, node->nout);
		gs_rows_release(&node->rows);
		gs_rows_init(&node->rows, node->runcxt, node->prefault);
	}
	else
	{
		GatherArg	a;

		a.from = node->tuples;
		a.order = order;
		a.to = sorted;
		a.n = node->nout;
		gs_cpu_for_slices(node->nout, gpusort_threads(), gather_slice, &a);
		/* the executor's thread returns rows, the others copy them */
		if (node->shared_bytes > 0 && gpusort_copy_rows)
			node->stream = gs_rowstream_create(node->runcxt, sorted, node->nout,
											   Max(gpusort_threads() - 1, 1));
	}
	pfree(node->tuples);
	node->tuples = sorted;
	if (!keep_raw)
		node->maxtuples = Max(node->nout, 1);
	node->ntuples = node->nout;
	node->info.ms_emit += gs_elapsed_ms(start);
}

/*
 * Sorts the stored rows: afterwards node->tuples holds the first nout rows
 * (all rows, or the first bound of them) in output order, and so does
 * node->raw when keep_raw (a prune goes on storing rows after them);
 * otherwise the raw keys are freed.
 */
void
gs_sort_stored(GsSort *node, bool keep_raw)
{
	MemoryContext oldcxt = MemoryContextSwitchTo(node->runcxt);
	GsSorter   *sorter;
	const uint32 *order;
	uint32	   *settled;

	sorter = gs_sort_build_keys(node, false, 0);
	order = gs_sort_order_rows(node, sorter, &settled);
	node->info.engine = *gs_sorter_stats(sorter);
	node->info.have_engine = true;
	gs_sort_note_peak_memory(node);
	gs_sort_gather_output(node, order, keep_raw);
	gs_sorter_end(sorter);
	if (settled)
		pfree(settled);
	MemoryContextSwitchTo(oldcxt);
}
