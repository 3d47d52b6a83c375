/*-------------------------------------------------------------------------
 *
 * sortkey.c
 *	  Order-preserving fixed-width keys for GpuSort: one encoder per type.
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
 * The encodings (every one is a function v -> bytes with a < b => enc(a) <=
 * enc(b) under memcmp, and a = b => enc(a) = enc(b)):
 *
 *	 integers, date, time, timestamp[tz], money, oid, bool
 *					v - min as an unsigned big-endian number of as many bytes
 *					as max - min needs, min and max observed in this sort.
 *					A sort of values in a small range gets a small key.
 *	 float4/8		IEEE bits with the sign bit flipped for positives and all
 *					bits flipped for negatives; -0 is encoded as +0 and every
 *					NaN as the largest pattern, since PostgreSQL holds -0 = +0
 *					and NaN = NaN above +Infinity.
 *	 uuid			its 16 bytes (uuid_cmp is memcmp).
 *	 numeric		a class byte (-Inf, negative, zero, positive, +Inf, NaN),
 *					then for finite nonzero values the base-10000 weight
 *					(biased, 2 bytes) and the digits (2 bytes each), zero
 *					padded, all inverted for negatives.  Stored numerics
 *					carry neither leading nor trailing zero digits, so equal
 *					values have equal digit strings whatever their scale.
 *	 text, varchar, bpchar under the C collation
 *					the bytes, zero padded (text holds no NUL byte, so the
 *					padding sorts a string before its extensions); bpchar
 *					without its trailing blanks, as bpcharcmp ignores them.
 *	 text, varchar, bpchar under an ICU collation
 *					a prefix of the ICU sort key (ucol_nextSortKeyPart), as
 *					PostgreSQL's abbreviated keys do.
 *	 text, varchar, bpchar under a libc collation
 *					a prefix of strxfrm_l's transform (libcoll.c), which the
 *					node checks against strcoll after the sort (sortverify.c);
 *					under C.UTF-8, whose order libcoll.c verifies to be byte
 *					order, the C encoding.
 *	 bytea			the bytes, zero padded.
 *	 interval		the 128-bit span that interval_cmp_value compares,
 *					((month * 30 + day) * USECS_PER_DAY + time), which
 *					needs 73 bits: biased by 2^79, 10 big-endian bytes.
 *					The infinite intervals of PostgreSQL 17 and later
 *					are the fields all at their minimum or maximum, so
 *					their spans are the smallest and largest there are,
 *					as interval_cmp_value orders them too.
 *
 * A column of few distinct values may instead be keyed by its value's rank
 * among them (sortdict.c: gs_keys_set_ranks), which is exact whatever its
 * type and collation, and narrow.
 *
 * A column is "exact" when its slice decides its order and equality alone:
 * the whole encoding fits and the encoding is injective.  ICU and libc
 * prefixes and bytea never are (ICU-equal strings can differ, and "ab" and "ab\0" pad to
 * the same bytes).  The layout stops at the first column that is not exact
 * (or does not fit): later columns only matter among rows whose earlier
 * columns are equal, which a prefix cannot tell.  Those rows are left to
 * PostgreSQL's comparators (sortnode.c), just as tuplesort settles equal
 * abbreviated keys.
 *
 * Widths come from the data: gs_keys_observe records per column whether
 * NULLs and values occur, integer ranges and the longest encoding, and
 * gs_keys_layout packs the columns into the fewest of 8, 16 or 32 bytes
 * (or fewer, when gs_keys_choose_layout finds in a sample of the rows that
 * a shorter, inexact key separates them about as well: the key budgeted at
 * W bytes is the W-byte prefix of the full key, since columns keep their
 * places and a truncated column keeps the first bytes of its encoding).
 *
 * Since the layout is known only once every row has been seen, while the
 * rows are cheapest to read as they stream in (deformed, in cache), a key
 * is built in two steps.  First the row's "raw key" (gs_keys_raw_bytes
 * bytes): per column a null flag and the part of its encoding that any
 * layout can use, before the range is known (integers as their 8-byte
 * value, floats as their order-preserving bits, strings, numerics and ICU
 * keys as the first GS_KEY_MAX_BYTES bytes of their encoding).
 * gs_keys_observe writes it as it observes the incoming row, when the
 * caller keeps raw keys for all rows (small ones: a few numbers), or
 * gs_keys_capture writes it later from a stored row.  Then gs_keys_encode
 * builds the key from the raw key under the chosen layout: bias integers
 * by the observed minimum, cut each column to its width, add null bytes
 * and invert DESC columns.  Exactness rests on statistics over every row
 * either way.  Columns past GS_RAW_MAX_BYTES of raw key are left to the
 * comparators.
 *
 * A sort operator is mapped to an encoder through the comparison function
 * of its btree operator family, so domains, varchar (text_ops) and
 * DESC/USING forms of the same operators all work, and name is keyed as
 * text; anything else (other types, such as inet, and non-default
 * operator classes) has no encoder.
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include <math.h>

#include "access/detoast.h"
#include "access/stratnum.h"
#include "common/hashfn.h"
#include "access/nbtree.h"
#include "catalog/pg_collation.h"
#include "mb/pg_wchar.h"
#include "port/pg_bswap.h"
#include "utils/builtins.h"
#include "utils/fmgroids.h"
#include "utils/lsyscache.h"
#include "datatype/timestamp.h"
#include "utils/numeric.h"
#include "utils/timestamp.h"
#include "utils/typcache.h"
#include "utils/uuid.h"

#include "base/compat.h"

#ifdef USE_ICU
#include <unicode/uiter.h>
#endif

#include "libcoll.h"
#include "sortkey.h"

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

/* an ICU sort key's bytes that a helper thread makes on its stack */
#define GS_REFINE_STACK_BYTES	2048

typedef enum GsKeyKind
{
	GSK_INT,					/* signed integer of typlen bytes */
	GSK_OID,					/* unsigned 32-bit */
	GSK_BOOL,
	GSK_FLOAT4,
	GSK_FLOAT8,
	GSK_UUID,
	GSK_NUMERIC,
	GSK_TEXT_C,
	GSK_BPCHAR_C,
	GSK_TEXT_ICU,
	GSK_BPCHAR_ICU,
	GSK_TEXT_LIBC,
	GSK_BPCHAR_LIBC,
	GSK_BYTEA,
	GSK_INTERVAL				/* its span: see interval_encode */
} GsKeyKind;

/* bytes of an interval's encoding, and the bias that makes it unsigned */
#define GS_INTERVAL_BYTES	10

#define KIND_IS_BPCHAR(k) \
	((k) == GSK_BPCHAR_C || (k) == GSK_BPCHAR_ICU || (k) == GSK_BPCHAR_LIBC)
#define KIND_IS_LIBC(k)	((k) == GSK_TEXT_LIBC || (k) == GSK_BPCHAR_LIBC)

typedef struct GsKeyCol
{
	AttrNumber	attno;
	GsKeyKind	kind;
	int			typlen;			/* GSK_INT: 2, 4 or 8 */
	bool		desc;
	bool		nulls_first;
	pg_locale_t locale;			/* ICU kinds */
	const GsLibcColl *libc;		/* libc kinds */
	bool		is_name;		/* a text kind whose values are names */
	struct XfrmCache *xcache;	/* libc and ICU kinds: see encode_string */
	MemoryContext cxt;			/* of the spec, for xcache */

	/* what gs_keys_observe saw */
	bool		seen_null;
	bool		seen_value;
	int64		min;			/* GSK_INT, GSK_OID, GSK_BOOL */
	int64		max;
	uint32		maxlen;			/* variable kinds: longest full encoding */

	/*
	 * A dictionary rank (sortdict.c), or NULL: the column's value bytes are
	 * then ranks[row], the row's value's place among the nranks distinct
	 * values in sort order (DESC included), and the column is exact.
	 */
	uint32	   *ranks;
	uint32		nranks;			/* kept for EXPLAIN once ranks is freed */

	/* where the raw key holds this column: null flag, then raw_len bytes */
	int			raw_off;
	int			raw_len;

	/* what gs_keys_layout chose */
	int			offset;			/* of the null byte, or of the value */
	int			null_bytes;		/* 0 or 1 */
	int			full_width;		/* bytes of the whole encoding */
	int			width;			/* bytes in the key, <= full_width */
	bool		in_key;
} GsKeyCol;

struct GsKeySpec
{
	int			ncols;			/* sort columns */
	int			nenc;			/* leading columns that have an encoder */
	int			nraw;			/* leading columns in the raw key (<= nenc) */
	int			raw_bytes;		/* raw key size */
	GsKeyCol   *cols;			/* [nenc] */
	int			key_bytes;
	int			nwords;
	int			first_inexact;	/* ncols when the key decides everything */
	bool		one_word;		/* the key is column 0 alone, a number in
								 * one word: see encode_one_word */
};

/* ---- numeric's on-disk format (numeric.c keeps it private) -------------- */

/*
 * The varlena body of a numeric is a uint16 header, for the long format an
 * int16 weight, then base-10000 digits.  This is the stored format, which
 * pg_upgrade keeps readable, so it cannot change under us.
 */
#define GS_NUMERIC_SIGN_MASK		0xC000
#define GS_NUMERIC_NEG				0x4000
#define GS_NUMERIC_SHORT			0x8000
#define GS_NUMERIC_SPECIAL			0xC000
#define GS_NUMERIC_NAN				0xC000
#define GS_NUMERIC_PINF				0xD000
#define GS_NUMERIC_NINF				0xF000
#define GS_NUMERIC_SHORT_SIGN_MASK	0x2000
#define GS_NUMERIC_SHORT_WEIGHT_SIGN_MASK 0x0040
#define GS_NUMERIC_SHORT_WEIGHT_MASK 0x003F

/* class bytes, in PostgreSQL's order */
#define NUMCLASS_NINF	0
#define NUMCLASS_NEG	1
#define NUMCLASS_ZERO	2
#define NUMCLASS_POS	3
#define NUMCLASS_PINF	4
#define NUMCLASS_NAN	5

typedef struct GsNumeric
{
	int			class;
	int			weight;
	int			ndigits;
	const uint8 *digits;		/* ndigits native-endian int16s, possibly
								 * unaligned (short varlena header) */
} GsNumeric;

/*
 * Parses a numeric's body; false (on any thread, raising nothing) where it
 * is not one: numeric_parse raises that.
 */
static bool
numeric_parse_safe(const char *body, Size len, GsNumeric *n)
{
	uint16		header;

	n->weight = 0;
	n->digits = NULL;
	if (len < sizeof(uint16))
		return false;
	memcpy(&header, body, sizeof(uint16));

	if ((header & GS_NUMERIC_SIGN_MASK) == GS_NUMERIC_SPECIAL)
	{
		if ((header & 0xF000) == GS_NUMERIC_NAN)
			n->class = NUMCLASS_NAN;
		else if ((header & 0xF000) == GS_NUMERIC_PINF)
			n->class = NUMCLASS_PINF;
		else if ((header & 0xF000) == GS_NUMERIC_NINF)
			n->class = NUMCLASS_NINF;
		else
			return false;
		n->ndigits = 0;
		return true;
	}

	if (header & GS_NUMERIC_SHORT)
	{
		bool		neg = (header & GS_NUMERIC_SHORT_SIGN_MASK) != 0;

		n->weight = (header & GS_NUMERIC_SHORT_WEIGHT_MASK);
		if (header & GS_NUMERIC_SHORT_WEIGHT_SIGN_MASK)
			n->weight |= ~GS_NUMERIC_SHORT_WEIGHT_MASK;
		n->digits = (const uint8 *) body + sizeof(uint16);
		n->ndigits = (len - sizeof(uint16)) / sizeof(int16);
		n->class = neg ? NUMCLASS_NEG : NUMCLASS_POS;
	}
	else
	{
		int16		weight;

		if (len < 2 * sizeof(uint16))
			return false;
		memcpy(&weight, body + sizeof(uint16), sizeof(int16));
		n->weight = weight;
		n->digits = (const uint8 *) body + 2 * sizeof(uint16);
		n->ndigits = (len - 2 * sizeof(uint16)) / sizeof(int16);
		n->class = (header & GS_NUMERIC_SIGN_MASK) == GS_NUMERIC_NEG ?
			NUMCLASS_NEG : NUMCLASS_POS;
	}
	if (n->ndigits == 0)
		n->class = NUMCLASS_ZERO;
	return true;
}

static void
numeric_parse(const char *body, Size len, GsNumeric *n)
{
	if (!numeric_parse_safe(body, len, n))
		elog(ERROR, "invalid numeric datum of %zu bytes", len);
}

/* full encoding length of a parsed numeric */
static inline uint32
numeric_enc_len(const GsNumeric *n)
{
	if (n->class == NUMCLASS_NEG || n->class == NUMCLASS_POS)
		return 3 + 2 * n->ndigits;
	return 1;
}

/* writes the first width bytes of the encoding of n (dst is zeroed) */
static void
numeric_encode(const GsNumeric *n, uint8 *dst, int width)
{
	uint8		full[3];
	int			i;

	if (width <= 0)
		return;
	dst[0] = (uint8) n->class;
	if (n->class != NUMCLASS_NEG && n->class != NUMCLASS_POS)
		return;

	full[1] = (uint8) ((n->weight + 0x8000) >> 8);
	full[2] = (uint8) (n->weight + 0x8000);
	for (i = 1; i < width && i < 3; i++)
		dst[i] = full[i];
	for (i = 0; 3 + 2 * i < width && i < n->ndigits; i++)
	{
		uint16		d;

		memcpy(&d, n->digits + 2 * i, sizeof(uint16));
		dst[3 + 2 * i] = (uint8) (d >> 8);
		if (4 + 2 * i < width)
			dst[4 + 2 * i] = (uint8) d;
	}
	/* larger magnitude sorts first among negatives, padding included */
	if (n->class == NUMCLASS_NEG)
		for (i = 1; i < width; i++)
			dst[i] = ~dst[i];
}

/* ---- interval ------------------------------------------------------------- */

/*
 * Writes the GS_INTERVAL_BYTES-byte encoding of an interval: the span that
 * interval_cmp_value (timestamp.c) compares, biased to be unsigned, big
 * endian.  |month * 30 + day| < 2^36 and USECS_PER_DAY < 2^37, so the span
 * is below 2^73 in magnitude, and the 80 bits hold it with room to spare.
 */
static void
interval_encode(const Interval *iv, uint8 *dst)
{
#ifdef HAVE_INT128
	int64		days = (int64) iv->month * 30 + iv->day;
	int128		span = (int128) days * USECS_PER_DAY + iv->time;
	uint128		u = (uint128) (span + ((int128) 1 << (8 * GS_INTERVAL_BYTES - 1)));
	int			i;

	for (i = GS_INTERVAL_BYTES - 1; i >= 0; i--)
	{
		dst[i] = (uint8) u;
		u >>= 8;
	}
#else
	elog(ERROR, "interval keys need a 128-bit integer type");
#endif
}

/* ---- building the spec ----------------------------------------------------- */

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

/* ---- observing --------------------------------------------------------------- */

static inline int64
int_value(const GsKeyCol *col, Datum d)
{
	switch (col->kind)
	{
		case GSK_INT:
			if (col->typlen == 2)
				return DatumGetInt16(d);
			if (col->typlen == 4)
				return DatumGetInt32(d);
			return DatumGetInt64(d);
		case GSK_OID:
			return (int64) DatumGetObjectId(d);
		case GSK_BOOL:
			return DatumGetBool(d) ? 1 : 0;
		default:
			elog(ERROR, "not an integer sort key");
	}
	return 0;					/* keep compiler quiet */
}

/* the detoasted (but possibly short-header) body of a varlena datum */
static inline struct varlena *
varlena_fetch(Datum d, const char **data, Size *len)
{
	struct varlena *v = pg_detoast_datum_packed((struct varlena *) DatumGetPointer(d));

	*data = VARDATA_ANY(v);
	*len = VARSIZE_ANY_EXHDR(v);
	return v;
}

static inline void
varlena_release(Datum d, struct varlena *v)
{
	if ((Pointer) v != DatumGetPointer(d))
		pfree(v);
}

/*
 * The bytes of a string value as its comparator reads them, a name's up to
 * its NUL, a varlena's body, without allocating: false for a varlena stored
 * compressed or out of line, which needs varlena_fetch.
 */
static inline bool
string_peek(const GsKeyCol *col, Datum d, const char **data, Size *len)
{
	struct varlena *v;

	if (col->is_name)
	{
		*data = NameStr(*DatumGetName(d));
		*len = strnlen(*data, NAMEDATALEN);
		return true;
	}
	v = (struct varlena *) DatumGetPointer(d);
	if (VARATT_IS_COMPRESSED(v) || VARATT_IS_EXTERNAL(v))
		return false;
	*data = VARDATA_ANY(v);
	*len = VARSIZE_ANY_EXHDR(v);
	return true;
}

static inline uint64
float8_bits(double f)
{
	uint64		bits;

	if (isnan(f))
		return PG_UINT64_MAX;
	if (f == 0.0)
		f = 0.0;				/* -0 -> +0 */
	memcpy(&bits, &f, sizeof(bits));
	return (bits & UINT64CONST(0x8000000000000000)) ? ~bits :
		bits | UINT64CONST(0x8000000000000000);
}

static inline uint32
float4_bits(float f)
{
	uint32		bits;

	if (isnan(f))
		return PG_UINT32_MAX;
	if (f == 0.0f)
		f = 0.0f;
	memcpy(&bits, &f, sizeof(bits));
	return (bits & 0x80000000) ? ~bits : bits | 0x80000000;
}

/* encode_string_body's *failure when only the backend's thread can go on */
#define GS_NEEDS_BACKEND	(-1)

/*
 * Writes the first width bytes of a string's encoding to p, zero padded,
 * and returns the length of its full encoding (for ICU and libc keys, which
 * have no useful full length, 0).  Under nothrow it calls nothing that
 * allocates or raises: an ICU failure is only reported, in *failure (a
 * UErrorCode), and so is a libc transform that needs memory
 * (GS_NEEDS_BACKEND); 0 otherwise.
 */
static Size
encode_string_body(const GsKeyCol *col, const char *data, Size len,
				   uint8 *p, int width, bool nothrow, int *failure)
{
	*failure = 0;
	if (KIND_IS_BPCHAR(col->kind))
		len = bpchartruelen((char *) data, (int) len);

	if (KIND_IS_LIBC(col->kind))
	{
		if (!gs_libc_xfrm_prefix(col->libc, data, len, p, width, nothrow))
			*failure = GS_NEEDS_BACKEND;
		return 0;
	}

	if (col->kind == GSK_TEXT_ICU || col->kind == GSK_BPCHAR_ICU)
	{
#ifdef USE_ICU
		UCharIterator iter;
		uint32_t	state[2] = {0, 0};
		UErrorCode	status = U_ZERO_ERROR;

		/* a part of the key is a prefix of any longer part */
		memset(p, 0, width);
		uiter_setUTF8(&iter, data, (int32_t) len);
		(void) ucol_nextSortKeyPart(gs_locale_ucollator(col->locale), &iter, state,
									p, width, &status);
		if (U_FAILURE(status))
			*failure = (int) status;
#endif
		return 0;
	}
	else
	{
		Size		n = Min(len, (Size) width);

		memcpy(p, data, n);
		memset(p + n, 0, width - n);
	}
	return len;
}

/*
 * The transforms of recent values, on the backend's thread (encode_string):
 * a libc strxfrm costs microseconds a string, more behind a long prefix
 * that its first level ignores (a hundred dashes), and the strings that
 * users sort often repeat (categories, statuses, cities): random query
 * 572 made the tr_TR transform of a 300-value column for each of its
 * 50,000 rows as the parallel participants stored them.  A value of at
 * most GS_XCACHE_VALUE bytes keeps its prefix in a direct-mapped slot of
 * its hash; a column whose first GS_XCACHE_TRIAL lookups found less than
 * one in GS_XCACHE_MIN_HITS stops looking, so that values which do not
 * repeat pay the hash and the copy no longer.
 */
#define GS_XCACHE_SLOTS			512
#define GS_XCACHE_VALUE			248
#define GS_XCACHE_TRIAL			4096
#define GS_XCACHE_MIN_HITS		8

typedef struct XfrmSlot
{
	uint32		hash;
	uint16		len;			/* of the value; 0xFFFF: empty */
	uint16		width;
	uint8		prefix[GS_KEY_MAX_BYTES];
	char		value[GS_XCACHE_VALUE];
} XfrmSlot;

typedef struct XfrmCache
{
	uint64		lookups;
	uint64		hits;
	bool		off;
	XfrmSlot	slots[GS_XCACHE_SLOTS];
} XfrmCache;

static XfrmSlot *
xcache_slot(GsKeyCol *col, const char *data, Size len, int width,
			uint32 *hash, bool *hit)
{
	XfrmCache  *xc = col->xcache;
	XfrmSlot   *slot;
	int			i;

	*hit = false;
	if (len > GS_XCACHE_VALUE || width > GS_KEY_MAX_BYTES)
		return NULL;
	if (xc == NULL)
	{
		xc = col->xcache = MemoryContextAllocHuge(col->cxt, sizeof(XfrmCache));
		xc->lookups = xc->hits = 0;
		xc->off = false;
		for (i = 0; i < GS_XCACHE_SLOTS; i++)
			xc->slots[i].len = 0xFFFF;
	}
	if (xc->off)
		return NULL;
	if (++xc->lookups == GS_XCACHE_TRIAL && xc->hits * GS_XCACHE_MIN_HITS < xc->lookups)
	{
		xc->off = true;
		return NULL;
	}
	*hash = hash_bytes((const unsigned char *) data, (int) len);
	slot = &xc->slots[*hash % GS_XCACHE_SLOTS];
	if (slot->hash == *hash && slot->len == len && slot->width == width &&
		memcmp(slot->value, data, len) == 0)
	{
		xc->hits++;
		*hit = true;
	}
	return slot;
}

static Size
encode_string(const GsKeyCol *col, Datum d, uint8 *p, int width)
{
	const char *data;
	Size		len;
	struct varlena *v = NULL;
	int			failure;
	XfrmSlot   *slot = NULL;
	uint32		hash = 0;
	bool		hit = false;

	if (!string_peek(col, d, &data, &len))
		v = varlena_fetch(d, &data, &len);

	if (KIND_IS_LIBC(col->kind) || col->kind == GSK_TEXT_ICU ||
		col->kind == GSK_BPCHAR_ICU)
		slot = xcache_slot((GsKeyCol *) col, data, len, width, &hash, &hit);
	if (hit)
	{
		memcpy(p, slot->prefix, width);
		if (v)
			varlena_release(d, v);
		return 0;
	}
	if (slot)
	{
		/* a transform's kinds encode no length (encode_string_body: 0) */
		(void) encode_string_body(col, data, len, p, width, false, &failure);
		if (failure == 0)
		{
			slot->hash = hash;
			slot->len = (uint16) len;
			slot->width = (uint16) width;
			memcpy(slot->prefix, p, width);
			memcpy(slot->value, data, len);
		}
		len = 0;
	}
	else
		len = encode_string_body(col, data, len, p, width, false, &failure);
#ifdef USE_ICU
	if (failure != 0)
		ereport(ERROR,
				(errcode(ERRCODE_INTERNAL_ERROR),
				 errmsg("sort key generation failed: %s",
						u_errorName((UErrorCode) failure))));
#endif
	if (v)
		varlena_release(d, v);
	return len;
}

/*
 * Writes the raw key value of a non-NULL datum (raw_len bytes) and returns
 * the length of its full encoding for the variable-width kinds, else 0.
 */
static Size
capture_value(const GsKeyCol *col, Datum d, uint8 *r)
{
	switch (col->kind)
	{
		case GSK_INT:
		case GSK_OID:
		case GSK_BOOL:
			{
				int64		v = int_value(col, d);

				memcpy(r, &v, sizeof(v));
				return 0;
			}
		case GSK_FLOAT4:
			{
				uint32		bits = float4_bits(DatumGetFloat4(d));

				memcpy(r, &bits, sizeof(bits));
				return 0;
			}
		case GSK_FLOAT8:
			{
				uint64		bits = float8_bits(DatumGetFloat8(d));

				memcpy(r, &bits, sizeof(bits));
				return 0;
			}
		case GSK_UUID:
			memcpy(r, DatumGetUUIDP(d)->data, UUID_LEN);
			return 0;
		case GSK_INTERVAL:
			interval_encode(DatumGetIntervalP(d), r);
			return 0;
		case GSK_NUMERIC:
			{
				const char *data;
				Size		len;
				struct varlena *v = varlena_fetch(d, &data, &len);
				GsNumeric	n;

				numeric_parse(data, len, &n);
				memset(r, 0, col->raw_len);
				numeric_encode(&n, r, col->raw_len);
				varlena_release(d, v);
				return numeric_enc_len(&n);
			}
		case GSK_TEXT_C:
		case GSK_BPCHAR_C:
		case GSK_BYTEA:
		case GSK_TEXT_ICU:
		case GSK_BPCHAR_ICU:
		case GSK_TEXT_LIBC:
		case GSK_BPCHAR_LIBC:
			return encode_string(col, d, r, col->raw_len);
	}
	return 0;					/* keep compiler quiet */
}

/* the full encoding length of a variable-width datum, without encoding it */
static Size
varlena_enc_len(const GsKeyCol *col, Datum d)
{
	const char *data;
	Size		len;
	struct varlena *v;

	if (col->is_name)
		return strnlen(NameStr(*DatumGetName(d)), NAMEDATALEN);
	if (col->kind == GSK_TEXT_C || col->kind == GSK_BYTEA)
		return toast_raw_datum_size(d) - VARHDRSZ;	/* needs no detoasting */

	v = varlena_fetch(d, &data, &len);
	if (col->kind == GSK_BPCHAR_C)
		len = bpchartruelen((char *) data, (int) len);
	else
	{
		GsNumeric	n;

		Assert(col->kind == GSK_NUMERIC);
		numeric_parse(data, len, &n);
		len = numeric_enc_len(&n);
	}
	varlena_release(d, v);
	return len;
}

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
			len = capture_value(col, d, raw + col->raw_off + 1);

		switch (col->kind)
		{
			case GSK_INT:
			case GSK_OID:
			case GSK_BOOL:
				{
					int64		v = int_value(col, d);

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
					len = varlena_enc_len(col, d);
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

/*
 * capture_value for a helper thread: it never allocates or raises, so it
 * gives up (false) on a value stored compressed or out of line, which
 * needs detoasting, on a numeric (whose parse may raise), on an ICU
 * failure and on a libc transform that needs memory.
 */
static bool
capture_value_nothrow(const GsKeyCol *col, Datum d, uint8 *r)
{
	switch (col->kind)
	{
		case GSK_NUMERIC:
			return false;
		case GSK_TEXT_C:
		case GSK_BPCHAR_C:
		case GSK_BYTEA:
		case GSK_TEXT_ICU:
		case GSK_BPCHAR_ICU:
		case GSK_TEXT_LIBC:
		case GSK_BPCHAR_LIBC:
			{
				const char *data;
				Size		len;
				int			failure;

				if (!string_peek(col, d, &data, &len))
					return false;
				(void) encode_string_body(col, data, len, r, col->raw_len,
										  true, &failure);
				return failure == 0;
			}
		default:
			(void) capture_value(col, d, r);
			return true;
	}
}

/*
 * key_only: after gs_keys_layout, the columns of the key alone (what
 * gs_keys_encode reads): a column past it is settled by the comparators,
 * and its transform would be made for every row and thrown away (random
 * query 342, a tr_TR string behind a 115-character prefix after a numeric
 * that fills the key: keys 335 ms, most of it strxfrm)
 */
static bool
capture_row(const GsKeySpec *spec, TupleTableSlot *slot, uint8 *raw,
			bool nothrow, bool key_only)
{
	int			i;

	for (i = 0; i < spec->nraw && (!key_only || spec->cols[i].in_key); i++)
	{
		const GsKeyCol *col = &spec->cols[i];
		bool		isnull;
		Datum		d = slot_getattr(slot, col->attno, &isnull);
		uint8	   *r = raw + col->raw_off + 1;

		raw[col->raw_off] = isnull ? 1 : 0;
		/* a ranked column's key is its rank (by row): only its null byte */
		if (isnull || col->ranks != NULL)
			continue;
		if (!nothrow)
			(void) capture_value(col, d, r);
		else if (!capture_value_nothrow(col, d, r))
			return false;
	}
	return true;
}

void
gs_keys_capture(const GsKeySpec *spec, TupleTableSlot *slot, uint8 *raw)
{
	(void) capture_row(spec, slot, raw, false, false);
}

void
gs_keys_capture_key(const GsKeySpec *spec, TupleTableSlot *slot, uint8 *raw)
{
	(void) capture_row(spec, slot, raw, false, true);
}

/*
 * gs_keys_capture for a helper thread: false (raw unfinished) where a value
 * needs what a thread may not do (capture_value_nothrow); the caller's own
 * thread then captures that row with gs_keys_capture.  The slot must hold
 * a tuple it does not own.
 */
bool
gs_keys_capture_key_nothrow(const GsKeySpec *spec, TupleTableSlot *slot,
							uint8 *raw)
{
	return capture_row(spec, slot, raw, true, true);
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

/* ---- layout ------------------------------------------------------------------- */

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

/* ---- dictionary ranks (sortdict.c) -------------------------------------------- */

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

/* ---- key width ----------------------------------------------------------------- */

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

/* ---- encoding ----------------------------------------------------------------- */

/* the first width bytes of v as a big-endian number of full bytes */
static inline void
put_be(uint8 *p, uint64 v, int full, int width)
{
	int			i;

	for (i = 0; i < width; i++)
		p[i] = (uint8) (v >> (8 * (full - 1 - i)));
}

/*
 * The common key of one number column (an integer, a float, a timestamp),
 * built as a word rather than byte by byte: the same bytes gs_keys_encode's
 * general path writes (null byte, then the first width bytes of the
 * full_width-byte encoding, inverted for DESC), loaded big-endian.
 */
static inline uint64
encode_one_word(const GsKeyCol *col, const uint8 *raw)
{
	bool		isnull = (raw[0] != 0);
	uint64		key = 0;

	if (col->null_bytes)
		key = (uint64) ((isnull != col->nulls_first) ? 1 : 0) << 56;
	if (!isnull && col->width > 0)
	{
		uint64		v;
		int			full;

		switch (col->kind)
		{
			case GSK_FLOAT4:
				{
					uint32		bits;

					memcpy(&bits, raw + 1, sizeof(bits));
					v = bits;
					full = 4;
					break;
				}
			case GSK_FLOAT8:
				memcpy(&v, raw + 1, sizeof(v));
				full = 8;
				break;
			default:
				{
					int64		iv;

					memcpy(&iv, raw + 1, sizeof(iv));
					v = (uint64) iv - (uint64) col->min;
					full = col->full_width;
					break;
				}
		}
		/* width <= full, and width = 8 only when full = 8 */
		v >>= 8 * (full - col->width);
		if (col->desc)
			v = ~v & (col->width == 8 ? PG_UINT64_MAX :
					  (UINT64CONST(1) << (8 * col->width)) - 1);
		key |= v << (8 * (8 - col->null_bytes - col->width));
	}
	return key;
}

void
gs_keys_encode(const GsKeySpec *spec, const uint8 *raw, uint64 row,
			   uint64 *words)
{
	uint8		buf[GS_KEY_MAX_BYTES];
	int			i;

	if (spec->one_word)
	{
		words[0] = encode_one_word(&spec->cols[0], raw + spec->cols[0].raw_off);
		return;
	}
	memset(buf, 0, spec->nwords * 8);
	for (i = 0; i < spec->nraw && spec->cols[i].in_key; i++)
	{
		const GsKeyCol *col = &spec->cols[i];
		const uint8 *r = raw + col->raw_off;
		uint8	   *p = buf + col->offset;
		bool		isnull = (*r++ != 0);
		int			j;

		if (col->width == 0 && col->null_bytes == 0)
			continue;			/* every row has the same value here */
		if (col->null_bytes)
			*p++ = (isnull != col->nulls_first) ? 1 : 0;
		if (isnull)
			continue;
		if (col->ranks)
		{
			/* in sort order already: no inversion for DESC */
			put_be(p, col->ranks[row], col->full_width, col->width);
			continue;
		}

		switch (col->kind)
		{
			case GSK_INT:
			case GSK_OID:
			case GSK_BOOL:
				{
					int64		v;

					memcpy(&v, r, sizeof(v));
					put_be(p, (uint64) v - (uint64) col->min,
						   col->full_width, col->width);
					break;
				}
			case GSK_FLOAT4:
				{
					uint32		bits;

					memcpy(&bits, r, sizeof(bits));
					put_be(p, bits, 4, col->width);
					break;
				}
			case GSK_FLOAT8:
				{
					uint64		bits;

					memcpy(&bits, r, sizeof(bits));
					put_be(p, bits, 8, col->width);
					break;
				}
			case GSK_UUID:
			case GSK_INTERVAL:
			case GSK_NUMERIC:
			case GSK_TEXT_C:
			case GSK_BPCHAR_C:
			case GSK_TEXT_ICU:
			case GSK_BPCHAR_ICU:
			case GSK_TEXT_LIBC:
			case GSK_BPCHAR_LIBC:
			case GSK_BYTEA:
				/* the raw bytes are the encoding's first raw_len >= width */
				memcpy(p, r, col->width);
				break;
		}
		if (col->desc)
			for (j = 0; j < col->width; j++)
				p[j] = ~p[j];
	}

	for (i = 0; i < spec->nwords; i++)
	{
		uint64		w;

		memcpy(&w, buf + 8 * i, sizeof(w));
		words[i] = pg_ntoh64(w);
	}
}

/* ---- EXPLAIN ------------------------------------------------------------------ */

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

/* ---- refining ties from the transform (sortrefine.c) ------------------------------ */

/*
 * Is column c the key's last column, a prefix of a string's transform
 * (strxfrm, the ICU sort key, or the bytes under C) that rows may tie in
 * while their transforms differ further on?  Transforms hold no zero byte
 * (text holds none, nor do strxfrm's output and ICU's sort keys but for
 * their terminator), so a zero padded chunk tells where one ends.
 */
bool
gs_keys_refinable(const GsKeySpec *spec, int c)
{
	const GsKeyCol *col;

	if (c >= spec->nenc || c != spec->first_inexact)
		return false;
	col = &spec->cols[c];
	return col->in_key && col->nranks == 0 && col->width > 0 &&
		(col->kind == GSK_TEXT_C || col->kind == GSK_BPCHAR_C ||
		 col->kind == GSK_TEXT_ICU || col->kind == GSK_BPCHAR_ICU ||
		 KIND_IS_LIBC(col->kind));
}

/*
 * Are the values whose transforms are equal ordered by their bytes, as
 * PostgreSQL breaks the ties of a deterministic collation?  Not where the
 * transform is the bytes already (C), nor under a nondeterministic ICU
 * collation, whose equal strings are equal.
 */
bool
gs_keys_ties_by_bytes(const GsKeySpec *spec, int c)
{
	const GsKeyCol *col = &spec->cols[c];

	if (col->kind == GSK_TEXT_C || col->kind == GSK_BPCHAR_C)
		return false;
	if (KIND_IS_LIBC(col->kind))
		return true;
	return col->locale != NULL && col->locale->deterministic;
}

int
gs_keys_prefix_width(const GsKeySpec *spec, int c)
{
	return spec->cols[c].width;
}

bool
gs_keys_desc(const GsKeySpec *spec, int c)
{
	return spec->cols[c].desc;
}

/* bytes off .. off + width - 1 of an ICU sort key (false: see the caller) */
static bool
icu_key_range(const GsKeyCol *col, const char *data, Size len, size_t off,
			  uint8 *dst, int width, bool nothrow)
{
#ifdef USE_ICU
	uint8		stackbuf[GS_REFINE_STACK_BYTES];
	uint8	   *buf = stackbuf;
	UCharIterator iter;
	uint32_t	state[2] = {0, 0};
	UErrorCode	status = U_ZERO_ERROR;
	size_t		need = off + width;

	if (need > sizeof(stackbuf))
	{
		if (nothrow)
			return false;
		buf = palloc(need);
	}
	/* a part of the key is a prefix of any longer part: zero padded */
	memset(buf, 0, need);
	uiter_setUTF8(&iter, data, (int32_t) len);
	(void) ucol_nextSortKeyPart(gs_locale_ucollator(col->locale), &iter, state,
								buf, (int32_t) need, &status);
	if (U_FAILURE(status))
	{
		if (nothrow)
			return false;
		ereport(ERROR,
				(errcode(ERRCODE_INTERNAL_ERROR),
				 errmsg("sort key generation failed: %s",
						u_errorName(status))));
	}
	memcpy(dst, buf + off, width);
	if (buf != stackbuf)
		pfree(buf);
	return true;
#else
	return false;
#endif
}

/*
 * Writes bytes off .. off + width - 1 of the transform of column c's value
 * d (or of the value's own bytes, with raw), zero padded past its end, to
 * dst.  Under nothrow it allocates and raises nothing, and gives up
 * (false) on a value to detoast or too long for the stack; otherwise it
 * always succeeds.
 */
bool
gs_keys_transform_range(const GsKeySpec *spec, int c, Datum d, bool raw,
						size_t off, uint8 *dst, int width, bool nothrow)
{
	return gs_keys_transform_keep(spec, c, d, raw, off, dst, width,
								  NULL, 0, NULL, NULL, nothrow);
}

/*
 * Whether gs_keys_transform_keep can keep the rest of column c's
 * transforms: a libc collation's, which strxfrm makes whole each time
 * (an ICU sort key is made part by part, the bytes under C are the
 * value's own).
 */
bool
gs_keys_transform_keeps(const GsKeySpec *spec, int c)
{
	return KIND_IS_LIBC(spec->cols[c].kind);
}

/*
 * gs_keys_transform_range, and with tail (gs_keys_transform_keeps, not
 * raw) the transform's bytes after dst's, as gs_libc_xfrm_range gives them,
 * followed by the value's own bytes (those a raw range reads), where both
 * fit in room: *taillen and *rawlen are their numbers, or *taillen is
 * SIZE_MAX where they were not kept.
 */
bool
gs_keys_transform_keep(const GsKeySpec *spec, int c, Datum d, bool raw,
					   size_t off, uint8 *dst, int width, uint8 *tail,
					   size_t room, size_t *taillen, size_t *rawlen,
					   bool nothrow)
{
	const GsKeyCol *col = &spec->cols[c];
	const char *data;
	Size		len;
	struct varlena *v = NULL;
	bool		ok = true;

	if (taillen)
		*taillen = SIZE_MAX;
	if (!string_peek(col, d, &data, &len))
	{
		if (nothrow)
			return false;
		v = varlena_fetch(d, &data, &len);
	}
	if (KIND_IS_BPCHAR(col->kind))
		len = bpchartruelen((char *) data, (int) len);
	if (raw)
		ok = true;
	else if (KIND_IS_LIBC(col->kind))
	{
		ok = gs_libc_xfrm_range(col->libc, data, len, off, dst, width,
								tail, room, taillen, nothrow);
		if (ok && tail && *taillen != SIZE_MAX)
		{
			if (room - *taillen >= len)
			{
				memcpy(tail + *taillen, data, len);
				*rawlen = len;
			}
			else
				*taillen = SIZE_MAX;
		}
	}
	else if (col->kind == GSK_TEXT_ICU || col->kind == GSK_BPCHAR_ICU)
		ok = icu_key_range(col, data, len, off, dst, width, nothrow);
	if (raw || col->kind == GSK_TEXT_C || col->kind == GSK_BPCHAR_C)
	{
		Size		n = off < len ? Min(len - off, (Size) width) : 0;

		if (n > 0)
			memcpy(dst, data + off, n);
		memset(dst + n, 0, width - n);
	}
	if (v)
		varlena_release(d, v);
	return ok;
}

/*
 * *same = whether column c's values a and b have the same bytes (so are
 * equal under any collation), without allocating: false where a value is
 * stored compressed or out of line.
 */
bool
gs_keys_same_bytes(const GsKeySpec *spec, int c, Datum a, Datum b, bool *same)
{
	const GsKeyCol *col = &spec->cols[c];
	const char *ad,
			   *bd;
	Size		al,
				bl;

	if (!string_peek(col, a, &ad, &al) || !string_peek(col, b, &bd, &bl))
		return false;
	if (KIND_IS_BPCHAR(col->kind))
	{
		al = bpchartruelen((char *) ad, (int) al);
		bl = bpchartruelen((char *) bd, (int) bl);
	}
	*same = al == bl && memcmp(ad, bd, al) == 0;
	return true;
}

GsTransformKind
gs_keys_transform_kind(const GsKeySpec *spec, int c)
{
	const GsKeyCol *col = &spec->cols[c];

	if (KIND_IS_LIBC(col->kind))
		return GS_TRANSFORM_LIBC;
	if (col->kind == GSK_TEXT_ICU || col->kind == GSK_BPCHAR_ICU)
		return GS_TRANSFORM_ICU;
	return GS_TRANSFORM_BYTES;
}

bool
gs_keys_value_peek(const GsKeySpec *spec, int c, Datum d, const char **data,
				   Size *len)
{
	const GsKeyCol *col = &spec->cols[c];

	if (!string_peek(col, d, data, len))
		return false;
	if (KIND_IS_BPCHAR(col->kind))
		*len = bpchartruelen((char *) *data, (int) *len);
	return true;
}

bool
gs_keys_bytes_decide(const GsKeySpec *spec, int c)
{
	const GsKeyCol *col = &spec->cols[c];

	return col->kind == GSK_TEXT_C || col->kind == GSK_BPCHAR_C ||
		gs_keys_ties_by_bytes(spec, c);
}

Size
gs_keys_value_bytes(const GsKeySpec *spec, int c, Datum d)
{
	const GsKeyCol *col = &spec->cols[c];
	const char *data;
	Size		len;

	if (string_peek(col, d, &data, &len))
		return len;
	return toast_raw_datum_size(d) - VARHDRSZ;
}

/* ---- later columns (sortlater.c) ------------------------------------------------ */

/*
 * A numeric's bytes in a later column's key: the first 11 bytes of its
 * encoding (class, weight and 4 digits), then a byte that says whether
 * that was all of it, and if not, which way the rest goes: a value cut
 * short lies past every value whose whole encoding is the same bytes (it
 * has more nonzero digits), above it if positive and below it if negative.
 */
#define GS_LATER_NUMERIC_BYTES	12
#define GS_LATER_NUMERIC_BELOW	0
#define GS_LATER_NUMERIC_WHOLE	1
#define GS_LATER_NUMERIC_ABOVE	2

/*
 * The bytes of column c's value encoding as a later column's key, its null
 * byte not counted: the whole encoding of the fixed-width kinds, which here
 * needs no observed range (an integer is its value with the sign bit
 * flipped, as wide as its type), and a numeric's GS_LATER_NUMERIC_BYTES;
 * 0 where the column has no such encoding (the strings and bytea, whose
 * keys are prefixes, and the columns past the encoders).
 */
int
gs_keys_later_width(const GsKeySpec *spec, int c)
{
	if (c >= spec->nenc)
		return 0;
	switch (spec->cols[c].kind)
	{
		case GSK_INT:
			return spec->cols[c].typlen;
		case GSK_OID:
		case GSK_FLOAT4:
			return 4;
		case GSK_BOOL:
			return 1;
		case GSK_FLOAT8:
			return 8;
		case GSK_UUID:
			return UUID_LEN;
		case GSK_INTERVAL:
			return GS_INTERVAL_BYTES;
		case GSK_NUMERIC:
			return GS_LATER_NUMERIC_BYTES;
		default:
			return 0;
	}
}

/*
 * A numeric's GS_LATER_NUMERIC_BYTES, and whether they are all of it
 * (*exact).  Under nothrow, false where the value is stored compressed or
 * out of line, or is not a numeric: only the backend's thread may detoast
 * it, or raise.
 */
static bool
later_numeric(Datum d, uint8 *dst, bool *exact, bool nothrow)
{
	struct varlena *v = (struct varlena *) DatumGetPointer(d);
	int			width = GS_LATER_NUMERIC_BYTES - 1;
	const char *data;
	Size		len;
	GsNumeric	n;

	if (VARATT_IS_COMPRESSED(v) || VARATT_IS_EXTERNAL(v))
	{
		if (nothrow)
			return false;
		v = varlena_fetch(d, &data, &len);
	}
	else
	{
		data = VARDATA_ANY(v);
		len = VARSIZE_ANY_EXHDR(v);
	}
	if (!numeric_parse_safe(data, len, &n))
	{
		if (nothrow)
			return false;
		numeric_parse(data, len, &n);	/* raises */
	}
	memset(dst, 0, width);
	numeric_encode(&n, dst, width);
	*exact = numeric_enc_len(&n) <= (uint32) width;
	dst[width] = *exact ? GS_LATER_NUMERIC_WHOLE :
		n.class == NUMCLASS_NEG ? GS_LATER_NUMERIC_BELOW : GS_LATER_NUMERIC_ABOVE;
	varlena_release(d, v);
	return true;
}

/* the value bytes of a later column's non-NULL value d, not DESC-inverted */
static bool
later_value(const GsKeyCol *col, Datum d, uint8 *dst, int width, bool *exact,
			bool nothrow)
{
	uint64		v;

	switch (col->kind)
	{
		case GSK_INT:
			v = (uint64) int_value(col, d) ^ (UINT64CONST(1) << (8 * width - 1));
			put_be(dst, v, width, width);
			return true;
		case GSK_OID:
		case GSK_BOOL:
			put_be(dst, (uint64) int_value(col, d), width, width);
			return true;
		case GSK_FLOAT4:
			put_be(dst, float4_bits(DatumGetFloat4(d)), width, width);
			return true;
		case GSK_FLOAT8:
			put_be(dst, float8_bits(DatumGetFloat8(d)), width, width);
			return true;
		case GSK_UUID:
			memcpy(dst, DatumGetUUIDP(d)->data, UUID_LEN);
			return true;
		case GSK_INTERVAL:
			interval_encode(DatumGetIntervalP(d), dst);
			return true;
		case GSK_NUMERIC:
			return later_numeric(d, dst, exact, nothrow);
		default:
			break;
	}
	if (!nothrow)
		elog(ERROR, "sort column of attribute %d has no later column encoding",
			 col->attno);
	return false;
}

/*
 * Writes column c's slice of a later columns' key for value d (or NULL):
 * the null byte (0 sorts first: NULLS FIRST gives NULL 0, as in the main
 * key), then gs_keys_later_width bytes of the value's encoding, the main
 * key's (sortkey.c's header), inverted for DESC.  *exact: whether equal
 * slices mean equal values.  A numeric longer than its slice is not: its
 * slice orders it among the values of other slices, and of the same
 * slice encoded whole, but not among those cut short to the same slice,
 * which only the comparator orders (so the key's later bytes must not).
 * Under nothrow it may run on a helper thread, and gives up (false) where
 * only the backend's thread may go on.
 */
bool
gs_keys_later_encode(const GsKeySpec *spec, int c, Datum d, bool isnull,
					 uint8 *dst, bool *exact, bool nothrow)
{
	const GsKeyCol *col = &spec->cols[c];
	int			width = gs_keys_later_width(spec, c);
	int			j;

	*exact = true;
	dst[0] = (isnull != col->nulls_first) ? 1 : 0;
	if (isnull)
	{
		memset(dst + 1, 0, width);
		return true;
	}
	if (!later_value(col, d, dst + 1, width, exact, nothrow))
		return false;
	if (col->desc)
		for (j = 1; j <= width; j++)
			dst[j] = ~dst[j];
	return true;
}

/* ---- checking libc prefixes (sortverify.c) -------------------------------------- */

int
gs_keys_verified_column(const GsKeySpec *spec)
{
	int			c = spec->first_inexact;

	if (c < spec->nenc && spec->cols[c].in_key && KIND_IS_LIBC(spec->cols[c].kind))
		return c;
	return -1;
}

bool
gs_keys_differ_in(const GsKeySpec *spec, int c, const uint64 *a,
				  const uint64 *b)
{
	const GsKeyCol *col = &spec->cols[c];
	int			first = col->offset + col->null_bytes;
	int			w;

	for (w = 0; w < spec->nwords; w++)
	{
		uint64		x = a[w] ^ b[w];

		if (x != 0)
		{
			/* words are big-endian numbers: the top set bit's byte differs first */
			int			byte = w * 8 + (__builtin_clzll(x) >> 3);

			return byte >= first && byte < first + col->width;
		}
	}
	return false;
}

bool
gs_keys_column_value_nothrow(const GsKeySpec *spec, int c,
							 TupleTableSlot *slot, Datum *value)
{
	const GsKeyCol *col = &spec->cols[c];
	bool		isnull;
	const char *data;
	Size		len;

	*value = slot_getattr(slot, col->attno, &isnull);
	return !isnull && string_peek(col, *value, &data, &len);
}

bool
gs_keys_compare_values_nothrow(const GsKeySpec *spec, int c, Datum a,
							   Datum b, int *result)
{
	const GsKeyCol *col = &spec->cols[c];
	const char *adata,
			   *bdata;
	Size		alen,
				blen;

	if (!string_peek(col, a, &adata, &alen) ||
		!string_peek(col, b, &bdata, &blen))
		return false;
	if (KIND_IS_BPCHAR(col->kind))
	{
		alen = bpchartruelen((char *) adata, (int) alen);
		blen = bpchartruelen((char *) bdata, (int) blen);
	}
	if (!gs_libc_compare(col->libc, adata, alen, bdata, blen, result, true))
		return false;
	if (col->desc)
		*result = -*result;
	return true;
}

bool
gs_keys_values_same_nothrow(const GsKeySpec *spec, int c, Datum a, Datum b)
{
	const GsKeyCol *col = &spec->cols[c];
	const char *adata,
			   *bdata;
	Size		alen,
				blen;

	return string_peek(col, a, &adata, &alen) &&
		string_peek(col, b, &bdata, &blen) &&
		alen == blen && memcmp(adata, bdata, alen) == 0;
}

bool
gs_keys_collates_on_threads(const GsKeySpec *spec, int c)
{
	if (c >= spec->nenc)
		return false;
	if (KIND_IS_LIBC(spec->cols[c].kind))
		return true;
#ifdef USE_ICU
	/* ucol_strcollUTF8, where varstr_cmp calls it (no conversion) */
	if (spec->cols[c].kind == GSK_TEXT_ICU || spec->cols[c].kind == GSK_BPCHAR_ICU)
		return GetDatabaseEncoding() == PG_UTF8;
#endif
	return false;
}

bool
gs_keys_collation_deterministic(const GsKeySpec *spec, int c)
{
	const GsKeyCol *col = &spec->cols[c];

	return KIND_IS_LIBC(col->kind) ||
		(col->locale != NULL && col->locale->deterministic);
}

Size
gs_keys_string_value(const GsKeySpec *spec, int c, Datum d,
					 const char **data, Size *len)
{
	const GsKeyCol *col = &spec->cols[c];
	Size		detoasted = 0;

	if (!string_peek(col, d, data, len))
	{
		struct varlena *v = pg_detoast_datum_packed((struct varlena *) DatumGetPointer(d));

		*data = VARDATA_ANY(v);
		*len = VARSIZE_ANY_EXHDR(v);
		detoasted = VARSIZE_ANY(v);
	}
	if (KIND_IS_BPCHAR(col->kind))
		*len = bpchartruelen((char *) *data, (int) *len);
	return detoasted;
}

int
gs_keys_collate_in(const GsKeySpec *spec, int c, const char *a, Size alen,
				   const char *b, Size blen, char *abuf, char *bbuf,
				   bool *failed)
{
	const GsKeyCol *col = &spec->cols[c];
	int			r;

	if (KIND_IS_LIBC(col->kind))
		r = gs_libc_compare_in(col->libc, a, alen, b, blen, abuf, bbuf);
	else
	{
#ifdef USE_ICU
		UErrorCode	status = U_ZERO_ERROR;

		/* varstr_cmp's order: equal bytes, the collator, then strcmp */
		if (alen == blen && memcmp(a, b, alen) == 0)
			return 0;
		r = ucol_strcollUTF8(gs_locale_ucollator(col->locale), a, (int32_t) alen,
							 b, (int32_t) blen, &status);
		if (U_FAILURE(status))
		{
			*failed = true;
			return 0;
		}
		if (r == 0 && col->locale->deterministic)
		{
			r = memcmp(a, b, Min(alen, blen));
			if (r == 0)
				r = (alen > blen) - (alen < blen);
		}
		r = (r > 0) - (r < 0);
#else
		*failed = true;
		return 0;
#endif
	}
	return col->desc ? -r : r;
}

bool
gs_keys_compare_column_nothrow(const GsKeySpec *spec, int c,
							   TupleTableSlot *a, TupleTableSlot *b,
							   int *result)
{
	Datum		ad,
				bd;

	return gs_keys_column_value_nothrow(spec, c, a, &ad) &&
		gs_keys_column_value_nothrow(spec, c, b, &bd) &&
		gs_keys_compare_values_nothrow(spec, c, ad, bd, result);
}
