/*-------------------------------------------------------------------------
 *
 * winresult.c
 *	  GpuWindow's last pass: row i's value of a window function as the
 *	  Datum WindowAgg returns (the backend, row by row as the node returns
 *	  them).
 *
 * numeric results (sums, averages, integer statistics) are made as
 * numeric bytes on threads first (gs_win_encode_results, winexpr.c's
 * gs_win_numeric_encode), so that returning one is a pointer; the rows
 * the threads cannot give are made here with numeric.c's functions (avg
 * divides with numeric_div, as numeric_avg does).  lag's, lead's and the
 * value functions' arguments are read, or evaluated, on the row they name
 * when the row is returned (argument_at).  An error WindowAgg would raise
 * while evaluating a row is raised when that row is returned
 * (gs_win_first_error says which), not before.
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include <math.h>

#include "access/htup_details.h"
#include "access/transam.h"
#include "catalog/pg_collation.h"
#include "catalog/pg_language.h"
#include "catalog/pg_proc.h"
#include "catalog/pg_type.h"
#include "executor/executor.h"
#include "miscadmin.h"
#include "nodes/nodeFuncs.h"
#include "optimizer/clauses.h"
#include "optimizer/optimizer.h"
#include "lib/stringinfo.h"
#include "utils/builtins.h"
#include "utils/date.h"
#include "utils/fmgroids.h"
#include "utils/lsyscache.h"
#include "utils/memutils.h"
#include "utils/syscache.h"
#include "utils/numeric.h"
#include "utils/timestamp.h"

#include "intake/rowstore.h"
#include "threads/thread_slots.h"
#include "threads/threads_backend.h"
#include "windowfuncs.h"
#include "winexpr.h"
#include "winnumeric.h"

/* ---- 3. results -------------------------------------------------------------------- */

typedef struct EncodeArg
{
	GsWinFunc  *funcs;
	int			nfuncs;
} EncodeArg;

#ifdef HAVE_INT128
/*
 * Row i's numeric sum or avg as bytes (numeric_sum's make_result, or
 * numeric_avg's numeric_div of the sum by the count), or length 0 for the
 * backend: NULL, NaN and the infinities, a quotient the threads cannot
 * give.  A row with the row before's sum, scale and count (peers, a whole
 * partition) copies its bytes.
 */
static inline void
encode_row(GsWinFunc *f, uint64 i, bool first)
{
	char	   *out = f->resbytes + i * GSW_NUM_ENCODED_MAX;
	int16		sc = f->rscale[i];
	int128		q;
	int16		qscale;

	SET_VARSIZE(out, 0);
	if (f->isnull[i] || sc < 0 || sc > GSW_NUM_MAX_SCALE)
		return;
	if (!first && f->rscale[i - 1] == sc && f->wide[i - 1] == f->wide[i] &&
		!f->isnull[i - 1] && (f->fn != GSW_AVG || f->cnt[i - 1] == f->cnt[i]))
	{
		memcpy(out, out - GSW_NUM_ENCODED_MAX, GSW_NUM_ENCODED_MAX);
		return;
	}
	if (f->fn != GSW_AVG)
		(void) gs_win_numeric_encode(f->wide[i], sc, out);
	else if (gs_win_numeric_div(f->wide[i], sc, (int128) f->cnt[i], 0, &q, &qscale))
		(void) gs_win_numeric_encode(q, qscale, out);
}
#endif

static void
encode_slice(void *p, uint64 lo, uint64 hi)
{
#ifdef HAVE_INT128
	EncodeArg  *a = (EncodeArg *) p;
	uint64		i;
	int			k;

	for (k = 0; k < a->nfuncs; k++)
	{
		GsWinFunc  *f = &a->funcs[k];

		if (f->resbytes == NULL)
			continue;
		for (i = lo; i < hi; i++)
		{
			if (((i - lo) & (GS_INTERRUPT_EVERY - 1)) == GS_INTERRUPT_EVERY - 1 &&
				gs_slice_stopped())
				return;
			encode_row(f, i, i == lo);
		}
	}
#endif
}

void
gs_win_encode_results(GsWinFunc *funcs, int nfuncs, uint64 n, int nthreads)
{
	EncodeArg	a;
	int			k;

	gs_win_expr_prepare();
	for (k = 0; k < nfuncs; k++)
		if (GSW_ENCODES_RESULTS(&funcs[k]))
			funcs[k].resbytes = palloc_extended((Size) GSW_NUM_ENCODED_MAX * Max(n, 1),
												MCXT_ALLOC_HUGE);
	a.funcs = funcs;
	a.nfuncs = nfuncs;
	if (n > 0)
		gs_cpu_for_slices(n, nthreads, encode_slice, &a);
}

typedef struct ValuesArg
{
	GsWinFunc  *funcs;
	int			nfuncs;
	MinimalTuple *rows;
	uint64		n;
	uint64		ntasks;
	TupleTableSlot **slots;		/* [ntasks] */
} ValuesArg;

static void
values_tasks(void *p, uint64 tlo, uint64 thi)
{
	ValuesArg  *a = (ValuesArg *) p;
	uint64		t;

	for (t = tlo; t < thi; t++)
	{
		TupleTableSlot *slot = a->slots[t];
		uint64		lo,
					hi,
					i;
		int			k;

		gs_team_slice(a->n, a->ntasks, t, &lo, &hi);
		for (i = lo; i < hi; i++)
		{
			if (((i - lo) & (GS_INTERRUPT_EVERY - 1)) == GS_INTERRUPT_EVERY - 1 &&
				gs_slice_stopped())
				return;
			for (k = 0; k < a->nfuncs; k++)
			{
				GsWinFunc  *f = &a->funcs[k];
				int64		src;

				if (f->vald == NULL)
					continue;
				src = f->i64[i];
				f->valnull[i] = true;
				f->vald[i] = (Datum) 0;
				if (src < 0 || f->isnull[i])
					continue;
				gs_thread_slot_store(slot, a->rows[src], f->argattno);
				f->vald[i] = slot->tts_values[f->argattno - 1];
				f->valnull[i] = slot->tts_isnull[f->argattno - 1];
			}
		}
	}
}

void
gs_win_read_values(GsWinFunc *funcs, int nfuncs, const bool *want,
				   MinimalTuple *rows, uint64 n, TupleDesc desc, int nthreads)
{
	ValuesArg	a;
	GsThreadSlots *slots;
	int			k;

	for (k = 0; k < nfuncs; k++)
		if (GSW_READS_VALUES(&funcs[k]) && want[k])
		{
			funcs[k].vald = palloc_extended(sizeof(Datum) * Max(n, 1), MCXT_ALLOC_HUGE);
			funcs[k].valnull = palloc_extended(sizeof(bool) * Max(n, 1), MCXT_ALLOC_HUGE);
		}
	if (n == 0)
		return;
	a.funcs = funcs;
	a.nfuncs = nfuncs;
	a.rows = rows;
	a.n = n;
	a.ntasks = (uint64) Max(nthreads, 1) * 4;
	slots = gs_thread_slots_create(desc, (int) a.ntasks, rows[0]);
	a.slots = slots->slots;
	gs_cpu_for_tasks(a.ntasks, nthreads, values_tasks, &a);
	gs_thread_slots_free(slots);
}

#ifdef HAVE_INT128
/* an int128 as numeric, as numeric.c's int128_to_numericvar makes it */
static Datum
int128_numeric(int128 v)
{
	const int64 e18 = INT64CONST(1000000000000000000);
	Datum		hi,
				lo;

	if (v >= PG_INT64_MIN && v <= PG_INT64_MAX)
		return NumericGetDatum(int64_to_numeric((int64) v));
	/* |v| < 2^95 here (fewer than 2^32 rows): v / 10^18 fits an int64 */
	hi = DirectFunctionCall2(numeric_mul,
							 NumericGetDatum(int64_to_numeric((int64) (v / e18))),
							 NumericGetDatum(int64_to_numeric(e18)));
	lo = NumericGetDatum(int64_to_numeric((int64) (v % e18)));
	return DirectFunctionCall2(numeric_add, hi, lo);
}
#endif

#ifdef HAVE_INT128
/*
 * v / 10^scale as a numeric of display scale scale, exactly as numeric.c's
 * accumulator makes a sum: the value and the scale make the result
 */
static Datum
fixed_numeric(int128 v, int scale)
{
	char		buf[64];
	char	   *p = buf + sizeof(buf);
	bool		neg = v < 0;
	int			digits = 0;

	if (v >= PG_INT64_MIN && v <= PG_INT64_MAX)
		return NumericGetDatum(int64_div_fast_to_numeric((int64) v, scale));
	/* |v| < 2^127: its decimal digits, with the point scale digits in */
	*--p = '\0';
	while (v != 0 || digits <= scale)
	{
		int			d = (int) (v % 10);

		*--p = (char) ('0' + (d < 0 ? -d : d));
		v /= 10;
		if (++digits == scale)
			*--p = '.';
	}
	if (neg)
		*--p = '-';
	return DirectFunctionCall3(numeric_in, CStringGetDatum(p),
							   ObjectIdGetDatum(InvalidOid), Int32GetDatum(-1));
}

static Datum
numeric_special(int16 kind)
{
	return DirectFunctionCall3(numeric_in,
							   CStringGetDatum(kind == GSW_NUM_NAN ? "NaN" :
											   kind == GSW_NUM_PINF ? "Infinity" :
											   "-Infinity"),
							   ObjectIdGetDatum(InvalidOid), Int32GetDatum(-1));
}

/* numeric_sum's and numeric_avg's result, from the sum and the count */
static Datum
numeric_result(GsWinFunc *f, uint64 i)
{
	Datum		sum;

	if (f->rscale[i] < 0)
		return numeric_special(f->rscale[i]);
	sum = fixed_numeric(f->wide[i], f->rscale[i]);
	if (f->fn != GSW_AVG)
		return sum;				/* a sum, a variance or a stddev */
	return DirectFunctionCall2(numeric_div, sum,
							   NumericGetDatum(int64_to_numeric(f->cnt[i])));
}

/*
 * Row i's numeric sum or avg: the last one made when row i's sum, scale
 * and count are the last one's (a whole partition's rows, peers), else
 * made again into cachecxt, reset first
 */
static Datum
numeric_aggregate_datum(GsWinFunc *f, uint64 i)
{
	uint64		c = f->cached_row;
	MemoryContext oldcxt;

	if (f->cachecxt == NULL)
		return numeric_result(f, i);
	if (f->has_cached && f->wide[c] == f->wide[i] &&
		f->rscale[c] == f->rscale[i] &&
		(f->fn != GSW_AVG || f->cnt[c] == f->cnt[i]))
		return f->cached;
	MemoryContextReset(f->cachecxt);
	oldcxt = MemoryContextSwitchTo(f->cachecxt);
	f->cached = numeric_result(f, i);
	MemoryContextSwitchTo(oldcxt);
	f->cached_row = i;
	f->has_cached = true;
	return f->cached;
}
#endif

/* row's argument of f, read or evaluated on nav_slot (in the backend) */
static Datum
argument_at(GsWinFunc *f, MinimalTuple row, TupleTableSlot *nav_slot,
			bool *isnull)
{
	ExecStoreMinimalTuple(row, nav_slot, false);
	if (f->argstate == NULL)
		return slot_getattr(nav_slot, f->argattno, isnull);
	f->argcxt->ecxt_outertuple = nav_slot;
	return ExecEvalExpr(f->argstate, f->argcxt, isnull);
}

static Datum
aggregate_datum(GsWinFunc *f, uint64 i, MinimalTuple *rows,
				TupleTableSlot *nav_slot)
{
	Datum		sum;

#ifdef HAVE_INT128
	if (f->resbytes != NULL &&
		VARSIZE(f->resbytes + i * GSW_NUM_ENCODED_MAX) != 0)
		return PointerGetDatum(f->resbytes + i * GSW_NUM_ENCODED_MAX);
	if (GSW_ENCODES_RESULTS(f))
		return numeric_aggregate_datum(f, i);
	if (f->arg == GSW_ARG_NUMERIC)
	{
		bool		isnull;

		/* min and max: the value of the row kept, which was not NULL */
		return argument_at(f, rows[f->i64[i]], nav_slot, &isnull);
	}
#endif
	if (f->arg != GSW_ARG_INT)
		return f->restype == FLOAT4OID ? Float4GetDatum((float4) f->f8[i]) :
			Float8GetDatum(f->f8[i]);
	if (f->fn == GSW_MIN || f->fn == GSW_MAX)
	{
		switch (f->argtype)
		{
			case INT2OID:
				return Int16GetDatum((int16) f->i64[i]);
			case INT4OID:
				return Int32GetDatum((int32) f->i64[i]);
			case DATEOID:
				return DateADTGetDatum((DateADT) f->i64[i]);
			default:
				return Int64GetDatum(f->i64[i]);
		}
	}
#ifdef HAVE_INT128
	if (f->wide)
		sum = int128_numeric(f->wide[i]);
	else
#endif
	if (f->fn == GSW_SUM)
		return Int64GetDatum(f->i64[i]);	/* sum(int2), sum(int4): int8 */
	else
		sum = NumericGetDatum(int64_to_numeric(f->i64[i]));
	if (f->fn == GSW_SUM)
		return sum;
	return DirectFunctionCall2(numeric_div, sum,
							   NumericGetDatum(int64_to_numeric(f->cnt[i])));
}

Datum
gs_win_datum(GsWinFunc *f, uint64 i, MinimalTuple *rows,
			 TupleTableSlot *nav_slot, bool *isnull)
{
	*isnull = f->isnull[i];
	if (*isnull)
		return (Datum) 0;
	switch (f->fn)
	{
		case GSW_PERCENT_RANK:
		case GSW_CUME_DIST:
			return Float8GetDatum(f->f8[i]);
		case GSW_NTILE:
			return Int32GetDatum((int32) f->i64[i]);
		case GSW_LAG:
		case GSW_LEAD:
		case GSW_FIRST_VALUE:
		case GSW_LAST_VALUE:
		case GSW_NTH_VALUE:
			if (f->i64[i] == -1)
			{
				*isnull = true;
				return (Datum) 0;
			}
			if (f->i64[i] == -2)
			{
				*isnull = f->defnull;
				return f->defval;
			}
			if (f->vald != NULL)
			{
				*isnull = f->valnull[i];
				return f->vald[i];
			}
			return argument_at(f, rows[f->i64[i]], nav_slot, isnull);
		case GSW_SUM:
		case GSW_AVG:
		case GSW_MIN:
		case GSW_MAX:
		case GSW_VAR_POP:
		case GSW_VAR_SAMP:
		case GSW_STDDEV_POP:
		case GSW_STDDEV_SAMP:
			return aggregate_datum(f, i, rows, nav_slot);
		default:
			return Int64GetDatum(f->i64[i]);
	}
}

int
gs_win_first_error(GsWinFunc *funcs, int nfuncs, uint64 r, uint64 *row)
{
	int			first = -1;
	int			k;

	for (k = 0; k < nfuncs; k++)
	{
		GsWinFunc  *f = &funcs[k];

		if (f->errrow == NULL || f->errrow[r] == 0)
			continue;
		if (first < 0 || f->errrow[r] - 1 < *row)
		{
			first = k;
			*row = f->errrow[r] - 1;
		}
	}
	return first;
}
