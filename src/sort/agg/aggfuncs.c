/*-------------------------------------------------------------------------
 *
 * aggfuncs.c
 *	  Sorting aggregates over sorted runs, as arrays: what GpuAgg computes
 *	  instead of the Agg node's per-group tuplesorts (aggnode.c).
 *
 * The rows come sorted by (group columns, the aggregates' sorted column).
 * gs_win_boundaries (winboundary.c) has marked each row that starts a
 * group (GSW_NEW_PARTITION) and, where an aggregate reads runs of equal
 * values (mode, DISTINCT: gs_agg_reads_peers; a comparison per row, in the
 * backend for a type such as numeric, that percentiles and ordered
 * string_agg do not need), each row whose sorted column differs from
 * the row before it (GSW_NEW_PEERS), with the equality operators'
 * semantics (NaN = NaN, -0 = 0, collations, the operator's own function
 * where plain C cannot tell), and read the aggregates' arguments into
 * arrays.  Then:
 *
 *	 1. groups (threads, slices of rows): the rows that start a group are
 *		counted per slice, and their row numbers written, in order;
 *	 2. aggregates (threads, slices of groups): each aggregate's result for
 *		each group, from its run of rows [start, end);
 *	 3. results (the backend, group by group as the node returns them):
 *		the Datum the Agg returns, values of disc and mode taken from the
 *		sorted row, arrays built then, errors raised then.
 *
 * Invariants that make the values the Agg's, value for value:
 *	 - NULLs of the sorted column sort together, first or last in the
 *	   group, so the group's non-NULL values are one contiguous run
 *	   [a, b): the values the ordered-set aggregate's tuplesort holds
 *	   (ordered_set_transition skips NULLs), in its order; count(DISTINCT)
 *	   counts the runs of equal non-NULL values in it, as the Agg's
 *	   DISTINCT pass compares each value with the one before it;
 *	 - percentiles pick rows and interpolate with orderedsetaggs.c's
 *	   formulas, in its double arithmetic: percentile_disc the row
 *	   ceil(p * N) (at least the first), percentile_cont rows
 *	   floor(p * (N - 1)) and ceil(p * (N - 1)) and
 *	   lo + (p * (N - 1) - floor(p * (N - 1))) * (hi - lo), float8_lerp's;
 *	   an integer or float4 argument cast to float8 is read from the column
 *	   itself, which sorts in the same order, and converted as i4tod,
 *	   i8tod and ftod convert it;
 *	 - mode() is the first of the most frequent runs, mode_final's tie rule
 *	   (a later run replaces it only when strictly more frequent), and its
 *	   value is the run's first row's (of a collatable type, only text under
 *	   a deterministic collation: equal values are then equal bytes);
 *	 - sum(DISTINCT x) and avg(DISTINCT x) of integers add the distinct
 *	   values exactly (int128), as int2_sum/int4_sum (an int8 result) and
 *	   the numeric states of int8 and of avg do; avg is numeric_div of the
 *	   sum by the count, as int8_avg and numeric_poly_avg compute it;
 *	 - string_agg(x, delimiter ORDER BY y) and array_agg(x ORDER BY y)
 *	   take every row of the group in the sorted order (NULLs of y where
 *	   ORDER BY puts them), built in the backend when the group is
 *	   returned, from the Datums of x that gs_win_boundaries read on
 *	   threads (GSW_ARG_DATUM: a by-reference one points into its row, and
 *	   the rows outlive the results; detoasting is the backend's, there):
 *	   string_agg skips NULL values and puts the delimiter
 *	   before every value but the first, array_agg keeps NULLs; the
 *	   delimiter is a constant;
 *	 - errors (a fraction outside [0, 1]) are raised where the final
 *	   function raises them: for the group being returned, the scalar
 *	   forms before looking at its rows, the array forms only when the
 *	   group has values.
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include <math.h>

#include "catalog/pg_aggregate.h"
#include "catalog/pg_type.h"
#include "miscadmin.h"
#include "nodes/nodeFuncs.h"
#include "optimizer/tlist.h"
#include "optimizer/clauses.h"
#include "optimizer/optimizer.h"
#include "utils/array.h"
#include "utils/fmgroids.h"
#include "utils/builtins.h"
#include "utils/lsyscache.h"
#include "utils/numeric.h"
#include "utils/typcache.h"

#include "base/compat.h"
#include "aggfuncs.h"
#include "intake/rowstore.h"
#include "threads/threads_backend.h"

/* rows or groups from which a pass runs on threads */
#define GSA_THREADED_MIN	((uint64) 1 << 15)
#define GSA_TASKS_PER_THREAD	4

/* ---- the plan's aggregates ----------------------------------------------------- */

/* the input column of a plain Var of the Agg's input, or 0 */
static AttrNumber
outer_column(Expr *expr)
{
	Var		   *var = (Var *) expr;

	if (expr == NULL || !IsA(expr, Var) || var->varno != OUTER_VAR ||
		var->varattno <= 0 || var->varlevelsup != 0)
		return 0;
	return var->varattno;
}

/*
 * The column under a cast to float8 that keeps its order (int2, int4,
 * int8, float4), or 0; *type is the column's type
 */
static AttrNumber
cast_column(Expr *expr, Oid *type)
{
	FuncExpr   *fe = (FuncExpr *) expr;
	AttrNumber	att;

	if (!IsA(expr, FuncExpr) || list_length(fe->args) != 1)
		return 0;
	switch (fe->funcid)
	{
		case F_FLOAT8_INT2:
		case F_FLOAT8_INT4:
		case F_FLOAT8_INT8:
		case F_FLOAT8_FLOAT4:
		case F_FLOAT8_NUMERIC:
			break;
		default:
			return 0;
	}
	att = outer_column(linitial(fe->args));
	if (att)
		*type = exprType(linitial(fe->args));
	return att;
}

/* how the threads read a float8 percentile_cont's column of type */
static GsWinArg
numeric_reader(Oid type)
{
	switch (type)
	{
		case INT2OID:
		case INT4OID:
		case INT8OID:
			return GSW_ARG_INT;
		case FLOAT4OID:
			return GSW_ARG_FLOAT4;
		case FLOAT8OID:
			return GSW_ARG_FLOAT8;
		case NUMERICOID:
			/* only the rows picked: their values cast in the backend */
			return GSW_ARG_NULLS;
		default:
			return GSW_ARG_NONE;
	}
}

/*
 * The sorted column of an aggregate with one DISTINCT or ORDER BY clause,
 * filling f's argument from it; false if what it sorts is not a plain
 * column (or, with cast_ok, a cast to float8 of one, see cast_column)
 */
static bool
sorted_column(Aggref *aggref, List *clauses, bool cast_ok, GsAggSortCol *sort,
			  GsAggFunc *f)
{
	SortGroupClause *sgc;
	TargetEntry *tle;
	Oid			type;
	Oid			opfamily,
				opcintype;
	bool		desc;
	TypeCacheEntry *tc;

	if (list_length(clauses) != 1)
		return false;
	sgc = linitial(clauses);
	tle = get_sortgroupclause_tle(sgc, aggref->args);
	if (!OidIsValid(sgc->sortop) || !OidIsValid(sgc->eqop))
		return false;
	sort->collation = exprCollation((Node *) tle->expr);
	sort->nulls_first = sgc->nulls_first;
	f->argattno = outer_column(tle->expr);
	if (f->argattno)
	{
		f->argtype = exprType((Node *) tle->expr);
		sort->attno = f->argattno;
		sort->sortop = sgc->sortop;
		sort->eqop = sgc->eqop;
		return true;
	}
	if (!cast_ok || (f->argattno = cast_column(tle->expr, &type)) == 0 ||
		!gs_ordering_op_properties(sgc->sortop, &opfamily, &opcintype, &desc))
		return false;
	/* the column's own operators, in the clause's direction */
	tc = lookup_type_cache(type, TYPECACHE_LT_OPR | TYPECACHE_GT_OPR |
						   TYPECACHE_EQ_OPR);
	sort->attno = f->argattno;
	sort->sortop = desc ? tc->gt_opr : tc->lt_opr;
	sort->eqop = tc->eq_opr;
	f->argtype = type;
	return OidIsValid(sort->sortop) && OidIsValid(sort->eqop);
}

/* a percentile's fraction: one expression the node evaluates once per run */
static bool
fraction_ok(Aggref *aggref, GsAggFunc *f)
{
	Expr	   *e;

	if (list_length(aggref->aggdirectargs) != 1)
		return false;
	e = linitial(aggref->aggdirectargs);
	if (contain_var_clause((Node *) e) || contain_volatile_functions((Node *) e) ||
		contain_subplans((Node *) e) || contain_agg_clause((Node *) e))
		return false;
	f->fraction = e;
	return true;
}

/* the ordered-set aggregates: percentile_disc, percentile_cont, mode */
static bool
ordered_set_from_aggref(Aggref *aggref, GsAggFunc *f, GsAggSortCol *sort,
						const char **why)
{
	bool		cont = false;

	switch (aggref->aggfnoid)
	{
		case F_PERCENTILE_DISC__FLOAT8_ANYELEMENT:
			f->multi = true;
			/* FALLTHROUGH */
		case F_PERCENTILE_DISC_FLOAT8_ANYELEMENT:
			f->fn = GSA_PERCENTILE_DISC;
			break;
		case F_PERCENTILE_CONT__FLOAT8_FLOAT8:
			f->multi = true;
			/* FALLTHROUGH */
		case F_PERCENTILE_CONT_FLOAT8_FLOAT8:
			f->fn = GSA_PERCENTILE_CONT;
			cont = true;
			break;
		case F_MODE:
			f->fn = GSA_MODE;
			break;
		default:
			*why = "an aggregate GpuAgg does not compute";
			return false;
	}
	if (aggref->aggkind != AGGKIND_ORDERED_SET || aggref->aggdistinct != NIL ||
		!sorted_column(aggref, aggref->aggorder, cont, sort, f))
	{
		*why = "an argument that is not a column";
		return false;
	}
	if (f->fn != GSA_MODE && !fraction_ok(aggref, f))
	{
		*why = "a fraction that is not constant within the query";
		return false;
	}
	/*
	 * mode() returns the first value of its run.  Values that mode_final's
	 * equality (under the collation) finds equal but whose bytes differ,
	 * under a nondeterministic collation or as char(n) with and without
	 * trailing blanks, sort in no set order among themselves, so which one
	 * comes first would be GpuSort's choice rather than the tuplesort's:
	 * only text under a deterministic collation, whose equal values are the
	 * same bytes, goes to GpuAgg.
	 */
	if (f->fn == GSA_MODE && OidIsValid(sort->collation) &&
		!(get_opcode(sort->eqop) == F_TEXTEQ &&
		  get_collation_isdeterministic(sort->collation)))
	{
		*why = "mode() of a collatable type other than text under a deterministic collation";
		return false;
	}
	f->w.arg = cont ? numeric_reader(f->argtype) : GSW_ARG_NULLS;
	if (f->w.arg == GSW_ARG_NONE)
	{
		*why = "a percentile_cont argument of another type";
		return false;
	}
	return true;
}

/*
 * string_agg(x, delimiter ORDER BY y) and array_agg(x ORDER BY y): x a
 * column, the delimiter a constant, one ORDER BY column
 */
static bool
ordered_from_aggref(Aggref *aggref, GsAggFunc *f, GsAggSortCol *sort)
{
	GsAggFunc	sorted;
	int			nvalue = aggref->aggfnoid == F_ARRAY_AGG_ANYNONARRAY ? 1 : 2;
	TargetEntry *value;

	f->fn = nvalue == 1 ? GSA_ARRAY_AGG : GSA_STRING_AGG;
	f->w.arg = GSW_ARG_DATUM;
	if (aggref->aggkind != AGGKIND_NORMAL || aggref->aggdistinct != NIL ||
		list_length(aggref->args) < nvalue ||
		!sorted_column(aggref, aggref->aggorder, false, sort, &sorted))
		return false;
	value = linitial(aggref->args);
	f->argattno = outer_column(value->expr);
	f->argtype = exprType((Node *) value->expr);
	if (nvalue == 2)
	{
		Const	   *delim = (Const *) ((TargetEntry *) lsecond(aggref->args))->expr;

		if (!IsA(delim, Const))
			return false;
		f->delim = delim->constvalue;
		f->delim_null = delim->constisnull;
	}
	/* beyond the values, only the ORDER BY column */
	return f->argattno != 0 &&
		list_length(aggref->args) <= nvalue + 1;
}

/* sum(DISTINCT x) and avg(DISTINCT x) of an integer column */
static bool
sum_distinct_from_aggref(Aggref *aggref, GsAggFunc *f, GsAggSortCol *sort)
{
#ifdef HAVE_INT128
	bool		avg = (aggref->aggfnoid == F_AVG_INT2 ||
					   aggref->aggfnoid == F_AVG_INT4 ||
					   aggref->aggfnoid == F_AVG_INT8);

	f->fn = avg ? GSA_AVG_DISTINCT : GSA_SUM_DISTINCT;
	f->w.arg = GSW_ARG_INT;
	return aggref->aggkind == AGGKIND_NORMAL && aggref->aggorder == NIL &&
		aggref->aggdistinct != NIL &&
		sorted_column(aggref, aggref->aggdistinct, false, sort, f) &&
		(f->argtype == INT2OID || f->argtype == INT4OID || f->argtype == INT8OID);
#else
	return false;
#endif
}

/* count(*), count(x) and count(DISTINCT x) */
static bool
count_from_aggref(Aggref *aggref, GsAggFunc *f, GsAggSortCol *sort, bool *sorts)
{
	TargetEntry *tle;

	if (aggref->aggorder != NIL || aggref->aggkind != AGGKIND_NORMAL)
		return false;
	if (aggref->aggfnoid == F_COUNT_)
	{
		f->fn = GSA_COUNT_STAR;
		f->w.arg = GSW_ARG_NONE;
		return aggref->aggdistinct == NIL;
	}
	f->w.arg = GSW_ARG_NULLS;
	if (aggref->aggdistinct != NIL)
	{
		f->fn = GSA_COUNT_DISTINCT;
		*sorts = true;
		return sorted_column(aggref, aggref->aggdistinct, false, sort, f);
	}
	f->fn = GSA_COUNT;
	if (list_length(aggref->args) != 1)
		return false;
	tle = linitial(aggref->args);
	f->argattno = outer_column(tle->expr);
	f->argtype = exprType((Node *) tle->expr);
	return f->argattno != 0;
}

/*
 * sum, avg, min, max, variance and stddev of a column or of an expression
 * of the row (stable, not raising errors about values, see
 * gs_win_func_from_plan), as GpuWindow computes them, of the WindowFunc
 * the aggregate would be over a window: GSA_WINDOW.  Not of a type whose
 * values it reads as Datums.  An expression runs as a program on threads
 * where it can (gs_win_argument_program), else in the backend (aggnode.c).
 */
static bool
window_from_aggref(Aggref *aggref, GsAggFunc *f, const char **why)
{
	WindowFunc *wfunc = makeNode(WindowFunc);
	ListCell   *lc;

	if (aggref->aggdistinct != NIL || aggref->aggorder != NIL ||
		aggref->aggkind != AGGKIND_NORMAL || aggref->aggdirectargs != NIL ||
		list_length(aggref->args) != 1)
		return false;
	wfunc->winfnoid = aggref->aggfnoid;
	wfunc->wintype = aggref->aggtype;
	wfunc->wincollid = aggref->aggcollid;
	wfunc->inputcollid = aggref->inputcollid;
	foreach(lc, aggref->args)
		wfunc->args = lappend(wfunc->args, ((TargetEntry *) lfirst(lc))->expr);
	wfunc->winagg = true;
	wfunc->location = -1;
	if (!gs_win_func_from_plan(wfunc, &f->w, why))
		return false;
	*why = "an aggregate of a type GpuAgg does not read";
	if ((f->w.argexpr == NULL && f->w.argattno == 0) ||
		f->w.arg == GSW_ARG_NONE || f->w.arg == GSW_ARG_NULLS ||
		f->w.arg == GSW_ARG_DATUM ||
		f->w.fn < GSW_SUM || f->w.fn > GSW_STDDEV_SAMP)
		return false;
	/*
	 * The window code makes every row's variance of integers in numeric
	 * arithmetic, the value of a whole partition over again for each of its
	 * rows: far dearer than the Agg's one final call a group
	 */
	*why = "variance or stddev of integers";
	if (GSW_INT_STATISTIC(&f->w))
		return false;
	f->fn = GSA_WINDOW;
	f->argattno = f->w.argattno;
	f->argtype = f->w.argtype;
	f->name = get_func_name(aggref->aggfnoid);
	return true;
}

bool
gs_agg_func_from_aggref(Aggref *aggref, GsAggFunc *f, GsAggSortCol *sort,
						bool *sorts, const char **why)
{
	memset(f, 0, sizeof(GsAggFunc));
	memset(sort, 0, sizeof(GsAggSortCol));
	*sorts = false;
	f->restype = aggref->aggtype;
	f->nfrac = 1;				/* one result per group, but for arrays */
	if (aggref->agglevelsup != 0 || aggref->aggsplit != AGGSPLIT_SIMPLE ||
		aggref->aggvariadic)
	{
		*why = "a partial or outer aggregate";
		return false;
	}
	if (aggref->aggfilter != NULL)
	{
		*why = "an aggregate with FILTER";
		return false;
	}
	if (aggref->aggfnoid == F_COUNT_ || aggref->aggfnoid == F_COUNT_ANY)
	{
		*why = "a count of an expression";
		if (!count_from_aggref(aggref, f, sort, sorts))
			return false;
	}
	else if (aggref->aggdistinct == NIL && aggref->aggorder == NIL &&
			 aggref->aggkind == AGGKIND_NORMAL &&
			 aggref->aggfnoid != F_STRING_AGG_TEXT_TEXT &&
			 aggref->aggfnoid != F_STRING_AGG_BYTEA_BYTEA &&
			 aggref->aggfnoid != F_ARRAY_AGG_ANYNONARRAY)
	{
		*why = "an aggregate GpuAgg does not compute";
		/* its own GsWinFunc: w is set, and stays */
		return window_from_aggref(aggref, f, why);
	}
	else if (aggref->aggfnoid == F_SUM_INT2 || aggref->aggfnoid == F_SUM_INT4 ||
			 aggref->aggfnoid == F_SUM_INT8 || aggref->aggfnoid == F_AVG_INT2 ||
			 aggref->aggfnoid == F_AVG_INT4 || aggref->aggfnoid == F_AVG_INT8)
	{
		*why = "a sum or avg that is not DISTINCT of an integer column";
		if (!sum_distinct_from_aggref(aggref, f, sort))
			return false;
		*sorts = true;
	}
	else if (aggref->aggfnoid == F_STRING_AGG_TEXT_TEXT ||
			 aggref->aggfnoid == F_STRING_AGG_BYTEA_BYTEA ||
			 aggref->aggfnoid == F_ARRAY_AGG_ANYNONARRAY)
	{
		*why = "a string_agg or array_agg of an expression, or not ordered by a column";
		if (!ordered_from_aggref(aggref, f, sort))
			return false;
		*sorts = true;
	}
	else
	{
		if (!ordered_set_from_aggref(aggref, f, sort, why))
			return false;
		*sorts = true;
	}
	f->w.fn = GSW_COUNT;		/* unused: gs_win_boundaries reads w.arg */
	f->w.argattno = f->argattno;
	f->w.argtype = f->argtype;
	return true;
}

const char *
gs_agg_name(const GsAggFunc *f)
{
	switch (f->fn)
	{
		case GSA_COUNT_STAR:
			return "count(*)";
		case GSA_COUNT:
			return "count";
		case GSA_COUNT_DISTINCT:
			return "count(DISTINCT)";
		case GSA_SUM_DISTINCT:
			return "sum(DISTINCT)";
		case GSA_AVG_DISTINCT:
			return "avg(DISTINCT)";
		case GSA_PERCENTILE_DISC:
			return "percentile_disc";
		case GSA_PERCENTILE_CONT:
			return "percentile_cont";
		case GSA_MODE:
			return "mode";
		case GSA_STRING_AGG:
			return "string_agg";
		case GSA_ARRAY_AGG:
			return "array_agg";
		case GSA_WINDOW:
			return f->name;
	}
	return "?";
}

void
gs_agg_set_fraction(GsAggFunc *f, Datum value, bool isnull)
{
	ArrayType  *arr;
	Datum	   *elems;
	int			i;

	f->all_null = isnull;
	f->nfrac = 1;
	f->frac = palloc0(sizeof(double));
	f->frac_null = palloc(sizeof(bool));
	f->frac_null[0] = isnull;
	if (isnull)
		return;
	if (!f->multi)
	{
		f->frac[0] = DatumGetFloat8(value);
		return;
	}
	arr = DatumGetArrayTypeP(value);
	deconstruct_array(arr, FLOAT8OID, 8, FLOAT8PASSBYVAL, TYPALIGN_DOUBLE,
					  &elems, &f->frac_null, &f->nfrac);
	f->frac = palloc0(sizeof(double) * Max(f->nfrac, 1));
	for (i = 0; i < f->nfrac; i++)
		if (!f->frac_null[i])
			f->frac[i] = DatumGetFloat8(elems[i]);
	f->frac_ndim = ARR_NDIM(arr);
	memcpy(f->frac_dims, ARR_DIMS(arr), sizeof(int) * f->frac_ndim);
	memcpy(f->frac_lbs, ARR_LBOUND(arr), sizeof(int) * f->frac_ndim);
}

/* ---- 1. groups --------------------------------------------------------------------- */

typedef struct GroupsArg
{
	const uint8 *flags;
	uint64		n;
	uint64		ntasks;
	uint64	   *counts;			/* [ntasks]: starts, then their offsets */
	uint64	   *starts;			/* NULL while counting */
} GroupsArg;

static void
groups_tasks(void *p, uint64 tlo, uint64 thi)
{
	GroupsArg  *a = (GroupsArg *) p;
	uint64		t;

	for (t = tlo; t < thi; t++)
	{
		uint64		lo,
					hi,
					i,
					k = a->starts ? a->counts[t] : 0;

		gs_team_slice(a->n, a->ntasks, t, &lo, &hi);
		for (i = lo; i < hi; i++)
		{
			if (!(a->flags[i] & GSW_NEW_PARTITION))
				continue;
			if (a->starts)
				a->starts[k] = i;
			k++;
		}
		if (!a->starts)
			a->counts[t] = k;
	}
}

uint64
gs_agg_groups(const uint8 *flags, uint64 n, bool plain, uint64 **starts,
			  int nthreads)
{
	GroupsArg	a;
	uint64		ngroups = 0;
	uint64		t;

	if (plain)
	{
		/* one group, even of no rows: the Agg's one result row */
		*starts = palloc(sizeof(uint64) * 2);
		(*starts)[0] = 0;
		(*starts)[1] = n;
		return 1;
	}
	if (n < GSA_THREADED_MIN)
		nthreads = 1;
	a.flags = flags;
	a.n = n;
	a.ntasks = (uint64) nthreads * GSA_TASKS_PER_THREAD;
	a.counts = palloc0(sizeof(uint64) * a.ntasks);
	a.starts = NULL;
	gs_cpu_for_tasks(a.ntasks, nthreads, groups_tasks, &a);
	for (t = 0; t < a.ntasks; t++)
	{
		uint64		c = a.counts[t];

		a.counts[t] = ngroups;
		ngroups += c;
	}
	a.starts = palloc_extended(sizeof(uint64) * (ngroups + 1), MCXT_ALLOC_HUGE);
	gs_cpu_for_tasks(a.ntasks, nthreads, groups_tasks, &a);
	a.starts[ngroups] = n;
	pfree(a.counts);
	*starts = a.starts;
	return ngroups;
}

/* ---- 2. aggregates ----------------------------------------------------------------- */

Size
gs_agg_result_bytes(const GsAggFunc *f, uint64 ngroups)
{
	Size		per_group = sizeof(uint64) +
		(sizeof(int64) + sizeof(bool)) * Max(f->nfrac, 1);

	if (f->fn == GSA_SUM_DISTINCT || f->fn == GSA_AVG_DISTINCT)
		per_group += 16;
	/* percentile_cont of a numeric: its rows and its proportion */
	if (f->fn == GSA_PERCENTILE_CONT && f->argtype == NUMERICOID)
		per_group += sizeof(double) * Max(f->nfrac, 1);
	/* GSA_WINDOW: int128 sums, their scale and avg's divisor at most */
	if (f->fn == GSA_WINDOW)
		per_group += 16 + sizeof(int16) + sizeof(int64) + sizeof(uint32);
	return (Size) ngroups * per_group;
}

Size
gs_agg_row_bytes(const GsAggFunc *f, uint64 nrows)
{
	Size		per_row;

	switch (f->w.arg)
	{
		case GSW_ARG_NONE:
			return 0;
		case GSW_ARG_NULLS:
			per_row = sizeof(bool);
			break;
		case GSW_ARG_NUMERIC:
			/* argw and argscale */
			per_row = sizeof(bool) + 16 + sizeof(int16);
			break;
		default:
			per_row = sizeof(bool) + sizeof(int64);
			break;
	}
	return (Size) nrows * per_row;
}

static inline bool
fraction_valid(double p)
{
	return !(p < 0 || p > 1 || isnan(p));
}

/* the value of row i of a percentile_cont's column, as float8 */
static inline double
value_f8(const GsAggFunc *f, uint64 i)
{
	return f->w.arg == GSW_ARG_INT ? (double) f->w.argi[i] : f->w.argf[i];
}

/* float8_lerp's interpolation, in its order of operations */
static inline double
lerp(double lo, double hi, double pct)
{
	return lo + (pct * (hi - lo));
}

/* percentile_disc of fraction p over the N values at rows [a, a + N) */
static inline int64
disc_row(double p, uint64 a, uint64 nvalues)
{
	int64		row = (int64) ceil(p * nvalues);

	return (int64) a + Max(row, 1) - 1;
}

/*
 * percentile_cont's rows for fraction p over the N values at rows
 * [a, a + N), percentile_cont_final's: the first, and the proportion of the
 * way to the next, or -1 where the percentile falls on the first
 */
static inline uint64
cont_row(double p, uint64 a, uint64 nvalues, double *proportion)
{
	int64		n1 = (int64) nvalues - 1;
	int64		first_row = floor(p * n1);
	int64		second_row = ceil(p * n1);

	*proportion = first_row == second_row ? -1.0 : (p * n1) - first_row;
	return a + first_row;
}

/* percentile_cont of fraction p over the N values at rows [a, a + N) */
static inline double
cont_value(const GsAggFunc *f, double p, uint64 a, uint64 nvalues)
{
	double		proportion;
	uint64		r = cont_row(p, a, nvalues, &proportion);

	if (proportion < 0)
		return value_f8(f, r);
	return lerp(value_f8(f, r), value_f8(f, r + 1), proportion);
}

/* the row that starts mode()'s run over rows [a, b), mode_final's rule */
static uint64
mode_row(const uint8 *flags, uint64 a, uint64 b)
{
	uint64		mode = a,
				mode_freq = 1,
				last = a,
				last_freq = 1;
	uint64		i;

	for (i = a + 1; i < b; i++)
	{
		if (flags[i] & GSW_NEW_PEERS)
		{
			last = i;
			last_freq = 1;
		}
		else if (last == mode)
			mode_freq++;
		else if (++last_freq > mode_freq)
		{
			mode = last;
			mode_freq = last_freq;
		}
	}
	return mode;
}

bool
gs_agg_reads_peers(const GsAggFunc *f)
{
	return f->fn == GSA_MODE || f->fn == GSA_COUNT_DISTINCT ||
		f->fn == GSA_SUM_DISTINCT || f->fn == GSA_AVG_DISTINCT;
}

/* a count, sum or avg DISTINCT over the group's non-NULL values [a, b) */
static void
distinct_group(GsAggFunc *f, const uint8 *flags, uint64 g, uint64 a, uint64 b)
{
	int64		c = 0;
	uint64		i;
#ifdef HAVE_INT128
	int128		sum = 0;
#endif

	for (i = a; i < b; i++)
	{
		if (i > a && !(flags[i] & GSW_NEW_PEERS))
			continue;
		c++;
#ifdef HAVE_INT128
		if (f->fn != GSA_COUNT_DISTINCT)
			sum += f->w.argi[i];
#endif
	}
	f->i64[g] = c;
#ifdef HAVE_INT128
	if (f->fn != GSA_COUNT_DISTINCT)
		f->sum[g] = sum;
#endif
}

/* mode() and the percentiles over the group's non-NULL values [a, b) */
static void
pick_group(GsAggFunc *f, const uint8 *flags, uint64 g, uint64 a, uint64 b)
{
	int			j;

	if (f->fn == GSA_MODE)
	{
		f->isnull[g] = (a == b);
		if (a < b)
			f->i64[g] = (int64) mode_row(flags, a, b);
		return;
	}
	for (j = 0; j < f->nfrac; j++)
	{
		uint64		r = g * f->nfrac + j;
		double		p = f->frac[j];

		/* an invalid fraction raises its error when the group is returned */
		f->isnull[r] = (a == b || f->frac_null[j] || !fraction_valid(p));
		if (f->isnull[r])
			continue;
		if (f->fn == GSA_PERCENTILE_DISC)
			f->i64[r] = disc_row(p, a, b - a);
		else if (f->argtype == NUMERICOID)
		{
			/*
			 * a numeric cast to float8, whose values the threads do not
			 * read (numeric_float8 is the backend's): the row and the
			 * proportion, for cont_result
			 */
			f->i64[r] = (int64) cont_row(p, a, b - a, &f->f8[r]);
		}
		else
			f->f8[r] = cont_value(f, p, a, b - a);
	}
}

/* f's result (or results, one per fraction) for the group at rows [s, e) */
static void
compute_group(GsAggFunc *f, const uint8 *flags, uint64 g, uint64 s, uint64 e)
{
	const bool *nul = f->w.argnull;
	uint64		a = s,
				b = e,
				i;
	int64		c = 0;

	switch (f->fn)
	{
		case GSA_COUNT_STAR:
			f->i64[g] = (int64) (e - s);
			return;
		case GSA_COUNT:
			for (i = s; i < e; i++)
				c += !nul[i];
			f->i64[g] = c;
			return;
		case GSA_STRING_AGG:
		case GSA_ARRAY_AGG:
			/* built when the group is returned */
			return;
		case GSA_WINDOW:
			/* gs_agg_compute_windows */
			return;
		default:
			break;
	}
	/* the sorted column's non-NULL values: one run, NULLs sort together */
	while (a < b && nul[a])
		a++;
	while (b > a && nul[b - 1])
		b--;
	f->nvalues[g] = b - a;
	if (f->fn == GSA_COUNT_DISTINCT || f->fn == GSA_SUM_DISTINCT ||
		f->fn == GSA_AVG_DISTINCT)
		distinct_group(f, flags, g, a, b);
	else
		pick_group(f, flags, g, a, b);
}

typedef struct ComputeArg
{
	const uint8 *flags;
	const uint64 *starts;
	uint64		ngroups;
	uint64		ntasks;
	GsAggFunc  *funcs;
	int			nfuncs;
} ComputeArg;

/* tasks [tlo, thi), each a slice of the groups */
static void
compute_tasks(void *p, uint64 tlo, uint64 thi)
{
	ComputeArg *a = (ComputeArg *) p;
	uint64		t;

	for (t = tlo; t < thi; t++)
	{
		uint64		lo,
					hi,
					g;
		int			k;

		gs_team_slice(a->ngroups, a->ntasks, t, &lo, &hi);
		for (g = lo; g < hi; g++)
		{
			if ((g & 255) == 255 && gs_slice_stopped())
				return;
			for (k = 0; k < a->nfuncs; k++)
				compute_group(&a->funcs[k], a->flags, g, a->starts[g],
							  a->starts[g + 1]);
		}
	}
}

void
gs_agg_compute(const uint8 *flags, const uint64 *starts, uint64 ngroups,
			   GsAggFunc *funcs, int nfuncs, int nthreads)
{
	ComputeArg	a;
	int			k;

	for (k = 0; k < nfuncs; k++)
	{
		GsAggFunc  *f = &funcs[k];
		Size		rows = Max(ngroups, 1) * Max(f->nfrac, 1);

		f->starts = starts;
		f->nrows = starts[ngroups];

		f->nvalues = palloc_extended(sizeof(uint64) * Max(ngroups, 1),
									 MCXT_ALLOC_HUGE);
		f->isnull = palloc_extended(sizeof(bool) * rows,
									MCXT_ALLOC_HUGE | MCXT_ALLOC_ZERO);
		if (f->fn == GSA_PERCENTILE_CONT)
			f->f8 = palloc_extended(sizeof(double) * rows, MCXT_ALLOC_HUGE);
		if ((f->fn != GSA_PERCENTILE_CONT || f->argtype == NUMERICOID) &&
			f->fn != GSA_WINDOW)
			f->i64 = palloc_extended(sizeof(int64) * rows, MCXT_ALLOC_HUGE);
#ifdef HAVE_INT128
		if (f->fn == GSA_SUM_DISTINCT || f->fn == GSA_AVG_DISTINCT)
			f->sum = palloc_extended(sizeof(int128) * rows, MCXT_ALLOC_HUGE);
#endif
	}
	a.flags = flags;
	a.starts = starts;
	a.ngroups = ngroups;
	a.funcs = funcs;
	a.nfuncs = nfuncs;
	/* threads for many rows, in slices of groups (one group: one thread) */
	if (ngroups < 2 || starts[ngroups] < GSA_THREADED_MIN)
		nthreads = 1;
	a.ntasks = Min(ngroups, (uint64) nthreads * GSA_TASKS_PER_THREAD);
	if (a.ntasks <= 1)
		compute_tasks(&a, 0, a.ntasks);
	else
		gs_cpu_for_tasks(a.ntasks, nthreads, compute_tasks, &a);
}

/*
 * The aggregates that do not sort: GpuWindow's aggregate steps over each
 * group's rows (gs_win_compute_groups), a value a group, which
 * gs_agg_datum reads at the group's index.
 */
const char *
gs_agg_compute_windows(const uint64 *starts, uint64 ngroups, GsAggFunc *funcs,
					   int nfuncs, int nthreads)
{
	GsWinFunc  *w = palloc(sizeof(GsWinFunc) * Max(nfuncs, 1));
	const char *why = NULL;
	bool		ok;
	int			nw = 0;
	int			k;

	for (k = 0; k < nfuncs; k++)
		if (funcs[k].fn == GSA_WINDOW)
			w[nw++] = funcs[k].w;
	if (nw == 0)
	{
		pfree(w);
		return NULL;
	}
	ok = gs_win_compute_groups(starts, ngroups, w, nw, nthreads);
	nw = 0;
	for (k = 0; k < nfuncs; k++)
		if (funcs[k].fn == GSA_WINDOW)
		{
			funcs[k].w = w[nw++];
			if (funcs[k].w.too_wide)
				why = "numeric values past 128 bits";
		}
	pfree(w);
	if (!ok && why == NULL)
		why = "an aggregate overflowed (the Agg raises the error)";
	return why;
}

/* ---- 3. results -------------------------------------------------------------------- */

static void
fraction_error(double p)
{
	ereport(ERROR,
			(errcode(ERRCODE_NUMERIC_VALUE_OUT_OF_RANGE),
			 errmsg("percentile value %g is not between 0 and 1", p)));
}

/*
 * Values ahead that string_agg and array_agg prefetch as they build the
 * groups' results: a by-reference value lies in its row, which the sort
 * copied into output order where the memory allowed it (aggnode.c asks it
 * to), else at a random place where it was stored; a group has few rows,
 * so the prefetch runs on into the next groups
 */
#define GS_AGG_VALUE_AHEAD	16

/* prefetches the by-reference value GS_AGG_VALUE_AHEAD after row i */
static inline void
prefetch_value(const GsAggFunc *f, uint64 i)
{
	uint64		j = i + GS_AGG_VALUE_AHEAD;

	if (j < f->nrows && !f->w.argnull[j])
		gs_prefetch(DatumGetPointer(f->w.argd[j]));
}

/* the value of the sorted column at row r */
static Datum
row_value(GsAggFunc *f, MinimalTuple *rows, uint64 r, TupleTableSlot *slot,
		  bool *isnull)
{
	ExecStoreMinimalTuple(rows[r], slot, false);
	return slot_getattr(slot, f->argattno, isnull);
}

/* a percentile's array result for group g, as the multi_final functions */
/*
 * percentile_cont's result r: the threads' value, or, over a numeric cast to
 * float8, the value of the rows cont_row picked, cast as the aggregate's
 * argument casts them (numeric_float8) and interpolated as float8_lerp does
 */
static double
cont_result(GsAggFunc *f, uint64 r, MinimalTuple *rows, TupleTableSlot *slot)
{
	double		lo,
				hi;
	bool		isnull;

	if (f->argtype != NUMERICOID)
		return f->f8[r];
	lo = DatumGetFloat8(DirectFunctionCall1(numeric_float8,
											row_value(f, rows, (uint64) f->i64[r], slot, &isnull)));
	if (f->f8[r] < 0)
		return lo;
	hi = DatumGetFloat8(DirectFunctionCall1(numeric_float8,
											row_value(f, rows, (uint64) f->i64[r] + 1, slot, &isnull)));
	return lerp(lo, hi, f->f8[r]);
}

static Datum
array_datum(GsAggFunc *f, uint64 g, MinimalTuple *rows, TupleTableSlot *slot,
			bool *isnull)
{
	Oid			elemtype = f->fn == GSA_PERCENTILE_CONT ? FLOAT8OID : f->argtype;
	int16		typlen;
	bool		typbyval;
	char		typalign;
	Datum	   *values;
	bool	   *nulls;
	int			j;

	*isnull = f->all_null || f->nvalues[g] == 0;
	if (*isnull)
		return (Datum) 0;
	if (f->nfrac == 0)
		return PointerGetDatum(construct_empty_array(elemtype));
	for (j = 0; j < f->nfrac; j++)
		if (!f->frac_null[j] && !fraction_valid(f->frac[j]))
			fraction_error(f->frac[j]);
	get_typlenbyvalalign(elemtype, &typlen, &typbyval, &typalign);
	values = palloc(sizeof(Datum) * f->nfrac);
	nulls = palloc(sizeof(bool) * f->nfrac);
	for (j = 0; j < f->nfrac; j++)
	{
		uint64		r = g * f->nfrac + j;

		nulls[j] = f->isnull[r];
		if (nulls[j])
			values[j] = (Datum) 0;
		else if (f->fn == GSA_PERCENTILE_CONT)
			values[j] = Float8GetDatum(cont_result(f, r, rows, slot));
		else
			values[j] = row_value(f, rows, (uint64) f->i64[r], slot, &nulls[j]);
	}
	return PointerGetDatum(construct_md_array(values, nulls, f->frac_ndim,
											  f->frac_dims, f->frac_lbs,
											  elemtype, typlen, typbyval,
											  typalign));
}

/*
 * string_agg of the group's rows [s, e): as string_agg_transfn and its
 * final function build it (text and bytea alike: the bytes of each value),
 * from each row's Datum (read by gs_win_boundaries).  The bytes are
 * appended after room for the varlena header, so that the buffer becomes
 * the result without a copy.
 */
static Datum
string_agg_datum(GsAggFunc *f, uint64 s, uint64 e, bool *isnull)
{
	StringInfoData buf;
	bool		first = true;
	struct varlena *delim = NULL;
	uint64		i;

	if (!f->delim_null)
		delim = PG_DETOAST_DATUM_PACKED(f->delim);
	initStringInfo(&buf);
	buf.len = VARHDRSZ;
	for (i = s; i < e; i++)
	{
		struct varlena *t;

		gs_poll_interrupts(i - s + 1);
		prefetch_value(f, i);
		if (f->w.argnull[i])
			continue;
		if (!first && delim)
			appendBinaryStringInfo(&buf, VARDATA_ANY(delim), VARSIZE_ANY_EXHDR(delim));
		first = false;
		t = PG_DETOAST_DATUM_PACKED(f->w.argd[i]);
		appendBinaryStringInfo(&buf, VARDATA_ANY(t), VARSIZE_ANY_EXHDR(t));
	}
	*isnull = first;
	if (first)
	{
		pfree(buf.data);
		return (Datum) 0;
	}
	SET_VARSIZE(buf.data, buf.len);
	return PointerGetDatum(buf.data);
}

/*
 * array_agg of the group's rows [s, e), NULLs kept, from each row's Datum
 * (construct_md_array copies them); NULL over no rows
 */
static Datum
array_agg_datum(GsAggFunc *f, uint64 s, uint64 e, bool *isnull)
{
	int16		typlen;
	bool		typbyval;
	char		typalign;
	int			n = (int) (e - s);
	int			lbs = 1;
	Datum	   *values;
	bool	   *nulls;
	uint64		i;

	*isnull = (e == s);
	if (*isnull)
		return (Datum) 0;
	if (e - s > (uint64) MaxArraySize)
		ereport(ERROR,
				(errcode(ERRCODE_PROGRAM_LIMIT_EXCEEDED),
				 errmsg("array size exceeds the maximum allowed (%d)",
						(int) MaxArraySize)));
	get_typlenbyvalalign(f->argtype, &typlen, &typbyval, &typalign);
	values = palloc_extended(sizeof(Datum) * n, MCXT_ALLOC_HUGE);
	nulls = palloc_extended(sizeof(bool) * n, MCXT_ALLOC_HUGE);
	for (i = s; i < e; i++)
	{
		gs_poll_interrupts(i - s + 1);
		if (!typbyval)
			prefetch_value(f, i);
		values[i - s] = f->w.argd[i];
		nulls[i - s] = f->w.argnull[i];
	}
	return PointerGetDatum(construct_md_array(values, nulls, 1, &n, &lbs,
											  f->argtype, typlen, typbyval,
											  typalign));
}

#ifdef HAVE_INT128
/* an int128 as numeric, the value int128_to_numericvar would give */
static Datum
int128_numeric(int128 v)
{
	char		buf[48];
	char	   *p = buf + sizeof(buf) - 1;
	bool		neg = v < 0;
	uint128		u = neg ? -(uint128) v : (uint128) v;

	*p = '\0';
	do
	{
		*--p = '0' + (int) (u % 10);
		u /= 10;
	} while (u > 0);
	if (neg)
		*--p = '-';
	return DirectFunctionCall3(numeric_in, CStringGetDatum(p),
							   ObjectIdGetDatum(InvalidOid), Int32GetDatum(-1));
}

/* sum or avg DISTINCT of group g: NULL without values */
static Datum
sum_datum(GsAggFunc *f, uint64 g, bool *isnull)
{
	*isnull = (f->i64[g] == 0);
	if (*isnull)
		return (Datum) 0;
	if (f->fn == GSA_AVG_DISTINCT)
		return DirectFunctionCall2(numeric_div, int128_numeric(f->sum[g]),
								   NumericGetDatum(int64_to_numeric(f->i64[g])));
	/* sum(int2) and sum(int4) are int8; sum(int8) numeric */
	if (f->argtype != INT8OID)
		return Int64GetDatum((int64) f->sum[g]);
	return int128_numeric(f->sum[g]);
}
#endif

Datum
gs_agg_datum(GsAggFunc *f, uint64 g, MinimalTuple *rows,
			 TupleTableSlot *row_slot, bool *isnull)
{
	*isnull = false;
	switch (f->fn)
	{
#ifdef HAVE_INT128
		case GSA_SUM_DISTINCT:
		case GSA_AVG_DISTINCT:
			return sum_datum(f, g, isnull);
#else
		case GSA_SUM_DISTINCT:
		case GSA_AVG_DISTINCT:
			elog(ERROR, "sum and avg DISTINCT need int128");
#endif
		case GSA_STRING_AGG:
			return string_agg_datum(f, f->starts[g], f->starts[g + 1], isnull);
		case GSA_ARRAY_AGG:
			return array_agg_datum(f, f->starts[g], f->starts[g + 1], isnull);
		case GSA_COUNT_STAR:
		case GSA_COUNT:
		case GSA_COUNT_DISTINCT:
			return Int64GetDatum(f->i64[g]);
		case GSA_MODE:
			*isnull = f->isnull[g];
			return *isnull ? (Datum) 0 :
				row_value(f, rows, (uint64) f->i64[g], row_slot, isnull);
		case GSA_WINDOW:
			/* a plain Agg over no rows: NULL, as its aggregates' */
			*isnull = true;
			if (f->starts[g] == f->starts[g + 1])
				return (Datum) 0;
			return gs_win_datum(&f->w, g, rows, row_slot, isnull);
		case GSA_PERCENTILE_DISC:
		case GSA_PERCENTILE_CONT:
			break;
	}
	if (f->multi)
		return array_datum(f, g, rows, row_slot, isnull);
	/* the scalar forms check the fraction before the group's rows */
	*isnull = f->all_null;
	if (*isnull)
		return (Datum) 0;
	if (!fraction_valid(f->frac[0]))
		fraction_error(f->frac[0]);
	*isnull = f->isnull[g];
	if (*isnull)
		return (Datum) 0;
	if (f->fn == GSA_PERCENTILE_CONT)
		return Float8GetDatum(cont_result(f, g, rows, row_slot));
	return row_value(f, rows, (uint64) f->i64[g], row_slot, isnull);
}
