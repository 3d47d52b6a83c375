/*
 * fake_account.c
 *	  A stand-in for src/memory/memaccount.c in the standalone tests: one process's
 *	  account of reserved bytes, with what "other sessions" hold set by the
 *	  test (fake_account_others), so that the GPU engine's reservation of
 *	  device memory can be refused on demand.  Reservations live in the
 *	  shim's memory context and are given back by its reset callbacks, as
 *	  in the server.
 */
#include "postgres.h"

#include "memory/memaccount.h"
#include "utils/memutils.h"

#include "fake_account.h"

struct GsReservation
{
	Size		bytes[GS_ACCT_NKINDS];
	MemoryContextCallback cb;
};

uint64		fake_account_others[GS_ACCT_NKINDS];
uint64		fake_account_mine[GS_ACCT_NKINDS];

static void
release_cb(void *arg)
{
	gs_release_all((GsReservation *) arg);
}

GsReservation *
gs_reservation_create(MemoryContext cxt)
{
	GsReservation *r = MemoryContextAllocZero(cxt, sizeof(GsReservation));

	r->cb.func = release_cb;
	r->cb.arg = r;
	MemoryContextRegisterResetCallback(cxt, &r->cb);
	return r;
}

bool
gs_reserve(GsReservation *r, GsAcctKind kind, Size bytes, Size limit)
{
	if (fake_account_others[kind] + fake_account_mine[kind] + bytes > limit)
		return false;
	fake_account_mine[kind] += bytes;
	r->bytes[kind] += bytes;
	return true;
}

void
gs_release(GsReservation *r, GsAcctKind kind, Size bytes)
{
	bytes = Min(bytes, r->bytes[kind]);
	fake_account_mine[kind] -= bytes;
	r->bytes[kind] -= bytes;
}

void
gs_release_all(GsReservation *r)
{
	int			k;

	for (k = 0; k < GS_ACCT_NKINDS; k++)
		gs_release(r, (GsAcctKind) k, r->bytes[k]);
}

Size
gs_reserved(const GsReservation *r, GsAcctKind kind)
{
	return r ? r->bytes[kind] : 0;
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
