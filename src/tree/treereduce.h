/*-------------------------------------------------------------------------
 *
 * treereduce.h
 *	  tree_reduce(): entry points shared by the SQL surface (tree_reduce.c)
 *	  and the GPU path (tree_gpu.c).
 *
 *-------------------------------------------------------------------------
 */
#ifndef GPUSORT_TREEREDUCE_H
#define GPUSORT_TREEREDUCE_H

#include <stdbool.h>
#include <stddef.h>
#include <string.h>

#include "treeops.h"
#include "xmltok.h"

/* gpusort.tree_threads: CPU threads one large document may use */
extern int	gpusort_tree_threads;

/* Defines tree_reduce's settings; called from _PG_init */
extern void gpusort_tree_init(void);

/*
 * Fills the tokenizer's options for op, token arrays growing in the memory
 * context cxt, interrupts served.  Backend code only.
 */
extern void gs_tree_tokenizer_options(GsXmlOptions *opt, int op,
									  const char *weight_attr,
									  size_t weight_attr_len, void *cxt);

/*
 * The part of those options that depends on op alone: the weights from
 * weight_attr when the op reads them, the op's default weight otherwise,
 * and the bound on the sum of |w| that keeps the ops that add weights
 * finite (treeops.h).  Zeroes the rest.
 */
static inline void
gs_tree_weight_options(GsXmlOptions *opt, int op, const char *weight_attr,
					   size_t weight_attr_len)
{
	memset(opt, 0, sizeof(*opt));
	opt->weight_attr = weight_attr;
	opt->weight_attr_len = weight_attr_len;
	opt->read_weight = gs_op_reads_weight(op);
	opt->missing_weight = gs_op_default_weight(op);
	opt->abs_sum_max = gs_op_sums_weights(op) ? GS_WEIGHT_ABS_SUM_MAX : 0;
}

/*
 * The GPU path (src/tree/tree_gpu.c; called only when built with
 * GPUSORT_TREE_GPU and gpusort.device is not cpu).
 *
 * Reduce the document doc[0..len) (serialized XML, as tree_reduce's text
 * form takes it) with op, reading weights from attribute
 * weight_attr[0..weight_attr_len) when gs_op_reads_weight(op), exactly as
 * xmltok.c + contract.c would.  On success return true with the forest's
 * (+)-sum of root values in *result and its number of elements in
 * *nelements (0: no element, *result unused).  Return false, with a short
 * reason in why[0..whylen), whenever the CPU should do it instead: no
 * usable GPU, a document too small to be worth it, or any problem with the
 * input (the CPU path then reports the precise error).  May throw only for
 * interrupts and out-of-memory, and must leave no GPU work running when it
 * does.
 */
extern bool gs_tree_reduce_gpu(const char *doc, size_t len, int op,
							   const char *weight_attr, size_t weight_attr_len,
							   GsVal *result, size_t *nelements,
							   char *why, size_t whylen);

#endif							/* GPUSORT_TREEREDUCE_H */
