/*-------------------------------------------------------------------------
 *
 * winrange.h
 *	  RANGE frames with offsets whose bounds GpuWindow's threads find by
 *	  arithmetic on the order column's keys (src/sort/window/winrange.c).
 *
 *-------------------------------------------------------------------------
 */
#ifndef GPUSORT_WINRANGE_H
#define GPUSORT_WINRANGE_H

#include "access/tupdesc.h"
#include "nodes/plannodes.h"

#include "windowfuncs.h"

/* what the keys are, as int64s */
typedef enum GsWinKeyKind
{
	GSW_KEY_INT,				/* int2, int4, int8 and an integer offset */
	GSW_KEY_TIMESTAMP,			/* timestamp, timestamptz (microseconds) */
	GSW_KEY_DATE				/* date, as timestamp (date2timestamp) */
} GsWinKeyKind;

/* one bound's offset: in_range(val, base, offset, sub, less) */
typedef struct GsWinKeySide
{
	bool		active;			/* the bound is a RANGE offset */
	bool		sub;
	bool		less;
	int64		off;			/* an integer offset; an interval's time */
	int64		days;			/* an interval's days */
} GsWinKeySide;

typedef struct GsWinRangeKeys
{
	GsWinKeyKind kind;
	Oid			keytype;
	AttrNumber	keyatt;
	bool		nulls_first;
	GsWinKeySide start;
	GsWinKeySide end;

	/* while computing: the keys of rows [0, n), read on threads */
	int64	   *keys;
	bool	   *keynull;
	bool		bad;			/* a key the arithmetic does not cover */
} GsWinRangeKeys;

/*
 * The keys' arithmetic for wa's RANGE offsets, when its order column and
 * offsets are ones it covers (in the backend, at the node's start); NULL
 * otherwise, and the node finds the bounds with the in_range functions
 */
extern GsWinRangeKeys *gs_win_range_keys_init(WindowAgg *wa, TupleDesc indesc,
											  const GsWinFrame *frame);

/* Stores row i's key (on a thread) */
extern void gs_win_range_key_read(GsWinRangeKeys *rk, uint64 i, Datum d,
								  bool isnull);

/*
 * Fills frame->range_start and range_end for the RANGE offset bounds of
 * rows [0, n), on threads; false, the arrays unfinished, when a key or a
 * bound lies where the in_range functions would have to decide (an
 * infinity, a bound past timestamp's range, which raises there): the node
 * then runs those (gs_win_range_bounds)
 */
extern bool gs_win_range_keys_bounds(GsWinFrame *frame, GsWinRangeKeys *rk,
									 uint64 n, const uint8 *flags, int nthreads);

#endif							/* GPUSORT_WINRANGE_H */
