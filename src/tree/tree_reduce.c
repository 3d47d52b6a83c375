/*-------------------------------------------------------------------------
 *
 * tree_reduce.c
 *	  SQL surface of tree_reduce(): tree reductions over the element trees
 *	  of XML documents (Koike and Sadakane).
 *
 *	  tree_reduce_doc(doc xml|text, op text, weight_attr text = 'w') float8
 *	  tree_reduce(doc xml|text, op text [, weight_attr text]) aggregate
 *
 * A document goes through the GPU path of tree_gpu.c first, unless
 * gpusort.device = cpu, and, where that declines, through xmltok.c (bytes
 * -> XML representation; its backend options in xmltok_backend.c) and
 * contract.c (sequential Algorithm 3.1, or the chunked pseudo-tree
 * contraction on gpusort.tree_threads threads for documents of at least
 * gpusort.tree_parallel_tokens tokens).  The value of a document is the (+)
 * of its trees' root values; the aggregate (+)-s the documents, skipping
 * NULLs and documents without elements, and returns NULL when nothing was
 * reduced.  Small documents of a group wait in a batch (treebatch.h) and go
 * to the GPU together.
 *
 * Memory: the aggregate's transition state is a few words in the aggregate
 * context (so hash aggregation over many groups stays small); the token
 * buffers are scratch kept per call site in fn_mcxt, reused from one
 * document to the next and given back after a large one.
 *
 * Interrupts: the tokenizer polls CHECK_FOR_INTERRUPTS() directly (it runs
 * on this thread only and holds nothing but palloc'd memory;
 * xmltok_backend.c); the contraction may run threads, so it only reports
 * that an interrupt is pending, stops its threads, and we process the
 * interrupt here and start over if it did not throw.
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include <limits.h>
#include <math.h>

#include "fmgr.h"
#include "libpq/pqformat.h"
#include "miscadmin.h"
#include "utils/builtins.h"
#include "utils/guc.h"
#include "utils/memutils.h"

#include "contract.h"
#include "runtime/settings.h"
#include "treereduce.h"
#include "xmltok.h"
#include "xmltok_backend.h"
#include "tree_gpu.h"

int			gpusort_tree_threads = 4;
static int	gpusort_tree_parallel_tokens = 1 << 20;

/* pieces of the chunked contraction per thread: evens out uneven pieces */
#define PIECES_PER_THREAD	4
/* scratch larger than this is freed after the document */
#define KEEP_TOKENS			((size_t) 1 << 18)

PG_FUNCTION_INFO_V1(tree_reduce_doc);
PG_FUNCTION_INFO_V1(tree_reduce_trans);
PG_FUNCTION_INFO_V1(tree_reduce_combine);
PG_FUNCTION_INFO_V1(tree_reduce_final);
PG_FUNCTION_INFO_V1(tree_reduce_serialize);
PG_FUNCTION_INFO_V1(tree_reduce_deserialize);

void
gpusort_tree_init(void)
{
	DefineCustomIntVariable("gpusort.tree_threads",
							"CPU threads tree_reduce may use for one large document.",
							"Documents of at least gpusort.tree_parallel_tokens tokens "
							"are cut into pieces that are contracted in parallel.",
							&gpusort_tree_threads,
							4, 1, 64,
							PGC_USERSET, 0,
							NULL, NULL, NULL);
	DefineCustomIntVariable("gpusort.tree_parallel_tokens",
							"Smallest document, in tokens (two per element), that "
							"tree_reduce contracts in pieces.",
							"Smaller documents are reduced by one sequential pass.",
							&gpusort_tree_parallel_tokens,
							1 << 20, 2, INT_MAX,
							PGC_USERSET, 0,
							NULL, NULL, NULL);
}

/* ---- per-call-site scratch ------------------------------------------------ */

typedef struct TreeScratch
{
	MemoryContext cxt;
	GsXmlTokens toks;
} TreeScratch;

static TreeScratch *
get_scratch(FunctionCallInfo fcinfo)
{
	TreeScratch *s = (TreeScratch *) fcinfo->flinfo->fn_extra;

	if (s == NULL)
	{
		s = MemoryContextAllocZero(fcinfo->flinfo->fn_mcxt, sizeof(TreeScratch));
		s->cxt = fcinfo->flinfo->fn_mcxt;
		fcinfo->flinfo->fn_extra = s;
	}
	return s;
}

static void
shrink_scratch(TreeScratch *s)
{
	if (s->toks.cap > KEEP_TOKENS)
	{
		pfree(s->toks.tok);
		s->toks.tok = NULL;
		s->toks.cap = 0;
	}
	if (s->toks.stack_cap > KEEP_TOKENS)
	{
		pfree(s->toks.stack);
		s->toks.stack = NULL;
		s->toks.stack_cap = 0;
	}
}

static bool
contraction_interrupted(void *arg)
{
	return InterruptPending && INTERRUPTS_CAN_BE_PROCESSED();
}

/* ---- arguments -------------------------------------------------------------- */

static int
op_from_text(text *t)
{
	char	   *name = text_to_cstring(t);
	int			op = gs_op_from_name(name);

	if (op < 0)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("unknown tree_reduce op \"%s\"", name),
				 errhint("Valid ops are: " GS_OP_NAME_LIST ".")));
	pfree(name);
	return op;
}

/* the weight attribute name, checked to be an XML name (in context cxt) */
static char *
weight_attr_from_text(text *t, MemoryContext cxt)
{
	char	   *name = text_to_cstring(t);
	const unsigned char *p = (const unsigned char *) name;
	bool		ok = *p != '\0';
	char	   *res;

	for (; *p && ok; p++)
	{
		bool		start = (*p >= 'A' && *p <= 'Z') || (*p >= 'a' && *p <= 'z') ||
			*p == '_' || *p == ':' || *p >= 0x80;

		ok = start || (p != (const unsigned char *) name &&
					   ((*p >= '0' && *p <= '9') || *p == '-' || *p == '.'));
	}
	if (!ok)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("invalid weight attribute name \"%s\"", name),
				 errdetail("The weight attribute must be an XML name, such as \"w\" or \"cost\".")));
	res = MemoryContextStrdup(cxt, name);
	pfree(name);
	return res;
}

static void
check_not_null(FunctionCallInfo fcinfo, int argno, const char *what)
{
	if (PG_ARGISNULL(argno))
		ereport(ERROR,
				(errcode(ERRCODE_NULL_VALUE_NOT_ALLOWED),
				 errmsg("tree_reduce %s must not be null", what)));
}

/* ---- one document ----------------------------------------------------------- */

static void
report_xml_error(int rc, const GsXmlError *err, const char *weight_attr)
{
	switch (rc)
	{
		case GS_XML_BAD_WEIGHT:
			ereport(ERROR,
					(errcode(ERRCODE_INVALID_TEXT_REPRESENTATION),
					 errmsg("invalid weight \"%s\" in attribute \"%s\" of element <%s>",
							err->value, weight_attr, err->element),
					 errdetail("Weights must be finite numbers, such as 12, -0.5 or 1e3 (byte offset %zu).",
							   err->offset)));
			break;
		case GS_XML_TOO_LARGE:
			ereport(ERROR,
					(errcode(ERRCODE_NUMERIC_VALUE_OUT_OF_RANGE),
					 errmsg("weights of the document are too large for tree_reduce"),
					 errdetail("The %s (byte offset %zu).", err->msg, err->offset)));
			break;
		case GS_XML_NOMEM:
			ereport(ERROR,
					(errcode(ERRCODE_OUT_OF_MEMORY),
					 errmsg("out of memory")));
			break;
		default:
			ereport(ERROR,
					(errcode(ERRCODE_INVALID_XML_CONTENT),
					 errmsg("malformed XML at byte offset %zu: %s",
							err->offset, err->msg)));
			break;
	}
}

/* reduce tokens on the CPU, sequentially or in pieces */
static GsVal
contract_cpu(TreeScratch *s, int op)
{
	const GsXmlTokens *toks = &s->toks;
	GsTreeEnv	env;
	GsVal		result;
	int			rc;

	env.interrupted = contraction_interrupted;
	env.arg = NULL;
	env.nthreads = gpusort_tree_threads;
	for (;;)
	{
		void	   *work;

		if (toks->ntok >= (size_t) gpusort_tree_parallel_tokens)
		{
			int			k = Min(gpusort_tree_threads * PIECES_PER_THREAD,
								(int) Max(toks->ntok / 2, 1));

			work = MemoryContextAllocHuge(CurrentMemoryContext,
										  gs_chunked_workspace(toks->ntok, k, toks->max_depth));
			rc = gs_tree_reduce_chunked(op, toks->tok, toks->ntok, k, NULL,
										toks->max_depth, work, &env, &result);
		}
		else
		{
			work = MemoryContextAllocHuge(CurrentMemoryContext,
										  gs_seq_workspace(toks->ntok, toks->max_depth));
			rc = gs_tree_reduce_seq(op, toks->tok, toks->ntok, toks->max_depth,
									work, &env, &result);
		}
		pfree(work);
		if (rc != GS_TREE_CANCELLED)
			break;
		/* every thread has stopped: safe to throw */
		CHECK_FOR_INTERRUPTS();
	}
	if (rc != GS_TREE_OK)
		elog(ERROR, "tree contraction failed on a balanced token array (code %d)", rc);
	return result;
}

/*
 * The (+) of the root values of the forest in buf[0..len).  Returns false
 * if the document has no element.
 */
static bool
reduce_document_cpu(TreeScratch *s, const char *buf, size_t len, int op,
					const char *weight_attr, GsVal *result)
{
	GsXmlOptions opt;
	GsXmlError	err;
	int			rc;

	gs_tree_tokenizer_options(&opt, op, weight_attr, strlen(weight_attr), s->cxt);

	rc = gs_xml_tokenize(buf, len, &opt, &s->toks, &err);
	if (rc != GS_XML_OK)
	{
		shrink_scratch(s);
		report_xml_error(rc, &err, weight_attr);
	}
	if (s->toks.nelements == 0)
		return false;
	*result = contract_cpu(s, op);
	shrink_scratch(s);
	return true;
}

/*
 * The GPU path's refusal: worth a WARNING when the GPU was asked for and
 * the reason is the GPU's (an empty reason means the input needs the CPU,
 * which reports any error itself).
 */
static void
gpu_declined(const char *why)
{
	if (gpusort_device == GS_DEVICE_GPU && why[0] != '\0')
		ereport(WARNING,
				(errmsg("tree_reduce ran on the CPU: %s", why)));
}

static bool
reduce_document(TreeScratch *s, const char *buf, size_t len, int op,
				const char *weight_attr, GsVal *result)
{
	if (gpusort_device != GS_DEVICE_CPU)
	{
		char		why[256];
		size_t		nelements = 0;

		why[0] = '\0';
		if (gs_tree_reduce_gpu(buf, len, op, weight_attr, strlen(weight_attr),
							   result, &nelements, why, sizeof(why)))
			return nelements > 0;
		gpu_declined(why);
	}
	return reduce_document_cpu(s, buf, len, op, weight_attr, result);
}

/* (+) of two results, refusing to return an overflowed sum */
static GsVal
combine_values(int op, GsVal x, GsVal y)
{
	GsVal		r = gs_op_add(op, x, y);

	if (op != GS_OP_MAX && op != GS_OP_MIN && isinf(r.m))
		ereport(ERROR,
				(errcode(ERRCODE_NUMERIC_VALUE_OUT_OF_RANGE),
				 errmsg("value out of range: overflow"),
				 errdetail("The tree_reduce %s of the documents exceeds the range of double precision.",
						   gs_op_names[op])));
	return r;
}

/* ---- tree_reduce_doc -------------------------------------------------------- */

/*
 * tree_reduce_doc(doc xml|text, op text, weight_attr text) float8, strict.
 * NULL for a document without elements.
 */
Datum
tree_reduce_doc(PG_FUNCTION_ARGS)
{
	text	   *doc = PG_GETARG_TEXT_PP(0);
	int			op = op_from_text(PG_GETARG_TEXT_PP(1));
	char	   *attr = weight_attr_from_text(PG_GETARG_TEXT_PP(2), CurrentMemoryContext);
	TreeScratch *s = get_scratch(fcinfo);
	GsVal		v;

	if (!reduce_document(s, VARDATA_ANY(doc), VARSIZE_ANY_EXHDR(doc), op, attr, &v))
		PG_RETURN_NULL();
	PG_RETURN_FLOAT8(gs_op_result(op, v));
}

/* ---- the aggregate ---------------------------------------------------------- */

typedef struct TreeAggState
{
	int			op;
	bool		has;			/* some document had an element */
	GsVal		acc;			/* (+) of the documents' values */
	char	   *weight_attr;
	GsTreeBatch *batch;			/* small documents waiting for one GPU launch */
} TreeAggState;

static TreeAggState *
new_state(MemoryContext cxt, int op, const char *weight_attr)
{
	TreeAggState *st = MemoryContextAllocZero(cxt, sizeof(TreeAggState));

	st->op = op;
	st->has = false;
	st->acc = gs_op_identity(op);
	st->weight_attr = MemoryContextStrdup(cxt, weight_attr);
	return st;
}

static void
check_same_args(const TreeAggState *st, int op, const char *weight_attr)
{
	if (st->op != op)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("tree_reduce op must be the same for all rows of a group"),
				 errdetail("Got \"%s\" after \"%s\".", gs_op_names[op], gs_op_names[st->op])));
	if (strcmp(st->weight_attr, weight_attr) != 0)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("tree_reduce weight attribute must be the same for all rows of a group"),
				 errdetail("Got \"%s\" after \"%s\".", weight_attr, st->weight_attr)));
}

static MemoryContext
agg_context(FunctionCallInfo fcinfo, const char *fn)
{
	MemoryContext cxt;

	if (!AggCheckCallContext(fcinfo, &cxt))
		elog(ERROR, "%s called in non-aggregate context", fn);
	return cxt;
}

/*
 * Reduce the documents batched in st as one forest on the GPU, or one by
 * one on the CPU if the GPU declines.
 */
static void
flush_batch(FunctionCallInfo fcinfo, TreeAggState *st)
{
	GsVal		v;
	size_t		nelements = 0;
	char		why[256];
	int			i;

	if (st->batch == NULL || gs_tree_batch_ndocs(st->batch) == 0)
		return;
	why[0] = '\0';
	if (gs_tree_batch_flush(st->batch, &v, &nelements, why, sizeof(why)))
	{
		if (nelements > 0)
		{
			st->acc = combine_values(st->op, st->acc, v);
			st->has = true;
		}
	}
	else
	{
		gpu_declined(why);
		for (i = 0; i < gs_tree_batch_ndocs(st->batch); i++)
		{
			const char *doc;
			size_t		len;

			gs_tree_batch_doc(st->batch, i, &doc, &len);
			if (reduce_document_cpu(get_scratch(fcinfo), doc, len, st->op,
									st->weight_attr, &v))
			{
				st->acc = combine_values(st->op, st->acc, v);
				st->has = true;
			}
		}
	}
	gs_tree_batch_reset(st->batch);
}

/* tree_reduce_trans(state, doc, op [, weight_attr]) */
Datum
tree_reduce_trans(PG_FUNCTION_ARGS)
{
	MemoryContext aggcxt = agg_context(fcinfo, "tree_reduce_trans");
	TreeAggState *st = PG_ARGISNULL(0) ? NULL : (TreeAggState *) PG_GETARG_POINTER(0);
	int			op;
	char	   *attr;
	text	   *doc;
	GsVal		v;

	check_not_null(fcinfo, 2, "op");
	op = op_from_text(PG_GETARG_TEXT_PP(2));
	if (PG_NARGS() > 3)
	{
		check_not_null(fcinfo, 3, "weight attribute");
		attr = weight_attr_from_text(PG_GETARG_TEXT_PP(3), CurrentMemoryContext);
	}
	else
		attr = pstrdup("w");

	if (st == NULL)
		st = new_state(aggcxt, op, attr);
	else
		check_same_args(st, op, attr);

	if (PG_ARGISNULL(1))
		PG_RETURN_POINTER(st);
	doc = PG_GETARG_TEXT_PP(1);

	/*
	 * Small documents wait in a batch and go to the GPU together, as one
	 * forest: one launch per GS_TREE_BATCH_BYTES, not one per row.
	 */
	if (gpusort_device != GS_DEVICE_CPU && gs_tree_gpu_batches() &&
		VARSIZE_ANY_EXHDR(doc) < GS_TREE_GPU_MIN_BYTES)
	{
		if (st->batch == NULL)
			st->batch = gs_tree_batch_create(aggcxt, op, attr);
		if (!gs_tree_batch_add(st->batch, VARDATA_ANY(doc), VARSIZE_ANY_EXHDR(doc)))
		{
			flush_batch(fcinfo, st);
			(void) gs_tree_batch_add(st->batch, VARDATA_ANY(doc),
									 VARSIZE_ANY_EXHDR(doc));
		}
		pfree(attr);
		PG_RETURN_POINTER(st);
	}
	if (reduce_document(get_scratch(fcinfo), VARDATA_ANY(doc), VARSIZE_ANY_EXHDR(doc),
						op, attr, &v))
	{
		st->acc = combine_values(op, st->acc, v);
		st->has = true;
	}
	pfree(attr);
	PG_RETURN_POINTER(st);
}

Datum
tree_reduce_combine(PG_FUNCTION_ARGS)
{
	MemoryContext aggcxt = agg_context(fcinfo, "tree_reduce_combine");
	TreeAggState *a = PG_ARGISNULL(0) ? NULL : (TreeAggState *) PG_GETARG_POINTER(0);
	TreeAggState *b = PG_ARGISNULL(1) ? NULL : (TreeAggState *) PG_GETARG_POINTER(1);

	if (a)
		flush_batch(fcinfo, a);
	if (b)
		flush_batch(fcinfo, b);
	if (b == NULL)
	{
		if (a == NULL)
			PG_RETURN_NULL();
		PG_RETURN_POINTER(a);
	}
	if (a == NULL)
	{
		a = new_state(aggcxt, b->op, b->weight_attr);
		a->has = b->has;
		a->acc = b->acc;
		PG_RETURN_POINTER(a);
	}
	check_same_args(a, b->op, b->weight_attr);
	if (b->has)
	{
		a->acc = a->has ? combine_values(a->op, a->acc, b->acc) : b->acc;
		a->has = true;
	}
	PG_RETURN_POINTER(a);
}

Datum
tree_reduce_final(PG_FUNCTION_ARGS)
{
	TreeAggState *st;

	agg_context(fcinfo, "tree_reduce_final");
	st = PG_ARGISNULL(0) ? NULL : (TreeAggState *) PG_GETARG_POINTER(0);
	/* flushing twice is harmless: the batch is empty the second time */
	if (st)
		flush_batch(fcinfo, st);
	if (st == NULL || !st->has)
		PG_RETURN_NULL();
	PG_RETURN_FLOAT8(gs_op_result(st->op, st->acc));
}

Datum
tree_reduce_serialize(PG_FUNCTION_ARGS)
{
	TreeAggState *st;
	StringInfoData buf;

	agg_context(fcinfo, "tree_reduce_serialize");
	st = (TreeAggState *) PG_GETARG_POINTER(0);
	flush_batch(fcinfo, st);
	pq_begintypsend(&buf);
	pq_sendint32(&buf, st->op);
	pq_sendbyte(&buf, st->has ? 1 : 0);
	pq_sendfloat8(&buf, st->acc.m);
	pq_sendfloat8(&buf, st->acc.s);
	pq_sendstring(&buf, st->weight_attr);
	PG_RETURN_BYTEA_P(pq_endtypsend(&buf));
}

Datum
tree_reduce_deserialize(PG_FUNCTION_ARGS)
{
	bytea	   *sstate;
	StringInfoData buf;
	TreeAggState *st;
	int			op;
	bool		has;
	GsVal		acc;
	const char *attr;

	agg_context(fcinfo, "tree_reduce_deserialize");
	sstate = PG_GETARG_BYTEA_PP(0);
	initStringInfo(&buf);
	appendBinaryStringInfo(&buf, VARDATA_ANY(sstate), VARSIZE_ANY_EXHDR(sstate));
	op = pq_getmsgint(&buf, 4);
	has = pq_getmsgbyte(&buf) != 0;
	acc.m = pq_getmsgfloat8(&buf);
	acc.s = pq_getmsgfloat8(&buf);
	attr = pq_getmsgstring(&buf);
	pq_getmsgend(&buf);
	if (op < 0 || op >= GS_NUM_OPS)
		elog(ERROR, "invalid tree_reduce state (op %d)", op);
	st = new_state(CurrentMemoryContext, op, attr);
	st->has = has;
	st->acc = acc;
	pfree(buf.data);
	PG_RETURN_POINTER(st);
}
