/*-------------------------------------------------------------------------
 *
 * sortparstate.h
 *	  The state of GpuSortStore's store (GsStoreState: the node's state
 *	  but for the executor's part, which node/sortpar.c wraps around it)
 *	  and of the shared memory its participants fill, for the two files
 *	  that use it: sortpar.c, which stores the rows, and sortparread.c,
 *	  which gives them to the leader's GpuSort's sort.
 *
 * The shared state (GsParShared) lies in the query's DSM segment: one
 * GsParPart a participant, then GsKeyColStats[nparts][ncols] (part_stats),
 * then the shared files of the runs that participants write (part_runs).
 * Each participant's rows lie in chunks of a DSA area of its own, chained
 * by GsParChunk.next, tuples from the front and raw keys from the back.
 *
 *-------------------------------------------------------------------------
 */
#ifndef GPUSORT_SORTPARSTATE_H
#define GPUSORT_SORTPARSTATE_H

#include "access/parallel.h"
#include "executor/tuptable.h"
#include "nodes/plannodes.h"
#include "port/atomics.h"
#include "utils/dsa.h"

#include "intake/prefault.h"
#include "keys/sortkey.h"
#include "memory/memaccount.h"
#include "sortparread.h"

typedef struct GsParChunk
{
	dsa_pointer next;			/* the participant's next chunk */
	Size		size;			/* bytes, this header included */
	Size		front;			/* tuples end here (offset in the chunk) */
	uint32		nrows;
} GsParChunk;

#define GS_PAR_CHUNK_HEADER	MAXALIGN(sizeof(GsParChunk))

/* one participant's slot of the shared state */
typedef struct GsParPart
{
	dsa_handle	area;
	dsa_pointer first;			/* its first chunk */
	uint64		nrows;
	Size		bytes;
	double		ms;				/* storing its share */
	bool		ran;
	/* where its share outgrew its room: the runs it wrote instead */
	bool		wrote_runs;
	int			nruns;
	uint64		run_rows;
	uint64		run_bytes;
} GsParPart;

typedef struct GsParShared
{
	bool		enabled;		/* store rows here (else pass them on) */
	int			nparts;			/* workers planned + the leader */
	int			ncols;			/* key statistics per participant */
	Size		limit;			/* bytes of chunks, all participants */
	bool		runs_allowed;	/* a share that outgrows its room is written
								 * as runs to the shared files (else passed
								 * on) */
	pg_atomic_uint64 used;
	Size		budget;			/* the GpuSort above's */
	Size		row_bytes;		/* its arrays' bytes per row (budgeted) */
	pg_atomic_uint64 filled_rows;	/* rows of the chunks filled so far */
	pg_atomic_uint64 filled_bytes;	/* and those chunks' bytes */
	pg_atomic_uint32 overflow;
	GsParPart	parts[FLEXIBLE_ARRAY_MEMBER];
	/* then GsKeyColStats[nparts][ncols], then the shared runs (part_runs) */
} GsParShared;

/* a chunk's place in the leader's address space, to give its pages back */
typedef struct GsChunkSpan
{
	char	   *p;
	Size		size;
} GsChunkSpan;

typedef struct GsStoreState GsStoreState;

struct GsStoreState
{
	Plan	   *plan;			/* the GpuSortStore's */
	TupleDesc	indesc;			/* its input rows' */
	MemoryContext querycxt;		/* the query's, for what lasts the query */
	List	  **tuple_table;	/* the executor's: the run writer's slots */

	GsKeySpec  *keys;			/* NULL: no encoder, pass rows on */
	int			ncols;
	int			raw_bytes;
	int			entry_bytes;	/* per row at a chunk's end */

	GsParShared *shared;		/* NULL: no shared memory, pass rows on */
	int			part;			/* this participant's slot */
	dsa_area   *area;			/* its area */
	dsa_area  **areas;			/* the leader's: every participant's */
	int			nareas;

	/* this participant's share */
	bool		done;
	bool		passing;		/* passes rows on through the Gather */
	bool		writing;		/* gives its rows to writer */
	bool		runs_ok;		/* may write runs: the shared files are set */
	bool		runs_allowed;	/* the leader's: no bound above (it sets it) */
	struct GsSort *writer;		/* sorts and writes runs, or NULL */
	TupleTableSlot *feed_slot;	/* a stored row, given to writer */
	TupleTableSlot *key_slot;	/* a stored row, whose keys are taken */
	dsa_pointer first;
	GsParChunk *chunk;			/* the chunk being filled */
	dsa_pointer ahead;			/* the next one, being faulted in, or Invalid */
	Size		ahead_size;
	GsPrefaulter *prefault;		/* faults in the chunk ahead */
	Size		next_size;
	uint64		nrows;
	Size		bytes;
	double		ms;

	/* the leader's copy of every slot, for EXPLAIN once the DSM is gone */
	GsParPart  *seen;
	int			nseen;

	/* the leader's: where every participant's chunks lie (note_chunks) */
	GsChunkSpan *spans;
	int			nspans;
	Size		span_bytes;

	/* the leader's reservation for the chunks (es_query_cxt) */
	GsReservation *reservation;
	Size		limit;			/* the participants' chunks may take this */
};

static inline GsKeyColStats *
part_stats(GsParShared *sh, int part)
{
	char	   *p = (char *) sh +
		MAXALIGN(offsetof(GsParShared, parts) + sizeof(GsParPart) * sh->nparts);

	return (GsKeyColStats *) p + (Size) part * sh->ncols;
}

/* bytes of the state before the shared runs */
static inline Size
shared_head_size(int nparts, int ncols)
{
	return MAXALIGN(MAXALIGN(offsetof(GsParShared, parts) + sizeof(GsParPart) * nparts) +
					sizeof(GsKeyColStats) * (Size) nparts * ncols);
}

/* the shared files and slots of the runs that participants write */
static inline struct GsSharedRuns *
part_runs(GsParShared *sh)
{
	return (struct GsSharedRuns *) ((char *) sh + shared_head_size(sh->nparts, sh->ncols));
}

/* keeps what EXPLAIN shows: the DSM segment goes before EXPLAIN runs */
static inline void
keep_seen(GsStoreState *st)
{
	GsParShared *sh = st->shared;

	if (sh == NULL || IsParallelWorker())
		return;
	if (st->seen == NULL)
		st->seen = MemoryContextAlloc(st->querycxt,
									  sizeof(GsParPart) * sh->nparts);
	memcpy(st->seen, sh->parts, sizeof(GsParPart) * sh->nparts);
	st->nseen = sh->nparts;
}

#endif							/* GPUSORT_SORTPARSTATE_H */
