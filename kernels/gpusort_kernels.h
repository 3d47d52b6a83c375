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
	int			free_mem_known;	/* 0: free_mem is total_mem, not measured */
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

/*
 * The visible devices (after CUDA_VISIBLE_DEVICES), and one of them
 * described without creating a context on it: a backend's device is
 * chosen before its context exists, and a context on every device would
 * cost each backend memory and start-up time on all of them.  Free memory
 * comes from NVML when the driver's libnvidia-ml can be loaded
 * (free_mem_known = 1); otherwise free_mem is total_mem.  Both start the
 * driver, so the caller blocks signals around the first call, as for
 * gsk_init.
 */
extern int	gsk_device_count(int *ndev);
extern int	gsk_device_describe(int device, GskDeviceInfo *info);

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

/* ---- partition-merge sort (kernels/sort/partition_sort.cu) ------------------- */

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

/*
 * For the kernel benchmark (bench/sort/kernels.cu); the module uses
 * neither.  gsk_sort_pairs_marked is gsk_sort_pairs that also records
 * event marks[p] (from gsk_event_create; NULL entries are skipped) on the
 * stream as phase p starts, and marks[GSK_SORT_PHASES] as the sort ends,
 * so the caller can time each phase; a sort too small to be partitioned
 * has no sample, histogram, layout or scatter phase and records none of
 * their marks.  gsk_tune_nbuckets, when a power of two from 2 to the key
 * width's maximum, is the bucket count of every partitioned sort instead of
 * the policy's (0: the policy's); gsk_sort_temp_bytes follows it.
 */
enum
{
	GSK_PHASE_SAMPLE,			/* draw and rank the sample, splitter tree */
	GSK_PHASE_HISTOGRAM,
	GSK_PHASE_LAYOUT,			/* the offsets' scan, bucket layout */
	GSK_PHASE_SCATTER,
	GSK_PHASE_TILE_SORT,
	GSK_PHASE_MERGE,
	GSK_SORT_PHASES
};

extern int	gsk_sort_pairs_marked(uint64_t *d_keys, uint32_t *d_rows, size_t n,
								  int nwords, void *d_temp, size_t temp_bytes,
								  void *stream,
								  void *const marks[GSK_SORT_PHASES + 1],
								  GskSortInfo *info);
extern int	gsk_tune_nbuckets;

/* ---- tree contraction (kernels/tree/tree_contract.cu, kernels/tree/xml_scan.cu) --- */
/* (declared by the tree_reduce GPU work, below this line) */

/*
 * Pseudo-tree contraction of a token array (src/tree/treerep.h) on the device,
 * steps 1 and 3 of the tree reduction's four GPU steps (Koike and Sadakane); the caller runs steps 2 and 4
 * on the host with contract.c (gs_match_parentheses, gs_contract_global):
 *
 *	   gsk_tree_plan(op, n, &plan);  allocate plan.temp_bytes on the device
 *	   gsk_tree_local(...)           async; then wait for the stream
 *	   gs_match_parentheses(...)     over k pieces {na, nc} (host)
 *	   gsk_tree_intervals(...)       async; then wait for the stream
 *	   gs_contract_global(...)       with piece i's C[NC-1] = ctop[i]
 *
 * Piece i covers tokens [i * piece_len, (i + 1) * piece_len).
 */
#define GSK_TREE_MAX_PIECES		4096

struct GsInterval;				/* src/tree/contract.h */

typedef struct GskTreePlan
{
	int			op;				/* GsTreeOp */
	int			k;				/* pieces, one warp each */
	size_t		ntok;
	size_t		piece_len;		/* tokens per piece, a multiple of 1024 */
	size_t		cap;			/* entries per piece of A, B, C */
	size_t		temp_bytes;		/* device scratch for the calls below */
} GskTreePlan;

/* Choose k and the piece length for this device (needs gsk_init) */
extern int	gsk_tree_plan(int op, size_t ntok, GskTreePlan *plan);

/*
 * Step 1 (async): contract each piece of d_tok[0..ntok) to its 5-tuple in
 * d_temp, and copy NA, NC and C[NC-1] (m, s) of piece i to h_na[i],
 * h_nc[i] and h_ctop[2i], h_ctop[2i+1] (host arrays of plan->k entries;
 * pinned for the copy to be asynchronous).
 */
extern int	gsk_tree_local(const GskTreePlan *plan, const double *d_tok,
						   void *d_temp, size_t temp_bytes, uint64_t *h_na,
						   uint64_t *h_nc, double *h_ctop, void *stream);

/*
 * Step 3 (async): fill iv[j].f for the niv <= 2k intervals that
 * gs_match_parentheses found, from the 5-tuples that gsk_tree_local left
 * in d_temp.  iv is host memory (pinned for the copies to be asynchronous).
 */
extern int	gsk_tree_intervals(const GskTreePlan *plan, void *d_temp,
							   size_t temp_bytes, struct GsInterval *iv,
							   long niv, void *stream);

/*
 * XML tokenization (kernels/tree/xml_scan.cu): the bytes of one document, or of a
 * batch of documents back to back, to the token array xmltok.c would make.
 * Conservative: the result is exact when no flag is raised; with a flag the
 * caller tokenizes on the CPU (which reports the error, if there is one).
 *
 *	   gsk_xml_scan_count(...)   async; wait; give up if flags, if the final
 *	                             state is not TEXT or if 2 * nelements != ntok
 *	   gsk_xml_scan_emit(...)    async: writes ntok tokens to d_tok; the
 *	                             result stands if *h_flags is 0 afterwards
 *
 * d_temp holds gsk_xml_scan_temp_bytes(nbytes) bytes and must be passed
 * unchanged from the count pass to the emit pass; d_emit holds
 * gsk_xml_emit_temp_bytes(ntok) bytes and is free again when the emit
 * pass's work is done.
 */
#define GSK_XML_ATTR_MAX	64

#define GSK_XML_SYNTAX		0x01	/* something xmltok.c may reject */
#define GSK_XML_DOCTYPE		0x02	/* a DOCTYPE: left to xmltok.c */
#define GSK_XML_WEIGHT		0x04	/* a weight outside the fast path */

typedef struct GskXmlScan
{
	const char *d_text;			/* device copy of the bytes */
	size_t		nbytes;
	const uint64_t *d_doc_start;	/* device: ndocs start offsets, first 0 */
	int			ndocs;
	char		attr[GSK_XML_ATTR_MAX];	/* weight attribute name */
	int			attr_len;
	int			read_weight;	/* 0: every start tag gets missing_weight */
	double		missing_weight;
} GskXmlScan;

typedef struct GskXmlCount
{
	uint64_t	ntok;
	uint64_t	nelements;
	uint64_t	final_map;		/* low nibble 0: the input ends in text */
	uint32_t	flags;
} GskXmlCount;

extern size_t gsk_xml_scan_temp_bytes(size_t nbytes);
extern size_t gsk_xml_emit_temp_bytes(size_t ntok);
extern int	gsk_xml_scan_count(const GskXmlScan *s, void *d_temp, size_t temp_bytes,
							   GskXmlCount *h_out, void *stream);
extern int	gsk_xml_scan_emit(const GskXmlScan *s, void *d_temp, size_t temp_bytes,
							  void *d_emit, size_t emit_bytes, double *d_tok,
							  size_t ntok, uint32_t *h_flags, void *stream);

#ifdef __cplusplus
}
#endif

#endif							/* GPUSORT_KERNELS_H */
