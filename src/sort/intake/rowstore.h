/*-------------------------------------------------------------------------
 *
 * rowstore.h
 *	  The rows of one GpuSort, packed into large blocks.
 *
 * Rows are stored as MinimalTuples one after another, with no allocation
 * header each, in blocks of a memory context of their own; see rowstore.c
 * for the block sizes, huge pages and faulting in ahead.  Storing a row is
 * inline: it is the node's inner loop.  The large blocks come from the
 * session's pool (blockpool.h).
 *
 *-------------------------------------------------------------------------
 */
#ifndef GPUSORT_ROWSTORE_H
#define GPUSORT_ROWSTORE_H

#include "access/htup_details.h"
#include "executor/tuptable.h"

#include "prefault.h"

#if defined(__GNUC__)
#define gs_prefetch(p)		__builtin_prefetch(p)
#else
#define gs_prefetch(p)		((void) 0)
#endif

/*
 * A pass that reads rows in sorted order finds each at a random place of
 * the store, and waits on memory for its header and the columns deformed
 * first: such a pass asks for the first GS_ROW_PREFETCH_LINES cache lines
 * of a row some rows ahead, so that the loads overlap.  A hint only.
 */
#define GS_ROW_PREFETCH_LINES	4

static inline void
gs_prefetch_row(const void *tup)
{
	int			l;

	for (l = 0; l < GS_ROW_PREFETCH_LINES; l++)
		gs_prefetch((const char *) tup + l * 64);
}

/*
 * The lines of a row after its first, up to its end or
 * GS_ROW_PREFETCH_MAX bytes, for a pass that deforms a column past the
 * first few lines: it reads the row's length, so its header must have been
 * asked for some rows before (a pass asks in three steps: the row's
 * pointer, its header, the rest).
 */
#define GS_ROW_PREFETCH_MAX		1024

static inline void
gs_prefetch_row_rest(MinimalTuple tup)
{
	uint32		len = Min(tup->t_len, GS_ROW_PREFETCH_MAX);
	uint32		l;

	for (l = 64; l < len; l += 64)
		gs_prefetch((const char *) tup + l);
}

typedef struct GsRowStore
{
	MemoryContext cxt;			/* the blocks, or NULL */
	Size		mapped;			/* bytes of its blocks blockpool.c mapped */
	char	   *next;			/* free space of the current block */
	char	   *end;
	Size		block;			/* size of the next block */
	Size		max_block;		/* blocks grow to this size */
	char	   *ahead;			/* the block after the current one, or NULL */
	Size		ahead_size;
	GsPrefaulter *prefault;		/* faults in the block ahead, or NULL */
	Size		reused;			/* bytes of blocks that a sort before used */
} GsRowStore;

/* An empty store in a new child context of parent */
extern void gs_rows_init(GsRowStore *rs, MemoryContext parent,
						 GsPrefaulter *prefault);

/*
 * Blocks grow no larger than max (nor smaller than the first block): a
 * small budget then holds no block ahead as large as itself
 */
extern void gs_rows_limit_blocks(GsRowStore *rs, Size max);

/* No more rows will come: gives up the block prepared ahead */
extern void gs_rows_finish(GsRowStore *rs);

/* Frees every row; the store is empty and unusable until gs_rows_init */
extern void gs_rows_release(GsRowStore *rs);

/* Bytes that the rows take, for the memory budget */
extern Size gs_rows_bytes(const GsRowStore *rs);

/* Bytes of the large blocks, which the store's context does not count */
extern Size gs_rows_mapped(const GsRowStore *rs);

/* gs_rows_alloc's slow path: makes room for len more bytes */
extern void gs_rows_next_block(GsRowStore *rs, Size len);

/*
 * Huge allocations for arrays indexed by row number, offered to the kernel
 * as huge pages (gs_advise_huge_pages, blockpool.h).
 */
extern void *gs_huge_alloc(MemoryContext cxt, Size size);
extern void *gs_huge_realloc(void *p, Size size);

static inline char *
gs_rows_alloc(GsRowStore *rs, Size len)
{
	char	   *p;

	len = MAXALIGN(len);
	if ((Size) (rs->end - rs->next) < len)
		gs_rows_next_block(rs, len);
	p = rs->next;
	rs->next += len;
	return p;
}

/* gs_rows_store_slot's case of a virtual slot (rowstore.c) */
extern MinimalTuple gs_rows_store_values(GsRowStore *rs, TupleTableSlot *slot);

static inline MinimalTuple
gs_rows_store_copy(GsRowStore *rs, MinimalTuple tup)
{
	MinimalTuple mtup = (MinimalTuple) gs_rows_alloc(rs, tup->t_len);

	memcpy(mtup, tup, tup->t_len);
	return mtup;
}

/*
 * Copies the slot's row into the store, as a MinimalTuple, writing it once:
 * a virtual row (a projection's) is formed in the store, where fetching a
 * tuple from the slot would form it in palloc'd memory to be copied and
 * freed; a heap or minimal tuple is copied from where it lies.
 */
static inline MinimalTuple
gs_rows_store_slot(GsRowStore *rs, TupleTableSlot *slot)
{
	bool		should_free;
	HeapTuple	htup;
	uint32		len;
	MinimalTuple mtup;

	if (TTS_IS_VIRTUAL(slot))
		return gs_rows_store_values(rs, slot);
	if (TTS_IS_MINIMALTUPLE(slot))
	{
		MinimalTuple tup = ExecFetchSlotMinimalTuple(slot, &should_free);

		mtup = gs_rows_store_copy(rs, tup);
		if (should_free)
			pfree(tup);
		return mtup;
	}
	htup = ExecFetchSlotHeapTuple(slot, false, &should_free);
	len = htup->t_len - MINIMAL_TUPLE_OFFSET;
	mtup = (MinimalTuple) gs_rows_alloc(rs, len);
	/* as minimal_tuple_from_heap_tuple does, without its palloc */
	memcpy(mtup, (char *) htup->t_data + MINIMAL_TUPLE_OFFSET, len);
	mtup->t_len = len;
	if (should_free)
		heap_freetuple(htup);
	return mtup;
}

#endif							/* GPUSORT_ROWSTORE_H */
