/*-------------------------------------------------------------------------
 *
 * winplan.c
 *	  What of a plan's WindowAgg GpuWindow computes itself, read from the
 *	  plan: the functions, the frame, and how the partition and order
 *	  columns compare (in the backend, when the plan is made or the node
 *	  starts).
 *
 * gs_win_func_from_plan says whether a WindowFunc is one GpuWindow
 * computes and fills its GsWinFunc (what it computes, how its argument is
 * read: a column, or an expression whose evaluation may raise an error,
 * see arg_expr_walker); gs_win_frame_from_plan does the same for the
 * WindowAgg's frame; gs_win_col_init how a column's equality operator
 * compares values (byte-wise, as floats, or only through its function);
 * gs_win_excludes, gs_win_excludes_afresh and gs_win_restarts which way
 * windowfuncs.c computes a function over a frame; gs_win_frame_describe
 * the frame in words, for EXPLAIN.
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

GsWinFn
gs_win_lag_lead(Oid winfnoid)
{
	switch (winfnoid)
	{
		case F_LAG_ANYELEMENT:
		case F_LAG_ANYELEMENT_INT4:
		case F_LAG_ANYCOMPATIBLE_INT4_ANYCOMPATIBLE:
			return GSW_LAG;
		case F_LEAD_ANYELEMENT:
		case F_LEAD_ANYELEMENT_INT4:
		case F_LEAD_ANYCOMPATIBLE_INT4_ANYCOMPATIBLE:
			return GSW_LEAD;
		default:
			return GSW_ROW_NUMBER;
	}
}

/* lag and lead: the offset and the default */
static bool
lag_lead_params(WindowFunc *wfunc, GsWinFunc *f, const char **why)
{
	int			nargs = list_length(wfunc->args);

	f->fn = gs_win_lag_lead(wfunc->winfnoid);
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
