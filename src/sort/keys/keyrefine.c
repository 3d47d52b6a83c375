/*-------------------------------------------------------------------------
 *
 * keyrefine.c
 *	  More of a string column's transform than its key holds, for settling
 *	  the key's ties from the transform (sortrefine.c).
 *
 * A string under an ICU or libc collation, or under C, is keyed by a
 * prefix of its transform: the ICU sort key, strxfrm's output, or its own
 * bytes.  Rows whose prefixes tie mostly differ a few bytes further on, so
 * sortrefine.c orders them by the transform's next bytes, chunk by chunk
 * (gs_keys_transform_range), rather than with the comparator.  Transforms
 * hold no zero byte, so a chunk is zero padded past a transform's end, and
 * a zero byte in it says that the transforms ended equal; under a
 * deterministic collation their values' own bytes then break the tie, as
 * PostgreSQL does (gs_keys_ties_by_bytes).
 *
 * An ICU sort key is made up to the bytes asked for, on a helper thread on
 * its stack up to GS_REFINE_STACK_BYTES; glibc's strxfrm makes the whole
 * transform each time, so gs_keys_transform_keep hands the caller the rest
 * of it, and the value's bytes after, to keep for the next chunks.  Under
 * nothrow these functions allocate and raise nothing: they give up on a
 * value to detoast or a transform too long for the stack, and the
 * backend's thread goes on.  Nothing here is DESC-inverted.
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "access/detoast.h"
#include "utils/builtins.h"

#ifdef USE_ICU
#include <unicode/uiter.h>
#endif

#include "keyint.h"

/* an ICU sort key's bytes that a helper thread makes on its stack */
#define GS_REFINE_STACK_BYTES	2048

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
	if (!gs_keys_string_peek(col, d, &data, &len))
	{
		if (nothrow)
			return false;
		v = gs_keys_varlena_fetch(d, &data, &len);
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
		gs_keys_varlena_release(d, v);
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

	if (!gs_keys_string_peek(col, a, &ad, &al) || !gs_keys_string_peek(col, b, &bd, &bl))
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

	if (!gs_keys_string_peek(col, d, data, len))
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

	if (gs_keys_string_peek(col, d, &data, &len))
		return len;
	return toast_raw_datum_size(d) - VARHDRSZ;
}
