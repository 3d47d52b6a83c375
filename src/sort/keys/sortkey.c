/*-------------------------------------------------------------------------
 *
 * sortkey.c
 *	  Order-preserving fixed-width keys for GpuSort: which sort columns
 *	  have an encoder, what was seen of them, and the key's layout.
 *
 * A key is a string of at most 32 bytes, compared with memcmp; it is handed
 * to the engines as 64-bit words loaded big-endian, so comparing words as
 * unsigned integers is the same as memcmp of the bytes.  Each sort column
 * owns a slice of the key, in column order:
 *
 *	   [null byte]  present only if the column held both NULLs and values:
 *					0 sorts first, so NULLS FIRST gives NULL 0 and values 1,
 *					NULLS LAST the reverse.  A NULL's value bytes are zero.
 *	   value bytes	the value's order-preserving encoding, or a prefix of
 *					it; DESC inverts them (never the null byte).
 *
 * The encodings, and the raw keys a key is built from, are keyencode.c's;
 * this file decides where each column's slice lies and how wide it is.
 *
 * A column of few distinct values may instead be keyed by its value's rank
 * among them (sortdict.c: gs_keys_set_ranks), which is exact whatever its
 * type and collation, and narrow.
 *
 * A column is "exact" when its slice decides its order and equality alone:
 * the whole encoding fits and the encoding is injective.  ICU and libc
 * prefixes and bytea never are (ICU-equal strings can differ, and "ab"
 * and "ab\0" pad to the same bytes).  The layout stops at the first
 * column that is not exact (or does not fit): later columns only matter
 * among rows whose earlier columns are equal, which a prefix cannot tell.
 * Those rows are left to PostgreSQL's comparators (sortnode.c), just as
 * tuplesort settles equal abbreviated keys.
 *
 * Widths come from the data: gs_keys_observe records per column whether
 * NULLs and values occur, integer ranges and the longest encoding, and
 * gs_keys_layout packs the columns into the fewest of 8, 16 or 32 bytes
 * (or fewer, when gs_keys_choose_layout finds in a sample of the rows that
 * a shorter, inexact key separates them about as well: the key budgeted at
 * W bytes is the W-byte prefix of the full key, since columns keep their
 * places and a truncated column keeps the first bytes of its encoding).
 * Exactness rests on statistics over every row, whether a row's raw key
 * is written as gs_keys_observe sees it or captured later.  Columns past
 * GS_RAW_MAX_BYTES of raw key are left to the comparators.
 *
 * A sort operator is mapped to an encoder through the comparison function
 * of its btree operator family, so domains, varchar (text_ops) and
 * DESC/USING forms of the same operators all work, and name is keyed as
 * text; anything else (other types, such as inet, and non-default
 * operator classes) has no encoder.
 *
 * What the key leaves unsettled, the node settles with the help of
 * keyrefine.c (more of a string's transform than its prefix), keyencode.c
 * (the later columns' keys) and keycollate.c (strcoll and ICU comparisons
 * on threads).
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include <math.h>

#include "access/nbtree.h"
#include "access/stratnum.h"
#include "catalog/pg_collation.h"
#include "mb/pg_wchar.h"
#include "port/pg_bswap.h"
#include "utils/builtins.h"
#include "utils/fmgroids.h"
#include "utils/lsyscache.h"
#include "utils/typcache.h"
#include "utils/uuid.h"

#include "keyint.h"

/*
 * Raw key budget per row.  Two string columns and a few integers fit; a
 * sort on more columns than that keys only the leading ones (a key holds
 * GS_KEY_MAX_BYTES anyway) and settles the rest with the comparators.
 */
#define GS_RAW_MAX_BYTES	128

/*
 * Raw keys up to this size are worth keeping for every row while the rows
 * are stored (a few numbers): beyond it (strings), faulting in the memory
 * for them costs more than deforming the stored rows a second time.
 */
#define GS_RAW_SMALL_BYTES	24

/* ---- building the spec -------------------------------------------------- */

/*
 * The encoder of a column whose btree comparison function is cmpproc, for
 * the types that need no collation: false for the string types (the
 * collation decides, keycol_string_kind) and for those without one.
 */
static bool
keycol_fixed_kind(GsKeyCol *col, Oid cmpproc)
{
	switch (cmpproc)
	{
		case F_BTINT2CMP:
			col->kind = GSK_INT;
			col->typlen = 2;
			return true;
		case F_BTINT4CMP:
		case F_DATE_CMP:
			col->kind = GSK_INT;
			col->typlen = 4;
			return true;
		case F_BTINT8CMP:
		case F_TIMESTAMP_CMP:
		case F_TIMESTAMPTZ_CMP:
		case F_TIME_CMP:
		case F_CASH_CMP:
			col->kind = GSK_INT;
			col->typlen = 8;
			return true;
		case F_BTOIDCMP:
			col->kind = GSK_OID;
			return true;
		case F_BTBOOLCMP:
			col->kind = GSK_BOOL;
			return true;
		case F_BTFLOAT4CMP:
			col->kind = GSK_FLOAT4;
			return true;
		case F_BTFLOAT8CMP:
			col->kind = GSK_FLOAT8;
			return true;
		case F_UUID_CMP:
			col->kind = GSK_UUID;
			return true;
		case F_NUMERIC_CMP:
			col->kind = GSK_NUMERIC;
			return true;
		case F_BYTEACMP:
			col->kind = GSK_BYTEA;
			return true;
#ifdef HAVE_INT128
		case F_INTERVAL_CMP:
			col->kind = GSK_INTERVAL;
			return true;
#endif
		default:
			return false;
	}
}

/* an ICU collation's kind, or false with *reason set */
static bool
keycol_icu_kind(GsKeyCol *col, Oid collation, bool bpchar, char **reason)
{
	col->locale = pg_newlocale_from_collation(collation);
#ifdef USE_ICU
	if (col->locale && col->locale->provider == COLLPROVIDER_ICU)
	{
		if (GetDatabaseEncoding() != PG_UTF8)
		{
			*reason = psprintf("ICU collation \"%s\" in a database encoded in %s, not UTF8",
							   get_collation_name(collation),
							   GetDatabaseEncodingName());
			return false;
		}
		col->kind = bpchar ? GSK_BPCHAR_ICU : GSK_TEXT_ICU;
		return true;
	}
#endif
#ifdef GS_NO_ICU_HEADERS
	if (col->locale && col->locale->provider == COLLPROVIDER_ICU)
	{
		*reason = psprintf("ICU collation \"%s\", and gpusort was built without ICU's headers",
						   get_collation_name(collation));
		return false;
	}
#endif
	*reason = psprintf("collation \"%s\" has no key encoding",
					   get_collation_name(collation));
	return false;
}

/* text and bpchar: the collation decides the kind (or false, *reason) */
static bool
keycol_string_kind(GsKeyCol *col, Oid collation, bool bpchar, char **reason)
{
	if (!OidIsValid(collation))
	{
		*reason = pstrdup("no collation for a string sort key");
		return false;
	}
	if (gs_collation_is_c(collation))
	{
		col->kind = bpchar ? GSK_BPCHAR_C : GSK_TEXT_C;
		return true;
	}
	col->libc = gs_libc_collation(collation);
	if (col->libc)
	{
		if (col->libc->byte_order)
			col->kind = bpchar ? GSK_BPCHAR_C : GSK_TEXT_C;
		else
			col->kind = bpchar ? GSK_BPCHAR_LIBC : GSK_TEXT_LIBC;
		return true;
	}
	return keycol_icu_kind(col, collation, bpchar, reason);
}

/*
 * Picks the encoder of one sort column, or returns false with *reason set.
 */
static bool
keycol_init(GsKeyCol *col, AttrNumber attno, Oid sortop, Oid collation,
			bool nulls_first, char **reason)
{
	Oid			opfamily;
	Oid			opcintype;
	Oid			cmpproc;

	memset(col, 0, sizeof(GsKeyCol));
	col->cxt = CurrentMemoryContext;
	col->attno = attno;
	col->nulls_first = nulls_first;

	if (!gs_ordering_op_properties(sortop, &opfamily, &opcintype, &col->desc))
	{
		*reason = psprintf("operator %s is not a btree ordering operator",
						   get_opname(sortop) ? get_opname(sortop) : "?");
		return false;
	}
	cmpproc = get_opfamily_proc(opfamily, opcintype, opcintype, BTORDER_PROC);
	if (keycol_fixed_kind(col, cmpproc))
		return true;
	if (cmpproc == F_BTNAMECMP)
		col->is_name = true;
	else if (cmpproc != F_BTTEXTCMP && cmpproc != F_BPCHARCMP)
	{
		if (lookup_type_cache(opcintype, TYPECACHE_BTREE_OPFAMILY)->btree_opf != opfamily)
			*reason = psprintf("operator %s is not in the default operator class of type %s",
							   get_opname(sortop), format_type_be(opcintype));
		else
			*reason = psprintf("no order-preserving encoding for type %s",
							   format_type_be(opcintype));
		return false;
	}
	return keycol_string_kind(col, collation, cmpproc == F_BPCHARCMP, reason);
}

bool
gs_keys_encodable(Oid sortop, Oid collation)
{
	GsKeyCol	col;
	char	   *reason = NULL;

	return keycol_init(&col, 1, sortop, collation, false, &reason);
}

bool
gs_keys_transformed(Oid sortop, Oid collation)
{
	GsKeyCol	col;
	char	   *reason = NULL;

	return keycol_init(&col, 1, sortop, collation, false, &reason) &&
		(col.kind == GSK_TEXT_ICU || col.kind == GSK_BPCHAR_ICU ||
		 KIND_IS_LIBC(col.kind));
}

/*
 * Bytes of a column's raw key value: all that any layout can take of it.
 * Integers keep their whole value, since the bias (the minimum) is known
 * only at the end.
 */
static int
keycol_raw_len(const GsKeyCol *col)
{
	switch (col->kind)
	{
		case GSK_INT:
		case GSK_OID:
		case GSK_BOOL:
			return sizeof(int64);
		case GSK_FLOAT4:
			return sizeof(uint32);
		case GSK_FLOAT8:
			return sizeof(uint64);
		case GSK_UUID:
			return UUID_LEN;
		case GSK_INTERVAL:
			return GS_INTERVAL_BYTES;
		case GSK_NUMERIC:
		case GSK_TEXT_C:
		case GSK_BPCHAR_C:
		case GSK_TEXT_ICU:
		case GSK_BPCHAR_ICU:
		case GSK_TEXT_LIBC:
		case GSK_BPCHAR_LIBC:
		case GSK_BYTEA:
			return GS_KEY_MAX_BYTES;
	}
	return 0;					/* keep compiler quiet */
}

/*
 * Places the columns in the raw key, in order, while it stays within
 * GS_RAW_MAX_BYTES; at least the first column always fits.
 */
static void
raw_layout(GsKeySpec *spec)
{
	int			off = 0;
	int			i;

	for (i = 0; i < spec->nenc; i++)
	{
		GsKeyCol   *col = &spec->cols[i];
		int			len = keycol_raw_len(col);

		if (i > 0 && off + 1 + len > GS_RAW_MAX_BYTES)
			break;
		col->raw_off = off;
		col->raw_len = len;
		off += 1 + len;
	}
	spec->nraw = i;
	spec->raw_bytes = off;
}

GsKeySpec *
gs_keys_create(int ncols, const AttrNumber *attnos, const Oid *sortops,
			   const Oid *collations, const bool *nulls_first, char **reason)
{
	GsKeySpec  *spec = palloc0(sizeof(GsKeySpec));
	int			i;

	*reason = NULL;
	spec->ncols = ncols;
	spec->cols = palloc0(sizeof(GsKeyCol) * Max(ncols, 1));
	for (i = 0; i < ncols; i++)
	{
		char	   *why = NULL;

		if (!keycol_init(&spec->cols[i], attnos[i], sortops[i], collations[i],
						 nulls_first[i], &why))
		{
			*reason = psprintf("sort key %d: %s", i + 1, why);
			break;
		}
	}
	spec->nenc = i;
	if (spec->nenc == 0)
	{
		pfree(spec->cols);
		pfree(spec);
		return NULL;
	}
	raw_layout(spec);
	gs_keys_reset(spec);
	gs_keys_layout(spec, GS_KEY_MAX_BYTES);
	return spec;
}

void
gs_keys_reset(GsKeySpec *spec)
{
	int			i;

	for (i = 0; i < spec->nenc; i++)
	{
		GsKeyCol   *col = &spec->cols[i];

		col->seen_null = false;
		col->seen_value = false;
		col->min = PG_INT64_MAX;
		col->max = PG_INT64_MIN;
		col->maxlen = 0;
	}
}

int
gs_keys_ncols_observed(const GsKeySpec *spec)
{
	return spec->nenc;
}

/* n columns' statistics as gs_keys_reset leaves them: nothing seen */
void
gs_keys_stats_reset(GsKeyColStats *stats, int n)
{
	int			i;

	for (i = 0; i < n; i++)
	{
		stats[i].seen_null = false;
		stats[i].seen_value = false;
		stats[i].min = PG_INT64_MAX;
		stats[i].max = PG_INT64_MIN;
		stats[i].maxlen = 0;
	}
}

void
gs_keys_get_stats(const GsKeySpec *spec, GsKeyColStats *stats)
{
	int			i;

	for (i = 0; i < spec->nenc; i++)
	{
		const GsKeyCol *col = &spec->cols[i];

		stats[i].seen_null = col->seen_null;
		stats[i].seen_value = col->seen_value;
		stats[i].min = col->min;
		stats[i].max = col->max;
		stats[i].maxlen = col->maxlen;
	}
}

/* widens spec's statistics to cover rows that stats describe too */
void
gs_keys_merge_stats(GsKeySpec *spec, const GsKeyColStats *stats)
{
	int			i;

	for (i = 0; i < spec->nenc; i++)
	{
		GsKeyCol   *col = &spec->cols[i];

		col->seen_null |= stats[i].seen_null;
		col->seen_value |= stats[i].seen_value;
		col->min = Min(col->min, stats[i].min);
		col->max = Max(col->max, stats[i].max);
		col->maxlen = Max(col->maxlen, stats[i].maxlen);
	}
}

/*
 * Statistics that cover every value the columns can hold, NULLs included:
 * merged into a spec before gs_keys_layout, they give a layout that does
 * not depend on the rows seen, which every sort of these columns can share
 * (the sorted runs of one GpuSort, whose keys are compared across runs).
 * Integers keep their type's width.
 */
void
gs_keys_stats_any(const GsKeySpec *spec, GsKeyColStats *stats)
{
	int			i;

	for (i = 0; i < spec->nenc; i++)
	{
		const GsKeyCol *col = &spec->cols[i];

		stats[i].seen_null = true;
		stats[i].seen_value = true;
		stats[i].min = PG_INT64_MIN;
		stats[i].max = PG_INT64_MAX;
		stats[i].maxlen = PG_UINT32_MAX;
		if (col->kind == GSK_INT && col->typlen == 2)
		{
			stats[i].min = PG_INT16_MIN;
			stats[i].max = PG_INT16_MAX;
		}
		else if (col->kind == GSK_INT && col->typlen == 4)
		{
			stats[i].min = PG_INT32_MIN;
			stats[i].max = PG_INT32_MAX;
		}
		else if (col->kind == GSK_OID)
		{
			stats[i].min = 0;
			stats[i].max = PG_UINT32_MAX;
		}
		else if (col->kind == GSK_BOOL)
		{
			stats[i].min = 0;
			stats[i].max = 1;
		}
	}
}

/* ---- observing ---------------------------------------------------------- */

void
gs_keys_observe(GsKeySpec *spec, TupleTableSlot *slot, uint8 *raw)
{
	int			i;

	for (i = 0; i < spec->nraw; i++)
	{
		GsKeyCol   *col = &spec->cols[i];
		bool		isnull;
		Datum		d = slot_getattr(slot, col->attno, &isnull);
		Size		len = 0;

		/* a NULL's value bytes are never read */
		if (raw)
			raw[col->raw_off] = isnull ? 1 : 0;
		if (isnull)
		{
			col->seen_null = true;
			continue;
		}
		col->seen_value = true;
		if (raw)
			len = gs_keys_capture_value(col, d, raw + col->raw_off + 1);

		switch (col->kind)
		{
			case GSK_INT:
			case GSK_OID:
			case GSK_BOOL:
				{
					int64		v = gs_keys_int_value(col, d);

					if (v < col->min)
						col->min = v;
					if (v > col->max)
						col->max = v;
					break;
				}
			case GSK_NUMERIC:
			case GSK_TEXT_C:
			case GSK_BPCHAR_C:
			case GSK_BYTEA:
				if (raw == NULL)
					len = gs_keys_varlena_enc_len(col, d);
				if (len > col->maxlen)
					col->maxlen = (uint32) Min(len, PG_UINT32_MAX);
				break;
			case GSK_FLOAT4:
			case GSK_FLOAT8:
			case GSK_UUID:
			case GSK_INTERVAL:
			case GSK_TEXT_ICU:
			case GSK_BPCHAR_ICU:
			case GSK_TEXT_LIBC:
			case GSK_BPCHAR_LIBC:
				/* fixed width, or as wide as the key allows */
				break;
		}
	}
}

bool
gs_keys_raw_is_small(const GsKeySpec *spec)
{
	return spec->raw_bytes <= GS_RAW_SMALL_BYTES;
}

static inline bool
kind_is_fixed_number(GsKeyKind kind)
{
	return kind == GSK_INT || kind == GSK_OID || kind == GSK_BOOL ||
		kind == GSK_FLOAT4 || kind == GSK_FLOAT8;
}

/* ---- layout ------------------------------------------------------------- */

/* bytes needed for an unsigned number up to range */
static int
bytes_for_range(uint64 range)
{
	int			n = 0;

	while (range != 0)
	{
		n++;
		range >>= 8;
	}
	return n;
}

/* full encoding width of a column, and whether that encoding is injective */
static int
keycol_full_width(const GsKeyCol *col, bool *injective)
{
	*injective = true;
	if (!col->seen_value)
		return 0;				/* only NULLs (or no rows): all equal */
	if (col->ranks)
		return bytes_for_range(col->nranks - 1);
	switch (col->kind)
	{
		case GSK_INT:
		case GSK_OID:
		case GSK_BOOL:
			return bytes_for_range((uint64) col->max - (uint64) col->min);
		case GSK_FLOAT4:
			return 4;
		case GSK_FLOAT8:
			return 8;
		case GSK_UUID:
			return UUID_LEN;
		case GSK_INTERVAL:
			return GS_INTERVAL_BYTES;
		case GSK_NUMERIC:
		case GSK_TEXT_C:
		case GSK_BPCHAR_C:
			return (int) Min(col->maxlen, (uint32) GS_KEY_MAX_BYTES + 1);
		case GSK_BYTEA:
			*injective = false;
			return (int) Min(col->maxlen, (uint32) GS_KEY_MAX_BYTES + 1);
		case GSK_TEXT_ICU:
		case GSK_BPCHAR_ICU:
		case GSK_TEXT_LIBC:
		case GSK_BPCHAR_LIBC:
			*injective = false;
			return GS_KEY_MAX_BYTES;
	}
	return 0;					/* keep compiler quiet */
}

/* ---- dictionary ranks (sortdict.c) -------------------------------------- */

int
gs_keys_nraw(const GsKeySpec *spec)
{
	return spec->nraw;
}

AttrNumber
gs_keys_attno(const GsKeySpec *spec, int c)
{
	return spec->cols[c].attno;
}

/*
 * Would a rank pay for column c?  Not for the fixed-width numbers, whose
 * encodings are exact and at most 8 bytes already; for the others when
 * what was seen makes the encoding inexact or wider than a rank of up to
 * GS_KEYS_MAX_RANKS values can be.
 */
bool
gs_keys_rank_pays(const GsKeySpec *spec, int c)
{
	const GsKeyCol *col = &spec->cols[c];
	GsKeyCol	plain = *col;
	bool		injective;
	int			full;

	if (c >= spec->nraw || kind_is_fixed_number(col->kind) || !col->seen_value)
		return false;
	plain.ranks = NULL;
	full = keycol_full_width(&plain, &injective);
	return !injective || full > bytes_for_range(GS_KEYS_MAX_RANKS - 1);
}

void
gs_keys_set_ranks(GsKeySpec *spec, int c, uint32 *ranks, uint32 nranks)
{
	Assert(c < spec->nraw);
	Assert(ranks == NULL || (nranks > 0 && nranks <= GS_KEYS_MAX_RANKS));
	spec->cols[c].ranks = ranks;
	spec->cols[c].nranks = nranks;
}

uint32 *
gs_keys_get_ranks(const GsKeySpec *spec, int c, uint32 *nranks)
{
	*nranks = spec->cols[c].nranks;
	return spec->cols[c].ranks;
}

void
gs_keys_layout(GsKeySpec *spec, int max_bytes)
{
	int			off = 0;
	int			i;

	spec->first_inexact = spec->ncols;
	for (i = 0; i < spec->nenc; i++)
		spec->cols[i].in_key = false;

	for (i = 0; i < spec->nraw; i++)
	{
		GsKeyCol   *col = &spec->cols[i];
		bool		injective;
		int			full = keycol_full_width(col, &injective);
		int			nb = (col->seen_null && col->seen_value) ? 1 : 0;
		int			avail = max_bytes - off - nb;

		if (avail <= 0 && full + nb > 0)
		{
			spec->first_inexact = i;
			break;
		}
		col->offset = off;
		col->null_bytes = nb;
		col->full_width = full;
		col->width = Min(full, avail);
		col->in_key = true;
		off += nb + col->width;
		if (!injective || col->width < full)
		{
			spec->first_inexact = i;
			break;
		}
	}
	if (i == spec->nraw && spec->nraw < spec->ncols)
		spec->first_inexact = spec->nraw;

	spec->key_bytes = off;
	spec->nwords = off <= 8 ? 1 : off <= 16 ? 2 : 4;
	spec->one_word = spec->nwords == 1 && spec->cols[0].in_key &&
		(spec->nraw == 1 || !spec->cols[1].in_key) &&
		(kind_is_fixed_number(spec->cols[0].kind));
}

/* ---- key width ---------------------------------------------------------- */

/*
 * Key width from a sample: rows sampled to see whether a shorter, inexact
 * key separates the rows about as well as the full one, and how many more
 * of the sample's rows (per thousand) may share a short key than share a
 * full one for the short key to be taken.
 */
#define GS_SAMPLE_ROWS		1024
#define GS_SAMPLE_MIN_ROWS	16384
#define GS_SAMPLE_SLACK		10

/*
 * But a pair of the sample's rows that shares a short prefix (and not the
 * full key) stands for about (n / m)^2 such pairs among all n rows: from
 * GS_SAMPLE_NO_SLACK_SCALE times the sample's rows on, no such pair is
 * allowed (addresses, whose 16-byte strxfrm prefixes collide in one pair of
 * a thousand sampled rows, tie by the hundred thousand in 10^6).
 */
#define GS_SAMPLE_NO_SLACK_SCALE	64

/*
 * A shorter key is taken only if the birthday bound on the rows its prefix
 * leaves tied over all n rows (estimated from the bits the sample shows in
 * each prefix byte) stays within GS_TIED_PER_ROW of them.  A sample of a
 * thousand rows cannot see the collisions of 10^7 md5 strings in 8 bytes
 * (32 bits: 10^4 tie groups, far more comparator work than a 16-byte key
 * costs the engines); the bound can.
 */
#define GS_SAMPLE_BYTE_BITS_MAX	8.0

/* the sample of an exact full key: sqrt(64 n) rows, at most 65536 */
#define GS_SAMPLE_EXACT_SCALE	64.0
#define GS_SAMPLE_EXACT_MAX		65536
#define GS_TIED_PER_ROW			1e-4

static int
key_compare(const void *a, const void *b, void *arg)
{
	return memcmp(a, b, *(int *) arg);
}

/* distinct prefixes of len bytes among n sorted keys of stride bytes */
static int
count_distinct(const uint8 *keys, int n, int stride, int len)
{
	int			d = n > 0 ? 1 : 0;
	int			i;

	for (i = 1; i < n; i++)
		if (memcmp(keys + (i - 1) * stride, keys + i * stride, len) != 0)
			d++;
	return d;
}

/*
 * Bits of information in the first len bytes of the sample's keys, taken
 * byte by byte: log2 of the distinct values each byte position holds.  An
 * overestimate where bytes are correlated, which the distinct prefixes
 * count of the caller guards.
 */
static double
prefix_bits(const uint8 *keys, int n, int stride, int len)
{
	double		bits = 0;
	int			b;

	for (b = 0; b < len; b++)
	{
		bool		seen[256] = {false};
		int			distinct = 0;
		int			i;

		for (i = 0; i < n; i++)
		{
			uint8		v = keys[i * stride + b];

			if (!seen[v])
			{
				seen[v] = true;
				distinct++;
			}
		}
		bits += Min(log2((double) distinct), GS_SAMPLE_BYTE_BITS_MAX);
	}
	return bits;
}

/*
 * The full keys of m rows spread evenly over n, sorted as the engines
 * order them: big-endian bytes, stride apart, so that memcmp compares them.
 */
static uint8 *
sorted_sample(const GsKeySpec *spec, uint64 n, int m, int stride,
			  GsRawKeyFn raw_key, void *arg)
{
	uint8	   *sample = palloc(m * stride);
	uint8	   *rawbuf = palloc(spec->raw_bytes);
	uint64		words[GS_MAX_KEY_WORDS];
	int			i,
				w;

	for (i = 0; i < m; i++)
	{
		uint64		row = (uint64) i * n / m;

		gs_keys_encode(spec, raw_key(arg, row, rawbuf), row, words);
		for (w = 0; w < stride / 8; w++)
		{
			uint64		be = pg_hton64(words[w]);

			memcpy(sample + i * stride + 8 * w, &be, sizeof(be));
		}
	}
	pfree(rawbuf);
	qsort_arg(sample, m, stride, key_compare, &stride);
	return sample;
}

/*
 * The full layout makes every column it can exact, up to 32 bytes, but the
 * engines' cost grows with the width (the CPU radix sort moves every byte of
 * every pair on each pass; so do the GPU's copies), while a shorter prefix
 * costs only comparator calls for the rows whose prefixes collide.  So a
 * sample of the rows is encoded with the full key, sorted, and the shortest
 * of 8 and 16 bytes whose prefixes leave hardly more rows tied than the full
 * key does is taken: md5-like strings or a small integer before a wide one
 * get 8 bytes; strings that share long prefixes (URLs, codes) keep their
 * width.  The key of W bytes is the W-byte prefix of the full key (see the
 * header comment), so the sample's full keys show every shorter one.
 *
 * Where the full key is exact, rows with equal values tie in it at no cost,
 * while any shorter key is inexact and hands every group of equal values to
 * the comparators, however well its prefixes separate the distinct values:
 * a category and a float8 amount of 2^20 values at 5*10^7 rows tie 26
 * million rows in an 8-byte key (6.3 s of comparator work), none in 16
 * bytes.  Equal values are common only where the distinct values are not
 * many more than the rows, so the sample is then taken large enough to
 * show them: m rows show about m^2 / 2D equal pairs of D distinct values,
 * and m = sqrt(GS_SAMPLE_EXACT_SCALE * n) shows a few wherever D is no
 * more than a few times n.  One equal pair keeps the full key: at n rows it
 * stands for at least a few percent of them in groups of equal values.
 * The exact encodings are numbers and ranks, cheap to sample by the ten
 * thousand; a string's transform is not, and its full key is inexact.
 */
void
gs_keys_choose_layout(GsKeySpec *spec, uint64 n, GsRawKeyFn raw_key, void *arg)
{
	int			full_bytes;
	int			stride;
	int			m = GS_SAMPLE_ROWS;
	uint8	   *sample;
	int			distinct_full;
	bool		full_exact;
	int			width;
	int			slack;

	gs_keys_layout(spec, GS_KEY_MAX_BYTES);
	full_bytes = spec->key_bytes;
	if (full_bytes <= 8 || n < GS_SAMPLE_MIN_ROWS)
		return;
	full_exact = spec->first_inexact == spec->ncols;
	if (full_exact)
		m = (int) Min(Max(sqrt(GS_SAMPLE_EXACT_SCALE * (double) n),
						  (double) GS_SAMPLE_ROWS),
					  Min((double) n, (double) GS_SAMPLE_EXACT_MAX));

	stride = spec->nwords * (int) sizeof(uint64);
	sample = sorted_sample(spec, n, m, stride, raw_key, arg);
	distinct_full = count_distinct(sample, m, stride, stride);
	if (full_exact && distinct_full < m)
	{
		pfree(sample);
		return;
	}
	slack = (n >= (uint64) m * GS_SAMPLE_NO_SLACK_SCALE) ? 0 :
		m * GS_SAMPLE_SLACK / 1000;
	for (width = 8; width < full_bytes; width *= 2)
	{
		if (m - count_distinct(sample, m, stride, width) <=
			m - distinct_full + slack &&
			prefix_bits(sample, m, stride, width) >=
			log2((double) n / GS_TIED_PER_ROW))
		{
			gs_keys_layout(spec, width);
			break;
		}
	}
	pfree(sample);
}

int
gs_keys_raw_bytes(const GsKeySpec *spec)
{
	return spec->raw_bytes;
}

int
gs_keys_nwords(const GsKeySpec *spec)
{
	return spec->nwords;
}

int
gs_keys_first_inexact(const GsKeySpec *spec)
{
	return spec->first_inexact;
}

/* ---- EXPLAIN ------------------------------------------------------------ */

/*
 * A copy of spec's layout, in the current memory context, for EXPLAIN
 * after spec has been laid out again (the runs' layout of a sort that
 * sorted its runs by another): only gs_keys_describe may read it.
 */
GsKeySpec *
gs_keys_snapshot(const GsKeySpec *spec)
{
	GsKeySpec  *copy = palloc(sizeof(GsKeySpec));
	int			c;

	*copy = *spec;
	copy->cols = palloc(sizeof(GsKeyCol) * Max(spec->nenc, 1));
	memcpy(copy->cols, spec->cols, sizeof(GsKeyCol) * spec->nenc);
	/* the ranks are freed after the keys are built; their count stays */
	for (c = 0; c < spec->nenc; c++)
		copy->cols[c].ranks = NULL;
	return copy;
}

char *
gs_keys_describe(const GsKeySpec *spec, const char *const *colnames)
{
	StringInfoData buf;
	int			i;

	initStringInfo(&buf);
	appendStringInfo(&buf, "%d bytes", spec->nwords * 8);
	for (i = 0; i < spec->ncols; i++)
	{
		const char *name = colnames ? colnames[i] : NULL;
		char		numbuf[32];

		if (name == NULL)
		{
			snprintf(numbuf, sizeof(numbuf), "key %d", i + 1);
			name = numbuf;
		}
		appendStringInfoString(&buf, i == 0 ? ": " : ", ");
		if (i >= spec->nenc || !spec->cols[i].in_key)
			appendStringInfo(&buf, "%s by comparator", name);
		else if (spec->cols[i].nranks > 0)
			appendStringInfo(&buf, "%s rank of %u values", name,
							 spec->cols[i].nranks);
		else if (i < spec->first_inexact)
			appendStringInfo(&buf, "%s exact", name);
		else if (KIND_IS_LIBC(spec->cols[i].kind))
			appendStringInfo(&buf, "%s %d-byte strxfrm prefix (%s), verified",
							 name, spec->cols[i].width,
							 spec->cols[i].libc->name);
		else
			appendStringInfo(&buf, "%s %d-byte prefix", name,
							 spec->cols[i].width);
	}
	return buf.data;
}
