/*-------------------------------------------------------------------------
 *
 * memaccount.c
 *	  The server-wide account of the memory that GpuSorts hold.
 *
 * Each sort has its own budget (gpusort.max_memory), but sorts that run
 * at once must also stay, together, within what the server may use: past
 * its cgroup's limit the OOM killer ends a backend, and past /dev/shm's
 * size the kernel refuses a parallel query's shared memory.  So before a
 * GpuSort stores rows it reserves their bytes here, and when the account
 * has no room the sort writes sorted runs to temp files, as past its
 * budget, or (a top-N sort, a handful of rows) does what stock PostgreSQL
 * does: tuplesort within work_mem (sortnode.c); a parallel intake passes
 * its rows through the Gather (sortpar.c).  The GPU engine reserves device
 * memory here likewise.
 *
 * The account is an array of slots, one per process, each holding that
 * process's reserved bytes of every kind (GsAcctKind) in atomic counters.
 * A process changes only its own slot; a total is the sum over all slots.
 * The reservations, which add to this process's slot and check the total
 * without a lock, are memreserve.c's; this file holds the slots.
 *
 * Where the slots live:
 *
 *	 - In shared memory, the slot of this backend's number (MyBackendId,
 *	   MyProcNumber), when the library is in shared_preload_libraries.  A
 *	   backend that exits zeroes its slot; one that dies makes the
 *	   postmaster reinitialize shared memory anyway.
 *	 - Otherwise in a file, $PGDATA/pg_gpusort/account, mapped shared by
 *	   every backend that uses it.  A backend claims a free slot by an
 *	   open-file-description lock on the slot's byte of the file, held for
 *	   its life; the kernel drops the lock when the process exits, however
 *	   it exits, as with the GPU session slots (gpu_session.c).  A claimed
 *	   slot is zeroed; a reservation that fails first zeroes the slots of
 *	   processes that died holding bytes (their lock can be taken) and
 *	   tries again.
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <unistd.h>

#include "common/file_perm.h"
#include "miscadmin.h"
#include "port/atomics.h"
#include "storage/dsm_impl.h"
#include "storage/fd.h"
#include "storage/ipc.h"
#include "storage/lwlock.h"
#include "storage/shmem.h"
#include "utils/memutils.h"

#include "base/compat.h"
#include "memaccount.h"
#include "memaccount_internal.h"

/*
 * Of /dev/shm's size, what all GpuSorts of the server together may reserve;
 * the rest is left to PostgreSQL's own segments (every parallel query's)
 * and to other users of /dev/shm.
 */
#define GS_SHM_SHARE		0.75

/* slots of the file-based account: backends past this many reserve nothing */
#define GS_ACCT_FILE_SLOTS	1024

typedef union GsAcctSlot
{
	pg_atomic_uint64 bytes[GS_ACCT_NKINDS];
	char		pad[PG_CACHE_LINE_SIZE];
} GsAcctSlot;

typedef struct GsAcctShared
{
	uint32		nslots;
	GsAcctSlot	slots[FLEXIBLE_ARRAY_MEMBER];
} GsAcctShared;

static GsAcctShared *gs_acct = NULL;	/* shared memory, or the mapped file */
static bool acct_in_shmem = false;
static GsAcctSlot *my_slot = NULL;
static int	my_slot_no = -1;
static int	acct_fd = -1;
static bool acct_failed = false;
static char acct_where[MAXPGPATH + 64] = "not used yet";

static shmem_request_hook_type prev_shmem_request_hook = NULL;
static shmem_startup_hook_type prev_shmem_startup_hook = NULL;

static Size
acct_size(uint32 nslots)
{
	return add_size(offsetof(GsAcctShared, slots),
					mul_size(nslots, sizeof(GsAcctSlot)));
}

static void
zero_slot(GsAcctSlot *slot)
{
	int			k;

	for (k = 0; k < GS_ACCT_NKINDS; k++)
		pg_atomic_write_u64(&slot->bytes[k], 0);
}

/* ---- shared memory (preloaded) ------------------------------------------------ */

static void
acct_shmem_request(void)
{
	if (prev_shmem_request_hook)
		prev_shmem_request_hook();
	RequestAddinShmemSpace(acct_size(MaxBackends + 1));
}

static void
acct_shmem_startup(void)
{
	bool		found;
	uint32		nslots = MaxBackends + 1;
	uint32		i;

	if (prev_shmem_startup_hook)
		prev_shmem_startup_hook();
	LWLockAcquire(AddinShmemInitLock, LW_EXCLUSIVE);
	gs_acct = ShmemInitStruct("gpusort memory account", acct_size(nslots), &found);
	if (!found)
	{
		gs_acct->nslots = nslots;
		for (i = 0; i < nslots; i++)
		{
			int			k;

			for (k = 0; k < GS_ACCT_NKINDS; k++)
				pg_atomic_init_u64(&gs_acct->slots[i].bytes[k], 0);
		}
	}
	LWLockRelease(AddinShmemInitLock);
	acct_in_shmem = true;
	strlcpy(acct_where, "shared memory", sizeof(acct_where));
}

void
gs_account_request_shmem(void)
{
	prev_shmem_request_hook = shmem_request_hook;
	shmem_request_hook = acct_shmem_request;
	prev_shmem_startup_hook = shmem_startup_hook;
	shmem_startup_hook = acct_shmem_startup;
}

/* ---- the file (not preloaded) ------------------------------------------------- */

/*
 * Open-file-description locks belong to the descriptor, not the process:
 * nothing else the process opens or closes can drop them.  Where the
 * system has none, POSIX record locks do, as this file is opened once.
 */
#ifndef F_OFD_SETLK
#define F_OFD_SETLK F_SETLK
#endif

/* an open-file-description lock on byte i of the account file */
static bool
lock_byte(int i, short type)
{
	struct flock fl;

	memset(&fl, 0, sizeof(fl));
	fl.l_type = type;
	fl.l_whence = SEEK_SET;
	fl.l_start = i;
	fl.l_len = 1;
	return fcntl(acct_fd, F_OFD_SETLK, &fl) == 0;
}

static bool
map_file(void)
{
	char		dir[MAXPGPATH];
	char		path[MAXPGPATH];
	Size		size = acct_size(GS_ACCT_FILE_SLOTS);
	struct stat st;
	void	   *p;

	snprintf(dir, sizeof(dir), "%s/pg_gpusort", DataDir);
	snprintf(path, sizeof(path), "%s/account", dir);
	if (mkdir(dir, pg_dir_create_mode) != 0 && errno != EEXIST)
	{
		snprintf(acct_where, sizeof(acct_where), "unavailable: cannot create \"%s\": %m", dir);
		return false;
	}
	acct_fd = open(path, O_RDWR | O_CREAT | O_CLOEXEC | PG_BINARY, pg_file_create_mode);
	if (acct_fd < 0)
	{
		snprintf(acct_where, sizeof(acct_where), "unavailable: cannot open \"%s\": %m", path);
		return false;
	}
	/* a new file reads as zeros: every slot free and empty */
	if (fstat(acct_fd, &st) != 0 ||
		((Size) st.st_size < size && ftruncate(acct_fd, size) != 0))
	{
		snprintf(acct_where, sizeof(acct_where), "unavailable: cannot size \"%s\": %m", path);
		close(acct_fd);
		acct_fd = -1;
		return false;
	}
	p = mmap(NULL, size, PROT_READ | PROT_WRITE, MAP_SHARED, acct_fd, 0);
	if (p == MAP_FAILED)
	{
		snprintf(acct_where, sizeof(acct_where), "unavailable: cannot map \"%s\": %m", path);
		close(acct_fd);
		acct_fd = -1;
		return false;
	}
	gs_acct = p;
	gs_acct->nslots = GS_ACCT_FILE_SLOTS;	/* every writer writes the same */
	snprintf(acct_where, sizeof(acct_where), "file \"%s\"", path);
	return true;
}

/*
 * Zeroes the slots of processes that exited holding bytes: their lock is
 * free.  Taking the lock first keeps a process that claims the slot at
 * the same time from losing its reservation.
 */
static void
sweep_dead_slots(void)
{
	uint32		i;

	for (i = 0; i < gs_acct->nslots; i++)
	{
		GsAcctSlot *s = &gs_acct->slots[i];
		int			k;
		bool		used = false;

		if ((int) i == my_slot_no)
			continue;
		for (k = 0; k < GS_ACCT_NKINDS; k++)
			used |= pg_atomic_read_u64(&s->bytes[k]) != 0;
		if (used && lock_byte(i, F_WRLCK))
		{
			zero_slot(s);
			(void) lock_byte(i, F_UNLCK);
		}
	}
}

/* ---- this process's slot ------------------------------------------------------ */

static void
zero_my_slot(int code, Datum arg)
{
	if (my_slot)
		zero_slot(my_slot);
}

/* this process's slot, claimed on first use; NULL when there is none */
static GsAcctSlot *
get_slot(void)
{
	if (my_slot || acct_failed)
		return my_slot;
	if (acct_in_shmem)
	{
		int			slot = gs_my_backend_slot();

		if (slot >= 0 && slot < (int) gs_acct->nslots)
			my_slot_no = slot;
	}
	else if (gs_acct != NULL || map_file())
	{
		uint32		i;

		for (i = 0; i < gs_acct->nslots && my_slot_no < 0; i++)
			if (lock_byte(i, F_WRLCK))
				my_slot_no = i;
		if (my_slot_no < 0)
			snprintf(acct_where + strlen(acct_where), sizeof(acct_where) - strlen(acct_where),
					 ", all %u slots in use", gs_acct->nslots);
	}
	if (my_slot_no < 0)
	{
		acct_failed = true;
		return NULL;
	}
	my_slot = &gs_acct->slots[my_slot_no];
	zero_slot(my_slot);
	before_shmem_exit(zero_my_slot, (Datum) 0);
	return my_slot;
}

/* ---- the totals, and this process's slot for memreserve.c --------------------- */

uint64
gs_account_total(GsAcctKind kind)
{
	uint64		total = 0;
	uint32		i;

	if (get_slot() == NULL)
		return 0;
	for (i = 0; i < gs_acct->nslots; i++)
		total += pg_atomic_read_u64(&gs_acct->slots[i].bytes[kind]);
	return total;
}

uint64
gs_account_session(GsAcctKind kind)
{
	return get_slot() ? pg_atomic_read_u64(&my_slot->bytes[kind]) : 0;
}

const char *
gs_account_where(void)
{
	(void) get_slot();
	return acct_where;
}

bool
gs_account_claim(void)
{
	return get_slot() != NULL;
}

/* only after gs_account_claim said yes */
void
gs_account_add(GsAcctKind kind, Size bytes)
{
	pg_atomic_fetch_add_u64(&my_slot->bytes[kind], bytes);
}

void
gs_account_sub(GsAcctKind kind, Size bytes)
{
	if (my_slot)
		pg_atomic_fetch_sub_u64(&my_slot->bytes[kind], bytes);
}

bool
gs_account_sweep(void)
{
	if (acct_in_shmem)
		return false;
	sweep_dead_slots();
	return true;
}

/* ---- /dev/shm ----------------------------------------------------------------- */

Size
gs_shm_free(Size *size)
{
	struct statvfs vfs;

	if (size)
		*size = SIZE_MAX;
	if (dynamic_shared_memory_type != DSM_IMPL_POSIX ||
		statvfs("/dev/shm", &vfs) != 0)
		return SIZE_MAX;
	if (size)
		*size = (Size) vfs.f_blocks * vfs.f_frsize;
	return (Size) vfs.f_bavail * vfs.f_frsize;
}

Size
gs_shm_limit(void)
{
	Size		size;

	(void) gs_shm_free(&size);
	return size == SIZE_MAX ? SIZE_MAX : (Size) ((double) size * GS_SHM_SHARE);
}
