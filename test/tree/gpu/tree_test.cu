/*
 * tree_test.cu
 *	  Standalone test of tree_reduce's GPU kernels (no PostgreSQL):
 *
 *	  contraction  kernels/tree/tree_contract.cu (steps 1 and 3) driven like
 *	               src/tree/tree_gpu.c does, with contract.c's steps 2 and 4,
 *	               against contract.c's sequential reference
 *	               (gs_tree_reduce_seq), for every op, on random trees of
 *	               many shapes (random, deep chains up to depth 10^6, stars,
 *	               forests of small trees), sizes around the sub-block and
 *	               piece boundaries and up to 2^28 tokens, and on unbalanced
 *	               arrays, which must be reported as malformed.
 *	  tokenizer    kernels/tree/xml_scan.cu against xmltok.c (gs_xml_tokenize) on
 *	               generated documents with comments, CDATA, PIs, both quote
 *	               styles, '>' in values, references, number formats, and on
 *	               broken documents, which the GPU must refuse (hand to the
 *	               CPU) whenever the CPU rejects them.
 *
 * Weights are integers, so every evaluation order gives the same double and
 * results are compared exactly; one case uses fractional weights with a
 * relative tolerance.  Prints one line per case, the throughput of the
 * contraction on the largest arrays, and "N passed, M failed"; exits 1 on
 * any failure.
 *
 *   test/tree/gpu/tree_test.sh [--quick]
 */
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <math.h>
#include <string>
#include <vector>

#include <cuda_runtime.h>

#include "gpusort_kernels.h"
#include "tree/contract.h"
extern "C" {
#include "tree/xmltok.h"
}

/* contract.h hides its host drivers from nvcc; they are plain C */
extern "C" {
	size_t		gs_seq_workspace(size_t n, size_t max_depth);
	int			gs_tree_reduce_seq(int op, const GsToken *tok, size_t n,
								   size_t max_depth, void *work,
								   const void *env, GsVal *result);
	long		gs_match_parentheses(const GsContracted *t, int k,
									 GsInterval *iv, GsOpenRun *stack);
	int			gs_contract_global(int op, const GsContracted *t, int k,
								   const GsInterval *iv, long niv,
								   GsOpenRun *stack, GsVal *result);
}

static const char *op_names[GS_NUM_OPS] = {
	"sum", "count", "leaves", "height", "max", "min",
	"max_path", "min_path", "max_subtree"
};


#define CUDA_OK(x) do { cudaError_t e_ = (x); if (e_ != cudaSuccess) { \
	fprintf(stderr, "%s:%d: %s\n", __FILE__, __LINE__, cudaGetErrorString(e_)); exit(2); } } while (0)

#include "tree_docgen.h"

/* ---- tree shapes ---------------------------------------------------------- */

/*
 * Trees are built as token arrays with integral weights in [-1000, 1000];
 * NaN-free "missing" weights are marked in a parallel bit so each op can
 * substitute its default weight.
 */
struct Forest
{
	std::vector<double> tok;	/* weights and close markers */
	std::vector<uint8_t> missing;	/* start tag without weight attribute */
	size_t		max_depth = 0;
};

static void
open_v(Forest &f, size_t &depth)
{
	f.tok.push_back((double) ((int64_t) rnd_below(2001) - 1000));
	f.missing.push_back(rnd_below(20) == 0);
	depth++;
	if (depth > f.max_depth)
		f.max_depth = depth;
}

static void
close_v(Forest &f, size_t &depth)
{
	f.tok.push_back(gs_close_token());
	f.missing.push_back(0);
	depth--;
}

/* random walk: opens with probability p_open (per mille) while below max_depth */
static void
gen_random(Forest &f, size_t nvert, size_t max_depth, int p_open, bool forest)
{
	size_t		depth = 0,
				left = nvert;

	if (!forest && left > 0)
	{
		open_v(f, depth);
		left--;
	}
	while (left > 0 || depth > (forest ? 0 : 1))
	{
		bool		can_open = left > 0 && depth < max_depth;
		bool		can_close = depth > (forest ? 0 : 1);

		if (can_open && (!can_close || (int) rnd_below(1000) < p_open))
		{
			open_v(f, depth);
			left--;
		}
		else
			close_v(f, depth);
	}
	while (depth > 0)
		close_v(f, depth);
}

/* a path of depth vertices with random leaves hanging off it */
static void
gen_chain(Forest &f, size_t depth_target, int leaf_per_mille)
{
	size_t		depth = 0;

	for (size_t i = 0; i < depth_target; i++)
	{
		open_v(f, depth);
		if ((int) rnd_below(1000) < leaf_per_mille)
		{
			open_v(f, depth);
			close_v(f, depth);
		}
	}
	while (depth > 0)
	{
		if ((int) rnd_below(1000) < leaf_per_mille)
		{
			open_v(f, depth);
			close_v(f, depth);
		}
		close_v(f, depth);
	}
}

/* a root with nleaves children */
static void
gen_star(Forest &f, size_t nleaves)
{
	size_t		depth = 0;

	open_v(f, depth);
	for (size_t i = 0; i < nleaves; i++)
	{
		open_v(f, depth);
		close_v(f, depth);
	}
	close_v(f, depth);
}

/* tokens for op: default weights where the op reads none or it is missing */
static void
tokens_for(const Forest &f, int op, std::vector<double> &out)
{
	double		dw = gs_op_default_weight(op);
	bool		reads = gs_op_reads_weight(op);

	out.resize(f.tok.size());
	for (size_t i = 0; i < f.tok.size(); i++)
	{
		double		t = f.tok[i];

		if (!gs_is_close(t) && (!reads || f.missing[i]))
			t = dw;
		out[i] = t;
	}
}

/* ---- the GPU driver (as in src/tree/tree_gpu.c) ------------------------------ */

static void *d_temp;
static size_t d_temp_bytes;
static double *d_tok;
static size_t d_tok_cap;

static float last_local_ms;	/* step 1 alone, of the last gpu_reduce */
static int	last_k;				/* pieces of the last gpu_reduce */

static int
gpu_reduce(int op, size_t n, GsVal *result, float *ms)
{
	GskTreePlan plan;
	cudaEvent_t e0,
				e1,
				e2;
	int			rc;

	*ms = 0;
	if (n == 0)
	{
		*result = gs_op_identity(op);
		return GS_TREE_OK;
	}
	if ((rc = gsk_tree_plan(op, n, &plan)) != 0)
	{
		fprintf(stderr, "gsk_tree_plan: %s\n", gsk_last_error());
		exit(2);
	}
	last_k = plan.k;
	if (plan.temp_bytes > d_temp_bytes)
	{
		if (d_temp)
			CUDA_OK(cudaFree(d_temp));
		CUDA_OK(cudaMalloc(&d_temp, plan.temp_bytes));
		d_temp_bytes = plan.temp_bytes;
	}

	std::vector<uint64_t> na(plan.k), nc(plan.k);
	std::vector<double> ctop(2 * (size_t) plan.k);
	std::vector<GsVal> cv(plan.k);
	std::vector<GsContracted> t(plan.k);
	std::vector<GsInterval> iv(2 * (size_t) plan.k);
	std::vector<GsOpenRun> stack(plan.k);

	CUDA_OK(cudaEventCreate(&e0));
	CUDA_OK(cudaEventCreate(&e1));
	CUDA_OK(cudaEventCreate(&e2));
	CUDA_OK(cudaEventRecord(e0, 0));
	if (gsk_tree_local(&plan, d_tok, d_temp, d_temp_bytes, na.data(), nc.data(),
					   ctop.data(), NULL) != 0)
	{
		fprintf(stderr, "gsk_tree_local: %s\n", gsk_last_error());
		exit(2);
	}
	CUDA_OK(cudaEventRecord(e2, 0));
	CUDA_OK(cudaStreamSynchronize(0));
	CUDA_OK(cudaEventElapsedTime(&last_local_ms, e0, e2));
	memset(t.data(), 0, sizeof(GsContracted) * plan.k);
	for (int i = 0; i < plan.k; i++)
	{
		cv[i] = gs_val(ctop[2 * i], ctop[2 * i + 1]);
		t[i].na = na[i];
		t[i].nc = nc[i];
		t[i].c = &cv[i];
	}
	long		niv = gs_match_parentheses(t.data(), plan.k, iv.data(), stack.data());

	if (niv < 0)
		rc = GS_TREE_MALFORMED;
	else
	{
		if (gsk_tree_intervals(&plan, d_temp, d_temp_bytes, iv.data(), niv, NULL) != 0)
		{
			fprintf(stderr, "gsk_tree_intervals: %s\n", gsk_last_error());
			exit(2);
		}
		CUDA_OK(cudaStreamSynchronize(0));
		/* step 4 reads only C[NC-1] of each piece, which cv[i] holds */
		for (int i = 0; i < plan.k; i++)
			t[i].nc = 1;
		rc = gs_contract_global(op, t.data(), plan.k, iv.data(), niv,
								stack.data(), result);
	}
	CUDA_OK(cudaEventRecord(e1, 0));
	CUDA_OK(cudaEventSynchronize(e1));
	CUDA_OK(cudaEventElapsedTime(ms, e0, e1));
	cudaEventDestroy(e0);
	cudaEventDestroy(e1);
	cudaEventDestroy(e2);
	return rc;
}

static void
upload(const std::vector<double> &tok)
{
	if (tok.size() > d_tok_cap)
	{
		if (d_tok)
			CUDA_OK(cudaFree(d_tok));
		CUDA_OK(cudaMalloc(&d_tok, tok.size() * sizeof(double) + 8));
		d_tok_cap = tok.size();
	}
	if (!tok.empty())
		CUDA_OK(cudaMemcpy(d_tok, tok.data(), tok.size() * sizeof(double),
						   cudaMemcpyHostToDevice));
}

static bool
same(double a, double b, double rel)
{
	if (a == b)
		return true;
	if (rel == 0 || !isfinite(a) || !isfinite(b))
		return false;
	return fabs(a - b) <= rel * fmax(1.0, fmax(fabs(a), fabs(b)));
}

/* Compare GPU and sequential results for the ops in mask on forest f */
static void
run_case(const char *name, const Forest &f, unsigned mask, double rel = 0,
		 bool report_rate = false)
{
	std::vector<double> tok;
	std::vector<char> work;

	for (int op = 0; op < GS_NUM_OPS; op++)
	{
		GsVal		want,
					got;
		float		ms;
		int			rc_seq,
					rc_gpu;

		if (!(mask & (1u << op)))
			continue;
		tokens_for(f, op, tok);
		work.resize(gs_seq_workspace(tok.size(), f.max_depth));
		rc_seq = gs_tree_reduce_seq(op, tok.data(), tok.size(), f.max_depth,
									work.data(), NULL, &want);
		upload(tok);
		rc_gpu = gpu_reduce(op, tok.size(), &got, &ms);
		if (rc_seq != GS_TREE_OK || rc_gpu != GS_TREE_OK)
		{
			check(false, "%s %s: seq rc %d, gpu rc %d", name, op_names[op],
				  rc_seq, rc_gpu);
			continue;
		}
		bool		ok = same(want.m, got.m, rel) &&
			(op != GS_OP_MAX_SUBTREE || same(want.s, got.s, rel));

		if (report_rate)
		{
			/* best of three, the first one warms up */
			float		best = ms,
						best_local = last_local_ms;

			for (int r = 0; r < 2; r++)
			{
				GsVal		again;

				gpu_reduce(op, tok.size(), &again, &ms);
				best = fmin(best, ms);
				best_local = fmin(best_local, last_local_ms);
			}
			check(ok, "%s %s: n=%zu depth=%zu k=%d: %.17g (seq %.17g), %.3f ms = %.1f GB/s "
				  "(step 1 alone %.3f ms = %.1f GB/s)",
				  name, op_names[op], tok.size(), f.max_depth, last_k, got.m, want.m,
				  best, tok.size() * 8.0 / (best * 1e6),
				  best_local, tok.size() * 8.0 / (best_local * 1e6));
		}
		else
			check(ok, "%s %s: n=%zu depth=%zu: %.17g (seq %.17g)", name,
				  op_names[op], tok.size(), f.max_depth, got.m, want.m);
	}
}

#define ALL_OPS		((1u << GS_NUM_OPS) - 1)
#define BIG_OPS		((1u << GS_OP_SUM) | (1u << GS_OP_MAX_PATH) | \
					 (1u << GS_OP_MAX_SUBTREE) | (1u << GS_OP_HEIGHT))

static void
test_contraction(bool quick)
{
	/* tiny and boundary sizes: every op */
	{
		Forest		f;

		run_case("empty", f, ALL_OPS);
	}
	{
		size_t		sizes[] = {1, 2, 3, 255, 511, 512, 513, 1023, 1024, 1025,
			2047, 2049, 16383, 16385, 40000, 100000, 250000, 1000000};

		for (size_t s : sizes)
		{
			char		name[64];
			Forest		f1,
						f2,
						f3;

			gen_random(f1, s, 64, 500, false);
			snprintf(name, sizeof(name), "random tree %zu", s);
			run_case(name, f1, ALL_OPS);
			gen_random(f2, s, 1 << 20, 700, true);
			snprintf(name, sizeof(name), "deep forest %zu", s);
			run_case(name, f2, ALL_OPS);
			gen_random(f3, s, 3, 300, true);
			snprintf(name, sizeof(name), "shallow forest %zu", s);
			run_case(name, f3, ALL_OPS);
		}
	}
	/* Figure 5's tree 3(6, 2(5, 1)) */
	{
		Forest		f;
		double		w[] = {3, 6, NAN, 2, 5, NAN, 1, NAN, NAN, NAN};

		for (double x : w)
		{
			f.tok.push_back(isnan(x) ? gs_close_token() : x);
			f.missing.push_back(0);
		}
		f.max_depth = 3;
		run_case("figure 5", f, ALL_OPS);
	}
	/* shapes */
	{
		Forest		a,
					b,
					c,
					d;

		gen_chain(a, 100000, 300);
		run_case("chain 1e5 with leaves", a, ALL_OPS);
		gen_star(b, 300000);
		run_case("star 3e5", b, ALL_OPS);
		for (int i = 0; i < 20000; i++)
			gen_random(c, 1 + rnd_below(30), 6, 500, false);
		c.max_depth = 6;
		run_case("forest of 20000 small trees", c, ALL_OPS);
		gen_chain(d, 1000000, 100);
		run_case("chain depth 1e6", d, ALL_OPS);
	}
	/* fractional weights: same up to rounding */
	{
		Forest		f;

		gen_random(f, 500000, 1000, 520, false);
		for (double &x : f.tok)
			if (!gs_is_close(x))
				x = x / 7.0 + 0.1;
		run_case("fractional weights", f, ALL_OPS, 1e-9);
	}
	/* unbalanced arrays must be reported as malformed */
	{
		const char *what[] = {"extra end tag", "unclosed start tag", "end tag first"};

		for (int kind = 0; kind < 3; kind++)
		{
			Forest		f;
			std::vector<double> tok;
			GsVal		r;
			float		ms;

			gen_random(f, 200000, 500, 500, true);
			tokens_for(f, GS_OP_SUM, tok);
			if (kind == 0)
				tok.insert(tok.begin() + tok.size() / 2, gs_close_token());
			else if (kind == 1)
				tok.insert(tok.begin() + tok.size() / 3, 1.0);
			else
				tok.insert(tok.begin(), gs_close_token());
			upload(tok);
			check(gpu_reduce(GS_OP_SUM, tok.size(), &r, &ms) == GS_TREE_MALFORMED,
				  "malformed: %s", what[kind]);
		}
	}
	/* large: throughput of the whole contraction */
	{
		size_t		big = quick ? ((size_t) 1 << 24) : ((size_t) 1 << 27);
		Forest		f,
					g;

		f.tok.reserve(2 * big);
		f.missing.reserve(2 * big);
		gen_random(f, big, 40, 500, true);	/* 2^28 tokens when not quick */
		run_case("large random forest", f, BIG_OPS | (1u << GS_OP_MAX), 0, true);
		f = Forest();
		gen_chain(g, quick ? 1000000 : 4000000, 500);
		run_case("large deep chain", g, BIG_OPS, 0, true);
	}
}

/* ---- tokenizer ------------------------------------------------------------ */



static char *d_text;
static size_t d_text_cap;
static void *d_scan;
static size_t d_scan_bytes;
static void *d_emit;
static size_t d_emit_bytes;
static uint64_t *d_docs;
static size_t d_docs_cap;

/*
 * The GPU's tokens for the documents concatenated in text (starts in
 * starts), as tree_gpu.c runs the scanner; false if it hands them to the
 * CPU.  *ms: time of both passes.
 */
static bool
gpu_tokens(const std::string &text, const std::vector<uint64_t> &starts,
		   bool read_weight, std::vector<double> &out, uint32_t *why, float *ms)
{
	GskXmlScan	s;
	GskXmlCount cnt;
	uint32_t	flags = 0;
	size_t		need;
	cudaEvent_t e0,
				e1;

	if (text.size() + 16 > d_text_cap)
	{
		if (d_text)
			CUDA_OK(cudaFree(d_text));
		d_text_cap = text.size() + 16;
		CUDA_OK(cudaMalloc(&d_text, d_text_cap));
	}
	if (starts.size() > d_docs_cap)
	{
		if (d_docs)
			CUDA_OK(cudaFree(d_docs));
		d_docs_cap = starts.size();
		CUDA_OK(cudaMalloc(&d_docs, d_docs_cap * sizeof(uint64_t)));
	}
	CUDA_OK(cudaMemcpy(d_text, text.data(), text.size(), cudaMemcpyHostToDevice));
	CUDA_OK(cudaMemcpy(d_docs, starts.data(), starts.size() * sizeof(uint64_t),
					   cudaMemcpyHostToDevice));
	memset(&s, 0, sizeof(s));
	s.d_text = d_text;
	s.nbytes = text.size();
	s.d_doc_start = d_docs;
	s.ndocs = (int) starts.size();
	s.attr[0] = 'w';
	s.attr_len = 1;
	s.read_weight = read_weight;
	s.missing_weight = -0.5;

	need = gsk_xml_scan_temp_bytes(text.size());
	if (need > d_scan_bytes)
	{
		if (d_scan)
			CUDA_OK(cudaFree(d_scan));
		CUDA_OK(cudaMalloc(&d_scan, need));
		d_scan_bytes = need;
	}
	CUDA_OK(cudaEventCreate(&e0));
	CUDA_OK(cudaEventCreate(&e1));
	CUDA_OK(cudaEventRecord(e0, 0));
	if (gsk_xml_scan_count(&s, d_scan, d_scan_bytes, &cnt, NULL) != 0)
	{
		fprintf(stderr, "gsk_xml_scan_count: %s\n", gsk_last_error());
		exit(2);
	}
	CUDA_OK(cudaStreamSynchronize(0));
	*why = cnt.flags;
	if (cnt.flags != 0 || (cnt.final_map & 15) != 0 || 2 * cnt.nelements != cnt.ntok)
	{
		if (*why == 0)
			*why = GSK_XML_SYNTAX;
		cudaEventDestroy(e0);
		cudaEventDestroy(e1);
		return false;
	}
	if (cnt.ntok + 1 > d_tok_cap)
	{
		if (d_tok)
			CUDA_OK(cudaFree(d_tok));
		d_tok_cap = cnt.ntok + 1;
		CUDA_OK(cudaMalloc(&d_tok, d_tok_cap * sizeof(double)));
	}
	need = gsk_xml_emit_temp_bytes(cnt.ntok);
	if (need > d_emit_bytes)
	{
		if (d_emit)
			CUDA_OK(cudaFree(d_emit));
		CUDA_OK(cudaMalloc(&d_emit, need));
		d_emit_bytes = need;
	}
	if (gsk_xml_scan_emit(&s, d_scan, d_scan_bytes, d_emit, d_emit_bytes, d_tok,
						  cnt.ntok, &flags, NULL) != 0)
	{
		fprintf(stderr, "gsk_xml_scan_emit: %s\n", gsk_last_error());
		exit(2);
	}
	CUDA_OK(cudaEventRecord(e1, 0));
	CUDA_OK(cudaEventSynchronize(e1));
	CUDA_OK(cudaEventElapsedTime(ms, e0, e1));
	cudaEventDestroy(e0);
	cudaEventDestroy(e1);
	*why = flags;
	if (flags != 0)
		return false;
	out.resize(cnt.ntok);
	if (cnt.ntok)
		CUDA_OK(cudaMemcpy(out.data(), d_tok, cnt.ntok * sizeof(double),
						   cudaMemcpyDeviceToHost));
	return true;
}

/* failing documents go to $OUT for a closer look */
static void
dump_doc(const char *what, int n, const std::string &doc)
{
	const char *out = getenv("OUT");
	char		path[512];
	FILE	   *f;

	if (out == NULL || n > 10)
		return;
	snprintf(path, sizeof(path), "%s/%s-%d.xml", out, what, n);
	if ((f = fopen(path, "w")) != NULL)
	{
		fwrite(doc.data(), 1, doc.size(), f);
		fclose(f);
	}
}

static void
test_tokenizer(bool quick)
{
	int			ndocs = quick ? 300 : 1500;
	int			plain_ok = 0,
				plain_bad = 0,
				cpu_only = 0,
				fallback_ok = 0,
				wrong = 0,
				accepted_bad = 0,
				broken_refused = 0;

	/* valid documents, plain and fancy, and both weight modes */
	for (int i = 0; i < ndocs; i++)
	{
		DocGen		g;
		std::vector<double> want,
					got;
		uint32_t	why;
		float		ms;
		bool		rw = rnd_below(4) != 0;

		g.fancy = i % 3 != 0;
		std::string doc = gen_document(g, 1 + rnd_below(i < 100 ? 5 : 400), 1 + (int) rnd_below(12));
		bool		cpu_ok = cpu_tokens(doc, rw, want);
		bool		gpu_ok = gpu_tokens(doc, {0}, rw, got, &why, &ms) && balanced(got);

		if (gpu_ok && (!cpu_ok || !same_tokens(want, got)))
		{
			wrong++;
			if (wrong <= 3)
				printf("  mismatch on: %.300s\n", doc.c_str());
			dump_doc("mismatch", wrong, doc);
		}
		else if (!gpu_ok && cpu_ok && !(g.cpu_only && rw) && !g.doctype)
		{
			plain_bad++;
			if (plain_bad <= 3)
				printf("  refused (flags %u, read_weight %d) a plain document: %.300s\n",
					   why, rw, doc.c_str());
			dump_doc("refused", plain_bad, doc);
		}
		else if (gpu_ok)
			plain_ok++;
		else if (cpu_ok)
			fallback_ok++;
		else
			cpu_only++;
	}
	check(wrong == 0, "tokenizer: %d generated documents: %d identical, %d GPU results differ",
		  ndocs, plain_ok, wrong);
	check(plain_bad == 0, "tokenizer: documents without CPU-only features all scanned on the GPU (%d refused; %d left to the CPU, %d rejected by both)",
		  plain_bad, fallback_ok, cpu_only);

	/* broken documents: the GPU must never accept what the CPU rejects */
	for (int i = 0; i < ndocs * 2; i++)
	{
		DocGen		g;
		std::vector<double> want,
					got;
		uint32_t	why;
		float		ms;

		g.fancy = i % 2 == 0;
		std::string doc = gen_document(g, 1 + rnd_below(60), 1 + (int) rnd_below(8));

		for (int m = 0; m < 1 + (int) rnd_below(3); m++)
			mutate(doc);
		bool		cpu_ok = cpu_tokens(doc, true, want);
		bool		gpu_ok = gpu_tokens(doc, {0}, true, got, &why, &ms) && balanced(got);

		if (gpu_ok && (!cpu_ok || !same_tokens(want, got)))
		{
			accepted_bad++;
			if (accepted_bad <= 5)
				printf("  GPU accepted (cpu_ok %d): %.300s\n", cpu_ok, doc.c_str());
			dump_doc("accepted", accepted_bad, doc);
		}
		else if (!gpu_ok && !cpu_ok)
			broken_refused++;
	}
	check(accepted_bad == 0, "tokenizer: %d mutated documents: GPU never accepts what the CPU rejects or tokenizes differently (%d rejected by both)",
		  ndocs * 2, broken_refused);

	/* batches: documents back to back, each complete on its own */
	{
		std::string text;
		std::vector<uint64_t> starts;
		std::vector<double> want,
					got;
		uint32_t	why;
		float		ms;
		int			n = quick ? 2000 : 20000;

		gen_batch(n, text, starts, want);
		bool		ok = gpu_tokens(text, starts, true, got, &why, &ms);

		check(ok && same_tokens(want, got), "tokenizer: batch of %d documents in one launch (%zu tokens)",
			  n, got.size());

		/* a start tag in one document and its end tag in the next */
		std::string split = "<a w=\"1\"><b/></a><a w=\"2\"></a>";
		std::vector<uint64_t> st2 = {0, 9};

		check(!gpu_tokens(split, st2, true, got, &why, &ms),
			  "tokenizer: batch whose document ends inside an element is refused");
	}

	/* weight parsing: the fast path must be strtod's double, bit for bit */
	{
		int			bad = 0,
					taken = 0,
					n = quick ? 2000 : 20000;
		std::string text;
		std::vector<uint64_t> starts = {0};
		std::vector<double> want;

		for (int i = 0; i < n; i++)
		{
			char		num[80];
			int			digits = 1 + (int) rnd_below(19);
			int			point = (int) rnd_below(digits + 1);
			std::string m;

			for (int j = 0; j < digits; j++)
			{
				if (j == point && j > 0)
					m += '.';
				m += (char) ('0' + rnd_below(10));
			}
			if (rnd_below(3) == 0)
				snprintf(num, sizeof(num), "%s%se%d", rnd_below(2) ? "-" : "", m.c_str(),
						 (int) rnd_below(45) - 22);
			else
				snprintf(num, sizeof(num), "%s%s", rnd_below(2) ? "-" : "", m.c_str());
			text += "<e w=\"";
			text += num;
			text += "\"/>";
			want.push_back(strtod(num, NULL));
			want.push_back(gs_close_token());
		}
		/* one document per weight, so a fallback of one does not hide the rest */
		std::vector<double> got;
		uint32_t	why;
		float		ms;
		size_t		pos = 0;

		for (int i = 0; i < n; i++)
		{
			size_t		end = text.find("/>", pos) + 2;
			std::string one = text.substr(pos, end - pos);

			pos = end;
			if (gpu_tokens(one, starts, true, got, &why, &ms))
			{
				taken++;
				if (got.size() != 2 || memcmp(&got[0], &want[2 * i], 8) != 0)
				{
					bad++;
					if (bad <= 3)
						printf("  weight %s: GPU %.17g, strtod %.17g\n", one.c_str(), got[0], want[2 * i]);
				}
			}
		}
		check(bad == 0, "tokenizer: %d random decimal weights, %d on the fast path, all equal to strtod",
			  n, taken);
	}

	/* a large document: throughput of the scan */
	{
		DocGen		g;
		std::string doc;
		std::vector<double> want,
					got;
		uint32_t	why;
		float		ms = 0;
		size_t		target = quick ? ((size_t) 16 << 20) : ((size_t) 100 << 20);

		g.fancy = false;
		doc.reserve(target + 4096);
		doc += "<root>";
		while (doc.size() < target)
			doc += gen_document(g, 50, 6);
		doc += "</root>";
		cpu_tokens(doc, true, want);
		gpu_tokens(doc, {0}, true, got, &why, &ms);	/* warm-up */
		bool		ok = gpu_tokens(doc, {0}, true, got, &why, &ms);

		check(ok && same_tokens(want, got), "tokenizer: %.0f MB document, %zu tokens, %.3f ms on the GPU (%.1f GB/s)",
			  doc.size() / 1e6, got.size(), ms, doc.size() / (ms * 1e6));
	}
}

int
main(int argc, char **argv)
{
	bool		quick = argc > 1 && strcmp(argv[1], "--quick") == 0;
	GskDeviceInfo info;

	if (gsk_init(0, &info) != 0)
	{
		printf("no usable GPU: %s\n", gsk_last_error());
		return 2;
	}
	printf("device: %s, %d SMs, %.1f GB\n", info.name, info.sm_count,
		   info.total_mem / 1e9);
	test_contraction(quick);
	test_tokenizer(quick);
	printf("%d passed, %d failed\n", npassed, nfailed);
	return nfailed == 0 ? 0 : 1;
}
