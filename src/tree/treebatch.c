/*-------------------------------------------------------------------------
 *
 * treebatch.c
 *	  A group's small documents, back to back, waiting for one GPU launch
 *	  (see treebatch.h).
 *
 * The documents are copied into one buffer in the batch's memory context,
 * with an array of their start offsets: the layout the GPU tokenizer reads
 * (one forest, documents back to back) and that the CPU can cut back into
 * documents when the GPU declines.  Both arrays double as they grow; a
 * buffer grown past a batch's worth is given back at the reset.
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "utils/memutils.h"

#include "treebatch.h"

GsTreeBatch *
gs_tree_batch_create(MemoryContext cxt, int op, const char *weight_attr)
{
	GsTreeBatch *b = MemoryContextAllocZero(cxt, sizeof(GsTreeBatch));

	b->cxt = cxt;
	b->op = op;
	b->weight_attr = MemoryContextStrdup(cxt, weight_attr);
	return b;
}

bool
gs_tree_batch_add(GsTreeBatch *b, const char *doc, size_t len)
{
	if (b->ndocs > 0 && b->len + len > GS_TREE_BATCH_BYTES)
		return false;
	if (b->len + len > b->cap)
	{
		Size		ncap = Max(b->cap * 2, Max(b->len + len, (Size) 64 * 1024));

		if (b->buf == NULL)
			b->buf = MemoryContextAllocHuge(b->cxt, ncap);
		else
			b->buf = repalloc_huge(b->buf, ncap);
		b->cap = ncap;
	}
	if (b->ndocs == b->maxdocs)
	{
		int			n = Max(b->maxdocs * 2, 256);

		if (b->starts == NULL)
			b->starts = MemoryContextAllocHuge(b->cxt, n * sizeof(uint64));
		else
			b->starts = repalloc_huge(b->starts, n * sizeof(uint64));
		b->maxdocs = n;
	}
	memcpy(b->buf + b->len, doc, len);
	b->starts[b->ndocs++] = b->len;
	b->len += len;
	return true;
}

int
gs_tree_batch_ndocs(const GsTreeBatch *b)
{
	return b->ndocs;
}

Size
gs_tree_batch_bytes(const GsTreeBatch *b)
{
	return b->len;
}

void
gs_tree_batch_doc(const GsTreeBatch *b, int i, const char **doc, size_t *len)
{
	Assert(i >= 0 && i < b->ndocs);
	*doc = b->buf + b->starts[i];
	*len = (i + 1 < b->ndocs ? b->starts[i + 1] : b->len) - b->starts[i];
}

void
gs_tree_batch_reset(GsTreeBatch *b)
{
	b->len = 0;
	b->ndocs = 0;
	if (b->cap > GS_TREE_BATCH_BYTES)
	{
		pfree(b->buf);
		b->buf = NULL;
		b->cap = 0;
	}
}
