/*-------------------------------------------------------------------------
 *
 * treerep.h
 *	  The "XML representation" of a forest (Koike and Sadakane, section 2.3), shared
 *	  by the tokenizers (CPU: xmltok.c, GPU: kernels/tree/xml_scan.cu) and the
 *	  contraction code (CPU: contract.c, GPU: kernels/tree/tree_contract.cu).
 *
 * A forest of n vertices is an array of 2n tokens in preorder: the start tag
 * of vertex v is one token holding v's weight, its end tag is one token
 * holding the close marker.  Tokens are doubles, so the array is 8 bytes a
 * token on both sides; the close marker is a NaN with a reserved payload,
 * and since no weight is NaN (the tokenizer rejects NaN weights), a token
 * is a close marker exactly when it is NaN.
 *
 * Plain C, no PostgreSQL headers: standalone tests, fuzz targets and CUDA
 * code include it too.
 *
 *-------------------------------------------------------------------------
 */
#ifndef GPUSORT_TREEREP_H
#define GPUSORT_TREEREP_H

#include <stdbool.h>
#include <stdint.h>
#include <string.h>

#if defined(__CUDACC__)
#define GS_HD __host__ __device__ __forceinline__
#else
#define GS_HD static inline
#endif

typedef double GsToken;

/* bit pattern of the close marker: a quiet NaN with payload "/" */
#define GS_CLOSE_BITS	UINT64_C(0x7ff800000000002f)

GS_HD GsToken
gs_close_token(void)
{
	uint64_t	b = GS_CLOSE_BITS;
	GsToken		t;

	memcpy(&t, &b, sizeof(t));
	return t;
}

GS_HD bool
gs_is_close(GsToken t)
{
	return t != t;				/* NaN: only the close marker is */
}

#endif							/* GPUSORT_TREEREP_H */
