/*-------------------------------------------------------------------------
 *
 * xmltok_backend.h
 *	  The tokenizer (xmltok.c) as the backend runs it: its options for an op,
 *	  token arrays grown in a memory context, interrupts served.
 *
 * xmltok.c is plain C (the standalone tests build it as it is); these are
 * the backend's settings for it.  Both the SQL surface (tree_reduce.c) and
 * the GPU path's CPU tokenizer (tree_gpu.c, which tokenizes on the CPU
 * whatever the GPU scan flags) use them, so they live below both, and the
 * GPU path needs nothing from the SQL surface:
 *
 *	   tree_reduce.c -> tree_gpu.c -> xmltok_backend.c, xmltok.c, contract.c
 *
 * and never back up.
 *
 *-------------------------------------------------------------------------
 */
#ifndef GPUSORT_XMLTOK_BACKEND_H
#define GPUSORT_XMLTOK_BACKEND_H

#include <stdbool.h>
#include <stddef.h>
#include <string.h>

#include "treeops.h"
#include "xmltok.h"

/*
 * Fills the tokenizer's options for op, token arrays growing in the memory
 * context cxt, interrupts served, quoted text clipped by the database
 * encoding.  Backend code only (xmltok_backend.c).
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

#endif							/* GPUSORT_XMLTOK_BACKEND_H */
