/*-------------------------------------------------------------------------
 *
 * gpusort_kernels.h
 *	  The only door between gpusort's C code and CUDA.
 *
 * Everything below is plain C with C linkage: the C side never includes a
 * CUDA header and never sees a template.  The .cu files in kernels/ keep
 * their templates and tuning policies inside and export only these calls.
 *
 * Every call returns 0 on success or a nonzero CUDA error code; the text of
 * the last error of the calling thread is gsk_last_error().  No call aborts,
 * prints or allocates host memory with malloc on the caller's behalf except
 * where it says so (pinned host memory), so the caller can turn any failure
 * into a fallback or an ereport.
 *
 * "stream" arguments are opaque cudaStream_t values (NULL: the legacy
 * default stream).  Calls marked "async" only enqueue work.
 *
 *-------------------------------------------------------------------------
 */
#ifndef GPUSORT_KERNELS_H
#define GPUSORT_KERNELS_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C"
{
#endif

#define GSK_NOT_READY	600		/* == cudaErrorNotReady: work still running */

/* ---- runtime ----------------------------------------------------------- */

typedef struct GskDeviceInfo
{
	int			device;			/* ordinal in use */
	int			sm_count;
	int			cc_major;
	int			cc_minor;
	size_t		total_mem;
	size_t		free_mem;
	size_t		shared_mem_per_block;
	char		name[128];
} GskDeviceInfo;

/*
 * Start CUDA in this process (idempotent) and describe the device.  The
 * caller blocks signals around the first call: the driver creates threads,
 * and they must not inherit the backend's handlers.
 */
extern int	gsk_init(int device, GskDeviceInfo *info);
extern const char *gsk_last_error(void);
extern int	gsk_mem_info(size_t *free_mem, size_t *total_mem);

extern int	gsk_host_alloc(void **p, size_t bytes);	/* pinned */
extern int	gsk_host_free(void *p);
extern int	gsk_device_alloc(void **p, size_t bytes);
extern int	gsk_device_free(void *p);

extern int	gsk_stream_create(void **stream);
extern int	gsk_stream_destroy(void *stream);
/* 0 when everything enqueued on stream has finished, GSK_NOT_READY while
 * work is pending, another code if it failed: lets the caller poll for
 * interrupts while the GPU works */
extern int	gsk_stream_query(void *stream);
extern int	gsk_stream_sync(void *stream);

extern int	gsk_copy_h2d_async(void *dst, const void *src, size_t bytes, void *stream);
extern int	gsk_copy_d2h_async(void *dst, const void *src, size_t bytes, void *stream);

/* Events, for per-phase timings on the GPU's clock */
extern int	gsk_event_create(void **event);
extern int	gsk_event_destroy(void *event);
extern int	gsk_event_record(void *event, void *stream);
extern int	gsk_event_elapsed_ms(void *start, void *end, float *ms);

/* ---- partition-merge sort (kernels/partition_sort.cu) ------------------- */

/*
 * Pairs are nwords 64-bit words of key (nwords = 1, 2 or 4), stored key
 * after key (pair i's key at keys[i * nwords]), and one uint32 row each.
 * Keys compare as unsigned integers, word 0 most significant.  The sort
 * orders pairs by (key, row): for the same input every run gives the same
 * output.
 */
typedef struct GskSortInfo
{
	int			nbuckets;		/* buckets of the partition step (0: plain
								 * merge sort was used) */
	int			merge_passes;
	size_t		temp_bytes;
} GskSortInfo;

/* Device scratch that gsk_sort_pairs needs for n pairs of nwords words */
extern size_t gsk_sort_temp_bytes(size_t n, int nwords);

/* rows[i] = first_row + i (async) */
extern int	gsk_iota_rows(uint32_t *d_rows, size_t n, uint32_t first_row, void *stream);

/*
 * Sort n pairs in device memory in place (async).  d_temp holds at least
 * gsk_sort_temp_bytes(n, nwords) bytes.  info, if not NULL, is filled when
 * the call returns (it describes the launch plan, which is known on the
 * host).
 */
extern int	gsk_sort_pairs(uint64_t *d_keys, uint32_t *d_rows, size_t n, int nwords,
						   void *d_temp, size_t temp_bytes, void *stream,
						   GskSortInfo *info);

/* ---- tree contraction (kernels/tree_contract.cu, kernels/xml_scan.cu) --- */
/* (declared by the tree_reduce GPU work, below this line) */

#ifdef __cplusplus
}
#endif

#endif							/* GPUSORT_KERNELS_H */
