/*-------------------------------------------------------------------------
 *
 * contract.h
 *	  Pseudo-tree contraction of the XML representation (Koike and Sadakane's GPU tree reduction,
 *	  sections 3.2-3.7): the contracted-tree 5-tuple, chain contraction with
 *	  the partial contraction rule, and the sequential and chunked drivers.
 *
 * The chunked algorithm, which the GPU code follows too:
 *
 *	Step 1	Cut the token array into k contiguous pieces (pseudo-trees) and
 *			contract each to its 5-tuple (A, B, C, NA, NC) with Algorithm 3.1
 *			(gs_contract_tokens).  A[0..NA) are the weights of the vertices
 *			opened and not closed in the piece, top to bottom; B[j] is the
 *			(+) of A[j]'s children completed in the piece.  C[j], j < NC-1,
 *			is the (+) of the children completed in the piece of the vertex
 *			that the piece's j-th unmatched end tag closes (C[0]: the pseudo
 *			root's), and C[NC-1] collects the values completed at the level
 *			the piece ends its unmatched end tags on (A[0]'s siblings).
 *	Step 2	Match the pieces' unmatched tags (Algorithm 3.2) from NA and NC
 *			alone: the result is at most 2k intervals, "A_p[lo..hi] are
 *			closed by piece q's unmatched end tags cfirst..cfirst+hi-lo".
 *	Step 3	Contract each interval's chain of vertices, using B_p and C_q,
 *			into a GsChain, a composition of at most two functions
 *			x -> a (x) (b (+) x (+) c), with the partial contraction rule
 *			(gs_op_rho).  Intervals are independent: threads / thread blocks.
 *	Step 4	Replay the matching over the O(k) intervals with a stack,
 *			feeding each chain the (+) of what lies between its bottom vertex
 *			and its end tags; the forest's value is what reaches the root.
 *
 * Invariant behind step 4: for an interval whose bottom vertex is v, every
 * child of v that is neither in B_p[hi] nor in C_q[cfirst] is completed
 * between piece p and piece q, at the stack level just below v, so its
 * value has been (+)-ed into that stack entry's accumulator when q runs.
 *
 * The GS_HD functions below are the pieces the GPU kernels reuse; the
 * drivers (contract.c) are host-only, pure C, no PostgreSQL headers: the
 * caller passes preallocated workspace and an interrupt callback.
 *
 *-------------------------------------------------------------------------
 */
#ifndef GPUSORT_CONTRACT_H
#define GPUSORT_CONTRACT_H

#include <stddef.h>

#include "treeops.h"

/* Return codes of the drivers */
#define GS_TREE_OK			0
#define GS_TREE_CANCELLED	1	/* env->interrupted() returned true */
#define GS_TREE_MALFORMED	2	/* tokens are not a forest (unbalanced), or
								 * deeper than the max_depth promised */
#define GS_TREE_BADARG		3	/* bad op / k / cuts / workspace size */

/* The 5-tuple of one piece (section 3.2), with the capacity of its arrays */
typedef struct GsContracted
{
	double	   *a;				/* A[cap_a]: weights, top to bottom */
	GsVal	   *b;				/* B[cap_a]: children sums of A's vertices */
	GsVal	   *c;				/* C[cap_c]: bottom (pseudo root) to top */
	size_t		na;				/* NA */
	size_t		nc;				/* NC >= 1 */
	size_t		cap_a;
	size_t		cap_c;
} GsContracted;

/*
 * x -> F(x) = top(bot(x)) (levels 2), top(x) (levels 1), x (levels 0),
 * where each of top and bot is x -> a (x) (b (+) x (+) c).
 */
typedef struct GsChain
{
	int			levels;
	double		a_top;
	GsVal		b_top;
	GsVal		c_top;
	double		a_bot;
	GsVal		b_bot;
	GsVal		c_bot;
} GsChain;

/* Step 2 output / step 3 input and output */
typedef struct GsInterval
{
	int			p;				/* piece whose A[lo..hi] ... */
	int			q;				/* ... piece q's unmatched end tags close */
	size_t		lo;
	size_t		hi;
	size_t		cfirst;			/* q's end tag closing A_p[hi] (C_q index) */
	GsChain		f;				/* step 3: the chain A_p[lo..hi] as one map */
} GsInterval;

/* Steps 2 and 4: A_p[lo..hi], opened and not yet closed */
typedef struct GsOpenRun
{
	int			p;
	size_t		lo;
	size_t		hi;
	GsVal		acc;			/* step 4: (+) of the values completed so far
								 * at the level below A_p[hi], outside p */
} GsOpenRun;

/* ---- step 1: Algorithm 3.1 ---------------------------------------------- */

GS_HD void
gs_contracted_init(int op, GsContracted *t)
{
	t->na = 0;
	t->nc = 1;
	t->c[0] = gs_op_identity(op);
}

/*
 * Algorithm 3.1 over tok[0..n), continuing t (so a piece can be fed in
 * strides).  Returns false if A or C would outgrow its capacity, which a
 * balanced array within the promised depth never does.
 */
GS_HD bool
gs_contract_tokens(int op, const GsToken *tok, size_t n, GsContracted *t)
{
	size_t		na = t->na;
	size_t		nc = t->nc;
	size_t		i;

	for (i = 0; i < n; i++)
	{
		if (!gs_is_close(tok[i]))
		{
			if (na >= t->cap_a)
				return false;
			t->a[na] = tok[i];
			t->b[na] = gs_op_identity(op);
			na++;
		}
		else if (na == 0)
		{
			/* closes a vertex opened before the piece: one level up */
			if (nc >= t->cap_c)
				return false;
			t->c[nc++] = gs_op_identity(op);
		}
		else
		{
			GsVal		v;

			na--;
			v = gs_op_mul(op, t->a[na], t->b[na]);
			if (na == 0)
				t->c[nc - 1] = gs_op_add(op, t->c[nc - 1], v);
			else
				t->b[na - 1] = gs_op_add(op, t->b[na - 1], v);
		}
	}
	t->na = na;
	t->nc = nc;
	return true;
}

/* ---- step 3: chains and the partial contraction rule -------------------- */

GS_HD void
gs_chain_init(GsChain *f)
{
	f->levels = 0;
}

/*
 * f := f . (x -> a (x) (b (+) x (+) c)): append one vertex below the
 * chain's bottom.  Past two levels, gs_op_rho folds the old bottom into the
 * top and the new vertex becomes the bottom.
 */
GS_HD void
gs_chain_push(int op, GsChain *f, double a, GsVal b, GsVal c)
{
	if (f->levels == 0)
	{
		f->a_top = a;
		f->b_top = b;
		f->c_top = c;
		f->levels = 1;
	}
	else if (f->levels == 1)
	{
		f->a_bot = a;
		f->b_bot = b;
		f->c_bot = c;
		f->levels = 2;
	}
	else
	{
		double		na;
		GsVal		nb,
					nc;

		gs_op_rho(op, f->b_top, f->c_top, f->a_bot, f->b_bot, f->c_bot, a,
				  &na, &nb, &nc);
		f->b_top = nb;
		f->c_top = nc;
		f->a_bot = na;
		f->b_bot = b;
		f->c_bot = c;
	}
}

/* f := f . g (g's top goes below f's bottom) */
GS_HD void
gs_chain_concat(int op, GsChain *f, const GsChain *g)
{
	if (g->levels >= 1)
		gs_chain_push(op, f, g->a_top, g->b_top, g->c_top);
	if (g->levels >= 2)
		gs_chain_push(op, f, g->a_bot, g->b_bot, g->c_bot);
}

/* F(x) */
GS_HD GsVal
gs_chain_apply(int op, const GsChain *f, GsVal x)
{
	if (f->levels >= 2)
		x = gs_op_mul(op, f->a_bot,
					  gs_op_add(op, gs_op_add(op, f->b_bot, x), f->c_bot));
	if (f->levels >= 1)
		x = gs_op_mul(op, f->a_top,
					  gs_op_add(op, gs_op_add(op, f->b_top, x), f->c_top));
	return x;
}

/*
 * Step 3 for one interval: the chain of A_p[lo..hi], top first, where
 * A_p[x] is closed by q's end tag cfirst + (hi - x).
 */
GS_HD void
gs_contract_interval(int op, const GsContracted *t, GsInterval *iv)
{
	const GsContracted *p = &t[iv->p];
	const GsContracted *q = &t[iv->q];
	size_t		x;

	gs_chain_init(&iv->f);
	for (x = iv->lo; x <= iv->hi; x++)
		gs_chain_push(op, &iv->f, p->a[x], p->b[x],
					  q->c[iv->cfirst + (iv->hi - x)]);
}

/* ---- host drivers (contract.c) ------------------------------------------ */

#ifndef __CUDACC__

typedef struct GsTreeEnv
{
	/*
	 * Polled from the calling thread only, every few hundred thousand
	 * tokens; true makes the driver stop all threads and return
	 * GS_TREE_CANCELLED (it must not longjmp).  May be NULL.
	 */
	bool		(*interrupted) (void *arg);
	void	   *arg;
	int			nthreads;		/* threads to use, >= 1 (the caller's
								 * included) */
} GsTreeEnv;

/*
 * max_depth: a bound on the nesting depth of the tokens (the tokenizer
 * reports it), or 0 if unknown; it bounds the workspace.
 */

/* Sequential reference: Algorithm 3.1 over the whole array; the result is C[0] */
extern size_t gs_seq_workspace(size_t n, size_t max_depth);
extern int	gs_tree_reduce_seq(int op, const GsToken *tok, size_t n,
							   size_t max_depth, void *work,
							   const GsTreeEnv *env, GsVal *result);

/*
 * Chunked contraction over k pieces.  cuts[0..k] are the piece boundaries
 * (cuts[0] = 0, cuts[k] = n, nondecreasing; empty pieces are fine), or NULL
 * for k even pieces.  work holds gs_chunked_workspace(n, k, max_depth)
 * bytes, suitably aligned (palloc / malloc).
 */
extern size_t gs_chunked_workspace(size_t n, int k, size_t max_depth);
extern int	gs_tree_reduce_chunked(int op, const GsToken *tok, size_t n, int k,
								   const size_t *cuts, size_t max_depth,
								   void *work, const GsTreeEnv *env,
								   GsVal *result);

/*
 * Steps 2 and 4 alone, for callers (the GPU path) that produce the k
 * 5-tuples and run step 3 themselves.  gs_match_parentheses writes at most
 * 2k intervals to iv and returns how many, or -1 if the pieces are
 * unbalanced; stack has room for k entries.  gs_contract_global needs the
 * same stack and returns GS_TREE_OK, GS_TREE_MALFORMED or (unknown op)
 * GS_TREE_BADARG.  Both read only na, nc and (step 4) c[nc - 1] of each
 * piece, so a caller that keeps the 5-tuples elsewhere (in device memory)
 * need copy back only those.
 */
extern long gs_match_parentheses(const GsContracted *t, int k,
								 GsInterval *iv, GsOpenRun *stack);
extern int	gs_contract_global(int op, const GsContracted *t, int k,
							   const GsInterval *iv, long niv,
							   GsOpenRun *stack, GsVal *result);

#endif							/* !__CUDACC__ */

#endif							/* GPUSORT_CONTRACT_H */
