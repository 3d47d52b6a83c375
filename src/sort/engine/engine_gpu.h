/*-------------------------------------------------------------------------
 *
 * engine_gpu.h
 *	  The GPU sort engine's host side, private to engine.c.
 *
 * A GsGpuSort is one sort on the GPU.  It owns the host key buffer (pinned,
 * borrowed from the backend's pool in gpu_session.c, so later queries
 * reuse it) and copies full chunks of it to the device while the caller is
 * still writing later keys.  Any failure is reported as false/NULL with a
 * reason, never as an ERROR, so engine.c can sort the same host buffer on
 * the CPU instead; only a query cancel (CHECK_FOR_INTERRUPTS while
 * waiting) throws.
 *
 *-------------------------------------------------------------------------
 */
#ifndef GPUSORT_ENGINE_GPU_H
#define GPUSORT_ENGINE_GPU_H

#include "engine_stats.h"

typedef struct GsGpuSort GsGpuSort;

/*
 * Starts a GPU sort of keys of nwords words, sized for expected_rows
 * (a hint).  NULL, with the reason in reason[reasonlen], when the GPU cannot
 * be used (no CUDA build, no device, all GPU sessions taken, ...).
 */
extern GsGpuSort *gs_gpu_begin(int nwords, uint64 expected_rows,
							   char *reason, size_t reasonlen);

/*
 * The host key buffer and its capacity in pairs.  gs_gpu_grow makes room
 * for at least min_pairs, keeping the keys written so far; NULL with a
 * reason when it cannot (the old buffer stays valid).
 */
extern uint64 *gs_gpu_keys(GsGpuSort *g, uint64 *capacity);
extern uint64 *gs_gpu_grow(GsGpuSort *g, uint64 min_pairs, uint64 *capacity,
						   char *reason, size_t reasonlen);

/* The first n keys are final: copy the full chunks among them */
extern void gs_gpu_pushed(GsGpuSort *g, uint64 n);

/* keys pushed between two gs_gpu_pushed calls */
extern uint64 gs_gpu_chunk_pairs(const GsGpuSort *g);

/*
 * Sorts the n pushed pairs.  On success *rows points at the sorted row
 * numbers and, if need_keys, *sorted_keys at the sorted keys (host memory
 * owned by g), and the GPU fields of stats are filled.  On failure returns
 * false with a reason; the host key buffer is untouched, still in push
 * order, so the CPU engine can sort it.
 */
extern bool gs_gpu_sort(GsGpuSort *g, uint64 n, bool need_keys, uint32 **rows,
						const uint64 **sorted_keys, GsSortStats *stats,
						char *reason, size_t reasonlen);

/*
 * Waits for pending GPU work and gives everything back (device memory
 * freed, pinned buffers returned to the pool).  Never throws: it also runs
 * from a memory context callback during abort.
 */
extern void gs_gpu_end(GsGpuSort *g);

#endif							/* GPUSORT_ENGINE_GPU_H */
