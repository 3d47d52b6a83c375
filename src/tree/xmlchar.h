/*-------------------------------------------------------------------------
 *
 * xmlchar.h
 *	  XML's character rules that both tokenizers apply: the CPU's
 *	  (xmltok.c) and the GPU's (kernels/tree/xml_scan.cu).
 *
 * The GPU tokenizer must accept exactly what the CPU tokenizer accepts, or
 * hand the input to it; one definition of the characters XML allows and of
 * the character reference syntax keeps the two from drifting.  Plain C
 * that nvcc also compiles, as host and device functions, and that a C++
 * compiler reads as it is (the GPU tokenizer's CPU emulation).
 *
 *-------------------------------------------------------------------------
 */
#ifndef GPUSORT_XMLCHAR_H
#define GPUSORT_XMLCHAR_H

#include <stdbool.h>
#include <stddef.h>

#ifdef __CUDACC__
#define GS_XMLCHAR_FN	static inline __host__ __device__
#else
#define GS_XMLCHAR_FN	static inline
#endif

/* XML 1.0's Char production */
GS_XMLCHAR_FN bool
gs_is_xml_char(unsigned long cp)
{
	return cp == 0x9 || cp == 0xA || cp == 0xD ||
		(cp >= 0x20 && cp <= 0xD7FF) || (cp >= 0xE000 && cp <= 0xFFFD) ||
		(cp >= 0x10000 && cp <= 0x10FFFF);
}

/*
 * The character reference whose digits start at b[p], just after "&#":
 * 'x' and hexadecimal digits, or decimal digits, then ';'.  Returns the
 * position just past the ';' with the code point in *cp, or 0 when there
 * are no digits or no ';' after them.  A code point past Unicode's range
 * saturates at 0x110000 rather than overflowing back into it; whether *cp
 * is a character XML allows is gs_is_xml_char's answer.
 */
GS_XMLCHAR_FN size_t
gs_xml_char_ref(const unsigned char *b, size_t p, size_t end, unsigned long *cp)
{
	bool		hex = false;
	size_t		ndigits = 0;

	*cp = 0;
	if (p < end && b[p] == 'x')
	{
		hex = true;
		p++;
	}
	for (; p < end; p++, ndigits++)
	{
		unsigned	c = b[p];
		unsigned	d;

		if (c >= '0' && c <= '9')
			d = c - '0';
		else if (hex && c >= 'a' && c <= 'f')
			d = c - 'a' + 10;
		else if (hex && c >= 'A' && c <= 'F')
			d = c - 'A' + 10;
		else
			break;
		*cp = *cp * (hex ? 16 : 10) + d;
		if (*cp > 0x10FFFF)
			*cp = 0x110000;
	}
	if (ndigits == 0 || p >= end || b[p] != ';')
		return 0;
	return p + 1;
}

#endif							/* GPUSORT_XMLCHAR_H */
