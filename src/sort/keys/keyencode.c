/*-------------------------------------------------------------------------
 *
 * keyencode.c
 *	  The order-preserving encodings of GpuSort's keys: a row's raw key,
 *	  the key built from it, and the later columns' slices.
 *
 * Every encoding is a function v -> bytes with a < b => enc(a) <= enc(b)
 * under memcmp, and a = b => enc(a) = enc(b); a column's slice of the key
 * (sortkey.c's header) holds its encoding or the first bytes of it:
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
 * and invert DESC columns.
 *
 * The later columns' keys (sortlater.c) use the same encodings without an
 * observed range: an integer is its value with the sign bit flipped, as
 * wide as its type, so that a slice needs no statistics of the rows.
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include <math.h>

#include "access/detoast.h"
#include "common/hashfn.h"
#include "datatype/timestamp.h"
#include "port/pg_bswap.h"
#include "utils/builtins.h"
#include "utils/timestamp.h"
#include "utils/uuid.h"

#ifdef USE_ICU
#include <unicode/uiter.h>
#endif

#include "keyint.h"

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

/* ---- interval ----------------------------------------------------------- */

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

/* ---- raw keys ----------------------------------------------------------- */

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

	if (!gs_keys_string_peek(col, d, &data, &len))
		v = gs_keys_varlena_fetch(d, &data, &len);

	if (KIND_IS_LIBC(col->kind) || col->kind == GSK_TEXT_ICU ||
		col->kind == GSK_BPCHAR_ICU)
		slot = xcache_slot((GsKeyCol *) col, data, len, width, &hash, &hit);
	if (hit)
	{
		memcpy(p, slot->prefix, width);
		if (v)
			gs_keys_varlena_release(d, v);
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
		gs_keys_varlena_release(d, v);
	return len;
}

/*
 * Writes the raw key value of a non-NULL datum (raw_len bytes) and returns
 * the length of its full encoding for the variable-width kinds, else 0.
 */
Size
gs_keys_capture_value(const GsKeyCol *col, Datum d, uint8 *r)
{
	switch (col->kind)
	{
		case GSK_INT:
		case GSK_OID:
		case GSK_BOOL:
			{
				int64		v = gs_keys_int_value(col, d);

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
				struct varlena *v = gs_keys_varlena_fetch(d, &data, &len);
				GsNumeric	n;

				numeric_parse(data, len, &n);
				memset(r, 0, col->raw_len);
				numeric_encode(&n, r, col->raw_len);
				gs_keys_varlena_release(d, v);
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
Size
gs_keys_varlena_enc_len(const GsKeyCol *col, Datum d)
{
	const char *data;
	Size		len;
	struct varlena *v;

	if (col->is_name)
		return strnlen(NameStr(*DatumGetName(d)), NAMEDATALEN);
	if (col->kind == GSK_TEXT_C || col->kind == GSK_BYTEA)
		return toast_raw_datum_size(d) - VARHDRSZ;	/* needs no detoasting */

	v = gs_keys_varlena_fetch(d, &data, &len);
	if (col->kind == GSK_BPCHAR_C)
		len = bpchartruelen((char *) data, (int) len);
	else
	{
		GsNumeric	n;

		Assert(col->kind == GSK_NUMERIC);
		numeric_parse(data, len, &n);
		len = numeric_enc_len(&n);
	}
	gs_keys_varlena_release(d, v);
	return len;
}

/*
 * gs_keys_capture_value for a helper thread: it never allocates or
 * raises, so it gives up (false) on a value stored compressed or out of
 * line, which needs detoasting, on a numeric (whose parse may raise), on
 * an ICU failure and on a libc transform that needs memory.
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

				if (!gs_keys_string_peek(col, d, &data, &len))
					return false;
				(void) encode_string_body(col, data, len, r, col->raw_len,
										  true, &failure);
				return failure == 0;
			}
		default:
			(void) gs_keys_capture_value(col, d, r);
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
			(void) gs_keys_capture_value(col, d, r);
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

/* ---- encoding ----------------------------------------------------------- */

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

/* ---- later columns (sortlater.c) ---------------------------------------- */

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
		v = gs_keys_varlena_fetch(d, &data, &len);
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
	gs_keys_varlena_release(d, v);
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
			v = (uint64) gs_keys_int_value(col, d) ^ (UINT64CONST(1) << (8 * width - 1));
			put_be(dst, v, width, width);
			return true;
		case GSK_OID:
		case GSK_BOOL:
			put_be(dst, (uint64) gs_keys_int_value(col, d), width, width);
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
 * key's (this file's header), inverted for DESC.  *exact: whether equal
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
