/*-------------------------------------------------------------------------
 *
 * spillrun.c
 *	  Writing a GpuSort's sorted run to a temp file and reading it back.
 *
 * See spillrun.h for the format.  A run is written once, from start to end,
 * then read sequentially any number of times (each gs_run_rewind starts
 * over: a rescan of the merge).
 *
 * Each run has one buffer of its own, of GS_RUN_BUFFER bytes (more for a
 * row longer than that): rows are copied into it while writing, which goes
 * to the file whenever it fills; while reading, it holds the rows read
 * ahead, and a row is returned where it lies in it (rows start aligned, so
 * the key and the tuple are usable there): the row stays valid until the
 * next read, which may move what is left of the buffer to its start and
 * fill the rest.  That is what the merge hands to the executor.  Few, large
 * reads and writes instead of a BufFile's BLCKSZ ones spare most system
 * calls and a copy of every row; a merge of GS_SPILL_MAX_WAYS runs holds
 * that many buffers.  The batched merge (spillbatch.c) reads into windows
 * of its own instead, mostly on threads through descriptors of its own,
 * and finds the rows in them itself.
 *
 * All I/O is fd.c's, in the backend (never on a helper thread): FileWrite
 * raises on temp_file_limit (stock's ERROR), a failed or short write or
 * read is reported here.  Nothing here checks for interrupts: the callers'
 * loops do.
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include <fcntl.h>

#include "commands/tablespace.h"
#include "storage/fd.h"
#include "utils/memutils.h"
#include "utils/wait_event.h"

#include "spillrun.h"

/* a run's buffer; a longer row gets one of its size */
#define GS_RUN_BUFFER	((Size) 256 * 1024)

/* a run of one row, of the key's width, with a file or none, in cxt */
static GsRun *
new_run(MemoryContext cxt, int nwords)
{
	GsRun	   *run = MemoryContextAllocZero(cxt, sizeof(GsRun));

	Assert(nwords >= 1 && nwords <= 4);
	run->file = -1;
	run->nwords = nwords;
	run->cxt = cxt;
	return run;
}

static void
alloc_buffer(GsRun *run, Size size)
{
	run->buf = MemoryContextAllocHuge(run->cxt, size);
	run->bufsize = size;
	run->buflen = 0;
	run->pos = 0;
}

GsRun *
gs_run_create(MemoryContext cxt, int nwords, FileSet *fileset, const char *name)
{
	GsRun	   *run = new_run(cxt, nwords);

	if (fileset)
	{
		run->file = FileSetCreate(fileset, name);
		run->fileset_file = true;
	}
	else
	{
		/* as tuplesort does: temp_tablespaces, if set up */
		PrepareTempTablespaces();
		run->file = OpenTemporaryFile(false);
	}
	alloc_buffer(run, GS_RUN_BUFFER);
	run->writing = true;
	return run;
}

GsRun *
gs_run_open(MemoryContext cxt, int nwords, FileSet *fileset, const char *name)
{
	GsRun	   *run = new_run(cxt, nwords);

	run->file = FileSetOpen(fileset, name, O_RDONLY | PG_BINARY);
	run->fileset_file = true;
	run->to_eof = true;
	alloc_buffer(run, GS_RUN_BUFFER);
	return run;
}

GsRun *
gs_run_in_memory(MemoryContext cxt, int nwords, const uint64 *keys,
				 MinimalTuple *tuples, uint64 n)
{
	GsRun	   *run = new_run(cxt, nwords);

	run->nrows = n;
	run->mem_keys = keys;
	run->mem_tuples = tuples;
	return run;
}

/* writes the buffer's bytes at the file's end */
static void
flush_buffer(GsRun *run)
{
	ssize_t		done;

	if (run->buflen == 0)
		return;
	done = FileWrite(run->file, run->buf, run->buflen, run->fileoff,
					 WAIT_EVENT_BUFFILE_WRITE);
	if (done != (ssize_t) run->buflen)
		ereport(ERROR,
				(errcode_for_file_access(),
				 errmsg("could not write GpuSort temporary file: %m"),
				 errdetail("Wrote %zd of %zu bytes.", done, run->buflen)));
	run->fileoff += run->buflen;
	run->buflen = 0;
}

/* a buffer of at least need bytes, its bytes from pos on kept at its start */
static void
grow_buffer(GsRun *run, Size need)
{
	Size		size = run->bufsize;
	char	   *buf;

	while (size < need)
		size *= 2;
	if (size > MaxAllocHugeSize)
		elog(ERROR, "GpuSort run row of %zu bytes is too long", need);
	buf = MemoryContextAllocHuge(run->cxt, size);
	memcpy(buf, run->buf + run->pos, run->buflen - run->pos);
	pfree(run->buf);
	run->buf = buf;
	run->bufsize = size;
	run->buflen -= run->pos;
	run->pos = 0;
}

void
gs_run_write(GsRun *run, const uint64 *key, MinimalTuple tup)
{
	Size		kb = sizeof(uint64) * run->nwords;
	Size		rec = kb + MAXALIGN(tup->t_len);
	char	   *p;

	Assert(run->writing);
	if (run->buflen + rec > run->bufsize)
	{
		flush_buffer(run);
		if (rec > run->bufsize)
			grow_buffer(run, rec);
	}
	p = run->buf + run->buflen;
	memcpy(p, key, kb);
	memcpy(p + kb, tup, tup->t_len);
	memset(p + kb + tup->t_len, 0, rec - kb - tup->t_len);
	run->buflen += rec;
	run->nrows++;
	run->bytes += rec;
}

bool
gs_run_rewind(GsRun *run)
{
	run->left = run->to_eof ? PG_UINT64_MAX : run->nrows;
	if (run->mem_keys)
		return run->nrows > 0;
	if (run->writing)
	{
		flush_buffer(run);
		run->writing = false;
	}
	run->fileoff = 0;
	run->buflen = 0;
	run->pos = 0;
	/* a run read to its end may be empty: gs_run_next finds out */
	return run->left > 0;
}

/* reads what fits after the buffer's bytes; 0 at the file's end */
static ssize_t
read_more(GsRun *run)
{
	ssize_t		got;

	got = FileRead(run->file, run->buf + run->buflen,
				   run->bufsize - run->buflen, run->fileoff,
				   WAIT_EVENT_BUFFILE_READ);
	if (got < 0)
		ereport(ERROR,
				(errcode_for_file_access(),
				 errmsg("could not read GpuSort temporary file: %m")));
	run->buflen += got;
	run->fileoff += got;
	return got;
}

/*
 * At least need bytes from pos on in the buffer, reading more where
 * needed; false when the file ends first (nothing was left: at a row's
 * start, the end of a run read to its end)
 */
static bool
fill(GsRun *run, Size need)
{
	if (run->buflen - run->pos >= need)
		return true;
	if (need > run->bufsize)
		grow_buffer(run, need);
	else if (run->pos > 0)
	{
		memmove(run->buf, run->buf + run->pos, run->buflen - run->pos);
		run->buflen -= run->pos;
		run->pos = 0;
	}
	while (run->buflen < need)
	{
		if (read_more(run) == 0)
		{
			if (run->buflen == 0)
				return false;
			ereport(ERROR,
					(errcode(ERRCODE_DATA_CORRUPTED),
					 errmsg("could not read GpuSort temporary file: it ends within a row")));
		}
	}
	return true;
}

/*
 * Up to len bytes at off into buf, through fd.c: the batched merge's read
 * of a run with no descriptor of its own (spillbatch.c); 0 at the end
 */
ssize_t
gs_run_read_at(GsRun *run, char *buf, Size len, off_t off)
{
	ssize_t		got;

	Assert(run->file >= 0 && !run->writing && !run->mem_keys);
	got = FileRead(run->file, buf, len, off, WAIT_EVENT_BUFFILE_READ);
	if (got < 0)
		ereport(ERROR,
				(errcode_for_file_access(),
				 errmsg("could not read GpuSort temporary file: %m")));
	return got;
}

bool
gs_run_next(GsRun *run)
{
	Size		kb = sizeof(uint64) * run->nwords;
	uint32		len;
	Size		rec;

	if (run->left == 0)
		return false;
	run->left--;
	if (run->mem_keys)
	{
		uint64		i = run->nrows - run->left - 1;

		run->key = run->mem_keys + i * run->nwords;
		run->tup = run->mem_tuples[i];
		return true;
	}
	/* past the row returned last: the key and the row's length first */
	if (!fill(run, kb + sizeof(len)))
	{
		if (!run->to_eof)
			ereport(ERROR,
					(errcode(ERRCODE_DATA_CORRUPTED),
					 errmsg("could not read GpuSort temporary file: " UINT64_FORMAT " rows missing",
							run->left + 1)));
		run->left = 0;
		return false;
	}
	memcpy(&len, run->buf + run->pos + kb, sizeof(len));
	if (len < SizeofMinimalTupleHeader || len > MaxAllocHugeSize - kb - MAXIMUM_ALIGNOF)
		ereport(ERROR,
				(errcode(ERRCODE_DATA_CORRUPTED),
				 errmsg("invalid row length %u in GpuSort temporary file", len)));
	rec = kb + MAXALIGN(len);
	(void) fill(run, rec);
	run->key = (const uint64 *) (run->buf + run->pos);
	run->tup = (MinimalTuple) (run->buf + run->pos + kb);
	run->pos += rec;
	return true;
}

void
gs_run_close(GsRun *run)
{
	if (run->file >= 0)
	{
		/* a participant's run is read by another backend: write it out */
		if (run->writing && run->fileset_file)
			flush_buffer(run);
		FileClose(run->file);
	}
	run->file = -1;
	run->writing = false;
	if (run->buf)
		pfree(run->buf);
	run->buf = NULL;
	run->bufsize = run->buflen = run->pos = 0;
	run->key = NULL;
	run->tup = NULL;
}
