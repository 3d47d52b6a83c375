/*-------------------------------------------------------------------------
 *
 * sortplan.c
 *	  The plan format of the GpuSort and GpuSortStore CustomScans (see
 *	  sortplan.h): encoded here for planner.c, decoded here for sortnode.c
 *	  and sortpar.c, so that neither executor file needs the other to read
 *	  its plan.
 *
 * A plan tree is copied (copyObject) and, for parallel workers, written out
 * and read back (nodeToString, stringToNode), and a CustomScan's
 * custom_private goes through that as it is: so the format is Lists of
 * integers and Oids only, one List per field, never a pointer or a struct.
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "nodes/makefuncs.h"
#include "nodes/nodeFuncs.h"
#include "nodes/primnodes.h"

#include "runtime/settings.h"
#include "sortplan.h"

List *
gs_plan_store_private(const GsSortColumns *cols)
{
	List	   *attnos = NIL;
	List	   *ops = NIL;
	List	   *colls = NIL;
	List	   *nfs = NIL;
	int			i;

	for (i = 0; i < cols->n; i++)
	{
		attnos = lappend_int(attnos, cols->attnos[i]);
		ops = lappend_oid(ops, cols->sortops[i]);
		colls = lappend_oid(colls, cols->collations[i]);
		nfs = lappend_int(nfs, cols->nulls_first[i] ? 1 : 0);
	}
	return list_make4(attnos, ops, colls, nfs);
}

List *
gs_plan_sort_private(const GsSortColumns *cols, GsSortMode mode)
{
	return lappend(gs_plan_store_private(cols), list_make1_int((int) mode));
}

/* a GpuSort's custom_exprs, for the Limit (offset, count) that bounds it */
List *
gs_plan_sort_exprs(Node *offset, Node *count)
{
	return list_make2(copyObject(offset), copyObject(count));
}

/* sorts on column to where it sorted on column from */
void
gs_plan_retarget_column(List *custom_private, AttrNumber from, AttrNumber to)
{
	ListCell   *lc;

	foreach(lc, (List *) list_nth(custom_private, GSP_SORT_COLS))
		if (lfirst_int(lc) == from)
			lfirst_int(lc) = to;
}

void
gs_sort_columns(List *custom_private, GsSortColumns *cols)
{
	List	   *attnos = list_nth(custom_private, GSP_SORT_COLS);
	List	   *ops = list_nth(custom_private, GSP_SORT_OPS);
	List	   *colls = list_nth(custom_private, GSP_COLLATIONS);
	List	   *nfs = list_nth(custom_private, GSP_NULLS_FIRST);
	int			i;

	cols->n = list_length(attnos);
	cols->attnos = palloc(sizeof(AttrNumber) * cols->n);
	cols->sortops = palloc(sizeof(Oid) * cols->n);
	cols->collations = palloc(sizeof(Oid) * cols->n);
	cols->nulls_first = palloc(sizeof(bool) * cols->n);
	for (i = 0; i < cols->n; i++)
	{
		cols->attnos[i] = (AttrNumber) list_nth_int(attnos, i);
		cols->sortops[i] = list_nth_oid(ops, i);
		cols->collations[i] = list_nth_oid(colls, i);
		cols->nulls_first[i] = list_nth_int(nfs, i) != 0;
	}
}

/* how a GpuSort takes its input */
GsSortMode
gs_plan_sort_mode(List *custom_private)
{
	Assert(list_length(custom_private) == GSP_NFIELDS);
	return (GsSortMode) linitial_int(list_nth(custom_private, GSP_PARALLEL));
}

List *
gs_plan_column_refs(List *tlist, int varno)
{
	List	   *result = NIL;
	ListCell   *lc;

	foreach(lc, tlist)
	{
		TargetEntry *tle = lfirst(lc);
		TargetEntry *newtle = flatCopyTargetEntry(tle);

		if (varno == INDEX_VAR || !IsA(tle->expr, Const))
			newtle->expr = (Expr *) makeVar(varno, tle->resno,
											exprType((Node *) tle->expr),
											exprTypmod((Node *) tle->expr),
											exprCollation((Node *) tle->expr),
											0);
		result = lappend(result, newtle);
	}
	return result;
}

typedef struct RetargetContext
{
	List	   *calls;
	int			ninput;
} RetargetContext;

static Node *
retarget(Node *node, RetargetContext *cxt)
{
	int			k = 0;
	ListCell   *lc;

	if (node == NULL)
		return NULL;
	if (IsA(node, Var) && ((Var *) node)->varno == OUTER_VAR)
	{
		Var		   *var = (Var *) copyObject(node);

		var->varno = INDEX_VAR;
		return (Node *) var;
	}
	if (!IsA(node, WindowFunc) && !IsA(node, Aggref))
		return expression_tree_mutator(node, retarget, (void *) cxt);
	foreach(lc, cxt->calls)
	{
		if (equal(lfirst(lc), node))
			return (Node *) makeVar(INDEX_VAR, cxt->ninput + k + 1,
									exprType(node), -1, exprCollation(node), 0);
		k++;
	}
	elog(ERROR, "window function or aggregate not collected");
	return NULL;				/* keep compiler quiet */
}

Node *
gs_plan_retarget(Node *expr, List *calls, int ninput)
{
	RetargetContext cxt;

	cxt.calls = calls;
	cxt.ninput = ninput;
	return retarget(expr, &cxt);
}

/*
 * Bytes a stored row costs beyond its width: the MinimalTuple header and
 * alignment, its pointer, its raw key and the key the engine sorts.
 */
#define GS_PLAN_ROW_OVERHEAD	96

bool
gs_plan_fits_memory(double rows, int width)
{
	return rows * (width + GS_PLAN_ROW_OVERHEAD) <= (double) gpusort_memory_budget();
}
