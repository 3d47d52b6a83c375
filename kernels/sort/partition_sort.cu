/*-------------------------------------------------------------------------
 *
 * partition_sort.cu
 *	  The partition-merge sort of Kozawa, Amagasa and Kitagawa ("An
 *	  efficient sorting algorithm on GPUs via data partitioning and
 *	  cooperative merge") for (key, row) pairs.
 *
 * Pairs are ordered by (key, row): key words compare as unsigned integers,
 * word 0 first, then the row.  Because the callers' rows are distinct, that
 * order is total and the output is one fixed permutation whatever the
 * launch plan was.  It is also what makes the partition robust: splitters
 * are (key, row) pairs too, so an input whose keys are all equal still
 * splits into even buckets (by row), and no bucket can grow because of
 * duplicate keys.  (Duplicate (key, row) pairs, which callers never make,
 * would still sort correctly, only into less even buckets.)
 *
 * Large inputs (n >= Policy::PARTITION_MIN):
 *
 *	 1. sample: S pairs (one at a random place in each of S equal strides),
 *		as many as a block's shared memory could hold, are ranked (each
 *		against all, over the whole GPU); every S/k-th becomes a splitter.
 *		The k-1 splitters are stored as an implicit binary search tree
 *		(node j has children 2j and 2j+1), so classifying a pair is log2(k)
 *		steps without branches.
 *	 2. histogram: each chunk of C pairs counts its pairs per bucket; the
 *		counts form a k x nchunks matrix, bucket-major.
 *	 3. scan: an exclusive prefix sum over that matrix gives, for every
 *		(bucket, chunk), where the chunk's pairs of that bucket go.
 *	 4. bucket layout: bucket b starts at a multiple of GSK_ALIGN pairs in
 *		the temp buffer A (its keys at a 256-byte, its rows at a 128-byte
 *		boundary), so every later read and write of a bucket is coalesced;
 *		the matrix is transposed on the way so that each chunk then reads
 *		its row of k offsets contiguously.
 *	 5. scatter: each chunk classifies its pairs again (cheaper than
 *		storing the bucket of every pair), groups them by bucket in shared
 *		memory and writes each bucket's run contiguously.
 *	 6. tile sort: every bucket is cut into tiles of T pairs starting at
 *		the bucket's start; one block sorts one tile (each thread sorts its
 *		items in registers, then log2(threads) merge-path rounds through
 *		shared memory); no tile crosses a bucket boundary.
 *	 7. merge passes: pass p merges neighbouring sorted runs of T << p
 *		pairs inside every bucket that still needs it, all buckets in one
 *		launch.  Each block writes T outputs; its share of the two input
 *		runs is found by a merge-path search (one thread per block, in a
 *		small kernel before the merge), then each thread's share by another
 *		in shared memory.
 *
 * Every bucket ends in the caller's buffer D at its unaligned start (the
 * exclusive sum of bucket sizes).  A bucket of size s needs
 * m = ceil(log2(ceil(s / T))) merge passes; the tile sort writes it to D
 * when m is even and to A when m is odd, and each pass flips it, so it
 * lands in D after its own last pass and is never copied again while
 * larger buckets keep merging.  Uneven buckets therefore cost only the
 * passes they need.  The number of passes of the largest bucket is known
 * only on the device, so the host launches the passes that the largest
 * possible bucket would need, on a fixed grid that loops over the tiles;
 * passes past the device's maximum return at once (a few microseconds
 * each).
 *
 * Writes into D start at unaligned bucket offsets; every store loop starts
 * its threads at the 128-byte boundary below the first output, so all warps
 * but the first write whole aligned segments (the paper's Figure 5).
 *
 * Small inputs skip steps 1-5: the same tile sort and merge passes run
 * over the single "bucket" [0, n) directly in D and A (a plain merge sort).
 *
 * All work is enqueued on the caller's stream; nothing here synchronizes,
 * allocates or copies to the host.
 *
 *-------------------------------------------------------------------------
 */
#include <stdint.h>
#include <string.h>

#include <cuda_runtime.h>
#include <cub/block/block_scan.cuh>
#include <cub/block/block_reduce.cuh>
#include <cub/device/device_scan.cuh>

#include "gpusort_kernels.h"
#include "gsk_internal.cuh"

#define GSK_EXPORT __attribute__((visibility("default")))

#include "partition_kernels.cuh"

/* ---- host side: plan and launches --------------------------------------- */

__global__ void
iota_kernel(uint32_t *rows, size_t n, uint32_t first)
{
	size_t		i = (size_t) blockIdx.x * blockDim.x + threadIdx.x;

	for (; i < n; i += (size_t) gridDim.x * blockDim.x)
		rows[i] = first + (uint32_t) i;
}

/* Where each piece of the caller's temp buffer lives, and the launch plan */
struct Plan
{
	bool		partition;
	int			k;
	int			logk;
	int			nchunks;
	long long	chunk;
	long long	G;				/* tile-blocks launched per pass */
	int			passes;			/* merge passes launched */
	size_t		a_cap;			/* pairs A holds */
	size_t		cub_bytes;
	size_t		off_akeys,
				off_arows,
				off_hist,
				off_scan,
				off_offT,
				off_tree_k,
				off_tree_r,
				off_sample_k,
				off_sample_r,
				off_rank,
				off_size,
				off_astart,
				off_dstart,
				off_tprefix,
				off_map,
				off_part,
				off_maxm,
				off_cub;
	size_t		total;
};

static size_t
take(size_t *cursor, size_t bytes)
{
	size_t		off = (*cursor + 255) & ~(size_t) 255;

	*cursor = off + bytes;
	return off;
}

template <int NW>
static void
make_plan(size_t n, Plan *plan)
{
	typedef Policy<NW> P;
	constexpr int TILE = P::TILE_THREADS * P::TILE_ITEMS;
	constexpr int SUB = P::PART_THREADS * P::PART_ITEMS;
	size_t		cur = 0;
	long long	tiles;

	memset(plan, 0, sizeof(*plan));
	plan->k = 1;
	if (n >= P::PARTITION_MIN)
	{
		size_t		want = n / ((size_t) TILE * P::BUCKET_TILES);
		int			k = 2;

		while (k < P::KMAX && (size_t) k * 2 <= want)
			k *= 2;
		if (gsk_tune_nbuckets >= 2 && gsk_tune_nbuckets <= P::KMAX &&
			(gsk_tune_nbuckets & (gsk_tune_nbuckets - 1)) == 0)
			k = gsk_tune_nbuckets;
		plan->partition = true;
		plan->k = k;
		plan->logk = 0;
		while ((1 << plan->logk) < k)
			plan->logk++;

		/*
		 * A chunk covers at least 16 pairs per bucket, so that the k x
		 * nchunks matrix stays a small fraction of the data.
		 */
		plan->chunk = (long long) SUB *
			(((long long) 16 * k + SUB - 1) / SUB);
		plan->nchunks = (int) ((n + plan->chunk - 1) / plan->chunk);
	}
	tiles = (long long) ((n + TILE - 1) / TILE);
	plan->G = tiles + (plan->partition ? plan->k : 0);
	plan->passes = 0;
	while (((long long) 1 << plan->passes) < tiles)
		plan->passes++;
	plan->a_cap = n + (plan->partition ? (size_t) plan->k * GSK_ALIGN : 0);

	plan->off_akeys = take(&cur, plan->a_cap * NW * sizeof(uint64_t));
	plan->off_arows = take(&cur, plan->a_cap * sizeof(uint32_t));
	if (plan->partition)
	{
		size_t		cells = (size_t) plan->k * plan->nchunks;

		cub::DeviceScan::ExclusiveSum(NULL, plan->cub_bytes,
									  (unsigned int *) NULL,
									  (unsigned int *) NULL, (long long) cells);
		plan->off_hist = take(&cur, cells * sizeof(unsigned int));
		plan->off_scan = take(&cur, cells * sizeof(unsigned int));
		plan->off_offT = take(&cur, cells * sizeof(unsigned int));
		plan->off_tree_k = take(&cur, (size_t) plan->k * NW * sizeof(uint64_t));
		plan->off_tree_r = take(&cur, (size_t) plan->k * sizeof(uint32_t));
		plan->off_sample_k = take(&cur, (size_t) P::SAMPLE * NW * sizeof(uint64_t));
		plan->off_sample_r = take(&cur, (size_t) P::SAMPLE * sizeof(uint32_t));
		plan->off_rank = take(&cur, (size_t) P::SAMPLE * sizeof(unsigned int));
		plan->off_cub = take(&cur, plan->cub_bytes);
	}
	plan->off_size = take(&cur, (size_t) plan->k * sizeof(long long));
	plan->off_astart = take(&cur, (size_t) plan->k * sizeof(long long));
	plan->off_dstart = take(&cur, (size_t) plan->k * sizeof(long long));
	plan->off_tprefix = take(&cur, (size_t) (plan->k + 1) * sizeof(int));
	plan->off_map = take(&cur, (size_t) plan->G * sizeof(int));
	plan->off_part = take(&cur, (size_t) plan->G * sizeof(int));
	plan->off_maxm = take(&cur, sizeof(int));
	plan->total = cur;
}

static size_t
plan_bytes(size_t n, int nwords)
{
	Plan		plan;

	switch (nwords)
	{
		case 1:
			make_plan<1>(n, &plan);
			break;
		case 2:
			make_plan<2>(n, &plan);
			break;
		case 4:
			make_plan<4>(n, &plan);
			break;
		default:
			return 0;
	}
	return plan.total;
}

/* Raise a kernel's dynamic shared memory limit to what it will ask for */
template <typename F>
static int
allow_smem(F kernel, size_t bytes, const char *what)
{
	if (bytes <= 48 * 1024)
		return 0;
	return gsk_fail(cudaFuncSetAttribute(kernel,
										 cudaFuncAttributeMaxDynamicSharedMemorySize,
										 (int) bytes),
					what);
}

#define GSK_LAUNCHED(what) \
	do { int rc_ = gsk_check_launch(what); if (rc_ != 0) return rc_; } while (0)

/*
 * What a sort learns about a device once, by device ordinal, so that a
 * process that drives several GPUs keeps each one's answer: the blocks of
 * the merge passes' fixed grid (resident at once), per key width.
 */
#define GSK_MAX_DEVICES		16

struct DeviceState
{
	int			merge_grid[3];	/* by key width: 1, 2, 4 words */
};

static DeviceState device_state[GSK_MAX_DEVICES];

/*
 * The merge passes' grid on the current device: every block resident at
 * once, so a pass is one wave that loops over its tiles.  msmem is the
 * merge kernel's dynamic shared memory, already allowed.
 */
template <int NW>
static int
merge_grid_size(size_t msmem, int *grid)
{
	int			dev,
				sms,
				per_sm,
				rc;
	int		   *known = NULL;

	if ((rc = gsk_fail(cudaGetDevice(&dev), "cudaGetDevice")) != 0)
		return rc;
	if (dev >= 0 && dev < GSK_MAX_DEVICES)
	{
		known = &device_state[dev].merge_grid[NW == 1 ? 0 : NW == 2 ? 1 : 2];
		if (*known > 0)
		{
			*grid = *known;
			return 0;
		}
	}
	if ((rc = gsk_fail(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, dev),
					   "cudaDeviceGetAttribute")) != 0 ||
		(rc = gsk_fail(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm,
																	 merge_kernel<NW>,
																	 Policy<NW>::TILE_THREADS,
																	 msmem),
					   "cudaOccupancyMaxActiveBlocksPerMultiprocessor")) != 0)
		return rc;
	*grid = sms * (per_sm > 0 ? per_sm : 1);
	if (known)
		*known = *grid;
	return 0;
}

/* the benchmark's phase marks (gsk_sort_pairs_marked); NULL otherwise */
static void
mark(void *const *marks, int phase, cudaStream_t stream)
{
	if (marks && marks[phase])
		(void) cudaEventRecord((cudaEvent_t) marks[phase], stream);
}

/*
 * Steps 1 to 5: the sample and its splitter tree, every chunk's histogram,
 * the buckets' layout, and the scatter of the pairs of D into their
 * buckets in A; 0 or the error's code
 */
template <int NW>
static int
partition_pairs(const Plan &plan, char *t, uint64_t *d_keys, uint32_t *d_rows,
				size_t n, const Buf &D, const Buf &A, const Buckets &bk,
				cudaStream_t stream, void *const *marks)
{
	typedef Policy<NW> P;
	constexpr int TILE = P::TILE_THREADS * P::TILE_ITEMS;
	int			rc;
	unsigned int *hist = (unsigned int *) (t + plan.off_hist);
	unsigned int *scan = (unsigned int *) (t + plan.off_scan);
	unsigned int *offT = (unsigned int *) (t + plan.off_offT);
	uint64_t   *tk = (uint64_t *) (t + plan.off_tree_k);
	uint32_t   *tr = (uint32_t *) (t + plan.off_tree_r);
	size_t		cub_bytes = plan.cub_bytes;
	uint64_t   *sk = (uint64_t *) (t + plan.off_sample_k);
	uint32_t   *sr = (uint32_t *) (t + plan.off_sample_r);
	unsigned int *rank = (unsigned int *) (t + plan.off_rank);
	dim3		rgrid(P::SAMPLE / GSK_SAMPLE_THREADS, GSK_SAMPLE_SPLIT);
	size_t		hsmem = (size_t) plan.k * (NW * 8 + 4 + 4);
	size_t		xsmem = scatter_smem<NW>(plan.k);
	dim3		tgrid((plan.nchunks + 31) / 32, (plan.k + 31) / 32);

	if ((rc = allow_smem(hist_kernel<NW>, hsmem, "histogram setup")) != 0 ||
		(rc = allow_smem(scatter_kernel<NW>, xsmem, "scatter setup")) != 0)
		return rc;

	draw_sample_kernel<NW><<<P::SAMPLE / GSK_SAMPLE_THREADS,
		GSK_SAMPLE_THREADS, 0, stream>>>(d_keys, d_rows, (long long) n,
										 sk, sr, rank);
	GSK_LAUNCHED("sample kernel");
	rank_sample_kernel<NW><<<rgrid, GSK_SAMPLE_THREADS, 0, stream>>>(
		sk, sr, rank);
	GSK_LAUNCHED("sample ranking kernel");
	build_tree_kernel<NW><<<P::SAMPLE / GSK_SAMPLE_THREADS,
		GSK_SAMPLE_THREADS, 0, stream>>>(sk, sr, rank, plan.k, plan.logk,
										 tk, tr);
	GSK_LAUNCHED("splitter tree kernel");
	mark(marks, GSK_PHASE_HISTOGRAM, stream);
	hist_kernel<NW><<<plan.nchunks, P::PART_THREADS, hsmem, stream>>>(
		d_keys, d_rows, (long long) n, plan.chunk, plan.k, plan.logk,
		tk, tr, hist, plan.nchunks);
	GSK_LAUNCHED("histogram kernel");
	mark(marks, GSK_PHASE_LAYOUT, stream);
	rc = gsk_fail(cub::DeviceScan::ExclusiveSum(t + plan.off_cub, cub_bytes,
												hist, scan,
												(long long) plan.k * plan.nchunks,
												stream),
				  "bucket offset scan");
	if (rc != 0)
		return rc;
	layout_kernel<TILE, P::KMAX><<<1, GSK_LAYOUT_THREADS, 0, stream>>>(
		scan, (long long) n, plan.k, plan.nchunks, bk);
	GSK_LAUNCHED("bucket layout kernel");
	transpose_kernel<<<tgrid, dim3(32, 8), 0, stream>>>(
		scan, bk, plan.k, plan.nchunks, offT);
	GSK_LAUNCHED("transpose kernel");
	mark(marks, GSK_PHASE_SCATTER, stream);
	scatter_kernel<NW><<<plan.nchunks, P::PART_THREADS, xsmem, stream>>>(
		D, A, (long long) n, plan.chunk, plan.k, plan.logk, tk, tr, offT);
	GSK_LAUNCHED("scatter kernel");
	return 0;
}

/* Steps 6 and 7's merge passes over every bucket that needs them */
template <int NW>
static int
merge_passes(const Plan &plan, const Buf &D, const Buf &A, const Buckets &bk,
			 size_t msmem, int merge_grid, cudaStream_t stream)
{
	typedef Policy<NW> P;

	for (int p = 0; p < plan.passes; p++)
	{
		long long	pgrid = (plan.G + 127) / 128;

		partition_kernel<NW><<<(unsigned int) (pgrid < merge_grid ? pgrid : merge_grid),
			128, 0, stream>>>(D, A, bk, plan.G, p);
		GSK_LAUNCHED("merge partition kernel");
		merge_kernel<NW><<<(unsigned int) (plan.G < merge_grid ? plan.G : merge_grid),
			P::TILE_THREADS, msmem, stream>>>(D, A, bk, plan.G, p);
		GSK_LAUNCHED("merge kernel");
	}
	return 0;
}

template <int NW>
static int
sort_impl(uint64_t *d_keys, uint32_t *d_rows, size_t n, void *d_temp,
		  size_t temp_bytes, cudaStream_t stream, void *const *marks,
		  GskSortInfo *info)
{
	typedef Policy<NW> P;
	constexpr int TILE = P::TILE_THREADS * P::TILE_ITEMS;
	Plan		plan;
	char	   *t = (char *) d_temp;
	Buf			D = {d_keys, d_rows};
	Buf			A;
	Buckets		bk;
	size_t		tsmem = tile_smem<NW>();
	size_t		msmem = tile_smem<NW>();
	int			rc;
	int			merge_grid;

	make_plan<NW>(n, &plan);
	if (info)
	{
		info->nbuckets = plan.partition ? plan.k : 0;
		info->merge_passes = plan.passes;
		info->temp_bytes = plan.total;
	}
	if (n <= 1)
		return 0;
	if (d_temp == NULL || temp_bytes < plan.total)
		return gsk_fail_msg(cudaErrorInvalidValue,
							"gsk_sort_pairs: temp buffer smaller than gsk_sort_temp_bytes()");

	A.keys = (uint64_t *) (t + plan.off_akeys);
	A.rows = (uint32_t *) (t + plan.off_arows);
	bk.size = (long long *) (t + plan.off_size);
	bk.astart = (long long *) (t + plan.off_astart);
	bk.dstart = (long long *) (t + plan.off_dstart);
	bk.tprefix = (int *) (t + plan.off_tprefix);
	bk.map = (int *) (t + plan.off_map);
	bk.part = (int *) (t + plan.off_part);
	bk.maxm = (int *) (t + plan.off_maxm);

	if ((rc = allow_smem(tile_sort_kernel<NW>, tsmem, "tile sort setup")) != 0 ||
		(rc = allow_smem(merge_kernel<NW>, msmem, "merge setup")) != 0)
		return rc;
	if ((rc = merge_grid_size<NW>(msmem, &merge_grid)) != 0)
		return rc;

	mark(marks, GSK_PHASE_SAMPLE, stream);
	if (plan.partition)
	{
		if ((rc = partition_pairs<NW>(plan, t, d_keys, d_rows, n, D, A, bk,
									  stream, marks)) != 0)
			return rc;
	}
	else
	{
		single_bucket_kernel<TILE><<<1, 1, 0, stream>>>(bk, (long long) n);
		GSK_LAUNCHED("bucket setup kernel");
	}
	mark(marks, GSK_PHASE_TILE_SORT, stream);

	map_kernel<<<(unsigned int) ((plan.G + 255) / 256), 256, 0, stream>>>(
		bk, plan.k, plan.G);
	GSK_LAUNCHED("tile map kernel");

	/* partitioned pairs are in A at the aligned starts; otherwise still in D */
	tile_sort_kernel<NW><<<(unsigned int) plan.G, P::TILE_THREADS, tsmem, stream>>>(
		plan.partition ? A : D, plan.partition ? bk.astart : bk.dstart,
		D, A, bk);
	GSK_LAUNCHED("tile sort kernel");
	mark(marks, GSK_PHASE_MERGE, stream);

	if ((rc = merge_passes<NW>(plan, D, A, bk, msmem, merge_grid, stream)) != 0)
		return rc;
	mark(marks, GSK_SORT_PHASES, stream);
	return 0;
}

}								/* namespace */

extern "C" GSK_EXPORT size_t
gsk_sort_temp_bytes(size_t n, int nwords)
{
	return plan_bytes(n, nwords);
}

extern "C" GSK_EXPORT int
gsk_iota_rows(uint32_t *d_rows, size_t n, uint32_t first_row, void *stream)
{
	unsigned int blocks;

	if (n == 0)
		return 0;
	/* a failure someone else left unread is not this launch's */
	(void) cudaGetLastError();
	blocks = (unsigned int) ((n + 255) / 256 < 65536 ? (n + 255) / 256 : 65536);
	iota_kernel<<<blocks, 256, 0, (cudaStream_t) stream>>>(d_rows, n, first_row);
	return gsk_check_launch("row numbering kernel");
}

/* gsk_sort_pairs's argument checks, and the sort for the key width */
static int
sort_pairs(uint64_t *d_keys, uint32_t *d_rows, size_t n, int nwords,
		   void *d_temp, size_t temp_bytes, cudaStream_t stream,
		   void *const *marks, GskSortInfo *info)
{
	if (info)
		memset(info, 0, sizeof(*info));
	/* a failure someone else left unread is not one of our launches' */
	(void) cudaGetLastError();
	if (nwords != 1 && nwords != 2 && nwords != 4)
		return gsk_fail_msg(cudaErrorInvalidValue,
							"gsk_sort_pairs: nwords must be 1, 2 or 4");
	if (n > (size_t) INT32_MAX)
		return gsk_fail_msg(cudaErrorInvalidValue,
							"gsk_sort_pairs: more than 2^31-1 pairs in one sort");
	if (n > 1 && (d_keys == NULL || d_rows == NULL))
		return gsk_fail_msg(cudaErrorInvalidValue,
							"gsk_sort_pairs: null device pointer");
	if (nwords > 1 && ((uintptr_t) d_keys & 15) != 0)
		return gsk_fail_msg(cudaErrorMisalignedAddress,
							"gsk_sort_pairs: keys of 2 or 4 words must be 16-byte aligned");

	switch (nwords)
	{
		case 1:
			return sort_impl<1>(d_keys, d_rows, n, d_temp, temp_bytes, stream,
								marks, info);
		case 2:
			return sort_impl<2>(d_keys, d_rows, n, d_temp, temp_bytes, stream,
								marks, info);
		default:
			return sort_impl<4>(d_keys, d_rows, n, d_temp, temp_bytes, stream,
								marks, info);
	}
}

extern "C" GSK_EXPORT int
gsk_sort_pairs(uint64_t *d_keys, uint32_t *d_rows, size_t n, int nwords,
			   void *d_temp, size_t temp_bytes, void *stream,
			   GskSortInfo *info)
{
	return sort_pairs(d_keys, d_rows, n, nwords, d_temp, temp_bytes,
					  (cudaStream_t) stream, NULL, info);
}

extern "C" int
gsk_sort_pairs_marked(uint64_t *d_keys, uint32_t *d_rows, size_t n, int nwords,
					  void *d_temp, size_t temp_bytes, void *stream,
					  void *const marks[GSK_SORT_PHASES + 1], GskSortInfo *info)
{
	return sort_pairs(d_keys, d_rows, n, nwords, d_temp, temp_bytes,
					  (cudaStream_t) stream, marks, info);
}
