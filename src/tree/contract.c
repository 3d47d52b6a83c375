/*-------------------------------------------------------------------------
 *
 * contract.c
 *	  Tree reduction over the XML representation on the CPU: the sequential
 *	  reference (Algorithm 3.1 over the whole array) and the chunked
 *	  pseudo-tree contraction of Koike and Sadakane (steps 1-4 of section 3.3, see
 *	  contract.h), with the pieces on several threads.
 *
 * Threads.  Steps 1 and 3 are independent per piece / per interval; the
 * calling thread and nthreads - 1 helper threads (threads.h) take pieces
 * (then intervals) from a shared counter.  Workers only compute on arrays
 * carved out of the caller's workspace: no allocation, no error reporting,
 * no PostgreSQL calls, all signals blocked.  Only the calling thread polls
 * env->interrupted(); when it fires it raises a flag that every thread
 * checks between strides of tokens, all threads are joined and the driver
 * returns GS_TREE_CANCELLED, so the caller can throw safely afterwards.
 *
 * Op as a constant.  The GPU kernels take the op as a template parameter;
 * here every loop over tokens, chain vertices or pieces is reached through
 * a switch that calls it with op a compile-time constant (see EACH_OP), so
 * that each copy has the op branches of treeops.h folded away and no loop
 * branches on op at run time.  That saves a few branches a token, and it
 * keeps clear of a GCC 13 bug (13.2.0 and 13.3.0; not 12.2 or 14): at -O3
 * (-funswitch-loops) its unswitching of a loop on a loop-invariant switch
 * (op) dropped a reachable case label from one loop copy, so that leaves ran
 * gs_op_mul's default (sum) case and gs_tree_reduce_seq returned 0.
 *
 * Pure C, no PostgreSQL headers (standalone tests link this file).
 *
 *-------------------------------------------------------------------------
 */
#include <stdint.h>
#include <string.h>

#include "contract.h"
#include "threads/threads.h"

/* tokens (or chain vertices) between two interrupt polls / cancel checks */
#define STRIDE		((size_t) 1 << 18)

static size_t
min_size(size_t a, size_t b)
{
	return a < b ? a : b;
}

/*
 * X(o) once for every op o: "switch (op) { EACH_OP(CASE) }" calls CASE's
 * code with o a constant (see the header comment).
 */
#define EACH_OP(X) \
	X(GS_OP_SUM) X(GS_OP_COUNT) X(GS_OP_LEAVES) X(GS_OP_HEIGHT) X(GS_OP_MAX) \
	X(GS_OP_MIN) X(GS_OP_MAX_PATH) X(GS_OP_MIN_PATH) X(GS_OP_MAX_SUBTREE)

/* fails to compile if an op is missing from EACH_OP */
#define COUNT_OP(o) + 1
typedef char each_op_lists_every_op[(0 EACH_OP(COUNT_OP)) == GS_NUM_OPS ? 1 : -1];

/* Algorithm 3.1 over tok[0..n) (gs_contract_tokens), one copy per op */
static bool
contract_tokens(int op, const GsToken *tok, size_t n, GsContracted *t)
{
	switch (op)
	{
#define TOKENS_CASE(o) case o: return gs_contract_tokens(o, tok, n, t);
			EACH_OP(TOKENS_CASE)
#undef TOKENS_CASE
	}
	return false;				/* not reached: the drivers check op */
}

/* ---- sequential reference ------------------------------------------------ */

size_t
gs_seq_workspace(size_t n, size_t max_depth)
{
	size_t		cap = max_depth ? max_depth : n / 2 + 1;

	return cap * (sizeof(double) + sizeof(GsVal)) + sizeof(GsVal);
}

int
gs_tree_reduce_seq(int op, const GsToken *tok, size_t n, size_t max_depth,
				   void *work, const GsTreeEnv *env, GsVal *result)
{
	GsContracted t;
	size_t		cap = max_depth ? max_depth : n / 2 + 1;
	size_t		i;

	if (op < 0 || op >= GS_NUM_OPS)
		return GS_TREE_BADARG;
	t.b = (GsVal *) work;
	t.c = t.b + cap;
	t.a = (double *) (t.c + 1);
	t.cap_a = cap;
	t.cap_c = 1;				/* a balanced array never goes above its root */
	gs_contracted_init(op, &t);

	for (i = 0; i < n; i += STRIDE)
	{
		if (env && env->interrupted && env->interrupted(env->arg))
			return GS_TREE_CANCELLED;
		if (!contract_tokens(op, tok + i, min_size(STRIDE, n - i), &t))
			return GS_TREE_MALFORMED;
	}
	if (t.na != 0 || t.nc != 1)
		return GS_TREE_MALFORMED;
	*result = t.c[0];
	return GS_TREE_OK;
}

/* ---- step 2: Algorithm 3.2 ----------------------------------------------- */

/*
 * Replays the pieces' unmatched end tags against a stack of runs of
 * unmatched start tags.  A piece's end tags take runs from the top, deepest
 * first; each run they finish, and the run they stop in, gives one
 * interval, so there are at most 2k.  Intervals come out grouped by q in
 * increasing order, deepest first within q, which is the order step 4
 * consumes them in.
 */
long
gs_match_parentheses(const GsContracted *t, int k, GsInterval *iv,
					 GsOpenRun *stack)
{
	long		niv = 0;
	int			sp = 0;
	int			i;

	for (i = 0; i < k; i++)
	{
		size_t		closes = t[i].nc - 1;
		size_t		cfirst = 0;

		while (closes > 0)
		{
			GsOpenRun  *top;
			size_t		m;

			if (sp == 0)
				return -1;		/* an end tag without a start tag */
			top = &stack[sp - 1];
			m = min_size(closes, top->hi - top->lo + 1);
			iv[niv].p = top->p;
			iv[niv].q = i;
			iv[niv].hi = top->hi;
			iv[niv].lo = top->hi - m + 1;
			iv[niv].cfirst = cfirst;
			niv++;
			cfirst += m;
			closes -= m;
			if (top->lo + m > top->hi)
				sp--;
			else
				top->hi -= m;
		}
		if (t[i].na > 0)
		{
			stack[sp].p = i;
			stack[sp].lo = 0;
			stack[sp].hi = t[i].na - 1;
			sp++;
		}
	}
	return sp == 0 ? niv : -1;	/* runs left open: unclosed start tags */
}

/* ---- step 4 -------------------------------------------------------------- */

/* (+) v into the accumulator of the level now open: the top run's, or the root's */
static void
add_to_level(int op, GsOpenRun *stack, int sp, GsVal *root, GsVal v)
{
	if (sp > 0)
		stack[sp - 1].acc = gs_op_add(op, stack[sp - 1].acc, v);
	else
		*root = gs_op_add(op, *root, v);
}

/*
 * The same replay as step 2, now carrying values: an interval's chain is
 * applied to what has accumulated below its bottom vertex, and its top
 * vertex's value joins the level above.  Called with op a constant
 * (gs_contract_global).
 */
static inline int
contract_global(int op, const GsContracted *t, int k, const GsInterval *iv,
				long niv, GsOpenRun *stack, GsVal *result)
{
	GsVal		root = gs_op_identity(op);
	long		j = 0;
	int			sp = 0;
	int			i;

	for (i = 0; i < k; i++)
	{
		for (; j < niv && iv[j].q == i; j++)
		{
			GsOpenRun  *top;
			GsVal		v;

			if (sp == 0)
				return GS_TREE_MALFORMED;
			top = &stack[sp - 1];
			if (top->p != iv[j].p || top->hi != iv[j].hi || iv[j].lo < top->lo)
				return GS_TREE_MALFORMED;	/* not the intervals of t */
			v = gs_chain_apply(op, &iv[j].f, top->acc);
			if (iv[j].lo == top->lo)
			{
				sp--;
				add_to_level(op, stack, sp, &root, v);
			}
			else
			{
				top->hi = iv[j].lo - 1;
				top->acc = v;
			}
		}
		/* values completed at the level i ends its end tags on */
		add_to_level(op, stack, sp, &root, t[i].c[t[i].nc - 1]);
		if (t[i].na > 0)
		{
			stack[sp].p = i;
			stack[sp].lo = 0;
			stack[sp].hi = t[i].na - 1;
			stack[sp].acc = gs_op_identity(op);
			sp++;
		}
	}
	if (sp != 0 || j != niv)
		return GS_TREE_MALFORMED;
	*result = root;
	return GS_TREE_OK;
}

int
gs_contract_global(int op, const GsContracted *t, int k, const GsInterval *iv,
				   long niv, GsOpenRun *stack, GsVal *result)
{
	switch (op)
	{
#define GLOBAL_CASE(o) \
		case o: return contract_global(o, t, k, iv, niv, stack, result);
			EACH_OP(GLOBAL_CASE)
#undef GLOBAL_CASE
	}
	return GS_TREE_BADARG;
}

/* ---- chunked driver ------------------------------------------------------ */

typedef struct Shared
{
	int			op;
	const GsToken *tok;
	const size_t *cuts;
	int			k;
	GsContracted *t;
	GsInterval *iv;
	long		niv;
	int			phase;			/* 1: step 1, 3: step 3 */
	long		next;			/* next piece / interval to take */
	int			cancel;			/* set by the calling thread */
	int			malformed;
	const GsTreeEnv *env;
} Shared;

static bool
cancelled(Shared *sh, bool caller)
{
	if (caller && sh->env && sh->env->interrupted &&
		sh->env->interrupted(sh->env->arg))
		__atomic_store_n(&sh->cancel, 1, __ATOMIC_RELAXED);
	return __atomic_load_n(&sh->cancel, __ATOMIC_RELAXED) != 0;
}

/* step 1 for piece i */
static void
contract_piece(Shared *sh, int i, bool caller)
{
	GsContracted *t = &sh->t[i];
	size_t		from = sh->cuts[i],
				to = sh->cuts[i + 1];

	gs_contracted_init(sh->op, t);
	while (from < to)
	{
		size_t		n = min_size(STRIDE, to - from);

		if (cancelled(sh, caller))
			return;
		if (!contract_tokens(sh->op, sh->tok + from, n, t))
		{
			__atomic_store_n(&sh->malformed, 1, __ATOMIC_RELAXED);
			return;
		}
		from += n;
	}
}

/*
 * Push A_p[from..to] of interval iv, closed by C_q's end tags, onto its
 * chain (gs_contract_interval's loop), one copy per op
 */
static inline void
push_vertices(int op, const GsContracted *p, const GsContracted *q,
			  GsInterval *iv, size_t from, size_t to)
{
	size_t		x;

	for (x = from; x <= to; x++)
		gs_chain_push(op, &iv->f, p->a[x], p->b[x],
					  q->c[iv->cfirst + (iv->hi - x)]);
}

/* push_vertices with op a constant */
static void
push_vertices_op(int op, const GsContracted *p, const GsContracted *q,
				 GsInterval *iv, size_t from, size_t to)
{
	switch (op)
	{
#define PUSH_CASE(o) \
		case o: push_vertices(o, p, q, iv, from, to); break;
			EACH_OP(PUSH_CASE)
#undef PUSH_CASE
	}
}

/* step 3 for interval j: gs_contract_interval, in strides */
static void
contract_interval(Shared *sh, long j, bool caller)
{
	GsInterval *iv = &sh->iv[j];
	const GsContracted *p = &sh->t[iv->p];
	const GsContracted *q = &sh->t[iv->q];
	size_t		from = iv->lo;

	gs_chain_init(&iv->f);
	if (iv->lo > iv->hi)
		return;					/* empty chain: nothing to push */
	for (;;)
	{
		size_t		to = iv->hi - from < STRIDE ? iv->hi : from + STRIDE - 1;

		push_vertices_op(sh->op, p, q, iv, from, to);
		if (to == iv->hi || cancelled(sh, caller))
			return;
		from = to + 1;
	}
}

static void
run_phase(Shared *sh, bool caller)
{
	long		count = sh->phase == 1 ? sh->k : sh->niv;

	for (;;)
	{
		long		j = __atomic_fetch_add(&sh->next, 1, __ATOMIC_RELAXED);

		/* poll first: the calling thread polls at least once per phase */
		if (cancelled(sh, caller) || j >= count)
			break;
		if (sh->phase == 1)
			contract_piece(sh, (int) j, caller);
		else
			contract_interval(sh, j, caller);
	}
}

static void *
worker_main(void *arg)
{
	run_phase((Shared *) arg, false);
	return NULL;
}

/*
 * Run the current phase on the calling thread and up to nthreads - 1 more.
 * Threads that cannot be created are simply not there: the calling thread
 * takes their share.
 */
static void
run_parallel(Shared *sh, int nthreads, long count)
{
	pthread_t	th[GS_MAX_THREADS];
	int			started = 0;
	int			i;

	sh->next = 0;
	if (nthreads > GS_MAX_THREADS)
		nthreads = GS_MAX_THREADS;
	if (nthreads > count)
		nthreads = (int) count;
	if (nthreads > 1)
		started = gs_start_threads(th, nthreads - 1, worker_main, sh, 0);
	run_phase(sh, true);
	for (i = 0; i < started; i++)
		pthread_join(th[i], NULL);
}

static size_t
piece_cap(size_t len, size_t max_depth)
{
	return max_depth ? min_size(len, max_depth) : len;
}

size_t
gs_chunked_workspace(size_t n, int k, size_t max_depth)
{
	size_t		cap = n;

	if (k < 1)
		k = 1;
	if (max_depth && max_depth <= n / (size_t) k)
		cap = max_depth * (size_t) k;
	return (size_t) k * (sizeof(GsContracted) + 2 * sizeof(GsInterval) +
						 sizeof(GsOpenRun) + sizeof(size_t) + sizeof(GsVal)) +
		sizeof(size_t) + cap * (sizeof(double) + 2 * sizeof(GsVal));
}

int
gs_tree_reduce_chunked(int op, const GsToken *tok, size_t n, int k,
					   const size_t *cuts, size_t max_depth, void *work,
					   const GsTreeEnv *env, GsVal *result)
{
	Shared		sh;
	GsContracted *t;
	GsInterval *iv;
	GsOpenRun  *stack;
	size_t	   *even;
	size_t		total_a = 0,
				total_c = 0;
	double	   *a;
	GsVal	   *b,
			   *c;
	int			i;
	int			nthreads = env && env->nthreads > 1 ? env->nthreads : 1;

	if (k < 1 || op < 0 || op >= GS_NUM_OPS)
		return GS_TREE_BADARG;
	t = (GsContracted *) work;
	iv = (GsInterval *) (t + k);
	stack = (GsOpenRun *) (iv + 2 * (size_t) k);
	even = (size_t *) (stack + k);
	if (cuts == NULL)
	{
		for (i = 0; i <= k; i++)
			even[i] = n / (size_t) k * (size_t) i +
				n % (size_t) k * (size_t) i / (size_t) k;	/* = n * i / k */
		cuts = even;
	}
	if (cuts[0] != 0 || cuts[k] != n)
		return GS_TREE_BADARG;
	for (i = 0; i < k; i++)
	{
		if (cuts[i] > cuts[i + 1])
			return GS_TREE_BADARG;
		total_a += piece_cap(cuts[i + 1] - cuts[i], max_depth);
		total_c += piece_cap(cuts[i + 1] - cuts[i], max_depth) + 1;
	}
	b = (GsVal *) (even + k + 1);
	c = b + total_a;
	a = (double *) (c + total_c);
	for (i = 0; i < k; i++)
	{
		size_t		cap = piece_cap(cuts[i + 1] - cuts[i], max_depth);

		t[i].a = a;
		t[i].b = b;
		t[i].c = c;
		t[i].cap_a = cap;
		t[i].cap_c = cap + 1;
		a += cap;
		b += cap;
		c += cap + 1;
	}

	memset(&sh, 0, sizeof(sh));
	sh.op = op;
	sh.tok = tok;
	sh.cuts = cuts;
	sh.k = k;
	sh.t = t;
	sh.iv = iv;
	sh.env = env;

	/* step 1: local contraction of the pieces */
	sh.phase = 1;
	run_parallel(&sh, nthreads, k);
	if (sh.cancel)
		return GS_TREE_CANCELLED;
	if (sh.malformed)
		return GS_TREE_MALFORMED;

	/* step 2: global parentheses matching, O(k) */
	sh.niv = gs_match_parentheses(t, k, iv, stack);
	if (sh.niv < 0)
		return GS_TREE_MALFORMED;

	/* step 3: contract each interval's chain */
	sh.phase = 3;
	run_parallel(&sh, nthreads, sh.niv);
	if (sh.cancel)
		return GS_TREE_CANCELLED;

	/* step 4: global contraction, O(k) */
	return gs_contract_global(op, t, k, iv, sh.niv, stack, result);
}
