/*-------------------------------------------------------------------------
 *
 * winproject.c
 *	  Output expressions of a numeric window result and the row, computed
 *	  on GpuWindow's threads.
 *
 * A share of a whole, amount / sum(amount) OVER (PARTITION BY account)
 * (or amount / nullif(sum(amount) OVER (...), 0), its guarded form), is
 * computed by the projection above the window: WindowAgg's, or GpuWindow's
 * (windownode.c), one numeric_div call per row in the backend, which costs
 * more than computing the window itself.  Here an output expression that is
 * one of numeric's +, -, * and / of a numeric sum or avg of the window and
 * an expression of the row that winexpr.c computes (a column, price * qty)
 * is computed on the threads instead, after the window functions, into the
 * numeric's bytes (gs_win_numeric_encode); the node's projection reads it
 * as one more column of its scan tuple.  So is round(e, s) of such an
 * expression e, 0 <= s <= 32 (100.0 * amount / sum(amount) OVER w rounded
 * for a report), and a numeric(p, s) cast of it: numeric_round's and
 * apply_typmod's rounding half away from zero (gs_win_numeric_round), of
 * the quotient numeric_div gave, as PostgreSQL rounds it, and so is
 * coalesce(e, c) of a constant c, a NULL value of e then c.  The function may
 * also be lag or lead of a numeric column (amount - lag(amount) OVER w, the
 * change from the row before): the threads read that other row's value
 * (gs_win_numeric_fixed), and the node then makes the function's own
 * value for a row only where the projection reads it, or the backend
 * evaluates the row's expression (windownode.c's read_function_columns).
 *
 * The plan (gs_win_derived_find, gs_win_derived_retarget): each such
 * top-level targetlist entry becomes a column of the scan tuple, after the
 * window functions', and the targetlist reads that column.  Only when the
 * targetlist's other entries are columns, constants and window functions,
 * and there is no qual or run condition: the derived value is computed
 * before the rest of the row's projection, so nothing else of the row may
 * raise an error that PostgreSQL would have raised first.
 *
 * The values are numeric.c's (see winexpr.c): the sum is the window's exact
 * sum at its display scale (and avg numeric_div's quotient of it by the
 * count), numeric_add, numeric_sub and numeric_mul are exact, numeric_div
 * is gs_win_numeric_div.  A row whose value the threads cannot give (a NaN
 * or an infinity, a division by zero, scales past 32, values past 128
 * bits) is evaluated by PostgreSQL's own functions in the backend when the
 * row is returned (GSW_DERIVED_BACKEND): where stock raises its error.
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "catalog/pg_type.h"
#include "executor/executor.h"
#include "nodes/makefuncs.h"
#include "nodes/nodeFuncs.h"
#include "optimizer/clauses.h"
#include "optimizer/optimizer.h"
#include "utils/builtins.h"
#include "utils/datum.h"
#include "utils/fmgroids.h"
#include "utils/numeric.h"

#include "threads/thread_slots.h"
#include "threads/threads.h"
#include "threads/threads_backend.h"
#include "winproject.h"

/* ---- plan ------------------------------------------------------------------------ */

/*
 * a numeric sum or avg of the node, or lag or lead of a numeric column:
 * another row's value, which the threads read from that row
 */
static bool
numeric_window_func(Node *node, List *wfuncs)
{
	WindowFunc *wf = (WindowFunc *) node;
	Var		   *var;

	if (!IsA(node, WindowFunc) || !list_member(wfuncs, node))
		return false;
	if (wf->winfnoid == F_SUM_NUMERIC || wf->winfnoid == F_AVG_NUMERIC)
		return true;
	if (gs_win_lag_lead(wf->winfnoid) == GSW_ROW_NUMBER)
		return false;
	var = (Var *) linitial(wf->args);
	return wf->wintype == NUMERICOID && IsA(var, Var) &&
		var->varno == OUTER_VAR && var->varattno > 0 && var->varlevelsup == 0;
}

/* a numeric Const equal to 0 */
static bool
numeric_zero(Node *node)
{
	Const	   *c = (Const *) node;

	return IsA(node, Const) && c->consttype == NUMERICOID && !c->constisnull &&
		DatumGetInt32(DirectFunctionCall2(numeric_cmp, c->constvalue,
										  NumericGetDatum(int64_to_numeric(0)))) == 0;
}

/*
 * The window function an operand reads, or NULL: a numeric sum or avg of
 * the node, or nullif(it, 0), which the share of a total guards its
 * division with (*nullif_zero: a zero value is then NULL, and the strict
 * operator's result too)
 */
static WindowFunc *
window_operand(Node *node, List *wfuncs, bool *nullif_zero)
{
	NullIfExpr *ni = (NullIfExpr *) node;

	*nullif_zero = false;
	if (numeric_window_func(node, wfuncs))
		return (WindowFunc *) node;
	if (!IsA(node, NullIfExpr) || list_length(ni->args) != 2 ||
		!numeric_window_func(linitial(ni->args), wfuncs) ||
		!numeric_zero(lsecond(ni->args)))
		return NULL;
	set_opfuncid((OpExpr *) ni);
	if (ni->opfuncid != F_NUMERIC_EQ)
		return NULL;
	*nullif_zero = true;
	return (WindowFunc *) linitial(ni->args);
}

/*
 * round(e, s) or a numeric(e, typmod) cast around an expression e: e,
 * with the scale it rounds to and the precision the cast checks (0: none);
 * else expr itself, *scale -1.  Only the scales the encoded bytes hold.
 */
static Node *
rounded_operand(Node *expr, int *scale, int *precision)
{
	FuncExpr   *fe = (FuncExpr *) expr;
	Const	   *k;
	int32		v;

	*scale = -1;
	*precision = 0;
	if (!IsA(expr, FuncExpr) || list_length(fe->args) != 2 ||
		(fe->funcid != F_ROUND_NUMERIC_INT4 && fe->funcid != F_NUMERIC_NUMERIC_INT4))
		return expr;
	k = (Const *) lsecond(fe->args);
	if (!IsA(k, Const) || k->consttype != INT4OID || k->constisnull)
		return expr;
	v = DatumGetInt32(k->constvalue);
	if (fe->funcid == F_ROUND_NUMERIC_INT4)
	{
		if (v < 0 || v > GSW_NUM_ENCODED_SCALE)
			return expr;
		*scale = v;
		return linitial(fe->args);
	}
	/* numeric(e, typmod): as winexpr.c's typmod step reads it */
	if (v < (int32) VARHDRSZ)
		return expr;
	*precision = ((v - VARHDRSZ) >> 16) & 0xffff;
	*scale = (v - VARHDRSZ) & 0xffff;
	if (*precision < 1 || *precision > GSW_NUM_MAX_SCALE ||
		*scale > *precision || *scale > GSW_NUM_ENCODED_SCALE)
	{
		*scale = -1;
		*precision = 0;
		return expr;
	}
	return linitial(fe->args);
}

/*
 * coalesce(e, c) around an expression e, c a numeric constant that is not
 * NULL (amount - lag(amount) OVER w with the first row's change 0): e,
 * with *fill c; else expr itself, *fill NULL
 */
static Node *
coalesced_operand(Node *expr, Const **fill)
{
	CoalesceExpr *ce = (CoalesceExpr *) expr;
	Const	   *k;

	*fill = NULL;
	if (!IsA(expr, CoalesceExpr) || list_length(ce->args) != 2)
		return expr;
	k = (Const *) lsecond(ce->args);
	if (!IsA(k, Const) || k->consttype != NUMERICOID || k->constisnull)
		return expr;
	*fill = k;
	return linitial(ce->args);
}

/* whether expr is one the threads compute: see the header comment */
static bool
derived_candidate(Node *expr, List *wfuncs)
{
	OpExpr	   *op;
	Node	   *a,
			   *b,
			   *other;
	GsWinExpr  *prog;
	bool		za,
				zb;
	int			scale,
				precision;
	Const	   *fill;

	expr = rounded_operand(coalesced_operand(expr, &fill), &scale, &precision);
	op = (OpExpr *) expr;
	if (!IsA(expr, OpExpr) || list_length(op->args) != 2)
		return false;
	set_opfuncid(op);
	if (op->opfuncid != F_NUMERIC_DIV && op->opfuncid != F_NUMERIC_MUL &&
		op->opfuncid != F_NUMERIC_ADD && op->opfuncid != F_NUMERIC_SUB)
		return false;
	a = linitial(op->args);
	b = lsecond(op->args);
	if ((window_operand(a, wfuncs, &za) != NULL) ==
		(window_operand(b, wfuncs, &zb) != NULL))
		return false;
	other = window_operand(a, wfuncs, &za) ? b : a;
	if (contain_window_function(other) || contain_volatile_functions(other) ||
		exprType(other) != NUMERICOID)
		return false;
	prog = gs_win_expr_compile((Expr *) other);
	if (prog == NULL)
		return false;
	pfree(prog);
	return true;
}

List *
gs_win_derived_find(WindowAgg *wa, List *wfuncs)
{
	List	   *derived = NIL;
	ListCell   *lc;

	if (wa->plan.qual != NIL || wa->runCondition != NIL)
		return NIL;
	foreach(lc, wa->plan.targetlist)
	{
		Node	   *e = (Node *) ((TargetEntry *) lfirst(lc))->expr;

		if (derived_candidate(e, wfuncs))
		{
			if (!list_member(derived, e))
				derived = lappend(derived, e);
		}
		else if (!IsA(e, Var) && !IsA(e, Const) && !IsA(e, WindowFunc))
			return NIL;
	}
	return derived;
}

typedef struct DerivedRetarget
{
	List	   *derived;
	int			first_resno;
} DerivedRetarget;

static Node *
derived_retarget(Node *node, DerivedRetarget *cxt)
{
	int			k = 0;
	ListCell   *lc;

	if (node == NULL)
		return NULL;
	foreach(lc, cxt->derived)
	{
		/* the expression's typmod: a numeric(p, s) cast's types CTAS's column */
		if (equal(lfirst(lc), node))
			return (Node *) makeVar(INDEX_VAR, cxt->first_resno + k,
									NUMERICOID, exprTypmod(node), InvalidOid, 0);
		k++;
	}
	return expression_tree_mutator(node, derived_retarget, (void *) cxt);
}

Node *
gs_win_derived_retarget(Node *expr, List *derived, int first_resno)
{
	DerivedRetarget cxt;

	cxt.derived = derived;
	cxt.first_resno = first_resno;
	return derived_retarget(expr, &cxt);
}

/* ---- executor ------------------------------------------------------------------------ */

/*
 * A function of funcs whose argument is the numeric column operand reads,
 * or -1: the boundaries pass read that column of every row into its
 * argument arrays, FILTER or not (gs_win_store_arg), as gs_win_numeric_fixed
 * gives it, which is what the operand's program gives
 */
static int
argument_function(Node *operand, const GsWinFunc *funcs, int nfuncs)
{
	int			k;

	if (!IsA(operand, Var) || ((Var *) operand)->varno != OUTER_VAR ||
		((Var *) operand)->varattno <= 0)
		return -1;
	for (k = 0; k < nfuncs; k++)
		if (funcs[k].arg == GSW_ARG_NUMERIC && funcs[k].argexpr == NULL &&
			funcs[k].argattno == ((Var *) operand)->varattno)
			return k;
	return -1;
}

void
gs_win_derived_init(GsWinDerived *d, Expr *expr, Expr *scan_expr, List *wfuncs,
					const GsWinFunc *funcs, PlanState *parent)
{
	OpExpr	   *op;
	Node	   *a;
	Node	   *b;
	ListCell   *lc;
	int			k = 0;
	int			scale,
				precision;
	Const	   *fill;
	WindowFunc *wf;

	memset(d, 0, sizeof(GsWinDerived));
	op = (OpExpr *) rounded_operand(coalesced_operand((Node *) expr, &fill),
									&scale, &precision);
	if (fill != NULL)
	{
		d->has_fill = true;
		d->fill = datumCopy(fill->constvalue, false, -1);
	}
	d->round_scale = scale;
	d->round_precision = precision;
	a = linitial(op->args);
	b = lsecond(op->args);
	set_opfuncid(op);
	d->opfunc = op->opfuncid;
	wf = window_operand(a, wfuncs, &d->nullif_zero);
	d->func_left = wf != NULL;
	if (!d->func_left)
		wf = window_operand(b, wfuncs, &d->nullif_zero);
	d->prog = gs_win_expr_compile((Expr *) (d->func_left ? b : a));
	if (d->prog == NULL || wf == NULL)
		elog(ERROR, "GpuWindow cannot compute an output expression");
	foreach(lc, wfuncs)
	{
		if (equal(lfirst(lc), wf))
			d->fidx = k;
		k++;
	}
	d->argfidx = argument_function(d->func_left ? b : a, funcs,
								   list_length(wfuncs));
	d->backend = ExecInitExpr(scan_expr, parent);
}

#ifdef HAVE_INT128
/*
 * lag's or lead's value at row i: the numeric column of the row it reads
 * (f->i64[i], -1 past the partition's ends: NULL, -2 the default: the
 * backend's), deformed in nav
 */
static inline GsWxResult
other_row_value(const GsWinFunc *f, MinimalTuple *rows, uint64 i,
				TupleTableSlot *nav, int128 *v, int16 *scale)
{
	int64		src = f->i64[i];

	if (src == -1)
		return GSWX_NULL;
	if (src < 0)
		return GSWX_BACKEND;
	gs_thread_slot_store(nav, rows[src], f->argattno);
	if (nav->tts_isnull[f->argattno - 1])
		return GSWX_NULL;
	*scale = gs_win_numeric_fixed((const struct varlena *)
								  DatumGetPointer(nav->tts_values[f->argattno - 1]), v);
	return *scale >= 0 ? GSWX_VALUE : GSWX_BACKEND;
}

/* the window function's value at row i, GSWX_BACKEND where it is special */
static inline GsWxResult
function_value(const GsWinFunc *f, MinimalTuple *rows, uint64 i,
			   TupleTableSlot *nav, int128 *v, int16 *scale)
{
	int16		sc;

	if (f->isnull[i])
		return GSWX_NULL;
	if (f->fn == GSW_LAG || f->fn == GSW_LEAD)
		return other_row_value(f, rows, i, nav, v, scale);
	sc = f->rscale[i];
	if (sc < 0 || sc > GSW_NUM_MAX_SCALE)
		return GSWX_BACKEND;
	if (f->fn == GSW_SUM)
	{
		*v = f->wide[i];
		*scale = sc;
		return GSWX_VALUE;
	}
	return gs_win_numeric_div(f->wide[i], sc, (int128) f->cnt[i], 0, v, scale) ?
		GSWX_VALUE : GSWX_BACKEND;
}

/*
 * a op b of numeric.c; false when the threads cannot give it.  div keeps
 * the last divisor's leading digit, b's from row to row.
 */
static inline bool
apply_op(Oid opfunc, int128 a, int16 as, int128 b, int16 bs,
		 GsWinDivisor *div, int128 *r, int16 *rs)
{
	switch (opfunc)
	{
		case F_NUMERIC_DIV:
			return gs_win_numeric_div_by(a, as, b, bs, div, r, rs);
		case F_NUMERIC_MUL:
			*rs = as + bs;
			return *rs <= GSW_NUM_ENCODED_SCALE && !__builtin_mul_overflow(a, b, r);
		default:
			return gs_win_numeric_addsub(a, as, b, bs, opfunc == F_NUMERIC_SUB,
										 r, rs);
	}
}
#endif

typedef struct DerivedArg
{
	GsWinDerived *ds;
	int			nds;
	GsWinFunc  *funcs;
	MinimalTuple *rows;
	uint64		n;
	uint64		ntasks;
	TupleTableSlot **slots;		/* [ntasks] */
	TupleTableSlot **navs;		/* [ntasks]: the rows lag and lead read */
#ifdef HAVE_INT128
	GsWinDivisor *divs;			/* [ntasks * nds]: each task's last divisors */
#endif
	AttrNumber	maxatt;
} DerivedArg;

#ifdef HAVE_INT128
/*
 * The column operand at row i from an argument's arrays: a NaN, an
 * infinity or a value too wide for the threads is the backend's, as the
 * operand's program leaves it
 */
static inline GsWxResult
argument_operand(const GsWinFunc *a, uint64 i, int128 *x, int16 *xs)
{
	if (a->argnull[i])
		return GSWX_NULL;
	if (a->argscale[i] < 0)
		return GSWX_BACKEND;
	*x = a->argw[i];
	*xs = a->argscale[i];
	return GSWX_VALUE;
}

/*
 * derived expression d at row i, deformed in slot (funcs: the functions;
 * nav: a slot for the row lag or lead reads; div: d's last divisor)
 */
static inline void
derived_row(GsWinDerived *d, const GsWinFunc *funcs, MinimalTuple *rows,
			TupleTableSlot *slot, TupleTableSlot *nav, uint64 i,
			GsWinDivisor *div)
{
	const GsWinFunc *f = &funcs[d->fidx];
	char	   *out = d->bytes + i * GSW_NUM_ENCODED_MAX;
	int128		x = 0,
				w = 0,
				r;
	int16		xs = 0,
				ws = 0,
				rs;
	GsWxResult	res,
				fres;

	d->state[i] = GSW_DERIVED_BACKEND;
	res = d->argfidx >= 0 ? argument_operand(&funcs[d->argfidx], i, &x, &xs) :
		gs_win_expr_eval(d->prog, slot->tts_values, slot->tts_isnull, &x, &xs);
	if (res == GSWX_BACKEND)
		return;
	fres = function_value(f, rows, i, nav, &w, &ws);
	if (fres == GSWX_BACKEND)
		return;
	/* strict: a NULL operand, the other one evaluated without an error */
	if (res == GSWX_NULL || fres == GSWX_NULL)
	{
		d->state[i] = GSW_DERIVED_NULL;
		return;
	}
	/* nullif(sum, 0): NULL, and so the strict operator's result */
	if (d->nullif_zero && w == 0)
	{
		d->state[i] = GSW_DERIVED_NULL;
		return;
	}
	if (!(d->func_left ? apply_op(d->opfunc, w, ws, x, xs, div, &r, &rs) :
		  apply_op(d->opfunc, x, xs, w, ws, div, &r, &rs)))
		return;
	if (d->round_scale >= 0)
	{
		if (!gs_win_numeric_round(&r, rs, d->round_scale, d->round_precision))
			return;
		rs = d->round_scale;
	}
	if (gs_win_numeric_encode(r, rs, out) > 0)
		d->state[i] = GSW_DERIVED_BYTES;
}
#endif

static void
derived_tasks(void *p, uint64 tlo, uint64 thi)
{
#ifdef HAVE_INT128
	DerivedArg *a = (DerivedArg *) p;
	uint64		t;

	for (t = tlo; t < thi; t++)
	{
		TupleTableSlot *slot = a->slots[t];
		GsWinDivisor *div = a->divs + t * a->nds;
		uint64		lo,
					hi,
					i;
		int			k;

		for (k = 0; k < a->nds; k++)
			div[k].valid = false;
		gs_team_slice(a->n, a->ntasks, t, &lo, &hi);
		for (i = lo; i < hi; i++)
		{
			if (((i - lo) & (GS_INTERRUPT_EVERY - 1)) == GS_INTERRUPT_EVERY - 1 &&
				gs_slice_stopped())
				return;
			if (a->maxatt > 0)
				gs_thread_slot_store(slot, a->rows[i], a->maxatt);
			for (k = 0; k < a->nds; k++)
				derived_row(&a->ds[k], a->funcs, a->rows, slot, a->navs[t], i,
							&div[k]);
		}
	}
#endif
}

void
gs_win_derived_compute(GsWinDerived *ds, int nds, GsWinFunc *funcs,
					   MinimalTuple *rows, uint64 n, TupleDesc desc,
					   int nthreads)
{
	DerivedArg	a;
	GsThreadSlots *slots;
	int			k;

	gs_win_expr_prepare();
	a.maxatt = 0;
	for (k = 0; k < nds; k++)
	{
		ds[k].state = palloc_extended(Max(n, 1), MCXT_ALLOC_HUGE);
		ds[k].bytes = palloc_extended((Size) GSW_NUM_ENCODED_MAX * Max(n, 1),
									  MCXT_ALLOC_HUGE);
		if (ds[k].argfidx < 0)
			a.maxatt = Max(a.maxatt, gs_win_expr_maxatt(ds[k].prog));
	}
	if (n == 0)
		return;
	a.ds = ds;
	a.nds = nds;
	a.funcs = funcs;
	a.rows = rows;
	a.n = n;
	a.ntasks = (uint64) Max(nthreads, 1) * 4;
	slots = gs_thread_slots_create(desc, (int) (2 * a.ntasks), rows[0]);
	a.slots = slots->slots;
	a.navs = slots->slots + a.ntasks;
#ifdef HAVE_INT128
	a.divs = palloc(sizeof(GsWinDivisor) * a.ntasks * nds);
#endif
	gs_cpu_for_tasks(a.ntasks, nthreads, derived_tasks, &a);
#ifdef HAVE_INT128
	pfree(a.divs);
#endif
	gs_thread_slots_free(slots);
}
