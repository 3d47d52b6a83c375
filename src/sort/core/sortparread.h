/*-------------------------------------------------------------------------
 *
 * sortparread.h
 *	  What the leader's GpuSort reads of a parallel intake: the rows that
 *	  the GpuSortStore node (node/sortpar.c) of each participant of a
 *	  Gather stored in shared memory.  See sortparread.c.
 *
 *-------------------------------------------------------------------------
 */
#ifndef GPUSORT_SORTPARREAD_H
#define GPUSORT_SORTPARREAD_H

#include "executor/tuptable.h"

#include "keys/sortkey.h"

/*
 * The leader's store (the state of its GpuSortStore node but for the
 * executor's part: node/sortpar.h), seen from the sort above its Gather
 */
typedef struct GsStoreState GsParInput;

/*
 * Before the Gather starts: may a participant whose share outgrows its
 * room write it as sorted runs to the query's shared files (not under a
 * bound: the GpuSort above then keeps only its first rows)
 */
extern void gs_par_allow_runs(GsParInput *in, bool allow);

/*
 * After the Gather has returned its last row: the shared runs the
 * participants wrote (their files and slots, sortshared.c), and the plan
 * node id that names them; NULL where none could be written
 */
struct GsSharedRuns;
extern struct GsSharedRuns *gs_par_runs(GsParInput *in, int *plan_node_id);

/*
 * After the Gather has returned its last row: did the participants run out
 * of room and pass rows on (rows then came through the Gather), how many rows did they
 * store, and how many participants stored them in how many bytes.
 */
/* bytes of shared memory reserved for the participants' rows */
extern Size gs_par_limit(GsParInput *in);
extern bool gs_par_overflowed(GsParInput *in);
extern uint64 gs_par_nrows(GsParInput *in);
extern int	gs_par_nparts(GsParInput *in, Size *bytes);

/* widens keys' statistics by every participant's */
extern void gs_par_merge_stats(GsParInput *in, GsKeySpec *keys);

/*
 * Writes every stored row's address into tuples[] and its raw key into
 * raw[] (raw_bytes each), participant by participant, on nthreads threads.
 */
extern void gs_par_fill(GsParInput *in, MinimalTuple *tuples, uint8 *raw,
						int raw_bytes, int nthreads);

/* calls fn for every stored row (the tuplesort fallback) */
extern void gs_par_foreach(GsParInput *in,
						   void (*fn) (void *arg, MinimalTuple tup), void *arg);

#endif							/* GPUSORT_SORTPARREAD_H */
