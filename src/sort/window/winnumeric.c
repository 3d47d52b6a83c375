/*-------------------------------------------------------------------------
 *
 * winnumeric.c
 *	  numeric values read as fixed point, for GpuWindow's threads: an
 *	  int128 and the value's display scale.
 *
 * numeric arguments are read as fixed point, an int128 and the value's
 * display scale (gs_win_numeric_fixed, from the bytes, on threads; a
 * toasted value in the backend).  The pass that reads the arguments
 * (winboundary.c) and winexpr.c's programs, which read numeric columns and
 * constants, both read them here; the layout read is numeric.c's, private
 * there, so it is written out below.
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "base/compat.h"
#include "winnumeric.h"

/*
 * numeric's on-disk layout (utils/adt/numeric.c, private there): a varlena
 * whose first uint16 says the format.  A short numeric packs sign, display
 * scale and weight into it; a long one has the sign and display scale, then
 * an int16 weight; NaN and the infinities are "special" headers with no
 * digits.  The digits are int16s in base 10000, the first one weighing
 * 10000^weight.
 */
#define NUMV_SIGN_MASK		0xC000
#define NUMV_NEG			0x4000
#define NUMV_SHORT			0x8000
#define NUMV_SPECIAL		0xC000
#define NUMV_EXT_MASK		0xF000
#define NUMV_NAN			0xC000
#define NUMV_PINF			0xD000
#define NUMV_NINF			0xF000
#define NUMV_SHORT_SIGN		0x2000
#define NUMV_SHORT_DSCALE_MASK	0x1F80
#define NUMV_SHORT_DSCALE_SHIFT	7
#define NUMV_SHORT_WEIGHT_SIGN	0x0040
#define NUMV_SHORT_WEIGHT_MASK	0x003F
#define NUMV_DSCALE_MASK	0x3FFF
#define NUMV_NBASE			10000

#ifdef HAVE_INT128

/*
 * A numeric as v / 10^scale, v = *out and scale its display scale (the
 * return value), or a GSW_NUM_* kind.  Reads bytes only: allocates nothing
 * and raises nothing, so threads call it.  A display scale is never less
 * than the digits stored (numeric.c's invariant), so the last digit's
 * decimal places past the scale are zeros; a value breaking that is left
 * GSW_NUM_WIDE, for WindowAgg.
 */
int16
gs_win_numeric_fixed(const struct varlena *num, int128 *out)
{
	const char *p;
	Size		len;
	uint16		header;
	int			weight,
				dscale,
				ndigits,
				e,
				i;
	bool		neg;
	int128		acc = 0;

	if (VARATT_IS_EXTERNAL(num) || VARATT_IS_COMPRESSED(num))
		return GSW_NUM_UNREAD;
	p = VARDATA_ANY(num);
	len = VARSIZE_ANY_EXHDR(num);
	if (len < sizeof(uint16))
		return GSW_NUM_WIDE;
	memcpy(&header, p, sizeof(uint16));
	if ((header & NUMV_SIGN_MASK) == NUMV_SPECIAL)
		return (header & NUMV_EXT_MASK) == NUMV_NAN ? GSW_NUM_NAN :
			(header & NUMV_EXT_MASK) == NUMV_PINF ? GSW_NUM_PINF :
			(header & NUMV_EXT_MASK) == NUMV_NINF ? GSW_NUM_NINF : GSW_NUM_WIDE;
	if ((header & NUMV_SIGN_MASK) == NUMV_SHORT)
	{
		neg = (header & NUMV_SHORT_SIGN) != 0;
		dscale = (header & NUMV_SHORT_DSCALE_MASK) >> NUMV_SHORT_DSCALE_SHIFT;
		weight = ((header & NUMV_SHORT_WEIGHT_SIGN) ? ~NUMV_SHORT_WEIGHT_MASK : 0) |
			(header & NUMV_SHORT_WEIGHT_MASK);
		p += sizeof(uint16);
		len -= sizeof(uint16);
	}
	else
	{
		int16		w;

		if (len < 2 * sizeof(uint16))
			return GSW_NUM_WIDE;
		neg = (header & NUMV_SIGN_MASK) == NUMV_NEG;
		dscale = header & NUMV_DSCALE_MASK;
		memcpy(&w, p + sizeof(uint16), sizeof(int16));
		weight = w;
		p += 2 * sizeof(uint16);
		len -= 2 * sizeof(uint16);
	}
	ndigits = (int) (len / sizeof(int16));
	if (dscale > GSW_NUM_MAX_SCALE)
		return GSW_NUM_WIDE;
	if (ndigits == 0)
	{
		*out = 0;
		return (int16) dscale;
	}
	/* the last digit's power of ten in v: v = digits as an integer * 10^e */
	e = 4 * (weight - (ndigits - 1)) + dscale;
	if (e <= -4 || e > GSW_NUM_MAX_SCALE)
		return GSW_NUM_WIDE;
	for (i = 0; i < ndigits; i++)
	{
		int16		d;

		memcpy(&d, p + i * sizeof(int16), sizeof(int16));
		if (i == ndigits - 1 && e < 0)
		{
			/* the last digit's places past the scale: zeros, dropped */
			if (__builtin_mul_overflow(acc, pow10_128(4 + e), &acc))
				return GSW_NUM_WIDE;
			acc += d / (int) pow10_128(-e);
		}
		else if (__builtin_mul_overflow(acc, (int128) NUMV_NBASE, &acc) ||
				 __builtin_add_overflow(acc, (int128) d, &acc))
			return GSW_NUM_WIDE;
		if (acc >= NUMV_MAX_SCALED)
			return GSW_NUM_WIDE;
	}
	if (e > 0 && __builtin_mul_overflow(acc, pow10_128(e), &acc))
		return GSW_NUM_WIDE;
	if (acc >= NUMV_MAX_SCALED)
		return GSW_NUM_WIDE;
	*out = neg ? -acc : acc;
	return (int16) dscale;
}
#endif
