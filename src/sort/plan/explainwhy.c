/*-------------------------------------------------------------------------
 *
 * explainwhy.c
 *	  EXPLAIN's "GpuAgg Not Used" and "GpuWindow Not Used": on a stock
 *	  Agg or WindowAgg that the planner rewrite left, the reason it
 *	  recorded (runtime/notused.h), as one more property of that node.
 *
 * PostgreSQL 18 calls a hook on each node EXPLAIN shows, after the node's
 * own properties and before its children (explain_per_node_hook): the
 * reason is a property there, in every format.
 *
 * PostgreSQL 15 to 17 have no such hook.  EXPLAIN of a query goes through
 * ExplainOneQuery_hook: this one does the standard work (planning, then
 * ExplainOnePlan) and then adds the properties to what that printed, at
 * the place the hook of 18 would print them, so the output is the same on
 * every version.  To know which printed node is which, ExecutorStart (which
 * ExplainOnePlan calls on the plan it shows) lists the plan's nodes in the
 * order ExplainNode prints them: the node, its initPlans, outer, inner,
 * the members of an Append and the like, a subquery's plan, a custom
 * scan's children, its SubPlans, each SubPlan once (ExplainSubPlans), a
 * Gather marked invisible left out (ExplainPrintPlan).  A node starts
 * where each format says so: a line "->  " (text: the first line is the
 * top node), "Node Type" (JSON, YAML), <Node-Type> (XML); and its own
 * properties end where its children ("Plans", or a child's "->  " line or
 * subplan name in text) or the next node begin.  Values are escaped as
 * the format escapes them, so JSON, YAML and XML stay valid; where the
 * count of nodes found differs from the plan's (a text value with a line
 * break that looks like a node's), nothing is added.  EXPLAIN EXECUTE
 * and auto_explain, which do not call ExplainOneQuery, show no reason
 * before 18.  Without a reason to show, the output is never touched.
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "executor/executor.h"
#include "miscadmin.h"
#include "nodes/execnodes.h"
#include "optimizer/optimizer.h"
#include "tcop/tcopprot.h"
#include "utils/json.h"
#include "utils/xml.h"

#include "base/compat.h"
#include "planner.h"
#include "runtime/notused.h"

#if GS_EXPLAIN_PER_NODE_HOOK

static explain_per_node_hook_type prev_per_node_hook = NULL;

static void
explain_per_node(PlanState *planstate, List *ancestors,
				 const char *relationship, const char *plan_name,
				 ExplainState *es)
{
	const char *why;

	if (prev_per_node_hook)
		prev_per_node_hook(planstate, ancestors, relationship, plan_name, es);
	why = gs_not_used_reason(planstate->plan);
	if (why != NULL)
		ExplainPropertyText(gs_not_used_label(planstate->plan), why, es);
}

void
gs_explain_why_init(void)
{
	prev_per_node_hook = explain_per_node_hook;
	explain_per_node_hook = explain_per_node;
}

#else							/* !GS_EXPLAIN_PER_NODE_HOOK */

/* the nodes of the plan ExplainOnePlan shows, in EXPLAIN's order */
typedef struct Capture
{
	const char *source;			/* the query string of its QueryDesc */
	bool		done;
	List	   *nodes;			/* each node's Plan */
	bool		any;			/* one has a reason */
	Bitmapset  *subplans;		/* plan_ids of the SubPlans listed */
} Capture;

/* one property to add: text at offset of the output */
typedef struct Insertion
{
	int			offset;
	char	   *text;
} Insertion;

static ExplainOneQuery_hook_type prev_explain_one_query = NULL;
static ExecutorStart_hook_type prev_executor_start = NULL;
static Capture *capture = NULL;

static void capture_node(Capture *c, PlanState *ps);

static void
capture_subplans(Capture *c, List *subplans)
{
	ListCell   *lc;

	foreach(lc, subplans)
	{
		SubPlanState *sps = (SubPlanState *) lfirst(lc);

		if (bms_is_member(sps->subplan->plan_id, c->subplans))
			continue;
		c->subplans = bms_add_member(c->subplans, sps->subplan->plan_id);
		capture_node(c, sps->planstate);
	}
}

static void
capture_members(Capture *c, PlanState **members, int n)
{
	int			i;

	for (i = 0; i < n; i++)
		capture_node(c, members[i]);
}

/* ExplainNode's walk (see the header comment) */
static void
capture_node(Capture *c, PlanState *ps)
{
	ListCell   *lc;

	check_stack_depth();
	c->nodes = lappend(c->nodes, ps->plan);
	c->any |= gs_not_used_reason(ps->plan) != NULL;
	capture_subplans(c, ps->initPlan);
	if (outerPlanState(ps))
		capture_node(c, outerPlanState(ps));
	if (innerPlanState(ps))
		capture_node(c, innerPlanState(ps));
	if (IsA(ps, AppendState))
		capture_members(c, ((AppendState *) ps)->appendplans,
						((AppendState *) ps)->as_nplans);
	else if (IsA(ps, MergeAppendState))
		capture_members(c, ((MergeAppendState *) ps)->mergeplans,
						((MergeAppendState *) ps)->ms_nplans);
	else if (IsA(ps, BitmapAndState))
		capture_members(c, ((BitmapAndState *) ps)->bitmapplans,
						((BitmapAndState *) ps)->nplans);
	else if (IsA(ps, BitmapOrState))
		capture_members(c, ((BitmapOrState *) ps)->bitmapplans,
						((BitmapOrState *) ps)->nplans);
	else if (IsA(ps, SubqueryScanState))
		capture_node(c, ((SubqueryScanState *) ps)->subplan);
	else if (IsA(ps, CustomScanState))
		foreach(lc, ((CustomScanState *) ps)->custom_ps)
			capture_node(c, (PlanState *) lfirst(lc));
	capture_subplans(c, ps->subPlan);
}

static void
explain_executor_start(QueryDesc *queryDesc, int eflags)
{
	if (prev_executor_start)
		prev_executor_start(queryDesc, eflags);
	else
		standard_ExecutorStart(queryDesc, eflags);
	if (capture != NULL && !capture->done && queryDesc->planstate != NULL &&
		queryDesc->sourceText == capture->source)
	{
		PlanState  *ps = queryDesc->planstate;

		capture->done = true;
		if (IsA(ps, GatherState) && ((Gather *) ps->plan)->invisible)
			ps = outerPlanState(ps);
		capture_node(capture, ps);
	}
}

/* ---- finding the nodes in the output ------------------------------------------ */

/* the spaces that start the line at p */
static int
indent_of(const char *p)
{
	int			n = 0;

	while (p[n] == ' ')
		n++;
	return n;
}

/* the start of the line after the one at p, or NULL at the end */
static const char *
next_line(const char *p)
{
	const char *nl = strchr(p, '\n');

	return (nl && nl[1] != '\0') ? nl + 1 : NULL;
}

static bool
starts(const char *p, const char *prefix)
{
	return strncmp(p, prefix, strlen(prefix)) == 0;
}

/*
 * Text: where the properties of the node whose header line is at line end;
 * its properties are at indent props, its children's "->  " lines too, a
 * subplan's name line too (and its node's "->  " two spaces further)
 */
static const char *
text_end(const char *line, int props)
{
	while ((line = next_line(line)) != NULL)
	{
		int			i = indent_of(line);
		const char *next;

		if (i < props || (i == props && starts(line + i, "->  ")))
			return line;
		next = next_line(line);
		if (i == props && next && indent_of(next) == props + 2 &&
			starts(next + props + 2, "->  "))
			return line;
	}
	return NULL;
}

/*
 * JSON and YAML: where the properties of the node whose "Node Type" is at
 * column col of line end: a line of less indentation, or its "Plans"
 */
static const char *
structured_end(const char *line, int col, const char *plans)
{
	while ((line = next_line(line)) != NULL)
	{
		int			i = indent_of(line);

		if (i < col || (i == col && starts(line + i, plans)))
			return line;
	}
	return NULL;
}

/* XML: the line of the <Plans> or </Plan> that ends the node at tag */
static const char *
xml_end(const char *tag)
{
	int			depth = 0;
	const char *p = tag;

	while ((p = strchr(p, '<')) != NULL)
	{
		const char *close = strchr(p, '>');

		if (close == NULL)
			return NULL;
		if (p[1] == '/')
			depth--;
		else if (depth == 0 && starts(p, "<Plans>"))
			depth = -1;
		else if (close[-1] != '/')
			depth++;
		if (depth < 0)
		{
			while (p > tag && p[-1] == ' ')
				p--;
			return p;
		}
		p = close + 1;
	}
	return NULL;
}

/* the property as format prints it at indent col */
static char *
property(ExplainFormat format, int col, const char *label, const char *why,
		 bool comma)
{
	StringInfoData buf;

	initStringInfo(&buf);
	appendStringInfoSpaces(&buf, col);
	switch (format)
	{
		case EXPLAIN_FORMAT_TEXT:
			appendStringInfo(&buf, "%s: %s\n", label, why);
			break;
		case EXPLAIN_FORMAT_JSON:
			escape_json(&buf, label);
			appendStringInfoString(&buf, ": ");
			escape_json(&buf, why);
			appendStringInfoString(&buf, comma ? ",\n" : "\n");
			break;
		case EXPLAIN_FORMAT_YAML:
			appendStringInfo(&buf, "%s: ", label);
			escape_json(&buf, why);
			appendStringInfoChar(&buf, '\n');
			break;
		case EXPLAIN_FORMAT_XML:
			{
				char	   *tag = pstrdup(label);
				char	   *s;

				for (s = tag; *s; s++)
					if (*s == ' ')
						*s = '-';
				appendStringInfo(&buf, "<%s>%s</%s>\n", tag, escape_xml(why), tag);
			}
			break;
	}
	return buf.data;
}

/* ---- adding the properties ------------------------------------------------------ */

static Insertion *
insertion(int offset, char *text)
{
	Insertion  *ins = palloc(sizeof(Insertion));

	ins->offset = offset;
	ins->text = text;
	return ins;
}

/*
 * The node that starts at line, if any: where its "Node Type" (or
 * <Node-Type>, or text header) is, and the column of its properties
 */
static bool
node_start(ExplainFormat format, const char *line, bool first,
		   const char **at, int *col)
{
	int			i = indent_of(line);

	*at = line;
	switch (format)
	{
		case EXPLAIN_FORMAT_TEXT:
			*col = first ? i + 2 : i + 6;
			return first || starts(line + i, "->  ");
		case EXPLAIN_FORMAT_JSON:
			*col = i;
			return starts(line + i, "\"Node Type\": \"");
		case EXPLAIN_FORMAT_YAML:
			*col = starts(line + i, "- ") ? i + 2 : i;
			return starts(line + *col, "Node Type: ");
		case EXPLAIN_FORMAT_XML:
			*col = i;
			*at = line + i;
			return starts(line + i, "<Node-Type>");
	}
	return false;
}

/*
 * Where each node's property goes, for the nodes of c with a reason; NIL
 * where the nodes found are not the plan's
 */
static List *
insertions(ExplainFormat format, const char *out, const Capture *c)
{
	List	   *result = NIL;
	ListCell   *node = list_head(c->nodes);
	const char *line;

	for (line = out; line != NULL; line = next_line(line))
	{
		const char *at;
		const char *end;
		const char *why;
		const char *label;
		int			col;
		Plan	   *plan;

		if (!node_start(format, line, line == out, &at, &col))
			continue;
		if (node == NULL)
			return NIL;
		plan = (Plan *) lfirst(node);
		node = lnext(c->nodes, node);
		if ((why = gs_not_used_reason(plan)) == NULL)
			continue;
		end = format == EXPLAIN_FORMAT_TEXT ? text_end(line, col) :
			format == EXPLAIN_FORMAT_XML ? xml_end(at) :
			structured_end(line, col,
						   format == EXPLAIN_FORMAT_JSON ? "\"Plans\": [" : "Plans:");
		if (end == NULL)
			end = out + strlen(out);
		label = gs_not_used_label(plan);
		if (format == EXPLAIN_FORMAT_JSON &&
			!(indent_of(end) == col && starts(end + col, "\"Plans\"")))
		{
			/* after the node's last property, which gets a comma */
			result = lappend(result, insertion(end - out - 1, pstrdup(",")));
			result = lappend(result, insertion(end - out,
											   property(format, col, label, why, false)));
		}
		else
			result = lappend(result, insertion(end - out,
											   property(format, col, label, why, true)));
	}
	return node == NULL ? result : NIL;
}

/* adds the reasons of c's nodes to es->str's output from start on */
static void
add_reasons(ExplainState *es, int start, const Capture *c)
{
	char	   *out = pstrdup(es->str->data + start);
	List	   *ins = insertions(es->format, out, c);
	ListCell   *lc;
	int			done = 0;

	if (ins == NIL)
		return;
	es->str->len = start;
	es->str->data[start] = '\0';
	foreach(lc, ins)
	{
		Insertion  *i = lfirst(lc);

		appendBinaryStringInfo(es->str, out + done, i->offset - done);
		appendStringInfoString(es->str, i->text);
		done = i->offset;
	}
	appendStringInfoString(es->str, out + done);
}

#if GS_STANDARD_EXPLAIN_ONE_QUERY
#define explain_standard standard_ExplainOneQuery
#else
/* ExplainOneQuery's work when no plugin takes it (explain.c, 15 and 16) */
static void
explain_standard(Query *query, int cursorOptions, IntoClause *into,
				 ExplainState *es, const char *queryString,
				 ParamListInfo params, QueryEnvironment *queryEnv)
{
	PlannedStmt *plan;
	instr_time	planstart;
	instr_time	planduration;
	BufferUsage bufusage_start;
	BufferUsage bufusage;

	if (es->buffers)
		bufusage_start = pgBufferUsage;
	INSTR_TIME_SET_CURRENT(planstart);
	plan = pg_plan_query(query, queryString, cursorOptions, params);
	INSTR_TIME_SET_CURRENT(planduration);
	INSTR_TIME_SUBTRACT(planduration, planstart);
	if (es->buffers)
	{
		memset(&bufusage, 0, sizeof(BufferUsage));
		BufferUsageAccumDiff(&bufusage, &pgBufferUsage, &bufusage_start);
	}
	ExplainOnePlan(plan, into, es, queryString, params, queryEnv,
				   &planduration, (es->buffers ? &bufusage : NULL));
}
#endif

static void
explain_one_query(Query *query, int cursorOptions, IntoClause *into,
				  ExplainState *es, const char *queryString,
				  ParamListInfo params, QueryEnvironment *queryEnv)
{
	Capture		c;
	Capture    *save = capture;
	int			start = es->str->len;

	memset(&c, 0, sizeof(c));
	c.source = queryString;
	capture = &c;
	PG_TRY();
	{
		if (prev_explain_one_query)
			prev_explain_one_query(query, cursorOptions, into, es, queryString,
								   params, queryEnv);
		else
			explain_standard(query, cursorOptions, into, es, queryString,
							 params, queryEnv);
	}
	PG_FINALLY();
	{
		capture = save;
	}
	PG_END_TRY();
	if (c.done && c.any)
		add_reasons(es, start, &c);
}

void
gs_explain_why_init(void)
{
	prev_explain_one_query = ExplainOneQuery_hook;
	ExplainOneQuery_hook = explain_one_query;
	prev_executor_start = ExecutorStart_hook;
	ExecutorStart_hook = explain_executor_start;
}

#endif							/* GS_EXPLAIN_PER_NODE_HOOK */
