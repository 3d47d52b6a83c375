/*-------------------------------------------------------------------------
 *
 * blockpool.h
 *	  Large row-store blocks and scratch arrays kept mapped between a
 *	  session's sorts.
 *
 *-------------------------------------------------------------------------
 */
#ifndef GPUSORT_BLOCKPOOL_H
#define GPUSORT_BLOCKPOOL_H

/* blocks of at least this size are mapped by the pool's functions */
#define GS_POOL_MIN_BLOCK	((Size) 4 * 1024 * 1024)

/* the huge page that gs_advise_huge_pages asks for, and the pool aligns to */
#define GS_HUGE_PAGE		((Size) 2 * 1024 * 1024)

/* _PG_init: gpusort.keep_memory's changes trim the pool from now on */
extern void gs_pool_init(void);

/*
 * A block of at least size bytes for a sort, that lives at most as long as
 * cxt (a reset callback of cxt gives it back, on an ERROR too): a large one
 * from the pool, whose pages are already backed unless the kernel took them
 * back (*reused true), or freshly mapped, and then up to Max(size, max)
 * bytes where the pool has such a block; else palloc'd.  Its size is in
 * *got.  Free it with gs_pool_free, never pfree: into the pool while that
 * stays within its bounds (the kernel may then reclaim its pages at any
 * time), unmapped otherwise.  ERROR when the kernel has no memory for it.
 */
extern void *gs_pool_take(MemoryContext cxt, Size size, Size max, Size *got,
						  bool *reused);

/* A scratch array of size bytes: gs_pool_take's, of that size */
extern void *gs_pool_alloc(MemoryContext cxt, Size size);
extern void gs_pool_free(void *p);

/* The bytes mapped for a block of gs_pool_take (0: palloc'd) */
extern Size gs_pool_mapped(const void *p);

/* Unmaps pooled blocks until the pool holds at most limit bytes */
extern void gs_pool_trim(Size limit);

/* What the pool holds now */
extern Size gs_pool_bytes(void);

/*
 * Asks for huge pages on the whole huge pages (GS_HUGE_PAGE) inside
 * [p, p + size), where gpusort.huge_pages lets it: a hint.  The pool's
 * fresh blocks get it, and so may any other large allocation of a sort.
 */
extern void gs_advise_huge_pages(void *p, Size size);

#endif							/* GPUSORT_BLOCKPOOL_H */
