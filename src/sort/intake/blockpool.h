/*-------------------------------------------------------------------------
 *
 * blockpool.h
 *	  Large row-store blocks kept mapped between a session's sorts.
 *
 *-------------------------------------------------------------------------
 */
#ifndef GPUSORT_BLOCKPOOL_H
#define GPUSORT_BLOCKPOOL_H

/* blocks of at least this size are mapped by the pool's functions */
#define GS_POOL_MIN_BLOCK	((Size) 4 * 1024 * 1024)

/*
 * A block of at least size bytes and at most Max(size, max) for a sort:
 * one the pool kept, whose pages are already backed unless the kernel took
 * them back (*reused true), or a fresh mapping.  Its size is in *got.
 * ERROR when the kernel has no memory for a fresh one.
 */
extern char *gs_pool_map(Size size, Size max, Size *got, bool *reused);

/*
 * A block of gs_pool_map goes: into the pool while it stays within its
 * bounds (the kernel may then reclaim its pages at any time), unmapped
 * otherwise.  Never allocates nor raises: it runs in reset callbacks, on
 * the way out of an ERROR too.
 */
extern void gs_pool_unmap(char *p, Size size);

/*
 * A scratch array of size bytes that lives at most as long as cxt (an
 * ERROR gives it back): from the pool if large, else palloc'd.  Free it
 * with gs_pool_free, never pfree.
 */
extern void *gs_pool_alloc(MemoryContext cxt, Size size);
extern void gs_pool_free(void *p);

/* Unmaps pooled blocks until the pool holds at most limit bytes */
extern void gs_pool_trim(Size limit);

/* What the pool holds now */
extern Size gs_pool_bytes(void);

#endif							/* GPUSORT_BLOCKPOOL_H */
