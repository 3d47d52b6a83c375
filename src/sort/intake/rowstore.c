/*-------------------------------------------------------------------------
 *
 * rowstore.c
 *	  The rows of one GpuSort, packed into large blocks.
 *
 * The rows are copied one after another into blocks that grow from
 * GS_ROWS_FIRST_BLOCK to GS_ROWS_MAX_BLOCK bytes: no allocation header per
 * row, and few allocations.  The large blocks, and the node's arrays indexed
 * by row number (gs_huge_alloc), are offered to the kernel as huge pages
 * (gs_advise_huge_pages, blockpool.c), which spares most of the page faults
 * that first touching gigabytes costs, and most of the TLB misses of the
 * random reads that gather the rows into output order; unless
 * gpusort.huge_pages says not to, which under auto it does where the kernel
 * would compact memory on such a fault (settings.c).
 *
 * What faulting in fresh memory still costs is moved to another core
 * (prefault.c): from blocks of GS_ROWS_AHEAD_MIN bytes on, the next block
 * is allocated one block early and faulted in while the current one fills.
 * gs_rows_finish gives the block ahead back when the input ends, so at most
 * one block is ever faulted in for nothing.
 *
 * Blocks of GS_POOL_MIN_BLOCK bytes and up are mapped by blockpool.c, which
 * keeps them between the session's sorts: a block that an earlier sort
 * filled is already faulted in, and is not handed to the prefaulter.  The
 * pool gives them back when the store's context goes, error or not; the
 * context does not count them, so gs_rows_bytes and gs_rows_mapped add
 * them.
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "utils/memutils.h"

#include "blockpool.h"
#include "rowstore.h"

#define GS_ROWS_FIRST_BLOCK	((Size) 64 * 1024)
#define GS_ROWS_MAX_BLOCK	((Size) 64 * 1024 * 1024)
#define GS_ROWS_AHEAD_MIN	((Size) 4 * 1024 * 1024)

void *
gs_huge_alloc(MemoryContext cxt, Size size)
{
	void	   *p = MemoryContextAllocHuge(cxt, size);

	if (size >= 2 * GS_HUGE_PAGE)
		gs_advise_huge_pages(p, size);
	return p;
}

void *
gs_huge_realloc(void *p, Size size)
{
	p = repalloc_huge(p, size);
	if (size >= 2 * GS_HUGE_PAGE)
		gs_advise_huge_pages(p, size);
	return p;
}

void
gs_rows_init(GsRowStore *rs, MemoryContext parent, GsPrefaulter *prefault)
{
	rs->cxt = AllocSetContextCreate(parent, "GpuSort rows", ALLOCSET_SMALL_SIZES);
	rs->mapped = 0;
	rs->reused = 0;
	rs->next = rs->end = NULL;
	rs->block = GS_ROWS_FIRST_BLOCK;
	rs->max_block = GS_ROWS_MAX_BLOCK;
	rs->ahead = NULL;
	rs->ahead_size = 0;
	rs->prefault = prefault;
}

void
gs_rows_limit_blocks(GsRowStore *rs, Size max)
{
	rs->max_block = GS_ROWS_FIRST_BLOCK;
	while (rs->max_block * 2 <= Min(max, GS_ROWS_MAX_BLOCK))
		rs->max_block *= 2;
}

/* the next block size, growing */
static Size
take_block_size(GsRowStore *rs)
{
	Size		size = rs->block;

	if (rs->block < rs->max_block)
		rs->block *= 2;
	return size;
}

/*
 * A block of at least size bytes, its size in *got; a large one may be
 * larger, up to the store's largest block, where the pool has such a one.
 * false if an earlier sort faulted it in.
 */
static char *
rows_block(GsRowStore *rs, Size size, Size *got, bool *reused)
{
	char	   *p = gs_pool_take(rs->cxt, size, rs->max_block, got, reused);

	rs->mapped += gs_pool_mapped(p);
	if (*reused)
		rs->reused += *got;
	return p;
}

/* Gives one block back before the store goes */
static void
rows_unmap(GsRowStore *rs, char *p)
{
	rs->mapped -= gs_pool_mapped(p);
	gs_pool_free(p);
}

void
gs_rows_next_block(GsRowStore *rs, Size len)
{
	Size		size;
	bool		reused;

	/* the current block's rest is given up */
	if (rs->ahead && len <= rs->ahead_size)
	{
		rs->next = rs->ahead;
		size = rs->ahead_size;
		rs->ahead = NULL;
	}
	else
	{
		/* a row larger than a block gets one of its own */
		size = len > rs->block ? len : take_block_size(rs);
		rs->next = rows_block(rs, size, &size, &reused);
	}
	rs->end = rs->next + size;

	if (rs->ahead == NULL && rs->block >= GS_ROWS_AHEAD_MIN)
	{
		rs->ahead = rows_block(rs, take_block_size(rs), &rs->ahead_size, &reused);
		if (!reused)
			gs_prefault(rs->prefault, rs->ahead, rs->ahead_size);
	}
}

void
gs_rows_finish(GsRowStore *rs)
{
	if (rs->ahead)
		rows_unmap(rs, rs->ahead);
	rs->ahead = NULL;
	rs->ahead_size = 0;
}

void
gs_rows_release(GsRowStore *rs)
{
	if (rs->cxt)
		MemoryContextDelete(rs->cxt);
	rs->cxt = NULL;
	rs->mapped = 0;
	rs->next = rs->end = NULL;
	rs->ahead = NULL;
	rs->ahead_size = 0;
}

Size
gs_rows_bytes(const GsRowStore *rs)
{
	if (rs->cxt == NULL)
		return 0;
	return MemoryContextMemAllocated(rs->cxt, false) + rs->mapped -
		rs->ahead_size;
}

Size
gs_rows_mapped(const GsRowStore *rs)
{
	return rs->cxt ? rs->mapped : 0;
}

/*
 * A virtual slot's row, formed in the store as heap_form_minimal_tuple
 * forms it (the same header, null bitmap, alignment and zeroed padding),
 * without the palloc'd copy in between.
 */
MinimalTuple
gs_rows_store_values(GsRowStore *rs, TupleTableSlot *slot)
{
	TupleDesc	desc = slot->tts_tupleDescriptor;
	int			natts = desc->natts;
	bool		hasnull = false;
	Size		hoff;
	Size		data_len;
	Size		len;
	MinimalTuple tuple;
	int			i;

	slot_getallattrs(slot);
	for (i = 0; i < natts; i++)
	{
		if (slot->tts_isnull[i])
		{
			hasnull = true;
			break;
		}
	}
	hoff = SizeofMinimalTupleHeader;
	if (hasnull)
		hoff += BITMAPLEN(natts);
	hoff = MAXALIGN(hoff);
	data_len = heap_compute_data_size(desc, slot->tts_values, slot->tts_isnull);
	len = hoff + data_len;
	tuple = (MinimalTuple) gs_rows_alloc(rs, len);
	memset(tuple, 0, len);
	tuple->t_len = len;
	HeapTupleHeaderSetNatts(tuple, natts);
	tuple->t_hoff = hoff + MINIMAL_TUPLE_OFFSET;
	heap_fill_tuple(desc, slot->tts_values, slot->tts_isnull,
					(char *) tuple + hoff, data_len, &tuple->t_infomask,
					hasnull ? tuple->t_bits : NULL);
	return tuple;
}
