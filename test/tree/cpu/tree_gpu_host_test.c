/*
 * tree_gpu_host_test.c
 *	  tree_reduce's GPU host side (src/tree/tree_gpu.c) with the backend's GPU
 *	  session (src/gpu/gpu_session.c), on a machine without a GPU, against a
 *	  fake of kernels/gpusort_kernels.h.
 *
 * The fake device is host memory.  Its tokenizer is xmltok.c, so its tokens
 * are right by construction and its flags can be raised on demand; its
 * contraction runs contract.h's Algorithm 3.1 on each piece and
 * gs_contract_interval on each interval, the steps the kernels run, so
 * tree_gpu.c's steps 2 and 4 see real pieces.  Streams answer "not ready"
 * to the first polls of every wait.  The cases:
 *	 - documents, and batches of documents, of random forests under every
 *	   op, against contract.c's sequential reduction of xmltok.c's tokens
 *	   (integer weights: the results must be equal, not close);
 *	 - the CPU tokenizer taking over (a count flag, a late emit flag), and
 *	   malformed input handed back to the CPU with an empty reason;
 *	 - every fake CUDA call failing in turn: a reason, or the right result;
 *	 - a cancel at each poll of the waits: the ERROR comes through, the
 *	   stream is idle, the pinned buffer is back in the pool, and the next
 *	   call works;
 *	 - the session: the cap at 0, a failed start remembered, a failed
 *	   stream creation not remembered (in child processes: a start is for
 *	   the process's life).
 * After every call the pinned buffer must be back in the pool, given back
 * only once the device was done with it, and the stream idle.
 *
 * The fake runtime is test/common/fake_cuda.c, the backend shim
 * test/common/pg_shim.c; this file adds the tokenizer's and the
 * contraction's kernels, which only tree_gpu.c calls.  Built by
 * test/tree/cpu/tree_gpu_host.sh.  Exit status 1 on a failure.
 */
#include "postgres.h"

#include <setjmp.h>

#include "miscadmin.h"

#include "tree/contract.h"
#include "gpu/gpu_session.h"
#include "gpusort_kernels.h"
#include "runtime/settings.h"
#include "tree/tree_gpu.h"
#include "tree/xmltok.h"
#include "tree/xmltok_backend.h"
#include "fake_cuda.h"
#include "pg_shim.h"

#undef printf
#undef fprintf
#undef snprintf
#undef vsnprintf

#include "check.h"

/*
 * ---- xmltok_backend.c's part ------------------------------------------------
 * Not linked: here is its one function, which tree_gpu.c calls, as it is
 * there but for the interrupt polling and the memory context.
 */

static void *
grow(void *arg, void *old, size_t newsize)
{
	return repalloc_huge(old, newsize);
}

/* xmltok_backend.c's, without the interrupt polling */
void
gs_tree_tokenizer_options(GsXmlOptions *opt, int op, const char *weight_attr,
						  size_t weight_attr_len, void *cxt)
{
	gs_tree_weight_options(opt, op, weight_attr, weight_attr_len);
	opt->grow = grow;
}

/*
 * ---- the tokenizer's and the contraction's kernels on the fake device ----
 * Only tree_gpu.c calls them, so they live here, on fake_cuda.c's calls:
 * each counts, can be made to fail, keeps the stream busy and the pinned
 * host memory it writes in flight until the next wait.
 */

static uint32_t count_flags = 0;	/* raised by the next count passes */
static uint32_t emit_flags = 0;		/* raised by the next emit passes */

/* the tokens of the last count pass, for the emit pass */
static GsXmlTokens scanned;

size_t
gsk_xml_scan_temp_bytes(size_t nbytes)
{
	return nbytes / 4 + 4096;
}

size_t
gsk_xml_emit_temp_bytes(size_t ntok)
{
	return ntok + 4096;
}

/* xmltok.c over the device copy of the documents */
int
gsk_xml_scan_count(const GskXmlScan *s, void *d_temp, size_t temp_bytes,
				   GskXmlCount *h_out, void *stream)
{
	GsXmlOptions opt;
	GsXmlTokens one;
	GsXmlError	err;
	int			i;

	if (fake_enqueue("gsk_xml_scan_count"))
		return FAKE_INJECTED;
	fake_host_in_flight(h_out);
	memset(&opt, 0, sizeof(opt));
	opt.weight_attr = s->attr;
	opt.weight_attr_len = s->attr_len;
	opt.read_weight = s->read_weight;
	opt.missing_weight = s->missing_weight;
	opt.grow = grow;
	memset(&one, 0, sizeof(one));
	memset(h_out, 0, sizeof(*h_out));
	scanned.ntok = scanned.nelements = 0;
	for (i = 0; i < s->ndocs; i++)
	{
		size_t		end = i + 1 < s->ndocs ? s->d_doc_start[i + 1] : s->nbytes;

		if (gs_xml_tokenize(s->d_text + s->d_doc_start[i], end - s->d_doc_start[i],
							&opt, &one, &err) != GS_XML_OK)
		{
			h_out->flags |= GSK_XML_SYNTAX;
			break;
		}
		if (scanned.ntok + one.ntok > scanned.cap)
		{
			scanned.cap = 2 * (scanned.ntok + one.ntok);
			scanned.tok = repalloc_huge(scanned.tok, scanned.cap * sizeof(GsToken));
		}
		memcpy(scanned.tok + scanned.ntok, one.tok, one.ntok * sizeof(GsToken));
		scanned.ntok += one.ntok;
		scanned.nelements += one.nelements;
	}
	free(one.tok);
	free(one.stack);
	h_out->ntok = scanned.ntok;
	h_out->nelements = scanned.nelements;
	h_out->flags |= count_flags;
	return 0;
}

int
gsk_xml_scan_emit(const GskXmlScan *s, void *d_temp, size_t temp_bytes,
				  void *d_emit, size_t emit_bytes, double *d_tok,
				  size_t ntok, uint32_t *h_flags, void *stream)
{
	if (fake_enqueue("gsk_xml_scan_emit"))
		return FAKE_INJECTED;
	fake_host_in_flight(h_flags);
	if (ntok != scanned.ntok || emit_bytes < gsk_xml_emit_temp_bytes(ntok))
		return fake_error(3, "emit: bad arguments");
	memcpy(d_tok, scanned.tok, ntok * sizeof(GsToken));
	*h_flags = emit_flags;
	return 0;
}

/*
 * Pieces of 1024 tokens (more when that would make too many), each
 * holding its 5-tuple in d_temp: the GsContracted, then A, B and C.
 */
static size_t
piece_bytes(size_t cap)
{
	return MAXALIGN(sizeof(GsContracted)) + cap * (sizeof(double) + 2 * sizeof(GsVal));
}

int
gsk_tree_plan(int op, size_t ntok, GskTreePlan *plan)
{
	if (fake_call("gsk_tree_plan"))
		return FAKE_INJECTED;
	plan->op = op;
	plan->ntok = ntok;
	plan->piece_len = 1024;
	while ((ntok + plan->piece_len - 1) / plan->piece_len > GSK_TREE_MAX_PIECES)
		plan->piece_len += 1024;
	plan->k = (int) ((ntok + plan->piece_len - 1) / plan->piece_len);
	plan->cap = plan->piece_len + 1;	/* C: every token a close, and C[0] */
	plan->temp_bytes = plan->k * piece_bytes(plan->cap);
	return 0;
}

static GsContracted *
piece(const GskTreePlan *plan, void *d_temp, int i)
{
	char	   *base = (char *) d_temp + i * piece_bytes(plan->cap);
	GsContracted *t = (GsContracted *) base;

	t->a = (double *) (base + MAXALIGN(sizeof(GsContracted)));
	t->b = (GsVal *) (t->a + plan->cap);
	t->c = t->b + plan->cap;
	t->cap_a = t->cap_c = plan->cap;
	return t;
}

int
gsk_tree_local(const GskTreePlan *plan, const double *d_tok, void *d_temp,
			   size_t temp_bytes, uint64_t *h_na, uint64_t *h_nc,
			   double *h_ctop, void *stream)
{
	int			i;

	if (fake_enqueue("gsk_tree_local"))
		return FAKE_INJECTED;
	fake_host_in_flight(h_na);
	fake_host_in_flight(h_nc);
	fake_host_in_flight(h_ctop);
	if (temp_bytes < plan->temp_bytes)
		return fake_error(3, "local: temp too small");
	for (i = 0; i < plan->k; i++)
	{
		GsContracted *t = piece(plan, d_temp, i);
		size_t		from = i * plan->piece_len;

		gs_contracted_init(plan->op, t);
		if (!gs_contract_tokens(plan->op, d_tok + from,
								Min(plan->piece_len, plan->ntok - from), t))
			return fake_error(3, "local: piece overflow");
		h_na[i] = t->na;
		h_nc[i] = t->nc;
		h_ctop[2 * i] = t->c[t->nc - 1].m;
		h_ctop[2 * i + 1] = t->c[t->nc - 1].s;
	}
	return 0;
}

int
gsk_tree_intervals(const GskTreePlan *plan, void *d_temp, size_t temp_bytes,
				   struct GsInterval *iv, long niv, void *stream)
{
	GsContracted *t;
	long		j;
	int			i;

	if (fake_enqueue("gsk_tree_intervals"))
		return FAKE_INJECTED;
	fake_host_in_flight(iv);
	/* gs_contract_interval wants the pieces side by side */
	t = palloc(plan->k * sizeof(GsContracted));
	for (i = 0; i < plan->k; i++)
		t[i] = *piece(plan, d_temp, i);
	for (j = 0; j < niv; j++)
		gs_contract_interval(plan->op, t, &iv[j]);
	pfree(t);
	return 0;
}

/* ---- documents ----------------------------------------------------------- */

typedef struct Buf
{
	char	   *p;
	size_t		len;
	size_t		cap;
} Buf;

static void
put(Buf *b, const char *s, size_t n)
{
	if (b->len + n > b->cap)
	{
		b->cap = Max(2 * b->cap, b->len + n + 4096);
		b->p = repalloc_huge(b->p, b->cap);
	}
	memcpy(b->p + b->len, s, n);
	b->len += n;
}

static void
puts_buf(Buf *b, const char *s)
{
	put(b, s, strlen(s));
}

/*
 * A random forest of about nelem elements, some with a weight w in
 * [-9, 9], some without; depth up to max_depth (deep chains make pieces
 * whose unmatched tags meet far away); text of text_len bytes here and
 * there.
 */
static void
random_doc(Buf *b, int nelem, int max_depth, int text_len)
{
	int			depth = 0;
	int			i;
	char		tag[64];

	b->len = 0;
	for (i = 0; i < nelem; i++)
	{
		while (depth > 0 && (depth >= max_depth || rnd() % 3 == 0))
		{
			puts_buf(b, "</e>");
			depth--;
		}
		if (rnd() % 4 == 0)
			snprintf(tag, sizeof(tag), "<e>");
		else
			snprintf(tag, sizeof(tag), "<e w=\"%d\">", (int) (rnd() % 19) - 9);
		puts_buf(b, tag);
		depth++;
		if (text_len > 0 && rnd() % 4 == 0)
		{
			int			k;

			for (k = 0; k < text_len; k++)
				put(b, "abcdefgh" + k % 8, 1);
		}
	}
	while (depth-- > 0)
		puts_buf(b, "</e>");
}

/* what xmltok.c and the sequential contraction make of docs, (+)-ed */
static bool
reference(int op, const char *bytes, const uint64 *starts, int ndocs, size_t len,
		  GsVal *result, size_t *nelements)
{
	GsXmlOptions opt;
	GsXmlTokens toks;
	GsXmlError	err;
	int			i;
	bool		ok = true;

	memset(&toks, 0, sizeof(toks));
	gs_tree_tokenizer_options(&opt, op, "w", 1, NULL);
	*result = gs_op_identity(op);
	*nelements = 0;
	for (i = 0; i < ndocs && ok; i++)
	{
		size_t		end = i + 1 < ndocs ? starts[i + 1] : len;
		void	   *work;
		GsVal		v;

		if (gs_xml_tokenize(bytes + starts[i], end - starts[i], &opt, &toks, &err) != GS_XML_OK)
		{
			ok = false;
			break;
		}
		if (toks.nelements == 0)
			continue;
		work = palloc(gs_seq_workspace(toks.ntok, toks.max_depth));
		if (gs_tree_reduce_seq(op, toks.tok, toks.ntok, toks.max_depth, work,
							   NULL, &v) != GS_TREE_OK)
			ok = false;
		pfree(work);
		*result = gs_op_add(op, *result, v);
		*nelements += toks.nelements;
	}
	free(toks.tok);
	free(toks.stack);
	return ok;
}

typedef struct Outcome
{
	bool		thrown;			/* an ERROR came through */
	bool		ok;
	char		why[256];
} Outcome;

/*
 * Reduces the batch (one document: gs_tree_reduce_gpu) and checks the
 * invariants of every call: the stream idle, the pinned buffer back in
 * the pool, and a result, when there is one, equal to the reference.
 */
static Outcome
reduce_case(const char *what, GsTreeBatch *batch, int op)
{
	Outcome		out;
	sigjmp_buf	jb;
	GsVal		v,
				ref;
	size_t		nel = 0,
				ref_nel;
	bool		ref_ok;
	uint64		start = 0;
	const char *doc;
	size_t		len;
	char		reason[128];
	long		live;
	void	   *probe;

	memset(&out, 0, sizeof(out));
	fake_unsafe_puts = 0;
	checks++;
	if (gs_tree_batch_ndocs(batch) == 1)
	{
		gs_tree_batch_doc(batch, 0, &doc, &len);
		ref_ok = reference(op, doc, &start, 1, len, &ref, &ref_nel);
	}
	else
	{
		uint64	   *starts = palloc(sizeof(uint64) * (gs_tree_batch_ndocs(batch) + 1));
		int			i;
		const char *first;

		gs_tree_batch_doc(batch, 0, &first, &len);
		for (i = 0; i < gs_tree_batch_ndocs(batch); i++)
		{
			gs_tree_batch_doc(batch, i, &doc, &len);
			starts[i] = doc - first;
		}
		ref_ok = reference(op, first, starts, gs_tree_batch_ndocs(batch),
						   gs_tree_batch_bytes(batch), &ref, &ref_nel);
		pfree(starts);
	}

	if (sigsetjmp(jb, 0) == 0)
	{
		PG_exception_stack = &jb;
		if (gs_tree_batch_ndocs(batch) == 1)
		{
			gs_tree_batch_doc(batch, 0, &doc, &len);
			out.ok = gs_tree_reduce_gpu(doc, len, op, "w", 1, &v, &nel,
										out.why, sizeof(out.why));
		}
		else
			out.ok = gs_tree_batch_flush(batch, &v, &nel, out.why, sizeof(out.why));
	}
	else
		out.thrown = true;
	PG_exception_stack = NULL;

	if (fake_stream_busy)
		fail(what, "work left on the stream");
	if (fake_unsafe_puts > 0)
		fail(what, "the pinned buffer went back to the pool while the device used it");
	/*
	 * The call's pinned buffer (the two 8 MB staging halves and more) must
	 * be free again: nothing else here holds one that large, so the pool
	 * lends it without pinning a new one.
	 */
	if (fake_host_live > 0)
	{
		live = fake_host_live;
		probe = gs_pinned_get(16 * 1024 * 1024, reason, sizeof(reason));
		if (probe == NULL || fake_host_live != live)
			fail(what, "the pinned buffer was not given back");
		gs_pinned_put(probe);
	}

	if (out.ok && !ref_ok)
		fail(what, "a result for malformed input");
	else if (out.ok && (nel != ref_nel ||
						(ref_nel > 0 && (v.m != ref.m || v.s != ref.s))))
	{
		char		d[256];

		snprintf(d, sizeof(d), "got %.17g/%.17g (%zu elements), expected %.17g/%.17g (%zu)",
				 v.m, v.s, nel, ref.m, ref.s, ref_nel);
		fail(what, d);
	}
	else if (!out.ok && !out.thrown && !ref_ok && out.why[0] != '\0')
		fail(what, "malformed input with a reason (the CPU must report it)");
	return out;
}

static GsTreeBatch *
one_doc(const Buf *b, int op)
{
	GsTreeBatch *batch = gs_tree_batch_create(NULL, op, "w");

	gs_tree_batch_add(batch, b->p, b->len);
	return batch;
}

static void
expect_ok(const char *what, Outcome o)
{
	if (!o.ok || o.thrown)
	{
		char		d[300];

		snprintf(d, sizeof(d), "declined: \"%s\"%s", o.why, o.thrown ? " (thrown)" : "");
		fail(what, d);
	}
}

/* ---- session cases, each in a fresh process ------------------------------ */

static Buf small;

static int
failed_start_case(void)
{
	GsTreeBatch *batch = one_doc(&small, GS_OP_SUM);
	Outcome		o;

	fake_ncalls = 0;
	fake_fail_at = 1;				/* gsk_init */
	o = reduce_case("failed start", batch, GS_OP_SUM);
	fake_fail_at = -1;
	if (o.ok || strcmp(o.why, "no usable GPU: gsk_init: injected failure") != 0)
		fail("failed start", o.why);
	o = reduce_case("after a failed start", batch, GS_OP_SUM);
	if (o.ok || strstr(o.why, "no usable GPU") == NULL || fake_ninits != 1)
		fail("after a failed start", "the start was tried again");
	return failures;
}

static int
failed_stream_case(void)
{
	GsTreeBatch *batch = one_doc(&small, GS_OP_SUM);
	Outcome		o;

	fake_ncalls = 0;
	fake_fail_at = 2;				/* gsk_init, gsk_stream_create */
	o = reduce_case("failed stream", batch, GS_OP_SUM);
	fake_fail_at = -1;
	if (o.ok || strcmp(o.why, "cannot create a CUDA stream: gsk_stream_create: injected failure") != 0)
		fail("failed stream", o.why);
	o = reduce_case("after a failed stream", batch, GS_OP_SUM);
	expect_ok("after a failed stream", o);
	return failures;
}

/* ---- main ---------------------------------------------------------------- */

int
main(int argc, char **argv)
{
	Buf			b = {0},
				big = {0};
	GsTreeBatch *batch;
	Outcome		o;
	char		what[160];
	int			op,
				i;
	long		total_calls,
				total_polls,
				k;

	rnd_seed(0x2545f4914f6cdd1dULL);
	pg_shim_datadir_create("gs_tree_gpu_host");
	random_doc(&small, 3000, 40, 0);

	in_child("a failed start is remembered", failed_start_case);
	in_child("a failed stream creation is not", failed_stream_case);

	/* the cap at 0; then under auto a small document stays on the CPU */
	gpusort_max_gpu_sessions = 0;
	batch = one_doc(&small, GS_OP_SUM);
	o = reduce_case("cap 0", batch, GS_OP_SUM);
	if (o.ok || strcmp(o.why, "gpusort.max_gpu_sessions = 0") != 0)
		fail("cap 0", o.why);
	gpusort_max_gpu_sessions = 8;
	gpusort_device = GS_DEVICE_AUTO;
	o = reduce_case("auto, small", batch, GS_OP_SUM);
	if (o.ok || strcmp(o.why, "document too small for the GPU") != 0)
		fail("auto, small", o.why);
	gpusort_device = GS_DEVICE_GPU;

	/* every op, shallow and deep forests, one document */
	for (op = 0; op < GS_NUM_OPS; op++)
	{
		for (i = 0; i < 3; i++)
		{
			int			depth = i == 0 ? 3 : i == 1 ? 200 : 5000;

			random_doc(&b, 20000, depth, i == 0 ? 5 : 0);
			batch = one_doc(&b, op);
			snprintf(what, sizeof(what), "%s, depth %d", gs_op_names[op], depth);
			expect_ok(what, reduce_case(what, batch, op));
		}
	}

	/* batches: many small documents as one forest, some without elements */
	for (op = 0; op < GS_NUM_OPS; op++)
	{
		batch = gs_tree_batch_create(NULL, op, "w");
		for (i = 0; i < 300; i++)
		{
			if (i % 37 == 5)
				gs_tree_batch_add(batch, "just text", 9);
			else
			{
				random_doc(&b, 1 + rnd() % 60, 1 + rnd() % 30, 0);
				gs_tree_batch_add(batch, b.p, b.len);
			}
		}
		snprintf(what, sizeof(what), "%s, batch of 300", gs_op_names[op]);
		expect_ok(what, reduce_case(what, batch, op));
	}

	/* the CPU tokenizer takes over: a count flag, a late emit flag */
	random_doc(&b, 20000, 300, 3);
	batch = one_doc(&b, GS_OP_MAX_PATH);
	count_flags = GSK_XML_DOCTYPE;
	expect_ok("count flag", reduce_case("count flag", batch, GS_OP_MAX_PATH));
	count_flags = 0;
	emit_flags = GSK_XML_SYNTAX;
	expect_ok("emit flag", reduce_case("emit flag", batch, GS_OP_MAX_PATH));
	emit_flags = 0;

	/* malformed input goes back to the CPU, with no reason */
	{
		static const char *const bad[] = {"<a><b></a>", "<a w=\"x\"/>", "<a>", "</a>", "<a></b>"};

		for (i = 0; i < (int) lengthof(bad); i++)
		{
			batch = gs_tree_batch_create(NULL, GS_OP_SUM, "w");
			gs_tree_batch_add(batch, small.p, small.len);
			gs_tree_batch_add(batch, bad[i], strlen(bad[i]));
			snprintf(what, sizeof(what), "malformed %s", bad[i]);
			o = reduce_case(what, batch, GS_OP_SUM);
			if (o.ok || o.why[0] != '\0')
				fail(what, o.ok ? "reduced" : o.why);
		}
	}

	/* a document larger than the two staging halves */
	random_doc(&big, 40000, 100, 2400);
	if (big.len < 20 * 1024 * 1024)
		fail("large document", "smaller than 20 MB");
	batch = one_doc(&big, GS_OP_SUM);
	expect_ok("large document", reduce_case("large document", batch, GS_OP_SUM));

	/* a cancel at each poll: the ERROR comes through, then a call works */
	fake_npolls = 0;
	(void) reduce_case("count polls", batch, GS_OP_SUM);
	total_polls = fake_npolls;
	if (total_polls < 4 * fake_not_ready_polls)
		fail("large document", "fewer waits than staging, count, local, intervals");
	for (k = 1; k <= total_polls; k++)
	{
		fake_npolls = 0;
		fake_cancel_at_poll = k;
		pg_shim_cancels = 0;
		snprintf(what, sizeof(what), "cancel at poll %ld", k);
		o = reduce_case(what, batch, GS_OP_SUM);
		fake_cancel_at_poll = -1;
		if (!o.thrown || pg_shim_cancels != 1)
			fail(what, "the cancel was not served");
		expect_ok("after a cancel", reduce_case("after a cancel", one_doc(&small, GS_OP_SUM),
												GS_OP_SUM));
	}

	/* every call failing in turn: a reason, or the right result */
	random_doc(&b, 20000, 3000, 0);
	batch = one_doc(&b, GS_OP_MAX_SUBTREE);
	fake_ncalls = 0;
	(void) reduce_case("count calls", batch, GS_OP_MAX_SUBTREE);
	total_calls = fake_ncalls;
	{
		int			nfallbacks = 0;

		for (k = 1; k <= total_calls; k++)
		{
			fake_ncalls = 0;
			fake_fail_at = k;
			snprintf(what, sizeof(what), "call %ld of %ld fails", k, total_calls);
			o = reduce_case(what, batch, GS_OP_MAX_SUBTREE);
			fake_fail_at = -1;
			if (!o.ok)
			{
				nfallbacks++;
				if (o.why[0] == '\0' || o.thrown)
					fail(what, "declined without a reason");
			}
			expect_ok("after a failure", reduce_case("after a failure", batch,
													 GS_OP_MAX_SUBTREE));
		}
		printf("%ld fake CUDA calls per reduction, %d of them failing made the CPU take over\n",
			   total_calls, nfallbacks);
		if (nfallbacks == 0)
			fail("failure injection", "no failure reached tree_gpu.c");
	}

	pg_shim_datadir_remove();
	return check_report();
}
