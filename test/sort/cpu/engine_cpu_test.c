/*
 * engine_cpu_test.c
 *	  Standalone test of the CPU sort engine (src/sort/engine/engine_cpu.c).
 *
 * Built outside the server with test/common/pg_shim.c for the few backend
 * symbols the engine uses (memory contexts, interrupts), and without
 * libpgport.  Every case compares the
 * engine's output, pair by pair, with a reference sort by (key, row) done by
 * the C library's qsort; gs_cpu_merge_runs is checked the same way.
 *
 *	  engine_cpu_test             correctness cases, exit status 1 on a mismatch
 *	  engine_cpu_test bench N     timings against qsort for N pairs
 */
#include "postgres.h"

#include <pthread.h>
#include <setjmp.h>
#include <time.h>

#include "miscadmin.h"

#include "engine/engine_cpu.h"
#include "engine/engine_stats.h"
#include "engine/engine_gpu.h"
#include "pg_shim.h"

/* the C library's, not port.h's replacements (no libpgport here) */
#undef qsort
#undef printf
#undef fprintf
#undef snprintf

#include "check.h"

/* libpgport's, which engine_cpu.c calls through port.h's qsort */
void
pg_qsort(void *base, size_t nel, size_t elsize,
		 int (*cmp) (const void *, const void *))
{
	qsort(base, nel, elsize, cmp);
}

/* ---- reference ------------------------------------------------------------ */

static int	ref_nwords;

typedef struct RefPair
{
	uint64		key[GS_MAX_KEY_WORDS];
	uint32		row;
} RefPair;

static int
ref_cmp(const void *a, const void *b)
{
	const RefPair *x = a;
	const RefPair *y = b;
	int			i;

	for (i = 0; i < ref_nwords; i++)
		if (x->key[i] != y->key[i])
			return x->key[i] < y->key[i] ? -1 : 1;
	return (x->row > y->row) - (x->row < y->row);
}

enum
{
	D_RANDOM, D_SMALL, D_EQUAL, D_SORTED, D_REVERSE, D_TWO, D_PREFIX, D_ZIPF, D_NDIST
};
static const char *dist_name[] = {
	"random", "small-range", "all-equal", "sorted", "reverse", "two-values",
	"shared-prefix", "skewed"
};

static void
gen(uint64 *keys, uint64 n, int nwords, int dist)
{
	uint64		i;
	int			w;

	for (i = 0; i < n; i++)
		for (w = 0; w < nwords; w++)
		{
			uint64		v;

			switch (dist)
			{
				case D_RANDOM:
					v = rnd();
					break;
				case D_SMALL:
					v = rnd() % 1000;
					break;
				case D_EQUAL:
					v = 0x0123456789abcdefULL;
					break;
				case D_SORTED:
					v = w == nwords - 1 ? i : 7;
					break;
				case D_REVERSE:
					v = w == nwords - 1 ? n - i : 7;
					break;
				case D_TWO:
					v = (rnd() & 1) ? PG_UINT64_MAX : 0;
					break;
				case D_PREFIX:
					/* long shared prefix, difference in the last bytes */
					v = w < nwords - 1 ? 0x4142434445464748ULL : (0x4142434445464700ULL | (rnd() % 200));
					break;
				default:
					/* most keys in a few values, some spread out */
					v = (rnd() % 4 == 0) ? rnd() : (rnd() % 3) << 56;
					break;
			}
			keys[i * nwords + w] = v;
		}
}

static void
check(const char *what, const uint64 *keys, const uint32 *rows, const RefPair *ref,
	  uint64 n, int nwords)
{
	uint64		i;
	int			w;

	for (i = 0; i < n; i++)
	{
		bool		bad = rows[i] != ref[i].row;

		for (w = 0; w < nwords; w++)
			bad |= keys[i * nwords + w] != ref[i].key[w];
		if (bad)
		{
			char		d[64];

			snprintf(d, sizeof(d), "first difference at %llu", (unsigned long long) i);
			fail(what, d);
			return;
		}
	}
}

static void
run_case(uint64 n, int nwords, int dist, bool shuffled_rows, int nthreads)
{
	uint64	   *keys = malloc(sizeof(uint64) * nwords * (n + 1));
	uint32	   *rows = malloc(sizeof(uint32) * (n + 1));
	RefPair    *ref = malloc(sizeof(RefPair) * (n + 1));
	uint64		i;
	char		what[128];

	gen(keys, n, nwords, dist);
	for (i = 0; i < n; i++)
		rows[i] = (uint32) i;
	if (shuffled_rows)
		for (i = n; i > 1; i--)
		{
			uint64		j = rnd() % i;
			uint32		t = rows[i - 1];

			rows[i - 1] = rows[j];
			rows[j] = t;
		}
	for (i = 0; i < n; i++)
	{
		memcpy(ref[i].key, &keys[i * nwords], sizeof(uint64) * nwords);
		ref[i].row = rows[i];
	}
	ref_nwords = nwords;
	qsort(ref, n, sizeof(RefPair), ref_cmp);

	gs_cpu_sort_pairs(keys, rows, n, nwords, nthreads);
	snprintf(what, sizeof(what), "sort n=%llu words=%d %s%s threads=%d", (unsigned long long) n,
			 nwords, dist_name[dist], shuffled_rows ? " shuffled-rows" : "", nthreads);
	check(what, keys, rows, ref, n, nwords);

	/* merge: sort runs with the reference, then merge them */
	if (n > 1 && !shuffled_rows)
	{
		uint64		run = n / 3 + 1;

		gen(keys, n, nwords, dist);
		for (i = 0; i < n; i += run)
		{
			uint64		m = Min(run, n - i),
						j;

			for (j = 0; j < m; j++)
			{
				memcpy(ref[j].key, &keys[(i + j) * nwords], sizeof(uint64) * nwords);
				ref[j].row = (uint32) (i + j);
			}
			qsort(ref, m, sizeof(RefPair), ref_cmp);
			for (j = 0; j < m; j++)
			{
				memcpy(&keys[(i + j) * nwords], ref[j].key, sizeof(uint64) * nwords);
				rows[i + j] = ref[j].row;
			}
		}
		for (i = 0; i < n; i++)
		{
			memcpy(ref[i].key, &keys[i * nwords], sizeof(uint64) * nwords);
			ref[i].row = rows[i];
		}
		qsort(ref, n, sizeof(RefPair), ref_cmp);
		gs_cpu_merge_runs(keys, rows, n, nwords, run);
		snprintf(what, sizeof(what), "merge n=%llu words=%d %s", (unsigned long long) n,
				 nwords, dist_name[dist]);
		check(what, keys, rows, ref, n, nwords);
	}
	free(keys);
	free(rows);
	free(ref);
}

static double
now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000.0 + ts.tv_nsec / 1e6;
}

static void
bench(uint64 n, int nthreads)
{
	int			nwords;
	int			dists[] = {D_RANDOM, D_SMALL, D_PREFIX};
	int			d;

	for (nwords = 1; nwords <= 4; nwords *= 2)
		for (d = 0; d < 3; d++)
		{
			uint64	   *keys = malloc(sizeof(uint64) * nwords * n);
			uint32	   *rows = malloc(sizeof(uint32) * n);
			RefPair    *ref = malloc(sizeof(RefPair) * n);
			uint64		i;
			double		t0,
						t_radix,
						t_qsort;

			gen(keys, n, nwords, dists[d]);
			for (i = 0; i < n; i++)
			{
				rows[i] = (uint32) i;
				memcpy(ref[i].key, &keys[i * nwords], sizeof(uint64) * nwords);
				ref[i].row = (uint32) i;
			}
			t0 = now_ms();
			gs_cpu_sort_pairs(keys, rows, n, nwords, nthreads);
			t_radix = now_ms() - t0;
			ref_nwords = nwords;
			t0 = now_ms();
			qsort(ref, n, sizeof(RefPair), ref_cmp);
			t_qsort = now_ms() - t0;
			printf("n=%llu key=%2d bytes %-14s radix %8.1f ms   qsort %8.1f ms\n",
				   (unsigned long long) n, nwords * 8, dist_name[dists[d]], t_radix, t_qsort);
			free(keys);
			free(rows);
			free(ref);
		}
}

/* ---- a cancel during a sort on threads ---------------------------------- */

/* -1, 0, 1 as key a compares to key b */
static int
memcmp_words(const uint64 *a, const uint64 *b, int nwords)
{
	for (int w = 0; w < nwords; w++)
		if (a[w] != b[w])
			return a[w] < b[w] ? -1 : 1;
	return 0;
}

static void *
raise_interrupt(void *arg)
{
	struct timespec ts = {0, *(const long *) arg};

	nanosleep(&ts, NULL);
	QueryCancelPending = true;
	InterruptPending = true;
	return NULL;
}

static volatile bool benign_stop;

/* interrupts that do not cancel (a parallel worker's message, say), every ms */
static void *
raise_benign(void *arg)
{
	struct timespec ts = {0, 1000000};

	while (!benign_stop)
	{
		nanosleep(&ts, NULL);
		InterruptPending = true;
	}
	return NULL;
}

/*
 * Interrupts that the backend serves without throwing must not stop a sort
 * on threads: every sort finishes, in order, with no ERROR.
 */
static void
benign_cases(void)
{
	const uint64 n = 1000000;

	for (int nwords = 1; nwords <= 2; nwords++)
	{
		uint64	   *keys = malloc(sizeof(uint64) * nwords * n);
		uint32	   *rows = malloc(sizeof(uint32) * n);
		RefPair    *ref = malloc(sizeof(RefPair) * n);
		sigjmp_buf	jb;
		sigjmp_buf *save = PG_exception_stack;
		pthread_t	th;
		char		what[64];
		uint64		i;

		snprintf(what, sizeof(what), "interrupts without a cancel, %d-word keys", nwords);
		checks++;
		gen(keys, n, nwords, nwords == 1 ? D_SMALL : D_RANDOM);
		for (i = 0; i < n; i++)
		{
			rows[i] = (uint32) i;
			memcpy(ref[i].key, &keys[i * nwords], sizeof(uint64) * nwords);
			ref[i].row = (uint32) i;
		}
		ref_nwords = nwords;
		qsort(ref, n, sizeof(RefPair), ref_cmp);

		benign_stop = false;
		pthread_create(&th, NULL, raise_benign, NULL);
		if (sigsetjmp(jb, 0) == 0)
		{
			PG_exception_stack = &jb;
			gs_cpu_sort_pairs(keys, rows, n, nwords, 4);
			PG_exception_stack = save;
			check(what, keys, rows, ref, n, nwords);
		}
		else
		{
			PG_exception_stack = save;
			fail(what, pg_shim_last_msg);
		}
		benign_stop = true;
		pthread_join(th, NULL);
		InterruptPending = false;
		free(keys);
		free(rows);
		free(ref);
	}
}

/*
 * A cancel arriving at various times of a sort on 4 threads (the MSD sort
 * of random 2-word keys; the LSD sort of 1-word keys in a small range): the
 * sort either finished, in order, or ended in the cancel's ERROR, served
 * after the threads were joined.  Never a crash, a hang or a half-sorted
 * array reported as done.
 */
static int
cancel_cases(int nwords, int dist)
{
	static const long delays_ns[] = {0, 1000000, 10000000, 30000000, 60000000,
		150000000, 400000000, 900000000};
	const uint64 n = 2000000;
	uint64	   *keys = malloc(sizeof(uint64) * nwords * n);
	uint32	   *rows = malloc(sizeof(uint32) * n);
	int			ncancelled = 0;
	size_t		c;

	for (c = 0; c < sizeof(delays_ns) / sizeof(delays_ns[0]); c++)
	{
		sigjmp_buf	jb;
		sigjmp_buf *save = PG_exception_stack;
		pthread_t	th;
		int			cancels = pg_shim_cancels;
		volatile bool finished = false;
		char		what[64];
		uint64		i;

		snprintf(what, sizeof(what), "cancel after %ld us, %d-word keys",
				 delays_ns[c] / 1000, nwords);
		checks++;
		gen(keys, n, nwords, dist);
		for (i = 0; i < n; i++)
			rows[i] = (uint32) i;
		pthread_create(&th, NULL, raise_interrupt, (void *) &delays_ns[c]);
		if (sigsetjmp(jb, 0) == 0)
		{
			PG_exception_stack = &jb;
			gs_cpu_sort_pairs(keys, rows, n, nwords, 4);
			finished = true;
		}
		PG_exception_stack = save;
		pthread_join(th, NULL);
		InterruptPending = false;
		QueryCancelPending = false;

		if (!finished)
		{
			ncancelled++;
			if (pg_shim_cancels != cancels + 1)
				fail(what, "an ERROR other than the cancel");
			continue;
		}
		for (i = 1; i < n; i++)
		{
			int			c2 = memcmp_words(&keys[(i - 1) * nwords], &keys[i * nwords], nwords);

			if (c2 > 0 || (c2 == 0 && rows[i - 1] > rows[i]))
			{
				fail(what, "finished, but not in order");
				break;
			}
		}
	}
	free(keys);
	free(rows);
	return ncancelled;
}

int
main(int argc, char **argv)
{
	static const uint64 sizes[] = {0, 1, 2, 3, 23, 24, 25, 26, 255, 256, 257, 1000, 4099, 65537, 300000};
	int			nwords,
				dist;
	size_t		s;
	int			ncases = 0;

	rnd_seed(88172645463325252ULL);
	if (argc >= 3 && strcmp(argv[1], "bench") == 0)
	{
		bench(strtoull(argv[2], NULL, 10), argc > 3 ? atoi(argv[3]) : 1);
		return 0;
	}

	for (nwords = 1; nwords <= 4; nwords *= 2)
		for (dist = 0; dist < D_NDIST; dist++)
			for (s = 0; s < lengthof(sizes); s++)
			{
				run_case(sizes[s], nwords, dist, false, 1);
				run_case(sizes[s], nwords, dist, true, 1);
				ncases += 2;
				/* the largest ones on threads too (1 thread below 2^17 pairs) */
				if (sizes[s] >= 65537)
				{
					run_case(sizes[s], nwords, dist, false, 4);
					run_case(sizes[s], nwords, dist, true, 3);
					ncases += 2;
				}
			}
	printf("cancel during an MSD sort on 4 threads: %d of 8 runs cancelled, the rest finished in order\n",
		   cancel_cases(2, D_RANDOM));
	printf("cancel during an LSD sort on 4 threads: %d of 8 runs cancelled, the rest finished in order\n",
		   cancel_cases(1, D_SMALL));
	ncases += 16;
	benign_cases();
	ncases += 2;
	printf("%d cases, %d failed\n", ncases, failures);
	return failures ? 1 : 0;
}
