/*-------------------------------------------------------------------------
 *
 * partition_kernels.cuh
 *	  The device side of the partition-merge sort: the policies, the pair
 *	  type, the block-level merges, and the kernels of steps 1 to 7 (see
 *	  partition_sort.cu's header comment for the algorithm).
 *
 * Included by partition_sort.cu alone, whose host side plans the buckets
 * and launches these kernels: one translation unit, so the templates are
 * instantiated there and nothing here is visible outside the module.  A
 * file of its own so that the kernels and their launcher each read whole.
 *
 *-------------------------------------------------------------------------
 */
#ifndef GSK_PARTITION_KERNELS_CUH
#define GSK_PARTITION_KERNELS_CUH

#include <stdint.h>

#include <cuda_runtime.h>
#include <cub/block/block_scan.cuh>
#include <cub/block/block_reduce.cuh>

#include "gsk_internal.cuh"

/* bucket starts in A are multiples of this many pairs (128 bytes of rows) */
#define GSK_ALIGN		32

/*
 * Tuning for each key width.  TILE_THREADS * TILE_ITEMS pairs form a tile
 * (the unit of the tile sort and the output of one merge block), and
 * TILE_MIN_BLOCKS of them must fit on a multiprocessor (it caps registers);
 * the scatter stages PART_THREADS * PART_ITEMS pairs at a time in shared
 * memory; the sample is SAMPLE pairs, the largest power of two whose
 * (key, row) pairs fit in the 227 kB of shared memory a Hopper block may
 * opt into.  The partition aims at BUCKET_TILES tiles per bucket, with at
 * most KMAX buckets.  Odd TILE_ITEMS keep the blocked runs of a warp's
 * threads on distinct shared-memory banks.
 */
template <int NW>
struct Policy;

template <>
struct Policy<1>
{
	static constexpr int TILE_THREADS = 256;
	static constexpr int TILE_ITEMS = 11;
	static constexpr int TILE_MIN_BLOCKS = 3;
	static constexpr int PART_THREADS = 512;
	static constexpr int PART_ITEMS = 12;
	static constexpr int SAMPLE = 16384;
	static constexpr int KMAX = 1024;
	static constexpr int BUCKET_TILES = 8;
	static constexpr size_t PARTITION_MIN = (size_t) 1 << 20;
};

template <>
struct Policy<2>
{
	static constexpr int TILE_THREADS = 256;
	static constexpr int TILE_ITEMS = 7;
	static constexpr int TILE_MIN_BLOCKS = 3;
	static constexpr int PART_THREADS = 512;
	static constexpr int PART_ITEMS = 8;
	static constexpr int SAMPLE = 8192;
	static constexpr int KMAX = 1024;
	static constexpr int BUCKET_TILES = 8;
	static constexpr size_t PARTITION_MIN = (size_t) 1 << 20;
};

template <>
struct Policy<4>
{
	static constexpr int TILE_THREADS = 256;
	static constexpr int TILE_ITEMS = 5;
	static constexpr int TILE_MIN_BLOCKS = 2;
	static constexpr int PART_THREADS = 512;
	static constexpr int PART_ITEMS = 4;
	static constexpr int SAMPLE = 4096;
	static constexpr int KMAX = 512;
	static constexpr int BUCKET_TILES = 8;
	static constexpr size_t PARTITION_MIN = (size_t) 1 << 20;
};

/* the benchmark's bucket count (gpusort_kernels.h); 0: the policy's */
int			gsk_tune_nbuckets = 0;

/* Everything below but the exported calls is private to this file */
namespace
{

/* ---- pairs -------------------------------------------------------------- */

template <int NW>
struct Pair
{
	unsigned long long k[NW];
	unsigned int r;
};

template <int NW>
__device__ __forceinline__ bool
pair_less(const Pair<NW> &a, const Pair<NW> &b)
{
#pragma unroll
	for (int w = 0; w < NW - 1; w++)
	{
		if (a.k[w] != b.k[w])
			return a.k[w] < b.k[w];
	}
	return a.k[NW - 1] < b.k[NW - 1] ||
		(a.k[NW - 1] == b.k[NW - 1] && a.r < b.r);
}

/* Larger than or equal to every pair: pads partial tiles */
template <int NW>
__device__ __forceinline__ Pair<NW>
pair_max()
{
	Pair<NW>	p;

#pragma unroll
	for (int w = 0; w < NW; w++)
		p.k[w] = ~0ULL;
	p.r = ~0U;
	return p;
}

/* Keys of two or more words move as 16-byte vectors (keys 16-byte aligned) */
template <int NW>
__device__ __forceinline__ Pair<NW>
load_pair(const uint64_t *keys, const uint32_t *rows, long long i)
{
	Pair<NW>	p;

	if constexpr (NW == 1)
		p.k[0] = keys[i];
	else
	{
		const ulonglong2 *v = reinterpret_cast<const ulonglong2 *>(keys + i * NW);

#pragma unroll
		for (int w = 0; w < NW / 2; w++)
		{
			ulonglong2	x = v[w];

			p.k[2 * w] = x.x;
			p.k[2 * w + 1] = x.y;
		}
	}
	p.r = rows[i];
	return p;
}

template <int NW>
__device__ __forceinline__ void
store_pair(uint64_t *keys, uint32_t *rows, long long i, const Pair<NW> &p)
{
	if constexpr (NW == 1)
		keys[i] = p.k[0];
	else
	{
		ulonglong2 *v = reinterpret_cast<ulonglong2 *>(keys + i * NW);

#pragma unroll
		for (int w = 0; w < NW / 2; w++)
			v[w] = make_ulonglong2(p.k[2 * w], p.k[2 * w + 1]);
	}
	rows[i] = p.r;
}

/*
 * Pairs in shared memory are kept structure-of-arrays (word w of pair i at
 * k[w * cap + i], its row at r[i]): with an odd number of items per thread,
 * the threads of a warp then read and write their blocked runs without bank
 * conflicts, which a 16- or 24-byte struct per pair would not allow.
 */
template <int NW>
struct Tile
{
	uint64_t   *k;
	uint32_t   *r;
	int			cap;

	/* carve a tile of cap pairs out of shared memory at p */
	__device__ __forceinline__ Tile(unsigned char *p, int capacity)
	{
		k = reinterpret_cast<uint64_t *>(p);
		r = reinterpret_cast<uint32_t *>(k + (size_t) NW * capacity);
		cap = capacity;
	}

	__host__ __device__ static constexpr size_t bytes(int capacity)
	{
		return (size_t) capacity * (NW * 8 + 4);
	}

	__device__ __forceinline__ Pair<NW> get(int i) const
	{
		Pair<NW>	p;

#pragma unroll
		for (int w = 0; w < NW; w++)
			p.k[w] = k[w * cap + i];
		p.r = r[i];
		return p;
	}

	__device__ __forceinline__ void put(int i, const Pair<NW> &p) const
	{
#pragma unroll
		for (int w = 0; w < NW; w++)
			k[w * cap + i] = p.k[w];
		r[i] = p.r;
	}
};

/*
 * Store tile[0 .. count) to (keys, rows) at base .. base + count, threads
 * starting at the aligned boundary below base so that every warp after the
 * first writes whole aligned segments (Figure 5 of the paper).
 */
template <int NW, int THREADS>
__device__ __forceinline__ void
store_run(uint64_t *keys, uint32_t *rows, long long base,
		  const Tile<NW> &tile, int count)
{
	int			lead = (int) (base & (GSK_ALIGN - 1));

	for (int i = (int) threadIdx.x - lead; i < count; i += THREADS)
	{
		if (i >= 0)
			store_pair<NW>(keys, rows, base + i, tile.get(i));
	}
}

/* ---- merging in registers and shared memory ------------------------------ */

/* Sort a thread's ITEMS pairs in registers (odd-even transposition) */
template <int NW, int ITEMS>
__device__ __forceinline__ void
sort_registers(Pair<NW> (&x)[ITEMS])
{
#pragma unroll
	for (int i = 0; i < ITEMS; i++)
	{
#pragma unroll
		for (int j = i & 1; j + 1 < ITEMS; j += 2)
		{
			if (pair_less<NW>(x[j + 1], x[j]))
			{
				Pair<NW>	t = x[j];

				x[j] = x[j + 1];
				x[j + 1] = t;
			}
		}
	}
}

/*
 * Outputs diag .. diag + nout - 1 of the merge of the sorted runs
 * a = tile[a0 .. a0 + na) and b = tile[b0 .. b0 + nb), into out[].  The
 * split is the merge path: the number of a's among the first diag outputs;
 * on equal pairs a goes first, so the merge is stable.  The two current
 * heads stay in registers: one shared-memory read per output.
 */
template <int NW, int ITEMS>
__device__ __forceinline__ void
merge_serial(const Tile<NW> &tile, int a0, int na, int b0, int nb, int diag,
			 int nout, Pair<NW> (&out)[ITEMS])
{
	int			lo = max(0, diag - nb);
	int			hi = min(diag, na);
	int			ai,
				bi,
				aend = a0 + na,
				bend = b0 + nb;
	Pair<NW>	ha,
				hb;

	while (lo < hi)
	{
		int			mid = (lo + hi) / 2;

		if (!pair_less<NW>(tile.get(b0 + diag - 1 - mid), tile.get(a0 + mid)))
			lo = mid + 1;
		else
			hi = mid;
	}
	ai = a0 + lo;
	bi = b0 + diag - lo;
	if (ai < aend)
		ha = tile.get(ai);
	if (bi < bend)
		hb = tile.get(bi);
#pragma unroll
	for (int i = 0; i < ITEMS; i++)
	{
		if (i < nout)
		{
			bool		take_a = ai < aend &&
				(bi >= bend || !pair_less<NW>(hb, ha));

			if (take_a)
			{
				out[i] = ha;
				if (++ai < aend)
					ha = tile.get(ai);
			}
			else
			{
				out[i] = hb;
				if (++bi < bend)
					hb = tile.get(bi);
			}
		}
	}
}

/*
 * Sort THREADS * ITEMS pairs held ITEMS per thread: each thread sorts its
 * own, then log2(THREADS) rounds merge runs of twice the length through
 * shared memory.  On return thread t holds ranks t*ITEMS .. t*ITEMS+ITEMS-1.
 * The tile must hold THREADS * ITEMS pairs.
 */
template <int NW, int THREADS, int ITEMS>
__device__ __forceinline__ void
block_sort(Pair<NW> (&x)[ITEMS], const Tile<NW> &tile)
{
	sort_registers<NW, ITEMS>(x);
#pragma unroll 1
	for (int w = 1; w < THREADS; w *= 2)
	{
		int			run = w * ITEMS;
		int			first = ((int) threadIdx.x / (2 * w)) * 2 * run;
		int			diag = ((int) threadIdx.x % (2 * w)) * ITEMS;

#pragma unroll
		for (int i = 0; i < ITEMS; i++)
			tile.put(threadIdx.x * ITEMS + i, x[i]);
		__syncthreads();
		merge_serial<NW, ITEMS>(tile, first, run, first + run, run, diag,
								ITEMS, x);
		__syncthreads();
	}
}

/* ---- bucket bookkeeping, in device memory ------------------------------ */

/* Merge passes a bucket of size pairs needs after the tile sort */
__device__ __forceinline__ int
bucket_passes(long long size, int tile)
{
	long long	tiles = (size + tile - 1) / tile;

	if (tiles <= 1)
		return 0;
	return 64 - __clzll(tiles - 1);
}

struct Buckets
{
	long long  *size;			/* [k] pairs in the bucket */
	long long  *astart;			/* [k] start in A (aligned when partitioned) */
	long long  *dstart;			/* [k] start in D (sum of earlier sizes) */
	int		   *tprefix;		/* [k + 1] tiles of earlier buckets */
	int		   *map;			/* [G] bucket of tile-block g, -1 past the end */
	int		   *part;			/* [G] merge-path split of block g */
	int		   *maxm;			/* [1] passes of the largest bucket */
};

/* A buffer of pairs: keys (nwords words each) and rows */
struct Buf
{
	uint64_t   *keys;
	uint32_t   *rows;
};

/*
 * Plain merge sort: one bucket covering [0, n) in both D and A.
 */
template <int TILE>
__global__ void
single_bucket_kernel(Buckets bk, long long n)
{
	bk.size[0] = n;
	bk.astart[0] = 0;
	bk.dstart[0] = 0;
	bk.tprefix[0] = 0;
	bk.tprefix[1] = (int) ((n + TILE - 1) / TILE);
	*bk.maxm = bucket_passes(n, TILE);
}

/* map[g] = the bucket whose tiles include tile-block g */
__global__ void
map_kernel(Buckets bk, int k, long long G)
{
	long long	g = (long long) blockIdx.x * blockDim.x + threadIdx.x;
	int			lo = 0,
				hi = k;

	if (g >= G)
		return;
	if (g >= bk.tprefix[k])
	{
		bk.map[g] = -1;
		return;
	}
	/* largest b with tprefix[b] <= g: empty buckets are skipped over */
	while (lo < hi)
	{
		int			mid = (lo + hi + 1) / 2;

		if (bk.tprefix[mid] <= g)
			lo = mid;
		else
			hi = mid - 1;
	}
	bk.map[g] = lo;
}

/* ---- 1. sample and splitter tree ---------------------------------------- */

__device__ __forceinline__ unsigned int
hash32(unsigned int x)
{
	x ^= x >> 16;
	x *= 0x7feb352dU;
	x ^= x >> 15;
	x *= 0x846ca68bU;
	x ^= x >> 16;
	return x;
}

/*
 * The sample: S pairs, one at a hashed place in each of S equal strides of
 * the input (so sorted and reversed inputs are sampled evenly too), kept
 * structure-of-arrays in device memory (word w of sample i at sk[w*S + i]).
 * S is the largest power of two that would fill a block's shared memory.
 * Sorting it inside that one block (the paper's bitonic sort) keeps one
 * multiprocessor busy while the others idle, so instead every sample finds
 * its rank by comparing itself with all others, spread over the whole GPU:
 * S^2 comparisons, read as broadcasts from shared memory.  That wins for
 * the 16- and 32-byte keys, whose samples are smaller, and costs a little
 * for 8-byte keys, which keeps one way of sampling for every width.  Ties
 * are broken by sample index, so the ranks are a permutation.
 */
#define GSK_SAMPLE_THREADS	256
#define GSK_SAMPLE_SPLIT	8	/* blocks sharing one sample's comparisons */
#define GSK_SAMPLE_CHUNK	1024	/* samples staged in shared memory at once */

template <int NW>
__global__ void
__launch_bounds__(GSK_SAMPLE_THREADS)
draw_sample_kernel(const uint64_t *keys, const uint32_t *rows, long long n,
				   uint64_t *sk, uint32_t *sr, unsigned int *rank)
{
	constexpr int S = Policy<NW>::SAMPLE;
	int			s = blockIdx.x * GSK_SAMPLE_THREADS + threadIdx.x;
	long long	stride = n / S;
	long long	pos;
	Pair<NW>	p;

	if (s >= S)
		return;
	pos = (long long) s * stride +
		(long long) (hash32((unsigned int) s * 2654435761U + 12345U) %
					 (unsigned int) stride);
	p = load_pair<NW>(keys, rows, pos);
#pragma unroll
	for (int w = 0; w < NW; w++)
		sk[w * S + s] = p.k[w];
	sr[s] = p.r;
	rank[s] = 0;
}

template <int NW>
__global__ void
__launch_bounds__(GSK_SAMPLE_THREADS)
rank_sample_kernel(const uint64_t *sk, const uint32_t *sr, unsigned int *rank)
{
	constexpr int S = Policy<NW>::SAMPLE;
	constexpr int PART = S / GSK_SAMPLE_SPLIT;
	constexpr int CHUNK = PART < GSK_SAMPLE_CHUNK ? PART : GSK_SAMPLE_CHUNK;
	__shared__ uint64_t ck[NW][CHUNK];
	__shared__ uint32_t cr[CHUNK];
	int			s = blockIdx.x * GSK_SAMPLE_THREADS + threadIdx.x;
	int			first = blockIdx.y * PART;
	unsigned int below = 0;
	Pair<NW>	me;

#pragma unroll
	for (int w = 0; w < NW; w++)
		me.k[w] = sk[w * S + s];
	me.r = sr[s];

	for (int c = first; c < first + PART; c += CHUNK)
	{
		__syncthreads();
		for (int i = threadIdx.x; i < CHUNK; i += GSK_SAMPLE_THREADS)
		{
#pragma unroll
			for (int w = 0; w < NW; w++)
				ck[w][i] = sk[w * S + c + i];
			cr[i] = sr[c + i];
		}
		__syncthreads();
#pragma unroll 4
		for (int i = 0; i < CHUNK; i++)
		{
			Pair<NW>	o;

#pragma unroll
			for (int w = 0; w < NW; w++)
				o.k[w] = ck[w][i];
			o.r = cr[i];
			below += (pair_less<NW>(o, me) ||
					  (!pair_less<NW>(me, o) && c + i < s)) ? 1 : 0;
		}
	}
	atomicAdd(&rank[s], below);
}

/*
 * Splitter r (1 <= r < k) is the sample of rank r * S / k.  The tree is an
 * implicit binary search tree, structure-of-arrays (word w of node j at
 * tk[w * k + j]): node j at depth d, position q in its level, holds
 * splitter (2q + 1) << (logk - 1 - d), so an in-order walk visits the
 * splitters in order.  The sample at rank r*S/k is found by the thread of
 * the sample holding that rank.
 */
template <int NW>
__global__ void
__launch_bounds__(GSK_SAMPLE_THREADS)
build_tree_kernel(const uint64_t *sk, const uint32_t *sr,
				  const unsigned int *rank, int k, int logk,
				  uint64_t *tk, uint32_t *tr)
{
	constexpr int S = Policy<NW>::SAMPLE;
	int			s = blockIdx.x * GSK_SAMPLE_THREADS + threadIdx.x;
	int			step = S / k;
	unsigned int rk;
	int			r,
				d,
				q,
				j;

	if (s >= S)
		return;
	rk = rank[s];
	if (rk % step != 0 || rk == 0)
		return;
	r = (int) (rk / step);		/* splitter r, 1 .. k-1 */
	/* the node holding splitter r: r = (2q+1) << (logk-1-d) */
	d = logk - 1 - (__ffs(r) - 1);
	q = (r >> (logk - 1 - d)) >> 1;
	j = (1 << d) + q;
#pragma unroll
	for (int w = 0; w < NW; w++)
		tk[w * k + j] = sk[w * S + s];
	tr[j] = sr[s];
}

template <int NW>
__device__ __forceinline__ void
load_tree(uint64_t *stk, uint32_t *str, const uint64_t *tk, const uint32_t *tr,
		  int k)
{
	for (int j = threadIdx.x; j < k; j += blockDim.x)
	{
#pragma unroll
		for (int w = 0; w < NW; w++)
			stk[w * k + j] = (j == 0) ? 0 : tk[w * k + j];
		str[j] = (j == 0) ? 0 : tr[j];
	}
}

/* Bucket of x: pairs s_{b-1} <= x < s_b, walking the tree from the root */
template <int NW>
__device__ __forceinline__ int
classify(const Pair<NW> &x, const uint64_t *stk, const uint32_t *str,
		 int k, int logk)
{
	int			j = 1;

	for (int l = 0; l < logk; l++)
	{
		Pair<NW>	s;

#pragma unroll
		for (int w = 0; w < NW; w++)
			s.k[w] = stk[w * k + j];
		s.r = str[j];
		j = 2 * j + (pair_less<NW>(x, s) ? 0 : 1);
	}
	return j - k;
}

/* ---- 2. histogram -------------------------------------------------------- */

template <int NW>
__global__ void
__launch_bounds__(Policy<NW>::PART_THREADS)
hist_kernel(const uint64_t *keys, const uint32_t *rows, long long n,
			long long chunk, int k, int logk, const uint64_t *tk,
			const uint32_t *tr, unsigned int *hist, int nchunks)
{
	constexpr int THREADS = Policy<NW>::PART_THREADS;
	constexpr int ITEMS = Policy<NW>::PART_ITEMS;
	extern __shared__ __align__(16) unsigned char smem[];
	uint64_t   *stk = reinterpret_cast<uint64_t *>(smem);
	uint32_t   *str = reinterpret_cast<uint32_t *>(stk + NW * k);
	unsigned int *cnt = str + k;
	long long	start = (long long) blockIdx.x * chunk;
	long long	end = min(start + chunk, n);

	load_tree<NW>(stk, str, tk, tr, k);
	for (int b = threadIdx.x; b < k; b += THREADS)
		cnt[b] = 0;
	__syncthreads();

	for (long long base = start; base < end; base += THREADS * ITEMS)
	{
		Pair<NW>	x[ITEMS];

#pragma unroll
		for (int i = 0; i < ITEMS; i++)
		{
			long long	idx = base + i * THREADS + threadIdx.x;

			if (idx < end)
				x[i] = load_pair<NW>(keys, rows, idx);
		}
#pragma unroll
		for (int i = 0; i < ITEMS; i++)
		{
			long long	idx = base + i * THREADS + threadIdx.x;

			if (idx < end)
				atomicAdd(&cnt[classify<NW>(x[i], stk, str, k, logk)], 1U);
		}
	}
	__syncthreads();
	for (int b = threadIdx.x; b < k; b += THREADS)
		hist[(long long) b * nchunks + blockIdx.x] = cnt[b];
}

/* ---- 4. bucket layout ---------------------------------------------------- */

#define GSK_LAYOUT_THREADS	1024

/*
 * One block: bucket sizes from the scanned matrix, aligned starts in A,
 * starts in D, tiles per bucket, and the largest bucket's pass count.
 */
template <int TILE, int KMAX>
__global__ void
__launch_bounds__(GSK_LAYOUT_THREADS)
layout_kernel(const unsigned int *scan, long long n, int k, int nchunks,
			  Buckets bk)
{
	constexpr int PER = (KMAX + GSK_LAYOUT_THREADS - 1) / GSK_LAYOUT_THREADS;
	typedef cub::BlockScan<long long, GSK_LAYOUT_THREADS> Scan;
	typedef cub::BlockReduce<int, GSK_LAYOUT_THREADS> Reduce;
	__shared__ union
	{
		typename Scan::TempStorage scan;
		typename Reduce::TempStorage reduce;
	}			ts;
	long long	size[PER],
				aligned[PER],
				tiles[PER],
				astart[PER],
				tstart[PER],
				total_tiles;
	int			m = 0;

#pragma unroll
	for (int i = 0; i < PER; i++)
	{
		int			b = threadIdx.x * PER + i;

		size[i] = 0;
		if (b < k)
		{
			long long	first = scan[(long long) b * nchunks];
			long long	next = (b + 1 < k) ? scan[(long long) (b + 1) * nchunks] : n;

			size[i] = next - first;
			bk.dstart[b] = first;
			bk.size[b] = size[i];
		}
		aligned[i] = (size[i] + GSK_ALIGN - 1) / GSK_ALIGN * GSK_ALIGN;
		tiles[i] = (size[i] + TILE - 1) / TILE;
		m = max(m, bucket_passes(size[i], TILE));
	}
	Scan(ts.scan).ExclusiveSum(aligned, astart);
	__syncthreads();
	Scan(ts.scan).ExclusiveSum(tiles, tstart, total_tiles);
	__syncthreads();
	m = Reduce(ts.reduce).Reduce(m, cuda::maximum<int>());

#pragma unroll
	for (int i = 0; i < PER; i++)
	{
		int			b = threadIdx.x * PER + i;

		if (b < k)
		{
			bk.astart[b] = astart[i];
			bk.tprefix[b] = (int) tstart[i];
		}
	}
	if (threadIdx.x == 0)
	{
		bk.tprefix[k] = (int) total_tiles;
		*bk.maxm = m;
	}
}

/*
 * offT[j * k + b] = where chunk j's pairs of bucket b start in A: the
 * scanned (bucket-major) matrix plus the bucket's alignment padding,
 * transposed through shared memory so both sides stay coalesced.
 */
__global__ void
transpose_kernel(const unsigned int *scan, Buckets bk, int k, int nchunks,
				 unsigned int *offT)
{
	__shared__ unsigned int tile[32][33];
	int			j0 = blockIdx.x * 32;
	int			b0 = blockIdx.y * 32;

	for (int y = threadIdx.y; y < 32; y += blockDim.y)
	{
		int			b = b0 + y;
		int			j = j0 + threadIdx.x;

		if (b < k && j < nchunks)
			tile[y][threadIdx.x] = scan[(long long) b * nchunks + j] +
				(unsigned int) (bk.astart[b] - bk.dstart[b]);
	}
	__syncthreads();
	for (int y = threadIdx.y; y < 32; y += blockDim.y)
	{
		int			j = j0 + y;
		int			b = b0 + threadIdx.x;

		if (b < k && j < nchunks)
			offT[(long long) j * k + b] = tile[threadIdx.x][y];
	}
}

/* ---- 5. scatter ---------------------------------------------------------- */

template <int NW>
static size_t
scatter_smem(int k)
{
	constexpr int SUB = Policy<NW>::PART_THREADS * Policy<NW>::PART_ITEMS;

	return Tile<NW>::bytes(SUB)		/* staged pairs */
		+ (size_t) k * (NW * 8 + 4)	/* tree */
		+ (size_t) k * 4 * 3			/* cursors, counts, starts */
		+ (size_t) SUB * 2;			/* staged pairs' buckets */
}

/*
 * Step 5, one sub-tile: each thread's pairs, their buckets, and their ranks
 * among the sub-tile's pairs of the same bucket (lcount[] counts them)
 */
template <int NW>
__device__ __forceinline__ void
scatter_classify(const Buf &D, long long base, int count,
				 const uint64_t *stk, const uint32_t *str, int k, int logk,
				 int *lcount, Pair<NW> (&x)[Policy<NW>::PART_ITEMS],
				 int (&bucket)[Policy<NW>::PART_ITEMS],
				 int (&rank)[Policy<NW>::PART_ITEMS])
{
	constexpr int THREADS = Policy<NW>::PART_THREADS;
	constexpr int ITEMS = Policy<NW>::PART_ITEMS;

#pragma unroll
	for (int i = 0; i < ITEMS; i++)
	{
		int			idx = i * THREADS + threadIdx.x;

		if (idx < count)
			x[i] = load_pair<NW>(D.keys, D.rows, base + idx);
	}
#pragma unroll
	for (int i = 0; i < ITEMS; i++)
	{
		int			idx = i * THREADS + threadIdx.x;

		if (idx < count)
		{
			bucket[i] = classify<NW>(x[i], stk, str, k, logk);
			rank[i] = atomicAdd(&lcount[bucket[i]], 1);
		}
	}
}

/*
 * Step 5, one sub-tile: lstart[b], where bucket b's pairs start in the
 * stage, the exclusive sum of the counts, each thread summing KPT buckets
 */
template <int NW>
__device__ __forceinline__ void
scatter_starts(typename cub::BlockScan<int, Policy<NW>::PART_THREADS>::TempStorage &scan_ts,
			   const int *lcount, int *lstart, int k,
			   int (&cnt)[Policy<NW>::KMAX / Policy<NW>::PART_THREADS],
			   int (&cnt_start)[Policy<NW>::KMAX / Policy<NW>::PART_THREADS])
{
	constexpr int THREADS = Policy<NW>::PART_THREADS;
	constexpr int KPT = Policy<NW>::KMAX / THREADS;
	typedef cub::BlockScan<int, THREADS> Scan;

#pragma unroll
	for (int i = 0; i < KPT; i++)
	{
		int			b = threadIdx.x * KPT + i;

		cnt[i] = (b < k) ? lcount[b] : 0;
	}
	Scan(scan_ts).ExclusiveSum(cnt, cnt_start);
#pragma unroll
	for (int i = 0; i < KPT; i++)
	{
		int			b = threadIdx.x * KPT + i;

		if (b < k)
			lstart[b] = cnt_start[i];
	}
}

template <int NW>
__global__ void
__launch_bounds__(Policy<NW>::PART_THREADS)
scatter_kernel(Buf D, Buf A, long long n, long long chunk, int k, int logk,
			   const uint64_t *tk, const uint32_t *tr, const unsigned int *offT)
{
	constexpr int THREADS = Policy<NW>::PART_THREADS;
	constexpr int ITEMS = Policy<NW>::PART_ITEMS;
	constexpr int SUB = THREADS * ITEMS;
	constexpr int KPT = Policy<NW>::KMAX / THREADS;
	typedef cub::BlockScan<int, THREADS> Scan;
	__shared__ typename Scan::TempStorage scan_ts;
	extern __shared__ __align__(16) unsigned char smem[];
	Tile<NW>	stage(smem, SUB);
	uint64_t   *stk = reinterpret_cast<uint64_t *>(smem + Tile<NW>::bytes(SUB));
	uint32_t   *str = reinterpret_cast<uint32_t *>(stk + NW * k);
	unsigned int *cursor = str + k;
	int		   *lcount = reinterpret_cast<int *>(cursor + k);
	int		   *lstart = lcount + k;
	unsigned short *sbucket = reinterpret_cast<unsigned short *>(lstart + k);
	long long	start = (long long) blockIdx.x * chunk;
	long long	end = min(start + chunk, n);

	load_tree<NW>(stk, str, tk, tr, k);
	for (int b = threadIdx.x; b < k; b += THREADS)
		cursor[b] = offT[(long long) blockIdx.x * k + b];

	for (long long base = start; base < end; base += SUB)
	{
		Pair<NW>	x[ITEMS];
		int			bucket[ITEMS];
		int			rank[ITEMS];
		int			cnt[KPT];
		int			cnt_start[KPT];
		int			count = (int) min((long long) SUB, end - base);

		for (int b = threadIdx.x; b < k; b += THREADS)
			lcount[b] = 0;
		__syncthreads();

		scatter_classify<NW>(D, base, count, stk, str, k, logk, lcount,
							 x, bucket, rank);
		__syncthreads();

		/* where each bucket's pairs of this sub-tile start in the stage */
		scatter_starts<NW>(scan_ts, lcount, lstart, k, cnt, cnt_start);
		__syncthreads();

#pragma unroll
		for (int i = 0; i < ITEMS; i++)
		{
			int			idx = i * THREADS + threadIdx.x;

			if (idx < count)
			{
				int			pos = lstart[bucket[i]] + rank[i];

				stage.put(pos, x[i]);
				sbucket[pos] = (unsigned short) bucket[i];
			}
		}
		__syncthreads();

		/* consecutive threads write consecutive places of one bucket */
		for (int pos = threadIdx.x; pos < count; pos += THREADS)
		{
			int			b = sbucket[pos];

			store_pair<NW>(A.keys, A.rows,
						   (long long) cursor[b] + (pos - lstart[b]),
						   stage.get(pos));
		}
		__syncthreads();
		for (int b = threadIdx.x; b < k; b += THREADS)
			cursor[b] += lcount[b];
		/* the next round's first barrier orders these with its resets */
	}
}

/* ---- 6. tile sort -------------------------------------------------------- */

template <int NW>
static size_t
tile_smem()
{
	return Tile<NW>::bytes(Policy<NW>::TILE_THREADS * Policy<NW>::TILE_ITEMS);
}

/*
 * Sort tile t of bucket b: from src (at src_start[b]) to D when the bucket
 * needs an even number of merge passes, to A otherwise.  Sorting in place
 * is safe: the tile is in registers before anything is written.
 */
template <int NW>
__global__ void
__launch_bounds__(Policy<NW>::TILE_THREADS, Policy<NW>::TILE_MIN_BLOCKS)
tile_sort_kernel(Buf src, const long long *src_start, Buf D, Buf A,
				 Buckets bk)
{
	constexpr int THREADS = Policy<NW>::TILE_THREADS;
	constexpr int ITEMS = Policy<NW>::TILE_ITEMS;
	constexpr int TILE = THREADS * ITEMS;
	extern __shared__ __align__(16) unsigned char smem[];
	Tile<NW>	tile(smem, TILE);
	Pair<NW>	x[ITEMS];
	int			b = bk.map[blockIdx.x];
	long long	size,
				o0,
				sbase,
				dbase;
	int			count;
	bool		to_a;

	if (b < 0)
		return;
	size = bk.size[b];
	o0 = (long long) (blockIdx.x - bk.tprefix[b]) * TILE;
	count = (int) min((long long) TILE, size - o0);
	sbase = src_start[b] + o0;
	to_a = (bucket_passes(size, TILE) & 1) != 0;

#pragma unroll
	for (int i = 0; i < ITEMS; i++)
	{
		int			idx = i * THREADS + threadIdx.x;

		x[i] = (idx < count) ? load_pair<NW>(src.keys, src.rows, sbase + idx)
			: pair_max<NW>();
	}
	block_sort<NW, THREADS, ITEMS>(x, tile);
#pragma unroll
	for (int i = 0; i < ITEMS; i++)
		tile.put(threadIdx.x * ITEMS + i, x[i]);
	__syncthreads();

	if (to_a)
	{
		dbase = bk.astart[b] + o0;
		store_run<NW, THREADS>(A.keys, A.rows, dbase, tile, count);
	}
	else
	{
		dbase = bk.dstart[b] + o0;
		store_run<NW, THREADS>(D.keys, D.rows, dbase, tile, count);
	}
}

/* ---- 7. merge passes ----------------------------------------------------- */

/*
 * Where tile-block g of pass p works: its bucket, its merge pair's first
 * pair q0, the lengths of the two runs, and its first output diagonal d0.
 * False when the block has nothing to do in this pass.
 */
struct MergeJob
{
	int			b;
	int			count;
	long long	size;
	long long	q0;
	long long	la;
	long long	lb;
	long long	d0;
	bool		in_d;			/* the bucket is in D before this pass */
};

template <int TILE>
__device__ __forceinline__ bool
merge_job(const Buckets &bk, long long g, int p, MergeJob *job)
{
	int			b = bk.map[g];
	long long	w,
				o0;
	int			m;

	if (b < 0)
		return false;
	job->size = bk.size[b];
	m = bucket_passes(job->size, TILE);
	if (p >= m)
		return false;
	job->b = b;
	w = (long long) TILE << p;
	o0 = (g - bk.tprefix[b]) * (long long) TILE;
	job->count = (int) min((long long) TILE, job->size - o0);
	job->q0 = o0 / (2 * w) * (2 * w);
	job->la = min(w, job->size - job->q0);
	job->lb = min(w, job->size - job->q0 - job->la);
	job->d0 = o0 - job->q0;
	job->in_d = ((m - p) & 1) == 0;
	return true;
}

/*
 * Merge-path split of diagonal d between runs a[0 .. la) and b[0 .. lb):
 * how many of the first d outputs come from a.  On equal pairs a goes
 * first.
 */
template <int NW>
__device__ __forceinline__ long long
merge_path_global(const uint64_t *keys, const uint32_t *rows,
				  long long a0, long long la, long long b0, long long lb,
				  long long d)
{
	long long	lo = max(0LL, d - lb);
	long long	hi = min(d, la);

	while (lo < hi)
	{
		long long	mid = (lo + hi) / 2;
		Pair<NW>	x = load_pair<NW>(keys, rows, a0 + mid);
		Pair<NW>	y = load_pair<NW>(keys, rows, b0 + d - 1 - mid);

		if (!pair_less<NW>(y, x))
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

/*
 * The merge passes run on a fixed grid that loops over the tile-blocks, so
 * that the passes past the largest bucket's last one cost one launch each,
 * not one block per tile.
 */
template <int NW>
__global__ void
partition_kernel(Buf D, Buf A, Buckets bk, long long G, int p)
{
	constexpr int TILE = Policy<NW>::TILE_THREADS * Policy<NW>::TILE_ITEMS;

	if (p >= *bk.maxm)
		return;
	for (long long g = (long long) blockIdx.x * blockDim.x + threadIdx.x; g < G;
		 g += (long long) gridDim.x * blockDim.x)
	{
		MergeJob	job;
		Buf			src;
		long long	base;

		if (!merge_job<TILE>(bk, g, p, &job))
			continue;
		src = job.in_d ? D : A;
		base = (job.in_d ? bk.dstart[job.b] : bk.astart[job.b]) + job.q0;
		bk.part[g] = (int) merge_path_global<NW>(src.keys, src.rows, base,
												 job.la, base + job.la,
												 job.lb, job.d0);
	}
}

/*
 * Merge one tile-block's T outputs: stage its shares of the two runs in
 * shared memory, let each thread find its own split (merge path again, in
 * shared memory) and merge ITEMS outputs serially, keeping the two current
 * heads in registers, then write the block's outputs in one coalesced run.
 */
template <int NW>
__device__ __forceinline__ void
merge_block(const Buf &D, const Buf &A, const Buckets &bk, long long g,
			const MergeJob &job, const Tile<NW> &tile)
{
	constexpr int THREADS = Policy<NW>::TILE_THREADS;
	constexpr int ITEMS = Policy<NW>::TILE_ITEMS;
	Pair<NW>	out[ITEMS];
	Buf			src = job.in_d ? D : A;
	Buf			dst = job.in_d ? A : D;
	long long	sbase = (job.in_d ? bk.dstart[job.b] : bk.astart[job.b]) + job.q0;
	long long	dbase = (job.in_d ? bk.astart[job.b] : bk.dstart[job.b]) +
		job.q0 + job.d0;
	int			count = job.count;
	int			a0 = bk.part[g];
	int			a1 = (job.d0 + count == job.la + job.lb) ? (int) job.la
		: bk.part[g + 1];
	int			na = a1 - a0;
	long long	b0 = job.d0 - a0;
	int			diag = min((int) threadIdx.x * ITEMS, count);
	int			nout = min(ITEMS, count - diag);

	for (int i = threadIdx.x; i < count; i += THREADS)
	{
		long long	idx = (i < na) ? sbase + a0 + i
			: sbase + job.la + b0 + (i - na);

		tile.put(i, load_pair<NW>(src.keys, src.rows, idx));
	}
	__syncthreads();
	merge_serial<NW, ITEMS>(tile, 0, na, na, count - na, diag, nout, out);
	__syncthreads();
#pragma unroll
	for (int i = 0; i < ITEMS; i++)
	{
		if (i < nout)
			tile.put(diag + i, out[i]);
	}
	__syncthreads();
	store_run<NW, THREADS>(dst.keys, dst.rows, dbase, tile, count);
	__syncthreads();
}

template <int NW>
__global__ void
__launch_bounds__(Policy<NW>::TILE_THREADS, Policy<NW>::TILE_MIN_BLOCKS)
merge_kernel(Buf D, Buf A, Buckets bk, long long G, int p)
{
	constexpr int TILE = Policy<NW>::TILE_THREADS * Policy<NW>::TILE_ITEMS;
	extern __shared__ __align__(16) unsigned char smem[];
	Tile<NW>	tile(smem, TILE);

	if (p >= *bk.maxm)
		return;
	for (long long g = blockIdx.x; g < G; g += gridDim.x)
	{
		MergeJob	job;

		/* the same answer for every thread: the block stays together */
		if (merge_job<TILE>(bk, g, p, &job))
			merge_block<NW>(D, A, bk, g, job, tile);
	}
}

#endif							/* GSK_PARTITION_KERNELS_CUH */
