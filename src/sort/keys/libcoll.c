/*-------------------------------------------------------------------------
 *
 * libcoll.c
 *	  GpuSort's use of libc collations: the collation of most databases
 *	  (en_US.UTF-8, C.UTF-8, de_DE, ...), as their default or by COLLATE.
 *
 * PostgreSQL orders text under a libc collation with strcoll, ties broken
 * by strcmp (varstr_cmp).  No fixed-width key follows that order exactly,
 * but strxfrm comes close: glibc's transform of a string is its first-level
 * weights (letters, ignoring accents, case and most punctuation), a 0x01
 * byte, the second-level weights and so on, and strcmp of two transforms
 * orders as strcoll of the strings.  So the key of a libc column is the
 * first bytes of the string's transform, rows with equal prefixes go to
 * PostgreSQL's comparator as every inexact key's do, and -- since
 * PostgreSQL does not trust glibc's strxfrm to agree with strcoll (it gave
 * up abbreviated keys for libc collations over that) -- the node checks
 * afterwards, with strcoll, every adjacent pair of rows that the prefixes
 * alone put in order (sortverify.c).  The prefixes are hints: the result is
 * exact whatever glibc's strxfrm does.
 *
 * The transform costs far more than a comparison and grows with the
 * string, while the key holds only its first bytes; so a long string is
 * transformed from its first GS_XFRM_INPUT_BYTES bytes (cut at a character
 * boundary), unless the first level of that transform is shorter than the
 * key, as it is for strings of mostly punctuation.  A contraction cut in
 * two can make such a prefix disagree with the whole string's; the check
 * above catches that too.
 *
 * C.UTF-8 needs none of this: glibc 2.35 defined its collation as code
 * point order, which for UTF-8 is byte order, so under a UTF-8 database
 * the C encoding of strings is exact.  That is verified, not assumed, once
 * per collation and backend: the glibc version, then strcoll_l against
 * strcmp over a fixed set of strings that every other locale orders apart
 * from byte order (case, accents, punctuation, ligatures, CJK, emoji).
 *
 * locale_t objects are made here from the collation's LC_COLLATE and
 * LC_CTYPE names (for the default collation, the database's), as
 * PostgreSQL makes them for non-default libc collations, and kept for the
 * life of the backend; strxfrm_l and strcoll_l with them are thread-safe,
 * so keys are built and pairs checked on helper threads.
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include <string.h>
#ifdef __GLIBC__
#include <gnu/libc-version.h>
#endif

#include "access/htup_details.h"
#include "catalog/pg_collation.h"
#include "catalog/pg_database.h"
#include "mb/pg_wchar.h"
#include "miscadmin.h"
#include "utils/builtins.h"
#include "utils/guc.h"
#include "utils/memutils.h"
#include "utils/syscache.h"

#include "libcoll.h"

/*
 * of a longer string, only the transform of this many first bytes is made,
 * or of GS_XFRM_INPUT_MORE where that holds too little of the first level
 */
#define GS_XFRM_INPUT_BYTES		64
#define GS_XFRM_INPUT_MORE		512
/* a first guess at a whole string's transform: glibc's en_US makes ~5x */
#define GS_XFRM_GUESS(len)		(8 * (len) + 64)
/* stack buffers of the thread-safe paths */
#define GS_XFRM_OUT_BYTES		1024
#define GS_CMP_STACK_BYTES		1024
#define GS_XFRM_RANGE_BYTES		4096

/* the collations looked up in this backend, in TopMemoryContext */
#define GS_MAX_LIBC_COLLS	32
static GsLibcColl *colls[GS_MAX_LIBC_COLLS];
static int	ncolls = 0;

/*
 * Strings whose byte order differs from their order in every libc locale
 * but the code-point ones: if strcoll orders all of them as strcmp does,
 * the locale sorts by code point.
 */
static const char *const byte_order_probe[] = {
	"", " ", "!", "-", ".", "0", "1", "9", "A", "B", "Z", "_", "a", "b", "z",
	"a b", "a-b", "ab", "aB", "Ab", "AB", "co op", "co-op", "coop", "Coop",
	"e", "E", "\xc3\xa9", "e\xcc\x81", "\xc3\x89", "\xc3\xa0", "\xc3\xa4",
	"\xc3\xa5", "\xc3\xa6", "\xc3\xb8", "\xc3\x9f", "ss", "SS", "i", "I",
	"\xc4\xb1", "\xc4\xb0", "\xc5\x93", "oe", "\xc4\x8d", "cz", "\xc3\xb1",
	"\xe4\xb8\xad", "\xe6\x97\xa5\xe6\x9c\xac", "\xef\xbd\x81",
	"\xf0\x9f\x98\x80", "\xf0\x9f\x98\x81", "\x7f", "\xc2\xa0", "\xc2\xbf"
};

#ifdef __GLIBC__
/* glibc's version as major * 1000 + minor */
static int
glibc_version(void)
{
	int			major = 0,
				minor = 0;

	if (sscanf(gnu_get_libc_version(), "%d.%d", &major, &minor) != 2)
		return 0;
	return major * 1000 + minor;
}
#endif

static bool
probe_byte_order(locale_t lt)
{
	int			n = lengthof(byte_order_probe);
	int			i,
				j;

#ifdef __GLIBC__
	if (glibc_version() < 2035)
		return false;
#else
	return false;
#endif
	if (GetDatabaseEncoding() != PG_UTF8)
		return false;
	for (i = 0; i < n; i++)
		for (j = 0; j < n; j++)
		{
			int			c = strcoll_l(byte_order_probe[i], byte_order_probe[j], lt);
			int			b = strcmp(byte_order_probe[i], byte_order_probe[j]);

			if ((c > 0) != (b > 0) || (c < 0) != (b < 0))
				return false;
		}
	return true;
}

/*
 * The LC_COLLATE and LC_CTYPE names of a libc collation, palloc'd; false
 * when the collation (or the database's default) is not libc's.
 */
static bool
libc_names(Oid collid, char **collate, char **ctype)
{
	HeapTuple	tp;
	Datum		d;
	bool		isnull;
	char		provider;
	int			cacheid;
	AttrNumber	collattr,
				ctypeattr;

	if (collid == DEFAULT_COLLATION_OID)
	{
		tp = SearchSysCache1(DATABASEOID, ObjectIdGetDatum(MyDatabaseId));
		if (!HeapTupleIsValid(tp))
			elog(ERROR, "cache lookup failed for database %u", MyDatabaseId);
		provider = ((Form_pg_database) GETSTRUCT(tp))->datlocprovider;
		cacheid = DATABASEOID;
		collattr = Anum_pg_database_datcollate;
		ctypeattr = Anum_pg_database_datctype;
	}
	else
	{
		tp = SearchSysCache1(COLLOID, ObjectIdGetDatum(collid));
		if (!HeapTupleIsValid(tp))
			elog(ERROR, "cache lookup failed for collation %u", collid);
		provider = ((Form_pg_collation) GETSTRUCT(tp))->collprovider;
		cacheid = COLLOID;
		collattr = Anum_pg_collation_collcollate;
		ctypeattr = Anum_pg_collation_collctype;
	}
	if (provider != COLLPROVIDER_LIBC)
	{
		ReleaseSysCache(tp);
		return false;
	}
	d = SysCacheGetAttr(cacheid, tp, collattr, &isnull);
	*collate = isnull ? pstrdup("C") : TextDatumGetCString(d);
	d = SysCacheGetAttr(cacheid, tp, ctypeattr, &isnull);
	*ctype = isnull ? pstrdup(*collate) : TextDatumGetCString(d);
	ReleaseSysCache(tp);
	return true;
}

const GsLibcColl *
gs_libc_collation(Oid collid)
{
	GsLibcColl *c;
	char	   *collate,
			   *ctype;
	locale_t	lt;
	int			i;

	for (i = 0; i < ncolls; i++)
		if (colls[i]->collid == collid)
			return colls[i];
	if (!libc_names(collid, &collate, &ctype))
		return NULL;

	lt = newlocale(LC_COLLATE_MASK, collate, (locale_t) 0);
	if (lt != (locale_t) 0)
	{
		/* on failure newlocale leaves its base locale to the caller */
		locale_t	both = newlocale(LC_CTYPE_MASK, ctype, lt);

		if (both == (locale_t) 0)
			freelocale(lt);
		lt = both;
	}
	/*
	 * A locale the system lacks: no encoding, so the stock plan, which
	 * raises PostgreSQL's own error if it ever sorts with it.
	 */
	if (lt == (locale_t) 0)
		return NULL;

	c = MemoryContextAllocZero(TopMemoryContext, sizeof(GsLibcColl));
	c->collid = collid;
	c->lt = lt;
	c->byte_order = probe_byte_order(lt);
	strlcpy(c->name, collate, sizeof(c->name));
	pfree(collate);
	pfree(ctype);
	/* a backend meets few collations; past the cache, look them up again */
	if (ncolls < GS_MAX_LIBC_COLLS)
		colls[ncolls++] = c;
	return c;
}

/* bytes before the end of the transform's first level (its first 0x01) */
static size_t
first_level_bytes(const char *xfrm, size_t n)
{
	const char *sep = memchr(xfrm, 0x01, n);

	return sep ? (size_t) (sep - xfrm) : n;
}

/* the first bytes of data to transform: at most limit, whole characters */
static size_t
clip_input(const char *data, size_t len, size_t limit)
{
	size_t		n;

	if (len <= limit)
		return len;
	/* only where a character boundary can be found without the backend */
	if (pg_database_encoding_max_length() == 1)
		return limit;
	if (GetDatabaseEncoding() != PG_UTF8)
		return len;
	n = limit;
	while (n > 0 && ((unsigned char) data[n] & 0xC0) == 0x80)
		n--;
	return n > 0 ? n : len;
}

static void
put_prefix(uint8 *dst, int width, const char *xfrm, size_t n)
{
	size_t		k = Min(n, (size_t) width);

	memcpy(dst, xfrm, k);
	memset(dst + k, 0, width - k);
}

/*
 * The prefix from the transform of data's first limit bytes (whole
 * characters) into the caller's buffers: false where that is not the
 * whole string's, as far as the prefix goes, or does not fit out.
 */
static bool
xfrm_clipped(const GsLibcColl *c, const char *data, size_t len, size_t limit,
			 uint8 *dst, int width, char *in, char *out, size_t outsize)
{
	size_t		inlen = clip_input(data, len, limit);
	size_t		n;

	if (inlen > limit)
		return false;
	memcpy(in, data, inlen);
	in[inlen] = '\0';
	n = strxfrm_l(out, in, outsize, c->lt);
	if (n >= outsize ||
		(inlen < len && first_level_bytes(out, n) < (size_t) width))
		return false;
	put_prefix(dst, width, out, n);
	return true;
}

bool
gs_libc_xfrm_prefix(const GsLibcColl *c, const char *data, size_t len,
					uint8 *dst, int width, bool nothrow)
{
	char		in[GS_XFRM_INPUT_MORE + 1];
	char		out[GS_XFRM_RANGE_BYTES];
	size_t		n;
	char	   *whole;
	char	   *xfrm;

	/*
	 * The first bytes, then more where their first level is too short (a
	 * string of mostly punctuation, which glibc's first level ignores: a
	 * prefix of a hundred dashes), before the whole string, which may be
	 * kilobytes long
	 */
	if (xfrm_clipped(c, data, len, GS_XFRM_INPUT_BYTES, dst, width, in, out,
					 GS_XFRM_OUT_BYTES) ||
		(len > GS_XFRM_INPUT_BYTES &&
		 xfrm_clipped(c, data, len, GS_XFRM_INPUT_MORE, dst, width, in, out,
					  sizeof(out))))
		return true;

	/* the transform of the whole string, in memory of its size */
	if (nothrow)
		return false;
	whole = palloc(len + 1);
	memcpy(whole, data, len);
	whole[len] = '\0';
	/* room for most transforms at once, rather than asking its size first */
	n = GS_XFRM_GUESS(len);
	xfrm = palloc(n);
	if ((n = strxfrm_l(xfrm, whole, n, c->lt)) >= GS_XFRM_GUESS(len))
	{
		pfree(xfrm);
		xfrm = palloc(n + 1);
		(void) strxfrm_l(xfrm, whole, n + 1, c->lt);
	}
	put_prefix(dst, width, xfrm, n);
	pfree(xfrm);
	pfree(whole);
	return true;
}

bool
gs_libc_xfrm_range(const GsLibcColl *c, const char *data, size_t len,
				   size_t off, uint8 *dst, int width, uint8 *tail,
				   size_t room, size_t *taillen, bool nothrow)
{
	char		in[GS_CMP_STACK_BYTES];
	char		out[GS_XFRM_RANGE_BYTES];
	char	   *ip = in;
	char	   *xp = out;
	size_t		n;

	if (len >= sizeof(in))
	{
		if (nothrow)
			return false;
		ip = palloc(len + 1);
	}
	memcpy(ip, data, len);
	ip[len] = '\0';
	n = strxfrm_l(out, ip, sizeof(out), c->lt);
	if (n >= sizeof(out))
	{
		if (nothrow)
			return false;
		xp = palloc(n + 1);
		(void) strxfrm_l(xp, ip, n + 1, c->lt);
	}
	if (off < n)
		put_prefix(dst, width, xp + off, n - off);
	else
		memset(dst, 0, width);
	if (tail)
	{
		/* the bytes after dst's, where they fit: the later rounds' */
		size_t		from = Min(n, off + width);

		*taillen = SIZE_MAX;
		if (n - from <= room)
		{
			memcpy(tail, xp + from, n - from);
			*taillen = n - from;
		}
	}
	if (xp != out)
		pfree(xp);
	if (ip != in)
		pfree(ip);
	return true;
}

int
gs_libc_compare_in(const GsLibcColl *c, const char *a, size_t alen,
				   const char *b, size_t blen, char *abuf, char *bbuf)
{
	int			r;

	/* equal bytes are equal under any collation, as varstr_cmp knows */
	if (alen == blen && memcmp(a, b, alen) == 0)
		return 0;
	memcpy(abuf, a, alen);
	abuf[alen] = '\0';
	memcpy(bbuf, b, blen);
	bbuf[blen] = '\0';
	r = strcoll_l(abuf, bbuf, c->lt);
	/* a libc collation is deterministic: strcoll's ties go to strcmp */
	if (r == 0)
		r = strcmp(abuf, bbuf);
	return (r > 0) - (r < 0);
}

bool
gs_libc_compare(const GsLibcColl *c, const char *a, size_t alen,
				const char *b, size_t blen, int *result, bool nothrow)
{
	char		abuf[GS_CMP_STACK_BYTES];
	char		bbuf[GS_CMP_STACK_BYTES];
	char	   *ap = abuf;
	char	   *bp = bbuf;

	if (alen >= sizeof(abuf) || blen >= sizeof(bbuf))
	{
		if (alen == blen && memcmp(a, b, alen) == 0)
		{
			*result = 0;
			return true;
		}
		if (nothrow)
			return false;
		if (alen >= sizeof(abuf))
			ap = palloc(alen + 1);
		if (blen >= sizeof(bbuf))
			bp = palloc(blen + 1);
	}
	*result = gs_libc_compare_in(c, a, alen, b, blen, ap, bp);
	if (ap != abuf)
		pfree(ap);
	if (bp != bbuf)
		pfree(bp);
	return true;
}
