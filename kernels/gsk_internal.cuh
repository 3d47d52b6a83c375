/*-------------------------------------------------------------------------
 *
 * gsk_internal.cuh
 *	  Error reporting shared by the .cu files of kernels/ (never by C code).
 *
 * The public calls of gpusort_kernels.h return a CUDA error code and leave
 * the text for gsk_last_error(); these helpers record that text in the
 * calling thread's buffer, which lives in runtime.cu.  Everything here has
 * hidden visibility (the Makefile builds with -fvisibility=hidden), so it is
 * shared between the objects of the module but never exported.
 *
 *-------------------------------------------------------------------------
 */
#ifndef GSK_INTERNAL_CUH
#define GSK_INTERNAL_CUH

#include <cuda_runtime.h>

/*
 * Record "what: CUDA's text for err" as the last error of this thread and
 * return err as an int (cudaSuccess returns 0 and records nothing).
 */
int			gsk_fail(cudaError_t err, const char *what);

/* Record a failure that is not a CUDA error (a bad argument) under code */
int			gsk_fail_msg(cudaError_t code, const char *msg);

/* After a kernel launch: turn a launch error into a recorded failure */
static inline int
gsk_check_launch(const char *what)
{
	return gsk_fail(cudaGetLastError(), what);
}

#endif							/* GSK_INTERNAL_CUH */
