/*
 * fake_cuda.h
 *	  A fake of the runtime part of kernels/gpusort_kernels.h in host
 *	  memory, for the host tests of test/sort/cpu/ and test/tree/cpu/ (see
 *	  fake_cuda.c).
 *
 * The fake's state is the tests' to read and to set between cases.  The
 * kernels a test needs (the sort's, the tree's) are faked in that test, on
 * top of fake_call() and fake_enqueue(), so that they count, fail and keep
 * the stream busy like every other call.
 */
#ifndef GS_TEST_FAKE_CUDA_H
#define GS_TEST_FAKE_CUDA_H

#include <stdbool.h>
#include <stddef.h>

#include "gpusort_kernels.h"

/* the error code of an injected failure (cudaErrorMemoryAllocation) */
#define FAKE_INJECTED	2

/* cudaErrorNoDevice, when the device list is empty */
#define FAKE_NO_DEVICE	100

/* the visible devices (see fake_cuda.c) */
#define FAKE_MAX_DEVICES	16
extern int	fake_ndevices;		/* -1: GS_FAKE_GPUS or one device */
extern size_t fake_dev_free[FAKE_MAX_DEVICES];	/* bytes free on each */
extern int	fake_init_device;	/* what gsk_init last started, -1: none */
extern unsigned fake_unusable;	/* bit d: device d cannot be described */

/* device memory */
extern size_t fake_dev_capacity;	/* what gsk_device_alloc may hand out */
extern size_t fake_dev_in_use;

/* pinned host memory */
extern long fake_host_live;		/* buffers not freed */
extern size_t fake_host_live_bytes;

/* calls and failure injection */
extern long fake_ncalls;		/* calls that can fail, so far */
extern long fake_fail_at;		/* that call fails (-1: none) ... */
extern long fake_fail_len;		/* ... and the fail_len - 1 after it */
extern long fake_ninits;		/* gsk_init calls */
extern int	fake_init_delay_ms; /* gsk_init takes this long, as CUDA's start */

/* streams */
extern int	fake_not_ready_polls;	/* "not ready" answers per wait */
extern long fake_npolls;		/* "not ready" answers so far */
extern long fake_cancel_at_poll;	/* that answer comes with a cancel */
extern bool fake_stream_busy;	/* work enqueued and not waited for */

/* pinned buffers given back to the pool while work in flight used them */
extern long fake_unsafe_puts;

/*
 * Every call that can fail starts with fake_call (an asynchronous one with
 * fake_enqueue, which also marks the stream busy): counts the call and
 * returns FAKE_INJECTED, with gsk_last_error() set, if it is the one to
 * fail; else 0.
 */
extern int	fake_call(const char *what);
extern int	fake_enqueue(const char *what);

/*
 * An enqueued call reads or writes host memory at host: if that is a
 * pinned buffer, it stays in flight until the stream is next idle.
 */
extern void fake_host_in_flight(const void *host);

/* sets gsk_last_error()'s text and returns code, for a fake kernel's errors */
extern int	fake_error(int code, const char *fmt,...) pg_attribute_printf(2, 3);

#endif							/* GS_TEST_FAKE_CUDA_H */
