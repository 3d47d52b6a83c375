/*
 * fake_account.h
 *	  The standalone tests' server-wide account (fake_account.c): what other
 *	  sessions hold, set by the test, and what this process holds, as the
 *	  server's reservations (src/memory/memreserve.c) left it.
 */
#ifndef GS_TEST_FAKE_ACCOUNT_H
#define GS_TEST_FAKE_ACCOUNT_H

#include "memory/memaccount.h"

extern uint64 fake_account_others[GS_ACCT_NKINDS];
extern uint64 fake_account_mine[GS_ACCT_NKINDS];

#endif
