/*-------------------------------------------------------------------------
 *
 * gpu_session.h
 *	  The backend's CUDA session, shared by the GPU engines (src/gpu/gpu_session.c).
 *
 * Both GPU engines (the sort, engine_gpu.c, and tree_reduce, tree_gpu.c)
 * start CUDA through gs_gpu_session_start(), which also chooses the
 * backend's device and takes one of its gpusort.max_gpu_sessions slots,
 * and borrow pinned host memory from one per-backend pool:
 *
 *	   if (!gs_gpu_session_start(reason, sizeof(reason)))
 *		   fall back to the CPU, reason says why;
 *	   buf = gs_pinned_get(bytes, reason, sizeof(reason));
 *	   ... asynchronous copies from/to buf, waited for ...
 *	   gs_pinned_put(buf);
 *
 * No call throws: every failure is a false/NULL return with a reason, so
 * the caller can fall back to the CPU.  A buffer must not be given back
 * while the device may still read or write it.  The engines word their own
 * reasons with gs_gpu_reason, which adds the kernels' last error.
 *
 * Built without CUDA, only gpusort_gpu_info() and an empty
 * gs_gpu_session_prestart() are here: the engines' own stubs say "built
 * without CUDA" and never call into the session.
 *
 *-------------------------------------------------------------------------
 */
#ifndef GPUSORT_GPU_SESSION_H
#define GPUSORT_GPU_SESSION_H

struct GskDeviceInfo;			/* kernels/gpusort_kernels.h */
struct GsDeviceLoad;			/* gpu_select.h */

/*
 * Starts CUDA in this backend, or finds it started.  False, with the
 * reason in reason[reasonlen], when this backend cannot use the GPU: in
 * the postmaster, every session slot of every allowed device taken or no
 * visible device allowed (worth trying again later), or no usable device
 * (remembered: never retried in this backend).
 */
extern bool gs_gpu_session_start(char *reason, size_t reasonlen);

/*
 * Starts CUDA on a helper thread, as gs_gpu_session_start would, while
 * the backend goes on (a sort that will want the GPU, from its executor
 * start): the next gs_gpu_session_start waits for it and uses what it
 * found.  Does nothing where CUDA is started, failed, not allowed, or
 * not built.
 */
extern void gs_gpu_session_prestart(void);

/*
 * While an early start is still in the driver: true, with the milliseconds
 * since it began in *elapsed_ms, without waiting for it.  False once it is
 * over (whatever it found), or where none was made.
 */
extern bool gs_gpu_session_starting(double *elapsed_ms);

/* The device in use; NULL until a start has succeeded */
extern const struct GskDeviceInfo *gs_gpu_session_device(void);

/* The session slot this backend holds on its device, or -1 */
extern int	gs_gpu_session_slot(void);

/*
 * Every visible device (at most GS_MAX_DEVICES): its load as the device
 * choice sees it in loads[], its description in infos[] (when not NULL).
 * The count, or -1 with a reason when CUDA cannot tell.  Starts the CUDA
 * driver (not a context), so not in the postmaster.
 */
extern int	gs_gpu_devices_load(struct GsDeviceLoad *loads,
								struct GskDeviceInfo *infos,
								char *reason, size_t reasonlen);

/* Backends holding a gpusort.max_gpu_sessions slot of device */
extern int	gs_gpu_device_sessions(int device);

/*
 * A pinned host buffer of at least bytes from the backend's pool, or NULL
 * with a reason; gs_pinned_put gives it back (NULL is ignored).  Only
 * after a successful gs_gpu_session_start.
 */
extern void *gs_pinned_get(Size bytes, char *reason, size_t reasonlen);
extern void gs_pinned_put(void *p);

/*
 * reason[0..reasonlen) = what, followed by the kernels' last error
 * (gsk_last_error) when rc, a kernels' return code, is not 0.
 */
extern void gs_gpu_reason(char *reason, size_t reasonlen, const char *what,
						  int rc);

#endif							/* GPUSORT_GPU_SESSION_H */
