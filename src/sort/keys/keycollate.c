/*-------------------------------------------------------------------------
 *
 * keycollate.c
 *	  A string column's values compared under its collation on any
 *	  thread: checking libc prefixes (sortverify.c) and settling ties on
 *	  threads (sortcoll.c).
 *
 * A libc collation's key is a strxfrm prefix, a hint that the node checks
 * with strcoll after the sort (libcoll.c says why): only adjacent rows
 * whose keys first differ in that prefix need the check, where the order
 * rests on the prefix alone (gs_keys_differ_in).  Rows that tie in a libc
 * or ICU prefix may be sorted on threads too, where PostgreSQL's
 * comparator would sort them on the backend's alone.  Both compare as
 * varstr_cmp does: strcoll_l with the collation's locale_t, or
 * ucol_strcollUTF8 with its collator, then strcmp of strings the collation
 * calls equal under a deterministic collation; DESC inverts the result.
 *
 * A value compared on a thread points into its stored row, so it must be
 * there whole: a NULL, or a value stored compressed or out of line, makes
 * the *_nothrow functions give up, and the backend's thread compares with
 * PostgreSQL's comparator, or detoasts (gs_keys_string_value).
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "mb/pg_wchar.h"
#include "utils/builtins.h"

#include "keyint.h"

/* ---- checking libc prefixes (sortverify.c) ------------------------------ */

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
	return !isnull && gs_keys_string_peek(col, *value, &data, &len);
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

	if (!gs_keys_string_peek(col, a, &adata, &alen) ||
		!gs_keys_string_peek(col, b, &bdata, &blen))
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

	return gs_keys_string_peek(col, a, &adata, &alen) &&
		gs_keys_string_peek(col, b, &bdata, &blen) &&
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

	if (!gs_keys_string_peek(col, d, data, len))
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
