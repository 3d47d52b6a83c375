/*-------------------------------------------------------------------------
 *
 * sortkey.h
 *	  Order-preserving fixed-width keys for GpuSort.
 *
 * A GsKeySpec turns the sort columns of one row (taken from a slot) into a
 * key of 1, 2 or 4 64-bit words that compare as unsigned integers, word 0
 * most significant, in the order the sort operators define.  See
 * keyencode.c for the encodings, sortkey.c for the layout.
 *
 * Use:
 *	   spec = gs_keys_create(...);			once per node; may refuse (reason)
 *	   gs_keys_reset(spec);					before each sort
 *	   gs_keys_observe(spec, slot, raw);	for every row as it comes: ranges,
 *											lengths, and (raw not NULL) the
 *											row's raw key, gs_keys_raw_bytes
 *	   gs_keys_set_ranks(spec, c, ...);		optionally: column c by rank
 *	   gs_keys_choose_layout(spec, ...);	choose widths from what was seen
 *											and from a sample of the rows
 *	   gs_keys_capture(spec, slot, raw);	the raw key, if not kept above
 *	   gs_keys_encode(spec, raw, row, w);	for every row, from its raw key
 *
 * Keeping the raw keys of all rows from gs_keys_observe on spares reading
 * the stored rows again; gs_keys_raw_is_small says whether that pays.
 *
 * A key need not decide the order by itself: when spec->first_inexact <
 * spec->ncols, rows whose keys are equal must still be compared with the
 * columns' comparators from column first_inexact on.  Rows with different
 * keys are always in the right order.
 *
 *-------------------------------------------------------------------------
 */
#ifndef GPUSORT_SORTKEY_H
#define GPUSORT_SORTKEY_H

#include "executor/tuptable.h"

#include "keywidth.h"

typedef struct GsKeySpec GsKeySpec;

/*
 * Builds the encoders for the sort columns.  Returns NULL if not even the
 * first column can be encoded, with the reason in *reason (palloc'd).  When
 * a later column cannot be encoded, the key covers the columns before it
 * and the comparators settle the rest.
 */
extern GsKeySpec *gs_keys_create(int ncols, const AttrNumber *attnos,
								 const Oid *sortops, const Oid *collations,
								 const bool *nulls_first, char **reason);
extern void gs_keys_reset(GsKeySpec *spec);

/* Has a sort column on this operator and collation an encoding? */
extern bool gs_keys_encodable(Oid sortop, Oid collation);

/*
 * Is that encoding a collation's transform (strxfrm, an ICU sort key), far
 * dearer per row than one comparison?
 */
extern bool gs_keys_transformed(Oid sortop, Oid collation);

/*
 * What gs_keys_observe has seen, per column: a parallel sort's participants
 * each observe their own rows, and the leader merges their statistics into
 * its spec before gs_keys_layout, as if it had seen every row itself.
 */
typedef struct GsKeyColStats
{
	bool		seen_null;
	bool		seen_value;
	int64		min;
	int64		max;
	uint32		maxlen;
} GsKeyColStats;

extern int	gs_keys_ncols_observed(const GsKeySpec *spec);
extern void gs_keys_stats_reset(GsKeyColStats *stats, int n);
extern void gs_keys_get_stats(const GsKeySpec *spec, GsKeyColStats *stats);
extern void gs_keys_merge_stats(GsKeySpec *spec, const GsKeyColStats *stats);
/* statistics covering any value and NULL: a layout independent of the rows */
extern void gs_keys_stats_any(const GsKeySpec *spec, GsKeyColStats *stats);
extern int	gs_keys_raw_bytes(const GsKeySpec *spec);
extern bool gs_keys_raw_is_small(const GsKeySpec *spec);
extern void gs_keys_observe(GsKeySpec *spec, TupleTableSlot *slot, uint8 *raw);
extern void gs_keys_capture(const GsKeySpec *spec, TupleTableSlot *slot,
							uint8 *raw);
/* after gs_keys_layout: the key's columns only, all gs_keys_encode reads */
extern void gs_keys_capture_key(const GsKeySpec *spec, TupleTableSlot *slot,
								uint8 *raw);
extern bool gs_keys_capture_key_nothrow(const GsKeySpec *spec,
										TupleTableSlot *slot, uint8 *raw);
extern void gs_keys_layout(GsKeySpec *spec, int max_bytes);

/*
 * The raw key of row row (< n) of a sort: a pointer into the caller's array
 * of raw keys, or buf (gs_keys_raw_bytes) filled from the stored row.
 */
typedef const uint8 *(*GsRawKeyFn) (void *arg, uint64 row, uint8 *buf);

/*
 * Lays out the key of a sort of n rows (gs_keys_layout): at its full width,
 * or narrower and inexact where a sample of the rows, read with raw_key,
 * says that a shorter key separates them about as well.
 */
extern void gs_keys_choose_layout(GsKeySpec *spec, uint64 n,
								  GsRawKeyFn raw_key, void *arg);
extern void gs_keys_encode(const GsKeySpec *spec, const uint8 *raw,
						   uint64 row, uint64 *words);

/*
 * Dictionary ranks (sortdict.c): column c (< gs_keys_nraw) of row r is
 * keyed by ranks[r], its value's place among the nranks distinct values
 * of the sort in the column's sort order, which makes the column exact and
 * leaves room for the next ones.  The array stays the caller's; NULL with
 * nranks 0 returns the column to its own encoding, and NULL with the count
 * keeps the count for EXPLAIN once the keys are built.  gs_keys_rank_pays says whether
 * what gs_keys_observe saw makes a rank worth trying.  Set before
 * gs_keys_choose_layout; gs_keys_encode's row indexes ranks.
 */
#define GS_KEYS_MAX_RANKS	16384
extern int	gs_keys_nraw(const GsKeySpec *spec);
extern AttrNumber gs_keys_attno(const GsKeySpec *spec, int c);
extern bool gs_keys_rank_pays(const GsKeySpec *spec, int c);
extern void gs_keys_set_ranks(GsKeySpec *spec, int c, uint32 *ranks,
							  uint32 nranks);
extern uint32 *gs_keys_get_ranks(const GsKeySpec *spec, int c, uint32 *nranks);

/* after gs_keys_layout */
extern int	gs_keys_nwords(const GsKeySpec *spec);
extern int	gs_keys_first_inexact(const GsKeySpec *spec);
/*
 * Checking a libc collation's strxfrm prefix (libcoll.c, sortverify.c).
 * gs_keys_verified_column gives the sort column whose key bytes are such a
 * prefix (the key's last column: the prefix is inexact), or -1 if none;
 * gs_keys_differ_in says whether two keys first differ in that column's
 * value bytes, where the order rests on the prefix alone; and
 * gs_keys_compare_column_nothrow compares that column of two rows with
 * strcoll as the sort orders it (DESC inverted), on any thread: false where
 * it cannot (a NULL, a value to detoast, a long string), and the caller's
 * thread then compares with PostgreSQL's comparator.  The same in two
 * steps, for a caller that compares each row many times:
 * gs_keys_column_value_nothrow gives the column's value where it can be
 * compared on a thread (not NULL, not to detoast: it points into the row,
 * and stays valid while the row is stored), and
 * gs_keys_compare_values_nothrow compares two such values, and
 * gs_keys_values_same_nothrow says whether they are the same bytes (equal
 * under any collation; false where it cannot tell), without strcoll.
 */
extern int	gs_keys_verified_column(const GsKeySpec *spec);
extern bool gs_keys_differ_in(const GsKeySpec *spec, int c, const uint64 *a,
							  const uint64 *b);
extern bool gs_keys_compare_column_nothrow(const GsKeySpec *spec, int c,
										   TupleTableSlot *a,
										   TupleTableSlot *b, int *result);
extern bool gs_keys_column_value_nothrow(const GsKeySpec *spec, int c,
										 TupleTableSlot *slot, Datum *value);
extern bool gs_keys_compare_values_nothrow(const GsKeySpec *spec, int c,
										   Datum a, Datum b, int *result);
extern bool gs_keys_values_same_nothrow(const GsKeySpec *spec, int c,
										Datum a, Datum b);

/*
 * Sorting a collated string column's values on threads (sortcoll.c):
 * gs_keys_collates_on_threads says whether sort column c is a string under
 * a libc collation, or an ICU one in a UTF-8 database, and
 * gs_keys_collation_deterministic whether values it calls equal are the
 * same bytes; gs_keys_string_value gives a value's bytes as the collation
 * compares them (character(n) without its trailing blanks), detoasting
 * into CurrentMemoryContext where it must (so on the backend's thread
 * only; it returns the bytes that took); gs_keys_collate_in compares two
 * such byte strings as the sort orders them (varstr_cmp's strcoll_l or
 * ucol_strcollUTF8, then strcmp; DESC inverted), on any thread, copying
 * them into the caller's buffers of alen + 1 and blen + 1 bytes, and sets
 * *failed where ICU failed (the comparators then raise its error).
 */
extern bool gs_keys_collates_on_threads(const GsKeySpec *spec, int c);
extern bool gs_keys_collation_deterministic(const GsKeySpec *spec, int c);
extern Size gs_keys_string_value(const GsKeySpec *spec, int c, Datum d,
								 const char **data, Size *len);
extern int	gs_keys_collate_in(const GsKeySpec *spec, int c, const char *a,
							   Size alen, const char *b, Size blen,
							   char *abuf, char *bbuf, bool *failed);

/*
 * Refining ties (sortrefine.c): gs_keys_refinable says whether column c
 * (the key's first inexact one) holds a prefix, gs_keys_prefix_width bytes
 * wide, of a transform (strxfrm, an ICU sort key, a string's bytes) whose
 * further bytes gs_keys_transform_range gives, zero padded past its end
 * (or, with raw, those of the value itself: the tie-break of equal
 * transforms); it may run on helper threads under nothrow.  Not
 * DESC-inverted.
 */
extern bool gs_keys_refinable(const GsKeySpec *spec, int c);
extern int	gs_keys_prefix_width(const GsKeySpec *spec, int c);
extern bool gs_keys_desc(const GsKeySpec *spec, int c);
extern bool gs_keys_transform_range(const GsKeySpec *spec, int c, Datum d,
									bool raw, size_t off, uint8 *dst,
									int width, bool nothrow);
extern bool gs_keys_transform_keeps(const GsKeySpec *spec, int c);
extern bool gs_keys_transform_keep(const GsKeySpec *spec, int c, Datum d,
								   bool raw, size_t off, uint8 *dst, int width,
								   uint8 *tail, size_t room, size_t *taillen,
								   size_t *rawlen, bool nothrow);
extern bool gs_keys_ties_by_bytes(const GsKeySpec *spec, int c);
extern bool gs_keys_same_bytes(const GsKeySpec *spec, int c, Datum a, Datum b,
							   bool *same);

/*
 * What making more of column c's transform costs, for the refinement's cost
 * bound: the value's own bytes (C), a libc strxfrm (made whole each time),
 * or an ICU sort key (made up to the bytes asked for).  gs_keys_value_bytes
 * is a value's length in bytes, without detoasting.
 */
typedef enum GsTransformKind
{
	GS_TRANSFORM_BYTES,
	GS_TRANSFORM_LIBC,
	GS_TRANSFORM_ICU
} GsTransformKind;

extern GsTransformKind gs_keys_transform_kind(const GsKeySpec *spec, int c);
extern Size gs_keys_value_bytes(const GsKeySpec *spec, int c, Datum d);

/*
 * Column c's value d as the bytes its comparator reads (bpchar without its
 * padding), without allocating: false where it is stored compressed or out
 * of line.  gs_keys_bytes_decide: whether values of different bytes always
 * compare unequal (every collation but a nondeterministic ICU one).
 */
extern bool gs_keys_value_peek(const GsKeySpec *spec, int c, Datum d,
							   const char **data, Size *len);
extern bool gs_keys_bytes_decide(const GsKeySpec *spec, int c);

/*
 * Later columns (sortlater.c): rows whose value of an earlier column is
 * one, keyed by their next columns.  gs_keys_later_width is the bytes of
 * column c's value in such a key (the null byte not counted), 0 where c
 * has no fixed-width encoding for it; gs_keys_later_encode writes the null
 * byte and those bytes, DESC inverted, *exact telling whether equal bytes
 * mean equal values.  Under nothrow it may run on helper threads, and is
 * false where only the backend's thread may go on (a value to detoast).
 */
extern int	gs_keys_later_width(const GsKeySpec *spec, int c);
extern bool gs_keys_later_encode(const GsKeySpec *spec, int c, Datum d,
								 bool isnull, uint8 *dst, bool *exact,
								 bool nothrow);

/* "16 bytes: a exact, b prefix 7 bytes" style description, palloc'd */
extern char *gs_keys_describe(const GsKeySpec *spec, const char *const *colnames);
extern GsKeySpec *gs_keys_snapshot(const GsKeySpec *spec);

#endif							/* GPUSORT_SORTKEY_H */
