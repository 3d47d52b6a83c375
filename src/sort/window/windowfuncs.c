/*-------------------------------------------------------------------------
 *
 * windowfuncs.c
 *	  Window functions over sorted rows, as arrays: what GpuWindow computes
 *	  instead of WindowAgg (windownode.c).
 *
 * WindowAgg walks the sorted rows one at a time through a tuplestore,
 * calling each window function and each aggregate's transition function
 * for every row.  Here the same values come from three passes over arrays:
 *
 *	 1. boundaries (threads, slices of rows): each row is compared with the
 *		row before it on the partition columns, then the order columns, with
 *		the semantics of the window's equality operators (NULLs equal, as
 *		WindowAgg's grouping comparisons have it), giving flags[i]; the
 *		aggregates' arguments are read into arrays on the way.  A pair that
 *		plain C cannot compare (a compressed or toasted string, a type whose
 *		equality is not byte-wise, such as numeric) is marked GSW_UNSURE and
 *		compared afterwards in the backend with the operator's function;
 *	 2. functions (threads, runs of whole partitions): ranks from the peer
 *		boundaries, lag/lead and the value functions as row numbers,
 *		aggregates as running states over the frame;
 *	 3. results (the backend, row by row as the node returns them): row i's
 *		value as the Datum WindowAgg returns.  numeric results (sums,
 *		averages, integer statistics) are made as numeric bytes on threads
 *		first (gs_win_encode_results, winexpr.c's gs_win_numeric_encode),
 *		so that returning one is a pointer.
 *
 * An argument that is an expression rather than a column: an aggregate's
 * is computed on the threads of pass 1 when it is fixed-point arithmetic
 * (winexpr.c), and otherwise, or for the rows that program leaves, it is
 * evaluated in the backend over every row between passes 1 and 2
 * (windownode.c's evaluate_arguments, which records an error instead of
 * raising it, see arg_expr_walker); lag's, lead's and the value functions'
 * on the row they read, when the row is returned (argument_at).
 *
 * numeric arguments are read as fixed point, an int128 and the value's
 * display scale (gs_win_numeric_fixed, from the bytes, on threads; a toasted value
 * in the backend).  sum and avg add them exactly at the largest scale taken
 * so far, which is the display scale numeric.c's accumulator gives the
 * sum; NaN and the infinities are counted apart, as numeric.c counts them;
 * avg divides with numeric_div in pass 3, as numeric_avg does.  min and max
 * keep the row whose value numeric_smaller or numeric_larger keeps.  A
 * value or a sum past 128 bits (GSW_NUM_WIDE, too_wide) sends the whole
 * window to WindowAgg.
 *
 * Frames: ROWS offsets, the partition's ends, the current row's peers,
 * and RANGE offsets, whose bounds are found first: by arithmetic on the
 * keys on threads for integer, date and timestamp keys (winrange.c), else
 * in the backend with the window's in_range functions, as WindowAgg's
 * update_frameheadpos and update_frametailpos do (gs_win_range_bounds);
 * EXCLUDE takes the excluded rows out of exact states (put_excluding);
 * min, max and float aggregates, whose states cannot take rows out, compute
 * each row's frame less the excluded rows as WindowAgg does, keeping the
 * part before the excluded rows while the frame's start stays put
 * (aggregate_excluding); the value functions move their row past the
 * excluded ones as WindowAgg does (value_row_excluding).  Frames whose
 * start moves slide: counts, integer and numeric sums in and out exactly,
 * min and max through a monotone queue (minmax_sliding); float sums and
 * statistics restart as WindowAgg does, on ROWS frames under
 * GSW_MAX_RESTART_ROWS.
 *
 * avg, variance and stddev of float4 and float8 run float8_accum's
 * Youngs-Cramer steps (youngs_cramer) in WindowAgg's order, its overflow
 * check included, and float8_avg's, float8_var_pop's and the others'
 * final division; the Makefile compiles this file without fused
 * multiply-adds, so the bits are float.c's.
 *
 * Invariants that make the values WindowAgg's, value for value:
 *	 - an aggregate's state takes rows in row order, as WindowAgg's does:
 *	   frames that start at the partition's first row share one running
 *	   state; frames that start at an offset from the row slide it (counts
 *	   and integer sums, exact both ways) or compute it again from the
 *	   frame's first row (float sums, min and max: WindowAgg's restart of
 *	   an aggregate with no inverse), so floats are added in the order
 *	   WindowAgg adds them;
 *	 - a transition with a strict function and no initial value starts from
 *	   the first non-NULL input, as nodeWindowAgg.c's advance does; the
 *	   transition steps are float.c's, int8.c's and numeric.c's (the float
 *	   comparisons with NaN greatest, overflow checks and all);
 *	 - an error WindowAgg would raise while evaluating a row is raised when
 *	   that row is returned (GSW_ERROR), not before: a LIMIT that stops
 *	   earlier, or a run condition that skips the row, sees no error, as
 *	   with WindowAgg.
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

#include "rowstore.h"
#include "thread_slots.h"
#include "threads_backend.h"
#include "windowfuncs.h"
#include "winexpr.h"
#include "winrange.h"

/* rows from which the passes run on threads */
#define GSW_THREADED_MIN_ROWS	((uint64) 1 << 15)
#define GSW_TASKS_PER_THREAD	4

/*
 * Rows ahead whose tuples the boundaries pass prefetches: rows that were not
 * copied into output order lie where they were stored, and each would
 * otherwise wait on memory alone
 */
#define GSW_ROW_AHEAD			16


void
gs_win_overflow_error(void)
{
	ereport(ERROR,
			(errcode(ERRCODE_NUMERIC_VALUE_OUT_OF_RANGE),
			 errmsg("value out of range: overflow")));
}

/* ---- the plan's functions and columns ------------------------------------------ */

static bool
is_deterministic(Oid collation)
{
	return collation == C_COLLATION_OID ||
		(OidIsValid(collation) && get_collation_isdeterministic(collation));
}

void
gs_win_col_init(GsWinCol *col, AttrNumber attno, Oid eqop, Oid collation)
{
	Oid			fn = get_opcode(eqop);

	col->attno = attno;
	col->collation = collation;
	fmgr_info(fn, &col->flinfo);
	switch (fn)
	{
		case F_INT2EQ:
		case F_INT4EQ:
		case F_INT8EQ:
		case F_OIDEQ:
		case F_BOOLEQ:
		case F_CHAREQ:
		case F_DATE_EQ:
		case F_TIME_EQ:
		case F_TIMESTAMP_EQ:
		case F_TIMESTAMPTZ_EQ:
			col->eq = GSW_EQ_BYVAL;
			break;
		case F_FLOAT4EQ:
			col->eq = GSW_EQ_FLOAT4;
			break;
		case F_FLOAT8EQ:
			col->eq = GSW_EQ_FLOAT8;
			break;
		case F_TEXTEQ:
			col->eq = is_deterministic(collation) ? GSW_EQ_BYTES : GSW_EQ_FMGR;
			break;
		case F_BPCHAREQ:
			col->eq = is_deterministic(collation) ? GSW_EQ_BPCHAR : GSW_EQ_FMGR;
			break;
		default:
			col->eq = GSW_EQ_FMGR;
			break;
	}
}

/* the input column a plain Var argument reads, or 0 */
static AttrNumber
arg_column(WindowFunc *wfunc, int i)
{
	Var		   *var = (Var *) list_nth(wfunc->args, i);

	if (!IsA(var, Var) || var->varno != OUTER_VAR || var->varattno <= 0 ||
		var->varlevelsup != 0)
		return 0;
	return var->varattno;
}

/* argument i as an int4 Const: its value or NULL; false if not a Const */
static bool
int4_const(WindowFunc *wfunc, int i, int32 *value, bool *isnull)
{
	Const	   *c = (Const *) list_nth(wfunc->args, i);

	if (!IsA(c, Const) || c->consttype != INT4OID)
		return false;
	*isnull = c->constisnull;
	*value = c->constisnull ? 0 : DatumGetInt32(c->constvalue);
	return true;
}

/* variance and standard deviation of float4 and float8 */
static bool
float_statistic(Oid fnoid, GsWinFn *fn, GsWinArg *arg)
{
	switch (fnoid)
	{
		case F_VAR_POP_FLOAT4:
		case F_VAR_POP_FLOAT8:
			*fn = GSW_VAR_POP;
			break;
		case F_VAR_SAMP_FLOAT4:
		case F_VAR_SAMP_FLOAT8:
		case F_VARIANCE_FLOAT4:
		case F_VARIANCE_FLOAT8:
			*fn = GSW_VAR_SAMP;
			break;
		case F_STDDEV_POP_FLOAT4:
		case F_STDDEV_POP_FLOAT8:
			*fn = GSW_STDDEV_POP;
			break;
		default:
			*fn = GSW_STDDEV_SAMP;
			break;
	}
	*arg = (fnoid == F_VAR_POP_FLOAT4 || fnoid == F_VAR_SAMP_FLOAT4 ||
			fnoid == F_VARIANCE_FLOAT4 || fnoid == F_STDDEV_POP_FLOAT4 ||
			fnoid == F_STDDEV_SAMP_FLOAT4 || fnoid == F_STDDEV_FLOAT4) ?
		GSW_ARG_FLOAT4 : GSW_ARG_FLOAT8;
	return true;
}

#ifdef HAVE_INT128
/* variance and standard deviation of int2, int4 and int8; false for others */
static bool
int_statistic(Oid fnoid, GsWinFn *fn, GsWinArg *arg)
{
	switch (fnoid)
	{
		case F_VAR_POP_INT2:
		case F_VAR_POP_INT4:
		case F_VAR_POP_INT8:
			*fn = GSW_VAR_POP;
			break;
		case F_VAR_SAMP_INT2:
		case F_VAR_SAMP_INT4:
		case F_VAR_SAMP_INT8:
		case F_VARIANCE_INT2:
		case F_VARIANCE_INT4:
		case F_VARIANCE_INT8:
			*fn = GSW_VAR_SAMP;
			break;
		case F_STDDEV_POP_INT2:
		case F_STDDEV_POP_INT4:
		case F_STDDEV_POP_INT8:
			*fn = GSW_STDDEV_POP;
			break;
		case F_STDDEV_SAMP_INT2:
		case F_STDDEV_SAMP_INT4:
		case F_STDDEV_SAMP_INT8:
		case F_STDDEV_INT2:
		case F_STDDEV_INT4:
		case F_STDDEV_INT8:
			*fn = GSW_STDDEV_SAMP;
			break;
		default:
			return false;		/* not an aggregate computed here */
	}
	*arg = GSW_ARG_INT;
	return true;
}
#else
static bool
int_statistic(Oid fnoid, GsWinFn *fn, GsWinArg *arg)
{
	return false;
}
#endif

/* the aggregate's function and argument, from its pg_proc OID */
static bool
aggregate_kind(Oid fnoid, GsWinFn *fn, GsWinArg *arg)
{
	switch (fnoid)
	{
		case F_COUNT_:
			*fn = GSW_COUNT_STAR;
			*arg = GSW_ARG_NONE;
			return true;
		case F_COUNT_ANY:
			*fn = GSW_COUNT;
			*arg = GSW_ARG_NULLS;
			return true;
		case F_SUM_INT2:
		case F_SUM_INT4:
#ifdef HAVE_INT128
		case F_SUM_INT8:
#endif
			*fn = GSW_SUM;
			*arg = GSW_ARG_INT;
			return true;
		case F_SUM_FLOAT4:
		case F_SUM_FLOAT8:
			*fn = GSW_SUM;
			*arg = fnoid == F_SUM_FLOAT4 ? GSW_ARG_FLOAT4 : GSW_ARG_FLOAT8;
			return true;
		case F_AVG_INT2:
		case F_AVG_INT4:
#ifdef HAVE_INT128
		case F_AVG_INT8:
#endif
			*fn = GSW_AVG;
			*arg = GSW_ARG_INT;
			return true;
		case F_MIN_INT2:
		case F_MIN_INT4:
		case F_MIN_INT8:
		case F_MIN_DATE:
		case F_MIN_TIMESTAMP:
		case F_MIN_TIMESTAMPTZ:
			*fn = GSW_MIN;
			*arg = GSW_ARG_INT;
			return true;
		case F_MAX_INT2:
		case F_MAX_INT4:
		case F_MAX_INT8:
		case F_MAX_DATE:
		case F_MAX_TIMESTAMP:
		case F_MAX_TIMESTAMPTZ:
			*fn = GSW_MAX;
			*arg = GSW_ARG_INT;
			return true;
		case F_SUM_NUMERIC:
		case F_AVG_NUMERIC:
		case F_MIN_NUMERIC:
		case F_MAX_NUMERIC:
			*fn = fnoid == F_SUM_NUMERIC ? GSW_SUM : fnoid == F_AVG_NUMERIC ? GSW_AVG :
				fnoid == F_MIN_NUMERIC ? GSW_MIN : GSW_MAX;
			*arg = GSW_ARG_NUMERIC;
			return true;
		case F_AVG_FLOAT4:
		case F_AVG_FLOAT8:
			*fn = GSW_AVG;
			*arg = fnoid == F_AVG_FLOAT4 ? GSW_ARG_FLOAT4 : GSW_ARG_FLOAT8;
			return true;
		case F_VAR_POP_FLOAT4:
		case F_VAR_POP_FLOAT8:
		case F_VAR_SAMP_FLOAT4:
		case F_VAR_SAMP_FLOAT8:
		case F_VARIANCE_FLOAT4:
		case F_VARIANCE_FLOAT8:
		case F_STDDEV_POP_FLOAT4:
		case F_STDDEV_POP_FLOAT8:
		case F_STDDEV_SAMP_FLOAT4:
		case F_STDDEV_SAMP_FLOAT8:
		case F_STDDEV_FLOAT4:
		case F_STDDEV_FLOAT8:
			return float_statistic(fnoid, fn, arg);
		case F_MIN_FLOAT4:
		case F_MIN_FLOAT8:
		case F_MAX_FLOAT4:
		case F_MAX_FLOAT8:
			*fn = (fnoid == F_MIN_FLOAT4 || fnoid == F_MIN_FLOAT8) ? GSW_MIN : GSW_MAX;
			*arg = (fnoid == F_MIN_FLOAT4 || fnoid == F_MAX_FLOAT4) ?
				GSW_ARG_FLOAT4 : GSW_ARG_FLOAT8;
			return true;
		default:
			return int_statistic(fnoid, fn, arg);
	}
}

/*
 * The types an aggregate's argument expression may compute with: fixed-size
 * values whose built-in functions allocate at most palloc'd memory and
 * touch no catalog, lock or buffer (see arg_expr_walker)
 */
static bool
plain_scalar_type(Oid type)
{
	switch (type)
	{
		case BOOLOID:
		case INT2OID:
		case INT4OID:
		case INT8OID:
		case FLOAT4OID:
		case FLOAT8OID:
		case NUMERICOID:
		case DATEOID:
		case TIMESTAMPOID:
		case TIMESTAMPTZOID:
		case INTERVALOID:
			return true;
		default:
			return false;
	}
}

/* a built-in C function of plain scalars (plain_scalar_type), one row out */
static bool
plain_scalar_function(Oid fnoid, Oid rettype, List *args)
{
	HeapTuple	tp;
	bool		ok;
	ListCell   *lc;

	if (fnoid >= FirstGenbkiObjectId || !plain_scalar_type(rettype))
		return false;
	foreach(lc, args)
		if (!plain_scalar_type(exprType(lfirst(lc))))
			return false;
	tp = SearchSysCache1(PROCOID, ObjectIdGetDatum(fnoid));
	if (!HeapTupleIsValid(tp))
		return false;
	ok = ((Form_pg_proc) GETSTRUCT(tp))->prolang == INTERNALlanguageId &&
		!((Form_pg_proc) GETSTRUCT(tp))->proretset;
	ReleaseSysCache(tp);
	return ok;
}

typedef struct ArgExprContext
{
	bool		ok;
	bool		may_raise;		/* a function that is not leakproof */
} ArgExprContext;

/*
 * Whether an aggregate's argument expression is one GpuWindow evaluates
 * over every row before computing (windownode.c's evaluate_arguments): Vars
 * of the input row, Consts, Params, and built-in functions and operators of
 * plain scalars, with NULL tests, AND/OR/NOT, CASE and COALESCE.  Such an
 * expression may raise an error (an overflow, a division by zero), which
 * the node catches and records for the row: safe because these functions
 * hold no resource that an error would have to release.  (A PARAM_EXEC
 * whose value an initplan computes is computed before, uncaught: see
 * evaluate_arguments.)
 */
static bool
arg_expr_walker(Node *node, ArgExprContext *cxt)
{
	if (node == NULL)
		return false;
	switch (nodeTag(node))
	{
		case T_Var:
			{
				Var		   *var = (Var *) node;

				cxt->ok &= var->varno == OUTER_VAR && var->varattno > 0 &&
					var->varlevelsup == 0;
				break;
			}
		case T_Param:
			cxt->ok &= ((Param *) node)->paramkind == PARAM_EXEC ||
				((Param *) node)->paramkind == PARAM_EXTERN;
			break;
		case T_List:
			break;
		case T_Const:
		case T_RelabelType:
		case T_NullTest:
		case T_BoolExpr:
		case T_CoalesceExpr:
		case T_CaseExpr:
		case T_CaseWhen:
		case T_CaseTestExpr:
			cxt->ok &= plain_scalar_type(exprType(node)) || IsA(node, CaseWhen);
			break;
		case T_FuncExpr:
		case T_OpExpr:
			{
				Oid			fnoid;
				List	   *args;

				if (IsA(node, OpExpr))
				{
					set_opfuncid((OpExpr *) node);
					fnoid = ((OpExpr *) node)->opfuncid;
					args = ((OpExpr *) node)->args;
				}
				else
				{
					fnoid = ((FuncExpr *) node)->funcid;
					args = ((FuncExpr *) node)->args;
				}
				cxt->ok &= plain_scalar_function(fnoid, exprType(node), args);
				if (cxt->ok && !get_func_leakproof(fnoid))
					cxt->may_raise = true;
				break;
			}
		default:
			cxt->ok = false;
			break;
	}
	if (!cxt->ok)
		return true;
	return expression_tree_walker(node, arg_expr_walker, (void *) cxt);
}

/*
 * The first argument of f's function: a column of the input row, or an
 * expression.  Lag, lead and the value functions evaluate theirs when a
 * row is returned, on the row they read, as WindowAgg does: any expression
 * that is not volatile will do.  An aggregate's is evaluated over every
 * row first: see arg_expr_walker.
 */
static bool
func_argument(WindowFunc *wfunc, GsWinFunc *f, const char **why)
{
	Expr	   *arg = linitial(wfunc->args);
	ArgExprContext cxt = {true, false};

	f->argtype = exprType((Node *) arg);
	f->argattno = arg_column(wfunc, 0);
	if (f->argattno != 0)
		return true;
	*why = "a window function of an expression GpuWindow does not evaluate";
	if (contain_volatile_functions((Node *) arg) ||
		contain_subplans((Node *) arg))
		return false;
	if (wfunc->winagg)
	{
		(void) arg_expr_walker((Node *) arg, &cxt);
		if (!cxt.ok)
			return false;
	}
	f->argexpr = arg;
	f->arg_may_raise = cxt.may_raise;
	return true;
}

/* lag and lead: the offset and the default */
static bool
lag_lead_params(WindowFunc *wfunc, GsWinFunc *f, const char **why)
{
	int			nargs = list_length(wfunc->args);

	f->fn = (wfunc->winfnoid == F_LAG_ANYELEMENT ||
			 wfunc->winfnoid == F_LAG_ANYELEMENT_INT4 ||
			 wfunc->winfnoid == F_LAG_ANYCOMPATIBLE_INT4_ANYCOMPATIBLE) ?
		GSW_LAG : GSW_LEAD;
	f->param = 1;
	if (nargs >= 2 && !int4_const(wfunc, 1, &f->param, &f->param_null))
	{
		*why = "lag or lead by an offset that is not a constant";
		return false;
	}
	if (nargs >= 3)
	{
		Const	   *c = (Const *) lthird(wfunc->args);

		if (!IsA(c, Const))
		{
			*why = "lag or lead with a default that is not a constant";
			return false;
		}
		f->has_default = true;
		f->defval = c->constvalue;
		f->defnull = c->constisnull;
	}
	return true;
}

/*
 * The function, for those without an argument to read (true in *done), or
 * with one; false if not computed here
 */
static bool
func_kind(WindowFunc *wfunc, GsWinFunc *f, bool *done, const char **why)
{
	*done = true;
	switch (wfunc->winfnoid)
	{
		case F_ROW_NUMBER:
			f->fn = GSW_ROW_NUMBER;
			return true;
		case F_RANK_:
			f->fn = GSW_RANK;
			return true;
		case F_DENSE_RANK_:
			f->fn = GSW_DENSE_RANK;
			return true;
		case F_PERCENT_RANK_:
			f->fn = GSW_PERCENT_RANK;
			return true;
		case F_CUME_DIST_:
			f->fn = GSW_CUME_DIST;
			return true;
		case F_NTILE:
			f->fn = GSW_NTILE;
			if (int4_const(wfunc, 0, &f->param, &f->param_null))
				return true;
			*why = "ntile of a value that is not a constant";
			return false;
		case F_LAG_ANYELEMENT:
		case F_LAG_ANYELEMENT_INT4:
		case F_LAG_ANYCOMPATIBLE_INT4_ANYCOMPATIBLE:
		case F_LEAD_ANYELEMENT:
		case F_LEAD_ANYELEMENT_INT4:
		case F_LEAD_ANYCOMPATIBLE_INT4_ANYCOMPATIBLE:
			*done = false;
			return lag_lead_params(wfunc, f, why);
		case F_FIRST_VALUE:
			f->fn = GSW_FIRST_VALUE;
			break;
		case F_LAST_VALUE:
			f->fn = GSW_LAST_VALUE;
			break;
		case F_NTH_VALUE:
			f->fn = GSW_NTH_VALUE;
			if (!int4_const(wfunc, 1, &f->param, &f->param_null))
			{
				*why = "nth_value of a position that is not a constant";
				return false;
			}
			break;
		default:
			if (!wfunc->winagg || !aggregate_kind(wfunc->winfnoid, &f->fn, &f->arg))
				return false;
			if (f->fn == GSW_COUNT_STAR)
				return true;
			break;
	}
	*done = false;
	return true;
}

bool
gs_win_func_from_plan(WindowFunc *wfunc, GsWinFunc *f, const char **why)
{
	bool		done;

	memset(f, 0, sizeof(GsWinFunc));
	f->restype = wfunc->wintype;
	*why = "a window function GpuWindow does not compute";
	/*
	 * A FILTER is evaluated on every row before any is returned, where
	 * WindowAgg evaluates it as rows enter a frame: only a filter that can
	 * neither change with its evaluation nor raise an error about a value
	 * (leakproof functions of the row's columns) gives the same answers.
	 */
	if (wfunc->aggfilter != NULL &&
		(contain_volatile_functions((Node *) wfunc->aggfilter) ||
		 contain_leaked_vars((Node *) wfunc->aggfilter) ||
		 contain_subplans((Node *) wfunc->aggfilter)))
	{
		*why = "an aggregate with a FILTER that may raise an error or change";
		return false;
	}
	f->has_filter = wfunc->aggfilter != NULL;
	if (!func_kind(wfunc, f, &done, why))
		return false;
	return done || func_argument(wfunc, f, why);
}

/* a ROWS offset: a non-NULL, non-negative int8 Const (WindowAgg raises the rest) */
static bool
rows_offset(Node *expr, bool preceding, int64 *offset)
{
	Const	   *c = (Const *) expr;

	if (c == NULL || !IsA(c, Const) || c->consttype != INT8OID || c->constisnull ||
		DatumGetInt64(c->constvalue) < 0)
		return false;
	*offset = preceding ? -DatumGetInt64(c->constvalue) : DatumGetInt64(c->constvalue);
	return true;
}

/*
 * A RANGE bound with an offset: a Const, not NULL (WindowAgg raises that),
 * of a window with one order column and a built-in in_range function
 */
static bool
range_offset(WindowAgg *wa, int offset_option, Node *offset, Oid in_range)
{
	return (wa->frameOptions & FRAMEOPTION_RANGE) && offset_option &&
		wa->ordNumCols == 1 && offset != NULL && IsA(offset, Const) &&
		!((Const *) offset)->constisnull &&
		OidIsValid(in_range) && in_range < FirstGenbkiObjectId;
}

bool
gs_win_frame_from_plan(WindowAgg *wa, GsWinFrame *frame, const char **why)
{
	int			o = wa->frameOptions;
	bool		rows = (o & FRAMEOPTION_ROWS) != 0;

	memset(frame, 0, sizeof(GsWinFrame));
	*why = "a frame GpuWindow does not compute";
	frame->exclude = (o & FRAMEOPTION_EXCLUDE_CURRENT_ROW) ? GSW_EXCLUDE_CURRENT_ROW :
		(o & FRAMEOPTION_EXCLUDE_GROUP) ? GSW_EXCLUDE_GROUP :
		(o & FRAMEOPTION_EXCLUDE_TIES) ? GSW_EXCLUDE_TIES : GSW_EXCLUDE_NONE;

	if (o & FRAMEOPTION_START_UNBOUNDED_PRECEDING)
		frame->start = GSW_BOUND_PARTITION;
	else if (range_offset(wa, o & FRAMEOPTION_START_OFFSET, wa->startOffset,
						  wa->startInRangeFunc))
		frame->start = GSW_BOUND_RANGE;
	else if (rows && (o & FRAMEOPTION_START_CURRENT_ROW))
		frame->start = GSW_BOUND_ROW;
	else if (o & FRAMEOPTION_START_CURRENT_ROW)
		frame->start = GSW_BOUND_GROUPS;	/* the first peer: offset 0 */
	else if ((o & FRAMEOPTION_GROUPS) && (o & FRAMEOPTION_START_OFFSET) &&
			 rows_offset(wa->startOffset,
						 (o & FRAMEOPTION_START_OFFSET_PRECEDING) != 0,
						 &frame->start_offset))
		frame->start = GSW_BOUND_GROUPS;
	else if (rows && (o & FRAMEOPTION_START_OFFSET) &&
			 rows_offset(wa->startOffset,
						 (o & FRAMEOPTION_START_OFFSET_PRECEDING) != 0,
						 &frame->start_offset))
		frame->start = GSW_BOUND_ROW;
	else
		return false;

	if (o & FRAMEOPTION_END_UNBOUNDED_FOLLOWING)
		frame->end = GSW_BOUND_PARTITION;
	else if (range_offset(wa, o & FRAMEOPTION_END_OFFSET, wa->endOffset,
						  wa->endInRangeFunc))
		frame->end = GSW_BOUND_RANGE;
	else if (o & FRAMEOPTION_END_CURRENT_ROW)
		frame->end = rows ? GSW_BOUND_ROW : GSW_BOUND_PEERS;
	else if (rows && (o & FRAMEOPTION_END_OFFSET) &&
			 rows_offset(wa->endOffset,
						 (o & FRAMEOPTION_END_OFFSET_PRECEDING) != 0,
						 &frame->end_offset))
		frame->end = GSW_BOUND_ROW;
	else if ((o & FRAMEOPTION_GROUPS) && (o & FRAMEOPTION_END_OFFSET) &&
			 rows_offset(wa->endOffset,
						 (o & FRAMEOPTION_END_OFFSET_PRECEDING) != 0,
						 &frame->end_offset))
		frame->end = GSW_BOUND_GROUPS;
	else
		return false;

	/*
	 * a moving start with an end at the current row's last peer: not here
	 * (frames whose both ends only move forward are)
	 */
	if (frame->start == GSW_BOUND_ROW && frame->end == GSW_BOUND_PEERS)
		return false;
	/* a RANGE end whose start does not move: the frame only grows */
	return true;
}

/*
 * Whether f's state is computed again from a moved frame start rather than
 * slid (see gs_win_restarts): the float sums and statistics, whose values
 * depend on the order of their inputs and which have no inverse
 */
static bool
restarts_when_moved(const GsWinFunc *f)
{
	switch (f->fn)
	{
		case GSW_SUM:
		case GSW_AVG:
			return f->arg != GSW_ARG_INT && f->arg != GSW_ARG_NUMERIC;
		case GSW_VAR_POP:
		case GSW_VAR_SAMP:
		case GSW_STDDEV_POP:
		case GSW_STDDEV_SAMP:
			return f->arg != GSW_ARG_INT;	/* integers' sums slide exactly */
		default:
			return false;		/* counts; min and max slide (minmax_sliding) */
	}
}

static bool
is_aggregate(const GsWinFunc *f)
{
	switch (f->fn)
	{
		case GSW_COUNT_STAR:
		case GSW_COUNT:
		case GSW_SUM:
		case GSW_AVG:
		case GSW_MIN:
		case GSW_MAX:
		case GSW_VAR_POP:
		case GSW_VAR_SAMP:
		case GSW_STDDEV_POP:
		case GSW_STDDEV_SAMP:
			return true;
		default:
			return false;
	}
}

bool
gs_win_excludes_afresh(const GsWinFunc *f, const GsWinFrame *frame)
{
	return frame->exclude != GSW_EXCLUDE_NONE && is_aggregate(f) &&
		(f->fn == GSW_MIN || f->fn == GSW_MAX || restarts_when_moved(f));
}

bool
gs_win_excludes(const GsWinFunc *f, const GsWinFrame *frame)
{
	if (frame->exclude == GSW_EXCLUDE_NONE || !is_aggregate(f))
		return true;			/* ranks, lag, lead; value_row_excluding */

	/*
	 * put_excluding takes rows out of a state ahead of WindowAgg, and
	 * aggregate_excluding evaluates rows as WindowAgg does but was not
	 * built to give an argument's error: an argument that may raise keeps
	 * WindowAgg
	 */
	return !f->arg_may_raise;
}

bool
gs_win_restarts(const GsWinFunc *f, const GsWinFrame *frame)
{
	if (frame->start == GSW_BOUND_PARTITION)
		return false;

	/*
	 * aggregate_excluding computes every row's frame too, but takes no more
	 * rows for a row than WindowAgg does and checks for interrupts by the
	 * rows it takes, so its frames need no limit
	 */
	return !gs_win_excludes_afresh(f, frame) && restarts_when_moved(f);
}

static void
describe_bound(StringInfo buf, GsWinBound bound, int64 offset, bool start)
{
	if (bound == GSW_BOUND_PARTITION)
		appendStringInfoString(buf, start ? "the partition's first row" :
							   "the partition's last row");
	else if (bound == GSW_BOUND_PEERS)
		appendStringInfoString(buf, "the current row's last peer");
	else if (bound == GSW_BOUND_RANGE)
		appendStringInfoString(buf, start ? "the first row in range" :
							   "the last row in range");
	else if (bound == GSW_BOUND_GROUPS && offset == 0)
		appendStringInfoString(buf, start ? "the current row's first peer" :
							   "the current row's last peer");
	else if (bound == GSW_BOUND_GROUPS)
		appendStringInfo(buf, "the %s peer of the group " INT64_FORMAT " %s",
						 start ? "first" : "last", offset < 0 ? -offset : offset,
						 offset < 0 ? "before" : "after");
	else if (offset == 0)
		appendStringInfoString(buf, "the current row");
	else
		appendStringInfo(buf, INT64_FORMAT " %s %s the current row",
						 offset < 0 ? -offset : offset,
						 (offset == 1 || offset == -1) ? "row" : "rows",
						 offset < 0 ? "before" : "after");
}

char *
gs_win_frame_describe(const GsWinFrame *frame)
{
	StringInfoData buf;

	initStringInfo(&buf);
	appendStringInfoString(&buf, "from ");
	describe_bound(&buf, frame->start, frame->start_offset, true);
	appendStringInfoString(&buf, " to ");
	describe_bound(&buf, frame->end, frame->end_offset, false);
	if (frame->exclude != GSW_EXCLUDE_NONE)
		appendStringInfoString(&buf,
							   frame->exclude == GSW_EXCLUDE_CURRENT_ROW ? ", without the current row" :
							   frame->exclude == GSW_EXCLUDE_GROUP ? ", without the current row and its peers" :
							   ", without the current row's peers");
	return buf.data;
}

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

/* ---- numeric values as fixed point ------------------------------------------------ */

/*
 * numeric's on-disk layout (utils/adt/numeric.c, private there): a varlena
 * whose first uint16 says the format.  A short numeric packs sign, display
 * scale and weight into it; a long one has the sign and display scale, then
 * an int16 weight; NaN and the infinities are "special" headers with no
 * digits.  The digits are int16s in base 10000, the first one weighing
 * 10000^weight.
 */
#define NUMV_SIGN_MASK		0xC000
#define NUMV_NEG			0x4000
#define NUMV_SHORT			0x8000
#define NUMV_SPECIAL		0xC000
#define NUMV_EXT_MASK		0xF000
#define NUMV_NAN			0xC000
#define NUMV_PINF			0xD000
#define NUMV_NINF			0xF000
#define NUMV_SHORT_SIGN		0x2000
#define NUMV_SHORT_DSCALE_MASK	0x1F80
#define NUMV_SHORT_DSCALE_SHIFT	7
#define NUMV_SHORT_WEIGHT_SIGN	0x0040
#define NUMV_SHORT_WEIGHT_MASK	0x003F
#define NUMV_DSCALE_MASK	0x3FFF
#define NUMV_NBASE			10000

#ifdef HAVE_INT128
#define NUMV_MAX_SCALED		((int128) 1 << 95)

/* 10^e for 0 <= e <= 38 */
static inline int128
pow10_128(int e)
{
	int128		p = 1;

	while (e-- > 0)
		p *= 10;
	return p;
}

/*
 * A numeric as v / 10^scale, v = *out and scale its display scale (the
 * return value), or a GSW_NUM_* kind.  Reads bytes only: allocates nothing
 * and raises nothing, so threads call it.  A display scale is never less
 * than the digits stored (numeric.c's invariant), so the last digit's
 * decimal places past the scale are zeros; a value breaking that is left
 * GSW_NUM_WIDE, for WindowAgg.
 */
int16
gs_win_numeric_fixed(const struct varlena *num, int128 *out)
{
	const char *p;
	Size		len;
	uint16		header;
	int			weight,
				dscale,
				ndigits,
				e,
				i;
	bool		neg;
	int128		acc = 0;

	if (VARATT_IS_EXTERNAL(num) || VARATT_IS_COMPRESSED(num))
		return GSW_NUM_UNREAD;
	p = VARDATA_ANY(num);
	len = VARSIZE_ANY_EXHDR(num);
	if (len < sizeof(uint16))
		return GSW_NUM_WIDE;
	memcpy(&header, p, sizeof(uint16));
	if ((header & NUMV_SIGN_MASK) == NUMV_SPECIAL)
		return (header & NUMV_EXT_MASK) == NUMV_NAN ? GSW_NUM_NAN :
			(header & NUMV_EXT_MASK) == NUMV_PINF ? GSW_NUM_PINF :
			(header & NUMV_EXT_MASK) == NUMV_NINF ? GSW_NUM_NINF : GSW_NUM_WIDE;
	if ((header & NUMV_SIGN_MASK) == NUMV_SHORT)
	{
		neg = (header & NUMV_SHORT_SIGN) != 0;
		dscale = (header & NUMV_SHORT_DSCALE_MASK) >> NUMV_SHORT_DSCALE_SHIFT;
		weight = ((header & NUMV_SHORT_WEIGHT_SIGN) ? ~NUMV_SHORT_WEIGHT_MASK : 0) |
			(header & NUMV_SHORT_WEIGHT_MASK);
		p += sizeof(uint16);
		len -= sizeof(uint16);
	}
	else
	{
		int16		w;

		if (len < 2 * sizeof(uint16))
			return GSW_NUM_WIDE;
		neg = (header & NUMV_SIGN_MASK) == NUMV_NEG;
		dscale = header & NUMV_DSCALE_MASK;
		memcpy(&w, p + sizeof(uint16), sizeof(int16));
		weight = w;
		p += 2 * sizeof(uint16);
		len -= 2 * sizeof(uint16);
	}
	ndigits = (int) (len / sizeof(int16));
	if (dscale > GSW_NUM_MAX_SCALE)
		return GSW_NUM_WIDE;
	if (ndigits == 0)
	{
		*out = 0;
		return (int16) dscale;
	}
	/* the last digit's power of ten in v: v = digits as an integer * 10^e */
	e = 4 * (weight - (ndigits - 1)) + dscale;
	if (e <= -4 || e > GSW_NUM_MAX_SCALE)
		return GSW_NUM_WIDE;
	for (i = 0; i < ndigits; i++)
	{
		int16		d;

		memcpy(&d, p + i * sizeof(int16), sizeof(int16));
		if (i == ndigits - 1 && e < 0)
		{
			/* the last digit's places past the scale: zeros, dropped */
			if (__builtin_mul_overflow(acc, pow10_128(4 + e), &acc))
				return GSW_NUM_WIDE;
			acc += d / (int) pow10_128(-e);
		}
		else if (__builtin_mul_overflow(acc, (int128) NUMV_NBASE, &acc) ||
				 __builtin_add_overflow(acc, (int128) d, &acc))
			return GSW_NUM_WIDE;
		if (acc >= NUMV_MAX_SCALED)
			return GSW_NUM_WIDE;
	}
	if (e > 0 && __builtin_mul_overflow(acc, pow10_128(e), &acc))
		return GSW_NUM_WIDE;
	if (acc >= NUMV_MAX_SCALED)
		return GSW_NUM_WIDE;
	*out = neg ? -acc : acc;
	return (int16) dscale;
}
#endif

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
			if ((i + 1) % GS_INTERRUPT_EVERY == 0)
				CHECK_FOR_INTERRUPTS();
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
		if (i % GS_INTERRUPT_EVERY == 0)
			CHECK_FOR_INTERRUPTS();
	}
	read_unread_numerics(&a, a.slots[0]);
	gs_thread_slots_free(slots);
	MemoryContextSwitchTo(oldcxt);
	MemoryContextDelete(cxt);
}

/* ---- 2. functions ------------------------------------------------------------------ */

/* the end of the peer group that starts at row s */
static inline uint64
peers_end(const uint8 *flags, uint64 s, uint64 pe)
{
	uint64		e = s + 1;

	while (e < pe && !(flags[e] & GSW_NEW_PEERS))
		e++;
	return e;
}

/* PostgreSQL's float comparisons: NaN is greater than every other value */
static inline bool
float_lt(double a, double b)
{
	return !isnan(a) && (isnan(b) || a < b);
}

static inline bool
float_gt(double a, double b)
{
	return !isnan(b) && (isnan(a) || a > b);
}

/* an aggregate's running state */
typedef struct WinAggState
{
	int64		rows;			/* rows taken, NULLs included */
	int64		count;			/* non-NULL inputs taken */
	int64		isum;
#ifdef HAVE_INT128
	int128		wide;			/* int8 sums; numeric sums at nscale */
	int128		wide2;			/* integer statistics: the sum of squares */
#endif
	double		fval;			/* float sum (Sx), min or max */
	double		sxx;			/* float8_accum's Sxx */
	int64		ival;			/* integer min or max; numeric's row */
	int16		nscale;			/* numeric sum: the largest scale taken, the
								 * scale of wide */
	int32	   *nscales;		/* frames that slide: finite numerics in the
								 * frame by display scale [0, 38], or NULL */
	int64		nan,			/* numeric NaN, +Infinity, -Infinity taken */
				pinf,
				ninf;
	bool		wide_fail;		/* the failure is a numeric too wide here */
} WinAggState;

#ifdef HAVE_INT128

/* a numeric's order among kinds: -Infinity, finite, +Infinity, NaN */
static inline int
numeric_kind_order(int16 scale)
{
	return scale >= 0 ? 0 : scale == GSW_NUM_NINF ? -1 :
		scale == GSW_NUM_PINF ? 1 : 2;
}

/*
 * cmp_numerics of rows a and b's numerics (NaN above everything and equal
 * to itself, the infinities equal to themselves): -1, 0 or 1; 2 when the
 * values do not fit a common scale
 */
static inline int
numeric_cmp_rows(const GsWinFunc *f, uint64 a, uint64 b)
{
	int16		sa = f->argscale[a],
				sb = f->argscale[b];
	int128		va = f->argw[a],
				vb = f->argw[b];
	int			ka = numeric_kind_order(sa),
				kb = numeric_kind_order(sb);

	if (ka != kb)
		return ka < kb ? -1 : 1;
	if (ka != 0)
		return 0;
	if (sa < sb && __builtin_mul_overflow(va, pow10_128(sb - sa), &va))
		return 2;
	if (sb < sa && __builtin_mul_overflow(vb, pow10_128(sa - sb), &vb))
		return 2;
	return va < vb ? -1 : va > vb ? 1 : 0;
}

/*
 * Takes row r's numeric into the state: a sum, as numeric.c's accumulator
 * (NaN and the infinities counted apart, finite values added exactly at the
 * largest display scale taken, which is the result's), or the row whose
 * value numeric_smaller or numeric_larger keeps (the new one on ties).
 * False when the threads cannot (s->wide_fail).
 */
static inline bool
agg_take_numeric(GsWinFunc *f, WinAggState *s, uint64 r)
{
	int16		sc = f->argscale[r];
	int128		v = f->argw[r];

	s->wide_fail = true;
	if (sc == GSW_NUM_WIDE || sc == GSW_NUM_UNREAD)
		return false;
	if (f->fn == GSW_MIN || f->fn == GSW_MAX)
	{
		int			c = s->count == 0 ? 0 : numeric_cmp_rows(f, (uint64) s->ival, r);

		if (c == 2)
			return false;
		if (s->count == 0 || (f->fn == GSW_MIN ? c >= 0 : c <= 0))
			s->ival = (int64) r;
	}
	else if (sc == GSW_NUM_NAN)
		s->nan++;
	else if (sc == GSW_NUM_PINF)
		s->pinf++;
	else if (sc == GSW_NUM_NINF)
		s->ninf++;
	else
	{
		if (sc > s->nscale)
		{
			if (__builtin_mul_overflow(s->wide, pow10_128(sc - s->nscale), &s->wide))
				return false;
			s->nscale = sc;
		}
		else if (sc < s->nscale &&
				 __builtin_mul_overflow(v, pow10_128(s->nscale - sc), &v))
			return false;
		if (__builtin_add_overflow(s->wide, v, &s->wide))
			return false;
		if (s->nscales)
			s->nscales[sc]++;
	}
	s->wide_fail = false;
	return true;
}
#endif

/*
 * float8_accum's step (float4_accum's, the float4 widened first): the
 * Youngs-Cramer update of N (count), Sx (fval) and Sxx, with its overflow
 * check; false on an overflow.  Compiled without contracting a multiply
 * and an add into one (the Makefile's -ffp-contract=off), as float.c.
 */
static inline bool
youngs_cramer(WinAggState *s, double newval)
{
	double		n0 = (double) s->count;
	double		n = n0 + 1.0;
	double		sx = s->fval + newval;
	double		sxx = s->sxx;

	if (n0 > 0.0)
	{
		double		tmp = newval * n - sx;

		sxx += tmp * tmp / (n * n0);
		if (isinf(sx) || isinf(sxx))
		{
			if (!isinf(s->fval) && !isinf(newval))
				return false;
			sxx = NAN;
		}
	}
	else if (isnan(newval) || isinf(newval))
		sxx = NAN;
	s->fval = sx;
	s->sxx = sxx;
	return true;
}

/* float8_avg, float8_var_pop and the rest: the result of the state */
static inline void
float_statistic_put(GsWinFunc *f, const WinAggState *s, uint64 r)
{
	double		n = (double) s->count;

	f->isnull[r] = (f->fn == GSW_VAR_SAMP || f->fn == GSW_STDDEV_SAMP) ?
		n <= 1.0 : n == 0.0;
	if (f->isnull[r])
		return;
	switch (f->fn)
	{
		case GSW_AVG:
			f->f8[r] = s->fval / n;
			break;
		case GSW_VAR_POP:
			f->f8[r] = s->sxx / n;
			break;
		case GSW_VAR_SAMP:
			f->f8[r] = s->sxx / (n - 1.0);
			break;
		case GSW_STDDEV_POP:
			f->f8[r] = sqrt(s->sxx / n);
			break;
		default:
			f->f8[r] = sqrt(s->sxx / (n - 1.0));
			break;
	}
}

/*
 * takes row r into the state; false when evaluating it fails: an argument
 * that raised an error, an overflowing transition, or (wide_fail) a numeric
 * the threads cannot compute with
 */
static inline bool
agg_take(GsWinFunc *f, WinAggState *s, uint64 r)
{
	if (f->skip && f->skip[r])
		return true;
	if (f->argerr && f->argerr[r])
		return false;
	s->rows++;
	if (f->fn == GSW_COUNT_STAR || f->argnull[r])
		return true;
	switch (f->arg)
	{
#ifdef HAVE_INT128
		case GSW_ARG_NUMERIC:
			if (!agg_take_numeric(f, s, r))
				return false;
			break;
#endif
		case GSW_ARG_INT:
			{
				int64		v = f->argi[r];

				if (f->fn == GSW_MIN)
					s->ival = (s->count == 0 || v < s->ival) ? v : s->ival;
				else if (f->fn == GSW_MAX)
					s->ival = (s->count == 0 || v > s->ival) ? v : s->ival;
#ifdef HAVE_INT128
				else if (GSW_INT_STATISTIC(f))
				{
					/* int8's squares reach 2^126: their sum may not fit */
					s->wide_fail = true;
					if (__builtin_add_overflow(s->wide2, (int128) v * v, &s->wide2))
						return false;
					s->wide_fail = false;
					s->wide += v;
				}
				else if (f->argtype == INT8OID)
					s->wide += v;
#endif
				else
					s->isum += v;
				break;
			}
		case GSW_ARG_FLOAT4:
		case GSW_ARG_FLOAT8:
			{
				double		v = f->argf[r];

				if (f->fn != GSW_SUM && f->fn != GSW_MIN && f->fn != GSW_MAX)
				{
					if (!youngs_cramer(s, v))
						return false;
				}
				else if (s->count == 0)
					s->fval = v;
				else if (f->fn == GSW_MIN)
					s->fval = float_lt(s->fval, v) ? s->fval : v;
				else if (f->fn == GSW_MAX)
					s->fval = float_gt(s->fval, v) ? s->fval : v;
				else if (f->arg == GSW_ARG_FLOAT4)
				{
					/* float4pl, in single precision */
					float4		x = (float4) s->fval,
								y = (float4) v,
								sum = x + y;

					if (isinf(sum) && !isinf(x) && !isinf(y))
						return false;
					s->fval = sum;
				}
				else
				{
					double		sum = s->fval + v;

					if (isinf(sum) && !isinf(s->fval) && !isinf(v))
						return false;
					s->fval = sum;
				}
				break;
			}
		default:
			break;
	}
	s->count++;
	return true;
}

#ifdef HAVE_INT128
/*
 * numeric_stddev_internal over an integer state (numeric_poly_var_pop and
 * the others): N * sumX2 - sumX * sumX exactly (0, scale 0, if not
 * positive), divided by N * N or N * (N - 1) at select_div_scale's scale
 * (gs_win_numeric_div); stddev is its square root, rounded at that scale
 * (sqrt_var, of the rounded variance).  A value past 128 bits sends the
 * window to WindowAgg (too_wide).
 */
static inline void
int_statistic_put(GsWinFunc *f, const WinAggState *s, uint64 r)
{
	bool		samp = f->fn == GSW_VAR_SAMP || f->fn == GSW_STDDEV_SAMP;
	int128		n = s->count,
				num,
				sq,
				v;
	int16		scale;

	f->isnull[r] = samp ? n <= 1 : n == 0;
	if (f->isnull[r])
		return;
	if (__builtin_mul_overflow(n, s->wide2, &num) ||
		__builtin_mul_overflow(s->wide, s->wide, &sq) ||
		__builtin_sub_overflow(num, sq, &num))
		goto too_wide;
	if (num <= 0)
	{
		f->wide[r] = 0;
		f->rscale[r] = 0;
		return;
	}
	if (!gs_win_numeric_div(num, 0, n * (samp ? n - 1 : n), 0, &v, &scale))
		goto too_wide;
	if ((f->fn == GSW_STDDEV_POP || f->fn == GSW_STDDEV_SAMP) &&
		!gs_win_numeric_sqrt(v, scale, &v))
		goto too_wide;
	f->wide[r] = v;
	f->rscale[r] = scale;
	return;
too_wide:
	__atomic_store_n(&f->too_wide, true, __ATOMIC_RELAXED);
	f->isnull[r] = true;
}
#endif

static inline void
agg_put(GsWinFunc *f, const WinAggState *s, uint64 r)
{
	switch (f->fn)
	{
		case GSW_COUNT_STAR:
			f->i64[r] = s->rows;
			return;
		case GSW_COUNT:
			f->i64[r] = s->count;
			return;
		default:
			break;
	}
	if ((f->arg == GSW_ARG_FLOAT4 || f->arg == GSW_ARG_FLOAT8) &&
		f->fn != GSW_SUM && f->fn != GSW_MIN && f->fn != GSW_MAX)
	{
		float_statistic_put(f, s, r);
		return;
	}
#ifdef HAVE_INT128
	if (GSW_INT_STATISTIC(f))
	{
		int_statistic_put(f, s, r);
		return;
	}
#endif
	f->isnull[r] = s->count == 0;
#ifdef HAVE_INT128
	if (f->arg == GSW_ARG_NUMERIC && (f->fn == GSW_MIN || f->fn == GSW_MAX))
		f->i64[r] = s->ival;
	else if (f->arg == GSW_ARG_NUMERIC)
	{
		int16		d = s->nscale;

		/*
		 * the frame's largest display scale (numeric.c's accumulator gives
		 * the sum that one, see numeric_drop): below wide's when the values
		 * of larger scales have left, which then divides exactly
		 */
		if (s->nscales)
			while (d > 0 && s->nscales[d] == 0)
				d--;
		f->wide[r] = d == s->nscale ? s->wide : s->wide / pow10_128(s->nscale - d);
		f->rscale[r] = s->nan > 0 || (s->pinf > 0 && s->ninf > 0) ? GSW_NUM_NAN :
			s->pinf > 0 ? GSW_NUM_PINF : s->ninf > 0 ? GSW_NUM_NINF : d;
		if (f->cnt)
			f->cnt[r] = s->count - s->nan - s->pinf - s->ninf;
		return;
	}
	else
#endif
	if (f->arg != GSW_ARG_INT)
		f->f8[r] = s->fval;
#ifdef HAVE_INT128
	else if (f->wide)
		f->wide[r] = s->wide;
#endif
	else
		f->i64[r] = (f->fn == GSW_MIN || f->fn == GSW_MAX) ? s->ival : s->isum;
	if (f->cnt)
		f->cnt[r] = s->count;
}

/* r + off, clamped to [lo - 1, hi]; rows number fewer than 2^32 */
static inline int64
offset_row(uint64 r, int64 off, uint64 lo, uint64 hi)
{
	int64		t;

	if (off > (int64) hi)
		return (int64) hi;
	if (off < -(int64) hi - 1)
		return (int64) lo - 1;
	t = (int64) r + off;
	return t < (int64) lo - 1 ? (int64) lo - 1 : t > (int64) hi ? (int64) hi : t;
}

/* row r's frame [*fs, *fe) in the partition [ps, pe), r's peers [gs, ge) */
static inline void
frame_rows(const GsWinFrame *frame, uint64 r, uint64 ps, uint64 pe, uint64 ge,
		   uint64 *fs, uint64 *fe)
{
	if (frame->start == GSW_BOUND_PARTITION)
		*fs = ps;
	else if (GSW_BOUND_IS_ARRAY(frame->start))
		*fs = frame->range_start[r];
	else
		*fs = (uint64) Max(offset_row(r, frame->start_offset, ps, pe), (int64) ps);
	if (frame->end == GSW_BOUND_PARTITION)
		*fe = pe;
	else if (frame->end == GSW_BOUND_PEERS)
		*fe = ge;
	else if (GSW_BOUND_IS_ARRAY(frame->end))
		*fe = frame->range_end[r];
	else
	{
		int64		t = offset_row(r, frame->end_offset, ps, pe);

		*fe = t < (int64) ps ? ps : t >= (int64) pe ? pe : (uint64) t + 1;
	}
	if (*fe < *fs)
		*fe = *fs;				/* an empty frame */
}

#ifdef HAVE_INT128
/*
 * Takes row r's numeric out of a sum: exact, as numeric.c's inverse
 * transition (do_numeric_discard) is.  Its display scale leaves the frame's
 * count of that scale; numeric.c, which cannot tell the largest scale left,
 * then computes the frame again (WindowAgg's restart), whose sum has the
 * largest scale of the frame's values: what agg_put gives.  False when the
 * value no longer fits wide's scale.
 */
static inline bool
numeric_drop(GsWinFunc *f, WinAggState *s, uint64 r)
{
	int16		sc = f->argscale[r];
	int128		v = f->argw[r];

	if (sc == GSW_NUM_NAN)
		s->nan--;
	else if (sc == GSW_NUM_PINF)
		s->pinf--;
	else if (sc == GSW_NUM_NINF)
		s->ninf--;
	else
	{
		if ((sc < s->nscale &&
			 __builtin_mul_overflow(v, pow10_128(s->nscale - sc), &v)) ||
			__builtin_sub_overflow(s->wide, v, &s->wide))
			return false;
		s->nscales[sc]--;
	}
	return true;
}
#endif

/*
 * takes row r out of an invertible state (see gs_win_restarts); false when
 * a numeric no longer fits (too_wide)
 */
static inline bool
agg_drop(GsWinFunc *f, WinAggState *s, uint64 r)
{
	if (f->skip && f->skip[r])
		return true;
	s->rows--;
	if (f->fn == GSW_COUNT_STAR || f->argnull[r])
		return true;
#ifdef HAVE_INT128
	if (f->arg == GSW_ARG_NUMERIC && f->fn != GSW_COUNT)
	{
		if (!numeric_drop(f, s, r))
			return false;
	}
	else if (GSW_INT_STATISTIC(f))
	{
		s->wide -= f->argi[r];
		s->wide2 -= (int128) f->argi[r] * f->argi[r];
	}
	else if (f->argtype == INT8OID && f->fn != GSW_COUNT)
		s->wide -= f->argi[r];
	else
#endif
	if (f->fn != GSW_COUNT)
		s->isum -= f->argi[r];
	s->count--;
	return true;
}

/*
 * Row r's value over its frame [fs, fe), whose rows the state holds, less
 * the rows the EXCLUDE clause leaves out (of r's peers [gs, ge)): they are
 * taken out of the state, the value put, and they are taken back.
 * WindowAgg computes an excluding frame's aggregate afresh for every row;
 * the states allowed here (gs_win_excludes) give the same value taken out
 * as computed without them, and their arguments raise no error, so that no
 * row is evaluated where WindowAgg would not evaluate it.  False when a
 * numeric no longer fits (too_wide).
 */
static bool
put_excluding(GsWinFunc *f, WinAggState *s, GsWinExclude exclude, uint64 r,
			  uint64 gs, uint64 ge, uint64 fs, uint64 fe)
{
	uint64		from[2],
				to[2],
				x;
	int			n = 0,
				k;

	if (exclude == GSW_EXCLUDE_CURRENT_ROW)
	{
		from[n] = r;
		to[n++] = r + 1;
	}
	else if (exclude == GSW_EXCLUDE_GROUP)
	{
		from[n] = gs;
		to[n++] = ge;
	}
	else
	{
		from[n] = gs;
		to[n++] = r;
		from[n] = r + 1;
		to[n++] = ge;
	}
	for (k = 0; k < n; k++)
	{
		from[k] = Max(from[k], fs);
		to[k] = Min(to[k], fe);
		for (x = from[k]; x < to[k]; x++)
			if (!agg_drop(f, s, x))
				return false;
	}
	agg_put(f, s, r);
	for (k = 0; k < n; k++)
		for (x = from[k]; x < to[k]; x++)
			if (!agg_take(f, s, x))
				return false;
	return true;
}

/*
 * An aggregate over one partition, each row's value being the state over
 * its frame.  Frames that start at the partition's first row only grow: one
 * running state takes rows as the frames' ends pass them.  Frames that
 * start at an offset from the row slide: counts, integer and numeric sums
 * take rows in at the end and out at the start, exactly; float sums
 * start again from the frame's first row whenever that row moves, as
 * WindowAgg restarts an aggregate that has no inverse (a frame whose start
 * stays put, such as one reaching back past the partition's start, keeps
 * its state).  The plan keeps such restarts to frames of fewer than
 * GSW_MAX_RESTART_ROWS rows.  Returns the row whose evaluation fails (an
 * argument's error or an overflow, at the row errrow says), or
 * PG_UINT64_MAX (also when the pass was stopped, see gs_slice_stopped, or
 * met a numeric too wide, see too_wide).
 */
static uint64
aggregate_partition(GsWinFunc *f, const uint8 *flags, uint64 ps, uint64 pe,
					const GsWinFrame *frame)
{
	WinAggState	s;
	bool		restart = gs_win_restarts(f, frame);
	uint64		lo = ps,
				hi = ps;
	uint64		gs = ps,
				ge = ps;
	uint64		r;
	int32		nscales[GSW_NUM_MAX_SCALE + 1];

	memset(&s, 0, sizeof(s));
	if (f->arg == GSW_ARG_NUMERIC &&
		(frame->start != GSW_BOUND_PARTITION || frame->exclude != GSW_EXCLUDE_NONE))
	{
		/* a numeric sum that slides: the frame's scales, see numeric_drop */
		memset(nscales, 0, sizeof(nscales));
		s.nscales = nscales;
	}
	for (r = ps; r < pe; r++)
	{
		uint64		fs,
					fe;

		if (((r - ps) & (GS_INTERRUPT_EVERY - 1)) == GS_INTERRUPT_EVERY - 1 &&
			gs_slice_stopped())
			return PG_UINT64_MAX;
		if (r == ge)
		{
			gs = r;
			ge = peers_end(flags, r, pe);
		}
		frame_rows(frame, r, ps, pe, ge, &fs, &fe);
		if (restart && fs != lo)
		{
			memset(&s, 0, sizeof(s));
			lo = hi = fs;
		}
		else if (!restart)
		{
			for (; lo < fs; lo++)
			{
				if (lo >= hi)
					hi = lo + 1;
				else if (!agg_drop(f, &s, lo))
				{
					__atomic_store_n(&f->too_wide, true, __ATOMIC_RELAXED);
					return PG_UINT64_MAX;
				}
			}
		}
		for (; hi < fe; hi++)
		{
			if (agg_take(f, &s, hi))
				continue;
			if (s.wide_fail)
			{
				__atomic_store_n(&f->too_wide, true, __ATOMIC_RELAXED);
				return PG_UINT64_MAX;
			}
			f->errrow[r] = (uint32) (hi + 1);
			return r;
		}
		if (frame->exclude == GSW_EXCLUDE_NONE)
			agg_put(f, &s, r);
		else if (!put_excluding(f, &s, frame->exclude, r, gs, ge, lo, hi))
		{
			__atomic_store_n(&f->too_wide, true, __ATOMIC_RELAXED);
			return PG_UINT64_MAX;
		}
	}
	return PG_UINT64_MAX;
}

/*
 * aggregate_excluding's failure to take row x for row r: a numeric the
 * threads cannot compute with (too_wide), or row x's error, raised at r
 */
static uint64
excluding_failed(GsWinFunc *f, const WinAggState *s, uint64 r, uint64 x)
{
	if (s->wide_fail)
	{
		__atomic_store_n(&f->too_wide, true, __ATOMIC_RELAXED);
		return PG_UINT64_MAX;
	}
	f->errrow[r] = (uint32) (x + 1);
	return r;
}

/*
 * An aggregate whose state cannot take rows out (min, max, float sums and
 * statistics: gs_win_excludes_afresh) over frames with an EXCLUDE clause.
 * WindowAgg computes such a frame's value afresh for every row, from the
 * frame's first row on, skipping the excluded ones; the same rows taken in
 * the same order give the same value, float bits and the newer of equal
 * minimums included, and fail at the same row.
 *
 * The excluded rows [xs, xe) (the current row, or its peers [gs, ge)) split
 * the frame [fs, fe) in two: the rows before them, [fs, cut), are a head
 * state kept from row to row while the frame's start stays put, since cut
 * then only moves forward (xs is the row or its first peer, and the frame's
 * end does not move back); each row's value is a copy of that state taking
 * the row itself (EXCLUDE TIES) and the frame's rows from xe on.  A frame
 * that starts at the partition's first row costs a row the frame's rows past
 * its peers; one whose start moves, all its rows, as in WindowAgg, where
 * the frame's head also moves with every row.  Returns as
 * aggregate_partition.
 */
static uint64
aggregate_excluding(GsWinFunc *f, const uint8 *flags, uint64 ps, uint64 pe,
					const GsWinFrame *frame)
{
	WinAggState head,
				s;
	uint64		lo = ps,
				hi = ps,
				gs = ps,
				ge = ps,
				work = 0,
				r;

	memset(&head, 0, sizeof(head));
	for (r = ps; r < pe; r++)
	{
		uint64		fs,
					fe,
					xs,
					xe,
					cut,
					x;

		/* the rows taken, not the rows put, bound the time between checks */
		if (work >= GS_INTERRUPT_EVERY)
		{
			if (gs_slice_stopped())
				return PG_UINT64_MAX;
			work = 0;
		}
		if (r == ge)
		{
			gs = r;
			ge = peers_end(flags, r, pe);
		}
		frame_rows(frame, r, ps, pe, ge, &fs, &fe);
		xs = frame->exclude == GSW_EXCLUDE_CURRENT_ROW ? r : gs;
		xe = frame->exclude == GSW_EXCLUDE_CURRENT_ROW ? r + 1 : ge;
		cut = Min(Max(xs, fs), fe);
		if (fs != lo || cut < hi)
		{
			memset(&head, 0, sizeof(head));
			lo = hi = fs;
		}
		work += cut - hi + 1;
		for (; hi < cut; hi++)
			if (!agg_take(f, &head, hi))
				return excluding_failed(f, &head, r, hi);
		s = head;
		if (frame->exclude == GSW_EXCLUDE_TIES && r >= fs && r < fe &&
			!agg_take(f, &s, r))
			return excluding_failed(f, &s, r, r);
		for (x = Max(xe, fs); x < fe; x++, work++)
			if (!agg_take(f, &s, x))
				return excluding_failed(f, &s, r, x);
		agg_put(f, &s, r);
	}
	return PG_UINT64_MAX;
}

/*
 * Whether, for min (max), row b's value takes the place of row a's (b
 * after a): int4smaller, float8smaller (NaN above everything) and
 * numeric_smaller keep the newer value on ties; -1 when two numerics do not
 * fit a common scale
 */
static inline int
minmax_replaces(const GsWinFunc *f, uint64 a, uint64 b)
{
	bool		min = f->fn == GSW_MIN;

	switch (f->arg)
	{
		case GSW_ARG_INT:
			return min ? f->argi[b] <= f->argi[a] : f->argi[b] >= f->argi[a];
		case GSW_ARG_FLOAT4:
		case GSW_ARG_FLOAT8:
			return min ? !float_lt(f->argf[a], f->argf[b]) :
				!float_gt(f->argf[a], f->argf[b]);
#ifdef HAVE_INT128
		case GSW_ARG_NUMERIC:
			{
				int			c = numeric_cmp_rows(f, a, b);

				return c == 2 ? -1 : min ? c >= 0 : c <= 0;
			}
#endif
		default:
			return 1;
	}
}

/* row r's min or max: the row at the queue's head, or NULL */
static inline void
minmax_put(GsWinFunc *f, uint64 r, bool empty, uint64 row)
{
	f->isnull[r] = empty;
	if (empty)
		return;
	if (f->arg == GSW_ARG_FLOAT4 || f->arg == GSW_ARG_FLOAT8)
		f->f8[r] = f->argf[row];
	else if (f->arg == GSW_ARG_INT)
		f->i64[r] = f->argi[row];
	else
		f->i64[r] = (int64) row;	/* numeric: the row kept */
}

/*
 * min or max over frames whose start moves with the row (and whose end
 * does, or is the partition's end): a monotone queue of rows, in row
 * order, each one's value replacing none of the ones before it that are
 * still queued, so that the head is the frame's min (max), the newest of
 * equal ones, which is the one WindowAgg's restarted min (max) keeps.  A
 * row enters once, when the frames' end passes it (evaluated then, as in
 * WindowAgg: an argument's error stops the pass at that row), and leaves
 * at the head once the frames' start passes it: O(1) a row, whatever the
 * frame's width.  The queue lives in deque[ps, pe): each row enters once.
 */
static uint64
minmax_sliding(GsWinFunc *f, const uint8 *flags, uint64 ps, uint64 pe,
			   const GsWinFrame *frame)
{
	uint32	   *dq = f->deque + ps;
	uint64		head = 0,
				tail = 0;
	uint64		hi = ps,
				ge = ps,
				r;
	int			c;

	for (r = ps; r < pe; r++)
	{
		uint64		fs,
					fe;

		if (((r - ps) & (GS_INTERRUPT_EVERY - 1)) == GS_INTERRUPT_EVERY - 1 &&
			gs_slice_stopped())
			return PG_UINT64_MAX;
		if (r == ge)
			ge = peers_end(flags, r, pe);
		frame_rows(frame, r, ps, pe, ge, &fs, &fe);
		if (hi < fs)
			hi = fs;			/* rows no frame takes are not evaluated */
		for (; hi < fe; hi++)
		{
			if (f->skip && f->skip[hi])
				continue;
			if (f->argerr && f->argerr[hi])
			{
				f->errrow[r] = (uint32) (hi + 1);
				return r;
			}
			if (f->argnull[hi])
				continue;
			if (f->arg == GSW_ARG_NUMERIC &&
				(f->argscale[hi] == GSW_NUM_WIDE || f->argscale[hi] == GSW_NUM_UNREAD))
				break;
			c = 1;
			while (tail > head && (c = minmax_replaces(f, dq[tail - 1], hi)) > 0)
				tail--;
			if (c < 0)
				break;
			dq[tail++] = (uint32) hi;
		}
		if (hi < fe)
		{
			/* a numeric the threads cannot compare */
			__atomic_store_n(&f->too_wide, true, __ATOMIC_RELAXED);
			return PG_UINT64_MAX;
		}
		while (head < tail && dq[head] < fs)
			head++;
		minmax_put(f, r, head == tail, head < tail ? dq[head] : 0);
	}
	return PG_UINT64_MAX;
}

/* ntile over one partition of n rows, as windowfuncs.c's window_ntile */
static void
ntile_partition(GsWinFunc *f, uint64 ps, uint64 pe)
{
	int64		total = (int64) (pe - ps);
	int32		ntile = 1;
	int64		rows_per_bucket = 0;
	int64		boundary = total / f->param;
	int64		remainder = 0;
	uint64		r;

	if (boundary <= 0)
		boundary = 1;
	else
	{
		remainder = total % f->param;
		if (remainder != 0)
			boundary++;
	}
	for (r = ps; r < pe; r++)
	{
		rows_per_bucket++;
		if (boundary < rows_per_bucket)
		{
			if (remainder != 0 && ntile == remainder)
			{
				remainder = 0;
				boundary -= 1;
			}
			ntile += 1;
			rows_per_bucket = 1;
		}
		f->i64[r] = ntile;
	}
}

/* lag and lead: the row read, or -1 (NULL), or -2 (the default) */
static void
lag_lead_partition(GsWinFunc *f, uint64 ps, uint64 pe)
{
	/* WindowAgg negates the offset in int32, wrapping as PostgreSQL builds do */
	int32		relpos = f->fn == GSW_LEAD ? f->param :
		(int32) (0U - (uint32) f->param);
	uint64		r;

	for (r = ps; r < pe; r++)
	{
		int64		target = (int64) r + relpos;

		f->i64[r] = (target >= (int64) ps && target < (int64) pe) ? target :
			f->has_default ? -2 : -1;
	}
}

/*
 * The row first_value, last_value or nth_value reads for row r (peers
 * [gs, ge), frame [fs, fe)) under an EXCLUDE clause, or -1 (NULL), as
 * WindowAgg's WinGetFuncArgInFrame finds it: the row an offset from the
 * frame's head (tail) is moved past the excluded rows in one step, as if
 * they were all inside the frame, and is read only if it is in the frame
 * and not excluded (row_is_in_frame).  Where the frame cuts the excluded
 * rows that step can miss, and WindowAgg then returns NULL: so does this.
 */
static int64
value_row_excluding(const GsWinFunc *f, GsWinExclude exclude, uint64 r,
					uint64 gs, uint64 ge, uint64 fs, uint64 fe)
{
	int64		pos,
				over;

	if (fs >= fe)
		return -1;
	if (f->fn != GSW_LAST_VALUE)
	{
		pos = (int64) fs + (f->fn == GSW_NTH_VALUE ? f->param - 1 : 0);
		over = (int64) Max(gs, fs);
		if (exclude == GSW_EXCLUDE_CURRENT_ROW)
			pos += (pos >= (int64) r && r >= fs);
		else if (pos >= (int64) gs && ge > fs)
		{
			if (exclude == GSW_EXCLUDE_GROUP)
				pos += (int64) ge - over;
			else if (pos == over)
				pos = (int64) r;
			else
				pos += (int64) ge - over - 1;
		}
	}
	else
	{
		pos = (int64) fe - 1;
		over = (int64) Min(ge, fe);
		if (exclude == GSW_EXCLUDE_CURRENT_ROW)
			pos -= (pos <= (int64) r && r < fe);
		else if (pos < (int64) ge && gs < fe)
		{
			if (exclude == GSW_EXCLUDE_GROUP)
				pos -= over - (int64) gs;
			else if (pos == over - 1)
				pos = (int64) r;
			else
				pos -= over - 1 - (int64) gs;
		}
	}
	if (pos < (int64) fs || pos >= (int64) fe)
		return -1;
	if (exclude == GSW_EXCLUDE_CURRENT_ROW ? pos == (int64) r :
		(pos >= (int64) gs && pos < (int64) ge &&
		 (exclude == GSW_EXCLUDE_GROUP || pos != (int64) r)))
		return -1;
	return pos;
}

/* the functions that read positions: ranks and the value functions */
static void
position_partition(GsWinFunc *f, const uint8 *flags, uint64 ps, uint64 pe,
				   const GsWinFrame *frame)
{
	uint64		total = pe - ps;
	uint64		dense = 0;
	uint64		gs = ps;

	while (gs < pe)
	{
		uint64		ge = peers_end(flags, gs, pe);
		uint64		rank = gs - ps + 1;
		uint64		r;

		dense++;
		for (r = gs; r < ge; r++)
		{
			uint64		fs,
						fe;

			frame_rows(frame, r, ps, pe, ge, &fs, &fe);
			if (frame->exclude != GSW_EXCLUDE_NONE &&
				(f->fn == GSW_FIRST_VALUE || f->fn == GSW_LAST_VALUE ||
				 f->fn == GSW_NTH_VALUE))
			{
				f->i64[r] = value_row_excluding(f, frame->exclude, r, gs, ge,
												fs, fe);
				continue;
			}

			switch (f->fn)
			{
				case GSW_ROW_NUMBER:
					f->i64[r] = r - ps + 1;
					break;
				case GSW_RANK:
					f->i64[r] = rank;
					break;
				case GSW_DENSE_RANK:
					f->i64[r] = dense;
					break;
				case GSW_PERCENT_RANK:
					f->f8[r] = total <= 1 ? 0.0 :
						(float8) (rank - 1) / (float8) (total - 1);
					break;
				case GSW_CUME_DIST:
					f->f8[r] = (float8) (ge - ps) / (float8) total;
					break;
				case GSW_FIRST_VALUE:
					f->i64[r] = fs < fe ? (int64) fs : -1;
					break;
				case GSW_LAST_VALUE:
					f->i64[r] = fs < fe ? (int64) fe - 1 : -1;
					break;
				case GSW_NTH_VALUE:
					f->i64[r] = fs + f->param - 1 < fe ?
						(int64) (fs + f->param - 1) : -1;
					break;
				default:
					break;
			}
		}
		gs = ge;
	}
}

static uint64
compute_partition(GsWinFunc *f, const uint8 *flags, uint64 ps, uint64 pe,
				  const GsWinFrame *frame)
{
	switch (f->fn)
	{
		case GSW_NTILE:
			if (!f->param_null)
				ntile_partition(f, ps, pe);
			break;
		case GSW_LAG:
		case GSW_LEAD:
			if (!f->param_null)
				lag_lead_partition(f, ps, pe);
			break;
		case GSW_NTH_VALUE:
			if (!f->param_null)
				position_partition(f, flags, ps, pe, frame);
			break;
		case GSW_MIN:
		case GSW_MAX:
			if (frame->exclude != GSW_EXCLUDE_NONE)
				return aggregate_excluding(f, flags, ps, pe, frame);
			if (frame->start != GSW_BOUND_PARTITION)
				return minmax_sliding(f, flags, ps, pe, frame);
			return aggregate_partition(f, flags, ps, pe, frame);
		case GSW_COUNT_STAR:
		case GSW_COUNT:
		case GSW_SUM:
		case GSW_AVG:
		case GSW_VAR_POP:
		case GSW_VAR_SAMP:
		case GSW_STDDEV_POP:
		case GSW_STDDEV_SAMP:
			if (gs_win_excludes_afresh(f, frame))
				return aggregate_excluding(f, flags, ps, pe, frame);
			return aggregate_partition(f, flags, ps, pe, frame);
		default:
			position_partition(f, flags, ps, pe, frame);
			break;
	}
	return PG_UINT64_MAX;
}

typedef struct ComputeArg
{
	uint8	   *flags;
	const uint64 *starts;		/* [nparts + 1]: each partition's first row */
	uint64		nparts;
	uint64		ntasks;
	uint64	   *task_first;		/* [ntasks + 1]: each task's first partition */
	const GsWinFrame *frame;
	GsWinFunc  *funcs;
	int			nfuncs;
} ComputeArg;

static void
compute_tasks(void *p, uint64 tlo, uint64 thi)
{
	ComputeArg *a = (ComputeArg *) p;
	uint64		t;

	for (t = tlo; t < thi; t++)
	{
		int			k;

		for (k = 0; k < a->nfuncs; k++)
		{
			uint64		q;

			for (q = a->task_first[t]; q < a->task_first[t + 1]; q++)
			{
				uint64		e;

				if ((q & 63) == 63 && gs_slice_stopped())
					return;
				e = compute_partition(&a->funcs[k], a->flags,
												  a->starts[q], a->starts[q + 1],
												  a->frame);

				/*
				 * The partition's rows from e on are left as they are: the
				 * error is raised before any of them is returned.  Only this
				 * task writes its partitions' flags.
				 */
				if (e != PG_UINT64_MAX)
					a->flags[e] |= GSW_ERROR;
			}
		}
	}
}

/*
 * An aggregate's failures: zeroed, since only rows whose computation fails
 * are written
 */
static void
alloc_errrow(GsWinFunc *f, Size rows)
{
	f->errrow = palloc_extended(sizeof(uint32) * rows,
								MCXT_ALLOC_HUGE | MCXT_ALLOC_ZERO);
}

/* the result arrays f needs, for n rows */
static void
alloc_results(GsWinFunc *f, uint64 n)
{
	Size		rows = Max(n, 1);

	gs_win_expr_prepare();		/* the tables integer statistics compute with */
	f->isnull = palloc_extended(sizeof(bool) * rows,
								 MCXT_ALLOC_HUGE | MCXT_ALLOC_ZERO);
	switch (f->fn)
	{
		case GSW_PERCENT_RANK:
		case GSW_CUME_DIST:
			f->f8 = palloc_extended(sizeof(double) * rows, MCXT_ALLOC_HUGE);
			return;
		case GSW_COUNT_STAR:
		case GSW_COUNT:
			f->i64 = palloc_extended(sizeof(int64) * rows, MCXT_ALLOC_HUGE);
			alloc_errrow(f, rows);
			return;
		case GSW_SUM:
		case GSW_AVG:
		case GSW_MIN:
		case GSW_MAX:
		case GSW_VAR_POP:
		case GSW_VAR_SAMP:
		case GSW_STDDEV_POP:
		case GSW_STDDEV_SAMP:
			alloc_errrow(f, rows);
#ifdef HAVE_INT128
			if (GSW_ENCODES_RESULTS(f))
			{
				f->wide = palloc_extended(sizeof(int128) * rows, MCXT_ALLOC_HUGE);
				f->rscale = palloc_extended(sizeof(int16) * rows, MCXT_ALLOC_HUGE);
			}
			else if (f->argtype == INT8OID && (f->fn == GSW_SUM || f->fn == GSW_AVG))
				f->wide = palloc_extended(sizeof(int128) * rows, MCXT_ALLOC_HUGE);
			else
#endif
			if (f->arg == GSW_ARG_INT || f->arg == GSW_ARG_NUMERIC)
				f->i64 = palloc_extended(sizeof(int64) * rows, MCXT_ALLOC_HUGE);
			else
				f->f8 = palloc_extended(sizeof(double) * rows, MCXT_ALLOC_HUGE);
			if (f->fn == GSW_AVG)
				f->cnt = palloc_extended(sizeof(int64) * rows, MCXT_ALLOC_HUGE);
			return;
		default:
			f->i64 = palloc_extended(sizeof(int64) * rows, MCXT_ALLOC_HUGE);
			return;
	}
}

uint64
gs_win_compute(uint8 *flags, uint64 n, const GsWinFrame *frame,
			   GsWinFunc *funcs, int nfuncs, int nthreads)
{
	ComputeArg	a;
	uint64	   *starts;
	uint64		nparts = 0;
	uint64		i,
				t;
	int			k;

	for (k = 0; k < nfuncs; k++)
	{
		GsWinFunc  *f = &funcs[k];

		alloc_results(f, n);
		if ((f->fn == GSW_MIN || f->fn == GSW_MAX) && frame->start != GSW_BOUND_PARTITION &&
			frame->exclude == GSW_EXCLUDE_NONE)
			f->deque = palloc_extended(sizeof(uint32) * Max(n, 1), MCXT_ALLOC_HUGE);
		/* a NULL argument makes every row NULL; WindowAgg checks the rest first */
		if (f->param_null)
			memset(f->isnull, true, sizeof(bool) * n);
		else if (n > 0 && f->fn == GSW_NTILE && f->param <= 0)
			ereport(ERROR,
					(errcode(ERRCODE_INVALID_ARGUMENT_FOR_NTILE),
					 errmsg("argument of ntile must be greater than zero")));
		else if (n > 0 && f->fn == GSW_NTH_VALUE && f->param <= 0)
			ereport(ERROR,
					(errcode(ERRCODE_INVALID_ARGUMENT_FOR_NTH_VALUE),
					 errmsg("argument of nth_value must be greater than zero")));
	}
	if (n == 0)
		return 0;

	for (i = 0; i < n; i++)
		nparts += (flags[i] & GSW_NEW_PARTITION) != 0;
	starts = palloc_extended(sizeof(uint64) * (nparts + 1), MCXT_ALLOC_HUGE);
	nparts = 0;
	for (i = 0; i < n; i++)
		if (flags[i] & GSW_NEW_PARTITION)
			starts[nparts++] = i;
	starts[nparts] = n;

	/* tasks of whole partitions, about the same number of rows each */
	if (n < GSW_THREADED_MIN_ROWS)
		nthreads = 1;
	a.ntasks = Min((uint64) nthreads * GSW_TASKS_PER_THREAD, nparts);
	a.task_first = palloc(sizeof(uint64) * (a.ntasks + 1));
	{
		uint64		q = 0;

		for (t = 0; t < a.ntasks; t++)
		{
			uint64		from = n * t / a.ntasks;

			while (q < nparts && starts[q] < from)
				q++;
			a.task_first[t] = q;
		}
		a.task_first[a.ntasks] = nparts;
	}
	a.flags = flags;
	a.starts = starts;
	a.nparts = nparts;
	a.frame = frame;
	a.funcs = funcs;
	a.nfuncs = nfuncs;
	gs_cpu_for_tasks(a.ntasks, nthreads, compute_tasks, &a);
	pfree(a.task_first);
	pfree(starts);
	return nparts;
}

void
gs_win_free_arguments(GsWinFunc *funcs, int nfuncs)
{
	int			k;

	for (k = 0; k < nfuncs; k++)
	{
		GsWinFunc  *f = &funcs[k];

		if (f->argnull)
			pfree(f->argnull);
		if (f->argi)
			pfree(f->argi);
		if (f->argf)
			pfree(f->argf);
#ifdef HAVE_INT128
		if (f->argw)
			pfree(f->argw);
		f->argw = NULL;
#endif
		if (f->argscale)
			pfree(f->argscale);
		if (f->deque)
			pfree(f->deque);
		if (f->argback)
			pfree(f->argback);
		f->argback = NULL;
		f->deque = NULL;
		f->argscale = NULL;
		f->argnull = NULL;
		f->argi = NULL;
		f->argf = NULL;
		/* argerr stays, for gs_win_first_error */
	}
}

/* ---- RANGE frames with offsets --------------------------------------------------- */

typedef struct RangeSweep
{
	FmgrInfo	flinfo;			/* the bound's in_range function */
	Oid			collation;
	Datum		offset;
	bool		sub;			/* subtract the offset from the current value */
	bool		less;
	bool		nulls_first;
	AttrNumber	attno;
	TupleTableSlot *slot;
	MinimalTuple *rows;
} RangeSweep;

/* in_range(row's value, the current row's, offset, sub, less) */
static inline bool
range_test(RangeSweep *rs, Datum val, Datum cur)
{
	return DatumGetBool(FunctionCall5Coll(&rs->flinfo, rs->collation, val, cur,
										  rs->offset, BoolGetDatum(rs->sub),
										  BoolGetDatum(rs->less)));
}

/* the order column's value of row i (in the sweep's slot) */
static inline Datum
range_value(RangeSweep *rs, uint64 i, bool *isnull)
{
	ExecStoreMinimalTuple(rs->rows[i], rs->slot, false);
	return slot_getattr(rs->slot, rs->attno, isnull);
}

/*
 * Whether row h is still before the frame of a row whose value is cur
 * (start: nodeWindowAgg.c's update_frameheadpos), or still inside it (end:
 * update_frametailpos)
 */
static bool
range_advance(RangeSweep *rs, bool start, uint64 h, Datum cur, bool curnull)
{
	bool		hnull;
	Datum		hval = range_value(rs, h, &hnull);

	if (hnull || curnull)
	{
		if (start)
			return rs->nulls_first ? (hnull && !curnull) : (!hnull && curnull);
		return rs->nulls_first ? hnull : curnull;
	}
	return start ? !range_test(rs, hval, cur) : range_test(rs, hval, cur);
}

static void
range_sweep_init(RangeSweep *rs, WindowAgg *wa, bool start, MinimalTuple *rows,
				 TupleTableSlot *slot)
{
	int			o = wa->frameOptions;
	bool		preceding = start ? (o & FRAMEOPTION_START_OFFSET_PRECEDING) != 0 :
		(o & FRAMEOPTION_END_OFFSET_PRECEDING) != 0;

	rs->attno = wa->ordNumCols > 0 ? wa->ordColIdx[0] : 0;
	rs->slot = slot;
	rs->rows = rows;
	if ((start ? wa->startInRangeFunc : wa->endInRangeFunc) == InvalidOid ||
		(start ? wa->startOffset : wa->endOffset) == NULL ||
		!IsA(start ? wa->startOffset : wa->endOffset, Const))
		return;					/* not a RANGE offset bound */
	fmgr_info(start ? wa->startInRangeFunc : wa->endInRangeFunc, &rs->flinfo);
	rs->collation = wa->inRangeColl;
	rs->offset = ((Const *) (start ? wa->startOffset : wa->endOffset))->constvalue;
	rs->sub = preceding;
	rs->less = !start;
	if (!wa->inRangeAsc)
	{
		rs->sub = !rs->sub;
		rs->less = !rs->less;
	}
	rs->nulls_first = wa->inRangeNullsFirst;
}

/* the sweep over rows [0, n) (see gs_win_range_bounds) */
static void
range_sweep(GsWinFrame *frame, RangeSweep *head, RangeSweep *tail,
			AttrNumber attno, uint64 n, const uint8 *flags, TupleTableSlot *slot)
{
	uint64		h = 0,
				t = 0,
				pe = 0,
				r;

	for (r = 0; r < n; r++)
	{
		bool		curnull;
		Datum		cur;

		if ((r + 1) % GS_INTERRUPT_EVERY == 0)
			CHECK_FOR_INTERRUPTS();
		if (flags[r] & GSW_NEW_PARTITION)
		{
			for (pe = r + 1; pe < n && !(flags[pe] & GSW_NEW_PARTITION); pe++)
				;
			h = t = r;
		}
		/* a pointer into row r itself, which the slot does not own */
		ExecStoreMinimalTuple(head->rows[r], slot, false);
		cur = slot_getattr(slot, attno, &curnull);
		if (frame->start == GSW_BOUND_RANGE)
		{
			while (h < pe && range_advance(head, true, h, cur, curnull))
				h++;
			frame->range_start[r] = (uint32) h;
		}
		if (frame->end == GSW_BOUND_RANGE)
		{
			while (t < pe && range_advance(tail, false, t, cur, curnull))
				t++;
			frame->range_end[r] = (uint32) t;
		}
	}
}

/*
 * The sweep runs under one PG_TRY: an error (of a built-in in_range
 * function, which holds no resource; a cancel is let through) is caught
 * and reported as false
 */
bool
gs_win_range_bounds(GsWinFrame *frame, WindowAgg *wa, MinimalTuple *rows,
					uint64 n, const uint8 *flags, TupleTableSlot *slot)
{
	RangeSweep	head,
				tail;
	MemoryContext oldcxt = CurrentMemoryContext;
	volatile bool failed = false;

	memset(&head, 0, sizeof(head));
	memset(&tail, 0, sizeof(tail));
	range_sweep_init(&head, wa, true, rows, slot);
	range_sweep_init(&tail, wa, false, rows, slot);
	PG_TRY();
	{
		range_sweep(frame, &head, &tail, wa->ordColIdx[0], n, flags, slot);
	}
	PG_CATCH();
	{
		ErrorData  *edata;

		MemoryContextSwitchTo(oldcxt);
		edata = CopyErrorData();
		if (edata->sqlerrcode == ERRCODE_QUERY_CANCELED ||
			edata->sqlerrcode == ERRCODE_ADMIN_SHUTDOWN)
			PG_RE_THROW();
		FlushErrorState();
		FreeErrorData(edata);
		failed = true;
	}
	PG_END_TRY();
	ExecClearTuple(slot);
	return !failed;
}

/* g + off clamped to [-1, ngroups] (off any int8) */
static inline int64
group_offset(uint64 g, int64 off, uint64 ngroups)
{
	if (off >= (int64) ngroups)
		return (int64) ngroups;
	if (off <= -(int64) ngroups - 1)
		return -1;
	off += (int64) g;
	return off < -1 ? -1 : off > (int64) ngroups ? (int64) ngroups : off;
}

/*
 * GROUPS offsets: row r of peer group g starts its frame at the first row
 * of group g + start_offset and ends it after the last row of group g +
 * end_offset, within its partition (nodeWindowAgg.c's update_frameheadpos
 * and update_frametailpos in GROUPS mode); RANGE CURRENT ROW starts at
 * the first peer, offset 0.  gstart lists a partition's group starts.
 */
void
gs_win_group_bounds(GsWinFrame *frame, uint64 n, const uint8 *flags)
{
	uint32	   *gstart = palloc_extended(sizeof(uint32) * (Max(n, 1) + 1),
										 MCXT_ALLOC_HUGE);
	uint64		ps = 0;

	while (ps < n)
	{
		uint64		pe = ps + 1,
					ngroups = 1,
					g = 0,
					r;

		CHECK_FOR_INTERRUPTS();
		gstart[0] = (uint32) ps;
		for (; pe < n && !(flags[pe] & GSW_NEW_PARTITION); pe++)
			if (flags[pe] & GSW_NEW_PEERS)
				gstart[ngroups++] = (uint32) pe;
		gstart[ngroups] = (uint32) pe;
		for (r = ps; r < pe; r++)
		{
			int64		t;

			if (r > ps && (flags[r] & GSW_NEW_PEERS))
				g++;
			if (frame->start == GSW_BOUND_GROUPS)
			{
				t = group_offset(g, frame->start_offset, ngroups);
				frame->range_start[r] = t < 0 ? (uint32) ps : gstart[t];
			}
			if (frame->end == GSW_BOUND_GROUPS)
			{
				t = group_offset(g, frame->end_offset, ngroups);
				frame->range_end[r] = t < 0 ? (uint32) ps :
					t >= (int64) ngroups ? (uint32) pe : gstart[t + 1];
			}
		}
		ps = pe;
	}
	pfree(gstart);
}

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
