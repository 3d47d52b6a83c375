/*
 * tree_check: the chunked pseudo-tree contraction (src/tree/contract.c) against
 * the sequential reference, and both against a textbook evaluation that
 * does not use treeops.h, on random forests.
 *
 *   tree_check [seed] [rounds] [big]
 *
 * big = 0 skips the 10^5-vertex forests (for sanitizer builds).
 *
 * Shapes: random (each vertex hangs under a random open ancestor), deep
 * chains (depth up to 10^5), caterpillars, stars, complete binary trees and
 * forests; weights are integers in [-1000, 1000] (and some halves), so
 * every evaluation order gives the exact same doubles.  For every op, k runs
 * over 1..64 with even cuts, random cuts, cuts on start tags only, on end
 * tags only, and cuts packed inside the deepest chain; threads 1 and 4.
 * Exits 1 at the first mismatch, printing it.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tree/contract.h"

static unsigned long long rng_state;

static unsigned long long
rnd(void)
{
	rng_state ^= rng_state << 13;
	rng_state ^= rng_state >> 7;
	rng_state ^= rng_state << 17;
	return rng_state;
}

static size_t
rnd_below(size_t n)
{
	return n ? (size_t) (rnd() % n) : 0;
}

typedef struct Forest
{
	size_t		nv;				/* vertices */
	GsToken    *tok;			/* 2 nv tokens */
	size_t		ntok;
	size_t		max_depth;
	const char *shape;
} Forest;

static double
rnd_weight(void)
{
	double		w = (double) ((long) rnd_below(2001) - 1000);

	if (rnd_below(8) == 0)
		w += 0.5;
	return w;
}

/*
 * Build tokens from a preorder list of depths: depth[i] is the depth of
 * vertex i (1 = root of a tree), depth[i+1] <= depth[i] + 1.
 */
static void
from_depths(Forest *f, const size_t *depth, size_t nv)
{
	size_t		cur = 0;
	size_t		i;

	f->nv = nv;
	f->tok = malloc(sizeof(GsToken) * 2 * nv);
	f->ntok = 0;
	f->max_depth = 0;
	for (i = 0; i < nv; i++)
	{
		while (cur >= depth[i])
		{
			f->tok[f->ntok++] = gs_close_token();
			cur--;
		}
		f->tok[f->ntok++] = rnd_weight();
		cur++;
		if (cur > f->max_depth)
			f->max_depth = cur;
	}
	while (cur > 0)
	{
		f->tok[f->ntok++] = gs_close_token();
		cur--;
	}
}

static void
make_forest(Forest *f, int shape, size_t nv)
{
	size_t	   *depth = malloc(sizeof(size_t) * (nv ? nv : 1));
	size_t		i;

	for (i = 0; i < nv; i++)
	{
		size_t		prev = i ? depth[i - 1] : 0;

		switch (shape)
		{
			case 0:				/* random */
				f->shape = "random";
				depth[i] = 1 + rnd_below(prev + 1);
				break;
			case 1:				/* deep random: mostly down */
				f->shape = "deep";
				depth[i] = rnd_below(10) ? prev + 1 : 1 + rnd_below(prev + 1);
				break;
			case 2:				/* one chain */
				f->shape = "chain";
				depth[i] = i + 1;
				break;
			case 3:				/* caterpillar: chain with a leaf on each */
				f->shape = "caterpillar";
				depth[i] = (i % 2 == 0) ? i / 2 + 1 : i / 2 + 2;
				break;
			case 4:				/* star */
				f->shape = "star";
				depth[i] = i == 0 ? 1 : 2;
				break;
			case 5:				/* forest of small random trees */
				f->shape = "forest";
				depth[i] = rnd_below(4) == 0 ? 1 : 1 + rnd_below(prev + 1);
				if (depth[i] > 6)
					depth[i] = 6;
				break;
			default:			/* complete binary tree, preorder */
				{
					/* depth of the i-th vertex in preorder of a heap-shaped tree */
					size_t		d = 1,
								idx = i,
								sz = 1;

					f->shape = "binary";
					while (sz * 2 + 1 <= nv)
						sz = sz * 2 + 1;
					/* walk down: left subtree has (sz-1)/2 vertices */
					while (idx > 0 && sz > 1)
					{
						size_t		half = (sz - 1) / 2;

						idx--;
						if (idx >= half)
							idx -= half;
						sz = half;
						d++;
					}
					depth[i] = d;
				}
				break;
		}
	}
	from_depths(f, depth, nv);
	free(depth);
}

/* ---- textbook evaluation, independent of treeops.h ---------------------- */

/*
 * f(v) by the definition, children before parents (a child's preorder
 * number is larger than its parent's), each op written out directly.
 * max_subtree keeps the subtree sum in val and the best subtree sum at or
 * below v in best.
 */
static double
textbook(int op, const Forest *f)
{
	size_t		nv = f->nv;
	long	   *parent = malloc(sizeof(long) * (nv + 1));
	double	   *w = malloc(sizeof(double) * (nv + 1));
	double	   *acc = malloc(sizeof(double) * (nv + 1));	/* (+) of children */
	double	   *bacc = malloc(sizeof(double) * (nv + 1));	/* max of children's best */
	int		   *kids = calloc(nv + 1, sizeof(int));
	int		   *seen = calloc(nv + 1, sizeof(int));
	long	   *stack = malloc(sizeof(long) * (nv + 1));
	long		sp = 0,
				v = 0;
	size_t		i;
	double		ans = 0,
				ans_best = -INFINITY;
	int			ans_seen = 0;

	for (i = 0; i < f->ntok; i++)
	{
		if (gs_is_close(f->tok[i]))
			sp--;
		else
		{
			parent[v] = sp ? stack[sp - 1] : -1;
			if (sp)
				kids[stack[sp - 1]]++;
			w[v] = f->tok[i];
			stack[sp++] = v++;
		}
	}
	for (i = nv; i-- > 0;)
	{
		bool		leaf = kids[i] == 0;
		double		fv = 0,
					best = 0;
		double	   *dst;
		int		   *dseen;

		switch (op)
		{
			case GS_OP_SUM:
			case GS_OP_MAX_PATH:
			case GS_OP_MIN_PATH:
				fv = w[i] + (leaf ? 0 : acc[i]);
				break;
			case GS_OP_COUNT:
			case GS_OP_HEIGHT:
				fv = 1 + (leaf ? 0 : acc[i]);
				break;
			case GS_OP_LEAVES:
				fv = leaf ? 1 : acc[i];
				break;
			case GS_OP_MAX:
				fv = leaf ? w[i] : fmax(w[i], acc[i]);
				break;
			case GS_OP_MIN:
				fv = leaf ? w[i] : fmin(w[i], acc[i]);
				break;
			case GS_OP_MAX_SUBTREE:
				fv = w[i] + (leaf ? 0 : acc[i]);
				best = leaf ? fv : fmax(fv, bacc[i]);
				break;
		}
		dst = parent[i] >= 0 ? &acc[parent[i]] : &ans;
		dseen = parent[i] >= 0 ? &seen[parent[i]] : &ans_seen;
		if (!*dseen)
			*dst = fv;
		else if (op == GS_OP_MAX || op == GS_OP_MAX_PATH || op == GS_OP_HEIGHT)
			*dst = fmax(*dst, fv);
		else if (op == GS_OP_MIN || op == GS_OP_MIN_PATH)
			*dst = fmin(*dst, fv);
		else
			*dst += fv;
		if (op == GS_OP_MAX_SUBTREE)
		{
			double	   *bdst = parent[i] >= 0 ? &bacc[parent[i]] : &ans_best;

			*bdst = *dseen ? fmax(*bdst, best) : best;
		}
		*dseen = 1;
	}
	if (op == GS_OP_MAX_SUBTREE)
		ans = ans_best;
	if (!ans_seen)				/* empty forest: the identity */
		ans = gs_op_result(op, gs_op_identity(op));
	free(parent);
	free(w);
	free(acc);
	free(bacc);
	free(kids);
	free(seen);
	free(stack);
	return ans;
}

/* ---- checks ------------------------------------------------------------- */

static long failures = 0;
static long checks = 0;

static void
report(const Forest *f, int op, const char *what, int k, double got, double want)
{
	checks++;
	if (got == want || (isnan(got) && isnan(want)))
		return;
	failures++;
	if (failures <= 20)
		fprintf(stderr, "MISMATCH shape=%s nv=%zu op=%s %s k=%d: got %.17g want %.17g\n",
				f->shape, f->nv, gs_op_names[op], what, k, got, want);
}

static void
check_forest(const Forest *f, int quick)
{
	size_t		cuts[65];
	size_t		wsz = gs_chunked_workspace(f->ntok, 64, 0);
	void	   *work = malloc(wsz);
	void	   *swork = malloc(gs_seq_workspace(f->ntok, f->max_depth));
	size_t	   *opens = malloc(sizeof(size_t) * (f->ntok + 1));
	size_t	   *closes = malloc(sizeof(size_t) * (f->ntok + 1));
	GsToken    *tok = malloc(sizeof(GsToken) * (f->ntok + 1));
	size_t		nopen = 0,
				nclose = 0,
				i;
	size_t		deep_at = 0,
				d = 0,
				dmax = 0;
	int			op;

	for (i = 0; i < f->ntok; i++)
	{
		if (gs_is_close(f->tok[i]))
		{
			closes[nclose++] = i;
			d--;
		}
		else
		{
			opens[nopen++] = i;
			if (++d > dmax)
			{
				dmax = d;
				deep_at = i;
			}
		}
	}

	for (op = 0; op < GS_NUM_OPS; op++)
	{
		GsVal		r;
		double		want = textbook(op, f);
		int			rc;
		int			k;
		GsTreeEnv	env = {NULL, NULL, 1};

		/* as the tokenizer does: ops that read no weight see a constant */
		for (i = 0; i < f->ntok; i++)
			tok[i] = gs_op_reads_weight(op) || gs_is_close(f->tok[i]) ?
				f->tok[i] : gs_op_default_weight(op);

		rc = gs_tree_reduce_seq(op, tok, f->ntok, f->max_depth, swork, &env, &r);
		report(f, op, "seq rc", 0, rc, GS_TREE_OK);
		report(f, op, "seq", 0, gs_op_result(op, r), want);

		for (k = 1; k <= 64; k += (quick && k > 4) ? 7 : 1)
		{
			int			strategy;

			for (strategy = 0; strategy < 5; strategy++)
			{
				int			j;
				char		what[64];
				size_t		maxdepth = strategy == 1 ? f->max_depth : 0;

				cuts[0] = 0;
				cuts[k] = f->ntok;
				for (j = 1; j < k; j++)
				{
					switch (strategy)
					{
						case 0:	/* even */
							cuts[j] = f->ntok * j / k;
							break;
						case 1:	/* random */
							cuts[j] = rnd_below(f->ntok + 1);
							break;
						case 2:	/* just before start tags */
							cuts[j] = nopen ? opens[rnd_below(nopen)] : 0;
							break;
						case 3:	/* just before end tags */
							cuts[j] = nclose ? closes[rnd_below(nclose)] : 0;
							break;
						default:	/* inside the deepest chain */
							{
								size_t		lo = deep_at > dmax ? deep_at - dmax : 0;

								cuts[j] = lo + rnd_below(deep_at - lo + 2);
								if (cuts[j] > f->ntok)
									cuts[j] = f->ntok;
							}
							break;
					}
				}
				/* sort the cuts */
				for (j = 1; j < k; j++)
				{
					size_t		x = cuts[j];
					int			m = j;

					while (m > 1 && cuts[m - 1] > x)
					{
						cuts[m] = cuts[m - 1];
						m--;
					}
					cuts[m] = x;
				}
				env.nthreads = (k + strategy) % 7 == 0 ? 4 : 1;
				rc = gs_tree_reduce_chunked(op, tok, f->ntok, k,
											strategy == 0 ? NULL : cuts,
											maxdepth, work, &env, &r);
				snprintf(what, sizeof(what), "chunked rc strategy=%d", strategy);
				report(f, op, what, k, rc, GS_TREE_OK);
				snprintf(what, sizeof(what), "chunked strategy=%d threads=%d",
						 strategy, env.nthreads);
				report(f, op, what, k, gs_op_result(op, r), want);
			}
		}
	}
	free(work);
	free(swork);
	free(opens);
	free(closes);
	free(tok);
}

/* unbalanced arrays must be reported, never reduced */
static void
check_malformed(void)
{
	GsToken		t[6];
	GsVal		r;
	void	   *work = malloc(gs_chunked_workspace(6, 3, 0));
	void	   *swork = malloc(gs_seq_workspace(6, 0));
	int			k;

	t[0] = 1;
	t[1] = gs_close_token();
	t[2] = gs_close_token();
	t[3] = 2;
	t[4] = 3;
	t[5] = gs_close_token();
	for (k = 1; k <= 3; k++)
	{
		int			rc = gs_tree_reduce_chunked(GS_OP_SUM, t, 6, k, NULL, 0, work, NULL, &r);
		Forest		dummy = {0, NULL, 0, 0, "malformed"};

		report(&dummy, GS_OP_SUM, "malformed chunked rc", k, rc, GS_TREE_MALFORMED);
		rc = gs_tree_reduce_chunked(GS_OP_SUM, t + 3, 3, k, NULL, 0, work, NULL, &r);
		report(&dummy, GS_OP_SUM, "unclosed chunked rc", k, rc, GS_TREE_MALFORMED);
	}
	{
		Forest		dummy = {0, NULL, 0, 0, "malformed"};

		report(&dummy, GS_OP_SUM, "malformed seq rc", 0,
			   gs_tree_reduce_seq(GS_OP_SUM, t, 6, 0, swork, NULL, &r), GS_TREE_MALFORMED);
		report(&dummy, GS_OP_SUM, "unclosed seq rc", 0,
			   gs_tree_reduce_seq(GS_OP_SUM, t + 3, 3, 0, swork, NULL, &r), GS_TREE_MALFORMED);
	}
	free(work);
	free(swork);
}

/* interrupt callback: true from the countdown-th call on */
static bool
countdown_interrupted(void *arg)
{
	int		   *left = (int *) arg;

	return (*left)-- <= 0;
}

/*
 * An interrupt stops every driver, threads included.  The calling thread
 * polls at least once per phase of the chunked driver, so the first and
 * the second poll are always reached.
 */
static void
check_cancel(void)
{
	Forest		f;
	void	   *work,
			   *swork;
	int			when;

	make_forest(&f, 1, 2000000);
	work = malloc(gs_chunked_workspace(f.ntok, 16, 0));
	swork = malloc(gs_seq_workspace(f.ntok, f.max_depth));
	for (when = 0; when < 2; when++)
	{
		int			left = when;
		GsTreeEnv	env = {countdown_interrupted, &left, 4};
		GsVal		r;

		report(&f, GS_OP_SUM, "cancel chunked rc", when,
			   gs_tree_reduce_chunked(GS_OP_SUM, f.tok, f.ntok, 16, NULL, 0, work, &env, &r),
			   GS_TREE_CANCELLED);
		left = when;
		report(&f, GS_OP_SUM, "cancel seq rc", when,
			   gs_tree_reduce_seq(GS_OP_SUM, f.tok, f.ntok, f.max_depth, swork, &env, &r),
			   GS_TREE_CANCELLED);
	}
	free(work);
	free(swork);
	free(f.tok);
}

/* The paper's Figure 5 tree 3(6, 2(5, 1)) */
static void
check_figure5(void)
{
	GsToken		t[10] = {3, 6, 0, 2, 5, 0, 1, 0, 0, 0};
	static const double want[GS_NUM_OPS] = {17, 5, 3, 3, 6, 1, 10, 6, 17};
	Forest		f = {5, t, 10, 3, "figure5"};
	int			op;

	t[2] = t[5] = t[7] = t[8] = t[9] = gs_close_token();
	for (op = 0; op < GS_NUM_OPS; op++)
		report(&f, op, "figure5 textbook", 0, textbook(op, &f), want[op]);
	check_forest(&f, 0);
}

int
main(int argc, char **argv)
{
	unsigned long long seed = argc > 1 ? strtoull(argv[1], NULL, 10) : 1;
	int			rounds = argc > 2 ? atoi(argv[2]) : 3;
	int			big = argc > 3 ? atoi(argv[3]) : 1;
	int			round,
				shape;

	rng_state = seed * 2654435761ULL + 88172645463325252ULL;
	check_figure5();
	check_malformed();
	check_cancel();
	for (round = 0; round < rounds; round++)
	{
		for (shape = 0; shape < 7; shape++)
		{
			static const size_t sizes[] = {0, 1, 2, 3, 7, 40, 300, 5000};
			size_t		s;

			for (s = 0; s < sizeof(sizes) / sizeof(sizes[0]); s++)
			{
				Forest		f;

				make_forest(&f, shape, sizes[s] + rnd_below(3));
				check_forest(&f, 0);
				free(f.tok);
			}
		}
	}
	/* the big ones: depth up to 10^5 */
	for (shape = 0; shape < 7 && big; shape++)
	{
		Forest		f;

		make_forest(&f, shape, 100000);
		check_forest(&f, 1);
		free(f.tok);
	}
	printf("tree_check: %ld checks, %ld failures\n", checks, failures);
	return failures ? 1 : 0;
}
