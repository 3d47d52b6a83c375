/*-------------------------------------------------------------------------
 *
 * tree_gpu.h
 *	  tree_reduce on the GPU, batches of documents (src/tree/tree_gpu.c).
 *
 * gs_tree_reduce_gpu reduces one document.  An aggregate
 * that reduces many small documents should not launch once per row: a
 * GsTreeBatch collects a group's documents (copied into its memory
 * context) and reduces them all as one forest in one launch, since the
 * (+) of the documents' values is the (+) of all their roots.
 *
 *	   b = gs_tree_batch_create(cxt, op, weight_attr);
 *	   while (rows)
 *		   if (!gs_tree_batch_add(b, doc, len))      full: flush, then add
 *	   if (!gs_tree_batch_flush(b, &v, &nelements, why, whylen))
 *		   for i < gs_tree_batch_ndocs(b): reduce gs_tree_batch_doc(b, i) on
 *		   the CPU (the CPU reports any error in document i)
 *	   gs_tree_batch_reset(b);
 *
 * A false return with why[0] == '\0' means the input needs the CPU (it is
 * malformed, so the CPU must report the error); any other false return is
 * a GPU problem worth the WARNING that gpusort.device = gpu promises.
 *
 * The SQL surface (tree_reduce.c) calls the GPU path; the GPU path calls
 * only the layers below (xmltok.c and its backend options, contract.c,
 * the GPU session and the kernels), never the SQL surface.
 *
 *-------------------------------------------------------------------------
 */
#ifndef GPUSORT_TREE_GPU_H
#define GPUSORT_TREE_GPU_H

#include "treeops.h"

/* bytes below which gpusort.device = auto keeps a document on the CPU */
#define GS_TREE_GPU_MIN_BYTES	((Size) 256 * 1024)
/* a batch is flushed when it holds this many bytes */
#define GS_TREE_BATCH_BYTES		((Size) 64 * 1024 * 1024)

/*
 * Called only when built with GPUSORT_TREE_GPU and gpusort.device is not
 * cpu.
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

typedef struct GsTreeBatch GsTreeBatch;

extern GsTreeBatch *gs_tree_batch_create(MemoryContext cxt, int op,
										 const char *weight_attr);
extern bool gs_tree_batch_add(GsTreeBatch *b, const char *doc, size_t len);
extern bool gs_tree_batch_flush(GsTreeBatch *b, GsVal *result, size_t *nelements,
								char *why, size_t whylen);
extern int	gs_tree_batch_ndocs(const GsTreeBatch *b);
extern Size gs_tree_batch_bytes(const GsTreeBatch *b);
extern void gs_tree_batch_doc(const GsTreeBatch *b, int i, const char **doc,
							  size_t *len);
extern void gs_tree_batch_reset(GsTreeBatch *b);

#endif							/* GPUSORT_TREE_GPU_H */
