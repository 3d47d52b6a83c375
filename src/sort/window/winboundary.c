/*-------------------------------------------------------------------------
 *
 * winboundary.c
 *	  GpuWindow's first pass over the sorted rows: where each partition
 *	  and peer group starts, and the aggregates' arguments read into
 *	  arrays.
 *
 * Boundaries (threads, slices of rows): each row is compared with the row
 * before it on the partition columns, then the order columns, with the
 * semantics of the window's equality operators (NULLs equal, as
 * WindowAgg's grouping comparisons have it), giving flags[i]; the
 * aggregates' arguments are read into arrays on the way (gs_win_store_arg;
 * numerics as fixed point, winnumeric.c), and the RANGE keys winrange.c
 * computes frames from.  A pair that plain C cannot compare (a compressed
 * or toasted string, a type whose equality is not byte-wise, such as
 * numeric) is marked GSW_UNSURE and compared afterwards in the backend
 * with the operator's function.
 *
 * An argument that is an expression rather than a column: an aggregate's
 * is computed on the threads of this pass when it is fixed-point
 * arithmetic (winexpr.c), and otherwise, or for the rows that program
 * leaves, it is evaluated in the backend over every row between this pass
 * and the functions' (windownode.c's evaluate_arguments, which records an
 * error instead of raising it, see winplan.c's arg_expr_walker); lag's,
 * lead's and the value functions' on the row they read, when the row is
 * returned (winresult.c's argument_at).
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
#include "winpass.h"
#include "winrange.h"

/*
 * Rows ahead whose tuples the boundaries pass prefetches: rows that were not
 * copied into output order lie where they were stored, and each would
 * otherwise wait on memory alone
 */
#define GSW_ROW_AHEAD			16

/* ---- 1. boundaries ----------------------------------------------------------------- */

/* 1: equal, 0: not, -1: plain C cannot tell */
static inline int
values_equal(const GsWinCol *col, Datum a, bool anull, Datum b, bool bnull)
{
	if (anull || bnull)
		return anull && bnull;
	switch (col->eq)
	{
		case GSW_EQ_BYVAL:
			return a == b;
		case GSW_EQ_FLOAT4:
			{
				float4		x = DatumGetFloat4(a),
							y = DatumGetFloat4(b);

				return x == y || (isnan(x) && isnan(y));
			}
		case GSW_EQ_FLOAT8:
			{
				float8		x = DatumGetFloat8(a),
							y = DatumGetFloat8(b);

				return x == y || (isnan(x) && isnan(y));
			}
		case GSW_EQ_BYTES:
		case GSW_EQ_BPCHAR:
			{
				const struct varlena *x = (const struct varlena *) DatumGetPointer(a);
				const struct varlena *y = (const struct varlena *) DatumGetPointer(b);
				const char *xs,
						   *ys;
				Size		xl,
							yl;

				if (VARATT_IS_EXTERNAL(x) || VARATT_IS_COMPRESSED(x) ||
					VARATT_IS_EXTERNAL(y) || VARATT_IS_COMPRESSED(y))
					return -1;
				xs = VARDATA_ANY(x);
				ys = VARDATA_ANY(y);
				xl = VARSIZE_ANY_EXHDR(x);
				yl = VARSIZE_ANY_EXHDR(y);
				if (col->eq == GSW_EQ_BPCHAR)
				{
					while (xl > 0 && xs[xl - 1] == ' ')
						xl--;
					while (yl > 0 && ys[yl - 1] == ' ')
						yl--;
				}
				return xl == yl && memcmp(xs, ys, xl) == 0;
			}
		case GSW_EQ_FMGR:
			break;
	}
	return -1;
}

typedef struct BoundArg
{
	MinimalTuple *rows;
	uint64		n;
	uint64		ntasks;
	TupleTableSlot **slots;		/* [2 * ntasks] */
	GsWinCol   *cols;			/* partition columns, then order columns */
	int			npart;
	int			ncols;
	GsWinFunc  *funcs;
	int			nfuncs;
	GsWinRangeKeys *rk;			/* RANGE keys to read, or NULL */
	AttrNumber	maxatt;
	uint8	   *flags;
} BoundArg;

/* flags of a row against the row before it, from their deformed columns */
static inline uint8
row_flags(const BoundArg *a, TupleTableSlot *prev, TupleTableSlot *cur)
{
	int			c;
	bool		unsure = false;

	for (c = 0; c < a->ncols; c++)
	{
		AttrNumber	att = a->cols[c].attno - 1;
		int			eq = values_equal(&a->cols[c],
									  prev->tts_values[att], prev->tts_isnull[att],
									  cur->tts_values[att], cur->tts_isnull[att]);

		if (eq < 0)
			unsure = true;
		else if (eq == 0 && !unsure)
			return c < a->npart ? GSW_NEW_PARTITION | GSW_NEW_PEERS : GSW_NEW_PEERS;
	}
	return unsure ? GSW_UNSURE : 0;
}


void
gs_win_store_arg(GsWinFunc *f, uint64 i, Datum d, bool isnull)
{
	f->argnull[i] = isnull;
	if (isnull)
		return;
	switch (f->arg)
	{
		case GSW_ARG_INT:
			switch (f->argtype)
			{
				case INT2OID:
					f->argi[i] = DatumGetInt16(d);
					break;
				case INT4OID:
				case DATEOID:
					f->argi[i] = DatumGetInt32(d);
					break;
				default:
					f->argi[i] = DatumGetInt64(d);
					break;
			}
			break;
		case GSW_ARG_FLOAT4:
			f->argf[i] = DatumGetFloat4(d);
			break;
		case GSW_ARG_FLOAT8:
			f->argf[i] = DatumGetFloat8(d);
			break;
		case GSW_ARG_DATUM:
			/* nothing detoasted: that is the backend's, where it is used */
			f->argd[i] = d;
			break;
#ifdef HAVE_INT128
		case GSW_ARG_NUMERIC:
			f->argscale[i] = gs_win_numeric_fixed((const struct varlena *) DatumGetPointer(d),
											  &f->argw[i]);
			break;
#endif
		default:
			break;
	}
}

#ifdef HAVE_INT128
/*
 * Row i's argument by its program (winexpr.h), on a thread: a row a FILTER
 * leaves out is not evaluated, as evaluate_arguments does not evaluate it;
 * a row the program cannot give is left to the backend (argback)
 */
static inline void
read_program(GsWinFunc *f, TupleTableSlot *slot, uint64 i)
{
	int128		v = 0;
	int16		scale = 0;
	GsWxResult	res;

	f->argnull[i] = true;
	if (f->skip && f->skip[i])
		return;
	res = gs_win_expr_eval(f->prog, slot->tts_values, slot->tts_isnull, &v, &scale);
	/* a numeric past what the threads sum: the backend's, as if read there */
	if (res == GSWX_VALUE && f->arg == GSW_ARG_NUMERIC &&
		(v >= NUMV_MAX_SCALED || -v >= NUMV_MAX_SCALED))
		res = GSWX_BACKEND;
	if (res == GSWX_BACKEND)
	{
		f->argback[i] = true;
		return;
	}
	if (res == GSWX_NULL)
		return;
	f->argnull[i] = false;
	if (f->arg == GSW_ARG_NUMERIC)
	{
		f->argw[i] = v;
		f->argscale[i] = scale;
	}
	else if (f->arg == GSW_ARG_INT)
		f->argi[i] = (int64) v;
}
#endif

/* row i's arguments that are columns or programs, on a thread */
static inline void
read_arguments(const BoundArg *a, TupleTableSlot *slot, uint64 i)
{
	int			k;

	for (k = 0; k < a->nfuncs; k++)
	{
		GsWinFunc  *f = &a->funcs[k];
		AttrNumber	att = f->argattno - 1;

		if (f->argnull == NULL)
			continue;
#ifdef HAVE_INT128
		if (f->prog != NULL)
			read_program(f, slot, i);
		else
#endif
		if (f->argexpr == NULL)
			gs_win_store_arg(f, i, slot->tts_values[att], slot->tts_isnull[att]);
	}
}

/* the numerics the threads left for the backend: toasted ones, detoasted */
static void
read_unread_numerics(BoundArg *a, TupleTableSlot *slot)
{
	int			k;
	uint64		i;

	for (k = 0; k < a->nfuncs; k++)
	{
		GsWinFunc  *f = &a->funcs[k];

		if (f->arg != GSW_ARG_NUMERIC || f->argexpr != NULL)
			continue;
		for (i = 0; i < a->n; i++)
		{
			gs_poll_interrupts(i + 1);
			if (!f->argnull[i] && f->argscale[i] == GSW_NUM_UNREAD)
			{
				bool		isnull;
				Datum		d;

				ExecStoreMinimalTuple(a->rows[i], slot, false);
				d = slot_getattr(slot, f->argattno, &isnull);
				gs_win_store_arg(f, i, PointerGetDatum(PG_DETOAST_DATUM_PACKED(d)),
								 isnull);
			}
		}
	}
}

static void
bound_tasks(void *p, uint64 tlo, uint64 thi)
{
	BoundArg   *a = (BoundArg *) p;
	uint64		t;

	for (t = tlo; t < thi; t++)
	{
		TupleTableSlot *prev = a->slots[2 * t];
		TupleTableSlot *cur = a->slots[2 * t + 1];
		uint64		lo,
					hi,
					i;

		gs_team_slice(a->n, a->ntasks, t, &lo, &hi);
		if (lo >= hi)
			continue;
		if (lo > 0)
			gs_thread_slot_store(prev, a->rows[lo - 1], a->maxatt);
		for (i = lo; i < hi; i++)
		{
			TupleTableSlot *tmp;

			if ((i & (GS_INTERRUPT_EVERY - 1)) == 0 && gs_slice_stopped())
				return;
			if (i + GSW_ROW_AHEAD < hi)
				gs_prefetch_row(a->rows[i + GSW_ROW_AHEAD]);
			gs_thread_slot_store(cur, a->rows[i], a->maxatt);
			a->flags[i] = i == 0 ? GSW_NEW_PARTITION | GSW_NEW_PEERS :
				row_flags(a, prev, cur);
			read_arguments(a, cur, i);
			if (a->rk)
				gs_win_range_key_read(a->rk, i, cur->tts_values[a->rk->keyatt - 1],
									  cur->tts_isnull[a->rk->keyatt - 1]);
			tmp = prev;
			prev = cur;
			cur = tmp;
		}
	}
}

/* the flags of row i > 0, with the operators' own functions */
static uint8
row_flags_fmgr(BoundArg *a, TupleTableSlot *prev, TupleTableSlot *cur, uint64 i)
{
	int			c;

	ExecStoreMinimalTuple(a->rows[i - 1], prev, false);
	ExecStoreMinimalTuple(a->rows[i], cur, false);
	for (c = 0; c < a->ncols; c++)
	{
		GsWinCol   *col = &a->cols[c];
		bool		pn,
					cn;
		Datum		pd = slot_getattr(prev, col->attno, &pn);
		Datum		cd = slot_getattr(cur, col->attno, &cn);
		bool		eq;

		if (pn || cn)
			eq = pn && cn;
		else
			eq = DatumGetBool(FunctionCall2Coll(&col->flinfo, col->collation, pd, cd));
		if (!eq)
			return c < a->npart ? GSW_NEW_PARTITION | GSW_NEW_PEERS : GSW_NEW_PEERS;
	}
	return 0;
}

void
gs_win_boundaries(MinimalTuple *rows, uint64 n, TupleDesc desc,
				  GsWinCol *part, int npart, GsWinCol *ord, int nord,
				  GsWinFunc *funcs, int nfuncs, uint8 *flags, int nthreads)
{
	gs_win_boundaries_keys(rows, n, desc, part, npart, ord, nord, funcs, nfuncs,
						   NULL, flags, nthreads);
}

void
gs_win_boundaries_keys(MinimalTuple *rows, uint64 n, TupleDesc desc,
					   GsWinCol *part, int npart, GsWinCol *ord, int nord,
					   GsWinFunc *funcs, int nfuncs, GsWinRangeKeys *rk,
					   uint8 *flags, int nthreads)
{
	BoundArg	a;
	GsThreadSlots *slots;
	MemoryContext cxt;
	MemoryContext oldcxt;
	uint64		i;
	int			c,
				k;

	/* the aggregates' arguments, until gs_win_compute is done with them */
	for (k = 0; k < nfuncs; k++)
	{
		GsWinFunc  *f = &funcs[k];
		Size		rows = Max(n, 1);

		if (f->arg == GSW_ARG_NONE)
			continue;
		f->argnull = palloc_extended(sizeof(bool) * rows, MCXT_ALLOC_HUGE);
		if (f->arg == GSW_ARG_INT)
			f->argi = palloc_extended(sizeof(int64) * rows, MCXT_ALLOC_HUGE);
#ifdef HAVE_INT128
		else if (f->arg == GSW_ARG_NUMERIC)
		{
			f->argw = palloc_extended(sizeof(int128) * rows, MCXT_ALLOC_HUGE);
			f->argscale = palloc_extended(sizeof(int16) * rows, MCXT_ALLOC_HUGE);
		}
#endif
		else if (f->arg == GSW_ARG_DATUM)
			f->argd = palloc_extended(sizeof(Datum) * rows, MCXT_ALLOC_HUGE);
		else if (f->arg != GSW_ARG_NULLS)
			f->argf = palloc_extended(sizeof(double) * rows, MCXT_ALLOC_HUGE);
		if (f->argexpr != NULL && f->arg_may_raise)
			f->argerr = palloc_extended(sizeof(bool) * rows,
										MCXT_ALLOC_HUGE | MCXT_ALLOC_ZERO);
		if (f->prog != NULL)
			f->argback = palloc_extended(sizeof(bool) * rows,
										 MCXT_ALLOC_HUGE | MCXT_ALLOC_ZERO);
	}
	if (n == 0)
		return;
	cxt = AllocSetContextCreate(CurrentMemoryContext, "GpuWindow boundaries",
								ALLOCSET_DEFAULT_SIZES);
	oldcxt = MemoryContextSwitchTo(cxt);
	a.rows = rows;
	a.n = n;
	a.npart = npart;
	a.ncols = npart + nord;
	a.cols = palloc(sizeof(GsWinCol) * Max(a.ncols, 1));
	memcpy(a.cols, part, sizeof(GsWinCol) * npart);
	memcpy(a.cols + npart, ord, sizeof(GsWinCol) * nord);
	a.funcs = funcs;
	a.nfuncs = nfuncs;
	a.rk = rk;
	a.flags = flags;
	a.maxatt = rk ? rk->keyatt : 0;
	for (c = 0; c < a.ncols; c++)
		a.maxatt = Max(a.maxatt, a.cols[c].attno);
	for (k = 0; k < nfuncs; k++)
		if (funcs[k].argnull && funcs[k].prog != NULL)
			a.maxatt = Max(a.maxatt, gs_win_expr_maxatt(funcs[k].prog));
		else if (funcs[k].argnull && funcs[k].argexpr == NULL)
			a.maxatt = Max(a.maxatt, funcs[k].argattno);

	if (n < GSW_THREADED_MIN_ROWS)
		nthreads = 1;
	a.ntasks = (uint64) nthreads * GSW_TASKS_PER_THREAD;
	slots = gs_thread_slots_create(desc, (int) (2 * a.ntasks), rows[0]);
	a.slots = slots->slots;
	gs_cpu_for_tasks(a.ntasks, nthreads, bound_tasks, &a);

	/* what the threads could not compare, the operators' functions do */
	for (i = 1; i < n; i++)
	{
		if (flags[i] & GSW_UNSURE)
			flags[i] = row_flags_fmgr(&a, a.slots[0], a.slots[1], i);
		gs_poll_interrupts(i);
	}
	read_unread_numerics(&a, a.slots[0]);
	gs_thread_slots_free(slots);
	MemoryContextSwitchTo(oldcxt);
	MemoryContextDelete(cxt);
}
