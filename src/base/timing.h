/*-------------------------------------------------------------------------
 *
 * timing.h
 *	  Phase times for EXPLAIN ANALYZE, as the executor's instr_time takes
 *	  them.
 *
 *-------------------------------------------------------------------------
 */
#ifndef GPUSORT_TIMING_H
#define GPUSORT_TIMING_H

#include "portability/instr_time.h"

/* milliseconds since start */
static inline double
gs_elapsed_ms(instr_time start)
{
	instr_time	now;

	INSTR_TIME_SET_CURRENT(now);
	INSTR_TIME_SUBTRACT(now, start);
	return INSTR_TIME_GET_MILLISEC(now);
}

#endif							/* GPUSORT_TIMING_H */
