/*-------------------------------------------------------------------------
 *
 * treebatch.h
 *	  A batch of small documents for one GPU launch (src/tree/treebatch.c).
 *
 * An aggregate that reduces many small documents should not launch once
 * per row: a GsTreeBatch collects a group's documents, copied back to back
 * into its memory context, and the GPU path reduces them all as one forest
 * (gs_tree_batch_flush, tree_gpu.h), since the (+) of the documents'
 * values is the (+) of all their roots.
 *
 *	   b = gs_tree_batch_create(cxt, op, weight_attr);
 *	   while (rows)
 *		   if (!gs_tree_batch_add(b, doc, len))      full: flush, then add
 *	   if (!gs_tree_batch_flush(b, &v, &nelements, why, whylen))
 *		   for i < gs_tree_batch_ndocs(b): reduce gs_tree_batch_doc(b, i) on
 *		   the CPU (the CPU reports any error in document i)
 *	   gs_tree_batch_reset(b);
 *
 * The batch is plain memory, nothing of the GPU's: the aggregate owns it
 * and the GPU path only reads it.
 *
 *-------------------------------------------------------------------------
 */
#ifndef GPUSORT_TREEBATCH_H
#define GPUSORT_TREEBATCH_H

/* a batch is flushed when it holds this many bytes */
#define GS_TREE_BATCH_BYTES		((Size) 64 * 1024 * 1024)

typedef struct GsTreeBatch
{
	MemoryContext cxt;
	int			op;
	char	   *weight_attr;
	char	   *buf;			/* the documents, back to back */
	Size		len;
	Size		cap;
	uint64	   *starts;			/* where each document starts in buf */
	int			ndocs;
	int			maxdocs;
} GsTreeBatch;

extern GsTreeBatch *gs_tree_batch_create(MemoryContext cxt, int op,
										 const char *weight_attr);

/* false when the batch is full (or the document alone exceeds a batch) */
extern bool gs_tree_batch_add(GsTreeBatch *b, const char *doc, size_t len);
extern int	gs_tree_batch_ndocs(const GsTreeBatch *b);
extern Size gs_tree_batch_bytes(const GsTreeBatch *b);
extern void gs_tree_batch_doc(const GsTreeBatch *b, int i, const char **doc,
							  size_t *len);

/* empties the batch, keeping its memory unless it grew past a batch */
extern void gs_tree_batch_reset(GsTreeBatch *b);

#endif							/* GPUSORT_TREEBATCH_H */
