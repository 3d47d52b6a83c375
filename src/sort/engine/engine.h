/*-------------------------------------------------------------------------
 *
 * engine.h
 *	  "Sort these (key, row) pairs": the one interface between the GpuSort
 *	  node and the engines that sort.
 *
 * A pair is a fixed-width key of nwords 64-bit words (nwords = 1, 2 or 4,
 * i.e. 8, 16 or 32 bytes) and a 32-bit row number.  Keys compare as
 * unsigned integers word by word, word 0 most significant; keyencode.c's
 * encoders produce words with that property.  Pairs are ordered by
 * (key, row), so every engine returns the same permutation for the same
 * input: the sort is stable and deterministic, whichever engine ran.
 *
 * Keys are pushed in row order: the i-th key pushed belongs to row i (the
 * engine does not need a row array from the caller; the GPU engine builds
 * it on the device).  The engine owns the key buffer, so it can put it in
 * pinned memory and start copying full chunks to the device while later
 * keys are still being built.
 *
 *	   GsSorter *s = gs_sorter_begin(nwords, expected_rows, flags);
 *	   for each row:  uint64 *k = gs_sorter_push(s);  write k[0 .. nwords-1]
 *	   gs_sorter_sort(s);
 *	   for rank in 0 .. n-1:  row = gs_sorter_rows(s)[rank]
 *	   gs_sorter_end(s);
 *
 * gs_sorter_begin picks the engine from gpusort.device; gs_sorter_expect,
 * called when a sort's executor starts, lets a sort that will want the GPU
 * start CUDA early, beside its intake.  A GPU failure of
 * any kind (no device, out of memory, a kernel error) makes that sort run on
 * the CPU engine over the same host buffer, with one WARNING when the GPU
 * was asked for explicitly; the result is identical.  All memory lives in
 * CurrentMemoryContext at gs_sorter_begin (or in GPU resources released by
 * a callback on that context), so an ERROR or a cancel frees everything.
 *
 *-------------------------------------------------------------------------
 */
#ifndef GPUSORT_ENGINE_H
#define GPUSORT_ENGINE_H

#include "engine_stats.h"

/* under gpusort.device = auto, smaller sorts stay on the CPU */
#define GS_GPU_AUTO_MIN_ROWS	100000

/* gs_sorter_begin flags */
#define GS_SORTER_NEED_KEYS		0x01	/* caller reads sorted keys after the
										 * sort (to find runs of equal keys) */
#define GS_SORTER_KEYS_ONLY		0x02	/* never sorted: the caller reads the
										 * keys back by row (gs_sorter_row_keys) */

typedef struct GsSorter GsSorter;

extern void gs_sorter_expect(uint64 expected_rows);
extern GsSorter *gs_sorter_begin(int nwords, uint64 expected_rows, int flags);
extern uint64 *gs_sorter_push(GsSorter *s);
/*
 * Room for n keys at once, for rows n_before .. n_before + n - 1: the
 * caller fills them (on threads, if it likes) before the next push or
 * gs_sorter_sort.
 */
extern uint64 *gs_sorter_push_n(GsSorter *s, uint64 n);
/*
 * The keys pushed so far, in row order: valid until the next push or
 * gs_sorter_sort (a caller that may not need the sort reads them here)
 */
extern const uint64 *gs_sorter_pushed(const GsSorter *s);
extern void gs_sorter_sort(GsSorter *s);
extern uint64 gs_sorter_count(const GsSorter *s);
extern const uint32 *gs_sorter_rows(const GsSorter *s);
/* key at sorted position rank; needs GS_SORTER_NEED_KEYS */
extern const uint64 *gs_sorter_key(const GsSorter *s, uint64 rank);
/* the keys in row order, as pushed; needs GS_SORTER_KEYS_ONLY */
extern const uint64 *gs_sorter_row_keys(const GsSorter *s);
extern const GsSortStats *gs_sorter_stats(const GsSorter *s);
extern void gs_sorter_end(GsSorter *s);

#endif							/* GPUSORT_ENGINE_H */
