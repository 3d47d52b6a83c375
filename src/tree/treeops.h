/*-------------------------------------------------------------------------
 *
 * treeops.h
 *	  The tree reductions of tree_reduce(), each defined once (Koike and Sadakane's GPU tree reduction,
 *	  sections 2.2 and 2.7), for the CPU (contract.c) and the GPU
 *	  (kernels/tree/tree_contract.cu) alike.
 *
 * A tree reduction computes, for the root r of every tree of a forest,
 *
 *		f(v) = h(w_v)						if v is a leaf
 *		f(v) = w_v (x) ( (+)_{u child of v} f(u) )	otherwise
 *
 * and combines the roots' values with (+).  Weights w_v are doubles, values
 * f(v) are GsVal (two doubles, so that max_subtree can carry its pair).
 *
 * Three conventions make one code path serve every op:
 *
 * 1. The identity of (+) is a genuine value, gs_op_identity(), and every op
 *	  satisfies  w (x) identity == h(w).  A leaf is therefore just a vertex
 *	  whose (empty) child sum is the identity, and Algorithm 3.1 never needs
 *	  the paper's special "I" symbol.  For max_path / min_path / height,
 *	  whose (+) is max / min, the identity is -inf / +inf and (x) maps it
 *	  to "no children" (w (x) -inf = w); this is unambiguous because every
 *	  value of a real subtree is finite (see 3).
 *
 * 2. Weights come from the tokenizer already mapped per op: ops that do not
 *	  read weights (count, leaves, height) get the constant
 *	  gs_op_default_weight() at every start tag, and a start tag without
 *	  the weight attribute gets it too (0 for the additive ops, -inf for max,
 *	  +inf for min: the identity of (x) on weights).  count is then sum over
 *	  weights 1, height is max_path over weights 1.
 *
 * 3. Finiteness: the tokenizer rejects NaN and infinite weights, and for the
 *	  ops with gs_op_sums_weights() it rejects documents whose sum of
 *	  absolute weights exceeds GS_WEIGHT_ABS_SUM_MAX, so no partial result
 *	  of any evaluation order (sequential, chunked, GPU) can overflow.
 *
 * Partial contraction (section 2.7, Definition 2.2).  With
 * f_i(x) = a_i (x) (b_i (+) x (+) c_i), gs_op_rho() computes (a, b, c) from
 * (b0, c0, a1, b1, c1, a2) such that
 *
 *		f0 . f1 . f2 (x) == F1 . F2 (x),
 *		F1(x) = a0 (x) (b  (+) x (+) c ),
 *		F2(x) = a  (x) (b2 (+) x (+) c2).
 *
 * a0, b2 and c2 are neither read nor changed, which is what lets chains be
 * contracted independently.  Derivations, per op:
 *
 *	sum, count: (x) = (+) = +:  a = a1 + a2, b = b0 + b1, c = c1 + c0.
 *	max, min:	(x) = (+) = max (min): everything folds into one max (min):
 *				a = max(a1, a2), b = max(b0, b1), c = max(c0, c1).
 *	max_path, min_path, height: (x) = + distributes over (+) = max (min):
 *				a = a1 + a2, b = b0 (+) (a1 + b1), c = (a1 + c1) (+) c0,
 *				where a1 + b1 is plain IEEE addition (an absent b1 = -inf
 *				stays absent), not (x): the paper's "I" shortcut would turn
 *				it into a1 and give wrong answers with negative weights.
 *	leaves:		w (x) y = (y == 0 ? 1 : y), (+) = +.  Every value is >= 1, so
 *				f1(f2(x)) = b1 + c1 + f2(x) and a = 0, b = b0 + b1, c = c0 + c1.
 *	max_subtree: values t = (m, s) (best subtree sum, subtree sum);
 *				a (x) t = (max(a + s_t, m_t), a + s_t),
 *				t (+) u = (max(m_t, m_u), s_t + s_u), identity (-inf, 0),
 *				h(w) = (w, w).  (+) is commutative, so with B0 = b0 (+) c0,
 *				B1 = b1 (+) c1 and d = a1 + s_B1 (the paper's example 3):
 *				a = a2 + max(d, 0), b = (max(m_B0, m_B1), s_B0 + min(d, 0)),
 *				c = identity.  (The paper writes s_b = s_B0 + a1 + s_B1 + a2
 *				- a; the form above is the same number without the
 *				cancellation.)  The answer is m.
 *
 * Everything here is GS_HD (host and device), branch-only on op, so a CUDA
 * kernel may take op as a runtime argument or a template parameter.
 *
 *-------------------------------------------------------------------------
 */
#ifndef GPUSORT_TREEOPS_H
#define GPUSORT_TREEOPS_H

#include <float.h>
#include <math.h>

#include "treerep.h"

typedef enum GsTreeOp
{
	GS_OP_SUM = 0,
	GS_OP_COUNT,
	GS_OP_LEAVES,
	GS_OP_HEIGHT,
	GS_OP_MAX,
	GS_OP_MIN,
	GS_OP_MAX_PATH,
	GS_OP_MIN_PATH,
	GS_OP_MAX_SUBTREE,
	GS_NUM_OPS
} GsTreeOp;

/* A value f(v).  Ops other than max_subtree use m only and keep s == 0. */
typedef struct GsVal
{
	double		m;
	double		s;
} GsVal;

/*
 * Bound on the sum of |w| over one document for ops that add weights: any
 * partial sum, in any order, stays below DBL_MAX / 4.
 */
#define GS_WEIGHT_ABS_SUM_MAX	(DBL_MAX / 4)

/*
 * max and min of values that are never NaN: plain comparisons, which
 * compile inline everywhere (fmax/fmin must handle NaN and are often calls)
 */
GS_HD double
gs_max(double x, double y)
{
	return x > y ? x : y;
}

GS_HD double
gs_min(double x, double y)
{
	return x < y ? x : y;
}

GS_HD GsVal
gs_val(double m, double s)
{
	GsVal		v;

	v.m = m;
	v.s = s;
	return v;
}

/* Does the op read the weight attribute? */
GS_HD bool
gs_op_reads_weight(int op)
{
	return !(op == GS_OP_COUNT || op == GS_OP_LEAVES || op == GS_OP_HEIGHT);
}

/* Weight of a start tag that has no weight (or whose op reads none) */
GS_HD double
gs_op_default_weight(int op)
{
	switch (op)
	{
		case GS_OP_COUNT:
		case GS_OP_HEIGHT:
			return 1.0;
		case GS_OP_MAX:
			return -INFINITY;
		case GS_OP_MIN:
			return INFINITY;
		default:
			return 0.0;
	}
}

/* Must the document's sum of |w| stay below GS_WEIGHT_ABS_SUM_MAX? */
GS_HD bool
gs_op_sums_weights(int op)
{
	return op == GS_OP_SUM || op == GS_OP_MAX_PATH || op == GS_OP_MIN_PATH ||
		op == GS_OP_MAX_SUBTREE;
}

/* Identity of (+); also the child sum of a leaf */
GS_HD GsVal
gs_op_identity(int op)
{
	switch (op)
	{
		case GS_OP_MAX:
		case GS_OP_MAX_PATH:
		case GS_OP_HEIGHT:
			return gs_val(-INFINITY, 0.0);
		case GS_OP_MIN:
		case GS_OP_MIN_PATH:
			return gs_val(INFINITY, 0.0);
		case GS_OP_MAX_SUBTREE:
			return gs_val(-INFINITY, 0.0);
		default:
			return gs_val(0.0, 0.0);
	}
}

/* x (+) y */
GS_HD GsVal
gs_op_add(int op, GsVal x, GsVal y)
{
	switch (op)
	{
		case GS_OP_MAX:
		case GS_OP_MAX_PATH:
		case GS_OP_HEIGHT:
			return gs_val(gs_max(x.m, y.m), 0.0);
		case GS_OP_MIN:
		case GS_OP_MIN_PATH:
			return gs_val(gs_min(x.m, y.m), 0.0);
		case GS_OP_MAX_SUBTREE:
			return gs_val(gs_max(x.m, y.m), x.s + y.s);
		default:				/* sum, count, leaves */
			return gs_val(x.m + y.m, 0.0);
	}
}

/* a (x) y: the value of a vertex of weight a whose children sum to y */
GS_HD GsVal
gs_op_mul(int op, double a, GsVal y)
{
	switch (op)
	{
		case GS_OP_MAX:
			return gs_val(gs_max(a, y.m), 0.0);
		case GS_OP_MIN:
			return gs_val(gs_min(a, y.m), 0.0);
		case GS_OP_MAX_PATH:
		case GS_OP_HEIGHT:
			return gs_val(a + (y.m == -INFINITY ? 0.0 : y.m), 0.0);
		case GS_OP_MIN_PATH:
			return gs_val(a + (y.m == INFINITY ? 0.0 : y.m), 0.0);
		case GS_OP_LEAVES:
			return gs_val(y.m == 0.0 ? 1.0 : y.m, 0.0);
		case GS_OP_MAX_SUBTREE:
			return gs_val(gs_max(a + y.s, y.m), a + y.s);
		default:				/* sum, count */
			return gs_val(a + y.m, 0.0);
	}
}

/*
 * h(w): the value of a leaf of weight w.  By convention 1 of the header
 * comment it is w (x) identity for every op, which is what lets Algorithm
 * 3.1 treat a leaf as a vertex with an empty child sum.
 */
GS_HD GsVal
gs_op_leaf(int op, double w)
{
	return gs_op_mul(op, w, gs_op_identity(op));
}

/*
 * Partial contraction rule: (a, b, c) = (rho1, rho2, rho3)(b0, c0, a1, b1,
 * c1, a2), see the header comment.
 */
GS_HD void
gs_op_rho(int op, GsVal b0, GsVal c0, double a1, GsVal b1, GsVal c1,
		  double a2, double *a, GsVal *b, GsVal *c)
{
	switch (op)
	{
		case GS_OP_MAX:
			*a = gs_max(a1, a2);
			*b = gs_val(gs_max(b0.m, b1.m), 0.0);
			*c = gs_val(gs_max(c0.m, c1.m), 0.0);
			break;
		case GS_OP_MIN:
			*a = gs_min(a1, a2);
			*b = gs_val(gs_min(b0.m, b1.m), 0.0);
			*c = gs_val(gs_min(c0.m, c1.m), 0.0);
			break;
		case GS_OP_MAX_PATH:
		case GS_OP_HEIGHT:
			*a = a1 + a2;
			*b = gs_val(gs_max(b0.m, a1 + b1.m), 0.0);
			*c = gs_val(gs_max(a1 + c1.m, c0.m), 0.0);
			break;
		case GS_OP_MIN_PATH:
			*a = a1 + a2;
			*b = gs_val(gs_min(b0.m, a1 + b1.m), 0.0);
			*c = gs_val(gs_min(a1 + c1.m, c0.m), 0.0);
			break;
		case GS_OP_LEAVES:
			*a = 0.0;
			*b = gs_val(b0.m + b1.m, 0.0);
			*c = gs_val(c0.m + c1.m, 0.0);
			break;
		case GS_OP_MAX_SUBTREE:
			{
				GsVal		B0 = gs_op_add(op, b0, c0);
				GsVal		B1 = gs_op_add(op, b1, c1);
				double		d = a1 + B1.s;

				*a = a2 + gs_max(d, 0.0);
				*b = gs_val(gs_max(B0.m, B1.m), B0.s + gs_min(d, 0.0));
				*c = gs_op_identity(op);
			}
			break;
		default:				/* sum, count */
			*a = a1 + a2;
			*b = gs_val(b0.m + b1.m, 0.0);
			*c = gs_val(c1.m + c0.m, 0.0);
			break;
	}
}

/* The SQL result of a forest (or of many rows) whose roots sum to v */
GS_HD double
gs_op_result(int op, GsVal v)
{
	(void) op;					/* every op's answer is in m, today */
	return v.m;
}

/* ---- host only --------------------------------------------------------- */

#ifndef __CUDACC__
static const char *const gs_op_names[GS_NUM_OPS] = {
	"sum", "count", "leaves", "height", "max", "min",
	"max_path", "min_path", "max_subtree"
};

/* The op named name, or -1 */
static inline int
gs_op_from_name(const char *name)
{
	int			i;

	for (i = 0; i < GS_NUM_OPS; i++)
		if (strcmp(name, gs_op_names[i]) == 0)
			return i;
	return -1;
}

/* "sum, count, ..." for error messages */
#define GS_OP_NAME_LIST \
	"sum, count, leaves, height, max, min, max_path, min_path, max_subtree"
#endif

#endif							/* GPUSORT_TREEOPS_H */
