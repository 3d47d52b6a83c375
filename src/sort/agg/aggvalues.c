/*-------------------------------------------------------------------------
 *
 * aggvalues.c
 *	  GpuAgg over bare values: a plain Agg (no GROUP BY) whose aggregates
 *	  are count, sum or avg DISTINCT of one integer column, with count(*)
 *	  and count of that column beside them, computed from that column's
 *	  values alone (the plan: aggplan.c, gs_agg_values_plan).
 *
 * Stock PostgreSQL's plain Agg sorts the column's values as bare Datums, in
 * one process, and counts the runs of equal ones.  A GpuSort below the Agg
 * would store every input row whole before sorting it, which on a machine
 * whose GpuSort reads its rows in one process on the CPU costs about what
 * the Datum sort costs.  This node stores neither rows nor Datums: it reads
 * its input (the scan, as the planner made it), pushes each non-NULL value
 * as its one-word key (the two's complement value with the sign bit
 * flipped, which orders as the integer does) into a sort engine
 * (engine.h: radix sort on threads, or the GPU), and counts the runs of
 * equal keys of the sorted keys, summing one value of each run.  Where the
 * values span a range of at most GS_BITMAP_BITS_PER_VALUE times as many
 * integers as there are values (user ids, days: a dense domain), the sort
 * is not needed at all: one bit per integer of the range is set for each
 * value, and the bits set are the distinct values, in order (the bitmap
 * takes at most the keys' own memory, and one pass over them).
 *
 * Why only integers: the key must be equal exactly when the column's
 * equality says the values are equal, for the runs to be the DISTINCT
 * values.  int2, int4, int8, date, timestamp and timestamptz values are
 * equal exactly when their bits are (their equality compares the
 * integers), so their two's complement values are such keys; floats (-0
 * and 0, NaNs), numeric (scales) and text (collations) are not.  sum and
 * avg DISTINCT are computed for int2, int4 and int8, in int128 as
 * aggfuncs.c computes them, and returned by gs_agg_datum.
 *
 * Memory: the keys and the engine's work (GS_VALUE_BYTES per value) are
 * reserved from gpusort.max_memory and the server-wide account in steps as
 * the values come.  When a step cannot be had (or the engine's 2^32 pairs
 * are reached), the values pushed so far are sorted and moved, in order,
 * into a tuplesort of int8 Datums with work_mem (which spills to disk as
 * the Agg's own would), the engine's memory is freed, and the remaining
 * values go into that tuplesort; the runs are then counted from it.
 * EXPLAIN ANALYZE says which ran.
 *
 * Invariant: the results are the Agg's: count(*) counts every input row,
 * count(x) the non-NULL values, and the DISTINCT aggregates the runs of
 * equal non-NULL values, however they were sorted.
 *
 * The node supports neither backward scan nor mark (as the Agg); a rescan
 * without changed parameters returns the same row, one with changed
 * parameters reads its input again.
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "catalog/pg_operator.h"
#include "catalog/pg_type.h"
#include "executor/executor.h"
#include "miscadmin.h"
#include "portability/instr_time.h"
#include "utils/fmgroids.h"
#include "utils/memutils.h"
#include "port/pg_bitutils.h"
#include "utils/tuplesort.h"

#include "base/compat.h"
#include "aggfuncs.h"
#include "aggnode.h"
#include "engine/engine.h"
#include "memory/memaccount.h"
#include "runtime/settings.h"
#include "threads/threads.h"
#include "base/timing.h"
#include "threads/threads_backend.h"

/*
 * Bytes per value reserved: the engine's key buffer (one word, grown by
 * doubling, so up to two words a value while it grows) and the engine's
 * out-of-place sort of (key, row number) pairs
 */
#define GS_VALUE_BYTES		(2 * sizeof(uint64) + 2 * (sizeof(uint64) + sizeof(uint32)))

/* values between reservations */
#define GS_VALUE_STEP		((uint64) 64 * 1024)

/* the most values the engine sorts at once (its row numbers are 32-bit) */
#define GS_VALUE_MAX		((uint64) PG_UINT32_MAX)

#define GS_SIGN_BIT			((uint64) 1 << 63)

/* a bitmap instead of the sort where the range has at most this many bits a value */
#define GS_BITMAP_BITS_PER_VALUE	64

typedef struct GpuAggValuesState
{
	CustomScanState css;

	/* from the plan */
	GsAggFunc  *funcs;			/* specs; their results for the one group */
	int			nfuncs;
	AttrNumber	attno;			/* the column */
	Oid			argtype;
	int			ninput;			/* input columns, before the aggregates' */

	/* the current run */
	bool		computed;
	bool		returned;
	MemoryContext runcxt;		/* the engine's memory and the reservation */
	GsReservation *reservation;
	GsSorter   *sorter;			/* the values, while they fit */
	Tuplesortstate *tuplesort;	/* the values, once they did not */
	uint64		reserved_values;	/* values the reservation covers */
	int64		nrows;
	int64		nnotnull;
	int64		min;			/* of the values, once there is one */
	int64		max;
	int64		ndistinct;
#ifdef HAVE_INT128
	int128		sum;			/* of the distinct values */
#endif

	/* for EXPLAIN ANALYZE */
	bool		ran;
	char		why[160];		/* why the tuplesort ran, or "" */
	const char *engine;
	Size		reserved;
	double		ms_read;
	double		ms_sort;
} GpuAggValuesState;

static void values_begin(CustomScanState *node, EState *estate, int eflags);
static TupleTableSlot *values_exec(CustomScanState *node);
static void values_end(CustomScanState *node);
static void values_rescan(CustomScanState *node);
static void values_explain(CustomScanState *node, List *ancestors,
						   ExplainState *es);

static const CustomExecMethods values_exec_methods = {
	.CustomName = GPUAGG_NODE_NAME,
	.BeginCustomScan = values_begin,
	.ExecCustomScan = values_exec,
	.EndCustomScan = values_end,
	.ReScanCustomScan = values_rescan,
	.ExplainCustomScan = values_explain,
};

bool
gs_agg_values_type_ok(Oid type, Oid eqop)
{
	switch (type)
	{
		case INT2OID:
			return get_opcode(eqop) == F_INT2EQ;
		case INT4OID:
			return get_opcode(eqop) == F_INT4EQ;
		case INT8OID:
			return get_opcode(eqop) == F_INT8EQ;
		case DATEOID:
			return get_opcode(eqop) == F_DATE_EQ;
		case TIMESTAMPOID:
			return get_opcode(eqop) == F_TIMESTAMP_EQ;
		case TIMESTAMPTZOID:
			return get_opcode(eqop) == F_TIMESTAMPTZ_EQ;
		default:
			return false;
	}
}

Node *
gs_agg_values_create_state(CustomScan *cscan)
{
	GpuAggValuesState *node = palloc0(sizeof(GpuAggValuesState));

	NodeSetTag(node, T_CustomScanState);
	node->css.flags = cscan->flags;
	node->css.methods = &values_exec_methods;
	return (Node *) node;
}

static void
values_begin(CustomScanState *cnode, EState *estate, int eflags)
{
	GpuAggValuesState *node = (GpuAggValuesState *) cnode;
	CustomScan *cscan = (CustomScan *) cnode->ss.ps.plan;
	List	   *aggrefs = list_nth(cscan->custom_private, GSAP_AGGREFS);
	ListCell   *lc;
	int			k = 0;

	outerPlanState(node) = ExecInitNode(outerPlan(cscan), estate, eflags);
	node->ninput = ExecGetResultType(outerPlanState(node))->natts;
	node->nfuncs = list_length(aggrefs);
	node->funcs = palloc0(sizeof(GsAggFunc) * Max(node->nfuncs, 1));
	foreach(lc, aggrefs)
	{
		GsAggFunc  *f = &node->funcs[k++];
		GsAggSortCol sort;
		bool		sorts;
		const char *why;

		if (!gs_agg_func_from_aggref(lfirst(lc), f, &sort, &sorts, &why))
			elog(ERROR, "GpuAgg cannot compute its aggregate: %s", why);
		if (sorts)
		{
			node->attno = sort.attno;
			node->argtype = f->argtype;
		}
		/* one result each, read by gs_agg_datum */
		f->i64 = palloc0(sizeof(int64));
#ifdef HAVE_INT128
		f->sum = palloc0(sizeof(int128));
#endif
	}
	if (node->attno == 0)
		elog(ERROR, "GpuAgg over values has no DISTINCT aggregate");
}

/* the column's value, as the integer its equality compares */
static inline int64
value_int(Oid type, Datum d)
{
	switch (type)
	{
		case INT2OID:
			return DatumGetInt16(d);
		case INT4OID:
		case DATEOID:
			return DatumGetInt32(d);
		default:
			return DatumGetInt64(d);
	}
}

/* a key that orders as the integer does: the sign bit flipped */
static inline uint64
int_key(int64 v)
{
	return (uint64) v ^ GS_SIGN_BIT;
}

static inline int64
key_int(uint64 key)
{
	return (int64) (key ^ GS_SIGN_BIT);
}

/*
 * Reserves room for GS_VALUE_STEP more values in the engine; false, with
 * node->why set, where gpusort.max_memory, the account or the engine's
 * limit refuses
 */
static bool
reserve_step(GpuAggValuesState *node)
{
	Size		bytes = GS_VALUE_STEP * GS_VALUE_BYTES;

	if (node->reserved_values + GS_VALUE_STEP > GS_VALUE_MAX)
		strlcpy(node->why, "more than 2^32 - 1 values", sizeof(node->why));
	else if (node->reserved + bytes > gpusort_memory_budget())
		strlcpy(node->why, "the values need more than gpusort.max_memory",
				sizeof(node->why));
	else if (!gs_reserve(node->reservation, GS_ACCT_MEM, bytes,
						 gpusort_total_memory_limit()))
		strlcpy(node->why, "the server's sorts hold gpusort.max_total_memory",
				sizeof(node->why));
	else
	{
		node->reserved += bytes;
		node->reserved_values += GS_VALUE_STEP;
		return true;
	}
	return false;
}

/*
 * The values outgrew the engine's memory: they go, sorted, into a
 * tuplesort of int8 Datums, which takes the rest; the engine's memory and
 * the reservation are given back
 */
static void
to_tuplesort(GpuAggValuesState *node)
{
	uint64		n = gs_sorter_count(node->sorter);
	uint64		r;
	MemoryContext oldcxt = MemoryContextSwitchTo(node->runcxt);

	node->tuplesort = tuplesort_begin_datum(INT8OID, Int8LessOperator,
											InvalidOid, false, work_mem,
											NULL, TUPLESORT_NONE);
	gs_sorter_sort(node->sorter);
	for (r = 0; r < n; r++)
	{
		gs_poll_interrupts(r + 1);
		tuplesort_putdatum(node->tuplesort,
						   Int64GetDatum(key_int(*gs_sorter_key(node->sorter, r))),
						   false);
	}
	gs_sorter_end(node->sorter);
	node->sorter = NULL;
	gs_release_all(node->reservation);
	MemoryContextSwitchTo(oldcxt);
}

/* reads every input row: counts rows and values, pushes the values */
static void
read_values(GpuAggValuesState *node)
{
	PlanState  *input = outerPlanState(node);
	Oid			type = node->argtype;
	AttrNumber	attno = node->attno;

	for (;;)
	{
		TupleTableSlot *slot = ExecProcNode(input);
		Datum		d;
		bool		isnull;
		int64		v;

		if (TupIsNull(slot))
			break;
		gs_poll_interrupts(++node->nrows);
		d = slot_getattr(slot, attno, &isnull);
		if (isnull)
			continue;
		v = value_int(type, d);
		if (node->nnotnull == 0 || v < node->min)
			node->min = v;
		if (node->nnotnull == 0 || v > node->max)
			node->max = v;
		node->nnotnull++;
		if (node->tuplesort == NULL &&
			(uint64) node->nnotnull > node->reserved_values && !reserve_step(node))
			to_tuplesort(node);
		if (node->tuplesort)
			tuplesort_putdatum(node->tuplesort, Int64GetDatum(v), false);
		else
			*gs_sorter_push(node->sorter) = int_key(v);
	}
}

/* counts (and sums) the runs of equal values the engine sorted */
static void
count_sorted_keys(GpuAggValuesState *node)
{
	uint64		n = gs_sorter_count(node->sorter);
	uint64		prev = 0;
	uint64		r;

	for (r = 0; r < n; r++)
	{
		uint64		key = *gs_sorter_key(node->sorter, r);

		gs_poll_interrupts(r + 1);
		if (r > 0 && key == prev)
			continue;
		prev = key;
		node->ndistinct++;
#ifdef HAVE_INT128
		node->sum += key_int(key);
#endif
	}
}

/* the same, of the tuplesort */
static void
count_tuplesort(GpuAggValuesState *node)
{
	Datum		d;
	bool		isnull;
	int64		prev = 0;
	uint64		r = 0;

	while (gs_tuplesort_getdatum(node->tuplesort, &d, &isnull))
	{
		int64		v = DatumGetInt64(d);

		gs_poll_interrupts(++r);
		if (r > 1 && v == prev)
			continue;
		prev = v;
		node->ndistinct++;
#ifdef HAVE_INT128
		node->sum += v;
#endif
	}
}

/* every aggregate's one result */
static void
fill_results(GpuAggValuesState *node)
{
	int			k;

	for (k = 0; k < node->nfuncs; k++)
	{
		GsAggFunc  *f = &node->funcs[k];

		switch (f->fn)
		{
			case GSA_COUNT_STAR:
				f->i64[0] = node->nrows;
				break;
			case GSA_COUNT:
				f->i64[0] = node->nnotnull;
				break;
			default:
				/* count, sum and avg DISTINCT: NULL sums over no values */
				f->i64[0] = node->ndistinct;
#ifdef HAVE_INT128
				f->sum[0] = node->sum;
#endif
				break;
		}
	}
}

/*
 * Counts (and sums) the distinct values pushed so far with a bitmap of
 * their range, where it is small enough and its memory can be had (see
 * the header); false, having done nothing, otherwise
 */
static bool
count_by_bitmap(GpuAggValuesState *node)
{
	uint64		n = gs_sorter_count(node->sorter);
	uint64		span = (uint64) node->max - (uint64) node->min;
	const uint64 *keys;
	uint64	   *bits;
	uint64		nwords;
	Size		bytes;
	uint64		i;

	if (n == 0 || span / GS_BITMAP_BITS_PER_VALUE >= n)
		return false;
	nwords = span / 64 + 1;
	bytes = nwords * sizeof(uint64);
	if (node->reserved + bytes > gpusort_memory_budget() ||
		!gs_reserve(node->reservation, GS_ACCT_MEM, bytes,
					gpusort_total_memory_limit()))
		return false;
	node->reserved += bytes;
	bits = MemoryContextAllocExtended(node->runcxt, bytes,
									  MCXT_ALLOC_HUGE | MCXT_ALLOC_ZERO);
	keys = gs_sorter_pushed(node->sorter);
	for (i = 0; i < n; i++)
	{
		uint64		b = (uint64) key_int(keys[i]) - (uint64) node->min;

		if ((i + 1) % (GS_INTERRUPT_EVERY * 16) == 0)
			CHECK_FOR_INTERRUPTS();
		bits[b / 64] |= (uint64) 1 << (b % 64);
	}
	for (i = 0; i < nwords; i++)
	{
		uint64		w = bits[i];

		node->ndistinct += pg_popcount64(w);
#ifdef HAVE_INT128
		while (w != 0)
		{
			node->sum += (int64) ((uint64) node->min + i * 64 + pg_rightmost_one_pos64(w));
			w &= w - 1;
		}
#endif
	}
	pfree(bits);
	return true;
}

/*
 * reads, sorts and counts; the results are in node->funcs.  The input is
 * read in the caller's context (a scan begun there lives as long as the
 * plan does); the engine and the tuplesort live in runcxt.
 */
static void
values_run(GpuAggValuesState *node)
{
	EState	   *estate = node->css.ss.ps.state;
	Plan	   *input = outerPlan(node->css.ss.ps.plan);
	MemoryContext oldcxt;
	instr_time	start;

	node->ran = true;
	node->why[0] = '\0';
	node->runcxt = AllocSetContextCreate(estate->es_query_cxt, "GpuAgg values",
										 ALLOCSET_DEFAULT_SIZES);
	oldcxt = MemoryContextSwitchTo(node->runcxt);
	node->reservation = gs_reservation_create(node->runcxt);
	node->sorter = gs_sorter_begin(1, (uint64) Max(input->plan_rows, 0.0),
								   GS_SORTER_NEED_KEYS);
	MemoryContextSwitchTo(oldcxt);
	INSTR_TIME_SET_CURRENT(start);
	read_values(node);
	node->ms_read = gs_elapsed_ms(start);
	INSTR_TIME_SET_CURRENT(start);
	oldcxt = MemoryContextSwitchTo(node->runcxt);
	if (node->tuplesort)
	{
		node->engine = "tuplesort";
		tuplesort_performsort(node->tuplesort);
		count_tuplesort(node);
		tuplesort_end(node->tuplesort);
		node->tuplesort = NULL;
	}
	else
	{
		if (count_by_bitmap(node))
			node->engine = "bitmap";
		else
		{
			gs_sorter_sort(node->sorter);
			node->engine = gs_sorter_stats(node->sorter)->engine;
			count_sorted_keys(node);
		}
		gs_sorter_end(node->sorter);
		node->sorter = NULL;
	}
	MemoryContextSwitchTo(oldcxt);
	node->ms_sort = gs_elapsed_ms(start);
	fill_results(node);
	node->computed = true;
}

/* the one row: no input columns (a plain Agg reads none outside its aggregates) */
static TupleTableSlot *
values_exec(CustomScanState *cnode)
{
	GpuAggValuesState *node = (GpuAggValuesState *) cnode;
	ExprContext *econtext = cnode->ss.ps.ps_ExprContext;
	TupleTableSlot *scan = cnode->ss.ss_ScanTupleSlot;
	MemoryContext oldcxt;
	int			k;

	if (!node->computed)
		values_run(node);
	if (node->returned)
		return ExecClearTuple(cnode->ss.ps.ps_ResultTupleSlot);
	node->returned = true;
	ResetExprContext(econtext);
	ExecClearTuple(scan);
	memset(scan->tts_values, 0, sizeof(Datum) * node->ninput);
	memset(scan->tts_isnull, true, sizeof(bool) * node->ninput);
	oldcxt = MemoryContextSwitchTo(econtext->ecxt_per_tuple_memory);
	for (k = 0; k < node->nfuncs; k++)
		scan->tts_values[node->ninput + k] =
			gs_agg_datum(&node->funcs[k], 0, NULL, NULL,
						 &scan->tts_isnull[node->ninput + k]);
	MemoryContextSwitchTo(oldcxt);
	ExecStoreVirtualTuple(scan);
	econtext->ecxt_scantuple = scan;
	if (cnode->ss.ps.qual && !ExecQual(cnode->ss.ps.qual, econtext))
	{
		InstrCountFiltered1(node, 1);
		return ExecClearTuple(cnode->ss.ps.ps_ResultTupleSlot);
	}
	return cnode->ss.ps.ps_ProjInfo ? ExecProject(cnode->ss.ps.ps_ProjInfo) : scan;
}

/* frees the current run */
static void
values_reset(GpuAggValuesState *node)
{
	if (node->tuplesort)
		tuplesort_end(node->tuplesort);
	node->tuplesort = NULL;
	node->sorter = NULL;		/* in runcxt */
	if (node->runcxt)
		MemoryContextDelete(node->runcxt);	/* and the reservation */
	node->runcxt = NULL;
	node->reservation = NULL;
	node->reserved_values = 0;
	node->nrows = node->nnotnull = node->ndistinct = 0;
#ifdef HAVE_INT128
	node->sum = 0;
#endif
	node->computed = false;
	node->returned = false;
}

static void
values_end(CustomScanState *cnode)
{
	values_reset((GpuAggValuesState *) cnode);
	ExecEndNode(outerPlanState(cnode));
}

static void
values_rescan(CustomScanState *cnode)
{
	GpuAggValuesState *node = (GpuAggValuesState *) cnode;
	PlanState  *input = outerPlanState(node);

	ExecClearTuple(cnode->ss.ps.ps_ResultTupleSlot);
	/* the same input: the same row */
	if (node->computed && cnode->ss.ps.chgParam == NULL)
	{
		node->returned = false;
		return;
	}
	values_reset(node);
	node->reserved = 0;
	if (input->chgParam == NULL)
		ExecReScan(input);
}

static void
values_explain(CustomScanState *cnode, List *ancestors, ExplainState *es)
{
	GpuAggValuesState *node = (GpuAggValuesState *) cnode;
	List	   *names = NIL;
	int			k;

	for (k = 0; k < node->nfuncs; k++)
		names = lappend(names, (char *) gs_agg_name(&node->funcs[k]));
	ExplainPropertyList("Aggregates", names, es);
	if (!es->analyze || !node->ran)
		return;
	ExplainPropertyText("Values Counted By", node->engine, es);
	if (node->why[0])
		ExplainPropertyText("GpuAgg Fallback", node->why, es);
	ExplainPropertyInteger("Values", NULL, node->nnotnull, es);
	ExplainPropertyInteger("Distinct Values", NULL, node->ndistinct, es);
	ExplainPropertyInteger("Aggregate Memory", "kB", (node->reserved + 1023) / 1024, es);
	if (es->timing)
	{
		ExplainPropertyFloat("Time Reading Values", "ms", node->ms_read, 3, es);
		ExplainPropertyFloat("Time Counting Values", "ms", node->ms_sort, 3, es);
	}
}
