/*-------------------------------------------------------------------------
 *
 * blockpool.c
 *	  Large row-store blocks and scratch arrays kept mapped between a
 *	  session's sorts.
 *
 * Storing the rows of a large sort into fresh memory costs a page fault,
 * and the kernel's zeroing of the page, for every 4 kB written: for wide
 * rows that is most of a serial sort's time.  A session that sorts again
 * would pay all of it again, since each block went back to the kernel
 * (munmap) when its sort ended.  So the large blocks (GS_POOL_MIN_BLOCK and
 * up) are mapped here, and when their sort's row store goes (its context's
 * reset callback: the end of the sort, a rescan, an ERROR or a cancel
 * alike) they are kept in a per-backend pool, from which the next sort
 * takes them.
 *
 * A pooled block is first given madvise(MADV_FREE): its pages stay mapped
 * and, written again before the kernel needs them, cost no fault; but the
 * kernel may take any of them back under memory pressure (a cgroup's limit
 * included) without swapping and without the OOM killer, after which a
 * write faults in a zero page as in fresh memory.  The contents of a block
 * never matter, so either is fine.  Without MADV_FREE (Linux before 4.5)
 * nothing is pooled: memory that the kernel cannot reclaim is not kept.
 *
 * The sort's large scratch arrays, such as the radix sort's second buffer,
 * come from the pool the same way (gs_pool_alloc).  Every block is given
 * back by gs_pool_free, or else by a reset callback of the context it was
 * taken for; a small header before the caller's bytes leads from a block
 * to its callback's record (PoolTake), so a block given back early is not
 * given back twice.
 *
 * Bounds: the pool holds at most gpusort.keep_memory and at most what one
 * sort may use (gpusort.max_memory); past them blocks are unmapped.  It
 * holds only blocks that the session's sorts mapped, so a session that
 * sorts little keeps little.  Shrinking gpusort.keep_memory
 * trims the pool at once (gs_pool_init sets the setting's hook: settings.c
 * lies below the pool and does not call it), gpusort.max_memory at the
 * next sort; the pool lives in static memory (no allocation in the
 * callbacks) and goes with the process.  Parallel workers keep nothing:
 * they exit soon.
 *
 * Fresh blocks are mapped at huge page boundaries, so that the huge-page
 * advice (gs_advise_huge_pages, here since the pool maps the blocks; the
 * row store's arrays get it too) covers them whole.
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include <sys/mman.h>
#include <unistd.h>

#include "access/parallel.h"
#include "utils/memutils.h"

#include "blockpool.h"
#include "runtime/settings.h"

/* blocks the pool can hold; more are unmapped (1 GB in 4 MB blocks) */
#define GS_POOL_SLOTS		256

typedef struct PoolBlock
{
	char	   *p;
	Size		size;
} PoolBlock;

static PoolBlock pool[GS_POOL_SLOTS];
static int	npool = 0;
static Size pool_bytes = 0;

/* the settings' bound as of the last pool_map */
static Size pool_limit = 0;

/* a mapped block of gs_pool_take; in the caller's context */
typedef struct PoolTake
{
	MemoryContextCallback cb;
	char	   *base;			/* the block; NULL once given back */
	Size		size;
} PoolTake;

/*
 * The caller's memory starts this far into the block or allocation (a
 * cache line), after a pointer to its PoolTake, NULL if palloc'd
 */
#define GS_TAKE_HEADER	64

void
gs_pool_init(void)
{
	gpusort_keep_memory_hook = gs_pool_trim;
}

void
gs_advise_huge_pages(void *p, Size size)
{
#ifdef MADV_HUGEPAGE
	uintptr_t	start = TYPEALIGN(GS_HUGE_PAGE, (uintptr_t) p);
	uintptr_t	end = TYPEALIGN_DOWN(GS_HUGE_PAGE, (uintptr_t) p + size);

	/* only a hint: the kernel may ignore it, and an error changes nothing */
	if (end > start && gpusort_huge_pages_advised(NULL))
		(void) madvise((void *) start, end - start, MADV_HUGEPAGE);
#endif
}

Size
gs_pool_bytes(void)
{
	return pool_bytes;
}

void
gs_pool_trim(Size limit)
{
	/* and blocks of sorts running now come back within it too */
	pool_limit = Min(pool_limit, limit);
	while (pool_bytes > limit && npool > 0)
	{
		PoolBlock	b = pool[--npool];

		(void) munmap(b.p, b.size);
		pool_bytes -= b.size;
	}
}

/* the pooled block of [size, max] with the fewest bytes, or -1 */
static int
pool_find(Size size, Size max)
{
	int			best = -1;
	int			i;

	for (i = 0; i < npool; i++)
	{
		if (pool[i].size < size || pool[i].size > max)
			continue;
		if (best < 0 || pool[i].size < pool[best].size)
			best = i;
	}
	return best;
}

/* size bytes at a huge page boundary, or MAP_FAILED */
static char *
map_aligned(Size size)
{
	Size		len = size + GS_HUGE_PAGE;
	char	   *raw = mmap(NULL, len, PROT_READ | PROT_WRITE,
						   MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	char	   *p;

	if (raw == MAP_FAILED)
		return MAP_FAILED;
	p = (char *) TYPEALIGN(GS_HUGE_PAGE, (uintptr_t) raw);
	if (p > raw)
		(void) munmap(raw, p - raw);
	if (raw + len > p + size)
		(void) munmap(p + size, raw + len - (p + size));
	return p;
}

/* what the pool may hold: the settings' bounds (settings.c), none in a worker */
static Size
pool_bound(void)
{
#ifdef MADV_FREE
	if (!IsParallelWorker())
		return gpusort_keep_memory_limit();
#endif
	return 0;
}

/* a block the pool does not have: mapped now, offered huge pages */
static char *
map_fresh(Size size)
{
	char	   *p = map_aligned(size);

	if (p == MAP_FAILED)
		ereport(ERROR,
				(errcode(ERRCODE_OUT_OF_MEMORY),
				 errmsg("out of memory"),
				 errdetail("Failed on request of size %zu for a GpuSort.", size)));
	gs_advise_huge_pages(p, size);
	return p;
}

/*
 * A block of [size, Max(size, max)] bytes: one the pool kept (*reused), or
 * a fresh mapping; its size in *got
 */
static char *
pool_map(Size size, Size max, Size *got, bool *reused)
{
	Size		page = (Size) sysconf(_SC_PAGESIZE);
	char	   *p;
	int			i;

	pool_limit = pool_bound();
	gs_pool_trim(pool_limit);
	size = TYPEALIGN(page, size);
	i = pool_find(size, Max(size, TYPEALIGN(page, max)));
	if (i >= 0)
	{
		PoolBlock	b = pool[i];

		pool[i] = pool[--npool];
		pool_bytes -= b.size;
		*got = b.size;
		*reused = true;
		p = b.p;
	}
	else
	{
		p = map_fresh(size);
		*got = size;
		*reused = false;
	}
	return p;
}

/* a block of pool_map goes: into the pool, within its bounds, or unmapped */
static void
pool_unmap(char *p, Size size)
{
#ifdef MADV_FREE
	if (npool < GS_POOL_SLOTS && pool_bytes + size <= pool_limit &&
		madvise(p, size, MADV_FREE) == 0)
	{
		pool[npool].p = p;
		pool[npool].size = size;
		npool++;
		pool_bytes += size;
		return;
	}
#endif
	(void) munmap(p, size);
}

/* a block's context goes (an ERROR, or its end): the block goes too */
static void
take_unmap(void *arg)
{
	PoolTake   *pt = (PoolTake *) arg;

	if (pt->base)
		pool_unmap(pt->base, pt->size);
	pt->base = NULL;
}

void *
gs_pool_take(MemoryContext cxt, Size size, Size max, Size *got, bool *reused)
{
	PoolTake   *pt;
	char	   *p;
	Size		len = size + GS_TAKE_HEADER;

	*reused = false;
	if (len < GS_POOL_MIN_BLOCK)
	{
		p = MemoryContextAllocHuge(cxt, len);
		pt = NULL;
		*got = size;
	}
	else
	{
		/* listed before mapping: an ERROR in between would leak the block */
		pt = MemoryContextAllocZero(cxt, sizeof(PoolTake));
		p = pool_map(len, max + GS_TAKE_HEADER, &pt->size, reused);
		pt->base = p;
		pt->cb.func = take_unmap;
		pt->cb.arg = pt;
		MemoryContextRegisterResetCallback(cxt, &pt->cb);
		*got = pt->size - GS_TAKE_HEADER;
	}
	((PoolTake **) (p + GS_TAKE_HEADER))[-1] = pt;
	return p + GS_TAKE_HEADER;
}

void *
gs_pool_alloc(MemoryContext cxt, Size size)
{
	Size		got;
	bool		reused;

	return gs_pool_take(cxt, size, 2 * size, &got, &reused);
}

void
gs_pool_free(void *ptr)
{
	PoolTake   *pt = ((PoolTake **) ptr)[-1];

	if (pt == NULL)
		pfree((char *) ptr - GS_TAKE_HEADER);
	else
		take_unmap(pt);
}

Size
gs_pool_mapped(const void *ptr)
{
	const PoolTake *pt = ((PoolTake *const *) ptr)[-1];

	return pt ? pt->size : 0;
}
