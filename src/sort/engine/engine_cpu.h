/*-------------------------------------------------------------------------
 *
 * engine_cpu.h
 *	  The CPU sort engine (src/sort/engine/engine_cpu.c): engine.c's sort, and
 *	  the GPU engine's fallback and merge of runs.
 *
 * Pairs are as engine.h describes them: keys of nwords 64-bit words
 * (keys[i * nwords ...]) with one row number each (rows[i]), ordered by
 * (key, row).  Both calls work in CurrentMemoryContext and serve
 * interrupts.
 *
 *-------------------------------------------------------------------------
 */
#ifndef GPUSORT_ENGINE_CPU_H
#define GPUSORT_ENGINE_CPU_H

/* sorts the n pairs by (key, row) in place, on up to nthreads threads */
extern void gs_cpu_sort_pairs(uint64 *keys, uint32 *rows, uint64 n, int nwords,
							  int nthreads);

/* merges consecutive sorted runs of run pairs each into one, in place */
extern void gs_cpu_merge_runs(uint64 *keys, uint32 *rows, uint64 n, int nwords,
							  uint64 run);

#endif							/* GPUSORT_ENGINE_CPU_H */
