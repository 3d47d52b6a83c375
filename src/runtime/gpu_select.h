/*-------------------------------------------------------------------------
 *
 * gpu_select.h
 *	  Which GPU a backend's CUDA session goes to (src/runtime/gpu_select.c).
 *
 * Pure C: no PostgreSQL and no CUDA, so that the rules are unit-tested
 * without either (test/sort/cpu/gpu_select.sh).  The caller,
 * src/gpu/gpu_session.c, gathers each visible device's load and calls
 * gs_select_device; settings.c's check hook of gpusort.devices calls
 * gs_parse_device_list.
 *
 *-------------------------------------------------------------------------
 */
#ifndef GPUSORT_GPU_SELECT_H
#define GPUSORT_GPU_SELECT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/*
 * Devices gpusort uses at most: CUDA ordinals 0 .. GS_MAX_DEVICES - 1, as
 * the kernels keep per-device state for that many (GSK_MAX_DEVICES in
 * kernels/sort/partition_sort.cu).
 */
#define GS_MAX_DEVICES	16

typedef struct GsDeviceLoad
{
	int			ordinal;		/* CUDA ordinal (after CUDA_VISIBLE_DEVICES) */
	bool		allowed;		/* listed by gpusort.devices (or it is '') */
	bool		full;			/* every gpusort.max_gpu_sessions slot held */
	int			sessions;		/* backends holding one of its slots */
	uint64_t	free_bytes;		/* free device memory */
} GsDeviceLoad;

/*
 * The index in devs[0..n) of the device a new session should use: among
 * the allowed devices that are not full, the one with the fewest sessions,
 * then the most free memory, then the lowest ordinal.  -1 when there is
 * none, with *reason (static text) saying why.
 */
extern int	gs_select_device(const GsDeviceLoad *devs, int n, const char **reason);

/*
 * Parses a gpusort.devices value: a comma-separated list of distinct
 * ordinals 0 .. GS_MAX_DEVICES - 1, blanks allowed around each.  Returns
 * how many it lists (0 for an empty or all-blank string, which means every
 * device) and sets allowed[0..GS_MAX_DEVICES) when allowed is not NULL;
 * -1 for bad input, with the problem in err[0..errlen).
 */
extern int	gs_parse_device_list(const char *s, bool *allowed, char *err,
								 size_t errlen);

#endif							/* GPUSORT_GPU_SELECT_H */
