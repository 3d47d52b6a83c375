/*
 * kernel_test.cu
 *	  Standalone test of gsk_sort_pairs (no PostgreSQL): every key width,
 *	  sizes around the tile and partition thresholds and powers of two up to
 *	  2^27, and inputs that stress the partition (sorted, reverse, all
 *	  equal, two values, Zipf-skewed, one huge bucket, keys equal in all but
 *	  the last word).
 *
 * Each case is checked two ways:
 *	 - for n <= REF_MAX, against a CPU reference (std::sort of the input
 *	   pairs by (key, row)), position by position;
 *	 - for every n, in O(n): the output rows are a permutation of the input
 *	   rows, every output key is the key that row had, and the output is in
 *	   strictly increasing (key, row) order.  With distinct rows that is the
 *	   same as equality with the reference, and it catches unwritten or
 *	   duplicated outputs.
 *
 * Prints one line per case and "N passed, M failed"; exits 1 on a failure.
 * Usage: kernel_test [quick|large]   (quick: up to 2^22+1 only; large: only
 * the sizes above; no argument: both)
 */
#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <numeric>
#include <string>
#include <thread>
#include <vector>

#include <cuda_runtime.h>

#include "gpusort_kernels.h"

#define REF_MAX (1 << 21)

static int	npassed = 0,
			nfailed = 0;

static void
die(const char *what, int rc)
{
	fprintf(stderr, "FATAL: %s: rc=%d %s\n", what, rc, gsk_last_error());
	exit(2);
}

/* splitmix64: fast, good enough, reproducible per (seed, index) */
static inline uint64_t
mix64(uint64_t x)
{
	x += 0x9e3779b97f4a7c15ULL;
	x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ULL;
	x = (x ^ (x >> 27)) * 0x94d049bb133111ebULL;
	return x ^ (x >> 31);
}

enum Dist
{
	RANDOM, SORTED, REVERSE, ALL_EQUAL, TWO_VALUES, ZIPF, HUGE_BUCKET,
	LAST_WORD, SHUFFLED_ROWS, NDIST
};

static const char *dist_name[] = {
	"random", "sorted", "reverse", "all-equal", "two-values", "zipf",
	"huge-bucket", "last-word", "shuffled-rows"
};

/* Zipf(1.1) over 2^20 ranks, as a CDF for inverse sampling */
static std::vector<double> zipf_cdf;

static void
init_zipf(void)
{
	const int	N = 1 << 20;
	double		sum = 0;

	zipf_cdf.resize(N);
	for (int i = 0; i < N; i++)
	{
		sum += 1.0 / pow((double) (i + 1), 1.1);
		zipf_cdf[i] = sum;
	}
	for (int i = 0; i < N; i++)
		zipf_cdf[i] /= sum;
}

static void
parallel_for(size_t n, const std::function<void(size_t, size_t)> &fn)
{
	unsigned	nt = std::max(1u, std::min(16u, std::thread::hardware_concurrency()));
	std::vector<std::thread> th;

	if (n < 100000)
	{
		fn(0, n);
		return;
	}
	for (unsigned t = 0; t < nt; t++)
		th.emplace_back(fn, n * t / nt, n * (t + 1) / nt);
	for (auto &x : th)
		x.join();
}

static void
generate(Dist d, int nw, size_t n, uint64_t seed, std::vector<uint64_t> &keys,
		 std::vector<uint32_t> &rows, uint32_t first_row)
{
	keys.resize(n * nw);
	rows.resize(n);
	parallel_for(n, [&](size_t lo, size_t hi) {
		for (size_t i = lo; i < hi; i++)
		{
			uint64_t	r = mix64(seed * 1000003 + i);

			for (int w = 0; w < nw; w++)
			{
				uint64_t	v = mix64(r + w);

				switch (d)
				{
					case RANDOM:
					case SHUFFLED_ROWS:
						break;
					case SORTED:
						v = (w == nw - 1) ? i * 3 : 7;
						break;
					case REVERSE:
						v = (w == nw - 1) ? ~(uint64_t) i : 7;
						break;
					case ALL_EQUAL:
						v = 0x5555aaaa5555aaaaULL;
						break;
					case TWO_VALUES:
						v = (r & 1) ? ~0ULL : 0;
						break;
					case ZIPF:
						{
							double		u = (double) (r >> 11) / (double) (1ULL << 53);
							size_t		rank = std::lower_bound(zipf_cdf.begin(), zipf_cdf.end(), u) - zipf_cdf.begin();

							v = (w == 0) ? mix64(rank) : rank;
						}
						break;
					case HUGE_BUCKET:
						if (r % 10 != 0)
							v = 0x123456789ULL;
						break;
					case LAST_WORD:
						if (w < nw - 1)
							v = r % 3;
						break;
					default:
						break;
				}
				keys[i * nw + w] = v;
			}
			rows[i] = first_row + (uint32_t) i;
		}
	});
	if (d == SHUFFLED_ROWS)
	{
		/* a random permutation of the rows, keys kept where they are */
		for (size_t i = n; i > 1; i--)
			std::swap(rows[i - 1], rows[mix64(seed ^ i) % i]);
	}
}

static inline int
cmp_pair(const uint64_t *a, uint32_t ra, const uint64_t *b, uint32_t rb, int nw)
{
	for (int w = 0; w < nw; w++)
		if (a[w] != b[w])
			return a[w] < b[w] ? -1 : 1;
	return ra < rb ? -1 : (ra > rb ? 1 : 0);
}

/* Returns "" or a description of the first problem found */
static std::string
check(int nw, size_t n, uint32_t first_row,
	  const std::vector<uint64_t> &in_keys, const std::vector<uint32_t> &in_rows,
	  const std::vector<uint64_t> &out_keys, const std::vector<uint32_t> &out_rows)
{
	char		msg[256];
	std::vector<size_t> where(n);	/* input index of each row */
	std::vector<unsigned char> seen(n, 0);

	for (size_t i = 0; i < n; i++)
		where[in_rows[i] - first_row] = i;

	for (size_t i = 0; i < n; i++)
	{
		uint32_t	r = out_rows[i];
		size_t		j;

		if (r < first_row || r - first_row >= n)
		{
			snprintf(msg, sizeof(msg), "position %zu: row %u out of range", i, r);
			return msg;
		}
		if (seen[r - first_row]++)
		{
			snprintf(msg, sizeof(msg), "position %zu: row %u appears twice", i, r);
			return msg;
		}
		j = where[r - first_row];
		if (memcmp(&out_keys[i * nw], &in_keys[j * nw], nw * 8) != 0)
		{
			snprintf(msg, sizeof(msg), "position %zu: key of row %u changed", i, r);
			return msg;
		}
		if (i > 0 && cmp_pair(&out_keys[(i - 1) * nw], out_rows[i - 1],
							  &out_keys[i * nw], r, nw) >= 0)
		{
			snprintf(msg, sizeof(msg), "positions %zu,%zu out of order", i - 1, i);
			return msg;
		}
	}

	if (n <= REF_MAX)
	{
		std::vector<size_t> idx(n);

		std::iota(idx.begin(), idx.end(), 0);
		std::sort(idx.begin(), idx.end(), [&](size_t a, size_t b) {
			return cmp_pair(&in_keys[a * nw], in_rows[a],
							&in_keys[b * nw], in_rows[b], nw) < 0;
		});
		for (size_t i = 0; i < n; i++)
		{
			if (out_rows[i] != in_rows[idx[i]] ||
				memcmp(&out_keys[i * nw], &in_keys[idx[i] * nw], nw * 8) != 0)
			{
				snprintf(msg, sizeof(msg), "position %zu differs from std::sort", i);
				return msg;
			}
		}
	}
	return "";
}

struct Dev
{
	uint64_t   *keys = nullptr;
	uint32_t   *rows = nullptr;
	void	   *temp = nullptr;
	size_t		cap_pairs = 0,
				cap_words = 0,
				cap_temp = 0;
};

static void
ensure(Dev &d, size_t n, int nw)
{
	size_t		tb = gsk_sort_temp_bytes(n, nw);
	int			rc;

	if (n * nw > d.cap_words)
	{
		gsk_device_free(d.keys);
		if ((rc = gsk_device_alloc((void **) &d.keys, std::max<size_t>(n * nw, 1) * 8)) != 0)
			die("alloc keys", rc);
		d.cap_words = n * nw;
	}
	if (n > d.cap_pairs)
	{
		gsk_device_free(d.rows);
		if ((rc = gsk_device_alloc((void **) &d.rows, std::max<size_t>(n, 1) * 4)) != 0)
			die("alloc rows", rc);
		d.cap_pairs = n;
	}
	if (tb > d.cap_temp)
	{
		gsk_device_free(d.temp);
		if ((rc = gsk_device_alloc(&d.temp, tb)) != 0)
			die("alloc temp", rc);
		d.cap_temp = tb;
	}
}

static void
run_case(Dev &dev, void *stream, Dist d, int nw, size_t n, uint64_t seed)
{
	std::vector<uint64_t> in_keys,
				out_keys;
	std::vector<uint32_t> in_rows,
				out_rows;
	uint32_t	first_row = (uint32_t) (seed % 5);	/* not always 0 */
	GskSortInfo info;
	void	   *ev0,
			   *ev1;
	float		ms = 0;
	int			rc;
	std::string err;

	generate(d, nw, n, seed, in_keys, in_rows, first_row);
	ensure(dev, n, nw);
	out_keys.assign(n * nw, 0xdeadbeefdeadbeefULL);
	out_rows.assign(n, 0xdeadbeef);

	if ((rc = gsk_copy_h2d_async(dev.keys, in_keys.data(), n * nw * 8, stream)) != 0)
		die("h2d keys", rc);
	if (d == SHUFFLED_ROWS)
		rc = gsk_copy_h2d_async(dev.rows, in_rows.data(), n * 4, stream);
	else
		rc = gsk_iota_rows(dev.rows, n, first_row, stream);
	if (rc != 0)
		die("rows", rc);
	/* poison the temp buffer: nothing may depend on its contents */
	if (dev.temp && n > 0)
		cudaMemsetAsync(dev.temp, 0xa5, gsk_sort_temp_bytes(n, nw), (cudaStream_t) stream);

	gsk_event_create(&ev0);
	gsk_event_create(&ev1);
	gsk_event_record(ev0, stream);
	rc = gsk_sort_pairs(dev.keys, dev.rows, n, nw, dev.temp,
						gsk_sort_temp_bytes(n, nw), stream, &info);
	gsk_event_record(ev1, stream);
	if (rc == 0)
		rc = gsk_stream_sync(stream);
	if (rc == 0)
		gsk_event_elapsed_ms(ev0, ev1, &ms);
	gsk_event_destroy(ev0);
	gsk_event_destroy(ev1);

	if (rc != 0)
		err = std::string("gsk_sort_pairs failed: ") + gsk_last_error();
	else
	{
		if ((rc = gsk_copy_d2h_async(out_keys.data(), dev.keys, n * nw * 8, stream)) != 0 ||
			(rc = gsk_copy_d2h_async(out_rows.data(), dev.rows, n * 4, stream)) != 0 ||
			(rc = gsk_stream_sync(stream)) != 0)
			die("d2h", rc);
		err = check(nw, n, first_row, in_keys, in_rows, out_keys, out_rows);
	}
	printf("%s %-13s %2d-byte n=%-10zu buckets=%-5d passes=%-2d %9.3f ms%s%s\n",
		   err.empty() ? "ok  " : "FAIL", dist_name[d], nw * 8, n,
		   info.nbuckets, info.merge_passes, ms,
		   err.empty() ? "" : "  ", err.c_str());
	fflush(stdout);
	if (err.empty())
		npassed++;
	else
		nfailed++;
}

int
main(int argc, char **argv)
{
	bool		small = !(argc > 1 && strcmp(argv[1], "large") == 0);
	bool		large = !(argc > 1 && strcmp(argv[1], "quick") == 0);
	GskDeviceInfo dinfo;
	void	   *stream;
	Dev			dev;
	int			rc;
	uint64_t	seed = 1;
	const int	widths[] = {1, 2, 4};
	auto		t0 = std::chrono::steady_clock::now();

	if ((rc = gsk_init(0, &dinfo)) != 0)
		die("gsk_init", rc);
	printf("device: %s, %d SMs, cc %d.%d, %.1f GiB\n", dinfo.name, dinfo.sm_count,
		   dinfo.cc_major, dinfo.cc_minor, dinfo.total_mem / 1073741824.0);
	if ((rc = gsk_stream_create(&stream)) != 0)
		die("stream", rc);
	init_zipf();

	/* bad arguments are refused, not crashed on */
	{
		GskSortInfo info;

		if (gsk_sort_pairs(NULL, NULL, 10, 3, NULL, 0, stream, &info) == 0 ||
			gsk_sort_pairs(NULL, NULL, 10, 1, NULL, 0, stream, &info) == 0)
		{
			printf("FAIL bad arguments accepted\n");
			nfailed++;
		}
		else
		{
			printf("ok   bad arguments refused (%s)\n", gsk_last_error());
			npassed++;
		}
	}

	for (int nw : widths)
	{
		if (!small)
			break;
		/* tile sizes of the policies (partition_sort.cu): 2816, 1792, 1280 */
		size_t		tile = nw == 1 ? 2816 : (nw == 2 ? 1792 : 1280);
		std::vector<size_t> sizes = {0, 1, 2, 3, tile - 1, tile, tile + 1,
			2 * tile + 1, 5 * tile + 7};

		for (int k = 10; k <= 22; k += 2)
		{
			sizes.push_back(((size_t) 1 << k) - 1);
			sizes.push_back(((size_t) 1 << k) + 1);
		}
		sizes.push_back((1 << 19) - 1);
		sizes.push_back((1 << 19) + 1);
		sizes.push_back((1 << 21) + 1);

		for (size_t n : sizes)
			for (int d = 0; d < NDIST; d++)
				run_case(dev, stream, (Dist) d, nw, n, seed++);
	}

	if (large)
	{
		/* large sizes for a subset of the distributions */
		for (int nw : widths)
		{
			size_t		n23 = ((size_t) 1 << 23) + 1;
			size_t		n24 = ((size_t) 1 << 24) - 1;
			size_t		n25 = ((size_t) 1 << 25) + 1;

			run_case(dev, stream, RANDOM, nw, n23, seed++);
			run_case(dev, stream, ALL_EQUAL, nw, n24, seed++);
			run_case(dev, stream, ZIPF, nw, n24, seed++);
			run_case(dev, stream, HUGE_BUCKET, nw, n24, seed++);
			run_case(dev, stream, RANDOM, nw, n25, seed++);
			if (nw == 1)
			{
				run_case(dev, stream, REVERSE, nw, n25, seed++);
				run_case(dev, stream, TWO_VALUES, nw, n25, seed++);
				run_case(dev, stream, RANDOM, nw, ((size_t) 1 << 27) - 1, seed++);
			}
			if (nw == 2)
				run_case(dev, stream, RANDOM, nw, ((size_t) 1 << 26) + 1, seed++);
		}
	}

	gsk_device_free(dev.keys);
	gsk_device_free(dev.rows);
	gsk_device_free(dev.temp);
	gsk_stream_destroy(stream);
	printf("kernel tests took %.1f s\n",
		   std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count());
	printf("%d passed, %d failed\n", npassed, nfailed);
	return nfailed ? 1 : 0;
}
