/*
 * kernels.cu
 *	  Kernel benchmark: gpusort's partition-merge sort (gsk_sort_pairs)
 *	  against cub::DeviceRadixSort::SortPairs, cub::DeviceMergeSort::SortPairs
 *	  and thrust::sort_by_key, on the same (key, uint32 row) pairs: uniformly
 *	  random keys of 8, 16 and 32 bytes, rows 0..n-1, n = 2^20 .. 2^27.
 *
 * Every method sorts a fresh copy of the same input (the copy is outside
 * the timed region); times are CUDA events around the sort alone, the
 * median of REPS runs after one warm-up run.  CUB's radix sort is stable,
 * so with rows 0..n-1 it yields the same (key, row) order as ours; the
 * benchmark checks that the row permutations agree, for every size.
 * thrust::sort_by_key allocates its scratch inside the timed call (that is
 * what using it costs); the CUB calls get theirs beforehand, as ours does.
 *
 * Usage: kernels [max_log2_n] [reps]     writes kernels.csv to $OUT (or .)
 */
#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#include <cuda/std/tuple>
#include <cub/device/device_merge_sort.cuh>
#include <cub/device/device_radix_sort.cuh>
#include <thrust/equal.h>
#include <thrust/execution_policy.h>
#include <thrust/sort.h>

#include "gpusort_kernels.h"

#define CK(call) do { cudaError_t e_ = (call); if (e_ != cudaSuccess) { \
	fprintf(stderr, "%s:%d %s: %s\n", __FILE__, __LINE__, #call, cudaGetErrorString(e_)); exit(2); } } while (0)
#define GK(call) do { int r_ = (call); if (r_ != 0) { \
	fprintf(stderr, "%s:%d %s: %s\n", __FILE__, __LINE__, #call, gsk_last_error()); exit(2); } } while (0)

template <int NW>
struct Key
{
	unsigned long long w[NW];
};

template <int NW>
struct KeyLess
{
	__device__ bool operator()(const Key<NW> &a, const Key<NW> &b) const
	{
#pragma unroll
		for (int i = 0; i < NW; i++)
			if (a.w[i] != b.w[i])
				return a.w[i] < b.w[i];
		return false;
	}
};

/* CUB radix sort over the words of a key, word 0 most significant */
template <int NW>
struct KeyDecomposer;

template <>
struct KeyDecomposer<1>
{
	__host__ __device__ cuda::std::tuple<unsigned long long &>
	operator()(Key<1> &k) const
	{
		return {k.w[0]};
	}
};

template <>
struct KeyDecomposer<2>
{
	__host__ __device__ cuda::std::tuple<unsigned long long &, unsigned long long &>
	operator()(Key<2> &k) const
	{
		return {k.w[0], k.w[1]};
	}
};

template <>
struct KeyDecomposer<4>
{
	__host__ __device__ cuda::std::tuple<unsigned long long &, unsigned long long &,
										 unsigned long long &, unsigned long long &>
	operator()(Key<4> &k) const
	{
		return {k.w[0], k.w[1], k.w[2], k.w[3]};
	}
};

__global__ void
fill_random(unsigned long long *w, size_t nwords, unsigned long long seed)
{
	for (size_t i = (size_t) blockIdx.x * blockDim.x + threadIdx.x; i < nwords;
		 i += (size_t) gridDim.x * blockDim.x)
	{
		unsigned long long x = seed + i * 0x9e3779b97f4a7c15ULL;

		x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ULL;
		x = (x ^ (x >> 27)) * 0x94d049bb133111ebULL;
		w[i] = x ^ (x >> 31);
	}
}

struct Row
{
	size_t		n;
	int			bytes;
	std::string method;
	double		ms;
	std::string note;
};

static std::vector<Row> results;
static int	reps = 7;

/* Median of reps timed runs of sort() after one warm-up; reset() restores input */
template <typename Reset, typename Sort>
static double
time_it(cudaStream_t s, Reset reset, Sort sort)
{
	cudaEvent_t a,
				b;
	std::vector<float> t;

	CK(cudaEventCreate(&a));
	CK(cudaEventCreate(&b));
	for (int r = 0; r <= reps; r++)
	{
		float		ms;

		reset();
		CK(cudaEventRecord(a, s));
		sort();
		CK(cudaEventRecord(b, s));
		CK(cudaEventSynchronize(b));
		CK(cudaEventElapsedTime(&ms, a, b));
		if (r > 0)
			t.push_back(ms);
	}
	CK(cudaEventDestroy(a));
	CK(cudaEventDestroy(b));
	std::sort(t.begin(), t.end());
	return t[t.size() / 2];
}

/*
 * The mean time of each phase of our sort over a few runs, from the events
 * gsk_sort_pairs_marked records between them; only partitioned sorts have
 * every phase.
 */
template <int NW, typename Reset>
static void
time_phases(size_t n, uint64_t *keys, uint32_t *rows, void *temp,
			size_t temp_bytes, cudaStream_t s, Reset reset)
{
	static const char *const names[GSK_SORT_PHASES] = {
		"sample", "hist", "scan+layout", "scatter", "tile-sort", "merges"
	};
	const int	runs = 3;
	void	   *marks[GSK_SORT_PHASES + 1];
	double		total[GSK_SORT_PHASES] = {0};
	GskSortInfo info;

	for (int p = 0; p <= GSK_SORT_PHASES; p++)
		GK(gsk_event_create(&marks[p]));
	for (int r = 0; r < runs; r++)
	{
		reset();
		GK(gsk_sort_pairs_marked(keys, rows, n, NW, temp, temp_bytes, s, marks, &info));
		GK(gsk_stream_sync(s));
		for (int p = 0; p < GSK_SORT_PHASES && info.nbuckets > 0; p++)
		{
			float		ms = 0;

			GK(gsk_event_elapsed_ms(marks[p], marks[p + 1], &ms));
			total[p] += ms;
		}
	}
	if (info.nbuckets > 0)
	{
		printf("phases n=%zu %dB:", n, NW * 8);
		for (int p = 0; p < GSK_SORT_PHASES; p++)
			printf(" %s %.3f", names[p], total[p] / runs);
		printf(" ms\n");
		fflush(stdout);
	}
	for (int p = 0; p <= GSK_SORT_PHASES; p++)
		GK(gsk_event_destroy(marks[p]));
}

template <int NW>
static void
bench_size(size_t n, cudaStream_t s, bool run_merge)
{
	size_t		kb = n * NW * 8,
				rb = n * 4;
	Key<NW>    *k0,
			   *k1,
			   *k2;
	uint32_t   *r0,
			   *r1,
			   *r2,
			   *rours;
	void	   *temp = nullptr;
	size_t		temp_bytes = gsk_sort_temp_bytes(n, NW),
				cub_bytes = 0,
				mbytes = 0;
	void	   *cub_temp = nullptr;
	GskSortInfo info;
	double		ms;
	char		note[128];

	CK(cudaMalloc(&k0, kb));
	CK(cudaMalloc(&k1, kb));
	CK(cudaMalloc(&k2, kb));
	CK(cudaMalloc(&r0, rb));
	CK(cudaMalloc(&r1, rb));
	CK(cudaMalloc(&r2, rb));
	CK(cudaMalloc(&rours, rb));
	CK(cudaMalloc(&temp, temp_bytes));
	fill_random<<<1024, 256, 0, s>>>((unsigned long long *) k0, n * NW, 0x1234 + n * NW);
	CK(cudaGetLastError());
	GK(gsk_iota_rows(r0, n, 0, s));

	auto reset = [&]() {
		CK(cudaMemcpyAsync(k1, k0, kb, cudaMemcpyDeviceToDevice, s));
		CK(cudaMemcpyAsync(r1, r0, rb, cudaMemcpyDeviceToDevice, s));
	};

	/* ours */
	ms = time_it(s, reset, [&]() {
		GK(gsk_sort_pairs((uint64_t *) k1, r1, n, NW, temp, temp_bytes, s, &info));
	});
	CK(cudaMemcpyAsync(rours, r1, rb, cudaMemcpyDeviceToDevice, s));
	snprintf(note, sizeof(note), "buckets=%d passes<=%d", info.nbuckets, info.merge_passes);
	results.push_back({n, NW * 8, "gpusort", ms, note});

	/* where our time goes, at a few sizes (phase events; slightly slower) */
	if (n == ((size_t) 1 << 20) || n == ((size_t) 1 << 25) || n == ((size_t) 1 << 27))
		time_phases<NW>(n, (uint64_t *) k1, r1, temp, temp_bytes, s, reset);

	/* CUB radix sort (stable) */
	if constexpr (NW == 1)
		CK(cub::DeviceRadixSort::SortPairs(nullptr, cub_bytes, (unsigned long long *) k1,
										   (unsigned long long *) k2, r1, r2, (int64_t) n, 0, 64, s));
	else
		CK(cub::DeviceRadixSort::SortPairs(nullptr, cub_bytes, k1, k2, r1, r2, (int64_t) n,
										   KeyDecomposer<NW>(), s));
	CK(cub::DeviceMergeSort::SortPairs(nullptr, mbytes, k1, r1, (int64_t) n, KeyLess<NW>(), s));
	CK(cudaMalloc(&cub_temp, std::max(cub_bytes, mbytes)));
	ms = time_it(s, reset, [&]() {
		size_t		bytes = cub_bytes;

		if constexpr (NW == 1)
			CK(cub::DeviceRadixSort::SortPairs(cub_temp, bytes, (unsigned long long *) k1,
											   (unsigned long long *) k2, r1, r2, (int64_t) n, 0, 64, s));
		else
			CK(cub::DeviceRadixSort::SortPairs(cub_temp, bytes, k1, k2, r1, r2, (int64_t) n,
											   KeyDecomposer<NW>(), s));
	});
	CK(cudaStreamSynchronize(s));
	{
		bool		same = thrust::equal(thrust::cuda::par.on(s), r2, r2 + n, rours);

		results.push_back({n, NW * 8, "cub-radix", ms, same ? "rows match gpusort" : "ROWS DIFFER"});
		if (!same)
			fprintf(stderr, "MISMATCH: gpusort and CUB radix sort disagree at n=%zu, %d-byte keys\n",
					n, NW * 8);
	}

	/* CUB merge sort */
	if (run_merge)
	{
		ms = time_it(s, reset, [&]() {
			size_t		bytes = mbytes;

			CK(cub::DeviceMergeSort::SortPairs(cub_temp, bytes, k1, r1, (int64_t) n, KeyLess<NW>(), s));
		});
		results.push_back({n, NW * 8, "cub-merge", ms, ""});
	}

	/* thrust */
	ms = time_it(s, reset, [&]() {
		if constexpr (NW == 1)
			thrust::sort_by_key(thrust::cuda::par_nosync.on(s), (unsigned long long *) k1,
								(unsigned long long *) k1 + n, r1);
		else
			thrust::sort_by_key(thrust::cuda::par_nosync.on(s), k1, k1 + n, r1, KeyLess<NW>());
	});
	results.push_back({n, NW * 8, "thrust", ms, NW == 1 ? "radix" : "merge (comparator)"});

	CK(cudaFree(cub_temp));
	CK(cudaFree(temp));
	CK(cudaFree(k0));
	CK(cudaFree(k1));
	CK(cudaFree(k2));
	CK(cudaFree(r0));
	CK(cudaFree(r1));
	CK(cudaFree(r2));
	CK(cudaFree(rours));
}

int
main(int argc, char **argv)
{
	int			maxlog = argc > 1 ? atoi(argv[1]) : 27;
	const char *out = getenv("OUT");
	std::string csv = std::string(out && *out ? out : ".") + "/kernels.csv";
	GskDeviceInfo dinfo;
	cudaStream_t s;
	FILE	   *f;

	if (argc > 2)
		reps = atoi(argv[2]);
	GK(gsk_init(0, &dinfo));
	CK(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking));
	printf("device: %s (%d SMs)\n", dinfo.name, dinfo.sm_count);

	/* tuning sweep of the bucket count at 2^25 (GSK_SWEEP=1) */
	if (getenv("GSK_SWEEP"))
	{
		for (int nw : {1, 2})
			for (int k = 256; k <= 1024; k *= 2)
			{
				gsk_tune_nbuckets = k;
				size_t		before = results.size();

				if (nw == 1)
					bench_size<1>((size_t) 1 << 25, s, false);
				else
					bench_size<2>((size_t) 1 << 25, s, false);
				printf("sweep k=%-5d %2d-byte 2^25: gpusort %.3f ms\n", k, nw * 8,
					   results[before].ms);
				results.resize(before);
			}
		gsk_tune_nbuckets = 0;
	}

	for (int lg = 20; lg <= maxlog; lg++)
	{
		size_t		n = (size_t) 1 << lg;

		bench_size<1>(n, s, true);
		bench_size<2>(n, s, true);
		bench_size<4>(n, s, lg <= 26);
	}

	f = fopen(csv.c_str(), "w");
	if (f)
		fprintf(f, "device,n,key_bytes,method,ms,mpairs_per_s,note\n");
	printf("\n%-10s %5s %-10s %10s %12s  %s\n", "n", "key", "method", "ms", "Mpairs/s", "note");
	for (const Row &r : results)
	{
		double		rate = r.n / (r.ms * 1e3);

		printf("%-10zu %4dB %-10s %10.3f %12.1f  %s\n", r.n, r.bytes, r.method.c_str(),
			   r.ms, rate, r.note.c_str());
		if (f)
			fprintf(f, "%s,%zu,%d,%s,%.4f,%.1f,%s\n", dinfo.name, r.n, r.bytes,
					r.method.c_str(), r.ms, rate, r.note.c_str());
	}
	if (f)
		fclose(f);

	/* the issue's bars, at 2^25 */
	{
		double		ours1 = 0,
					radix1 = 0,
					merge1 = 0,
					ours2 = 0,
					radix2 = 0;

		for (const Row &r : results)
		{
			if (r.n != ((size_t) 1 << 25))
				continue;
			if (r.bytes == 8 && r.method == "gpusort") ours1 = r.ms;
			if (r.bytes == 8 && r.method == "cub-radix") radix1 = r.ms;
			if (r.bytes == 8 && r.method == "cub-merge") merge1 = r.ms;
			if (r.bytes == 16 && r.method == "gpusort") ours2 = r.ms;
			if (r.bytes == 16 && r.method == "cub-radix") radix2 = r.ms;
		}
		if (ours1 > 0)
			printf("\n2^25, 8-byte keys: gpusort %.3f ms, CUB radix %.3f ms (%.2fx), CUB merge %.3f ms (%.2fx)\n"
				   "2^25, 16-byte keys: gpusort %.3f ms, CUB radix %.3f ms (%.2fx)\n",
				   ours1, radix1, radix1 / ours1, merge1, merge1 / ours1,
				   ours2, radix2, radix2 / ours2);
	}
	printf("csv: %s\n", csv.c_str());
	return 0;
}
