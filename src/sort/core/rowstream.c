/*-------------------------------------------------------------------------
 *
 * rowstream.c
 *	  Rows copied into output order a batch at a time, on helper threads,
 *	  while the node returns the batch before.
 *
 * Once the rows that parallel participants stored in shared memory are
 * sorted, returning them means reading them in an order that has nothing
 * to do with where they lie: a cache miss and, on 4kB pages, a TLB miss
 * each.  Copying all of them into output order first, on every core, and
 * returning them from the copy is faster, but the copy is a phase of its
 * own between the sort and the first row, and it writes as many bytes of
 * fresh memory as there are rows, which the kernel must fault in and zero.
 *
 * A stream does the copy in batches of GS_STREAM_BATCH rows, into a ring of
 * GS_STREAM_SLOTS_PER_THREAD buffers per helper thread: the helpers fill
 * the batches ahead of the reader, many random reads in flight, and the
 * reader (the executor's thread) returns rows from a buffer that was
 * written a moment ago and is still in cache.  The copy then overlaps the
 * return of the rows instead of preceding it, and its memory is a few
 * megabytes reused, not gigabytes faulted in once.
 *
 * Invariants: batch b lives in slot b % nslots; a helper starts filling
 * batch b only once the reader has released batch b - nslots, and the
 * reader releases a batch when it asks for the first row of the next one
 * (the executor keeps a returned row only until its next call), so a
 * helper never writes a buffer that a returned row may still point to.
 * Helpers read the rows and the array of row pointers, write only their
 * slot, and call nothing of PostgreSQL's; they run with every signal
 * blocked.  The reader waits on a condition variable with a timeout and
 * looks at interrupts in between.
 *
 * The rows lie in dynamic shared memory that an abort detaches (its
 * resource owner does) before it frees the executor's memory, where the
 * stream lives; so the helpers must be gone before that: every stream of
 * the backend is stopped by a (sub)transaction abort callback, which runs
 * before the resource owners are released, and before shared memory goes
 * at backend exit.  Its memory context's reset callback stops it otherwise.
 * A stopped stream restarts, at the row asked for, if it is read again.
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include <pthread.h>
#include <time.h>

#include "miscadmin.h"
#include "portability/instr_time.h"
#include "utils/memutils.h"

#include "engine/engine.h"
#include "threads/threads_backend.h"
#include "intake/rowstore.h"
#include "rowstream.h"

/* rows a batch: a few hundred kB of rows, well inside a core's L2 cache */
#define GS_STREAM_BATCH			4096

/* batches in flight per helper: one being filled, one ready */
#define GS_STREAM_SLOTS_PER_THREAD	2

#define GS_STREAM_MAX_THREADS	64

/* how far ahead a helper prefetches the rows it will copy */
#define GS_STREAM_PREFETCH		16

/* the reader's wait between looks at interrupts */
#define GS_STREAM_WAIT_NS		(10 * 1000 * 1000)

typedef struct StreamSlot
{
	int64		batch;			/* the batch it holds, -1: none yet */
	char	   *buf;			/* malloc'd by the helper that fills it */
	Size		cap;
	MinimalTuple rows[GS_STREAM_BATCH];
} StreamSlot;

struct GsRowStream
{
	MemoryContextCallback cb;
	GsLiveThreads live;			/* on the backend's list while helpers run */

	MinimalTuple *from;			/* the rows, in output order */
	uint64		n;
	int64		nbatches;
	int			nthreads;		/* helpers to start */
	int			nslots;
	StreamSlot *slots;

	/* under mutex */
	pthread_mutex_t mutex;
	pthread_cond_t ready;		/* a slot was filled */
	pthread_cond_t freed;		/* the reader released a batch */
	int64		next_fill;		/* next batch a helper takes */
	int64		released;		/* batches below this one are done with */
	bool		stop;

	pthread_t	threads[GS_STREAM_MAX_THREADS];
	int			started;		/* helpers running */
	bool		running;

	/* the reader's */
	StreamSlot *cur;
	int64		cur_batch;
	uint64		cur_lo;
	uint64		cur_hi;

	GsRowStreamStats stats;
};


/*
 * Copies batch b into its slot and returns the bytes copied; runs on a
 * helper, or on the reader.  The caller marks the slot as holding b.
 */
static Size
fill_batch(GsRowStream *rs, StreamSlot *slot, int64 b)
{
	uint64		lo = (uint64) b * GS_STREAM_BATCH;
	uint64		hi = Min(rs->n, lo + GS_STREAM_BATCH);
	MinimalTuple *from = rs->from;
	Size		bytes = 0;
	uint64		i;
	char	   *dst;

	/* the sizes first: the rows' first lines are then in cache for the copy */
	for (i = lo; i < hi; i++)
	{
		if (i + GS_STREAM_PREFETCH < hi)
			gs_prefetch(from[i + GS_STREAM_PREFETCH]);
		bytes += MAXALIGN(from[i]->t_len);
	}
	if (bytes > slot->cap)
	{
		Size		cap = Max(bytes, slot->cap * 2);
		char	   *buf = malloc(cap);

		/* out of memory: the reader copies nothing and returns the originals */
		if (buf != NULL)
		{
			free(slot->buf);
			slot->buf = buf;
			slot->cap = cap;
		}
	}
	dst = slot->buf;
	for (i = lo; i < hi; i++)
	{
		MinimalTuple tup = from[i];

		if (bytes > slot->cap)
			slot->rows[i - lo] = tup;
		else
		{
			memcpy(dst, tup, tup->t_len);
			slot->rows[i - lo] = (MinimalTuple) dst;
			dst += MAXALIGN(tup->t_len);
		}
	}
	return bytes > slot->cap ? 0 : bytes;
}

static void *
helper_main(void *arg)
{
	GsRowStream *rs = (GsRowStream *) arg;

	pthread_mutex_lock(&rs->mutex);
	for (;;)
	{
		int64		b = rs->next_fill;
		StreamSlot *slot;
		Size		bytes;

		if (rs->stop || b >= rs->nbatches)
			break;
		if (b - rs->released >= rs->nslots)
		{
			pthread_cond_wait(&rs->freed, &rs->mutex);
			continue;
		}
		rs->next_fill++;
		slot = &rs->slots[b % rs->nslots];
		pthread_mutex_unlock(&rs->mutex);

		bytes = fill_batch(rs, slot, b);

		pthread_mutex_lock(&rs->mutex);
		slot->batch = b;
		rs->stats.bytes += bytes;
		/* only the reader waits for it */
		pthread_cond_signal(&rs->ready);
	}
	pthread_mutex_unlock(&rs->mutex);
	return NULL;
}

/* joins the helpers; the stream can be started again */
static void
stream_stop(GsRowStream *rs)
{
	int			i;

	if (!rs->running)
		return;
	pthread_mutex_lock(&rs->mutex);
	rs->stop = true;
	pthread_cond_broadcast(&rs->freed);
	pthread_mutex_unlock(&rs->mutex);
	for (i = 0; i < rs->started; i++)
		pthread_join(rs->threads[i], NULL);
	rs->started = 0;
	rs->running = false;
	gs_live_threads_remove(&rs->live);
}

/*
 * An abort's: the helpers go; a stream of an enclosing subtransaction
 * restarts where it is when read again
 */
static void
stream_stop_live(GsLiveThreads *live)
{
	stream_stop((GsRowStream *) ((char *) live - offsetof(GsRowStream, live)));
}

/* helpers fill batches from first on; with none started, the reader does */
static void
stream_start(GsRowStream *rs, int64 first)
{
	int			i;

	Assert(!rs->running);
	for (i = 0; i < rs->nslots; i++)
		rs->slots[i].batch = -1;
	rs->next_fill = first;
	rs->released = first;
	rs->stop = false;
	rs->cur = NULL;
	rs->cur_batch = first - 1;
	rs->cur_lo = rs->cur_hi = (uint64) first * GS_STREAM_BATCH;

	rs->started = gs_start_threads(rs->threads, rs->nthreads, helper_main, rs, 0);
	rs->stats.threads = Max(rs->stats.threads, rs->started);
	rs->running = true;
	gs_live_threads_add(&rs->live, stream_stop_live);
}

/* the memory context's reset callback */
static void
stream_release(void *arg)
{
	GsRowStream *rs = (GsRowStream *) arg;
	int			i;

	stream_stop(rs);
	for (i = 0; i < rs->nslots; i++)
		free(rs->slots[i].buf);
	rs->nslots = 0;
}

GsRowStream *
gs_rowstream_create(MemoryContext cxt, MinimalTuple *from, uint64 n, int nthreads)
{
	GsRowStream *rs;
	int			i;

	rs = MemoryContextAllocZero(cxt, sizeof(GsRowStream));
	rs->from = from;
	rs->n = n;
	rs->nbatches = (int64) ((n + GS_STREAM_BATCH - 1) / GS_STREAM_BATCH);
	rs->nthreads = Min(Max(nthreads, 0), GS_STREAM_MAX_THREADS);
	rs->nslots = GS_STREAM_SLOTS_PER_THREAD * Max(rs->nthreads, 1);
	rs->slots = MemoryContextAlloc(cxt, sizeof(StreamSlot) * rs->nslots);
	for (i = 0; i < rs->nslots; i++)
	{
		rs->slots[i].batch = -1;
		rs->slots[i].buf = NULL;
		rs->slots[i].cap = 0;
	}
	pthread_mutex_init(&rs->mutex, NULL);
	pthread_cond_init(&rs->ready, NULL);
	pthread_cond_init(&rs->freed, NULL);
	rs->cur_batch = -1;
	rs->cb.func = stream_release;
	rs->cb.arg = rs;
	MemoryContextRegisterResetCallback(cxt, &rs->cb);
	return rs;
}

/* makes batch b the reader's, waiting for a helper to fill it */
static void
take_batch(GsRowStream *rs, int64 b)
{
	StreamSlot *slot;

	if (!rs->running || b != rs->cur_batch + 1)
	{
		/* the first read, a jump (a rescan), or after an abort stopped it */
		stream_stop(rs);
		stream_start(rs, b);
	}
	slot = &rs->slots[b % rs->nslots];

	pthread_mutex_lock(&rs->mutex);
	/* done with the batch before: its slot may be filled again, by one helper */
	rs->released = b;
	pthread_cond_signal(&rs->freed);
	if (rs->started == 0)
	{
		pthread_mutex_unlock(&rs->mutex);
		rs->stats.bytes += fill_batch(rs, slot, b);
		slot->batch = b;
	}
	else if (slot->batch != b)
	{
		instr_time	start,
					now;

		INSTR_TIME_SET_CURRENT(start);
		while (slot->batch != b)
		{
			struct timespec until;

			clock_gettime(CLOCK_REALTIME, &until);
			until.tv_nsec += GS_STREAM_WAIT_NS;
			if (until.tv_nsec >= 1000000000L)
			{
				until.tv_sec++;
				until.tv_nsec -= 1000000000L;
			}
			(void) pthread_cond_timedwait(&rs->ready, &rs->mutex, &until);
			if (slot->batch == b)
				break;
			pthread_mutex_unlock(&rs->mutex);
			CHECK_FOR_INTERRUPTS();
			pthread_mutex_lock(&rs->mutex);
		}
		pthread_mutex_unlock(&rs->mutex);
		INSTR_TIME_SET_CURRENT(now);
		INSTR_TIME_SUBTRACT(now, start);
		rs->stats.ms_waited += INSTR_TIME_GET_MILLISEC(now);
	}
	else
		pthread_mutex_unlock(&rs->mutex);

	rs->cur = slot;
	rs->cur_batch = b;
	rs->cur_lo = (uint64) b * GS_STREAM_BATCH;
	rs->cur_hi = Min(rs->n, rs->cur_lo + GS_STREAM_BATCH);
}

MinimalTuple
gs_rowstream_get(GsRowStream *rs, uint64 i)
{
	if (i >= rs->n)
		return NULL;
	if (rs->cur == NULL || i < rs->cur_lo || i >= rs->cur_hi)
		take_batch(rs, (int64) (i / GS_STREAM_BATCH));
	return rs->cur->rows[i - rs->cur_lo];
}

void
gs_rowstream_finish(GsRowStream *rs)
{
	stream_stop(rs);
}

const GsRowStreamStats *
gs_rowstream_stats(const GsRowStream *rs)
{
	return &rs->stats;
}
