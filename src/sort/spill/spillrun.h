/*-------------------------------------------------------------------------
 *
 * spillrun.h
 *	  Sorted runs of a GpuSort in PostgreSQL temp files (spillrun.c).
 *
 * A run is the rows of one in-memory sort, in sorted order, each written as
 *
 *	   [key: nwords 64-bit words, native byte order][MinimalTuple: t_len
 *	   bytes][zeros up to a multiple of MAXIMUM_ALIGNOF]
 *
 * with the key exactly as the engine sorted it (engine.h): the merge
 * (losertree.h's gs_key_cmp) compares keys word by word and needs no
 * re-encoding.  A MinimalTuple starts with its length (t_len), so a reader
 * reads the key and the length, then the rest of the tuple.  Every row
 * starts aligned, so a reader returns the key and the tuple where they lie
 * in its read buffer, without copying them.
 *
 * A run may also be held in memory (gs_run_in_memory): the last rows of a
 * sort, sorted but not written, read through the same calls.
 *
 * Files are fd.c's temporary files (OpenTemporaryFile): under
 * temp_tablespaces, counted against temp_file_limit by fd.c (which raises
 * stock's ERROR), and closed and deleted by the resource owner at the end
 * of the transaction or on ERROR, if the node has not closed them itself.
 * A parallel participant's runs are files of the query's shared file set
 * instead (gs_run_create with a FileSet, sortshared.c), which outlive their
 * writer's File and go with the set when the last backend detaches from
 * it; another backend opens them (gs_run_open) and reads them up to their
 * end, as it does not know their row counts.
 *
 *-------------------------------------------------------------------------
 */
#ifndef GPUSORT_SPILLRUN_H
#define GPUSORT_SPILLRUN_H

#include "access/htup_details.h"
#include "storage/fd.h"
#include "storage/fileset.h"

typedef struct GsRun
{
	File		file;			/* or -1: a run in memory, or closed */
	bool		fileset_file;	/* of a file set: closing keeps it */
	int			nwords;			/* key words per row */
	uint64		nrows;			/* rows written */
	uint64		bytes;			/* bytes written */
	MemoryContext cxt;

	/* the buffer: rows to write, or rows read ahead */
	char	   *buf;			/* bufsize bytes (cxt), MAXALIGNed */
	Size		bufsize;
	Size		buflen;			/* bytes in buf */
	Size		pos;			/* reading: the next row in buf */
	off_t		fileoff;		/* where buf's next write or read goes */
	bool		writing;		/* written to, not yet read */

	/* reading: the current row, valid until gs_run_next or gs_run_rewind */
	bool		to_eof;			/* opened by a reader: nrows unknown */
	uint64		left;			/* rows not read yet */
	const uint64 *key;			/* in buf, or in mem_keys */
	MinimalTuple tup;

	/* a run in memory: keys and rows in output order, or NULL */
	const uint64 *mem_keys;
	MinimalTuple *mem_tuples;
} GsRun;

/* a new, empty run in a new temp file, in cxt; of fileset, as name, if set */
extern GsRun *gs_run_create(MemoryContext cxt, int nwords, FileSet *fileset,
							const char *name);

/* a run another backend wrote to fileset as name, for reading */
extern GsRun *gs_run_open(MemoryContext cxt, int nwords, FileSet *fileset,
						  const char *name);

/* a run of the n rows tuples[] whose keys are keys[] (nwords each), in memory */
extern GsRun *gs_run_in_memory(MemoryContext cxt, int nwords, const uint64 *keys,
							   MinimalTuple *tuples, uint64 n);

/* appends one row */
extern void gs_run_write(GsRun *run, const uint64 *key, MinimalTuple tup);

/* to the first row for reading (ends writing); false if the run is empty */
extern bool gs_run_rewind(GsRun *run);

/* the next row into run->key and run->tup; false at the end */
extern bool gs_run_next(GsRun *run);

/* up to len bytes at off into buf (spillbatch.c's reads in the backend) */
extern ssize_t gs_run_read_at(GsRun *run, char *buf, Size len, off_t off);

/* closes the file: deletes it, or, of a file set, writes it out and keeps it */
extern void gs_run_close(GsRun *run);

#endif							/* GPUSORT_SPILLRUN_H */
