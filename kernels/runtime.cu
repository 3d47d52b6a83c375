/*-------------------------------------------------------------------------
 *
 * runtime.cu
 *	  The runtime half of gpusort_kernels.h: device start, memory, streams,
 *	  copies and events, as thin C wrappers over the CUDA runtime.
 *
 * Every wrapper returns the CUDA error code (0 on success) and records the
 * text of a failure in a thread-local buffer for gsk_last_error(), so the C
 * side can turn it into a WARNING and a CPU fallback without ever including
 * a CUDA header.  Nothing here aborts or prints.
 *
 * The module links cudart statically, so on a machine without a driver the
 * first call (gsk_init) fails cleanly with "CUDA driver version is
 * insufficient" or "no CUDA-capable device", and the caller falls back.
 *
 *-------------------------------------------------------------------------
 */
#include <dlfcn.h>
#include <stdio.h>
#include <string.h>

#include <cuda_runtime.h>

#include "gpusort_kernels.h"
#include "gsk_internal.cuh"

#define GSK_EXPORT __attribute__((visibility("default")))

/* Text of the last failure of this thread; "" when none was recorded */
static __thread char gsk_errbuf[256];

int
gsk_fail(cudaError_t err, const char *what)
{
	if (err == cudaSuccess)
		return 0;
	snprintf(gsk_errbuf, sizeof(gsk_errbuf), "%s: %s (%s)",
			 what, cudaGetErrorString(err), cudaGetErrorName(err));

	/*
	 * The runtime also keeps err as its "last error" until someone reads
	 * it; reported here, it must not resurface as the failure of the next
	 * kernel launch (a sticky error still fails every later call).
	 */
	(void) cudaGetLastError();
	return (int) err;
}

int
gsk_fail_msg(cudaError_t code, const char *msg)
{
	snprintf(gsk_errbuf, sizeof(gsk_errbuf), "%s", msg);
	return (int) code;
}

extern "C" GSK_EXPORT const char *
gsk_last_error(void)
{
	return gsk_errbuf;
}

/*
 * cudaSetDevice + cudaFree(0) creates the primary context now rather than
 * inside the first sort, so the caller pays (and can measure) the start-up
 * cost where it blocks signals.  Calling it again only refreshes the device
 * description.
 */
extern "C" GSK_EXPORT int
gsk_init(int device, GskDeviceInfo *info)
{
	cudaError_t err;
	int			ndev = 0;
	int			rc;

	err = cudaGetDeviceCount(&ndev);
	if (err != cudaSuccess)
		return gsk_fail(err, "cudaGetDeviceCount");
	if (ndev <= 0)
		return gsk_fail(cudaErrorNoDevice, "gsk_init");
	if (device < 0 || device >= ndev)
		return gsk_fail_msg(cudaErrorInvalidDevice,
							"gsk_init: device ordinal out of range");
	err = cudaSetDevice(device);
	if (err != cudaSuccess)
		return gsk_fail(err, "cudaSetDevice");
	err = cudaFree(0);
	if (err != cudaSuccess)
		return gsk_fail(err, "creating the CUDA context");
	if (info == NULL)
		return 0;

	if ((rc = gsk_device_describe(device, info)) != 0)
		return rc;
	err = cudaMemGetInfo(&info->free_mem, &info->total_mem);
	if (err != cudaSuccess)
		return gsk_fail(err, "cudaMemGetInfo");
	info->free_mem_known = 1;
	return 0;
}

extern "C" GSK_EXPORT int
gsk_device_count(int *ndev)
{
	*ndev = 0;
	return gsk_fail(cudaGetDeviceCount(ndev), "cudaGetDeviceCount");
}

/*
 * NVML, the driver's management library, reports a device's free memory
 * without a context on it (cudaMemGetInfo needs one).  It is loaded with
 * dlopen, declared here by hand, so that neither the build nor a machine
 * without it needs its header or library: where it is missing, the free
 * memory is simply not known.  Loaded and initialized once per process,
 * and kept: nvmlShutdown would only undo what the next call redoes.
 */
typedef struct NvmlMemory
{
	unsigned long long total;
	unsigned long long free;
	unsigned long long used;
} NvmlMemory;

typedef int (*NvmlInitFn) (void);
typedef int (*NvmlByBusIdFn) (const char *bus_id, void **device);
typedef int (*NvmlMemoryFn) (void *device, NvmlMemory *memory);

static NvmlByBusIdFn nvml_by_bus_id;
static NvmlMemoryFn nvml_memory;

static bool
nvml_loaded(void)
{
	static int	state = 0;		/* 0: not tried, 1: usable, -1: not */
	void	   *lib;
	NvmlInitFn	init;

	if (state != 0)
		return state > 0;
	state = -1;
	lib = dlopen("libnvidia-ml.so.1", RTLD_NOW | RTLD_LOCAL);
	if (lib == NULL)
		return false;
	init = (NvmlInitFn) dlsym(lib, "nvmlInit_v2");
	nvml_by_bus_id = (NvmlByBusIdFn) dlsym(lib, "nvmlDeviceGetHandleByPciBusId_v2");
	nvml_memory = (NvmlMemoryFn) dlsym(lib, "nvmlDeviceGetMemoryInfo");
	if (init == NULL || nvml_by_bus_id == NULL || nvml_memory == NULL ||
		init() != 0)
		return false;
	state = 1;
	return true;
}

/* device's free memory through NVML; false when it cannot tell */
static bool
nvml_free_mem(int device, size_t *free_mem)
{
	char		bus_id[32];
	void	   *handle;
	NvmlMemory	mem;

	if (!nvml_loaded())
		return false;
	if (cudaDeviceGetPCIBusId(bus_id, sizeof(bus_id), device) != cudaSuccess)
	{
		(void) cudaGetLastError();
		return false;
	}
	if (nvml_by_bus_id(bus_id, &handle) != 0 || nvml_memory(handle, &mem) != 0)
		return false;
	*free_mem = (size_t) mem.free;
	return true;
}

extern "C" GSK_EXPORT int
gsk_device_describe(int device, GskDeviceInfo *info)
{
	cudaDeviceProp prop;
	cudaError_t err;

	err = cudaGetDeviceProperties(&prop, device);
	if (err != cudaSuccess)
		return gsk_fail(err, "cudaGetDeviceProperties");
	memset(info, 0, sizeof(*info));
	info->device = device;
	info->sm_count = prop.multiProcessorCount;
	info->cc_major = prop.major;
	info->cc_minor = prop.minor;
	info->total_mem = prop.totalGlobalMem;
	info->shared_mem_per_block = prop.sharedMemPerBlockOptin;
	snprintf(info->name, sizeof(info->name), "%.127s", prop.name);
	info->free_mem_known = nvml_free_mem(device, &info->free_mem);
	if (!info->free_mem_known)
		info->free_mem = info->total_mem;
	return 0;
}

extern "C" GSK_EXPORT int
gsk_mem_info(size_t *free_mem, size_t *total_mem)
{
	return gsk_fail(cudaMemGetInfo(free_mem, total_mem), "cudaMemGetInfo");
}

extern "C" GSK_EXPORT int
gsk_host_alloc(void **p, size_t bytes)
{
	*p = NULL;
	return gsk_fail(cudaHostAlloc(p, bytes, cudaHostAllocDefault),
					"cudaHostAlloc");
}

extern "C" GSK_EXPORT int
gsk_host_free(void *p)
{
	if (p == NULL)
		return 0;
	return gsk_fail(cudaFreeHost(p), "cudaFreeHost");
}

extern "C" GSK_EXPORT int
gsk_device_alloc(void **p, size_t bytes)
{
	*p = NULL;
	return gsk_fail(cudaMalloc(p, bytes), "cudaMalloc");
}

extern "C" GSK_EXPORT int
gsk_device_free(void *p)
{
	if (p == NULL)
		return 0;
	return gsk_fail(cudaFree(p), "cudaFree");
}

/*
 * Non-blocking streams: the sort never synchronizes with the legacy default
 * stream, so another library's work on it cannot stall a query.
 */
extern "C" GSK_EXPORT int
gsk_stream_create(void **stream)
{
	cudaStream_t s = NULL;
	cudaError_t err;

	err = cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking);
	*stream = (void *) s;
	return gsk_fail(err, "cudaStreamCreateWithFlags");
}

extern "C" GSK_EXPORT int
gsk_stream_destroy(void *stream)
{
	if (stream == NULL)
		return 0;
	return gsk_fail(cudaStreamDestroy((cudaStream_t) stream),
					"cudaStreamDestroy");
}

extern "C" GSK_EXPORT int
gsk_stream_query(void *stream)
{
	cudaError_t err = cudaStreamQuery((cudaStream_t) stream);

	if (err == cudaErrorNotReady)
	{
		/* Not a failure: clear the sticky "last error" it leaves behind */
		(void) cudaGetLastError();
		return GSK_NOT_READY;
	}
	return gsk_fail(err, "cudaStreamQuery");
}

extern "C" GSK_EXPORT int
gsk_stream_sync(void *stream)
{
	return gsk_fail(cudaStreamSynchronize((cudaStream_t) stream),
					"cudaStreamSynchronize");
}

extern "C" GSK_EXPORT int
gsk_copy_h2d_async(void *dst, const void *src, size_t bytes, void *stream)
{
	if (bytes == 0)
		return 0;
	return gsk_fail(cudaMemcpyAsync(dst, src, bytes, cudaMemcpyHostToDevice,
									(cudaStream_t) stream),
					"host-to-device copy");
}

extern "C" GSK_EXPORT int
gsk_copy_d2h_async(void *dst, const void *src, size_t bytes, void *stream)
{
	if (bytes == 0)
		return 0;
	return gsk_fail(cudaMemcpyAsync(dst, src, bytes, cudaMemcpyDeviceToHost,
									(cudaStream_t) stream),
					"device-to-host copy");
}

extern "C" GSK_EXPORT int
gsk_event_create(void **event)
{
	cudaEvent_t e = NULL;
	cudaError_t err = cudaEventCreate(&e);

	*event = (void *) e;
	return gsk_fail(err, "cudaEventCreate");
}

extern "C" GSK_EXPORT int
gsk_event_destroy(void *event)
{
	if (event == NULL)
		return 0;
	return gsk_fail(cudaEventDestroy((cudaEvent_t) event), "cudaEventDestroy");
}

extern "C" GSK_EXPORT int
gsk_event_record(void *event, void *stream)
{
	return gsk_fail(cudaEventRecord((cudaEvent_t) event, (cudaStream_t) stream),
					"cudaEventRecord");
}

extern "C" GSK_EXPORT int
gsk_event_elapsed_ms(void *start, void *end, float *ms)
{
	return gsk_fail(cudaEventElapsedTime(ms, (cudaEvent_t) start,
										 (cudaEvent_t) end),
					"cudaEventElapsedTime");
}
