/*-------------------------------------------------------------------------
 *
 * sortinfo.h
 *	  What EXPLAIN ANALYZE and gpusort_stat read of a sort (GsRunInfo): the
 *	  sort's public part, filled by the core's files as they sort and
 *	  valid once a sort started (gs_sort_info, sortcore.h).
 *
 *-------------------------------------------------------------------------
 */
#ifndef GPUSORT_SORTINFO_H
#define GPUSORT_SORTINFO_H

#include "utils/tuplesort.h"

#include "engine/engine_stats.h"

/* What EXPLAIN ANALYZE shows about the last sort */
typedef struct GsRunInfo
{
	bool		valid;
	bool		used_tuplesort;
	char		fallback[256];	/* why tuplesort ran, or "" */
	bool		have_engine;
	GsSortStats engine;			/* of the last engine sort */
	TuplesortInstrumentation tsstats;
	uint64		rows_in;		/* rows read from the input (not parallel) */
	uint64		rows_sorted;	/* rows in the final sort */
	int64		bound;			/* the Limit's (gs_sort_start), 0: none */
	uint64		rows_dropped;	/* by a bound */
	int			nprunes;
	uint64		tie_groups;		/* settled past the key: by the comparators,
								 * or by later columns' keys (sortlater.c) */
	uint64		tie_rows;
	uint64		refine_groups;	/* runs refined from the transform */
	uint64		refine_rows;
	uint64		refine_rounds;	/* chunks sorted */
	uint64		refine_capped_groups;	/* left to the comparators by the
										 * refinement's cost bound */
	uint64		refine_capped_rows;
	uint64		later_groups;	/* of one value, keyed by later columns */
	uint64		later_rows;
	uint64		later_left_rows;	/* of them, equal keys to the comparators */
	uint64		coll_groups;	/* settled by the collation on threads
								 * (sortcoll.c) */
	uint64		coll_rows;
	bool		verified;		/* a libc prefix's order was checked */
	uint64		verify_pairs;	/* pairs compared with the comparator */
	uint64		verify_bad;		/* of them out of order */
	uint64		repair_runs;	/* runs merged to repair them (sortrepair.c) */
	uint64		repair_compares;	/* comparisons the repair made */
	bool		verify_resorted;	/* every row was sorted again instead */
	double		ms_verify;
	Size		peak_bytes;
	Size		stored_bytes;	/* as the budget counts them, when sorted */
	Size		reserved_bytes;	/* most held in the server-wide account */
	Size		prefaulted;		/* bytes faulted in by prefault.c's thread */
	Size		reused;			/* row blocks an earlier sort faulted in */
	uint64		par_rows;		/* rows stored by parallel participants */
	int			par_parts;		/* participants that stored rows */
	Size		par_bytes;		/* their shared memory */
	double		ms_absorb;		/* taking their rows */
	Size		copied_bytes;	/* rows copied into output order */
	double		ms_copy;
	bool		streamed;		/* copied while returned (rowstream.c) */
	int			stream_threads;
	double		ms_stream_wait;
	double		ms_intake;		/* reading the input, taking parallel rows */
	double		ms_keys;
	double		ms_sort;
	double		ms_ties;
	double		ms_emit;
	int			spill_runs;		/* runs written to temp files (sortspill.c) */
	uint64		spill_bytes;	/* their bytes */
	int			merge_ways;		/* runs merged at once */
	double		ms_spill;		/* writing the runs */
	double		ms_merge;		/* merging them, as rows are returned */
	int			merge_passes;	/* runs merged into longer runs meanwhile */
	int			merge_threads;	/* the batched merge's threads (spillbatch.c) */
	uint64		merge_batches;	/* its batches */
	uint64		merge_ranges;	/* and key ranges merged, over all batches */
	double		ms_merge_waited;	/* its backend waiting for a batch */
	bool		spill_stored;	/* merged into a tuplestore (random access) */
	bool		runs_shared;	/* the runs went to the shared files */
	uint64		rows_passed;	/* a participant's few rows, passed on */
	int			shared_runs;	/* runs of participants merged here */
	int			shared_parts;	/* participants that wrote them */
	uint64		shared_bytes;	/* their bytes */
	double		ms_shared;		/* the longest time one took to write its */
} GsRunInfo;

#endif							/* GPUSORT_SORTINFO_H */
