/*-------------------------------------------------------------------------
 *
 * memaccount_internal.h
 *	  What the reservations (memreserve.c) ask of the account's slots
 *	  (memaccount.c): this process's slot, and a sweep of stale ones.
 *
 * Where the slots live (shared memory or a file) is memaccount.c's alone;
 * the reservations' arithmetic sees only these calls and the totals of
 * memaccount.h.  That lets the standalone tests link memreserve.c itself
 * over a stand-in account (test/common/fake_account.c).
 *
 *-------------------------------------------------------------------------
 */
#ifndef GPUSORT_MEMACCOUNT_INTERNAL_H
#define GPUSORT_MEMACCOUNT_INTERNAL_H

#include "memaccount.h"

/* This process's slot, claimed on first use: false when it has none */
extern bool gs_account_claim(void);

/* Adds bytes of kind to this process's slot, or takes them off */
extern void gs_account_add(GsAcctKind kind, Size bytes);
extern void gs_account_sub(GsAcctKind kind, Size bytes);

/*
 * Zeroes the slots of processes that exited holding bytes; false where
 * no slot can be stale (shared memory), so that a second try is pointless
 */
extern bool gs_account_sweep(void);

#endif							/* GPUSORT_MEMACCOUNT_INTERNAL_H */
