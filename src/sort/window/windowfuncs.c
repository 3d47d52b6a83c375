/*-------------------------------------------------------------------------
 *
 * windowfuncs.c
 *	  Window functions over sorted rows, as arrays: what GpuWindow computes
 *	  instead of WindowAgg (windownode.c).  This file holds the second of
 *	  its passes, the functions' values.
 *
 * WindowAgg walks the sorted rows one at a time through a tuplestore,
 * calling each window function and each aggregate's transition function
 * for every row.  Here the same values come from three passes over arrays:
 *
 *	 1. boundaries (winboundary.c; threads, slices of rows): where each
 *		partition and each peer group starts (flags[i]), and the
 *		aggregates' arguments read into arrays;
 *	 2. functions (here; threads, runs of whole partitions): ranks from the
 *		peer boundaries, lag/lead and the value functions as row numbers,
 *		aggregates as running states over the frame;
 *	 3. results (winresult.c; the backend, row by row as the node returns
 *		them): row i's value as the Datum WindowAgg returns.
 *
 * What the plan asks for is read by winplan.c, before the passes; the
 * bounds of RANGE and GROUPS frames with offsets are found between passes
 * 1 and 2 (winrange.c on threads, winframe.c in the backend).
 *
 * numeric arguments are read as fixed point, an int128 and the value's
 * display scale (winnumeric.c).  sum and avg add them exactly at the
 * largest scale taken so far, which is the display scale numeric.c's
 * accumulator gives the sum; NaN and the infinities are counted apart, as
 * numeric.c counts them; avg divides with numeric_div in pass 3, as
 * numeric_avg does.  min and max keep the row whose value numeric_smaller
 * or numeric_larger keeps.  A value or a sum past 128 bits (GSW_NUM_WIDE,
 * too_wide) sends the whole window to WindowAgg.
 *
 * Frames: ROWS offsets, the partition's ends, the current row's peers,
 * and RANGE and GROUPS offsets, whose bounds are arrays found before this
 * pass; each row's frame is walked to by a frame cursor (FrameCursor).
 * EXCLUDE takes the excluded rows out of exact states (put_excluding);
 * min, max and float aggregates, whose states cannot take rows out, compute
 * each row's frame less the excluded rows as WindowAgg does, keeping the
 * part before the excluded rows while the frame's start stays put
 * (aggregate_excluding); the value functions move their row past the
 * excluded ones as WindowAgg does (value_row_excluding).  Frames whose
 * start moves slide: counts, integer and numeric sums in and out exactly,
 * min and max through a monotone queue (minmax_sliding); float sums and
 * statistics restart as WindowAgg does, on ROWS frames under
 * GSW_MAX_RESTART_ROWS.
 *
 * avg, variance and stddev of float4 and float8 run float8_accum's
 * Youngs-Cramer steps (youngs_cramer) in WindowAgg's order, its overflow
 * check included, and float8_avg's, float8_var_pop's and the others'
 * final division; the Makefile compiles this file (and the other parts of
 * GpuWindow's passes) without fused multiply-adds, so the bits are
 * float.c's.
 *
 * Invariants that make the values WindowAgg's, value for value:
 *	 - an aggregate's state takes rows in row order, as WindowAgg's does:
 *	   frames that start at the partition's first row share one running
 *	   state; frames that start at an offset from the row slide it (counts
 *	   and integer sums, exact both ways) or compute it again from the
 *	   frame's first row (float sums, min and max: WindowAgg's restart of
 *	   an aggregate with no inverse), so floats are added in the order
 *	   WindowAgg adds them;
 *	 - a transition with a strict function and no initial value starts from
 *	   the first non-NULL input, as nodeWindowAgg.c's advance does; the
 *	   transition steps are float.c's, int8.c's and numeric.c's (the float
 *	   comparisons with NaN greatest, overflow checks and all);
 *	 - an error WindowAgg would raise while evaluating a row is raised when
 *	   that row is returned (GSW_ERROR), not before: a LIMIT that stops
 *	   earlier, or a run condition that skips the row, sees no error, as
 *	   with WindowAgg.
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include <math.h>

#include "access/htup_details.h"
#include "access/transam.h"
#include "catalog/pg_collation.h"
#include "catalog/pg_language.h"
#include "catalog/pg_proc.h"
#include "catalog/pg_type.h"
#include "executor/executor.h"
#include "miscadmin.h"
#include "nodes/nodeFuncs.h"
#include "optimizer/clauses.h"
#include "optimizer/optimizer.h"
#include "lib/stringinfo.h"
#include "utils/builtins.h"
#include "utils/date.h"
#include "utils/fmgroids.h"
#include "utils/lsyscache.h"
#include "utils/memutils.h"
#include "utils/syscache.h"
#include "utils/numeric.h"
#include "utils/timestamp.h"

#include "intake/rowstore.h"
#include "threads/thread_slots.h"
#include "threads/threads_backend.h"
#include "windowfuncs.h"
#include "winagg.h"
#include "winexpr.h"
#include "winnumeric.h"
#include "winpass.h"

void
gs_win_overflow_error(void)
{
	ereport(ERROR,
			(errcode(ERRCODE_NUMERIC_VALUE_OUT_OF_RANGE),
			 errmsg("value out of range: overflow")));
}

/* ---- 2. functions ------------------------------------------------------------------ */

/* the end of the peer group that starts at row s */
static inline uint64
peers_end(const uint8 *flags, uint64 s, uint64 pe)
{
	uint64		e = s + 1;

	while (e < pe && !(flags[e] & GSW_NEW_PEERS))
		e++;
	return e;
}

/* r + off, clamped to [lo - 1, hi]; rows number fewer than 2^32 */
static inline int64
offset_row(uint64 r, int64 off, uint64 lo, uint64 hi)
{
	int64		t;

	if (off > (int64) hi)
		return (int64) hi;
	if (off < -(int64) hi - 1)
		return (int64) lo - 1;
	t = (int64) r + off;
	return t < (int64) lo - 1 ? (int64) lo - 1 : t > (int64) hi ? (int64) hi : t;
}

/* row r's frame [*fs, *fe) in the partition [ps, pe), r's peers [gs, ge) */
static inline void
frame_rows(const GsWinFrame *frame, uint64 r, uint64 ps, uint64 pe, uint64 ge,
		   uint64 *fs, uint64 *fe)
{
	if (frame->start == GSW_BOUND_PARTITION)
		*fs = ps;
	else if (GSW_BOUND_IS_ARRAY(frame->start))
		*fs = frame->range_start[r];
	else
		*fs = (uint64) Max(offset_row(r, frame->start_offset, ps, pe), (int64) ps);
	if (frame->end == GSW_BOUND_PARTITION)
		*fe = pe;
	else if (frame->end == GSW_BOUND_PEERS)
		*fe = ge;
	else if (GSW_BOUND_IS_ARRAY(frame->end))
		*fe = frame->range_end[r];
	else
	{
		int64		t = offset_row(r, frame->end_offset, ps, pe);

		*fe = t < (int64) ps ? ps : t >= (int64) pe ? pe : (uint64) t + 1;
	}
	if (*fe < *fs)
		*fe = *fs;				/* an empty frame */
}

/*
 * The pass's answer for a partition met a numeric the threads cannot add
 * or compare exactly: the whole window goes to WindowAgg (too_wide)
 */
static inline uint64
gave_up_too_wide(GsWinFunc *f)
{
	__atomic_store_n(&f->too_wide, true, __ATOMIC_RELAXED);
	return PG_UINT64_MAX;
}

/*
 * A walk over a partition's rows in order, as every function over frames
 * makes it: row r's peers [gs, ge) and its frame [fs, fe).  A step a row,
 * so its functions are always inlined (the struct then lives in registers).
 * frame_cursor_to takes a row's two steps, its peers and its frame;
 * position_partition, which works a peer group at a time, takes them apart.
 */
typedef struct FrameCursor
{
	const GsWinFrame *frame;
	const uint8 *flags;
	uint64		ps,				/* the partition */
				pe;
	uint64		gs,				/* the current row's peers */
				ge;
	uint64		fs,				/* its frame */
				fe;
} FrameCursor;

/* before the partition's first row */
static pg_attribute_always_inline void
frame_cursor_init(FrameCursor *c, const GsWinFrame *frame, const uint8 *flags,
				  uint64 ps, uint64 pe)
{
	c->frame = frame;
	c->flags = flags;
	c->ps = ps;
	c->pe = pe;
	c->gs = c->ge = ps;
	c->fs = c->fe = ps;
}

/* to the peer group that starts at row r */
static pg_attribute_always_inline void
frame_cursor_peers(FrameCursor *c, uint64 r)
{
	c->gs = r;
	c->ge = peers_end(c->flags, r, c->pe);
}

/* row r's frame, r one of the current peers */
static pg_attribute_always_inline void
frame_cursor_frame(FrameCursor *c, uint64 r)
{
	frame_rows(c->frame, r, c->ps, c->pe, c->ge, &c->fs, &c->fe);
}

/* to row r, the row after the one before (or the partition's first) */
static pg_attribute_always_inline void
frame_cursor_to(FrameCursor *c, uint64 r)
{
	if (r == c->ge)
		frame_cursor_peers(c, r);
	frame_cursor_frame(c, r);
}

/* whether the pass was stopped: looked at once every GS_INTERRUPT_EVERY rows */
static pg_attribute_always_inline bool
frame_cursor_stopped(const FrameCursor *c, uint64 r)
{
	return ((r - c->ps) & (GS_INTERRUPT_EVERY - 1)) == GS_INTERRUPT_EVERY - 1 &&
		gs_slice_stopped();
}

#ifdef HAVE_INT128
/*
 * Takes row r's numeric out of a sum: exact, as numeric.c's inverse
 * transition (do_numeric_discard) is.  Its display scale leaves the frame's
 * count of that scale; numeric.c, which cannot tell the largest scale left,
 * then computes the frame again (WindowAgg's restart), whose sum has the
 * largest scale of the frame's values: what agg_put gives.  False when the
 * value no longer fits wide's scale.
 */
static inline bool
numeric_drop(GsWinFunc *f, WinAggState *s, uint64 r)
{
	int16		sc = f->argscale[r];
	int128		v = f->argw[r];

	if (sc == GSW_NUM_NAN)
		s->nan--;
	else if (sc == GSW_NUM_PINF)
		s->pinf--;
	else if (sc == GSW_NUM_NINF)
		s->ninf--;
	else
	{
		if ((sc < s->nscale &&
			 __builtin_mul_overflow(v, pow10_128(s->nscale - sc), &v)) ||
			__builtin_sub_overflow(s->wide, v, &s->wide))
			return false;
		s->nscales[sc]--;
	}
	return true;
}
#endif

/*
 * takes row r out of an invertible state (see gs_win_restarts); false when
 * a numeric no longer fits (too_wide)
 */
static inline bool
agg_drop(GsWinFunc *f, WinAggState *s, uint64 r)
{
	if (f->skip && f->skip[r])
		return true;
	s->rows--;
	if (f->fn == GSW_COUNT_STAR || f->argnull[r])
		return true;
#ifdef HAVE_INT128
	if (f->arg == GSW_ARG_NUMERIC && f->fn != GSW_COUNT)
	{
		if (!numeric_drop(f, s, r))
			return false;
	}
	else if (GSW_INT_STATISTIC(f))
	{
		s->wide -= f->argi[r];
		s->wide2 -= (int128) f->argi[r] * f->argi[r];
	}
	else if (f->argtype == INT8OID && f->fn != GSW_COUNT)
		s->wide -= f->argi[r];
	else
#endif
	if (f->fn != GSW_COUNT)
		s->isum -= f->argi[r];
	s->count--;
	return true;
}

/*
 * Row r's value over its frame [fs, fe), whose rows the state holds, less
 * the rows the EXCLUDE clause leaves out (of r's peers [gs, ge)): they are
 * taken out of the state, the value put, and they are taken back.
 * WindowAgg computes an excluding frame's aggregate afresh for every row;
 * the states allowed here (gs_win_excludes) give the same value taken out
 * as computed without them, and their arguments raise no error, so that no
 * row is evaluated where WindowAgg would not evaluate it.  False when a
 * numeric no longer fits (too_wide).
 */
static bool
put_excluding(GsWinFunc *f, WinAggState *s, GsWinExclude exclude, uint64 r,
			  uint64 gs, uint64 ge, uint64 fs, uint64 fe)
{
	uint64		from[2],
				to[2],
				x;
	int			n = 0,
				k;

	if (exclude == GSW_EXCLUDE_CURRENT_ROW)
	{
		from[n] = r;
		to[n++] = r + 1;
	}
	else if (exclude == GSW_EXCLUDE_GROUP)
	{
		from[n] = gs;
		to[n++] = ge;
	}
	else
	{
		from[n] = gs;
		to[n++] = r;
		from[n] = r + 1;
		to[n++] = ge;
	}
	for (k = 0; k < n; k++)
	{
		from[k] = Max(from[k], fs);
		to[k] = Min(to[k], fe);
		for (x = from[k]; x < to[k]; x++)
			if (!agg_drop(f, s, x))
				return false;
	}
	agg_put(f, s, r);
	for (k = 0; k < n; k++)
		for (x = from[k]; x < to[k]; x++)
			if (!agg_take(f, s, x))
				return false;
	return true;
}

/*
 * An aggregate over one partition, each row's value being the state over
 * its frame.  Frames that start at the partition's first row only grow: one
 * running state takes rows as the frames' ends pass them.  Frames that
 * start at an offset from the row slide: counts, integer and numeric sums
 * take rows in at the end and out at the start, exactly; float sums
 * start again from the frame's first row whenever that row moves, as
 * WindowAgg restarts an aggregate that has no inverse (a frame whose start
 * stays put, such as one reaching back past the partition's start, keeps
 * its state).  The plan keeps such restarts to frames of fewer than
 * GSW_MAX_RESTART_ROWS rows.  Returns the row whose evaluation fails (an
 * argument's error or an overflow, at the row errrow says), or
 * PG_UINT64_MAX (also when the pass was stopped, see gs_slice_stopped, or
 * met a numeric too wide, see too_wide).
 */
static uint64
aggregate_partition(GsWinFunc *f, const uint8 *flags, uint64 ps, uint64 pe,
					const GsWinFrame *frame)
{
	WinAggState	s;
	bool		restart = gs_win_restarts(f, frame);
	FrameCursor c;
	uint64		lo = ps,
				hi = ps;
	uint64		r;
	int32		nscales[GSW_NUM_MAX_SCALE + 1];

	frame_cursor_init(&c, frame, flags, ps, pe);
	memset(&s, 0, sizeof(s));
	if (f->arg == GSW_ARG_NUMERIC &&
		(frame->start != GSW_BOUND_PARTITION || frame->exclude != GSW_EXCLUDE_NONE))
	{
		/* a numeric sum that slides: the frame's scales, see numeric_drop */
		memset(nscales, 0, sizeof(nscales));
		s.nscales = nscales;
	}
	for (r = ps; r < pe; r++)
	{
		if (frame_cursor_stopped(&c, r))
			return PG_UINT64_MAX;
		frame_cursor_to(&c, r);
		if (restart && c.fs != lo)
		{
			memset(&s, 0, sizeof(s));
			lo = hi = c.fs;
		}
		else if (!restart)
		{
			for (; lo < c.fs; lo++)
			{
				if (lo >= hi)
					hi = lo + 1;
				else if (!agg_drop(f, &s, lo))
					return gave_up_too_wide(f);
			}
		}
		for (; hi < c.fe; hi++)
		{
			if (agg_take(f, &s, hi))
				continue;
			if (s.wide_fail)
				return gave_up_too_wide(f);
			f->errrow[r] = (uint32) (hi + 1);
			return r;
		}
		if (frame->exclude == GSW_EXCLUDE_NONE)
			agg_put(f, &s, r);
		else if (!put_excluding(f, &s, frame->exclude, r, c.gs, c.ge, lo, hi))
			return gave_up_too_wide(f);
	}
	return PG_UINT64_MAX;
}

/*
 * aggregate_excluding's failure to take row x for row r: a numeric the
 * threads cannot compute with (too_wide), or row x's error, raised at r
 */
static uint64
excluding_failed(GsWinFunc *f, const WinAggState *s, uint64 r, uint64 x)
{
	if (s->wide_fail)
		return gave_up_too_wide(f);
	f->errrow[r] = (uint32) (x + 1);
	return r;
}

/*
 * An aggregate whose state cannot take rows out (min, max, float sums and
 * statistics: gs_win_excludes_afresh) over frames with an EXCLUDE clause.
 * WindowAgg computes such a frame's value afresh for every row, from the
 * frame's first row on, skipping the excluded ones; the same rows taken in
 * the same order give the same value, float bits and the newer of equal
 * minimums included, and fail at the same row.
 *
 * The excluded rows [xs, xe) (the current row, or its peers [gs, ge)) split
 * the frame [fs, fe) in two: the rows before them, [fs, cut), are a head
 * state kept from row to row while the frame's start stays put, since cut
 * then only moves forward (xs is the row or its first peer, and the frame's
 * end does not move back); each row's value is a copy of that state taking
 * the row itself (EXCLUDE TIES) and the frame's rows from xe on.  A frame
 * that starts at the partition's first row costs a row the frame's rows past
 * its peers; one whose start moves, all its rows, as in WindowAgg, where
 * the frame's head also moves with every row.  Returns as
 * aggregate_partition.
 */
static uint64
aggregate_excluding(GsWinFunc *f, const uint8 *flags, uint64 ps, uint64 pe,
					const GsWinFrame *frame)
{
	WinAggState head,
				s;
	FrameCursor c;
	uint64		lo = ps,
				hi = ps,
				work = 0,
				r;

	frame_cursor_init(&c, frame, flags, ps, pe);
	memset(&head, 0, sizeof(head));
	for (r = ps; r < pe; r++)
	{
		uint64		fs,
					fe,
					xs,
					xe,
					cut,
					x;

		/* the rows taken, not the rows put, bound the time between checks */
		if (work >= GS_INTERRUPT_EVERY)
		{
			if (gs_slice_stopped())
				return PG_UINT64_MAX;
			work = 0;
		}
		frame_cursor_to(&c, r);
		fs = c.fs;
		fe = c.fe;
		xs = frame->exclude == GSW_EXCLUDE_CURRENT_ROW ? r : c.gs;
		xe = frame->exclude == GSW_EXCLUDE_CURRENT_ROW ? r + 1 : c.ge;
		cut = Min(Max(xs, fs), fe);
		if (fs != lo || cut < hi)
		{
			memset(&head, 0, sizeof(head));
			lo = hi = fs;
		}
		work += cut - hi + 1;
		for (; hi < cut; hi++)
			if (!agg_take(f, &head, hi))
				return excluding_failed(f, &head, r, hi);
		s = head;
		if (frame->exclude == GSW_EXCLUDE_TIES && r >= fs && r < fe &&
			!agg_take(f, &s, r))
			return excluding_failed(f, &s, r, r);
		for (x = Max(xe, fs); x < fe; x++, work++)
			if (!agg_take(f, &s, x))
				return excluding_failed(f, &s, r, x);
		agg_put(f, &s, r);
	}
	return PG_UINT64_MAX;
}

/*
 * Whether, for min (max), row b's value takes the place of row a's (b
 * after a): int4smaller, float8smaller (NaN above everything) and
 * numeric_smaller keep the newer value on ties; -1 when two numerics do not
 * fit a common scale
 */
static inline int
minmax_replaces(const GsWinFunc *f, uint64 a, uint64 b)
{
	bool		min = f->fn == GSW_MIN;

	switch (f->arg)
	{
		case GSW_ARG_INT:
			return min ? f->argi[b] <= f->argi[a] : f->argi[b] >= f->argi[a];
		case GSW_ARG_FLOAT4:
		case GSW_ARG_FLOAT8:
			return min ? !float_lt(f->argf[a], f->argf[b]) :
				!float_gt(f->argf[a], f->argf[b]);
#ifdef HAVE_INT128
		case GSW_ARG_NUMERIC:
			{
				int			c = numeric_cmp_rows(f, a, b);

				return c == 2 ? -1 : min ? c >= 0 : c <= 0;
			}
#endif
		default:
			return 1;
	}
}

/* row r's min or max: the row at the queue's head, or NULL */
static inline void
minmax_put(GsWinFunc *f, uint64 r, bool empty, uint64 row)
{
	f->isnull[r] = empty;
	if (empty)
		return;
	if (f->arg == GSW_ARG_FLOAT4 || f->arg == GSW_ARG_FLOAT8)
		f->f8[r] = f->argf[row];
	else if (f->arg == GSW_ARG_INT)
		f->i64[r] = f->argi[row];
	else
		f->i64[r] = (int64) row;	/* numeric: the row kept */
}

/*
 * min or max over frames whose start moves with the row (and whose end
 * does, or is the partition's end): a monotone queue of rows, in row
 * order, each one's value replacing none of the ones before it that are
 * still queued, so that the head is the frame's min (max), the newest of
 * equal ones, which is the one WindowAgg's restarted min (max) keeps.  A
 * row enters once, when the frames' end passes it (evaluated then, as in
 * WindowAgg: an argument's error stops the pass at that row), and leaves
 * at the head once the frames' start passes it: O(1) a row, whatever the
 * frame's width.  The queue lives in deque[ps, pe): each row enters once.
 */
static uint64
minmax_sliding(GsWinFunc *f, const uint8 *flags, uint64 ps, uint64 pe,
			   const GsWinFrame *frame)
{
	uint32	   *dq = f->deque + ps;
	uint64		head = 0,
				tail = 0;
	FrameCursor cur;
	uint64		hi = ps,
				r;
	int			c;

	frame_cursor_init(&cur, frame, flags, ps, pe);
	for (r = ps; r < pe; r++)
	{
		uint64		fs,
					fe;

		if (frame_cursor_stopped(&cur, r))
			return PG_UINT64_MAX;
		frame_cursor_to(&cur, r);
		fs = cur.fs;
		fe = cur.fe;
		if (hi < fs)
			hi = fs;			/* rows no frame takes are not evaluated */
		for (; hi < fe; hi++)
		{
			if (f->skip && f->skip[hi])
				continue;
			if (f->argerr && f->argerr[hi])
			{
				f->errrow[r] = (uint32) (hi + 1);
				return r;
			}
			if (f->argnull[hi])
				continue;
			if (f->arg == GSW_ARG_NUMERIC &&
				(f->argscale[hi] == GSW_NUM_WIDE || f->argscale[hi] == GSW_NUM_UNREAD))
				break;
			c = 1;
			while (tail > head && (c = minmax_replaces(f, dq[tail - 1], hi)) > 0)
				tail--;
			if (c < 0)
				break;
			dq[tail++] = (uint32) hi;
		}
		/* hi stopped short: a numeric the threads cannot compare */
		if (hi < fe)
			return gave_up_too_wide(f);
		while (head < tail && dq[head] < fs)
			head++;
		minmax_put(f, r, head == tail, head < tail ? dq[head] : 0);
	}
	return PG_UINT64_MAX;
}

/* ntile over one partition of n rows, as utils/adt/windowfuncs.c's window_ntile */
static void
ntile_partition(GsWinFunc *f, uint64 ps, uint64 pe)
{
	int64		total = (int64) (pe - ps);
	int32		ntile = 1;
	int64		rows_per_bucket = 0;
	int64		boundary = total / f->param;
	int64		remainder = 0;
	uint64		r;

	if (boundary <= 0)
		boundary = 1;
	else
	{
		remainder = total % f->param;
		if (remainder != 0)
			boundary++;
	}
	for (r = ps; r < pe; r++)
	{
		rows_per_bucket++;
		if (boundary < rows_per_bucket)
		{
			if (remainder != 0 && ntile == remainder)
			{
				remainder = 0;
				boundary -= 1;
			}
			ntile += 1;
			rows_per_bucket = 1;
		}
		f->i64[r] = ntile;
	}
}

/* lag and lead: the row read, or -1 (NULL), or -2 (the default) */
static void
lag_lead_partition(GsWinFunc *f, uint64 ps, uint64 pe)
{
	/* WindowAgg negates the offset in int32, wrapping as PostgreSQL builds do */
	int32		relpos = f->fn == GSW_LEAD ? f->param :
		(int32) (0U - (uint32) f->param);
	uint64		r;

	for (r = ps; r < pe; r++)
	{
		int64		target = (int64) r + relpos;

		f->i64[r] = (target >= (int64) ps && target < (int64) pe) ? target :
			f->has_default ? -2 : -1;
	}
}

/*
 * The row first_value, last_value or nth_value reads for row r, the cursor
 * at r, under an EXCLUDE clause, or -1 (NULL), as
 * WindowAgg's WinGetFuncArgInFrame finds it: the row an offset from the
 * frame's head (tail) is moved past the excluded rows in one step, as if
 * they were all inside the frame, and is read only if it is in the frame
 * and not excluded (row_is_in_frame).  Where the frame cuts the excluded
 * rows that step can miss, and WindowAgg then returns NULL: so does this.
 */
static int64
value_row_excluding(const GsWinFunc *f, const FrameCursor *c, uint64 r)
{
	GsWinExclude exclude = c->frame->exclude;
	uint64		gs = c->gs,
				ge = c->ge,
				fs = c->fs,
				fe = c->fe;
	int64		pos,
				over;

	if (fs >= fe)
		return -1;
	if (f->fn != GSW_LAST_VALUE)
	{
		pos = (int64) fs + (f->fn == GSW_NTH_VALUE ? f->param - 1 : 0);
		over = (int64) Max(gs, fs);
		if (exclude == GSW_EXCLUDE_CURRENT_ROW)
			pos += (pos >= (int64) r && r >= fs);
		else if (pos >= (int64) gs && ge > fs)
		{
			if (exclude == GSW_EXCLUDE_GROUP)
				pos += (int64) ge - over;
			else if (pos == over)
				pos = (int64) r;
			else
				pos += (int64) ge - over - 1;
		}
	}
	else
	{
		pos = (int64) fe - 1;
		over = (int64) Min(ge, fe);
		if (exclude == GSW_EXCLUDE_CURRENT_ROW)
			pos -= (pos <= (int64) r && r < fe);
		else if (pos < (int64) ge && gs < fe)
		{
			if (exclude == GSW_EXCLUDE_GROUP)
				pos -= over - (int64) gs;
			else if (pos == over - 1)
				pos = (int64) r;
			else
				pos -= over - 1 - (int64) gs;
		}
	}
	if (pos < (int64) fs || pos >= (int64) fe)
		return -1;
	if (exclude == GSW_EXCLUDE_CURRENT_ROW ? pos == (int64) r :
		(pos >= (int64) gs && pos < (int64) ge &&
		 (exclude == GSW_EXCLUDE_GROUP || pos != (int64) r)))
		return -1;
	return pos;
}

/*
 * Row r's rank, dense rank, fraction or value row, the cursor at r, rank
 * and dense its peer group's
 */
static pg_attribute_always_inline void
position_put(GsWinFunc *f, const FrameCursor *c, uint64 r, uint64 rank,
			 uint64 dense)
{
	uint64		total = c->pe - c->ps;
	uint64		fs = c->fs,
				fe = c->fe;

	switch (f->fn)
	{
		case GSW_ROW_NUMBER:
			f->i64[r] = r - c->ps + 1;
			break;
		case GSW_RANK:
			f->i64[r] = rank;
			break;
		case GSW_DENSE_RANK:
			f->i64[r] = dense;
			break;
		case GSW_PERCENT_RANK:
			f->f8[r] = total <= 1 ? 0.0 :
				(float8) (rank - 1) / (float8) (total - 1);
			break;
		case GSW_CUME_DIST:
			f->f8[r] = (float8) (c->ge - c->ps) / (float8) total;
			break;
		case GSW_FIRST_VALUE:
			f->i64[r] = fs < fe ? (int64) fs : -1;
			break;
		case GSW_LAST_VALUE:
			f->i64[r] = fs < fe ? (int64) fe - 1 : -1;
			break;
		case GSW_NTH_VALUE:
			f->i64[r] = fs + f->param - 1 < fe ?
				(int64) (fs + f->param - 1) : -1;
			break;
		default:
			break;
	}
}

/*
 * The functions that read positions: ranks and the value functions, a
 * peer group at a time (rank and dense rank are the group's)
 */
static void
position_partition(GsWinFunc *f, const uint8 *flags, uint64 ps, uint64 pe,
				   const GsWinFrame *frame)
{
	FrameCursor c;
	uint64		dense = 0;

	frame_cursor_init(&c, frame, flags, ps, pe);
	while (c.ge < pe)
	{
		uint64		rank;
		uint64		r;

		frame_cursor_peers(&c, c.ge);
		rank = c.gs - ps + 1;
		dense++;
		for (r = c.gs; r < c.ge; r++)
		{
			frame_cursor_frame(&c, r);
			if (frame->exclude != GSW_EXCLUDE_NONE &&
				(f->fn == GSW_FIRST_VALUE || f->fn == GSW_LAST_VALUE ||
				 f->fn == GSW_NTH_VALUE))
				f->i64[r] = value_row_excluding(f, &c, r);
			else
				position_put(f, &c, r, rank, dense);
		}
	}
}

static uint64
compute_partition(GsWinFunc *f, const uint8 *flags, uint64 ps, uint64 pe,
				  const GsWinFrame *frame)
{
	switch (f->fn)
	{
		case GSW_NTILE:
			if (!f->param_null)
				ntile_partition(f, ps, pe);
			break;
		case GSW_LAG:
		case GSW_LEAD:
			if (!f->param_null)
				lag_lead_partition(f, ps, pe);
			break;
		case GSW_NTH_VALUE:
			if (!f->param_null)
				position_partition(f, flags, ps, pe, frame);
			break;
		case GSW_MIN:
		case GSW_MAX:
			if (frame->exclude != GSW_EXCLUDE_NONE)
				return aggregate_excluding(f, flags, ps, pe, frame);
			if (frame->start != GSW_BOUND_PARTITION)
				return minmax_sliding(f, flags, ps, pe, frame);
			return aggregate_partition(f, flags, ps, pe, frame);
		case GSW_COUNT_STAR:
		case GSW_COUNT:
		case GSW_SUM:
		case GSW_AVG:
		case GSW_VAR_POP:
		case GSW_VAR_SAMP:
		case GSW_STDDEV_POP:
		case GSW_STDDEV_SAMP:
			if (gs_win_excludes_afresh(f, frame))
				return aggregate_excluding(f, flags, ps, pe, frame);
			return aggregate_partition(f, flags, ps, pe, frame);
		default:
			position_partition(f, flags, ps, pe, frame);
			break;
	}
	return PG_UINT64_MAX;
}

typedef struct ComputeArg
{
	uint8	   *flags;
	const uint64 *starts;		/* [nparts + 1]: each partition's first row */
	uint64		nparts;
	uint64		ntasks;
	uint64	   *task_first;		/* [ntasks + 1]: each task's first partition */
	const GsWinFrame *frame;
	GsWinFunc  *funcs;
	int			nfuncs;
} ComputeArg;

static void
compute_tasks(void *p, uint64 tlo, uint64 thi)
{
	ComputeArg *a = (ComputeArg *) p;
	uint64		t;

	for (t = tlo; t < thi; t++)
	{
		int			k;

		for (k = 0; k < a->nfuncs; k++)
		{
			uint64		q;

			for (q = a->task_first[t]; q < a->task_first[t + 1]; q++)
			{
				uint64		e;

				if ((q & 63) == 63 && gs_slice_stopped())
					return;
				e = compute_partition(&a->funcs[k], a->flags,
												  a->starts[q], a->starts[q + 1],
												  a->frame);

				/*
				 * The partition's rows from e on are left as they are: the
				 * error is raised before any of them is returned.  Only this
				 * task writes its partitions' flags.
				 */
				if (e != PG_UINT64_MAX)
					a->flags[e] |= GSW_ERROR;
			}
		}
	}
}

/*
 * An aggregate's failures: zeroed, since only rows whose computation fails
 * are written
 */
static void
alloc_errrow(GsWinFunc *f, Size rows)
{
	f->errrow = palloc_extended(sizeof(uint32) * rows,
								MCXT_ALLOC_HUGE | MCXT_ALLOC_ZERO);
}

uint64 *
gs_win_task_firsts(const uint64 *starts, uint64 nruns, int nthreads,
				   uint64 *ntasks)
{
	uint64		n = starts[nruns];
	uint64	   *first;
	uint64		q = 0,
				t;

	*ntasks = Min((uint64) nthreads * GSW_TASKS_PER_THREAD, nruns);
	first = palloc(sizeof(uint64) * (*ntasks + 1));
	for (t = 0; t < *ntasks; t++)
	{
		uint64		from = n * t / *ntasks;

		while (q < nruns && starts[q] < from)
			q++;
		first[t] = q;
	}
	first[*ntasks] = nruns;
	return first;
}

/* the result arrays f needs, for n rows (or groups: wingroups.c) */
void
gs_win_alloc_results(GsWinFunc *f, uint64 n)
{
	Size		rows = Max(n, 1);

	gs_win_expr_prepare();		/* the tables integer statistics compute with */
	f->isnull = palloc_extended(sizeof(bool) * rows,
								 MCXT_ALLOC_HUGE | MCXT_ALLOC_ZERO);
	switch (f->fn)
	{
		case GSW_PERCENT_RANK:
		case GSW_CUME_DIST:
			f->f8 = palloc_extended(sizeof(double) * rows, MCXT_ALLOC_HUGE);
			return;
		case GSW_COUNT_STAR:
		case GSW_COUNT:
			f->i64 = palloc_extended(sizeof(int64) * rows, MCXT_ALLOC_HUGE);
			alloc_errrow(f, rows);
			return;
		case GSW_SUM:
		case GSW_AVG:
		case GSW_MIN:
		case GSW_MAX:
		case GSW_VAR_POP:
		case GSW_VAR_SAMP:
		case GSW_STDDEV_POP:
		case GSW_STDDEV_SAMP:
			alloc_errrow(f, rows);
#ifdef HAVE_INT128
			if (GSW_ENCODES_RESULTS(f))
			{
				f->wide = palloc_extended(sizeof(int128) * rows, MCXT_ALLOC_HUGE);
				f->rscale = palloc_extended(sizeof(int16) * rows, MCXT_ALLOC_HUGE);
			}
			else if (f->argtype == INT8OID && (f->fn == GSW_SUM || f->fn == GSW_AVG))
				f->wide = palloc_extended(sizeof(int128) * rows, MCXT_ALLOC_HUGE);
			else
#endif
			if (f->arg == GSW_ARG_INT || f->arg == GSW_ARG_NUMERIC)
				f->i64 = palloc_extended(sizeof(int64) * rows, MCXT_ALLOC_HUGE);
			else
				f->f8 = palloc_extended(sizeof(double) * rows, MCXT_ALLOC_HUGE);
			if (f->fn == GSW_AVG)
				f->cnt = palloc_extended(sizeof(int64) * rows, MCXT_ALLOC_HUGE);
			return;
		default:
			f->i64 = palloc_extended(sizeof(int64) * rows, MCXT_ALLOC_HUGE);
			return;
	}
}

uint64
gs_win_compute(uint8 *flags, uint64 n, const GsWinFrame *frame,
			   GsWinFunc *funcs, int nfuncs, int nthreads)
{
	ComputeArg	a;
	uint64	   *starts;
	uint64		nparts = 0;
	uint64		i;
	int			k;

	for (k = 0; k < nfuncs; k++)
	{
		GsWinFunc  *f = &funcs[k];

		gs_win_alloc_results(f, n);
		if ((f->fn == GSW_MIN || f->fn == GSW_MAX) && frame->start != GSW_BOUND_PARTITION &&
			frame->exclude == GSW_EXCLUDE_NONE)
			f->deque = palloc_extended(sizeof(uint32) * Max(n, 1), MCXT_ALLOC_HUGE);
		/* a NULL argument makes every row NULL; WindowAgg checks the rest first */
		if (f->param_null)
			memset(f->isnull, true, sizeof(bool) * n);
		else if (n > 0 && f->fn == GSW_NTILE && f->param <= 0)
			ereport(ERROR,
					(errcode(ERRCODE_INVALID_ARGUMENT_FOR_NTILE),
					 errmsg("argument of ntile must be greater than zero")));
		else if (n > 0 && f->fn == GSW_NTH_VALUE && f->param <= 0)
			ereport(ERROR,
					(errcode(ERRCODE_INVALID_ARGUMENT_FOR_NTH_VALUE),
					 errmsg("argument of nth_value must be greater than zero")));
	}
	if (n == 0)
		return 0;

	for (i = 0; i < n; i++)
		nparts += (flags[i] & GSW_NEW_PARTITION) != 0;
	starts = palloc_extended(sizeof(uint64) * (nparts + 1), MCXT_ALLOC_HUGE);
	nparts = 0;
	for (i = 0; i < n; i++)
		if (flags[i] & GSW_NEW_PARTITION)
			starts[nparts++] = i;
	starts[nparts] = n;

	/* tasks of whole partitions, about the same number of rows each */
	if (n < GSW_THREADED_MIN_ROWS)
		nthreads = 1;
	a.task_first = gs_win_task_firsts(starts, nparts, nthreads, &a.ntasks);
	a.flags = flags;
	a.starts = starts;
	a.nparts = nparts;
	a.frame = frame;
	a.funcs = funcs;
	a.nfuncs = nfuncs;
	gs_cpu_for_tasks(a.ntasks, nthreads, compute_tasks, &a);
	pfree(a.task_first);
	pfree(starts);
	return nparts;
}

void
gs_win_free_arguments(GsWinFunc *funcs, int nfuncs)
{
	int			k;

	for (k = 0; k < nfuncs; k++)
	{
		GsWinFunc  *f = &funcs[k];

		if (f->argnull)
			pfree(f->argnull);
		if (f->argi)
			pfree(f->argi);
		if (f->argf)
			pfree(f->argf);
#ifdef HAVE_INT128
		if (f->argw)
			pfree(f->argw);
		f->argw = NULL;
#endif
		if (f->argscale)
			pfree(f->argscale);
		if (f->deque)
			pfree(f->deque);
		if (f->argback)
			pfree(f->argback);
		f->argback = NULL;
		f->deque = NULL;
		f->argscale = NULL;
		f->argnull = NULL;
		f->argi = NULL;
		f->argf = NULL;
		/* argerr stays, for gs_win_first_error */
	}
}

/*
 * An aggregate's argument expression as a program the threads run
 * (winexpr.h), when its value is one the aggregate reads as an integer or
 * a numeric (or only as NULL or not, count's), and the program's type is
 * the argument's; else NULL, and the backend evaluates it
 */
struct GsWinExpr *
gs_win_argument_program(GsWinFunc *f)
{
	GsWinExpr  *x;

	if (f->arg == GSW_ARG_INT)
	{
		if (f->argtype != INT2OID && f->argtype != INT4OID && f->argtype != INT8OID)
			return NULL;
	}
	else if (f->arg != GSW_ARG_NUMERIC && f->arg != GSW_ARG_NULLS)
		return NULL;
	x = gs_win_expr_compile(f->argexpr);
	if (x != NULL && f->arg == GSW_ARG_NUMERIC && !gs_win_expr_is_numeric(x))
		return NULL;
	return x;
}
