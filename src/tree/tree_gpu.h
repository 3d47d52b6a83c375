/*-------------------------------------------------------------------------
 *
 * tree_gpu.h
 *	  tree_reduce on the GPU: one document, or an aggregate's batch of them
 *	  (treebatch.h) as one forest (src/tree/tree_gpu.c).
 *
 * Every entry returns false with a short reason in why[0..whylen) whenever
 * the CPU should do the work instead.  A false return with why[0] == '\0'
 * means the input needs the CPU (it is malformed, so the CPU must report
 * the error); any other false return is a GPU problem worth the WARNING
 * that gpusort.device = gpu promises.  Built without CUDA, every call
 * answers "built without CUDA", as the sort engine's stubs do, so the
 * callers need no build switch.
 *
 * The SQL surface (tree_reduce.c) calls the GPU path; the GPU path calls
 * only the layers below (xmltok.c and its backend options, contract.c,
 * the GPU session and the kernels), never the SQL surface.
 *
 *-------------------------------------------------------------------------
 */
#ifndef GPUSORT_TREE_GPU_H
#define GPUSORT_TREE_GPU_H

#include "treebatch.h"
#include "treeops.h"

/* bytes below which gpusort.device = auto keeps a document on the CPU */
#define GS_TREE_GPU_MIN_BYTES	((Size) 256 * 1024)

/*
 * Called only when gpusort.device is not cpu.
 *
 * Reduce the document doc[0..len) (serialized XML, as tree_reduce's text
 * form takes it) with op, reading weights from attribute
 * weight_attr[0..weight_attr_len) when gs_op_reads_weight(op), exactly as
 * xmltok.c + contract.c would.  On success return true with the forest's
 * (+)-sum of root values in *result and its number of elements in
 * *nelements (0: no element, *result unused).  Return false, with a short
 * reason, whenever the CPU should do it instead: no usable GPU, a document
 * too small to be worth it, or any problem with the input (the CPU path
 * then reports the precise error).  May throw only for interrupts and
 * out-of-memory, and must leave no GPU work running when it does.
 */
extern bool gs_tree_reduce_gpu(const char *doc, size_t len, int op,
							   const char *weight_attr, size_t weight_attr_len,
							   GsVal *result, size_t *nelements,
							   char *why, size_t whylen);

/*
 * Whether an aggregate should collect its small documents in a batch for
 * gs_tree_batch_flush: false when built without CUDA, where a batch would
 * only hold memory and delay the CPU.
 */
extern bool gs_tree_gpu_batches(void);

/*
 * The batch's documents as one forest, as gs_tree_reduce_gpu; on false the
 * caller reduces them one by one on the CPU.  The batch is left as it is.
 */
extern bool gs_tree_batch_flush(GsTreeBatch *b, GsVal *result, size_t *nelements,
								char *why, size_t whylen);

#endif							/* GPUSORT_TREE_GPU_H */
