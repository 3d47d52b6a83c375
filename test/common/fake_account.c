/*
 * fake_account.c
 *	  A stand-in for the slots of src/memory/memaccount.c in the standalone
 *	  tests: one process's account of reserved bytes, with what "other
 *	  sessions" hold set by the test (fake_account_others), so that the GPU
 *	  engine's reservation of device memory can be refused on demand.
 *
 * Only where the bytes are kept is faked: the reservations themselves are
 * the server's (src/memory/memreserve.c, linked into the tests over this
 * account through memaccount_internal.h), given back by reset callbacks
 * of the shim's memory context, as in the server.
 */
#include "postgres.h"

#include "memory/memaccount_internal.h"

#include "fake_account.h"

uint64		fake_account_others[GS_ACCT_NKINDS];
uint64		fake_account_mine[GS_ACCT_NKINDS];

/* the test's process always has its slot */
bool
gs_account_claim(void)
{
	return true;
}

void
gs_account_add(GsAcctKind kind, Size bytes)
{
	fake_account_mine[kind] += bytes;
}

void
gs_account_sub(GsAcctKind kind, Size bytes)
{
	fake_account_mine[kind] -= bytes;
}

/* no process dies here holding bytes: nothing is stale */
bool
gs_account_sweep(void)
{
	return false;
}

uint64
gs_account_total(GsAcctKind kind)
{
	return fake_account_others[kind] + fake_account_mine[kind];
}

uint64
gs_account_session(GsAcctKind kind)
{
	return fake_account_mine[kind];
}
