/*-------------------------------------------------------------------------
 *
 * prefault.h
 *	  Faulting in fresh memory on a helper thread, ahead of its first use.
 *
 *-------------------------------------------------------------------------
 */
#ifndef GPUSORT_PREFAULT_H
#define GPUSORT_PREFAULT_H

typedef struct GsPrefaulter GsPrefaulter;

/*
 * A prefaulter for memory of cxt (typically the memory of one sort).  Its
 * thread starts with the first range worth the trouble and is joined when
 * cxt is reset or deleted, error or not.
 */
extern GsPrefaulter *gs_prefaulter_create(MemoryContext cxt);

/*
 * Asks for [p, p + len) to be backed by memory before the caller gets
 * there.  Never blocks and never fails: without a thread, or with its
 * queue full, the range is simply faulted in by its first writes.
 */
extern void gs_prefault(GsPrefaulter *pf, void *p, Size len);

/*
 * No more requests: stops the thread, which would otherwise compete with
 * the caller's next phase for a core, and returns the bytes it faulted in.
 */
extern Size gs_prefault_finish(GsPrefaulter *pf);

#endif							/* GPUSORT_PREFAULT_H */
