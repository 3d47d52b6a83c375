/*-------------------------------------------------------------------------
 *
 * compat.h
 *	  What differs between the PostgreSQL major versions gpusort builds
 *	  against (15, 16, 17 and 18), in one place.
 *
 * Every PG_VERSION_NUM test of the module is here: the rest of the source
 * calls these helpers, so that no file carries copies of code per version.
 * Each helper is written against the newest API and maps it to the older
 * ones.
 *
 *	- EXPLAIN's property helpers (ExplainPropertyText, ...) moved to
 *	  commands/explain_format.h in 18, ExplainState to
 *	  commands/explain_state.h; include this header instead of
 *	  commands/explain.h.
 *	- get_ordering_op_properties reports a CompareType in 18, a btree
 *	  strategy number before (an int16: passing one where 18 writes a
 *	  CompareType would write past it): gs_ordering_op_properties says
 *	  whether the operator sorts descending.
 *	- lc_collate_is_c is gone in 18, where the locale struct says it:
 *	  gs_collation_is_c.
 *	- pg_newlocale_from_collation of the database's default collation
 *	  returns a null pg_locale_t before 17 when that collation is libc's;
 *	  the locale struct holds no locale_t for it before 18 (the backend's
 *	  LC_COLLATE is the one in force): gs_collation_provider and
 *	  gs_collation_libc_locale give the same answers on every version.
 *	- The standalone tests define a few backend functions themselves
 *	  (test/common/pg_shim.c): ExceptionalCondition lost its errorType
 *	  argument in 16, heap_form_tuple's arrays became const in 17.
 *	- MyBackendId (1-based) became MyProcNumber (0-based) in 17:
 *	  gs_my_backend_slot.
 *	- EXPLAIN qualifies column names when the range table has more than
 *	  one entry; 18 adds an RTE_GROUP entry that does not count
 *	  (es->rtable_size): gs_explain_rtable_size.
 *	- tuplesort_getdatum gained its copy argument in 16:
 *	  gs_tuplesort_getdatum.
 *	- EXPLAIN deparses a WindowFunc as "OVER (?)" before 18; 18 names its
 *	  window and raises an error unless a WindowAgg of that window is the
 *	  node being shown: GS_DEPARSE_WINDOWFUNC_NEEDS_WINDOWAGG.
 *	- EXPLAIN calls a hook on each plan node (explain_per_node_hook) from
 *	  18 on: GS_EXPLAIN_PER_NODE_HOOK; before, plan/explainwhy.c adds its
 *	  lines to ExplainOneQuery's output, calling standard_ExplainOneQuery
 *	  from 17 on (GS_STANDARD_EXPLAIN_ONE_QUERY) and doing its work itself
 *	  before.
 *
 * The includer must have included postgres.h, and nothing that includes
 * utils/pg_locale.h before this header (see GS_NO_ICU_HEADERS below).
 *
 * src/base/compat.h
 *
 *-------------------------------------------------------------------------
 */
#ifndef GS_COMPAT_H
#define GS_COMPAT_H

#if PG_VERSION_NUM >= 180000
#define GS_DEPARSE_WINDOWFUNC_NEEDS_WINDOWAGG 1
#else
#define GS_DEPARSE_WINDOWFUNC_NEEDS_WINDOWAGG 0
#endif

#if PG_VERSION_NUM >= 180000
#define GS_EXPLAIN_PER_NODE_HOOK 1
#else
#define GS_EXPLAIN_PER_NODE_HOOK 0
#endif
#if PG_VERSION_NUM >= 170000
#define GS_STANDARD_EXPLAIN_ONE_QUERY 1
#else
#define GS_STANDARD_EXPLAIN_ONE_QUERY 0
#endif

#include <locale.h>

#if PG_VERSION_NUM >= 160000
#include "varatt.h"				/* VARSIZE and the rest, in postgres.h before 16 */
#endif
#include "access/stratnum.h"
#include "catalog/pg_collation.h"
#include "commands/explain.h"
#if PG_VERSION_NUM >= 180000
#include "commands/explain_format.h"
#include "commands/explain_state.h"
#endif
#include "nodes/pg_list.h"
#if PG_VERSION_NUM >= 170000
#include "storage/procnumber.h"
#else
#include "storage/backendid.h"
#endif
#include "utils/lsyscache.h"
#include "utils/tuplesort.h"

/*
 * pg_locale.h includes ICU's headers when the server was built with ICU.  A
 * build machine without them (libicu-dev) still builds gpusort: ICU
 * collations then fall back to tuplesort.  Only the fields of
 * pg_locale_struct before the ICU member are read without ICU, and their
 * layout does not depend on it.
 */
#if defined(USE_ICU) && defined(__has_include)
#if !__has_include(<unicode/ucol.h>)
#undef USE_ICU
#define GS_NO_ICU_HEADERS
#endif
#endif
#include "utils/pg_locale.h"

/*
 * Looks up a btree ordering operator: its operator family and input type,
 * and whether it sorts descending (">" rather than "<").  False when the
 * operator is not a btree ordering operator.
 */
static inline bool
gs_ordering_op_properties(Oid opno, Oid *opfamily, Oid *opcintype, bool *desc)
{
#if PG_VERSION_NUM >= 180000
	CompareType cmptype;

	if (!get_ordering_op_properties(opno, opfamily, opcintype, &cmptype))
		return false;
	*desc = (cmptype == COMPARE_GT);
#else
	int16		strategy;

	if (!get_ordering_op_properties(opno, opfamily, opcintype, &strategy))
		return false;
	*desc = (strategy == BTGreaterStrategyNumber);
#endif
	return true;
}

/*
 * Does this (valid) collation order strings bytewise, as C and POSIX do?
 */
static inline bool
gs_collation_is_c(Oid collation)
{
#if PG_VERSION_NUM >= 180000
	return pg_newlocale_from_collation(collation)->collate_is_c;
#else
	return lc_collate_is_c(collation);
#endif
}

/*
 * The provider of a (valid) collation: COLLPROVIDER_LIBC, COLLPROVIDER_ICU
 * or, from 17, COLLPROVIDER_BUILTIN.
 */
static inline char
gs_collation_provider(Oid collation)
{
	pg_locale_t locale = pg_newlocale_from_collation(collation);

	/* before 17: the database's default collation, provided by libc */
	return locale ? locale->provider : COLLPROVIDER_LIBC;
}

/*
 * The locale_t of a collation whose provider is libc and that is not C
 * (gs_collation_is_c), for strxfrm_l and strcoll_l.  Before 18 the server
 * keeps none for the database's default collation, whose order is the
 * backend's LC_COLLATE: one is made from it once per backend (and per
 * file that calls this), as LC_COLLATE never changes within a database.
 * Raises an ERROR when the C library cannot make it.
 */
static inline locale_t
gs_collation_libc_locale(Oid collation)
{
#if PG_VERSION_NUM < 180000
	if (collation == DEFAULT_COLLATION_OID)
	{
		static locale_t default_lt = (locale_t) 0;

		if (default_lt == (locale_t) 0)
		{
			const char *name = setlocale(LC_COLLATE, NULL);

			default_lt = newlocale(LC_COLLATE_MASK | LC_CTYPE_MASK,
								   name ? name : "C", (locale_t) 0);
			if (default_lt == (locale_t) 0)
				ereport(ERROR,
						(errcode_for_file_access(),
						 errmsg("could not create locale \"%s\": %m",
								name ? name : "C")));
		}
		return default_lt;
	}
#endif
	return pg_newlocale_from_collation(collation)->info.lt;
}

#ifdef USE_ICU
/*
 * The ICU collator of a pg_locale_t whose provider is ICU.
 */
static inline UCollator *
gs_locale_ucollator(pg_locale_t locale)
{
	return locale->info.icu.ucol;
}
#endif

/*
 * The range table entries EXPLAIN counts to decide whether to qualify
 * column names with their relation.
 */
static inline int
gs_explain_rtable_size(ExplainState *es)
{
#if PG_VERSION_NUM >= 180000
	return es->rtable_size;
#else
	return list_length(es->rtable);
#endif
}

/*
 * This backend's slot among MaxBackends: storage/backendid.h's 1-based
 * MyBackendId became storage/procnumber.h's 0-based MyProcNumber in 17;
 * -1 (InvalidBackendId, INVALID_PROC_NUMBER) where there is none.
 */
static inline int
gs_my_backend_slot(void)
{
#if PG_VERSION_NUM >= 170000
	return MyProcNumber;
#else
	return MyBackendId;
#endif
}

/*
 * The next Datum of a sorted Datum tuplesort, forwards, not copied (a
 * by-value type's); false at the end.  16 added the copy argument.
 */
static inline bool
gs_tuplesort_getdatum(Tuplesortstate *state, Datum *val, bool *isnull)
{
#if PG_VERSION_NUM >= 160000
	return tuplesort_getdatum(state, true, false, val, isnull, NULL);
#else
	return tuplesort_getdatum(state, true, val, isnull, NULL);
#endif
}

/* the parameters of backend functions, for code that defines them */
#if PG_VERSION_NUM >= 160000
#define GS_EXCEPTIONAL_CONDITION_PARAMS \
	const char *conditionName, const char *fileName, int lineNumber
#else
#define GS_EXCEPTIONAL_CONDITION_PARAMS \
	const char *conditionName, const char *errorType, \
	const char *fileName, int lineNumber
#endif
#if PG_VERSION_NUM >= 170000
#define GS_HEAP_FORM_TUPLE_PARAMS \
	TupleDesc tupleDescriptor, const Datum *values, const bool *isnull
#else
#define GS_HEAP_FORM_TUPLE_PARAMS \
	TupleDesc tupleDescriptor, Datum *values, bool *isnull
#endif

#endif							/* GS_COMPAT_H */
