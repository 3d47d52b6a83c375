/*-------------------------------------------------------------------------
 *
 * prefault.c
 *	  Faulting in fresh memory on a helper thread, ahead of its first use.
 *
 * A sort of millions of rows copies them into memory that the process has
 * never touched, and the first write to each page traps into the kernel,
 * which zeroes the page before handing it over.  For the GpuSort node that
 * is a large part of the whole query (a third of it on some machines): the
 * executor's thread spends it between two rows, while other cores idle.
 * Since the node knows which memory it will fill next (the next block of
 * rows, the rest of a row array), a helper thread can ask the kernel to
 * back that memory first, with madvise(MADV_POPULATE_WRITE), and the
 * zeroing then runs on another core.
 *
 * The thread never reads or writes the memory itself, and the kernel's
 * populate does not change a page's contents, so a range that the backend
 * is already writing, or has freed meanwhile, is safe: at worst the work
 * was wasted.  The thread calls nothing of PostgreSQL's (no palloc, no
 * elog), runs with every signal blocked, so the backend's handlers run on
 * the backend's thread only, and is joined by a reset callback of the
 * memory context that owns the prefaulter, before that memory goes away;
 * an ERROR or a cancel therefore stops it too.  Requests are dropped, not
 * queued without bound, when the thread falls behind: the writer then
 * faults the pages in itself, as it would have without the thread.
 *
 * Without MADV_POPULATE_WRITE (Linux before 5.14) nothing is started.
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include <pthread.h>
#include <sys/mman.h>
#include <unistd.h>

#include "utils/memutils.h"

#include "threads/threads.h"
#include "prefault.h"

/* ranges smaller than this are left to the writer: not worth a wakeup */
#define GS_PREFAULT_MIN		((Size) 2 * 1024 * 1024)

/* pending requests; more are dropped */
#define GS_PREFAULT_QUEUE	16

/* the thread looks for a stop request between pieces of this size */
#define GS_PREFAULT_PIECE	((Size) 8 * 1024 * 1024)

typedef struct PrefaultRange
{
	char	   *p;
	Size		len;
} PrefaultRange;

struct GsPrefaulter
{
	MemoryContextCallback cb;
	pthread_mutex_t mutex;
	pthread_cond_t wakeup;
	pthread_t	thread;
	bool		started;
	bool		failed;			/* thread not startable, or no populate */
	bool		stop;
	int			head;			/* queue[head..tail) pending, modulo size */
	int			tail;
	PrefaultRange queue[GS_PREFAULT_QUEUE];
	Size		done;			/* bytes faulted in by the thread */
};

#ifdef MADV_POPULATE_WRITE

/* Faults in one range, piece by piece; false if the kernel cannot */
static bool
populate(GsPrefaulter *pf, PrefaultRange r)
{
	Size		page = (Size) sysconf(_SC_PAGESIZE);
	uintptr_t	start = TYPEALIGN(page, (uintptr_t) r.p);
	uintptr_t	end = TYPEALIGN_DOWN(page, (uintptr_t) r.p + r.len);

	while (start < end)
	{
		Size		len = Min(end - start, GS_PREFAULT_PIECE);
		bool		stop;

		/* EINVAL: no such advice here; ENOMEM: freed meanwhile, fine */
		if (madvise((void *) start, len, MADV_POPULATE_WRITE) != 0 &&
			errno == EINVAL)
			return false;
		start += len;
		pthread_mutex_lock(&pf->mutex);
		pf->done += len;
		stop = pf->stop;
		pthread_mutex_unlock(&pf->mutex);
		if (stop)
			break;
	}
	return true;
}

static void *
prefault_main(void *arg)
{
	GsPrefaulter *pf = (GsPrefaulter *) arg;

	pthread_mutex_lock(&pf->mutex);
	for (;;)
	{
		PrefaultRange r;

		while (pf->head == pf->tail && !pf->stop)
			pthread_cond_wait(&pf->wakeup, &pf->mutex);
		if (pf->stop)
			break;
		r = pf->queue[pf->head];
		pf->head = (pf->head + 1) % GS_PREFAULT_QUEUE;
		pthread_mutex_unlock(&pf->mutex);

		if (!populate(pf, r))
		{
			pthread_mutex_lock(&pf->mutex);
			pf->failed = true;
			break;
		}
		pthread_mutex_lock(&pf->mutex);
	}
	pthread_mutex_unlock(&pf->mutex);
	return NULL;
}

static bool
prefault_start(GsPrefaulter *pf)
{
	return gs_start_threads(&pf->thread, 1, prefault_main, pf, 0) == 1;
}

#endif							/* MADV_POPULATE_WRITE */

/* Also the reset callback of the owning context: the thread must be gone first */
static void
prefault_stop(void *arg)
{
	GsPrefaulter *pf = (GsPrefaulter *) arg;

	if (pf->started)
	{
		pthread_mutex_lock(&pf->mutex);
		pf->stop = true;
		pthread_cond_signal(&pf->wakeup);
		pthread_mutex_unlock(&pf->mutex);
		pthread_join(pf->thread, NULL);
		pf->started = false;
	}
	pf->failed = true;			/* no restart */
}

GsPrefaulter *
gs_prefaulter_create(MemoryContext cxt)
{
	GsPrefaulter *pf = MemoryContextAllocZero(cxt, sizeof(GsPrefaulter));

	pthread_mutex_init(&pf->mutex, NULL);
	pthread_cond_init(&pf->wakeup, NULL);
#ifndef MADV_POPULATE_WRITE
	pf->failed = true;
#endif
	pf->cb.func = prefault_stop;
	pf->cb.arg = pf;
	MemoryContextRegisterResetCallback(cxt, &pf->cb);
	return pf;
}

void
gs_prefault(GsPrefaulter *pf, void *p, Size len)
{
	if (pf == NULL || len < GS_PREFAULT_MIN)
		return;
#ifdef MADV_POPULATE_WRITE
	if (!pf->started)
	{
		if (pf->failed)
			return;
		if (!prefault_start(pf))
		{
			pf->failed = true;
			return;
		}
		pf->started = true;
	}
	pthread_mutex_lock(&pf->mutex);
	/* failed is the thread's to set, once it runs */
	if (!pf->failed && (pf->tail + 1) % GS_PREFAULT_QUEUE != pf->head)
	{
		pf->queue[pf->tail].p = p;
		pf->queue[pf->tail].len = len;
		pf->tail = (pf->tail + 1) % GS_PREFAULT_QUEUE;
		pthread_cond_signal(&pf->wakeup);
	}
	pthread_mutex_unlock(&pf->mutex);
#endif
}

Size
gs_prefault_finish(GsPrefaulter *pf)
{
	if (pf == NULL)
		return 0;
	prefault_stop(pf);
	return pf->done;
}
