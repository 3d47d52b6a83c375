/*-------------------------------------------------------------------------
 *
 * libcoll.h
 *	  GpuSort's use of libc collations (en_US.UTF-8, de_DE, C.UTF-8, ...):
 *	  their locale_t, strxfrm prefixes and strcoll comparisons.
 *
 * Everything here may run on helper threads once gs_libc_collation has
 * returned: the functions taking nothrow = true call nothing of
 * PostgreSQL's and give up (false) where they would need to allocate.
 * See libcoll.c for why the prefixes are hints that the node verifies.
 *
 *-------------------------------------------------------------------------
 */
#ifndef GPUSORT_LIBCOLL_H
#define GPUSORT_LIBCOLL_H

#include <locale.h>

typedef struct GsLibcColl
{
	Oid			collid;
	locale_t	lt;				/* LC_COLLATE of the collation */
	bool		byte_order;		/* strcoll orders as strcmp (C.UTF-8) */
	char		name[64];		/* its LC_COLLATE, for messages */
} GsLibcColl;

/*
 * The libc collation collid stands for (the database's default collation
 * included), looked up once per backend; NULL when collid is not a libc
 * collation or its locale cannot be loaded.
 */
extern const GsLibcColl *gs_libc_collation(Oid collid);

/*
 * Writes the first width bytes of strxfrm of data[0 .. len), zero padded,
 * to dst.  The transform of a long string is taken from its first bytes
 * only (see libcoll.c).  false when nothrow and the transform would need
 * more memory than the stack buffers hold.
 */
extern bool gs_libc_xfrm_prefix(const GsLibcColl *c, const char *data,
								size_t len, uint8 *dst, int width,
								bool nothrow);

/*
 * Writes bytes off .. off + width - 1 of the whole strxfrm of
 * data[0 .. len), zero padded past its end (a transform holds no zero
 * byte), to dst: the next bytes of the transform that a prefix began, for
 * rows whose prefixes tie (sortrefine.c).  false when nothrow and the
 * string or its transform is too long for the stack buffers.  With tail,
 * also copies the transform's bytes after those (from off + width to its
 * end) to tail and sets *taillen to their number where it is at most room,
 * or to SIZE_MAX where they do not fit: a caller keeps them rather than
 * transforming the string again for each further range.
 */
extern bool gs_libc_xfrm_range(const GsLibcColl *c, const char *data,
							   size_t len, size_t off, uint8 *dst, int width,
							   uint8 *tail, size_t room, size_t *taillen,
							   bool nothrow);

/*
 * *result = the sign of comparing a and b as PostgreSQL's varstr_cmp does
 * under this collation (strcoll, then strcmp for strings strcoll calls
 * equal).  false when nothrow and a string is too long for the stack.
 */
extern bool gs_libc_compare(const GsLibcColl *c, const char *a, size_t alen,
							const char *b, size_t blen, int *result,
							bool nothrow);

/*
 * The same into the caller's buffers, which hold alen + 1 and blen + 1
 * bytes: on any thread, whatever the strings' length.
 */
extern int	gs_libc_compare_in(const GsLibcColl *c, const char *a,
							   size_t alen, const char *b, size_t blen,
							   char *abuf, char *bbuf);

#endif							/* GPUSORT_LIBCOLL_H */
