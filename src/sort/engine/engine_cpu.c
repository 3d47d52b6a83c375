/*-------------------------------------------------------------------------
 *
 * engine_cpu.c
 *	  The CPU sort engine: radix sort of (key, row) pairs by (key, row).
 *
 * Keys are nwords 64-bit words compared as unsigned integers, word 0 most
 * significant; each pair also carries a 32-bit row number, and pairs with
 * equal keys are ordered by row.  Two algorithms, picked by key width:
 *
 * - One-word keys: LSD radix sort on 8-bit digits.  A single pass over the
 *   input builds the histograms of all eight bytes; bytes that hold the same
 *   value in every key are skipped (typical keys from small integers, dates
 *   or timestamps vary in only three to five of their bytes).  Each pass is
 *   a stable counting scatter, so the relative order of pairs with equal
 *   keys is the input order.  Keys varying in more than GS_LSD_MAX_PASSES
 *   bytes (floats, hashes) take the MSD sort below instead.
 *
 * - Wider keys: MSD radix sort on 8-bit digits, out of place
 *   between the input arrays and one scratch copy.  A byte on which a whole
 *   bucket agrees costs one histogram pass and no move; buckets of at most
 *   GS_INSERTION_MAX pairs are finished with an insertion sort, which beats
 *   another 256-bucket pass there.  Text prefixes and multi-column keys
 *   share long stretches of equal bytes, which this skips bucket by bucket.
 *
 * Threads (gpusort.cpu_threads, for inputs of GS_PARALLEL_MIN_PAIRS pairs
 * or more) work in teams (threads.h says the rules they follow;
 * threads_backend.c serves interrupts).  The MSD sort runs its first pass
 * on the backend's thread, then sorts the buckets it made on the team,
 * largest first, each bucket on one thread: they share no pair.  The LSD
 * sort cuts the pairs into one slice per thread; each pass counts digits
 * per slice, turns the counts into per-slice positions (slice t's pairs of
 * a digit after those of slices before it, so the pass stays stable) and
 * scatters every slice in parallel.
 *
 * Both scatter stably, so the row order within equal keys is the input's.
 * When the rows arrive ascending (always, from engine.c: row i is the i-th
 * pushed key), that is already (key, row) order.  Otherwise the LSD sort
 * first sorts by row (as less significant digits) and the MSD sort orders
 * each run of equal keys by row at the end.
 *
 * Already-sorted input is detected by a linear check and left alone, as
 * PostgreSQL's qsort does for presorted input.
 *
 * gs_cpu_merge_runs merges consecutive sorted runs (the GPU engine's way of
 * sorting inputs larger than device memory).
 *
 * Memory comes from CurrentMemoryContext (huge allocations); long loops
 * check for interrupts every GS_CFI_STRIDE pairs.
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "miscadmin.h"
#include "port/pg_bitutils.h"
#include "utils/memutils.h"

#include "intake/blockpool.h"
#include "engine_stats.h"
#include "engine_cpu.h"
#include "threads/threads_backend.h"

/* buckets this small are finished with an insertion sort */
#define GS_INSERTION_MAX	24

/*
 * One-word keys that vary in more bytes than this take the MSD sort: LSD
 * pays a pass over every pair for each varying byte, while MSD stops
 * splitting a bucket as soon as its keys are told apart, which on keys
 * varying in all their bytes (floats, hashes) is after two or three.
 */
#define GS_LSD_MAX_PASSES	5

/* pairs processed between two CHECK_FOR_INTERRUPTS() */
#define GS_CFI_STRIDE		((uint64) 1 << 18)

/* inputs smaller than this are sorted on one thread */
#define GS_PARALLEL_MIN_PAIRS	((uint64) 1 << 17)

/* byte b (0 = most significant) of a key of nwords words */
#define KEY_BYTE(k, b)	((uint32) (((k)[(b) >> 3] >> (56 - 8 * ((b) & 7))) & 0xFF))

typedef struct MsdState
{
	int			nwords;
	bool		rows_sorted;	/* input rows ascending */
	uint64	   *keys[2];		/* [0]: the caller's arrays, [1]: scratch */
	uint32	   *rows[2];
	uint64		work;			/* pairs moved since the last interrupt check */
	GsTeam	   *team;			/* sorting on threads, or NULL */
	int			t;				/* which thread of the team */
} MsdState;

/* -1, 0, 1 as key a compares to key b, from word 'from' on */
static inline int
key_cmp(const uint64 *a, const uint64 *b, int nwords, int from)
{
	int			i;

	for (i = from; i < nwords; i++)
	{
		if (a[i] != b[i])
			return a[i] < b[i] ? -1 : 1;
	}
	return 0;
}

static inline void
pair_copy(uint64 *dkeys, uint32 *drows, uint64 di,
		  const uint64 *skeys, const uint32 *srows, uint64 si, int nwords)
{
	int			w;

	for (w = 0; w < nwords; w++)
		dkeys[di * nwords + w] = skeys[si * nwords + w];
	drows[di] = srows[si];
}

static bool
rows_ascending(const uint32 *rows, uint64 n)
{
	uint64		i;

	for (i = 1; i < n; i++)
	{
		if (rows[i - 1] > rows[i])
			return false;
		if ((i & (GS_CFI_STRIDE - 1)) == 0)
			CHECK_FOR_INTERRUPTS();
	}
	return true;
}

/* true if the pairs are already in (key, row) order */
static bool
pairs_sorted(const uint64 *keys, const uint32 *rows, uint64 n, int nwords)
{
	uint64		i;

	for (i = 1; i < n; i++)
	{
		int			c = key_cmp(&keys[(i - 1) * nwords], &keys[i * nwords], nwords, 0);

		if (c > 0 || (c == 0 && rows[i - 1] > rows[i]))
			return false;
		if ((i & (GS_CFI_STRIDE - 1)) == 0)
			CHECK_FOR_INTERRUPTS();
	}
	return true;
}

/* ---- one-word keys: LSD ------------------------------------------------ */

/*
 * The LSD sort's state, shared by its team: every phase works on the
 * thread's slice of the pairs, in order, so that the scatters stay stable
 * (thread t's pairs of a digit go after those of threads before it).
 */
typedef struct LsdShared
{
	GsTeam		team;
	uint64		n;
	bool		rows_sorted;
	/* the histograms of every key byte and row byte, per thread */
	const uint64 *keys;
	const uint32 *rows;
	uint64	   *khist;			/* [nthreads][8][256], byte 0 = least significant */
	uint64	   *rhist;			/* [nthreads][4][256] */
	/* the current pass: on key byte or row byte 'shift' / 8 */
	const uint64 *skeys;
	const uint32 *srows;
	uint64	   *dkeys;
	uint32	   *drows;
	int			shift;
	bool		from_rows;
	uint64	   *off;			/* [nthreads][256]: counts, then positions */
} LsdShared;

static inline uint32
lsd_digit(const LsdShared *sh, uint64 i)
{
	if (sh->from_rows)
		return (sh->srows[i] >> sh->shift) & 0xFF;
	return (uint32) (sh->skeys[i] >> sh->shift) & 0xFF;
}

static void
lsd_histograms(void *arg, int t)
{
	LsdShared  *sh = (LsdShared *) arg;
	uint64	   *kh = &sh->khist[(Size) t * 8 * 256];
	uint64	   *rh = &sh->rhist[(Size) t * 4 * 256];
	uint64		lo,
				hi,
				i;
	int			b;

	gs_team_slice(sh->n, sh->team.nthreads, t, &lo, &hi);
	for (i = lo; i < hi; i++)
	{
		uint64		key = sh->keys[i];

		for (b = 0; b < 8; b++)
			kh[b * 256 + ((key >> (8 * b)) & 0xFF)]++;
		if (!sh->rows_sorted)
		{
			for (b = 0; b < 4; b++)
				rh[b * 256 + ((sh->rows[i] >> (8 * b)) & 0xFF)]++;
		}
		if (((i - lo) & (GS_CFI_STRIDE - 1)) == 0 && gs_team_stopped(&sh->team, t))
			return;
	}
}

static void
lsd_count(void *arg, int t)
{
	LsdShared  *sh = (LsdShared *) arg;
	uint64	   *cnt = &sh->off[(Size) t * 256];
	uint64		lo,
				hi,
				i;

	gs_team_slice(sh->n, sh->team.nthreads, t, &lo, &hi);
	memset(cnt, 0, sizeof(uint64) * 256);
	for (i = lo; i < hi; i++)
	{
		cnt[lsd_digit(sh, i)]++;
		if (((i - lo) & (GS_CFI_STRIDE - 1)) == 0 && gs_team_stopped(&sh->team, t))
			return;
	}
}

static void
lsd_scatter(void *arg, int t)
{
	LsdShared  *sh = (LsdShared *) arg;
	uint64	   *pos = &sh->off[(Size) t * 256];
	uint64		lo,
				hi,
				i;

	gs_team_slice(sh->n, sh->team.nthreads, t, &lo, &hi);
	for (i = lo; i < hi; i++)
	{
		uint64		p = pos[lsd_digit(sh, i)]++;

		sh->dkeys[p] = sh->skeys[i];
		sh->drows[p] = sh->srows[i];
		if (((i - lo) & (GS_CFI_STRIDE - 1)) == 0 && gs_team_stopped(&sh->team, t))
			return;
	}
}

/*
 * One stable counting-scatter pass on the digit sh->shift of the keys (or
 * of the row numbers): each thread counts its slice (unless hist, the
 * per-thread counts of this digit over these very slices, is given), the
 * counts become each thread's positions, and each thread scatters.
 */
static void
lsd_pass(LsdShared *sh, const uint64 *hist, int hist_stride)
{
	int			nt = sh->team.nthreads;
	uint64		sum = 0;
	int			d,
				t;

	if (hist)
	{
		for (t = 0; t < nt; t++)
			memcpy(&sh->off[(Size) t * 256], &hist[(Size) t * hist_stride],
				   sizeof(uint64) * 256);
	}
	else
		gs_backend_team_run(&sh->team, lsd_count, sh);
	for (d = 0; d < 256; d++)
		for (t = 0; t < nt; t++)
		{
			uint64		c = sh->off[(Size) t * 256 + d];

			sh->off[(Size) t * 256 + d] = sum;
			sum += c;
		}
	gs_backend_team_run(&sh->team, lsd_scatter, sh);
}

/*
 * Returns false, having sorted nothing, when the keys vary in so many bytes
 * that the MSD sort is faster (it stops at the first distinguishing bytes).
 */
static bool
lsd_sort_1word(uint64 *keys, uint32 *rows, uint64 n, bool rows_sorted,
			   int nthreads)
{
	LsdShared  *sh = palloc0(sizeof(LsdShared));
	uint64		khist[8 * 256];	/* all threads' */
	uint64		rhist[4 * 256];
	int			passes[12];		/* >= 0: key byte, < 0: -(row byte + 1) */
	int			npasses = 0;
	uint64	   *k[2];
	uint32	   *r[2];
	int			cur = 0;
	int			nt;
	int			b,
				t;
	uint64		i;

	nt = sh->team.nthreads = n >= GS_PARALLEL_MIN_PAIRS ? nthreads : 1;
	sh->n = n;
	sh->rows_sorted = rows_sorted;
	sh->keys = keys;
	sh->rows = rows;
	sh->khist = palloc0(sizeof(uint64) * 8 * 256 * nt);
	sh->rhist = palloc0(sizeof(uint64) * 4 * 256 * nt);
	sh->off = palloc(sizeof(uint64) * 256 * nt);
	gs_backend_team_run(&sh->team, lsd_histograms, sh);

	memset(khist, 0, sizeof(khist));
	memset(rhist, 0, sizeof(rhist));
	for (t = 0; t < nt; t++)
		for (i = 0; i < 8 * 256; i++)
			khist[i] += sh->khist[(Size) t * 8 * 256 + i];
	for (t = 0; t < nt; t++)
		for (i = 0; i < 4 * 256; i++)
			rhist[i] += sh->rhist[(Size) t * 4 * 256 + i];

	/* least significant digits first: rows (if needed), then key bytes */
	if (!rows_sorted)
	{
		for (b = 0; b < 4; b++)
			if (rhist[b * 256 + ((rows[0] >> (8 * b)) & 0xFF)] != n)
				passes[npasses++] = -(b + 1);
	}
	for (b = 0; b < 8; b++)
		if (khist[b * 256 + ((keys[0] >> (8 * b)) & 0xFF)] != n)
			passes[npasses++] = b;

	if (npasses > GS_LSD_MAX_PASSES)
	{
		pfree(sh->khist);
		pfree(sh->rhist);
		pfree(sh->off);
		pfree(sh);
		return false;
	}

	if (npasses > 0)
	{
		k[0] = keys;
		r[0] = rows;
		k[1] = gs_pool_alloc(CurrentMemoryContext, sizeof(uint64) * n);
		r[1] = gs_pool_alloc(CurrentMemoryContext, sizeof(uint32) * n);

		for (i = 0; i < (uint64) npasses; i++)
		{
			int			p = passes[i];

			sh->skeys = k[cur];
			sh->srows = r[cur];
			sh->dkeys = k[1 - cur];
			sh->drows = r[1 - cur];
			sh->from_rows = p < 0;
			sh->shift = p >= 0 ? 8 * p : 8 * (-p - 1);
			/* the first pass reads the slices the histograms were taken of */
			if (i > 0)
				lsd_pass(sh, NULL, 0);
			else if (p >= 0)
				lsd_pass(sh, &sh->khist[p * 256], 8 * 256);
			else
				lsd_pass(sh, &sh->rhist[(-p - 1) * 256], 4 * 256);
			cur = 1 - cur;
		}
		if (cur == 1)
		{
			memcpy(keys, k[1], sizeof(uint64) * n);
			memcpy(rows, r[1], sizeof(uint32) * n);
		}
		gs_pool_free(k[1]);
		gs_pool_free(r[1]);
	}
	pfree(sh->khist);
	pfree(sh->rhist);
	pfree(sh->off);
	pfree(sh);
	return true;
}

/* ---- wider keys: MSD --------------------------------------------------- */

static void
insertion_sort(uint64 *keys, uint32 *rows, uint64 n, int nwords, int from)
{
	uint64		i;

	for (i = 1; i < n; i++)
	{
		uint64		tkey[GS_MAX_KEY_WORDS];
		uint32		trow = rows[i];
		uint64		j = i;
		int			w;

		for (w = 0; w < nwords; w++)
			tkey[w] = keys[i * nwords + w];
		while (j > 0)
		{
			int			c = key_cmp(&keys[(j - 1) * nwords], tkey, nwords, from);

			if (c < 0 || (c == 0 && rows[j - 1] <= trow))
				break;
			pair_copy(keys, rows, j, keys, rows, j - 1, nwords);
			j--;
		}
		for (w = 0; w < nwords; w++)
			keys[j * nwords + w] = tkey[w];
		rows[j] = trow;
	}
}

static int
cmp_uint32(const void *a, const void *b)
{
	uint32		x = *(const uint32 *) a;
	uint32		y = *(const uint32 *) b;

	return (x > y) - (x < y);
}

/*
 * Finishes pairs [lo, lo + n) whose data is in buffer 'buf': once sorted,
 * they must end in buffer 0 (the caller's).
 */
static void
msd_leaf_home(MsdState *st, int buf, uint64 lo, uint64 n)
{
	int			nw = st->nwords;

	if (buf == 1)
	{
		memcpy(&st->keys[0][lo * nw], &st->keys[1][lo * nw], sizeof(uint64) * nw * n);
		memcpy(&st->rows[0][lo], &st->rows[1][lo], sizeof(uint32) * n);
	}
}

/*
 * The first byte >= from at which some of the n keys differ from keys[0];
 * nwords * 8 if they are all equal from there on.
 */
static int
first_differing_byte(const uint64 *keys, uint64 n, int nwords, int from)
{
	uint64		diff[GS_MAX_KEY_WORDS] = {0};
	uint64		i;
	int			w;

	for (i = 1; i < n; i++)
		for (w = from >> 3; w < nwords; w++)
			diff[w] |= keys[i * nwords + w] ^ keys[w];

	/* bytes of word from/8 before 'from' are equal already */
	if (from < nwords * 8)
		diff[from >> 3] &= PG_UINT64_MAX >> (8 * (from & 7));
	for (w = from >> 3; w < nwords; w++)
	{
		if (diff[w] != 0)
			return w * 8 + (63 - pg_leftmost_one_pos64(diff[w])) / 8;
	}
	return nwords * 8;
}

/*
 * Serves interrupts: on one thread, as usual; among threads, only the
 * backend's thread looks, and a pending cancel stops every thread (the
 * interrupt itself is served after they are joined).
 */
static bool
msd_stopped(MsdState *st)
{
	if (st->team == NULL)
	{
		CHECK_FOR_INTERRUPTS();
		return false;
	}
	return gs_team_stopped(st->team, st->t);
}

static void
msd_sort(MsdState *st, int buf, uint64 lo, uint64 n, int byte)
{
	int			nw = st->nwords;
	int			nbytes = nw * 8;
	uint64		count[256];
	uint64		offset[256];

	for (;;)
	{
		uint64	   *skeys = &st->keys[buf][lo * nw];
		uint32	   *srows = &st->rows[buf][lo];
		uint64		i;
		uint64		sum;
		int			d;

		if (n <= GS_INSERTION_MAX)
		{
			insertion_sort(skeys, srows, n, nw, byte >> 3);
			msd_leaf_home(st, buf, lo, n);
			return;
		}
		if (byte >= nbytes)
		{
			/* all keys equal: order by row (stable scatters kept input order) */
			if (!st->rows_sorted)
				qsort(srows, n, sizeof(uint32), cmp_uint32);
			msd_leaf_home(st, buf, lo, n);
			return;
		}

		st->work += n;
		if (st->work >= GS_CFI_STRIDE)
		{
			st->work = 0;
			if (msd_stopped(st))
				return;
		}

		memset(count, 0, sizeof(count));
		for (i = 0; i < n; i++)
			count[KEY_BYTE(&skeys[i * nw], byte)]++;

		/*
		 * One bucket holds everything: this byte decides nothing, and maybe
		 * neither do the next ones.  One pass finds the first byte on which
		 * some key differs from the first key.
		 */
		if (count[KEY_BYTE(&skeys[0], byte)] == n)
		{
			byte = first_differing_byte(skeys, n, nw, byte + 1);
			continue;
		}

		sum = 0;
		for (d = 0; d < 256; d++)
		{
			offset[d] = sum;
			sum += count[d];
		}

		{
			uint64	   *dkeys = &st->keys[1 - buf][lo * nw];
			uint32	   *drows = &st->rows[1 - buf][lo];

			for (i = 0; i < n; i++)
			{
				uint64		pos = offset[KEY_BYTE(&skeys[i * nw], byte)]++;

				pair_copy(dkeys, drows, pos, skeys, srows, i, nw);
			}
		}

		/* offset[d] is now the end of bucket d */
		for (d = 0; d < 256; d++)
		{
			if (count[d] > 0)
				msd_sort(st, 1 - buf, lo + offset[d] - count[d], count[d], byte + 1);
			if (st->team && __atomic_load_n(&st->team->cancel, __ATOMIC_RELAXED))
				return;
		}
		return;
	}
}

/* ---- wider keys on several threads -------------------------------------- */

/* pairs [lo, lo + n) of buffer 1 */
typedef struct MsdBucket
{
	uint64		lo;
	uint64		n;
} MsdBucket;

typedef struct MsdShared
{
	GsTeam		team;
	MsdState	st;				/* the arrays; each thread sorts with a copy */
	int			byte;			/* the buckets' next digit */
	int			nbuckets;
	MsdBucket	bucket[256];	/* largest first */
	int			next;			/* the next bucket to take (atomic) */
} MsdShared;

/* a team member: takes buckets until there are none left */
static void
msd_take_buckets(void *arg, int t)
{
	MsdShared  *sh = (MsdShared *) arg;
	MsdState	st = sh->st;
	int			b;

	st.work = 0;
	st.team = &sh->team;
	st.t = t;
	while ((b = __atomic_fetch_add(&sh->next, 1, __ATOMIC_RELAXED)) < sh->nbuckets)
	{
		msd_sort(&st, 1, sh->bucket[b].lo, sh->bucket[b].n, sh->byte);
		if (__atomic_load_n(&sh->team.cancel, __ATOMIC_RELAXED))
			break;
	}
}

static int
bucket_cmp_desc(const void *a, const void *b)
{
	uint64		x = ((const MsdBucket *) a)->n;
	uint64		y = ((const MsdBucket *) b)->n;

	return (x < y) - (x > y);
}

/*
 * msd_sort of all n pairs (in buffer 0, byte 0 on), its first pass on this
 * thread and the buckets it makes on nthreads threads.
 */
static void
msd_sort_threads(MsdState *st, uint64 n, int nthreads)
{
	MsdShared  *sh = palloc0(sizeof(MsdShared));
	int			nw = st->nwords;
	uint64		count[256];
	uint64		offset[256];
	uint64		sum = 0;
	int			byte = 0;
	int			d;
	uint64		i;

	/* the first byte that splits the input, as msd_sort finds it */
	for (;;)
	{
		memset(count, 0, sizeof(count));
		for (i = 0; i < n; i++)
			count[KEY_BYTE(&st->keys[0][i * nw], byte)]++;
		if (count[KEY_BYTE(&st->keys[0][0], byte)] < n)
			break;
		byte = first_differing_byte(st->keys[0], n, nw, byte + 1);
		if (byte >= nw * 8)
		{
			/* all keys equal: nothing to share out */
			msd_sort(st, 0, 0, n, byte);
			pfree(sh);
			return;
		}
		CHECK_FOR_INTERRUPTS();
	}

	for (d = 0; d < 256; d++)
	{
		offset[d] = sum;
		sum += count[d];
		if (count[d] > 0)
		{
			sh->bucket[sh->nbuckets].lo = offset[d];
			sh->bucket[sh->nbuckets].n = count[d];
			sh->nbuckets++;
		}
	}
	for (i = 0; i < n; i++)
	{
		pair_copy(st->keys[1], st->rows[1], offset[KEY_BYTE(&st->keys[0][i * nw], byte)]++,
				  st->keys[0], st->rows[0], i, nw);
		if ((i & (GS_CFI_STRIDE - 1)) == 0)
			CHECK_FOR_INTERRUPTS();
	}

	/* largest buckets first, so that the last ones to finish are small */
	qsort(sh->bucket, sh->nbuckets, sizeof(MsdBucket), bucket_cmp_desc);
	sh->st = *st;
	sh->byte = byte + 1;
	sh->team.nthreads = Min(nthreads, sh->nbuckets);
	gs_backend_team_run(&sh->team, msd_take_buckets, sh);
	pfree(sh);
}

static void
msd_sort_pairs(uint64 *keys, uint32 *rows, uint64 n, int nwords, bool rows_sorted,
			   int nthreads)
{
	MsdState	st;

	memset(&st, 0, sizeof(st));
	st.nwords = nwords;
	st.rows_sorted = rows_sorted;
	st.keys[0] = keys;
	st.rows[0] = rows;
	st.keys[1] = gs_pool_alloc(CurrentMemoryContext, sizeof(uint64) * nwords * n);
	st.rows[1] = gs_pool_alloc(CurrentMemoryContext, sizeof(uint32) * n);
	if (nthreads > 1 && n >= GS_PARALLEL_MIN_PAIRS)
		msd_sort_threads(&st, n, nthreads);
	else
		msd_sort(&st, 0, 0, n, 0);
	gs_pool_free(st.keys[1]);
	gs_pool_free(st.rows[1]);
}

/* ---- entry points ------------------------------------------------------ */

void
gs_cpu_sort_pairs(uint64 *keys, uint32 *rows, uint64 n, int nwords, int nthreads)
{
	bool		rows_sorted;

	Assert(nwords >= 1 && nwords <= GS_MAX_KEY_WORDS);
	if (n < 2)
		return;
	nthreads = Max(1, Min(nthreads, GS_MAX_THREADS));
	if (pairs_sorted(keys, rows, n, nwords))
		return;
	rows_sorted = rows_ascending(rows, n);

	if (nwords == 1 && lsd_sort_1word(keys, rows, n, rows_sorted, nthreads))
		return;
	msd_sort_pairs(keys, rows, n, nwords, rows_sorted, nthreads);
}

/*
 * Merges the sorted runs [0, run), [run, 2 run), ... of n pairs into one
 * sorted sequence in place, by passes of pairwise merges through a scratch
 * copy.
 */
void
gs_cpu_merge_runs(uint64 *keys, uint32 *rows, uint64 n, int nwords, uint64 run)
{
	uint64	   *k[2];
	uint32	   *r[2];
	int			cur = 0;
	uint64		width;
	uint64		work = 0;

	Assert(run > 0);
	if (run >= n)
		return;

	k[0] = keys;
	r[0] = rows;
	k[1] = gs_pool_alloc(CurrentMemoryContext, sizeof(uint64) * nwords * n);
	r[1] = gs_pool_alloc(CurrentMemoryContext, sizeof(uint32) * n);

	for (width = run; width < n; width *= 2)
	{
		uint64		lo;

		for (lo = 0; lo < n; lo += 2 * width)
		{
			uint64		mid = Min(lo + width, n);
			uint64		hi = Min(lo + 2 * width, n);
			uint64		i = lo,
						j = mid,
						o = lo;

			while (i < mid && j < hi)
			{
				int			c = key_cmp(&k[cur][i * nwords], &k[cur][j * nwords], nwords, 0);

				if (c < 0 || (c == 0 && r[cur][i] <= r[cur][j]))
					pair_copy(k[1 - cur], r[1 - cur], o++, k[cur], r[cur], i++, nwords);
				else
					pair_copy(k[1 - cur], r[1 - cur], o++, k[cur], r[cur], j++, nwords);
				if (++work >= GS_CFI_STRIDE)
				{
					work = 0;
					CHECK_FOR_INTERRUPTS();
				}
			}
			if (i < mid)
			{
				memcpy(&k[1 - cur][o * nwords], &k[cur][i * nwords], sizeof(uint64) * nwords * (mid - i));
				memcpy(&r[1 - cur][o], &r[cur][i], sizeof(uint32) * (mid - i));
			}
			if (j < hi)
			{
				memcpy(&k[1 - cur][o * nwords], &k[cur][j * nwords], sizeof(uint64) * nwords * (hi - j));
				memcpy(&r[1 - cur][o], &r[cur][j], sizeof(uint32) * (hi - j));
			}
		}
		cur = 1 - cur;
	}
	if (cur == 1)
	{
		memcpy(keys, k[1], sizeof(uint64) * nwords * n);
		memcpy(rows, r[1], sizeof(uint32) * n);
	}
	gs_pool_free(k[1]);
	gs_pool_free(r[1]);
}
