/*-------------------------------------------------------------------------
 *
 * stat.c
 *	  gpusort_stat(), gpusort_stat_reset(): cumulative counts of what
 *	  gpusort did, per database, since the server started or the last
 *	  reset, as pg_stat_statements and pg_stat_io keep theirs.
 *
 * What is counted (stat.h lists every counter):
 *
 *	 - each GpuSort once, when its memory goes (the end of the query, a
 *	   rescan that sorts again, an ERROR or a cancel): by the engine that
 *	   sorted it (gpu, cpu, tuplesort), or as cancelled when it ended before
 *	   its rows were sorted; why it ran on the CPU rather than the GPU, or
 *	   went to tuplesort; its rows, bytes, tie groups, strcoll checks and
 *	   repairs, GPU transfers and the time of each phase (sortstat.c);
 *	 - each Sort the planner left to stock PostgreSQL, by reason (planner.c):
 *	   counted when planned, so a prepared statement counts once;
 *	 - each GpuWindow's run: computed on arrays, or by its WindowAgg, and why
 *	   (windownode.c).
 *
 * Where they live: an array of per-database entries in shared memory,
 * requested when the library is preloaded (shmem_request_hook, as
 * memaccount.c's account).  An entry is claimed, under a spinlock, the
 * first time a database counts anything; its counters are atomics, so
 * a sort's figures are added with one fetch-add per nonzero counter and
 * no lock, once per sort, never per row.  A backend finds its database's
 * entry once and keeps the pointer: entries are never freed (a reset
 * zeroes them).  Past GS_STAT_MAX_DATABASES databases, the rest share one
 * entry whose dbid is NULL.
 *
 * A reset zeroes counters one by one while other backends may be adding:
 * a sort that ends during a reset may be counted partly before and partly
 * after it, as with pg_stat_statements_reset().
 *
 * Without gpusort in shared_preload_libraries nothing is kept (a library
 * loaded later cannot have shared memory of its own); the counting calls do
 * nothing, and gpusort_stat() raises an error saying so, as
 * pg_stat_statements does.  Queries work the same either way.
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "fmgr.h"
#include "funcapi.h"
#include "miscadmin.h"
#include "port/atomics.h"
#include "storage/ipc.h"
#include "storage/lwlock.h"
#include "storage/shmem.h"
#include "storage/spin.h"
#include "utils/builtins.h"
#include "utils/timestamp.h"

#include "stat.h"

/* databases with entries of their own; beyond, they share one */
#define GS_STAT_MAX_DATABASES	256

typedef struct GsStatEntry
{
	Oid			dbid;			/* InvalidOid: the shared overflow entry */
	pg_atomic_uint64 since;		/* TimestampTz: claimed or last reset */
	pg_atomic_uint64 c[GS_STAT_NCOUNTERS];
} GsStatEntry;

typedef struct GsStatShared
{
	slock_t		mutex;			/* claims an entry: nentries, dbid */
	int			nentries;
	GsStatEntry overflow;
	GsStatEntry entries[GS_STAT_MAX_DATABASES];
} GsStatShared;

#define GS_STAT_NAME(id, name) name,
static const char *const counter_names[GS_STAT_NCOUNTERS] = {
	GS_STAT_COUNTERS(GS_STAT_NAME)
};
#undef GS_STAT_NAME

static GsStatShared *gs_stat = NULL;
static GsStatEntry *my_entry = NULL;	/* MyDatabaseId's */

static shmem_request_hook_type prev_shmem_request_hook = NULL;
static shmem_startup_hook_type prev_shmem_startup_hook = NULL;

PG_FUNCTION_INFO_V1(gpusort_stat);
PG_FUNCTION_INFO_V1(gpusort_stat_reset);

/* ---- shared memory ------------------------------------------------------------ */

static void
entry_zero(GsStatEntry *e, TimestampTz now)
{
	int			k;

	for (k = 0; k < GS_STAT_NCOUNTERS; k++)
		pg_atomic_write_u64(&e->c[k], 0);
	pg_atomic_write_u64(&e->since, (uint64) now);
}

static void
entry_init(GsStatEntry *e, Oid dbid, TimestampTz now)
{
	int			k;

	e->dbid = dbid;
	for (k = 0; k < GS_STAT_NCOUNTERS; k++)
		pg_atomic_init_u64(&e->c[k], 0);
	pg_atomic_init_u64(&e->since, (uint64) now);
}

static void
stat_shmem_request(void)
{
	if (prev_shmem_request_hook)
		prev_shmem_request_hook();
	RequestAddinShmemSpace(MAXALIGN(sizeof(GsStatShared)));
}

static void
stat_shmem_startup(void)
{
	bool		found;

	if (prev_shmem_startup_hook)
		prev_shmem_startup_hook();
	LWLockAcquire(AddinShmemInitLock, LW_EXCLUSIVE);
	gs_stat = ShmemInitStruct("gpusort statistics", sizeof(GsStatShared), &found);
	if (!found)
	{
		SpinLockInit(&gs_stat->mutex);
		gs_stat->nentries = 0;
		entry_init(&gs_stat->overflow, InvalidOid, GetCurrentTimestamp());
	}
	LWLockRelease(AddinShmemInitLock);
}

void
gs_stat_request_shmem(void)
{
	prev_shmem_request_hook = shmem_request_hook;
	shmem_request_hook = stat_shmem_request;
	prev_shmem_startup_hook = shmem_startup_hook;
	shmem_startup_hook = stat_shmem_startup;
}

bool
gs_stat_enabled(void)
{
	return gs_stat != NULL;
}

/*
 * This database's entry, claimed on first use; NULL where nothing is kept
 * (not preloaded, or a process of no database).  Takes only a spinlock and
 * allocates nothing, so it may run while a transaction aborts.
 */
static GsStatEntry *
database_entry(void)
{
	int			i;

	if (my_entry || gs_stat == NULL || !OidIsValid(MyDatabaseId))
		return my_entry;
	SpinLockAcquire(&gs_stat->mutex);
	for (i = 0; i < gs_stat->nentries && my_entry == NULL; i++)
		if (gs_stat->entries[i].dbid == MyDatabaseId)
			my_entry = &gs_stat->entries[i];
	if (my_entry == NULL && gs_stat->nentries < GS_STAT_MAX_DATABASES)
	{
		my_entry = &gs_stat->entries[gs_stat->nentries];
		entry_init(my_entry, MyDatabaseId, GetCurrentTimestamp());
		/* readers see the entry only once it is filled in */
		pg_write_barrier();
		gs_stat->nentries++;
	}
	SpinLockRelease(&gs_stat->mutex);
	if (my_entry == NULL)
		my_entry = &gs_stat->overflow;
	return my_entry;
}

/* ---- counting -------------------------------------------------------------------- */

void
gs_stat_add(const GsStatDelta *d)
{
	GsStatEntry *e = database_entry();
	int			k;

	if (e == NULL)
		return;
	for (k = 0; k < GS_STAT_NCOUNTERS; k++)
		if (d->c[k] != 0)
			pg_atomic_fetch_add_u64(&e->c[k], d->c[k]);
}

void
gs_stat_count(GsStatCounter c)
{
	GsStatEntry *e = database_entry();

	if (e != NULL)
		pg_atomic_fetch_add_u64(&e->c[c], 1);
}

GsStatCounter
gs_stat_classify(const char *reason, const GsStatReason *patterns, int n,
				 GsStatCounter otherwise)
{
	int			i;

	for (i = 0; i < n; i++)
		if (strstr(reason, patterns[i].pattern) != NULL)
			return patterns[i].counter;
	return otherwise;
}

/* windownode.c's reasons for running the WindowAgg instead */
static const GsStatReason window_reasons[] = {
	{"gpusort.max_total_memory", GS_STAT_WINDOWS_TOTAL_MEMORY},
	{"gpusort.max_memory", GS_STAT_WINDOWS_MAX_MEMORY},
	{"tuplesort", GS_STAT_WINDOWS_TUPLESORT},
};

void
gs_stat_count_window(const char *why, double ms)
{
	GsStatDelta d;

	if (gs_stat == NULL)
		return;
	memset(&d, 0, sizeof(d));
	if (why[0] == '\0')
		d.c[GS_STAT_WINDOWS_COMPUTED] = 1;
	else
		d.c[gs_stat_classify(why, window_reasons, lengthof(window_reasons),
							 GS_STAT_WINDOWS_TUPLESORT)] = 1;
	gs_stat_add_ms(&d, GS_STAT_US_WINDOW, ms);
	gs_stat_add(&d);
}

/* ---- SQL ------------------------------------------------------------------------- */

static void
require_shmem(const char *function)
{
	if (gs_stat == NULL)
		ereport(ERROR,
				(errcode(ERRCODE_OBJECT_NOT_IN_PREREQUISITE_STATE),
				 errmsg("%s needs gpusort in shared_preload_libraries", function),
				 errhint("Add gpusort to shared_preload_libraries and restart the server.")));
}

/* one row of the view: dbid, the counters, since */
static void
put_entry(ReturnSetInfo *rsinfo, GsStatEntry *e)
{
	Datum		values[GS_STAT_NCOUNTERS + 2];
	bool		nulls[GS_STAT_NCOUNTERS + 2];
	int			k;

	memset(nulls, false, sizeof(nulls));
	values[0] = ObjectIdGetDatum(e->dbid);
	nulls[0] = !OidIsValid(e->dbid);
	for (k = 0; k < GS_STAT_NCOUNTERS; k++)
	{
		uint64		v = pg_atomic_read_u64(&e->c[k]);

		if (k >= GS_STAT_FIRST_TIME)
			values[k + 1] = Float8GetDatum((double) v / 1000.0);
		else
			values[k + 1] = Int64GetDatum((int64) v);
	}
	values[GS_STAT_NCOUNTERS + 1] =
		TimestampTzGetDatum((TimestampTz) pg_atomic_read_u64(&e->since));
	tuplestore_putvalues(rsinfo->setResult, rsinfo->setDesc, values, nulls);
}

static bool
entry_used(GsStatEntry *e)
{
	int			k;

	for (k = 0; k < GS_STAT_NCOUNTERS; k++)
		if (pg_atomic_read_u64(&e->c[k]) != 0)
			return true;
	return false;
}

/* the definition in SQL must be the one this library was built for */
static void
check_columns(TupleDesc desc)
{
	int			k;

	if (desc->natts != GS_STAT_NCOUNTERS + 2)
		ereport(ERROR,
				(errcode(ERRCODE_DATATYPE_MISMATCH),
				 errmsg("gpusort_stat() returns %d columns in SQL, %d in the library",
						desc->natts, GS_STAT_NCOUNTERS + 2),
				 errhint("Update the extension: ALTER EXTENSION gpusort UPDATE.")));
	for (k = 0; k < GS_STAT_NCOUNTERS; k++)
		if (strcmp(NameStr(TupleDescAttr(desc, k + 1)->attname), counter_names[k]) != 0)
			ereport(ERROR,
					(errcode(ERRCODE_DATATYPE_MISMATCH),
					 errmsg("column %d of gpusort_stat() is \"%s\" in SQL, \"%s\" in the library",
							k + 2, NameStr(TupleDescAttr(desc, k + 1)->attname),
							counter_names[k]),
					 errhint("Update the extension: ALTER EXTENSION gpusort UPDATE.")));
}

Datum
gpusort_stat(PG_FUNCTION_ARGS)
{
	ReturnSetInfo *rsinfo = (ReturnSetInfo *) fcinfo->resultinfo;
	int			n;
	int			i;

	require_shmem("gpusort_stat");
	InitMaterializedSRF(fcinfo, 0);
	check_columns(rsinfo->setDesc);

	SpinLockAcquire(&gs_stat->mutex);
	n = gs_stat->nentries;
	SpinLockRelease(&gs_stat->mutex);
	pg_read_barrier();
	for (i = 0; i < n; i++)
		put_entry(rsinfo, &gs_stat->entries[i]);
	if (entry_used(&gs_stat->overflow))
		put_entry(rsinfo, &gs_stat->overflow);
	return (Datum) 0;
}

/*
 * gpusort_stat_reset(dbid oid DEFAULT NULL): zeroes the counters of that
 * database, or of all when NULL.  Superuser only, unless granted (the
 * SQL script revokes it from PUBLIC).
 */
Datum
gpusort_stat_reset(PG_FUNCTION_ARGS)
{
	TimestampTz now = GetCurrentTimestamp();
	bool		all = PG_ARGISNULL(0);
	Oid			dbid = all ? InvalidOid : PG_GETARG_OID(0);
	int			n;
	int			i;

	require_shmem("gpusort_stat_reset");
	SpinLockAcquire(&gs_stat->mutex);
	n = gs_stat->nentries;
	SpinLockRelease(&gs_stat->mutex);
	pg_read_barrier();
	for (i = 0; i < n; i++)
		if (all || gs_stat->entries[i].dbid == dbid)
			entry_zero(&gs_stat->entries[i], now);
	if (all)
		entry_zero(&gs_stat->overflow, now);
	PG_RETURN_VOID();
}
