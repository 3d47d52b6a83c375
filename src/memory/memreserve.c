/*-------------------------------------------------------------------------
 *
 * memreserve.c
 *	  Reservations against the server-wide account of the memory that
 *	  GpuSorts hold.
 *
 * A reservation adds its bytes to this process's slot of the account
 * (memaccount.c) first and checks the total after, backing out when it is
 * over the limit: of any two processes reserving at once, the one that
 * adds last sees both additions, so the limit is never exceeded (both may
 * back out; that errs on the safe side).  No lock is taken.  Where slots
 * can be stale (the file-based account: a process that died holding
 * bytes), a reservation that fails sweeps them and tries once more.
 *
 * A reservation (GsReservation) belongs to a memory context, and a reset
 * callback gives its bytes back when that context goes: at the end of the
 * sort, a rescan, an ERROR or a cancel, so nothing is leaked.
 *
 * This is the arithmetic alone, apart from where the slots live
 * (memaccount_internal.h), so that the standalone tests link this file
 * over a stand-in account (test/common/fake_account.c) and test the
 * server's reservations, not a copy of them.
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "utils/memutils.h"

#include "memaccount.h"
#include "memaccount_internal.h"

struct GsReservation
{
	Size		bytes[GS_ACCT_NKINDS];
	MemoryContextCallback cb;
};

static void
reservation_callback(void *arg)
{
	gs_release_all((GsReservation *) arg);
}

GsReservation *
gs_reservation_create(MemoryContext cxt)
{
	GsReservation *r = MemoryContextAllocZero(cxt, sizeof(GsReservation));

	r->cb.func = reservation_callback;
	r->cb.arg = r;
	MemoryContextRegisterResetCallback(cxt, &r->cb);
	return r;
}

/* adds, then checks the total (see the header comment) */
static bool
try_add(GsAcctKind kind, Size bytes, Size limit)
{
	gs_account_add(kind, bytes);
	if (gs_account_total(kind) <= limit)
		return true;
	gs_account_sub(kind, bytes);
	return false;
}

bool
gs_reserve(GsReservation *r, GsAcctKind kind, Size bytes, Size limit)
{
	if (bytes == 0)
		return true;
	if (!gs_account_claim() || bytes > limit)
		return false;
	if (!try_add(kind, bytes, limit) &&
		(!gs_account_sweep() || !try_add(kind, bytes, limit)))
		return false;
	r->bytes[kind] += bytes;
	return true;
}

void
gs_release(GsReservation *r, GsAcctKind kind, Size bytes)
{
	bytes = Min(bytes, r->bytes[kind]);
	if (bytes == 0)
		return;
	gs_account_sub(kind, bytes);
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
