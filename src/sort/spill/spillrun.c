/*-------------------------------------------------------------------------
 *
 * spillrun.c
 *	  Writing a GpuSort's sorted run to a temp file and reading it back.
 *
 * See spillrun.h for the format.  A run is written once, from start to end,
 * then read sequentially any number of times (each gs_run_rewind starts
 * over: a rescan of the merge).  Reading keeps one row at a time in a
 * buffer of the run's own that grows to the longest row read; the row stays
 * valid until the next read, which is what the merge hands to the
 * executor.
 *
 * All I/O goes through BufFile in the backend (never on a helper thread);
 * BufFileWrite raises on a write error and fd.c on temp_file_limit; a short
 * read is reported here.  Nothing here checks for interrupts: the callers'
 * loops do.
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "commands/tablespace.h"
#include "storage/buffile.h"
#include "storage/fd.h"
#include "utils/memutils.h"

#include "spillrun.h"

/* the first read buffer; it doubles for longer rows */
#define GS_RUN_MIN_BUFFER	1024

GsRun *
gs_run_create(MemoryContext cxt, int nwords, FileSet *fileset, const char *name)
{
	MemoryContext oldcxt = MemoryContextSwitchTo(cxt);
	GsRun	   *run = palloc0(sizeof(GsRun));

	Assert(nwords >= 1 && nwords <= 4);
	if (fileset)
		run->file = BufFileCreateFileSet(fileset, name);
	else
	{
		/* as tuplesort does: BufFileCreateTemp uses temp_tablespaces if set up */
		PrepareTempTablespaces();
		run->file = BufFileCreateTemp(false);
	}
	run->nwords = nwords;
	run->cxt = cxt;
	MemoryContextSwitchTo(oldcxt);
	return run;
}

GsRun *
gs_run_open(MemoryContext cxt, int nwords, FileSet *fileset, const char *name)
{
	MemoryContext oldcxt = MemoryContextSwitchTo(cxt);
	GsRun	   *run = palloc0(sizeof(GsRun));

	Assert(nwords >= 1 && nwords <= 4);
	run->file = BufFileOpenFileSet(fileset, name, O_RDONLY, false);
	run->nwords = nwords;
	run->cxt = cxt;
	run->to_eof = true;
	MemoryContextSwitchTo(oldcxt);
	return run;
}

GsRun *
gs_run_in_memory(MemoryContext cxt, int nwords, const uint64 *keys,
				 MinimalTuple *tuples, uint64 n)
{
	GsRun	   *run = MemoryContextAllocZero(cxt, sizeof(GsRun));

	run->nwords = nwords;
	run->nrows = n;
	run->cxt = cxt;
	run->mem_keys = keys;
	run->mem_tuples = tuples;
	return run;
}

void
gs_run_write(GsRun *run, const uint64 *key, MinimalTuple tup)
{
	Size		kb = sizeof(uint64) * run->nwords;

	/* BufFileWrite's buffer is not const before PostgreSQL 16 */
	BufFileWrite(run->file, unconstify(uint64 *, key), kb);
	BufFileWrite(run->file, tup, tup->t_len);
	run->nrows++;
	run->bytes += kb + tup->t_len;
}

bool
gs_run_rewind(GsRun *run)
{
	run->left = run->to_eof ? PG_UINT64_MAX : run->nrows;
	if (run->mem_keys)
		return run->nrows > 0;
	if (BufFileSeek(run->file, 0, 0, SEEK_SET) != 0)
		ereport(ERROR,
				(errcode_for_file_access(),
				 errmsg("could not rewind GpuSort temporary file")));
	/* a run read to its end may be empty: gs_run_next finds out */
	return run->left > 0;
}

static void
read_exact(GsRun *run, void *ptr, size_t len)
{
	size_t		got = BufFileRead(run->file, ptr, len);

	if (got != len)
		ereport(ERROR,
				(errcode(ERRCODE_DATA_CORRUPTED),
				 errmsg("could not read GpuSort temporary file: read only %zu of %zu bytes",
						got, len)));
}

bool
gs_run_next(GsRun *run)
{
	Size		kb = sizeof(uint64) * run->nwords;
	uint8		head[sizeof(uint64) * 4 + sizeof(uint32)];
	uint32		len;

	if (run->left == 0)
		return false;
	if (run->mem_keys)
	{
		uint64		i = run->nrows - run->left;

		memcpy(run->key, run->mem_keys + i * run->nwords,
			   sizeof(uint64) * run->nwords);
		run->tup = run->mem_tuples[i];
		run->left--;
		return true;
	}
	run->left--;
	/* the key and the row's length lie together: one read */
	if (run->to_eof)
	{
		size_t		got = BufFileRead(run->file, head, kb + sizeof(len));

		if (got == 0)
		{
			run->left = 0;
			return false;
		}
		if (got != kb + sizeof(len))
			ereport(ERROR,
					(errcode(ERRCODE_DATA_CORRUPTED),
					 errmsg("could not read GpuSort temporary file: read only %zu of %zu bytes",
							got, kb + sizeof(len))));
	}
	else
		read_exact(run, head, kb + sizeof(len));
	memcpy(run->key, head, kb);
	memcpy(&len, head + kb, sizeof(len));
	if (len < sizeof(len) || len > MaxAllocSize)
		ereport(ERROR,
				(errcode(ERRCODE_DATA_CORRUPTED),
				 errmsg("invalid row length %u in GpuSort temporary file", len)));
	if (len > run->bufsize)
	{
		Size		size = Max(run->bufsize * 2, GS_RUN_MIN_BUFFER);

		while (size < len)
			size *= 2;
		if (run->tup)
			pfree(run->tup);
		run->tup = MemoryContextAlloc(run->cxt, Min(size, MaxAllocSize));
		run->bufsize = Min(size, MaxAllocSize);
	}
	run->tup->t_len = len;
	read_exact(run, (char *) run->tup + sizeof(len), len - sizeof(len));
	return true;
}

void
gs_run_close(GsRun *run)
{
	if (run->file)
		BufFileClose(run->file);
	run->file = NULL;
	if (run->tup && !run->mem_keys)
		pfree(run->tup);
	run->tup = NULL;
	run->bufsize = 0;
}
