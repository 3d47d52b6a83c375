/*-------------------------------------------------------------------------
 *
 * memaccount.h
 *	  The server-wide account of memory that GpuSorts hold: every sort
 *	  reserves its bytes here before it stores rows, so that concurrent
 *	  sorts together stay within gpusort.max_total_memory, /dev/shm and the
 *	  GPU's memory.  See memaccount.c (the account's slots) and memreserve.c
 *	  (the reservations).
 *
 *-------------------------------------------------------------------------
 */
#ifndef GPUSORT_MEMACCOUNT_H
#define GPUSORT_MEMACCOUNT_H

/* what is counted */
typedef enum GsAcctKind
{
	GS_ACCT_MEM,				/* memory: backends' and /dev/shm's alike */
	GS_ACCT_SHM,				/* POSIX shared memory (/dev/shm) */
	GS_ACCT_DEV,				/* GPU device memory */
	GS_ACCT_NKINDS
} GsAcctKind;

/*
 * One holder's reservations (a sort, or the parallel intake of one),
 * released when the memory context it was created in goes: at the end of
 * the sort, a rescan, an ERROR or a cancel alike.
 */
typedef struct GsReservation GsReservation;

extern GsReservation *gs_reservation_create(MemoryContext cxt);

/*
 * Adds bytes of kind to the reservation if the account's total of that
 * kind, all sessions together, stays within limit; false (and nothing
 * reserved) otherwise, or when the account cannot be used at all.
 */
extern bool gs_reserve(GsReservation *r, GsAcctKind kind, Size bytes, Size limit);

/* Gives back bytes of kind (at most what r holds) */
extern void gs_release(GsReservation *r, GsAcctKind kind, Size bytes);

/* Gives back everything r holds; r stays usable */
extern void gs_release_all(GsReservation *r);

/* What r holds of kind */
extern Size gs_reserved(const GsReservation *r, GsAcctKind kind);

/* The account's total of kind, all sessions; this session's share */
extern uint64 gs_account_total(GsAcctKind kind);
extern uint64 gs_account_session(GsAcctKind kind);

/*
 * /dev/shm, where POSIX dynamic shared memory lives: its free bytes (and
 * its size in *size, if not NULL), and what all GpuSorts together may
 * reserve of it; SIZE_MAX where dynamic shared memory is not POSIX or
 * /dev/shm cannot be asked.
 */
extern Size gs_shm_free(Size *size);
extern Size gs_shm_limit(void);

/* "shared memory", or the file that holds the account */
extern const char *gs_account_where(void);

/* _PG_init, when the library is in shared_preload_libraries */
extern void gs_account_request_shmem(void);

#endif							/* GPUSORT_MEMACCOUNT_H */
