/*-------------------------------------------------------------------------
 *
 * gpu_devices.c
 *	  gpusort_gpu_devices(): every GPU the server sees, and its gpusort
 *	  sessions.
 *
 * One row per visible device (CUDA ordinals, after CUDA_VISIBLE_DEVICES):
 * what the device choice of src/gpu/gpu_session.c sees when a backend starts
 * CUDA, so that an administrator can check how sessions spread and what
 * gpusort.devices allows.  Listing the devices starts the CUDA driver in
 * this backend but creates no context: the backend's own session is left
 * as it was (gpusort_gpu_info(true) starts one).  Free memory is the
 * driver's management library's (NVML) for devices this backend holds no
 * context on, and NULL where that library is missing.
 *
 * Apart from gpu_session.c, so that the host tests, which link the session
 * with a shim of the backend, need no tuplestore.
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "fmgr.h"
#include "funcapi.h"
#include "miscadmin.h"
#include "utils/builtins.h"

#include "runtime/gpu_select.h"
#include "gpu_session.h"
#include "runtime/settings.h"

#ifndef GPUSORT_NO_CUDA
#include "gpusort_kernels.h"
#endif

PG_FUNCTION_INFO_V1(gpusort_gpu_devices);

#define GPU_DEVICES_COLS	8

Datum
gpusort_gpu_devices(PG_FUNCTION_ARGS)
{
	InitMaterializedSRF(fcinfo, 0);

#ifndef GPUSORT_NO_CUDA
	{
		ReturnSetInfo *rsinfo = (ReturnSetInfo *) fcinfo->resultinfo;
		GsDeviceLoad loads[GS_MAX_DEVICES];
		GskDeviceInfo infos[GS_MAX_DEVICES];
		const GskDeviceInfo *mine = gs_gpu_session_device();
		char		reason[256];
		int			ndev;
		int			i;

		if (IsPostmasterEnvironment && !IsUnderPostmaster)
			return (Datum) 0;
		ndev = gs_gpu_devices_load(loads, infos, reason, sizeof(reason));
		if (ndev < 0)
		{
			ereport(NOTICE,
					(errmsg("gpusort: no GPU can be listed"),
					 errdetail("%s", reason)));
			return (Datum) 0;
		}
		for (i = 0; i < ndev; i++)
		{
			Datum		values[GPU_DEVICES_COLS];
			bool		nulls[GPU_DEVICES_COLS];
			bool		held = mine != NULL && mine->device == i;
			size_t		free_mem = infos[i].free_mem;
			bool		free_known = infos[i].free_mem_known;

			/* on our own device, the context's answer is exact */
			if (held)
			{
				size_t		total;

				free_known = gsk_mem_info(&free_mem, &total) == 0;
			}
			memset(nulls, false, sizeof(nulls));
			values[0] = Int32GetDatum(i);
			values[1] = CStringGetTextDatum(infos[i].name);
			values[2] = Int64GetDatum((int64) (infos[i].total_mem / (1024 * 1024)));
			values[3] = Int64GetDatum((int64) (free_mem / (1024 * 1024)));
			nulls[3] = !free_known;
			values[4] = BoolGetDatum(loads[i].allowed);
			values[5] = Int32GetDatum(loads[i].sessions);
			values[6] = Int32GetDatum(gpusort_max_gpu_sessions);
			values[7] = BoolGetDatum(held);
			tuplestore_putvalues(rsinfo->setResult, rsinfo->setDesc, values, nulls);
		}
	}
#endif
	return (Datum) 0;
}
