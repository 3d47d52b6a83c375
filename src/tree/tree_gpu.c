/*-------------------------------------------------------------------------
 *
 * tree_gpu.c
 *	  tree_reduce on the GPU: the host side of kernels/tree/xml_scan.cu and
 *	  kernels/tree/tree_contract.cu.
 *
 * One document, or a batch of documents back to back (one aggregate group,
 * reduced as one forest), goes through:
 *
 *	1. the bytes are staged through a pinned buffer to the device, in
 *	   chunks, copying chunk i while chunk i+1 is memcpy'd;
 *	2. the GPU tokenizer's count pass; if it raises a flag (a DOCTYPE, a
 *	   weight outside its exact fast path, anything it cannot prove
 *	   xmltok.c accepts), the documents are tokenized by xmltok.c on the
 *	   CPU instead and the tokens copied up: the CPU tokenizer is the
 *	   fallback and the oracle, and it alone reports input errors;
 *	3. the emit pass writes the tokens on the device, and step 1 of the
 *	   contraction (local contraction of k pseudo-trees) runs right after it
 *	   on the same stream;
 *	4. steps 2 and 4 (contract.c's gs_match_parentheses and
 *	   gs_contract_global, O(k)) run here, step 3 on the device between
 *	   them.
 *
 * Host rules, as for the sort engine: CUDA is started lazily, through the
 * backend's GPU session (gpu_session.c), which owns the context, the
 * session cap (gpusort.max_gpu_sessions) and the remembered start failure;
 * the waits poll the stream and serve interrupts, after letting the GPU
 * finish what was enqueued, so a cancel never leaves work writing into
 * buffers that the next call reuses; the pinned staging buffer is lent by
 * the session's pool for the call and given back when the stream is idle,
 * also on an ERROR; the stream and the device arenas are kept per backend
 * and reused, large arenas given back after the call; every GPU failure is
 * returned as a reason, never thrown, and the caller reduces on the CPU.
 * Only interrupts and out-of-memory in palloc throw.
 *
 * Built without CUDA (GPUSORT_NO_CUDA) every entry says so, and the
 * aggregate does not batch (gs_tree_gpu_batches).
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "miscadmin.h"
#include "utils/memutils.h"

#include "contract.h"
#include "runtime/settings.h"
#include "tree_gpu.h"
#include "xmltok.h"
#include "xmltok_backend.h"

#ifndef GPUSORT_NO_CUDA
#include "gpu/gpu_session.h"
#include "gpusort_kernels.h"
#endif

#ifdef GPUSORT_NO_CUDA

bool
gs_tree_reduce_gpu(const char *doc, size_t len, int op,
				   const char *weight_attr, size_t weight_attr_len,
				   GsVal *result, size_t *nelements, char *why, size_t whylen)
{
	strlcpy(why, "built without CUDA", whylen);
	return false;
}

bool
gs_tree_batch_flush(GsTreeBatch *b, GsVal *result, size_t *nelements,
					char *why, size_t whylen)
{
	strlcpy(why, "built without CUDA", whylen);
	return false;
}

bool
gs_tree_gpu_batches(void)
{
	return false;
}

#else							/* !GPUSORT_NO_CUDA */

/* pinned staging of the bytes: two halves of this size */
#define STAGE_CHUNK			((size_t) 8 * 1024 * 1024)
/* device arenas larger than this are given back after the call */
#define KEEP_DEVICE_BYTES	((size_t) 512 * 1024 * 1024)

typedef enum RunResult
{
	RUN_OK,
	RUN_GPU_FAILED,				/* why says what failed */
	RUN_INPUT					/* the input needs the CPU (to report an error) */
} RunResult;

typedef struct DevBuf
{
	void	   *p;
	size_t		size;
} DevBuf;

/* pinned scratch for what comes back from the device */
typedef struct HostArea
{
	GskXmlCount count;
	uint32_t	emit_flags;
	uint64_t	na[GSK_TREE_MAX_PIECES];
	uint64_t	nc[GSK_TREE_MAX_PIECES];
	double		ctop[2 * GSK_TREE_MAX_PIECES];
	GsInterval	iv[2 * GSK_TREE_MAX_PIECES];
} HostArea;

/* the pinned buffer of a call: the HostArea, then the two halves */
#define STAGE_OFFSET		TYPEALIGN(4096, sizeof(HostArea))
#define PINNED_BYTES		(STAGE_OFFSET + 2 * STAGE_CHUNK)

static void *stream;			/* the backend's, created on first use */

/* in the pinned buffer lent for the current call; NULL between calls */
static HostArea *host;
static char *stage;				/* 2 * STAGE_CHUNK */
static DevBuf dev_in;			/* bytes, document starts, scan scratch */
static DevBuf dev_work;			/* tokens, emit / contraction scratch */

/*
 * Make this backend ready for GPU work: the session (CUDA, the slot) and
 * the stream this file enqueues everything on.
 */
static bool
tree_gpu_start(char *why, size_t whylen)
{
	int			rc;

	if (!gs_gpu_session_start(why, whylen))
		return false;
	if (stream == NULL && (rc = gsk_stream_create(&stream)) != 0)
	{
		gs_gpu_reason(why, whylen, "cannot create a CUDA stream", rc);
		stream = NULL;
		return false;
	}
	return true;
}

/*
 * Wait for everything enqueued.  An interrupt is served only once the GPU
 * has finished, so that nothing is still writing into our buffers when
 * CHECK_FOR_INTERRUPTS throws.
 */
static int
wait_gpu(void)
{
	int			spins = 0;

	for (;;)
	{
		int			rc = gsk_stream_query(stream);

		if (rc != GSK_NOT_READY)
			return rc;
		if (InterruptPending)
		{
			(void) gsk_stream_sync(stream);
			CHECK_FOR_INTERRUPTS();
		}
		if (++spins > 200)
			pg_usleep(20);
	}
}

static bool
dev_reserve(DevBuf *b, size_t need, char *why, size_t whylen)
{
	int			rc;

	if (b->size >= need)
		return true;
	if (b->p)
		gsk_device_free(b->p);
	b->p = NULL;
	b->size = 0;
	need = TYPEALIGN(1024 * 1024, need + need / 8);
	if ((rc = gsk_device_alloc(&b->p, need)) != 0)
	{
		b->p = NULL;
		gs_gpu_reason(why, whylen, "cannot allocate device memory", rc);
		return false;
	}
	b->size = need;
	return true;
}

static void
dev_trim(DevBuf *b)
{
	if (b->size > KEEP_DEVICE_BYTES)
	{
		gsk_device_free(b->p);
		b->p = NULL;
		b->size = 0;
	}
}

/* copy len bytes to the device through the two pinned halves */
static int
stage_to_device(char *dst, const char *src, size_t len)
{
	size_t		off;
	int			half = 0;
	int			rc;

	for (off = 0; off < len; off += STAGE_CHUNK, half ^= 1)
	{
		size_t		n = Min(STAGE_CHUNK, len - off);
		char	   *h = stage + half * STAGE_CHUNK;

		/* the copy that last used this half was enqueued two chunks ago */
		if (off >= 2 * STAGE_CHUNK && (rc = wait_gpu()) != 0)
			return rc;
		memcpy(h, src + off, n);
		if ((rc = gsk_copy_h2d_async(dst + off, h, n, stream)) != 0)
			return rc;
		if (InterruptPending)
		{
			/* never leave a copy reading the staging buffer behind */
			(void) gsk_stream_sync(stream);
			CHECK_FOR_INTERRUPTS();
		}
	}
	return 0;
}

/*
 * xmltok.c's tokens for the documents, back to back, in *tok (palloc'd):
 * the fallback of the GPU tokenizer.  False if a document is not accepted.
 */
static bool
cpu_tokens(const char *bytes, size_t len, const uint64 *starts, int ndocs,
		   int op, const char *attr, size_t attrlen,
		   GsToken **tok, size_t *ntok, size_t *nelements)
{
	GsXmlOptions opt;
	GsXmlTokens toks;
	GsXmlError	err;
	GsToken    *all = NULL;
	size_t		n = 0,
				cap = 0;
	int			i;

	memset(&toks, 0, sizeof(toks));
	gs_tree_tokenizer_options(&opt, op, attr, attrlen, CurrentMemoryContext);
	*nelements = 0;

	for (i = 0; i < ndocs; i++)
	{
		size_t		end = i + 1 < ndocs ? starts[i + 1] : len;

		if (gs_xml_tokenize(bytes + starts[i], end - starts[i], &opt, &toks,
							&err) != GS_XML_OK)
		{
			if (toks.tok)
				pfree(toks.tok);
			if (toks.stack)
				pfree(toks.stack);
			if (all)
				pfree(all);
			return false;
		}
		if (ndocs == 1)
		{
			all = toks.tok;
			n = toks.ntok;
			toks.tok = NULL;
		}
		else if (toks.ntok > 0)
		{
			if (n + toks.ntok > cap)
			{
				cap = Max(cap * 2, n + toks.ntok);
				all = all ? repalloc_huge(all, cap * sizeof(GsToken)) :
					MemoryContextAllocHuge(CurrentMemoryContext, cap * sizeof(GsToken));
			}
			memcpy(all + n, toks.tok, toks.ntok * sizeof(GsToken));
			n += toks.ntok;
		}
		*nelements += toks.nelements;
	}
	if (toks.tok)
		pfree(toks.tok);
	if (toks.stack)
		pfree(toks.stack);
	*tok = all;
	*ntok = n;
	return true;
}

/*
 * Steps 1 to 4 of the contraction over the ntok tokens at d_tok, with
 * scratch after them.  Step 1 is enqueued behind whatever the stream
 * holds (the emit pass), and still_ok, if given, is asked once that has all
 * finished: false means the tokens are not to be trusted (RUN_INPUT).
 */
static RunResult
contract(int op, const GskTreePlan *plan, double *d_tok, char *d_scratch,
		 size_t scratch_bytes, bool (*still_ok) (void), GsVal *result,
		 char *why, size_t whylen)
{
	GsContracted *t;
	GsOpenRun  *stack;
	GsVal	   *cv;
	RunResult	res = RUN_OK;
	long		niv;
	int			rc;
	int			i;

	if ((rc = gsk_tree_local(plan, d_tok, d_scratch, scratch_bytes, host->na,
							 host->nc, host->ctop, stream)) != 0 ||
		(rc = wait_gpu()) != 0)
	{
		gs_gpu_reason(why, whylen, "GPU tree contraction failed", rc);
		return RUN_GPU_FAILED;
	}
	if (still_ok && !still_ok())
		return RUN_INPUT;

	/* step 2: the pieces' unmatched tags, from NA and NC alone */
	t = palloc0(plan->k * sizeof(GsContracted));
	stack = palloc(plan->k * sizeof(GsOpenRun));
	cv = palloc(plan->k * sizeof(GsVal));
	for (i = 0; i < plan->k; i++)
	{
		cv[i] = gs_val(host->ctop[2 * i], host->ctop[2 * i + 1]);
		t[i].na = host->na[i];
		t[i].nc = host->nc[i];
		t[i].c = &cv[i];
	}
	niv = gs_match_parentheses(t, plan->k, host->iv, stack);
	if (niv < 0)
		res = RUN_INPUT;		/* unbalanced: not a forest */

	/* step 3 on the device */
	else if ((rc = gsk_tree_intervals(plan, d_scratch, scratch_bytes, host->iv,
									  niv, stream)) != 0 ||
			 (rc = wait_gpu()) != 0)
	{
		gs_gpu_reason(why, whylen, "GPU tree contraction failed", rc);
		res = RUN_GPU_FAILED;
	}
	else
	{
		/*
		 * Step 4.  gs_contract_global reads only C[NC-1] of each piece,
		 * which cv[i] holds: present it as a one-entry C.
		 */
		for (i = 0; i < plan->k; i++)
			t[i].nc = 1;
		if (gs_contract_global(op, t, plan->k, host->iv, niv, stack, result) != GS_TREE_OK)
			res = RUN_INPUT;
	}
	pfree(t);
	pfree(stack);
	pfree(cv);
	return res;
}

static bool
emit_flags_clear(void)
{
	return host->emit_flags == 0;
}

/*
 * The GPU tokenizer's count pass; *usable says whether its tokens can be
 * trusted (else the CPU's tokenizer judges the input)
 */
static bool
count_on_gpu(GskXmlScan *s, size_t off_scan, size_t scan_bytes, bool *usable,
			 char *why, size_t whylen)
{
	int			rc;

	if ((rc = gsk_xml_scan_count(s, (char *) dev_in.p + off_scan, scan_bytes,
								 &host->count, stream)) != 0 ||
		(rc = wait_gpu()) != 0)
	{
		gs_gpu_reason(why, whylen, "GPU tokenizer failed", rc);
		return false;
	}
	*usable = host->count.flags == 0 && (host->count.final_map & 15) == 0 &&
		2 * host->count.nelements == host->count.ntok;
	return true;
}

/* the documents' bytes, then their starts at off_starts, to dev_in */
static bool
stage_documents(const char *bytes, size_t len, const uint64 *starts, int ndocs,
				size_t off_starts, size_t need, char *why, size_t whylen)
{
	int			rc;

	if (!dev_reserve(&dev_in, need, why, whylen))
		return false;
	if ((rc = stage_to_device(dev_in.p, bytes, len)) != 0 ||
		(rc = gsk_copy_h2d_async((char *) dev_in.p + off_starts, starts,
								 ndocs * sizeof(uint64), stream)) != 0)
	{
		gs_gpu_reason(why, whylen, "copying the document to the GPU failed", rc);
		return false;
	}
	return true;
}

/*
 * The documents tokenized on the CPU, then contracted on the GPU: the path
 * of a document the GPU's tokenizer passed on to the CPU's
 */
static RunResult
contract_cpu_tokens(const char *bytes, size_t len, const uint64 *starts,
					int ndocs, int op, const char *attr, size_t attrlen,
					GsVal *result, size_t *nelements, char *why, size_t whylen)
{
	GsToken    *cpu_tok = NULL;
	GskTreePlan plan;
	size_t		ntok,
				tok_bytes,
				work_bytes;
	RunResult	res;
	int			rc;

	if (!cpu_tokens(bytes, len, starts, ndocs, op, attr, attrlen,
					&cpu_tok, &ntok, nelements))
		return RUN_INPUT;
	*result = gs_op_identity(op);
	if (ntok == 0)
	{
		pfree(cpu_tok);
		return RUN_OK;
	}
	if ((rc = gsk_tree_plan(op, ntok, &plan)) != 0)
	{
		gs_gpu_reason(why, whylen, "planning the GPU tree contraction failed", rc);
		return RUN_GPU_FAILED;
	}
	tok_bytes = TYPEALIGN(256, ntok * sizeof(GsToken));
	work_bytes = plan.temp_bytes;
	if (!dev_reserve(&dev_work, tok_bytes + work_bytes, why, whylen))
		return RUN_GPU_FAILED;
	if ((rc = gsk_copy_h2d_async(dev_work.p, cpu_tok, ntok * sizeof(GsToken),
								 stream)) != 0)
	{
		gs_gpu_reason(why, whylen, "copying tokens to the GPU failed", rc);
		return RUN_GPU_FAILED;
	}
	res = contract(op, &plan, dev_work.p, (char *) dev_work.p + tok_bytes,
				   work_bytes, NULL, result, why, whylen);
	pfree(cpu_tok);
	return res;
}

/*
 * Reduce the documents bytes[starts[i] .. starts[i+1]) (the last one to
 * len) as one forest.
 */
static RunResult
run_forest(const char *bytes, size_t len, const uint64 *starts, int ndocs,
		   int op, const char *attr, size_t attrlen, GsVal *result,
		   size_t *nelements, char *why, size_t whylen)
{
	GskXmlScan	s;
	GskTreePlan plan;
	size_t		off_starts,
				off_scan,
				scan_bytes,
				ntok,
				tok_bytes,
				work_bytes;
	bool		on_gpu;
	GsToken    *cpu_tok = NULL;
	RunResult	res;
	int			rc;

	*result = gs_op_identity(op);
	*nelements = 0;

	/* 1. the bytes and the document starts to the device */
	off_starts = TYPEALIGN(256, len);
	off_scan = TYPEALIGN(256, off_starts + ndocs * sizeof(uint64));
	scan_bytes = gsk_xml_scan_temp_bytes(len);
	if (!stage_documents(bytes, len, starts, ndocs, off_starts,
						 off_scan + scan_bytes, why, whylen))
		return RUN_GPU_FAILED;

	/* 2. the tokenizer's count pass */
	memset(&s, 0, sizeof(s));
	s.d_text = dev_in.p;
	s.nbytes = len;
	s.d_doc_start = (const uint64_t *) ((char *) dev_in.p + off_starts);
	s.ndocs = ndocs;
	s.read_weight = gs_op_reads_weight(op);
	s.missing_weight = gs_op_default_weight(op);
	on_gpu = attrlen <= GSK_XML_ATTR_MAX;
	if (on_gpu)
	{
		memcpy(s.attr, attr, attrlen);
		s.attr_len = (int) attrlen;
		if (!count_on_gpu(&s, off_scan, scan_bytes, &on_gpu, why, whylen))
			return RUN_GPU_FAILED;
	}
	if (on_gpu)
	{
		ntok = host->count.ntok;
		*nelements = host->count.nelements;
	}
	else
	{
		/* the CPU tokenizer: the fallback, and the judge of the input */
		if (!cpu_tokens(bytes, len, starts, ndocs, op, attr, attrlen,
						&cpu_tok, &ntok, nelements))
			return RUN_INPUT;
	}
	if (ntok == 0)
		return RUN_OK;

	/* 3. tokens on the device, then the contraction right behind them */
	if ((rc = gsk_tree_plan(op, ntok, &plan)) != 0)
	{
		gs_gpu_reason(why, whylen, "planning the GPU tree contraction failed", rc);
		return RUN_GPU_FAILED;
	}
	tok_bytes = TYPEALIGN(256, ntok * sizeof(GsToken));
	work_bytes = Max(plan.temp_bytes, on_gpu ? gsk_xml_emit_temp_bytes(ntok) : 0);
	if (!dev_reserve(&dev_work, tok_bytes + work_bytes, why, whylen))
		return RUN_GPU_FAILED;
	if (on_gpu)
		rc = gsk_xml_scan_emit(&s, (char *) dev_in.p + off_scan, scan_bytes,
							   (char *) dev_work.p + tok_bytes, work_bytes,
							   dev_work.p, ntok, &host->emit_flags, stream);
	else
		rc = gsk_copy_h2d_async(dev_work.p, cpu_tok, ntok * sizeof(GsToken), stream);
	if (rc != 0)
	{
		gs_gpu_reason(why, whylen, "GPU tokenizer failed", rc);
		return RUN_GPU_FAILED;
	}

	/* 4. the contraction */
	res = contract(op, &plan, dev_work.p, (char *) dev_work.p + tok_bytes,
				   work_bytes, on_gpu ? emit_flags_clear : NULL, result,
				   why, whylen);
	/*
	 * The scanner refused late (tag names) or produced an unbalanced array:
	 * the CPU tokenizer decides.
	 */
	if (res == RUN_INPUT && on_gpu)
		res = contract_cpu_tokens(bytes, len, starts, ndocs, op, attr, attrlen,
								  result, nelements, why, whylen);
	if (cpu_tok)
		pfree(cpu_tok);
	return res;
}

/*
 * run_forest with the pinned buffer lent for the call, and the backend's
 * buffers trimmed afterwards.  The stream is idle before the buffer goes
 * back to the pool, however the call ends: a RUN_GPU_FAILED may leave
 * copies enqueued, and an ERROR thrown meanwhile (a cancel, palloc out of
 * memory) would otherwise leave the buffer lent for the backend's life.
 */
static RunResult
run_and_trim(const char *bytes, size_t len, const uint64 *starts, int ndocs,
			 int op, const char *attr, size_t attrlen, GsVal *result,
			 size_t *nelements, char *why, size_t whylen)
{
	char	   *pinned;
	volatile RunResult res;		/* set in PG_TRY, read after it */

	pinned = gs_pinned_get(PINNED_BYTES, why, whylen);
	if (pinned == NULL)
		return RUN_GPU_FAILED;
	host = (HostArea *) pinned;
	stage = pinned + STAGE_OFFSET;
	PG_TRY();
	{
		res = run_forest(bytes, len, starts, ndocs, op, attr, attrlen, result,
						 nelements, why, whylen);
	}
	PG_FINALLY();
	{
		(void) gsk_stream_sync(stream);
		host = NULL;
		stage = NULL;
		gs_pinned_put(pinned);
		dev_trim(&dev_in);
		dev_trim(&dev_work);
	}
	PG_END_TRY();
	if (res == RUN_INPUT)
		why[0] = '\0';
	return res;
}

bool
gs_tree_reduce_gpu(const char *doc, size_t len, int op,
				   const char *weight_attr, size_t weight_attr_len,
				   GsVal *result, size_t *nelements, char *why, size_t whylen)
{
	uint64		start = 0;

	if (gpusort_device == GS_DEVICE_AUTO && len < GS_TREE_GPU_MIN_BYTES)
	{
		strlcpy(why, "document too small for the GPU", whylen);
		return false;
	}
	if (len == 0)
	{
		*result = gs_op_identity(op);
		*nelements = 0;
		return true;
	}
	if (!tree_gpu_start(why, whylen))
		return false;
	return run_and_trim(doc, len, &start, 1, op, weight_attr, weight_attr_len,
						result, nelements, why, whylen) == RUN_OK;
}

bool
gs_tree_gpu_batches(void)
{
	return true;
}

bool
gs_tree_batch_flush(GsTreeBatch *b, GsVal *result, size_t *nelements,
					char *why, size_t whylen)
{
	if (gpusort_device == GS_DEVICE_AUTO && b->len < GS_TREE_GPU_MIN_BYTES)
	{
		strlcpy(why, "batch too small for the GPU", whylen);
		return false;
	}
	*result = gs_op_identity(b->op);
	*nelements = 0;
	if (b->ndocs == 0 || b->len == 0)
		return true;
	if (!tree_gpu_start(why, whylen))
		return false;
	return run_and_trim(b->buf, b->len, b->starts, b->ndocs, b->op,
						b->weight_attr, strlen(b->weight_attr), result,
						nelements, why, whylen) == RUN_OK;
}

#endif							/* GPUSORT_NO_CUDA */
