/*-------------------------------------------------------------------------
 *
 * winnumeric.h
 *	  numeric values as fixed point, v / 10^scale in an int128, which
 *	  GpuWindow's threads read and add (src/sort/window/winnumeric.c).
 *
 * The lowest of the window's files: windowfuncs.h and winexpr.c read
 * numerics through it, and it includes neither.
 *
 *-------------------------------------------------------------------------
 */
#ifndef GPUSORT_WINNUMERIC_H
#define GPUSORT_WINNUMERIC_H

/*
 * A numeric argument's argscale when it is not a finite value that fits:
 * its value is then in the kind alone
 */
#define GSW_NUM_NAN			(-1)
#define GSW_NUM_PINF		(-2)
#define GSW_NUM_NINF		(-3)
#define GSW_NUM_UNREAD		(-4)	/* toasted: the backend reads it */
#define GSW_NUM_WIDE		(-5)	/* past GSW_NUM_MAX_SCALED, or scale too large */

/*
 * A numeric argument is read as an int128 v with the value's own display
 * scale s (value = v / 10^s) when |v| < 2^95 and s <= GSW_NUM_MAX_SCALE:
 * sums of fewer than 2^32 such values, rescaled to a common scale, fit in
 * an int128 unless the rescaling itself overflows, which is checked.
 */
#define GSW_NUM_MAX_SCALE	38

#ifdef HAVE_INT128
#define NUMV_MAX_SCALED		((int128) 1 << 95)

/* 10^e for 0 <= e <= 38 */
static inline int128
pow10_128(int e)
{
	int128		p = 1;

	while (e-- > 0)
		p *= 10;
	return p;
}

/*
 * A numeric's bytes as v / 10^scale: returns the display scale, or a
 * GSW_NUM_* kind when it is not a finite value that fits (threads call it)
 */
extern int16 gs_win_numeric_fixed(const struct varlena *num, int128 *out);
#endif

#endif							/* GPUSORT_WINNUMERIC_H */
