/*-------------------------------------------------------------------------
 *
 * keyint.h
 *	  What the files of keys/ share behind sortkey.h: the spec's layout in
 *	  memory and the few helpers more than one of them needs.
 *
 * sortkey.c builds the spec and lays out its key, keyencode.c writes the
 * raw keys and keys, keyrefine.c and keycollate.c read string columns
 * further than the key holds.  The rest of GpuSort sees GsKeySpec only
 * through sortkey.h; nothing outside keys/ includes this.
 *
 * The includer must have included postgres.h.
 *
 *-------------------------------------------------------------------------
 */
#ifndef GPUSORT_KEYINT_H
#define GPUSORT_KEYINT_H

#include "fmgr.h"

#include "base/compat.h"

#include "libcoll.h"
#include "sortkey.h"

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
	GSK_INTERVAL				/* its span: see keyencode.c */
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
	struct XfrmCache *xcache;	/* libc and ICU kinds: keyencode.c */
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
								 * one word (keyencode.c) */
};

/*
 * A column's values as the encoders and the comparisons read them.  Every
 * row goes through these, so they stay inline rather than behind a call.
 */

/* the value of an integer kind (GSK_INT, GSK_OID, GSK_BOOL) */
static inline int64
gs_keys_int_value(const GsKeyCol *col, Datum d)
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
gs_keys_varlena_fetch(Datum d, const char **data, Size *len)
{
	struct varlena *v = pg_detoast_datum_packed((struct varlena *) DatumGetPointer(d));

	*data = VARDATA_ANY(v);
	*len = VARSIZE_ANY_EXHDR(v);
	return v;
}

static inline void
gs_keys_varlena_release(Datum d, struct varlena *v)
{
	if ((Pointer) v != DatumGetPointer(d))
		pfree(v);
}

/*
 * The bytes of a string value as its comparator reads them, a name's up to
 * its NUL, a varlena's body, without allocating: false for a varlena stored
 * compressed or out of line, which needs gs_keys_varlena_fetch.
 */
static inline bool
gs_keys_string_peek(const GsKeyCol *col, Datum d, const char **data,
					Size *len)
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

/* keyencode.c: what gs_keys_observe needs of a value's encoding */
extern Size gs_keys_capture_value(const GsKeyCol *col, Datum d, uint8 *r);
extern Size gs_keys_varlena_enc_len(const GsKeyCol *col, Datum d);

#endif							/* GPUSORT_KEYINT_H */
